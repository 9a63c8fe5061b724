"""Stratified subsamples and train/test splits for stability studies.

Jourdan et al. (2023) draw each training set so that every (gender, occupation) cell keeps
its share of the full corpus.  :func:`allocate` turns shares into integer cell sizes with
the largest-remainder (Hamilton) rule, so each cell is within one example of its exact
share ``size * N_cell / N`` and the sizes add up to ``size`` exactly.  :func:`draw_split`
then draws the cells without replacement and splits each one into train and test with the
same rule, so the test set is stratified too.  Every draw is seeded by ``(seed, size,
repeat)`` only, which makes a study reproducible, resumable and extendable (adding repeats
or sizes leaves the existing draws unchanged).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from fairbound._validate import check_int, check_seed
from fairbound.errors import FairboundError


def allocate(counts: Sequence[int] | np.ndarray, size: int) -> np.ndarray:
    """Split ``size`` over cells in proportion to ``counts`` (largest remainder).

    Parameters
    ----------
    counts : sequence of int
        Number of available examples per cell.
    size : int
        Total to allocate, at most ``sum(counts)``.

    Returns
    -------
    numpy.ndarray of int
        Per-cell sizes ``m`` with ``sum(m) == size``, ``floor(q) <= m <= ceil(q)`` for the
        exact quota ``q = size * counts / sum(counts)``, and ``m <= counts``.

    Notes
    -----
    Hamilton's method: every cell gets the integer part of its quota and the remaining
    units go to the largest fractional parts (ties to the earlier cell).  No library offers
    it for this purpose (``numpy.random.Generator.multivariate_hypergeometric`` is random,
    not within one of the quota), hence the few lines here.

    Examples
    --------
    >>> allocate([388862 - 2002, 2002], 10000).tolist()
    [9949, 51]
    """
    c = np.asarray(counts, dtype=np.int64)
    total = int(c.sum())
    if size > total:
        raise FairboundError(f"size {size} exceeds the {total} available examples", param="size")
    if total == 0:
        return np.zeros_like(c)
    quota = size * c / total
    base = np.floor(quota).astype(np.int64)
    rest = size - int(base.sum())
    order = np.lexsort((np.arange(c.size), -(quota - base)))  # largest remainder first
    base[order[:rest]] += 1
    return base


@dataclass(frozen=True)
class Split:
    """One draw of a study: row positions of the training and test sets.

    Attributes
    ----------
    size : int
        Requested sample size (train + test, or train only with a fixed test set).
    repeat : int
        Repeat number, from 0.
    train, test : numpy.ndarray
        Row positions (``iloc``) into the training data and, with a fixed test set, into
        the test data.
    seed : int
        The 32-bit seed of this draw (derived from the study seed, size and repeat); the
        trainer gets it too.
    """

    size: int
    repeat: int
    train: np.ndarray
    test: np.ndarray
    seed: int


def _strata(data: pd.DataFrame, columns: Sequence[str]) -> tuple[np.ndarray, int]:
    codes = data.groupby(list(columns), sort=True, dropna=False).ngroup().to_numpy()
    return codes, int(codes.max()) + 1 if codes.size else 0


def draw_seed(seed: int, size: int, repeat: int) -> int:
    """Return the seed of one draw: a hash of ``(seed, size, repeat)`` (SeedSequence).

    Examples
    --------
    >>> draw_seed(0, 1000, 3) == draw_seed(0, 1000, 3) != draw_seed(0, 1000, 4)
    True
    """
    return int(np.random.SeedSequence([int(seed), int(size), int(repeat)]).generate_state(1)[0])


def draw_split(
    strata: np.ndarray,
    size: int,
    *,
    repeat: int = 0,
    seed: int = 0,
    test_size: float | None = 0.3,
) -> Split:
    """Draw one stratified sample and split it into train and test.

    Parameters
    ----------
    strata : numpy.ndarray of int
        Stratum code of every row (e.g. from ``(group, label)``).
    size : int
        Sample size (train + test).
    repeat, seed : int
        Identify the draw; the generator is seeded by ``(seed, size, repeat)``.
    test_size : float or None
        Share of each stratum's sample that goes to the test set (within one example), or
        ``None`` for a training sample only (fixed test set).

    Returns
    -------
    Split

    Examples
    --------
    >>> strata = np.repeat([0, 1, 2, 3], [500, 300, 150, 50])
    >>> s = draw_split(strata, 200, seed=1)
    >>> len(s.train), len(s.test), np.bincount(strata[s.train]).tolist()
    (140, 60, [70, 42, 21, 7])
    """
    strata = np.asarray(strata)
    k = int(strata.max()) + 1 if strata.size else 0
    counts = np.bincount(strata, minlength=k)
    take = allocate(counts, size)
    s = draw_seed(seed, size, repeat)
    rng = np.random.default_rng(s)
    order = np.argsort(strata, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)])
    chosen = [rng.permutation(order[starts[c]:starts[c + 1]])[: take[c]] for c in range(k)]
    if test_size is None:
        return Split(size, repeat, np.sort(np.concatenate(chosen)), np.array([], int), s)
    n_test = allocate(take, int(round(test_size * size)))
    train = np.sort(np.concatenate([ch[t:] for ch, t in zip(chosen, n_test, strict=True)]))
    test = np.sort(np.concatenate([ch[:t] for ch, t in zip(chosen, n_test, strict=True)]))
    return Split(size, repeat, train, test, s)


def stratified_splits(
    data: pd.DataFrame,
    *,
    stratify: Sequence[str],
    sizes: Sequence[int],
    n_repeats: int,
    test_size: float | None = 0.3,
    seed: int = 0,
) -> list[Split]:
    """All draws of a study: ``n_repeats`` stratified samples at each size.

    Parameters
    ----------
    data : pandas.DataFrame
        The pool to sample from.
    stratify : sequence of str
        Columns whose value combinations are the strata (e.g. ``["gender", "profession"]``).
    sizes : sequence of int
        Sample sizes (train + test unless ``test_size`` is None).
    n_repeats : int
        Draws per size.
    test_size : float or None
        Test share of each sample (the paper's 70/30 split is ``0.3``), or ``None`` when
        a fixed test set is used.
    seed : int
        Study seed.

    Returns
    -------
    list of Split
        Ordered by size, then repeat.

    Examples
    --------
    >>> df = pd.DataFrame({"g": list("aab") * 100, "y": [0, 1] * 150})
    >>> splits = stratified_splits(df, stratify=["g", "y"], sizes=[30, 60], n_repeats=2)
    >>> [(s.size, s.repeat, len(s.train), len(s.test)) for s in splits]
    [(30, 0, 21, 9), (30, 1, 21, 9), (60, 0, 42, 18), (60, 1, 42, 18)]
    """
    _check_splits(data, stratify, sizes, n_repeats, test_size, seed)
    codes, _ = _strata(data, stratify)
    return [draw_split(codes, int(n), repeat=r, seed=seed, test_size=test_size)
            for n in sizes for r in range(n_repeats)]


def _check_splits(data, stratify, sizes, n_repeats, test_size, seed) -> None:
    if not isinstance(data, pd.DataFrame):
        raise FairboundError(f"data must be a pandas DataFrame; got {type(data).__name__}",
                             param="data")
    missing = [c for c in stratify if c not in data.columns]
    if missing:
        raise FairboundError(f"stratify: no column {missing[0]!r}; columns are "
                             f"{list(data.columns)[:20]}", param="stratify")
    check_sizes(sizes, len(data))
    check_int(n_repeats, "n_repeats", low=1)
    if test_size is not None and not (isinstance(test_size, float | int)
                                      and 0 < test_size < 1):
        raise FairboundError(f"test_size must be in (0, 1) or None; got {test_size!r}",
                             param="test_size")
    check_seed(seed)


def check_sizes(sizes, available: int) -> tuple[int, ...]:
    """Validate sample sizes against the rows available; return them as a tuple of int."""
    if isinstance(sizes, int | np.integer):
        sizes = [sizes]
    try:
        out = tuple(int(s) for s in sizes)
    except (TypeError, ValueError):
        raise FairboundError(f"sizes must be positive integers; got {sizes!r}",
                             param="sizes") from None
    if not out or any(s < 2 for s in out) or any(
            float(a) != s for a, s in zip(sizes, out, strict=True)):
        raise FairboundError(f"sizes must be integers >= 2; got {list(sizes)!r}", param="sizes")
    if len(set(out)) != len(out):
        raise FairboundError(f"sizes must be distinct; got {list(out)}", param="sizes")
    too_big = [s for s in out if s > available]
    if too_big:
        raise FairboundError(f"sizes: {too_big[0]} exceeds the {available} rows available",
                             param="sizes")
    return out
