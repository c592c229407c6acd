"""Cross-document coreference: the corpus-level layer, the CDCR formats (ECB+ XML,
meta-document CoNLL, Cattan et al.'s JSON, WEC-Eng and unified CDCR JSON) and scoring
across documents, checked against the reference scorer v8.01 and coval run on the
meta-document files that ariecattan/coref's own scripts wrote (tests/data/cdcr/README.md)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import corefio

from corefio.diagnostics import Report
from corefio.errors import CorefioError, FormatError, UsageError
from corefio.formats.readwrite import dumps, read, write
from corefio.model import Corpus, CrossEntity
from corefio.model.crossdoc import (SUBTOPIC, TOPIC, assign_topics, cross_chains, cross_problems, mention_kind,
                                    read_topic_mapping, unit_view, units)
from corefio.scoring.crossdoc import STYLES, CrossSettings, score_cross, score_styles, styles_table

DATA = Path(__file__).parent / "data" / "cdcr"
MINI = DATA / "ecbplus-mini"
GUM = DATA / "gum-ecb"
JUDGED = GUM / "judged"
UCDCR = DATA / "ucdcr-ecbplus-10ecb"
SAMPLES = Path(__file__).resolve().parent.parent / "samples" / "cdcr"
METRICS = ["muc", "bcub", "ceafm", "ceafe", "blanc", "lea"]


@pytest.fixture(scope="module")
def gum_key() -> Corpus:
    return read(GUM / "key", "ecbplus")


@pytest.fixture(scope="module")
def gum_response() -> Corpus:
    return read(GUM / "response", "ecbplus")


def chain_sets(corpus: Corpus, mention_type: str = "all", validated_only: bool = False,
               by_id: bool = True) -> set[frozenset]:
    """The corpus's chains across documents as sets of (document, first and last token
    id): token ids stay when files leave sentences out."""
    out = set()
    for chain in cross_chains(corpus, None, mention_type, validated_only=validated_only):
        mentions = []
        for d, k in chain:
            doc = corpus.documents[d]
            ids = doc.tokens.all_ids() if by_id else [str(i) for i in range(len(doc.tokens))]
            spans = doc.markables[k].spans
            mentions.append((doc.name, ids[spans[0][0]], ids[spans[-1][1]]))
        out.add(frozenset(mentions))
    return out


# -- the model ------------------------------------------------------------------------------------
def test_mini_ecbplus_reads_relations_instances_topics_and_validated_sentences():
    corpus = read(MINI, "ecbplus")
    assert [d.name for d in corpus] == ["1_1ecb", "1_2ecbplus"]
    first = corpus[0]
    assert first.metadata[TOPIC] == "1" and first.metadata[SUBTOPIC] == "1ecb"
    assert first.tokens.ids == ["1", "2", "3", "4", "5", "6", "7"]
    assert [(s.id, s.attributes["validated"]) for s in first.sentences] == [("0", True), ("1", False)]
    assert [(s.id, s.attributes["validated"]) for s in corpus[1].sentences] == [("0", True), ("1", True)]
    tara = first.markables[0]
    assert tara.spans == ((0, 1),) and tara.entity == "HUM1"
    assert tara.attributes == {"tag": "HUMAN_PART_PER"} and mention_kind(tara) == "entity"
    assert first.markables[1].attributes == {"tag": "ACTION_OCCURRENCE", "note": "byCROMER"}
    assert mention_kind(first.markables[1]) == "event"
    assert first.markables[3].entity == "INTRA_22"
    entities = {e.id: e.attributes for e in first.entities}
    assert entities["HUM1"]["TAG_DESCRIPTOR"] == "Tara Reid" and entities["HUM1"]["relation"] == "CROSS_DOC_COREF"
    assert entities["INTRA_22"]["relation"] == "INTRA_DOC_COREF"
    assert {e.id: e.members for e in corpus.cross_entities} == {
        "HUM1": (("1_1ecb", "1"), ("1_1ecb", "3"), ("1_2ecbplus", "1"), ("1_2ecbplus", "3")),
        "ACT1": (("1_1ecb", "2"), ("1_2ecbplus", "2")),
    }
    # INTRA_DOC_COREF chains stay in their documents; CROSS_DOC_COREF instances join them
    assert cross_chains(corpus) == [[(0, 0), (0, 2), (1, 0), (1, 2)], [(0, 1), (1, 1)], [(0, 3)], [(0, 4)],
                                     [(1, 3)], [(1, 4)]]
    assert cross_problems(corpus) == []


def test_validated_only_and_mention_types_select_mentions():
    corpus = read(MINI, "ecbplus")
    # 1_1ecb's sentence 1 is not validated: "She" and "went" are left out there
    chains = cross_chains(corpus, None, "all", validated_only=True)
    assert (0, 2) not in {p for c in chains for p in c} and (0, 3) not in {p for c in chains for p in c}
    events = cross_chains(corpus, None, "event")
    assert all(mention_kind(corpus.documents[d].markables[k]) == "event" for c in events for d, k in c)
    assert len(events) == 3


def test_cross_problems_name_missing_documents_and_markables():
    corpus = read(MINI, "ecbplus")
    broken = corpus.copy(cross_entities=[CrossEntity(id="X", members=(("nowhere", "1"), ("1_1ecb", "99")))])
    problems = cross_problems(broken)
    assert any("nowhere" in p for p in problems) and any("99" in p for p in problems)
    report = Report()
    scores = score_cross(broken, corpus, ["muc"], report=report)  # what names nothing is left out, and said
    assert report.by_code("crossdoc.members")[0].count == 2 and scores["muc"].precision < 1


def test_unit_view_puts_documents_one_after_the_other():
    corpus = read(MINI, "ecbplus")
    view = unit_view(corpus, [0, 1], "1")
    assert len(view.forms) == 14
    spans = sorted(m.spans for chain in view.mentions for m in chain if len(chain) == 4)
    assert spans == [((0, 1),), ((5, 5),), ((7, 8),), ((12, 12),)]


def test_topics_from_a_pattern_and_from_a_mapping_file(tmp_path):
    corpus = read(MINI, "ecbplus")
    bare = corpus.copy(documents=[d.copy(metadata={}) for d in corpus])
    with pytest.raises(UsageError, match="no topic"):
        units(bare, "topic")
    by_pattern = assign_topics(bare, pattern=r"^(?P<topic>\d+)_\d+(?P<subtopic>ecb(?:plus)?)$")
    assert units(by_pattern, "subtopic") == {"1ecb": [0], "1ecbplus": [1]}
    mapping = read_topic_mapping("# document, topic, subtopic\n1_1ecb\tA\tA1\n1_2ecbplus\tA\tA2\n")
    assert units(assign_topics(bare, mapping=mapping), "topic") == {"A": [0, 1]}
    with pytest.raises(CorefioError) as info:
        read_topic_mapping("1_1ecb\tA\n1_1ecb\tB\n", "topics.tsv")
    assert info.value.line == 2
    with pytest.raises(UsageError, match="no group named 'topic'"):
        assign_topics(bare, pattern=r"(\d+)")


# -- ECB+ XML ---------------------------------------------------------------------------------------
def test_ecbplus_round_trip_of_the_built_corpus(tmp_path, gum_key, gum_response):
    for corpus in (gum_key, gum_response):
        write(corpus, tmp_path / "out", "ecbplus", force=True)
        again = read(tmp_path / "out", "ecbplus", sentences=str(tmp_path / "out" / "ECBplus_coreference_sentences.csv"))
        assert again.documents == corpus.documents
        assert again.cross_entities == corpus.cross_entities


def test_ecbplus_writer_numbers_relations_over_the_corpus(gum_response):
    # the CDCR scripts make within-document cluster ids of r_ids: they must not repeat
    files = {}
    from corefio.formats.ecbplus import write_files

    files = write_files(gum_response, report=Report())
    r_ids = [r for text in files.values() for r in re.findall(rb'<(?:INTRA|CROSS)_DOC_COREF r_id="(\d+)"', text)]
    assert r_ids and len(r_ids) == len(set(r_ids))


def test_ecbplus_errors_name_the_file_and_line(tmp_path):
    text = (MINI / "ECB+" / "1" / "1_1ecb.xml").read_text().replace('<target m_id="12" />', '<target m_id="77" />')
    bad = tmp_path / "1_9ecb.xml"
    bad.write_text(text)
    with pytest.raises(FormatError) as info:
        read(bad, "ecbplus")
    assert "m_id 77" in str(info.value) and info.value.line is not None and "1_9ecb.xml" in str(info.value)
    anchor = (MINI / "ECB+" / "1" / "1_1ecb.xml").read_text().replace('<token_anchor t_id="7"/>',
                                                                       '<token_anchor t_id="70"/>')
    bad.write_text(anchor)
    with pytest.raises(FormatError, match="token 70"):
        read(bad, "ecbplus")


# -- meta-document CoNLL ----------------------------------------------------------------------------
def test_cattan_meta_documents_read_as_the_documents_and_topics_they_hold(gum_key):
    corpus = read(JUDGED / "key" / "test_mixed_singletons_topic_level.conll", "cdcr-conll")
    assert corpus.metadata["cdcr_layout"] == "cattan"
    assert sorted(d.name for d in corpus) == sorted(d.name for d in gum_key)
    assert {d.metadata["meta_document"] for d in corpus} == {"36", "37", "38"}
    # the same chains as the ECB+ key restricted to validated sentences, as get_ecb_data.py writes them
    assert chain_sets(corpus) == chain_sets(gum_key, validated_only=True)


def test_cattan_corpus_level_file_without_singletons(gum_key):
    corpus = read(JUDGED / "key" / "test_events_corpus_level.conll", "cdcr-conll")
    expected = {c for c in chain_sets(gum_key, "event", validated_only=True) if len(c) > 1}
    assert chain_sets(corpus) == expected


@pytest.mark.parametrize("layout", ["cattan", "barhom", "ucdcr"])
@pytest.mark.parametrize("unit", ["corpus", "topic", "subtopic"])
def test_meta_document_writers_round_trip_the_chains(gum_key, layout, unit):
    report = Report()
    text = dumps(gum_key, "cdcr-conll", layout=layout, unit=unit, report=report)
    again = read(text.encode("utf-8"), "cdcr-conll")
    assert again.metadata["cdcr_layout"] == layout
    if layout == "barhom":  # a block is a unit: its documents are not told apart
        assert len(again) == len(units(gum_key, unit))
        return
    if layout == "ucdcr":  # a block per document, cluster ids over the corpus: every chain is whole
        assert chain_sets(again) == chain_sets(gum_key) and "loss.cross_unit_links" not in report.codes()
        assert {d.name for d in again} == {d.name for d in gum_key}
        return
    # chains across units are written one per unit, and the writer says so
    unit_of = {gum_key.documents[d].name: label for label, ds in units(gum_key, unit).items() for d in ds}
    expected = set()
    for chain in chain_sets(gum_key):
        for label in {unit_of[name] for name, _, _ in chain}:
            expected.add(frozenset(m for m in chain if unit_of[m[0]] == label))
    assert chain_sets(again) == expected
    split = expected != chain_sets(gum_key)
    assert ("loss.cross_unit_links" in report.codes()) == split
    assert split == (unit == "subtopic")  # the built corpus links documents within topics only


def test_meta_document_writer_selects_types_and_drops_singletons(gum_key):
    text = dumps(gum_key, "cdcr-conll", unit="corpus", mention_type="event", singletons=False, validated_only=True)
    again = read(text.encode("utf-8"), "cdcr-conll")
    assert chain_sets(again) == {c for c in chain_sets(gum_key, "event", validated_only=True) if len(c) > 1}
    labels = set(re.findall(r"\((\d+)", text))
    assert labels and all(label.isdigit() for label in labels)  # the reference scorer reads numbers only


def test_meta_document_errors_name_the_line():
    with pytest.raises(FormatError) as info:
        read(b"#begin document x\n1\t1_0\t1_1ecb\t0\t1\tA\tTrue\t(3\n#end document\n", "cdcr-conll")
    assert "never ends" in str(info.value)
    with pytest.raises(FormatError) as info:
        read(b"#begin document x\n1\t1_0\t1_1ecb\t0\t1\tA\tTrue\t3)\n#end document\n", "cdcr-conll")
    assert info.value.line == 2


# -- Cattan et al.'s JSON, WEC, unified CDCR -------------------------------------------------------
def test_cattan_json_written_by_get_ecb_data_reads_as_the_key(gum_key):
    corpus = read(JUDGED / "json-key", "cdcr-json")
    assert chain_sets(corpus) == chain_sets(gum_key, validated_only=True)
    events = read(JUDGED / "json-key" / "test_events.json", "cdcr-json")
    count = len(json.loads((JUDGED / "json-key" / "test_events.json").read_text()))
    assert sum(len(d.markables) for d in events) == count
    assert all(m.attributes["kind"] == "event" for d in events for m in d.markables)  # from the file name


def test_cattan_json_round_trip(tmp_path, gum_key):
    write(gum_key, tmp_path / "split", "cdcr-json")
    assert sorted(p.name for p in (tmp_path / "split").iterdir()) == [
        "test.json", "test_entities.json", "test_events.json", "test_mixed.json"]
    again = read(tmp_path / "split", "cdcr-json")
    assert chain_sets(again) == chain_sets(gum_key)
    assert [d.tokens.forms for d in again] == [d.tokens.forms for d in gum_key]


def test_wec_round_trip(tmp_path, gum_key):
    write(gum_key, tmp_path / "wec.json", "wec")
    again = read(tmp_path / "wec.json", "wec")
    assert chain_sets(again, by_id=False) == chain_sets(gum_key, by_id=False)  # WEC has no token ids


def test_unified_cdcr_json_and_conll_agree_on_every_mention():
    """Two real files of Zhukova et al.'s unified ECB+ (topic 10, ECB half): the mentions
    the JSON lists, placed in the CoNLL documents, are the CoNLL file's own mentions."""
    conll = read(UCDCR / "10ecb.conll", "cdcr-conll")
    assert conll.metadata["cdcr_layout"] == "ucdcr" and len(conll) == 8
    assert {d.metadata[SUBTOPIC] for d in conll} == {"10ecb"}
    placed = [read(UCDCR / f"{kind}_mentions_10ecb.json", "wec", documents=str(UCDCR / "10ecb.conll"))
              for kind in ("event", "entity")]
    counts = [len(json.loads((UCDCR / f"{kind}_mentions_10ecb.json").read_text())) for kind in ("event", "entity")]
    assert [sum(len(d.markables) for d in c) for c in placed] == counts == [18, 51]
    from_conll = {(d.name, m.spans, m.entity) for d in conll for m in d.markables}
    from_json = {(d.name, m.spans, m.entity) for c in placed for d in c for m in d.markables}
    assert from_json == from_conll
    assert all(mention_kind(m) == "event" for d in placed[0] for m in d.markables)  # ACTION_* tags
    # the JSON alone: a document per context, chains across them
    alone = read(UCDCR / "event_mentions_10ecb.json", "wec")
    assert sum(len(d.markables) for d in alone) == 18 and len(alone.cross_entities) == 4


