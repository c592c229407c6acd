"""CoNLL-2011/2012 (``.conll``, ``.v4_gold_conll``, ``.v4_auto_conll``, ...).

File structure::

    #begin document (NAME); part 000       one header per document (part)
    NAME  0  0  The  DT  (TOP(S(NP*  ...  (12        one token per line; columns
    NAME  0  1  man  NN  *)          ...  12)        separated by a TAB or aligned
                                                      with spaces; the coreference
    NAME  0  0  He   PRP ...              (12)       column is the LAST one
                                           <- a blank line ends a sentence
    #end document

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
opener. corefio follows the text order.) Entities are numbered in the order the
reference scorer first meets their label: in each cell, labels of ``(N)`` chunks before
labels of ``(N`` chunks. That order matters when scoring duplicate mentions.

The writer's canonical cell puts openers first (the longest mention first), then
single-token mentions, then closers (the shortest mention first), separated by ``|``;
brackets are thus properly nested. A document read from CoNLL keeps what its source
looked like (header, empty marker, separator, chunk order, column layout, comments,
multi-word-token lines), recorded as ``conll.*`` metadata and ``layout:conll.coref``
token hints, so writing it back gives the same bytes. ``canonical=True`` ignores
those and writes the form the reference scorer expects: numeric labels, ``-`` and
``|``, 12 or more columns.

Dialects read without fuss (reported as warnings; ``strict`` refuses them): ``part 0``,
``# begin document NAME`` without parentheses or part, an empty name, ``_`` or an empty
string as the empty value, chunks without ``|``, non-numeric labels (``person-6``),
2-, 3- or 5-column files, CoNLL-U-like files with multi-word-token lines.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ..diagnostics import Report
from ..errors import FormatError, ModelError
from ..files import gc_paused, read_text
from ..losses import LossLog
from ..chains import Mention, MentionChains, MentionView, POS_COLUMNS, document_label
from .._lazy import LazyModule
from ..registry import Capabilities, FormatSpec, register

#: the pydantic model, imported on first use (scoring CoNLL never needs it)
model = LazyModule("corefio.model")

EMPTY_VALUES = frozenset({"-", "_", ""})
CANONICAL_EMPTY = "-"
CANONICAL_SEPARATOR = "|"
LAYOUT_HINT = "layout:conll.coref"
TRAILING_HINT = "layout:conll.trailing"

_CHUNK_RE = re.compile(r"\(([^()|\s]+)\)|\(([^()|\s]+)|([^()|\s]+)\)|(\|)|(\S)")
_BEGIN_RE = re.compile(r"^#\s*begin\s+document\b ?(.*)$")
_END_RE = re.compile(r"^#\s*end\s+document\b")
_HEADER_RE = re.compile(r"^\((.*)\);\s*part\s+(\S+)\s*$")
_HEADER_NOPART_RE = re.compile(r"^\((.*)\);?\s*$")
_NUMERIC_ID = re.compile(r"^\d+([-.]\d+)?$")
_SAFE_LABEL = re.compile(r"^[^()|\s]+$")
_WHITESPACE = re.compile(r"\s")

#: column names of the CoNLL-2012 layout (after them: predicate arguments, coreference)
CONLL2012_COLUMNS = [
    "document_id", "part_number", "word_number", "FORM", "pos", "parse_bit",
    "predicate_lemma", "predicate_frameset", "word_sense", "speaker", "named_entities",
]
#: column names of a CoNLL-U-like layout (first column numeric)
CONLLU_COLUMNS = ["id", "FORM", "lemma", "upos", "xpos", "feats", "head", "deprel", "deps", "misc"]


def parse_header(rest: str) -> tuple[str, str | None, bool]:
    """(name, part, canonical?) from what follows ``#begin document``."""
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


def column_names(n_cols: int, first_fields: list[str], name: str | None = None) -> tuple[list[str], int]:
    """Names for the non-coreference columns and the index of the word form."""
    n = n_cols - 1  # the last column is coreference
    if n_cols == 2:
        return ["FORM"], 0
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


def split_chunks(cell: str) -> list[tuple[str, str]] | None:
    """``[(kind, label)]`` with kind O/S/C, or None if the cell is malformed."""
    out = []
    for single, opener, closer, sep, junk in _CHUNK_RE.findall(cell):
        if single:
            out.append(("S", single))
        elif opener:
            out.append(("O", opener))
        elif closer:
            out.append(("C", closer))
        elif junk:
            return None
    return out


# ==========================================================================================
# reading
# ==========================================================================================
_MARK_RE = re.compile(r"^#[ \t]*(begin|end)[ \t]+document\b[^\n]*", re.M)
_SINGLE_CHUNK = re.compile(r"\(([^()|\s]+)\)|\(([^()|\s]+)|([^()|\s]+)\)")


