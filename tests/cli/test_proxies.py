"""``fairbound proxies``: outputs, one-line errors with exit status 2."""

from __future__ import annotations

import json

import pytest

from fairbound.audits.proxies.simulate import simulate_proxy_data
from fairbound.cli import main
from fairbound.cli.proxies import parse_group_probs
from fairbound.errors import FairboundError

ARGS = ["--group-prob", "a=p_a", "--group-prob", "b=p_b", "-y", "y", "-p", "pred"]


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("proxies")
    df = simulate_proxy_data(3000, annotated=400, gap=0.1, cells=30, seed=1)
    df.to_csv(d / "ann.csv", index=False)
    df.drop(columns=["group"]).to_csv(d / "cells.csv", index=False)
    return d


def test_json_and_html_outputs(data, tmp_path, capsys):
    out, page = tmp_path / "r.json", tmp_path / "r.html"
    assert main(["proxies", str(data / "ann.csv"), *ARGS, "-g", "group", "-m",
                 "equal_opportunity", "--json", str(out), "--html", str(page)]) == 0
    d = json.loads(out.read_text())
    assert d["kind"] == "proxies" and d["mode"] == "ppi" and d["n_annotated"] == 400
    assert page.read_text().startswith("<!DOCTYPE html>")
    assert "annotated-only" in capsys.readouterr().out


def test_bounds_as_json_on_stdout(data, capsys):
    assert main(["proxies", str(data / "cells.csv"), *ARGS, "--cell", "cell", "-m",
                 "demographic_parity", "--format", "json"]) == 0
    d = json.loads(capsys.readouterr().out)
    c = d["comparisons"][0]
    assert d["mode"] == "bounds" and c["identified_low"] <= c["identified_high"]


ONE = ["-y", "y", "-p", "pred", "-g", "group", "--group-prob", "a=p_a"]


@pytest.mark.parametrize(("extra", "start"), [
    (["--group-prob", "b=p_b", "--group-prob", "c"],
     "error: --group-prob: 'c' is not GROUP=COLUMN"),
    (["--group-prob", "b=p_b", "--group-prob", "c=y"],
     "error: group_probabilities: the columns ['p_a', 'p_b', 'y'] sum to 1 +/- "),
    (["--group-prob", "b=gap"], "error: group_probabilities: column 'gap' (b) is missing "
                                "on 1 rows"),
    (["--group-prob", "c=p_b"], "error: group: annotated group 'b' in column 'group' is "
                                "not one of the probability columns' groups ['a', 'c']"),
])
def test_bad_input_is_one_line_exit_2(data, tmp_path, capsys, extra, start):
    import pandas as pd

    src = tmp_path / "x.csv"
    df = pd.read_csv(data / "ann.csv")
    df.assign(gap=df["p_b"].where(df.index != 5)).to_csv(src, index=False)
    out = tmp_path / "o.json"
    assert main(["proxies", str(src), *ONE, *extra, "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(start) and err.count("\n") == 1 and "Traceback" not in err, err
    assert not out.exists()


def test_parse_group_probs_refuses_repeats():
    with pytest.raises(FairboundError, match="given twice"):
        parse_group_probs(["a=x", "a=y"])
