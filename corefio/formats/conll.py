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
from ..files import read_text
from ..losses import LossLog
from ..model import Corpus, Document, Entity, Markable, Sentence, Tokens
from ..registry import Capabilities, FormatSpec, register

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


def column_names(n_cols: int, first_fields: list[str]) -> tuple[list[str], int]:
    """Names for the non-coreference columns and the index of the word form."""
    n = n_cols - 1  # the last column is coreference
    if n_cols == 2:
        return ["FORM"], 0
    if _NUMERIC_ID.match(first_fields[0]):
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
class _DocumentBuilder:
    """Accumulates one document's lines; builds the pivot Document at the end."""

    __slots__ = (
        "name", "part", "header", "header_line", "rows", "sentences", "sent_first", "comments",
        "interleaved", "n_cols", "names", "form_index", "opens", "slots", "entities",
        "multi", "empties", "seps", "delimiter", "blank_before_end", "line_of_token", "has_comments",
        "trailing",
    )

    def __init__(self, name: str, part: str | None, header: str, header_line: int) -> None:
        self.name, self.part, self.header, self.header_line = name, part, header, header_line
        self.rows: list[list[str]] = []
        self.sentences: list[Sentence] = []
        self.sent_first = 0
        self.comments: list[str] = []
        self.interleaved: list[tuple[int, str]] = []
        self.n_cols = 0
        self.names: list[str] = []
        self.form_index = 0
        self.opens: dict[str, list[int]] = {}
        self.slots: list[list] = []  # [label, start, end, open_line]
        self.entities: dict[str, None] = {}
        self.multi: list[tuple[int, str]] = []  # (token, raw cell) with >1 chunk
        self.empties: Counter[str] = Counter()
        self.seps: Counter[str] = Counter()
        self.delimiter = "\t"  # or "space" (one space) or "aligned" (padded columns)
        self.blank_before_end = False
        self.line_of_token: list[int] = []
        self.has_comments = False
        self.trailing: list[tuple[int, str]] = []  # (token, delimiters after the last column)

    def end_sentence(self) -> None:
        n = len(self.rows)
        if n > self.sent_first:
            self.sentences.append(Sentence._make(
                first=self.sent_first, last=n - 1, id=None, comments=self.comments,
                interleaved=self.interleaved, attributes={},
            ))
            self.comments = []
            self.interleaved = []
        self.sent_first = n


