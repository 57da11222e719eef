"""The scale experiment's maths (docs/scale.md): the staircase of levels in flight, the open-files
and port ceilings, the apps' limits, memory per waiting request as a slope, the targets judged."""
import math
from dataclasses import dataclass

from scipy import stats as sps

from harness.analysis import burst
from harness.analysis.steps import fmt
from harness.infra.numbers import rnd

LEVELS = (1_000, 5_000, 10_000, 25_000, 50_000, 100_000)
QUICK_LEVELS = (1_000, 5_000)
TRANSPORTS = ("http1", "h2c")

# App, delay service and Vegeta share 2 cores: past MAX_RATE a level waits longer instead
# (in flight = rate x delay)
MAX_RATE = 2_000
MIN_DELAY_MS, QUICK_MIN_DELAY_MS = 5_000, 2_000
HOLD_S, QUICK_HOLD_S = 15.0, 3.0

# Sockets a process keeps besides waiting requests (jars, pools, the database, the metrics)
FILE_RESERVE = 500

# Loopback ports per source/destination pair (ip_local_port_range 32768-60999)
PORTS_PER_PAIR = 28_232

APP_START_S, JCMD_S = 12.0, 3.0

# The deadline past the longest delay: a level's requests queue on two cores before their call
DEADLINE_SLACK_S, QUICK_DEADLINE_SLACK_S = 30, 10

# Issue #27: threads, heap and open files back within 10 % by LEAK_CHECK_S; pools drop idle
# connections and threads after IDLE_CLOSE_MS (normally 60 s, 30 s): what is left, requests kept
LEAK_CHECK_S, IDLE_CLOSE_MS = 10, 5_000


def leak_row(series, transport, what, start, answered, end):
    """One reading of the leak check: back when END is at most 10 % above START (less: no leak)."""
    return {"series": series, "transport": transport, "what": what, "start": start,
            "answered": answered, "end": end, "within_10_pct": end <= 1.1 * start}


@dataclass(frozen=True)
class Level:
    """One step of the staircase: RATE req/s of io?delay=DELAY_MS, so IN_FLIGHT wait at once
    once DELAY_MS has passed, held for HOLD_S more seconds."""
    in_flight: int
    rate: int
    delay_ms: int
    hold_s: float

    @property
    def send_s(self):
        return self.delay_ms / 1000 + self.hold_s


def plan_levels(levels, max_rate=MAX_RATE, min_delay_ms=MIN_DELAY_MS, hold_s=HOLD_S):
    """The staircase for LEVELS (requests in flight): past MAX_RATE the delay grows in 100 ms
    steps, never shorter than the level before's (its answers are back before the next hold)."""
    out = []
    for n in sorted(levels):
        delay = max(min_delay_ms, math.ceil(n * 1000 / max_rate / 100) * 100)
        out.append(Level(n, max(1, round(n * 1000 / delay)), delay, hold_s))
    return out


def sockets_per_request(transport, client=""):
    """Sockets the app holds per waiting request: the caller's over HTTP/1.1 (h2c multiplexes),
    the delay call's over HTTP/1.1 or with the socket client (HTTP/1.1 only)."""
    front = 1 if transport == "http1" else 0
    back = 1 if transport == "http1" or client == "socket" else 0
    return front + back


def ceiling(transport, client, nofile):
    """The most requests one app can hold waiting with NOFILE open files (None: no socket per
    request), and the limit that sets it."""
    per = sockets_per_request(transport, client)
    if not per:
        return None, "none of this machine's: h2c multiplexes every request on a few connections"
    return (nofile - FILE_RESERVE) // per, (
        f"open files: {per} socket(s) per waiting request in the app, {nofile:,} files per process "
        f"(loopback ports, {PORTS_PER_PAIR:,} per source/destination pair, would stop it later)")


def levels_for(levels, transport, client, nofile):
    """LEVELS one app can hold with this transport and client, and the first past its open-files
    ceiling (measured, not assumed: its row shows how the app fails)."""
    top, _ = ceiling(transport, client, nofile)
    below = tuple(n for n in levels if top is None or n <= top)
    return below + tuple(n for n in levels if top is not None and n > top)[:1]


def slope_fit(points):
    """Least-squares slope of [(x, y)], its standard error (None below three points) and the
    count; (None, None, n) below two distinct x: memory per request from (in flight, memory)."""
    pts = [(x, y) for x, y in points if x is not None and y is not None]
    if len({x for x, _ in pts}) < 2:
        return None, None, len(pts)
    n = len(pts)
    mx, my = sum(x for x, _ in pts) / n, sum(y for _, y in pts) / n
    sxx = sum((x - mx) ** 2 for x, _ in pts)
    b = sum((x - mx) * (y - my) for x, y in pts) / sxx
    if n < 3:
        return b, None, n
    residual = sum((y - my - b * (x - mx)) ** 2 for x, y in pts)
    return b, math.sqrt(residual / (n - 2) / sxx), n


