"""``fairbound example``: end-to-end examples on bundled real data.

``fairbound example adult`` trains on UCI Adult (:func:`fairbound.examples.adult_predictions`),
audits the test predictions by sex and by race, prints the tables and writes JSON (and an
HTML report).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def adult_command(
    out: Annotated[Path, typer.Option(help="Folder for predictions, JSON and report.")] =
    Path("fairbound-adult"),
    method: Annotated[str, typer.Option(
        help="Interval method (auto: exact for 0/1 costs, exact-union when one group is "
             "3,000+ times the other).")] = "auto",
    confidence: Annotated[float, typer.Option(help="Confidence level.")] = 0.95,
    seed: Annotated[int, typer.Option(help="Seed.")] = 0,
) -> None:
    """Train on UCI Adult, audit the test predictions by sex and race, write a report."""
    from fairbound._render import console, plain
    from fairbound.audits import audit
    from fairbound.cli.audit import print_audit
    from fairbound.examples import adult_predictions

    con = console()
    out.mkdir(parents=True, exist_ok=True)
    con.print("Training logistic regression on UCI Adult (32,561 rows); predicting the "
              "16,281 test rows ...")
    preds = adult_predictions(seed)
    acc = float((preds["prediction"] == preds["income"]).mean())
    path = out / "adult_test_predictions.parquet"
    preds.to_parquet(path, index=False)
    con.print(f"test accuracy {acc:.3f}; predictions written to {path}\n")
    metrics = ["demographic_parity", "equal_opportunity", "equalized_odds",
               "predictive_parity", "accuracy_parity"]
    results = {}
    for name, kwargs in (("sex", {"group": "sex"}),
                         ("race", {"group": "race", "reference": "White"})):
        res = audit(str(path), label="income", prediction="prediction", metrics=metrics,
                    method=method, confidence_level=confidence, seed=seed, **kwargs)
        results[name] = res
        res.to_json(out / f"audit_{name}.json")
        print_audit(res)
        con.print("")
    for name, res in results.items():   # every sentence of both audits, not a preview
        con.print(f"[bold]Summary (by {name})[/]")
        for line in res.summary():
            con.print(f"  - {plain(line)}")
        con.print("")
    try:
        from fairbound.report import write_audit_report
    except ImportError:
        write_audit_report = None
    if write_audit_report is not None:
        report = write_audit_report(list(results.values()), out / "report.html",
                                    title="UCI Adult income classifier: fairness audit")
        con.print(f"\nHTML report: {report}")
    con.print(f"JSON results: {out / 'audit_sex.json'}, {out / 'audit_race.json'}")


def register(app: typer.Typer) -> None:
    """Add ``example`` (a sub-app of bundled end-to-end examples)."""
    from fairbound.cli._common import add_sub_app

    add_sub_app(app, "example", "End-to-end examples on bundled real data.",
                adult=adult_command)
