"""CoNLL-2011/2012 (``.conll``, ``.v4_gold_conll``, ``.v4_auto_conll``, ...).

File structure::

    #begin document (NAME); part 000       one header per document (part)
    NAME  0  0  The  DT  (TOP(S(NP*  ...  (12        one token per line; columns
    NAME  0  1  man  NN  *)          ...  12)        separated by a TAB or aligned
                                                      with spaces; the coreference
    NAME  0  0  He   PRP ...              (12)       column is the LAST one
                                           <- a blank line ends a sentence
    #end document

A header line is ``#``, optional blanks, ``begin``, blanks, ``document``, then the end of
the line or a blank: ``#begin documenté`` is refused (it is neither a header nor a
comment one can trust), by the reader and by :func:`scan_keys` alike.

The coreference column, as a grammar::

    cell   := EMPTY | chunk (SEP? chunk)*
    EMPTY  := "-" | "_" | ""                  no mention starts or ends here
    SEP    := "|"                             optional between chunks (GUM omits it)
    chunk  := "(" LABEL ")"                   a one-token mention of LABEL
            | "(" LABEL                       a mention of LABEL starts here
            | LABEL ")"                       the innermost open mention of LABEL ends here
    LABEL  := any characters but ( ) | and whitespace   (usually digits; GUM: person-4)

Chunks are read left to right. A closer closes the most recently opened, still open
mention with the same label, so ``(1(1`` … ``1)1)`` nests two mentions of entity 1.
(The reference scorer reads single-token chunks first, then openers, then closers; the
two readings differ only on ``N)(N`` in one cell, where it pairs the closer with the new
opener. corefio follows the text order.) Mentions are numbered ``markable_1``… in the
order they are created: in each cell, ``(N)`` chunks before ``(N`` chunks, which is the
order in which the reference scorer first meets the labels; entities (chains) follow
the order of their first mention. That order matters when scoring duplicate mentions.

The writer's canonical cell puts openers first (the longest mention first), then
single-token mentions, then closers (the shortest mention first), separated by ``|``;
brackets are thus properly nested. What only CoNLL can use about a document — header
and end lines as written, the empty marker, the separator, the column layout and
delimiter, cells written in another order, comment and multi-word-token lines, lines
between documents, line ends — is kept in a :class:`ConllLayout` in
``Document.layout["conll"]``, so writing the document back gives the same bytes.
``canonical=True`` ignores it and writes what the reference scorer expects: numeric
labels, ``-`` and ``|``, 12 or more columns.

Column counts: every token line of a sentence has as many columns as the sentence's
first. A document whose lines have 12 columns or more (the CoNLL-2012 layout) may give
each sentence its own count: OntoNotes has one predicate-argument column per predicate
of the sentence (13 to 17 in one document is common); the reference scorer and every
system read the last column. The document's attributes then have the columns of its
widest sentence, with None where a sentence lacks a predicate-argument column, and the
writer leaves those out again, sentence by sentence (canonical output too). Space-aligned
files are written back with the padding they had (:attr:`ConllLayout.ends`).

The columns ``document_id``, ``part_number`` and ``word_number`` (and unnamed columns
of files with 3 or 4 columns) say nothing the document does not already say: they are
layout, kept only where they differ from what the writer derives. The other columns
(POS, parse bits, speaker, named entities, predicate arguments, and the CoNLL-U-like
columns of numbered files) are token attributes. Numbered files of 17 columns or more
are SemEval-2010 Task 1's layout (:data:`SEMEVAL_COLUMNS`: gold and predicted columns,
one argument column per predicate of the sentence); there ``-`` or ``_`` (whichever the
document uses more) is no value (None), and a column of nothing else is no attribute.

A mention may cross a sentence boundary: the reference scorer reads a document's
brackets token by token, blank lines left aside, and so do the reader and the writer.

Dialects read without fuss (reported as warnings; ``strict`` refuses them): ``part 0``,
``# begin document NAME`` without parentheses or part, an empty name, ``_`` or an empty
string as the empty value, chunks without ``|``, non-numeric labels (``person-6``),
2-, 3- or 5-column files, CoNLL-U-like files with multi-word-token lines, comment lines.
Refused with the file and line: a document mixing TAB-separated and space-separated
token lines (written back, one of them would change), line ends that mix CRLF and LF,
part numbers that are not ASCII digits or longer than 18 digits, text other than
comments and blank lines outside documents, a file without a document (empty, or
only comments and blank lines: converting it would write an empty file), a document
without its ``#end document`` line (a cut file).
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ..diagnostics import Report
from ..errors import FormatError, ModelError
from .losses import LossLog
from ..model.mentions import Mention, MentionView, POS_COLUMNS, document_label
from ..io._lazy import LazyModule
from ..model.layout import FormatLayout
from .registry import Capabilities, FormatSpec, Option, register
from ..io.source import Source
from ._lines import check_encoding_head, check_part, decode_piece, no_document_error, numeric_part, split_newlines

#: the model, imported on first use (scoring CoNLL never needs it)
model = LazyModule("corefio.model")

EMPTY_VALUES = frozenset({"-", "_", ""})
CANONICAL_EMPTY = "-"
CANONICAL_SEPARATOR = "|"

_CHUNK_RE = re.compile(r"\(([^()|\s]+)\)|\(([^()|\s]+)|([^()|\s]+)\)|(\|)|(\S)")
_MARK = r"^#[ \t]*(begin|end)[ \t]+document([^\n]*)"
_MARK_RE = re.compile(_MARK, re.M)
_MARK_RE_BYTES = re.compile(_MARK.encode(), re.M)
_HEADER_RE = re.compile(r"^\((.*)\);\s*part\s+(\S+)\s*$")
_HEADER_NOPART_RE = re.compile(r"^\((.*)\);?\s*$")
_NUMERIC_ID = re.compile(r"^\d+([-.]\d+)?$")
_SAFE_LABEL = re.compile(r"^[^()|\s]+$")
_WHITESPACE = re.compile(r"\s")
_FIELD = re.compile(r"\S+")

#: column names of the CoNLL-2012 layout (after them: predicate arguments, coreference)
CONLL2012_COLUMNS = [
    "document_id", "part_number", "word_number", "FORM", "pos", "parse_bit",
    "predicate_lemma", "predicate_frameset", "word_sense", "speaker", "named_entities",
]
#: column names of a CoNLL-U-like layout (first column numeric)
CONLLU_COLUMNS = ["id", "FORM", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc"]
#: column names of the SemEval-2010 Task 1 layout (Recasens et al., 2010, "SemEval-2010
#: Task 1: Coreference Resolution in Multiple Languages"): token number, word, then each
#: annotation twice, gold and predicted (ID TOKEN LEMMA PLEMMA POS PPOS FEAT PFEAT HEAD
#: PHEAD DEPREL PDEPREL NE PNE PRED PPRED), then one argument column per predicate
#: (APREDs, ``apred_1``...), then coreference. A gold column of a kind CoNLL-U has takes
#: CoNLL-U's name (POS is a language's own tag set: ``xpos``; FEAT is ``feats``), its
#: predicted twin the same with a ``p`` in front
SEMEVAL_COLUMNS = ["id", "FORM", "lemma", "plemma", "xpos", "pxpos", "feats", "pfeats", "head", "phead",
                   "deprel", "pdeprel", "ne", "pne", "pred", "ppred"]
#: the fewest columns of a SemEval-2010 token line (sixteen, then coreference)
MIN_SEMEVAL = len(SEMEVAL_COLUMNS) + 1
#: the SemEval-2010 columns that are token attributes, and their argument columns
_SEMEVAL_ATTRIBUTES = frozenset(SEMEVAL_COLUMNS[2:])
_MAX_SEMEVAL_ARGUMENTS = 99
#: columns that are layout (derived by the writer), never token attributes
LAYOUT_COLUMNS = frozenset({"document_id", "part_number", "word_number", "id"})
#: the fewest columns of a CoNLL-2012 token line (eleven, then coreference); a document
#: whose lines have this many or more may give each sentence its own count (one
#: predicate-argument column per predicate of the sentence, as OntoNotes does)
MIN_PREDICATE_LAYOUT = 12
#: predicate argument columns the canonical writer writes (OntoNotes has up to ~35)
_MAX_PREDICATE_COLUMNS = 99
#: the token attributes a canonical CoNLL-2012 file holds
CANONICAL_ATTRIBUTES = frozenset(
    [c for c in CONLL2012_COLUMNS if c not in LAYOUT_COLUMNS and c != "FORM"]
    + [f"predicate_arguments_{i}" for i in range(1, _MAX_PREDICATE_COLUMNS + 1)]
)
_CONLLU_ATTRIBUTES = frozenset(CONLLU_COLUMNS) - LAYOUT_COLUMNS - {"FORM"}
#: the token attributes CoNLL files hold: those of CoNLL-2012, and the CoNLL-U and
#: SemEval-2010 columns of numbered files, which only a document read from such a file
#: (with its layout) gets back; the canonical writer reports them lost while writing
TOKEN_ATTRIBUTES = CANONICAL_ATTRIBUTES | (frozenset(CONLLU_COLUMNS) - LAYOUT_COLUMNS - {"FORM"}) \
    | _SEMEVAL_ATTRIBUTES | frozenset(f"apred_{i}" for i in range(1, _MAX_SEMEVAL_ARGUMENTS + 1))


@dataclass
class ConllLayout(FormatLayout):
    """How one document looked in its CoNLL file (see the module docstring)."""

    format: ClassVar[str] = "conll"

    #: names of the columns before the coreference column, in file order
    columns: tuple[str, ...] = ()
    #: layout columns (document id, part, word number, unnamed columns) whose values
    #: differ from what the writer derives: column name → value of every token
    fixed: dict[str, list[str]] = field(default_factory=dict)
    #: the header line as written when it is not the canonical one; "" = no header
    begin: str | None = None
    #: the end line as written when it is not ``#end document``
    end: str | None = None
    empty: str = CANONICAL_EMPTY
    separator: str = CANONICAL_SEPARATOR
    #: "\t", "space" (one space) or "aligned" (padded columns)
    delimiter: str = "\t"
    #: aligned columns: where each field of a sentence's lines ends (the offset after
    #: its last character) and the lines' length, when all lines of the sentence agree:
    #: sentence index → offsets; lines that do not agree: token → offsets
    ends: dict[int, tuple[int, ...]] = field(default_factory=dict)
    line_ends: dict[int, tuple[int, ...]] = field(default_factory=dict)
    #: blank and comment lines between the last word and the end line
    tail: list[str] = field(default_factory=lambda: [""])
    #: raw coreference cells that differ from the writer's rendering: token → cell
    cells: dict[int, str] = field(default_factory=dict)
    #: trailing empty fields (tabs) after the coreference cell: token → text
    trailing: dict[int, str] = field(default_factory=dict)
    #: the lines between two sentences when they are not one empty line (several, or
    #: blanks: TABs, spaces): sentence index → lines before it
    gaps: dict[int, list[str]] = field(default_factory=dict)
    #: comment lines before each sentence: sentence index → lines
    comments: dict[int, list[str]] = field(default_factory=dict)
    #: lines among the words that are not words (CoNLL-U multi-word-token ranges):
    #: sentence index → [(offset in the sentence, raw line)]
    interleaved: dict[int, list[tuple[int, str]]] = field(default_factory=dict)
    #: blank and comment lines before the header (the first document) and after the
    #: end line (up to the next document); in ``Corpus.layout["conll"]`` of a file
    #: without documents, ``before`` holds its lines
    before: list[str] = field(default_factory=list)
    after: list[str] = field(default_factory=list)
    #: "\n", "\r\n" or "\r"
    newline: str = "\n"
    #: False when the file does not end with a line end (last document only)
    final_newline: bool = True
    #: SemEval-2010 layout: what its columns hold where a token has no value (``-`` or
    #: ``_``; read as None); None for other layouts
    blank: str | None = None


def parse_header(rest: str) -> tuple[str, str | None, bool]:
    """(name, part, canonical?) from what follows ``#begin document``."""
    rest = rest.lstrip(" \t")
    m = _HEADER_RE.match(rest)
    if m:
        return m.group(1), m.group(2), True
    m = _HEADER_NOPART_RE.match(rest)
    if m:
        return m.group(1), None, False
    return rest.strip(), None, False


