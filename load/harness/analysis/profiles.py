"""Where each series' CPU goes, from `compare --profile` (docs/floor.md "Where the floor's cost
goes"): each measured trial's async-profiler samples summed per series and step, as CPU ms per
request by thread kind and by layer, and the frames whose CPU differs most between two series.
report/profile_report.py writes them with a flame graph each."""
from __future__ import annotations

import collections
import os
import re
import statistics

from harness.analysis import buckets
from harness.analysis.model import StepMeta

OUT = "profiles"
TRIAL_FILE = "profile.collapsed"     # in each measured trial's folder
MEASURED = "trials.txt"              # in OUT: the folders of the measured trials, one a line
TOP = 10
# The layers between a request's bytes and its answer, by frame name; a sample counts for its
# deepest framed layer (layer_of). Ours first: the gate and size limits run inside the routing.
LAYERS = (("our request gate (Admission)", r"^org/vtvr/.*Admission"),
          ("our HTTP limits (HttpLimits)", r"^org/vtvr/.*HttpLimits"),
          ("our code (modes, floor, delay clients)", r"^org/vtvr/"),
          ("Micrometer (HTTP binders, timers)", r"^io/micrometer/|^io/quarkus/micrometer/"),
          ("Quarkus HTTP (vertx-http)", r"^io/quarkus/vertx/http/"),
          ("Quarkus REST server",
           r"^org/jboss/resteasy/reactive/server|^io/quarkus/resteasy/reactive/server"),
          ("Quarkus REST client",
           r"^org/jboss/resteasy/reactive/(client|common)|^io/quarkus/rest/client"),
          ("Mutiny", r"^io/smallrye/mutiny/"),
          ("context propagation", r"^io/smallrye/context/"),
          ("CDI (ArC)", r"^io/quarkus/arc/"),
          ("Jackson", r"^com/fasterxml/jackson/"),
          ("HttpClient 5 (socket client)", r"^org/apache/hc/"),
          ("Hibernate, JDBC, SQL clients",
           r"^org/hibernate/|^org/mariadb/|^com/mysql/|^io/vertx/mysqlclient/|"
           r"^io/vertx/sqlclient/|^io/agroal/"),
          ("Vert.x Web router", r"^io/vertx/ext/web/"),
          ("Vert.x HTTP server",
           r"^io/vertx/core/http/impl/(Http1xServer|Http2Server|HttpServer)"),
          ("Vert.x HTTP client", r"^io/vertx/core/http/impl/|^io/vertx/core/net/impl/pool"),
          ("Vert.x core", r"^io/vertx/"),
          ("virtual-thread scheduling", r"^java/lang/VirtualThread|^jdk/internal/vm/Continuation|"
                                        r"^java/util/concurrent/ForkJoin"),
          ("Netty (I/O, event loop)", r"^io/netty/"))
LAYER_RX = tuple((name, re.compile(rx)) for name, rx in LAYERS)
# pairs to compare, in this order, when both series were profiled: (series, base)
PAIRS = (("floor", "bare"), ("reactive", "floor"), ("virtual", "floor"), ("virtual", "reactive"))


def normalise(frame):
    """A frame's name without what differs between processes: hidden classes' addresses."""
    return re.sub(r"0x[0-9a-f]+", "0x", frame)


def read(path):
    """A collapsed-stacks file -> {(thread kind, frame, ...): count}; thread frame -> its kind."""
    out = collections.Counter()
    with open(path) as f:
        for line in f:
            stack, _, n = line.rstrip().rpartition(" ")
            if not stack or not n.isdigit():
                continue
            frames = stack.split(";")
            out[(buckets.kind(frames[0].strip("[]")), *map(normalise, frames[1:]))] += int(n)
    return out


def collect(dirs):
    """{(scenario, rate, series): Counter of stacks} of the trial folders DIRS."""
    out = {}
    for d in dirs:
        path, meta = os.path.join(d, TRIAL_FILE), StepMeta.read(d)
        if not (os.path.isfile(path) and meta):
            continue
        key = (meta.scenario, float(meta.load), meta.series)
        out.setdefault(key, collections.Counter()).update(read(path))
    return out


