"""Build docs/examples/ from the real data bundled with fairbound.

Run from the repository root (about two minutes on two cores)::

    python docs/build_examples.py

It writes, for each example, the audit JSON (schema ``fairbound.audit/1``), the
self-contained HTML report, the Markdown export and the figures as SVG, then
``docs/examples/README.md`` with the headline findings and the exact numbers.

Examples
--------
* ``adult/``: a logistic-regression income classifier trained on the UCI Adult training
  file (the same model as ``fairbound example adult``), audited on the official test file by
  sex and by race (reference group White).
* ``tweets/``: a TF-IDF + logistic-regression classifier of the Davidson et al. (2017) tweets
  (hate / offensive / neither), trained on a seeded half and audited on the other half by the
  dialect inferred with the TwitterAAE model (reference group: white-aligned English).
* ``plan/``: the Bernstein sample-size plan of Ethayarajh (2020) for a bias of 0.05.
* ``stability/``: the design of Jourdan et al. (2023) at reduced size: TF-IDF models on 8
  stratified resamples of 2,000 and 5,000 tweets, each audited by dialect.
* ``nli/``: the BBNLI measures of a lexical-overlap NLI baseline on the shipped templates.
"""

from __future__ import annotations

import os
import sys
import time
import warnings
from pathlib import Path

os.environ.setdefault("MPLBACKEND", "Agg")

HERE = Path(__file__).resolve().parent
OUT = HERE / "examples"
METRICS = ["demographic_parity", "equal_opportunity", "equalized_odds", "predictive_parity",
           "accuracy_parity"]


def save_svg(fig, path: Path) -> None:
    """Save a figure as reproducible SVG (fixed ids, no date) and close it."""
    import matplotlib
    import matplotlib.pyplot as plt

    with matplotlib.rc_context({"svg.hashsalt": "fairbound", "svg.fonttype": "path"}):
        fig.savefig(path, format="svg", bbox_inches="tight", metadata={"Date": None})
    plt.close(fig)


def write_audit_outputs(results: dict, folder: Path, title: str) -> list[str]:
    """JSON, Markdown, HTML report and SVG figures for a set of audits."""
    from fairbound.report import (
        comparison_sentence,
        to_markdown,
        validate_audit_json,
        write_audit_report,
    )

    folder.mkdir(parents=True, exist_ok=True)
    lines = []
    for name, res in results.items():
        res.to_json(folder / f"audit_{name}.json")
        validate_audit_json(folder / f"audit_{name}.json")
        save_svg(res.plot("forest"), folder / f"forest_{name}.svg")
        save_svg(res.plot("rates"), folder / f"rates_{name}.svg")
        save_svg(res.plot("sample-size"), folder / f"sample_size_{name}.svg")
        lines.append(f"### By {name}\n")
        d = res.to_dict()
        order = sorted(d["comparisons"], key=lambda c: c["verdict"] in (
            "not enough evidence", "not estimable"))  # verdicts first, as in summary()
        lines += [f"- {comparison_sentence(c, result=d)}" for c in order]
        lines.append("")
    (folder / "audit.md").write_text(
        "\n".join(to_markdown(r) for r in results.values()), encoding="utf-8")
    write_audit_report(list(results.values()), folder / "report.html", title=title)
    return lines


def adult() -> list[str]:
    """UCI Adult: logistic regression, audited by sex and by race."""
    from fairbound import audit
    from fairbound.examples import adult_predictions

    preds = adult_predictions(seed=0)
    acc = float((preds["prediction"] == preds["income"]).mean())
    results = {
        "sex": audit(preds, group="sex", label="income", prediction="prediction",
                     metrics=METRICS),
        "race": audit(preds, group="race", label="income", prediction="prediction",
                      metrics=METRICS, reference="White"),
    }
    lines = [f"Test accuracy {acc:.4f} on the {len(preds):,} rows of `adult.test`.", ""]
    lines += write_audit_outputs(results, OUT / "adult",
                                 "UCI Adult income classifier: fairness audit")
    return lines


