"""A compare run's step folders -> summaries and report.html; a run folder -> docs/results.

Subcommands (`vtvr-harness report SUBCOMMAND -h`):
  build RUN_DIR             summaries and the HTML report for RUN_DIR/steps/* (or steps.tar.xz)
  render RUN_DIR            the same from RUN_DIR/summary.json (a published result, new report code)
  median OUT RUN_DIR...     the same files in OUT from several runs: per step the row of the run
                            whose p99 (successes) is the median, min-max of figures, flags counted
  figures RUN_DIR OUT_DIR   io-p99.svg and io-throughput.svg for README (standalone SVG files)
  step STEP_DIR             one line about one finished step (and its row.json, which the report
                            reads); exit 3 when the step saw errors
  hey-summary FILE.csv      a short summary of a hey CSV (load/hey.sh prints it)
  hyperfoil STEP_DIR ALL_JSON   a Hyperfoil controller's all.json into an agents dry run's step
  machine [--java JAVA] [--app-url URL] [--set KEY=VALUE ...] [--list KEY=A,B]
                            machine.json to stdout
  pool OUT RUN_DIR...       the verdicts of several interleaved runs of one design together, each
                            run's app invocations kept apart (report/pool.py)
  publish RUN_DIR DEST      RUN_DIR as a published result: what pages quote (summary.json,
                            summary.md, report.html if <= 400 KB), no raw data

Percentiles: hdrhistogram (3 significant digits); process figures: psutil; /q/metrics:
prometheus_client's parser; one offline HTML page with inline SVG (templates/report.html.j2).
Vegeta percentiles come from the raw results (`vegeta encode`): all answers and successes only
(p50_ok_ms, p99_ok_ms); without a vegeta binary from its JSON report, p99.9 and the success-only
figures empty. Environment: VEGETA (the vegeta binary; else PATH, else $VTVR_CACHE/bin/vegeta).
"""
import argparse
import json
import os
import re
import resource
import sys

from harness.analysis import tools
from harness.analysis.steps import measure, one_line, read_json, worker_ceiling, worker_pool_of
from harness.analysis.verdicts import median_rows, saturation, saturation_args, saturation_over_runs
from harness.drivers import hey, hyperfoil
from harness.infra.errors import Fatal
from harness.report import archive, contents, pool, scale_report
from harness.report.charts import series_for, svg_chart
from harness.report.pages import standalone
from harness.report.summary_files import write_all
from harness.sampling import machine


# ----------------------------------------------------------------------------------------- commands
def median(out, runs):
    """OUT's summaries and report from the medians of several runs' summary.json (RUNS: folders)."""
    runs_rows = []
    for run in runs:
        data = read_json(os.path.join(run, "summary.json"))
        if data is None:
            sys.exit(f"no summary.json in {run} (a finished compare.sh run folder)")
        runs_rows.append(data["rows"])
    rows = median_rows(runs_rows)
    os.makedirs(out, exist_ok=True)
    metas = [read_json(os.path.join(r, "machine.json"), {}) for r in runs]
    meta = dict(metas[0])
    meta["command"] = f"medians of {len(runs)} runs: " + ", ".join(
        m.get("command", "?") + f" ({os.path.basename(r.rstrip('/'))})"
        for m, r in zip(metas, runs, strict=True))
    meta["mode_order"] = [m.get("mode_order") for m in metas]
    meta["saturation_runs"] = saturation_over_runs(
        [saturation(rr, **saturation_args(m)) for rr, m in zip(runs_rows, metas, strict=True)])
    with open(os.path.join(out, "machine.json"), "w") as f:
        json.dump(meta, f, indent=1)
    write_all(out, contents.of(out, rows, meta))
    write_tools(out, runs_rows)


def figures(run, out, worker_pool):
    """The README's two io figures from a run's (or a median's) summary.json, as SVG files."""
    data = read_json(os.path.join(run, "summary.json"))
    if data is None:
        sys.exit(f"no summary.json in {run}")
    io_rows = [r for r in data["rows"] if r["scenario"] == "io"]
    veg = [r for r in io_rows if r["tool"] == "vegeta"]
    hey = [r for r in io_rows if r["tool"] == "hey"]
    ceil = worker_ceiling("io", io_rows[0]["params"], worker_pool) if io_rows else None
    os.makedirs(out, exist_ok=True)
    for name, svg in (
            ("io-p99.svg", svg_chart("p99 latency", "io, Vegeta, constant rate",
                                     series_for(veg, "p99_ok_ms"), "requested rate (req/s)", "ms")),
            ("io-throughput.svg", svg_chart(
                "throughput", "io, hey, N requests in flight", series_for(hey, "achieved_rps"),
                "concurrency", "ok req/s",
                hlines=[(ceil, f"worker ceiling {ceil:,.0f}/s")] if ceil else (), logy=False))):
        with open(os.path.join(out, name), "w") as f:
            f.write(standalone(svg))
        print(os.path.join(out, name))


def build(run):
    """RUN's summaries and report from its step folders (RUN/steps/*, or RUN/steps.tar.xz)."""
    with archive.readable(run) as raw:
        c = contents.read(run, raw)
    if not c.rows:
        sys.exit(f"no steps found under {run}/steps")
    write_all(run, c)
    write_tools(run, [c.rows])


def write_tools(out, runs_rows):
    """OUT/tools.md and tools.json: Hyperfoil beside Vegeta (analysis/tools.py) at shared steps."""
    entries = tools.agreement(runs_rows)
    if entries:
        with open(os.path.join(out, "tools.json"), "w") as f:
            json.dump(entries, f, indent=1)
        with open(os.path.join(out, "tools.md"), "w") as f:
            f.write("\n".join(tools.markdown(entries)))
        print(f"tools side by side -> {os.path.join(out, 'tools.md')}")


