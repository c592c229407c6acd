"""Writing a corpus as an MMAX2 project: ``{relative path: bytes}``."""

from __future__ import annotations

import hashlib

import re
from collections.abc import Iterable
from typing import Any

from ...model.mentions import is_identity
from ...diagnostics import Report
from ...errors import CorefioError
from ...io.xmlsafe import etree, parse_xml
from ..losses import LossLog
from ...model import Corpus, Document, Markable
from ...model.scheme import Scheme, SchemeAttribute
from . import project as P
from .levels import attr, clean, is_attribute_name, render_span, text
from .schemes import scheme_xml

DEFAULT_LEVEL = "coref"
SET_ATTRIBUTE = "coref_set"
POINTER_ATTRIBUTE = "anaphor_antecedent"
SENTENCE_LEVEL = "sentence"
_UNSAFE_NAME = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|%#]')
_NCNAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]*$")

WORDS_DTD = b"""<!ELEMENT words (word*)>
<!ELEMENT word (#PCDATA)>
<!ATTLIST word id ID #REQUIRED>
"""
MARKABLES_DTD = b"""<!ELEMENT markables (markable*)>
<!ATTLIST markable id ID #REQUIRED>
<!ATTLIST markables xmlns CDATA #IMPLIED>
"""
CUSTOMIZATION = b'<?xml version="1.0" encoding="UTF-8"?>\n<customization>\n</customization>\n'


def write_files(corpus: Corpus, *, report: Report, chains: str | None = None) -> dict[str, bytes]:
    """The project's files. ``chains``: ``None`` keeps each document's encoding
    (identity sets as ``markable_set`` values, identity links as pointers); ``"sets"``
    writes every chain as a set, ``"pointers"`` every chain as antecedent pointers."""
    return _Writer(corpus, report, chains).files()


def file_stem(doc: Document) -> str:
    """The ``.mmax`` base name of a document: its name with each character a file name
    cannot hold, or that MMAX2 and other tools read in a file URI as something else
    (``/``, ``\\``, ``:``, ``*``, ``?``, ``"``, ``<``, ``>``, ``|``, ``%``, ``#``, control
    characters), made ``_``; a leading ``.`` too. When that changes the name, the name
    itself goes into the ``.mmax`` file (and the writer says so)."""
    return clean_stem(doc.name)


def clean_stem(name: str | None) -> str:
    """:func:`file_stem` of a document named ``name``."""
    name = name or "document"
    stem = _UNSAFE_NAME.sub("_", name)
    if stem.startswith("."):
        stem = "_" + stem[1:]
    # a file name holds 255 bytes, and the level files add their own suffix
    return cut_stem(stem, name, MAX_STEM_BYTES)


def cut_stem(stem: str, name: str, limit: int) -> str:
    """``stem`` (a file name made from a document's ``name``) when it takes at most
    ``limit`` bytes of UTF-8, else cut to fit, with ``~`` and a digest of the whole name
    so that long names that begin alike stay apart (what every directory writer does
    with a name too long for a file system)."""
    if len(stem.encode("utf-8")) <= limit:
        return stem
    digest = hashlib.sha1(name.encode("utf-8")).hexdigest()[:10]
    return stem.encode("utf-8")[:limit - 11].decode("utf-8", "ignore") + "~" + digest


#: bytes a document's file stem may take (``<stem>_<level>_level.xml`` must stay a file name)
MAX_STEM_BYTES = 120


