"""Reading an MMAX2 project (a directory, or one of its ``.mmax`` files) into a Corpus."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any

from ...model.mentions import COREFERENCE, markable_ref
from ...diagnostics import Report
from ...errors import FormatError, ModelError, UnsafeInputError
from ...model import Corpus, Document, Link, Markable, Sentence, Tokens
from ...model.scheme import Scheme, SchemeAttribute
from ...io.source import Source
from ...io.xmlsafe import etree, parse_xml
from . import project as P
from .levels import SpanError, parse_span, render_span
from .schemes import RELATION_TYPES, parse_scheme, says_identity

SENTENCE_LEVELS = ("sentence", "sentences", "s")


def read(source: Source, *, report: Report, strict: bool = False, identity_attribute: str | None = None,
         common_paths: str | None = None) -> Corpus:
    """Every document of the project ``source`` names (a directory: all its ``.mmax``
    files in name order, or, for a collection, those of its subdirectories in the order
    of their paths; a ``.mmax`` file: that document). ``common_paths``: the common paths
    file a collection's documents share, relative to the directory read."""
    if source.path is None:
        raise FormatError("an MMAX2 project is read from its directory or .mmax file, not from memory",
                          file=source.name)
    project = P.Project(source.path, common_paths=common_paths)
    return _Project(project, report, strict, identity_attribute).read()