def tweets() -> list[str]:
    """Davidson et al. tweets: TF-IDF + logistic regression, audited by inferred dialect."""
    import pandas as pd
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import make_pipeline

    from fairbound import audit
    from fairbound.datasets import data_path

    df = pd.read_parquet(data_path("hate_speech_dialect", "tweets.parquet"))
    names = {0: "hate", 1: "offensive", 2: "neither"}
    df["label"] = df["class"].map(names)
    train, test = train_test_split(df, test_size=0.5, random_state=0, stratify=df["class"])
    model = make_pipeline(TfidfVectorizer(min_df=2, ngram_range=(1, 2), sublinear_tf=True),
                          LogisticRegression(max_iter=2000, C=4.0, random_state=0))
    model.fit(train["tweet"], train["label"])
    test = test[["dialect_argmax", "label"]].assign(prediction=model.predict(test["tweet"]))
    acc = float((test["prediction"] == test["label"]).mean())
    res = audit(test, group="dialect_argmax", label="label", prediction="prediction",
                metrics=["false_positive_rate", "equal_opportunity"], reference="white")
    excluded = "; ".join(f"{v:,} rows excluded: {k}" for k, v in res.excluded.items())
    lines = [f"Test accuracy {acc:.4f} on {len(test):,} held-out tweets"
             + (f" ({excluded})." if excluded else "."), ""]
    lines += write_audit_outputs({"dialect": res}, OUT / "tweets",
                                 "Offensive-language classifier: false positives by dialect")
    return lines


def plan() -> list[str]:
    """The Ethayarajh (2020) plan: n for a bias of 0.05, and the claimable bias on WinoBias."""
    from fairbound.planning import plan_bbu
    from fairbound.report import write_plan_report
    from fairbound.report.plan_report import plan_statement
    from fairbound.viz.audit import plot_sample_size

    folder = OUT / "plan"
    folder.mkdir(parents=True, exist_ok=True)
    p = plan_bbu(bias=0.05, confidence_level=0.95, gamma=0.5)
    write_plan_report(p, folder / "plan.html")
    save_svg(plot_sample_size(p), folder / "plan_curve.svg")
    w = plan_bbu(n=3160, confidence_level=0.95, gamma=0.5)
    return [f"- {plan_statement(p)}", f"- {plan_statement(w)}", ""]


def stability() -> list[str]:
    """Jourdan et al. (2023) design at reduced size: 8 TF-IDF models per size on the tweets."""
    from fairbound.report import write_stability_report
    from fairbound.stability import TfidfLogisticTrainer, load_tweets, run_study

    folder = OUT / "stability"
    folder.mkdir(parents=True, exist_ok=True)
    res = run_study(load_tweets(), label="label", group="dialect",
                    trainer=TfidfLogisticTrainer(), sizes=[2000, 5000], n_repeats=8,
                    reference="white", seed=0, progress=False)
    write_stability_report(res, folder / "report.html",
                           title="Stability of fairness gaps: TF-IDF models on dialect tweets")
    s = res.summary()
    s.to_csv(folder / "summary.csv", index=False)
    res.compare_sizes().to_csv(folder / "tests_sizes.csv", index=False)
    row = s[(s["group_a"] == "aa") & (s["metric"] == "equal_opportunity")
            & (s["class"] == "neither")]
    lines = [f"{len(res.runs)} models (sizes 2,000 and 5,000, 8 resamples each), audited by "
             "dialect against white-aligned English.", ""]
    for r in row.to_dict("records"):
        lines.append(f"- TPR gap aa - white for class 'neither' at n = {int(r['size']):,}: mean "
                     f"{r['mean']:+.3f}, SD {r['sd']:.3f}, positive in "
                     f"{r['share_positive']:.0%} of runs.")
    return [*lines, ""]


