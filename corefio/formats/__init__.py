"""Format modules. Importing this package registers every format (one import each)."""

from . import conll, conllu, jsonlines, raf  # noqa: F401
