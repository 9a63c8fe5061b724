"""fairbound.cli._common: the option declarations and the sub-app helper commands share."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from fairbound.cli import _common as common


def test_shared_options_keep_their_spellings_in_each_command():
    app = typer.Typer(rich_markup_mode=None)

    def run(data: common.DataArg, group: common.GroupOpt,
            confidence: common.ConfidenceOpt = 0.95, fmt: common.FormatOpt = "table") -> None:
        print(data, group, confidence, fmt)

    common.add_sub_app(app, "x", "A group.", run=run)
    out = CliRunner().invoke(app, ["x", "run", "f.csv", "-g", "a", "--group", "b",
                                   "--confidence", "0.9", "--format", "json"])
    assert out.exit_code == 0, out.output
    assert out.output.strip() == "f.csv ['a', 'b'] 0.9 json"
    help_text = CliRunner().invoke(app, ["x", "--help"]).output
    assert "A group." in help_text and "run" in help_text