# -- scoring ----------------------------------------------------------------------------------------
def _scorer_lines(scores, metric: str) -> list[str]:
    text = scores.to_text()
    block = text.split(f"METRIC {metric}:")[1].split("METRIC ")[0]
    return [line for line in block[block.index("TOTALS"):].splitlines() if "Recall:" in line]


_NUMBER = re.compile(r"\(([\d.]+) / ([\d.]+)\)")


def _same_printed(ours: list[str], theirs: list[str]) -> None:
    """The lines agree on every percentage and count; a fractional numerator (B³, CEAF)
    agrees to 12 significant digits (the reference scorer sums floats in its own order,
    corefio exact fractions: the 15th digit may differ)."""
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert _NUMBER.sub("()", a) == _NUMBER.sub("()", b)
        for (n1, d1), (n2, d2) in zip(_NUMBER.findall(a), _NUMBER.findall(b)):
            assert d1 == d2 and float(n1) == pytest.approx(float(n2), rel=1e-12)


JUDGED_PAIRS = json.loads((JUDGED / "scores.json").read_text())["pairs"]


@pytest.mark.parametrize("pair", JUDGED_PAIRS, ids=lambda p: f"{p['key']}~{p['response']}")
def test_blocks_of_the_meta_document_files_score_as_scorer_pl_and_coval(pair):
    key = read(JUDGED / "key" / pair["key"], "cdcr-conll")
    response = read(JUDGED / "response" / pair["response"], "cdcr-conll")
    scores = score_cross(key, response, METRICS, settings=CrossSettings(level="block"))
    for metric in ("muc", "bcub", "ceafm", "ceafe", "blanc"):
        _same_printed(_scorer_lines(scores, metric), pair["scorer_pl"][metric])
    lea = scores["lea"]
    assert [f"{float(x) * 100:.2f}" for x in (lea.recall, lea.precision, lea.f1)] == pair["coval"]["lea"]
    for metric in ("muc", "bcub", "ceafe"):
        ours = scores[metric]
        assert [f"{float(x) * 100:.2f}" for x in (ours.recall, ours.precision, ours.f1)] == pair["coval"][metric]