class _Project:
    def __init__(self, project: P.Project, report: Report, strict: bool, identity_option: str | None) -> None:
        self.project = project
        self.report = report
        self.strict = strict
        self.identity_option = identity_option
        self.files: dict[str, bytes] = {}

    # -- project files -----------------------------------------------------------------
    def _keep(self, named: P.Named) -> bytes | None:
        """A project file kept verbatim for the writer (``None`` when absent)."""
        if named.rel in self.files:
            return self.files[named.rel]
        if not named.present:
            return None
        data = P.read_file(named.path, **named.where)
        self.files[named.rel] = data
        return data

    def _parse(self, data: bytes, file: Path) -> Any:
        """Parse safely; a not-well-formed file is repaired (and the repairs reported)."""
        try:
            return P.parse_project_xml(data, file)
        except UnsafeInputError:
            raise
        except FormatError as exc:
            if self.strict:
                raise
            from ...io.repair import repair_bytes

            try:
                fixed, changes = repair_bytes(data, kind="xml")
                tree = parse_xml(fixed, file=file)
            except UnsafeInputError:
                raise
            except FormatError:
                raise exc from None
            unclosed = [c for c in changes if c.fixer == "nesting" and c.message.endswith(" at the end")]
            if unclosed:
                # elements still open where the file stops: its end is missing (a cut or
                # unfinished copy), and what it held would be lost without an error
                names = ", ".join(c.message.split()[2] for c in unclosed)
                raise FormatError(f"the file ends with {names} still open: a cut file? (`corefio repair` "
                                  "closes them if nothing is missing)", file=str(file),
                                  line=data.count(b"\n") + 1) from None
            for change in changes:
                self.report.warning("mmax2.repaired", f"not well-formed XML repaired: {change.message}",
                                    file=str(file), line=change.line, column=change.column)
            return tree

    def read(self) -> Corpus:
        project = self.project
        docs = [project.document(i) for i in range(len(project.mmax_files))]
        if any(d.common_rel is None for d in docs):
            where = project.root if project.collection else project.mmax_files[0].parent
            self.report.warning("mmax2.no-common-paths", "no common_paths.xml: paths are taken relative to the "
                                ".mmax file and levels from the .mmax files", file=str(where))
        for d in docs:
            if d.common_rel is not None and d.common_rel not in self.files:
                self.files[d.common_rel] = project.common(d.common.file)[1]  # type: ignore[assignment]
        if project.collection and project.shared is not None:
            self.report.info("mmax2.collection", f"a collection of {len(docs)} document(s) reading the common paths "
                             f"file {project.rel(project.shared)}", file=str(project.root))
        levels_by_name: dict[str, P.Level] = {}
        scheme_of: dict[str, P.Named | None] = {}
        for d in docs:
            for sheet in d.stylesheets:
                self._keep(sheet)
            for level, scheme_file, custom in zip(d.levels, d.schemes, d.customizations):
                if level.name not in levels_by_name:
                    levels_by_name[level.name] = level
                    scheme_of[level.name] = scheme_file
                if custom is not None:
                    self._keep(custom)
            for dtd in d.dtds:
                self._keep(dtd)
        schemes: dict[str, Scheme] = {}
        scheme_files: dict[str, str] = {}
        for name in levels_by_name:
            attributes: list[SchemeAttribute] = []
            named = scheme_of[name]
            if named is not None:
                scheme_data = self._keep(named)
                if scheme_data is None:
                    self.report.warning("mmax2.missing-file", f"scheme file of level {name!r} is missing; "
                                        "its attributes are read as free text", file=str(named.path))
                else:
                    scheme_files[name] = named.rel
                    attributes = parse_scheme_file(self, scheme_data, named.path, name).attributes
            schemes[name] = Scheme(layer=name, name=name, attributes=attributes)
        # the files of the project's directories no document reads (Basedata.uri...), kept
        taken = set(self.files) | {d.words.rel for d in docs} | {f.rel for d in docs for f in d.level_files}
        extra, not_kept = project.other_files(docs, taken)
        for rel, path in extra.items():
            try:
                self.files[rel] = P.read_file(path, what="file", file=path, line=None)
            except FormatError as exc:
                not_kept.append(f"{rel} ({exc.message})")
        self.identity = self._identity(schemes)
        self.identity_level = self._identity_level(list(levels_by_name))
        corpus_schemes = []
        for name, scheme in schemes.items():
            attrs = []
            for a in scheme.attributes:
                ident = a.name.lower() in self.identity.get(name, ())
                link_type = a.name.lower() if a.type == "markable_pointer" and not ident else None
                attrs.append(a.model_copy(update={"identity": ident, "link_type": link_type}))
            corpus_schemes.append(Scheme(layer=None if name == self.identity_level else name, name=name,
                                         attributes=attrs))
        self.schemes = {s.name or "": s for s in corpus_schemes}
        commons = {d.common_rel for d in docs}
        # the layout the writer follows: a project (or a collection whose documents share
        # one common paths file) is written back as it was; a collection of projects
        # with files of their own is written as one project
        one = len(commons) == 1
        first = docs[0].common
        layout = P.MMAX2ProjectLayout(
            paths=dict(first.paths) if one else dict(P.DEFAULT_PATHS),
            levels=list(levels_by_name.values()) if one and first.levels else [],
            files=self.files if one else {}, schemes={s.name or "": s.model_dump(mode="json") for s in corpus_schemes},
            scheme_files=scheme_files if one else {}, identity_level=self.identity_level,
            collection=one and project.collection, common_file=docs[0].common_rel or "common_paths.xml",
            not_kept=not_kept if one else [])
        documents = [self._document(d, d.home if one else "") for d in docs]
        if self.identity_option is None:
            self._warn_without_chains(documents, project.root)
        return Corpus(documents=documents, schemes=corpus_schemes, layout={P.FORMAT: layout})

    # -- identity ----------------------------------------------------------------------
    def _identity(self, schemes: dict[str, Scheme]) -> dict[str, set[str]]:
        """Level → lower-cased names of its identity attributes: those the option names,
        else those whose name or scheme text says coreference (:mod:`.schemes`)."""
        out: dict[str, set[str]] = {}
        how: dict[tuple[str, str], str] = {}  # (level, attribute) → how it was found
        option = self.identity_option
        if option is not None:
            wanted = [w.strip() for w in option.split(",") if w.strip()]
            if [w.lower() for w in wanted] == ["none"]:
                wanted = []
            for w in wanted:
                level, _, name = w.rpartition(":")
                hits = [(lv, a) for lv, s in schemes.items() for a in s.attributes
                        if a.name.lower() == name.lower() and (not level or lv == level)]
                if not hits:
                    self.report.warning("mmax2.identity", f"identity attribute {w!r} is not declared by any scheme")
                for lv, a in hits:
                    if a.type not in RELATION_TYPES:
                        self.report.warning("mmax2.identity", f"identity attribute {lv}:{a.name} is a {a.type}, "
                                            "not a markable_set or markable_pointer; ignored")
                        continue
                    out.setdefault(lv, set()).add(a.name.lower())
                    how[lv, a.name.lower()] = "chosen"
        else:
            for lv, s in schemes.items():
                for a in s.attributes:
                    # parse_scheme marked identity where the scheme's texts say coreference
                    if a.type in RELATION_TYPES and (says_identity(a.name) or a.identity):
                        out.setdefault(lv, set()).add(a.name.lower())
                        how[lv, a.name.lower()] = "by name" if says_identity(a.name) else "by the scheme's text"
        found = ", ".join(f"{lv}:{a} ({next(x.type for x in schemes[lv].attributes if x.name.lower() == a)}, "
                          f"{how[lv, a]})" for lv, names in out.items() for a in sorted(names))
        self.report.info("mmax2.identity", f"coreference attributes: {found or 'none'}; "
                         "--identity-attribute chooses others")
        return out

    def _warn_without_chains(self, documents: list[Document], root: Path) -> None:
        """Warn when no attribute of the schemes was taken for coreference though the
        project has markables: scoring it would find nothing to score. When sets or
        pointers are in use, one of them may mean coreference under a name the
        detection does not know: the warning names them and the option."""
        if self.identity or any(m.layer is None or m.entity is not None for d in documents for m in d.markables):
            return
        used: Counter[str] = Counter()
        for d in documents:
            used.update(link.type for link in d.links)
            used.update(name.lower() for m in d.markables for name in m.sets)
        if used:
            shown = ", ".join(f"{name} ({n})" for name, n in used.most_common(5)) + (", ..." if len(used) > 5 else "")
            self.report.warning("mmax2.no-identity", f"no coreference chain: none of the set and pointer attributes "
                                f"in use ({shown}) is recognised as coreference, so there is no mention and "
                                "scores are empty; if one of them means coreference, name it: --identity-attribute "
                                "ATTR (or --read-option identity_attribute=ATTR)", file=str(root))
            return
        markables = sum(len(d.markables) for d in documents)
        if markables:
            levels = ", ".join(sorted({m.layer for d in documents for m in d.markables if m.layer}))
            self.report.warning("mmax2.no-identity", f"no coreference chain: no level has a set or pointer attribute "
                                f"in use, so the {markables} markable(s) (levels {levels}) stay layers, none is a "
                                "mention, and scores are empty", file=str(root))

    def _identity_level(self, level_names: list[str]) -> str | None:
        candidates = [n for n in level_names if n in self.identity]
        if not candidates:
            return None
        named = [n for n in candidates if "coref" in n.lower()]
        return (named or candidates)[0]

    # -- one document ------------------------------------------------------------------
    def _document(self, doc: P.DocumentFiles, home: str) -> Document:
        report = self.report
        mmax, stem, levels = doc.mmax, doc.stem, doc.levels
        words = doc.words
        if not words.present:
            raise FormatError(f"base data file {P.shorten(doc.words_name)!r} named by {mmax.name} is missing",
                              file=words.path)
        words_path = words.path
        data = P.read_file(words_path, **words.where)
        tree = self._parse(data, words_path)
        wfile = str(words_path)
        forms, ids, columns, index = _words(tree, data, wfile, report)
        if all(i == f"word_{k + 1}" for k, i in enumerate(ids)):
            token_ids = None
        else:
            token_ids = ids
        tokens = Tokens(forms=forms, ids=token_ids, whitespace=None, offsets=None, attributes=columns)
        layout = P.MMAX2Layout(stem=stem, home=home, mmax=doc.mmax_data, words_file=doc.words_name,
                               words_doctype=_doctype(tree))
        info = doc.info
        markables: list[Markable] = []
        pending: list[tuple] = []
        refs: set[str] = set()
        level_names = {lv.name for lv in levels}
        lower_levels = {lv.name.lower(): lv.name for lv in levels}
        sentences: list[Sentence] = []
        for level, named in zip(levels, doc.level_files):
            lpath = named.path
            if not named.present:
                elsewhere = _beside(lpath)
                if elsewhere is None:  # MMAX2 writes a level's file only once it has markables
                    report.info("mmax2.missing-file", f"level file of {level.name!r} is missing: no markables",
                                file=str(lpath))
                else:  # the project names another folder than the one holding it
                    report.warning("mmax2.missing-file", f"level file of {level.name!r} is missing, but a file of "
                                   f"that name is in {elsewhere}/: its markables are not read (does "
                                   "common_paths.xml lack or misname <markable_path>?)", file=str(lpath))
                continue
            ltree = self._parse(P.read_file(lpath, **named.where), lpath)
            lroot = ltree.getroot()
            llayout = P.LevelLayout(namespace=lroot.nsmap.get(None), doctype=_doctype(ltree))
            layout.levels[level.name] = llayout
            layer = None if level.name == self.identity_level else level.name
            scheme = self.schemes.get(level.name) or Scheme(layer=layer, name=level.name)
            types = {a.name.lower(): a for a in scheme.attributes}
            identity = self.identity.get(level.name, set())
            relation_attrs = [a.name.lower() for a in scheme.attributes if a.type in RELATION_TYPES]
            lfile = str(lpath)
            seen: set[str] = set()
            order: dict[str, None] = {}
            no_level: set[str] = set()
            level_values: list[dict[str, Any]] = []
            kinds: dict[str, tuple[str, str, bool]] = {}
            # every id a markable of the level carries (a repeated id's new name avoids them)
            level_ids = {el.get("id") for el in lroot if isinstance(el.tag, str) and _is_markable(el.tag)}
            occurred: set[str] = set()
            for el in lroot:
                tag = el.tag
                if not isinstance(tag, str):
                    continue  # comments and processing instructions
                if not _is_markable(tag):
                    report.warning("mmax2.unknown-element", f"element <{etree.QName(tag).localname}> in a level "
                                   "file is not a markable; ignored", file=lfile, line=el.sourceline)
                    continue
                attrib = dict(el.items())
                mid = attrib.get("id")
                span_text = attrib.get("span")
                if mid is not None:
                    if mid in occurred:
                        new_id = _duplicate_name(mid, level_ids)
                        report.warning("mmax2.duplicate-id", f"markable id {mid!r} repeated on level "
                                       f"{level.name!r}: this one is renamed {new_id!r}; pointers naming {mid!r} "
                                       "point to the first", file=lfile, line=el.sourceline)
                        mid = new_id
                    occurred.add(mid)
                if mid is None or span_text is None:
                    report.warning("mmax2.markable", "markable without id or span; ignored", file=lfile,
                                   line=el.sourceline)
                    continue
                spans = _simple_span(span_text, index)
                if spans is None:
                    try:
                        spans = parse_span(span_text, index)
                    except SpanError as exc:
                        spans = exc.spans
                        report.warning("mmax2.span", f"markable {mid}: {exc}" + (
                            "; kept without it" if spans else "; markable ignored"), file=lfile, line=el.sourceline)
                        if not spans:
                            continue
                seen.add(mid)
                attributes: dict[str, Any] = {}
                entity = None
                sets: dict[str, str] = {}
                present_rel: list[str] = []
                for k, v in attrib.items():
                    how = kinds.get(k)
                    if how is None:
                        low = k.lower()
                        spec = types.get(low)
                        kind: str = "skip" if k in ("id", "span", "mmax_level") else (
                            spec.type if spec is not None else "freetext")
                        how = kinds[k] = (kind, low, low in identity)
                    order[k] = None
                    kind = how[0]
                    if kind == "skip":
                        continue
                    if kind == "markable_set":
                        present_rel.append(how[1])
                        if v and v != "empty" and v.lower() != "empty":
                            if how[2] and entity is None:
                                entity = v
                            else:
                                sets[k] = v
                    elif kind == "markable_pointer":
                        present_rel.append(how[1])
                        if v and v != "empty" and v.lower() != "empty":
                            pending.append((level.name, layer, mid, k, v, lfile, el.sourceline, how[2]))
                    else:
                        attributes[k] = v
                if "mmax_level" not in attrib:
                    no_level.add(mid)
                if "," in span_text or " " in span_text or (".." in span_text and spans[0][0] == spans[-1][1]):
                    if render_span(spans, ids) != span_text:
                        llayout.raw.setdefault(mid, {})["span"] = span_text
                if len(present_rel) != len(relation_attrs):
                    for name in relation_attrs:
                        if name not in present_rel:
                            llayout.absent.setdefault(name, set()).add(mid)
                level_values.append({"id": mid, "spans": spans, "entity": entity, "head": None,
                                     "attributes": attributes, "layer": layer, "sets": sets, "min": None,
                                     "optional": False})
            level_markables: list[Markable] = [Markable(**values) for values in level_values]
            llayout.order = list(order)
            llayout.no_level_attribute = no_level or None
            got = None
            if not sentences and layer is not None and level.name.lower() in SENTENCE_LEVELS and not relation_attrs:
                got = _as_sentences(level_markables, len(forms))
            if got is not None:
                sentences, layout.sentence_order, changes = got
                layout.sentence_level = level.name
                self._report_sentence_changes(level.name, changes, len(forms), lfile)
                continue
            markables.extend(level_markables)
            refs.update(seen if layer is None else (markable_ref(mid, layer) for mid in seen))
        links = self._links(pending, refs, lower_levels, level_names, layout)
        name = info.get("name", doc.name)
        try:
            return Document.build(name=name, part=info.get("part"), tokens=tokens, sentences=sentences,
                                  markables=markables, links=links, layout={P.FORMAT: layout})
        except ModelError as exc:
            raise FormatError(f"document {name!r}: {exc.message}", file=mmax) from None

    def _report_sentence_changes(self, level: str, changes: dict[str, Any], n: int, file: str) -> None:
        """Warnings for a sentence level that had to be changed to tile the words."""
        uncovered = changes["uncovered"]
        if uncovered:
            words = sum(b - a + 1 for a, b in uncovered)
            runs = ", ".join(f"{a + 1}-{b + 1}" if a != b else str(a + 1) for a, b in uncovered[:5])
            more = ", ..." if len(uncovered) > 5 else ""
            self.report.warning("mmax2.sentences-untiled", f"the {level!r} level leaves {words} of {n} words outside "
                                f"any sentence (words {runs}{more}); each of the {len(uncovered)} run(s) of them is "
                                "made a sentence of its own", file=file, count=len(uncovered))
        nested, trimmed = changes["nested"], changes["trimmed"]
        if nested or trimmed:
            parts = []
            if nested:
                parts.append(f"{len(nested)} lie inside an earlier one and are dropped ({_some(nested)})")
            if trimmed:
                parts.append(f"{len(trimmed)} overlap the one before and now start after it ({_some(trimmed)})")
            self.report.warning("mmax2.sentences-overlap", f"sentence markables of the {level!r} level overlap: "
                                + "; ".join(parts), file=file, count=len(nested) + len(trimmed))

    def _links(self, pending: list[tuple], refs: set[str], lower_levels: dict[str, str], level_names: set[str],
               layout: P.MMAX2Layout) -> list[Link]:
        links: list[Link] = []
        for level, layer, mid, attr, value, lfile, line, identity in pending:
            source = markable_ref(mid, layer)
            targets: list[str] = []
            canonical: list[str] = []
            for part in value.split(";"):
                part = part.strip()
                if not part:
                    continue
                if ":" in part:
                    tlevel, _, tid = part.partition(":")
                    tlevel = tlevel if tlevel in level_names else lower_levels.get(tlevel.lower(), tlevel)
                else:
                    tlevel, tid = level, part
                tlayer = None if tlevel == self.identity_level else tlevel
                ref = markable_ref(tid, tlayer)
                if ref not in refs:
                    self.report.warning("mmax2.dangling-pointer", f"markable {mid} attribute {attr} points to "
                                        f"{part!r}, which does not exist; that target is dropped", file=lfile,
                                        line=line)
                    continue
                targets.append(ref)
                canonical.append(tid if tlevel == level else f"{tlevel}:{tid}")
            if not targets:
                continue
            if ";".join(canonical) != value:
                layout.levels[level].raw.setdefault(mid, {})[attr] = value
            link_id = f"{source}#{attr}"
            if identity:
                links.append(Link.fast(link_id, source, tuple(targets), COREFERENCE))
                layout.link_attribute[link_id] = attr
            else:
                links.append(Link.fast(link_id, source, tuple(targets), attr.lower()))
        return links


