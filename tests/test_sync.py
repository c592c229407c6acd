"""Synchronisation (Popescu-Belis et al. 2004, §2.2–2.3) and token alignment, on hand-computed examples."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from corefio.compare.alignment import AlignmentError, map_span, map_tokens
from corefio.diagnostics import Report
from corefio.errors import UsageError
from corefio.model import Document, Link, Markable, Tokens
from corefio.compare.synchronisation import STRATEGIES, reindex, synchronise

FORMS = ["John", "met", "Mary", ".", "He", "liked", "her", "."]


def doc(markables, links=()) -> Document:
    return Document(name="d", tokens=Tokens(forms=FORMS), markables=list(markables), links=list(links))


def mk(id, a, b=None, entity=None, layer=None):
    return Markable(id=id, spans=((a, a if b is None else b),), entity=entity, layer=layer)


KEY = doc([mk("k1", 0, entity="j"), mk("k2", 2, entity="m"), mk("k3", 4, entity="j"), mk("k4", 6, entity="m")])
# the response misses "her" and adds "liked her" (a markable the key lacks)
RESPONSE = doc([mk("r9", 4, entity="a"), mk("r1", 0, entity="a"), mk("r2", 2, entity="b"), mk("r5", 5, 6, entity="b")])


def targets(d: Document):
    return [(m.id, m.spans) for m in d.markables]


def chains(d: Document):
    return sorted(sorted(m.spans for m in chain) for chain in d.chains())


def test_reindexing_sorts_by_target_and_renumbers():
    d = reindex(RESPONSE)
    assert targets(d) == [("markable_1", ((0, 0),)), ("markable_2", ((2, 2),)), ("markable_3", ((4, 4),)),
                          ("markable_4", ((5, 6),))]


def test_nested_and_discontinuous_targets_sort_by_their_spans():
    d = reindex(doc([Markable(id="x", spans=((0, 2),)), Markable(id="y", spans=((0, 0), (2, 2))),
                     Markable(id="z", spans=((0, 0),))]))
    assert [m.spans for m in d.markables] == [((0, 0),), ((0, 0), (2, 2)), ((0, 2),)]


def test_the_four_strategies_on_a_hand_computed_example():
    expected_sets = {
        "key": [((0, 0),), ((2, 2),), ((4, 4),), ((6, 6),)],
        "response": [((0, 0),), ((2, 2),), ((4, 4),), ((5, 6),)],
        "intersection": [((0, 0),), ((2, 2),), ((4, 4),)],
        "union": [((0, 0),), ((2, 2),), ((4, 4),), ((5, 6),), ((6, 6),)],
    }
    for strategy in STRATEGIES:
        result = synchronise(KEY, RESPONSE, strategy)
        assert [m.spans for m in result.key.markables] == expected_sets[strategy], strategy
        assert targets(result.key) == targets(result.response), strategy
    union = synchronise(KEY, RESPONSE, "union")
    # the key gains "liked her" as a singleton; the response gains "her" as a singleton
    assert chains(union.key) == [[((0, 0),), ((4, 4),)], [((2, 2),), ((6, 6),)], [((5, 6),)]]
    assert chains(union.response) == [[((0, 0),), ((4, 4),)], [((2, 2),), ((5, 6),)], [((6, 6),)]]
    assert (union.key_counts.added, union.response_counts.added) == (1, 1)
    inter = synchronise(KEY, RESPONSE, "intersection")
    assert (inter.key_counts.removed, inter.response_counts.removed) == (1, 1)
    assert chains(inter.response) == [[((0, 0),), ((4, 4),)], [((2, 2),)]]


def test_removing_a_markable_removes_its_links():
    key = doc([mk("a", 0), mk("b", 4)], [Link(id="l", source="b", target="a")])
    response = doc([mk("a", 0)])
    result = synchronise(key, response, "response")
    assert result.key.links == [] and len(result.key.markables) == 1


def test_duplicate_targets_are_reported():
    report = Report()
    synchronise(doc([mk("a", 0), mk("b", 0)]), doc([mk("a", 0)]), "key", report)
    assert report.by_code("sync.duplicate-target")[0].count == 1


def test_unknown_strategy_is_a_usage_error():
    with pytest.raises(UsageError):
        synchronise(KEY, RESPONSE, "both")


# -- properties -------------------------------------------------------------------------------
@st.composite
def docs(draw):
    marks = []
    for k in range(draw(st.integers(0, 6))):
        a = draw(st.integers(0, 7))
        b = draw(st.integers(a, 7))
        marks.append(Markable(id=f"m{k}", spans=((a, b),), entity=draw(st.sampled_from(["1", "2", None]))))
    return doc(marks)


@settings(max_examples=80, deadline=None)
@given(docs(), docs(), st.sampled_from(STRATEGIES))
def test_synchronisation_is_idempotent_and_the_sets_nest(key, response, strategy):
    once = synchronise(key, response, strategy)
    twice = synchronise(once.key, once.response, strategy)
    assert targets(twice.key) == targets(once.key) and chains(twice.key) == chains(once.key)
    assert chains(twice.response) == chains(once.response)
    sets = {s: {m.spans for m in synchronise(key, response, s).key.markables} for s in STRATEGIES}
    assert sets["union"] >= sets["key"] >= sets["intersection"]
    assert sets["union"] >= sets["response"] >= sets["intersection"]


# -- tokenisations ----------------------------------------------------------------------------
def test_same_characters_other_tokens_map_and_widen():
    key = ["l'", "ordre", "des", "primates"]
    response = ["l", "'", "ordre", "des", "primates"]
    mapping = map_tokens(response, key)
    assert mapping == [(0, 0), (0, 0), (1, 1), (2, 2), (3, 3)]
    assert map_span((1, 2), mapping) == ((0, 1), True)   # starts inside "l'"
    assert map_span((0, 2), mapping) == ((0, 1), False)


def test_multi_word_token_surfaces_on_one_side_only():
    key = ["ordre", "de", "les", "primates"]
    response = ["ordre", "des", "de", "les", "primates"]   # the surface and its parts
    mapping = map_tokens(response, key)
    assert mapping == [(0, 0), None, (1, 1), (2, 2), (3, 3)]


def test_different_texts_are_refused_with_the_place_they_diverge():
    with pytest.raises(AlignmentError) as info:
        map_tokens(["the", "cat", "sat", "down"], ["the", "dog", "sat", "down"], "doc1")
    message = str(info.value)
    assert "doc1" in message and "key token 2" in message and "cat" in message and "dog" in message


def test_synchronising_different_tokenisations():
    key = Document(name="d", tokens=Tokens(forms=["l'", "ordre", "des", "singes"]),
                   markables=[Markable(id="a", spans=((0, 1),), entity="1"), Markable(id="b", spans=((3, 3),))])
    response = Document(name="d", tokens=Tokens(forms=["l", "'", "ordre", "des", "singes"]),
                        markables=[Markable(id="x", spans=((0, 2),), entity="1"),
                                   Markable(id="y", spans=((4, 4),))])
    report = Report()
    result = synchronise(key, response, "intersection", report)
    assert [m.spans for m in result.response.markables] == [((0, 1),), ((3, 3),)]
    assert result.response.tokens.forms == key.tokens.forms
    assert report.by_code("sync.retokenised")


def test_the_public_sync_function_reads_paths_and_keeps_working_after_imports():
    import corefio
    import corefio.compare.synchronisation  # noqa: F401  (the module must not shadow the function)

    from .conftest import SAMPLES

    key, response = corefio.sync(SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml", strategy="union")
    assert [(m.id, m.spans) for m in key.documents[0].markables] == \
        [(m.id, m.spans) for m in response.documents[0].markables]
    assert callable(corefio.sync) and callable(corefio.validate)


# -- issue #18: sync accepts what score accepts ------------------------------------------------
from .conftest import DATA  # noqa: E402

CASES = DATA / "scorer-testcases" / "DataFiles"
GUM = DATA / "corpora" / "gum"
#: key and response files that `score --sync` scores; `sync` refused them
SCORED_PAIRS = {
    "same-length-other-words": (CASES / "TC-A.key", CASES / "TC-A-5.response"),
    "gum-bridging": (GUM / "dep" / "GUM_academic_art.conllu",
                     GUM / "coref" / "ontogum" / "conllu" / "GUM_academic_art.conllu"),
    # xcore breaks ties by class order: `score --sync` ordered the classes otherwise
    "gum-class-order": (GUM / "dep" / "GUM_news_worship.conllu",
                        GUM / "coref" / "ontogum" / "conllu" / "GUM_news_worship.conllu"),
}


def _values(scores) -> dict:
    from corefio.scoring.render import to_jsonable

    return {m: to_jsonable(scores[m]) for m in scores.metrics if m != "mentions"}


@pytest.mark.parametrize("pair", sorted(SCORED_PAIRS))
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_sync_writes_what_score_sync_scores(cli, tmp_path, pair, strategy):
    """`corefio sync` succeeds where `corefio score --sync` does, and the two files it
    writes, scored, give that strategy's values of `score --sync` (every metric)."""
    import corefio

    key, response = SCORED_PAIRS[pair]
    result = cli("sync", key, response, "-o", tmp_path, "--strategy", strategy)
    assert result.exit_code == 0, result.output
    if pair == "same-length-other-words":
        assert "warning[sync.token-mismatch]" in result.output
    synced = corefio.score(tmp_path / "key.raf.xml", tmp_path / "response.raf.xml", "all")
    side_by_side = corefio.score(key, response, "all", sync=strategy)
    assert _values(synced) == _values(side_by_side[strategy])