class _Retry(Exception):
    """The fast path met something unusual: redo the document line by line."""


class _Parsed:
    """One document's lines, split into rows, with what surrounds them."""

    def __init__(self, name: str, part: str | None, header: str, header_line: int) -> None:
        self.name, self.part, self.header, self.header_line = name, part, header, header_line
        self.end_raw: str | None = None
        self.blank_before_end = False
        self.rows: list[list[str]] = []
        self.sizes: list[int] = []  # tokens per sentence
        self.comments: list[list[str]] = []  # per sentence
        self.interleaved: list[list[tuple[int, str]]] = []  # per sentence
        self.row_line: list[int] | None = None  # source line of each row (slow path only)
        self.trailing: list[tuple[int, str]] = []
        self.delimiter = "\t"  # or "space" (one space) or "aligned" (padded columns)
        self.n_cols = 0
        #: fast path: the columns (all of them, or only forms and cells in
        #: mentions-only mode), without rows
        self.columns: list[list[str]] | None = None
        self.first: list[str] | None = None  # the first token line's fields


class _Reader:
    def __init__(self, file: str | None, report: Report, strict: bool, chains: bool = False,
                 pos: bool = False) -> None:
        self.file = file
        self.report = report
        self.strict = strict
        #: build :class:`MentionChains` (forms, POS if ``pos``, chains) instead of documents;
        #: the other columns and the layout are then skipped
        self.chains = chains
        self.pos = pos
        self.events: list[tuple[str, str, int | None]] = []
        #: build only these documents (numbers in file order); None: all
        self.select: set[int] | None = None
        self.count = 0

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

        Each sentence is split once on TABs and newlines and the columns are taken by
        slicing. A line with too many or too few fields shows in the field count or in the
        first column, which in this layout holds the document id on every line.
        """
        if block.endswith("\n"):
            block = block[:-1]
        if not block:
            return True
        if block.startswith(("\n", "#")) or "\n#" in block or "\r" in block:
            return False
        if block.endswith("\n"):
            p.blank_before_end = True
            block = block[:-1]
            if block.endswith("\n"):
                return False
        first_line = block[: block.find("\n")] if "\n" in block else block
        if "\t" not in first_line:
            return False
        first = first_line.split("\t")
        n = len(first)
        if n < 2 or numbered(first, p.name):
            return False
        names, form_index = column_names(n, first, p.name)
        if self.chains:
            pos_index = self.pos_index(names)
            wanted: list[int] | range = [form_index] + ([pos_index] if pos_index is not None else []) + [n - 1]
        else:
            wanted = range(n)
        columns: list[list[str]] = [[] for _ in wanted]
        for chunk in block.split("\n\n"):
            if not chunk or chunk[0] == "\n":
                return False
            lines = chunk.count("\n") + 1
            flat = chunk.replace("\n", "\t").split("\t")
            if len(flat) != n * lines or (lines > 1 and len(set(flat[0::n])) != 1):
                return False
            for column, i in zip(columns, wanted):
                column += flat[i::n]
            p.sizes.append(lines)
        p.n_cols = n
        p.first = first
        p.columns = columns
        p.comments = [[] for _ in p.sizes]
        p.interleaved = [[] for _ in p.sizes]
        return True

    def pos_index(self, names: list[str]) -> int | None:
        """The column of part-of-speech tags, when they are wanted (chains mode)."""
        if self.pos:
            for name in POS_COLUMNS:
                if name in names:
                    return names.index(name)
        return None

    def slow_block(self, p: _Parsed, lines: list[str], first_line: int) -> None:
        """Line by line, with line numbers, comments, MWT lines, trailing fields, spaces."""
        p.rows, p.sizes, p.comments, p.interleaved, p.trailing = [], [], [], [], []
        p.row_line = []
        p.n_cols = 0
        p.columns = p.first = None
        p.blank_before_end = False
        p.delimiter = "\t"
        comments: list[str] = []
        interleaved: list[tuple[int, str]] = []
        sent_rows = 0
        form_index = None

        def end_sentence() -> None:
            nonlocal comments, interleaved, sent_rows
            if sent_rows:
                p.sizes.append(sent_rows)
                p.comments.append(comments)
                p.interleaved.append(interleaved)
                comments, interleaved, sent_rows = [], [], 0

        for lineno, line in enumerate(lines, first_line):
            if not line.strip():
                end_sentence()
                p.blank_before_end = True
                continue
            p.blank_before_end = False
            if line.startswith("#") and not _looks_like_token(line):
                if sent_rows:
                    end_sentence()
                comments.append(line)
                continue
            if "\t" in line:
                fields = line.split("\t")
            else:
                fields = line.split()
                if p.delimiter != "aligned":
                    p.delimiter = "space" if line == " ".join(fields) else "aligned"
            if not p.n_cols:
                p.n_cols = len(fields)
                if p.n_cols < 2:
                    raise self.error(f"a token line needs at least 2 columns, found {p.n_cols}", lineno)
                form_index = column_names(p.n_cols, fields, p.name)[1]
            n = len(fields)
            if n != p.n_cols:
                if n > p.n_cols and not any(fields[p.n_cols:]):
                    self.report.info("conll.trailing-fields", "trailing empty fields (trailing tabs) ignored",
                                     line=lineno, merge=True, file=self.file)
                    p.trailing.append((len(p.rows), "\t" * (n - p.n_cols)))
                    del fields[p.n_cols:]
                else:
                    raise self.error(f"line has {n} columns, the document's first token line has {p.n_cols}", lineno)
            first = fields[0]
            if form_index == 1 and ("-" in first or "." in first) and _NUMERIC_ID.match(first):
                # CoNLL-U multi-word token range or empty node: not a word of the text
                if fields[-1] not in EMPTY_VALUES:
                    raise self.error(f"coreference on a multi-word-token/empty-node line {first!r}", lineno)
                self.dialect("conll.multiword-lines", "multi-word-token or empty-node lines (kept, not words)", lineno)
                interleaved.append((sent_rows, line))
                continue
            p.rows.append(fields)
            p.row_line.append(lineno)
            sent_rows += 1
        end_sentence()
        if comments or interleaved:
            # comments after the last sentence: keep them with it
            if p.sizes:
                p.comments[-1] += comments if not p.comments[-1] else []
            if comments:
                self.dialect("conll.comment-lines", "comment lines inside a document", first_line)

    # -- building the document --------------------------------------------------------------
    def build(self, p: _Parsed) -> model.Document:
        first = p.first if p.columns is not None else (p.rows[0] if p.rows else None)
        if p.columns is not None:
            columns = p.columns
            n = len(columns[-1]) if columns else 0
        else:
            n = len(p.rows)
            columns = [list(c) for c in zip(*p.rows)] if n else []
        line_of = p.row_line
        names, form_index = column_names(p.n_cols, first, p.name) if first else (["FORM"], 0)
        if n:
            numeric = numbered(first, p.name)
            if p.n_cols < 12 and not numeric:
                self.dialect("conll.few-columns", f"{p.n_cols}-column file (CoNLL-2012 has 12 or more)",
                             line_of[0] if line_of else p.header_line + 1)
            elif numeric and p.n_cols > 2:
                self.dialect("conll.numbered-columns", "first column holds token numbers (not a document id)",
                             line_of[0] if line_of else p.header_line + 1)
        cells = columns[-1] if n else []
        slots, multi = self.parse_coref(p, cells)
        if n == 0:
            self.report.warning("conll.empty-document", f"document {p.name!r} has no tokens",
                                line=p.header_line, file=self.file)
        if self.chains:
            pos_index = self.pos_index(names)
            if p.columns is not None:  # the fast path kept only forms, POS, coreference
                form_index, pos_index = 0, (1 if pos_index is not None else None)
            return self.mention_chains(p, columns[form_index] if n else [],
                                       columns[pos_index] if n and pos_index is not None else None, slots)
        self.check_labels(p, [slot[0] for slot in slots])
        sentences = []
        first = 0
        for size, comments, inter in zip(p.sizes, p.comments, p.interleaved):
            sentences.append(model.Sentence._make(first=first, last=first + size - 1, id=None, comments=comments,
                                                  interleaved=inter, attributes={}))
            first += size
        forms = columns[form_index] if n else []
        attributes: dict[str, list[str | None]] = {
            name: (columns[i] if n else []) for i, name in enumerate(names) if i != form_index}
        markables = model.Markable._make_many(
            {"id": f"markable_{k}", "spans": ((a, e),), "entity": label, "head": None, "attributes": {}}
            for k, (label, a, e, _, _) in enumerate(slots, 1))
        self.duplicates(p, markables)
        metadata = self.layout_metadata(p, cells, names, multi)
        hints = self.layout_hints(p, cells, slots, multi, metadata)
        if hints is not None:
            attributes[LAYOUT_HINT] = hints
        if p.trailing:
            trailing: list[str | None] = [None] * n
            for t, extra in p.trailing:
                trailing[t] = extra
            attributes[TRAILING_HINT] = trailing
        try:
            return model.Document.build(
                name=p.name, part=p.part, metadata=metadata,
                tokens=model.Tokens._make(forms=forms, ids=None, whitespace=None, offsets=None, attributes=attributes),
                sentences=sentences, markables=markables, entities=[], links=[],
            )
        except ModelError as exc:  # pragma: no cover - the reader builds valid documents
            raise self.error(str(exc), p.header_line) from None

    def mention_chains(self, p: _Parsed, forms: list[str], pos: list[str] | None, slots: list) -> MentionChains:
        """What scoring reads, straight from the mentions (no :class:`Document` built):
        chains in the order their entity was created, as :meth:`Document.chain_indices`
        gives them for the document this reader would build."""
        groups: dict[str, list[tuple]] = {}
        for label, a, e, _, _ in slots:
            chain = groups.get(label)
            if chain is None:
                groups[label] = [((a, e),)]
            else:
                chain.append(((a, e),))
        self.check_labels(p, list(groups))
        return MentionView(document_label(p.name, p.part), forms,
                           [[Mention(spans) for spans in chain] for chain in groups.values()], pos)

    def check_labels(self, p: _Parsed, labels: list[str]) -> None:
        if labels and not "".join(labels).isdigit():
            example = next(label for label in labels if not label.isdigit())
            self.dialect("conll.label-not-numeric", f"non-numeric entity labels (e.g. {example!r})", p.header_line)

    def parse_coref(self, p: _Parsed, cells) -> tuple[list[list], list]:
        """Mentions from the coreference column.

        Returns the slots ``[label, first, last, row, index]`` in creation order and the
        cells with several chunks (for layout hints). Chunks pair up in text order; in a
        cell, single-token mentions are created before opened ones, which is the order
        in which the reference scorer first meets entity labels (entity order matters
        when scoring duplicate mentions).
        """
        slots: list[list] = []
        multi: list[tuple[int, str, list[list]]] = []  # (row, raw cell, slot of each chunk)
        opens: dict[str, list[list]] = {}
        fullmatch = _SINGLE_CHUNK.fullmatch
        empty = EMPTY_VALUES

        def line(t: int) -> int:
            if p.row_line is None:
                raise _Retry
            return p.row_line[t]

        for t, cell in [(t, c) for t, c in enumerate(cells) if c not in empty]:
            m = fullmatch(cell)
            if m is not None:
                single, opener, closer = m.groups()
                if single is not None:
                    slots.append((single, t, t, t, len(slots)))
                elif opener is not None:
                    slot = [opener, t, -1, t, len(slots)]
                    slots.append(slot)
                    stack = opens.get(opener)
                    if stack is None:
                        opens[opener] = [slot]
                    else:
                        stack.append(slot)
                else:
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

    def duplicates(self, p: _Parsed, markables: list[model.Markable]) -> None:
        seen: dict[tuple, model.Markable] = {}
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

    def layout_metadata(self, p: _Parsed, cells, names: list[str], multi) -> dict[str, str]:
        meta: dict[str, str] = {"conll.columns": ",".join(names)}
        if p.header != canonical_header(p.name, p.part):
            meta["conll.begin"] = p.header
        if p.end_raw is not None and p.end_raw != "#end document":
            meta["conll.end"] = p.end_raw
        used = EMPTY_VALUES.intersection(cells)
        if used:
            empty = max(sorted(used), key=cells.count) if len(used) > 1 else next(iter(used))
            if empty != CANONICAL_EMPTY:
                meta["conll.empty"] = empty
        with_bar = sum(1 for _, raw, chunk_slots in multi if len(chunk_slots) > 1 and "|" in raw)
        without = sum(1 for _, raw, chunk_slots in multi if len(chunk_slots) > 1 and "|" not in raw)
        if without > with_bar:
            meta["conll.separator"] = ""
        if p.delimiter != "\t":
            meta["conll.delimiter"] = p.delimiter
        if not p.blank_before_end:
            meta["conll.blank_before_end"] = "no"
        return meta

    def layout_hints(self, p: _Parsed, cells, slots, multi, meta) -> list[str | None] | None:
        """Raw cells whose chunk order, separator or empty marker differ from our rendering."""
        n = len(cells)
        hints: list[str | None] | None = None
        sep = meta.get("conll.separator", CANONICAL_SEPARATOR)
        for t, raw, chunk_slots in multi:
            if sep.join(_canonical_cell(t, chunk_slots)) != raw:
                if hints is None:
                    hints = [None] * n
                hints[t] = raw
        empty = meta.get("conll.empty", CANONICAL_EMPTY)
        if len(EMPTY_VALUES.intersection(cells)) > 1:
            for t, cell in enumerate(cells):
                if cell in EMPTY_VALUES and cell != empty:
                    if hints is None:
                        hints = [None] * n
                    hints[t] = cell
        return hints

    # -- whole file ---------------------------------------------------------------------------
    def documents(self, text: str, stem: str, line_offset: int = 0):
        """Yield the documents of ``text`` (one CoNLL file, or a piece of one).

        With ``self.select`` (a set of document numbers, counted from 0 over the whole
        file), documents not in it are skipped without being built.
        """
        if "\r" in text:
            text = text.replace("\r\n", "\n")
        marks = _document_marks(text)
        pos = 0
        line = 1 + line_offset
        header: re.Match | None = None
        header_line = 0
        seen = 0
        if not marks and text.strip():
            self.dialect("conll.no-header", "no '#begin document' line: the file is read as one document", line)
            self.flush_events()
            p = _Parsed(stem, None, "", line)
            yield self.finish_block(p, text, line)
            return
        for m in marks:
            m_line = line + text.count("\n", pos, m.start())
            if m.group(1) == "begin":
                if header is not None:
                    raise self.error(f"'#begin document' inside document opened on line {header_line} "
                                     "that never ended", m_line)
                self.outside(text[pos : m.start()], line, seen)
                header, header_line = m, m_line
            else:
                if header is None:
                    raise self.error("'#end document' without '#begin document'", m_line)
                rest = re.match(r"^#\s*begin\s+document\b ?(.*)$", header.group(0)).group(1)
                name, part, canonical = parse_header(rest)
                if not canonical:
                    self.dialect("conll.header", f"non-canonical document header {header.group(0)!r}", header_line)
                elif not (part.isdigit() and len(part) == 3):
                    self.dialect("conll.header", f"part number {part!r} is not 3 digits", header_line)
                number = self.count
                self.count += 1
                if self.select is None or number in self.select:
                    p = _Parsed(name, part, header.group(0), header_line)
                    p.end_raw = m.group(0)
                    block = text[header.end() + 1 : m.start()] if header.end() < m.start() else ""
                    yield self.finish_block(p, block, header_line + 1)
                seen += 1
                header = None
            line = m_line
            pos = m.start()
        if header is not None:
            raise self.error(f"document starting on line {header_line} never ends: missing "
                             "'#end document' (truncated file?)", line + text[pos:].rstrip("\n").count("\n"))
        self.outside(text[pos:], line, seen, tail=True)

    def outside(self, gap: str, line: int, seen: int, tail: bool = False) -> None:
        """Text between documents: blank lines (counted) and comments (kept)."""
        lines = gap.split("\n")
        if seen or tail:
            lines = lines[1:]  # the rest of the previous mark's line
        for k, text in enumerate(lines):
            if not text.strip():
                if k < len(lines) - 1 and seen:
                    self._last_doc_blank_after += 1
                continue
            if text.startswith("#"):
                self._preamble.append(text)
                continue
            raise self.error("token line outside a document", line + k + (1 if (seen or tail) else 0))

    def finish_block(self, p: _Parsed, block: str, first_line: int) -> model.Document:
        if not self.fast_block(p, block):
            self.slow_block(p, block.split("\n")[:-1] if block.endswith("\n") else block.split("\n"), first_line)
        try:
            doc = self.build(p)
        except _Retry:
            self.events = []
            self.slow_block(p, block.split("\n")[:-1] if block.endswith("\n") else block.split("\n"), first_line)
            doc = self.build(p)
        self.flush_events()
        return doc

    def read(self, text: str, stem: str) -> model.Corpus:
        self._preamble: list[str] = []
        self._last_doc_blank_after = 0
        documents: list[model.Document] = []
        names: Counter[tuple] = Counter()
        for doc in self.documents(text, stem):
            if documents and self._last_doc_blank_after:
                documents[-1].metadata["conll.blank_after_end"] = str(self._last_doc_blank_after)
            self._last_doc_blank_after = 0
            documents.append(doc)
            names[doc.key] += 1
        if documents and self._last_doc_blank_after:
            documents[-1].metadata["conll.blank_after_end"] = str(self._last_doc_blank_after)
        if documents and documents[-1].metadata.get("conll.begin") == "":
            documents[-1].metadata["conll.end"] = ""
        for (name, part), k in names.items():
            if k > 1:
                self.report.warning("conll.duplicate-document", f"{k} documents are named {name!r} part {part!r}",
                                    file=self.file)
        metadata = {"conll.preamble": "\n".join(self._preamble)} if self._preamble else {}
        return model.Corpus._make(documents=documents, metadata=metadata)


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


def _document_marks(text: str) -> list[re.Match]:
    """The ``#begin document`` / ``#end document`` lines (str.find: 5x faster than re.M)."""
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


