"""Every CSV fairbound writes is safe to open in a spreadsheet; no control character
reaches a terminal.

One writer (:func:`fairbound._io.csv_text`) escapes text cells that a spreadsheet would
run as formulas and leaves numbers alone; every fairbound reader of its own CSVs undoes the
escape, so a design file of ``fairbound sample`` audits with the group names it was drawn
from.  Tables and notes on a terminal show control characters as ``\\xNN`` and group names
that look like rich markup literally.
"""

from __future__ import annotations

import io
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fairbound
from fairbound._io import csv_text, escape_cell, unescape_cell, unescape_frame
from fairbound._render import console
from fairbound.cli import main

EVIL = ["=HYPERLINK(\"http://x\",\"y\")", "+1+1", "-2+3", "@SUM(A1)", "\tx", "'=quoted"]
ESC = "a\x1b]0;TITLE\x07"


@given(st.text())
def test_escape_round_trips_every_text(text):
    assert unescape_cell(escape_cell(text)) == text
    out = escape_cell(text)
    assert not out[:1] or out[0] not in "=+-@\t\r" or out == text  # plain numbers stay


@pytest.mark.parametrize("value", ["-0.5", "+3", "-1e-3", ".5", "12"])
def test_numbers_are_never_escaped(value):
    assert escape_cell(value) == value
    assert escape_cell(-0.5) == -0.5


def test_csv_text_escapes_text_cells_and_names_only():
    frame = pd.DataFrame({"=name": EVIL, "gap": [-0.5] * len(EVIL),
                          "cat": pd.Categorical(["-x"] * len(EVIL))})
    text = csv_text(frame)
    back = pd.read_csv(io.StringIO(text), keep_default_na=False)
    assert list(back.columns) == ["'=name", "gap", "cat"]
    assert all(str(v)[0] == "'" for v in back["'=name"])
    assert back["gap"].tolist() == [-0.5] * len(EVIL)   # still numbers
    assert back["cat"].tolist() == ["'-x"] * len(EVIL)
    restored = unescape_frame(back)
    assert list(restored.columns) == ["=name", "gap", "cat"]
    assert restored["=name"].tolist() == EVIL


@pytest.fixture()
def evil_csv(tmp_path):
    rng = np.random.default_rng(3)
    n = 600
    frame = pd.DataFrame({"g": rng.choice(["=cmd|' /C calc'!A0", "-b", "@c"], n),
                          "y": rng.integers(0, 2, n), "p": rng.integers(0, 2, n),
                          "score": rng.random(n).round(3)})
    path = tmp_path / "evil.csv"
    frame.to_csv(path, index=False)
    return path


def _cells(text: str) -> list[str]:
    import csv

    return [c for row in csv.reader(io.StringIO(text)) for c in row]


def _no_formula(cells) -> None:
    bad = [c for c in cells if c[:1] in ("=", "+", "@", "\t", "\r")
           or (c[:1] == "-" and not _is_number(c))]
    assert not bad, bad[:5]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("command", ["audit", "scores", "ppi"])
def test_format_csv_is_safe(evil_csv, capsys, command):
    args = {"audit": ["-y", "y", "-p", "p", "--method", "newcombe"],
            "scores": ["-y", "y", "-s", "score"],
            "ppi": ["-y", "y", "-f", "p", "-p", "p"]}[command]
    assert main([command, str(evil_csv), "-g", "g", *args, "--format", "csv"]) == 0
    cells = _cells(capsys.readouterr().out)
    _no_formula(cells)
    assert "'=cmd|' /C calc'!A0" in cells and "'-b" in cells
    assert any(c.startswith("-0.") for c in cells)  # negative numbers are left as numbers


def test_impact_csv_file_is_safe(evil_csv, tmp_path):
    out = tmp_path / "ll144.csv"
    assert main(["impact", str(evil_csv), "-g", "g", "-p", "p", "--csv", str(out)]) == 0
    cells = _cells(out.read_text())
    _no_formula(cells)
    assert "'@c" in cells


