#!/usr/bin/env python3
"""The parts of load/chaos.sh that parse, probe and compare: standard library only, one subcommand each.

  targets  --base URL --path MODE=PATH [--path ...] [--prefix chaos] --runid R --count N --out FILE
           Vegeta JSON targets, POST BASE+PATH round-robin over the modes, each with its own customer tag
           PREFIX-R-<n> in the body and (for the error side of the bookkeeping) appended to the query string.
  report   VEGETA_REPORT_JSON            -> compact figures of one Vegeta run (requests, rate, codes, latency)
  recover  --base URL --paths p1,p2 --since EPOCH_S --limit S --give-up S
           every path probed until it answers 200; recovery = the last path's first 200, after EPOCH_S; then a
           confirmation round (3 requests per path) that must be all 200
  smoke    --base URL --paths p1,p2 --expect CODE --limit S [--tries 3]
           each path TRIES times: every answer must be CODE and the median time at most S (one slow answer on a
           busy machine is noise; a service that waits for a timeout is slow every time)
  verify   --results ENCODED_JSON --base URL --db-rows FILE --runid R [--db-back EPOCH_S]
           the checkout bookkeeping: acknowledged orders readable with their customer, no order without a 2xx
  check    OUT_FILE ID NAME PASS [key=value | key=@file.json]...   one check's record
  summary  --dir OUT [--incomplete]      checks/*.json -> summary.json, summary.md; prints the table
"""
import argparse
import base64
import collections
import concurrent.futures
import json
import pathlib
import sys
import threading
import time
import urllib.error
import urllib.request

OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))   # 127.0.0.1 only, never through a proxy


def get(url, timeout):
    """-> (status, body bytes); status 0 when no HTTP answer came (refused, reset, timed out)."""
    try:
        with OPENER.open(url, timeout=timeout) as r:
            return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
    except Exception:   # noqa: BLE001 - any transport failure is "no answer"
        return 0, b""


