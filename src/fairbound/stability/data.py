"""Data sets for stability studies: the bundled dialect-annotated tweets and Bias in Bios.

The tweets (Davidson et al. 2017, with the TwitterAAE dialect proportions of Blodgett et al.
2016) ship with fairbound under the MIT licence.  Bias in Bios (De-Arteaga et al. 2019) does
not: :func:`load_bios` reads the published files (the Hugging Face ``LabHC/bias_in_bios``
Parquet or JSON lines, or a CSV with the same columns) from a local path.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pandas as pd

from fairbound.errors import FairboundError

#: Occupation names of Bias in Bios in the order of the integer labels of the hub release
#: (alphabetical; ``accountant`` is 0, ``nurse`` 13, ``yoga_teacher`` 27).
BIOS_PROFESSIONS: tuple[str, ...] = (
    "accountant", "architect", "attorney", "chiropractor", "comedian", "composer", "dentist",
    "dietitian", "dj", "filmmaker", "interior_designer", "journalist", "model", "nurse",
    "painter", "paralegal", "pastor", "personal_trainer", "photographer", "physician", "poet",
    "professor", "psychologist", "rapper", "software_engineer", "surgeon", "teacher",
    "yoga_teacher",
)

_TWEET_CLASSES = {0: "hate", 1: "offensive", 2: "neither"}

#: File suffixes :func:`read_frame` reads.
FRAME_SUFFIXES = (".csv", ".parquet", ".jsonl", ".json")


def read_frame(path: str | Path, *, param: str = "data") -> pd.DataFrame:
    r"""Read a CSV, Parquet or JSON(-lines) file whole, with one-line errors.

    A folder, an empty file, an unknown suffix, a ragged or half-written CSV line and a
    file that does not parse are each a :class:`~fairbound.errors.FairboundError` naming
    ``param`` and the file (for a CSV, the first bad line and its number of fields).

    Parameters
    ----------
    path : str or pathlib.Path
        A ``.csv``, ``.parquet``, ``.jsonl`` or ``.json`` file.
    param : str
        The parameter named in errors.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> import pathlib, tempfile
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "x.csv"
    >>> _ = f.write_text("text,label\nhi,1\nhello,0,7\n")
    >>> read_frame(f)
    Traceback (most recent call last):
    ...
    fairbound.errors.FairboundError: data: line 3 of .../x.csv has 3 fields, the header has 2
    """
    from fairbound.engines.duckdb_engine import find_ragged_line

    p = Path(path)
    shown = str(path)
    if not p.exists():
        raise FairboundError(f"{param}: no such file {shown!r}", param=param)
    if p.is_dir():
        raise FairboundError(f"{param}: {shown!r} is a folder, not a file", param=param)
    suffix = p.suffix.lower()
    if suffix not in FRAME_SUFFIXES:
        raise FairboundError(f"{param}: {shown!r} must be a .csv, .parquet, .jsonl or .json "
                             "file", param=param)
    if p.stat().st_size == 0:
        raise FairboundError(f"{param}: file is empty: {shown!r}", param=param)
    if suffix == ".csv":
        problem = find_ragged_line(str(p), separator=",", max_lines=None, shown=shown,
                                   param=param)
        if problem is not None:
            raise FairboundError(problem, param=param)
    kind = {".csv": "CSV", ".parquet": "Parquet", ".jsonl": "JSON lines"}.get(suffix, "JSON")
    try:
        if suffix == ".csv":
            from fairbound._io import unescape_frame

            # fairbound's own CSVs (stability debias) escape formula-like text
            return unescape_frame(pd.read_csv(p))
        if suffix == ".parquet":
            return pd.read_parquet(p)
        return pd.read_json(p, lines=suffix == ".jsonl")
    except (FairboundError, ImportError):
        raise
    except Exception as exc:  # pandas, pyarrow and json raise many kinds
        lines = [t for t in str(exc).splitlines() if t.strip()]
        detail = " ".join(lines[0].split()) if lines else type(exc).__name__
        raise FairboundError(f"{param}: cannot read {shown!r} as {kind}: {detail}",
                             param=param) from None


def load_tweets(*, binary: bool = True, dropna: bool = True) -> pd.DataFrame:
    """Load the bundled dialect-annotated tweets.

    Parameters
    ----------
    binary : bool
        ``True``: ``label`` is ``"abusive"`` (hate speech or offensive) or ``"neither"``;
        ``False``: ``"hate"``, ``"offensive"`` or ``"neither"``.
    dropna : bool
        Drop the 4 tweets whose dialect could not be inferred.

    Returns
    -------
    pandas.DataFrame
        One row per tweet: ``text``, ``label``, ``dialect`` (``"aa"``, ``"white"``,
        ``"hispanic"``, ``"asian"``: the most probable dialect), ``p_aa``, ``p_hispanic``,
        ``p_asian``, ``p_white``, ``class`` (the original 0/1/2), ``count`` (annotators) and
        the crowd's votes per class, ``hate_speech``, ``offensive_language`` and ``neither``
        (see :func:`fairbound.audits.disagreement.audit.disagreement`).

    Notes
    -----
    The dialect is inferred from each tweet's words by the TwitterAAE model, not
    self-reported.  Sap et al. (2019) showed that classifiers trained on these labels flag
    African-American English tweets as abusive more often.  The tweets contain slurs.

    References
    ----------
    .. [1] Davidson, Warmsley, Macy & Weber, "Automated Hate Speech Detection and the
       Problem of Offensive Language", ICWSM 2017.
    .. [2] Blodgett, Green & O'Connor, "Demographic Dialectal Variation in Social Media",
       EMNLP 2016.

    Examples
    --------
    >>> tweets = load_tweets()
    >>> len(tweets), sorted(tweets["label"].unique())
    (24779, ['abusive', 'neither'])
    >>> tweets["dialect"].value_counts().to_dict()
    {'aa': 12653, 'white': 6825, 'hispanic': 3747, 'asian': 1554}
    """
    path = resources.files("fairbound").joinpath("data/hate_speech_dialect/tweets.parquet")
    with resources.as_file(path) as p:
        raw = pd.read_parquet(p)
    df = pd.DataFrame({
        "text": raw["tweet"].astype(str),
        "label": raw["class"].map(
            (lambda c: "neither" if c == 2 else "abusive") if binary else _TWEET_CLASSES
        ),
        "dialect": raw["dialect_argmax"],
        "p_aa": raw["p_aa"], "p_hispanic": raw["p_hispanic"], "p_asian": raw["p_asian"],
        "p_white": raw["p_white"],
        "class": raw["class"].astype(int), "count": raw["count"].astype(int),
        "hate_speech": raw["hate_speech"].astype(int),
        "offensive_language": raw["offensive_language"].astype(int),
        "neither": raw["neither"].astype(int),
    })
    if dropna:
        df = df[df["dialect"].notna()].reset_index(drop=True)
    return df


def load_bios(path: str | Path) -> pd.DataFrame:
    """Read Bias in Bios from a local file or folder in the published format.

    Parameters
    ----------
    path : str or pathlib.Path
        A Parquet, JSON lines (``.jsonl``/``.json``) or CSV file, or a folder of such files
        (e.g. the ``train``/``dev``/``test`` Parquet files of ``LabHC/bias_in_bios``).  The
        columns are ``hard_text``, ``profession`` and ``gender``; integer codes are decoded
        (``profession`` 0-27 in :data:`BIOS_PROFESSIONS` order, ``gender`` 0 male,
        1 female), strings are kept (``"Male"``/``"Female"`` become lower case).

    Returns
    -------
    pandas.DataFrame
        ``text``, ``profession`` (str), ``gender`` (``"female"``/``"male"``) and, for a
        folder, ``split`` (the file name without suffix).

    Notes
    -----
    The full corpus (about 397k biographies) is not bundled; the paper of Jourdan et al.
    (2023) draws its stratified samples from it.

    References
    ----------
    .. [1] De-Arteaga et al., "Bias in Bios: A Case Study of Semantic Representation Bias
       in a High-Stakes Setting", FAccT 2019.

    Examples
    --------
    >>> import pandas as pd, tempfile, os
    >>> d = tempfile.mkdtemp()
    >>> pd.DataFrame({"hard_text": ["She is a nurse."], "profession": [13], "gender": [1]}
    ...              ).to_parquet(os.path.join(d, "test.parquet"))
    >>> load_bios(d)[["profession", "gender", "split"]].iloc[0].tolist()
    ['nurse', 'female', 'test']
    """
    p = Path(path)
    if not p.exists():
        raise FairboundError(f"path does not exist: {str(path)!r}", param="path")
    if p.is_dir():
        files = sorted(f for f in p.iterdir() if f.suffix in {".parquet", ".jsonl", ".json",
                                                               ".csv"} and f.is_file())
        if not files:
            raise FairboundError(
                f"path {str(path)!r} holds no .parquet, .jsonl, .json or .csv file",
                param="path",
            )
        parts = [_read_bios_file(f).assign(split=f.stem.split("-")[0]) for f in files]
        return pd.concat(parts, ignore_index=True)
    return _read_bios_file(p)


def _read_bios_file(p: Path) -> pd.DataFrame:
    if p.suffix.lower() not in FRAME_SUFFIXES:
        raise FairboundError(
            f"path must be a .parquet, .jsonl, .json or .csv file; got {str(p)!r}", param="path"
        )
    raw = read_frame(p, param="path")
    missing = [c for c in ("hard_text", "profession", "gender") if c not in raw.columns]
    if missing:
        raise FairboundError(
            f"{p.name} lacks column {missing[0]!r}; it has {list(raw.columns)}", param="path"
        )
    prof = raw["profession"]
    if pd.api.types.is_integer_dtype(prof):
        bad = prof[(prof < 0) | (prof >= len(BIOS_PROFESSIONS))]
        if len(bad):
            raise FairboundError(
                f"profession codes must be 0-27; got {int(bad.iloc[0])}", param="profession"
            )
        prof = prof.map(dict(enumerate(BIOS_PROFESSIONS)))
    gender = raw["gender"]
    if pd.api.types.is_integer_dtype(gender):
        gender = gender.map({0: "male", 1: "female"})
    else:
        gender = gender.astype(str).str.lower()
    bad = gender[~gender.isin(["male", "female"])]
    if len(bad):
        raise FairboundError(
            f"gender must be 0/1 or Male/Female; got {raw['gender'][bad.index[0]]!r}",
            param="gender",
        )
    return pd.DataFrame({
        "text": raw["hard_text"].astype(str), "profession": prof.astype(str), "gender": gender,
    })