def test_equal_token_counts_are_compared_by_position():
    other = doc([mk("r1", 0, entity="a"), mk("r2", 4, entity="a")])
    other = other.copy(tokens=Tokens(forms=["Jack", "met", "Mary", ".", "He", "liked", "her", "."]))
    report = Report()
    result = synchronise(KEY, other, "union", report)
    assert [d.count for d in report.by_code("sync.token-mismatch")] == [1]
    assert result.response.tokens.forms[0] == "Jack"  # the response keeps its words
    assert chains(result.response) == [[((0, 0),), ((4, 4),)], [((2, 2),)], [((6, 6),)]]


def test_a_link_to_an_entity_whose_markables_a_strategy_removes_goes_with_them():
    """CorefUD bridging (``Bridge=89<94``) is a link to an entity; when the strategy
    removed every markable of that entity, the link pointed at nothing and the edit
    refused the document ("link link_1 target '6' is not an entity")."""
    bridging = Link(id="b1", type="bridging", source="k3", targets=("m",), target_kind="entity")
    key = doc([mk("k1", 0, entity="j"), mk("k2", 2, entity="m"), mk("k3", 4, entity="j")], [bridging])
    response = doc([mk("r1", 0, entity="a"), mk("r3", 4, entity="a")])
    report = Report()
    result = synchronise(key, response, "response", report)
    assert result.key.links == [] and targets(result.key) == targets(result.response)
    assert report.by_code("edit.link-removed")
    kept = synchronise(key, response, "union").key  # the entity stays: so does the link
    assert [(link.source, link.targets) for link in kept.links] == [("markable_3", ("m",))]