SYMMETRIC = [p for p in JUDGED_PAIRS if p["key"] == p["response"]]


@pytest.mark.parametrize("pair", SYMMETRIC, ids=lambda p: p["key"])
def test_ecbplus_sources_score_as_scorer_pl_on_the_files_the_scripts_made(pair, gum_key, gum_response):
    """The ECB+ key and response scored across documents with the settings a file name
    says equal what the reference scorer prints for the files get_ecb_data.py and
    conll.py made from them."""
    match = re.match(r"test_(events|entities|mixed)(_singletons)?_(topic|corpus)_level", pair["key"])
    assert match is not None
    settings = CrossSettings(level=match.group(3), keep_singletons=bool(match.group(2)),
                             mention_type={"events": "event", "entities": "entity", "mixed": "all"}[match.group(1)],
                             validated_only=True)
    scores = score_cross(gum_key, gum_response, METRICS, settings=settings)
    for metric in ("muc", "bcub", "ceafm", "ceafe", "blanc"):
        _same_printed(_scorer_lines(scores, metric), pair["scorer_pl"][metric])
    lea = scores["lea"]
    assert [f"{float(x) * 100:.2f}" for x in (lea.recall, lea.precision, lea.f1)] == pair["coval"]["lea"]


def test_topic_and_corpus_units_differ_only_where_links_cross_topics(gum_key, gum_response):
    topic = score_cross(gum_key, gum_response, METRICS, settings=CrossSettings(level="topic"))
    corpus = score_cross(gum_key, gum_response, METRICS, settings=CrossSettings(level="corpus"))
    for metric in ("muc", "bcub", "ceafe", "lea"):  # no chain crosses a topic: sums over topics
        assert topic[metric] == corpus[metric]
    assert topic["blanc"] != corpus["blanc"]  # non-coreference links across topics count at corpus level
    # a response that links across topics is penalised only at corpus level
    merged = gum_response.copy(cross_entities=[*gum_response.cross_entities, CrossEntity(
        id="ACROSS", members=((gum_response[0].name, gum_response[0].markables[0].id),
                              (gum_response[2].name, gum_response[2].markables[0].id)))])
    assert score_cross(gum_key, merged, ["muc"], settings=CrossSettings(level="corpus"))["muc"].precision < \
        corpus["muc"].precision
    assert score_cross(gum_key, merged, ["muc"], settings=CrossSettings(level="topic"))["muc"] == topic["muc"]