def cmd_targets(a):
    paths = [p.split("=", 1)[1] for p in a.path]
    with open(a.out, "w") as f:
        for n in range(a.count):
            path = paths[n % len(paths)]
            tag = f"{a.prefix}-{a.runid}-{n}"
            body = json.dumps({"customer": tag, "sku": "SKU-chaos", "quantity": 1 + n % 5}).encode()
            f.write(json.dumps({
                "method": "POST",
                "url": f"{a.base}{path}{'&' if '?' in path else '?'}tag={tag}",
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


def cmd_report(a):
    print(json.dumps(report_figures(json.load(open(a.file)))))


def cmd_recover(a):
    paths = a.paths.split(",")
    deadline = a.since + a.give_up
    first, last = {}, {}

    def until_200(path):
        while time.time() < deadline:
            code, _ = get(a.base + path, a.timeout)
            last[path] = code
            if code == 200:
                first[path] = round(time.time() - a.since, 2)
                return
            time.sleep(0.1)

    threads = [threading.Thread(target=until_200, args=(p,)) for p in paths]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    recovered = len(first) == len(paths)
    confirm = {p: [get(a.base + p, a.timeout)[0] for _ in range(3)] for p in paths} if recovered else {}
    recovery = max(first.values()) if recovered else None
    ok = recovered and recovery <= a.limit and all(c == 200 for cs in confirm.values() for c in cs)
    print(json.dumps({"recovery_s": recovery, "limit_s": a.limit, "first_200_s": first,
                      "still_failing": {p: last.get(p) for p in paths if p not in first},
                      "confirm": confirm, "pass": ok}))


def cmd_smoke(a):
    paths = {}
    for p in a.paths.split(","):
        tries = []
        for _ in range(a.tries):
            t0 = time.time()
            code, _ = get(a.base + p, 30)
            tries.append({"code": code, "s": round(time.time() - t0, 3)})
        times = sorted(t["s"] for t in tries)
        paths[p] = {"codes": [t["code"] for t in tries], "seconds": [t["s"] for t in tries],
                    "median_s": times[len(times) // 2]}
    ok = all(c == a.expect for v in paths.values() for c in v["codes"]) and all(
        v["median_s"] <= a.limit for v in paths.values())
    print(json.dumps({"expect": a.expect, "limit_s": a.limit, "paths": paths, "pass": ok}))


def cmd_verify(a):
    results = [json.loads(line) for line in open(a.results) if line.strip()]
    by_tag, dup_tags = {}, 0
    for r in results:
        tag = r["url"].rsplit("tag=", 1)[-1]
        dup_tags += tag in by_tag
        by_tag[tag] = r
    codes = collections.Counter(str(r["code"]) for r in results)
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

    def read_back(item):
        tag, (mode, oid) = item
        for _ in range(3):   # a probe that got no answer at all is retried; a wrong answer is not
            code, body = get(f"{a.base}/{mode}/orders/{oid}", 10)
            if code:
                break
        if code != 200:
            return f"{tag}: GET /{mode}/orders/{oid} answered {code}"
        customer = json.loads(body).get("order", {}).get("customer")
        return None if customer == tag else f"{tag}: GET /{mode}/orders/{oid} names customer {customer}"

    with concurrent.futures.ThreadPoolExecutor(8) as pool:
        unreadable = [p for p in pool.map(read_back, acked.items()) if p]

    rows = [line.split("\t") for line in open(a.db_rows).read().splitlines() if line.strip()]
    in_db = collections.Counter(row[0] for row in rows)
    found = set(in_db)
    without_ack = sorted(found - set(acked))
    # a request that got no HTTP answer (client timeout, reset) may legitimately have committed: "unknown"
    unknown = [t for t in without_ack if t in by_tag and by_tag[t]["code"] == 0]
    violations = [t for t in without_ack if t not in unknown]
    missing = sorted(set(acked) - found)
    after_db = None
    if a.db_back:
        since_ns = a.db_back * 1e9
        late = [r for r in results if _ts_ns(r["timestamp"]) >= since_ns]
        after_db = {"requests": len(late), "2xx": sum(200 <= r["code"] < 300 for r in late)}
    if a.timeline and results:
        t0 = min(_ts_ns(r["timestamp"]) for r in results)
        per = collections.defaultdict(collections.Counter)
        for r in results:
            per[(_ts_ns(r["timestamp"]) - t0) // 1_000_000_000][str(r["code"])] += 1
        cols = sorted(codes)
        with open(a.timeline, "w") as f:
            f.write("second," + ",".join(cols) + "\n")
            for sec in sorted(per):
                f.write(f"{sec}," + ",".join(str(per[sec][c]) for c in cols) + "\n")
    errors_by_status = {k: v for k, v in sorted(codes.items()) if not k.startswith("2")}
    by_mode = collections.Counter(m for m, _ in acked.values())
    figures = {
        "requests": len(results), "codes": dict(sorted(codes.items())), "errors_by_status": errors_by_status,
        "acknowledged": len(acked), "acknowledged_by_mode": dict(sorted(by_mode.items())),
        "found_in_db": len(found), "duplicate_rows": sum(c - 1 for c in in_db.values()),
        "duplicate_tags_sent": dup_tags,
        "acknowledged_not_readable": len(unreadable) + len(ack_problems),
        "acknowledged_missing_in_db": len(missing),
        "found_without_ack": len(violations), "found_unknown_client_gave_up": len(unknown),
        "after_db_back": after_db,
        "examples": (ack_problems + unreadable)[:5] + [f"{t}: in DB, request answered {by_tag[t]['code'] if t in by_tag else 'never sent'}" for t in violations[:5]],
    }
    ok = (len(results) > 0 and not dup_tags and not ack_problems and not unreadable and not missing
          and not violations and figures["duplicate_rows"] == 0 and (after_db is None or after_db["2xx"] > 0))
    figures["pass"] = ok
    print(json.dumps(figures))


def _ts_ns(ts):
    """Vegeta's RFC 3339 timestamp with nanoseconds -> epoch nanoseconds."""
    import datetime
    main, _, rest = ts.partition(".")
    frac, tz = rest, ""
    for sep in ("Z", "+", "-"):
        if sep in rest:
            i = rest.index(sep)
            frac, tz = rest[:i], rest[i:]
            break
    tz = "+00:00" if tz in ("", "Z") else tz
    dt = datetime.datetime.fromisoformat(main + tz)
    return int(dt.timestamp()) * 1_000_000_000 + int((frac + "000000000")[:9])


def cmd_check(a):
    figures = {}
    for kv in a.figures:
        k, _, v = kv.partition("=")
        if v.startswith("@"):
            figures[k] = json.load(open(v[1:]))
        else:
            try:
                figures[k] = json.loads(v)
            except ValueError:
                figures[k] = v
    rec = {"id": a.id, "name": a.name, "pass": a.passed in ("1", "true", "yes", "pass"), "figures": figures}
    pathlib.Path(a.out).write_text(json.dumps(rec, indent=1) + "\n")


def line_of(rec):
    """One human line of figures per check."""
    f = rec["figures"]
    parts = []
    for k, v in f.items():
        if isinstance(v, dict) and "acknowledged" in v:
            parts.append(f"{v['requests']} req, errors {v['errors_by_status']}, acknowledged {v['acknowledged']}, "
                         f"found {v['found_in_db']}, found without ack {v['found_without_ack']}, "
                         f"unknown {v['found_unknown_client_gave_up']}, ack not readable {v['acknowledged_not_readable']}, "
                         f"after DB back {v['after_db_back']}")
        elif isinstance(v, dict) and "requests" in v and "codes" in v:
            parts.append(f"{k}: {v['requests']} req at {v.get('rate', '?')}/s, codes {v['codes']}")
        elif isinstance(v, dict) and "recovery_s" in v:
            parts.append(f"recovery {v['recovery_s']} s (limit {v['limit_s']} s)"
                         + (f", still failing {v['still_failing']}" if v["still_failing"] else ""))
        elif isinstance(v, dict) and "expect" in v and "paths" in v:
            parts.append(f"{k}: " + ", ".join(f"{p.split('?')[0]} {x['codes']} median {x['median_s']} s"
                                              for p, x in v["paths"].items()))
        elif not isinstance(v, (dict, list)):
            parts.append(f"{k} {v}")
    return "; ".join(parts)


def cmd_summary(a):
    out = pathlib.Path(a.dir)
    checks = [json.load(open(p)) for p in sorted((out / "checks").glob("*.json"))]
    params = json.load(open(out / "params.json"))
    passed = all(c["pass"] for c in checks) and bool(checks) and not a.incomplete
    (out / "summary.json").write_text(json.dumps({"pass": passed, "complete": not a.incomplete, "params": params,
                                                  "checks": checks}, indent=1) + "\n")
    title = "FAIL (run cut short; the checks it finished are below)" if a.incomplete else "PASS" if passed else "FAIL"
    md = [f"# Chaos run {params.get('started', '')}: {title}", "",
          "Parameters: " + ", ".join(f"{k}={v}" for k, v in params.items()), "",
          "| check | result | figures |", "| --- | --- | --- |"]
    for c in checks:
        md.append(f"| {c['id']} {c['name']} | {'pass' if c['pass'] else '**FAIL**'} | {line_of(c).replace('|', '/')} |")
    (out / "summary.md").write_text("\n".join(md) + "\n")
    for c in checks:
        print(f"{'PASS' if c['pass'] else 'FAIL'}  {c['id']} {c['name']}: {line_of(c)}")
    print(f"{'PASS' if passed else 'FAIL'}  {sum(c['pass'] for c in checks)}/{len(checks)} checks"
          + (" (run cut short)" if a.incomplete else ""))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    t = sub.add_parser("targets")
    t.add_argument("--base", required=True)
    t.add_argument("--path", action="append", required=True)
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
    v.add_argument("--runid", required=True)
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
    c.add_argument("figures", nargs="*")
    s = sub.add_parser("summary")
    s.add_argument("--dir", required=True)
    s.add_argument("--incomplete", action="store_true", help="the run ended early: FAIL whatever the checks say")
    a = p.parse_args()
    {"targets": cmd_targets, "report": cmd_report, "recover": cmd_recover, "smoke": cmd_smoke, "verify": cmd_verify,
     "check": cmd_check, "summary": cmd_summary}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
