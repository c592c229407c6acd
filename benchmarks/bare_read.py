"""The bare read: the least a plain Python script does to use a coreference file, the
baseline that ``bench_bare.py`` holds each command against.

    python benchmarks/bare_read.py FORMAT=PATH [FORMAT=PATH ...]

reads each file (or directory) and prints how many mentions (or, for the formats where
no pairing is done, elements or rows) it found. No model, no checks, no metric: only
the parse. What it does, by format:

* ``conll`` (CoNLL-2012): every line split into its tab columns; the brackets of the
  last column paired into (token, token, entity) mentions, one stack per entity.
* ``conllu`` (CorefUD): every token line split into its ten columns, MISC split at
  ``|``; the ``Entity=`` brackets paired, one stack per entity id.
* ``ua`` (CoNLL-UA): every token line split into its columns; the IDENTITY column's
  brackets (``(EntityID=…`` and ``)``) paired on one stack.
* ``jsonlines``, ``preco``, ``wl-coref``: ``json.loads`` of every line, then every
  cluster's spans made into tuples (``clusters``, ``mention_clusters``,
  ``span_clusters``).
* ``raf``, ``mate``, ``xmi`` (a zip of XMI files), ``mmax2`` (a project directory: every
  ``.xml`` and ``.mmax`` file in it): each XML file parsed into a tree by the standard
  library's ElementTree (expat, in C) and every element visited once.
* ``muc`` (SGML): every tag found by one regular expression, ``<COREF>`` paired with its
  ``</COREF>`` on a stack.
* ``brat``, ``litbank-tsv`` (directories of ``.ann`` + ``.txt``): each ``.txt`` read, each
  ``.ann`` line split into its tab columns.
* ``webanno-tsv`` (a zip of TSV files, or one TSV): every line split into its tab
  columns, each column's values split at ``|``.
* ``hf-datasets``: a ``save_to_disk`` directory (what corefio writes), each Arrow file
  read with ``pyarrow.ipc.open_stream(...).read_all().to_pylist()``; a Parquet file with
  ``pyarrow.parquet.read_table(...).to_pylist()``.
* ``spacy`` (DocBin): the bytes unzipped and unpacked (``srsly.msgpack_loads``).
* ``html`` (the view): the text read and split at every ``<``.
"""

from __future__ import annotations

import json
import re
import sys
import zipfile
from pathlib import Path

_CONLL = re.compile(r"\(([^()|]+)\)|\(([^()|]+)|([^()|]+)\)")
_ENTITY = re.compile(r"\(([^()\-]+)[^()]*(\))?|([^()\-]+)\)")
_UA = re.compile(r"\(([^()]*)(\))?|\)")
_MUC = re.compile(r"<(/?)COREF\b[^>]*>", re.I)


def conll(path: Path) -> int:
    n = 0
    mentions: list = []
    stacks: dict[str, list[int]] = {}
    t = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#begin"):
                stacks, t = {}, 0
            elif line.startswith("#end"):
                n += len(mentions)
                mentions = []
            elif line != "\n":
                cell = line.rstrip("\n").split("\t")[-1]
                if cell != "-":
                    for single, opener, closer in _CONLL.findall(cell):
                        if single:
                            mentions.append((t, t, single))
                        elif opener:
                            stacks.setdefault(opener, []).append(t)
                        else:
                            mentions.append((stacks[closer].pop(), t, closer))
                t += 1
    return n + len(mentions)


def conllu(path: Path) -> int:
    mentions = []
    stacks: dict[str, list[int]] = {}
    t = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                if line.startswith("# newdoc"):
                    stacks, t = {}, 0
                continue
            if line == "\n":
                continue
            cols = line.rstrip("\n").split("\t")
            if "-" in cols[0]:
                continue
            for item in cols[9].split("|"):
                if item.startswith("Entity="):
                    for eid, closed, closer in _ENTITY.findall(item[7:]):
                        if eid and closed:
                            mentions.append((t, t, eid))
                        elif eid:
                            stacks.setdefault(eid, []).append(t)
                        else:
                            mentions.append((stacks[closer].pop(), t, closer))
            t += 1
    return len(mentions)