def test_within_document_units_are_the_per_document_scores(gum_key, gum_response):
    from corefio.scoring import score

    ours = score_cross(gum_key, gum_response, ["muc", "bcub", "ceafe"], settings=CrossSettings(level="document"))
    plain = score(gum_key, gum_response, ["muc", "bcub", "ceafe"])
    for metric in ("muc", "bcub", "ceafe"):
        assert ours[metric] == plain[metric]


def test_styles_table_shows_each_style_with_its_settings(gum_key, gum_response):
    rows = score_styles(gum_key, gum_response, ["cattan2021", "topic"])
    assert [(r.style.name, r.mention_type) for r in rows] == [
        ("cattan2021", "event"), ("cattan2021", "entity"), ("cattan2021", "all"), ("topic", "event"),
        ("topic", "entity")]
    cattan = score_cross(gum_key, gum_response, STYLES["cattan2021"].metrics,
                         settings=CrossSettings("corpus", False, "event", True))
    assert rows[0].scores["conll"] == cattan["conll"]
    table = styles_table(rows)
    assert "dropped" in table and "kept" in table
    assert f"{float(cattan['conll'].f1) * 100:.2f}" in table.splitlines()[2]
    with pytest.raises(UsageError, match="unknown evaluation style"):
        score_styles(gum_key, gum_response, ["nope"])


