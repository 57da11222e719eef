"""The result model: a step's row, a trial's record and a verdict's entry as dataclasses, each
field's name, unit and column label defined once, here. summary.csv/json/md and report.html are
written from them; the JSON keeps these field names in this order (outside readers rely on them).

A StepRow reads and writes like a dict of its fields (row["p99_ok_ms"]), so a mistyped field is an
error, not a new key; as_dict() gives the plain dict the JSON and the older readers take."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field, fields


def _f(unit="", label="", text=False, digits=1):
    """A field of the model: UNIT of its figure, LABEL its column's heading, TEXT for a field that
    is no figure, DIGITS after the point in a table."""
    return field(default=None,
                 metadata={"unit": unit, "label": label, "text": text, "digits": digits})


class _Fields:
    """Dict-like access to a dataclass's fields (only those: other names raise KeyError)."""

    @classmethod
    def names(cls):
        return [f.name for f in fields(cls)]

    @classmethod
    def of(cls, mapping):
        """The model object of a dict (a row read back from summary.json): its fields, no others."""
        return cls(**{k: mapping.get(k) for k in cls.names()})

    @classmethod
    def of_file(cls, path):
        """The model object of the JSON file PATH; None when there is none (or not JSON)."""
        try:
            with open(path) as f:
                return cls.of(json.load(f))
        except (OSError, ValueError):
            return None

    def __getitem__(self, key):
        if key not in self.__dataclass_fields__:
            raise KeyError(key)
        return getattr(self, key)

    def __setitem__(self, key, value):
        if key not in self.__dataclass_fields__:
            raise KeyError(key)
        setattr(self, key, value)

    def get(self, key, default=None):
        return getattr(self, key) if key in self.__dataclass_fields__ else default

    def keys(self):
        """The fields' names: {**record} and dict(record) give its plain dict."""
        return self.__dataclass_fields__.keys()

    def as_dict(self):
        """{field: value} in the model's order (not dataclasses.asdict: no deep copy of ranges)."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}


ROW_FILE = "row.json"   # a step folder's StepRow


@dataclass
class StepRow(_Fields):
    """One step's figures (analysis/steps.py step_row), or the median of several runs'
    (verdicts.median_rows)."""
    scenario: str | None = _f(text=True, label="scenario")
    params: str | None = _f(text=True, label="parameters")    # query string: 'delay=100&calls=1'
    mode: str | None = _f(text=True, label="mode")            # the series: mode, +client, -aa
    tool: str | None = _f(text=True, label="tool")            # vegeta or hey
    load_kind: str | None = _f(text=True)                     # rate (Vegeta) or concurrency (hey)
    load: float | None = _f("req/s or in flight", "load")     # asked rate or requests in flight
    duration_s: float | None = _f("s")
    requests: int | None = _f("requests")
    send_rps: float | None = _f("req/s")                      # what the tool sent
    achieved_rps: float | None = _f("req/s", "ok req/s")      # successes per second
    success_pct: float | None = _f("%", "ok %")
    p50_ok_ms: float | None = _f("ms", "p50 ok ms")           # successes only
    p99_ok_ms: float | None = _f("ms", "p99 ok ms")
    p50_ms: float | None = _f("ms", "p50 ms")                 # every answer, fast errors included
    p90_ms: float | None = _f("ms", "p90 ms")
    p99_ms: float | None = _f("ms", "p99 ms")
    p999_ms: float | None = _f("ms", "p99.9 ms")
    p99_all_ms: float | None = _f("ms", "p99 incl. ramp-in")
    max_ms: float | None = _f("ms", "max ms")
    mean_ms: float | None = _f("ms")
    cpu_ms_per_req: float | None = _f("CPU ms per success", "CPU ms/req", digits=3)
    cpu_pct: float | None = _f("% of one core", "app CPU %")
    jit_pct: float | None = _f("% of the app's CPU", "JIT %")
    gc_pct: float | None = _f("% of the app's CPU")
    rss_peak_mib: float | None = _f("MiB", "RSS MiB")
    threads_peak: int | None = _f("threads", "threads")       # OS (platform) threads
    heap_peak_mib: float | None = _f("MiB", "heap MiB")
    pinned_events: int | None = _f("events", "pinned")
    db_pool_active_peak: int | None = _f("connections", "pool act")
    db_pool_awaiting_peak: int | None = _f("requests", "pool wait")
    worker_pool_active_peak: int | None = _f("threads")
    worker_pool_queue_peak: int | None = _f("tasks")
    worker_ceiling_rps: float | None = _f("req/s")            # Little's law for the worker pool
    gen_cpu_pct: float | None = _f("% of one core", "gen CPU %")
    delay_cpu_pct: float | None = _f("% of one core", "delay CPU %")
    host_cpu_pct: float | None = _f("% of one core", "machine CPU %")
    host_core_max_pct: float | None = _f("% of one core")
    scrape_cpu_pct: float | None = _f("% of the app's CPU")
    client: str | None = _f(text=True)
    status_codes: str | None = _f(text=True, label="status")  # '200:4990 503:10'
    errors: str | None = _f(text=True)
    flags: str | None = _f(text=True, label="flags")
    step: str | None = _f(text=True)                          # the step folder('s names)
    runs: str | None = _f(text=True)                          # median rows: '3 (median: run 2)'
    p99_range_ms: str | None = _f(text=True)                  # median rows: min-max of p99
    ranges: dict | None = _f(text=True)                       # median rows: {field: [min, max]}

    def write(self, folder):
        """FOLDER/row.json: the step's figures, measured once when it ended (steps.measure)."""
        with open(os.path.join(folder, ROW_FILE), "w") as f:
            json.dump(self.as_dict(), f)

    @classmethod
    def read(cls, folder):
        """The StepRow of FOLDER's row.json; None when it has none (a run from before it)."""
        return cls.of_file(os.path.join(folder, ROW_FILE))

    def csv_cells(self):
        """The row as summary.csv writes it: '' for no value, a dict as JSON."""
        return {k: "" if v is None else json.dumps(v) if isinstance(v, dict) else v
                for k, v in self.as_dict().items()}


