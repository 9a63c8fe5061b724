"""Real data sets bundled with fairbound (compact copies, licences alongside).

* UCI Adult census income (CC BY 4.0): :func:`load_adult`.
"""

from __future__ import annotations

from importlib import resources

import pandas as pd

from fairbound._validate import check_choice

ADULT_COLUMNS = [
    "age", "workclass", "fnlwgt", "education", "education_num", "marital_status",
    "occupation", "relationship", "race", "sex", "capital_gain", "capital_loss",
    "hours_per_week", "native_country", "income",
]


def data_path(*parts: str):
    """Path of a bundled data file (a ``Traversable`` usable with ``open``)."""
    return resources.files("fairbound").joinpath("data", *parts)


def load_adult(split: str = "train") -> pd.DataFrame:
    """Load the UCI Adult data bundled with fairbound.

    Parameters
    ----------
    split : {'train', 'test', 'all'}
        ``adult.data`` (32,561 rows), ``adult.test`` (16,281 rows) or both.

    Returns
    -------
    pandas.DataFrame
        The 15 columns of ``adult.names`` with whitespace stripped, ``?`` as missing, and
        ``income`` as 0/1 (1 for ``>50K``); a ``split`` column tells where each row came from.

    References
    ----------
    B. Becker and R. Kohavi. Adult. UCI Machine Learning Repository, 1996.
    https://doi.org/10.24432/C5XW20 (CC BY 4.0).

    Examples
    --------
    >>> df = load_adult("train")
    >>> len(df), df["sex"].value_counts().to_dict()
    (32561, {'Male': 21790, 'Female': 10771})
    """
    check_choice(split, ("train", "test", "all"), "split")
    parts = []
    for name, file, skip in (("train", "adult.data.gz", 0), ("test", "adult.test.gz", 1)):
        if split not in (name, "all"):
            continue
        with data_path("adult", file).open("rb") as fh:
            df = pd.read_csv(fh, compression="gzip", header=None, names=ADULT_COLUMNS,
                             skiprows=skip, skipinitialspace=True, na_values="?")
        df = df.dropna(subset=["income"])
        df["income"] = df["income"].str.rstrip(".").eq(">50K").astype(int)
        df["split"] = name
        parts.append(df)
    return pd.concat(parts, ignore_index=True)


__all__ = ["ADULT_COLUMNS", "data_path", "load_adult"]
