"""The outputs shown in the README and docs are what the tool prints now.

``python docs/regenerate.py`` writes them; this test runs its ``--check`` (every marked
block regenerated in a scratch folder and compared, every number of a marked paragraph found
in the page's outputs) and fails on any difference. Every measured number in the prose of
the README and the docs is generated, cites a source that holds it, or is allowed by
category (``docs/regenerate.py``, "Numbers in prose"; ``--census`` counts them).
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


def test_every_measured_number_in_prose_is_generated_cited_or_allowed():
    """Numbers in prose cannot drift: every paragraph, list item or table row of the README
    and the docs that states a measured number is regenerated, cites a source that holds
    the number (a committed benchmark output, a seed paper, a statute, a test, the code),
    or is allowed by category with a reason (``docs/regenerate.py`` ALLOWED);
    ``python docs/regenerate.py --census`` counts them."""
    mod = _module()
    problems, unsourced, counts = [], [], {}
    for page in mod.pages():
        found, census = mod.sources(page)
        problems += found
        unsourced += [f"{mod._name(page)}:{n}: {' '.join(t.split())[:70]}"
                      for n, t in census.get("unsourced", [])]
        for kind, units in census.items():
            counts[kind] = counts.get(kind, 0) + len(units)
    assert not problems, "\n".join(problems)
    assert not unsourced, ("mark these paragraphs (docs/regenerate.py, 'Numbers in prose') "
                           "or allow them by category:\n" + "\n".join(unsourced))
    assert counts["results"] >= 250 and counts["numbers"] >= 10
    assert counts.get("allowed", 0) <= 0.12 * sum(counts.values())


def test_allowed_categories_have_a_reason_and_no_stale_entry():
    mod = _module()
    used = set()
    for page in mod.pages():
        name = mod._name(page)
        for _, text, _, _ in mod.prose(page):
            start = re.sub(r"^(?:[-*+]|\d+\.)\s+", "", " ".join(text.split()))
            for category, (_, entries) in mod.ALLOWED.items():
                used |= {(category, e) for e in entries
                         if name == e[0] and start.startswith(e[1])}
    for category, (reason, entries) in mod.ALLOWED.items():
        assert len(reason) > 40 and entries, category
        assert [e for e in entries if (category, e) not in used] == [], category
    assert len(mod.ALLOWED) <= 8


def test_measured_numbers_are_found_and_their_sources_checked(tmp_path, monkeypatch):
    mod = _module()
    monkeypatch.setattr(mod, "ROOT", tmp_path)
    (tmp_path / "benchmarks" / "results").mkdir(parents=True)
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("def test_rate():\n    assert r == 0.4485\n")
    (tmp_path / "benchmarks" / "results" / "b.txt").write_text(
        "python 3.11, 2 cores\n| 1,000,000 | 0.159 | 2.17x |\n")
    page = tmp_path / "p.md"
    page.write_text(
        "Released as version 3.11.7 on 2026-11-26 at 20:24, see section 2.1 and `--confidence "
        "0.9`; 95% intervals.\n\n"
        "It took 1.19 s for 12,345 rows.\n\n"
        "<!-- fairbound:cites results benchmarks/results/b.txt -->\n"
        "| rows | s | ratio |\n|---|---|---|\n| 1,000,000 | 0.159 | 2.17x |\n"
        "| 1,000,000 | 0.158 | 2.17x |\n\n"
        "<!-- fairbound:cites test tests/test_x.py::test_rate -->\n"
        "- FPR 44.85% for one group\n- and 23.45% for the other\n\n"
        "<!-- fairbound:cites test tests/test_x.py::test_gone -->\nThe rate is 0.4485.\n")
    units = {n: nums for n, _, _, nums in mod.prose(page)}
    assert units[1] == ["95%"]      # not the version, date, time, section or code span
    assert units[3] == ["1.19 s", "12,345"]
    problems, census = mod.sources(page)
    assert [n for n, _ in census["convention"]] == [1]
    assert [n for n, _ in census["unsourced"]] == [3]
    assert [n for n, _ in census["results"]] == [8, 9]
    assert [n for n, _ in census["test"]] == [12, 13, 16]
    assert len(problems) == 3, problems
    assert "9: 0.158 is in none of its cited sources" in problems[0]
    assert "13: 23.45% is in none" in problems[1]
    assert "no test test_gone" in problems[2]
    (tmp_path / "benchmarks" / "results" / "b.txt").write_text("| 1,000,000 | 0.159 |\n")
    assert "does not name its machine" in mod.sources(page)[0][0]


def test_census_counts_every_kind(capsys):
    mod = _module()
    assert mod.main(["--census", str(ROOT / "docs" / "performance.md")]) == 0
    out = capsys.readouterr().out
    assert re.search(r"docs/performance.md +numbers +\d+ results +\d+", out)
    assert "unsourced   0" in out


@pytest.mark.parametrize("name", ["README.md"])
def test_front_page_is_short(name):
    assert len((ROOT / name).read_text(encoding="utf-8").splitlines()) <= 100
