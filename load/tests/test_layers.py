"""The package's shape (docs/harness.md "The package"): imports only go down the layers, no module imports itself back
through others (no circle), and no module grows past MAX_LINES."""
import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "harness"
# top to bottom: a module may import its own layer's modules and every layer below, never one above
LAYERS = ("cli", "runs", "report", "analysis", "drivers", "sampling", "infra")
MAX_COLUMNS = 100
MAX_FUNCTION_LINES = 60
MAX_LINES = 400


def modules():
    """{dotted name: path} of every module of the package."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def imports(name, path, known):
    """The package's modules NAME imports, anywhere in it (a function-level import counts too)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join([*up, base] if base else up)
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names}
    return {m for m in found if m in known and m != name and m != "harness"}


def layer(name):
    parts = name.split(".")
    if len(parts) < 2 or parts[1] in ("__main__", "__init__"):
        return 0
    return LAYERS.index(parts[1])


GRAPH = {n: imports(n, p, modules()) for n, p in modules().items()}


def test_every_module_is_in_a_layer():
    stray = [n for n in GRAPH if n != "harness" and n.split(".")[1] not in (*LAYERS, "__main__")]
    assert not stray, f"modules outside the layers {LAYERS}: {stray}"


def test_imports_only_go_down():
    upward = [f"{a} -> {b}" for a, deps in GRAPH.items() for b in sorted(deps) if layer(b) < layer(a)]
    assert not upward, "imports up the layers " + " > ".join(LAYERS) + ":\n" + "\n".join(upward)


def test_no_import_circle():
    state, circles = {}, []

    def visit(n, path):
        state[n] = "open"
        for m in sorted(GRAPH[n]):
            if m.startswith(n + "."):      # a package importing its own module is not a circle
                continue
            if state.get(m) == "open":
                circles.append(" -> ".join([*path[path.index(m):], m]))
            elif m not in state:
                visit(m, [*path, m])
        state[n] = "done"

    for n in sorted(GRAPH):
        if n not in state:
            visit(n, [n])
    assert not circles, "import circles:\n" + "\n".join(circles)


@pytest.mark.parametrize("name", sorted(modules()))
def test_module_size(name):
    lines = len(modules()[name].read_text().splitlines())
    assert lines <= MAX_LINES, f"{name}: {lines} lines (at most {MAX_LINES}: split it where its parts differ)"


@pytest.mark.parametrize("name", sorted(modules()))
def test_no_line_over_100_characters(name):
    """Short lines (issue #46): the package's code, docstrings and comments keep to 100 columns."""
    lines = modules()[name].read_text().splitlines()
    long = [i for i, line in enumerate(lines, 1) if len(line) > MAX_COLUMNS]
    assert not long, f"{name}: lines {long[:10]} are over {MAX_COLUMNS} characters"


@pytest.mark.parametrize("name", sorted(modules()))
def test_no_function_over_60_lines(name):
    """Functions a reader takes in at once (issue #46): split one that grows past 60 lines."""
    tree = ast.parse(modules()[name].read_text())
    long = [f"{n.name} ({n.end_lineno - n.lineno + 1})" for n in ast.walk(tree)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.end_lineno - n.lineno + 1 > MAX_FUNCTION_LINES]
    assert not long, f"{name}: functions over {MAX_FUNCTION_LINES} lines: {', '.join(long)}"


def test_the_checks_see_a_circle_and_an_upward_import(tmp_path, monkeypatch):
    """The checks themselves can fail: a planted circle and upward import are found."""
    planted = {"harness.infra.a": {"harness.runs.b"}, "harness.runs.b": {"harness.infra.a"}}
    monkeypatch.setitem(GRAPH, "harness.infra.a", planted["harness.infra.a"])
    monkeypatch.setitem(GRAPH, "harness.runs.b", planted["harness.runs.b"])
    with pytest.raises(AssertionError, match="harness.infra.a -> harness.runs.b"):
        test_imports_only_go_down()
    with pytest.raises(AssertionError, match="circles"):
        test_no_import_circle()
