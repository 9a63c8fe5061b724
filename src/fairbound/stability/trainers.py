"""Trainers: fit a model on one training sample and predict the test set.

A trainer is any object with a ``name`` and a method
``fit_predict(train, y_train, test, *, seed) -> predictions`` (see :class:`Trainer`).  It
must be picklable, because study runs execute in worker processes.  Built in:

* :class:`TfidfLogisticTrainer` - TF-IDF features and logistic regression for text;
* :class:`TabularTrainer` - one-hot / standardised columns and logistic regression;
* :class:`SklearnTrainer` - any scikit-learn estimator or pipeline (cloned per run);
* :class:`TransformersTrainer` - fine-tunes a local Hugging Face model with the
  hyper-parameters of Jourdan et al. (2023): 5 epochs, batch 16, AdamW, learning rate
  2e-5, cross-entropy; on the GPU when there is one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np
import pandas as pd

from fairbound._validate import check_choice, check_int
from fairbound.errors import FairboundError, require


@runtime_checkable
class Trainer(Protocol):
    """What a study needs from a model: fit on a sample, predict the test rows."""

    name: str

    def fit_predict(
        self, train: pd.DataFrame, y_train: np.ndarray, test: pd.DataFrame, *, seed: int
    ) -> np.ndarray:
        """Fit on ``train``/``y_train`` and return predicted labels for ``test``."""
        ...


def _column(df: pd.DataFrame, col: str, param: str) -> pd.Series:
    if col not in df.columns:
        raise FairboundError(f"{param}: no column {col!r}; columns are {list(df.columns)[:20]}",
                             param=param)
    return df[col]


@dataclass(frozen=True)
class TfidfLogisticTrainer:
    """TF-IDF features and a logistic regression on one text column.

    Parameters
    ----------
    text_column : str
        Column holding the text.
    ngram_range : (int, int)
        Word n-grams for :class:`sklearn.feature_extraction.text.TfidfVectorizer`.
    min_df : int
        Ignore terms seen in fewer training documents.
    max_features : int, optional
        Keep the most frequent terms only.
    C : float
        Inverse regularisation strength of
        :class:`sklearn.linear_model.LogisticRegression`.
    class_weight : {'balanced'} or None
        Class weights of the regression.

    Examples
    --------
    >>> tr = TfidfLogisticTrainer("text")
    >>> train = pd.DataFrame({"text": ["good day", "bad day", "good", "bad"] * 5})
    >>> y = np.array(["pos", "neg", "pos", "neg"] * 5)
    >>> tr.fit_predict(train, y, pd.DataFrame({"text": ["good", "bad"]}), seed=0).tolist()
    ['pos', 'neg']
    """

    text_column: str = "text"
    ngram_range: tuple[int, int] = (1, 2)
    min_df: int = 2
    max_features: int | None = 50_000
    C: float = 4.0
    class_weight: str | None = None
    name: str = field(default="tfidf-lr", init=False)

    def pipeline(self, seed: int = 0):
        """Return the unfitted scikit-learn pipeline."""
        from sklearn.feature_extraction.text import TfidfVectorizer
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline

        return make_pipeline(
            TfidfVectorizer(ngram_range=self.ngram_range, min_df=self.min_df,
                            max_features=self.max_features, sublinear_tf=True),
            LogisticRegression(C=self.C, max_iter=1000, class_weight=self.class_weight,
                               random_state=seed),
        )

    def fit_predict(self, train, y_train, test, *, seed: int) -> np.ndarray:
        """Fit the pipeline on the training texts and predict the test texts."""
        x_tr = _column(train, self.text_column, "text_column").astype(str)
        x_te = _column(test, self.text_column, "text_column").astype(str)
        model = self.pipeline(seed).fit(x_tr, np.asarray(y_train))
        return model.predict(x_te)


@dataclass(frozen=True)
class TabularTrainer:
    """Logistic regression on table columns (one-hot categories, standardised numbers).

    Parameters
    ----------
    columns : sequence of str, optional
        Feature columns; by default every column of the training frame.  Leave the
        protected attribute out to train "blind" (it still drives the audit).
    C : float
        Inverse regularisation strength.

    Examples
    --------
    >>> df = pd.DataFrame({"x": [0.0, 1.0] * 20, "c": ["u", "v"] * 20})
    >>> y = np.array([0, 1] * 20)
    >>> TabularTrainer().fit_predict(df, y, df.head(2), seed=0).tolist()
    [0, 1]
    """

    columns: tuple[str, ...] | None = None
    C: float = 1.0
    name: str = field(default="tabular-lr", init=False)

    def pipeline(self, frame: pd.DataFrame, seed: int = 0):
        """Return the unfitted pipeline for the columns of ``frame``."""
        from sklearn.compose import ColumnTransformer
        from sklearn.impute import SimpleImputer
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import OneHotEncoder, StandardScaler

        cols = list(self.columns) if self.columns is not None else list(frame.columns)
        num = [c for c in cols if pd.api.types.is_numeric_dtype(frame[c])
               and not pd.api.types.is_bool_dtype(frame[c])]
        cat = [c for c in cols if c not in num]
        pre = ColumnTransformer([
            ("num", make_pipeline(SimpleImputer(), StandardScaler()), num),
            ("cat", make_pipeline(SimpleImputer(strategy="most_frequent"),
                                  OneHotEncoder(handle_unknown="ignore")), cat),
        ])
        return make_pipeline(pre, LogisticRegression(C=self.C, max_iter=2000,
                                                     random_state=seed))

    def fit_predict(self, train, y_train, test, *, seed: int) -> np.ndarray:
        """Fit on the training rows and predict the test rows."""
        if self.columns is not None:
            for c in self.columns:
                _column(train, c, "columns")
        model = self.pipeline(train, seed).fit(train, np.asarray(y_train))
        return model.predict(test)


@dataclass(frozen=True)
class SklearnTrainer:
    """Any scikit-learn estimator or pipeline, cloned for each run.

    Parameters
    ----------
    estimator : sklearn estimator
        Fitted on the training frame restricted to ``columns`` (or all of it); when it has a
        ``random_state`` parameter it is set to the run's seed.
    columns : sequence of str or str, optional
        Columns passed to the estimator; a single string passes a 1-d column (text).
    name : str
        Name recorded in the study.

    Examples
    --------
    >>> from sklearn.dummy import DummyClassifier
    >>> tr = SklearnTrainer(DummyClassifier(strategy="most_frequent"), name="majority")
    >>> df = pd.DataFrame({"x": range(5)})
    >>> tr.fit_predict(df, np.array([1, 1, 0, 1, 0]), df, seed=0).tolist()
    [1, 1, 1, 1, 1]
    """

    estimator: Any
    columns: tuple[str, ...] | str | None = None
    name: str = "sklearn"

    def fit_predict(self, train, y_train, test, *, seed: int) -> np.ndarray:
        """Clone the estimator, fit it on the training rows and predict the test rows."""
        from sklearn.base import clone

        model = clone(self.estimator)
        if "random_state" in model.get_params():
            model.set_params(random_state=seed)
        cols = self.columns
        if isinstance(cols, str):
            x_tr, x_te = _column(train, cols, "columns"), test[cols]
        elif cols is not None:
            x_tr, x_te = train[list(cols)], test[list(cols)]
        else:
            x_tr, x_te = train, test
        return model.fit(x_tr, np.asarray(y_train)).predict(x_te)


@dataclass(frozen=True)
class TransformersTrainer:
    """Fine-tune a local Hugging Face sequence classifier (Jourdan et al. 2023 settings).

    Parameters
    ----------
    model_path : str or pathlib.Path
        Folder with a model and tokenizer saved by ``save_pretrained`` (e.g. a DistilBERT
        download).  Nothing is fetched from the network.
    text_column : str
        Column holding the text.
    epochs : int
        Training epochs (paper: 5).
    batch_size : int
        Mini-batch size (paper: 16).
    learning_rate : float
        AdamW learning rate (paper: 2e-5).
    max_length : int
        Tokens kept per text.
    device : str, optional
        ``"cuda"``, ``"cpu"``, ...; by default the GPU when there is one.

    Notes
    -----
    The loop is written out (AdamW on the model's parameters, cross-entropy on the logits,
    shuffled mini-batches seeded by the run) rather than using ``transformers.Trainer``,
    which would pull in ``accelerate`` and write checkpoints.  Needs ``torch`` and
    ``transformers`` (``pip install "fairbound[nlp]"``).

    References
    ----------
    .. [1] Jourdan, Risser, Loubes & Asher, TrustNLP workshop at ACL 2023, sec. 4.

    Examples
    --------
    >>> tr = TransformersTrainer("models/distilbert-base-uncased")  # doctest: +SKIP
    >>> run_study(bios, label="profession", group="gender", trainer=tr,
    ...           sizes=[10_000], n_repeats=50, store="bios-study")  # doctest: +SKIP
    """

    model_path: str | Path
    text_column: str = "text"
    epochs: int = 5
    batch_size: int = 16
    learning_rate: float = 2e-5
    max_length: int = 128
    device: str | None = None
    name: str = field(default="transformers", init=False)

    def __post_init__(self) -> None:
        if not Path(self.model_path).is_dir():
            raise FairboundError(
                f"model_path must be a local folder saved with save_pretrained; got "
                f"{str(self.model_path)!r}", param="model_path")
        for p in ("epochs", "batch_size", "max_length"):
            check_int(getattr(self, p), p, low=1)
        if not (isinstance(self.learning_rate, float | int) and self.learning_rate > 0):
            raise FairboundError(f"learning_rate must be positive; got {self.learning_rate!r}",
                                 param="learning_rate")

    def fit_predict(self, train, y_train, test, *, seed: int) -> np.ndarray:
        """Fine-tune from ``model_path`` on the training texts; predict the test texts."""
        torch = require("torch", "nlp")
        tf = require("transformers", "nlp")
        device = self.device or ("cuda" if torch.cuda.is_available() else "cpu")
        torch.manual_seed(seed)
        classes = np.unique(np.asarray(y_train))
        index = {c: i for i, c in enumerate(classes.tolist())}
        y = torch.tensor([index[v] for v in np.asarray(y_train).tolist()])
        tok = tf.AutoTokenizer.from_pretrained(str(self.model_path))
        model = tf.AutoModelForSequenceClassification.from_pretrained(
            str(self.model_path), num_labels=len(classes), ignore_mismatched_sizes=True,
        ).to(device)
        x_tr = _column(train, self.text_column, "text_column").astype(str).tolist()
        x_te = _column(test, self.text_column, "text_column").astype(str).tolist()
        opt = torch.optim.AdamW(model.parameters(), lr=self.learning_rate)
        loss_fn = torch.nn.CrossEntropyLoss()
        gen = torch.Generator().manual_seed(seed)
        model.train()
        for _ in range(self.epochs):
            perm = torch.randperm(len(x_tr), generator=gen).tolist()
            for start in range(0, len(perm), self.batch_size):
                idx = perm[start:start + self.batch_size]
                enc = tok([x_tr[i] for i in idx], padding=True, truncation=True,
                          max_length=self.max_length, return_tensors="pt").to(device)
                logits = model(**enc).logits
                loss = loss_fn(logits, y[idx].to(device))
                opt.zero_grad()
                loss.backward()
                opt.step()
        model.eval()
        preds = []
        with torch.no_grad():
            for start in range(0, len(x_te), 4 * self.batch_size):
                enc = tok(x_te[start:start + 4 * self.batch_size], padding=True,
                          truncation=True, max_length=self.max_length,
                          return_tensors="pt").to(device)
                preds.append(model(**enc).logits.argmax(-1).cpu().numpy())
        out = np.concatenate(preds) if preds else np.array([], dtype=int)
        return classes[out]


TRAINERS = ("tfidf-lr", "tabular-lr", "transformers")


def make_trainer(
    name: str,
    *,
    text_column: str | None = None,
    columns: Sequence[str] | None = None,
    model_path: str | Path | None = None,
) -> Trainer:
    """Build a built-in trainer by name (used by the command line).

    Parameters
    ----------
    name : {'tfidf-lr', 'tabular-lr', 'transformers'}
        Which trainer.
    text_column : str, optional
        Text column (text trainers).
    columns : sequence of str, optional
        Feature columns (tabular trainer).
    model_path : str, optional
        Local model folder (transformers trainer).

    Returns
    -------
    Trainer

    Examples
    --------
    >>> make_trainer("tfidf-lr", text_column="tweet").text_column
    'tweet'
    """
    key = check_choice(name, TRAINERS, "trainer", fold=True)
    if key == "tfidf-lr":
        return TfidfLogisticTrainer(text_column or "text")
    if key == "tabular-lr":
        return TabularTrainer(tuple(columns) if columns else None)
    if model_path is None:  # the transformers trainer
        raise FairboundError("model_path: the transformers trainer needs a local model "
                             "folder (--model-path)", param="model_path")
    return TransformersTrainer(model_path, text_column=text_column or "text")
