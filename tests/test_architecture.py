"""The layers of fairbound, kept true: rules over the import graph (see docs/architecture.md).

Every module under ``src/fairbound`` is parsed with :mod:`ast`; every import counts, at the
top of a module or inside a function (relative imports resolved, ``importlib.import_module``
calls with a literal name included, and in a module that imports a computed name, every
string that names a fairbound module, such as the lazy tables of ``fairbound.__init__`` and
the CLI's plugin list).  :data:`LAYERS` orders the packages; an import may go down or stay
in its layer, never up, unless :data:`UPWARD_EXCEPTIONS` names it with a reason.  The
start-up tests at the end look at what a fresh interpreter actually loads.

The checker's functions (:func:`parse_imports`, :func:`layer_violations`,
:func:`package_cycles`) take any module graph, so the tests below also run them on injected
imports and check that each is caught.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import pytest

import fairbound

ROOT = Path(fairbound.__file__).resolve().parent

#: The layers, lowest first: (name, the modules or packages in it, what it holds).  A module
#: may import modules of its own layer and of the layers below it.  ``"fairbound"`` means the
#: package's ``__init__`` only; any other entry covers the package and everything under it.
LAYERS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("errors", ("fairbound.errors", "fairbound._version"),
     "FairboundError and the warnings; the version string"),
    ("checks and words", ("fairbound._validate", "fairbound._words", "fairbound.labels",
                          "fairbound._io", "fairbound._render", "fairbound._docs"),
     "input checks, the verdict vocabulary, label values, atomic writes and CSV, formatting,"
     " shared docstring text"),
    ("metrics", ("fairbound.metrics",), "the metric registry"),
    ("core", ("fairbound.stats",), "sufficient statistics, intervals, tests (numpy, scipy)"),
    ("engines", ("fairbound.engines",), "DuckDB, Spark: data to per-group statistics"),
    ("audits", ("fairbound.audits",), "every audit kind and what they share"),
    ("planning", ("fairbound.planning",), "sample sizes and power before the data"),
    ("evaluation", ("fairbound.evaluation",), "simulations and coverage studies"),
    ("domains", ("fairbound.stability", "fairbound.nli", "fairbound.text",
                 "fairbound.datasets", "fairbound.examples"),
     "stability studies, BBNLI, text debiasing, bundled data"),
    ("figures", ("fairbound.viz",), "every figure"),
    ("reports", ("fairbound.report",), "HTML, Markdown, JSON schema"),
    ("cli", ("fairbound.cli",), "the typer commands"),
    ("front door", ("fairbound", "fairbound.__main__", "fairbound._moved"),
     "lazy public names, python -m fairbound, the old module paths"),
)

#: Imports that go up a layer on purpose: (importer prefix, imported prefix) -> why.  Each
#: must sit inside a function (importing the lower layer never loads the upper one) and
#: must still exist (a stale entry fails).
UPWARD_EXCEPTIONS = {
    ("fairbound.audits", "fairbound.viz"):
        "the results' convenience methods .plot() import the figure inside the method; "
        "viz never imports an audit builder, so no cycle follows",
    ("fairbound.audits", "fairbound.report"):
        "the results' convenience methods .report() and .summary() import the writer inside "
        "the method; report never imports an audit builder, so no cycle follows",
    ("fairbound.stability.study", "fairbound.report.stability_markdown"):
        "StudyResult.write_report() is a public convenience method; it imports the writer "
        "inside the method, and report never imports stability",
    ("fairbound.evaluation.reproduce", "fairbound.viz.coverage"):
        "figure1() draws the paper's Figure 1 from a coverage study, a convenience that "
        "imports the figure inside the function; viz never imports evaluation",
}

#: Modules that import a name computed at run time, and why.  None is allowed in the core.
COMPUTED_IMPORTS = {
    "fairbound": "public names loaded on first use from the table _LAZY (its strings are "
                 "read as imports)",
    "fairbound._moved": "the old module paths, answered from the table MOVED (strings read "
                        "as imports)",
    "fairbound.errors": "require() imports an optional third-party dependency named by its "
                        "caller (matplotlib, torch, ...)",
    "fairbound.engines.status": "fairbound status imports each optional engine (duckdb, "
                                "polars, pyarrow, pyspark) to report its version",
    "fairbound.cli": "the command modules, loaded from the plugin list _PLUGINS (strings read "
                     "as imports)",
    "fairbound.stability": "public names loaded on first use from the table _EXPORTS",
}

#: The statistical core: sufficient statistics, interval methods, tests, multiplicity.
CORE = "stats"
#: What the core must never import.
ABOVE_CORE = ("engines", "audits", "report", "viz", "cli", "planning", "evaluation",
              "stability", "nli", "text")
#: Domain packages: they read results, and are read by report and viz, never the reverse.
DOMAINS = ("stability", "nli", "text")

#: What the engines may import besides their own modules, and why.
ENGINE_ALLOWED = {
    "fairbound.errors": "every user error is a FairboundError",
    "fairbound.labels": "engines read label and prediction values (booleans, numbers as "
                        "text, the order of classes) exactly as fairbound.labels defines "
                        "them, so an audit through any engine and 'fairbound monitor' agree",
    "fairbound._validate": "every check of user input has one message style; the module "
                           "imports nothing from fairbound but errors",
    "fairbound._io": "a CSV that fairbound wrote is read back with its spreadsheet escape "
                     "undone by the one rule that wrote it (SQL_UNESCAPE); the module imports "
                     "nothing from fairbound but errors",
}

#: Deliberate exceptions to "no domain imports viz or report": (importer, imported, why).
DOMAIN_REPORT_EXCEPTIONS = {
    ("fairbound.stability.study", "fairbound.report.stability_markdown"):
        "StudyResult.write_report() is a public convenience method; it imports the writer "
        "inside the method, and report never imports stability, so no cycle follows",
}

#: Deliberate cycles between top-level packages: none.
CYCLE_EXCEPTIONS: set[tuple[str, str]] = set()


def _module_name(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


@dataclass(frozen=True)
class Import:
    """One import of a fairbound module by another."""

    importer: str
    imported: str
    line: int
    #: Runs when the importer is imported: not inside a function, not under TYPE_CHECKING.
    top_level: bool


def _known(target: str, known) -> str:
    parts = target.split(".")
    for i in range(len(parts), 0, -1):
        if ".".join(parts[:i]) in known:
            return ".".join(parts[:i])
    return target


def parse_imports(name: str, source: str, *, is_package: bool = False,
                  known=MODULES) -> tuple[list[Import], list[tuple[int, str]]]:
    """The fairbound imports of module ``name`` and its computed imports ``(line, code)``."""
    package = name if is_package else name.rpartition(".")[0]
    found: list[Import] = []
    computed: list[tuple[int, str]] = []
    tree = ast.parse(source)

    def add(target: str, line: int, top: bool, names=()) -> None:
        if not (target == "fairbound" or target.startswith("fairbound.")):
            return
        subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in known]
        if not names or len(subs) < len(names):  # ``from package import submodule`` alone
            found.append(Import(name, _known(target, known), line, top))  # needs no __init__
        found.extend(Import(name, sub, line, top) for sub in subs)

    def visit(node: ast.AST, top: bool) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            top = False
        elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            top = False
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name, node.lineno, top)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            add(target, node.lineno, top, [a.name for a in node.names])
        elif (isinstance(node, ast.Call) and node.args
              and (getattr(node.func, "attr", None) == "import_module"
                   or getattr(node.func, "id", None) in ("import_module", "__import__"))):
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                add(arg.value, node.lineno, top)
            else:
                computed.append((node.lineno, ast.unparse(arg)))
        for child in ast.iter_child_nodes(node):
            visit(child, top)

    visit(tree, True)
    if computed:  # a table of names: every string naming a module counts as an import
        strings = [n for n in ast.walk(tree)
                   if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        prefixes = [n.values[0].value for n in ast.walk(tree) if isinstance(n, ast.JoinedStr)
                    and n.values and isinstance(n.values[0], ast.Constant)
                    and str(n.values[0].value).startswith("fairbound.")]
        for s in strings:
            for full in [s.value, *(p + s.value for p in prefixes)]:
                if full in known and full != name and "." in full:
                    found.append(Import(name, full, s.lineno, False))
    return [i for i in found if i.imported != name], computed


def _scan(modules: dict[str, Path]):
    imports, computed = [], {}
    for name, path in modules.items():
        found, comp = parse_imports(name, path.read_text(encoding="utf-8"),
                                    is_package=path.name == "__init__.py", known=modules)
        imports += found
        if comp:
            computed[name] = comp
    return imports, computed


IMPORTS, COMPUTED = _scan(MODULES)
GRAPH: dict[str, set[str]] = {name: set() for name in MODULES}
for _imp in IMPORTS:
    GRAPH[_imp.importer].add(_imp.imported)


def layer_of(module: str) -> int | None:
    """The index in :data:`LAYERS` of ``module`` (its longest matching entry), or None."""
    best = None
    for i, (_, members, _why) in enumerate(LAYERS):
        for m in members:
            if module == m or (m != "fairbound" and module.startswith(m + ".")):
                if best is None or len(m) > best[1]:
                    best = (i, len(m))
    return None if best is None else best[0]


def _within(module: str, prefix: str) -> bool:
    return module == prefix or module.startswith(prefix + ".")


def layer_violations(imports, exceptions=UPWARD_EXCEPTIONS) -> list[str]:
    """Every import that goes up a layer, unless excepted (and then only inside a function)."""
    bad = []
    for imp in imports:
        a, b = layer_of(imp.importer), layer_of(imp.imported)
        if a is None or b is None or b <= a:
            continue
        excepted = any(_within(imp.importer, s) and _within(imp.imported, d)
                       for s, d in exceptions)
        if excepted and not imp.top_level:
            continue
        where = "at module level" if imp.top_level else "inside a function"
        bad.append(f"{imp.importer}:{imp.line} imports {imp.imported} {where} "
                   f"({LAYERS[a][0]} -> {LAYERS[b][0]}, a layer above)")
    return sorted(set(bad))


def package_cycles(imports) -> list[list[str]]:
    """Import cycles among the modules of one top-level package, module-level imports only."""
    deps: dict[str, set[str]] = defaultdict(set)
    for imp in imports:
        if imp.top_level and _top(imp.importer) == _top(imp.imported):
            deps[imp.importer].add(imp.imported)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []

    def strong(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(deps[v]):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            part = []
            while True:
                w = stack.pop()
                on.discard(w)
                part.append(w)
                if w == v:
                    break
            if len(part) > 1 or v in deps[v]:
                cycles.append(sorted(part))

    for v in sorted(set(deps) | {w for ws in deps.values() for w in ws}):
        if v not in index:
            strong(v)
    return sorted(cycles)


def _top(module: str) -> str:
    """The top-level package (or module) of ``module``: ``stats``, ``labels``, ``fairbound``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "fairbound"


