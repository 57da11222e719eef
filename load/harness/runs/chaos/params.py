"""The fault checks' settings: each a flag of `chaos` (chaos.sh -h) with its --quick and default."""
import re
import time

from harness.infra.catalogue import table
from harness.infra.errors import Fatal

# (quick, default) of the settings --quick changes
QUICK = {"DURATION": (8, 30), "WARMUP": (3, 10), "OVERLOAD_TIMEOUT": ("5s", "10s"),
         "CHECKOUT_LEAD": (4, 10), "CHECKOUT_GAP": (5, 10), "CHECKOUT_TAIL": (8, 15),
         "CHECKOUT_WARMUP": (3, 5), "HOSTILE_FLOOD": (5, 10)}
DEFAULTS = {"RATE_WORKER": 4000, "RATE_VIRTUAL": 10000, "RATE_REACTIVE": 16000,
            "OVERLOAD_WORKERS": 6000, "RECOVERY_LIMIT": 10, "RECOVERY_GIVE_UP": 40,
            "SIGTERM_RATE": 1000, "SIGTERM_AFTER": 3, "SIGTERM_LIMIT": 12, "CHECKOUT_RATE": 100,
            "CHECKOUT_TIMEOUT": "60s", "OUTAGE": 3, "DB_DOWN_LIMIT": 5, "WARMUP_RATE": 300}
TEXT = {"OVERLOAD_TIMEOUT", "CHECKOUT_TIMEOUT"}
# the app's quarkus.shutdown.timeout (application.properties), the longest SIGTERM's exit waits:
# only the SIGTERM limit's part past it is the machine's (stretched on a slow one: stretch_limits)
SHUTDOWN_S = 10
# params.json's names of the settings that are not their lower-case name (a unit added)
PARAM_NAMES = {k: k.lower() + "_s" for k in (
    "DURATION", "RECOVERY_LIMIT", "SIGTERM_AFTER", "SIGTERM_LIMIT", "CHECKOUT_LEAD", "CHECKOUT_GAP",
    "CHECKOUT_TAIL", "CHECKOUT_WARMUP", "OUTAGE", "DB_DOWN_LIMIT", "HOSTILE_FLOOD", "WARMUP")}
PARAM_NAMES["DELAY"] = "delay_ms"
CHECKS = ("overload", "hostile", "sigterm", "checkout")


def settings(args):
    """The run's parameters (the flags over the --quick or default presets); Fatal on bad values."""
    given = lambda k, v: (str(v) if getattr(args, k.lower(), None) is None  # noqa: E731
                          else getattr(args, k.lower()))
    p = {k: given(k, v[0] if args.quick else v[1]) for k, v in QUICK.items()}
    p |= {k: given(k, v) for k, v in DEFAULTS.items()}
    p["DELAY"] = given("DELAY", table().default("DELAY"))   # the app's catalogue
    if args.duration:
        p["DURATION"] = args.duration
    for k, v in p.items():
        if k not in TEXT and not re.fullmatch(r"[0-9]+", v):
            raise Fatal(f"{k} must be a whole number, got '{v}'")
    p = {k: v if k in TEXT else int(v) for k, v in p.items()}
    for c in args.checks.split(","):
        if c not in CHECKS:
            raise Fatal(f"unknown check '{c}' (overload, hostile, sigterm, checkout)")
    modes = table().modes
    for m in args.modes.split(","):
        if m not in modes:
            raise Fatal(f"unknown mode '{m}' (one of: {' '.join(modes)})")
    if p["CHECKOUT_TAIL"] < 1 or p["CHECKOUT_RATE"] < 1:
        raise Fatal("CHECKOUT_TAIL and CHECKOUT_RATE must be at least 1")
    return p


def stretch_limits(p, factor):
    """P's timed limits on a machine FACTOR times slower than the one they were set on (yardstick.
    stretch): the overload round's recovery (a backlog drained) wholly, SIGTERM's past SHUTDOWN_S;
    the probes give up no sooner than 10 s past the recovery limit. P is changed in place."""
    p["RECOVERY_LIMIT"] = round(p["RECOVERY_LIMIT"] * factor, 1)
    p["RECOVERY_GIVE_UP"] = max(p["RECOVERY_GIVE_UP"], p["RECOVERY_LIMIT"] + 10)
    past = max(0, p["SIGTERM_LIMIT"] - SHUTDOWN_S)
    p["SIGTERM_LIMIT"] = round(p["SIGTERM_LIMIT"] - past + past * factor, 1)
    return p


def sleep_until(t0, seconds):
    time.sleep(max(0.0, t0 + seconds - time.time()))


def figure_line(f):
    return (f"{f['requests']} requests at {f['rate']}/s achieved (throughput {f['throughput']}/s), "
            f"codes {f['codes']}, p50 {f['p50_ms']} ms, p99 {f['p99_ms']} ms"
            + (f", errors {f['errors']}" if f["errors"] else ""))


def books_line(books):
    """chaos.verify's checkout bookkeeping BOOKS in one line."""
    return (f"{books['requests']} requests, errors by status {books['errors_by_status']}, "
            f"acknowledged {books['acknowledged']} {books['acknowledged_by_mode']}, "
            f"found in DB {books['found_in_db']}, found without ack {books['found_without_ack']}, "
            f"unknown (no answer) {books['found_unknown_client_gave_up']}, "
            f"ack not readable {books['acknowledged_not_readable']}, "
            f"ack missing in DB {books['acknowledged_missing_in_db']}, "
            f"duplicates {books['duplicate_rows']}, after DB back {books['after_db_back']}"
            + (f", e.g. {books['examples']}" if books["examples"] else ""))
