"""SciPy's ufuncs for large groups, loaded without the ``scipy.special`` package."""

from __future__ import annotations

import subprocess
import sys

from fairbound.stats.exact._special import ufuncs


def test_the_ufuncs_are_scipys_own():
    import scipy.special

    sp = ufuncs()
    for name in ("ndtr", "ndtri", "betaincinv"):
        assert getattr(sp, name) is getattr(scipy.special, name)


def test_a_large_table_skips_the_package_and_a_later_import_reuses_the_ufuncs():
    # a fresh process: the tail bound and the Clopper-Pearson bounds of groups above
    # 10,000 examples need scipy's ufuncs, not the package around them
    code = (
        "import sys\n"
        "from fairbound.stats.exact import exact_interval\n"
        "from fairbound.stats.exact._special import ufuncs\n"
        "lo, hi = exact_interval(30_000, 100_000, 31_000, 100_000)\n"
        "print('scipy.special' in sys.modules, 'scipy.special._ufuncs' in sys.modules)\n"
        "import scipy.special\n"
        "print(scipy.special.betaincinv is ufuncs().betaincinv, -0.015 < lo < hi < -0.005)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                         text=True).stdout.split()
    assert out == ["False", "True", "True", "True"]