FIELDS = StepRow.names()
TEXT_FIELDS = {f.name for f in fields(StepRow) if f.metadata["text"]}
UNITS = {f.name: f.metadata["unit"] for f in fields(StepRow)}
# the columns of a scenario's table in summary.md and report.html, in order
TABLE = ("mode", "tool", "load", "achieved_rps", "success_pct", "p50_ok_ms", "p99_ok_ms", "p50_ms",
         "p90_ms", "p99_ms", "p999_ms", "p99_all_ms", "max_ms", "cpu_ms_per_req", "cpu_pct",
         "gen_cpu_pct", "delay_cpu_pct", "host_cpu_pct", "jit_pct", "rss_peak_mib", "threads_peak",
         "heap_peak_mib", "pinned_events", "db_pool_active_peak", "db_pool_awaiting_peak",
         "status_codes", "flags")


def label(name):
    """The column heading of a StepRow field."""
    return StepRow.__dataclass_fields__[name].metadata["label"] or name


def digits(name):
    return StepRow.__dataclass_fields__[name].metadata["digits"]


# ------------------------------------------------------------------------------------ trial records
@dataclass(frozen=True)
class Metric:
    """A figure the verdicts compare between two series: its trial-record field, its source step-row
    field, its unit, its short label (tables, target names) and its name in a sentence or label."""
    key: str
    row_key: str | None
    unit: str
    label: str
    name: str


METRICS = {m.key: m for m in (
    Metric("cpu_ms_per_req", "cpu_ms_per_req", "CPU ms per success", "CPU ms/req",
           "CPU per request"),
    Metric("p99_ok_ms", "p99_ok_ms", "ms", "p99 of successes", "p99 latency"),
    Metric("rss_mib", "rss_peak_mib", "MiB", "peak RSS", "peak RSS"),
    Metric("ok_rate", None, "successes/s", "successes/s", "ok rate"),   # from ok and duration_s
)}


@dataclass
class TrialRecord(_Fields):
    """One series' trial (docs/statistics.md): the identifying part (trials.Trial.records), then
    what the runner measured (runs/interleave.py record_of). trials.jsonl: one a line, keys in
    this order."""
    block: int | None = _f("block")
    position: int | None = _f("trial in the block")
    scenario: str | None = _f(text=True)
    rate: float | None = _f("req/s or in flight")
    series: str | None = _f(text=True)
    invocation: int | None = _f("app invocation")
    duet_with: str | None = _f(text=True)  # the other series of a duet trial
    requests: int | None = _f("requests")
    ok: int | None = _f("successes")
    duration_s: float | None = _f("s")     # the send window, ramp-in included
    cpu_ms_per_req: float | None = _f(METRICS["cpu_ms_per_req"].unit)
    p99_ok_ms: float | None = _f(METRICS["p99_ok_ms"].unit)
    rss_mib: float | None = _f(METRICS["rss_mib"].unit)
    jit_pct: float | None = _f("%")        # the JIT threads' share of the app's CPU
    speed_us: float | None = _f("us")      # the yardstick's unit before the trial
    error: str | None = _f(text=True)
    step: str | None = _f(text=True)
    run: str | None = _f(text=True)        # pooled runs (report/pool.py): the run it came from

    @classmethod
    def of_step(cls, trial_rec, row, rc, window_s, speed_us=None):
        """One series' trial record from its identifying part TRIAL_REC (a dict) and its StepRow
        ROW; RC: the load tool's exit code; WINDOW_S: the send window; SPEED_US: the yardstick read
        just before it (or None)."""
        n = row.requests or 0
        err = (f"load tool exit {rc}" if rc
               else ("no results" if "NO_RESULTS" in (row.flags or "") else None))
        return cls(**trial_rec, requests=n, ok=round(n * (row.success_pct or 0) / 100),
                   duration_s=window_s,
                   **{m.key: row[m.row_key] for m in METRICS.values() if m.row_key},
                   jit_pct=row.jit_pct, speed_us=speed_us, error=err, step=row.step)

    @classmethod
    def write_lines(cls, path, records):
        """PATH (trials.jsonl): RECORDS (TrialRecords, or dicts of their fields) one a line."""
        with open(path, "w") as f:
            f.writelines(json.dumps(cls.of(r).as_dict()) + "\n" for r in records)

    @classmethod
    def read_lines(cls, path):
        """The TrialRecords of PATH (trials.jsonl)."""
        with open(path) as f:
            return [cls.of(json.loads(line)) for line in f if line.strip()]


