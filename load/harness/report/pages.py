"""The one Jinja2 environment every HTML page and section of the harness is rendered with
(templates/*.j2), and the report's style sheet."""
from importlib import resources

import jinja2

CSS = resources.files(__package__).joinpath("templates", "report.css").read_text()
TEMPLATES = jinja2.Environment(loader=jinja2.PackageLoader(__package__, "templates"),
                               autoescape=True, trim_blocks=True, lstrip_blocks=True,
                               undefined=jinja2.StrictUndefined)


def render(name, **context):
    """The text of template NAME (templates/) with CONTEXT; the style sheet is there as `css`."""
    return TEMPLATES.get_template(name).render(css=CSS, **context)


def standalone(svg):
    """A chart as an SVG file of its own (a README's figure): the report's style inside it."""
    return svg.replace(">", "><style>" + CSS + "</style>", 1)
