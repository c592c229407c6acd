"""The pivot model: invariants with clear messages, derived chains, helpers."""

from __future__ import annotations

import pytest

from corefio.errors import ModelError
from corefio.model import (
    Corpus,
    Document,
    Entity,
    Link,
    Markable,
    Region,
    Sentence,
    Tokens,
    contiguous_spans,
)

FORMS = ["John", "said", "he", "saw", "Mary", "and", "her", "dog", "."]


def doc(**kw) -> Document:
    base = dict(name="d", tokens=Tokens(forms=FORMS))
    base.update(kw)
    return Document(**base)


def problems_of(**kw) -> list[str]:
    with pytest.raises(ModelError) as info:
        doc(**kw)
    return info.value.problems


# -- invariants -----------------------------------------------------------------------------
def test_valid_document_builds():
    d = doc(markables=[Markable(id="m1", spans=((0, 0),)), Markable(id="m2", spans=((2, 2),))],
            links=[Link(id="l1", source="m2", target="m1")])
    assert len(d.markables) == 2


def test_duplicate_markable_ids_are_named():
    p = problems_of(markables=[Markable(id="m1", spans=((0, 0),)), Markable(id="m1", spans=((2, 2),))])
    assert any("duplicate markable ids: m1" in x for x in p)


def test_span_outside_text():
    p = problems_of(markables=[Markable(id="m1", spans=((5, 9),))])
    assert p == ["markable m1 span 5..9 is outside the 9 tokens"]


def test_empty_target():
    p = problems_of(markables=[Markable(id="m1", spans=())])
    assert p == ["markable m1 has an empty target"]


def test_spans_must_be_ordered_with_gaps():
    p = problems_of(markables=[Markable(id="m1", spans=((3, 4), (5, 6)))])
    assert "gap" in p[0]
    p = problems_of(markables=[Markable(id="m1", spans=((4, 5), (1, 2)))])
    assert "text order" in p[0]


def test_link_to_missing_markable_and_entity():
    p = problems_of(markables=[Markable(id="m1", spans=((0, 0),))],
                    links=[Link(id="l1", source="m1", target="nope"),
                           Link(id="l2", source="ghost", target="m1"),
                           Link(id="l3", source="m1", target="E", target_kind="entity")])
    assert "link l1 target 'nope' is not a markable" in p
    assert "link l2 source 'ghost' is not a markable" in p
    assert "link l3 target 'E' is not an entity" in p


def test_entities_need_no_declaration_but_link_targets_must_exist():
    d = doc(markables=[Markable(id="m1", spans=((0, 0),), entity="E1")],
            links=[Link(id="l", type="bridging", source="m1", target="E1", target_kind="entity")])
    assert d.entity_ids() == ["E1"]
    p = problems_of(markables=[Markable(id="m1", spans=((0, 0),), entity="E1")],
                    links=[Link(id="l", type="bridging", source="m1", target="E2", target_kind="entity")])
    assert p == ["link l target 'E2' is not an entity"]


def test_token_columns_must_match_length():
    p = problems_of(tokens=Tokens(forms=FORMS, attributes={"pos": ["NN"]}))
    assert p == ["token attribute 'pos' has 1 values for 9 tokens"]
    p = problems_of(tokens=Tokens(forms=FORMS, ids=["a"] * 9))
    assert p[0].startswith("duplicate token ids: a")


def test_sentences_must_cover_tokens():
    p = problems_of(sentences=[Sentence(first=0, last=3), Sentence(first=5, last=8)])
    assert "where 4 was expected" in p[0]
    p = problems_of(sentences=[Sentence(first=0, last=3)])
    assert p == ["sentences cover 4 of 9 tokens"]


def test_all_problems_are_reported_not_only_the_first():
    p = problems_of(markables=[Markable(id="m1", spans=((50, 50),)), Markable(id="m2", spans=((0, 0), (0, 0)))],
                    links=[Link(id="l1", source="m1", target="zz")])
    assert len(p) == 3


def test_build_skips_element_validation_but_checks_invariants():
    good = Document.build(name="d", tokens=Tokens(forms=FORMS), markables=[Markable.fast("m1", ((0, 1),))])
    assert good.markables[0].spans == ((0, 1),)
    with pytest.raises(ModelError, match="outside"):
        Document.build(name="d", tokens=Tokens(forms=FORMS), markables=[Markable.fast("m1", ((0, 99),))])


def test_fast_markable_equals_validated_one():
    assert Markable.fast("m", ((1, 2),), "e", None, {"a": 1}) == Markable(id="m", spans=((1, 2),), entity="e", attributes={"a": 1})


