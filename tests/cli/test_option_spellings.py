"""One spelling per idea in every command; the old spellings stay as hidden aliases.

``fairbound.cli.DEPRECATED_OPTIONS`` maps each old spelling to the one spelling.  Every
command that declares the new one parses the old one to the same value, prints one
``note:`` line on standard error, and does not show the old one in ``--help``.  The tests
parse the command lines only (click's ``make_context``): no command runs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer.main

from fairbound import cli

#: (command path, old spelling, new spelling, value given, parameter, value parsed)
CASES = [
    (["simulate"], "--output", "--out", "s.txt", "output", Path("s.txt")),
    (["nli", "expand"], "--output", "--out", "s.csv", "output", Path("s.csv")),
    (["nli", "audit"], "--output", "--out", "m.csv", "output", Path("m.csv")),
    (["nli", "compare"], "--output", "--out", "c.csv", "output", Path("c.csv")),
    (["nli", "masked-templates"], "--out-dir", "--out", "masked", "out_dir", Path("masked")),
    (["stability", "report"], "--formats", "--format", "none", "formats", "none"),
    (["stability", "report"], "--correction", "--error-control", "bh", "correction", "bh"),
    (["sample"], "--proxy-score", "--proxy", "judge_p", "proxy_score", "judge_p"),
    (["impact"], "--versus", "--comparison", "pairwise", "versus", "pairwise"),
]


@pytest.fixture(scope="module")
def root():
    command = typer.main.get_command(cli.app)
    cli.harmonise_options(command)  # what the top-level group does for the command it runs
    return command


def _command(root, path):
    command = root
    for name in path:
        command = command.commands[name]
    return command


def _parse(command, args):
    ctx = command.make_context(command.name, list(args), resilient_parsing=True)
    return ctx.params


def _options(command) -> set[str]:
    return {o for p in command.params for o in (*getattr(p, "opts", ()),
                                                *getattr(p, "secondary_opts", ()))}


@pytest.mark.parametrize("path,old,new,given,param,parsed", CASES,
                         ids=[f"{' '.join(c[0])} {c[1]}" for c in CASES])
def test_old_spelling_parses_as_the_new_one_with_a_note(root, capsys, path, old, new,
                                                       given, param, parsed):
    command = _command(root, path)
    assert new in _options(command) and old not in _options(command)
    assert _parse(command, [new, given])[param] == parsed
    assert capsys.readouterr().err == ""
    assert _parse(command, [old, given])[param] == parsed
    assert _parse(command, [f"{old}={given}"])[param] == parsed
    err = capsys.readouterr().err.splitlines()
    assert err == [f"note: {old} is deprecated; use {new} (the old spelling goes in the "
                   "next release)"] * 2


@pytest.mark.parametrize("path,old,new", sorted({(tuple(c[0]), c[1], c[2]) for c in CASES}))
def test_old_spelling_is_hidden_from_help(root, path, old, new):
    command = _command(root, list(path))
    ctx = command.make_context(command.name, [], resilient_parsing=True)
    text = command.get_help(ctx)
    assert re.search(rf"{re.escape(new)}\b(?!-)", text)
    assert old not in text


def test_every_old_spelling_is_used_by_some_command_and_none_is_declared(root):
    # an old spelling that no command declares the new spelling of would be dead; one that
    # a command still declares would not be hidden
    commands = [c for g in root.commands.values()
                for c in (list(g.commands.values()) if hasattr(g, "commands") else [g])]
    declared = set().union(*(_options(c) for c in commands))
    assert set(cli.DEPRECATED_OPTIONS) & declared == set()
    assert set(cli.DEPRECATED_OPTIONS.values()) <= declared
    covered = {old for c in commands
               for old in (getattr(c, "_old_spellings", None) or {})}
    assert covered == set(cli.DEPRECATED_OPTIONS)


def test_values_and_the_end_of_options_are_left_alone():
    renames = {"--output": "--out"}
    assert cli._renamed(["--outputs", "x", "--", "--output"], renames) == [
        "--outputs", "x", "--", "--output"]