class _Reader:
    def __init__(self, file: str | None, report: Report, strict: bool) -> None:
        self.file = file
        self.report = report
        self.strict = strict

    def error(self, message: str, line: int | None) -> FormatError:
        return FormatError(message, file=self.file, line=line)

    def dialect(self, code: str, message: str, line: int | None) -> None:
        """A deviation from canonical CoNLL-2012 that lenient mode accepts."""
        if self.strict:
            raise self.error(f"{message} (strict mode)", line)
        self.report.warning(code, message, line=line, merge=True, file=self.file)

    # -- per document ------------------------------------------------------------------
    def token_line(self, b: _DocumentBuilder, line: str, lineno: int) -> None:
        if "\t" in line:
            fields = line.split("\t")
        else:
            fields = line.split()
            if b.delimiter != "aligned":
                b.delimiter = "space" if line == " ".join(fields) else "aligned"
        if not b.n_cols:
            b.n_cols = len(fields)
            if b.n_cols < 2:
                raise self.error(f"a token line needs at least 2 columns, found {b.n_cols}", lineno)
            b.names, b.form_index = column_names(b.n_cols, fields)
            if b.n_cols < 12 and not _NUMERIC_ID.match(fields[0]):
                self.dialect("conll.few-columns", f"{b.n_cols}-column file (CoNLL-2012 has 12 or more)", lineno)
            elif _NUMERIC_ID.match(fields[0]) and b.n_cols > 2:
                self.dialect("conll.numbered-columns", "first column holds token numbers (not a document id)", lineno)
        n = len(fields)
        if n != b.n_cols:
            if n > b.n_cols and not any(fields[b.n_cols:]):
                self.report.info("conll.trailing-fields", "trailing empty fields (trailing tabs) ignored",
                                 line=lineno, merge=True, file=self.file)
                b.trailing.append((len(b.rows), "\t" * (n - b.n_cols)))
                del fields[b.n_cols:]
            else:
                raise self.error(f"line has {n} columns, the document's first token line has {b.n_cols}", lineno)
        first = fields[0]
        if b.form_index == 1 and ("-" in first or "." in first) and _NUMERIC_ID.match(first):
            # CoNLL-U multi-word token range or empty node: not a word of the text
            if fields[-1] not in EMPTY_VALUES:
                raise self.error(f"coreference on a multi-word-token/empty-node line {first!r}", lineno)
            self.dialect("conll.multiword-lines", "multi-word-token or empty-node lines (kept, not words)", lineno)
            b.interleaved.append((len(b.rows) - b.sent_first, line))
            return
        cell = fields[-1]
        t = len(b.rows)
        b.rows.append(fields)
        b.line_of_token.append(lineno)
        if cell in EMPTY_VALUES:
            b.empties[cell] += 1
            return
        chunks = split_chunks(cell)
        if chunks is None:
            raise self.error(f"malformed coreference cell {cell!r}", lineno)
        if len(chunks) > 1:
            b.multi.append((t, cell))
            b.seps["|" if "|" in cell else ""] += 1
        elif "|" in cell:
            b.multi.append((t, cell))
        # the reference scorer meets single-token labels before opener labels
        entities = b.entities
        for kind, label in chunks:
            if kind == "S" and label not in entities:
                entities[label] = None
        for kind, label in chunks:
            if kind == "O" and label not in entities:
                entities[label] = None
        opens = b.opens
        slots = b.slots
        for kind, label in chunks:
            if kind == "S":
                slots.append([label, t, t, lineno])
            elif kind == "O":
                opens.setdefault(label, []).append(len(slots))
                slots.append([label, t, -1, lineno])
            else:
                stack = opens.get(label)
                if not stack:
                    raise self.error(f"closer {label}) has no open mention of {label!r}", lineno)
                slots[stack.pop()][2] = t

    def finish(self, b: _DocumentBuilder, end_raw: str | None, end_line: int | None) -> Document:
        b.end_sentence()
        for label, stack in b.opens.items():
            if stack:
                slot = b.slots[stack[0]]
                raise self.error(f"mention ({label} opened here is never closed", slot[3])
        n = len(b.rows)
        if n == 0:
            self.report.warning("conll.empty-document", f"document {b.name!r} has no tokens",
                                line=b.header_line, file=self.file)
        columns = list(zip(*b.rows)) if n else [()] * b.n_cols
        forms = list(columns[b.form_index]) if n else []
        attributes = {}
        for i, name in enumerate(b.names):
            if i != b.form_index:
                attributes[name] = list(columns[i]) if n else []
        markables = []
        fast = Markable.fast
        for k, (label, a, e, _) in enumerate(b.slots, 1):
            markables.append(fast(f"markable_{k}", ((a, e),), label))
        entities = [Entity._make(id=label, attributes={}) for label in b.entities]
        self.duplicates(b, markables)
        metadata = self.layout_metadata(b, end_raw)
        hints = self.chunk_order_hints(b, markables, metadata)
        if hints is not None:
            attributes[LAYOUT_HINT] = hints
        if b.trailing:
            trailing: list[str | None] = [None] * n
            for t, extra in b.trailing:
                trailing[t] = extra
            attributes[TRAILING_HINT] = trailing
        labels = list(b.entities)
        if labels and not all(label.isdigit() for label in labels):
            self.dialect("conll.label-not-numeric", "non-numeric entity labels (e.g. "
                         f"{next(l for l in labels if not l.isdigit())!r})", b.header_line)
        try:
            return Document.build(
                name=b.name, part=b.part, metadata=metadata,
                tokens=Tokens._make(forms=forms, ids=None, whitespace=None, offsets=None, attributes=attributes),
                sentences=b.sentences, markables=markables, entities=entities, links=[],
            )
        except ModelError as exc:  # pragma: no cover - the reader builds valid documents
            raise self.error(str(exc), b.header_line) from None

    def duplicates(self, b: _DocumentBuilder, markables: list[Markable]) -> None:
        seen: dict[tuple, Markable] = {}
        for m in markables:
            other = seen.get(m.spans)
            if other is None:
                seen[m.spans] = m
                continue
            a, e = m.spans[0]
            same = "same" if other.entity == m.entity else "different"
            self.report.warning(
                "conll.duplicate-mention",
                f"duplicate mentions (same span, {same} entity)",
                line=b.line_of_token[a], merge=True, file=self.file, document=b.name,
                example=f"tokens {a}..{e}: ({other.entity}) and ({m.entity})",
            )

    def layout_metadata(self, b: _DocumentBuilder, end_raw: str | None) -> dict[str, str]:
        meta: dict[str, str] = {"conll.columns": ",".join(b.names)}
        if b.header != canonical_header(b.name, b.part):
            meta["conll.begin"] = b.header
        if end_raw is not None and end_raw != "#end document":
            meta["conll.end"] = end_raw
        if b.empties:
            empty = b.empties.most_common(1)[0][0]
            if empty != CANONICAL_EMPTY:
                meta["conll.empty"] = empty
        if b.seps and b.seps.most_common(1)[0][0] != CANONICAL_SEPARATOR:
            meta["conll.separator"] = b.seps.most_common(1)[0][0]
        if b.delimiter != "\t":
            meta["conll.delimiter"] = b.delimiter
        if not b.blank_before_end:
            meta["conll.blank_before_end"] = "no"
        return meta

    def chunk_order_hints(self, b: _DocumentBuilder, markables, meta) -> list[str | None] | None:
        """Raw cells whose chunk order, separator or empty marker differ from our rendering."""
        n = len(b.rows)
        hints: list[str | None] | None = None
        sep = meta.get("conll.separator", CANONICAL_SEPARATOR)
        if b.multi:
            bounds = [m.spans[0] for m in markables]
            starts, ends = mention_index(bounds)
            labels = [m.entity for m in markables]
            for t, raw in b.multi:
                rendered = render_cell(t, starts, ends, bounds, labels, sep, "")
                if rendered != raw:
                    if hints is None:
                        hints = [None] * n
                    hints[t] = raw
        empty = meta.get("conll.empty", CANONICAL_EMPTY)
        if len(b.empties) > 1:
            for t, fields in enumerate(b.rows):
                if fields[-1] in EMPTY_VALUES and fields[-1] != empty:
                    if hints is None:
                        hints = [None] * n
                    hints[t] = fields[-1]
        return hints

    # -- whole file ---------------------------------------------------------------------
    def read(self, text: str, stem: str) -> Corpus:
        documents: list[Document] = []
        names: Counter[tuple] = Counter()
        b: _DocumentBuilder | None = None
        lines = text.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        preamble: list[str] = []
        pending_blank = False
        for lineno, line in enumerate(lines, 1):
            if line.endswith("\r"):
                line = line[:-1]
            if b is None:
                if not line.strip():
                    if documents:
                        after = documents[-1].metadata
                        after["conll.blank_after_end"] = str(int(after.get("conll.blank_after_end", "0")) + 1)
                    continue
                m = _BEGIN_RE.match(line)
                if m:
                    name, part, canonical = parse_header(m.group(1))
                    if not canonical:
                        self.dialect("conll.header", f"non-canonical document header {line!r}", lineno)
                    elif not (part.isdigit() and len(part) == 3):
                        self.dialect("conll.header", f"part number {part!r} is not 3 digits", lineno)
                    b = _DocumentBuilder(name, part, line, lineno)
                    names[(name, part)] += 1
                    pending_blank = False
                    continue
                if line.startswith("#"):
                    preamble.append(line)
                    continue
                if not documents:
                    self.dialect("conll.no-header", "no '#begin document' line: the file is read as one document", lineno)
                    b = _DocumentBuilder(stem, None, "", lineno)
                    b.header = ""
                else:
                    raise self.error("token line outside a document (after '#end document')", lineno)
            if _END_RE.match(line):
                b.blank_before_end = pending_blank
                documents.append(self.finish(b, line, lineno))
                b = None
                continue
            if _BEGIN_RE.match(line):
                raise self.error(f"'#begin document' inside document {b.name!r} (opened on line {b.header_line}) "
                                 "that never ended", lineno)
            if not line.strip():
                b.end_sentence()
                pending_blank = True
                continue
            pending_blank = False
            if line.startswith("#") and not _looks_like_token(line):
                b.comments.append(line)
                b.has_comments = True
                continue
            self.token_line(b, line, lineno)
        if b is not None:
            if b.header == "":
                b.blank_before_end = pending_blank
                doc = self.finish(b, None, None)
                doc.metadata["conll.end"] = ""
                doc.metadata["conll.begin"] = ""
                documents.append(doc)
            else:
                raise self.error(f"document {b.name!r} (line {b.header_line}) never ends: "
                                 "missing '#end document' (truncated file?)", len(lines))
        for (name, part), k in names.items():
            if k > 1:
                self.report.warning("conll.duplicate-document", f"{k} documents are named {name!r} part {part!r}",
                                    file=self.file)
        metadata = {"conll.preamble": "\n".join(preamble)} if preamble else {}
        return Corpus._make(documents=documents, metadata=metadata)


