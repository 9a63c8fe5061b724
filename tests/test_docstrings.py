"""Every Examples section in the package runs as written (doctest over every module)."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import warnings

import pytest

import fairbound

MODULES = sorted(m.name for m in pkgutil.walk_packages(fairbound.__path__, "fairbound.")
                 if not m.name.endswith("__main__"))


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples_run(name, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # examples that write files write them here
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as exc:  # an optional extra (torch, pyspark) is missing
        pytest.skip(f"{name} needs {exc.name}")
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for test in finder.find(module, name):
            if test.lineno is None or not test.filename or "site-packages" in test.filename:
                continue
            runner.run(test, clear_globs=True)
    result = runner.summarize(verbose=False)
    assert result.failed == 0
