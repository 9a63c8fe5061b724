"""Every command that runs the gap audit defaults to the audit's own interval method."""

from __future__ import annotations

import inspect

import pytest

from fairbound.audits.gaps.build import audit


@pytest.mark.parametrize("module, function", [("audit", "audit_command"),
                                              ("report", "report_command"),
                                              ("examples", "adult_command"),
                                              ("stability", "run_command")])
def test_default_method_is_the_audits(module, function):
    """Issue 27 item 5: the same flags give the same intervals in every command."""
    import importlib

    command = getattr(importlib.import_module(f"fairbound.cli.{module}"), function)
    default = inspect.signature(command).parameters["method"].default
    assert default == inspect.signature(audit).parameters["method"].default == "auto"


def test_report_with_data_gives_the_audits_intervals(tmp_path):
    import json

    import numpy as np
    import pandas as pd

    from fairbound.cli import main

    rng = np.random.default_rng(0)
    n = 400
    df = pd.DataFrame({"g": rng.choice(["a", "b"], n), "y": rng.integers(0, 2, n),
                       "p": rng.integers(0, 2, n)})
    df.to_csv(tmp_path / "d.csv", index=False)
    assert main(["report", "--data", str(tmp_path / "d.csv"), "-g", "g", "-y", "y", "-p", "p",
                 "-m", "equal_opportunity", "-o", str(tmp_path / "r.html"),
                 "--json", str(tmp_path / "r.json")]) == 0
    got = json.loads((tmp_path / "r.json").read_text())["comparisons"][0]
    want = audit(str(tmp_path / "d.csv"), group="g", label="y", prediction="p",
                 metrics=["equal_opportunity"]).comparisons[0]
    assert (got["low"], got["high"]) == (want.low, want.high)