def parse_scheme_file(project: _Project, data: bytes, file: Path, level: str) -> Scheme:
    try:
        return parse_scheme(data, file, level, project.report)
    except UnsafeInputError:
        raise
    except FormatError:
        project._parse(data, file)  # raises when it cannot be repaired
        from ...io.repair import repair_bytes

        return parse_scheme(repair_bytes(data, kind="xml")[0], file, level, project.report)


def _some(ids: list[str]) -> str:
    return ", ".join(ids[:5]) + (", ..." if len(ids) > 5 else "")


def _duplicate_name(mid: str, taken: set[str | None]) -> str:
    """The id of a markable repeating ``mid`` on its level: ``mid_dup2`` for the second
    one, ``mid_dup3`` for the third…, each the first such name no markable of the level
    carries (``taken`` gets the name). The XSLT engine renames by the same rule."""
    n = 2
    while f"{mid}_dup{n}" in taken:
        n += 1
    name = f"{mid}_dup{n}"
    taken.add(name)
    return name


def _simple_span(text: str, index: dict[str, int]) -> tuple[tuple[int, int], ...] | None:
    """The spans of ``word_3`` or ``word_3..word_9`` (most spans); ``None`` otherwise."""
    first, dots, last = text.partition("..")
    a = index.get(first)
    b = index.get(last) if dots else a
    if a is None or b is None or b < a:
        return None
    return ((a, b),)