def test_a_response_document_with_other_words_is_refused(gum_key, gum_response):
    other = gum_response.copy(documents=[gum_response[0].copy(
        tokens=gum_response[0].tokens.copy(forms=gum_response[0].tokens.forms[:-1],
                                           ids=gum_response[0].tokens.ids[:-1]),
        sentences=[], markables=[m for m in gum_response[0].markables
                                 if m.spans[-1][1] < len(gum_response[0].tokens) - 1]), *gum_response[1:]])
    with pytest.raises(CorefioError, match="same texts"):
        score_cross(gum_key, other, ["muc"])


def test_missing_response_documents_need_allow_missing(gum_key, gum_response):
    partial = gum_response.copy(documents=gum_response.documents[1:])
    with pytest.raises(CorefioError, match="missing"):
        score_cross(gum_key, partial, ["muc"])
    scores = score_cross(gum_key, partial, ["muc"], allow_missing=True)
    assert scores["muc"].recall < 1


# -- the command line -------------------------------------------------------------------------------
def _cli(*args: str):
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parent.parent))
    return subprocess.run([sys.executable, "-m", "corefio", *args], capture_output=True, text=True, env=env,
                          timeout=600)


def test_cli_cross_document_scores_and_styles(gum_key, gum_response):
    done = _cli("score", str(GUM / "key"), str(GUM / "response"), "--cross-document", "corpus", "--mention-type",
                "entity", "--drop-singletons", "--validated-only", "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    expected = score_cross(gum_key, gum_response, ["muc", "bcub", "ceafe", "lea", "conll"],
                           settings=CrossSettings("corpus", False, "entity", True))
    assert data["corpus"]["conll"]["f1"] == pytest.approx(float(expected["conll"].f1))
    table = _cli("score", str(GUM / "key"), str(GUM / "response"), "--style", "all", "--jobs", "1")
    assert table.returncode == 0, table.stderr
    assert [line.split()[0] for line in table.stdout.splitlines()[2:]] == [
        name for name, style in STYLES.items() for _ in style.mention_types]
    bad = _cli("score", str(GUM / "key"), str(GUM / "response"), "--cross-document", "chapter")
    assert bad.returncode == 2 and "unknown cross-document level" in bad.stderr


