"""A workload's shape (`--workload 'calls=3,delay=50'`): its items read against the app's catalogue
(infra/catalogue.py: names, defaults, bounds), and whether the app would refuse it."""
import re
from dataclasses import dataclass

from harness.infra.errors import Fatal
from harness.infra.series import base_of


@dataclass(frozen=True)
class Shape:
    """A workload: whole numbers for some of a scenario's parameters. ITEMS the named ones in the
    catalogue's order, PARAMS the scenario's (Param, ...), whose defaults fill the rest."""
    items: tuple    # ((name, int), ...)
    params: tuple

    @classmethod
    def of(cls, text, params):
        """The Shape of TEXT ('calls=3,delay=50': commas or & between items, spaces allowed) for a
        scenario with PARAMS; Fatal naming the bad item: an unknown name, a name twice, a value not
        a whole number or outside the catalogue's min..max."""
        known, given = [p.name for p in params], {}
        for item in filter(None, (x.strip() for x in re.split(r"[,&]", text))):
            name, eq, value = (x.strip() for x in item.partition("="))
            p = next((p for p in params if p.name == name), None)
            if p is None or not eq:
                raise Fatal(f"workload: unknown item '{item}' "
                            f"(NAME=VALUE, NAME one of: {', '.join(known)})")
            if not re.fullmatch(r"-?[0-9]+", value):
                raise Fatal(f"workload: '{item}': '{value}' is not a whole number")
            if ((p.min is not None and int(value) < p.min)
                    or (p.max is not None and int(value) > p.max)):
                raise Fatal(f"workload: '{item}': {name} lies in {p.min}.."
                            f"{'' if p.max is None else p.max} (the app's bounds, GET /scenarios)")
            if name in given:
                raise Fatal(f"workload: '{item}': {name} given twice")
            given[name] = int(value)
        if not given:
            raise Fatal(f"workload '{text}' names nothing "
                        f"(NAME=VALUE, NAME one of: {', '.join(known)})")
        return cls(tuple((n, given[n]) for n in known if n in given), tuple(params))

    @property
    def text(self):
        """The canonical text: the named items in the catalogue's order, 'delay=50,calls=3'."""
        return ",".join(f"{n}={v}" for n, v in self.items)

    def as_dict(self):
        """Every parameter's value: the named ones, the defaults for the rest."""
        named = dict(self.items)
        return {p.name: named.get(p.name, int(p.default)) for p in self.params}

    @property
    def query(self):
        """The request's query string, every parameter: 'delay=50&calls=3&fanout=0&...'."""
        return "&".join(f"{n}={v}" for n, v in self.as_dict().items())

    @property
    def label(self):
        """The items that differ from the defaults, as a title shows them: 'delay=50, calls=3'."""
        named = dict(self.items)
        return ", ".join(f"{p.name}={named[p.name]}" for p in self.params
                         if p.name in named and str(named[p.name]) != p.default)


def planned_wait_ms(shape):
    """A workload's planned wait at the delay service (SHAPE: every item), the app's rule against
    its deadline: the sequential calls, then one delay for the concurrent ones."""
    return shape["delay"] * (shape["calls"] + (1 if shape["fanout"] else 0))


def refusals(shape, series, params, deadline_ms):
    """{series: why} for those of SERIES whose app answers the workload SHAPE (every item) with 400
    before doing anything, as the app decides it: a planned wait past DEADLINE_MS (None: not told),
    an item over its mode's own max in PARAMS (Param.by_mode)."""
    out = {}
    wait = planned_wait_ms(shape)
    late = deadline_ms and wait > deadline_ms
    for x in series:
        why = [f"it would wait {wait} ms for the delay service, more than the request deadline "
               f"of {deadline_ms} ms (bench.request-deadline)"] if late else []
        mode = base_of(x)
        why += [f"{p.name} must be at most {top} in {mode} mode, got {shape[p.name]} (the app's "
                f"bound for that mode, GET /scenarios)"
                for p in params for m, top in p.by_mode if m == mode and shape[p.name] > top]
        if why:
            out[x] = "; ".join(why)
    return out


def refuse(shape, series, params, deadline_ms, allow_some=False, what="this workload"):
    """refusals() as an error naming each reason once and the series left (ALLOW_SOME: only when
    the app refuses SHAPE in every one of SERIES); else {series: why} for those it refuses."""
    no = refusals(shape, series, params, deadline_ms)
    rest = [x for x in series if x not in no]
    if no and not (allow_some and rest):
        whys = {why: [x for x in no if no[x] == why] for why in no.values()}
        raise Fatal(f"the app refuses {what} (400) " + "; ".join(
            f"in {'every mode asked' if not rest and len(whys) == 1 else ', '.join(xs)}: {why}"
            for why, xs in whys.items())
            + (f"; measure the others with --modes {','.join(rest)}" if rest else ""))
    return no