def canonical_header(name: str, part: str | None) -> str:
    return f"#begin document ({name}); part {part if part is not None else '000'}"


def numbered(first_fields: list[str], name: str | None = None) -> bool:
    """Does the first column hold token numbers (CoNLL-U-like) rather than document ids?
    A number that is the document's own name is its id (a document called "0")."""
    return bool(_NUMERIC_ID.match(first_fields[0])) and first_fields[0] != name


def semeval(n_cols: int, first_fields: list[str], name: str | None = None) -> bool:
    """Is this the SemEval-2010 layout: numbered lines of seventeen columns or more?
    (A CoNLL-U-like file has eleven: the ten of CoNLL-U, then coreference.)"""
    return n_cols >= MIN_SEMEVAL and numbered(first_fields, name)


def column_names(n_cols: int, first_fields: list[str], name: str | None = None) -> tuple[list[str], int]:
    """Names for the non-coreference columns and the index of the word form."""
    n = n_cols - 1  # the last column is coreference
    if n_cols == 2:
        return ["FORM"], 0
    if semeval(n_cols, first_fields, name):
        names = [SEMEVAL_COLUMNS[i] if i < len(SEMEVAL_COLUMNS) else f"apred_{i - len(SEMEVAL_COLUMNS) + 1}"
                 for i in range(n)]
        return names, 1
    if numbered(first_fields, name):
        if n_cols >= 11:
            base = CONLLU_COLUMNS
        else:
            base = ["word_number", "FORM"]
        names = [base[i] if i < len(base) else f"col{i}" for i in range(n)]
        return names, 1
    if n_cols >= 5:
        names = []
        for i in range(n):
            if i < len(CONLL2012_COLUMNS):
                names.append(CONLL2012_COLUMNS[i])
            else:
                names.append(f"predicate_arguments_{i - len(CONLL2012_COLUMNS) + 1}")
        return names, 3
    names = [f"col{i}" for i in range(n)]
    names[1] = "FORM"
    return names, 1


def _is_layout_column(name: str) -> bool:
    return name in LAYOUT_COLUMNS or (name.startswith("col") and name[3:].isdigit())


def split_chunks(cell: str) -> list[tuple[str, str]] | None:
    """``[(kind, label)]`` with kind O/S/C, or None if the cell is malformed."""
    out = []
    for single, opener, closer, _sep, junk in _CHUNK_RE.findall(cell):
        if single:
            out.append(("S", single))
        elif opener:
            out.append(("O", opener))
        elif closer:
            out.append(("C", closer))
        elif junk:
            return None
    return out


def _mark_error(rest: str, kind: str, file: str | None, line: int) -> FormatError | None:
    """An error for ``#begin document…`` lines whose keyword runs on (``documenté``)."""
    if rest and rest[0] not in " \t\r":
        return FormatError(f"malformed '#{kind} document' line: 'document' must be followed by a blank or "
                           "the end of the line", file=file, line=line)
    return None


# ==========================================================================================
# reading
# ==========================================================================================
_SINGLE_CHUNK = re.compile(r"\(([^()|\s]+)\)|\(([^()|\s]+)|([^()|\s]+)\)")


class _Retry(Exception):
    """The fast path met something unusual: redo the document line by line."""


class _Parsed:
    """One document's lines, split into rows, with what surrounds them."""

    def __init__(self, name: str, part: str | None, header: str, header_line: int) -> None:
        self.name, self.part, self.header, self.header_line = name, part, header, header_line
        self.end_raw: str | None = None
        #: blank and comment lines between the last word and the end line
        self.tail: list[str] = []
        self.rows: list[list[str]] = []
        self.sizes: list[int] = []  # tokens per sentence
        self.comments: list[list[str]] = []  # per sentence
        self.interleaved: list[list[tuple[int, str]]] = []  # per sentence
        self.row_line: list[int] | None = None  # source line of each row (slow path only)
        #: blank lines before a sentence other than one empty line: sentence → lines
        self.gaps: dict[int, list[str]] = {}
        #: space-separated lines: where each field ends, and the line's length (per row)
        self.row_ends: list[tuple[int, ...]] = []
        self.trailing: list[tuple[int, str]] = []
        self.delimiter = "\t"  # or "space" (one space) or "aligned" (padded columns)
        self.n_cols = 0
        #: fast path: the columns (all of them, or only forms, POS and cells when
        #: building mention views), without rows
        self.columns: list[list[str]] | None = None
        self.first: list[str] | None = None  # the first token line's fields
        self.before: list[str] = []
        self.after: list[str] = []


