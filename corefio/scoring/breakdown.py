"""Scores broken down: by document group and by mention kind.

**Document groups.** Each document goes to a group named after its document name (or, for
corpora in memory, a metadata field); a group's score is formed as a corpus score is,
from the summed counts of its documents. ``--group-by`` takes

* ``genre``: the first path component of an OntoNotes-style name (``bc/cctv/00/cctv_0000``
  → ``bc``), else the second ``_``-separated field of a GUM-style name
  (``GUM_academic_art`` → ``academic``), else the whole name;
* ``prefix:N``: the first N characters of the name;
* ``re:PATTERN``: the first group of a regular expression searched in the name (the whole
  match when it has no group; documents it does not match go to ``(other)``);
* ``meta:FIELD``: a metadata field of the key's documents (``(none)`` when absent).

**Mention kinds.** A mention is a ``pronoun``, a ``proper`` name, a ``nominal`` or ``other``
from the part-of-speech tag of its head token (the key's tags, ``pos``/``xpos``/``upos``
columns: Penn ``PRP``, ``PRP$``, ``WP``, ``WP$`` and UD ``PRON`` are pronouns, ``NNP``,
``NNPS``, ``PROPN`` proper names, ``NN``, ``NNS``, ``NOUN`` nominals); without tags, from
its head word (a closed list of English pronouns; a capitalised head that does not
start the sentence is a proper name); or from a markable attribute the user names
(``attr:NAME``). The head is the mention's own head, else its last token. For each kind,
key and response are restricted to the mentions of that kind (the response's kind read
from the key's tokens, as both sides share them), and scored as usual: how well the
response resolves pronouns, names and nominals among themselves.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .. import metrics as M
from ..model.mentions import Mention, MentionView
from ..diagnostics import Report
from .render import ConllScore, percent
from ..errors import UsageError
from ..metrics.base import BlancScore, Score
from .render import Scores

PRONOUN_TAGS = frozenset({"PRP", "PRP$", "WP", "WP$", "PRON"})
PROPER_TAGS = frozenset({"NNP", "NNPS", "PROPN"})
NOMINAL_TAGS = frozenset({"NN", "NNS", "NOUN"})
#: pronouns recognised without tags (English)
PRONOUNS = frozenset("""i me my mine myself you your yours yourself yourselves he him his himself she her hers
herself it its itself we us our ours ourselves they them their theirs themselves this that these those
who whom whose which what one ones""".split())
KINDS = ("pronoun", "proper", "nominal", "other")

#: metrics a breakdown by kind can give (functions of two partitions)
KIND_METRICS = {"mentions": M.mention_identification, "muc": M.muc, "bcub": M.b_cubed,
                "ceafe": M.ceaf_entity, "ceafm": M.ceaf_mention, "lea": M.lea, "blanc": M.blanc}


# -- document groups ---------------------------------------------------------------------------
def group_function(spec: str) -> Callable[[str], str]:
    """The grouping ``--group-by SPEC`` names (module docstring), as name → group."""
    if spec == "genre":
        def genre(name: str) -> str:
            if "/" in name:
                return name.split("/", 1)[0]
            fields = name.split("_")
            return fields[1] if len(fields) > 2 else name
        return genre
    if spec.startswith("prefix:"):
        try:
            n = int(spec[len("prefix:"):])
        except ValueError:
            raise UsageError(f"--group-by prefix:N needs a number, not {spec!r}") from None
        return lambda name: name[:n]
    if spec.startswith("re:"):
        try:
            pattern = re.compile(spec[3:])
        except re.error as exc:
            raise UsageError(f"--group-by: bad regular expression {spec[3:]!r}: {exc}") from None

        def by_pattern(name: str) -> str:
            m = pattern.search(name)
            if m is None:
                return "(other)"
            return (m.group(1) if pattern.groups else m.group(0)) or "(empty)"
        return by_pattern
    raise UsageError(f"unknown --group-by {spec!r} (known: genre, prefix:N, re:PATTERN, meta:FIELD)")


def metadata_groups(key: Any, field: str, key_format: str | None = None) -> Callable[[str], str]:
    """Group documents by a metadata field of the key's documents (``meta:FIELD``)."""
    from ..formats.readwrite import iter_read
    from ..model.mentions import document_label
    from ..model import Corpus, Document

    if isinstance(key, Corpus):
        documents = key.documents
    elif isinstance(key, Document):
        documents = [key]
    else:
        documents = list(iter_read(key, key_format))
    values = {document_label(d.name, d.part): str(d.metadata.get(field, "(none)")) for d in documents}
    return lambda name: values.get(name, "(none)")


