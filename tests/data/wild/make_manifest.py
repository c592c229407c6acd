"""Build tests/data/wild/MANIFEST.md from every tests/data/wild/<family>/manifest.json.

Run ``python tests/data/wild/make_manifest.py`` after adding or changing a manifest;
``--check`` only says whether MANIFEST.md is up to date (exit 1 when not).
tests/test_wild.py imports :func:`entries` and :func:`render` from here and checks that
MANIFEST.md is what :func:`render` makes, that every file listed exists and that every
file present is listed.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "MANIFEST.md"
#: the fields every entry has (README.md of this folder)
REQUIRED = ("path", "format", "repo", "commit", "source_path", "licence", "notes")
#: formats that are a shape of another one (counted with it)
SHAPE_OF = {"wl-coref": "jsonlines"}
#: the goal: real files, repositories, independent sources per format
GOAL_FILES, GOAL_REPOSITORIES, GOAL_SOURCES_PER_FORMAT = 40, 15, 3
#: formats that cannot reach three independent public sources: format -> (the number of
#: independent sources the goal asks of it, why no more). The goal test asks that number
#: of them and three of every other format. The reasons name what was searched
#: (November 2026) and what was found there.
FEWER_SOURCES: dict[str, tuple[int, str]] = {
    "litbank-tsv": (1, "LitBank's own format (Bamman, Lewke and Mansoor, 2020, An Annotated Dataset of "
                       "Coreference in English Literature): its coref/tsv files are in dbamman/litbank only; "
                       "dbamman/lrec2020-coref has byte-identical copies (data/original/tsv), "
                       "lattice-8094/fr-litbank publishes brat and SACR files, and no other tool writes it"),
    "muc": (1, "the MUC-6 and MUC-7 coreference corpora are LDC's (LDC2003T13, LDC2001T02); the public SGML "
               "found are OpenNLP's reader tests (apache/opennlp: parsertest1.sgml, and LDC2003T13.sgm, Lorem "
               "ipsum in the LDC layout without COREF) and MUC-7 documents themselves (JULIELab/jcore-base's "
               "MUC-7 reader tests: LDC2001T02 text and annotation, left out as LDC data); searches for COREF "
               "ID markup otherwise find code that reads or writes it (course projects, a Thrift server around "
               "Stanford's dcoref answering one sentence at a time, amir-zeldes/xrenner, whose example_out.sgml "
               "is its own SGML), not documents under a licence"),
    "preco": (1, "PreCo (Chen et al., 2018, PreCo: A Large-scale Dataset in Preschool Vocabulary for Coreference "
                 "Resolution) is distributed from its authors' site: the one copy in a repository is "
                 "allenai/allennlp-models' test fixture; ShadmanRohan/BenCoref describes the layout but stores "
                 "pandas column JSON and has no licence; shtoshni/fast-coref, ianporada/coref-data and "
                 "SapienzaNLP/maverick-coref read PreCo and hold none of it"),
    "xmi": (2, "UIMA XMI with DKPro Core coreference chains: INCEpTION's TSV suite (its copies in dkpro/dkpro-core "
               "are the same blobs) and a WebAnno export among nilsreiter/CorefAnnotator's tests. Searched "
               "without result: dkpro/dkpro-cassis tests (no coreference), dkpro-core's io-xmi tests (the "
               "namespace only), INCEpTION's example projects (inception-project.github.io: NER, concept "
               "linking, CORLI), webanno/webanno, GillesJ/sentivent_webannoparser (custom event layers, no "
               "licence), JULIELab/jcore-base (JCoRe types), hltfbk/Excitement-Open-Platform (RTE pairs "
               "without coreference), CorefAnnotator's other files (its own Entity and Mention types)"),
    "mmax2": (1, "the public MMAX2 coreference projects are under a non-commercial licence or none (Potsdam "
                 "Commentary Corpus, yuliagrishina/corefpro, chardmeier/parcor-full, nlpAThits/MMAX2-Showcase, "
                 "nlpAThits/ISNotes1.0, szecsenyi/topicalization; mmax2/README.md lists them). Two permissively "
                 "licensed projects were found: JULIELab/jcore-base's mmax_26000 (BSD-2-Clause, proteins) is "
                 "here; WladimirSidorenko/PotTS (MIT, sentiment with anaphref pointers) is tested from "
                 "tests/data/mmax2/potts and waits outside the corpus, since its conversions to formats without "
                 "layers meet two harness matters that are not MMAX2's (tests/data/mmax2/README.md)"),
    "mate": (0, "the XML of the MATE workbench (Poesio, Bruneseaux and Romary, 1999, The MATE meta-scheme for "
                "coreference in dialogues in multiple languages): no file in its markup (de elements, link "
                "elements with anchor hrefs) was found in public code, and the corpora annotated with it "
                "(GNOME, VENEX) were never published in a repository"),
    "ecbplus": (2, "ECB+ (Cybulska and Vossen, 2014, Using a sledgehammer to crack a nut? Lexical diversity and "
                   "event coreference resolution) is one release under CC BY 3.0, published zipped by CLTL "
                   "(cltl/ecbPlus: ECB+_LREC2014/ECB+.zip; tommasoc80/EventStoryLine holds the same zip), a large "
                   "file absent from the snapshots this project can reach; two repositories hold its XML files "
                   "unzipped, tommasoc80/EventStoryLine (ECB+_LREC2014/ECB+) and cltl/ECB-parser (ECB+), the same "
                   "blobs of that release. EventStoryLine's annotated_data (ESC v0.9) is CAT XML with TLINK, "
                   "PLOT_LINK and LOCATION_LINK relations and no coreference; the CDCR repositories "
                   "(shanybar/event_entity_coref_ecb_plus, ariecattan/coref, AlonEirew/cross-doc-event-coref, "
                   "UKPLab/cdcr-beyond-corpus-tailored, anastasia-zhukova/Diverse_CDCR_datasets, "
                   "ahmeshaf/lemma_ce_coref, aviclu/CDLM) download ECB+ and commit their own conversions of it"),
    "cdcr-json": (0, "Cattan et al.'s split files (<split>.json with <split>_events, _entities and _mixed.json, "
                     "written by ariecattan/coref's get_ecb_data.py into data/ecb/mentions) are committed nowhere "
                     "found: ariecattan/coref leaves that folder out (its history holds an earlier layout, "
                     "ecb_data/*_gold_mentions.json beside *_text.txt, and MEANTIME files), ariecattan/cross_encoder "
                     "holds code only, aviclu/CDLM's attention_analysis/ecb_data/ecb_qual_2k_*.json are large files "
                     "absent from the snapshots, ahmeshaf/lemma_ce_coref keeps pickles, and "
                     "shanybar/event_entity_coref_ecb_plus and IntelLabs/nlp-architect hold Barhom et al.'s and "
                     "nlp-architect's mention JSON (tokens_numbers or tokens_number with a corpus text file or none: "
                     "another layout)"),
    "wec": (2, "WEC-Eng (Eirew, Cattan and Dagan, 2021, WEC: Deriving a large-scale cross-document event "
               "coreference dataset from Wikipedia) is distributed from the Hugging Face Hub, which this project "
               "cannot reach, and AlonEirew/extract-wec, the tool that makes it, holds code only; the WEC shape "
               "(mention_context, tokens_number, coref_chain) is in AlonEirew/cross-doc-event-coref (tests/test_res, "
               "and ECB+ in that shape in datasets/ecb.zip) and anastasia-zhukova/Diverse_CDCR_datasets; "
               "IntelLabs/nlp-architect's datasets/ecb/*_mentions.json and Ichor1d/ANLP_Project's "
               "data/ecb+/mentions/*.json have the mention fields without mention_context (nlp-architect's shape, "
               "and the unified CDCR one whose CoNLL file ANLP_Project holds as a large file absent from the "
               "snapshots)"),
    "raf": (0, "corefio's own pivot XML, after the model of Salmon-Alt and Romary (2004, Towards a Reference "
               "Annotation Framework): no corpus or tool outside corefio writes it"),
    "spacy": (0, "DocBin files with coreference span groups: the .spacy files public repositories hold "
                 "(corpus/dev.spacy or data/dev.spacy in some sixty, emiltj/DaCy-3.0.0 and "
                 "centre-for-humanities-computing/odyCy among them) belong to NER, text classification, span "
                 "categorisation, tagging and parsing projects, none to coreference; explosion/projects and "
                 "igormorgado/spacy-coref build theirs from OntoNotes (LDC) when run, and "
                 "explosion/spacy-experimental's tests build documents in code"),
    "hf-datasets": (0, "Arrow and Parquet coreference datasets live on the Hugging Face Hub (coref-data/*, "
                       "conll2012_ontonotesv5), which this project cannot reach; repositories hold the scripts "
                       "that make them (ianporada/coref-data), not the files"),
}


@dataclass(frozen=True)
class Entry:
    """One real file (or directory) of a family's manifest."""

    family: str
    path: str
    format: str
    repo: str
    commit: str
    source_path: str
    licence: str
    notes: str
    judge_counts: dict = field(default_factory=dict, hash=False, compare=False)
    #: why the file is not valid in its format (every reader and validator must refuse it)
    invalid: str | None = None

    @property
    def id(self) -> str:
        return f"{self.family}/{self.path}"

    @property
    def file(self) -> Path:
        return HERE / self.family / self.path

    @property
    def base_format(self) -> str:
        """The format without its variant (``jsonlines`` of ``jsonlines:wl``); a shape of
        another format counts as that one (:data:`SHAPE_OF`)."""
        name = self.format.partition(":")[0]
        return SHAPE_OF.get(name, name)