class _Reader:
    """The one CoNLL parser: it builds documents, or mention views (``views=True``:
    forms, POS tags if ``pos``, and mentions, without the other columns and layout)."""

    def __init__(self, file: str | None, report: Report, strict: bool, views: bool = False,
                 pos: bool = False) -> None:
        self.file = file
        self.report = report
        self.strict = strict
        self.views = views
        self.pos = pos
        self.events: list[tuple[str, str, int | None]] = []
        #: build only these documents (numbers in file order); None: all
        self.select: set[int] | None = None
        self.count = 0
        self.newline = "\n"
        #: the line end of the pieces read so far (None: none seen yet)
        self.newline_seen: str | None = None

    def error(self, message: str, line: int | None) -> FormatError:
        return FormatError(message, file=self.file, line=line)

    def dialect(self, code: str, message: str, line: int | None) -> None:
        """A deviation from canonical CoNLL-2012 that lenient mode accepts (strict refuses)."""
        if self.strict:
            raise self.error(f"{message} (strict mode)", line)
        self.events.append((code, message, line))

    def flush_events(self) -> None:
        for code, message, line in self.events:
            self.report.warning(code, message, line=line, merge=True, file=self.file)
        self.events = []

    # -- splitting a document into rows ---------------------------------------------------
    def fast_block(self, p: _Parsed, block: str) -> bool:
        """Split well-formed tab-separated lines at C speed; False if anything is unusual.

        The lines are split on TABs and newlines and the columns are taken by slicing
        (:func:`_split_sentences` for views, :func:`_split_document` for documents). A
        line with too many or too few fields shows in the field count or in the first
        column, which in this layout holds the document id on every line.
        """
        if block.endswith("\n"):
            block = block[:-1]
        if not block:
            return True
        if block.startswith(("\n", "#")) or "\n#" in block:
            return False
        p.tail = []
        if block.endswith("\n"):
            p.tail = [""]
            block = block[:-1]
            if block.endswith("\n"):
                return False
        first_line = block[: block.find("\n")] if "\n" in block else block
        if "\t" not in first_line:
            return False
        first = first_line.split("\t")
        n = len(first)
        if n < 2 or numbered(first, p.name) or first[-1] == "":
            return False
        names, form_index = column_names(n, first, p.name)
        variable = n >= MIN_PREDICATE_LAYOUT and not numbered(first, p.name)
        if self.views:
            columns = _split_sentences(block, n, [form_index] + self.pos_indices(names) + [n - 1], p.sizes,
                                       variable)
        else:
            columns = _split_document(block, n, p.sizes, variable)
        if columns is None:
            return False
        p.n_cols = len(columns) if not self.views else n
        p.first = first
        p.columns = columns
        p.comments = [[] for _ in p.sizes]
        p.interleaved = [[] for _ in p.sizes]
        return True

    def pos_indices(self, names: list[str]) -> list[int]:
        """The columns that may hold part-of-speech tags, in order of preference, when
        they are wanted (views); the first that is not all placeholders is taken."""
        if not self.pos:
            return []
        return [names.index(name) for name in POS_COLUMNS if name in names]

    def slow_block(self, p: _Parsed, lines: list[str], first_line: int) -> None:
        """Line by line, with line numbers, comments, MWT lines, trailing fields, spaces."""
        p.rows, p.sizes, p.comments, p.interleaved, p.trailing = [], [], [], [], []
        p.row_line = []
        p.row_ends = []
        p.gaps = {}
        blanks: list[str] = []  # the blank lines since the last token line
        p.n_cols = 0
        p.columns = p.first = None
        p.delimiter = "\t"
        comments: list[str] = []
        interleaved: list[tuple[int, str]] = []
        sent_rows = 0
        form_index = None
        least = MIN_PREDICATE_LAYOUT
        first_tab: int | None = None  # line of the first token line, and whether it had TABs
        # the current sentence's column count and the line that set it; may it differ
        # from the first sentence's (CoNLL-2012 layout: one column per predicate)?
        width = width_line = first_row_line = 0
        variable = False
        widest = 0

        def end_sentence() -> None:
            nonlocal comments, interleaved, sent_rows
            if sent_rows:
                p.sizes.append(sent_rows)
                p.comments.append(comments)
                p.interleaved.append(interleaved)
                comments, interleaved, sent_rows = [], [], 0

        last_word_at = -1
        for at, line in enumerate(lines):
            lineno = first_line + at
            if not line.strip():
                end_sentence()
                blanks.append(line)
                continue
            if line.startswith("#") and not _looks_like_token(line):
                if sent_rows:
                    end_sentence()
                comments.append(line)
                continue
            tab = "\t" in line
            if first_tab is None:
                first_tab = lineno if tab else -lineno
            elif (first_tab > 0) != tab:
                kinds = ("TAB-separated", "space-separated") if first_tab > 0 else ("space-separated", "TAB-separated")
                raise self.error(f"token lines mix TAB-separated and space-separated columns: line "
                                 f"{abs(first_tab)} is {kinds[0]}, this one {kinds[1]}", lineno)
            if tab:
                fields = line.split("\t")
            else:
                fields = line.split()
                if p.delimiter != "aligned":
                    p.delimiter = "space" if line == " ".join(fields) else "aligned"
                ends = [m.end() for m in _FIELD.finditer(line)]
                ends.append(len(line))
            n = len(fields)
            if not p.n_cols:
                p.n_cols = width = n
                if n < 2:
                    raise self.error(f"a token line needs at least 2 columns, found {n}", lineno)
                form_index = column_names(n, fields, p.name)[1]
                # the fewest columns of a sentence (SemEval-2010: one argument column per predicate too)
                least = MIN_SEMEVAL if semeval(n, fields, p.name) else MIN_PREDICATE_LAYOUT
                variable = n >= least and (not numbered(fields, p.name) or least == MIN_SEMEVAL)
                width_line = first_row_line = lineno
            elif not sent_rows and n != width and variable and n >= least \
                    and (n < width or any(fields[width:])):
                # OntoNotes: one predicate-argument column per predicate of the sentence
                width, width_line = n, lineno
            if n != width:
                if n > width and not any(fields[width:]):
                    self.report.info("conll.trailing-fields", "trailing empty fields (trailing tabs) ignored",
                                     line=lineno, merge=True, file=self.file)
                    p.trailing.append((len(p.rows), "\t" * (n - width)))
                    del fields[width:]
                elif width_line == first_row_line:
                    raise self.error(f"line has {n} columns, the document's first token line has {width}"
                                     + (f" (a sentence may have {least} or more)" if variable else ""),
                                     lineno)
                else:
                    raise self.error(f"line has {n} columns, the first token line of its sentence (line "
                                     f"{width_line}) has {width}", lineno)
            first = fields[0]
            if form_index == 1 and ("-" in first or "." in first) and _NUMERIC_ID.match(first):
                # CoNLL-U multi-word token range or empty node: not a word of the text
                if fields[-1] not in EMPTY_VALUES:
                    raise self.error(f"coreference on a multi-word-token/empty-node line {first!r}", lineno)
                self.dialect("conll.multiword-lines", "multi-word-token or empty-node lines (kept, not words)", lineno)
                interleaved.append((sent_rows, line))
                continue
            if not sent_rows:
                if p.sizes and blanks != [""] and not comments:
                    p.gaps[len(p.sizes)] = blanks
            blanks = []
            p.rows.append(fields)
            p.row_line.append(lineno)
            if not tab:
                if len(ends) - 1 != len(fields):  # trailing fields were cut
                    ends = ends[: len(fields)] + ends[-1:]
                p.row_ends.append(tuple(ends))
            sent_rows += 1
            last_word_at = at
            widest = max(widest, width)
        end_sentence()
        p.n_cols = max(p.n_cols, widest)
        # what follows the last word (blank lines, comments, stray lines) is kept as is
        p.tail = lines[last_word_at + 1 :]
        if last_word_at < 0:
            p.comments, p.interleaved = [], []
        elif p.interleaved[-1] and p.interleaved[-1][-1][0] == p.sizes[-1]:
            # lines after the last word are in the tail already
            p.interleaved[-1] = [x for x in p.interleaved[-1] if x[0] < p.sizes[-1]]
        if any(p.comments) or any(x.startswith("#") for x in p.tail):
            self.dialect("conll.comment-lines", "comment lines inside a document", first_line)

    # -- building the document --------------------------------------------------------------
    def build(self, p: _Parsed):
        first = p.first if p.columns is not None else (p.rows[0] if p.rows else None)
        if p.columns is not None:
            columns = p.columns
            n = len(columns[-1]) if columns else 0
        else:
            n = len(p.rows)
            rows = p.rows
            if n and (len(rows[0]) != p.n_cols or len(rows[-1]) != p.n_cols or len(set(map(len, rows))) > 1):
                rows = [_widen(row, p.n_cols) for row in rows]
            columns = [list(c) for c in zip(*rows)] if n else []
        line_of = p.row_line
        names, form_index = column_names(p.n_cols, first, p.name) if first else (["FORM"], 0)
        if n and first:
            numeric = numbered(first, p.name)
            if p.n_cols < 12 and not numeric:
                self.dialect("conll.few-columns", f"{p.n_cols}-column file (CoNLL-2012 has 12 or more)",
                             line_of[0] if line_of else p.header_line + 1)
            elif numeric and p.n_cols > 2:
                self.dialect("conll.numbered-columns", "first column holds token numbers (not a document id)"
                             + ("; SemEval-2010 layout (gold and predicted columns)"
                                if semeval(p.n_cols, first, p.name) else ""),
                             line_of[0] if line_of else p.header_line + 1)
        cells = columns[-1] if n else []
        slots, multi = self.parse_coref(p, cells)
        if n == 0:
            self.report.warning("conll.empty-document", f"document {p.name!r} has no tokens",
                                line=p.header_line, file=self.file)
        if self.views:
            candidates = self.pos_indices(names)
            if p.columns is not None:  # the fast path kept only forms, POS columns, coreference
                candidates = [1 + k for k in range(len(candidates))]
                form_index = 0
            pos_column: list[str | None] | None = None
            for i, k in zip(candidates, (names.index(c) for c in POS_COLUMNS if c in names)):
                if n and not _all_placeholder(names[k], columns[i]):
                    pos_column = list(columns[i])
                    break
            return self.mention_view(p, columns[form_index] if n else [], pos_column, slots)
        self.check_labels(p, [slot[0] for slot in slots])
        ends = list(itertools.accumulate(p.sizes))
        sentences = [model.Sentence(first=end - size, last=end - 1) for size, end in zip(p.sizes, ends)]
        forms = columns[form_index] if n else []
        if n and forms.count("_") == n:  # e.g. another project's 5 columns, its words elsewhere
            self.report.warning("conll.no-words", f"every word form of document {p.name!r} is '_' (corefio takes column "
                                f"{form_index + 1} of {p.n_cols} for the words: a file of another "
                                "layout?)", line=line_of[0] if line_of else p.header_line + 1, merge=True,
                                file=self.file)
        attributes: dict[str, Any] = {}
        fixed: dict[str, list[str]] = {}
        blank = _semeval_blank(names, columns) if n and first and semeval(p.n_cols, first, p.name) else None
        for i, name in enumerate(names):
            if i == form_index:
                continue
            values = columns[i] if n else []
            if _is_layout_column(name):
                if not _derivable(name, values, p):
                    fixed[name] = values
            elif blank is not None and name in _SEMEVAL_ATTRIBUTES:
                if values.count(blank) != len(values):
                    attributes[name] = [None if v == blank else v for v in values]
            elif not _all_placeholder(name, values):
                attributes[name] = values
        markables = [model.Markable.fast(f"markable_{k}", ((a, e),), label)
                     for k, (label, a, e, _, _) in enumerate(slots, 1)]
        self.duplicates(p, markables)
        layout = self.layout(p, cells, names, multi, fixed)
        layout.blank = blank
        try:
            return model.Document.build(
                name=p.name, part=p.part, metadata={},
                tokens=model.Tokens(forms=forms, ids=None, whitespace=None, offsets=None, attributes=attributes),
                sentences=sentences, markables=markables, entities=[], links=[], layout={"conll": layout},
            )
        except ModelError as exc:  # pragma: no cover - the reader builds valid documents
            raise self.error(str(exc), p.header_line) from None

    def mention_view(self, p: _Parsed, forms: list[str], pos: list[str | None] | None, slots: list) -> MentionView:
        """What :meth:`Document.mention_view` gives for the document :meth:`build` would
        make, straight from the mentions: chains in the order of their first mention,
        mentions with the same ids, in the same order."""
        groups: dict[str, list[Mention]] = {}
        for k, (label, a, e, _, _) in enumerate(slots, 1):
            mention = Mention(((a, e),), f"markable_{k}")
            chain = groups.get(label)
            if chain is None:
                groups[label] = [mention]
            else:
                chain.append(mention)
        self.check_labels(p, list(groups))
        return MentionView(document_label(p.name, p.part), forms, list(groups.values()), pos)

    def check_labels(self, p: _Parsed, labels: list[str]) -> None:
        if labels and not "".join(labels).isdigit():
            example = next(label for label in labels if not label.isdigit())
            self.dialect("conll.label-not-numeric", f"non-numeric entity labels (e.g. {example!r})", p.header_line)

    def parse_coref(self, p: _Parsed, cells) -> tuple[list, list]:
        """Mentions from the coreference column.

        Returns the slots ``[label, first, last, row, index]`` in creation order and the
        cells with several chunks (for the layout). Chunks pair up in text order; in a
        cell, single-token mentions are created before opened ones, which is the order
        in which the reference scorer first meets entity labels.
        """
        slots: list = []
        multi: list[tuple[int, str, list[list]]] = []  # (row, raw cell, slot of each chunk)
        opens: dict[str, list[list]] = {}
        fullmatch = _SINGLE_CHUNK.fullmatch
        empty = EMPTY_VALUES

        def line(t: int) -> int:
            if p.row_line is None:
                raise _Retry
            return p.row_line[t]

        for t, cell in enumerate(cells):
            if cell in empty:
                continue
            # one chunk with a numeric label, most cells: told by its brackets (string
            # tests take half the time of the regular expression, the fallback: this
            # function takes 0.11 s instead of 0.13 s on the benchmark key)
            single = opener = closer = None
            if cell[0] == "(":
                if cell[-1] == ")":
                    single = cell[1:-1]
                else:
                    opener = cell[1:]
            elif cell[-1] == ")":
                closer = cell[:-1]
            if not (single or opener or closer or "").isdigit():
                m = fullmatch(cell)
                if m is None:
                    single = opener = closer = None  # several chunks, or malformed: below
                else:
                    single, opener, closer = m.groups()
            if single is not None:
                slots.append((single, t, t, t, len(slots)))
                continue
            if opener is not None:
                slot = [opener, t, -1, t, len(slots)]
                slots.append(slot)
                stack = opens.get(opener)
                if stack is None:
                    opens[opener] = [slot]
                else:
                    stack.append(slot)
                continue
            if closer is not None:
                stack = opens.get(closer)
                if not stack:
                    raise self.error(f"closer {closer}) has no open mention of {closer!r}", line(t))
                stack.pop()[2] = t
                continue
            chunks = split_chunks(cell)
            if chunks is None:
                raise self.error(f"malformed coreference cell {cell!r}", line(t))
            singles: list[list] = []
            openers: list[list] = []
            chunk_slots: list[list] = []
            for kind, label in chunks:
                if kind == "S":
                    slot = [label, t, t, t, -1]
                    singles.append(slot)
                elif kind == "O":
                    slot = [label, t, -1, t, -1]
                    openers.append(slot)
                    opens.setdefault(label, []).append(slot)
                else:
                    stack = opens.get(label)
                    if not stack:
                        raise self.error(f"closer {label}) has no open mention of {label!r}", line(t))
                    slot = stack.pop()
                    slot[2] = t
                chunk_slots.append(slot)
            for slot in singles + openers:
                slot[4] = len(slots)
                slots.append(slot)
            multi.append((t, cell, chunk_slots))
        for label, stack in opens.items():
            if stack:
                raise self.error(f"mention ({label} opened here is never closed", line(stack[0][3]))
        return slots, multi

    def duplicates(self, p: _Parsed, markables: list) -> None:
        seen: dict[tuple, Any] = {}
        for m in markables:
            other = seen.get(m.spans)
            if other is None:
                seen[m.spans] = m
                continue
            a, e = m.spans[0]
            same = "same" if other.entity == m.entity else "different"
            self.report.warning(
                "conll.duplicate-mention", f"duplicate mentions (same span, {same} entity)",
                merge=True, file=self.file,
                example=f"{p.name!r} tokens {a}..{e}: ({other.entity}) and ({m.entity})",
            )

    def layout(self, p: _Parsed, cells, names: list[str], multi, fixed: dict[str, list[str]]) -> ConllLayout:
        lay = ConllLayout(columns=tuple(names), fixed=fixed, newline=self.newline,
                          before=p.before, after=p.after, tail=p.tail)
        if p.header != canonical_header(p.name, p.part):
            lay.begin = p.header
        if p.end_raw is not None and p.end_raw != "#end document":
            lay.end = p.end_raw
        used = EMPTY_VALUES.intersection(cells)
        if used:
            lay.empty = max(sorted(used), key=cells.count) if len(used) > 1 else next(iter(used))
        with_bar = sum(1 for _, raw, chunk_slots in multi if len(chunk_slots) > 1 and "|" in raw)
        without = sum(1 for _, raw, chunk_slots in multi if len(chunk_slots) > 1 and "|" not in raw)
        if without > with_bar:
            lay.separator = ""
        lay.delimiter = p.delimiter
        if p.delimiter == "aligned" and len(p.row_ends) == len(cells):
            lay.ends, lay.line_ends = _padding(p.row_ends, p.sizes)
        for t, raw, chunk_slots in multi:
            if lay.separator.join(_canonical_cell(t, chunk_slots)) != raw:
                lay.cells[t] = raw
        if len(used) > 1:
            for t, cell in enumerate(cells):
                if cell in EMPTY_VALUES and cell != lay.empty:
                    lay.cells[t] = cell
        lay.trailing = dict(p.trailing)
        lay.gaps = p.gaps
        lay.comments = {k: c for k, c in enumerate(p.comments) if c}
        lay.interleaved = {k: c for k, c in enumerate(p.interleaved) if c}
        return lay

    # -- whole file ---------------------------------------------------------------------------
    def documents(self, text: str, stem: str, line_offset: int = 0, start: bool = True) -> Iterator:
        """Yield the documents of ``text``: a whole CoNLL file, or a piece of one that
        ends after an ``#end document`` line (``start``: the piece begins the file).

        With ``self.select`` (a set of document numbers, counted from 0 over the whole
        file), documents not in it are skipped without being built (``None`` is yielded
        in their place). Blank and comment lines after a document's end line go to its
        layout, those before the file's first header to the first document's. Lines of
        a later piece before its first header are left in ``self.leading``: they follow
        the previous piece's last document.
        """
        raw_has_newline = "\n" in text or "\r" in text
        if "\r" in text:
            text, newline = split_newlines(text, self.file)
        else:
            newline = "\n"
        if raw_has_newline:
            if self.newline_seen is None:
                self.newline_seen = self.newline = newline
            elif newline != self.newline_seen:
                raise self.error("line ends mix CRLF, LF and/or CR; use one kind throughout (e.g. `dos2unix`)",
                                 line_offset + 1)
        self.final_newline = text.endswith("\n")
        marks = _document_marks(text)
        line0 = 1 + line_offset
        self.leading: list[str] = []
        if not marks:
            lines = _lines_of(text)
            if start and any(x.strip() and not x.startswith("#") for x in lines):
                self.dialect("conll.no-header", "no '#begin document' line: the file is read as one document", line0)
                self.flush_events()
                p = _Parsed(stem, None, "", line0)
                yield self.finish_block(p, text if text.endswith("\n") else text + "\n", line0)
                return
            self.leading = self.outside(lines, line0)
            return
        pos, line = 0, line0
        header: re.Match | None = None
        header_line = 0
        previous: tuple | None = None  # (parsed, block, first line, number, end mark, end line)
        first_before: list[str] = []
        for m in marks:
            m_line = line + text.count("\n", pos, m.start())
            kind = m.group(1)
            error = _mark_error(m.group(2), kind, self.file, m_line)
            if error is not None:
                raise error
            if kind == "begin":
                if header is not None:
                    raise self.error(f"'#begin document' inside document opened on line {header_line} "
                                     "that never ended", m_line)
                if previous is None:
                    outside = self.outside(_lines_of(text[: m.start()]), line0)
                    if start:
                        first_before = outside
                    else:
                        self.leading = outside
                else:
                    yield self.finish_or_skip(previous, text[previous[4].end() + 1 : m.start()])
                    previous = None
                header, header_line = m, m_line
            else:
                if header is None:
                    raise self.error("'#end document' without '#begin document'", m_line)
                name, part, canonical = parse_header(header.group(2))
                check_part(part, self.file, header_line)
                if not canonical:
                    self.dialect("conll.header", f"non-canonical document header {header.group(0)!r}", header_line)
                elif part is None or not (part.isdigit() and len(part) == 3):
                    self.dialect("conll.header", f"part number {part!r} is not 3 digits", header_line)
                number = self.count
                self.count += 1
                p = _Parsed(name, part, header.group(0), header_line)
                p.end_raw = m.group(0)
                p.before, first_before = first_before, []
                block = text[header.end() + 1 : m.start()] if header.end() < m.start() else ""
                previous = (p, block, header_line + 1, number, m, m_line)
                header = None
            line = m_line
            pos = m.start()
        if header is not None:
            raise self.error(f"document starting on line {header_line} never ends: missing "
                             "'#end document' (truncated file?)", line + text[pos:].rstrip("\n").count("\n"))
        assert previous is not None
        yield self.finish_or_skip(previous, text[previous[4].end() + 1 :])

    def finish_or_skip(self, previous: tuple, after: str):
        """Build a document once the lines after its end line are known."""
        p, block, first_line, number, _, end_line = previous
        p.after = self.outside(_lines_of(after), end_line + 1)
        if self.select is not None and number not in self.select:
            return None
        return self.finish_block(p, block, first_line)

    def outside(self, lines: list[str], line: int) -> list[str]:
        """Lines between documents: blank lines and comments (kept); anything else is an error."""
        for k, text in enumerate(lines):
            if text.strip() and not text.startswith("#"):
                raise self.error("token line outside a document", line + k)
        return lines

    def finish_block(self, p: _Parsed, block: str, first_line: int):
        if not self.fast_block(p, block):
            self.slow_block(p, _lines_of(block), first_line)
        try:
            doc = self.build(p)
        except _Retry:
            self.events = []
            self.slow_block(p, _lines_of(block), first_line)
            doc = self.build(p)
        self.flush_events()
        return doc

    def read(self, text: str, stem: str) -> Any:
        documents = [d for d in self.documents(text, stem) if d is not None]
        if not documents:
            raise no_document_error(self.file, _line_count(text), NO_DOCUMENT)
        if not self.final_newline:
            documents[-1].layout["conll"].final_newline = False
        self.check_duplicates(documents)
        return model.Corpus(documents=documents, metadata={}, schemes=[], layout={})

    def check_duplicates(self, documents: list) -> None:
        duplicate_documents(Counter(doc.key for doc in documents), self.report, self.file)