def _looks_like_token(line: str) -> bool:
    """'#' starting a token line (a word '#') rather than a comment."""
    return "\t" in line and line.split("\t", 1)[0] in ("#",)


def read(path: str | Path, *, report: Report | None = None, strict: bool = False, **_: object) -> Corpus:
    """Read a CoNLL-2011/2012 file (every document in it)."""
    report = report if report is not None else Report(str(path))
    text = read_text(path)
    return _Reader(str(path), report, strict).read(text, Path(path).name.split(".")[0])


def loads(text: str, *, report: Report | None = None, strict: bool = False, file: str | None = None) -> Corpus:
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
    parts += [f"{labels[-k]})" for _, k in closers]
    return sep.join(parts)


def mention_index(bounds: list[tuple[int, int]]) -> tuple[dict, dict]:
    starts: dict[int, list[int]] = {}
    ends: dict[int, list[int]] = {}
    for k, (a, e) in enumerate(bounds):
        starts.setdefault(a, []).append(k)
        ends.setdefault(e, []).append(k)
    return starts, ends


def _chain_labels(doc: Document, keep_labels: bool, log: LossLog) -> list[str]:
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


def _column_values(doc: Document, names: list[str], log: LossLog) -> tuple[list[list[str]], set[str]]:
    """Values of the non-coreference columns, and the token attributes they used."""
    n = len(doc.tokens.forms)
    attrs = doc.tokens.attributes
    used: set[str] = set()
    forms = [_clean_form(f, log, doc) for f in doc.tokens.forms]
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
            out.append([v if v is not None else "-" for v in attrs[source]])
        else:
            out.append(defaults.get(name, ["-"] * n))
    return out, used