def test_typed_attributes_keep_their_type():
    m = Markable(id="m", spans=((0, 0),), attributes={"b": True, "i": 3, "f": 0.5, "s": "3"})
    assert [type(v) for v in m.attributes.values()] == [bool, int, float, str]


# -- chains ---------------------------------------------------------------------------------
def test_chains_from_links_entities_and_singletons():
    d = doc(
        entities=[Entity(id="E1"), Entity(id="E2")],
        markables=[
            Markable(id="john", spans=((0, 0),), entity="E1"),
            Markable(id="he", spans=((2, 2),)),
            Markable(id="mary", spans=((4, 4),), entity="E2"),
            Markable(id="her", spans=((6, 6),), entity="E2"),
            Markable(id="dog", spans=((6, 7),)),
            Markable(id="lonely", spans=((8, 8),)),
        ],
        links=[
            Link(id="l1", source="he", target="john"),
            Link(id="l2", type="bridging", source="dog", target="her"),  # never merges
        ],
    )
    chains = [[m.id for m in c] for c in d.chains()]
    assert chains == [["john", "he"], ["mary", "her"], ["dog"], ["lonely"]]


def test_identity_link_to_entity_joins_its_members():
    d = doc(
        entities=[Entity(id="E")],
        markables=[Markable(id="a", spans=((0, 0),), entity="E"), Markable(id="b", spans=((2, 2),))],
        links=[Link(id="l", source="b", target="E", target_kind="entity")],
    )
    assert [[m.id for m in c] for c in d.chains()] == [["a", "b"]]


def test_identity_links_are_transitive():
    ms = [Markable(id=f"m{i}", spans=((i, i),)) for i in range(5)]
    links = [Link(id="a", source="m4", target="m2"), Link(id="b", source="m2", target="m0"),
             Link(id="c", type="identity", source="m3", target="m1")]
    chains = doc(markables=ms, links=links).chain_indices()
    assert chains == [[0, 2, 4], [1, 3]]


# -- helpers --------------------------------------------------------------------------------
def test_span_text_uses_whitespace_when_known():
    d = doc(tokens=Tokens(forms=["New", "York", "!"], whitespace=[" ", "", "\n"]))
    assert d.span_text((0, 2)) == "New York!"
    assert doc().span_text((0, 1)) == "John said"


def test_token_ids_default_and_explicit():
    assert Tokens(forms=["a", "b"]).all_ids() == ["word_1", "word_2"]
    assert Tokens(forms=["a"], ids=["w7"]).token_id(0) == "w7"


def test_contiguous_spans():
    assert contiguous_spans([5, 1, 2, 3, 7, 8]) == ((1, 3), (5, 5), (7, 8))


def test_corpus_find_and_iterate():
    c = Corpus(documents=[doc(name="a"), doc(name="b", part="001")])
    assert [d.name for d in c] == ["a", "b"]
    assert c.find("b").part == "001" and c.find("zz") is None


# -- pivot v2: layers, sets, MIN, optional flag, multi-target links, source text --------------
def test_ids_are_unique_per_layer_and_links_name_markables_by_ref():
    d = doc(markables=[Markable(id="m1", spans=((0, 0),)),
                       Markable(id="m1", spans=((0, 2),), layer="sentence"),
                       Markable(id="m2", spans=((2, 2),))],
            links=[Link(id="l1", type="bridging", source="m2", target="sentence:m1")])
    assert [m.ref for m in d.markables] == ["m1", "sentence:m1", "m2"]
    p = problems_of(markables=[Markable(id="m1", spans=((0, 0),), layer="a"),
                               Markable(id="m1", spans=((1, 1),), layer="a")])
    assert p == ["duplicate markable ids: a:m1"]
    p = problems_of(markables=[Markable(id="m1", spans=((0, 0),), layer="a")],
                    links=[Link(id="l", source="m1", target="m1")])
    assert "link l source 'm1' is not a markable" in p


def test_structural_layers_stay_out_of_chains_unless_they_corefer():
    d = doc(markables=[Markable(id="s1", spans=((0, 8),), layer="sentence"),
                       Markable(id="m1", spans=((0, 0),)),
                       Markable(id="x", spans=((2, 2),), layer="secmark")],
            links=[Link(id="l", source="secmark:x", target="m1")])
    assert [[m.ref for m in c] for c in d.chains()] == [["m1", "secmark:x"]]


