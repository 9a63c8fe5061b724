"""No command writes over its own input, and outputs go where the user points them.

Every output option of every command is listed in ``OUTPUTS`` (a test fails when a new
path option is neither there nor in ``NOT_OUTPUTS``); each case names one of the
command's inputs as the output and checks exit status 2, one ``error:`` line naming the
option, and that no file changed.  Then the kinds of place an output can be: the same file
under another name (a hard link, a symbolic link, a glob match, a DuckDB database), a
symbolic link (followed), a named pipe and a character device (written in place), ``-``
(standard output), a socket and a folder (refused).
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import typer

from fairbound import _io
from fairbound.cli import app, main
from fairbound.errors import FairboundError

AUDIT = ["-g", "g", "-y", "y", "-p", "p", "--method", "newcombe", "-m", "demographic_parity"]


def _digest(folder: Path) -> dict[str, str]:
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file() and not p.is_symlink():
            out[str(p.relative_to(folder))] = hashlib.sha256(p.read_bytes()).hexdigest()
        elif p.is_symlink():
            out[str(p.relative_to(folder))] = "link:" + os.readlink(p)
    return out


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("clobber")
    rng = np.random.default_rng(1)
    n = 300
    frame = pd.DataFrame({"g": rng.choice(["a", "b"], n), "y": rng.integers(0, 2, n),
                          "p": rng.integers(0, 2, n), "score": rng.random(n).round(3)})
    frame.to_csv(d / "in.csv", index=False)
    frame.to_parquet(d / "in.parquet", index=False)
    frame.to_json(d / "in.json", orient="records", lines=True)
    gold = frame.assign(gold=frame["y"].where(rng.random(n) < 0.5))
    gold.to_csv(d / "gold.csv", index=False)
    frame.to_csv(d / "part1.csv", index=False)
    frame.to_csv(d / "part2.csv", index=False)
    import duckdb

    con = duckdb.connect(str(d / "db.duckdb"))
    con.execute(f"CREATE TABLE t AS SELECT * FROM read_csv('{d / 'in.csv'}')")
    con.close()
    os.link(d / "in.csv", d / "hard.csv")
    (d / "soft.csv").symlink_to("in.csv")
    main(["nli", "expand", "--subtopic", "man_is_to_breadwinner", "-o", str(d / "s.csv")])
    samples = pd.read_csv(d / "s.csv")
    samples[["sample_id"]].assign(prediction="neutral").to_csv(d / "pred.csv", index=False)
    return d


# (case id, command line, the option the error names)
OUTPUTS = [
    ("audit-json", ["audit", "in.csv", *AUDIT, "--json", "in.csv"], "--json"),
    ("audit-html", ["audit", "in.parquet", *AUDIT, "--html", "in.parquet"], "--html"),
    ("audit-markdown", ["audit", "in.csv", *AUDIT, "--markdown", "in.csv"], "--markdown"),
    ("audit-hard-link", ["audit", "in.csv", *AUDIT, "--json", "hard.csv"], "--json"),
    ("audit-symlink", ["audit", "soft.csv", *AUDIT, "--json", "in.csv"], "--json"),
    ("audit-glob", ["audit", "part*.csv", *AUDIT, "--json", "part2.csv"], "--json"),
    ("audit-duckdb", ["audit", "db.duckdb::t", *AUDIT, "--json", "db.duckdb"], "--json"),
    ("discover-json", ["discover", "in.csv", "-f", "g", "-y", "y", "-p", "p",
                       "--json", "in.csv"], "--json"),
    ("discover-html", ["discover", "in.parquet", "-f", "g", "-y", "y", "-p", "p",
                       "--html", "in.parquet"], "--html"),
    ("ppi-json", ["ppi", "gold.csv", "-g", "g", "-y", "gold", "-f", "y", "-p", "p",
                  "--json", "gold.csv"], "--json"),
    ("proxies-json", ["proxies", "in.csv", "--group-prob", "a=score", "--group-prob",
                      "b=score", "-y", "y", "-p", "p", "--json", "in.csv"], "--json"),
    ("proxies-html", ["proxies", "in.csv", "--group-prob", "a=score", "--group-prob",
                      "b=score", "-y", "y", "-p", "p", "--html", "soft.csv"], "--html"),
    ("impact-csv", ["impact", "in.csv", "-g", "g", "-p", "p", "--csv", "in.csv"], "--csv"),
    ("impact-json", ["impact", "in.json", "-g", "g", "-p", "p", "--json", "in.json"],
     "--json"),
    ("scores-json", ["scores", "in.csv", "-g", "g", "-y", "y", "-s", "score",
                     "--json", "in.csv"], "--json"),
    ("scores-html", ["scores", "in.csv", "-g", "g", "-y", "y", "-s", "score",
                     "--html", "soft.csv"], "--html"),
    ("sample-annotate", ["sample", "in.csv", "-g", "g", "--budget", "20", "-o", "new.csv",
                         "--annotate", "in.csv"], "--annotate"),
    ("sample-out-is-annotate", ["sample", "in.csv", "-g", "g", "--budget", "20",
                                "-o", "x.csv", "--annotate", "x.csv"], "--annotate"),
    ("sample-merge-out", ["sample", "in.csv", "-g", "g", "--merge", "soft.csv", "--label",
                          "y", "-o", "soft.csv"], "--out"),
    ("report-json", ["report", "--data", "in.csv", "-g", "g", "-y", "y", "-p", "p",
                     "--json", "in.csv"], "--json"),
    ("nli-audit-output", ["nli", "audit", "--samples", "s.csv", "-p", "pred.csv",
                          "-o", "pred.csv"], "--out"),
    ("nli-audit-html", ["nli", "audit", "--samples", "s.csv", "-p", "pred.csv",
                        "--html", "s.csv"], "--html"),
    ("nli-compare-output", ["nli", "compare", "--extended", "s.csv", "--original", "s.csv",
                            "-o", "s.csv"], "--out"),
    ("stability-debias", ["stability", "debias", "in.csv", "hard.csv", "--column", "g"],
     "dest"),
]

# every path option of the command line that is not an output file a user names
NOT_OUTPUTS = {
    ("report", "inputs"), ("reproduce bbu", "files"), ("reproduce bbu", "mnli"),
    ("nli expand", "templates"), ("nli audit", "samples"), ("nli compare", "extended"),
    ("nli compare", "original"), ("nli extend", "fill_model"), ("nli extend", "filter_model"),
    ("nli extend", "heldout_model"), ("nli extend", "templates"),
    ("nli extend", "validations"), ("stability run", "model_path"),
    ("stability summary", "store"), ("stability report", "store"),
    ("stability debias", "source"), ("sample", "merge"),
    # folders that the command owns: a run folder (resumed), a study store, a report or
    # example folder, the masked templates (tests/nli/test_derive_safety.py)
    ("nli extend", "out"), ("nli validate", "out"), ("nli masked-templates", "out_dir"),
    ("stability run", "store"), ("stability run", "report"), ("stability report", "out"),
    ("example adult", "out"),
    # commands without input files (nothing to overwrite); checked for kinds below
    ("plan", "figure"), ("plan", "html"), ("simulate", "output"),
}
# output options checked against their inputs here (and in tests/reproduce for bbu)
CHECKED = {("audit", "json_out"), ("audit", "html_out"), ("audit", "markdown_out"),
           ("discover", "json_out"), ("discover", "html_out"),
           ("impact", "json_out"), ("impact", "html_out"), ("impact", "csv_out"),
           ("scores", "json_out"), ("scores", "html_out"), ("report", "out"),
           ("report", "markdown"), ("report", "json_out"), ("ppi", "json_out"),
           ("proxies", "json_out"), ("proxies", "html_out"),
           ("sample", "out"), ("sample", "annotate"), ("reproduce bbu", "figure"),
           ("reproduce bbu", "csv"), ("nli expand", "output"), ("nli audit", "output"),
           ("nli audit", "html"), ("nli compare", "output"), ("stability summary", "out"),
           ("stability report", "html"), ("stability debias", "dest")}


def _path_options():
    def walk(command, path):
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                yield from walk(sub, [*path, name])
            return
        for p in command.params:
            if "Path" in repr(p.type_descriptor.annotation):
                yield " ".join(path), p.name

    return set(walk(typer.main.get_command(app), []))


def test_every_path_option_is_classified():
    options = _path_options()
    assert len(options) >= 40
    unknown = options - NOT_OUTPUTS - CHECKED
    assert not unknown, f"classify these path options in this test: {sorted(unknown)}"


@pytest.mark.parametrize(("argv", "option"), [pytest.param(a, o, id=i) for i, a, o in OUTPUTS])
def test_an_input_is_never_an_output(folder, monkeypatch, capsys, argv, option):
    monkeypatch.chdir(folder)
    before = _digest(folder)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"error: {option}: "), err
    assert ("is an input of this command" in err or "is also the --out output" in err), err
    assert _digest(folder) == before


def test_the_in_place_sample_still_works(folder, monkeypatch, tmp_path):
    """``sample -o design.csv`` over its own data: the documented batch-by-batch workflow."""
    monkeypatch.chdir(tmp_path)
    pd.read_csv(folder / "in.csv").to_csv("design.csv", index=False)
    assert main(["sample", "design.csv", "-g", "g", "--budget", "20", "-o", "design.csv",
                 "--format", "json"]) == 0
    assert "fairbound_batch" in pd.read_csv("design.csv").columns


def test_outputs_share_no_file(folder, monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(tmp_path)
    argv = ["audit", str(folder / "in.csv"), *AUDIT, "--json", "x.out", "--html", "x.out"]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        "error: --html: 'x.out' is also the --json output; give each output its own file\n")
    assert not list(tmp_path.iterdir())


def test_python_writer_refuses_an_input(tmp_path):
    data = tmp_path / "in.csv"
    data.write_text("g,y\n")
    with pytest.raises(FairboundError, match=r"^--json: '.*in.csv' is an input of this command"):
        _io.write_all_atomic([("--json", tmp_path / "in.csv", b"{}")],
                             inputs=_io.input_files(str(tmp_path / "*.csv")))
    (tmp_path / "link.csv").symlink_to(data)
    with pytest.raises(FairboundError, match="link.csv' is an input of this command"):
        _io.write_all_atomic([("--json", tmp_path / "link.csv", b"{}")], inputs=[data])
    assert data.read_text() == "g,y\n"


# ----------------------------------------------------------------------------- kinds of place


def test_a_symlink_is_followed_and_stays_a_link(folder, tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    assert main(["audit", str(folder / "in.csv"), *AUDIT, "--json", str(link)]) == 0
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert json.loads(target.read_text())["comparisons"]


def test_a_fifo_gets_the_data(folder, tmp_path):
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()), daemon=True)
    reader.start()
    assert main(["audit", str(folder / "in.csv"), *AUDIT, "--json", str(fifo)]) == 0
    reader.join(timeout=30)
    assert json.loads(got[0])["comparisons"]
    assert fifo.is_fifo()


def test_a_full_device_is_one_line_and_stays_a_device(folder, capsys):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    assert main(["audit", str(folder / "in.csv"), *AUDIT, "--json", "/dev/full"]) == 2
    assert capsys.readouterr().err == ("error: --json: cannot write '/dev/full': No space "
                                       "left on device\n")
    assert Path("/dev/full").is_char_device()


def test_a_full_device_leaves_the_other_outputs_alone(folder, tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    html = tmp_path / "r.html"
    html.write_text("before")
    assert main(["audit", str(folder / "in.csv"), *AUDIT, "--json", "/dev/full",
                 "--html", str(html)]) == 2
    assert html.read_text() == "before"
    assert not [p for p in tmp_path.iterdir() if p.name != "r.html"]


def test_dash_is_standard_output(folder, capsys):
    assert main(["audit", str(folder / "in.csv"), *AUDIT, "--json", "-",
                 "--format", "json"]) == 0
    out = capsys.readouterr().out
    first, end = json.JSONDecoder().raw_decode(out)
    second = json.loads(out[end:])  # the --json file, then the --format json print
    assert first == second and first["comparisons"]
    assert not Path("-").exists()


def test_a_socket_is_refused(folder, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind("s.json")
        assert main(["audit", str(folder / "in.csv"), *AUDIT, "--json", "s.json"]) == 2
    finally:
        sock.close()
    assert capsys.readouterr().err == "error: --json: 's.json' is a socket; give a file name\n"


def test_a_folder_is_refused(folder, tmp_path, capsys):
    assert main(["audit", str(folder / "in.csv"), *AUDIT, "--markdown", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (f"error: --markdown: {str(tmp_path)!r} is a folder; "
                                       "give a file name\n")
