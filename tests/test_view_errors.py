"""The key vs response view marks Kummerfeld & Klein's error classes (corefio.web.view):
the marks are the error analysis' own (same counts, on a hand-built case with exactly
one error of each class and on random partitions), chain colours keep away from error
colours, and `corefio view KEY --response RESPONSE` writes the same marks.

The case's span error follows the head rule of head matching
(:mod:`corefio.scoring.error_analysis`): without annotated heads a mention is headed by
its first word, so the wrong span "the old man sat" for "the old man" is a span error
and "old man" is not; with heads given (the last word, as the Berkeley analyser finds
them on a flat parse: tests/test_web_compare_external.py) "old man" is."""

from __future__ import annotations

import random
import re

import pytest

import corefio
from corefio.model.mentions import Mention, MentionView
from corefio.model import Corpus, Document, Markable, Sentence, Tokens
from corefio.scoring.error_analysis import ERROR_CLASSES, analyse_document
from corefio.web import view

FILLER = "the afternoon went on quietly and nothing else happened in the valley".split()


def one_of_each(filler_sentences: int = 0, heads: bool = False) -> tuple[Document, Document, dict[str, dict]]:
    """A key and a response with exactly one error of each class, and for each class the
    mentions (token spans) its mark must cover on each side. ``filler_sentences`` of
    plain text go between the sentences (a long text, for scrolling).

    The span error: without heads (udapi's rule, the first word), the response extends
    "the old man" to "the old man sat"; with ``heads``, every mention is headed by its
    last word and the response cuts it to "old man" (the case the Berkeley analyser
    was run on)."""
    forms: list[str] = []
    sentences: list[Sentence] = []

    def sentence(text: str) -> dict[str, tuple[int, int]]:
        """Add a sentence; words written ``[a b]name`` give the span ``name``."""
        spans: dict[str, tuple[int, int]] = {}
        first = len(forms)
        for match in re.finditer(r"\[([^\]]+)\](\w+)|(\S+)", text):
            words = (match.group(1) or match.group(3)).split()
            if match.group(2):
                spans[match.group(2)] = (len(forms), len(forms) + len(words) - 1)
            forms.extend(words)
        sentences.append(Sentence(first=first, last=len(forms) - 1))
        for _ in range(filler_sentences):
            start = len(forms)
            forms.extend(FILLER)
            sentences.append(Sentence(first=start, last=len(forms) - 1))
        return spans

    s = {}
    s.update(sentence("[Anna]a1 walked [the dog]b1 and [she]a2 fed [it]b2 in [the park]x1 ."))
    s.update(sentence("Later [her]a3 friend met [the cat]c1 , and [the cat]c2 purred ."))
    s.update(sentence("[Some]y1 say [nothing]y2 ever happens here ."))
    s.update(sentence("[The mayor]d1 spoke ; [he]d2 was brief , and [the man]d3 left ."))
    s.update(sentence("[A storm]e1 came , and [it]e2 passed ."))
    s.update(sentence("[the old man]f1 sat , [old]g1 and tired , and [he]f2 slept ."))

    def mk(name: str, entity: str, spans: tuple[int, int]) -> Markable:
        head = ((spans[1], spans[1]),) if heads else None
        return Markable(id=name, spans=(spans,), entity=entity, head=head)

    key_entities = {"A": ["a1", "a2", "a3"], "B": ["b1", "b2"], "C": ["c1", "c2"], "D": ["d1", "d2", "d3"],
                    "E": ["e1", "e2"], "F": ["f1", "f2"]}
    # a wrong span of "the old man" with the same head: "old man" (heads on the last
    # word) or "the old man sat" (heads on the first word)
    s["oldman"] = (s["f1"][0] + 1, s["f1"][1]) if heads else (s["f1"][0], s["f1"][1] + 1)
    response_entities = {"A": ["a1", "a2", "x1"], "A2": ["a3"], "BC": ["b1", "b2", "c1", "c2"],
                         "Y": ["y1", "y2"], "D": ["d1", "d2"], "F": ["oldman", "f2"]}
    tokens = Tokens(forms=forms)
    key = Document(name="case", tokens=tokens, sentences=sentences,
                   markables=[mk(n, e, s[n]) for e, names in key_entities.items() for n in names])
    response = Document(name="case", tokens=tokens, sentences=sentences,
                        markables=[mk(n, e, s[n]) for e, names in response_entities.items() for n in names])

    def t(*names: str) -> list[str]:
        return [view.target_id((s[n],), None) for n in names]

    expected = {
        "span_error": {"key": t("f1"), "response": t("oldman")},
        "conflated_entities": {"key": t("c1", "c2"), "response": t("c1", "c2")},
        "extra_mention": {"key": [], "response": t("x1")},
        "extra_entity": {"key": [], "response": t("y1", "y2")},
        "missing_mention": {"key": t("d3"), "response": []},
        "missing_entity": {"key": t("e1", "e2"), "response": []},
        "divided_entity": {"key": t("a3"), "response": t("a3")},
    }
    return key, response, expected


