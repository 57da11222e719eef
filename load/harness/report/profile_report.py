"""A `compare --profile` run's profiles (analysis/profiles.py) on paper: RUN/profiles/ with
profiles.json, profiles.md and a flame graph per series and step (flamegraph.py), and report.html's
"Where the CPU goes": CPU ms/req by thread kind and layer, flame graphs, the most differing frames.

Usage: python -m harness.report.profile_report RUN  (RUN/profiles/ anew from its listed trials)"""
import json
import os
import sys

from harness.analysis import profiles
from harness.report import flamegraph, pages, verdict_sections


def write(run, records, dirs):
    """RUN/profiles/ from the measured trials' folders DIRS and their RECORDS; nothing when none was
    profiled. Returns the data of profiles.json, or None."""
    data = profiles.analyse(dirs, records)
    if not data["profiles"]:
        return None
    d = os.path.join(run, profiles.OUT)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, profiles.MEASURED), "w") as f:
        f.writelines(os.path.relpath(x, run) + "\n" for x in dirs)
    for p in data["profiles"]:
        title = (f"{p['series']}, {p['scenario']} {p['rate']:g} req/s, "
                 f"{p['cpu_ms'] or 0:.3f} CPU ms/req")
        with open(os.path.join(d, p["name"] + ".svg"), "w") as f:
            f.write(flamegraph.svg(p.pop("stacks"), title))
    with open(os.path.join(d, "profiles.json"), "w") as f:
        json.dump(data, f, indent=1)
    with open(os.path.join(d, "profiles.md"), "w") as f:
        f.write(markdown(data))
    return data


def markdown(data):
    """profiles.md: per step the layers of every series, then the differing frames of each pair."""
    out = ["# Where the CPU goes (async-profiler, every measured trial)", ""]
    for p in data["profiles"]:
        lay = p["layers"]
        out += [f"## {p['series']}, {p['scenario']} {p['rate']:g} req/s: {p['cpu_ms'] or 0:.3f} "
                f"CPU ms/req, {p['samples']:,} samples ([flame graph]({p['name']}.svg))", "",
                "threads: " + _ms(lay["threads"]), "", "by layer: " + _ms(lay["layers"]), ""]
    for d in data["differences"]:
        out += [f"## {d['series']} over {d['base']}, {d['scenario']} {d['rate']:g} req/s: "
                f"{d['cpu_ms']:.3f} vs {d['base_cpu_ms']:.3f} CPU ms/req", "",
                f"| frame | {d['series']} ms/req (share) | {d['base']} ms/req (share) | "
                "difference |", "|---|---|---|---|"]
        out += [f"| `{r['frame']}` | {r['ms']:.4f} ({100 * (r['share'] or 0):.1f} %) | "
                f"{r['base_ms']:.4f} ({100 * (r['base_share'] or 0):.1f} %) | {r['diff_ms']:+.4f} |"
                for r in d["rows"]]
        out.append("")
    return "\n".join(out)


def load(run):
    """RUN/profiles/profiles.json, or None."""
    path = os.path.join(run, profiles.OUT, "profiles.json")
    if not os.path.isfile(path):
        return None
    with open(path) as f:
        return json.load(f)


def _ms(layers):
    """'name ms, ...' of entries rounding to >= 0.001 ms (a thread with a sample or two: noise)."""
    return ", ".join(f"{k} {v:.3f}" for k, v in layers.items() if v >= 0.0005)


def html_section(data):
    """The section's HTML (templates/profiles.html.j2), '' without profiles."""
    if not data:
        return ""
    return pages.render(
        "profiles.html.j2", folder=profiles.OUT,
        profiles=[dict(p, threads=_ms(p["layers"]["threads"]), code=_ms(p["layers"]["layers"]))
                  for p in data["profiles"]],
        differences=data["differences"])


def main(argv=None):
    run = (sys.argv[1:] if argv is None else argv)[0]
    records = verdict_sections.records_of(run)
    with open(os.path.join(run, profiles.OUT, profiles.MEASURED)) as f:
        dirs = [os.path.join(run, line.strip()) for line in f if line.strip()]
    data = write(run, records, dirs)
    print(f"{run}/{profiles.OUT}/profiles.md" if data else f"{run}: no profiled trial")
    return 0


if __name__ == "__main__":
    sys.exit(main())