def _looks_like_token(line: str) -> bool:
    """'#' starting a token line (a word '#') rather than a comment."""
    return "\t" in line and line.split("\t", 1)[0] == "#"


def read(path: str | Path, *, report: Report | None = None, strict: bool = False,
         **_: object) -> model.Corpus:
    """Read a CoNLL-2011/2012 file (every document in it)."""
    report = report if report is not None else Report(str(path))
    text = read_text(path)
    with gc_paused():
        return _Reader(str(path), report, strict).read(text, Path(path).name.split(".")[0])


def iter_documents(path: str | Path, *, report: Report | None = None, strict: bool = False,
                   select: set[int] | None = None,
                   byte_range: tuple[int, int, int, int] | None = None, chains: bool = False,
                   pos: bool = False):
    """Yield the documents of a file one at a time (memory of about one document).

    Gives the same documents as :func:`read`; each is yielded once the blank lines that
    follow its ``#end document`` have been seen. ``byte_range`` = (start, end, first
    document number, first line), from :func:`scan_documents`, reads only that part of
    the file (``select`` numbers still count from the start of the file).
    ``chains=True`` yields :class:`~corefio.model.MentionChains` instead (what scoring
    reads: forms, POS tags if ``pos``, chains), which is faster.
    """
    report = report if report is not None else Report(str(path))
    reader = _Reader(str(path), report, strict, chains=chains, pos=pos)
    reader._preamble, reader._last_doc_blank_after = [], 0
    reader.select = select
    stem = Path(path).name.split(".")[0]
    pending: model.Document | None = None
    start_byte, end_byte, first_number, start_line = byte_range if byte_range else (0, None, 0, 1)
    reader.count = first_number

    def pieces():
        """Pieces of the file that end with an '#end document' line (1 MiB reads)."""
        end_mark = re.compile(rb"^#[ \t]*end[ \t]+document\b[^\n]*(\n|$)", re.M)
        buffer = b""
        first_line = start_line
        left = None if end_byte is None else end_byte - start_byte
        with open(path, "rb") as f:
            f.seek(start_byte)
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
                else:
                    cut = len(buffer)
                if cut > 0:
                    piece, buffer = buffer[:cut], buffer[cut:]
                    yield _decode_piece([piece], path, first_line), first_line
                    first_line += piece.count(b"\n")
                if not chunk:
                    break

    with gc_paused():
        for text, first_line in pieces():
            lead = text[: len(text) - len(text.lstrip("\n"))].count("\n") if pending is not None else 0
            if pending is not None:
                if lead and not chains:
                    pending.metadata["conll.blank_after_end"] = str(lead)
                yield pending
                pending = None
            if not text.strip():
                continue
            docs = list(reader.documents(text, stem, line_offset=first_line - 1))
            for doc in docs[:-1]:
                yield doc
            pending = docs[-1] if docs else None
    if pending is not None:
        yield pending