@pytest.mark.parametrize("heads", [False, True])
def test_the_hand_built_case_has_one_error_of_each_class_by_the_analysis_itself(heads):
    key, response, _ = one_of_each(heads=heads)
    kv, rv = view.prepared_views(key, response)
    assert dict(analyse_document(kv, rv).counts) == {name: 1 for name in ERROR_CLASSES}


@pytest.mark.parametrize("heads", [False, True])
def test_the_span_error_follows_the_head_rule_of_head_matching(heads):
    """The other case's wrong span has another head: no span error, but an extra and a
    missing mention (the issue's "the big dog barked" for "the big dog", defect 13)."""
    key, response, _ = one_of_each(heads=not heads)
    wrong = next(m for m in response.markables if m.id == "oldman")
    response = response.model_copy(update={"markables": [
        m.model_copy(update={"head": ((m.spans[0][1],) * 2,) if heads else None}) for m in response.markables]})
    key = key.model_copy(update={"markables": [
        m.model_copy(update={"head": ((m.spans[0][1],) * 2,) if heads else None}) for m in key.markables]})
    kv, rv = view.prepared_views(key, response)
    counts = analyse_document(kv, rv).counts
    assert (counts["span_error"], counts["extra_mention"], counts["missing_mention"]) == (0, 2, 2)
    # and head matching, which the span errors follow, leaves the two unpaired as well
    kv, rv = view.prepared_views(key, response, match="head")
    assert wrong.spans in {mm.spans for chain in rv.mentions for mm in chain}


@pytest.mark.parametrize("filler", [0, 3])
def test_each_error_marks_exactly_its_mentions(filler):
    key, response, expected = one_of_each(filler)
    v = view.build(key, response)
    assert v.error_counts == {name: 1 for name in ERROR_CLASSES}
    assert [kind for kind, _, _ in v.legend] == list(ERROR_CLASSES)
    by_kind = {e.kind: e for e in v.errors}
    for kind, sides in expected.items():
        assert sorted(by_kind[kind].key) == sorted(sides["key"]), kind
        assert sorted(by_kind[kind].response) == sorted(sides["response"]), kind
    # listed in text order, numbered in that order
    assert [e.first for e in v.errors] == sorted(e.first for e in v.errors)
    assert [e.id for e in v.errors] == [f"e{n}" for n in range(1, 8)]
    # the brackets carry the marks: each marked target's brackets name the error
    for side_name, side in (("key", v.key), ("response", v.response)):
        marked: dict[str, set[str]] = {}
        for tok in side.tokens:
            for b in tok.opens:
                if b.errors:
                    marked[b.target] = set(b.errors.split())
                    assert b.status.startswith("err ")
                else:
                    assert b.status == ""
        wanted: dict[str, set[str]] = {}
        for e in v.errors:
            for target in getattr(e, side_name):
                wanted.setdefault(target, set()).add(e.id)
        assert marked == wanted, side_name
    # no mention outside an error is marked: the key's correct entity B has no mark
    b_targets = {view.target_id(m.spans, None) for m in key.markables if m.entity == "B"}
    assert not b_targets & {t for e in v.errors for t in e.key}


def test_a_perfect_response_has_no_mark():
    key, _, _ = one_of_each()
    v = view.build(key, key)
    assert v.errors == [] and set(v.error_counts.values()) == {0}
    assert not [b for tok in v.key.tokens + v.response.tokens for b in tok.opens + tok.closes if b.status]


def random_view(rng: random.Random, label: str, n_tokens: int, mentions: int, entities: int) -> MentionView:
    spans = set()
    while len(spans) < mentions:
        a = rng.randrange(n_tokens)
        spans.add(((a, min(n_tokens - 1, a + rng.randrange(3))),))
    chains: dict[int, list[Mention]] = {}
    for sp in sorted(spans):
        head = ((sp[0][1], sp[0][1]),) if rng.random() < 0.5 else None
        chains.setdefault(rng.randrange(entities), []).append(Mention(sp, head=head))
    return MentionView(label, ["w"] * n_tokens, list(chains.values()))


def test_the_marks_count_what_the_analysis_counts_on_random_partitions():
    from corefio.scoring.error_analysis import _heads
    from corefio.scoring.views import partition

    rng = random.Random(23)
    for _ in range(400):
        n = rng.randrange(4, 30)
        kv = random_view(rng, "d", n, rng.randrange(1, n), rng.randrange(1, 6))
        rv = random_view(rng, "d", n, rng.randrange(1, n), rng.randrange(1, 6))
        counts = analyse_document(kv, rv).counts
        marks = view.classify(partition(kv, None, "key"), partition(rv, None, "response"), _heads(kv), _heads(rv))
        got = {name: sum(m.kind == name for m in marks) for name in ERROR_CLASSES}
        assert got == dict(counts)


