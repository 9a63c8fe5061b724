"""The MNLI experiment command on a small synthetic file in the public format."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from fairbound.cli import main
from fairbound.errors import FairboundError
from fairbound.evaluation.reproduce import coverage_study, genre_table, load_mnli

GENRES = ["fiction", "government", "slate", "telephone", "travel", "facetoface", "letters",
          "nineeleven", "oup", "verbatim"]
LAB = ["entailment", "neutral", "contradiction"]


def _write_jsonl(path, n=600, seed=0):
    rng = np.random.default_rng(seed)
    with open(path, "w") as fh:
        for i in range(n):
            genre = GENRES[i % len(GENRES)]
            gold = LAB[rng.integers(3)]
            flip = 0.25 if genre == "government" else 0.12
            ann = [gold if rng.random() > flip else LAB[rng.integers(3)] for _ in range(5)]
            ann[0] = gold
            row = {"genre": genre, "gold_label": gold if i % 97 else "-",
                   "annotator_labels": ann, "pairID": str(i), "sentence1": "s",
                   "sentence2": "h"}
            fh.write(json.dumps(row) + "\n")


def test_load_and_table(tmp_path):
    p = tmp_path / "multinli_1.0_dev_matched.jsonl"
    _write_jsonl(p)
    df = load_mnli([p])
    assert len(df) == 600 - len(range(0, 600, 97))  # '-' gold labels dropped
    assert df["cost"].between(0, 0.8).all()  # the first annotator always agrees
    t = genre_table(df)
    assert set(t["genre"]) == set(GENRES)
    gov = t.set_index("genre").loc["government"]
    sub = df[df.genre == "government"]
    assert gov["cost_in"] == pytest.approx(sub["cost"].mean())
    assert gov["cost_out"] == pytest.approx(df[df.genre != "government"]["cost"].mean())


def test_glue_tsv_same_as_jsonl(tmp_path):
    p = tmp_path / "m.jsonl"
    _write_jsonl(p, n=200)
    rows = [json.loads(x) for x in p.read_text().splitlines()]
    tsv = pd.DataFrame({"genre": [r["genre"] for r in rows],
                        **{f"label{i + 1}": [r["annotator_labels"][i] for r in rows]
                           for i in range(5)},
                        "gold_label": [r["gold_label"] for r in rows]})
    tp = tmp_path / "dev_matched.tsv"
    tsv.to_csv(tp, sep="\t", index=False)
    pd.testing.assert_frame_equal(load_mnli(p), load_mnli(tp))


def test_coverage_study_deterministic(tmp_path):
    p = tmp_path / "m.jsonl"
    _write_jsonl(p, n=3000)
    df = load_mnli(p)
    s1 = coverage_study(df, ns=(100, 200), gammas=(0.25, 0.5), runs=5, seed=1)
    s2 = coverage_study(df, ns=(100, 200), gammas=(0.25, 0.5), runs=5, seed=1)
    pd.testing.assert_frame_equal(s1.table, s2.table)
    summ = s1.summary()
    assert len(summ) == 4 and (summ["intervals"] == 50).all()
    # BBU is conservative: its intervals cover the full-data gap in (nearly) every run
    assert summ["coverage"].min() >= 0.9
    assert (s1.table["low"] <= s1.table["estimate"]).all()


def test_cli(tmp_path, capsys):
    m = tmp_path / "multinli_1.0_dev_matched.jsonl"
    mm = tmp_path / "multinli_1.0_dev_mismatched.jsonl"
    _write_jsonl(m, 1500, seed=1)
    _write_jsonl(mm, 1500, seed=2)
    code = main(["reproduce", "bbu", "--mnli", str(m), str(mm), "--n", "100,300",
                 "--runs", "4", "--csv", str(tmp_path / "runs.csv")])
    out = capsys.readouterr().out
    assert code == 0
    assert "government" in out and "coverage" in out
    assert len(pd.read_csv(tmp_path / "runs.csv")) == 10 * 2 * 3 * 4
    assert main(["reproduce", "bbu"]) == 2
    assert "mnli: give the MultiNLI dev file(s)" in capsys.readouterr().err
    assert main(["reproduce", "bbu", "--mnli", str(tmp_path / "nope.jsonl")]) == 2
    assert "mnli: file not found" in capsys.readouterr().err


def _inside(fig, texts):
    """Every text's drawn box lies within the figure (nothing clipped)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    r = canvas.get_renderer()
    w, h = fig.bbox.width, fig.bbox.height
    for t in texts:
        if not t.get_text():
            continue
        b = t.get_window_extent(r)
        assert b.x0 >= -1 and b.y0 >= -1 and b.x1 <= w + 1 and b.y1 <= h + 1, t.get_text()


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    p = tmp_path_factory.mktemp("mnli") / "m.jsonl"
    _write_jsonl(p, n=3000)
    return coverage_study(load_mnli(p), ns=(100, 200, 500), gammas=(0.1, 0.25, 0.5), runs=4,
                          seed=2)


def test_by_genre_is_the_mean_of_the_runs(study):
    t = study.by_genre()
    assert len(t) == 10 * 3 * 3 and (t["runs"] == 4).all()
    row = t[(t.genre == "government") & (t.n == 200) & (t.gamma == 0.25)].iloc[0]
    raw = study.table[(study.table.genre == "government") & (study.table.n == 200)
                      & (study.table.gamma == 0.25)]
    assert row["estimate"] == pytest.approx(raw["estimate"].mean())
    assert (row["low"], row["high"]) == pytest.approx((raw["low"].mean(), raw["high"].mean()))
    assert row["truth"] == pytest.approx(raw["truth"].iloc[0])
    assert row["coverage"] == pytest.approx(raw["covered"].mean())
    assert study.method == "bbu"


