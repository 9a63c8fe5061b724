"""``fairbound example adult``: the main job of the README, end to end."""

from __future__ import annotations

import pytest

import fairbound
from fairbound.cli import main

METRICS = ["demographic_parity", "equal_opportunity", "equalized_odds", "predictive_parity",
           "accuracy_parity"]


@pytest.mark.slow
def test_example_adult_prints_every_summary_sentence_of_both_audits(tmp_path, capsys):
    out = tmp_path / "adult"
    assert main(["example", "adult", "--out", str(out)]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    preds = str(out / "adult_test_predictions.parquet")
    for name, kw in (("sex", {}), ("race", {"reference": "White"})):
        assert f"Summary (by {name})" in printed
        res = fairbound.audit(preds, group=name, label="income", prediction="prediction",
                              metrics=METRICS, **kw)
        lines = res.summary()
        assert len(lines) > 6
        for line in lines:   # each sentence whole (rich wraps lines: spaces normalised)
            assert " ".join(line.split()) in printed
    assert (out / "report.html").exists()

