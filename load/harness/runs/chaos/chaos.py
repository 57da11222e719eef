"""The fault checks' probes and analysis (load/chaos.sh): targets, recovery and smoke probes, the
checkout bookkeeping, check records and the run's summary. runs/chaos/run.py calls these
functions; `python -m harness.runs.chaos.chaos SUBCOMMAND -h` runs one by hand.

  targets  Vegeta JSON targets, POST BASE+PATH round-robin over the paths, each with its own
           customer tag PREFIX-R-<n> in the body and (for the error side of the bookkeeping)
           appended to the query string
  report   compact figures of one Vegeta JSON report (requests, rate, codes, latency)
  recover  every path probed until it answers 200; recovery = the last path's first 200 after
           SINCE; then a confirmation round (3 requests per path) that must be all 200
  smoke    each path TRIES times: every answer must be EXPECT and the median time at most LIMIT
           (one slow answer on a busy machine is noise; a service waiting for a timeout is slow
           every time)
  verify   the checkout bookkeeping: acknowledged orders readable with their customer, no order
           without a 2xx
  check    one check's record
  summary  checks/*.json -> summary.json, summary.md; prints the table
"""
import argparse
import base64
import collections
import concurrent.futures
import datetime
import json
import pathlib
import re
import sys
import threading
import time

from harness.infra.procs import fetch


def write_targets(base, paths, runid, count, out, prefix="chaos"):
    """COUNT Vegeta JSON targets into the file OUT, round-robin over PATHS: MODE=PATH items (the
    path with its query, split from the mode at the first '=')."""
    paths = [p.split("=", 1)[1] for p in paths]
    with open(out, "w") as f:
        for n in range(count):
            path = paths[n % len(paths)]
            tag = f"{prefix}-{runid}-{n}"
            body = json.dumps({"customer": tag, "sku": "SKU-chaos",
                               "quantity": 1 + n % 5}).encode()
            f.write(json.dumps({
                "method": "POST",
                "url": f"{base}{path}{'&' if '?' in path else '?'}tag={tag}",
                "body": base64.b64encode(body).decode(),
                "header": {"Content-Type": ["application/json"]},
            }) + "\n")


def report_figures(r):
    lat = r.get("latencies", {})
    return {
        "requests": r.get("requests", 0),
        "rate": round(r.get("rate", 0), 1),
        "throughput": round(r.get("throughput", 0), 1),
        "success": round(r.get("success", 0), 4),
        "codes": {str(k): v for k, v in sorted((r.get("status_codes") or {}).items())},
        "p50_ms": round(lat.get("50th", 0) / 1e6, 1),
        "p99_ms": round(lat.get("99th", 0) / 1e6, 1),
        "max_ms": round(lat.get("max", 0) / 1e6, 1),
        "errors": [e[-100:] for e in (r.get("errors") or [])[:3]],
    }


def recover(base, paths, since, limit=10.0, give_up=30.0, timeout=5.0):
    """Probes every path of PATHS until it answers 200 (at most until SINCE + GIVE_UP, epoch
    seconds), then three more times each; pass when all recovered within LIMIT seconds of SINCE and
    the confirmation was all 200."""
    deadline = since + give_up
    first, last = {}, {}

    def until_200(path):
        while time.time() < deadline:
            code, _ = fetch(base + path, timeout)
            last[path] = code
            if code == 200:
                first[path] = round(time.time() - since, 2)
                return
            time.sleep(0.1)

    threads = [threading.Thread(target=until_200, args=(p,)) for p in paths]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    recovered = len(first) == len(paths)
    confirm = ({p: [fetch(base + p, timeout)[0] for _ in range(3)] for p in paths}
               if recovered else {})
    recovery = max(first.values()) if recovered else None
    ok = recovered and recovery <= limit and all(c == 200 for cs in confirm.values() for c in cs)
    return {"recovery_s": recovery, "limit_s": limit, "first_200_s": first,
            "still_failing": {p: last.get(p) for p in paths if p not in first},
            "confirm": confirm, "pass": ok}