def _words(tree: Any, data: bytes, file: str, report: Report) -> tuple[list[str], list[str], dict, dict[str, int]]:
    """Forms, ids, attribute columns and the id index of a base data file.

    Most files write every word with the same attributes in the same order: those are
    read by one regular expression over the text (after lxml has checked the file),
    which is several times faster than visiting 10⁵ elements; the result is used only if
    it finds exactly the words lxml found. Anything else is read element by element."""
    root = tree.getroot()
    for el in root:
        if isinstance(el.tag, str) and el.tag != "word":
            report.warning("mmax2.unknown-element", f"element <{el.tag}> in the base data is not a word; ignored",
                           file=file, line=el.sourceline)
    first = root.find("word")
    n = int(_count_words(root))
    got = _words_by_pattern(first, data, tree.docinfo.encoding, n) if first is not None else None
    columns: dict[str, list[str | None]] = {}
    if got is not None:
        forms, ids, columns = got
        words = None
    else:
        words = list(root.iter("word"))
        forms = [e.text or "" for e in words]
        ids = []
        for k, e in enumerate(words):
            found = dict(e.items())
            ids.append(found.pop("id", None))
            for name, value in found.items():
                col = columns.get(name)
                if col is None:
                    col = columns[name] = [None] * len(words)
                col[k] = value
    index: dict[str, int] = {}
    for k, wid in enumerate(ids):
        if wid is None or wid in index:
            new = f"{wid or 'word'}~{k}"
            if words is None:
                words = list(root.iter("word"))
            report.warning("mmax2.word-id", f"word {'without id' if wid is None else 'id ' + repr(wid) + ' repeated'}"
                           f": renamed {new!r}", file=file, line=words[k].sourceline)
            ids[k] = wid = new
        index[wid] = k
    if len(index) != len(ids):  # a renamed id clashing with a later one: index them again
        index = {wid: k for k, wid in enumerate(ids)}
    return forms, ids, columns, index