def self_samples(stacks):
    """{frame: samples in which it was the frame running (last of its stack)}, with the total."""
    out = collections.Counter()
    for stack, n in stacks.items():
        out[stack[-1]] += n
    return out, sum(out.values())


def per_request(stacks, cpu_ms):
    """{frame: CPU ms per request spent in it}: its share of the process's samples times CPU_MS
    (the process's CPU ms per request over the same trials)."""
    own, total = self_samples(stacks)
    return {f: cpu_ms * n / total for f, n in own.items()} if total else {}


def differences(a, base, top=TOP):
    """The TOP frames whose CPU ms per request differs most between A and BASE (each {"stacks",
    "cpu_ms"}), by the samples a frame ran in itself (a wrapper that only hands on differs by
    nothing): rows of frame, ms/req in each, the difference and each one's share of its CPU."""
    pa, pb = per_request(a["stacks"], a["cpu_ms"]), per_request(base["stacks"], base["cpu_ms"])
    diff = {f: pa.get(f, 0.0) - pb.get(f, 0.0) for f in set(pa) | set(pb)}
    return [{"frame": f, "ms": pa.get(f, 0.0), "base_ms": pb.get(f, 0.0), "diff_ms": diff[f],
             "share": pa.get(f, 0.0) / a["cpu_ms"] if a["cpu_ms"] else None,
             "base_share": pb.get(f, 0.0) / base["cpu_ms"] if base["cpu_ms"] else None}
            for f in sorted(diff, key=lambda f: (-abs(diff[f]), f))[:top]]


def layer_of(stack):
    """The layer a sample's CPU belongs to: JIT or GC by its thread, else that of the deepest frame
    with one (LAYERS, in order), so a JDK or kernel frame counts for its caller; 'JDK, kernel,
    other' when no frame has one."""
    if stack[0] in ("JIT", "GC"):
        return stack[0]
    for frame in reversed(stack[1:]):
        for name, rx in LAYER_RX:
            if rx.search(frame):
                return name
    return "JDK, kernel, other"


def layers(stacks, cpu_ms):
    """CPU ms per request by thread kind (buckets.THREADS) and layer (layer_of), largest first."""
    by_thread, by_layer = collections.Counter(), collections.Counter()
    for stack, n in stacks.items():
        by_thread[stack[0]] += n
        by_layer[layer_of(stack)] += n
    total = sum(by_thread.values())
    scale = cpu_ms / total if total else 0
    return {"threads": {k: v * scale for k, v in by_thread.most_common()},
            "layers": {k: v * scale for k, v in by_layer.most_common()}}


def analyse(dirs, records):
    """The profiles of the trial folders DIRS with the CPU ms per request of RECORDS (their trial
    records) -> profiles.json's data, each series' stacks under "stacks" (for its flame graph)."""
    cpu = collections.defaultdict(list)
    for r in records:
        if r.get("cpu_ms_per_req"):
            cpu[(r["scenario"], float(r["rate"]), r["series"])].append(r["cpu_ms_per_req"])
    profiles = []
    found = collect(dirs)
    for (sc, rate, series), stacks in sorted(found.items()):
        ms = statistics.median(cpu[(sc, rate, series)]) if cpu[(sc, rate, series)] else None
        profiles.append({"scenario": sc, "rate": rate, "series": series,
                         "samples": sum(stacks.values()), "cpu_ms": ms,
                         "layers": layers(stacks, ms or 0), "stacks": stacks,
                         "name": f"{sc}-{rate:g}-{series}"})
    by = {(p["scenario"], p["rate"], p["series"]): p for p in profiles}
    diffs = []
    for sc, rate in dict.fromkeys((p["scenario"], p["rate"]) for p in profiles):
        for s, b in PAIRS:
            x, y = by.get((sc, rate, s)), by.get((sc, rate, b))
            if x and y and x["cpu_ms"] and y["cpu_ms"]:
                diffs.append({"scenario": sc, "rate": rate, "series": s, "base": b,
                              "cpu_ms": x["cpu_ms"], "base_cpu_ms": y["cpu_ms"],
                              "rows": differences(x, y)})
    return {"profiles": profiles, "differences": diffs}
