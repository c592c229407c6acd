"""Format modules. Importing this package registers every format (one import each)."""

from . import conll, conllu, jsonlines, mate, mmax2, muc, raf  # noqa: F401