def slope(points):
    return slope_fit(points)[0]


def ratio_interval(a, se_a, n_a, b, se_b, n_b, level=0.95):
    """A 95 % interval of the ratio A / B of two fitted slopes (delta method on the log ratio, t
    with the smaller fit's degrees of freedom), or None when a slope or its error is missing."""
    if None in (a, se_a, b, se_b) or a <= 0 or b <= 0 or min(n_a, n_b) < 3:
        return None
    se = math.sqrt((se_a / a) ** 2 + (se_b / b) ** 2)
    t = float(sps.t.ppf(0.5 + level / 2, min(n_a, n_b) - 2))
    return a / b * math.exp(-t * se), a / b * math.exp(t * se)


def with_slopes(rows, idle):
    """Each level row gets mem_kib_per_request and heap_kib_per_request: slopes of RSS and heap
    after GC against in-flight, over the idle app (IDLE: {(series, transport): row}) and the levels
    of its series and transport up to this one."""
    for r in rows:
        base = idle.get((r["mode"], r["transport"]), {})
        below = [base] + [o for o in rows
                          if (o["mode"], o["transport"]) == (r["mode"], r["transport"])
                          and o["level"] <= r["level"]]
        for key, value in (("mem_kib_per_request", "rss_kib"),
                           ("heap_kib_per_request", "heap_after_gc_kib")):
            b, se, n = slope_fit([(o.get("in_flight"), o.get(value)) for o in below])
            r[key], r[key + "_se"], r[key + "_n"] = rnd(b, 2), rnd(se, 3), n
    return rows


def estimate_s(groups, warm_s=0.0, bursts=()):
    """Seconds a run of GROUPS ([(series, transport, [Level])]) and BURSTS (burst.bursts_of) takes,
    an app each: start, warm-up (WARM_S), levels, drain, leak check and jcmd readings; bursts."""
    return (sum(APP_START_S + warm_s + 6 * JCMD_S + sum(lv.send_s + JCMD_S for lv in lvs)
                + LEAK_CHECK_S + 2 + (lvs[-1].delay_ms / 1000 if lvs else 0)
                for _, _, lvs in groups if lvs)
            + sum(APP_START_S + warm_s + JCMD_S + burst.estimate_s(calls)
                  for _, _, calls, skip in bursts if not skip) + 10)


def raised(levels, transport, client="", slack_s=DEADLINE_SLACK_S):
    """What this experiment raises for its apps and delay service, as environment variables (a
    normal run keeps the defaults): admission, delay, deadlines, timeouts, connections, pool."""
    top = max(x.in_flight for x in levels)
    longest_s = max(x.delay_ms for x in levels) // 1000 + 1
    env = {"BENCH_MAX_IN_FLIGHT": str(2 * top), "BENCH_MAX_DELAY": str(longest_s * 1000),
           "BENCH_REQUEST_DEADLINE": f"{longest_s + slack_s}s",
           "QUARKUS_REST_CLIENT_DELAY_READ_TIMEOUT": str((longest_s + slack_s) * 1000),
           # thousands of connections at once wait in the accept queue longer than 1 s
           "QUARKUS_REST_CLIENT_DELAY_CONNECT_TIMEOUT": "10000",
           "QUARKUS_HTTP_IDLE_TIMEOUT": f"{longest_s + 60}s",
           # idle pooled delay connections closed before the leak check reads files and heap
           "QUARKUS_REST_CLIENT_DELAY_CONNECTION_TTL": str(IDLE_CLOSE_MS),
           # and the worker pool's idle threads (30 s by default), thread-local buffers too
           "QUARKUS_THREAD_POOL_KEEP_ALIVE_TIME": f"{IDLE_CLOSE_MS // 1000}s",
           "QUARKUS_HTTP_LIMITS_MAX_CONNECTIONS": str(4 * top),
           "BENCH_DELAY_HTTP2": str(transport == "h2c").lower()}
    # a connection per waiting call: the pool must not stop it
    if sockets_per_request(transport, client):
        env["QUARKUS_REST_CLIENT_DELAY_CONNECTION_POOL_SIZE"] = str(2 * top)
    return env


def vegeta_args(level, transport):
    """Vegeta's flags for LEVEL: h2c or not, idle connections kept, enough workers at once."""
    return [*(["-h2c"] if transport == "h2c" else []),
            "-connections", str(level.in_flight + 100), "-workers", str(min(level.in_flight, 1000)),
            "-max-workers", str(2 * level.in_flight)]


def tool_args(tool, level, transport):
    """The load tool's settings for LEVEL (drivers.base.Load.extra): Vegeta's flags, or Hyperfoil's
    connections and sessions, one a waiting request (no h2c in Hyperfoil: runs/scale.py NO_H2C)."""
    if tool == "vegeta":
        return vegeta_args(level, transport)
    n = level.in_flight + 100
    return [f"connections={n}", f"sessions={n}"]


