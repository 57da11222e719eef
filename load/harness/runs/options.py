"""compare's options as a run reads them: a flag when given, else `--set NAME=VALUE`'s, else
the settings file's (--settings), else the default; each checked once, Fatal naming it."""
import math
import re
import tomllib

from harness.infra.catalogue import PARAM_ENV
from harness.infra.durations import parse_ms
from harness.infra.errors import Fatal
from harness.infra.settings import SET_ONLY, set_name

# what `--set` names: the scenario parameters (lower case) and the settings without a flag
SET_KEYS = tuple(k.lower() for k in PARAM_ENV) + tuple(SET_ONLY)
# a settings file's keys: those, and compare's flags (their dests) it may set too (settings_file)
FILE_KEYS = ("workload", "rates", "modes", "concurrency") + SET_KEYS


def flag(args, name, default=None):
    """--NAME's value (dashes as underscores), else `--set NAME=`'s, the file's, or DEFAULT."""
    v = getattr(args, name, None)
    if v is None:
        v = {**(getattr(args, "settings", None) or {}),
             **set_items(getattr(args, "set", None))}.get(name)
    return default if v is None else v


def boolean(args, name):
    """A true/false setting: None when not given."""
    v = flag(args, name)
    if v is not None and str(v).lower() not in ("true", "false"):
        raise Fatal(f"{name} is true or false, got '{v}'")
    return None if v is None else str(v).lower() == "true"


def whole(args, name, default, least=0, most=None, what="a whole number"):
    """A whole-number setting, NAME's text or DEFAULT, between LEAST and MOST; else Fatal."""
    v = str(flag(args, name, default))
    if not re.fullmatch(r"[0-9]+", v) or int(v) < least or most is not None and int(v) > most:
        raise Fatal(f"{name} takes {what}, got '{v}'")
    return int(v)


def positive(args, name, default, what="a positive number"):
    """A real-number setting, NAME's text or DEFAULT, finite and over 0; else Fatal."""
    v = str(flag(args, name, default))
    try:
        x = float(v)
    except ValueError:
        x = math.nan
    if not (math.isfinite(x) and x > 0):
        raise Fatal(f"{name} takes {what}, got '{v}'")
    return x


def csv(text):
    return tuple(x for x in (text or "").replace(" ", ",").split(",") if x)


def ints(text, what):
    vals = csv(text)
    for v in vals:
        if not re.fullmatch(r"[1-9][0-9]*", v):
            raise Fatal(f"rates and concurrency levels are positive integers, got '{v}'")
    return tuple(int(v) for v in vals)


def duration_ms(text, what):
    try:
        return parse_ms(text)
    except ValueError:
        raise Fatal(f"{what}, got '{text}'") from None


def settings_file(path):
    """A settings file (TOML): `workload = "calls=3,delay=50"` or a [workload] table, `rates`,
    `modes`, `concurrency` (lists), and SET_KEYS: key -> its text as a flag takes it; Fatal on
    a missing file, bad TOML or an unknown key."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise Fatal(f"settings file {path}: {e.strerror}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:   # argparse hid the latter's reason
        raise Fatal(f"settings file {path}: not TOML ({e})") from None
    out = {}
    for k, v in data.items():
        if k == "workload" and isinstance(v, dict):
            v = [f"{name}={x}" for name, x in v.items()]
        values = v if isinstance(v, list) else [v]
        if not all(isinstance(x, str | int | float) for x in values):
            raise Fatal(f"settings file {path}: {k} = {v!r}: "
                        "a text, a number, true/false or a list of them")
        out[set_name(k)] = ",".join(str(x).lower() if isinstance(x, bool) else str(x)
                                    for x in values)
    unknown = [k for k in out if k not in FILE_KEYS]
    if unknown:
        raise Fatal(f"settings file {path}: unknown key {', '.join(unknown)} "
                    f"(known: {', '.join(FILE_KEYS)})")
    return out


def set_items(items):
    """`--set NAME=VALUE` ITEMS (NAME one of SET_KEYS, dashes or underscores): name -> value;
    Fatal on an item without '=' or an unknown name."""
    out = {}
    for item in items or ():
        name, eq, value = item.partition("=")
        name = set_name(name)
        if not eq or not name:
            raise Fatal(f"--set takes NAME=VALUE (e.g. delay=50, runs=3), got '{item}'")
        if name not in SET_KEYS:
            raise Fatal(f"--set {name}: unknown (one of: {', '.join(SET_KEYS)})")
        out[name] = value.strip()
    return out