def duplicate_documents(names: "Counter[tuple] | dict[tuple, int]", report: Report, file: str | None) -> None:
    """``conll.duplicate-document`` for every (name, part) counted more than once (what
    reading a whole file reports at its end; ``validate``, which streams, adds it too)."""
    for (name, part), k in names.items():
        if k > 1:
            report.warning("conll.duplicate-document", f"{k} documents are named {name!r} part {part!r}", file=file)


def placeholder(name: str) -> str:
    """What a column holds where a token has no value: ``*`` in the parse and named
    entity columns, ``_`` in CoNLL-U-like columns, ``-`` elsewhere. A column holding
    only that is no token attribute (the writer fills it in again)."""
    if name in ("parse_bit", "named_entities"):
        return "*"
    if name in _CONLLU_ATTRIBUTES:
        return "_"
    return "-"


def _semeval_blank(names: list[str], columns: list[list[str]]) -> str:
    """What the SemEval-2010 columns of a document hold where a token has no value: the
    more frequent of ``-`` and ``_`` in them (``-`` on a tie)."""
    counts: Counter = Counter()
    for name, values in zip(names, columns):
        if name in _SEMEVAL_ATTRIBUTES:
            counts["-"] += values.count("-")
            counts["_"] += values.count("_")
    return "_" if counts["_"] > counts["-"] else "-"


