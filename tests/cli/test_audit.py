"""``fairbound audit``: its help text."""

from __future__ import annotations


def test_audit_help_lists_every_metric_and_the_defaults():
    """Issue 27 item 9: ``audit --help`` names every registered metric (and the defaults)."""
    from typer.testing import CliRunner

    from fairbound.cli import app
    from fairbound.metrics import DEFAULT_METRICS, METRICS

    res = CliRunner().invoke(app, ["audit", "--help"], env={"COLUMNS": "200"})
    text = " ".join(res.output.replace("│", " ").split())
    assert res.exit_code == 0
    for name in METRICS:
        assert name in text, name
    assert "Default: " + ", ".join(DEFAULT_METRICS) in text


def test_audit_table_says_not_reachable_instead_of_an_impossible_n(tmp_path, capsys):
    """Issue 27 item 4 in the console: no "451,245,094" asked of a 1,000-row audit."""
    import numpy as np
    import pandas as pd

    from fairbound.cli import main

    n = 500
    df = pd.DataFrame({"g": ["a"] * n + ["b"] * n, "y": 1,
                       "p": np.r_[np.arange(n) < 150, np.arange(n) < 151].astype(int)})
    df.to_csv(tmp_path / "d.csv", index=False)
    assert main(["audit", str(tmp_path / "d.csv"), "-g", "g", "-y", "y", "-p", "p",
                 "-m", "demographic_parity"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "not reachable" in out and "over 100 times the examples compared" in out