def render(result):
    """RESULT's summaries and report again from its summary.json (a published result without its
    per-request records, after a change of the report's code or template)."""
    data = read_json(os.path.join(result, "summary.json"))
    if data is None:
        sys.exit(f"no summary.json in {result}")
    if data.get("experiment") == "scale":
        scale_report.rerender(result, data, resource.getrlimit(resource.RLIMIT_NOFILE)[1])
        return
    meta = read_json(os.path.join(result, "machine.json"), data.get("machine") or {})
    write_all(result, contents.of(result, data["rows"], meta, published=data))


def hey_summary(path):
    print("\n".join([*hey.summary(path), f"(written to {path})"]))


def hyperfoil_results(step, all_json):
    """STEP/results.hf.json and results.json from a Hyperfoil controller's ALL_JSON."""
    doc = read_json(all_json)
    if doc is None:
        sys.exit(f"{all_json}: not a JSON file (a Hyperfoil controller's all.json)")
    run = hyperfoil.from_controller(doc)
    if not run["phases"]:
        sys.exit(f"{all_json}: no statistics of the metric 'request' "
                 "(a benchmark the harness wrote?)")
    with open(os.path.join(step, "results.hf.json"), "w") as f:
        json.dump(run, f)
    with open(os.path.join(step, "results.json"), "w") as f:
        json.dump(hyperfoil.report(run), f)
    print(one_line(measure(
        step, worker_pool_of(read_json(os.path.join(step, "..", "..", "machine.json"), {})))))
    return 0


def machine_json(java=None, app_url=None, sets=(), lists=()):
    """machine.json's facts (machine.facts), the app's /q/info at APP_URL, KEY=VALUE extras."""
    extra = dict(kv.split("=", 1) for kv in sets)
    extra.update({k: [x for x in v.split(",") if x] for k, v in (kv.split("=", 1) for kv in lists)})
    facts = machine.facts(java=java, app=machine.app_info(app_url) if app_url else None)
    facts.update(extra)   # after: an extra may be named app (the app's description)
    return facts


def parser():
    p = argparse.ArgumentParser(prog="vtvr-harness report", description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n")[1])
    sub = p.add_subparsers(dest="cmd", required=True, metavar="SUBCOMMAND")
    sub.add_parser("build", help="summaries and report.html of a run folder").add_argument("run")
    sub.add_parser("render", help="the same from the run's summary.json (a published result)"
                   ).add_argument("run")
    m = sub.add_parser("median", help="the same from the medians of several runs")
    m.add_argument("out")
    m.add_argument("runs", nargs="+")
    f = sub.add_parser("figures", help="README's io figures as SVG files")
    f.add_argument("run")
    f.add_argument("out")
    sub.add_parser("step", help="one line about one finished step; exit 3 when it saw errors"
                   ).add_argument("step")
    sub.add_parser("hey-summary", help="a short summary of a hey CSV").add_argument("file")
    hf = sub.add_parser(
        "hyperfoil", help="a Hyperfoil controller's all.json into a step folder the agents dry run "
        "wrote (docs/distributed.md); then `report build` of the run")
    hf.add_argument("step")
    hf.add_argument("all_json")
    mc = sub.add_parser("machine", help="machine.json to stdout")
    mc.add_argument("--java", help="the java binary the apps ran on, for its version")
    mc.add_argument("--app-url",
                    help="a running app whose /q/info tells its settings and Quarkus version")
    mc.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    mc.add_argument("--list", action="append", default=[], metavar="KEY=A,B")
    po = sub.add_parser("pool", help="the verdicts of several interleaved runs together "
                        "(their invocations apart)")
    po.add_argument("out")
    po.add_argument("runs", nargs="+")
    pb = sub.add_parser("publish", help="a run folder as a published result (docs/results), "
                        "without its raw data")
    pb.add_argument("run")
    pb.add_argument("dest")
    return p


def main(argv=None):
    a = parser().parse_args(argv)
    if a.cmd == "build":
        build(a.run)
    elif a.cmd == "render":
        render(a.run)
    elif a.cmd == "median":
        median(a.out, a.runs)
    elif a.cmd == "figures":
        figures(a.run, a.out, worker_pool_of(read_json(os.path.join(a.run, "machine.json"), {})))
    elif a.cmd == "step":
        if not os.path.isfile(os.path.join(a.step, "meta.json")):
            raise Fatal(f"no step in {a.step} (a step folder of a run holds its meta.json)")
        row = measure(a.step, worker_pool_of(
            read_json(os.path.join(a.step, "..", "..", "machine.json"), {})))
        print(one_line(row))
        return 3 if re.search(r"ERRORS|NO_ANSWERS|NO_RESULTS", row["flags"] or "") else 0
    elif a.cmd == "hey-summary":
        hey_summary(a.file)
    elif a.cmd == "hyperfoil":
        return hyperfoil_results(a.step, a.all_json)
    elif a.cmd == "pool":
        try:
            return pool.pool(a.out, a.runs)
        except Fatal as e:
            print(f"error: {e}", file=sys.stderr)
            return 1
    elif a.cmd == "machine":
        print(json.dumps(machine_json(a.java, a.app_url, a.set, a.list), indent=2))
    else:
        try:
            size, left = archive.pack(a.run, a.dest)
        except ValueError as e:
            print(f"not published: {e}", file=sys.stderr)
            return 1
        for rel in left:
            print(f"warning: {rel} left out (summary.json, summary.md and report.html together "
                  f"over {archive.LIMIT / 1000:,.0f} KB: docs/results/README.md); it stays in "
                  f"{a.run}", file=sys.stderr)
        print(f"{a.dest}: {size / 1024:,.0f} KiB (the raw files stay in {a.run}: not committed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