def _all_placeholder(name: str, values: list[str]) -> bool:
    return values.count(placeholder(name)) == len(values)


def _derivable(name: str, values: list[str], p: _Parsed) -> bool:
    """Are the values of a layout column what the writer derives for it?"""
    if name == "document_id":
        return bool(p.name) and values.count(p.name) == len(values)
    if name == "part_number":
        part = p.part if p.part is not None else "0"
        want = numeric_part(part) if part.isdigit() and part.isascii() else part
        return values.count(want) == len(values)
    if name in ("word_number", "id"):
        numbers = _NUMBERS if name == "word_number" else _NUMBERS[1:]
        expected: list[str] = []
        for size in p.sizes:
            if size >= len(numbers):
                numbers = [str(i + (name == "id")) for i in range(size + 1)]
            expected += numbers[:size]
        return values == expected
    return False


#: word numbers as text (a sentence rarely has more words)
_NUMBERS = [str(i) for i in range(1001)]


def _split_sentences(block: str, n: int, wanted: list[int], sizes: list[int],
                     variable: bool = False) -> list[list[str]] | None:
    """The ``wanted`` columns of the TAB-separated lines of ``block`` (``n`` fields a
    line), split sentence by sentence; ``sizes`` gets each sentence's number of lines.
    None when a sentence has a line with too many or too few fields, which shows in
    their count or in the first column (one document id on every line).

    ``variable``: a sentence may have another number of fields (at least
    :data:`MIN_PREDICATE_LAYOUT`, the same on all its lines); the last wanted column
    (coreference) is then the last of each sentence."""
    columns: list[list[str]] = [[] for _ in wanted]
    width = n
    for chunk in block.split("\n\n"):
        if not chunk or chunk[0] == "\n" or chunk[-1] == "\t":
            return None
        lines = chunk.count("\n") + 1
        flat = chunk.replace("\n", "\t").split("\t")
        if variable and len(flat) != width * lines:
            end = chunk.find("\n")
            width = chunk.count("\t", 0, end if end >= 0 else len(chunk)) + 1
            if width < MIN_PREDICATE_LAYOUT:
                return None
            wanted = wanted[:-1] + [width - 1]
        if len(flat) != width * lines or (lines > 1 and len(set(flat[0::width])) != 1) or " " in flat[0]:
            return None
        for column, i in zip(columns, wanted):
            column += flat[i::width]
        sizes.append(lines)
    return columns


def _widen(row: list, width: int) -> list:
    """A token line of fewer columns than the document's widest sentence, with None
    for the predicate-argument columns it lacks (before its coreference cell)."""
    return row if len(row) == width else row[:-1] + [None] * (width - len(row)) + row[-1:]


def _split_document(block: str, n: int, sizes: list[int], variable: bool = False) -> list[list[str]] | None:
    """Every column, as :func:`_split_sentences` gives them, from one split of the
    whole block: a tenth faster when all columns are kept (0.186 s against 0.206 s for
    the benchmark key); sentence by sentence is faster when only a few are.

    ``variable``: sentences of other numbers of fields (see :func:`_split_sentences`)
    are split one at a time; a sentence's missing predicate-argument columns are
    None (:func:`_widen`), and as many columns as the widest sentence has are given."""
    widths: list[int] = []
    for chunk in block.split("\n\n"):
        lines = chunk.count("\n") + 1
        if not chunk or chunk[0] == "\n" or chunk[-1] == "\t":
            return None
        tabs = chunk.count("\t")
        if tabs != (n - 1) * lines:
            if not variable or tabs % lines:
                return None
            width = tabs // lines + 1
            end = chunk.find("\n")
            if width < MIN_PREDICATE_LAYOUT or chunk.count("\t", 0, end if end >= 0 else len(chunk)) != width - 1:
                return None
            widths.append(width)
        else:
            widths.append(n)
        sizes.append(lines)
    if widths.count(n) != len(widths):
        return _split_widths(block, widths, sizes)
    flat = block.replace("\n\n", "\n").replace("\n", "\t").split("\t")
    ids = flat[0::n]
    if ids.count(ids[0]) != len(ids) and not _same_id_per_sentence(ids, sizes):
        return None
    if " " in ids[0] or any(" " in ids[k] for k in itertools.accumulate(sizes[:-1])):
        return None
    return [flat[i::n] for i in range(n)]


def _split_widths(block: str, widths: list[int], sizes: list[int]) -> list[list[str]] | None:
    """:func:`_split_document` for sentences of several widths (each line of a sentence
    has as many fields as its first: its TAB count was checked, and each line's first
    field must be the sentence's document id)."""
    widest = max(widths)
    columns: list[list] = [[] for _ in range(widest)]
    for chunk, width, lines in zip(block.split("\n\n"), widths, sizes):
        flat = chunk.replace("\n", "\t").split("\t")
        ids = flat[0::width]
        if ids.count(ids[0]) != lines or " " in ids[0]:
            return None
        for i in range(width - 1):
            columns[i] += flat[i::width]
        missing = [None] * lines
        for i in range(width - 1, widest - 1):
            columns[i] += missing
        columns[-1] += flat[width - 1::width]
    return columns


def _same_id_per_sentence(ids: list[str], sizes: list[int]) -> bool:
    """Does every sentence give all its tokens one document id (the fast path's check
    that no line has too many or too few fields)?"""
    start = 0
    for size in sizes:
        if ids[start : start + size].count(ids[start]) != size:
            return False
        start += size
    return True


def _document_marks(text: str) -> list[re.Match]:
    """The ``#begin document`` / ``#end document`` lines (str.find is five times faster
    than a multi-line regular expression on a large text)."""
    marks = []
    match = _MARK_RE.match
    pos = 0 if text.startswith("#") else text.find("\n#")
    while pos >= 0:
        start = pos if pos == 0 and text.startswith("#") else pos + 1
        m = match(text, start)
        if m is not None:
            marks.append(m)
        pos = text.find("\n#", start)
    return marks


def _lines_of(text: str, skip_first: bool = False) -> list[str]:
    """The lines of ``text`` (no empty last element for a final line end);
    ``skip_first``: drop the rest of a line that began before ``text``."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return lines[1:] if skip_first else lines


def _canonical_cell(t: int, chunk_slots: list[list]) -> list[str]:
    """How :func:`render_cell` would write the chunks of token ``t``."""
    openers, singles, closers = [], [], []
    for label, a, e, _, k in chunk_slots:
        if a != t:
            closers.append((-a, -k, f"{label})"))
        elif e == t:
            singles.append(f"({label})")
        else:
            openers.append((-e, k, f"({label}"))
    openers.sort()
    closers.sort()
    return [x[2] for x in openers] + singles + [x[2] for x in closers]


def _padding(row_ends: list[tuple[int, ...]], sizes: list[int]) -> tuple[dict, dict]:
    """:attr:`ConllLayout.ends` and :attr:`ConllLayout.line_ends` from each line's
    offsets: per sentence, those most of its lines have; the other lines their own."""
    ends: dict[int, tuple[int, ...]] = {}
    line_ends: dict[int, tuple[int, ...]] = {}
    start = 0
    for k, size in enumerate(sizes):
        lines = row_ends[start : start + size]
        if lines.count(lines[0]) == size:
            ends[k] = lines[0]
        else:
            ends[k] = common = Counter(lines).most_common(1)[0][0]
            line_ends.update((start + i, e) for i, e in enumerate(lines) if e != common)
        start += size
    return ends, line_ends


def _place(row: tuple[str, ...], ends: tuple[int, ...]) -> str | None:
    """A line whose fields end at ``ends`` (and as long as its last offset); None when
    the values do not fit (two fields would touch)."""
    if len(ends) != len(row) + 1:
        return None
    parts = []
    at = 0
    for k, (value, end) in enumerate(zip(row, ends)):
        pad = end - len(value) - at
        if pad < (1 if k else 0):
            return None
        parts.append(" " * pad)
        parts.append(value)
        at = end
    if ends[-1] < at:
        return None
    parts.append(" " * (ends[-1] - at))
    return "".join(parts)


def _looks_like_token(line: str) -> bool:
    """'#' starting a token line (a word '#') rather than a comment."""
    return "\t" in line and line.split("\t", 1)[0] == "#"


#: what a CoNLL file without a document lacks (see :func:`no_document_error`)
NO_DOCUMENT = "a '#begin document' header or a token line"


def _line_count(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)


def _stem(source: Source) -> str:
    return source.stem


def read(source: Source, *, report: Report, strict: bool = False) -> Any:
    """Read a CoNLL-2011/2012 file (every document in it)."""
    text = source.read_text()
    return _Reader(source.name, report, strict).read(text, _stem(source))


def _pieces(source: Source, start: int, end: int | None, first_line: int) -> Iterator[tuple[str, int, bool]]:
    """``(text, first line, begins the file?)``: pieces of the file that end just after
    an ``#end document`` line (read 1 MiB at a time), and what follows the last one."""
    end_mark = re.compile(rb"^#[ \t]*end[ \t]+document[^\n]*(\n|$)", re.M)
    buffer = b""
    left = None if end is None else end - start
    first = start == 0
    with source.open() as f:
        f.seek(start)
        while True:
            size = 1 << 20 if left is None else min(1 << 20, left)
            chunk = f.read(size) if size else b""
            if left is not None:
                left -= len(chunk)
            buffer += chunk
            cut = -1
            if chunk:
                # the last complete "#...end document" line of the buffer
                pos = buffer.rfind(b"\n#")
                while pos >= 0:
                    m = end_mark.match(buffer, pos + 1)
                    if m is not None and m.group(1):
                        cut = m.end()
                        break
                    pos = buffer.rfind(b"\n#", 0, pos)
                if cut < 0 and buffer.startswith(b"#"):
                    m = end_mark.match(buffer, 0)
                    if m is not None and m.group(1):
                        cut = m.end()
            else:
                cut = len(buffer)
            if cut > 0 or (not chunk and first):
                piece, buffer = buffer[:cut], buffer[cut:]
                yield decode_piece(piece, source.name, first_line, first), first_line, first
                first_line += piece.count(b"\n")
                first = False
            if not chunk:
                break