def test_sync_errors_name_the_file(cli, tmp_path):
    key = tmp_path / "key.conll"
    response = tmp_path / "response.conll"
    key.write_text("#begin document (d); part 000\nd 0 0 the (1)\nd 0 1 cat -\nd 0 2 sat (1)\n\n#end document\n")
    response.write_text("#begin document (d); part 000\nd 0 0 the (1)\nd 0 1 dog -\nd 0 2 sat -\nd 0 3 down (1)"
                        "\n\n#end document\n")
    result = cli("sync", key, response, "-o", tmp_path / "out")
    assert result.exit_code == 3
    assert f"error: {response}: d (part 000): the key and the response do not have the same text" in result.output


@pytest.mark.parametrize("pair", sorted(SCORED_PAIRS))
def test_the_web_downloads_of_synchronised_files_answer(pair):
    """The result page's links to the synchronised files answered 422 for these pairs."""
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    import re
    import warnings

    with warnings.catch_warnings():  # starlette's notice about httpx
        warnings.simplefilter("ignore")
        from fastapi.testclient import TestClient
    from corefio.web import create_app

    key, response = SCORED_PAIRS[pair]
    client = TestClient(create_app(), base_url="http://127.0.0.1")
    fmt = "conll" if key.suffix == ".key" else ""
    page = client.post("/score", files={"key": (key.name, key.read_bytes()),
                                        "response": (response.name, response.read_bytes())},
                       data={"key_format": fmt, "response_format": fmt})
    assert page.status_code == 200, page.text[:500]
    links = sorted(set(re.findall(r'href="(/r/[^"]+/sync/[^"]+)"', page.text)))
    assert len(links) == 8
    for link in links:
        got = client.get(link)
        assert got.status_code == 200, (link, got.text[:300])
        assert b"markable" in got.content