def _edges(importer_top: str | None = None):
    for src, targets in GRAPH.items():
        if importer_top is None or _top(src) == importer_top:
            for dst in sorted(targets):
                yield src, dst


def test_the_graph_sees_the_package():
    assert {"fairbound.stats.base", "fairbound.audits.gaps.build", "fairbound.cli"} <= set(MODULES)
    # a relative import and an import inside a function are both seen
    assert "fairbound.audits.gaps.build" in GRAPH["fairbound.audits"]
    assert "fairbound.engines.duckdb_engine" in GRAPH["fairbound.engines"]
    # the lazy tables of fairbound/__init__ and the CLI's plugin list count as imports
    assert "fairbound.audits.ppi.audit" in GRAPH["fairbound"]
    assert "fairbound.cli.audit" in GRAPH["fairbound.cli"]


def test_docs_show_the_same_layers_in_the_same_order():
    import re

    text = (ROOT.parents[1] / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = [line for line in text.splitlines() if re.match(r"\| \d+ \| ", line)]
    shown = [(cells[1], re.findall(r"`(fairbound[\w.]*)`", cells[2]))
             for cells in (row.split(" | ") for row in rows)]
    assert [(name.lower(), sorted(members)) for name, members in shown] == [
        (name.lower(), sorted(members)) for name, members, _ in LAYERS]


def test_every_module_has_a_layer():
    assert [m for m in MODULES if layer_of(m) is None] == []


def test_every_import_goes_down_or_stays_in_its_layer():
    assert layer_violations(IMPORTS) == []
    for (s, d), why in UPWARD_EXCEPTIONS.items():
        assert any(_within(i.importer, s) and _within(i.imported, d) for i in IMPORTS), \
            f"stale exception {s} -> {d}: {why}"


def test_no_import_cycle_inside_a_package():
    assert package_cycles(IMPORTS) == []


def test_computed_imports_are_listed_and_none_in_the_core():
    assert [m for m in COMPUTED if _top(m) == CORE] == []
    assert sorted(set(COMPUTED) - set(COMPUTED_IMPORTS)) == []
    assert sorted(set(COMPUTED_IMPORTS) - set(COMPUTED)) == [], "stale entry"


def _with(source: str, name: str) -> tuple[list[Import], dict]:
    """The real graph plus module ``name`` written as ``source`` (an injected import)."""
    found, computed = parse_imports(name, source, known={**MODULES, name: None})
    comp = dict(COMPUTED)
    if computed:
        comp[name] = computed
    return IMPORTS + found, comp


@pytest.mark.parametrize("name,source", [
    ("fairbound.metrics._injected", "from fairbound.engines import aggregate\n"),
    ("fairbound.metrics._injected", "def f():\n    import fairbound.engines.sql\n"),
    ("fairbound.audits.gaps._injected",
     "def f():\n    from fairbound.evaluation.simulate import simulate\n"),
    ("fairbound.audits._injected", "from ..nli import measures\n"),
    ("fairbound.audits._injected",
     "import importlib\n\ndef f():\n    return importlib.import_module('fairbound.nli')\n"),
    ("fairbound.stats._injected", "from fairbound.audits.pairing import pairs\n"),
    ("fairbound.audits._injected", "from fairbound.viz.audit import plot_forest\n"),  # top
])
def test_an_injected_upward_import_fails(name, source):
    imports, _ = _with(source, name)
    bad = set(layer_violations(imports)) - set(layer_violations(IMPORTS))
    assert bad and all(b.startswith(name + ":") for b in bad), bad


def test_an_injected_computed_import_in_the_core_fails():
    source = "import importlib\n\ndef f(kind):\n    return importlib.import_module(kind)\n"
    _, computed = _with(source, "fairbound.stats._injected")
    assert [m for m in computed if _top(m) == CORE] == ["fairbound.stats._injected"]


def test_an_injected_cycle_inside_a_package_fails():
    # two modules of one package that import each other at module level; the same pair
    # importing inside functions is no cycle
    a = "from fairbound.viz._injected_b import g\n\ndef f():\n    return g()\n"
    b = "from fairbound.viz._injected_a import f\n\ndef g():\n    return 1\n"
    known = {**MODULES, "fairbound.viz._injected_a": None, "fairbound.viz._injected_b": None}
    found = [*parse_imports("fairbound.viz._injected_a", a, known=known)[0],
             *parse_imports("fairbound.viz._injected_b", b, known=known)[0]]
    assert package_cycles(IMPORTS + found) == [["fairbound.viz._injected_a",
                                                "fairbound.viz._injected_b"]]
    lazy = b.replace("from fairbound.viz._injected_a import f\n",
                     "def h():\n    from fairbound.viz._injected_a import f\n")
    found = [*parse_imports("fairbound.viz._injected_a", a, known=known)[0],
             *parse_imports("fairbound.viz._injected_b", lazy, known=known)[0]]
    assert package_cycles(IMPORTS + found) == []


def test_core_imports_no_layer_above_it():
    bad = [f"{s} -> {d}" for s, d in _edges(CORE) if _top(d) in ABOVE_CORE]
    assert bad == []


def test_engines_import_only_errors_and_labels():
    bad = [f"{s} -> {d}" for s, d in _edges("engines")
           if _top(d) != "engines" and d not in ENGINE_ALLOWED]
    assert bad == []


def test_nothing_imports_the_cli():
    bad = [f"{s} -> {d}" for s, d in _edges() if _top(d) == "cli"
           and _top(s) != "cli" and s != "fairbound.__main__"]
    assert bad == []


def test_no_domain_and_not_the_core_imports_viz_or_report():
    bad = [f"{s} -> {d}" for s, d in _edges() if _top(d) in ("viz", "report")
           and _top(s) in (*DOMAINS, CORE) and (s, d) not in DOMAIN_REPORT_EXCEPTIONS]
    assert bad == []
    for (s, d), why in DOMAIN_REPORT_EXCEPTIONS.items():
        assert d in GRAPH[s], f"stale exception {s} -> {d}: {why}"


def test_report_and_viz_never_import_a_domain_result_back():
    # viz and report read audits, plans and studies; they never import the audit builder,
    # so AuditResult.plot()/report() (audit -> viz, report) make no cycle
    bad = [f"{s} -> {d}" for s, d in _edges() if _top(s) in ("viz", "report")
           and _top(d) in ("audits", "stability", "cli", "evaluation")]
    assert bad == []


def test_top_level_packages_form_a_dag():
    deps: dict[str, set[str]] = defaultdict(set)
    for s, d in _edges():
        a, b = _top(s), _top(d)
        if a != b and (a, b) not in CYCLE_EXCEPTIONS:
            deps[a].add(b)
    order: list[str] = []
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> None:
        if state.get(node) == 2:
            return
        if state.get(node) == 1:
            cycle = path[path.index(node):] + [node]
            pytest.fail("import cycle between packages: " + " -> ".join(cycle))
        state[node] = 1
        for nxt in sorted(deps[node]):
            visit(nxt, [*path, node])
        state[node] = 2
        order.append(node)

    for node in sorted(set(deps) | {d for ds in deps.values() for d in ds}):
        visit(node, [])
    assert order.index("stats") < order.index("audits") < order.index("cli")


def _loaded(code: str) -> set[str]:
    """Modules a fresh interpreter holds after ``code`` (``-X importtime`` output too)."""
    script = code + "\nimport sys\nprint('\\n'.join(['@@'] + sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-X", "importtime", "-c", script],
                         capture_output=True, text=True, timeout=120, check=True)
    loaded = set(out.stdout.split("@@", 1)[1].split())
    timed = {line.rsplit("|", 1)[1].strip() for line in out.stderr.splitlines()
             if line.startswith("import time:") and "|" in line}
    return loaded | timed