class _Writer:
    def __init__(self, corpus: Corpus, report: Report, chains: str | None) -> None:
        self.corpus = corpus
        self.log = LossLog(report, "mmax2")
        self.mode = chains
        found = corpus.layout.get(P.FORMAT)
        self.project: P.MMAX2ProjectLayout | None = found if isinstance(found, P.MMAX2ProjectLayout) else None
        self.paths = dict(P.DEFAULT_PATHS) if self.project is None else {
            k: self.project.paths.get(k, "") for k in P.PATH_KEYS}
        #: each document's directory below the output directory (a collection's layout)
        self.homes = [_home(doc) if self.project is not None and self.project.collection else ""
                      for doc in corpus.documents]
        if self.project is not None and not all(self._inside(home) for home in set(self.homes) or {""}):
            # paths that lead out of the output from where the documents are (a collection's
            # "../../common_files/" for a document that no longer says where it was)
            report.info("mmax2.layout", "the project's paths would lead out of the output directory from where "
                        "its documents are written: written as a project of its own, with the usual paths")
            self.project = None
            self.paths = dict(P.DEFAULT_PATHS)
            self.homes = ["" for _ in corpus.documents]
        self.common_file = self.project.common_file if self.project is not None else "common_paths.xml"
        #: the source's common paths file as written back (kept, or with levels added)
        self._kept_common: bytes | None = None
        default = corpus.scheme(None)
        layer_names = {m.layer for d in corpus.documents for m in d.markables if m.layer is not None}
        name = (self.project.identity_level if self.project and self.project.identity_level else None) \
            or (default.name if default is not None and default.name else None) or DEFAULT_LEVEL
        while name in layer_names:
            name += "_default"
        self.default_level = name
        #: whether the default level is written: a project read without an identity level
        #: (levels of other annotations only) gets none added unless a document has
        #: markables of the default layer
        self.with_default = (self.project is None or self.project.identity_level is not None
                             or any(m.layer is None for d in corpus.documents for m in d.markables))

    def level_of(self, layer: str | None) -> str:
        return self.default_level if layer is None else layer

    def _inside(self, home: str) -> bool:
        for key in P.PATH_KEYS:
            rel = P.locate(home, self.paths[key], "x")
            if rel == ".." or rel.startswith(("../", "/")) or P.is_absolute_name(rel):
                return False
        return True

    def at(self, home: str, key: str, name: str) -> str:
        """Where the file ``name`` of the project directory ``key`` goes for a document in
        ``home`` (``""`` for a project): a path relative to the output directory."""
        return P.locate(home, self.paths[key], name)

    # -- what each level uses ----------------------------------------------------------
    def files(self) -> dict[str, bytes]:
        out: dict[str, bytes] = {}
        docs = self.corpus.documents
        plans = [self._plan(doc) for doc in docs]
        levels: dict[str, dict[str, str]] = {}  # level → attribute (as written) → type
        if self.project is not None:
            for lv in self.project.levels:
                levels.setdefault(lv.name, {})
        if self.with_default:
            levels.setdefault(self.default_level, {})
        identity_names: dict[str, set[str]] = {}
        for plan in plans:
            for level, uses in plan["uses"].items():
                got = levels.setdefault(level, {})
                for name, kind in uses.items():
                    got.setdefault(name, kind)
            for level, names in plan["identity"].items():
                identity_names.setdefault(level, set()).update(names)
        # level schemes
        schemes: dict[str, Scheme] = {}
        for level, uses in levels.items():
            layer = None if level == self.default_level else level
            base = self.corpus.scheme(layer)
            if base is None and layer is None:
                base = next((s for s in self.corpus.schemes if s.name == level), None)
            attrs = list(base.attributes) if base is not None else []
            known = {a.name.lower() for a in attrs}
            for name, kind in uses.items():
                if name.lower() not in known:
                    attrs.append(SchemeAttribute(name=name, type=kind,  # type: ignore[arg-type]
                                                 identity=name in identity_names.get(level, ())))
                    known.add(name.lower())
            schemes[level] = Scheme(layer=layer, name=level, attributes=attrs)
        # project files
        stems = self._stems(docs)
        order = list(levels)
        common = self._common_paths(order)
        out[self.common_file] = common
        homes = list(dict.fromkeys(self.homes)) or [""]
        for home in homes:
            for level in order:
                scheme_rel, custom_rel = self._level_files(level, home)
                if scheme_rel not in out:
                    copied = None
                    if self.project is not None and level in self.project.scheme_files:
                        old = self.project.schemes.get(level)
                        if old is not None and Scheme.model_validate(old).attributes == schemes[level].attributes:
                            copied = self.project.files.get(self.project.scheme_files[level])
                    out[scheme_rel] = copied if copied is not None else scheme_xml(schemes[level])
                if custom_rel not in out:
                    out[custom_rel] = (self.project.files.get(custom_rel) if self.project else None) or CUSTOMIZATION
        if self.project is not None:
            for rel, data in self.project.files.items():
                out.setdefault(rel, data)
            if self.project.not_kept:
                self.log.lose("files", "files of the project that were not kept when it was read",
                              count=len(self.project.not_kept), example=self.project.not_kept[0])
        for home in homes:
            if self.project is None or any(h == home and not isinstance(d.layout.get(P.FORMAT), P.MMAX2Layout)
                                           for d, h in zip(docs, self.homes)):
                # the DTDs the files written anew name (a project read back has its own, or none)
                out.setdefault(self.at(home, "basedata_path", "words.dtd"), WORDS_DTD)
                out.setdefault(self.at(home, "markable_path", "markables.dtd"), MARKABLES_DTD)
            if not self._style_sheets(home) and common is not self._kept_common:
                # a common paths file written anew names the default style sheet; the
                # source's, kept, names the style sheets the project had (or none)
                out[self.at(home, "style_path", "default_style.xsl")] = _style(order)
        for doc, plan, stem, home in zip(docs, plans, stems, self.homes):
            self._document(doc, plan, stem, home, order, schemes, out)
        return out

    def _style_sheets(self, home: str) -> list[str]:
        """The style sheets kept from the source in the style directory of ``home``."""
        if self.project is None:
            return []
        directory = self.at(home, "style_path", "")
        return [rel for rel in self.project.files
                if rel.endswith(".xsl") and (rel.startswith(directory.rstrip("/") + "/") if directory.strip("./")
                                             else "/" not in rel)]

    def _stems(self, docs: list[Document]) -> list[str]:
        stems, seen = [], set()
        for doc, home in zip(docs, self.homes):
            found = doc.layout.get(P.FORMAT)
            kept = isinstance(found, P.MMAX2Layout) and found.stem
            stem = found.stem if kept else file_stem(doc)  # type: ignore[union-attr]
            base, k = stem, 1
            while (home, stem.lower()) in seen:
                k += 1
                stem = f"{base}_{k}"
            seen.add((home, stem.lower()))
            stems.append(stem)
            if stem != doc.name and not kept:
                self.log.report.info("mmax2.file-name", f"document {P.shorten(doc.name or '')!r} is written as "
                                     f"{stem}.mmax (a file name cannot hold it as it is); the .mmax file keeps "
                                     "its name", file=None)
        return stems

    def _level_files(self, level: str, home: str = "") -> tuple[str, str]:
        if self.project is not None:
            for lv in self.project.levels:
                if lv.name == level:
                    return (self.at(home, "scheme_path", lv.schemefile or f"{level}_scheme.xml"),
                            self.at(home, "customization_path", lv.customization_file
                                    or f"{level}_customization.xml"))
        return (self.at(home, "scheme_path", f"{level}_scheme.xml"),
                self.at(home, "customization_path", f"{level}_customization.xml"))

    def _level_pattern(self, level: str) -> str:
        if self.project is not None:
            for lv in self.project.levels:
                if lv.name == level:
                    return lv.pattern
        return f"$_{level}_level.xml"

    def _common_paths(self, order: list[str]) -> bytes:
        p = self.project
        if p is not None and self.common_file in p.files:
            if [lv.name for lv in p.levels] == order:
                self._kept_common = p.files[self.common_file]
                return self._kept_common
            edited = self._add_levels(p.files[self.common_file], [lv.name for lv in p.levels], order)
            if edited is not None:
                self._kept_common = edited
                return edited
        home = self.homes[0] if self.homes else ""
        sheets = [rel.rsplit("/", 1)[-1] for rel in self._style_sheets(home)] or ["default_style.xsl"]
        lines = ['<?xml version="1.0" encoding="UTF-8"?>', "<!DOCTYPE common_paths>", "<common_paths>"]
        for key in P.PATH_KEYS:
            lines.append(f"<{key}>{text(self.paths[key])}</{key}>")
        lines.append("<views>")
        lines.extend(f"<stylesheet>{text(s)}</stylesheet>" for s in sheets)
        lines.append("</views>")
        lines.append("<annotations>")
        for level in order:
            scheme_rel, custom_rel = self._level_files(level)
            other = ""
            if p is not None:
                for lv in p.levels:
                    if lv.name == level:
                        other = "".join(f' {k}="{attr(v)}"' for k, v in lv.other.items())
            lines.append(f'<level name="{attr(level)}" schemefile="{attr(scheme_rel.rsplit("/", 1)[-1])}" '
                         f'customization_file="{attr(custom_rel.rsplit("/", 1)[-1])}"{other}>'
                         f"{text(self._level_pattern(level))}</level>")
        lines.append("</annotations>")
        lines.append("</common_paths>")
        return ("\n".join(lines) + "\n").encode("utf-8")

    def _add_levels(self, data: bytes, held: list[str], order: list[str]) -> bytes | None:
        """The project's common paths file as it was (its other elements, comments and
        DOCTYPE kept) with a ``<level>`` for each level of ``order`` it does not list
        (every level when it lists none: the ``.mmax`` files listed them, and a common
        paths file that lists levels overrides theirs). ``None`` when the file as kept
        does not parse (it was repaired when read): it is then written anew."""
        try:
            tree = parse_xml(data, file=self.common_file)
        except CorefioError:
            return None
        root = tree.getroot()
        annotations = root.find("annotations")
        if annotations is None:
            annotations = etree.SubElement(root, "annotations")
            annotations.text = "\n"
            annotations.tail = "\n"
        children = list(annotations)
        # the white space before an element of the list, and after the last one
        between = (children[-2].tail if len(children) > 1 else annotations.text) or "\n"
        closing = children[-1].tail if children else "\n"
        for level in order:
            if level in held:
                continue
            scheme_rel, custom_rel = self._level_files(level)
            element = etree.SubElement(annotations, "level", name=level,
                                       schemefile=scheme_rel.rsplit("/", 1)[-1],
                                       customization_file=custom_rel.rsplit("/", 1)[-1])
            element.text = self._level_pattern(level)
            if children:
                children[-1].tail = between
            element.tail = closing
            children.append(element)
        encoding = tree.docinfo.encoding or "UTF-8"
        return etree.tostring(tree, xml_declaration=True, encoding=encoding) + b"\n"

    # -- one document ------------------------------------------------------------------
    def _plan(self, doc: Document) -> dict[str, Any]:
        """Set values and pointer values per markable, and the attributes each level uses."""
        log = self.log
        found = doc.layout.get(P.FORMAT)
        layout = found if isinstance(found, P.MMAX2Layout) else None
        index = doc.markable_index()
        markables = doc.markables
        values: list[dict[str, str]] = [{} for _ in markables]
        uses: dict[str, dict[str, str]] = {}
        identity: dict[str, set[str]] = {}
        scheme_set = self._identity_attribute(None, "markable_set")
        scheme_pointer = self._identity_attribute(None, "markable_pointer")

        def use(level: str, name: str, kind: str, ident: bool = False) -> None:
            uses.setdefault(level, {}).setdefault(name, kind)
            if ident:
                identity.setdefault(level, set()).add(name)

        for i, m in enumerate(markables):
            level = self.level_of(m.layer)
            uses.setdefault(level, {})  # a level whose markables have no attributes is a level all the same
            for name in m.attributes:
                use(level, name, "freetext")
            for name, value in m.sets.items():
                if not is_attribute_name(name):
                    log.lose("label", "set attribute names that are not XML names", document=doc, example=name)
                    continue
                values[i][name] = value
                use(level, name, "markable_set")
        mode = self.mode
        identity_links = [link for link in doc.links if is_identity(link.type)]
        # the default level always declares an identity attribute: that is how a reader
        # recognises it as the coreference level, even when no chain has two mentions
        declared = self.corpus.scheme(None)
        if not self.with_default:
            pass
        elif mode == "pointers":
            use(self.default_level, scheme_pointer, "markable_pointer", True)
        elif mode == "sets" or declared is None or not declared.identity_attributes():
            use(self.default_level, scheme_set, "markable_set", True)
        if mode == "sets" or (mode is None and not identity_links):
            if identity_links:
                log.lose("link-structure", "which antecedent each identity link points to (chains written as sets)",
                         document=doc, count=len(identity_links))
            self._sets(doc, values, use, scheme_set)
        elif mode == "pointers":
            if any(m.entity is not None for m in markables):
                log.lose("entity-ids", "set ids (chains written as pointers)", document=doc)
            chains = doc.chain_indices()
            for chain in chains:
                ordered = sorted(chain, key=lambda k: (markables[k].first, -markables[k].last))
                for prev, k in zip(ordered, ordered[1:]):
                    level = self.level_of(markables[k].layer)
                    name = scheme_pointer
                    values[k][name] = self._pointer(markables[k], [markables[prev]])
                    use(level, name, "markable_pointer", True)
        else:
            self._sets(doc, values, use, scheme_set, only_entities=True)
            for link in identity_links:
                source = index[link.source]
                m = markables[source]
                level = self.level_of(m.layer)
                if link.target_kind != "markable":
                    log.lose("value", "identity links to an entity from a markable of another entity",
                             document=doc, example=link.id)
                    continue
                name = (layout.link_attribute.get(link.id) if layout else None) or scheme_pointer
                targets = [markables[index[t]] for t in link.targets]
                old = values[source].get(name)
                value = self._pointer(m, targets)
                values[source][name] = value if old is None else old + ";" + value
                use(level, name, "markable_pointer", True)
        cased: list[str] = []  # link types with upper-case letters, once per target
        for link in doc.links:
            if is_identity(link.type):
                continue
            source = index[link.source]
            m = markables[source]
            level = self.level_of(m.layer)
            name = link.type.lower()  # MMAX2 lower-cases attribute names (the reader does too)
            if not is_attribute_name(link.type) or name in m.attributes or name in m.sets:
                log.lose("label", "link types that are not attribute names", document=doc, example=link.type)
                continue
            if link.target_kind != "markable":
                # a pointer names markables: a bridging or split-antecedent link to an
                # entity (CorefUD) has no pointer to become
                log.lose("link-types", "links to an entity (a pointer names markables)", document=doc,
                         example=link.id)
                continue
            if name != link.type:
                cased.extend(link.type for _ in link.targets)
            value = self._pointer(m, [markables[index[t]] for t in link.targets])
            if name in values[source]:
                log.lose("value", "several links of one type from one markable (merged into one pointer)",
                         document=doc, example=link.id)
                value = values[source][name] + ";" + value
            values[source][name] = value
            use(level, name, "markable_pointer")
        if cased:
            log.lose("link-type-case", "upper-case letters of link types (MMAX2 lower-cases the names of "
                     "attributes, and a link type is the name of a pointer attribute)", document=doc,
                     count=len(cased), example=cased[0], done="written in lower case")
        if doc.sentences and not (layout and layout.sentence_level):
            uses.setdefault(SENTENCE_LEVEL, {})
        elif layout and layout.sentence_level:
            uses.setdefault(layout.sentence_level, {})
        return {"values": values, "uses": uses, "identity": identity, "layout": layout}

    def _identity_attribute(self, layer: str | None, kind: str) -> str:
        scheme = self.corpus.scheme(layer)
        if scheme is not None:
            for a in scheme.attributes:
                if a.identity and a.type == kind and is_attribute_name(a.name.lower()):
                    return a.name.lower()
        return SET_ATTRIBUTE if kind == "markable_set" else POINTER_ATTRIBUTE

    def _sets(self, doc: Document, values: list[dict[str, str]], use: Any, name: str,
              only_entities: bool = False) -> None:
        markables = doc.markables
        if only_entities:
            groups: dict[str, list[int]] = {}
            for i, m in enumerate(markables):
                if m.entity is not None:
                    groups.setdefault(m.entity, []).append(i)
            chains: list[tuple[str | None, list[int]]] = [(e, g) for e, g in groups.items()]
        else:
            chains = []
            for chain in doc.chain_indices():
                named = [e for e in (markables[i].entity for i in chain) if e is not None]
                if len(set(named)) > 1:
                    self.log.lose("value", "several set ids in one chain (the first is kept)", document=doc,
                                  example=", ".join(sorted(set(named))))
                chains.append((named[0] if named else None, chain))
        used = {e for e, _ in chains if e is not None}
        counter = 0
        for entity, chain in chains:
            if entity is None:
                if len(chain) < 2:
                    continue
                counter += 1
                while f"set_{counter}" in used:
                    counter += 1
                entity = f"set_{counter}"
            if entity.lower() == "empty" or ";" in entity:
                self.log.lose("value", "set ids MMAX2 reads as no set", document=doc, example=entity)
                continue
            for i in chain:
                values[i][name] = entity
                use(self.level_of(markables[i].layer), name, "markable_set", True)

    def _pointer(self, source: Markable, targets: Iterable[Markable]) -> str:
        level = self.level_of(source.layer)
        parts = []
        for t in targets:
            tlevel = self.level_of(t.layer)
            parts.append(t.id if tlevel == level else f"{tlevel}:{t.id}")
        return ";".join(parts)

    def _document(self, doc: Document, plan: dict[str, Any], stem: str, home: str, order: list[str],
                  schemes: dict[str, Scheme], out: dict[str, bytes]) -> None:
        log = self.log
        layout: P.MMAX2Layout | None = plan["layout"]
        words_file = f"{stem}_words.xml"
        if layout is not None and layout.stem == stem and layout.words_file:
            words_file = layout.words_file
        # .mmax
        mmax_rel = P.locate(home, "", f"{stem}.mmax")
        if layout is not None and layout.mmax is not None and layout.stem == stem:
            out[mmax_rel] = layout.mmax
        else:
            extra = ""
            if doc.name != stem or doc.part is not None:
                part = f' part="{attr(doc.part)}"' if doc.part is not None else ""
                extra = f'<corefio_document name="{attr(clean(doc.name)[0])}"{part}/>\n'
            out[mmax_rel] = (f'<?xml version="1.0" encoding="UTF-8"?>\n<mmax_project>\n'
                                   f"<words>{text(words_file)}</words>\n{extra}<keyactions/>\n<gestures/>\n"
                                   "</mmax_project>\n").encode("utf-8")
        # base data
        tokens = doc.tokens
        ids = tokens.all_ids()
        columns = []
        for name, col in tokens.attributes.items():
            if is_attribute_name(name):
                columns.append((name, col))
            else:
                log.lose("label", "token attribute names that are not XML names", document=doc, example=name)
        # a document read from MMAX2 keeps its DOCTYPE, or its lack of one
        doctype = layout.words_doctype if layout is not None else ("words", "words.dtd")
        parts = ['<?xml version="1.0" encoding="UTF-8"?>\n', _doctype_line(doctype), "<words>\n"]
        append = parts.append
        bad_forms = 0
        for i, form in enumerate(tokens.forms):
            extra = ""
            for name, col in columns:
                v = col[i]
                if v is not None:
                    v, bad = clean(v)
                    if bad:
                        log.lose("value", "characters XML cannot hold", document=doc)
                    extra += f' {name}="{attr(v)}"'
            form, bad = clean(form)
            bad_forms += bad
            append(f'<word id="{attr(ids[i])}"{extra}>{text(form)}</word>\n')
        append("</words>\n")
        if bad_forms:
            log.lose("form", "characters XML cannot hold in word forms", document=doc, count=bad_forms)
        out[self.at(home, "basedata_path", words_file)] = "".join(parts).encode("utf-8")
        # levels
        by_level: dict[str, list[int]] = {level: [] for level in order}
        for i, m in enumerate(doc.markables):
            by_level.setdefault(self.level_of(m.layer), []).append(i)
        sentence_level = layout.sentence_level if layout and layout.sentence_level else (
            SENTENCE_LEVEL if doc.sentences else None)
        values = plan["values"]
        for level in order:
            llayout = layout.levels.get(level) if layout is not None else None
            if layout is not None and llayout is None and not by_level.get(level) and level != sentence_level:
                continue  # the source had no file for this level either
            scheme = schemes[level]
            relation = [a.name.lower() for a in scheme.attributes
                        if a.type in ("markable_set", "markable_pointer") and is_attribute_name(a.name.lower())]
            ns = llayout.namespace if llayout and llayout.namespace else f"www.eml.org/NameSpaces/{level}"
            dt = llayout.doctype if llayout else ("markables", "markables.dtd")
            parts = ['<?xml version="1.0" encoding="UTF-8"?>\n', _doctype_line(dt),
                     f'<markables xmlns="{attr(ns)}">\n']
            append = parts.append
            key_order = llayout.order if llayout else ["mmax_level"]
            if level == sentence_level and doc.sentences:
                if by_level.get(level):
                    log.lose("sentences", f"sentence boundaries (the level {level!r} they would be written to "
                             "holds markables of its own)", document=doc, count=len(doc.sentences))
                else:
                    self._sentences(doc, level, layout, llayout, key_order, ids, append)
            for i in by_level.get(level, ()):
                m = doc.markables[i]
                raw = llayout.raw.get(m.id, {}) if llayout else {}
                span = render_span(m.spans, ids)
                if "span" in raw:
                    span = raw["span"]
                attrs: dict[str, str] = {}
                if not (llayout and llayout.no_level_attribute and m.id in llayout.no_level_attribute):
                    attrs["mmax_level"] = level
                attrs.update(_written_attributes(m.attributes, log, doc, ""))
                mine = values[i]
                absent = llayout.absent if llayout else {}
                for name in relation:
                    if name in absent and m.id in absent[name]:
                        continue
                    if not any(k.lower() == name for k in mine):
                        attrs[name] = "empty"
                for name, value in mine.items():
                    attrs[name] = raw.get(name, value) if name in raw else value
                append(_markable(m.id, span, attrs, key_order))
            append("</markables>\n")
            rel = self.at(home, "markable_path", self._level_pattern(level).replace("$", stem))
            out[rel] = "".join(parts).encode("utf-8")


    def _sentences(self, doc: Document, level: str, layout: P.MMAX2Layout | None, llayout: P.LevelLayout | None,
                   key_order: list[str], ids: list[str], append: Any) -> None:
        """The sentences as markables of the sentence level, in the order they were read
        in; their ids and attributes are kept (what cannot be is reported)."""
        log = self.log
        sentences = doc.sentences
        positions = layout.sentence_order if layout and len(layout.sentence_order) == len(sentences) \
            else range(len(sentences))
        given = {s.id for s in sentences if s.id}
        used: set[str] = set()
        for k in positions:
            s = sentences[k]
            sid = s.id or f"markable_{k + 1}"
            if sid in used or (not s.id and sid in given):
                if s.id:
                    log.lose("sentence-attributes", "repeated sentence ids (renamed)", document=doc, example=sid)
                n = k + 1
                while f"markable_{n}" in used or f"markable_{n}" in given:
                    n += 1
                sid = f"markable_{n}"
            used.add(sid)
            attrs = {"mmax_level": level}
            if llayout and llayout.no_level_attribute and sid in llayout.no_level_attribute:
                del attrs["mmax_level"]
            attrs.update(_written_attributes(s.attributes, log, doc, "sentence "))
            append(_markable(sid, render_span(((s.first, s.last),), ids), attrs, key_order))


