"""report.html of a scale run (runs/scale.py write_report): its memory charts (drawn with charts.svg_chart) and its
summary.md as preformatted text, from templates/scale.html.j2."""
import os

from harness.report import pages


def write_html(out, charts, md_lines):
    """OUT/report.html: CHARTS (inline SVG strings) above the text of summary.md (MD_LINES)."""
    with open(os.path.join(out, "report.html"), "w") as f:
        f.write(pages.render("scale.html.j2", charts=charts, md="\n".join(md_lines)))
