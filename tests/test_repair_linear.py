"""Repair and MUC reading do work linear in the size of the input, whatever it holds
(issue #25: 80 KB of ``<!--`` took 12 s, 200 KB over a minute, from ``corefio repair``,
every MUC command and the RAF reader's lenient mode), and the linear lexers cut the text
exactly as the regular expressions they replace did.

The work is counted (:func:`corefio.io.repair.counting`: characters the searches looked
at, and loop steps), never timed: a count is the same on a loaded machine.
``benchmarks/bench_linear.py`` times the same inputs."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

import corefio
from corefio.io import repair
from corefio.formats.muc import _Markup

from .conftest import campaign, shared_data



def repeat(piece: str, before: str = "", after: str = "") -> Callable[[int], str]:
    """``piece`` repeated to about ``size`` characters, between ``before`` and ``after``."""
    return lambda size: before + piece * max(1, size // len(piece)) + after


def crossing_ends(size: int) -> str:
    """k <a> inside which k <b>, then the k </a> before the k </b>: each </a> closes every
    <b> above it, and reopening them all at each one would give k² tags."""
    k = max(1, size // 14)
    return "<a>" * k + "<b>" * k + "</a>" * k + "</b>" * k


#: inputs that made (or could make) a lexer or a fixer rescan the text: name → size → text
PATTERNS: dict[str, Callable[[int], str]] = {
    "unclosed-comment": repeat("<!--"),
    "unclosed-pi": repeat("<?"),
    "unclosed-cdata": repeat("<![CDATA["),
    "unclosed-doctype-subset": repeat("<!DOCTYPE x ["),
    "unclosed-doctype": repeat("<!DOCTYPE x"),
    "unclosed-declaration": repeat("<!x"),
    "less-than-run": repeat("<"),
    "unclosed-tag": repeat("<a "),
    "unclosed-double-quote": repeat('<a b="'),
    "unclosed-single-quote": repeat("<a b='"),
    "quotes-holding-tags": repeat("<a b=\"<a c='\" d='<a e=\"' "),
    "ampersand-run": repeat("&"),
    "unterminated-references": repeat("&a"),
    "unterminated-char-references": repeat("&#x1"),
    "long-tag-name": repeat("a", "<"),
    "long-entity-name": repeat("a", "&"),
    "many-attributes-unclosed": repeat(' b="c"', "<a"),
    "many-attributes": repeat(" b=c", "<a", ">x</a>"),
    "deep-unclosed-tags": repeat("<a><b>"),
    "deep-same-tags": repeat("<p>"),
    "crossing-end-tags": crossing_ends,
    "stray-end-tags": lambda size: "<x>" * (size // 8) + "</y>" * (size // 8),
    "leading-comments": repeat("<!-- c -->", "", "<a/>"),
    "muc-unclosed-comments": repeat("<!--", "<DOC><TEXT>", "</TEXT></DOC>"),
    "muc-unclosed-quotes": repeat('<COREF ID="', "<DOC><TEXT>", "</TEXT></DOC>"),
}


#: the work a lexer or fixer may do per character of its input (measured: at most 4.2)
PER_CHARACTER = 8
#: how much more than ``factor`` times the work an input ``factor`` times larger may take
SLACK = 1.5


def work_of(run: Callable[[], object]) -> int:
    """The work :func:`repair.counting` counts while ``run`` runs (characters the
    searches and matches looked at, and steps)."""
    with repair.counting() as work:
        run()
    return work.total


def grows_linearly(work: Callable[[str], object], make: Callable[[int], str], size: int = 8000,
                   factor: int = 8, per_character: int = PER_CHARACTER) -> tuple[bool, int, int]:
    """Does ``work`` on an input ``factor`` times larger count at most ``factor * SLACK``
    times as much work, and at most ``per_character`` a character? Work that rescans
    the text counts ``factor`` times more than that. Counts, not seconds: the same on a
    loaded machine."""
    small, large = make(size), make(size * factor)
    w_small = work_of(lambda: work(small))
    w_large = work_of(lambda: work(large))
    return (0 < w_large <= factor * SLACK * w_small and w_large <= per_character * len(large)), w_small, w_large


def muc_read(text: str) -> object:
    try:
        return corefio.read(text.encode("utf-8"), format="muc")
    except corefio.FormatError:
        return None  # refused: the work up to the refusal is what counts


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_repair_work_grows_linearly(name):
    ok, small, large = grows_linearly(lambda text: repair.repair_text(text), PATTERNS[name])
    assert ok, f"{name}: work {small}, then {large} for 8 times the input"


@pytest.mark.parametrize("name", ["unclosed-comment", "unclosed-pi", "unclosed-declaration", "unclosed-tag",
                                  "unclosed-double-quote", "quotes-holding-tags", "long-tag-name",
                                  "muc-unclosed-comments", "muc-unclosed-quotes"])
def test_muc_reading_work_grows_linearly(name):
    make = PATTERNS[name]
    if not name.startswith("muc-"):
        plain = make
        make = lambda size: "<DOC><TEXT>" + plain(size) + "</TEXT></DOC>"  # noqa: E731
    ok, small, large = grows_linearly(muc_read, make)
    assert ok, f"{name}: work {small}, then {large} for 8 times the input"


def test_the_count_sees_a_lexer_that_searches_again(monkeypatch):
    """The counter would catch the quadratic lexer of issue #25: with the memory of
    :class:`repair.NextOccurrence` taken away, each unclosed ``<!--`` searches the rest
    of the text, and the work grows with the square of the input."""
    def forgetful(self, pos):
        self.searched_from = len(self.text) + 1  # forget the last search
        return original(self, pos)

    original = repair.NextOccurrence.at
    monkeypatch.setattr(repair.NextOccurrence, "at", forgetful)
    ok, small, large = grows_linearly(lambda text: repair.repair_text(text), PATTERNS["unclosed-comment"])
    assert not ok and large > 40 * small
    ok, small, large = grows_linearly(muc_read, PATTERNS["muc-unclosed-comments"])
    assert not ok and large > 40 * small


def test_nothing_is_counted_outside_counting():
    assert repair.current_work() is None
    with repair.counting() as work:
        repair.repair_text("<a><!-- x</a>")
        assert repair.current_work() is work and work.chars > 0 and work.steps > 0
    assert repair.current_work() is None


@pytest.mark.parametrize("name", ["S07_muc_unclosed_comments_80KB.sgm", "S08_xml_unclosed_pi_40KB.xml",
                                  "S09_raf_unclosed_comments_80KB.raf.xml"])
def test_reproducers_repair_with_linear_work(name, tmp_path):
    path = tmp_path / name
    shutil.copy(shared_data(f"reproducers/{name}"), path)
    data = path.read_bytes()
    work = work_of(lambda: repair.repair_bytes(data))
    assert work <= PER_CHARACTER * len(data), f"{name}: work {work} for {len(data)} bytes"
    fixed, changes = repair.repair_bytes(data)
    assert repair.character_data(fixed.decode("utf-8")) == repair.character_data(repair.decode(data)[0])
    assert changes


def test_reproducers_read_with_linear_work(tmp_path):
    """The MUC reader (its own markup scanner) reads or refuses S07 with linear work; the
    RAF reader refuses S09 (not well-formed) without running the repair lexer at all."""
    name = "S07_muc_unclosed_comments_80KB.sgm"
    path = tmp_path / name
    shutil.copy(shared_data(f"reproducers/{name}"), path)
    work = work_of(lambda: muc_read(path.read_text("utf-8")))
    assert 0 < work <= PER_CHARACTER * path.stat().st_size
    name = "S09_raf_unclosed_comments_80KB.raf.xml"
    path = tmp_path / name
    shutil.copy(shared_data(f"reproducers/{name}"), path)
    with repair.counting() as counted, pytest.raises(corefio.FormatError):
        corefio.read(path, format="raf")
    assert counted.total == 0


def test_crossing_end_tags_reopen_a_bounded_number_of_elements():
    text = crossing_ends(14 * 300)
    fixed, changes = repair.repair_text(text)
    assert fixed.count("<b>") <= 2 * text.count("<b>") + len(repair.lex(text))
    assert repair.character_data(fixed) == repair.character_data(text)
    assert any("too many elements reopened" in c.message for c in changes)
    assert repair.repair_text(fixed)[1] == []


# -- the linear lexers cut as the regular expressions did ----------------------------------------
#: the repair lexer's former regular expression (quadratic on unclosed constructs)
REPAIR_LEXER = re.compile(
    r"""(?P<comment><!--.*?-->)
      |(?P<cdata><!\[CDATA\[.*?\]\]>)
      |(?P<pi><\?.*?\?>)
      |(?P<doctype><!DOCTYPE[^\[>]*\[.*?\]\s*>)
      |(?P<decl><![A-Za-z][^>]*>)
      |(?P<tag></?[A-Za-z_:][-\w.:]*(?:\s+[^\s"'<>=/]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'<>]+))?)*\s*/?>)
      |(?P<ref>&(?:[A-Za-z_:][-\w.:]*|\#[0-9]+|\#x[0-9A-Fa-f]+);)
      |(?P<amp>&)
      |(?P<lt><)
      |(?P<text>[^<&]+)""",
    re.S | re.X,
)
#: the MUC reader's former markup expression
MUC_MARKUP = re.compile(r"""<(/?)([A-Za-z][-\w.:]*)((?:[^<>"']|"[^"]*"|'[^']*')*)>|<!--.*?-->|<![^<>]*>"""
                        r"""|<\?[^<>]*\?>""", re.S)
PIECES = st.sampled_from(["<", ">", "/", "=", '"', "'", " ", "\n", "\t", "a", "B", "é", ":", "_", "&", ";", "#",
                          "x", "1", "!", "?", "-", "[", "]", "<!--", "-->", "<![CDATA[", "]]>", "<?", "?>",
                          "<!DOCTYPE", "<a", "</a", " b=", "<COREF"])
XMLISH = st.lists(PIECES, max_size=30).map("".join)


@campaign(3000)
@given(XMLISH)
def test_repair_lexer_cuts_as_the_regular_expression_did(text):
    expected = [("decl" if m.lastgroup == "doctype" else m.lastgroup, m.start(), m.end())
                for m in REPAIR_LEXER.finditer(text)]
    assert list(repair._Scanner(text).spans()) == expected


@campaign(3000)
@given(XMLISH)
def test_muc_markup_scanner_finds_what_the_regular_expression_did(text):
    expected = [(m.start(), m.end(), m.group(1), m.group(2), m.group(3) or "") for m in MUC_MARKUP.finditer(text)]
    assert list(_Markup(text)) == expected