def test_cli_blocks_of_meta_documents_print_the_reference_scorers_lines():
    pair = JUDGED_PAIRS[0]
    done = _cli("score", str(JUDGED / "key" / pair["key"]), str(JUDGED / "response" / pair["response"]),
                "--from", "cdcr-conll", "--cross-document", "block", "-m", "muc", "--format", "scorer", "--jobs", "2")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if "Recall:" in line]
    assert lines[-2:] == pair["scorer_pl"]["muc"]


# -- other formats carry the layer or say they lose it ---------------------------------------------
def test_raf_carries_the_cross_document_entities(gum_key):
    text = dumps(gum_key, "raf")
    text = text.decode("utf-8") if isinstance(text, bytes) else text
    assert '<feat type="cross_entity">' in text
    from corefio.formats.readwrite import loads

    again = loads(text, "raf")
    assert again.cross_entities == gum_key.cross_entities and again.documents == gum_key.documents


def test_formats_without_the_layer_report_its_loss(gum_key):
    report = Report()
    dumps(gum_key, "conll", report=report)
    lost = report.by_code("loss.cross_document")
    assert lost and lost[0].count == len(gum_key.cross_entities)
    report = Report()
    dumps(gum_key, "cdcr-conll", report=report)
    assert not report.by_code("loss.cross_document")


def test_api_names():
    import corefio

    scores = corefio.score_cross(MINI, MINI, ["muc"], key_format="ecbplus", response_format="ecbplus",
                                 settings=CrossSettings(level="corpus"))
    assert scores["muc"].f1 == 1
    rows = corefio.score_styles(MINI, MINI, ["topic"], key_format="ecbplus", response_format="ecbplus")
    assert [r.mention_type for r in rows] == ["event", "entity"]


# -- error analysis and significance across documents ----------------------------------------------
def test_error_analysis_across_documents_finds_what_documents_alone_hide():
    from corefio.scoring.crossdoc import analyse_cross

    key = read(MINI, "ecbplus")
    cut = key.copy(cross_entities=[])  # every document keeps its chains; the links across documents are gone
    within = analyse_cross(key, cut, CrossSettings(level="document"))
    across = analyse_cross(key, cut, CrossSettings(level="topic"))
    assert all(count == 0 for count in within.counts.values())
    assert across.counts["divided_entity"] == 2  # HUM1 and ACT1, each split between the two documents
    merged = key.copy(cross_entities=[*key.cross_entities, CrossEntity(id="X", members=(("1_1ecb", "5"),
                                                                                         ("1_2ecbplus", "5")))])
    assert analyse_cross(key, merged, CrossSettings(level="topic")).counts["conflated_entities"] == 1


def test_compare_resamples_topics(gum_key, gum_response):
    from corefio.scoring.significance import compare_cross

    result = compare_cross(gum_key, [gum_response, gum_key], ["muc", "conll"], names=["baseline", "gold"],
                           samples=64, seed=7, settings=CrossSettings(level="topic"))
    assert result.documents == ["36", "37", "38"]
    f1 = {(r.system, r.metric): r.f1 for r in result.results}
    expected = score_cross(gum_key, gum_response, ["muc"], settings=CrossSettings(level="topic"))
    assert f1[("baseline", "muc")] == pytest.approx(float(expected["muc"].f1))
    assert f1[("gold", "conll")] == pytest.approx(1.0)
    assert any("topics" in note for note in result.notes)


