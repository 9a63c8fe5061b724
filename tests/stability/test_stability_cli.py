"""``fairbound stability`` commands."""

import pandas as pd
import pytest

from fairbound.cli import main


def test_run_resume_summary_report(tmp_path, capsys):
    store = tmp_path / "study"
    args = ["stability", "run", "tweets", "--store", str(store), "--sizes", "500,1000",
            "--repeats", "2", "--no-progress"]
    assert main([*args, "--max-runs", "1"]) == 0
    assert "1 runs stored" in capsys.readouterr().out
    assert main(args) == 0
    assert "4 runs stored" in capsys.readouterr().out
    assert main(["stability", "summary", str(store), "--format", "csv"]) == 0
    out = capsys.readouterr().out
    s = pd.read_csv(pd.io.common.StringIO(out))
    assert set(s["group_b"]) == {"white"}  # the bundled tweets compare with white
    assert main(["stability", "summary", str(store)]) == 0
    assert "aa - white" in capsys.readouterr().out
    assert main(["stability", "report", str(store), "--out", str(tmp_path / "r2"),
                 "--format", "none"]) == 0
    assert (tmp_path / "r2" / "summary.csv").exists()
    assert not list((tmp_path / "r2").glob("*.png"))
    assert main(["stability", "report", str(store), "--html", str(tmp_path / "s.html"),
                 "--format", "none"]) == 0
    assert "<html" in (tmp_path / "s.html").read_text().lower()
    assert main(["stability", "report", str(store)]) == 2
    assert "give --out FOLDER and/or --html" in capsys.readouterr().err


def test_run_with_a_debiased_condition_on_a_file(tmp_path, capsys):
    df = pd.DataFrame({"bio": ["He is a nurse and his wife works.", "She codes, her code runs."]
                       * 60, "job": ["nurse", "coder"] * 60, "gender": ["m", "f"] * 60})
    df.to_csv(tmp_path / "bios.csv", index=False)
    code = main(["stability", "run", str(tmp_path / "bios.csv"), "--label", "job", "--group",
                 "gender", "--text-column", "bio", "--sizes", "60", "--repeats", "1",
                 "--condition", "female", "--store", str(tmp_path / "s"), "--no-progress",
                 "--report", str(tmp_path / "rep"), "--reference", "m"])
    assert code == 0, capsys.readouterr().err
    assert (tmp_path / "rep" / "report.md").exists()
    assert (tmp_path / "rep" / "boxplots_f_vs_m.svg").exists()
    assert (tmp_path / "rep" / "tests_conditions.csv").exists()
    from fairbound.stability import load_study

    res = load_study(tmp_path / "s")
    assert res.config.conditions == ("original", "female")
    assert len(res.runs) == 2


def test_debias_command(tmp_path, capsys):
    pd.DataFrame({"text": ["He said his name is John."]}).to_csv(tmp_path / "in.csv",
                                                                  index=False)
    assert main(["stability", "debias", str(tmp_path / "in.csv"), str(tmp_path / "out.csv"),
                 "--variant", "female"]) == 0
    assert pd.read_csv(tmp_path / "out.csv")["text"][0] == "She said her name is Camille."
    # the paper's list has no kinship nouns: they change only with --nouns
    pd.DataFrame({"text": ["He and his son."]}).to_csv(tmp_path / "k.csv", index=False)
    assert main(["stability", "debias", str(tmp_path / "k.csv"), str(tmp_path / "k1.csv")]) == 0
    assert pd.read_csv(tmp_path / "k1.csv")["text"][0] == "She and her son."
    assert main(["stability", "debias", str(tmp_path / "k.csv"), str(tmp_path / "k2.csv"),
                 "--nouns"]) == 0
    assert pd.read_csv(tmp_path / "k2.csv")["text"][0] == "She and her daughter."


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["stability", "run", "nope.csv", "--store", "x"], "error: data: no such file"),
        (["stability", "run", "tweets", "--store", "{tmp}", "--sizes", "a,b"],
         "error: sizes must be a comma-separated list"),
        (["stability", "run", "tweets", "--store", "{tmp}", "--condition", "x=other"],
         "error: condition must be NAME=female or NAME=male; got 'x=other'"),
        (["stability", "run", "tweets", "--store", "{tmp}", "--trainer", "svm"],
         "error: trainer must be one of tfidf-lr"),
        (["stability", "summary", "{tmp}"], "error: store: "),
        (["stability", "summary", "{tmp}", "--format", "xml"],
         "error: format must be one of table, csv, json; got 'xml'"),
        (["stability", "debias", "{tmp}/in.csv", "{tmp}/o.txt"], "error: dest must end in"),
    ],
)
def test_errors_are_one_line_and_exit_2(tmp_path, capsys, args, message):
    pd.DataFrame({"text": ["x"]}).to_csv(tmp_path / "in.csv", index=False)
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(message)
    assert len(err.splitlines()) == 1


def test_bios_defaults(tmp_path, capsys):
    from pathlib import Path

    src = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "bios_sample"
    if not src.exists():
        pytest.skip("shared data absent")
    assert main(["stability", "run", f"bios:{src}", "--store", str(tmp_path / "s"),
                 "--sizes", "280", "--repeats", "1", "--no-progress"]) == 0
    from fairbound.stability import load_study

    res = load_study(tmp_path / "s")
    assert res.config.label == "profession" and res.config.reference == "male"
    assert set(res.gaps["group_a"]) == {"female"}
    assert res.gaps["class"].nunique() == 28
