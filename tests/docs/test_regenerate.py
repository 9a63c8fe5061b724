"""The outputs shown in the README and docs are what the tool prints now.

``python docs/regenerate.py`` writes them; this test runs its ``--check`` (every marked
block regenerated in a scratch folder and compared, every number of a marked paragraph found
in the page's outputs) and fails on any difference.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docs" / "regenerate.py"


def _module():
    spec = importlib.util.spec_from_file_location("regenerate", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_every_marked_output_is_what_the_tool_prints_now(capsys):
    mod = _module()
    marked = [p for p in mod.pages() if mod.RUN.search(p.read_text(encoding="utf-8"))]
    assert any(p.name == "quickstart.md" for p in marked)
    code = mod.main(["--check"])
    out = capsys.readouterr()
    assert code == 0, "docs drifted; run `python docs/regenerate.py`:\n" + out.out + out.err


def test_the_check_fails_on_a_changed_output_and_an_unsupported_number(tmp_path, monkeypatch):
    mod = _module()
    page = tmp_path / "page.md"
    page.write_text("<!-- fairbound:run fairbound --version -->\n```text\nfairbound 0.0.0\n```\n"
                    "\n<!-- fairbound:numbers -->\nIt printed 12,345 lines.\n")
    monkeypatch.setattr(mod, "FILES", {})
    assert mod.main(["--check", str(page)]) == 1
    assert mod.main([str(page)]) == 1          # regenerated, but 12,345 is still unsupported
    text = page.read_text()
    assert re.search(r"```text\nfairbound \d", text) and "0.0.0" not in text
    page.write_text(text.replace("12,345 lines", "one line"))
    assert mod.main(["--check", str(page)]) == 0


@pytest.mark.parametrize("name", ["README.md"])
def test_front_page_is_short(name):
    assert len((ROOT / name).read_text(encoding="utf-8").splitlines()) <= 100