TRIAL_IDS = ("block", "position", "scenario", "rate", "series", "invocation", "duet_with")


# ----------------------------------------------------------------------------------------- verdicts
@dataclass
class VerdictEntry(_Fields):
    """One target (or A/A pair) at one step (analysis/stats.py analyse): the ratio of series[0]'s
    metric over series[1]'s with its interval, and the verdict. summary.json's `verdicts` hold these
    keys in this order."""
    target: str | None = _f(text=True)
    scenario: str | None = _f(text=True)
    rate: float | None = _f("req/s or in flight")
    metric: str | None = _f(text=True)   # a key of METRICS
    series: list | None = _f(text=True)  # [a, b]: a over b
    ratio: float | None = _f("x")        # geometric mean of the blocks' ratios
    ci_low: float | None = _f("x")
    ci_high: float | None = _f("x")
    level: float | None = _f("confidence, 0-1")
    blocks: int | None = _f("blocks")
    invocations: int | None = _f("app invocations")
    verdict: str | None = _f(text=True)  # PASS, FAIL, INCONCLUSIVE
    aa: bool | None = _f(text=True)      # an A/A pair's entry
    aa_half_width: float | None = _f("fraction of 1.00")
    method: str | None = _f(text=True)
    blocks_needed: int | None = _f("blocks")
    region: list | None = _f("x")        # [low, high] of the target, None: open
    missing: dict | None = _f("blocks")  # series -> blocks without a value
    dropped: int | None = _f("blocks")
    note: str | None = _f(text=True)


VERDICT_KEYS = tuple(VerdictEntry.names())


def verdict_label(e):
    """A verdict row's label: its target and judged metric (else a step's A/A rows read alike)."""
    return f"{e['target']} ({METRICS[e['metric']].name})"


@dataclass
class StepMeta(_Fields):
    """A step's or trial's meta.json: what was asked of it, written by the run, read by the report.
    Only the fields a run sets are written; an older file's other keys are ignored."""
    index: int = None
    scenario: str = None
    mode: str = None               # the mode without its client (plan.base_of)
    series: str = None             # the series the row is named by (mode+client, A/A)
    client: str = None
    tool: str = None
    load_kind: str = None          # rate or concurrency
    load: float = None             # req/s, or requests in flight
    duration: str = None
    duration_s: float = None
    ramp_in_s: float = None
    params: str = None
    method: str = None
    url: str = None
    expected_status: int = None
    app_pid: int = None
    java_opts: str = None
    scrape_cpu_ms: float = None    # one scrape's CPU in the app (ms), stated beside its CPU
    cpu_less_scrapes: bool = None  # scrape_cpu_ms was of the warm app: the scrapes leave its CPU
    started: str = None
    block: int = None              # interleaved and duet: the trial's place (trials.Trial.records)
    position: int = None
    rate: float = None
    invocation: int = None
    duet_with: str = None
    level: int = None              # scale: requests in flight, their transport and wait
    transport: str = None
    delay_ms: int = None
    past_ceiling: bool = None

    def write(self, folder):
        with open(os.path.join(folder, "meta.json"), "w") as f:
            json.dump({k: v for k, v in self.as_dict().items() if v is not None}, f)

    @classmethod
    def read(cls, folder):
        """The StepMeta of FOLDER's meta.json; None when it has none (or not JSON)."""
        return cls.of_file(os.path.join(folder, "meta.json"))