ZERO_CASES = sorted((key, response) for folder in (DATA / "scorer-testcases" / "corefud" / "zeros", DATA / "zeros")
                    for key in folder.glob("*.key") for response in folder.glob(key.stem + "-*.response"))


@pytest.mark.parametrize("key,response", ZERO_CASES, ids=[r.stem for _, r in ZERO_CASES])
def test_sync_puts_different_empty_tokens_on_one_sequence(key, response):
    """Key and response with other empty nodes (zeros elsewhere, more or fewer of them):
    `score` merges their tokens, `sync` refused them ("do not have the same text"). Now
    both sides get every empty node, and with zeros kept the synchronised documents
    score as `score --sync` does."""
    import corefio
    from corefio.scoring.render import to_jsonable
    from corefio.compare.synchronisation import synchronise_corpora

    options = {"keep_zeros": True, "zero_match": "linear"}
    k, r = corefio.read(key, "conllu"), corefio.read(response, "conllu")
    side_by_side = corefio.score(key, response, "all", sync="all", key_format="conllu", response_format="conllu",
                                 **options)
    for strategy in STRATEGIES:
        ks, rs = synchronise_corpora(k, r, strategy, Report(), key_file=key, response_file=response)
        assert ks.documents[0].tokens.empty == rs.documents[0].tokens.empty
        assert targets(ks.documents[0]) == targets(rs.documents[0])
        synced = corefio.score(ks, rs, "all", **options)
        for metric in synced.metrics:
            if metric == "mentions":
                continue
            got, want = to_jsonable(synced[metric]), to_jsonable(side_by_side[strategy][metric])
            if metric in ("info", "dmt", "derr"):  # floating point, summed in another order
                assert json.dumps(got) == json.dumps(want) or _close(got, want), (strategy, metric)
            else:
                assert got == want, (strategy, metric)


def _close(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float):
        return a == pytest.approx(b, rel=1e-12)
    return a == b


def test_sync_leaves_out_empty_tokens_when_the_words_differ():
    """Words tokenised otherwise: empty tokens have no common place; as scoring does,
    they go with their zero mentions, and the response is carried over."""
    k = Document(name="d", tokens=Tokens(forms=["Mary", "left", "_", "."], empty=[2]),
                 markables=[mk("a", 0, entity="1"), Markable(id="z", spans=((2, 2),), entity="1"), mk("b", 1, 2)])
    r = Document(name="d", tokens=Tokens(forms=["Mary", "left."]), markables=[mk("x", 0, entity="1")])
    report = Report()
    result = synchronise(k, r, "key", report)
    assert [d.count for d in report.by_code("sync.zeros-unplaced")] == [1]
    assert result.key.tokens.empty is None and result.key.tokens.forms == ["Mary", "left", "."]
    assert [m.spans for m in result.key.markables] == [((0, 0),), ((1, 1),)]


def test_documents_that_do_not_pair_name_both_files_and_what_sync_offers(cli, tmp_path):
    key, response = tmp_path / "key.conll", tmp_path / "response.conll"
    # two documents a side (one each pair whatever the names: score.paired-single)
    key.write_text("".join(f"#begin document ({d}); part 000\n{d} 0 0 the (1)\n\n#end document\n" for d in "ac"))
    response.write_text("".join(f"#begin document ({d}); part 000\n{d} 0 0 the (1)\n\n#end document\n" for d in "bd"))
    result = cli("sync", key, response, "-o", tmp_path / "out")
    assert result.exit_code == 3
    assert (f"error: the documents of {key} (key) and {response} (response) do not match: 2 key document(s) "
            "have no response") in result.output
    assert "--allow-missing" not in result.output and "--pair-by order" in result.output
    assert cli("sync", key, response, "-o", tmp_path / "out", "--pair-by", "order").exit_code == 0
