"""The package tree is the architecture: each layer imports only from the layers below it,
and no module imports itself back through others.

Layers, lowest first (a module may import its own package and any lower layer; packages
that share a layer may not import each other):

=====================================  =============================================
``errors``, then ``diagnostics``       exceptions; located diagnostics and reports
``model``                              the pivot: documents, markables, chains
``metrics``                            pure metric functions over contingency tables
``io``                                 bytes in and out: sources, safe XML, repair
``formats``                            the registry, read/write, one module per format
``checks``, ``compare``, ``transform`` validation and figures; alignment, matching,
                                       pairing, sync; the XSLT stylesheets run
``scoring``                            the scoring engine, views, rendering, analysis
``agreement``                          agreement among annotators, adjudication
``plots``                              figures of results (matplotlib, the ``plot`` extra)
``api``, ``parallel``, ``dask``, root  the Python API; the same on all cores, on Dask
``web``, ``cli``, ``__main__``         interfaces
=====================================  =============================================

Imports under ``if TYPE_CHECKING:`` are annotations only and are not counted.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "corefio"

LAYERS: list[tuple[str, ...]] = [
    ("_moved",),
    ("errors",),
    ("diagnostics",),
    ("model",),
    ("metrics",),
    ("io",),
    ("formats",),
    ("checks", "compare", "transform"),
    ("scoring",),
    ("agreement",),
    ("plots",),
    ("api",),
    ("parallel",),
    ("dask",),
    ("",),
    ("web",),
    ("cli",),
    ("__main__",),
]


def module_names() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = ["corefio", *path.relative_to(PACKAGE).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


MODULES = module_names()


def _type_checking_lines(tree: ast.Module) -> set[int]:
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                lines.update(range(child.lineno, (child.end_lineno or child.lineno) + 1))
    return lines


def imports_of(module: str) -> dict[str, int]:
    """corefio modules ``module`` imports (anywhere but TYPE_CHECKING blocks) → a line."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(), str(path))
    skip = _type_checking_lines(tree)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    out: dict[str, int] = {}
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) in skip:
            continue
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base for a in node.names]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target.startswith("corefio") and target != module:
                out.setdefault(target, node.lineno)
    return out


def _top(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def layer_of(module: str) -> int:
    top = _top(module)
    for i, names in enumerate(LAYERS):
        if top in names:
            return i
    raise AssertionError(f"{module} is in no layer: add its package to LAYERS (and to the README)")


def test_every_module_has_a_layer():
    for module in MODULES:
        layer_of(module)


def test_no_layer_imports_a_higher_one_or_a_sibling():
    wrong = []
    for module in sorted(MODULES):
        for target, line in imports_of(module).items():
            a, b = layer_of(module), layer_of(target)
            if b > a or (b == a and _top(target) != _top(module) and _top(target) != ""):
                wrong.append(f"{MODULES[module].relative_to(PACKAGE.parent)}:{line} imports {target}")
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


def test_no_import_circles():
    graph = {m: set(imports_of(m)) for m in MODULES}
    # Tarjan's strongly connected components: any component of two or more is a circle
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_the_checker_sees_an_upward_import(tmp_path, monkeypatch):
    """The layer check can fail: a model module importing the scoring engine is caught."""
    fake = dict(MODULES)
    bad = tmp_path / "bad.py"
    bad.write_text("def f():\n    from ..scoring import engine\n")
    fake["corefio.model.bad"] = bad
    import sys

    monkeypatch.setattr(sys.modules[__name__], "MODULES", fake)
    targets = imports_of("corefio.model.bad")
    assert "corefio.scoring.engine" in targets
    assert layer_of("corefio.scoring.engine") > layer_of("corefio.model.bad")


def _layer_of_file(filename: str) -> int | None:
    path = Path(filename)
    try:
        parts = path.resolve().relative_to(PACKAGE).with_suffix("").parts
    except ValueError:
        return None
    name = ".".join(["corefio", *(p for p in parts if p != "__init__")])
    return layer_of(name)


def test_scoring_descends_without_climbing_back(tmp_path):
    """One descent for scoring: CLI-level entry → read → views → pairing/matching → metrics
    → render. A call from a module of a lower layer into a higher one (a callback climbing
    back up) is counted; there is none."""
    import sys

    import corefio

    samples = PACKAGE.parent / "samples"
    climbs: list[str] = []

    def watch(frame, event, arg):
        if event != "call":
            return
        callee = _layer_of_file(frame.f_code.co_filename)
        caller_frame = frame.f_back
        if callee is None or caller_frame is None:
            return
        caller = _layer_of_file(caller_frame.f_code.co_filename)
        if caller is not None and callee > caller:
            climbs.append(f"{caller_frame.f_code.co_filename}:{caller_frame.f_lineno} → "
                          f"{frame.f_code.co_filename}:{frame.f_code.co_name}")

    corefio.score(samples / "key.raf.xml", samples / "response.raf.xml")  # imports done first
    sys.setprofile(watch)
    try:
        corefio.score(str(samples / "key.raf.xml"), str(samples / "response.raf.xml"), metrics=["all"])
    finally:
        sys.setprofile(None)
    assert not climbs, "calls climbing back up the layers:\n" + "\n".join(sorted(set(climbs))[:20])


def test_documented_old_paths_still_import_with_a_warning():
    import importlib
    import sys
    import warnings

    import corefio
    from corefio.formats import registry
    from corefio.io import xmlsafe

    for old, new in (("corefio.registry", registry), ("corefio.xmlsafe", xmlsafe)):
        sys.modules.pop(old, None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module = importlib.import_module(old)
        assert module is new
        assert any(issubclass(w.category, DeprecationWarning) and new.__name__ in str(w.message) for w in caught)
    assert corefio.registry.capability_table() == registry.capability_table()  # type: ignore[attr-defined]
    try:
        importlib.import_module("corefio.synchronisation")  # never documented: not kept
    except ModuleNotFoundError:
        pass
    else:
        raise AssertionError("an undocumented old path still imports")
