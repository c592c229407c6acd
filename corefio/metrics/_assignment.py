"""scipy's linear assignment solver, loaded cheaply.

:func:`linear_sum_assignment` is ``scipy.optimize.linear_sum_assignment``. Importing
``scipy.optimize`` loads all of SciPy's optimisers (0.3 s and 50 MB here: more than
scoring a 270,000-token corpus), so the solver's compiled module is loaded on its own
when that works, and through ``scipy.optimize`` otherwise.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from pathlib import Path

_solver = None


def _load():
    name = "scipy.optimize._lsap"
    module = sys.modules.get(name)
    if module is None:
        import scipy

        path = next((Path(scipy.__file__).parent / "optimize").glob("_lsap.*"))
        loader = importlib.machinery.ExtensionFileLoader(name, str(path))
        spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
        module = importlib.util.module_from_spec(spec)
        loader.exec_module(module)
        sys.modules[name] = module
    return module.linear_sum_assignment


def linear_sum_assignment(matrix, maximize: bool = False):
    """Rows and columns of an optimal assignment (scipy.optimize.linear_sum_assignment)."""
    global _solver
    if _solver is None:
        try:
            _solver = _load()
        except Exception:  # pragma: no cover - another SciPy layout
            from scipy.optimize import linear_sum_assignment as solver

            _solver = solver
    return _solver(matrix, maximize=maximize)
