"""The JSON shapes coreference systems read and write, one line per document.

A line's dialect is told by the keys it holds (never by the file name):

============  =========================================================================
dialect       keys (what they hold)
============  =========================================================================
``wl``        wl-coref: ``document_id``, ``cased_words`` (words), ``sent_id`` (a
              sentence number per word), ``speaker``, ``part_id``; ``span_clusters``
              (``[start, end)`` word spans, end exclusive), ``word_clusters`` (head
              words), ``head2span`` (``[head, start, end)``). Heads become
              ``Markable.head``.
``subword``   fast-coref, longdoc, SpanBERT's BERT files: ``sentences`` are segments
              of sub-word pieces, ``subtoken_map`` gives each piece's word,
              ``sentence_map`` its sentence; ``clusters`` count pieces (inclusive).
              Words are glued back from their pieces (``##``, ``▁``, ``Ġ`` markers
              and ``[CLS]``-like special pieces dropped).
``offsets``   fastcoref, LingMess, maverick: ``tokens`` with ``clusters_token_offsets``
              (inclusive token pairs), or ``text`` with character offsets in
              ``clusters_char_offsets`` (maverick: end inclusive) or ``clusters``
              (fastcoref: end exclusive). Mention strings given beside the offsets
              (``clusters_char_text``, ``clusters_text_mentions``, fastcoref's
              ``clusters_strings``, ``clusters``)
              settle which end convention holds. A text is split into words at
              spaces, punctuation and every mention boundary.
``allennlp``  AllenNLP's coreference predictor: ``document`` (words) and ``clusters``
              (inclusive word pairs); ``top_spans`` and the like are left aside.
``bookcoref`` BookCoref: e2e ``sentences`` and ``clusters`` plus ``characters``, a
              list of ``{"name", "cluster"}``; a character's name becomes the
              ``name`` attribute of its entity.
``preco``     PreCo (Chen et al. 2018, "PreCo: A Large-scale Dataset in Preschool
              Vocabulary for Coreference Resolution"): ``id``, ``sentences`` (words)
              and ``mention_clusters``, each mention ``[sentence, start, end]``
              with word numbers within the sentence, the end exclusive; singletons
              are clusters of one mention. Written back in this shape (the format
              ``preco``, or ``jsonlines`` for a document read from it).
``e2e``       e2e-coref / SpanBERT (``sentences``, ``clusters``): read by the package
              module itself.
============  =========================================================================

A document's name is its ``doc_key``, ``document_id``, ``id`` or ``name`` (the first
present), else ``document_N`` by its place in the file, so that scoring pairs
documents by order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from ...diagnostics import Report
from ...errors import FormatError, ModelError
from ...io._lazy import LazyModule
from .._lines import check_part
from ..losses import LossLog
from .layout import JsonlinesLayout

model = LazyModule("corefio.model")

#: dialect name → a short description (the order is the order of detection)
DIALECTS = {
    "wl": "wl-coref (cased_words, sent_id, span_clusters, word_clusters, head2span)",
    "subword": "fast-coref / longdoc / SpanBERT sub-word segments (sentences, subtoken_map, sentence_map)",
    "offsets": "fastcoref / LingMess / maverick (tokens or text, clusters_token_offsets, clusters_char_offsets)",
    "allennlp": "AllenNLP predictor (document, clusters)",
    "bookcoref": "BookCoref (sentences, clusters, characters)",
    "preco": "PreCo (id, sentences, mention_clusters of [sentence, start, end))",
    "e2e": "e2e-coref / SpanBERT (doc_key, sentences, speakers, clusters)",
}

NAME_KEYS = ("doc_key", "document_id", "id", "name")
_CONLL_KEY = re.compile(r"^\((.*)\); part (\S+)$")
#: sub-word pieces that stand for no text
SPECIAL_PIECES = frozenset({"[CLS]", "[SEP]", "<s>", "</s>", "[SPL]", "<pad>", "[PAD]", "<cls>", "<sep>"})
_WORD = re.compile(r"\w+|[^\w\s]")

#: (start, end inclusive, head span or None)
Mention = tuple[int, int, "tuple[int, int] | None"]


#: e2e-coref's key of an OntoNotes document: ``GENRE/SOURCE/NN/NAME_P``, its part as a
#: number without leading zeros (minimize.py's ``"{}_{}".format(name, int(part))``)
_E2E_KEY = re.compile(r"^([^/\s]+(?:/[^/\s]+)+)_(0|[1-9][0-9]{0,17})$")


def split_e2e_key(key: str) -> tuple[str, str] | None:
    """The name and part (three digits at least, as a CoNLL header gives it) of an
    e2e-coref key ``GENRE/SOURCE/NN/NAME_P`` (``bn/cnn/01/cnn_0122_0``), else None: a key
    without a slash (``doc_12``) is a name, whatever its end."""
    m = _E2E_KEY.match(key)
    return (m.group(1), f"{int(m.group(2)):03d}") if m else None


def e2e_key(name: str, part: str | None) -> str | None:
    """e2e-coref's ``doc_key`` of a document with a numeric part: ``NAME_P``, ``P`` the
    part as a number (``bn/cnn/01/cnn_0122`` part ``000``: ``bn/cnn/01/cnn_0122_0``);
    None when the part is no number."""
    if part is None or not (part.isascii() and part.isdigit()):
        return None
    return f"{name}_{int(part)}"


def split_doc_key(key: str) -> tuple[str, str | None]:
    """A document's name and part from a key ``(NAME); part NNN`` (a CoNLL header's
    words), else the key as the name, without part."""
    m = _CONLL_KEY.match(key)
    if m:
        return m.group(1), m.group(2)
    return key, None


#: the keys wl-coref's lines hold their clusters under
_WL_CLUSTER_KEYS = frozenset({"span_clusters", "word_clusters", "head2span"})


def detect(obj: dict, file: str | None, line: int) -> str:
    """The dialect of one decoded line, from its keys."""
    if "cased_words" in obj:
        if "sentences" in obj and "clusters" in obj and not _WL_CLUSTER_KEYS & obj.keys():
            return "e2e"  # e2e-coref's keys with wl-coref's words beside them (LingMess' files)
        return "wl"
    if "subtoken_map" in obj and "sentences" in obj:
        return "subword"
    if ("clusters_token_offsets" in obj or "clusters_char_offsets" in obj
            or ("tokens" in obj and "clusters" in obj and "sentences" not in obj)
            or ("text" in obj and "clusters" in obj and "sentences" not in obj)):
        return "offsets"
    if "document" in obj and "clusters" in obj:
        return "allennlp"
    if "characters" in obj and "sentences" in obj:
        return "bookcoref"
    if "mention_clusters" in obj and "sentences" in obj:
        return "preco"
    if "sentences" in obj and "clusters" in obj:
        return "e2e"
    raise unknown_shape(obj, file, line)


def unknown_shape(obj: dict, file: str | None, line: int, missing: str | None = None) -> FormatError:
    """The error for a line of no known shape (or, with ``missing``, one read as e2e that
    lacks that key): the keys it holds and the dialects known."""
    keys = ", ".join(list(obj)[:12]) + (", …" if len(obj) > 12 else "") or "none"
    known = "; ".join(f"{name}: {what}" for name, what in DIALECTS.items())
    what = f"missing key {missing!r}; the line holds the keys" if missing else "no known jsonlines shape has these keys"
    return FormatError(f"{what} ({keys}); known dialects: {known} (read one whatever the keys say with the "
                       "format jsonlines:DIALECT)", file=file, line=line)


class _Line:
    """Checks on the values of one line, failing with its place."""

    def __init__(self, obj: dict, file: str | None, line: int):
        self.obj, self.file, self.line = obj, file, line

    def fail(self, message: str) -> FormatError:
        return FormatError(message, file=self.file, line=self.line)

    def strings(self, key: str) -> list[str]:
        value = self.obj.get(key)
        if not isinstance(value, list) or not _only(value, str):
            raise self.fail(f"{key} must be a list of strings")
        return value

    def ints(self, key: str, length: int | None = None) -> list[int]:
        value = self.obj.get(key)
        if not isinstance(value, list) or not _only(value, int):
            raise self.fail(f"{key} must be a list of integers")
        if length is not None and len(value) != length:
            raise self.fail(f"{key} has {len(value)} entries for {length} words")
        return value

    def pairs(self, key: str, width: int = 2) -> list[list[list[int]]]:
        """``key`` as a list of clusters of integer tuples of ``width``."""
        value = self.obj.get(key)
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(c, list) for c in value):
            raise self.fail(f"{key} must be a list of clusters")
        for c, cluster in enumerate(value):
            for item in cluster:
                if not isinstance(item, list) or len(item) != width or not all(_is_int(x) for x in item):
                    raise self.fail(f"{key}: cluster {c}: {_short(item)} is not a list of {width} integers")
        return value


def _plain(clusters: list[list[list[int]]]) -> list[list[Mention]]:
    """Clusters of inclusive ``[start, end]`` word pairs, without heads."""
    return [[(a, b, None) for a, b in cluster] for cluster in clusters]


def _triples(check: _Line, key: str) -> list[list[int]]:
    """``key`` as a list of ``[head, start, end]`` (wl-coref's head2span)."""
    value = check.obj.get(key) or []
    if not isinstance(value, list) or not all(
            isinstance(t, list) and len(t) == 3 and all(_is_int(x) for x in t) for t in value):
        raise check.fail(f"{key} must be a list of [head, start, end] triples")
    return value


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _only(values: list, *types: type) -> bool:
    """Every item of ``values`` is exactly of one of ``types`` (so ``True`` is no
    ``int``): one pass in C, where a check per item costs more than the reading."""
    return set(map(type, values)) <= set(types)


def _short(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def document_name(obj: dict, index: int) -> str:
    for key in NAME_KEYS:
        value = obj.get(key)
        if isinstance(value, str) and value:
            return value
    return f"document_{index}"


def build(check: _Line, *, name: str, part: str | None, forms: list[str], sentence_of: list[int] | None,
          clusters: list[list[Mention]], dialect: str, report: Report, used: tuple[str, ...],
          attributes: dict[str, list[str | None]] | None = None, whitespace: list[str] | None = None,
          entity_attributes: list[dict[str, str]] | None = None) -> Any:
    """A document from words, a sentence number per word and clusters of word spans.
    Keys of the line not in ``used`` are kept as metadata (JSON text unless strings)."""
    n = len(forms)
    bounds = []
    if sentence_of:
        first = 0
        for i in range(1, n + 1):
            if i == n or sentence_of[i] != sentence_of[i - 1]:
                bounds.append(model.Sentence(first=first, last=i - 1, id=None, comments=[],
                                                   interleaved=[], attributes={}))
                first = i
    elif n:
        bounds.append(model.Sentence(first=0, last=n - 1, id=None, comments=[], interleaved=[],
                                           attributes={}))
    markables: list[Any] = []
    entities: list[Any] = []
    seen: dict[tuple[int, int], str] = {}
    for c, cluster in enumerate(clusters):
        eid = str(c)
        attrs = dict(entity_attributes[c]) if entity_attributes is not None else {}
        entities.append(model.Entity(id=eid, attributes=attrs))
        for a, b, head in cluster:
            if not 0 <= a <= b < n:
                raise check.fail(f"cluster {c}: mention [{a}, {b}] (inclusive) is outside the {n} words")
            if head is not None and not (a <= head[0] <= head[1] <= b):
                raise check.fail(f"cluster {c}: head {list(head)} lies outside its mention [{a}, {b}]")
            if (a, b) in seen:
                report.warning("jsonlines.duplicate-mention", "duplicate mentions (same span)", line=check.line,
                               merge=True, file=check.file, example=f"[{a}, {b}] in clusters {seen[(a, b)]} and {eid}")
            seen[(a, b)] = eid
            markables.append(model.Markable.fast(f"markable_{len(markables) + 1}", ((a, b),), eid,
                                                 head=(head,) if head is not None else None))
    layout = JsonlinesLayout(keys=list(check.obj), dialect=dialect)
    metadata: dict[str, str] = {}
    for key, value in check.obj.items():
        if key in used:
            continue
        if isinstance(value, str):
            metadata[key] = value
        else:  # JSON text, the layout remembering it was a value
            metadata[key] = json.dumps(value, ensure_ascii=False)
            layout.json_fields.append(key)
    try:
        return model.Document.build(
            name=name, part=part, metadata=metadata,
            tokens=model.Tokens(forms=forms, ids=None, whitespace=whitespace, offsets=None,
                                      attributes=attributes or {}),
            sentences=bounds, markables=markables, entities=entities, links=[], layout={"jsonlines": layout},
        )
    except ModelError as exc:
        raise check.fail(str(exc)) from None


# -- wl-coref -------------------------------------------------------------------------

def read_wl(obj: dict, file: str | None, line: int, index: int, report: Report) -> Any:
    check = _Line(obj, file, line)
    forms = check.strings("cased_words")
    n = len(forms)
    sent_id = check.ints("sent_id", n) if "sent_id" in obj else None
    attributes: dict[str, list[str | None]] = {}
    if "speaker" in obj:
        speakers = check.strings("speaker")
        if len(speakers) != n:
            raise check.fail(f"speaker has {len(speakers)} entries for {n} words")
        if any(s not in ("_", "-") for s in speakers):
            attributes["speaker"] = list(speakers)
    if "clusters" in obj and not _WL_CLUSTER_KEYS & obj.keys():
        # read as wl-coref's, the line's clusters would be left aside and the document
        # read without a mention; whether their ends are inclusive only the file's maker knows
        raise check.fail("a wl-coref line (cased_words) whose clusters are under 'clusters', not "
                         "'span_clusters' or 'word_clusters': rename the key to 'span_clusters' if the "
                         "span ends are exclusive (wl-coref's way), or add 'sentences' and read it as "
                         "e2e-coref's jsonlines (inclusive ends)")
    span_clusters = check.pairs("span_clusters")
    word_clusters = obj.get("word_clusters") or []
    if not isinstance(word_clusters, list) or not all(
            isinstance(c, list) and all(_is_int(w) for w in c) for c in word_clusters):
        raise check.fail("word_clusters must be a list of lists of word numbers")
    head_of: dict[tuple[int, int], int] = {}
    for h, a, b in _triples(check, "head2span"):
        head_of[(a, b)] = h
    clusters: list[list[Mention]] = []
    if span_clusters:
        for c, cluster in enumerate(span_clusters):
            parallel = word_clusters[c] if c < len(word_clusters) and len(word_clusters[c]) == len(cluster) else None
            mentions: list[Mention] = []
            for k, (a, b) in enumerate(cluster):
                if b <= a:
                    raise check.fail(f"span_clusters: cluster {c}: [{a}, {b}) is empty (the end is exclusive)")
                # head2span, when the line has it, says which spans have a head; else
                # word_clusters run parallel to span_clusters (wl-coref's predictions)
                head: int | None = head_of.get((a, b)) if "head2span" in obj else \
                    parallel[k] if parallel is not None else None
                mentions.append((a, b - 1, (head, head) if head is not None else None))
            clusters.append(mentions)
    else:  # heads only: each head word is its own mention
        clusters = [[(w, w, (w, w)) for w in cluster] for cluster in word_clusters]
    part = obj.get("part_id")
    return build(check, name=document_name(obj, index), part=str(part) if _is_int(part) else None, forms=forms,
                 sentence_of=sent_id, clusters=clusters, dialect="wl", report=report, attributes=attributes,
                 used=("document_id", "cased_words", "sent_id", "part_id", "speaker", "span_clusters",
                       "word_clusters", "head2span"))


_WL_PART = re.compile(r"^-?[0-9]+$")


def wl_part_id(part: str | None) -> int | None:
    """The ``part_id`` (a JSON integer) a wl-coref line gives a document's part: any
    integer, negative ones too (the reader takes every integer); its number is what
    comes back (``000`` as ``0``, the same part for the CoNLL scorers). None for a part
    that is no integer, which wl-coref cannot write (``loss.document-part``)."""
    if part is None or not _WL_PART.match(part):
        return None
    return int(part)


def wl_object(doc: Any, lay: JsonlinesLayout | None = None) -> dict:
    """A document as a wl-coref line (what its ``predict.py`` reads, with the clusters
    its training data holds). ``word_clusters`` give every mention a head word (its
    last word when it has no head); ``head2span`` lists the heads the document has.
    With the layout of a wl-coref line it was read from (``lay``), the keys come in
    its order, and ``speaker``, ``span_clusters``, ``word_clusters`` and ``head2span``
    are left out when the line had none of theirs and the document has nothing to
    put there (wl-coref's prediction input has no clusters)."""
    n = len(doc.tokens.forms)
    sent_id = [0] * n
    for k, s in enumerate(doc.sentences):
        for i in range(s.first, s.last + 1):
            sent_id[i] = k
    speaker = doc.tokens.attributes.get("speaker")
    span_clusters, word_clusters, head2span = [], [], []
    for chain in doc.chain_indices():
        spans, heads = [], []
        for k in chain:
            m = doc.markables[k]
            head = m.head[0][1] if m.head else m.last  # wl-coref needs a head word for every mention
            spans.append([m.first, m.last + 1])
            heads.append(head)
            if m.head:
                head2span.append([head, m.first, m.last + 1])
        span_clusters.append(spans)
        word_clusters.append(heads)
    obj: dict[str, Any] = {"document_id": doc.name}
    part_id = wl_part_id(doc.part)
    if part_id is not None:
        obj["part_id"] = part_id
    obj["cased_words"] = list(doc.tokens.forms)
    obj["sent_id"] = sent_id
    obj["speaker"] = [s if s is not None else "_" for s in speaker] if speaker is not None else ["_"] * n
    obj["span_clusters"] = span_clusters
    obj["word_clusters"] = word_clusters
    obj["head2span"] = head2span
    if lay is None:
        return obj
    nothing = {"speaker": speaker is None, "span_clusters": not span_clusters, "word_clusters": not word_clusters,
               "head2span": not head2span}
    for key, empty in nothing.items():
        if empty and key not in lay.keys:
            del obj[key]
    ordered = {key: obj[key] for key in lay.keys if key in obj}
    return {**ordered, **obj}


# -- sub-word segments (fast-coref, longdoc, SpanBERT) ----------------------------------

def _glue(pieces: list[str]) -> str:
    """A word from its sub-word pieces."""
    if len(pieces) == 1:  # most words
        piece = pieces[0]
        return piece[2:] if piece.startswith("##") else piece.lstrip("\u2581\u0120")
    out = []
    for k, piece in enumerate(pieces):
        if piece.startswith("##"):
            piece = piece[2:]
        elif k == 0 or piece[:1] in ("\u2581", "\u0120"):
            piece = piece.lstrip("\u2581\u0120")
        out.append(piece)
    return "".join(out)


def read_subword(obj: dict, file: str | None, line: int, index: int, report: Report) -> Any:
    check = _Line(obj, file, line)
    segments = obj.get("sentences")
    if not isinstance(segments, list) or not _only(segments, list):
        raise check.fail("sentences must be a list of segments of sub-word pieces (strings or ids)")
    pieces = [p for s in segments for p in s]
    piece_types = set(map(type, pieces))
    if not piece_types <= {str, int}:
        raise check.fail("sentences must be a list of segments of sub-word pieces (strings or ids)")
    m = len(pieces)
    token_of = check.ints("subtoken_map", m)
    # fast-coref: orig_subtoken_map numbers the words without inserted speaker names (-1)
    word_of = check.ints("orig_subtoken_map", m) if "orig_subtoken_map" in obj else token_of
    sentence_map = check.ints("sentence_map", m) if "sentence_map" in obj else None
    orig_tokens = check.strings("orig_tokens") if "orig_tokens" in obj else None
    first_piece: dict[int, int] = {}
    word_pieces: dict[int, list[str]] = {}
    for i, (w, piece) in enumerate(zip(word_of, pieces)):
        if w < 0 or piece in SPECIAL_PIECES:
            continue
        known = word_pieces.get(w)
        if known is None:
            first_piece[w] = i
            word_pieces[w] = [piece]
        else:
            known.append(piece)
    order = sorted(first_piece)
    if order != list(range(len(order))):
        raise check.fail("subtoken_map must number the words 0, 1, 2, ... in order")
    if orig_tokens is not None:
        if any(not 0 <= token_of[first_piece[w]] < len(orig_tokens) for w in order):
            raise check.fail(f"subtoken_map points outside the {len(orig_tokens)} orig_tokens")
        forms = [orig_tokens[token_of[first_piece[w]]] for w in order]
    elif piece_types <= {str}:
        forms = [_glue(word_pieces[w]) for w in order]
    else:
        raise check.fail("sub-word pieces are ids and no orig_tokens give the words")
    key = "predicted_clusters" if "predicted_clusters" in obj else "clusters"
    clusters: list[list[Mention]] = []
    for c, cluster in enumerate(check.pairs(key)):
        mentions: list[Mention] = []
        for a, b in cluster:
            if not 0 <= a <= b < m:
                raise check.fail(f"{key}: cluster {c}: [{a}, {b}] is outside the {m} sub-word pieces")
            if word_of[a] < 0 or word_of[b] < 0:
                raise check.fail(f"{key}: cluster {c}: [{a}, {b}] begins or ends on an inserted speaker name")
            mentions.append((word_of[a], word_of[b], None))
        clusters.append(mentions)
    sentence_of = [sentence_map[first_piece[w]] for w in order] if sentence_map is not None else None
    attributes: dict[str, list[str | None]] = {}
    speakers = obj.get("speakers")
    if isinstance(speakers, list) and len([p for s in speakers if isinstance(s, list) for p in s]) == m:
        flat = [p for s in speakers for p in s]
        values: list[str | None] = [flat[first_piece[w]] if isinstance(flat[first_piece[w]], str) else None
                                    for w in order]
        if any(v not in (None, "-", "[SPL]") for v in values):
            attributes["speaker"] = values
    return build(check, name=document_name(obj, index), part=None, forms=forms, sentence_of=sentence_of,
                 clusters=clusters, dialect="subword", report=report, attributes=attributes,
                 used=("doc_key", "sentences", "subtoken_map", "orig_subtoken_map", "orig_tokens", "sentence_map",
                       key, "speakers"))


# -- fastcoref / LingMess / maverick ------------------------------------------------------

def _mention_strings(obj: dict) -> list | None:
    """The mention strings a line gives beside its offsets (clusters of strings), if any."""
    for key in ("clusters_char_text", "clusters_text_mentions", "clusters_token_text", "clusters_strings"):
        value = obj.get(key)
        if isinstance(value, list) and all(isinstance(c, list) for c in value):
            return value
    clusters = obj.get("clusters")
    if isinstance(clusters, list) and clusters and all(isinstance(c, list) and all(isinstance(s, str) for s in c)
                                                       for c in clusters):
        return clusters
    return None


def read_offsets(obj: dict, file: str | None, line: int, index: int, report: Report) -> Any:
    check = _Line(obj, file, line)
    used = ("doc_key", "id", "name", "text", "tokens", "clusters", "clusters_token_offsets",
            "clusters_char_offsets", "clusters_token_text", "clusters_char_text", "clusters_text_mentions",
            "clusters_strings")
    token_key = "clusters_token_offsets" if obj.get("clusters_token_offsets") is not None else "clusters"
    if "tokens" in obj and (token_key == "clusters_token_offsets" or not isinstance(obj.get("text"), str)):
        forms = check.strings("tokens")
        return build(check, name=document_name(obj, index), part=None, forms=forms, sentence_of=None,
                     clusters=_plain(check.pairs(token_key)), dialect="offsets", report=report, used=used)
    text = obj.get("text")
    if not isinstance(text, str):
        raise check.fail("text must be a string (or give tokens)")
    char_key = "clusters_char_offsets" if obj.get("clusters_char_offsets") is not None else "clusters"
    spans = check.pairs(char_key)
    inclusive = char_key == "clusters_char_offsets"  # maverick's convention; fastcoref's ends are exclusive
    strings = _mention_strings(obj)
    if strings is not None and spans:
        def agree(extra: int) -> bool:
            return all(text[a : b + extra] == s for cl, st in zip(spans, strings) for (a, b), s in zip(cl, st)
                       if isinstance(s, str))
        if agree(0):
            inclusive = False
        elif agree(1):
            inclusive = True
    char_spans = [[(a, b + 1 if inclusive else b) for a, b in cluster] for cluster in spans]
    for c, cluster in enumerate(char_spans):
        for a, b in cluster:
            if not 0 <= a < b <= len(text):
                raise check.fail(f"{char_key}: cluster {c}: characters [{a}, {b}) are outside the "
                                 f"{len(text)} characters of the text")
    cuts = {a for cluster in char_spans for a, _ in cluster} | {b for cluster in char_spans for _, b in cluster}
    offsets = _split_words(text, cuts)
    starts = {a: i for i, (a, _) in enumerate(offsets)}
    ends = {b: i for i, (_, b) in enumerate(offsets)}
    clusters: list[list[Mention]] = []
    for c, cluster in enumerate(char_spans):
        mentions: list[Mention] = []
        for a, b in cluster:
            # a mention starting or ending on a space: pull it in to the nearest word
            while a not in starts and a < b:
                a += 1
            while b not in ends and b > a:
                b -= 1
            if a >= b:
                raise check.fail(f"{char_key}: cluster {c}: a mention covers no word")
            mentions.append((starts[a], ends[b], None))
        clusters.append(mentions)
    forms = [text[a:b] for a, b in offsets]
    whitespace = [text[b : offsets[i + 1][0]] if i + 1 < len(offsets) else text[b:] for i, (_, b) in enumerate(offsets)]
    return build(check, name=document_name(obj, index), part=None, forms=forms, sentence_of=None, clusters=clusters,
                 dialect="offsets", report=report, used=used, whitespace=whitespace)


def _split_words(text: str, cuts: set[int]) -> list[tuple[int, int]]:
    """Word offsets: runs of word characters or single punctuation marks, also cut at
    every offset of ``cuts`` (so each mention boundary is a word boundary)."""
    out = []
    ordered = sorted(cuts)
    k = 0
    for m in _WORD.finditer(text):
        a, b = m.span()
        while k < len(ordered) and ordered[k] <= a:
            k += 1
        j = k
        while j < len(ordered) and ordered[j] < b:
            out.append((a, ordered[j]))
            a = ordered[j]
            j += 1
        out.append((a, b))
    return out


# -- AllenNLP -----------------------------------------------------------------------------

def read_allennlp(obj: dict, file: str | None, line: int, index: int, report: Report) -> Any:
    check = _Line(obj, file, line)
    forms = check.strings("document")
    clusters = _plain(check.pairs("clusters"))
    return build(check, name=document_name(obj, index), part=None, forms=forms, sentence_of=None,
                 clusters=clusters, dialect="allennlp", report=report,
                 used=("doc_key", "id", "name", "document", "clusters", "top_spans", "antecedent_indices",
                       "predicted_antecedents"))


# -- BookCoref ----------------------------------------------------------------------------

def read_bookcoref(obj: dict, file: str | None, line: int, index: int, report: Report) -> Any:
    check = _Line(obj, file, line)
    sentences = obj.get("sentences")
    if not isinstance(sentences, list) or not all(isinstance(s, list) and all(isinstance(w, str) for w in s)
                                                   for s in sentences):
        raise check.fail("sentences must be a list of lists of strings")
    forms = [w for s in sentences for w in s]
    sentence_of = [k for k, s in enumerate(sentences) for _ in s]
    characters = obj.get("characters")
    if not isinstance(characters, list) or not all(isinstance(ch, dict) for ch in characters):
        raise check.fail("characters must be a list of objects with a name and a cluster")
    named: dict[frozenset, str] = {}
    character_clusters = []
    for k, ch in enumerate(characters):
        cluster = _Line({"cluster": [ch.get("cluster")]}, file, line).pairs("cluster")[0]
        name = ch.get("name")
        if not isinstance(name, str):
            raise check.fail(f"characters: character {k} has no name")
        named[frozenset(map(tuple, cluster))] = name
        character_clusters.append((cluster, name))
    if "clusters" in obj:
        raw = check.pairs("clusters")
        names = [named.get(frozenset(map(tuple, cluster))) for cluster in raw]
    else:
        raw = [cluster for cluster, _ in character_clusters]
        names = [name for _, name in character_clusters]
    clusters = _plain(raw)
    entity_attributes = [{"name": name} if name is not None else {} for name in names]
    return build(check, name=document_name(obj, index), part=None, forms=forms, sentence_of=sentence_of,
                 clusters=clusters, dialect="bookcoref", report=report, entity_attributes=entity_attributes,
                 used=("doc_key", "sentences", "clusters", "characters"))


# -- PreCo ------------------------------------------------------------------------------

PRECO_KEYS = ("id", "sentences", "mention_clusters")


def read_preco(obj: dict, file: str | None, line: int, index: int, report: Report) -> Any:
    """A PreCo line: mentions ``[sentence, start, end)`` within their sentence. An empty
    sentence (the model has none) is remembered by its place in the layout, so that the
    mentions of later sentences are written back with their own sentence numbers."""
    check = _Line(obj, file, line)
    sentences = obj.get("sentences")
    if not isinstance(sentences, list) or not all(isinstance(s, list) and _only(s, str) for s in sentences):
        raise check.fail("sentences must be a list of lists of strings")
    starts = []
    forms: list[str] = []
    for sentence in sentences:
        starts.append(len(forms))
        forms.extend(sentence)
    sentence_of = [k for k, s in enumerate(sentences) for _ in s]
    clusters: list[list[Mention]] = []
    for c, cluster in enumerate(check.pairs("mention_clusters", 3)):
        mentions: list[Mention] = []
        for s, a, b in cluster:
            if not 0 <= s < len(sentences):
                raise check.fail(f"mention_clusters: cluster {c}: {[s, a, b]} names sentence {s} of "
                                 f"{len(sentences)}")
            if not 0 <= a < b <= len(sentences[s]):
                raise check.fail(f"mention_clusters: cluster {c}: {[s, a, b]} is not [start, end) inside the "
                                 f"{len(sentences[s])} words of sentence {s} (the end is exclusive)")
            mentions.append((starts[s] + a, starts[s] + b - 1, None))
        clusters.append(mentions)
    key = obj.get("id")
    name, part = (document_name(obj, index), None) if not isinstance(key, str) or not key else split_doc_key(key)
    check_part(part, file, line)
    doc = build(check, name=name, part=part, forms=forms, sentence_of=sentence_of, clusters=clusters,
                dialect="preco", report=report, used=PRECO_KEYS if isinstance(key, str) else PRECO_KEYS[1:])
    empty = [k for k, s in enumerate(sentences) if not s]
    if empty:
        doc.layout["jsonlines"].extra["empty_sentences"] = empty
    return doc


def preco_expresses(doc: Any) -> bool:
    """Can a PreCo line hold every mention of ``doc`` (none crosses a sentence)?"""
    if not doc.sentences:
        return True
    sentence = doc.sentence_of_token()
    return all(sentence[m.first] == sentence[m.last] for m in doc.markables)


def preco_object(doc: Any, report: Report, layout: JsonlinesLayout | None = None) -> dict:
    """A document as a PreCo line (a mention across sentences is left out: reported
    as ``loss.cross-sentence`` before writing). ``id`` is the name, or ``(NAME); part
    NNN`` for a document with a part; every metadata entry is a field of its own but
    one named like a PreCo field (``loss.metadata``)."""
    forms = doc.tokens.forms
    bounds = [(s.first, s.last) for s in doc.sentences] or ([(0, len(forms) - 1)] if forms else [])
    number = [0] * len(forms)
    for k, (a, b) in enumerate(bounds):
        for i in range(a, b + 1):
            number[i] = k
    sentences = [forms[a : b + 1] for a, b in bounds]
    renumber = list(range(len(sentences)))
    empty = layout.extra.get("empty_sentences") if layout is not None else None
    if isinstance(empty, list) and all(_is_int(k) for k in empty):
        for k in sorted(set(empty)):
            if 0 <= k <= len(sentences):
                sentences.insert(k, [])
                renumber = [j + 1 if j >= k else j for j in renumber]
    clusters = []
    for chain in doc.chain_indices():
        mentions = []
        for i in chain:
            m = doc.markables[i]
            k = number[m.first]
            if number[m.last] != k:
                continue
            a = bounds[k][0]
            mentions.append([renumber[k], m.first - a, m.last - a + 1])
        clusters.append(mentions)
    key = doc.name if doc.part is None else f"({doc.name}); part {doc.part}"
    obj: dict[str, Any] = {"id": key, "sentences": sentences, "mention_clusters": clusters}
    json_fields = set(layout.json_fields) if layout is not None else set()
    clashing = [name for name in doc.metadata if name in PRECO_KEYS]
    if clashing:
        LossLog(report, "preco").lose("metadata", "metadata entries named like a PreCo field", document=doc,
                                      count=len(clashing), example=clashing[0])
    for name, value in doc.metadata.items():
        if name in PRECO_KEYS:
            continue
        if name in json_fields:
            try:
                obj[name] = json.loads(value)
                continue
            except ValueError:
                pass
        obj[name] = value
    if layout is not None and layout.keys:
        ordered = {k: obj[k] for k in layout.keys if k in obj}
        ordered.update((k, v) for k, v in obj.items() if k not in ordered)
        obj = ordered
    return obj


READERS: dict[str, Callable[..., Any]] = {
    "wl": read_wl, "subword": read_subword, "offsets": read_offsets, "allennlp": read_allennlp,
    "bookcoref": read_bookcoref, "preco": read_preco,
}