def test_figure1_as_in_the_paper(study):
    pytest.importorskip("matplotlib")
    from fairbound.viz.coverage import plot_genre_intervals

    fig = plot_genre_intervals(study, genres=["government", "fiction"])
    assert len(fig.axes) == 2 * 2  # per genre: the interval vs n and vs gamma
    titles = [a.get_title() for a in fig.axes]
    assert titles == ["government: interval vs n (gamma = 0.5)",
                      "government: interval vs gamma (n = 500)",
                      "fiction: interval vs n (gamma = 0.5)",
                      "fiction: interval vs gamma (n = 500)"]
    ax = fig.axes[0]
    t = study.by_genre()
    gov = t[(t.genre == "government") & (t.gamma == 0.5)].sort_values("n")
    line = [x for x in ax.lines if x.get_label() == "estimate"][0]
    assert list(line.get_xdata()) == [100, 200, 500]
    assert list(line.get_ydata()) == pytest.approx(gov["estimate"].tolist())
    truth = [x for x in ax.lines if x.get_label().startswith("full-data gap")][0]
    assert truth.get_ydata()[0] == pytest.approx(gov["truth"].iloc[0])
    assert [x.get_text() for x in ax.get_xticklabels()] == ["100", "200", "500"]
    assert fig.axes[1].get_xlabel() == "" and fig.axes[3].get_xlabel() == (
        "share of the genre gamma")
    _inside(fig, [fig._suptitle, *(a.title for a in fig.axes)])
    assert len(plot_genre_intervals(study, gamma=0.1, n=200).axes) == 2 * 10
    with pytest.raises(FairboundError, match="gamma: 0.3 is not in the study"):
        plot_genre_intervals(study, gamma=0.3)
    with pytest.raises(FairboundError, match="genres: no genre 'poetry'"):
        plot_genre_intervals(study, genres=["poetry"])


def test_coverage_plot_title_is_not_clipped(study):
    pytest.importorskip("matplotlib")
    from fairbound.viz.coverage import plot_coverage

    fig = plot_coverage(study)
    assert "coverage of the full-data gap" in fig.axes[0].get_title()
    _inside(fig, [fig.axes[0].title])


def test_cli_figure_kinds(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    m = tmp_path / "m.jsonl"
    _write_jsonl(m, 1500, seed=1)
    base = ["reproduce", "bbu", "--mnli", str(m), "--n", "100,200", "--runs", "2"]
    assert main([*base, "--figure", str(tmp_path / "f1.png")]) == 0
    assert (tmp_path / "f1.png").read_bytes()[:4] == b"\x89PNG"
    assert main([*base, "--figure", str(tmp_path / "cov.svg"), "--figure-kind",
                 "coverage"]) == 0
    assert (tmp_path / "cov.svg").read_text().lstrip().startswith("<?xml")
    capsys.readouterr()
    assert main([*base, "--figure", str(tmp_path / "f.png"), "--figure-kind", "x"]) == 2
    assert "figure_kind must be one of paper, coverage" in capsys.readouterr().err
    assert main([*base, "--figure", str(tmp_path / "f.jpg")]) == 2
    assert "figure must end in .png, .svg or .pdf" in capsys.readouterr().err


def test_cli_figure_default_is_the_papers_figure1(tmp_path, monkeypatch, capsys):
    """`reproduce bbu --figure` and the Python API draw Figure 1 through one code path,
    with the paper's panels: the government genre, gamma 0.1 (left), n 500 (right)."""
    pytest.importorskip("matplotlib")
    from matplotlib.figure import Figure

    import fairbound.viz.coverage as cov
    from fairbound.evaluation.reproduce import FIGURE1, coverage_study, figure1

    m = tmp_path / "m.jsonl"
    _write_jsonl(m, 1200, seed=1)
    calls = []

    def spy(study, **kw):  # records the settings; draws nothing
        calls.append({k: kw[k] for k in ("genres", "gamma", "n")})
        return Figure(figsize=(1, 1))

    monkeypatch.setattr(cov, "plot_genre_intervals", spy)
    args = ["reproduce", "bbu", "--mnli", str(m), "--n", "100,500", "--gamma", "0.1,0.5",
            "--runs", "2", "--figure", str(tmp_path / "f.png")]
    assert main(args) == 0
    assert "genres government; gamma 0.1 (left), n 500 (right)" in capsys.readouterr().out
    study = coverage_study(load_mnli([m]), ns=(100, 500), gammas=(0.1, 0.5), runs=2)
    figure1(study)
    paper = {"genres": list(FIGURE1["genres"]), "gamma": 0.1, "n": 500}
    assert calls == [paper, paper]  # the CLI's call, then the API's: the same settings
    # overrides replace the paper's panels; a grid without them falls back to the plot's
    # defaults, and the settings say that they are not the paper's
    from fairbound.evaluation.reproduce import figure1_settings

    assert figure1_settings(study, genres=["fiction"], n=100) == {
        "genres": ["fiction"], "gamma": 0.1, "n": 100, "paper": False}
    small = coverage_study(load_mnli([m]), ns=(100,), gammas=(0.5,), runs=1)
    assert figure1_settings(small) == {"genres": ["government"], "gamma": None, "n": None,
                                       "paper": False}