def _stream(source: Source, report: Report, strict: bool, views: bool, pos: bool,
            select: set[int] | None, byte_range: tuple[int, int, int, int] | None) -> Iterator:
    reader = _Reader(source.name, report, strict, views=views, pos=pos)
    reader.select = select
    start_byte, end_byte, first_number, start_line = byte_range if byte_range else (0, None, 0, 1)
    reader.count = first_number
    stem = _stem(source)
    pending = None
    found = False
    lines = 0
    for text, first_line, begins in _pieces(source, start_byte, end_byte, start_line):
        items = list(reader.documents(text, stem, first_line - 1, start=begins))
        found = found or bool(items)
        lines = first_line - 1 + _line_count(text)
        if pending is not None:
            if reader.leading and not views:
                pending.layout["conll"].after = reader.leading
            yield pending
            pending = None
        for item in items[:-1]:
            if item is not None:
                yield item
        if items:
            pending = items[-1]
    if pending is not None:
        if not reader.final_newline and not views:
            pending.layout["conll"].final_newline = False
        yield pending
    if not found and byte_range is None:
        raise no_document_error(source.name, lines, NO_DOCUMENT)


def stream(source: Source, *, report: Report, strict: bool = False) -> Iterator:
    """The documents of a file one at a time (memory of about one document), the same
    as :func:`read` gives."""
    yield from _stream(source, report, strict, False, False, None, None)


def stream_range(source: Source, byte_range: tuple[int, int, int, int], *, report: Report,
                 strict: bool = False) -> Iterator:
    """The documents in one part of a file: ``byte_range`` = (start, end, number of the
    first document, its line), cut at document headers :func:`scan_keys` found (so that
    several processes can read one large file, each its part; :mod:`corefio.parallel`)."""
    yield from _stream(Source.of(source), report, strict, False, False, None, byte_range)


def mention_views(source: Source | Any, *, report: Report, strict: bool = False,
                  select: set[int] | None = None, byte_range: tuple[int, int, int, int] | None = None,
                  pos: bool = False) -> Iterator[MentionView]:
    """What scoring reads, document by document: the :class:`MentionView` that
    ``Document.mention_view(pos)`` gives for each document :func:`read` builds (same
    labels, forms, chains, mention ids and order), from the same parser, without the
    model. ``select`` (document numbers from 0) skips the others;
    ``byte_range`` = (start, end, number of the first document, its line), from
    :func:`scan_keys`, reads only that part of the file."""
    source = Source.of(source)
    for view in _stream(source, report, strict, True, pos, select, byte_range):
        if view is not None:
            yield view


def document_starts(source: Source | Any) -> list[tuple[int, int]]:
    """``(byte offset, line)`` of every document's header (:func:`scan_keys`)."""
    return [(offset, line) for _, _, offset, line in scan_keys(source)]


#: bytes :func:`scan_keys` reads at a time
_SCAN_BLOCK = 1 << 20


def _line_blocks(f: Any, offset: int, first: bytes) -> Iterator[tuple[int, bytes]]:
    """``(offset, bytes)``: the rest of a binary file, from ``offset`` (``first``: what
    was read from there already), in pieces of about ``_SCAN_BLOCK`` bytes that end
    with a line end (but the last): cut after the last LF of a block read, or, with
    none, after its last CR but a final one (CR-only line ends). A longer line is
    joined once, when its end comes."""
    waiting = [first]  # read, not given yet: no line end in it (but in the first)
    chunk = first
    while True:
        if chunk:
            cut = chunk.rfind(b"\n") + 1 or chunk.rfind(b"\r", 0, len(chunk) - 1) + 1
            if cut:
                waiting[-1] = chunk[:cut]
                piece = b"".join(waiting)
                yield offset, piece
                offset += len(piece)
                waiting = [chunk[cut:]]
        chunk = f.read(_SCAN_BLOCK)
        if not chunk:
            rest = b"".join(waiting)
            if rest:
                yield offset, rest
            return
        waiting.append(chunk)


def scan_keys(source: Source | Any) -> list[tuple[str, str | None, int, int]]:
    """``(name, part, byte offset, line)`` of every document's header, fast: the bytes
    are searched and only header lines are decoded. What :func:`read` would refuse in
    what this looks at is refused the same way (same message, same line): encodings
    and byte order marks, mixed line ends (anywhere in the file), malformed, unpaired or
    unclosed header and end lines, part numbers, and text other than comments before
    the first header or after the last end line, a file without a document. (Errors inside documents show when
    the documents are read.)

    The file is read a megabyte at a time, so memory does not grow with its size (only
    the lines before the first header and after an end line are kept, to be checked).
    Line ends are counted all along: mixed ones are refused before any other error
    found on the way."""
    source = Source.of(source)
    file = source.name
    scan = _KeyScan(file)
    with source.open() as f:
        head = f.read(max(_SCAN_BLOCK, 8192))  # more than check_encoding_head looks at
        base = check_encoding_head(head, file)  # offsets count from the file start
        for offset, piece in _line_blocks(f, base, head[base:]):
            scan.feed(offset, piece)
    if scan.mixed_line_ends():
        # read() refuses mixed line ends anywhere before it looks at a header (and the
        # byte ranges mention_views reads may leave the offending line out): same here,
        # located in the whole text as read() does (only when refusing)
        split_newlines(decode_piece(source.read_bytes()[base:], file, 1, True), file)  # raises, located
        raise FormatError("line ends mix CRLF, LF and/or CR; use one kind throughout (e.g. `dos2unix`)",
                          file=file)  # pragma: no cover - split_newlines raised
    if scan.error is not None:
        raise scan.error
    if scan.open_line is not None:
        raise FormatError(f"document starting on line {scan.open_line} never ends: missing '#end document' "
                          "(truncated file?)", file=file, line=scan.line - scan.trailing)
    if not scan.found:
        # no header (``before`` holds the whole file): one document, or none
        text = split_newlines(decode_piece(scan.before, file, 1, True), file)[0]
        if any(x.strip() and not x.startswith("#") for x in _lines_of(text)):
            return [(source.stem, None, 0, 1)]
        raise no_document_error(file, _line_count(text), NO_DOCUMENT)
    # what read() refuses outside documents is refused here too
    reader = _Reader(file, Report(), False)
    head_text = decode_piece(scan.before, file, 1, False)
    reader.outside(_lines_of(split_newlines(head_text, file)[0]), 1)
    assert scan.after is not None
    tail = decode_piece(scan.after, file, scan.end_line + 1, False)
    reader.outside(_lines_of(split_newlines(tail, file)[0]), scan.end_line + 1)
    return scan.found


class _KeyScan:
    """What :func:`scan_keys` learns from the pieces of a file, fed in order."""

    def __init__(self, file: str | None) -> None:
        self.file = file
        self.found: list[tuple[str, str | None, int, int]] = []
        #: CRLF and CR line ends seen (LFs: the line count, or ``lf`` in a CR-only file,
        #: whose CRs become LFs); whether the first line end was a lone CR
        self.crlf = self.lf = self.cr = 0
        self.cr_only: bool | None = None
        #: the first error met (raised once every line end is counted)
        self.error: FormatError | None = None
        #: the line the next piece starts on; LFs in the line ends that close the text so far
        self.line = 1
        self.trailing = 0
        #: the line of the header whose end line has not come yet
        self.open_line: int | None = None
        #: the bytes before the first header; after the last end line (None inside a document)
        self.before = b""
        self.after: bytes | None = None
        self.end_line = 0  # the line of the last end line

    def feed(self, offset: int, piece: bytes) -> None:
        if b"\r" in piece:
            self.crlf += piece.count(b"\r\n")
            self.cr += piece.count(b"\r")
        if self.cr_only is None:
            at_lf, at_cr = piece.find(b"\n"), piece.find(b"\r")
            if at_lf >= 0 or at_cr >= 0:  # the first line end; other kinds are refused at the end
                self.cr_only = at_cr >= 0 and (at_lf < 0 or at_cr < at_lf - 1)
        if self.cr_only:
            self.lf += piece.count(b"\n")  # (else the line count says how many LFs there are)
            piece = piece.replace(b"\r", b"\n")  # one byte for one: offsets stay
        text_end = len(piece)  # where the line ends that close the piece start
        while text_end and piece[text_end - 1] in b"\r\n":
            text_end -= 1
        self.trailing = piece.count(b"\n", text_end) if text_end else self.trailing + piece.count(b"\n")
        line, counted = self.line, 0  # marks() counts the lines up to its last mark
        if self.error is None:
            try:
                counted = self.marks(offset, piece)
            except FormatError as exc:
                self.error = exc
                self.line = line
        self.line += piece.count(b"\n", counted)

    def mixed_line_ends(self) -> bool:
        lf = self.lf if self.cr_only else self.line - 1
        return bool(self.cr) and not (self.crlf == lf == self.cr or (not self.crlf and not lf))

    def marks(self, offset: int, piece: bytes) -> int:
        """The header and end lines of a piece (which starts a line). ``self.line`` is
        moved on to the line of the last one; returns its offset in the piece."""
        file = self.file
        line, counted = self.line, 0
        match = _MARK_RE_BYTES.match
        after_from = 0  # where the bytes after the last end line start in this piece
        pos = 0 if piece.startswith(b"#") else piece.find(b"\n#")
        while pos >= 0:
            start = pos if pos == 0 and piece.startswith(b"#") else pos + 1
            pos = piece.find(b"\n#", start)
            m = match(piece, start)
            if m is None:
                continue
            line += piece.count(b"\n", counted, start)
            counted = start
            self.line = line
            rest = m.group(2).rstrip(b"\r").decode("utf-8", "replace")
            kind = m.group(1).decode()
            error = _mark_error(rest, kind, file, line)
            if error is not None:
                raise error
            if kind == "end":
                if self.open_line is None:
                    raise FormatError("'#end document' without '#begin document'", file=file, line=line)
                self.open_line = None
                self.after, after_from, self.end_line = b"", m.end() + 1, line
                continue
            if self.open_line is not None:
                raise FormatError(f"'#begin document' inside document opened on line {self.open_line} that "
                                  "never ended", file=file, line=line)
            self.open_line = line
            if not self.found:
                self.before += piece[:start]
            self.after = None
            name, part, _ = parse_header(rest)
            check_part(part, file, line)
            self.found.append((name, part, offset + start, line))
        if not self.found and self.open_line is None:
            self.before += piece
        if self.after is not None:
            self.after += piece[after_from:]
        return counted


