"""Error classes of Kummerfeld & Klein (2013): corefio.scoring.error_analysis."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

import corefio
from corefio.model.mentions import Mention, MentionView
from corefio.scoring.error_analysis import ERROR_CLASSES, analyse, analyse_document, analyse_files

from .conftest import DATA


def view(chains: list[list[tuple]], heads: dict | None = None, label: str = "d") -> MentionView:
    """Chains of (start, end) spans; ``heads`` maps a span to its head token."""
    heads = heads or {}
    mentions = [[Mention(((a, b),), head=((heads[(a, b)], heads[(a, b)]),) if (a, b) in heads else None)
                 for a, b in chain] for chain in chains]
    return MentionView(label, [f"w{i}" for i in range(60)], mentions)


def as_sets(partition) -> set[frozenset]:
    return {frozenset(c) for c in partition}


def test_one_error_of_each_class():
    key = view([
        [(0, 1), (5, 5), (9, 9)],        # A: span error on (0, 1), found as (0, 2) with the same head
        [(12, 12), (14, 14)],            # B: conflated with C in the response
        [(16, 16), (18, 18)],            # C
        [(20, 20), (22, 22), (24, 24)],  # D: (24) missing from the response
        [(30, 30), (32, 32)],            # E: missing entirely
        [(40, 40), (42, 42), (44, 44), (46, 46)],  # F: divided into two response entities
    ], heads={(0, 1): 1})
    response = view([
        [(0, 2), (5, 5), (9, 9)],
        [(12, 12), (14, 14), (16, 16), (18, 18)],
        [(20, 20), (22, 22), (26, 26)],  # (26): an extra mention
        [(50, 50), (52, 52)],            # an extra entity
        [(40, 40), (42, 42)],
        [(44, 44), (46, 46)],
    ], heads={(0, 2): 1})
    result = analyse_document(key, response)
    assert dict(result.counts) == {name: 1 for name in ERROR_CLASSES}
    assert as_sets(result.stages[-1]) == as_sets(result.key)


def test_a_response_without_key_singletons_is_analysed():
    key = view([[(0, 0)], [(2, 2)], [(4, 4), (6, 6)]])
    response = view([[(4, 4), (6, 6)]])
    result = analyse_document(key, response)
    assert result.counts["missing_entity"] == 2 and sum(result.counts.values()) == 2


def test_identical_partitions_have_no_error():
    key = view([[(0, 0), (3, 4)], [(6, 6)]])
    result = analyse([(key, key)])
    assert sum(result.counts.values()) == 0
    assert all(g == 0 for m in result.metrics for g in result.gains(m).values())


spans = st.tuples(st.integers(0, 25), st.integers(0, 3)).map(lambda t: (t[0], min(t[0] + t[1], 29)))
partitions = st.lists(st.lists(spans, min_size=1, max_size=5), max_size=6)


@settings(max_examples=150, deadline=None)
@given(partitions, partitions)
def test_the_corrections_turn_any_response_into_the_key(key_chains, response_chains):
    key, response = view(key_chains), view(response_chains)
    result = analyse([(key, response)], ["muc", "bcub", "ceafe"])
    document = result.documents[0]
    assert as_sets(document.stages[-1]) == as_sets(document.key)
    # the gains add up to the distance to the key's own score
    perfect = analyse([(key, key)], ["muc", "bcub", "ceafe"])
    for m in result.metrics:
        total = sum(result.gains(m).values())
        assert abs(result.curve[m][0] + total - perfect.curve[m][0]) < 1e-9
    assert all(v >= 0 for v in document.counts.values())


def test_from_files_and_the_command_line(tmp_path, cli):
    key = "samples/key.raf.xml"
    response = "samples/response.raf.xml"
    result = analyse_files(key, response)
    scores = corefio.score(key, response, ["muc", "bcub", "ceafe", "conll"])
    assert abs(result.curve["muc"][0] - float(scores["muc"].f1)) < 1e-12
    assert abs(result.curve["conll"][0] - float(scores["conll"]["f1"])) < 1e-12
    assert sum(result.counts.values()) > 0
    out = cli("score", key, response, "--errors")
    assert out.exit_code == 0, out.output
    assert "conflated entities" in out.output and "divided entity" in out.output
    data = cli("score", key, response, "--errors", "--format", "json")
    import json

    errors = json.loads(data.output)["errors"]
    assert errors["corpus"] == dict(result.counts)


def test_compare_lists_each_systems_errors(cli):
    out = cli("compare", "samples/key.raf.xml", "samples/response.raf.xml", "samples/key.raf.xml",
              "--errors", "--samples", "100", "--format", "json")
    assert out.exit_code == 0, out.output
    import json

    errors = json.loads(out.output)["errors"]
    assert sum(errors["key.raf.xml"]["corpus"].values()) == 0
    assert errors["response.raf.xml"]["corpus"]["conflated_entities"] == 3


def test_drop_singletons_leaves_them_out_of_the_error_analysis_as_out_of_the_scores(tmp_path, cli):
    """--drop-singletons applies to --errors too: a key singleton the response lacks is a
    missing entity only while singletons are kept."""
    key = tmp_path / "key.conll"
    response = tmp_path / "response.conll"
    rows = ["#begin document (d); part 000"]
    key_labels = ["(1)", "-", "(1)", "(2)", "-"]
    response_labels = ["(1)", "-", "(1)", "-", "-"]
    for i, label in enumerate(key_labels):
        rows.append(f"d\t0\t{i}\tw{i}\tNN\t*\t-\t-\t-\t-\t*\t{label}")
    key.write_text("\n".join(rows) + "\n\n#end document\n")
    rows = ["#begin document (d); part 000"]
    for i, label in enumerate(response_labels):
        rows.append(f"d\t0\t{i}\tw{i}\tNN\t*\t-\t-\t-\t-\t*\t{label}")
    response.write_text("\n".join(rows) + "\n\n#end document\n")
    kept = analyse_files(key, response)
    dropped = analyse_files(key, response, keep_singletons=False)
    assert kept.counts["missing_entity"] == 1
    assert sum(dropped.counts.values()) == 0
    import json

    out = cli("score", str(key), str(response), "--errors", "--drop-singletons", "--format", "json")
    assert out.exit_code == 0, out.output
    assert sum(json.loads(out.output)["errors"]["corpus"].values()) == 0
    other = tmp_path / "other.conll"
    other.write_bytes(response.read_bytes())
    out = cli("compare", str(key), str(response), str(other), "--errors", "--drop-singletons",
              "--format", "json", "--samples", "50")
    assert out.exit_code == 0, out.output
    assert all(sum(e["corpus"].values()) == 0 for e in json.loads(out.output)["errors"].values())


def test_span_errors_use_the_head_rule_of_head_matching_on_both_sides():
    """Without annotated heads a mention is headed by its first token on both sides (udapi's
    rule, corefud-scorer's head matching): "the big dog barked" for "the big dog" is one
    span error, and so is a response a head matching would pair; one that head matching
    would not pair ("big dog": another first token) is an extra plus a missing mention."""
    from corefio.compare.matching import match_mentions

    key = view([[(0, 2), (5, 5)]])                      # "the big dog" ... "it"
    longer = view([[(0, 3), (5, 5)]])                   # "the big dog barked" ... "it"
    result = analyse_document(key, longer)
    assert result.counts["span_error"] == 1 and sum(result.counts.values()) == 1
    shorter = view([[(1, 2), (5, 5)]])                  # "big dog" ... "it"
    result = analyse_document(key, shorter)
    assert result.counts["span_error"] == 0
    assert result.counts["extra_mention"] == 1 and result.counts["missing_mention"] == 1
    # the same decisions as head matching
    flat = [Mention(((0, 2),))]
    assert match_mentions(flat, [Mention(((0, 3),))], "head").pairs == [(0, 0)]
    assert match_mentions(flat, [Mention(((1, 2),))], "head").pairs == []
    # an annotated head wins over the default, on either side
    headed = view([[(0, 2), (5, 5)]], heads={(0, 2): 2})
    assert analyse_document(headed, view([[(1, 2), (5, 5)]], heads={(1, 2): 2})).counts["span_error"] == 1


def test_span_errors_of_a_conllu_key_without_a_head_field(tmp_path):
    """A CorefUD file whose global.Entity has no head field (as UD English-GUM's): heads
    default to the first word on both sides."""
    def conllu(brackets: list[str]) -> str:
        rows = ["# newdoc id = d", "# global.Entity = eid-etype", "# sent_id = d-1",
                "# text = the big dog barked and it ran"]
        for i, (form, misc) in enumerate(zip("the big dog barked and it ran".split(), brackets), 1):
            rows.append(f"{i}\t{form}\t_\t_\t_\t_\t_\t_\t_\t{misc}")
        return "\n".join(rows) + "\n\n"

    key = tmp_path / "key.conllu"
    key.write_text(conllu(["Entity=(e1-animal", "_", "Entity=e1)", "_", "_", "Entity=(e1-animal)", "_"]))
    response = tmp_path / "response.conllu"
    response.write_text(conllu(["Entity=(e1-animal", "_", "_", "Entity=e1)", "_", "Entity=(e1-animal)", "_"]))
    result = analyse_files(key, response)
    assert result.counts["span_error"] == 1 and sum(result.counts.values()) == 1


# -- heads by Collins' noun-phrase rule where the words carry Penn Treebank tags ---------------
def tagged(chains: list[list[tuple]], tags: list[str]) -> MentionView:
    mentions = [[Mention(((a, b),)) for a, b in chain] for chain in chains]
    return MentionView("d", [f"w{i}" for i in range(len(tags))], mentions, pos=list(tags))


#: "Israeli Prime Minister Ehud Barak is rejecting calls . He said"
BARAK = ["JJ", "NNP", "NNP", "NNP", "NNP", "VBZ", "VBG", "NNS", ".", "PRP", "VBD"]


def test_a_shorter_span_with_the_same_syntactic_head_is_a_span_error():
    """Kummerfeld & Klein head mentions by Collins' rules: "Prime Minister Ehud Barak" for
    "Israeli Prime Minister Ehud Barak" (both headed by "Barak") is a span error; it was
    an extra plus a missing mention (the first words differ)."""
    key = [[(0, 4), (9, 9)]]
    response = [[(1, 4), (9, 9)]]
    result = analyse_document(tagged(key, BARAK), tagged(response, BARAK))
    assert dict(result.counts) == {**{k: 0 for k in ERROR_CLASSES}, "span_error": 1}
    # without tags: the first word, head matching's rule
    plain = analyse_document(view(key), view(response)).counts
    assert (plain["span_error"], plain["extra_mention"], plain["missing_mention"]) == (0, 1, 1)
    # the tags of either side serve both (they share their words)
    assert analyse_document(view(key), tagged(response, BARAK)).counts["span_error"] == 1


def test_a_longer_span_with_the_same_syntactic_head_is_still_a_span_error():
    tags = ["DT", "JJ", "NN", "VBD", "CC", "PRP", "VBD"]  # the big dog barked and it ran
    result = analyse_document(tagged([[(0, 2), (5, 5)]], tags), tagged([[(0, 3), (5, 5)]], tags))
    assert result.counts["span_error"] == 1 and sum(result.counts.values()) == 1
    shorter = analyse_document(tagged([[(0, 2), (5, 5)]], tags), tagged([[(1, 2), (5, 5)]], tags))
    assert shorter.counts["span_error"] == 1  # "big dog": headed by "dog" too


def test_another_syntactic_head_is_an_extra_and_a_missing_mention():
    tags = ["DT", "NN", "IN", "DT", "NN", "VBD", "PRP"]  # the man in the park saw him
    result = analyse_document(tagged([[(0, 4), (6, 6)]], tags), tagged([[(3, 4), (6, 6)]], tags)).counts
    assert (result["span_error"], result["extra_mention"], result["missing_mention"]) == (0, 1, 1)


def test_universal_tags_leave_the_first_word_rule():
    upos = ["DET", "ADJ", "NOUN", "VERB", "CCONJ", "PRON", "VERB"]
    result = analyse_document(tagged([[(0, 2), (5, 5)]], upos), tagged([[(1, 2), (5, 5)]], upos)).counts
    assert (result["span_error"], result["extra_mention"]) == (0, 1)


def test_collins_noun_phrase_rule():
    from corefio.scoring.error_analysis import np_head

    assert np_head([0, 1, 2], ["NNP", "NNP", "POS"]) == 2                 # John Smith 's
    assert np_head([0, 1, 2, 3], ["DT", "JJ", "NN", "NNS"]) == 3          # the big dog shows: rightmost noun
    assert np_head([0, 1], ["DT", "CD"]) == 1                              # the two
    assert np_head([0, 1, 2], ["DT", "JJ", "RB"]) == 2                     # JJ/RB group: rightmost
    assert np_head([0, 1], ["DT", "PRP"]) == 1                             # nothing found: the last word
    assert np_head([3, 4], [None, None, None, "PRP$", "NN"]) == 4


REAL = DATA / "wild" / "conll" / "corefannotator" / "cnn_0122.conll"


def test_the_real_document_with_a_mention_starting_one_word_later(tmp_path):
    """cnn_0122.conll (OntoNotes, CoNLL-2012 with POS) against itself with its first
    mention starting one word later: one span error, and the span error's gain is the
    whole distance to the key."""
    lines = REAL.read_text(encoding="utf-8").split("\n")
    assert lines[1].endswith("(0") and lines[2].endswith("-")
    lines[1], lines[2] = lines[1][:-2] + " -", lines[2][:-1] + "(0"
    response = tmp_path / "response.conll"
    response.write_text("\n".join(lines), encoding="utf-8")
    result = analyse_files(REAL, response)
    assert dict(result.counts) == {**{k: 0 for k in ERROR_CLASSES}, "span_error": 1}
    from typer.testing import CliRunner

    from corefio.cli import app

    out = CliRunner().invoke(app, ["score", "--errors", str(REAL), str(response)])
    assert out.exit_code == 0, out.output
    row = next(line for line in out.stdout.splitlines() if line.startswith("span error"))
    assert row.split()[2] == "1"


def test_postmodifiers_are_set_aside():
    from corefio.scoring.error_analysis import np_head

    assert np_head([0, 1, 2, 3, 4], ["DT", "NN", "IN", "DT", "NN"]) == 1        # the man in the park
    assert np_head([0, 1, 2, 3], ["DT", "NN", "WP", "VBD"]) == 1                # the man who left
    assert np_head([0, 1, 2], ["DT", "VBG", "NN"]) == 2                         # the running man
    assert np_head([0, 1, 2], ["NNS", "CC", "NNS"]) == 2                        # cats and dogs
