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
from collections import defaultdict
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
#: formats that cannot reach three independent public sources, and why (the goal test
#: accepts fewer than three for them)
FEWER_SOURCES = {
    "raf": "corefio's own pivot XML, after the model of Salmon-Alt and Romary (2004, Towards a Reference "
           "Annotation Framework); no public corpus is distributed in it",
    "spacy": "a binary DocBin of spaCy's coreference components; public repositories hold models, "
             "rarely annotated DocBin files",
    "hf-datasets": "datasets live on the Hugging Face Hub, which this project cannot reach; copies in "
                   "GitHub repositories are few",
    "mate": "the XML of the MATE workbench (Poesio, Bruneseaux and Romary, 1999, The MATE meta-scheme for "
            "coreference in dialogues in multiple languages); few public files survive",
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
    lines += ["", f"Formats that cannot reach {GOAL_SOURCES_PER_FORMAT} independent public sources:", ""]
    lines += [f"- {name}: {why}" for name, why in sorted(FEWER_SOURCES.items())]
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