def threads_grown(start, end):
    """{name: (start, end)} for each thread name with more threads in END than in START."""
    start, end = start or {}, end or {}
    return {n: (start.get(n, 0), c) for n, c in end.items() if c > start.get(n, 0)}


def heap_growth(start, end, top=8):
    """The classes whose live objects grew most between two histograms: [[class, KiB, KiB]]."""
    grown = sorted(end, key=lambda c: end[c] - start.get(c, 0), reverse=True)[:top]
    return [[c, start.get(c, 0), end[c]] for c in grown if end[c] > start.get(c, 0)]


def targets(rows, leaks=()):
    """The issue's targets from rows and leak check: [(target, PASS | FAIL | n/a, measured)]."""
    out = []
    h2c = [r for r in rows if r["transport"] == "h2c"]
    for mode in ("virtual", "reactive"):
        top = max((r for r in h2c if r["mode"] == mode), key=lambda r: r["level"], default=None)
        name = f"{mode} holds 100,000 in flight over h2c with 100 % ok"
        if top is None:
            out.append((name, "n/a", "not measured"))
            continue
        ok = (top["level"] >= 100_000 and top.get("success_pct") == 100.0
              and (top.get("in_flight") or 0) >= 0.95 * top["level"])
        out.append((name, "PASS" if ok else "FAIL",
                    f"level {top['level']:,}: {fmt(top.get('in_flight'))} in flight, "
                    f"{fmt(top.get('success_pct'))} % ok"))
    common = sorted({r["level"] for r in h2c if r["mode"] == "virtual"}
                    & {r["level"] for r in h2c if r["mode"] == "reactive"})
    name = "memory per waiting request (RSS slope): virtual <= 2 x reactive"
    if common:
        v, x = (next(r for r in h2c if r["mode"] == m and r["level"] == common[-1])
                for m in ("virtual", "reactive"))
        a, b = v.get("mem_kib_per_request"), x.get("mem_kib_per_request")
        ratio = a / b if a is not None and b else None
        ci = ratio_interval(*(r.get(k) for r in (v, x) for k in (
            "mem_kib_per_request", "mem_kib_per_request_se", "mem_kib_per_request_n")))
        # judged on the fits' interval if any (PASS: all of it within 2x; FAIL: all of it past)
        verdict = ("n/a" if ratio is None else ("PASS" if ratio <= 2 else "FAIL") if ci is None
                   else "PASS" if ci[1] <= 2 else "FAIL" if ci[0] > 2 else "INCONCLUSIVE")
        out.append((name, verdict, f"up to {common[-1]:,} over h2c: {fmt(a)} vs {fmt(b)} KiB/req"
                    + ("" if ratio is None else f" ({ratio:.2f}x" + (
                        "" if ci is None else f", 95 % interval [{ci[0]:.2f}, {ci[1]:.2f}]")
                       + ")")))
    else:
        out.append((name, "n/a", "virtual and reactive not both measured over h2c"))
    worker = [r for r in rows if r["mode"] == "worker"]
    name = "worker refused cleanly above its bound (503/504 problems, no timeouts)"
    if worker:
        codes = {c.split(":")[0] for r in worker for c in (r.get("status_codes") or "").split()}
        clean = codes <= {"200", "503", "504"} and not any(
            e and not e.startswith(("503", "504"))
            for r in worker for e in (r.get("errors") or "").split("; "))
        out.append((name, "PASS" if clean else "FAIL",
                    f"status codes seen: {' '.join(sorted(codes)) or 'none'}"))
    else:
        out.append((name, "n/a", "worker not measured"))
    # virtual and reactive, where a client can connect: h2c, HTTP/1.1 below the files ceiling
    bad = [f"{r['mode']} {r['transport']} {r['level']:,}" for r in rows if not r.get("probe_ok")
           and r["mode"] in ("virtual", "reactive") and not r.get("past_ceiling")]
    out.append(("virtual and reactive answer at every level a client can connect to (ready within "
                "1 s, probe p99 within 100 ms)",
                "PASS" if rows and not bad else "FAIL" if bad else "n/a",
                "not at: " + ", ".join(bad) if bad else "every level"))
    grown = [f"{x['series']} {x['transport']} {x['what']} {fmt(x['start'])} -> {fmt(x['end'])}"
             for x in leaks if not x["within_10_pct"]]
    out.append(("threads, heap after GC and open files back within 10 % of the start "
                f"({LEAK_CHECK_S} s after the last answer)",
                "FAIL" if grown else "PASS" if leaks else "n/a",
                "not: " + ", ".join(grown) if grown else "all back" if leaks else "not measured"))
    return out
