"""The shared docstring pieces (``fairbound._docs``): filled everywhere, never left as markers."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from pathlib import Path

import pytest

import fairbound
from fairbound._docs import PIECES, expand, fill

MARKER = re.compile(r"^\s*\{\{[a-z_][a-z0-9_]*\}\}\s*$", re.M)


def test_a_piece_is_indented_like_its_marker():
    doc = "Summary.\n\n    Parameters\n    ----------\n    {{result}}\n    x : int\n"
    lines = expand(doc).splitlines()
    assert lines[4] == "    result : AuditResult"
    assert lines[5].startswith("        What ")        # continuation: 4 more spaces
    assert lines[6] == "    x : int"


def test_an_unknown_marker_fails_when_the_module_is_imported():
    with pytest.raises(KeyError, match="no_such_piece"):
        @fill
        def f():
            """Summary.

            {{no_such_piece}}
            """


def test_module_pieces_win_and_docstring_text_is_kept_as_written():
    doc = 'A {"dict": 1} at 95%.\n    {{result}}\n'
    out = expand(doc, {"result": "mine"})
    assert out == 'A {"dict": 1} at 95%.\n    mine\n'


def test_fill_without_a_docstring_does_nothing():
    def f():
        pass

    assert fill(f) is f and f.__doc__ is None


def _docstrings():
    for info in pkgutil.walk_packages(fairbound.__path__, "fairbound."):
        if info.name.endswith("__main__"):
            continue
        try:
            module = importlib.import_module(info.name)
        except ModuleNotFoundError:      # an optional extra is missing
            continue
        for name, obj in vars(module).items():
            if getattr(obj, "__module__", None) != module.__name__:
                continue
            yield f"{info.name}.{name}", inspect.getdoc(obj) or ""
            for attr, member in vars(obj).items() if inspect.isclass(obj) else ():
                member = getattr(member, "__func__", getattr(member, "fget", member))
                yield f"{info.name}.{name}.{attr}", getattr(member, "__doc__", None) or ""


def test_no_docstring_in_the_package_shows_a_marker():
    left = [name for name, doc in _docstrings() if MARKER.search(doc)]
    assert left == []


def test_every_shared_piece_is_used():
    # used where a docstring names it, or inside another piece (PIECES["name"])
    root = Path(fairbound.__file__).parent
    source = "\n".join(p.read_text(encoding="utf-8") for p in root.rglob("*.py"))
    unused = [k for k in PIECES
              if "{{" + k + "}}" not in source and f'PIECES["{k}"]' not in source]
    assert unused == []
