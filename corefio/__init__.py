"""corefio: convert, validate and score coreference annotations through one pivot model.

>>> import corefio
>>> corpus = corefio.read("samples/key.raf.xml")            # any registered format
>>> report = corefio.write(corpus, "key.conll")              # losses land in the report
>>> scores = corefio.score(corpus, corefio.read("samples/response.raf.xml"))
"""

from .api import convert, dump_files, dumps, iter_read, loads, read, sync, validate, write
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
from .model.mentions import BRIDGING, COREFERENCE, SPLIT_ANTECEDENT, MentionChains
from .formats.registry import Capabilities, FormatSpec, Option, all_formats, get_format, register
from .io.source import Source

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


#: the model classes, imported when first asked for (``corefio.Document``):
#: commands that never build a Document (scoring CoNLL files) start faster
_MODEL_NAMES = {"Corpus", "Document", "Entity", "Link", "Markable", "Region", "Scheme", "Sentence", "Tokens"}


def __getattr__(name: str):
    if name in _MODEL_NAMES:
        from . import model

        return getattr(model, name)
    raise AttributeError(f"module 'corefio' has no attribute {name!r}")


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
