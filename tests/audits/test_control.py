"""fairbound.audits.control: the settings a result's recompute uses."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from fairbound.audits.control import recompute_settings
from fairbound.errors import FairboundError

OLD = SimpleNamespace(confidence_level=0.9, error_control="fdr")


def test_recompute_settings_keeps_what_is_left_out():
    assert recompute_settings(OLD, None, None) == (0.9, "fdr")
    assert recompute_settings(OLD, 0.99, None) == (0.99, "fdr")
    assert recompute_settings(OLD, None, "Family") == (0.9, "family")


@pytest.mark.parametrize(("level", "control", "param"),
                         [(1.5, None, "confidence_level"), (None, "holm", "error_control")])
def test_recompute_settings_checks_what_is_given(level, control, param):
    with pytest.raises(FairboundError) as info:
        recompute_settings(OLD, level, control)
    assert info.value.param == param
