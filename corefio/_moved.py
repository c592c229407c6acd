"""Old module paths that the documentation once gave, kept working with a warning.

The README named ``corefio.registry`` (``capability_table``) and ``corefio.xmlsafe``
before the packages were cut into layers (``corefio.formats.registry``,
``corefio.io.xmlsafe``). Importing an old path gives the module at its new place and a
:class:`DeprecationWarning` naming it. Paths that were never documented are not kept.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
import warnings
from types import ModuleType

#: old documented path → where the module is now
MOVED = {
    "corefio.registry": "corefio.formats.registry",
    "corefio.xmlsafe": "corefio.io.xmlsafe",
}


class _Alias(importlib.abc.Loader):
    def __init__(self, new: str) -> None:
        self.new = new

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        warnings.warn(f"{spec.name} is now {self.new}; the old name will go", DeprecationWarning, stacklevel=2)
        return importlib.import_module(self.new)

    def exec_module(self, module: ModuleType) -> None:
        """The module is the new one, already executed."""


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname: str, path: object = None, target: object = None):
        new = MOVED.get(fullname)
        if new is None:
            return None
        return importlib.util.spec_from_loader(fullname, _Alias(new))


def install() -> None:
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.append(_Finder())
