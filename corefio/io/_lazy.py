"""Import heavy modules on first use (corefio score on CoNLL never needs lxml)."""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands for a module until an attribute is asked for, then imports it."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._module: Any = None

    def __getattr__(self, attr: str) -> Any:
        if self._module is None:
            self._module = importlib.import_module(self._name)
        value = getattr(self._module, attr)
        self.__dict__[attr] = value  # later look-ups are plain attribute reads
        return value