def scan_documents(path: str | Path) -> list[tuple[str, str | None, int, int]]:
    """(name, part, byte offset, line) of every document's header (fast: the bytes are
    searched, only header lines are decoded)."""
    from ..files import read_bytes

    data = read_bytes(path)
    found = []
    header = re.compile(rb"^#[ \t]*begin[ \t]+document\b ?([^\n]*)", re.M)
    line, counted = 1, 0
    pos = 0 if data.startswith(b"#") else data.find(b"\n#")
    while pos >= 0:
        start = pos if pos == 0 and data.startswith(b"#") else pos + 1
        m = header.match(data, start)
        if m is not None:
            line += data.count(b"\n", counted, start)
            counted = start
            rest = m.group(1).rstrip(b"\r").decode("utf-8", "replace")
            found.append((*parse_header(rest)[:2], start, line))
        pos = data.find(b"\n#", start)
    if not found and data.strip():
        found.append((Path(path).name.split(".")[0], None, 0, 1))
    return found


def scan_document_keys(path: str | Path) -> list[tuple[str, str | None]]:
    """(name, part) of every document of a file, from its header lines only."""
    return [(name, part) for name, part, _, _ in scan_documents(path)]


def _decode_piece(piece: list[bytes], path, first_line: int) -> str:
    from ..errors import FormatError as _FE
    from ..files import decode_utf8

    try:
        return decode_utf8(b"".join(piece), path)
    except _FE as exc:
        exc.line = (exc.line or 1) + first_line - 1
        raise


