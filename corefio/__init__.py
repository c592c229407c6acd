"""corefio: convert, validate and score coreference annotations through one pivot model.

>>> import corefio
>>> corpus = corefio.read("samples/key.raf.xml")            # any registered format
>>> report = corefio.write(corpus, "key.conll")              # losses land in the report
>>> scores = corefio.score(corpus, corefio.read("samples/response.raf.xml"))
"""

from .api import convert, dumps, read, validate, write
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
    UnsafeInputError,
)
from .model import (
    BRIDGING,
    COREFERENCE,
    SPLIT_ANTECEDENT,
    Corpus,
    Document,
    Entity,
    Link,
    Markable,
    Sentence,
    Tokens,
)
from .registry import Capabilities, FormatSpec, all_formats, get_format, register

__version__ = "0.1.0"

__all__ = [
    "BRIDGING", "COREFERENCE", "SPLIT_ANTECEDENT", "Capabilities", "Corpus", "CorefioError",
    "Diagnostic", "Document", "DocumentMismatchError", "Entity", "FormatError", "FormatSpec",
    "Link", "LossError", "Markable", "ModelError", "OutputError", "Report", "Sentence",
    "StrictModeError", "Tokens", "UnknownFormatError", "UnsafeInputError", "all_formats",
    "convert", "dumps", "get_format", "read", "register", "validate", "write", "score",
]


def score(key, response, **options):
    """Score ``response`` against ``key`` (corpora, documents or paths); see :mod:`corefio.scoring`."""
    from .scoring import score as _score

    return _score(key, response, **options)