def test_key_vs_response_view_across_the_documents_of_a_topic(tmp_path):
    from corefio.scoring.crossdoc import analyse_cross
    from corefio.web import view

    key, response = read(SAMPLES / "key", "ecbplus"), read(SAMPLES / "response", "ecbplus")
    shown = view.unit_documents(key, response, CrossSettings(level="topic"))
    assert [label for label, _, _ in shown] == ["1"]
    _, k, r = shown[0]
    assert k.tokens.forms == key[0].tokens.forms + key[1].tokens.forms
    assert {s.first for s in k.sentences} >= {0, len(key[0].tokens)}  # a document starts a sentence
    page = view.build(k, r, page_tokens=None)
    expected = analyse_cross(key, response, CrossSettings(level="topic")).counts
    assert page.error_counts == dict(expected) and expected["divided_entity"] == 1
    assert expected["conflated_entities"] == 1
    done = _cli("view", str(SAMPLES / "key"), "--response", str(SAMPLES / "response"), "--cross-document", "topic",
                "-o", str(tmp_path / "view.html"))
    assert done.returncode == 0, done.stderr
    assert "topic 1" in (tmp_path / "view.html").read_text()


def test_ecbplus_writer_reports_the_metadata_it_cannot_hold():
    from corefio.formats.ecbplus import write_files

    corpus = read(MINI, "ecbplus")
    extra = corpus.copy(documents=[corpus[0].copy(metadata={**corpus[0].metadata, "genre": "news"}), corpus[1]])
    report = Report()
    files = write_files(extra, report=report)
    assert [d.examples for d in report.by_code("loss.metadata")] == [["genre"]]
    assert b"genre" not in b"".join(files.values())
    report = Report()
    write_files(corpus, report=report)
    assert not report.by_code("loss.metadata")


# -- byte-for-byte round trips ----------------------------------------------------------------------
@pytest.mark.parametrize("path", sorted((JUDGED / "key").glob("*.conll")) + sorted((JUDGED / "response").glob("*.conll")),
                         ids=lambda p: f"{p.parent.name}/{p.name}")
def test_the_scripts_meta_document_files_are_written_back_byte_for_byte(path):
    corpus = read(path, "cdcr-conll")
    unit = "corpus" if "corpus_level" in path.name else "topic"
    assert dumps(corpus, "cdcr-conll", unit=unit) == path.read_text()


def test_gvc_reads_and_writes_back_byte_for_byte():
    """A file in GVC's published layout (README of cltl/GunViolenceCorpus; Bugert et
    al.'s reader): creation time line, TITLE and BODY sentences, event clusters over the
    corpus. Built by us: GVC's files are too large for the snapshots."""
    path = DATA / "gvc-mini" / "gold.conll"
    corpus = read(path, "cdcr-conll")
    assert corpus.metadata["cdcr_layout"] == "gvc"
    first = corpus[0]
    assert first.metadata["dct"] == "2017-01-15" and first.metadata[TOPIC] == "gun_violence"
    assert [(s.id, s.attributes["type"]) for s in first.sentences] == [("t1", "TITLE"), ("b1", "BODY")]
    assert all(m.attributes["kind"] == "event" for d in corpus for m in d.markables)
    assert [e.id for e in corpus.cross_entities] == ["12"]
    assert dumps(corpus, "cdcr-conll", layout="gvc") == path.read_text()
    # incidents as subtopics from a mapping file; every incident a unit
    scores = score_cross(path, path, ["muc"], key_format="cdcr-conll", response_format="cdcr-conll",
                         topics=DATA / "gvc-mini" / "doc_to_incident.tsv", settings=CrossSettings(level="subtopic"),
                         per_unit=True)
    assert [d.name for d in scores.documents] == ["gun_violence/101"] and scores["muc"].f1 == 1


def test_the_documentation_shows_the_styles_as_the_registry_has_them():
    """The cross-document guide shows the styles table the registry makes (the docs hook
    puts :func:`styles_help` in place of its marker) and the one command that prints a
    CDCR paper's table."""
    import sys

    from corefio.scoring.crossdoc import styles_help

    docs = Path(__file__).resolve().parent.parent / "docs"
    guide = (docs / "guide" / "cross-document.md").read_text(encoding="utf-8")
    assert "corefio score samples/cdcr/key samples/cdcr/response --style all" in guide
    sys.path.insert(0, str(docs / "_hooks"))
    try:
        import corefio_docs
    finally:
        sys.path.remove(str(docs / "_hooks"))
    assert "<!-- corefio:cdcr-styles -->" in guide
    assert styles_help() in corefio_docs.on_page_markdown(guide, None, None, None)


