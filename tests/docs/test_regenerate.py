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


#: Output blocks of the README and the docs that are neither generated nor cited, and why.
#: Keyed by page and the start of the block's first line.
UNMARKED = {
    ("docs/proxies.md", "issue 29 simulation: 300 data sets"):
        "a long simulation (benchmarks/proxies_simulation.py, 300 data sets); its claims "
        "are checked by the seeded slow tests of tests/audits/proxies/test_audit.py",
    ("docs/proxies.md", "weighted design (annotated rows drawn"):
        "the same simulation, weighted design",
    ("docs/quickstart.md", "fairbound-adult/adult_test_predictions.parquet"):
        "a list of the files `fairbound example adult` writes, annotated by hand",
}
#: A block that starts with one of these is a command to type (input), not an output.
COMMANDS = ("fairbound ", "python ", "nice python ")


def _output_blocks(mod):
    """``(page, first line, marked)`` of every block that shows text (not code) on a page."""
    out = []
    for page in mod.pages():
        lines = page.read_text(encoding="utf-8").split("\n")
        i = 0
        while i < len(lines):
            if not lines[i].startswith("```"):
                i += 1
                continue
            j = i + 1
            while not lines[j].startswith("```"):
                j += 1
            first = lines[i + 1] if j > i + 1 else ""
            if lines[i][3:] in ("", "text", "console") and not first.startswith(COMMANDS):
                marked = i > 0 and lines[i - 1].startswith("<!-- fairbound:")
                out.append((mod._name(page), first, marked))
            i = j + 1
    return out


def test_every_output_block_is_generated_cited_or_listed_with_a_reason():
    mod = _module()
    blocks = _output_blocks(mod)
    assert sum(m for _, _, m in blocks) >= 15
    loose = [(page, first[:60]) for page, first, marked in blocks if not marked
             and not any(page == p and first.startswith(s) for p, s in UNMARKED)]
    assert not loose, "mark these blocks (docs/regenerate.py) or list them in UNMARKED"
    stale = [k for k in UNMARKED if not any(page == k[0] and first.startswith(k[1])
                                            for page, first, marked in blocks if not marked)]
    assert not stale


def test_quoted_timings_cite_a_committed_benchmark_output_naming_its_machine():
    mod = _module()
    cited = [p for p in mod.pages() if mod.BENCHMARK.search(p.read_text(encoding="utf-8"))]
    assert {p.name for p in cited} >= {"performance.md", "scores.md"}
    assert [problem for p in cited for problem in mod.benchmarks(p)] == []


def test_a_quoted_timing_that_is_not_in_its_file_fails(tmp_path, monkeypatch):
    mod = _module()
    monkeypatch.setattr(mod, "ROOT", tmp_path)
    (tmp_path / "bench.txt").write_text("fairbound 0.1.0, 2 cores\naudit: 1.19 s\n")
    page = tmp_path / "p.md"
    page.write_text("<!-- fairbound:benchmark bench.txt -->\n```text\naudit: 1.19 s\n```\n")
    assert mod.benchmarks(page) == []
    page.write_text("<!-- fairbound:benchmark bench.txt -->\n```text\naudit: 0.9 s\n```\n")
    assert "is not in bench.txt" in mod.benchmarks(page)[0]
    (tmp_path / "bench.txt").write_text("audit: 0.9 s\n")
    assert "does not name its machine" in mod.benchmarks(page)[0]


def test_every_marked_output_is_what_the_tool_prints_now(capsys):
    mod = _module()
    marked = [p for p in mod.pages() if mod.RUN.search(p.read_text(encoding="utf-8"))]
    assert any(p.name == "quickstart.md" for p in marked)
    code = mod.main(["--check"])
    out = capsys.readouterr()
    assert code == 0, "docs drifted; run `python docs/regenerate.py`:\n" + out.out + out.err


@pytest.mark.slow
def test_model_runs_and_long_simulations_shown_are_what_the_tool_prints_now(capsys):
    """The ``run-long`` blocks (models trained, long simulations): the slow suite."""
    mod = _module()
    assert any(m["kind"] == "run-long" for p in mod.pages()
               for m in mod.RUN.finditer(p.read_text(encoding="utf-8")))
    code = mod.main(["--check", "--long"])
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


def test_long_blocks_chains_head_prompt_and_the_pages_python(tmp_path, monkeypatch):
    mod = _module()
    monkeypatch.setattr(mod, "FILES", {})
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- fairbound:run-long python -c \"print('trained')\" -->\n```text\nstale\n```\n\n"
        "<!-- fairbound:run python -c \"print(1)\" && python -c \"print('a'); print('b'); "
        "print('c')\" | head -n 2 -->\n```text\n$ old\n```\n\n"
        "```python\nx = 41\nprint(x + 1)\n```\n\n<!-- fairbound:python -->\n```\nold\n```\n")
    assert mod.main(["--check", str(page)]) == 1
    assert "stale" in page.read_text()            # --check writes nothing
    assert mod.main([str(page)]) == 0              # regenerates every kind
    text = page.read_text()
    assert "```text\ntrained\n```" in text
    assert ("```text\n$ python -c \"print(1)\"\n$ python -c \"print('a'); print('b'); "
            "print('c')\" | head -n 2\na\nb\n```") in text
    assert "<!-- fairbound:python -->\n```\n42\n```" in text
    assert mod.main(["--check", str(page)]) == 0
    page.write_text(text.replace("```text\ntrained\n```", "```text\nstale\n```"))
    assert mod.main(["--check", str(page)]) == 0             # the fast check skips run-long
    assert mod.main(["--check", "--long", str(page)]) == 1   # the slow one does not


@pytest.mark.parametrize("name", ["README.md"])
def test_front_page_is_short(name):
    assert len((ROOT / name).read_text(encoding="utf-8").splitlines()) <= 100