_XPATHS: dict[str, Any] = {}


def _count_words(root: Any) -> float:
    found = _XPATHS.get("count")
    if found is None:
        found = _XPATHS["count"] = etree.XPath("count(//word)")
    return found(root)


_ESCAPED = re.compile(r"[&\r\n\t]")


def _words_by_pattern(first: Any, data: bytes, encoding: str | None,
                      n: int) -> tuple[list[str], list[str], dict] | None:
    keys = first.keys()
    if not keys or keys[0] != "id" or b"<!--" in data or b"<![CDATA[" in data:
        return None
    try:
        text = data.decode(encoding or "utf-8")
    except (LookupError, UnicodeDecodeError):
        return None
    pattern = r"<word" + "".join(rf'\s+{re.escape(k)}\s*=\s*"([^"<]*)"' for k in keys) + r"\s*>([^<]*)</word\s*>"
    found = re.findall(pattern, text)
    if len(found) != n:
        return None
    cols = list(zip(*found)) if found else [()] * (len(keys) + 1)
    fixed = []
    for col in cols:
        if any(map(_ESCAPED.search, col)):
            return None  # entity references or line breaks: let lxml decode them
        fixed.append(list(col))
    return fixed[-1], fixed[0], {k: col for k, col in zip(keys[1:], fixed[1:-1])}