def test_two_ecbplus_documents_of_one_name_are_refused(tmp_path):
    import shutil

    shutil.copytree(MINI / "ECB+", tmp_path / "ECB+")
    (tmp_path / "ECB+" / "2").mkdir()
    shutil.copy(MINI / "ECB+" / "1" / "1_1ecb.xml", tmp_path / "ECB+" / "2" / "1_1ecb.xml")
    with pytest.raises(FormatError, match="two documents are named '1_1ecb'"):
        read(tmp_path, "ecbplus")


# -- regressions found by the fuzzer -----------------------------------------------------------------
def test_damaged_mention_files_are_refused_with_a_line():
    with pytest.raises(FormatError) as info:  # a number Python will not convert
        read(b'[{"doc_id": "a", "mention_context": [' + b"9" * 5000 + b"]}]", "wec")
    assert info.value.line == 1
    with pytest.raises(FormatError, match="nested too deeply"):
        read(b"[" * 100_000, "wec")
    with pytest.raises(FormatError) as info:
        read(b'[\n {"doc_id": "a", "mention_context": ["x"], "coref_chain": 1, "tokens_number": [0]},\n'
             b' {"doc_id": "a", "mention_context": ["x"], "coref_chain": 1, "tokens_number": [5]}\n]', "wec")
    assert info.value.line == 3 and "outside its context" in str(info.value)
    with pytest.raises(FormatError) as info:
        read(b"\n\n\xaf", "wec")
    assert info.value.line == 3


def test_meta_documents_cut_short_are_refused_with_a_line():
    with pytest.raises(FormatError) as info:
        read(b"#begin document x\n", "cdcr-conll")
    assert "ends inside a block" in str(info.value) and info.value.line == 1
    with pytest.raises(FormatError) as info:
        read(b"# a comment\n", "cdcr-conll")
    assert info.value.line == 1


def test_words_a_meta_document_cannot_hold_are_reported():
    from corefio.model import Document, Markable, Tokens

    doc = Document(name="d", tokens=Tokens(forms=["a", "", "b\tc"]), markables=[Markable(id="m", spans=((0, 0),))])
    report = Report()
    text = dumps(doc, "cdcr-conll", report=report)
    assert report.by_code("loss.form") and report.by_code("loss.form")[0].count == 2
    assert [line.split("\t")[5] for line in text.splitlines() if "\t" in line] == ["a", "_", "b c"]


def test_units_shared_between_processes_give_the_same_scores(gum_key, gum_response):
    one = score_cross(gum_key, gum_response, METRICS, settings=CrossSettings(level="topic"), per_unit=True, workers=1)
    two = score_cross(gum_key, gum_response, METRICS, settings=CrossSettings(level="topic"), per_unit=True, workers=2)
    assert all(one[m] == two[m] for m in METRICS)
    assert [d.name for d in two.documents] == [d.name for d in one.documents] == ["36", "37", "38"]


# -- found by the fuzzer (seed 2026112705): located refusals and reported renames ---------------
@pytest.mark.parametrize("text,found", [
    ('[\n { "doc_id": "", "mention_context": [\n],"tokens_number": [ 1e999], "": ""\n },\n { "doc_id": "",\n'
     '  "mention_context": [\n  ],"to": " f3"\n }\n]\n', "tokens_number"),
    ('[{"doc_id":"","mention_context":["\\ud800",""], "": []\n }\n]', "half of a surrogate pair"),
])
def test_wec_refuses_what_it_cannot_hold_at_a_line(tmp_path, text, found):
    path = tmp_path / "mentions.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(corefio.FormatError, match=found) as caught:
        corefio.read(path, format="wec")
    assert caught.value.line is not None


def test_wec_says_when_a_document_name_does_not_come_back(tmp_path):
    """A WEC document is its doc_id and its context: a name with a '#' of its own comes
    back whole; one ending like the reader's own '#N' (but a lone context) comes back
    without it, and the writer says so."""
    from corefio.model import Corpus, Document, Markable, Tokens

    doc = Document(name="LuoTestC#ase", tokens=Tokens(forms=["a1", "a2"]),
                   markables=[Markable(id="1", spans=((0, 1),), entity="0")])
    plain = Report()
    data = corefio.dumps(Corpus(documents=[doc]), "wec", report=plain)
    assert "loss.document-name" not in plain.codes()
    assert corefio.loads(data, "wec").documents[0].name == "LuoTestC#ase"
    report = Report()
    data = corefio.dumps(Corpus(documents=[doc.copy(name="LuoTestCase#2")]), "wec", report=report)
    assert "loss.document-name" in report.codes()
    assert corefio.loads(data, "wec").documents[0].name == "LuoTestCase"
