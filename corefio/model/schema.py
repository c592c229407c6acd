"""The pivot at its edge: validating untrusted data into the model, and its JSON Schema.

The records of :mod:`corefio.model.document` are plain dataclasses and check only the
document invariants. Data that comes from outside a reader — a dict built by a user's
script, JSON from a web client — is validated field by field here, by pydantic, against
the same dataclasses (a ``TypeAdapter`` reads their annotations), and the JSON Schema of
the pivot is generated the same way.

>>> from corefio.model.schema import validate_document
>>> doc = validate_document({"name": "d", "tokens": {"forms": ["a", "b"]},
...                          "markables": [{"id": "m1", "spans": [[0, 1]]}]})
>>> doc.markables[0].spans
((0, 1),)
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter, ValidationError

from ..errors import ModelError
from .document import Corpus, Document


_ADAPTERS: dict[type, TypeAdapter] = {}


def _adapter(kind: type) -> TypeAdapter:
    """One adapter per record type (building one costs milliseconds)."""
    found = _ADAPTERS.get(kind)
    if found is None:
        found = _ADAPTERS[kind] = TypeAdapter(kind)
    return found


def _validated(kind: type, data: Any) -> Any:
    try:
        return _adapter(kind).validate_python(data)
    except ValidationError as exc:
        problems = [f"{'.'.join(str(p) for p in e['loc']) or '(top)'}: {e['msg']}" for e in exc.errors()]
        raise ModelError(problems) from None


def validate_document(data: Any) -> Document:
    """A :class:`Document` from a dict (or a document), every field checked for its type,
    then the document invariants; :class:`~corefio.errors.ModelError` lists what is wrong."""
    return _validated(Document, data)


def validate_corpus(data: Any) -> Corpus:
    """:func:`validate_document` for a whole :class:`Corpus`."""
    return _validated(Corpus, data)


def json_schema() -> dict[str, Any]:
    """The JSON Schema of the pivot (a corpus), as pydantic generates it."""
    return _adapter(Corpus).json_schema()


def to_jsonable(record: Any, exclude: set[str] | None = None) -> Any:
    """A record as JSON-ready data (dicts, lists, strings, numbers)."""
    return _adapter(type(record)).dump_python(record, mode="json", exclude=exclude)