def nli() -> list[str]:
    """BBNLI audit of a lexical-overlap NLI baseline (no download needed)."""
    import re

    from fairbound.nli import audit_nli, expand_templates, load_templates
    from fairbound.report import write_nli_report

    folder = OUT / "nli"
    folder.mkdir(parents=True, exist_ok=True)
    samples = expand_templates(load_templates()).samples

    def overlap(premise: str, hypothesis: str) -> str:
        # Classic baseline: entailment when most hypothesis words occur in the premise.
        pw = set(re.findall(r"[a-z']+", premise.lower()))
        hw = re.findall(r"[a-z']+", hypothesis.lower())
        share = sum(w in pw for w in hw) / max(len(hw), 1)
        return "entailment" if share >= 0.75 else "neutral"

    preds = [overlap(p, h) for p, h in zip(samples["premise"], samples["hypothesis"],
                                            strict=True)]
    res = audit_nli(samples, preds, n_resamples=2000, model="lexical-overlap baseline")
    write_nli_report(res, folder / "report.html")
    res.to_frame().to_csv(folder / "measures.csv", index=False)
    return [f"- bias score {res.estimate('bias_score'):+.3f}, accuracy on bias samples "
            f"{res.estimate('accuracy'):.3f} ({len(samples):,} samples from the 16 "
            "shipped templates).", ""]


#: Each example: its folder (= its name) and the heading of its section in the index page.
EXAMPLES = {
    "adult": "UCI Adult income classifier (`adult/`)",
    "tweets": "Offensive-language classifier by inferred dialect (`tweets/`)",
    "plan": "Sample-size plan (`plan/`)",
    "stability": "Stability study on the dialect tweets (`stability/`)",
    "nli": "BBNLI audit of a lexical-overlap baseline (`nli/`)",
}


def main(argv: list[str] | None = None) -> int:
    """Build every example (or ``--only`` some) and, for a whole build, the index page.

    ``--out DIR`` builds into another folder (``tests/docs/test_build_examples.py`` builds
    into a scratch folder and compares the text outputs with the committed ones).
    """
    import argparse

    global OUT
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT, help="folder to build into")
    ap.add_argument("--only", default=None,
                    help=f"comma-separated examples ({', '.join(EXAMPLES)}); no index page")
    args = ap.parse_args(argv)
    names = list(EXAMPLES) if args.only is None else [s.strip() for s in args.only.split(",")]
    unknown = [n for n in names if n not in EXAMPLES]
    if unknown:
        ap.error(f"--only: unknown example {unknown[0]!r}; choose from {', '.join(EXAMPLES)}")
    OUT = args.out.resolve()
    t0 = time.perf_counter()
    OUT.mkdir(parents=True, exist_ok=True)
    build = {"adult": adult, "tweets": tweets, "plan": plan, "stability": stability,
             "nli": nli}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small-group warnings are reported in the outputs
        sections = [(EXAMPLES[n], build[n]()) for n in names]
    if args.only is not None:
        print(f"{', '.join(names)} written to {OUT} in {time.perf_counter() - t0:.0f} s")
        return 0
    from fairbound import __version__

    text = [
        "# Generated examples", "",
        "Built from the real data bundled with fairbound by `python docs/build_examples.py` "
        f"(fairbound {__version__}). Each folder holds the audit JSON (schema "
        "`fairbound.audit/1`), the self-contained HTML report (`report.html`: open it in any "
        "browser, offline), the Markdown export (`audit.md`) and the figures as SVG.", "",
        "The tweets' dialect is inferred from the text by the TwitterAAE model (Blodgett et "
        "al. 2016), not self-reported; the tweets contain slurs.", "",
    ]
    for title, lines in sections:
        text += [f"## {title}", "", *lines]
    text.append(f"Built in {time.perf_counter() - t0:.0f} s.")
    (OUT / "README.md").write_text("\n".join(text) + "\n", encoding="utf-8")
    print(f"examples written to {OUT} in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