def scan_document_keys(source: Source | Any) -> list[tuple[str, str | None]]:
    """(name, part) of every document of a file, from its header lines only."""
    return [(name, part) for name, part, _, _ in scan_keys(source)]


def loads(text: str, *, report: Report | None = None, strict: bool = False, file: str | None = None) -> Any:
    """Read CoNLL text (a shortcut of ``corefio.loads(text, "conll")`` for tests)."""
    report = report if report is not None else Report(file)
    return _Reader(file, report, strict).read(text, "document")


# ==========================================================================================
# writing
# ==========================================================================================
def render_cell(t: int, starts: dict, ends: dict, bounds: list[tuple[int, int]],
                labels: list[str], sep: str, empty: str) -> str:
    """The canonical coreference cell of token ``t`` (see the module docstring).

    ``starts``/``ends`` map a token to the indices of the mentions starting/ending there,
    ``bounds[k]`` is mention k's (first, last) token and ``labels[k]`` its label.
    """
    opening = starts.get(t, ())
    closing = ends.get(t, ())
    if not opening and not closing:
        return empty
    openers = sorted((-bounds[k][1], k) for k in opening if bounds[k][1] != t)
    singles = [k for k in opening if bounds[k][1] == t]
    closers = sorted((-bounds[k][0], -k) for k in closing if bounds[k][0] != t)
    parts = [f"({labels[k]}" for _, k in openers]
    parts += [f"({labels[k]})" for k in singles]
    closing_parts = [f"{labels[-k]})" for _, k in closers]
    if closers and openers and {labels[k] for _, k in openers} & {labels[-k] for _, k in closers}:
        # a mention of N ends where another of N starts: the closer must come first
        # (read in text order; the reference scorer pairs openers first and misreads it)
        return sep.join(closing_parts + parts)
    return sep.join(parts + closing_parts)


def render_cells(n: int, bounds: list[tuple[int, int]], labels: list[str], sep: str, empty: str) -> list[str]:
    """Every token's coreference cell; tokens with one bracket take a short path."""
    cells = [empty] * n
    events: dict[int, list[int]] = {}
    for k, (a, e) in enumerate(bounds):
        if a == e:
            if cells[a] is empty:
                cells[a] = f"({labels[k]})"
                continue
        else:
            if cells[a] is empty and cells[e] is empty:
                cells[a] = f"({labels[k]}"
                cells[e] = f"{labels[k]})"
                continue
        events.setdefault(a, []).append(k)
        events.setdefault(e, []).append(k)
    if events:
        # tokens with several brackets: render them again from all their mentions
        busy = set(events)
        starts: dict[int, list[int]] = {}
        ends: dict[int, list[int]] = {}
        for k, (a, e) in enumerate(bounds):
            if a in busy:
                starts.setdefault(a, []).append(k)
            if e in busy and e != a:
                ends.setdefault(e, []).append(k)
        for t in busy:
            cells[t] = render_cell(t, starts, ends, bounds, labels, sep, empty)
    return cells




def _chain_labels(doc, log: LossLog, keep_labels: bool) -> list[str]:
    """A CoNLL label for every markable: its chain's entity id when that is usable (one
    id per chain, bracket-safe, and a number unless ``keep_labels``: the reference
    scorer reads numbers only); the other chains get the smallest numbers no chain
    uses, in order of their first mention."""
    chains = doc.chain_indices()
    markables = doc.markables
    chain_label: list[str | None] = []
    taken: set[str] = set()
    unusable: list[str] = []
    for chain in chains:
        # the chain's first entity id (the one a chain of merged entities keeps)
        label = next((markables[k].entity for k in chain if markables[k].entity is not None), None)
        if label is not None and (not _SAFE_LABEL.match(label) or not (keep_labels or label.isdigit())
                                  or label in taken):
            unusable.append(label)
            label = None
        chain_label.append(label)
        if label is not None:
            taken.add(label)
    labels: list[str] = [""] * len(markables)
    number = 0
    for label, chain in zip(chain_label, chains):
        if label is None:
            while str(number) in taken:
                number += 1
            label = str(number)
            taken.add(label)
        for k in chain:
            labels[k] = label
    renamed = unusable
    if renamed:
        counters = all(_COUNTER_ID.match(e) for e in renamed)
        log.lose("label", "entity ids other than numbers", done="chains numbered", document=doc,
                 count=len(renamed), example=renamed[0], severity="info" if counters else "warning")
    return labels


_COUNTER_ID = re.compile(r"^[A-Za-z_]*\d+$")
_LINE_BREAKING = re.compile(r"[\t\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")

#: where the canonical layout takes a column's values from, in order of preference
_SOURCES = {"pos": ("pos", "xpos", "upos"), "speaker": ("speaker",)}


def _column_values(doc, names: list[str], fixed: dict[str, list[str]], log: LossLog,
                   blank: str | None = None) -> list[list[str]]:
    """Values of the non-coreference columns (``blank``: what a SemEval-2010 column holds
    where a token has no value)."""
    n = len(doc.tokens.forms)
    attrs = doc.tokens.attributes
    forms = doc.tokens.forms
    if "" in forms or _WHITESPACE.search("\x00".join(forms)):
        forms = [_clean_form(f, log, doc) for f in forms]
    out = []
    derived: dict[str, list[str]] = {}
    for name in names:
        if name == "FORM":
            out.append(forms)
            continue
        if name in fixed and len(fixed[name]) == n:
            out.append(fixed[name])
            continue
        source = name if name in attrs else next((a for a in _SOURCES.get(name, ()) if a in attrs), None)
        if source is not None:
            values = attrs[source]
            if None in values:
                empty = blank if blank is not None and name in _SEMEVAL_ATTRIBUTES else placeholder(name)
                values = [v if v is not None else empty for v in values]
            if _LINE_BREAKING.search("\x00".join(values)):
                log.lose("value", "TABs and line breaks in token attribute values", document=doc,
                         example=source, done="replaced by '_'")
                values = [_LINE_BREAKING.sub("_", v) for v in values]
            out.append(values)
            continue
        if not derived:
            derived = _derived_columns(doc)
        empty = blank if blank is not None and name in _SEMEVAL_ATTRIBUTES else placeholder(name)
        out.append(derived.get(name) or [empty] * n)
    return out


def _derived_columns(doc) -> dict[str, list[str]]:
    n = len(doc.tokens.forms)
    sentences = _sentences(doc)
    word_numbers = _counted(sentences, n, 0)
    ids = _counted(sentences, n, 1) if word_numbers is not None else None
    if word_numbers is None or ids is None:
        word_numbers = [""] * n
        for s in sentences:
            for i in range(s.first, s.last + 1):
                word_numbers[i] = str(i - s.first)
        ids = [str(int(w) + 1) for w in word_numbers]
    part = doc.part if doc.part is not None else "0"
    return {
        "document_id": [_document_id(doc.name)] * n,
        "part_number": [numeric_part(part) if part.isdigit() and part.isascii() else part] * n,
        "word_number": word_numbers,
        "id": ids,
    }


def _counted(sentences: list, n: int, start: int) -> list[str] | None:
    """Each token's number in its sentence, counted from ``start``, as text: a run of
    :data:`_NUMBERS` per sentence, not a number at a time (writing CoNLL of the
    benchmark key: 0.06 s of CPU less). None unless the sentences cover the ``n``
    tokens one after the other."""
    out: list[str] = []
    for s in sentences:
        size = s.last - s.first + 1
        if s.first != len(out) or size < 1:
            return None
        out += _NUMBERS[start:start + size] if start + size <= len(_NUMBERS) else \
            [str(i) for i in range(start, start + size)]
    return out if len(out) == n else None


def _document_id(name: str) -> str:
    """The first column's value: the document name, unless it would not read back as
    one (empty, starting with '#' like a comment, or with a TAB or line break)."""
    if not name or name.startswith("#") or _LINE_BREAKING.search(name):
        return "-"
    return name


def _clean_form(form: str, log: LossLog, doc) -> str:
    if form and not any(c.isspace() for c in form):
        return form
    log.lose("form", "empty token forms or forms containing whitespace", done="replaced by '_'",
             document=doc, example=repr(form))
    return "_" if not form else re.sub(r"\s", "_", form)


def _sentences(doc) -> list:
    if doc.sentences:
        return doc.sentences
    n = len(doc.tokens.forms)
    return [model.Sentence(first=0, last=n - 1, id=None, comments=[], interleaved=[], attributes={})] if n else []


def _header(doc, lay: ConllLayout | None) -> str | None:
    """The '#begin document' line: the source's if it still names this document."""
    raw = lay.begin if lay is not None else None
    if raw == "":
        return None  # the source had no header
    if raw is not None:
        m = _MARK_RE.match(raw)
        if m and m.group(1) == "begin" and parse_header(m.group(2))[:2] == (doc.name, doc.part):
            return raw
    return canonical_header(doc.name, doc.part)


def _usable_layout(doc, canonical: bool) -> ConllLayout | None:
    """The document's CoNLL layout, unless ``canonical`` (a column whose attribute the
    document lacks is written with placeholders, as it was read)."""
    if canonical:
        return None
    lay = doc.layout.get("conll")
    return lay if isinstance(lay, ConllLayout) else None


def _predicate_columns(attrs: dict) -> list[str]:
    out = []
    for i in range(1, _MAX_PREDICATE_COLUMNS + 1):
        name = f"predicate_arguments_{i}"
        if name not in attrs:
            break
        out.append(name)
    return out


