"""The assignment solver CEAF needs: SciPy's ``linear_sum_assignment``.

SciPy's public ``scipy.optimize.linear_sum_assignment`` is the function defined in the
compiled module ``scipy.optimize._lsap``. Importing it the public way runs
``scipy/optimize/__init__.py``, which loads every optimiser and ``scipy.linalg``.
Measured on the benchmark corpus (``benchmarks/bench_score.py``, 2-core machine, SciPy
1.17, CPU time of one process, best of 5, public import → compiled module alone):

* the import itself: 0.25-0.94 s and +48 MB resident → 0.05-0.07 s and +3 MB;
* ``corefio score``, default metrics: 1.70 s → 1.24 s;
* ``corefio score -m all``: 2.15 s → 1.72 s

(a loaded machine: the same runs take about half as long on an idle one). The public
import costs more than a third of scoring the whole corpus, and would break the
1-second target of ``-m all``, so the compiled module is loaded on its own, from the
file next to ``scipy/optimize/__init__.py``. Where that is not possible (another
SciPy layout, a frozen application), the public import is used; the test suite checks
that both give the same solver (``tests/test_metrics.py``).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

_MODULE = "scipy.optimize._lsap"
_solver: Callable[..., Any] | None = None


def load_compiled() -> Callable[..., Any]:
    """``linear_sum_assignment`` from SciPy's compiled module, without importing
    ``scipy.optimize`` (ImportError when the module is not where SciPy keeps it)."""
    module = sys.modules.get(_MODULE)
    if module is None:
        import scipy

        folder = Path(scipy.__file__).parent / "optimize"
        path = next((folder / f"_lsap{suffix}" for suffix in importlib.machinery.EXTENSION_SUFFIXES
                     if (folder / f"_lsap{suffix}").is_file()), None)
        if path is None:
            raise ImportError(f"no compiled {_MODULE} in {folder}")
        loader = importlib.machinery.ExtensionFileLoader(_MODULE, str(path))
        spec = importlib.util.spec_from_file_location(_MODULE, str(path), loader=loader)
        if spec is None:
            raise ImportError(f"cannot load {path}")
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        sys.modules[_MODULE] = module
    return module.linear_sum_assignment


def load_public() -> Callable[..., Any]:
    from scipy.optimize import linear_sum_assignment

    return linear_sum_assignment


def linear_sum_assignment(matrix, maximize: bool = False):
    """Rows and columns of an optimal assignment (``scipy.optimize.linear_sum_assignment``)."""
    global _solver
    if _solver is None:
        try:
            _solver = load_compiled()
        except ImportError:
            _solver = load_public()
    return _solver(matrix, maximize=maximize)
