"""What the score statistics share: guarantees, choices, the normal quantile, JSON."""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import special

GUARANTEE_ASYMPTOTIC = "asymptotic"
GUARANTEE_FINITE = "finite-sample"
RATES = ("selection_rate", "tpr", "fpr")
BANDS = ("dkw", "sup-t")
TRANSFORMS = ("none", "logit")


@functools.lru_cache(maxsize=256)
def _z(confidence_level: float) -> float:
    return float(special.ndtri(0.5 + confidence_level / 2.0))


def _show(values, k: int = 6) -> str:
    vals = [v.item() if isinstance(v, np.generic) else v for v in list(values)[:k]]
    return str(vals)


def _clean(v):
    if isinstance(v, float | np.floating):
        return None if not math.isfinite(float(v)) else float(v)
    if isinstance(v, np.integer):
        return int(v)
    if isinstance(v, np.bool_):
        return bool(v)
    return v


class _GapOfTwo:
    """What a gap between groups ``a`` and ``b`` with one interval ``[low, high]`` offers."""

    @property
    def excludes_zero(self) -> bool:
        """Whether the interval lies on one side of 0."""
        return bool(self.low > 0 or self.high < 0)

    def to_dict(self) -> dict:
        """JSON-ready fields (each group's result as its own dict)."""
        out = {k: _clean(v) for k, v in self.__dict__.items() if k not in ("a", "b")}
        out["a"] = self.a.to_dict()
        out["b"] = self.b.to_dict()
        return out
