"""One vocabulary: every verdict is spelled once, and the small-group size is defined once.

The words live in :mod:`fairbound._words` (a base-layer module that the statistical core,
the reports, the plots and the CLI may all import); :mod:`fairbound.audits.verdicts`
re-exports them.  Everywhere else, code compares and writes verdicts through the named
constants: a string constant that *is* a verdict (exact, case-sensitive) in code, outside
the vocabulary, is an error.  Docstrings, comments and prose that merely contains the
words (an f-string, a sentence, a template) are not checked.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import fairbound
from fairbound import _words
from fairbound.audits import verdicts

ROOT = Path(fairbound.__file__).resolve().parent
VOCABULARY = {ROOT / "_words.py"}
WORDS = set(_words.VERDICTS)


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) \
                and node.body and isinstance(node.body[0], ast.Expr) \
                and isinstance(node.body[0].value, ast.Constant) \
                and isinstance(node.body[0].value.value, str):
            out.add(id(node.body[0].value))
    return out


def verdict_literals(source: str, words=frozenset(WORDS)) -> list[tuple[int, str]]:
    """``(line, word)`` of every string constant in code that is exactly a verdict."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    return sorted((n.lineno, n.value) for n in ast.walk(tree)
                  if isinstance(n, ast.Constant) and isinstance(n.value, str)
                  and n.value in words and id(n) not in skip)


def test_every_kind_has_its_verdicts_in_the_vocabulary():
    from fairbound.audits.ratios import audit as ratios
    from fairbound.stats import monitor

    assert set(_words.AUDIT_VERDICTS) == {
        "A disadvantaged", "B disadvantaged", "unequal", "no meaningful gap",
        "not enough evidence", "not estimable"}
    assert set(ratios.VERDICTS) == set(_words.IMPACT_VERDICTS)
    assert set(_words.MONITOR_VERDICTS) == {monitor.A_DISADVANTAGED, monitor.B_DISADVANTAGED,
                                            monitor.WITHIN_TOLERANCE, monitor.NO_EVIDENCE}
    assert WORDS == set(_words.AUDIT_VERDICTS) | set(_words.IMPACT_VERDICTS) \
        | set(_words.MONITOR_VERDICTS)
    for name in ("A_DISADVANTAGED", "B_DISADVANTAGED", "NO_EVIDENCE", "NO_GAP", "UNEQUAL",
                 "NOT_ESTIMABLE", "ADVERSE", "NO_ADVERSE", "REFERENCE", "WITHIN_TOLERANCE",
                 "DISADVANTAGED", "GAP_VERDICTS"):
        assert getattr(verdicts, name) is getattr(_words, name), name
    assert ratios.ADVERSE is _words.ADVERSE and monitor.NO_EVIDENCE is _words.NO_EVIDENCE


@pytest.mark.parametrize("snippet,found", [
    ('x = "not estimable"', [(1, "not estimable")]),
    ('if c["verdict"] == "unequal":\n    pass', [(1, "unequal")]),
    ('STYLE = {"A disadvantaged": "red"}', [(1, "A disadvantaged")]),
    ('def f():\n    """not estimable"""\n', []),
    ('# "not estimable"\nx = 1', []),
    ('x = "the gap is not estimable here"', []),
    ('x = "Unequal"', []),
    ('x = f"{a}: unequal"', []),
])
def test_the_check(snippet, found):
    assert verdict_literals(snippet) == found


def test_no_verdict_is_spelled_outside_the_vocabulary():
    bad = [f"{p.relative_to(ROOT)}:{line}: {word!r}"
           for p in sorted(ROOT.rglob("*.py")) if p not in VOCABULARY
           for line, word in verdict_literals(p.read_text(encoding="utf-8"))]
    assert bad == []


def test_the_vocabulary_is_imported_by_the_core_from_the_base_layer():
    # the core may not import fairbound.audits: the monitor reads the words from the base
    tree = ast.parse((ROOT / "stats" / "monitor.py").read_text(encoding="utf-8"))
    modules = {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert "fairbound._words" in modules
    assert not any((m or "").startswith("fairbound.audits") for m in modules)
    base = ast.parse((ROOT / "_words.py").read_text(encoding="utf-8"))
    assert not [n for n in ast.walk(base) if isinstance(n, ast.Import)
                or (isinstance(n, ast.ImportFrom) and n.module != "__future__")]


def _assigned(name: str) -> list[str]:
    """Modules that bind ``name`` to a literal (not an import, not an alias of another)."""
    out = []
    for p in sorted(ROOT.rglob("*.py")):
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            targets = node.targets if isinstance(node, ast.Assign) else \
                [node.target] if isinstance(node, ast.AnnAssign) else []
            if any(isinstance(t, ast.Name) and t.id == name for t in targets) \
                    and isinstance(node.value, ast.Constant):
                out.append(str(p.relative_to(ROOT)))
    return out


def test_small_group_is_defined_once():
    from fairbound.audits.gaps import build
    from fairbound.audits.scores import audit as scores
    from fairbound.report import audit_report

    assert _assigned("SMALL_GROUP") == ["_words.py"]
    assert build.SMALL_GROUP == scores.SMALL_GROUP == audit_report.SMALL_GROUP == 30


def test_one_reference_resolution_and_one_group_check():
    # the kinds share pairing's reference rule and "no rows / where / one group" check
    from fairbound.audits import pairing
    from fairbound.audits.gaps import build
    from fairbound.audits.ratios import audit as ratios
    from fairbound.audits.scores import audit as scores

    for module in (build, ratios, scores):
        text = Path(module.__file__).read_text(encoding="utf-8")
        assert "selects none of the" not in text, module.__name__
        assert "has a single group" not in text, module.__name__
    assert ratios._same_group is pairing.same_group
    for mod in (ratios, scores):
        assert mod.resolve_reference is pairing.resolve_reference