def loads(text: str, *, report: Report | None = None, strict: bool = False, file: str | None = None) -> model.Corpus:
    report = report if report is not None else Report(file)
    with gc_paused():
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


def mention_index(bounds: list[tuple[int, int]]) -> tuple[dict, dict]:
    starts: dict[int, list[int]] = {}
    ends: dict[int, list[int]] = {}
    for k, (a, e) in enumerate(bounds):
        starts.setdefault(a, []).append(k)
        ends.setdefault(e, []).append(k)
    return starts, ends


def _chain_labels(doc: model.Document, keep_labels: bool, log: LossLog) -> list[str]:
    """A CoNLL label for every markable: its chain's entity id when that is usable
    (one id per chain, distinct, bracket-safe, and numeric unless ``keep_labels``),
    otherwise chains numbered 0, 1, ... in order of their first mention."""
    chains = doc.chain_indices()
    markables = doc.markables
    chain_label: list[str] = []
    for chain in chains:
        ids = {markables[k].entity for k in chain}
        label = ids.pop() if len(ids) == 1 else None
        if label is None or not _SAFE_LABEL.match(label) or not (keep_labels or label.isdigit()):
            break
        chain_label.append(label)
    labels: list[str] = [""] * len(markables)
    if len(chain_label) == len(chains) and len(set(chain_label)) == len(chains):
        for label, chain in zip(chain_label, chains):
            for k in chain:
                labels[k] = label
        return labels
    for number, chain in enumerate(chains):
        for k in chain:
            labels[k] = str(number)
    if any(m.entity is not None for m in markables):
        log.lose("entity-id", "the entity ids as written (chains renumbered 0, 1, ...)",
                 document=doc, count=len(chains), severity="info")
    return labels