def _add(total: Any, value: Any) -> Any:
    if isinstance(value, (Score, BlancScore)):
        return value if total is None else total + value
    return total


@dataclass
class Breakdown:
    """Rows of scores (R, P, F1 per metric) under a heading: groups or mention kinds."""

    title: str
    metrics: list[str]
    rows: dict[str, dict[str, Any]]  #: row name → metric → Score, BlancScore or {"f1": Fraction}
    sizes: dict[str, int]  #: row name → documents (groups) or key mentions (kinds)
    size_label: str

    def to_dict(self) -> dict:
        def cell(value: Any) -> dict:
            if isinstance(value, dict):
                return {"f1": float(value["f1"])}
            return {"recall": float(value.recall), "precision": float(value.precision), "f1": float(value.f1)}
        return {name: {"size": self.sizes[name], **{m: cell(v) for m, v in row.items()}}
                for name, row in self.rows.items()}

    def to_text(self) -> str:
        width = max([len(n) for n in self.rows] + [8])
        lines = [f"{self.title} (F1, %)",
                 f"{'':<{width}} {self.size_label:>9} " + " ".join(f"{m:>8}" for m in self.metrics)]
        for name, row in self.rows.items():
            values = []
            for m in self.metrics:
                v = row.get(m)
                f1 = v["f1"] if isinstance(v, dict) else (v.f1 if v is not None else None)
                values.append(f"{percent(f1):>8}" if f1 is not None else f"{'-':>8}")
            lines.append(f"{name:<{width}} {self.sizes[name]:>9} " + " ".join(values))
        return "\n".join(lines) + "\n"


def _with_conll(row: dict[str, Any], metrics: Sequence[str]) -> dict[str, Any]:
    if "conll" in metrics and all(m in row for m in ("muc", "bcub", "ceafe")):
        row["conll"] = ConllScore(row["muc"], row["bcub"], row["ceafe"])
    return {m: row[m] for m in metrics if m in row}


def by_group(scores: Scores, group_of: Callable[[str], str], metrics: Sequence[str] | None = None) -> Breakdown:
    """Per-group corpus scores from a scoring with per-document results."""
    if not scores.documents:
        raise UsageError("a breakdown by group needs per-document scores")
    metrics = list(metrics or scores.metrics)
    rows: dict[str, dict[str, Any]] = {}
    sizes: dict[str, int] = {}
    for doc in scores.documents:
        group = group_of(doc.name)
        row = rows.setdefault(group, {})
        sizes[group] = sizes.get(group, 0) + 1
        for m, value in doc.results.items():
            row[m] = _add(row.get(m), value)
    out = {g: _with_conll({m: v for m, v in row.items() if v is not None}, metrics) for g, row in sorted(rows.items())}
    return Breakdown("Scores by document group", [m for m in metrics if any(m in r for r in out.values())],
                     out, dict(sorted(sizes.items())), "documents")


# -- mention kinds -----------------------------------------------------------------------------
def _head_token(mention: Mention) -> int:
    return mention.head[0][0] if mention.head else mention.spans[-1][1]