def test_a_link_with_several_targets_stays_one_link_and_joins_all_of_them():
    d = doc(markables=[Markable(id=f"m{k}", spans=((k, k),)) for k in range(4)],
            links=[Link(id="l", source="m3", targets=("m0", "m1"))])
    assert d.links[0].targets == ("m0", "m1") and d.links[0].target == "m0"
    assert [[m.id for m in c] for c in d.chains()] == [["m0", "m1", "m3"], ["m2"]]
    p = problems_of(markables=[Markable(id="m0", spans=((0, 0),))],
                    links=[Link(id="l", source="m0", targets=("m0", "zz"))])
    assert p == ["link l target 'zz' is not a markable"]


def test_min_and_optional_are_first_class_and_checked():
    m = Markable(id="m", spans=((0, 3),), min=((1, 1), (3, 3)), optional=True)
    d = doc(markables=[m])
    view = d.mention_view()
    assert view.mentions[0][0].min == ((1, 1), (3, 3)) and view.mentions[0][0].optional
    p = problems_of(markables=[Markable(id="m", spans=((0, 0),), min=((20, 21),))])
    assert p == ["markable m MIN 20..21 is outside the 9 tokens"]


def test_source_text_offsets_and_regions():
    text = "<p>John said</p>"
    d = Document(name="d", text=text, tokens=Tokens(forms=["John", "said"], offsets=[(3, 7), (8, 12)]),
                 regions=[Region(type="p", start=0, end=len(text))])
    assert d.span_text((0, 1)) == "John said"
    with pytest.raises(ModelError) as info:
        Document(name="d", text="ab", tokens=Tokens(forms=["ab"], offsets=[(0, 5)]))
    assert "invalid offsets" in str(info.value)
    with pytest.raises(ModelError) as info:
        Document(name="d", regions=[Region(type="p", start=0, end=1)])
    assert "regions need the source text" in str(info.value)


def test_documents_are_frozen():
    d = doc()
    from dataclasses import FrozenInstanceError

    with pytest.raises(FrozenInstanceError):
        d.name = "other"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        Markable(id="m", spans=((0, 0),)).spans = ((1, 1),)  # type: ignore[misc]


# -- the edit API ---------------------------------------------------------------------------
def test_removing_a_markable_removes_or_trims_the_links_that_named_it():
    from corefio.diagnostics import Report

    d = doc(markables=[Markable(id=f"m{k}", spans=((k, k),)) for k in range(4)],
            links=[Link(id="l1", source="m3", targets=("m0", "m1")), Link(id="l2", source="m2", target="m1")])
    editor = d.edit()
    assert editor.remove_markables({"m1"}) == 1
    report = Report()
    new = editor.commit(report)
    assert [(link.id, link.targets) for link in new.links] == [("l1", ("m0",))]
    assert report.codes() >= {"edit.link-removed", "edit.link-target-removed"}
    assert len(d.markables) == 4  # the original is untouched


def test_renumbering_follows_links_and_drops_layout_that_depends_on_markables():
    from corefio.diagnostics import Report
    from corefio.model import GenericLayout

    class TokensOnly(GenericLayout):
        depends_on = frozenset({"tokens"})

    d = doc(markables=[Markable(id="a", spans=((0, 0),)), Markable(id="b", spans=((2, 2),))],
            links=[Link(id="l", source="b", target="a")],
            layout={"x": GenericLayout(owner="x"), "y": TokensOnly(owner="y")})
    editor = d.edit()
    mapping = editor.renumber_markables(lambda m, k: f"markable_{k + 1}")
    report = Report()
    new = editor.commit(report)
    assert mapping == {"a": "markable_1", "b": "markable_2"}
    assert (new.links[0].source, new.links[0].targets) == ("markable_2", ("markable_1",))
    assert set(new.layout) == {"y"}
    assert [d.code for d in report] == ["layout.dropped"]


def test_an_edit_that_breaks_an_invariant_is_refused():
    editor = doc().edit()
    editor.add_markable(Markable(id="m", spans=((40, 41),)))
    with pytest.raises(ModelError):
        editor.commit()


def test_scheme_values_compare_case_insensitively():
    from corefio.model import Scheme, SchemeAttribute, SchemeValue

    scheme = Scheme(layer="primmark", attributes=[
        SchemeAttribute(name="Anaphor_antecedent", type="markable_pointer", identity=True),
        SchemeAttribute(name="np_form", type="nominal_list", values=[SchemeValue(name="NE"), SchemeValue(name="PPER")])])
    assert scheme.attribute("anaphor_antecedent").identity
    assert scheme.attribute("NP_FORM").allows("pper") and not scheme.attribute("np_form").allows("defnp")
    assert [a.name for a in scheme.identity_attributes()] == ["Anaphor_antecedent"]
    assert Corpus(schemes=[scheme]).scheme("primmark") is scheme