def test_chain_colours_never_come_near_an_error_colour():
    error_hues = {look.hue for look in view.ERROR_LOOK.values()}

    def apart(a: int, b: int) -> int:
        return min((a - b) % 360, (b - a) % 360)

    chain_hues = {view.hue(i) for i in range(2000)}
    assert len(chain_hues) > 100  # many distinct chain colours still
    assert min(apart(c, e) for c in chain_hues for e in error_hues) >= 30
    # the stylesheet gives each error class the hue view.py names
    css = (view.__file__.rsplit("/", 1)[0] + "/static/app.css")
    text = open(css, encoding="utf-8").read()
    for look in view.ERROR_LOOK.values():
        assert re.search(r"\." + re.escape(look.css) + r"\b[^{]*\{ --e: " + str(look.hue) + ";", text), look.css


def test_cli_view_with_a_response_writes_the_marks(tmp_path, cli):
    key, response, expected = one_of_each()
    kf, rf = tmp_path / "key.raf.xml", tmp_path / "response.raf.xml"
    kf.write_bytes(corefio.dumps(Corpus(documents=[key]), "raf"))
    rf.write_bytes(corefio.dumps(Corpus(documents=[response]), "raf"))
    out = tmp_path / "view.html"
    result = cli("view", str(kf), "--response", str(rf), "-o", str(out))
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    counts = dict(re.findall(r'data-kind="(\w+)">.*?<b class="count">(\d+)</b>', page))
    assert counts == {name: "1" for name in ERROR_CLASSES}
    key_part, response_part = page.split('id="side-response-1"')
    for kind, sides in expected.items():
        css = view.ERROR_LOOK[kind].css
        for part, targets in ((key_part, sides["key"]), (response_part, sides["response"])):
            shown = set(re.findall(r'class="br open err[^"]*\b' + re.escape(css) + r'\b[^"]*" data-t="([^"]+)"',
                                   part))
            assert shown == set(targets), kind
    # self-contained: the styles and the script are inside, nothing is loaded
    assert "<style>" in page and "function pairView" in page and 'src="' not in page and 'href="/' not in page
    assert len(re.findall(r'class="error-item"', page)) == 7
    # unknown matching mode: a usage error, no file
    bad = cli("view", str(kf), "--response", str(rf), "--match", "fuzzy", "-o", str(tmp_path / "x.html"))
    assert bad.exit_code == 2 and not (tmp_path / "x.html").exists()


def test_cli_view_pairs_documents_as_score_does(tmp_path, cli):
    """A response whose one document has another name: view pairs it with the key's one
    document, as score does (and says so); --pair-by order and --pairs show the pair too."""
    key, response, _ = one_of_each()
    kf, rf = tmp_path / "key.raf.xml", tmp_path / "response.raf.xml"
    kf.write_bytes(corefio.dumps(Corpus(documents=[key]), "raf"))
    rf.write_bytes(corefio.dumps(Corpus(documents=[response.copy(name="elsewhere")]), "raf"))
    paired = cli("view", str(kf), "--response", str(rf), "-o", str(tmp_path / "one.html"))
    assert paired.exit_code == 0, paired.output
    assert (tmp_path / "one.html").read_text(encoding="utf-8").count('class="error-item"') == 7
    shown = cli("view", str(kf), "--response", str(rf), "--pair-by", "order", "-o", str(tmp_path / "v.html"))
    assert shown.exit_code == 0, shown.output
    assert (tmp_path / "v.html").read_text(encoding="utf-8").count('class="error-item"') == 7
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text(f"{key.name}\telsewhere\n")
    by_file = cli("view", str(kf), "--response", str(rf), "--pairs", str(pairs), "-o", str(tmp_path / "p.html"))
    assert by_file.exit_code == 0, by_file.output


def test_the_view_counts_the_mentions_scoring_counts_without_singletons():
    """Head matching without singletons: singletons leave before matching, in the view
    as in scoring (the GUM window where dropping them after matching paired one fewer)."""
    from pathlib import Path

    from corefio.web.view import scored_chains

    folder = Path(__file__).parent / "data" / "wild" / "conllu" / "gum"
    key = corefio.read(folder / "GUM_interview_gaming.window.conllu").documents[0]
    response = corefio.read(folder / "GUM_interview_gaming.window.response.conllu").documents[0]
    kp, rp = scored_chains(key, response, match="head", keep_singletons=False)
    scores = corefio.score(key, response, ["muc"], match="head", keep_singletons=False)
    matched = len({s for c in kp for s in c} & {s for c in rp for s in c})
    assert matched == scores.corpus["mentions"].recall_num