def smoke(base, paths, expect, limit, tries=3):
    """Each path of PATHS TRIES times: pass when every answer is EXPECT and each path's median time
    <= LIMIT s."""
    out = {}
    for p in paths:
        runs = []
        for _ in range(tries):
            t0 = time.time()
            code, _ = fetch(base + p, 30)
            runs.append({"code": code, "s": round(time.time() - t0, 3)})
        times = sorted(t["s"] for t in runs)
        out[p] = {"codes": [t["code"] for t in runs], "seconds": [t["s"] for t in runs],
                  "median_s": times[len(times) // 2]}
    ok = all(c == expect for v in out.values() for c in v["codes"]) and all(
        v["median_s"] <= limit for v in out.values())
    return {"expect": expect, "limit_s": limit, "paths": out, "pass": ok}


def verify(results, base, db_rows, db_back=None, timeline=None):
    """The checkout bookkeeping of one Vegeta run. RESULTS: `vegeta encode -to json` output (a
    file); DB_ROWS: the run's orders from the database, tab-separated, customer first; DB_BACK:
    epoch seconds when the database came back (a request sent after it must then succeed);
    TIMELINE: a CSV for the status codes per second. Every acknowledged order must read back from
    BASE with its customer and be in the database once; no order may be there without a 2xx unless
    its request got no answer at all ("unknown")."""
    with open(results) as f:
        results = [json.loads(line) for line in f if line.strip()]
    by_tag, dup_tags = {}, 0
    for r in results:
        tag = r["url"].rsplit("tag=", 1)[-1]
        dup_tags += tag in by_tag
        by_tag[tag] = r
    codes = collections.Counter(str(r["code"]) for r in results)
    acked, ack_problems = acknowledged(by_tag)
    unreadable = unreadable_orders(base, acked)
    with open(db_rows) as f:
        rows = [line.split("\t") for line in f.read().splitlines() if line.strip()]
    in_db = collections.Counter(row[0] for row in rows)
    found = set(in_db)
    without_ack = sorted(found - set(acked))
    # a request that got no HTTP answer (client timeout, reset) may have committed: "unknown"
    unknown = [t for t in without_ack if t in by_tag and by_tag[t]["code"] == 0]
    violations = [t for t in without_ack if t not in unknown]
    missing = sorted(set(acked) - found)
    after_db = None
    if db_back is not None:
        since_ns = db_back * 1e9
        late = [r for r in results if _ts_ns(r["timestamp"]) >= since_ns]
        after_db = {"requests": len(late), "2xx": sum(200 <= r["code"] < 300 for r in late)}
    if timeline and results:
        write_timeline(timeline, results, codes)
    errors_by_status = {k: v for k, v in sorted(codes.items()) if not k.startswith("2")}
    by_mode = collections.Counter(m for m, _ in acked.values())
    figures = {
        "requests": len(results), "codes": dict(sorted(codes.items())),
        "errors_by_status": errors_by_status,
        "acknowledged": len(acked), "acknowledged_by_mode": dict(sorted(by_mode.items())),
        "found_in_db": len(found), "duplicate_rows": sum(c - 1 for c in in_db.values()),
        "duplicate_tags_sent": dup_tags,
        "acknowledged_not_readable": len(unreadable) + len(ack_problems),
        "acknowledged_missing_in_db": len(missing),
        "found_without_ack": len(violations), "found_unknown_client_gave_up": len(unknown),
        "after_db_back": after_db,
        "examples": (ack_problems + unreadable)[:5] + [
            f"{t}: in DB, request answered {by_tag[t]['code'] if t in by_tag else 'never sent'}"
            for t in violations[:5]],
    }
    figures["pass"] = (len(results) > 0 and not dup_tags and not ack_problems and not unreadable
                       and not missing and not violations and figures["duplicate_rows"] == 0
                       and (after_db is None or after_db["2xx"] > 0))
    return figures


def acknowledged(by_tag):
    """({tag: (mode, orderId)} of every 2xx, [what is wrong with the 2xx bodies, one text each])."""
    acked = {}   # tag -> (mode, orderId) for every 2xx
    ack_problems = []
    for tag, r in by_tag.items():
        if not 200 <= r["code"] < 300:
            continue
        mode = r["url"].split("/")[3]
        try:
            body = json.loads(base64.b64decode(r.get("body") or ""))
            oid, customer = body["orderId"], body["order"]["customer"]
        except Exception as e:   # noqa: BLE001
            ack_problems.append(f"{tag}: 2xx without a readable orderId ({e})")
            continue
        if customer != tag:
            ack_problems.append(f"{tag}: 2xx body names customer {customer}")
        acked[tag] = (mode, oid)
    return acked, ack_problems


def unreadable_orders(base, acked):
    """What is wrong with each order of ACKED that does not read back from BASE, one text each."""

    def read_back(item):
        tag, (mode, oid) = item
        # a probe that got no answer at all is retried; a wrong answer is not
        for _ in range(3):
            code, body = fetch(f"{base}/{mode}/orders/{oid}", 10)
            if code:
                break
        if code != 200:
            return f"{tag}: GET /{mode}/orders/{oid} answered {code}"
        customer = json.loads(body).get("order", {}).get("customer")
        return (None if customer == tag
                else f"{tag}: GET /{mode}/orders/{oid} names customer {customer}")

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        return [p for p in pool.map(read_back, acked.items()) if p]


def write_timeline(timeline, results, codes):
    """The CSV TIMELINE: the status codes of RESULTS per second of the run."""
    t0 = min(_ts_ns(r["timestamp"]) for r in results)
    per = collections.defaultdict(collections.Counter)
    for r in results:
        per[(_ts_ns(r["timestamp"]) - t0) // 1_000_000_000][str(r["code"])] += 1
    cols = sorted(codes)
    with open(timeline, "w") as f:
        f.write("second," + ",".join(cols) + "\n")
        for sec in sorted(per):
            f.write(f"{sec}," + ",".join(str(per[sec][c]) for c in cols) + "\n")


def _ts_ns(ts):
    """Vegeta's RFC 3339 timestamp -> epoch nanoseconds (Go leaves out a fraction that is zero)."""
    m = re.fullmatch(r"([^.Z+]+?)(?:\.(\d+))?(Z|[+-]\d\d:\d\d)?", ts)
    main, frac, tz = m.group(1), m.group(2) or "", m.group(3) or "Z"
    dt = datetime.datetime.fromisoformat(main + ("+00:00" if tz == "Z" else tz))
    return int(dt.timestamp()) * 1_000_000_000 + int((frac + "000000000")[:9])


def figure_value(v):
    """A check figure given as text: @FILE.json is that file's JSON, JSON text its value, else the
    text."""
    if v.startswith("@"):
        with open(v[1:]) as f:
            return json.load(f)
    try:
        return json.loads(v)
    except ValueError:
        return v


def write_check(out, cid, name, passed, figures):
    """One check's record (id, name, pass, figures) into the file OUT; returns it."""
    rec = {"id": cid, "name": name, "pass": bool(passed), "figures": figures}
    pathlib.Path(out).write_text(json.dumps(rec, indent=1) + "\n")
    return rec


def line_of(rec):
    """One human line of figures per check."""
    f = rec["figures"]
    parts = []
    for k, v in f.items():
        if isinstance(v, dict) and "acknowledged" in v:
            parts.append(f"{v['requests']} req, errors {v['errors_by_status']}, acknowledged "
                         f"{v['acknowledged']}, found {v['found_in_db']}, found without ack "
                         f"{v['found_without_ack']}, unknown {v['found_unknown_client_gave_up']}, "
                         f"ack not readable {v['acknowledged_not_readable']}, after DB back "
                         f"{v['after_db_back']}")
        elif isinstance(v, dict) and "requests" in v and "codes" in v:
            parts.append(f"{k}: {v['requests']} req"
                         + (f" at {v['rate']}/s" if "rate" in v else "") + f", codes {v['codes']}")
        elif isinstance(v, dict) and "recovery_s" in v:
            parts.append(f"recovery {v['recovery_s']} s (limit {v['limit_s']} s)"
                         + (f", still failing {v['still_failing']}" if v["still_failing"] else ""))
        elif isinstance(v, dict) and "expect" in v and "paths" in v:
            parts.append(f"{k}: " + ", ".join(
                f"{p.split('?')[0]} {x['codes']} median {x['median_s']} s"
                for p, x in v["paths"].items()))
        elif not isinstance(v, (dict, list)):
            parts.append(f"{k} {v}")
    return "; ".join(parts)


def summary(out, incomplete=False):
    """OUT/checks/*.json and OUT/params.json -> OUT/summary.json and summary.md; returns (passed,
    the lines to print). INCOMPLETE: the run ended early, FAIL whatever the checks say."""
    out = pathlib.Path(out)
    checks = [json.loads(p.read_text()) for p in sorted((out / "checks").glob("*.json"))]
    params = json.loads((out / "params.json").read_text())
    passed = all(c["pass"] for c in checks) and bool(checks) and not incomplete
    (out / "summary.json").write_text(json.dumps({"pass": passed, "complete": not incomplete,
                                                  "params": params, "checks": checks},
                                                 indent=1) + "\n")
    title = ("FAIL (run cut short; the checks it finished are below)" if incomplete
             else "PASS" if passed else "FAIL")
    md = [f"# Chaos run {params.get('started', '')}: {title}", "",
          "Parameters: " + ", ".join(f"{k}={v}" for k, v in params.items()), "",
          "| check | result | figures |", "| --- | --- | --- |"]
    for c in checks:
        md.append(f"| {c['id']} {c['name']} | {'pass' if c['pass'] else '**FAIL**'} | "
                  f"{line_of(c).replace('|', '/')} |")
    (out / "summary.md").write_text("\n".join(md) + "\n")
    lines = [f"{'PASS' if c['pass'] else 'FAIL'}  {c['id']} {c['name']}: {line_of(c)}"
             for c in checks]
    lines.append(f"{'PASS' if passed else 'FAIL'}  "
                 f"{sum(c['pass'] for c in checks)}/{len(checks)} checks"
                 + (" (run cut short)" if incomplete else ""))
    return passed, lines


def parser():
    """The command line of `chaos-probe`: one subcommand per probe (the module's docstring)."""
    p = argparse.ArgumentParser(prog="vtvr-harness chaos-probe", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("targets")
    t.add_argument("--base", required=True)
    t.add_argument("--path", action="append", required=True, metavar="MODE=PATH")
    t.add_argument("--runid", required=True)
    t.add_argument("--prefix", default="chaos")
    t.add_argument("--count", type=int, required=True)
    t.add_argument("--out", required=True)
    r = sub.add_parser("report")
    r.add_argument("file")
    rc = sub.add_parser("recover")
    rc.add_argument("--base", required=True)
    rc.add_argument("--paths", required=True)
    rc.add_argument("--since", type=float, required=True)
    rc.add_argument("--limit", type=float, default=10)
    rc.add_argument("--give-up", type=float, default=30)
    rc.add_argument("--timeout", type=float, default=5)
    v = sub.add_parser("verify")
    v.add_argument("--results", required=True)
    v.add_argument("--base", required=True)
    v.add_argument("--db-rows", required=True)
    v.add_argument("--runid", help="(unused; the tags carry it)")
    v.add_argument("--db-back", type=float)
    v.add_argument("--timeline", help="write the status codes per second of the run to this CSV")
    sm = sub.add_parser("smoke")
    sm.add_argument("--base", required=True)
    sm.add_argument("--paths", required=True)
    sm.add_argument("--expect", type=int, required=True)
    sm.add_argument("--limit", type=float, required=True)
    sm.add_argument("--tries", type=int, default=3)
    c = sub.add_parser("check")
    c.add_argument("out")
    c.add_argument("id")
    c.add_argument("name")
    c.add_argument("passed")
    c.add_argument("figures", nargs="*", metavar="KEY=VALUE|KEY=@FILE.json")
    s = sub.add_parser("summary")
    s.add_argument("--dir", required=True)
    s.add_argument("--incomplete", action="store_true",
                   help="the run ended early: FAIL whatever the checks say")
    return p


def main(argv=None):
    a = parser().parse_args(argv)
    if a.cmd == "targets":
        write_targets(a.base, a.path, a.runid, a.count, a.out, a.prefix)
    elif a.cmd == "report":
        with open(a.file) as f:
            print(json.dumps(report_figures(json.load(f))))
    elif a.cmd == "recover":
        print(json.dumps(recover(a.base, a.paths.split(","), a.since, a.limit, a.give_up,
                                 a.timeout)))
    elif a.cmd == "smoke":
        print(json.dumps(smoke(a.base, a.paths.split(","), a.expect, a.limit, a.tries)))
    elif a.cmd == "verify":
        print(json.dumps(verify(a.results, a.base, a.db_rows, a.db_back, a.timeline)))
    elif a.cmd == "check":
        write_check(a.out, a.id, a.name, a.passed in ("1", "true", "yes", "pass"),
                    {k: figure_value(v) for k, _, v in (kv.partition("=") for kv in a.figures)})
    else:
        passed, lines = summary(a.dir, a.incomplete)
        print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