def _home(doc: Document) -> str:
    found = doc.layout.get(P.FORMAT)
    return found.home if isinstance(found, P.MMAX2Layout) else ""


def _markable(mid: str, span: str, attrs: dict[str, str], order: list[str]) -> str:
    keys = [k for k in order if k in attrs] + [k for k in attrs if k not in order] if order else list(attrs)
    body = "".join(f' {k}="{attr(attrs[k])}"' for k in keys)
    return f'<markable id="{attr(mid)}" span="{attr(span)}"{body}/>\n'


def _doctype_line(doctype: tuple[str, str | None] | None) -> str:
    if doctype is None:
        return ""
    root, system = doctype
    return f'<!DOCTYPE {root} SYSTEM "{system}">\n' if system else f"<!DOCTYPE {root}>\n"


def _style(levels: list[str]) -> bytes:
    """A minimal MMAX2 style sheet: words separated by spaces, markables in brackets."""
    prefixes = [level if _NCNAME.match(level) and not level.lower().startswith("xml") and level not in ("xsl", "mmax")
                else f"l{k}" for k, level in enumerate(levels)]
    ns = "".join(f' xmlns:{p}="www.eml.org/NameSpaces/{attr(level)}"' for p, level in zip(prefixes, levels))
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n',
           '<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform" '
           f'xmlns:mmax="org.eml.MMAX2.discourse.MMAX2DiscourseLoader"{ns}>\n',
           '<xsl:output method="text" indent="no" omit-xml-declaration="yes"/>\n',
           '<xsl:strip-space elements="*"/>\n',
           '<xsl:template match="words"><xsl:apply-templates/></xsl:template>\n',
           '<xsl:template match="word">\n',
           '  <xsl:value-of select="mmax:registerDiscourseElement(@id)"/>\n',
           '  <xsl:apply-templates select="mmax:getStartedMarkables(@id)" mode="opening"/>\n',
           '  <xsl:value-of select="mmax:setDiscourseElementStart()"/>\n',
           '  <xsl:apply-templates/>\n',
           '  <xsl:value-of select="mmax:setDiscourseElementEnd()"/>\n',
           '  <xsl:apply-templates select="mmax:getEndedMarkables(@id)" mode="closing"/>\n',
           '  <xsl:text> </xsl:text>\n',
           '</xsl:template>\n']
    for p, level in zip(prefixes, levels):
        if level == SENTENCE_LEVEL:
            out.append(f'<xsl:template match="{p}:markable" mode="opening"/>\n'
                       f'<xsl:template match="{p}:markable" mode="closing"><xsl:text>\n</xsl:text>'
                       "</xsl:template>\n")
            continue
        for mode, fn, mark in (("opening", "addLeftMarkableHandle", "["), ("closing", "addRightMarkableHandle", "]")):
            out.append(f'<xsl:template match="{p}:markable" mode="{mode}">'
                       f"<xsl:value-of select=\"mmax:{fn}(@mmax_level, @id, '{mark}')\"/></xsl:template>\n")
    out.append("</xsl:stylesheet>\n")
    return "".join(out).encode("utf-8")


def _written_attributes(attributes: dict, log: LossLog, doc: Document, kind: str) -> dict[str, str]:
    """Attributes as a level file holds them (text), each loss reported: names that are not
    XML names are left out, typed values written as text, characters XML cannot hold
    removed. ``kind`` names what they belong to in messages (``"sentence "`` or ``""``)."""
    out: dict[str, str] = {}
    for name, value in attributes.items():
        if not is_attribute_name(name):
            log.lose("label", f"{kind}attribute names that are not XML names", document=doc, example=name)
            continue
        if not isinstance(value, str):
            log.lose("value", f"typed {kind}attribute values (written as text)", document=doc,
                     example=f"{name}={value!r}")
            value = str(value).lower() if isinstance(value, bool) else str(value)
        value, bad = clean(value)
        if bad:
            log.lose("value", "characters XML cannot hold", document=doc)
        out[name] = value
    return out