def _heavy(modules: set[str], roots) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in roots or m in roots)


def test_import_fairbound_loads_no_cli_and_no_matplotlib():
    loaded = _loaded("import fairbound")
    assert _heavy(loaded, ("matplotlib", "typer", "fairbound.cli")) == []
    assert not any(m.startswith("fairbound.cli") for m in loaded)


@pytest.mark.parametrize("argv", [["--help"], ["--version"]])
def test_cli_starts_without_scipy_pandas_matplotlib(argv):
    loaded = _loaded("import contextlib, io\nfrom fairbound.cli import main\n"
                     f"with contextlib.redirect_stdout(io.StringIO()):\n    main({argv!r})")
    assert "fairbound.cli.audit" in loaded  # every command was registered
    assert _heavy(loaded, ("scipy", "pandas", "matplotlib", "duckdb")) == []


#: Modules on an audit's import path that still import scipy when they are imported; each
#: puts scipy.special's import (a large part of a small audit's start-up) into every audit.
#: The exact method itself imports scipy only for the tail bound of groups above 10,000.
SCIPY_AT_IMPORT_EXCEPTIONS: set[str] = set()


def _imports_scipy_at_import(module: str) -> bool:
    """Whether ``module``'s top-level statements import scipy (imports in functions don't)."""
    for node in ast.parse(MODULES[module].read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "scipy"
                                                for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "scipy":
            return True
    return False


def _audit_loads(tmp_path) -> set[str]:
    data = tmp_path / "preds.csv"
    rows = [f"{'ab'[i % 2]},{i % 3 == 0:d},{i % 5 < 2:d}" for i in range(200)]
    data.write_text("g,y,p\n" + "\n".join(rows) + "\n")
    argv = ["audit", str(data), "--group", "g", "--label", "y", "--prediction", "p",
            "--format", "json"]
    return _loaded("import contextlib, io\nfrom fairbound.cli import main\n"
                   f"with contextlib.redirect_stdout(io.StringIO()):\n    main({argv!r})")


def test_a_small_audit_starts_without_pydantic_pyarrow_pandas_or_scipy(tmp_path):
    loaded = _audit_loads(tmp_path)
    assert "fairbound.stats.exact" in loaded and "duckdb" in loaded  # the audit ran
    # typer's pydantic adapters, Arrow for the statistics table, pandas: none needed
    assert _heavy(loaded, ("pydantic", "pyarrow", "pandas", "matplotlib", "jinja2")) == []
    # the exact method draws nothing: numpy.random (about 10 ms) is not loaded
    assert "numpy.random" not in loaded
    first = {m for m in loaded if m in MODULES and _imports_scipy_at_import(m)}
    assert first <= SCIPY_AT_IMPORT_EXCEPTIONS, sorted(first - SCIPY_AT_IMPORT_EXCEPTIONS)
    if not first:
        assert _heavy(loaded, ("scipy",)) == []


def test_plain_option_values_parse_as_typer_parses_them(monkeypatch):
    # the CLI converts text, decimal numbers and lists of text without typer's pydantic
    # adapters and builds only the command named; both must change nothing
    import contextlib
    import importlib
    import io

    import fairbound.cli as cli

    audit_module = importlib.import_module("fairbound.audits")
    seen = []

    class Stop(Exception):
        pass

    def fake_audit(*args, **kwargs):
        seen.append((args, {k: (type(v).__name__, v) for k, v in kwargs.items()}))
        raise Stop  # before any output

    monkeypatch.setattr(audit_module, "audit", fake_audit)
    base = ["audit", "d.csv", "--group", "g"]
    argvs = [base, base + ["-g", "h", "--label", "y", "--pred", "p", "-m", "tpr", "-m", "fpr",
                           "--confidence", "0.99", "--seed", "7", "--tolerance", "0.05",
                           "--max-comparisons", "12", "--cost-max", "2", "--json", "o.json"]]
    argvs += [base + [opt, v] for opt in ("--confidence-level", "--tolerance", "--seed")
              for v in ("1e-3", ".5", "-0", "007", "1.0", "abc", " 3", "1_000", "inf")]
    argvs += [["audit", "--help"], ["audit", "d.csv"], base + ["--bogus"], ["--version"]]

    def run(argv):
        seen.clear()
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = cli.main(argv)
            except Stop:
                code = "called"
        return code, out.getvalue(), err.getvalue(), list(seen)

    fast = [run(a) for a in argvs]
    monkeypatch.setattr(cli, "_plain_values", lambda params: None)
    monkeypatch.setattr(cli, "_app_for", lambda argv: cli.app)
    slow = [run(a) for a in argvs]
    assert sum(f[0] == "called" for f in fast) >= 10
    for argv, f, s in zip(argvs, fast, slow, strict=True):
        assert f == s, argv


def test_every_module_is_reachable_by_its_attribute_path():
    """After importing every submodule, ``fairbound.a.b`` is the module ``fairbound.a.b``."""
    import functools
    import pkgutil
    import warnings

    import fairbound

    names = [m.name for m in pkgutil.walk_packages(fairbound.__path__, "fairbound.")
             if not m.name.endswith("__main__")]
    assert "fairbound.audits.ppi.audit" in names and len(names) > 100
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # optional dependencies' own warnings
        modules = {n: importlib.import_module(n) for n in names}
    unreachable = []
    for name, module in modules.items():
        try:
            found = functools.reduce(getattr, name.split(".")[1:], fairbound)
        except AttributeError:
            found = None
        if found is not module:
            unreachable.append(name)
    assert unreachable == []
    assert callable(fairbound.audit) and not isinstance(fairbound.audit, type(fairbound))


def test_old_audit_paths_give_the_same_modules_with_a_warning():
    import fairbound
    from fairbound._moved import MOVED

    for old, new in MOVED.items():
        sys.modules.pop(old, None)
        with pytest.warns(DeprecationWarning, match=f"{old} moved to {new}"):
            got = importlib.import_module(old)
        if old == "fairbound.audit":  # a stand-in that reads the new package's names
            assert got.AuditResult is importlib.import_module(new).AuditResult
            continue
        assert got is importlib.import_module(new)
        assert got.__spec__.name == new  # the module keeps its own spec
    from fairbound.audit import AuditResult  # the old spelling of the public names

    assert AuditResult is fairbound.AuditResult
    assert callable(fairbound.audit)  # still the function after importing the old path
    # importing an old submodule path leaves the new packages' attributes alone
    import fairbound.audits.ppi

    assert fairbound.audits.ppi is sys.modules["fairbound.audits.ppi"]
    assert fairbound.audits.ppi.audit is sys.modules["fairbound.audits.ppi.audit"]
