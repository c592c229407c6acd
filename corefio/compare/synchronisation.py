"""Markable synchronisation: re-indexing by targets and the four strategies of Popescu-Belis et al. (2004).

Popescu-Belis et al. (2004, §2.2–2.3) score from markable ids, so "markables pointing to the same primary
data must have the same ID" in key and response. Its tool re-indexes both files: the
markables are "sorted in ascending order of their *target* attributes" and numbered in
that order, so that the same target gets the same id on both sides. When the two files
do not hold the same markables, §2.3 offers four markable sets — the key's, the
response's, their intersection and their union — and displays the scores of all four.

corefio's reading of §2.3, written down:

* a markable is identified by its **target**: its layer and its token spans
  (discontinuous and nested markables included; a markable of another layer with the
  same spans is another markable);
* the chosen set S is the key's targets, the response's, their intersection or their
  union;
* on each side, a markable whose target is outside S is **removed** (with the links
  that named it: :mod:`corefio.model.edit`), and a target of S that the side lacks is
  **added** as a singleton (a new markable in no chain), so both sides end with exactly
  the markables of S and only their links differ;
* both sides are then re-indexed: markables sorted by (layer, spans) and renamed
  ``markable_1 …`` in that order (``layer`` prefixes stay as they are); chains are
  recomputed from the remaining entities and identity links.

Two markables of one side with the same target are one markable for synchronisation:
the later one is dropped and reported (``sync.duplicate-target``).

Before that, the two sides are put on the same tokens, accepting what scoring accepts
(:func:`corefio.scoring.views.synchronise`):

* different empty tokens (CoNLL-U empty nodes, zeros elsewhere or more of them): each
  side gets the empty tokens only the other has, placed by their numbers
  (:mod:`corefio.model.zeros`); when the words themselves differ, empty tokens and zero
  mentions are left out (``sync.zeros-unplaced``);
* as many tokens on both sides: compared by position, words that differ a warning
  (``sync.token-mismatch``);
* another tokenisation: the response is carried over to the key's tokens
  (:mod:`corefio.compare.alignment`); texts that differ are refused with the place where they
  diverge, naming the response file.

Links to an entity (CorefUD bridging) lose that target when a strategy removes the
entity's last markable (:mod:`corefio.model.edit`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from .alignment import map_marks, map_spans, map_tokens
from ..diagnostics import Report
from ..errors import CorefioError, UsageError

if TYPE_CHECKING:
    from pathlib import Path

    from ..model import Corpus, Document, Markable
    from ..model.zeros import Place

Strategy = Literal["key", "response", "intersection", "union"]
STRATEGIES: tuple[str, ...] = ("key", "response", "intersection", "union")

Target = tuple[str | None, tuple[tuple[int, int], ...]]


def target_of(m: "Markable") -> Target:
    return (m.layer, m.spans)


def _order(target: Target) -> tuple:
    layer, spans = target
    return ("" if layer is None else layer, spans)


@dataclass
class SyncCounts:
    """What synchronisation did to one side of one document."""

    added: int = 0
    removed: int = 0
    duplicates: int = 0


@dataclass
class SyncResult:
    key: "Document"
    response: "Document"
    strategy: str
    key_counts: SyncCounts = field(default_factory=SyncCounts)
    response_counts: SyncCounts = field(default_factory=SyncCounts)


def reindex(doc: "Document", report: Report | None = None) -> "Document":
    """``doc`` with its markables sorted by target and renamed ``markable_1 …``."""
    editor = doc.edit()
    editor.set_markables(sorted(editor.markables, key=lambda m: _order(target_of(m))))
    editor.renumber_markables(lambda m, k: f"markable_{k + 1}")
    return editor.commit(report)


def _drop_duplicate_targets(doc: "Document", report: Report | None, side: str) -> tuple["Document", int]:
    targets = [target_of(m) for m in doc.markables]
    if len(set(targets)) == len(targets):  # the usual case
        return doc, 0
    seen: set[Target] = set()
    repeats: list[str] = []
    for m, t in zip(doc.markables, targets):
        if t in seen:
            repeats.append(m.ref)
        seen.add(t)
    editor = doc.edit()
    editor.remove_markables(repeats)
    if report is not None:
        report.warning("sync.duplicate-target", f"{side} markables with the same target as an earlier one dropped",
                       document=doc.label, count=len(repeats), example=repeats[0])
    return editor.commit(report), len(repeats)


def _restrict(doc: "Document", targets: list[Target], chosen: set[Target], counts: SyncCounts,
              report: Report | None) -> "Document":
    """``doc`` (whose markables have the distinct ``targets``) with exactly the markables
    ``chosen``: others removed, missing ones added as singletons, then re-indexed as
    :func:`reindex` does, in one edit (the document is built and checked once)."""
    from ..model import Markable

    editor = doc.edit()
    final = {t: m for t, m in zip(targets, doc.markables) if t in chosen}
    if len(final) < len(targets):  # (removing nothing would still look at every markable)
        counts.removed = editor.remove_markables([m.ref for m, t in zip(doc.markables, targets) if t not in chosen])
    missing = sorted(chosen - final.keys(), key=_order)
    for k, (layer, spans) in enumerate(missing):
        final[(layer, spans)] = Markable.fast(f"sync_added_{k + 1}", spans, layer=layer)
    counts.added = len(missing)
    editor.set_markables([final[t] for t in sorted(final, key=_order)])
    editor.renumber_markables(lambda m, k: f"markable_{k + 1}")
    return editor.commit(report)


# -- empty tokens (CoNLL-U empty nodes) --------------------------------------------------------
def _places(doc: "Document") -> list["Place"]:
    from ..model.zeros import document_places, token_places

    placed = document_places(doc)
    if placed is not None:
        return placed[0]
    n = len(doc.tokens.forms)
    return token_places([(s.first, s.last) for s in doc.sentences] or [(0, n - 1)], set())


def merge_empty_tokens(key: "Document", response: "Document",
                       report: Report | None = None) -> tuple["Document", "Document"]:
    """Both documents on one token sequence when their empty tokens differ, as scoring
    does (:mod:`corefio.model.zeros`): the words must be the same; each side gets the empty
    tokens only the other has (without annotation), and its spans follow its tokens. When
    the words differ, empty tokens cannot be placed: both sides lose them and their zero
    mentions (``sync.zeros-unplaced``), and the usual retokenisation takes over."""
    if not key.tokens.empty and not response.tokens.empty:
        return key, response
    kp, rp = _places(key), _places(response)
    kw, rw = [p for p in kp if p[2] == 0], [p for p in rp if p[2] == 0]
    # a side without empty tokens takes the other side's word places when it has as many words
    if not key.tokens.empty and len(kp) == len(rw):
        kp = kw = rw
    if not response.tokens.empty and len(rp) == len(kw):
        rp = rw = kw
    if kw != rw:
        key, kd = _without_empty_tokens(key)
        response, rd = _without_empty_tokens(response)
        if report is not None:
            report.warning("sync.zeros-unplaced", "key and response differ in their words, so empty tokens "
                           "cannot be placed: they and zero mentions are left out", document=key.label,
                           count=kd + rd, example=f"key {kd}, response {rd}")
        return key, response
    if kp == rp:
        return key, response
    merged = sorted(set(kp) | set(rp))
    if report is not None:
        report.info("sync.empty-tokens-added", "empty tokens of one side added to the other (zero mentions "
                    "placed as the file numbers them)", document=key.label,
                    count=2 * len(merged) - len(kp) - len(rp))
    return _onto(key, kp, merged, response, rp), _onto(response, rp, merged, key, kp)


def _onto(doc: "Document", places: list["Place"], merged: list["Place"], other: "Document",
          other_places: list["Place"]) -> "Document":
    """``doc`` on the ``merged`` places: the tokens it lacks come from ``other``."""
    from ..model import Document
    from ..model.zeros import moved_spans

    index = {p: i for i, p in enumerate(merged)}
    mine = {p: i for i, p in enumerate(places)}
    theirs = {p: i for i, p in enumerate(other_places)}
    new = [index[p] for p in places]
    source = [(doc.tokens, mine[p]) if p in mine else (other.tokens, theirs[p]) for p in merged]
    tokens = doc.tokens
    used_ids = set(tokens.ids or ())

    def column(name: str, filler: Callable[[list | None, int], object]) -> list | None:
        """A column of ``doc``'s tokens on the merged places (None if ``doc`` lacks it);
        ``filler(the other side's column, index)`` gives an added token's value."""
        values = getattr(tokens, name)
        if values is None:
            return None
        return [values[i] if t is tokens else filler(getattr(t, name), i) for t, i in source]

    def other_id(ids: list[str] | None, i: int) -> str:
        candidate = ids[i] if ids is not None else f"empty_{i + 1}"
        while candidate in used_ids:
            candidate += "_"
        used_ids.add(candidate)
        return candidate

    offsets: list[tuple[int, int]] | None = None
    if tokens.offsets is not None:  # an added empty token takes no characters, after the previous token
        offsets = []
        for t, i in source:
            offsets.append(tokens.offsets[i] if t is tokens else ((offsets[-1][1],) * 2 if offsets else (0, 0)))
    attributes = {}
    for name, own in tokens.attributes.items():
        other_values = other.tokens.attributes.get(name)
        attributes[name] = [own[i] if t is tokens else (other_values[i] if other_values is not None else None)
                            for t, i in source]
    new_tokens = tokens.copy(**{
        "forms": [t.forms[i] for t, i in source],
        "ids": column("ids", other_id),
        "whitespace": column("whitespace", lambda _values, _i: ""),
        "offsets": offsets,
        "attributes": attributes,
        "empty": [k for k, p in enumerate(merged) if p[2] > 0] or None,
    })
    sentences = []
    for s in doc.sentences:
        first, last = new[s.first], new[s.last]
        while first > 0 and merged[first - 1][0] == merged[first][0] and merged[first - 1] not in mine:
            first -= 1
        while last + 1 < len(merged) and merged[last + 1][0] == merged[last][0] and merged[last + 1] not in mine:
            last += 1
        moved = [((new[s.first + off] if s.first + off <= s.last else last + 1) - first, raw)
                 for off, raw in s.interleaved]
        sentences.append(s.copy(first=first, last=last, interleaved=moved))
    markables = [m.copy(spans=moved_spans(m.spans, new), head=moved_spans(m.head, new),
                          min=tuple((new[a], new[b]) for a, b in m.min) if m.min else m.min)
                 for m in doc.markables]
    values = doc.field_values()
    values.update(tokens=new_tokens, sentences=sentences, markables=markables, layout={})
    return Document.build(**values)


def _without_empty_tokens(doc: "Document") -> tuple["Document", int]:
    """``doc`` without its empty tokens: zero mentions (and mentions of empty tokens
    only) removed with their links, other mentions lose their empty tokens."""
    from ..model import Document
    from ..model.zeros import moved_spans

    empty = set(doc.tokens.empty or ())
    if not empty:
        return doc, 0
    new: list[int] = []
    kept = 0
    for i in range(len(doc.tokens.forms)):
        new.append(-1 if i in empty else kept)
        kept += i not in empty

    def is_zero(m: "Markable") -> bool:
        first = m.head[0][0] if m.head else m.spans[0][0]
        return first in empty or all(i in empty for a, b in m.spans for i in range(a, b + 1))

    gone = [m.ref for m in doc.markables if is_zero(m)]
    editor = doc.edit()
    editor.remove_markables(gone)
    trimmed = editor.commit(None)
    markables = [m.copy(spans=moved_spans(m.spans, new), head=moved_spans(m.head, new),
                          min=moved_spans(m.min, new)) for m in trimmed.markables]
    keep = [i for i in range(len(new)) if new[i] >= 0]
    tokens = doc.tokens

    def pick(values: list | None) -> list | None:
        return None if values is None else [values[i] for i in keep]

    new_tokens = tokens.copy(**{
        "forms": pick(tokens.forms), "ids": pick(tokens.ids), "whitespace": pick(tokens.whitespace),
        "offsets": pick(tokens.offsets), "attributes": {k: pick(v) for k, v in tokens.attributes.items()},
        "empty": None})
    sentences = []
    for s in doc.sentences:
        words = [new[i] for i in range(s.first, s.last + 1) if new[i] >= 0]
        if words:
            sentences.append(s.copy(first=words[0], last=words[-1], interleaved=[]))
    values = trimmed.field_values()
    values.update(tokens=new_tokens, sentences=sentences, markables=markables, layout={})
    return Document.build(**values), len(gone)


def carry_over(response: "Document", key: "Document", report: Report | None = None) -> "Document":
    """``response`` moved onto the key's tokens when the two tokenise differently.

    As scoring does (:func:`corefio.scoring.views.synchronise`), two documents with as
    many tokens are compared by position: words that differ are a warning
    (``sync.token-mismatch``), not a refusal, and the response keeps its own words."""
    forms, key_forms = response.tokens.forms, key.tokens.forms
    if forms == key_forms:
        return response
    if len(forms) == len(key_forms):
        if report is not None:
            differ = sum(1 for a, b in zip(key_forms, forms) if a != b)
            report.warning("sync.token-mismatch", "tokens that differ between key and response (compared by "
                           "position)", document=key.label, count=differ)
        return response
    mapping = map_tokens(response.tokens.forms, key.tokens.forms, key.label)
    widened = 0
    lost: list[str] = []
    markables = []
    for m in response.markables:
        spans, wide = map_spans(m.spans, mapping)
        widened += wide
        if not spans:
            lost.append(m.ref)
            continue
        markables.append(m.copy(spans=spans, head=map_marks(m.head, mapping),
                                min=map_marks(m.min, mapping)))
    if report is not None:
        report.info("sync.retokenised", "response tokens carried over to the key's tokenisation",
                    document=key.label, count=len(response.tokens.forms))
        if widened:
            report.warning("sync.boundary-inside-token",
                           "response mention boundaries inside a key token (mention widened to whole tokens)",
                           document=key.label, count=widened)
        if lost:
            report.warning("sync.unmapped-mention", "response mentions with no token in the key's text (dropped)",
                           document=key.label, count=len(lost), example=lost[0])
    editor = response.edit()
    editor.remove_markables(lost)
    editor.set_markables(markables)
    values = response.field_values()
    moved_doc = editor.commit(None)
    values.update(markables=moved_doc.markables, links=moved_doc.links, tokens=key.tokens, sentences=key.sentences,
                  text=key.text, regions=key.regions, layout={})
    from ..model import Document

    return Document.build(**values)


def synchronise(key: "Document", response: "Document", strategy: str = "key",
                report: Report | None = None, key_file: "str | Path | None" = None,
                response_file: "str | Path | None" = None) -> SyncResult:
    """Both documents restricted to the same markable set and re-indexed (module doc).

    ``key_file`` and ``response_file`` name where the documents come from: an error
    found in one of them names its file (texts that differ name the response's)."""
    if strategy not in STRATEGIES:
        raise UsageError(f"unknown synchronisation strategy {strategy!r} (known: {', '.join(STRATEGIES)})")
    with _located(response_file):
        key, response = merge_empty_tokens(key, response, report)
        response = carry_over(response, key, report)
        response, rdup = _drop_duplicate_targets(response, report, "response")
    with _located(key_file):
        key, kdup = _drop_duplicate_targets(key, report, "key")
    key_targets = [target_of(m) for m in key.markables]
    response_targets = [target_of(m) for m in response.markables]
    kt, rt = set(key_targets), set(response_targets)
    chosen = {"key": kt, "response": rt, "intersection": kt & rt, "union": kt | rt}[strategy]
    result = SyncResult(key, response, strategy, SyncCounts(duplicates=kdup), SyncCounts(duplicates=rdup))
    with _located(key_file):
        result.key = key = _restrict(key, key_targets, chosen, result.key_counts, report)
    with _located(response_file):
        result.response = _restrict(response, response_targets, chosen, result.response_counts, report)
    if report is not None:
        for side, counts in (("key", result.key_counts), ("response", result.response_counts)):
            if counts.added:
                report.info("sync.added", f"{strategy}: singleton markables added to the {side}",
                            document=key.label, count=counts.added)
            if counts.removed:
                report.info("sync.removed", f"{strategy}: markables removed from the {side}",
                            document=key.label, count=counts.removed)
    return result


@contextmanager
def _located(file: "str | Path | None") -> Iterator[None]:
    """Errors raised inside name ``file`` when they name no file yet."""
    try:
        yield
    except CorefioError as exc:
        if file is not None:
            exc.located(file)
        raise


def synchronise_corpora(key: "Corpus", response: "Corpus", strategy: str = "key", report: Report | None = None,
                        pairs: Iterable[tuple[int, int]] | None = None, key_file: "str | Path | None" = None,
                        response_file: "str | Path | None" = None) -> tuple["Corpus", "Corpus"]:
    """Every document pair synchronised (pairs by position unless given); errors name
    ``key_file`` or ``response_file`` (see :func:`synchronise`)."""
    pairs = list(pairs) if pairs is not None else list(zip(range(len(key)), range(len(response))))
    keys, responses = [], []
    for i, j in pairs:
        result = synchronise(key.documents[i], response.documents[j], strategy, report, key_file, response_file)
        keys.append(result.key)
        responses.append(result.response)
    return (key.copy(documents=keys), response.copy(documents=responses))


# -- pairing documents ------------------------------------------------------------------------
def read_pairs_file(path: "str | Path") -> list[tuple[str, str]]:
    """``KEY-NAME<TAB>RESPONSE-NAME`` lines (``#`` comments and blank lines skipped)."""
    from ..errors import FormatError
    from ..io.files import read_text

    out = []
    for number, line in enumerate(read_text(path).splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = line.split("\t")
        if len(fields) != 2 or not all(f.strip() for f in fields):
            raise FormatError("expected two names separated by a TAB", file=path, line=number)
        out.append((fields[0].strip(), fields[1].strip()))
    return out


def pair_keys(key: list[tuple[str, str | None]], response: list[tuple[str, str | None]], pair_by: str = "name",
              pairs_file: "str | Path | None" = None, report: Report | None = None,
              allow_missing: bool = False, hint: str | None = None) -> list[tuple[int, int | None]]:
    """Pair documents given as (name, part): by name (and part), by order, or as a
    pairs file says. Unpaired documents are an error listing them on both sides
    (``allow_missing``: a warning, the key document scored against nothing)."""
    from ..model.mentions import document_label
    from ..errors import DocumentMismatchError

    report = report if report is not None else Report()
    if pairs_file is None and pair_by == "name":
        from .pairing import match_keys

        return match_keys(key, response, report, allow_missing) if hint is None else \
            match_keys(key, response, report, allow_missing, hint)
    out: list[tuple[int, int | None]] = []
    if pairs_file is not None:
        labels_k = {document_label(*k): i for i, k in enumerate(key)} | {k[0]: i for i, k in enumerate(key)}
        labels_r = {document_label(*r): j for j, r in enumerate(response)} | {r[0]: j for j, r in enumerate(response)}
        wanted = dict(read_pairs_file(pairs_file))
        unknown = [n for n in wanted if n not in labels_k] + [n for n in wanted.values() if n not in labels_r]
        if unknown:
            raise DocumentMismatchError("the pairs file names documents that are not there: "
                                        + ", ".join(map(repr, unknown[:10])), file=str(pairs_file))
        by_key = {labels_k[k]: labels_r[r] for k, r in wanted.items()}
        out = [(i, by_key.get(i)) for i in range(len(key))]
    elif pair_by == "order":
        out = [(i, i if i < len(response) else None) for i in range(len(key))]
    else:
        raise UsageError(f"unknown way to pair documents {pair_by!r} (name, order, or a pairs file)")
    used = {j for _, j in out if j is not None}
    missing = [document_label(*key[i]) for i, j in out if j is None]
    extra = [document_label(*response[j]) for j in range(len(response)) if j not in used]
    if missing or extra:
        from .pairing import names_shown

        message = "; ".join(filter(None, [
            f"{len(missing)} key document(s) unpaired: " + names_shown(missing) if missing else "",
            f"{len(extra)} response document(s) unpaired: " + names_shown(extra) if extra else ""]))
        if not allow_missing:
            raise DocumentMismatchError(message)
        report.warning("score.document-mismatch", message)
    return out


def pair_documents(key: "Corpus", response: "Corpus", pair_by: str = "name",
                   pairs_file: "str | Path | None" = None, report: Report | None = None) -> list[tuple[int, int]]:
    """Document pairs for synchronisation (every key document needs a response)."""
    pairs = pair_keys([(d.name, d.part) for d in key.documents], [(d.name, d.part) for d in response.documents],
                      pair_by, pairs_file, report, hint=" (--pair-by order or --pairs FILE pair them otherwise)")
    return [(i, j) for i, j in pairs if j is not None]
