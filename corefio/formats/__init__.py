"""Format modules. Importing this package registers every format (one import each)."""

from . import raf  # noqa: F401
