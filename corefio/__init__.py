"""corefio: convert, validate and score coreference annotations through one pivot model.

>>> import corefio
>>> corpus = corefio.read("samples/key.raf.xml")            # any registered format
>>> report = corefio.write(corpus, "key.conll")              # losses land in the report
>>> scores = corefio.score(corpus, corefio.read("samples/response.raf.xml"))
"""

from typing import TYPE_CHECKING

from .diagnostics import Diagnostic, Report
from .errors import (
    CorefioError,
    DocumentMismatchError,
    FormatError,
    LossError,
    ModelError,
    OutputError,
    StrictModeError,
    UnknownFormatError,
    UsageError,
    UnsafeInputError,
)

if TYPE_CHECKING:  # what __getattr__ below imports on first use (and what type checkers and the docs see)
    from .api import convert, dump_files, dumps, iter_read, loads, read, sync, validate, write
    from .formats.registry import Capabilities, FormatSpec, Option, all_formats, get_format, register
    from .io.source import Source
    from .model import Corpus, Document, Entity, Link, Markable, Region, Scheme, Sentence, Tokens
    from .model.mentions import BRIDGING, COREFERENCE, SPLIT_ANTECEDENT, MentionChains

__version__ = "0.1.0"

from . import _moved

_moved.install()  # corefio.registry and corefio.xmlsafe, as the README once named them

__all__ = [
    "BRIDGING", "COREFERENCE", "SPLIT_ANTECEDENT", "Capabilities", "Corpus", "CorefioError",
    "Diagnostic", "Document", "DocumentMismatchError", "Entity", "FormatError", "FormatSpec", "Option",
    "Link", "LossError", "Markable", "Region", "Scheme", "Source", "MentionChains", "ModelError", "OutputError", "Report", "Sentence",
    "StrictModeError", "Tokens", "UnknownFormatError", "UnsafeInputError", "UsageError", "all_formats",
    "convert", "dump_files", "dumps", "iter_read", "loads", "get_format", "read", "register", "sync", "validate", "write", "score",
    "score_cross", "score_styles",
]


#: the rest of the API, imported when first asked for (``corefio.read``, ``corefio.Document``):
#: ``import corefio.cli`` (every command's start, ``--version`` alone) then loads neither the
#: readers and writers nor the model, only what the command it runs asks for
_LAZY = {
    **dict.fromkeys(("convert", "dump_files", "dumps", "iter_read", "loads", "read", "sync", "validate", "write"),
                    "api"),
    **dict.fromkeys(("BRIDGING", "COREFERENCE", "SPLIT_ANTECEDENT", "MentionChains"), "model.mentions"),
    **dict.fromkeys(("Capabilities", "FormatSpec", "Option", "all_formats", "get_format", "register"),
                    "formats.registry"),
    "Source": "io.source",
    **dict.fromkeys(("Corpus", "Document", "Entity", "Link", "Markable", "Region", "Scheme", "Sentence", "Tokens"),
                    "model"),
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'corefio' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value  # later look-ups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def score(key, response, *args, **options):
    """Score ``response`` against ``key`` (corpora, documents or paths); see :mod:`corefio.scoring`."""
    from .scoring import score as _score

    return _score(key, response, *args, **options)


def score_cross(key, response, *args, **options):
    """Score ``response`` against ``key`` across documents (the corpus, each topic or
    subtopic as one unit); see :mod:`corefio.scoring.crossdoc`."""
    from .scoring.crossdoc import score_cross as _score_cross

    return _score_cross(key, response, *args, **options)


def score_styles(key, response, *args, **options):
    """Score in the published CDCR evaluation styles side by side; see :mod:`corefio.scoring.crossdoc`."""
    from .scoring.crossdoc import score_styles as _score_styles

    return _score_styles(key, response, *args, **options)