def _write_document(doc, report: Report, canonical: bool) -> list[str]:
    """The lines of one document (without line ends)."""
    log = LossLog(report, "CoNLL-2012")
    doc = doc.chain_markables_only()
    n = len(doc.tokens.forms)
    lay = _usable_layout(doc, canonical)
    if lay is not None:
        names = list(lay.columns)
        fixed = lay.fixed
    else:
        names = list(CONLL2012_COLUMNS) + _predicate_columns(doc.tokens.attributes)
        fixed = {}
        used = set(names) | ({next((a for a in _SOURCES["pos"] if a in doc.tokens.attributes), "pos")})
        unwritten = sorted(a for a in doc.tokens.attributes if a in TOKEN_ATTRIBUTES and a not in used)
        if unwritten:
            log.lose("token-attributes", "token attributes of CoNLL-U-like or SemEval-2010 columns (a canonical CoNLL-2012 "
                     "file has no such column)", document=doc, count=len(unwritten), example=unwritten[0],
                     done="dropped")
    columns = _column_values(doc, names, fixed, log, lay.blank if lay is not None else None)
    labels = _chain_labels(doc, log, keep_labels=lay is not None)
    sep = lay.separator if lay is not None else CANONICAL_SEPARATOR
    empty = lay.empty if lay is not None else CANONICAL_EMPTY
    delimiter = lay.delimiter if lay is not None else "\t"
    out: list[str] = list(lay.before) if lay is not None else []
    header = _header(doc, lay)
    if header is not None:
        out.append(header)
    bounds = [(m.spans[0][0], m.spans[-1][1]) for m in doc.markables]
    tie = _tie_order(doc, doc.markables) if lay is None else None  # (a layout keeps the source's cells)
    if tie is not None:
        bounds, labels = [bounds[k] for k in tie], [labels[k] for k in tie]
    cells = render_cells(n, bounds, labels, sep, empty)
    if lay is not None:
        for t, raw in lay.cells.items():
            if t < n and _same_chunks(raw, cells[t]):
                cells[t] = raw
        for t, extra in lay.trailing.items():
            if t < n:
                cells[t] += extra
    columns.append(cells)
    if delimiter != "\t" and not _space_delimitable(columns):
        delimiter = "\t"
    rows = list(zip(*columns))
    sentences = _sentences(doc)
    absent = _absent_predicates(doc, names, sentences)
    for k, s in enumerate(sentences):
        if k:
            if lay is not None and k in lay.gaps:
                out.extend(lay.gaps[k])
            else:
                out.append("")
        sentence_rows = rows[s.first : s.last + 1]
        if absent is not None and absent[k]:
            cut = len(names) - absent[k]
            sentence_rows = [r[:cut] + r[-1:] for r in sentence_rows]
        if delimiter == "aligned" and lay is not None and k in lay.ends:
            block = _place_rows(sentence_rows, s.first, lay.ends[k], lay.line_ends)
        else:
            block = _format_rows(sentence_rows, delimiter)
        if lay is not None:
            out.extend(lay.comments.get(k, ()))
            for off, raw in sorted(lay.interleaved.get(k, ()), key=lambda x: x[0], reverse=True):
                block.insert(off, raw)
        out.extend(block)
    out.extend(lay.tail if lay is not None else ([""] if sentences else []))
    if header is not None:
        out.append(lay.end if lay is not None and lay.end is not None else "#end document")
    if lay is not None:
        out.extend(lay.after)
    if header is None and out and out[0].startswith("\ufeff"):
        # a file cannot start with U+FEFF (a reader takes it for a byte order mark):
        # the document gets a header (naming it as read, part and all)
        out.insert(0, canonical_header(doc.name, doc.part) if doc.part is not None
                   else f"#begin document ({doc.name})")
        out.append("#end document")
    return out


def scorer_order(chains: list[list[tuple]]) -> list[int]:
    """The chains (each a list of mention spans, a span a tuple of ``(first, last)``
    pairs) in the order in which the reference scorer (scorer.pl v8.01,
    ``GetCoreference``) meets their labels in the file :func:`write` makes of them.

    It numbers a label where the label first occurs: at the first token of the chain's
    earliest mention; within one cell, single-token mentions ``(N)`` come before opened
    ones ``(N`` (whatever their place in the cell), and the writer puts the longest
    opened mention first. Chains that tie (their first mentions have the same span) are
    ordered by their distinct spans, sorted (a chain whose next mention comes first comes
    first: the order of the reference scorer's test case TC-A-9), and the writer writes
    them in that order
    (:func:`_tie_order`), so that a file read back gives the same order."""
    def key(k: int) -> tuple:
        chain = chains[k]
        first = min(spans[0][0] for spans in chain)
        ends = [spans[-1][1] for spans in chain if spans[0][0] == first]
        kind = (0, 0) if first in ends else (1, -max(ends))
        return (first, kind, sorted(set(chain)))

    return sorted(range(len(chains)), key=key)


def _tie_order(doc, markables: list) -> list[int] | None:
    """The markables in the order the writer gives cells whose brackets would tie (a
    span in two chains): by :func:`scorer_order` of their chains, so that scorer.pl
    numbers the chains as corefio orders them; None when no span is in two chains."""
    chain_of: dict[tuple, int] = {}
    clash = False
    chains = doc.chain_indices()
    for c, chain in enumerate(chains):
        for k in chain:
            span = (markables[k].spans[0][0], markables[k].spans[-1][1])
            if chain_of.setdefault(span, c) != c:
                clash = True
    if not clash:
        return None
    spans = [[((markables[k].spans[0][0], markables[k].spans[-1][1]),) for k in chain] for chain in chains]
    rank = {c: r for r, c in enumerate(scorer_order(spans))}
    chain_rank = [0] * len(markables)
    for c, chain in enumerate(chains):
        for k in chain:
            chain_rank[k] = rank[c]
    return sorted(range(len(markables)), key=chain_rank.__getitem__)


def _absent_predicates(doc, names: list[str], sentences: list) -> list[int] | None:
    """For each sentence, how many of the last predicate-argument columns it lacks
    (its tokens have no value, None, in them: OntoNotes gives each sentence one column
    per predicate); None when every sentence has every column."""
    attrs = doc.tokens.attributes
    trailing = []  # the values of the last predicate-argument columns, the last first
    for name in reversed(names):
        if not name.startswith(("predicate_arguments_", "apred_")):
            break
        trailing.append(attrs.get(name))
    if not any(values is not None and None in values for values in trailing):
        return None
    out = []
    for s in sentences:
        lacking = 0
        for values in trailing:
            if values is None or values[s.first : s.last + 1].count(None) != s.last + 1 - s.first:
                break
            lacking += 1
        out.append(lacking)
    return out


def _space_delimitable(columns: list[list[str]]) -> bool:
    """Can every value be written between spaces (none empty, none with a blank)?"""
    return not any(not v or " " in v for column in columns for v in column)


def _same_chunks(raw: str, rendered: str) -> bool:
    a = [] if raw in EMPTY_VALUES else split_chunks(raw)
    b = [] if rendered in EMPTY_VALUES else split_chunks(rendered)
    return a is not None and b is not None and sorted(a) == sorted(b)


def _place_rows(rows: list[tuple[str, ...]], first: int, ends: tuple[int, ...],
                line_ends: dict[int, tuple[int, ...]]) -> list[str]:
    """Aligned lines padded as the source's were (:attr:`ConllLayout.ends`), or, if a
    value no longer fits, as :func:`_format_rows` pads them."""
    out = []
    for t, row in enumerate(rows, first):
        line = _place(row, line_ends.get(t, ends))
        if line is None:
            return _format_rows(rows, "aligned")
        out.append(line)
    return out


def _format_rows(rows: list[tuple[str, ...]], delimiter: str) -> list[str]:
    if delimiter == "\t":
        return ["\t".join(r) for r in rows]
    if delimiter == "space":
        return [" ".join(r) for r in rows]
    # space-aligned (the OntoNotes release layout): per sentence, each column
    # right-justified to its widest value, three spaces between columns, the
    # document id left-justified. Content round-trips; padding may differ from the source.
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))] if rows else []
    return ["   ".join([r[0].ljust(widths[0])] + [v.rjust(w) for v, w in zip(r[1:], widths[1:])]).rstrip()
            for r in rows]


def write(documents: Iterable, *, corpus: Any, report: Report, canonical: bool = False) -> Iterator[str]:
    """CoNLL-2012 text, one piece per document (see the module docstring for layout)."""
    pending: tuple[list[str], str, bool] | None = None
    for doc in documents:
        if pending is not None:
            yield _join(pending[0], pending[1], True)
        lines = _write_document(doc, report, canonical)
        lay = _usable_layout(doc, canonical)
        pending = (lines, lay.newline if lay is not None else "\n",
                   lay.final_newline if lay is not None else True)
    if pending is not None:
        yield _join(*pending)
        return
    head = corpus.layout.get("conll") if not canonical else None
    if isinstance(head, ConllLayout) and head.before:
        yield _join(head.before, head.newline, head.final_newline)


def _join(lines: list[str], newline: str, final: bool) -> str:
    text = newline.join(lines)
    return text + newline if final else text


def dumps(corpus: Any, *, report: Report | None = None, canonical: bool = False) -> str:
    """CoNLL text of a corpus (a shortcut of ``corefio.dumps(corpus, "conll")`` that
    reports no losses: for tests)."""
    report = report if report is not None else Report()
    return "".join(write(corpus.documents, corpus=corpus, report=report, canonical=canonical))


def sniff(head: bytes) -> bool:
    return bool(re.search(rb"(^|\n)(\xef\xbb\xbf)?#\s*begin\s+document", head))


register(
    FormatSpec(
        name="conll",
        description="CoNLL-2011/2012 coreference columns (bracket chains in the last column)",
        extensions=(".conll", ".v4_gold_conll", ".v4_auto_conll", ".v5_gold_conll", ".v5_auto_conll",
                    ".gold_conll", ".auto_conll", ".v2_gold_conll", ".v2_auto_conll", ".v9_gold_conll",
                    ".v9_auto_conll", ".key", ".response"),
        capabilities=Capabilities(
            discontinuous=False, nested=True, crossing=True, same_entity_overlap=False, cross_sentence=True,
            entity_ids=True, link_structure=False, link_types=False, multi_target_links=False,
            markable_attributes=False, entity_attributes=False, link_attributes=False, heads=False,
            min=False, optional=False, layers=False, sets=False, token_attributes=TOKEN_ATTRIBUTES,
            token_ids=False, whitespace=False, offsets=False, text=False, regions=False, sentences=True,
            sentence_attributes=False, metadata=False, schemes=False, multiple_documents=True,
        ),
        read=read,
        stream=stream,
        write=write,
        options=(
            Option("canonical", bool, False, "ignore the source layout; write what the reference scorer "
                   "reads (numeric labels, '-', '|', 12 or more TAB-separated columns)", applies_to="write"),
        ),
        sniff=sniff,
        aliases=("conll2012", "conll-2012", "conll2011", "conll-2011"),
        scan_keys=scan_keys,
        concatenates=True,
        mention_views=mention_views,
        document_starts=document_starts,
        stream_range=stream_range,
    )
)