#: where the canonical layout takes a column's values from, in order of preference
_SOURCES = {"pos": ("pos", "xpos", "upos"), "speaker": ("speaker",)}


def _column_values(doc: model.Document, names: list[str], log: LossLog) -> tuple[list[list[str]], set[str]]:
    """Values of the non-coreference columns, and the token attributes they used."""
    n = len(doc.tokens.forms)
    attrs = doc.tokens.attributes
    used: set[str] = set()
    forms = doc.tokens.forms
    if "" in forms or _WHITESPACE.search("\x00".join(forms)):
        forms = [_clean_form(f, log, doc) for f in forms]
    word_numbers = [""] * n
    for s in _sentences(doc):
        for i in range(s.first, s.last + 1):
            word_numbers[i] = str(i - s.first)
    part = doc.part if doc.part is not None else "0"
    defaults = {
        "document_id": [doc.name or "-"] * n,
        "part_number": [str(int(part)) if part.isdigit() else part] * n,
        "word_number": word_numbers,
        "id": [str(int(w) + 1) for w in word_numbers],
        "parse_bit": ["*"] * n,
        "named_entities": ["*"] * n,
    }
    out = []
    for name in names:
        source = name if name in attrs else next((a for a in _SOURCES.get(name, ()) if a in attrs), None)
        if name == "FORM":
            out.append(forms)
        elif source is not None:
            used.add(source)
            values = attrs[source]
            out.append(values if None not in values else [v if v is not None else "-" for v in values])
        else:
            out.append(defaults.get(name, ["-"] * n))
    return out, used