def _clean_form(form: str, log: LossLog, doc: Document) -> str:
    if form and not any(c.isspace() for c in form):
        return form
    log.lose("token-form", "empty token forms or forms containing whitespace (replaced by '_')",
             document=doc, example=repr(form))
    return "_" if not form else re.sub(r"\s", "_", form)


def _sentences(doc: Document) -> list[Sentence]:
    if doc.sentences:
        return doc.sentences
    n = len(doc.tokens.forms)
    return [Sentence._make(first=0, last=n - 1, id=None, comments=[], interleaved=[], attributes={})] if n else []


def _header(doc: Document, from_conll: bool) -> str | None:
    """The '#begin document' line: the source's if it still names this document."""
    raw = doc.metadata.get("conll.begin") if from_conll else None
    if raw == "":
        return None  # the source had no header
    if raw is not None:
        m = _BEGIN_RE.match(raw)
        if m and parse_header(m.group(1))[:2] == (doc.name, doc.part):
            return raw
    return canonical_header(doc.name, doc.part)


def _write_document(doc: Document, out: list[str], report: Report, canonical: bool) -> None:
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
    starts, ends = mention_index(bounds)
    cells = [empty] * n
    for t in set(starts) | set(ends):
        cells[t] = render_cell(t, starts, ends, bounds, labels, sep, empty)
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


def dumps(corpus: Corpus, *, report: Report | None = None, strict: bool = False,
          canonical: bool = False, **_: object) -> str:
    """Serialise as CoNLL-2012 text (see the module docstring for layout rules)."""
    report = report if report is not None else Report()
    out: list[str] = []
    preamble = corpus.metadata.get("conll.preamble")
    if preamble and not canonical:
        out.extend(preamble.split("\n"))
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
    )
)
