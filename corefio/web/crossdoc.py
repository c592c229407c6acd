"""Cross-document scoring on the score page and ``/api/score``: what the form asks, and
the work done in the worker beside the standard score.

The scores are :func:`corefio.scoring.crossdoc.score_cross`'s and
:func:`~corefio.scoring.crossdoc.score_styles`' (what ``corefio score
--cross-document LEVEL`` and ``--style`` print); this module only decides whether they
apply, checks that they can, and puts them in the shape the pages need.

When they apply: the form's choice ``auto`` (the default) scores across documents when
the key is a cross-document format (ECB+, meta-document CoNLL, Cattan et al.'s JSON,
WEC) or carries entities across documents, at the level the key records (the blocks of
a meta-document CoNLL file, else the topics, else the corpus); ``none`` never; a level
(``corpus``, ``topic``, ``subtopic``, ``block``) always, and a key that cannot be cut
into that level is refused with what it lacks.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from typing import Any

from ..diagnostics import Report
from ..errors import CorefioError, DocumentMismatchError
from .errors import WebError, from_corefio, scrub

#: the form's choices of unit (``auto``: when the key is a CDCR corpus; ``none``: never)
CHOICES = ("auto", "none", "corpus", "topic", "subtopic", "block")
#: what each choice means, as the form says it
CHOICE_WORDS = {
    "auto": "when the key is a cross-document corpus (its own units)",
    "none": "no: documents one by one only",
    "corpus": "the corpus as one unit",
    "topic": "each topic as one unit",
    "subtopic": "each subtopic as one unit",
    "block": "each meta-document (block) of a CoNLL file",
}
#: formats whose files are cross-document corpora
CDCR_FORMATS = ("ecbplus", "cdcr-conll", "cdcr-json", "wec")


@dataclass
class CrossChoice:
    """The cross-document part of a score form."""

    level: str = "auto"
    styles: list[str] = field(default_factory=list)
    mention_type: str = "all"
    validated_only: bool = False
    topic_pattern: str | None = None

    @classmethod
    def of(cls, level: str, style: str | list[str] | None, mention_type: str, validated_only: bool,
           topic_pattern: str) -> "CrossChoice":
        """The choice of a form (empty fields: the defaults), checked."""
        from ..model.crossdoc import MENTION_TYPES
        from ..scoring.crossdoc import STYLES

        level = (level or "auto").strip()
        if level not in CHOICES:
            raise WebError(400, f"unknown cross-document choice {level!r} (known: {', '.join(CHOICES)})")
        items = style if isinstance(style, list) else [style or ""]
        styles = [s.strip() for item in items for s in item.split(",") if s.strip()]
        unknown = [s for s in styles if s != "all" and s not in STYLES]
        if unknown:
            raise WebError(400, f"unknown evaluation style {', '.join(unknown)} (known: all, {', '.join(STYLES)})")
        mention_type = (mention_type or "all").strip()
        if mention_type not in MENTION_TYPES:
            raise WebError(400, f"unknown mention type {mention_type!r} (known: {', '.join(MENTION_TYPES)})")
        pattern = (topic_pattern or "").strip() or None
        if pattern is not None:
            try:
                compiled = re.compile(pattern)
            except re.error as exc:
                raise WebError(400, f"the topic pattern is not a regular expression: {exc}") from None
            if "topic" not in compiled.groupindex:
                raise WebError(400, "the topic pattern needs a group named topic, e.g. "
                                    r"^(?P<topic>\d+)_ (and may have one named subtopic)")
        return cls(level, ["all"] if "all" in styles else styles, mention_type, validated_only, pattern)

    def to_dict(self) -> dict[str, Any]:
        return {"cross_document": self.level, "style": list(self.styles), "mention_type": self.mention_type,
                "validated_only": self.validated_only, "topic_pattern": self.topic_pattern}


def meta_conll(up: Any, fmt: str | None, report: Report) -> str | None:
    """The format to read an upload in: the one chosen, else ``cdcr-conll`` for a file
    told as CoNLL by its name whose content is a meta-document file of Cattan et al.'s
    layout (blocks of units, a validated flag and the document of each token), said in
    ``report``; None: detect as usual."""
    if fmt or up.pair or up.is_zip:
        return fmt
    from ..formats import cdcr_conll
    from ..formats.registry import resolve_format

    try:
        detected = resolve_format(up.path, None).name
    except CorefioError:
        return None
    if detected == "conll" and cdcr_conll.sniff(up.head()):
        report.info("web.meta_conll", "read as cdcr-conll: a meta-document CoNLL file (one block per unit, the "
                    "document of each token in a column), its documents and topics kept; choose the format conll "
                    "to read each block as one document", file=up.name)
        return "cdcr-conll"
    return None


def cdcr_input(key: Any, key_format: str) -> bool:
    """Is the key a cross-document corpus (a CDCR format, or entities across documents)?"""
    return key_format in CDCR_FORMATS or bool(key.cross_entities)


def own_level(key: Any) -> str:
    """The unit a CDCR key records: its meta-documents (a meta-document CoNLL file), else
    its topics, else the corpus."""
    from ..model.crossdoc import META_DOCUMENT, TOPIC

    docs = key.documents
    if docs and all(META_DOCUMENT in d.metadata for d in docs):
        return "block"
    if docs and all(TOPIC in d.metadata for d in docs):
        return "topic"
    return "corpus"


def _problem(exc: CorefioError, level: str, key_name: str, pattern: str | None) -> WebError:
    """What the web says when a level cannot apply (the library's hint names the
    command line's options)."""
    message = exc.message
    if level == "block" and "meta-document" in message:
        return WebError(422, f"cross-document scoring by block needs a meta-document CoNLL file (cdcr-conll), whose "
                             f"#begin document blocks are the units; {key_name} was not read as one (choose the "
                             "format cdcr-conll for a meta-document file), or choose corpus, topic or subtopic",
                        key_name)
    found = re.match(r"(\d+) document\(s\) have no (\w+) \(([^)]*)\)", message)
    if found:
        hint = ("the topic pattern given does not match them" if pattern else
                "give a topic pattern (a regular expression with a group named topic on the document names, "
                r"e.g. ^(?P<topic>\d+)_)")
        return WebError(422, f"cross-document scoring by {found.group(2)} needs the {found.group(2)} of every "
                             f"document, and {found.group(1)} document(s) of {key_name} have none "
                             f"({found.group(3)}): {key_name} is not a corpus that records topics (ECB+, "
                             f"meta-document CoNLL, CDCR JSON); {hint}, or choose the corpus as the unit", key_name)
    return WebError(422, scrub(message) or "", key_name)


def _no_kinds(key: Any, mention_type: str, key_name: str) -> WebError | None:
    """A refusal when events or entities are asked of a key none of whose mentions says
    which it is."""
    from ..model.crossdoc import mention_kind

    if mention_type == "all":
        return None
    if any(mention_kind(m) is not None for d in key.documents for m in d.markables):
        return None
    return WebError(422, f"{mention_type} mentions were asked, but no mention of {key_name} says whether it is an "
                         "event or an entity (a kind attribute, or an ECB+ tag): choose all mentions", key_name)


def _styles_csv(rows: list[dict]) -> str:
    """The styles side by side as CSV: one row per style, mention type and metric."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["style", "unit", "singletons", "mention_type", "validated_only", "metric", "recall_num",
                "recall_den", "recall", "precision_num", "precision_den", "precision", "f1"])

    def part(value: Any) -> list[Any]:
        if isinstance(value, dict):
            return [value.get("num"), value.get("den"), value.get("value")]
        return ["", "", value]

    for row in rows:
        for metric, value in row["corpus"].items():
            if not isinstance(value, dict) or "f1" not in value:
                continue
            w.writerow([row["style"], row["unit"], "kept" if row["keep_singletons"] else "dropped",
                        row["mention_type"], row["validated_only"], metric, *part(value.get("recall")),
                        *part(value.get("precision")), value.get("f1")])
    return buf.getvalue()


def _mismatch(exc: DocumentMismatchError, key_name: str, response_name: str) -> DocumentMismatchError:
    found = re.sub(r";\s*--allow-missing.*$", "", exc.message)
    return DocumentMismatchError(f"the documents of {key_name} (key) and {response_name} (response) do not match: "
                                 f"{found}. Cross-document scoring puts each response document where the key "
                                 "document of the same name is; to score missing documents as empty, use the "
                                 "command line: corefio score --cross-document LEVEL --allow-missing")


def topic_mapping(topics: Any) -> dict[str, list[str | None]] | None:
    """The topics file uploaded (``DOCUMENT<TAB>TOPIC[<TAB>SUBTOPIC]`` lines, as
    ``--topics`` reads it), as document name -> [topic, subtopic]; None without one."""
    from ..model.crossdoc import read_topic_mapping

    if topics is None:
        return None
    try:
        text = topics.path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise WebError(422, f"the topics file is not UTF-8 text (byte {exc.start})", topics.name) from None
    mapping = read_topic_mapping(text, topics.name)
    return {name: [topic, sub] for name, (topic, sub) in mapping.items()}


def with_topics(corpus: Any, mapping: dict[str, list[str | None]] | None, pattern: str | None) -> Any:
    """``corpus`` with the topics a topics file and a pattern give (as the library's
    ``load`` gives them: both at once, the file first)."""
    from ..model.crossdoc import assign_topics

    if mapping is None and pattern is None:
        return corpus
    table = None if mapping is None else {name: (str(v[0]), v[1]) for name, v in mapping.items()}
    return assign_topics(corpus, mapping=table, pattern=pattern, overwrite=True)


def cross_job(key: Any, response: Any, key_format: str, choice: CrossChoice, metrics: list[str],
              keep_singletons: bool, key_name: str, response_name: str, topics: Any = None) -> dict[str, Any] | None:
    """The cross-document scores of an upload pair (None when they do not apply): the
    level's (``scores``: :meth:`Scores.to_dict` with each unit's, ``csv``) and the
    styles' side by side (``styles``, ``styles_csv``), with the settings used and the
    units (label, documents) the view shows. ``topics``: an uploaded topics file."""
    from ..model.crossdoc import units
    from ..scoring.crossdoc import CrossSettings, score_cross, score_styles, styles_json

    cdcr = cdcr_input(key, key_format)
    if choice.level == "none" and not choice.styles:
        return None
    if choice.level == "auto" and not cdcr and not choice.styles:
        return None
    try:
        mapping = topic_mapping(topics)
    except CorefioError as exc:
        err = from_corefio(exc)
        raise WebError(422, err.message, err.where or topics.name) from None
    key = with_topics(key, mapping, choice.topic_pattern)
    response = with_topics(response, mapping, choice.topic_pattern)
    refused = _no_kinds(key, choice.mention_type, key_name)
    if refused is not None:
        raise refused
    report = Report()
    if choice.styles and _no_kinds(key, "event", key_name) is not None:
        raise WebError(422, f"the published styles score events and entities apart, but no mention of {key_name} "
                            "says whether it is an event or an entity (a kind attribute, or an ECB+ tag): choose a "
                            "unit without a style", key_name)
    out: dict[str, Any] = {"auto": choice.level == "auto", "choice": choice.to_dict(), "cdcr_input": cdcr}
    level = own_level(key) if choice.level == "auto" else choice.level
    if choice.level != "none" and (choice.level != "auto" or cdcr):
        settings = CrossSettings(level, keep_singletons, choice.mention_type, choice.validated_only)
        try:
            found = units(key, level)
            scores = score_cross(key, response, metrics, settings=settings, per_unit=True, report=report,
                                 workers=1)  # the worker is the process the server limits
        except DocumentMismatchError as exc:
            raise _mismatch(exc, key_name, response_name) from None
        except CorefioError as exc:
            raise _problem(exc, level, key_name, choice.topic_pattern) from None
        data = scores.to_dict(True)
        try:
            text: str | None = scores.to_csv(True)
            csv_error = None
        except Exception as exc:  # noqa: BLE001 - the page still shows the scores
            text, csv_error = None, f"the scores cannot be written as CSV ({type(exc).__name__}: {scrub(str(exc))})"
        out.update(scores=data, csv=text, csv_error=csv_error, metrics=list(scores.metrics),
                   settings={"level": level, "keep_singletons": keep_singletons,
                             "mention_type": choice.mention_type, "validated_only": choice.validated_only,
                             "topic_pattern": choice.topic_pattern,
                             "topics_file": None if topics is None else topics.name},
                   topics=mapping,
                   units=[{"label": label, "documents": [key.documents[i].label for i in members]}
                          for label, members in found.items()])
    if choice.styles:
        try:
            rows = score_styles(key, response, choice.styles, report=report)
        except DocumentMismatchError as exc:
            raise _mismatch(exc, key_name, response_name) from None
        except CorefioError as exc:
            raise _problem(exc, _level_of(exc), key_name, choice.topic_pattern) from None
        out["styles"] = styles_json(rows)
        out["styles_csv"] = _styles_csv(out["styles"])
    out["diagnostics"] = [d.to_dict() for d in report]
    return out


def _level_of(exc: CorefioError) -> str:
    found = re.search(r"have no (\w+)", exc.message)
    return found.group(1) if found else "block" if "meta-document" in exc.message else "corpus"


def unit_view_job(key: Any, response: Any, settings: dict[str, Any], unit: int, page: int, zeros: str,
                  mapping: dict[str, list[str | None]] | None = None):
    """The key vs response view of one unit across its documents (the unit's key
    documents and the response's of the same names, as
    :func:`corefio.web.view.unit_documents` joins them), its page ``page``; ``mapping``:
    the topics file's, when one was uploaded."""
    from ..model.crossdoc import document_ref, units
    from ..scoring.crossdoc import CrossSettings
    from . import view

    level = settings["level"]
    key = with_topics(key, mapping, settings.get("topic_pattern"))
    response = with_topics(response, mapping, settings.get("topic_pattern"))
    found = list(units(key, level).items())
    if not found:
        raise WebError(422, "the key has no unit to show")
    unit = min(max(unit, 0), len(found) - 1)
    label, members = found[unit]
    refs = {document_ref(key.documents[i]) for i in members}
    key_part = key.copy(documents=[key.documents[i] for i in members])
    response_part = response.copy(documents=[d for d in response.documents if document_ref(d) in refs])
    cross = CrossSettings(level, settings["keep_singletons"], settings["mention_type"], settings["validated_only"])
    shown = view.unit_documents(key_part, response_part, cross, report=Report())
    _, k, r = shown[0]
    pv = view.build(k, r, page, match="exact", keep_singletons=settings["keep_singletons"], zeros=zeros)
    return pv, unit, [f"{level} {name}" for name, _ in found], f"{level} {label}", len(members)