def _clean_form(form: str, log: LossLog, doc: model.Document) -> str:
    if form and not any(c.isspace() for c in form):
        return form
    log.lose("token-form", "empty token forms or forms containing whitespace (replaced by '_')",
             document=doc, example=repr(form))
    return "_" if not form else re.sub(r"\s", "_", form)


def _sentences(doc: model.Document) -> list[model.Sentence]:
    if doc.sentences:
        return doc.sentences
    n = len(doc.tokens.forms)
    return [model.Sentence._make(first=0, last=n - 1, id=None, comments=[], interleaved=[], attributes={})] if n else []


def _header(doc: model.Document, from_conll: bool) -> str | None:
    """The '#begin document' line: the source's if it still names this document."""
    raw = doc.metadata.get("conll.begin") if from_conll else None
    if raw == "":
        return None  # the source had no header
    if raw is not None:
        m = _BEGIN_RE.match(raw)
        if m and parse_header(m.group(1))[:2] == (doc.name, doc.part):
            return raw
    return canonical_header(doc.name, doc.part)


def _write_document(doc: model.Document, out: list[str], report: Report, canonical: bool) -> None:
    log = LossLog(report, "CoNLL-2012")
    meta = doc.metadata
    n = len(doc.tokens.forms)
    attrs = doc.tokens.attributes
    names = meta.get("conll.columns", "").split(",")
    # keep the source's layout when the document was read from CoNLL and is complete
    from_conll = (not canonical and "conll.columns" in meta
                  and all(name == "FORM" or name in attrs for name in names))
    if not from_conll:
        names = list(CONLL2012_COLUMNS)
    # what CoNLL cannot express
    log.discontinuous(doc, "the span from their first to their last token")
    log.non_identity_links(doc)
    log.identity_link_structure(doc)
    log.markable_attributes(doc)
    log.entity_attributes(doc)
    log.heads(doc)
    log.whitespace_and_offsets(doc)
    if doc.sentences and not from_conll:
        sent = doc.sentence_of_token()
        crossing = [m for m in doc.markables if sent[m.first] != sent[m.last]]
        log.lose("cross-sentence-mention", "mentions crossing a sentence boundary (written across it)",
                 document=doc, count=len(crossing), example=crossing[0].id if crossing else None)
    _report_same_entity_crossing(doc, log)
    columns, used = _column_values(doc, names, log)
    log.token_attributes(doc, keep=frozenset(set(names) | used))
    labels = _chain_labels(doc, keep_labels=from_conll, log=log)
    sep = meta.get("conll.separator", CANONICAL_SEPARATOR) if from_conll else CANONICAL_SEPARATOR
    empty = meta.get("conll.empty", CANONICAL_EMPTY) if from_conll else CANONICAL_EMPTY
    delimiter = meta.get("conll.delimiter", "\t") if from_conll else "\t"
    header = _header(doc, from_conll)
    if header is not None:
        out.append(header)
    # coreference cells
    bounds = [(m.spans[0][0], m.spans[-1][1]) for m in doc.markables]
    cells = render_cells(n, bounds, labels, sep, empty)
    hints = attrs.get(LAYOUT_HINT) if from_conll else None
    if hints is not None:
        for t, raw in enumerate(hints):
            if raw is not None and _same_chunks(raw, cells[t]):
                cells[t] = raw
    trailing = attrs.get(TRAILING_HINT) if from_conll else None
    if trailing is not None:
        cells = [c if extra is None else c + extra for c, extra in zip(cells, trailing)]
    columns.append(cells)
    rows = list(zip(*columns))
    sentences = _sentences(doc)
    if not from_conll:
        log.lose("sentence-comment", "comment lines of sentences", document=doc,
                 count=sum(len(s.comments) for s in sentences))
        log.lose("interleaved-line", "multi-word-token / empty-node lines", document=doc,
                 count=sum(len(s.interleaved) for s in sentences))
    for k, s in enumerate(sentences):
        if k:
            out.append("")
        block = _format_rows(rows[s.first : s.last + 1], delimiter)
        if from_conll:
            out.extend(s.comments)
            for off, raw in sorted(s.interleaved, key=lambda x: x[0], reverse=True):
                block.insert(off, raw)
        out.extend(block)
    if sentences and not (from_conll and meta.get("conll.blank_before_end") == "no"):
        out.append("")
    if header is not None:
        out.append(meta.get("conll.end", "#end document") if from_conll else "#end document")
    if from_conll and meta.get("conll.blank_after_end"):
        out.extend([""] * int(meta["conll.blank_after_end"]))


