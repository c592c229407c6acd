"""The pivot's edge: untrusted data validated into the model by pydantic, and its JSON Schema.

The records themselves are dataclasses without field validation (readers build 10⁵ of
them); these tests show that validation is still there where data enters from outside.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import corefio
from corefio.errors import ModelError
from corefio.model import Document, Link, Markable, Tokens
from corefio.model.schema import json_schema, to_jsonable, validate_corpus, validate_document

SAMPLES = Path(__file__).resolve().parent.parent / "samples"


def test_lists_from_json_become_the_tuples_readers_build():
    doc = validate_document({"name": "d", "tokens": {"forms": ["a", "b"]},
                             "markables": [{"id": "m1", "spans": [[0, 1]], "head": [[1, 1]]}],
                             "links": []})
    assert doc.markables[0] == Markable(id="m1", spans=((0, 1),), head=((1, 1),))


@pytest.mark.parametrize("data, where", [
    ({"name": "d", "markables": [{"id": 7, "spans": [[0, 0]]}], "tokens": {"forms": ["a"]}}, "markables.0.id"),
    ({"name": "d", "tokens": {"forms": "abc"}}, "tokens.forms"),
    ({"name": "d", "links": [{"id": "l", "source": "m", "targets": "x", "kind": 1}]}, "links.0"),
    ({"name": ["d"]}, "name"),
])
def test_wrong_types_are_refused_with_their_place(data, where):
    with pytest.raises(ModelError) as info:
        validate_document(data)
    assert where in str(info.value)


def test_invariants_are_checked_after_the_types():
    with pytest.raises(ModelError, match="outside the 1 tokens"):
        validate_document({"name": "d", "tokens": {"forms": ["a"]}, "markables": [{"id": "m", "spans": [[0, 3]]}]})


def test_a_read_document_survives_json_and_validation():
    corpus = corefio.read(SAMPLES / "key.raf.xml")
    doc = corpus.documents[0]
    data = json.loads(json.dumps(to_jsonable(doc, exclude={"layout"})))
    assert validate_document(data) == doc.copy(layout={})
    again = validate_corpus({"documents": [data]})
    assert again.documents[0] == doc.copy(layout={})


def test_json_schema_describes_the_records():
    schema = json_schema()
    names = set(schema["$defs"])
    assert {"Document", "Markable", "Link", "Tokens", "Sentence", "Entity"} <= names
    markable = schema["$defs"]["Markable"]
    assert set(markable["required"]) == {"id", "spans"}


def test_records_are_plain_dataclasses_without_pydantic_internals():
    import dataclasses

    m = Markable(id="m", spans=[(0, 0)])
    assert dataclasses.is_dataclass(m) and m.spans == ((0, 0),)
    assert not hasattr(m, "__dict__") and not hasattr(m, "__pydantic_fields_set__")
    link = Link(id="l", source="m", target="m")
    assert link.targets == ("m",)
    with pytest.raises(ValueError):
        Link(id="l", source="m", target="m", targets=("m",))
    with pytest.raises(ModelError):
        Document(name="d", tokens=Tokens(forms=["a"]), markables=[m, m])


def test_a_document_takes_its_parts_as_dicts_as_hand_written_code_gives_them():
    doc = Document(name="d", tokens={"forms": ["Kim", "left"]},
                   markables=[{"id": "m1", "spans": [[0, 0]]}, Markable(id="m2", spans=((1, 1),))],
                   links=[{"id": "l", "source": "m1", "target": "m2"}])
    assert doc.tokens == Tokens(forms=["Kim", "left"])
    assert doc.markables[0] == Markable(id="m1", spans=((0, 0),))
    assert doc.links == [Link(id="l", source="m1", targets=("m2",))]
    with pytest.raises(ModelError, match="not a markable"):
        Document(name="d", tokens={"forms": ["a"]}, markables=[{"id": "m", "spans": [[0, 0]]}],
                 links=[{"id": "l", "source": "m", "target": "x"}])
