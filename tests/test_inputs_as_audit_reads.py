"""Inputs read as ``fairbound audit`` reads them, by every command and call.

* annotator labels (``disagreement_audit(..., annotators=...)``): text and numbers are not
  one class; a mix is refused with the audit's message for a label column;
* ``fairbound monitor``: labels typed by column as DuckDB types them (a ``yes`` among 0/1
  makes the column text, and the audit's label checks refuse it), a UTF-8 byte-order mark
  and CRLF line endings, a positive ``--timeout``, a named pipe read as a stream;
* a header that names an audited column twice (``g,y,p,g``) is refused by every command
  that reads files through DuckDB, and by ``disagreement_audit``;
* a named pipe given to ``audit`` (which needs a file DuckDB can seek) is refused as such.

Every CLI error is one ``error:`` line on standard error, exit status 2, no traceback.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairbound
from fairbound.cli import main
from fairbound.errors import FairboundError

pytestmark = pytest.mark.timeout(120)


def _run(args: list[str], capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _error(args: list[str], capsys) -> str:
    """The one ``error:`` line of a command that must fail with exit status 2."""
    code, _, err = _run(args, capsys)
    lines = [t for t in err.splitlines() if not t.startswith(("note:", "warning:"))]
    assert code == 2, err
    assert "Traceback" not in err
    assert len(lines) == 1, err
    assert lines[0].startswith("error: "), err
    return lines[0][len("error: "):]


def _rows(n: int = 40) -> list[str]:
    rng = np.random.default_rng(3)
    return [f"{'ab'[i % 2]},{rng.integers(0, 2)},{rng.integers(0, 2)}" for i in range(n)]


def _csv(path: Path, header: str, rows: list[str], newline: str = "\n",
         bom: bool = False) -> Path:
    text = newline.join([header, *rows]) + newline
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    return path


# ----------------------------------------------------------------------------- 4. annotators


def _annotators() -> pd.DataFrame:
    return pd.DataFrame({"g": ["a", "a", "b", "b"] * 10, "a1": [1, 0, 1, 0] * 10,
                         "a2": [1, 0, 1, 0] * 10, "a3": ["1", "0", "1", "0"] * 10})


def test_disagreement_refuses_text_and_number_labels_across_annotators():
    # three annotators who always agree, one column stored as text: not a disagreement of
    # 1/3 on every row, but the audit's error for a label mixing numbers and text
    with pytest.raises(FairboundError) as err:
        fairbound.disagreement_audit(_annotators(), group="g", annotators=["a1", "a2", "a3"])
    assert str(err.value) == ("annotators: columns 'a1' and 'a3' mix numbers and text (0 and "
                              "'0'); give every row one type (all text or all numbers)")
    assert err.value.param == "annotators"


def test_disagreement_refuses_a_mixed_annotator_column_with_the_audits_message():
    df = _annotators().assign(a4=[1, "1", 0, 0] * 10)
    with pytest.raises(FairboundError) as err:
        fairbound.disagreement_audit(df, group="g", annotators=["a1", "a4"])
    with pytest.raises(FairboundError) as audit_err:  # the same column as a label
        fairbound.audit(df, group="g", label="a4", prediction="a1", method="newcombe")
    assert str(err.value) == ("annotators: column 'a4' mixes numbers and text (1 and '1'); "
                              "give every row one type (all text or all numbers)")
    assert str(audit_err.value) == ("label: column 'a4' mixes numbers and text (1 and '1'); "
                                    "give every row one type (all text or all numbers)")


def test_disagreement_of_agreeing_annotators_is_zero_when_types_agree():
    df = _annotators()
    as_text = df.assign(a1=df["a1"].astype(str), a2=df["a2"].astype(str))
    as_bool = df.assign(a3=df["a1"].astype(bool))  # True is the class 1, as in audit
    for frame, cols in ((as_text, ["a1", "a2", "a3"]), (as_bool, ["a1", "a2", "a3"])):
        from fairbound.audits.disagreement.audit import disagreement

        assert disagreement(frame, annotators=cols).tolist() == [0.0] * len(frame)


def test_disagreement_refuses_a_text_annotator_column_read_from_csv(tmp_path):
    df = _annotators().assign(a3=["1", "0", "1", "x"] * 10)  # pandas reads a3 as text
    df.to_csv(tmp_path / "ann.csv", index=False)
    with pytest.raises(FairboundError, match=r"^annotators: columns 'a1' and 'a3' mix "
                       r"numbers and text \(0 and '0'\); give every row one type"):
        fairbound.disagreement_audit(tmp_path / "ann.csv", group="g",
                                     annotators=["a1", "a2", "a3"])


# ----------------------------------------------------------------------------- 5. monitor


def test_monitor_refuses_yes_among_01_labels_as_audit_does(tmp_path, capsys):
    f = _csv(tmp_path / "yes.csv", "g,y,p",
             ["a,1,1", "a,0,0", "a,1,0", "b,1,1", "b,0,1", "b,yes,1", "b,0,0", "a,0,1"])
    audit_msg = _error(["audit", f, "-g", "g", "-y", "y", "-p", "p"], capsys)
    monitor_msg = _error(["monitor", f, "-g", "g", "-y", "y", "-p", "p"], capsys)
    assert monitor_msg == audit_msg
    assert monitor_msg.startswith("prediction: prediction 'p' holds [0, 1] but label 'y' "
                                  "holds ['0', '1', 'yes']")


def test_monitor_refuses_yes_arriving_after_01_batches(tmp_path, capsys):
    f = _csv(tmp_path / "late.csv", "g,y,p", _rows(40) + ["b,yes,1"])
    msg = _error(["monitor", f, "-g", "g", "-y", "y", "-p", "p", "--batch-size", "10"],
                 capsys)
    assert msg.startswith("prediction: prediction 'p' holds [0, 1] but label 'y' holds "
                          "['0', '1', 'yes']")


def test_monitor_reads_boolean_words_as_audit_does(tmp_path, capsys):
    # yes/no labels form a boolean column (True is the class 1), as DuckDB reads them
    rows = [f"{'ab'[i % 2]},{['yes', 'no'][i % 3 % 2]},{(i // 2) % 2}" for i in range(40)]
    f = _csv(tmp_path / "words.csv", "g,y,p", rows)
    code, out, err = _run(["monitor", f, "-g", "g", "-y", "y", "-p", "p", "--format", "json"],
                          capsys)
    assert code == 0, err
    final = json.loads(out)["steps"][-1]
    assert (final["n_a"], final["n_b"]) == (20, 20)
    code, _, err = _run(["audit", f, "-g", "g", "-y", "y", "-p", "p", "--method", "newcombe"],
                        capsys)
    assert code == 0, err


@pytest.mark.parametrize("pos_label", ["Medium", "maybe"])
def test_monitor_refuses_an_absent_positive_class_as_audit_does(tmp_path, capsys, pos_label):
    rows = [f"{'ab'[i % 2]},{['High', 'Low'][i % 3 % 2]},{['High', 'Low'][i // 2 % 2]}"
            for i in range(40)]
    f = _csv(tmp_path / "hl.csv", "g,y,p", rows)
    args = [f, "-g", "g", "-y", "y", "-p", "p", "--pos-label", pos_label]
    assert _error(["monitor", *args], capsys) == _error(["audit", *args], capsys)


@pytest.mark.parametrize(("newline", "bom"), [("\r\n", False), ("\n", True), ("\r\n", True)])
def test_monitor_reads_bom_and_crlf_as_audit_does(tmp_path, capsys, newline, bom):
    rows = _rows(40)
    plain = _csv(tmp_path / "plain.csv", "g,y,p", rows)
    odd = _csv(tmp_path / "odd.csv", "g,y,p", rows, newline=newline, bom=bom)
    outs = []
    for f in (plain, odd):
        code, out, err = _run(["monitor", f, "-g", "g", "-y", "y", "-p", "p", "--format",
                               "json"], capsys)
        assert code == 0, err
        outs.append(json.loads(out))
    assert outs[0] == outs[1]
    code, _, err = _run(["audit", odd, "-g", "g", "-y", "y", "-p", "p", "--method",
                         "newcombe"], capsys)
    assert code == 0, err


def test_monitor_follow_reads_bom_and_crlf(tmp_path, capsys):
    f = _csv(tmp_path / "odd.csv", "g,y,p", _rows(20), newline="\r\n", bom=True)
    code, out, err = _run(["monitor", f, "-g", "g", "-y", "y", "-p", "p", "--follow",
                           "--timeout", "0.3", "--poll", "0.05", "--format", "json"], capsys)
    assert code == 0, err
    final = json.loads(out)["steps"][-1]
    assert final["n_a"] + final["n_b"] == 20
    assert "unfinished" not in err


def test_monitor_reads_bom_from_standard_input(tmp_path, capsys, monkeypatch):
    import io

    rows = _rows(40)
    text = ("\r\n".join(["g,y,p", *rows]) + "\r\n").encode()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\xef\xbb\xbf" + text)))
    code, out, err = _run(["monitor", "-", "-g", "g", "-y", "y", "-p", "p", "--format",
                           "json"], capsys)
    assert code == 0, err
    final = json.loads(out)["steps"][-1]
    assert final["n_a"] + final["n_b"] == 40


# ----------------------------------------------------------------------------- 7. duplicates


@pytest.fixture
def dup_dir(tmp_path, monkeypatch) -> Path:
    rows = [f"{r},{'ba'[i % 2]},0.{i % 10}" for i, r in enumerate(_rows(40))]
    _csv(tmp_path / "dup.csv", "g,y,p,g,score", rows)
    _csv(tmp_path / "case.csv", "G,y,p,g,score", rows)
    _csv(tmp_path / "other.csv", "g,y,p,x,x", rows)
    df = pd.read_csv(tmp_path / "dup.csv")
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.table([pa.array(df["g"]), pa.array(df["y"]), pa.array(df["p"]),
                      pa.array(df["g.1"])], names=["g", "y", "p", "g"])
    pq.write_table(table, tmp_path / "dup.parquet")
    monkeypatch.chdir(tmp_path)
    return tmp_path


DUP_G = "data: the file 'dup.csv' has 2 columns named 'g'; rename them apart"


@pytest.mark.parametrize(("args", "message"), [
    pytest.param(["audit", "dup.csv", "-g", "g", "-y", "y", "-p", "p"], DUP_G, id="audit"),
    pytest.param(["audit", "dup.csv", "-g", "g_1", "-y", "y", "-p", "p"], DUP_G,
                 id="audit-renamed"),
    pytest.param(["audit", "dup.csv", "-g", "y", "-y", "y", "-p", "p", "--where", "g = 'a'"],
                 DUP_G, id="audit-where"),
    pytest.param(["audit", "dup.parquet", "-g", "g", "-y", "y", "-p", "p"],
                 "data: the file 'dup.parquet' has 2 columns named 'g'; rename them apart",
                 id="audit-parquet"),
    pytest.param(["audit", "case.csv", "-g", "g", "-y", "y", "-p", "p"],
                 "data: the file 'case.csv' has 2 columns named 'G' and 'g' (names that "
                 "differ only in case are one name to DuckDB); rename them apart",
                 id="audit-case"),
    pytest.param(["scores", "dup.csv", "-g", "g", "--score", "score", "-y", "y"], DUP_G,
                 id="scores"),
    pytest.param(["impact", "dup.csv", "-g", "g", "-p", "p"], DUP_G, id="impact"),
    pytest.param(["sample", "dup.csv", "-g", "g", "--budget", "4", "-o", "out.csv"], DUP_G,
                 id="sample"),
])
def test_duplicate_header_column_is_refused(dup_dir, capsys, args, message):
    before = sorted(p.name for p in dup_dir.iterdir())
    assert _error(args, capsys) == message
    assert sorted(p.name for p in dup_dir.iterdir()) == before  # nothing written


def test_duplicate_header_column_not_read_is_fine(dup_dir, capsys):
    code, _, err = _run(["audit", "other.csv", "-g", "g", "-y", "y", "-p", "p", "--method",
                         "newcombe"], capsys)
    assert code == 0, err


def test_duplicate_header_column_python_api(dup_dir):
    with pytest.raises(FairboundError) as err:
        fairbound.audit("dup.csv", group="g", label="y", prediction="p")
    assert str(err.value) == DUP_G
    assert err.value.param == "data"


def test_disagreement_refuses_duplicate_columns(dup_dir):
    df = pd.DataFrame([[1, 2, 0, "a"], [0, 1, 3, "b"]] * 10, columns=["v1", "v1", "v2", "g"])
    for kw in ({"votes": ["v1", "v2"]}, {"annotators": ["v1", "v2"]}):
        with pytest.raises(FairboundError) as err:  # not AttributeError
            fairbound.disagreement_audit(df, group="g", **kw)
        assert str(err.value) == "data: the DataFrame has 2 columns named 'v1'; rename them apart"
    twice_g = pd.DataFrame([[1, 2, "a", "b"], [0, 1, "b", "a"]] * 10,
                           columns=["v1", "v2", "g", "g"])
    with pytest.raises(FairboundError, match="^data: the DataFrame has 2 columns named 'g'"):
        fairbound.disagreement_audit(twice_g, group="g", votes=["v1", "v2"])
    for path in ("dup.csv", "dup.parquet"):
        with pytest.raises(FairboundError) as err:
            fairbound.disagreement_audit(path, group="g", annotators=["y", "p"])
        assert str(err.value) == (f"data: the file {path!r} has 2 columns named 'g'; rename "
                                  "them apart")


# ----------------------------------------------------------------------------- 14. --timeout


@pytest.mark.parametrize("value", ["nan", "-5", "0", "inf"])
def test_monitor_timeout_must_be_positive_and_finite(tmp_path, capsys, value):
    f = _csv(tmp_path / "rows.csv", "g,y,p", _rows(10))
    msg = _error(["monitor", f, "-g", "g", "-y", "y", "-p", "p", "--follow", "--timeout",
                  value], capsys)
    shown = repr(float(value))
    assert msg == f"--timeout must be a positive number (seconds without new rows); got {shown}"


def test_monitor_poll_nan_is_refused(tmp_path, capsys):
    f = _csv(tmp_path / "rows.csv", "g,y,p", _rows(10))
    msg = _error(["monitor", f, "-g", "g", "-y", "y", "-p", "p", "--follow", "--poll", "nan"],
                 capsys)
    assert msg == "poll must be a positive number of seconds; got nan"


# ----------------------------------------------------------------------------- 15a. FIFOs

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")


class _Writer(threading.Thread):
    """Writes ``data`` into a named pipe (opening it blocks until a reader opens it)."""

    def __init__(self, path: Path, data: bytes) -> None:
        super().__init__(daemon=True)
        self.path, self.data, self.opened = path, data, threading.Event()

    def run(self) -> None:
        with open(self.path, "wb") as fh:
            self.opened.set()
            fh.write(self.data)

    def release(self) -> None:
        """Let a writer still waiting for a reader finish (open and drain the read end)."""
        if self.is_alive():
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK)
            try:
                self.join(5)
                while os.read(fd, 65536):
                    pass
            except BlockingIOError:
                pass
            finally:
                os.close(fd)
        self.join(5)
        assert not self.is_alive()


def _fifo(path: Path, rows: list[str]) -> _Writer:
    os.mkfifo(path)
    writer = _Writer(path, ("\n".join(["g,y,p", *rows]) + "\n").encode())
    writer.start()
    return writer


@needs_fifo
@pytest.mark.parametrize("name", ["pipe.csv", "pipe.parquet"])
def test_audit_refuses_a_named_pipe(tmp_path, capsys, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    writer = _fifo(tmp_path / name, _rows(20))
    try:
        msg = _error(["audit", name, "-g", "g", "-y", "y", "-p", "p"], capsys)
        assert not writer.opened.is_set()  # audit never opened the pipe
    finally:
        writer.release()
    assert msg == (f"data: {name!r} is a named pipe (FIFO), not a regular file; write the "
                   "rows to a file first (DuckDB reads only files it can seek; fairbound "
                   "monitor reads a pipe as a stream)")


@needs_fifo
def test_audit_refuses_a_named_pipe_as_database(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "pipe.duckdb")
    msg = _error(["audit", "pipe.duckdb", "-g", "g", "-y", "y", "-p", "p"], capsys)
    assert msg.startswith("data: 'pipe.duckdb' is a named pipe (FIFO), not a regular file; "
                          "write the rows to a database file first")


@needs_fifo
def test_sample_and_disagreement_refuse_a_named_pipe(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    os.mkfifo(tmp_path / "pipe.csv")
    msg = _error(["sample", "pipe.csv", "-g", "g", "--budget", "4", "-o", "out.csv"], capsys)
    assert msg.startswith("data: 'pipe.csv' is a named pipe (FIFO), not a regular file")
    assert not (tmp_path / "out.csv").exists()
    with pytest.raises(FairboundError, match=r"^data: 'pipe.csv' is a named pipe \(FIFO\), "
                       "not a regular file; write the rows to a file first$"):
        fairbound.disagreement_audit("pipe.csv", group="g", annotators=["y", "p"])


@needs_fifo
def test_monitor_reads_a_named_pipe_as_a_stream(tmp_path, capsys):
    rows = _rows(40)
    plain = _csv(tmp_path / "plain.csv", "g,y,p", rows)
    code, out, err = _run(["monitor", plain, "-g", "g", "-y", "y", "-p", "p", "--format",
                           "json"], capsys)
    assert code == 0, err
    writer = _fifo(tmp_path / "pipe.csv", rows)
    try:
        code, piped, err = _run(["monitor", tmp_path / "pipe.csv", "-g", "g", "-y", "y",
                                 "-p", "p", "--format", "json"], capsys)
    finally:
        writer.release()
    assert code == 0, err
    assert json.loads(piped) == json.loads(out)


def test_audit_refuses_a_device_and_monitor_reads_it(tmp_path, capsys, monkeypatch):
    if not Path(os.devnull).is_char_device():
        pytest.skip("no character device to link to")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "null.csv").symlink_to(os.devnull)
    msg = _error(["audit", "null.csv", "-g", "g", "-y", "y", "-p", "p"], capsys)
    assert msg == ("data: 'null.csv' is not a regular file (a device or a socket); give a "
                   "file")
    # monitor reads a device (a terminal) as a stream: this one is empty
    msg = _error(["monitor", "null.csv", "-g", "g", "--cost", "c"], capsys)
    assert msg == "source is empty: expected a CSV header line"


@pytest.mark.skipif(not hasattr(__import__("socket"), "AF_UNIX"), reason="no unix sockets")
def test_monitor_refuses_a_socket(tmp_path, capsys, monkeypatch):
    import socket

    monkeypatch.chdir(tmp_path)
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.bind("s.csv")
        msg = _error(["monitor", "s.csv", "-g", "g", "--cost", "c"], capsys)
    assert msg == ("source: 's.csv' is not a regular file or a named pipe; give a CSV file "
                   "(or - to read standard input)")