def _doctype(tree: Any) -> tuple[str, str | None] | None:
    info = tree.docinfo
    if not info.doctype:
        return None
    return (info.root_name, info.system_url)


def _as_sentences(markables: list[Markable], n: int) -> tuple[list[Sentence], list[int], dict[str, Any]] | None:
    """The markables of a sentence level as sentences (``None`` when they cannot be:
    a discontinuous one, or one in a set), their order in the file, and what had to be
    changed to make them tile the ``n`` words.

    Sentences nested in an earlier one are dropped and a sentence overlapping the one
    before starts after it (``nested``, ``trimmed``: the markable ids); each maximal
    run of words no sentence covers becomes a sentence of its own (``uncovered``:
    the runs as word index ranges)."""
    if not markables or any(len(m.spans) != 1 or m.sets or m.entity for m in markables):
        return None
    order = sorted(range(len(markables)), key=lambda i: (markables[i].spans[0][0], -markables[i].spans[0][1]))
    nested: list[str] = []
    trimmed: list[str] = []
    kept: list[tuple[int, int, int]] = []
    end = -1
    for i in order:
        a, b = markables[i].spans[0]
        if b <= end:
            nested.append(markables[i].id)
            continue
        if a <= end:
            trimmed.append(markables[i].id)
            a = end + 1
        kept.append((a, b, i))
        end = b
    pieces: list[tuple[int, int, int | None]] = []
    uncovered: list[tuple[int, int]] = []
    expected = 0
    for a, b, i in kept + [(n, n - 1, -1)]:
        if a > expected:
            uncovered.append((expected, a - 1))
            pieces.append((expected, a - 1, None))
        if i >= 0:
            pieces.append((a, b, i))
        expected = b + 1
    sentences = []
    position: dict[int, int] = {}
    added: list[int] = []
    for k, (a, b, piece) in enumerate(pieces):
        if piece is None:
            sentences.append(Sentence(first=a, last=b, id=None, comments=[], interleaved=[], attributes={}))
            added.append(k)
        else:
            position[piece] = k
            sentences.append(Sentence(first=a, last=b, id=markables[piece].id, comments=[], interleaved=[],
                                            attributes=dict(markables[piece].attributes)))
    file_order = [position[i] for i in range(len(markables)) if i in position] + added
    return sentences, file_order, {"nested": nested, "trimmed": trimmed, "uncovered": uncovered}


def _beside(path: Path) -> str | None:
    """The name of a folder next to ``path`` (in the same directory) that holds a file of
    ``path``'s name: where a level file that is not where the project says it is may be."""
    try:
        folders = sorted(p for p in path.parent.iterdir() if p.is_dir() and not p.is_symlink())
    except OSError:
        return None
    return next((folder.name for folder in folders if (folder / path.name).is_file()), None)


def _is_markable(tag: str) -> bool:
    """A ``<markable>`` element, in a level's namespace or none (not ``<xmarkable>``, nor a
    name with an invisible character before it, which XML allows in names)."""
    return tag == "markable" or (tag.startswith("{") and tag.endswith("}markable"))
