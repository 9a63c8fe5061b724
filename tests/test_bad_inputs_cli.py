"""Every new row of docs/bad_inputs.md: one line on stderr, exit status 2, nothing written.

Each CLI case runs ``fairbound`` in a folder of prepared bad files (paths are relative, so
the messages are exactly those of the table); the test checks the status, that standard
error holds one ``error:`` line starting with the documented message and no traceback, and
that no file or folder appeared or changed (outputs are asked for under ``out/``).  Python
cases check the one-line :class:`~fairbound.errors.FairboundError`.  The rows that other
test files already check are cited in the table instead of repeated here.
"""

from __future__ import annotations

import gzip
import json
import re
import shlex
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fairbound
from fairbound.cli import main
from fairbound.errors import FairboundError
from fairbound.stability.study import StudyResult, run_study
from fairbound.stability.trainers import TabularTrainer, TfidfLogisticTrainer
from fairbound.stats import GroupStats, difference_interval

DOC = Path(__file__).resolve().parents[1] / "docs" / "bad_inputs.md"

# audits that have to get past the interval method pin one (the default is being changed)
A = "audit ok.csv -g g -y y -p p --method newcombe"


def _write_lines(path: Path, lines: list[str]) -> None:
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    """A folder of good and bad inputs, shared by every case (and never written to)."""
    import duckdb

    d = tmp_path_factory.mktemp("bad_inputs")
    rng = np.random.default_rng(0)
    n = 400
    ok = pd.DataFrame({"g": rng.choice(["a", "b"], n), "y": rng.integers(0, 2, n),
                       "p": rng.integers(0, 2, n), "score": rng.random(n).round(3),
                       "c": rng.random(n).round(2), "split": rng.choice(["test", "dev"], n)})
    ok.to_csv(d / "ok.csv", index=False)
    ok.to_parquet(d / "ok.parquet", index=False)
    (d / "folder.csv").mkdir()
    (d / "empty.csv").write_text("")
    (d / "header.csv").write_text("g,y,p\n")
    wide = ok[["g", "y", "p"]].iloc[:100].assign(x1=1, x2=2, x3=3, x4=4, x5=5)
    lines = wide.to_csv(index=False).splitlines()  # 8 fields
    _write_lines(d / "ragged.csv", lines[:56] + [lines[56] + ",9"] + lines[57:])
    _write_lines(d / "half.csv", lines[:56] + [lines[56][:3]] + lines[57:])
    (d / "cut.csv").write_text("\n".join(lines)[:-5])  # the last line cut off mid-write
    big = pd.DataFrame({"g": rng.choice(["a", "b"], 40_000), "y": rng.integers(0, 2, 40_000),
                        "p": rng.integers(0, 2, 40_000)}).to_csv(index=False).splitlines()
    _write_lines(d / "late.csv", big[:30_000] + [big[30_000] + ",1"] + big[30_001:])
    _write_lines(d / "retyped.csv", big[:30_000] + ["a,abc,1"] + big[30_001:])
    (d / "quote.csv").write_text('g,y,p\na,1,1\nb,"0,1\n' + "c,1,0\n" * 3)
    (d / "latin1.csv").write_bytes(b"g,y,p\n" + "\u00e9,1,0\nb,0,1\n".encode("latin-1") * 20)
    (d / "bad.parquet").write_bytes(b"not parquet" * 10)
    (d / "bad.jsonl").write_text('{"g": "a", "y": 1, "p": 1}\n{"g": "b", "y": \n')
    with (d / "mixed.jsonl").open("w") as fh:
        for i in range(60):
            fh.write(json.dumps({"g": "ab"[i % 2], "y": [1, "1", 0][i % 3], "p": i % 2}) + "\n")
    with (d / "clash.jsonl").open("w") as fh:
        for i in range(60):
            fh.write(json.dumps({"g": ["a", "b", 3, "3"][i % 4], "y": i % 2, "p": i % 2}) + "\n")
    with (d / "nested.jsonl").open("w") as fh:
        for i in range(60):
            g = {"k": 1} if i == 0 else "ab"[i % 2]
            fh.write(json.dumps({"g": g, "y": i % 2, "p": (i // 2) % 2}) + "\n")
    con = duckdb.connect(str(d / "two.duckdb"))
    con.execute("CREATE TABLE t1 AS SELECT 1 AS x")
    con.execute("CREATE TABLE t2 AS SELECT 1 AS x")
    con.close()
    (d / "notdb.duckdb").write_text("hello" * 100)
    con = duckdb.connect()
    con.execute(f"COPY (SELECT 'a' AS g, [1, 2] AS y, 1 AS p UNION ALL SELECT 'b', [0], 0) "
                f"TO '{d / 'nested.parquet'}'")
    con.close()
    pd.DataFrame({"g": ["a", "b"] * 20, "y": ["High", "Low"] * 20,
                  "p": [True, False] * 20}).to_csv(d / "risk.csv", index=False)
    pd.DataFrame({"g": ["a", "b"] * 10, "y": ["x", "z"] * 10,
                  "p": ["x", "z"] * 10}).to_csv(d / "twotext.csv", index=False)
    pd.DataFrame({"g": ["a", "b"] * 5, "y": [None] * 10,
                  "p": [1, 0] * 5}).to_csv(d / "nolabels.csv", index=False)
    pd.DataFrame({"g": ["A", "B", "C"] * 20, "y": ["High", "Low", "Medium"] * 20,
                  "d": list(range(1, 11)) * 6}).to_csv(d / "compas.csv", index=False)
    g = rng.choice(["f", "m"], 300)
    y = rng.integers(0, 2, 300)
    p = rng.integers(0, 2, 300)
    rows = pd.DataFrame({"gender": g, "label": y, "pred": p, "cost": (y != p).astype(int)})
    rows.to_csv(d / "rows.csv", index=False)
    (d / "rows_cost2.csv").write_text("gender,cost\n" + "f,0.5\nm,2\n" * 50)
    (d / "rows_text.csv").write_text("gender,cost\n" + "f,abc\nm,0\n" * 50)
    (d / "notjson.json").write_text("{not json")
    # NLI samples and predictions
    main(["nli", "expand", "--subtopic", "man_is_to_breadwinner", "-o", str(d / "samples.csv")])
    samples = pd.read_csv(d / "samples.csv")
    preds = samples[["sample_id"]].assign(prediction="neutral")
    preds.to_csv(d / "pred.csv", index=False)
    pd.concat([preds, preds]).to_csv(d / "pred_twice.csv", index=False)
    return d


# ----------------------------------------------------------------------------- CLI cases

CLI_CASES = [
    # data files
    ("file-missing", "audit nope.csv -g g -y y -p p", "data: file not found: 'nope.csv'"),
    ("file-folder", "audit folder.csv -g g -y y -p p",
     "data: 'folder.csv' is a directory; give a file or a glob such as 'folder.csv/*.parquet'"),
    ("file-suffix", "audit preds.xlsx -g g -y y -p p",
     "data: cannot tell the format of 'preds.xlsx'; use a .csv, .tsv, .parquet, .jsonl or "
     ".duckdb file"),
    ("file-header-only", "audit header.csv -g g -y y -p p --method newcombe",
     "data: no rows in header.csv"),
    ("csv-ragged", "audit ragged.csv -g g -y y -p p",
     "data: line 57 of ragged.csv has 9 fields, the header has 8"),
    ("csv-half-line", "audit half.csv -g g -y y -p p",
     "data: line 57 of half.csv has 2 fields, the header has 8"),
    ("csv-cut-off", "audit cut.csv -g g -y y -p p",
     "data: line 101 of cut.csv has 6 fields, the header has 8"),
    ("csv-ragged-late", "audit late.csv -g g -y y -p p --method newcombe",
     "data: line 30001 of late.csv has 4 fields, the header has 3"),
    ("csv-retyped-late", "audit retyped.csv -g g -y y -p p --method newcombe",
     "data: line 30001 of retyped.csv: column 'y' holds 'abc', but the rows before it made "
     "it a BIGINT column; fix the value (or make the column text)"),
    ("csv-open-quote", "audit quote.csv -g g -y y -p p",
     "data: line 3 of quote.csv opens a quote that is never closed"),
    ("csv-not-utf8", "audit latin1.csv -g g -y y -p p --method newcombe",
     "data: line 2 of latin1.csv: Invalid unicode (byte sequence mismatch) detected."),
    ("parquet-corrupt", "audit bad.parquet -g g -y y -p p",
     "data: cannot read 'bad.parquet' as parquet: Invalid Input Error: No magic bytes found "
     "at end of file 'bad.parquet'"),
    ("jsonl-broken", "audit bad.jsonl -g g -y y -p p",
     "data: cannot read 'bad.jsonl' as json: Invalid Input Error: Malformed JSON in file "
     "\"bad.jsonl\", at byte 18 in line 3: unexpected end of data."),
    ("glob-no-match", "audit 'nope-*.parquet' -g g -y y -p p",
     "data: no files match 'nope-*.parquet'"),
    ("db-two-tables", "audit two.duckdb -g g -y y -p p",
     "data: 'two.duckdb' holds 2 tables (t1, t2); name one as 'two.duckdb::table'"),
    ("db-no-table", "audit two.duckdb::t3 -g g -y y -p p",
     "data: table 't3' not found in 'two.duckdb'; tables are: t1, t2"),
    ("db-not-a-db", "audit notdb.duckdb -g g -y y -p p",
     "data: cannot open 'notdb.duckdb' as a DuckDB database: IO Error: The file "),
    ("engines-ragged", "engines ragged.csv",
     "data: line 57 of ragged.csv has 9 fields, the header has 8"),
    # columns
    ("col-label", f"{A.replace('-y y', '-y truth')}",
     "label: column 'truth' not found; columns are: g, y, p, score, c, split"),
    ("col-prediction", f"{A.replace('-p p', '-p pred')}",
     "prediction: column 'pred' not found; columns are: g, y, p, score, c, split"),
    ("col-cost", "audit ok.csv -g g --cost loss --method newcombe",
     "cost: column 'loss' not found; columns are: g, y, p, score, c, split"),
    ("col-cost-text", "audit ok.csv -g g --cost split",
     "cost: column 'split' in ok.csv has type VARCHAR; expected numbers"),
    ("col-nested", "audit nested.parquet -g g -y y -p p",
     "label: column 'y' in nested.parquet has type INTEGER[]; expected plain values (numbers, "
     "strings, booleans)"),
    ("col-group-twice", f"{A} -g g",
     "group: 'g' is given twice; name each group column once (several different columns form "
     "intersections)"),
    ("col-group-empty", "audit ok.csv -g '' -y y -p p --method newcombe",
     "group must be a column name or a list of them; got ['']"),
    ("col-no-prediction", "audit ok.csv -g g -y y --method newcombe",
     "prediction: a column is required for metric 'demographic_parity'"),
    ("col-no-cost", f"{A} --metric cost", "cost: a column is required for metric 'cost'"),
    ("jsonl-nested-group", "audit nested.jsonl -g g -y y -p p --method newcombe",
     "group: column 'g' in nested.jsonl holds JSON objects or arrays such as '{\"k\":1}'; "
     "expected plain values (numbers, strings, booleans)"),
    ("jsonl-group-clash", "audit clash.jsonl -g g -y y -p p --method newcombe",
     "group: column 'g' in clash.jsonl holds both 3 and '3', which read as the same value; "
     "give every row one type (all text or all numbers)"),
    # labels and predictions
    ("labels-bool-vs-two-values", "audit risk.csv -g g -y y -p p --method newcombe",
     "prediction: prediction 'p' holds [False, True] but label 'y' holds ['High', 'Low']; say "
     "which label value a True prediction stands for with pos_label= / --pos-label"),
    ("labels-two-text-classes", "audit twotext.csv -g g -y y -p p --method newcombe",
     "pos_label: labels are ['x', 'z']; say which one is the positive class (pos_label= / "
     "--pos-label)"),
    ("labels-jsonl-mixed", "audit mixed.jsonl -g g -y y -p p --method newcombe",
     "label: column 'y' in mixed.jsonl mixes numbers and text (1 and '1'); give every row one "
     "type (all text or all numbers)"),
    ("labels-none", "audit nolabels.csv -g g -y y -p p --method newcombe",
     "label: no row has both a label ('y') and a prediction ('p')"),
    ("labels-scores-as-classes", "audit compas.csv -g g -y y -p d --method newcombe",
     "prediction: prediction 'd' holds [1, 2, 3, 4, 5, 6, 7, 8] and 2 more but label 'y' holds "
     "['High', 'Low', 'Medium']; predictions must be label values"),
    ("labels-pos-not-binary", f"{A} --pos-label 2",
     "pos_label: '2' matches no value of label 'y' or prediction 'p'; values are [0, 1]"),
    # options and choices
    ("opt-method", "audit ok.csv -g g -y y -p p --method wilson2",
     "method must be one of agresti-caffo, "),
    ("opt-engine", f"{A} --engine flink", "engine must be one of auto, duckdb, spark; got 'flink'"),
    ("opt-error-control", f"{A} --error-control strict",
     "error_control must be one of family, fdr, none; got 'strict'"),
    ("opt-favourable", f"{A} --favourable maybe",
     "favourable must be one of positive, negative (positive: the positive class is the "
     "favourable outcome, e.g. loan granted, hired; negative: it is harmful, e.g. flagged, high "
     "risk); got 'maybe'"),
    ("opt-reference", f"{A} --reference zzz",
     "reference: group 'zzz' not found in column 'g'; groups are ['a', 'b']"),
    ("opt-not-a-number", f"{A} --confidence high",
     "Invalid value for '--confidence-level' / '--confidence': Input should be a valid number, "
     "unable to parse string as a number (see 'fairbound audit --help')"),
    ("opt-monitor-format", "monitor rows.csv --group gender --cost cost --format csv",
     "format must be one of table, json; got 'csv'"),
    ("opt-unknown-command", "example nope",
     "No such command 'nope'. (see 'fairbound example --help')"),
    # numbers
    ("num-confidence-nan", f"{A} --confidence nan", "confidence_level must be in (0, 1); got nan"),
    ("num-confidence-0", f"{A} --confidence 0", "confidence_level must be in (0, 1); got 0.0"),
    ("num-tolerance", f"{A} --tolerance 2",
     "tolerance must be in (0, 1) (a gap on the rate scale); got 2.0"),
    ("num-max-comparisons", f"{A} --max-comparisons 0",
     "max_comparisons must be a positive whole number; got 0"),
    ("num-cost-max-0", "audit ok.csv -g g --cost c --cost-max 0",
     "cost_max must be a positive number; got 0.0"),
    ("num-cost-max-nan", "audit ok.csv -g g --cost c --cost-max nan",
     "cost_max must be a positive number; got nan"),
    ("num-variance", "audit ok.csv -g g -y y -p p --method bbu --variance -1",
     "variance must be >= 0; got -1.0"),
    ("num-seed", f"{A} --seed -1", "seed must be a non-negative integer; got -1"),
    ("num-plan-n", "plan --n -5 --bias 0.1", "n must be a positive number; got -5.0"),
    ("num-plan-bias", "plan --n 1000 --bias 2", "bias must be in (0, 1]; got 2.0"),
    ("num-plan-power", "plan --bias 0.1 --method betting --power 1.5",
     "power must be in (0, 1); got 1.5"),
    ("num-simulate-reps", "simulate --reps 0", "n_reps must be a positive integer; got 0"),
    ("num-simulate-list", "simulate --n a,b --reps 10",
     "n must be a comma-separated list of int values; got 'a'"),
    ("num-plan-n-inf", "plan --n inf --bias 0.1",
     "n must be a finite number of annotated examples; got inf"),
    ("num-plan-n-nan-method", "plan --n nan --method betting",
     "n must be a positive number; got nan"),
    ("num-plan-n-negative-method", "plan --n -5 --method betting",
     "n must be a positive number; got -5.0"),
    ("num-plan-variance-inf", "plan --bias 0.1 --variance inf",
     "variance must be a finite number >= 0; got inf"),
    ("num-plan-seed", "plan --bias 0.1 --method betting --seed -1",
     "seed must be a non-negative integer; got -1"),
    ("num-simulate-seed", "simulate --seed -1", "seed must be a non-negative integer; got -1"),
    # outputs
    ("out-json-folder", f"{A} --json . --html out/r.html",
     "--json: '.' is a folder; give a file name"),
    ("out-failed-audit-writes-nothing",
     "audit ragged.csv -g g -y y -p p --json out/r.json --html out/r.html",
     "data: line 57 of ragged.csv has 9 fields, the header has 8"),
    ("out-report-folder", "report --data ok.csv -g g -y y -p p --method newcombe -o .",
     "out: '.' is a folder; give a file name such as report.html"),
    ("out-report-failed-audit", "report --data ragged.csv -g g -y y -p p -o out/r.html",
     "data: line 57 of ragged.csv has 9 fields, the header has 8"),
    ("out-nli-suffix", "nli audit --samples samples.csv -p pred.csv -o out/m.xyz",
     "--out: unsupported file type '.xyz' (use .csv, .parquet or .jsonl)"),
    ("out-stability-summary-folder", "stability summary nostudy --out .",
     "out: '.' is a folder; give a file name such as summary.csv"),
    ("out-stability-report-file", "stability report nostudy --out ok.csv",
     "out: 'ok.csv' is a file; give a folder for the report"),
    ("out-stability-report-formats", "stability report nostudy --out out/r --format gif",
     "format must be among png, svg, pdf; got 'gif'"),
    ("out-stability-report-correction",
     "stability report nostudy --out out/r --format none --error-control none2",
     "error_control must be one of holm, bonferroni, bh, none (or family, read as holm, or "
     "fdr, read as bh); got 'none2'"),
    ("out-debias-folder", "stability debias ok.csv folder.csv",
     "dest: 'folder.csv' is a folder; give a file name"),
    ("out-plan-figure-format", "plan --bias 0.1 --figure out/f.xyz",
     "--figure: unsupported file type '.xyz' (use .png, .svg or .pdf)"),
    ("out-plan-figure-folder", "plan --bias 0.1 --figure folder.csv",
     "--figure: 'folder.csv' is a folder; give a file name"),
    ("out-plan-figure-unwritable", "plan --bias 0.1 --html out/p.html --figure ok.csv/f.png",
     "--figure: cannot write 'ok.csv/f.png': 'ok.csv' is a file, not a folder"),
    ("out-simulate-folder", "simulate --out folder.csv",
     "--out: 'folder.csv' is a folder; give a file name"),
    ("out-simulate-suffix", "simulate --out out/s.xyz",
     "--out: unsupported file type '.xyz' (use .txt, or .json with --format json, .csv "
     "with --format csv, .md with --markdown)"),
    ("out-simulate-mismatch", "simulate --format json --out out/s.csv",
     "--out: 'out/s.csv' would hold JSON (--format json); name it .json or .txt"),
    ("out-simulate-unwritable", "simulate --out ok.csv/s.txt",
     "--out: cannot write 'ok.csv/s.txt': 'ok.csv' is a file, not a folder"),
    # SQL --where / --pred injection attempts
    ("sql-two-statements", f"{A} --where '1; DROP TABLE x'",
     "where: '1; DROP TABLE x' must be one expression, not several statements"),
    ("sql-read-file", f"{A} --where \"read_csv('/etc/passwd') IS NOT NULL\"",
     "where: the function 'read_csv' (allowed: abs, ceil, exp, floor, greatest, least, ln, "
     "log10, lower, nullif, round, sqrt, trim, upper) is not allowed in an expression"),
    ("sql-getenv", f"{A} --where \"getenv('HOME') = 'x'\"",
     "where: the function 'getenv' (allowed: "),
    ("sql-subquery", f"{A} --where 'g IN (SELECT g FROM src)'",
     "where: a subquery is not allowed in an expression; got 'g IN (SELECT g FROM src)'"),
    ("sql-union", f"{A} --where \"split = 'test' UNION SELECT 1\"",
     "where: a SET_OPERATION_NODE is not allowed in an expression"),
    ("sql-open-string", f"{A} --where \"split = 'test\"",
     "where: cannot parse \"split = 'test\" as a SQL expression: unterminated string literal"),
    ("sql-not-boolean", f"{A} --where 'score + 1'",
     "where: 'score + 1' has type DOUBLE; expected a true/false condition"),
    ("sql-unknown-column", f"{A} --where 'nope = 1'",
     "where: column 'nope' in 'nope = 1' not found; columns are: c, g, p, score, split, y"),
    ("sql-pred-break-out", "audit ok.csv -g g -y y -p 'p); DROP TABLE src; --' "
     "--method newcombe",
     "prediction: column 'p); DROP TABLE src; --' not found (columns are: g, y, p, score, c, "
     "split), and it is not a valid expression: cannot parse"),
    ("sql-pred-system", "audit ok.csv -g g -y y -p \"system('ls') = 0\" --method newcombe",
     "prediction: column \"system('ls') = 0\" not found (columns are: g, y, p, score, c, "
     "split), and it is not a valid expression: the function 'system'"),
    ("sql-group-quote", "audit ok.csv -g 'g\" FROM src; --' -y y -p p --method newcombe",
     "group: column 'g\" FROM src; --' not found (columns are: g, y, p, score, c, split), and "
     "it is not a valid expression: cannot parse"),
    # monitor streams
    ("monitor-batch-size", "monitor rows.csv --group gender --cost cost --batch-size 0",
     "batch_size must be >= 1; got 0"),
    ("monitor-method", "monitor rows.csv --group gender --cost cost --method wald",
     "method must be one of betting, betting-union; got 'wald'"),
    ("monitor-two-components", "monitor rows.csv --group gender -y label -p pred "
     "-m equalized_odds",
     "metric must have one component to be monitored; got 'equalized_odds' with 2 (monitor "
     "its components one at a time)"),
    ("monitor-cost-range", "monitor rows_cost2.csv --group gender --cost cost",
     "costs must lie in [0, 1]; got 2.0"),
    ("monitor-cost-text", "monitor rows_text.csv --group gender --cost cost",
     "column 'cost' must hold numbers; could not convert string to float: 'abc'"),
    ("monitor-empty", "monitor empty.csv --group gender --cost cost",
     "source is empty: expected a CSV header line"),
    ("monitor-parquet", "monitor ok.parquet --group g --cost c",
     "source: monitor reads CSV text; 'ok.parquet' is a Parquet file (write its rows out as "
     "CSV, or pipe them as CSV to 'fairbound monitor -')"),
    ("monitor-not-utf8", "monitor latin1.csv --group g --cost y",
     "source: 'latin1.csv' is not UTF-8 text (monitor reads CSV text): cannot decode byte "
     "0xe9: invalid continuation byte"),
    ("monitor-folder", "monitor folder.csv --group g --cost c",
     "source: 'folder.csv' is a folder; give a CSV file (or - to read standard input)"),
    ("monitor-group-absent", "monitor rows.csv --group gender --cost cost --groups f,zz",
     "groups: group 'zz' never occurred in column 'gender'; groups are ['f', 'm']"),
    # stability
    ("stability-folder", "stability run folder.csv --store out/st --label y --group g",
     "data: 'folder.csv' is a folder, not a file (a CSV, Parquet or JSON-lines file; "
     "bios:FOLDER reads a Bias in Bios folder)"),
    ("stability-ragged", "stability run ragged.csv --store out/st --label y --group g",
     "data: line 57 of ragged.csv has 9 fields, the header has 8"),
    ("stability-half-line", "stability run half.csv --store out/st --label y --group g",
     "data: line 57 of half.csv has 2 fields, the header has 8"),
    ("stability-empty", "stability run empty.csv --store out/st --label y --group g",
     "data: file is empty: 'empty.csv'"),
    ("stability-parquet-corrupt", "stability run bad.parquet --store out/st --label y "
     "--group g", "data: cannot read 'bad.parquet' as Parquet: "),
    ("stability-text-column", "stability run ok.csv --store out/st --label y --group g "
     "--sizes 100 --no-progress",
     "text_column: no column 'text'; columns are ['g', 'y', 'p', 'score', 'c', 'split']"),
    ("stability-features", "stability run ok.csv --store out/st --label y --group g "
     "--sizes 100 --trainer tabular-lr --features age --no-progress",
     "features: no column 'age'; columns are ['g', 'y', 'p', 'score', 'c', 'split']"),
    ("stability-store-file", "stability run ok.csv --store ok.csv --label y --group g",
     "store: 'ok.csv' is a file; give a folder (runs are saved there)"),
    ("stability-sizes", "stability run ok.csv --store out/st --label y --group g "
     "--sizes 100000 --trainer tabular-lr --no-progress",
     "sizes: 100000 exceeds the 400 rows available"),
    ("stability-test-data", "stability run ok.csv --store out/st --label y --group g "
     "--sizes 100 --test-data ragged.csv",
     "test_data: line 57 of ragged.csv has 9 fields, the header has 8"),
    ("stability-bios-path", "stability run bios:nope --store out/st",
     "path does not exist: 'nope'"),
    ("stability-debias-ragged", "stability debias ragged.csv out/o.csv",
     "source: line 57 of ragged.csv has 9 fields, the header has 8"),
    # NLI
    ("nli-twice", "nli audit --samples samples.csv -p pred_twice.csv --n-resamples 10",
     "predictions: sample_id 'man_is_to_breadwinner/p00/t00/f000/pro' has more than one "
     "prediction"),
    ("nli-samples-missing", "nli audit --samples nope.csv -p pred.csv",
     "samples: file 'nope.csv' does not exist"),
    ("nli-samples-ragged", "nli audit --samples ragged.csv -p pred.csv",
     "samples: line 57 of ragged.csv has 9 fields, the header has 8"),
    ("nli-three-models", "nli audit --samples samples.csv -p pred.csv -p pred.csv -p pred.csv",
     "predictions: give one or two, got 3"),
    ("nli-no-column", "nli audit --samples samples.csv -p column:nope",
     "predictions: the samples have no column 'nope'"),
    ("nli-by", "nli audit --samples samples.csv -p pred.csv --by region",
     "by must be among domain, subtopic; got 'region'"),
    ("nli-resamples", "nli audit --samples samples.csv -p pred.csv --n-resamples -5",
     "n_resamples must be a non-negative integer; got -5"),
    ("nli-subtopic", "nli expand --subtopic nope", "subtopics: unknown value(s) 'nope'"),
    ("nli-template-json", "nli expand --templates notjson.json",
     "templates: 'notjson.json' is not valid JSON (Expecting property name enclosed in double "
     "quotes at line 1)"),
    ("nli-versions", "nli expand --versions sideways",
     "versions must be among pro, anti; got 'sideways'"),
    ("nli-samples-folder", "nli audit --samples folder.csv -p pred.csv",
     "samples: 'folder.csv' is a folder, not a file"),
    ("nli-samples-half-line", "nli audit --samples half.csv -p pred.csv",
     "samples: line 57 of half.csv has 2 fields, the header has 8"),
    ("nli-predictions-half-line", "nli audit --samples samples.csv -p half.csv",
     "predictions: line 57 of half.csv has 2 fields, the header has 8"),
    ("nli-surplus-name", "nli audit --samples samples.csv -p pred.csv --name a --name b",
     "name: 2 names for 1 prediction set ('a', 'b'); give at most one --name per "
     "--predictions"),
    ("nli-device-no-model", "nli audit --samples samples.csv -p pred.csv --device tpu",
     "device: --device 'tpu' has no effect: no model runs (every --predictions is a file or "
     "column:NAME; give a local model folder to run one)"),
    ("nli-batch-size-no-model", "nli audit --samples samples.csv -p pred.csv --batch-size 8",
     "batch_size: --batch-size 8 has no effect: no model runs"),
]


def _snapshot(root: Path) -> dict:
    return {str(p.relative_to(root)): (p.is_dir(), p.stat().st_size, p.stat().st_mtime_ns)
            for p in root.rglob("*")}


@pytest.mark.parametrize(("line", "message"), [pytest.param(line, msg, id=case)
                                               for case, line, msg in CLI_CASES])
def test_cli_bad_input(data_dir, monkeypatch, capsys, line, message):
    monkeypatch.chdir(data_dir)
    before = _snapshot(data_dir)
    code = main(shlex.split(line))
    captured = capsys.readouterr()
    errors = [t for t in captured.err.splitlines() if not t.startswith(("note:", "warning:"))]
    assert code == 2, captured.err
    assert "Traceback" not in captured.err
    assert len(errors) == 1, captured.err
    assert errors[0].startswith(f"error: {message}"), errors[0]
    assert _snapshot(data_dir) == before  # nothing written, not even an empty out/ folder


# ----------------------------------------------------------------------------- Python cases

def _frame():
    return pd.DataFrame({"g": ["a", "b"] * 20, "y": [1, 0, 0, 1] * 10, "p": [1, 0] * 20})


def _audit(data, **kw):
    return fairbound.audit(data, **{"group": "g", "label": "y", "prediction": "p",
                                    "method": "newcombe", **kw})


def _study(trainer, **kw):
    return run_study(_frame(), label="y", group="g", trainer=trainer, sizes=[30], n_repeats=1,
                     store="out/st", progress=False, **kw)


PY_CASES = [
    ("py-object-labels-mixed", lambda: _audit(_frame().assign(y=[1, "1", 0, 0] * 10)),
     "label: column 'y' mixes numbers and text (1 and '1'); give every row one type (all "
     "text or all numbers)"),
    ("py-dict-labels-mixed", lambda: _audit({"g": ["a", "b"] * 2, "y": [1, "1", 0, 0],
                                             "p": [1, 0, 1, 0]}),
     "label: column 'y' mixes numbers and text (1 and '1')"),
    ("py-object-groups-clash", lambda: _audit(_frame().assign(g=[1, "1", "a", "a"] * 10)),
     "group: column 'g' holds both 1 and '1', which read as the same value"),
    ("py-duplicate-columns",
     lambda: _audit(pd.DataFrame([["a", 1, 0], ["b", 0, 1]] * 5, columns=["g", "y", "y"]),
                    prediction="y"),
     "data: the DataFrame has 2 columns named 'y'; rename them apart"),
    ("py-dict-lengths", lambda: _audit({"g": ["a", "b"], "y": [1], "p": [1, 0]}),
     "data: dict columns differ in length ('y' has 1 rows, others 2)"),
    ("py-data-none", lambda: _audit(None), "data: got None"),
    ("py-data-list", lambda: _audit([1, 2, 3]),
     "data must be a pandas/polars DataFrame or LazyFrame, a pyarrow Table or Dataset"),
    ("py-where-not-text", lambda: _audit(_frame(), where=5),
     "where must be a SQL condition (text); got 5"),
    ("py-confidence-text", lambda: _audit(_frame(), confidence_level="high"),
     "confidence_level must be in (0, 1); got 'high'"),
    ("py-seed-fraction", lambda: _audit(_frame(), seed=1.5),
     "seed must be a non-negative integer; got 1.5"),
    ("py-counts-text", lambda: GroupStats.from_counts("ten", 1),
     "n must be a non-negative whole number; got 'ten'"),
    ("py-counts-bool", lambda: GroupStats.from_counts(10, True),
     "cost_count must be a non-negative whole number; got True"),
    ("py-interval-not-stats",
     lambda: difference_interval(5, GroupStats.from_counts(10, 3), method="newcombe"),
     "a must be a GroupStats; got int"),
    ("py-interval-confidence",
     lambda: difference_interval(GroupStats.from_counts(10, 2), GroupStats.from_counts(10, 3),
                                 method="newcombe", confidence_level=2),
     "confidence_level must be in (0, 1); got 2"),
    ("py-jsonl-group-clash", None,  # filled in by the test: needs the data folder
     "group: column 'g' in clash.jsonl holds both 3 and '3'"),
    ("py-study-trainer-columns",  # no store (study.json) is made
     lambda: _study(TfidfLogisticTrainer("text")),
     "text_column: no column 'text'; columns are ['g', 'y', 'p']"),
    ("py-study-features",
     lambda: _study(TabularTrainer(columns=("p", "age")), test_data=_frame()),
     "features: no column 'age'; columns are ['g', 'y', 'p']"),
    ("py-study-report-correction",  # no report folder is made
     lambda: StudyResult(None, pd.DataFrame(), pd.DataFrame()).write_report(
         "out/r", formats=(), correction="none2"),
     "correction must be one of holm, bonferroni, bh, none; got 'none2'"),
]


@pytest.mark.parametrize(("call", "message"), [pytest.param(call, msg, id=case)
                                               for case, call, msg in PY_CASES])
def test_python_bad_input(data_dir, monkeypatch, call, message):
    monkeypatch.chdir(data_dir)
    if call is None:
        call = lambda: _audit("clash.jsonl")  # noqa: E731
    before = _snapshot(data_dir)
    with pytest.raises(FairboundError) as info:
        call()
    assert "\n" not in str(info.value)
    assert str(info.value).startswith(message), str(info.value)
    assert _snapshot(data_dir) == before  # nothing written (a study store, a report folder)


# ----------------------------------------------------------------------------- odd but fine


def test_odd_inputs_that_are_accepted(data_dir, monkeypatch, capsys):
    monkeypatch.chdir(data_dir)
    base = ["audit", "ok.csv", "-g", "g", "-y", "y", "-p", "p", "--method", "newcombe",
            "--format", "json"]
    assert main([*base, "--where", "split = 'test'"]) == 0
    plain = json.loads(capsys.readouterr().out)
    # a trailing comment is dropped by the parser: still one checked expression
    assert main([*base, "--where", "split = 'test' -- keep the test split"]) == 0
    commented = json.loads(capsys.readouterr().out)
    assert commented["comparisons"] == plain["comparisons"]
    # JSON-lines groups are the plain strings, numbers among them read as text
    with (data_dir / "strings.jsonl").open("w") as fh:
        for i in range(90):
            fh.write(json.dumps({"g": ["a", "b", 30][i % 3], "y": i % 2, "p": (i // 2) % 2})
                     + "\n")
    try:
        res = fairbound.audit("strings.jsonl", group="g", label="y", prediction="p",
                              method="newcombe", metrics="demographic_parity")
    finally:
        (data_dir / "strings.jsonl").unlink()
    assert sorted({c.group_a for c in res.comparisons} | {c.group_b for c in res.comparisons}
                  ) == ["30", "a", "b"]
    # a gzipped CSV with a ragged line is named like a plain one
    (data_dir / "r.csv.gz").write_bytes(gzip.compress((data_dir / "ragged.csv").read_bytes()))
    try:
        assert main(["audit", "r.csv.gz", "-g", "g", "-y", "y", "-p", "p"]) == 2
    finally:
        (data_dir / "r.csv.gz").unlink()
    assert capsys.readouterr().err == ("error: data: line 57 of r.csv.gz has 9 fields, the "
                                       "header has 8\n")


# ----------------------------------------------------------------------------- the table


def test_every_case_is_in_the_table():
    text = DOC.read_text()
    ids = [c[0] for c in CLI_CASES] + [c[0] for c in PY_CASES]
    assert len(ids) == len(set(ids))
    missing = [i for i in ids if f"`{i}`" not in text]
    assert not missing, f"rows missing from {DOC.name}: {missing}"
    rows = [t for t in text.splitlines() if re.match(r"\| \d+ \|", t)]
    assert len(rows) >= 60
    cited = set(re.findall(r"`(tests/[\w/]+\.py)::(\w+)", text))
    for path, name in cited:
        assert (DOC.parents[1] / path).is_file(), path
        assert f"def {name}(" in (DOC.parents[1] / path).read_text(), f"{path}::{name}"
