"""Derive the MMAX2 project "gum multi-level, mmax2" from three GUM documents of
../gum-genres/conllu (run from this folder; needs udapi).

Written for the test data, independently of corefio: a three-level project whose file
names have spaces and commas, as MMAX2 projects made by hand often do.

* ``coref``: every CorefUD mention (discontinuous ones as comma lists of ranges), its
  entity as ``coref_set`` (``set_<entity>``), ``etype`` and ``infstat``, and a
  ``bridging`` pointer to the nearest earlier mention of the bridged entity (its first
  mention when none is earlier). Split antecedents are not carried over.
* ``named``: one more markable for each mention of a person, place or organization,
  with its ``etype`` (a level of its own, outside coreference).
* ``sentence``: one markable per sentence, tiling the words.
"""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

from udapi.core.document import Document

DOCUMENTS = {"GUM_news_stampede": "GUM news, stampede", "GUM_voyage_coron": "GUM voyage, coron",
             "GUM_bio_hadid": "GUM bio, hadid"}
PROJECT = Path("gum multi-level, mmax2")
NAMED = {"person", "place", "organization"}
LEVELS = ("coref", "named", "sentence")
SCHEMES = {
    "coref": [("coref_set", "markable_set"), ("bridging", "markable_pointer"), ("etype", "freetext"),
              ("infstat", "freetext")],
    "named": [("etype", "freetext")],
    "sentence": [],
}
HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'


def ranges(numbers: list[int]) -> str:
    parts, start = [], numbers[0]
    for a, b in zip(numbers, numbers[1:] + [None]):
        if b != a + 1:
            parts.append(f"word_{start}" if start == a else f"word_{start}..word_{a}")
            start = b
    return ",".join(parts)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def markables_file(level: str, rows: list[str]) -> str:
    return (HEAD + '<!DOCTYPE markables SYSTEM "markables.dtd">\n'
            f'<markables xmlns="www.eml.org/NameSpaces/{level}">\n' + "".join(rows) + "</markables>\n")


def derive(source: Path, name: str) -> None:
    doc = Document(str(source))
    number: dict[int, int] = {}  # id(node) -> word number
    words, sentences = [], []
    for bundle in doc.bundles:
        tree = bundle.get_tree()
        first = len(words) + 1
        for node in tree.descendants_and_empty:
            words.append(node.form)
            number[id(node)] = len(words)
        sentences.append((first, len(words)))
    mentions = sorted((m for e in doc.coref_entities for m in e.mentions),
                      key=lambda m: (number[id(m.words[0])], -number[id(m.words[-1])]))
    ident = {id(m): f"markable_{k}" for k, m in enumerate(mentions, 1)}
    coref, named = [], []
    for m in mentions:
        span = ranges(sorted(number[id(w)] for w in m.words))
        start = number[id(m.words[0])]
        targets = []
        for link in m.bridging:
            candidates = sorted(link.target.mentions, key=lambda t: number[id(t.words[0])])
            earlier = [t for t in candidates if number[id(t.words[0])] < start]
            targets.append(ident[id((earlier or candidates)[-1 if earlier else 0])])
        etype = m.entity.etype or ""
        infstat = m.other.get("infstat", "") if hasattr(m, "other") else ""
        coref.append(f'<markable id="{ident[id(m)]}" span="{span}" mmax_level="coref" '
                     f'coref_set="set_{m.entity.eid}" bridging="{";".join(targets) or "empty"}" '
                     f"etype={quoteattr(etype)} infstat={quoteattr(str(infstat))}/>\n")
        if etype in NAMED:
            named.append(f'<markable id="markable_{len(named) + 1}" span="{span}" mmax_level="named" '
                         f"etype={quoteattr(etype)}/>\n")
    sentence_rows = [f'<markable id="markable_{k}" span="{ranges(list(range(a, b + 1)))}" mmax_level="sentence"/>\n'
                     for k, (a, b) in enumerate(sentences, 1)]
    write(PROJECT / "Basedata" / f"{name}_words.xml",
          HEAD + '<!DOCTYPE words SYSTEM "words.dtd">\n<words>\n'
          + "".join(f'<word id="word_{k}">{escape(w)}</word>\n' for k, w in enumerate(words, 1)) + "</words>\n")
    for level, rows in zip(LEVELS, (coref, named, sentence_rows)):
        write(PROJECT / "Markables" / f"{name}_{level}_level.xml", markables_file(level, rows))
    write(PROJECT / f"{name}.mmax", HEAD + f"<mmax_project>\n<words>{escape(name)}_words.xml</words>\n"
          "<keyactions></keyactions>\n<gestures></gestures>\n</mmax_project>\n")


def project_files() -> None:
    levels = "".join(f'<level name="{lv}" schemefile="{lv}_scheme.xml" customization_file="{lv}_customization.xml">'
                     f"$_{lv}_level.xml</level>\n" for lv in LEVELS)
    write(PROJECT / "common_paths.xml",
          HEAD + "<!DOCTYPE common_paths>\n<common_paths>\n<basedata_path>Basedata/</basedata_path>\n"
          "<scheme_path>Schemes/</scheme_path>\n<style_path>Styles/</style_path>\n"
          "<customization_path>Customizations/</customization_path>\n<markable_path>Markables/</markable_path>\n"
          "<views>\n<stylesheet>plain.xsl</stylesheet>\n</views>\n<annotations>\n" + levels
          + "</annotations>\n</common_paths>\n")
    for level, attributes in SCHEMES.items():
        body = "".join(f'<attribute id="{level}_{name}" name="{name}" type="{kind}">\n'
                       f'  <value id="{level}_{name}_value" name=""/>\n</attribute>\n' for name, kind in attributes)
        write(PROJECT / "Schemes" / f"{level}_scheme.xml", HEAD + "<annotationscheme>\n" + body + "</annotationscheme>\n")
        write(PROJECT / "Customizations" / f"{level}_customization.xml", HEAD + "<customization>\n</customization>\n")
    write(PROJECT / "Basedata" / "words.dtd",
          "<!ELEMENT words (word*)>\n<!ELEMENT word (#PCDATA)>\n<!ATTLIST word id ID #REQUIRED>\n")
    write(PROJECT / "Markables" / "markables.dtd",
          "<!ELEMENT markables (markable*)>\n<!ATTLIST markable id ID #REQUIRED>\n"
          "<!ATTLIST markables xmlns CDATA #IMPLIED>\n")
    write(PROJECT / "Styles" / "plain.xsl",
          HEAD + '<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"\n'
          '  xmlns:mmax="org.eml.MMAX2.discourse.MMAX2DiscourseLoader">\n'
          '<xsl:output method="text" indent="no" omit-xml-declaration="yes"/>\n'
          '<xsl:template match="word"><xsl:value-of select="mmax:registerDiscourseElement(@id)"/>'
          '<xsl:apply-templates select="mmax:getStartedMarkables(@id)" mode="opening"/>'
          '<xsl:value-of select="mmax:setDiscourseElementStart()"/><xsl:apply-templates/>'
          '<xsl:value-of select="mmax:setDiscourseElementEnd()"/>'
          '<xsl:apply-templates select="mmax:getEndedMarkables(@id)" mode="closing"/>'
          '<xsl:text> </xsl:text></xsl:template>\n</xsl:stylesheet>\n')


if __name__ == "__main__":
    project_files()
    for stem, name in DOCUMENTS.items():
        derive(Path("../gum-genres/conllu") / f"{stem}.conllu", name)