def _report_same_entity_crossing(doc: model.Document, log: LossLog) -> None:
    """Mentions of one chain that cross (overlap without nesting): corefio reads them
    back, the reference scorer does not (it pairs a token's openers before its closers)."""
    chains = doc.chain_indices()
    crossing = 0
    for chain in chains:
        if len(chain) < 2:
            continue
        bounds = sorted(((doc.markables[k].first, doc.markables[k].last) for k in chain),
                        key=lambda b: (b[0], -b[1]))
        stack: list[int] = []
        for a, e in bounds:
            while stack and stack[-1] < a:
                stack.pop()
            if stack and stack[-1] < e:
                crossing += 1
            stack.append(e)
    log.lose("same-entity-crossing", "mentions of one chain that cross each other (brackets close the "
             "latest open mention of a label, so they read back nested or, for scorer.pl, as other spans)",
             document=doc, count=crossing)


def _same_chunks(raw: str, rendered: str) -> bool:
    a = [] if raw in EMPTY_VALUES else split_chunks(raw)
    b = [] if rendered in EMPTY_VALUES else split_chunks(rendered)
    return a is not None and b is not None and sorted(a) == sorted(b)


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


def dumps(corpus: model.Corpus, *, report: Report | None = None, strict: bool = False,
          canonical: bool = False, **_: object) -> str:
    """Serialise as CoNLL-2012 text (see the module docstring for layout rules)."""
    report = report if report is not None else Report()
    out: list[str] = []
    preamble = corpus.metadata.get("conll.preamble")
    if preamble and not canonical:
        out.extend(preamble.split("\n"))
    with gc_paused():
        for doc in corpus.documents:
            _write_document(doc, out, report, canonical)
        return "\n".join(out) + "\n"


def sniff(head: bytes) -> bool:
    return bool(re.search(rb"(^|\n)#\s*begin\s+document", head))


register(
    FormatSpec(
        name="conll",
        description="CoNLL-2011/2012 coreference columns (bracket chains in the last column)",
        extensions=(".conll", ".v4_gold_conll", ".v4_auto_conll", ".v5_gold_conll", ".v5_auto_conll",
                    ".gold_conll", ".auto_conll", ".v2_gold_conll", ".v2_auto_conll", ".v9_gold_conll",
                    ".v9_auto_conll", ".key", ".response"),
        capabilities=Capabilities(
            discontinuous=False, nested=True, cross_sentence=False, singletons=True, entity_ids=True,
            link_structure=False, link_types=False, markable_attributes=False, entity_attributes=False,
            heads=False, token_attributes=True, whitespace=False, offsets=False, multiple_documents=True,
        ),
        read=read,
        dumps=dumps,
        sniff=sniff,
        aliases=("conll2012", "conll-2012", "conll2011", "conll-2011"),
        stream=iter_documents,
        scan_keys=scan_documents,
    )
)
