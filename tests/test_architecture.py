"""The layers of fairbound, kept true: rules over the import graph (see docs/architecture.md).

Every module under ``src/fairbound`` is parsed with :mod:`ast`; every import counts, at the
top of a module or inside a function (relative imports resolved, ``importlib.import_module``
calls with a literal name included).  Names imported on first use from a table of strings
(``fairbound.__init__``, the CLI's plugin list) are checked by the start-up tests at the end,
which look at what a fresh interpreter actually loads.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

import fairbound

ROOT = Path(fairbound.__file__).resolve().parent

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


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


MODULES = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _imports(name: str, path: Path) -> set[str]:
    """Every fairbound module ``name`` imports (resolved to the longest known module)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()

    def add(target: str, names=()) -> None:
        if not (target == "fairbound" or target.startswith("fairbound.")):
            return
        found.add(_known(target))
        for n in names:
            if f"{target}.{n}" in MODULES:
                found.add(f"{target}.{n}")

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            add(target, [a.name for a in node.names])
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and (getattr(node.func, "attr", None) == "import_module"
                   or getattr(node.func, "id", None) in ("import_module", "__import__"))):
            add(node.args[0].value)
    found.discard(name)
    return found


def _known(target: str) -> str:
    parts = target.split(".")
    for i in range(len(parts), 0, -1):
        if ".".join(parts[:i]) in MODULES:
            return ".".join(parts[:i])
    return target


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


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