def entries(root: Path = HERE) -> list[Entry]:
    """Every entry of every ``<family>/manifest.json`` under ``root``, in path order; a
    malformed manifest raises ``ValueError`` naming it."""
    found = []
    for manifest in sorted(root.glob("*/manifest.json")):
        family = manifest.parent.name
        try:
            items = json.loads(manifest.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ValueError(f"{manifest}: not JSON ({exc})") from None
        if not isinstance(items, list):
            raise ValueError(f"{manifest}: a list of entries is expected")
        for k, item in enumerate(items):
            missing = [name for name in REQUIRED if not isinstance(item.get(name), str) or not item.get(name)]
            if missing:
                raise ValueError(f"{manifest}: entry {k + 1} lacks {', '.join(missing)}")
            extra = {name: item[name] for name in ("judge_counts", "invalid") if name in item}
            found.append(Entry(family, *(item[name] for name in REQUIRED), **extra))
    return found


def readable_formats() -> list[str]:
    """Every format corefio reads (its registry), variants aside."""
    import corefio

    return sorted(spec.name for spec in corefio.all_formats() if spec.can_read and spec.name not in SHAPE_OF)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def summary(found: list[Entry]) -> dict:
    """Files and distinct repositories per format (a variant counts as its format), the
    distinct repositories in all."""
    files: dict[str, int] = dict.fromkeys(readable_formats(), 0)
    repos: dict[str, set[str]] = {name: set() for name in files}
    for entry in found:
        files[entry.base_format] = files.get(entry.base_format, 0) + 1
        repos.setdefault(entry.base_format, set()).add(entry.repo.lower())
    return {"files": dict(files), "repositories": {k: sorted(v) for k, v in repos.items()},
            "all_repositories": sorted({e.repo.lower() for e in found})}


def render(found: list[Entry] | None = None) -> str:
    """The text of MANIFEST.md."""
    found = entries() if found is None else found
    counted = summary(found)
    lines = ["# Real files under tests/data/wild",
             "",
             "Made by `python tests/data/wild/make_manifest.py` from every `<family>/manifest.json`;",
             "do not edit by hand (tests/test_wild.py checks that it is up to date).",
             "",
             f"{len(found)} files from {len(counted['all_repositories'])} repositories.",
             "",
             "## Files per format",
             "",
             "| format | files | repositories | sources |",
             "| --- | ---: | ---: | --- |"]
    for name in sorted(counted["files"]):
        repos = counted["repositories"][name]
        lines.append(f"| {name} | {counted['files'][name]} | {len(repos)} | {_cell(', '.join(repos))} |")
    lines += ["", f"Formats that cannot reach {GOAL_SOURCES_PER_FORMAT} independent public sources (the number "
              "the goal asks of each instead, then why):", ""]
    lines += [f"- {name} ({goal}): {why}" for name, (goal, why) in sorted(FEWER_SOURCES.items())]
    lines += ["",
              "## Files",
              "",
              "| path | format | source | source path | licence |",
              "| --- | --- | --- | --- | --- |"]
    for entry in found:
        lines.append(f"| {_cell(entry.id)} | {entry.format} | {_cell(entry.repo)} @ {entry.commit} "
                     f"| {_cell(entry.source_path)} | {_cell(entry.licence)} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    text = render()
    if "--check" in argv:
        up_to_date = MANIFEST.exists() and MANIFEST.read_text(encoding="utf-8") == text
        print("MANIFEST.md is up to date" if up_to_date else "MANIFEST.md is out of date: run make_manifest.py")
        return 0 if up_to_date else 1
    MANIFEST.write_text(text, encoding="utf-8")
    print(f"wrote {MANIFEST}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