def test_sample_files_are_safe_and_read_back_exactly(evil_csv, tmp_path, capsys):
    design, annotate = tmp_path / "design.csv", tmp_path / "annotate.csv"
    assert main(["sample", str(evil_csv), "-g", "g", "--budget", "60", "-o", str(design),
                 "--annotate", str(annotate), "--format", "json"]) == 0
    for path in (design, annotate):
        _no_formula(_cells(path.read_text()))
    # the annotators fill the labels in; ppi reads the design with the original names
    frame = pd.read_csv(design, keep_default_na=False)
    drawn = frame["fairbound_batch"].astype(str) != ""
    frame["gold"] = np.where(drawn, frame["y"], np.nan)
    frame.to_csv(design, index=False)  # pandas keeps the escaped text as it read it
    capsys.readouterr()
    assert main(["ppi", str(design), "-g", "g", "-y", "gold", "-f", "p", "-p", "p",
                 "--sampling-probability", "fairbound_probability", "--batch",
                 "fairbound_batch", "--format", "json"]) == 0
    groups = {g["group"] for g in json.loads(capsys.readouterr().out)["groups"]}
    assert groups == {"=cmd|' /C calc'!A0", "-b", "@c"}
    # and the design file audits the same groups as the original data
    res = fairbound.audit(str(design), group="g", label="y", prediction="p",
                          method="newcombe", metrics="demographic_parity")
    assert {g for g, _ in res.groups} == groups


def test_stability_debias_round_trip(tmp_path):
    src = tmp_path / "bios.csv"
    pd.DataFrame({"text": ["-she is a nurse", "=he is a surgeon"] * 5,
                  "g": ["F", "M"] * 5}).to_csv(src, index=False)
    dest = tmp_path / "out.csv"
    assert main(["stability", "debias", str(src), str(dest), "--variant", "male"]) == 0
    _no_formula(_cells(dest.read_text()))
    from fairbound.stability.data import read_frame

    back = read_frame(dest)
    assert back["text"].str[0].isin(["-", "="]).all()


def test_nli_output_and_stdout_are_safe(tmp_path, capsys):
    samples = tmp_path / "s.csv"
    assert main(["nli", "expand", "--subtopic", "man_is_to_breadwinner", "-o",
                 str(samples)]) == 0
    frame = pd.read_csv(samples)
    frame[["sample_id"]].assign(prediction="neutral").to_csv(tmp_path / "p.csv", index=False)
    out = tmp_path / "m.csv"
    capsys.readouterr()
    assert main(["nli", "audit", "--samples", str(samples), "-p", str(tmp_path / "p.csv"),
                 "--name", "=evil()", "--n-resamples", "20", "-o", str(out),
                 "--format", "csv"]) == 0
    for text in (out.read_text(), capsys.readouterr().out):
        cells = _cells(text)
        _no_formula(cells)
        assert "'=evil()" in cells


# ----------------------------------------------------------------------------- terminals


def test_audit_table_shows_control_characters_and_markup_literally(tmp_path, capsys):
    rng = np.random.default_rng(0)
    n = 300
    path = tmp_path / "esc.csv"
    pd.DataFrame({"g": rng.choice([ESC, "[/]b", "[red]c"], n), "y": rng.integers(0, 2, n),
                  "p": rng.integers(0, 2, n)}).to_csv(path, index=False)
    assert main(["audit", str(path), "-g", "g", "-y", "y", "-p", "p",
                 "-m", "demographic_parity"]) == 0
    captured = capsys.readouterr()
    for stream in (captured.out, captured.err):
        assert "\x1b" not in stream and "\x07" not in stream
    assert "a\\x1b]0;TITLE\\x07" in captured.out
    assert "[/]b" in captured.out and "[red]c" in captured.out


def test_csv_on_a_terminal_escapes_control_characters(tmp_path, capsys, monkeypatch):
    path = tmp_path / "esc.csv"
    pd.DataFrame({"g": [ESC, "b"] * 50, "y": [1, 0, 0, 1] * 25,
                  "p": [1, 1, 0, 0] * 25}).to_csv(path, index=False)
    argv = ["audit", str(path), "-g", "g", "-y", "y", "-p", "p", "--format", "csv",
            "-m", "demographic_parity"]
    assert main(argv) == 0
    assert ESC in capsys.readouterr().out  # a pipe gets the value as it is
    import sys

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "a\\x1b]0;TITLE\\x07" in out


def test_notes_and_errors_escape_control_characters(capsys):
    import warnings

    from fairbound.cli import tidy_warnings

    with tidy_warnings():
        warnings.warn(f"group {ESC} has 3 rows", UserWarning, stacklevel=1)
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b" in err


def test_the_console_never_prints_a_control_character():
    con = console(file=io.StringIO(), force_terminal=True)
    con.print(f"[bold]x[/] {ESC} \x9b2J")
    table_text = con.file.getvalue()
    assert "\\x1b]0;TITLE\\x07" in table_text and "\\x9b2J" in table_text
    assert "\x07" not in table_text and "\x9b" not in table_text
    assert "]0;TITLE" not in table_text.replace("\\x1b]0;TITLE", "")