def ua(path: Path) -> int:
    mentions = []
    stack: list[tuple[int, str]] = []
    identity = 10
    t = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#"):
                if line.startswith("# global.columns"):
                    identity = line.split("=", 1)[1].split().index("IDENTITY")
                elif line.startswith("# newdoc"):
                    stack, t = [], 0
                continue
            if line == "\n":
                continue
            cell = line.rstrip("\n").split("\t")[identity]
            if cell != "_":
                for attributes, closed in _UA.findall(cell):
                    if attributes and closed:
                        mentions.append((t, t, attributes))
                    elif attributes:
                        stack.append((t, attributes))
                    else:
                        start, attributes = stack.pop()
                        mentions.append((start, t, attributes))
            t += 1
    return len(mentions)


def _json_lines(field: str):
    def read(path: Path) -> int:
        n = 0
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    for cluster in json.loads(line)[field]:
                        n += len([tuple(span) for span in cluster])
        return n
    return read


def _xml_files(path: Path) -> int:
    import xml.etree.ElementTree as ET

    n = 0
    if path.is_dir():
        for file in sorted(path.rglob("*")):
            if file.suffix in (".xml", ".mmax"):
                n += sum(1 for _ in ET.parse(file).getroot().iter())
    elif zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            for name in z.namelist():
                if name.endswith((".xmi", ".xml")):
                    n += sum(1 for _ in ET.fromstring(z.read(name)).iter())
    else:
        n += sum(1 for _ in ET.parse(path).getroot().iter())
    return n


def muc(path: Path) -> int:
    text = path.read_text(encoding="utf-8")
    stack, mentions = [], []
    for m in _MUC.finditer(text):
        if m.group(1):
            mentions.append((stack.pop(), m.start()))
        else:
            stack.append(m.end())
    return len(mentions)


def standoff(path: Path) -> int:
    n = 0
    files = sorted(path.iterdir()) if path.is_dir() else [path, path.with_suffix(".txt")]
    for file in files:
        if file.suffix == ".txt":
            file.read_text(encoding="utf-8")
        elif file.suffix == ".ann":
            with open(file, encoding="utf-8") as f:
                n += len([line.rstrip("\n").split("\t") for line in f])
    return n


def webanno(path: Path) -> int:
    def lines(text: str) -> int:
        return len([[cell.split("|") for cell in line.split("\t")] for line in text.splitlines()
                    if line and not line.startswith("#")])

    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as z:
            return sum(lines(z.read(name).decode("utf-8")) for name in z.namelist() if name.endswith(".tsv"))
    return lines(path.read_text(encoding="utf-8"))


def parquet(path: Path) -> int:
    import pyarrow as pa
    import pyarrow.parquet as pq

    if path.is_dir():  # a save_to_disk directory: Arrow stream files
        n = 0
        for file in sorted(path.rglob("*.arrow")):
            with open(file, "rb") as f:
                n += len(pa.ipc.open_stream(f).read_all().to_pylist())
        return n
    return len(pq.read_table(path).to_pylist())


def spacy(path: Path) -> int:
    import zlib

    import srsly

    return len(srsly.msgpack_loads(zlib.decompress(path.read_bytes()))["tokens"])


def html(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").split("<"))


READERS = {
    "conll": conll, "conllu": conllu, "ua": ua,
    "jsonlines": _json_lines("clusters"), "preco": _json_lines("mention_clusters"),
    "wl-coref": _json_lines("span_clusters"),
    "raf": _xml_files, "mate": _xml_files, "xmi": _xml_files, "mmax2": _xml_files,
    "muc": muc, "brat": standoff, "litbank-tsv": standoff, "webanno-tsv": webanno,
    "hf-datasets": parquet, "spacy": spacy, "html": html,
}


def main(argv: list[str]) -> None:
    for item in argv:
        fmt, _, path = item.partition("=")
        print(fmt, READERS[fmt](Path(path)))


if __name__ == "__main__":
    main(sys.argv[1:])