def kind_function(spec: str, key: MentionView) -> Callable[[Mention], str]:
    """How to tell a mention's kind: ``pos`` (tags, else head words), ``head`` (head words
    only) or ``attr:NAME`` (a markable attribute)."""
    if spec.startswith("attr:"):
        name = spec[5:]
        return lambda m: str((m.attributes or {}).get(name, "(none)"))
    if spec not in ("pos", "head"):
        raise UsageError(f"unknown --by-kind {spec!r} (known: pos, head, attr:NAME)")
    tags = key.pos if spec == "pos" else None
    forms = key.forms

    def kind(m: Mention) -> str:
        h = _head_token(m)
        if tags is not None and h < len(tags) and tags[h]:
            tag = tags[h]
            if tag in PRONOUN_TAGS:
                return "pronoun"
            if tag in PROPER_TAGS:
                return "proper"
            if tag in NOMINAL_TAGS:
                return "nominal"
            return "other"
        word = forms[h] if h < len(forms) else ""
        if word.lower() in PRONOUNS and m.spans[0][0] == m.spans[-1][1]:
            return "pronoun"
        if word[:1].isupper() and h > 0 and forms[h - 1] not in (".", "!", "?", "``", '"'):
            return "proper"
        return "nominal" if word[:1].isalpha() else "other"
    return kind


def _restricted(view: MentionView, kinds: dict[tuple, str], kind: str) -> list[list[tuple]]:
    """The chains of ``view`` with only the mentions of ``kind`` (a repeated span once)."""
    seen: set[tuple] = set()
    out = []
    for chain in view.mentions:
        cls = []
        for m in chain:
            if kinds[m.spans] == kind and m.spans not in seen:
                seen.add(m.spans)
                cls.append(m.spans)
        if cls:
            out.append(cls)
    return out


def by_kind(pairs: Sequence[tuple[MentionView, MentionView]], spec: str = "pos",
            metrics: Sequence[str] = ("mentions", "muc", "bcub", "ceafe", "conll")) -> Breakdown:
    """Scores of key and response restricted to each mention kind, summed over documents."""
    wanted = [m for m in metrics if m in KIND_METRICS or m == "conll"]
    needed = [m for m in wanted if m in KIND_METRICS]
    if "conll" in wanted:
        needed += [m for m in ("muc", "bcub", "ceafe") if m not in needed]
    rows: dict[str, dict[str, Any]] = {}
    sizes: dict[str, int] = {}
    for key, response in pairs:
        kind = kind_function(spec, key)
        key_kinds = {m.spans: kind(m) for chain in key.mentions for m in chain}
        response_kinds = {m.spans: key_kinds.get(m.spans) or kind(m) for chain in response.mentions for m in chain}
        present = sorted(set(key_kinds.values()) | set(response_kinds.values()),
                         key=lambda k: (KINDS.index(k) if k in KINDS else len(KINDS), k))
        for k in present:
            kp = _restricted(key, key_kinds, k)
            rp = _restricted(response, response_kinds, k)
            row = rows.setdefault(k, {})
            sizes[k] = sizes.get(k, 0) + sum(len(c) for c in kp)
            for m in needed:
                row[m] = _add(row.get(m), KIND_METRICS[m](kp, rp))
    order = sorted(rows, key=lambda k: (KINDS.index(k) if k in KINDS else len(KINDS), k))
    out = {k: _with_conll(dict(rows[k]), wanted) for k in order}
    return Breakdown(f"Scores by mention kind, from {spec}", wanted, out, {k: sizes[k] for k in order}, "mentions")


def kind_pairs(key: Any, response: Any, *, key_format: str | None = None, response_format: str | None = None,
               pair_by: str = "name", pairs_file: Any = None, allow_missing: bool = False, match: str = "exact",
               report: Report | None = None) -> list[tuple[MentionView, MentionView]]:
    """Prepared (key view, response view) pairs, as scoring forms them, with POS tags."""
    from ..compare.synchronisation import pair_keys
    from .engine import _side
    from .views import prepare

    report = report if report is not None else Report()
    key_side = _side(key, key_format, report, True)
    response_side = _side(response, response_format, report, True)
    out = []
    for i, j in pair_keys(key_side.keys, response_side.keys, pair_by, pairs_file, report, allow_missing):
        kv = key_side.view(i)
        prepared_key, rv = prepare(kv, response_side.view(j) if j is not None else None, report, match)
        if prepared_key.pos is None and kv.pos is not None:
            prepared_key = MentionView(prepared_key.label, prepared_key.forms, prepared_key.mentions, kv.pos,
                                       prepared_key.places)
        out.append((prepared_key, rv))
    return out
