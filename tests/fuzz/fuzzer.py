"""A mutation fuzzer over every registered reader (issue 13).

Seeds are the files of ``tests/data/`` and ``samples/`` whose format the registry
recognises (a format with few seed files also gets seeds converted from other formats'
files by corefio's own writers). Each input is a seed after one to four mutations
(:mod:`tests.fuzz.mutations`); every eighth input is a seed as it is, until each was
tried. Input ``i`` of format ``f`` under campaign seed ``s`` depends on ``(s, f, i)`` and
on the seed files present only, so a campaign is reproducible and any input can be
replayed alone (``python -m tests.fuzz --seed S --replay f:i``).

A directory format (an MMAX2 project) has one seed per file of each seed project that
its reader parses: the mutations change that one file, and the checks read a copy of the
project with the changed file in place (:func:`materialise`).

Inputs are checked in forked children (:class:`Pool`), so that a hang, a crash or a
memory blow-up costs one input, not the campaign. The oracle:

``exception``
    only :class:`corefio.errors.CorefioError` may escape ``read``, ``dumps`` and
    ``score``;
``location``
    an error refusing the input names the file, and a line when the format is
    line-based (every format that is not XML);
``hang``
    no step (read, write, re-read, one scoring) takes more than 5 s;
``slow``
    no step uses more than 2 s of CPU (the inputs are at most 200 KB: a reader that
    needs more is quadratic somewhere, the way the repair lexer once was);
``count``
    for an MMAX2 project, the markables of its level files, counted with a regular
    expression (not with corefio's reader), are all read, unless the reader warned about
    the project (a repair, a markable it could not place ...);
``validate``
    ``corefio.validate`` agrees with the reader: it finds no error only where ``read``
    accepts the input without an error-level diagnostic, and it finds one wherever
    ``read`` refuses; an error where ``read`` accepts must come with a warning of the
    reader's (a repair, say);
``memory``
    the child's peak RSS stays below a limit (and its address space is capped, so a
    blow-up ends in ``MemoryError`` rather than in the machine's OOM killer);
``crash``
    the child dies from a signal or exits without a result;
``roundtrip``
    what the reader accepts, the same format's writer writes and the reader reads back
    to the same content (document labels, word forms, markable spans, chains as sets of
    spans; ids ignored), unless the writer reported a loss that can explain the change;
    the output must be readable in any case;
``equivalence``
    after mutations that keep the meaning of the text (other line ends, a UTF-8 BOM,
    UTF-16 or UTF-32 with a BOM), the reader refuses the input or reads the same content
    as from its plain form (UTF-8 without BOM, LF line ends);
``score``
    ``corefio.score(path, path)`` equals ``corefio.score(read(path), read(path))`` (corpus
    values of ``to_dict()``), and the same with the original seed as response; either both
    give numbers or both refuse with a ``CorefioError``.

A failing input is minimised (delta debugging on lines, then on bytes) while it keeps
failing the same way (same *signature*: format, check, kind, and the step for the
checks where the step matters).
"""

from __future__ import annotations

import codecs
import gc
import hashlib
import json
import os
import random
import re
import resource
import select
import shutil
import signal
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .mutations import EQUIVALENT, Mutation, mutate, mutations_for

REPO = Path(__file__).resolve().parents[2]
SEED_ROOTS = (REPO / "tests" / "data", REPO / "samples")
#: the real files of the wild corpus: seeds as their ``manifest.json`` files list them
#: (with the format each entry names), not found by guessing formats
WILD = REPO / "tests" / "data" / "wild"
#: where minimised failing inputs are kept
REGRESSIONS = REPO / "tests" / "data" / "regressions" / "fuzz"
#: a step taking longer than this is a hang
STEP_TIMEOUT = 5.0
#: CPU seconds a step may use before it is ``slow``
SLOW_STEP = 2.0
#: formats whose annotations point at characters of the file, line ends included: another
#: kind of line end is another text, not the same one
LINE_ENDS_ARE_CONTENT = frozenset({"brat"})
#: validate's findings a reader need not make: the XSDs' stricter profile of RAF and MATE
#: (an unknown attribute, a word number out of range), which the readers do not check
#: (a known gap: they ignore unknown attributes without a word)
VALIDATE_ONLY = frozenset({"schema.invalid"})
#: peak RSS a child may reach above the parent's, in MB
MEMORY_LIMIT_MB = 768
#: seed files larger than this are not used (they slow the campaign down)
MAX_SEED_BYTES = 200_000
#: a format with fewer seed files gets converted seeds as well
MIN_FILE_SEEDS = 5
#: losses that cannot explain a change in labels, forms, markable spans or chains
CONTENT_NEUTRAL_LOSSES = frozenset({
    "link-structure", "link-types", "multi-target-links", "markable-attributes", "entity-attributes",
    "link-attributes", "heads", "min", "optional", "sets", "token-attributes", "token-ids",
    "whitespace", "offsets", "regions", "sentences", "sentence-attributes", "metadata", "schemes",
    "entity-ids",
})




@dataclass(frozen=True)
class Traits:
    """What the fuzzer knows of a format: which mutations fit its inputs, and whether a
    refusal must name a line."""

    #: mutation kinds (:mod:`tests.fuzz.mutations`): ``any`` (bytes and lines), ``xml``,
    #: ``json``, ``mmax2``, ``zip`` (a member of a zip archive mutated), ``arrow`` (a value
    #: of an Arrow or parquet table), ``docbin`` (a field of a spaCy DocBin), ``bytes``
    #: (byte-level only: for binary files, where lines and encodings mean nothing)
    kinds: frozenset[str]
    #: a refusal names a line (every text format that is not XML or one JSON document)
    line_based: bool
    #: a project of several files (a directory): the kinds of each file by its suffix
    members: tuple[tuple[str, frozenset[str]], ...] = ()

    def kinds_of(self, member: str | None) -> frozenset[str]:
        if member is not None:
            for suffix, kinds in self.members:
                if member.lower().endswith(suffix):
                    return kinds
        return self.kinds


_TEXT, _XML, _JSON = frozenset({"any"}), frozenset({"any", "xml"}), frozenset({"any", "json"})
_BINARY = frozenset({"bytes"})

#: every format of the registry, with its traits. A test asserts that its names are the
#: registry's: a new format cannot be left out of the campaigns.
FORMATS: dict[str, Traits] = {
    "conll": Traits(_TEXT, True),
    "conllu": Traits(_TEXT, True),
    "jsonlines": Traits(_JSON, True),
    "wl-coref": Traits(_JSON, True),
    "preco": Traits(_JSON, True),
    "mate": Traits(_XML, False),
    "mmax2": Traits(_XML | {"mmax2"}, False),
    "muc": Traits(_XML, False),
    "raf": Traits(_XML, False),
    "ua": Traits(_TEXT, True),
    "xmi": Traits(_XML | {"zip"}, False),
    "brat": Traits(_TEXT, True),
    "litbank-tsv": Traits(_TEXT, True),
    "webanno-tsv": Traits(_TEXT, True),
    "corenlp": Traits(_JSON | _XML, False),
    "hf-datasets": Traits(_BINARY | {"arrow"}, False, ((".json", _JSON), (".arrow", _BINARY | {"arrow"}),
                                                       (".parquet", _BINARY | {"arrow"}))),
    "spacy": Traits(_BINARY | {"docbin"}, False),
    # cross-document corpora: ECB+'s folder of XML files (and its CSV of validated
    # sentences), the meta-document CoNLL files, the split JSON files, WEC's mention list
    "ecbplus": Traits(_XML, False, ((".xml", _XML), (".csv", _TEXT))),
    "cdcr-conll": Traits(_TEXT, True),
    "cdcr-json": Traits(_JSON, False, ((".json", _JSON), (".conll", _TEXT))),
    "wec": Traits(_JSON, False),
}


# ---------------------------------------------------------------------------------------------
# targets and seeds
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Seed:
    """A seed file, or one file (``member``) of a seed project for a directory format:
    ``data`` is what gets mutated, ``project`` the whole project it belongs to."""

    path: Path
    data: bytes
    #: the file it was converted from, for converted seeds
    converted_from: str | None = None
    #: directory formats: every file of the project, by path relative to ``path``
    project: dict[str, bytes] | None = field(default=None, compare=False)
    #: directory formats: which file of ``project`` ``data`` is
    member: str | None = None

    @property
    def label(self) -> str:
        shown = _relative(self.path) if self.converted_from is None else f"{self.converted_from} (converted)"
        return shown if self.member is None else f"{shown} [{self.member}]"


@dataclass
class Target:
    """A format under test."""

    name: str
    extension: str
    xml: bool
    json: bool
    writable: bool
    seeds: list[Seed] = field(default_factory=list)
    #: a directory format (an MMAX2 project): inputs are seed projects with one file mutated
    directory: bool = False

    @property
    def traits(self) -> Traits:
        known = FORMATS.get(self.name)
        if known is not None:
            return known
        # a format the table does not know (a toy format of the self-tests): told from
        # its extensions
        kinds = {"any"} | ({"xml"} if self.xml else set()) | ({"json"} if self.json else set())
        return Traits(frozenset(kinds), not self.xml)

    @property
    def line_based(self) -> bool:
        return self.traits.line_based

    @property
    def mutations(self) -> list[Mutation]:
        return mutations_for(set(self.traits.kinds))

    def mutations_of(self, seed: Seed) -> list[Mutation]:
        """The mutations for ``seed`` (a project's file: by its suffix; a zip archive:
        its members mutated, or its bytes)."""
        kinds = set(self.traits.kinds_of(seed.member))
        if "zip" in kinds:
            kinds = {"zip", "bytes"} if seed.data.startswith(b"PK\x03\x04") else kinds - {"zip"}
        return mutations_for(kinds)


def _relative(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(REPO))
    except ValueError:
        return str(path)


def _is_xml(spec: Any) -> bool:
    return any(ext.endswith(".xml") for ext in tuple(spec.extensions) + tuple(spec.ambiguous_extensions))


def _is_json(spec: Any) -> bool:
    return any(".json" in ext for ext in spec.extensions)


def discover(formats: Sequence[str] | None, workdir: Path, log: Callable[[str], None],
             extra_seeds: dict[str, list[Path]] | None = None, convert: bool = True) -> list[Target]:
    """The formats to fuzz, each with its seeds; ``log`` gets what is skipped and why."""
    from corefio.formats import registry

    specs = [s for s in registry.all_formats() if s.can_read]
    wanted = {s.name for s in specs}
    if formats:
        for name in formats:
            if name not in wanted:
                log(f"{name}: not a registered readable format (known: {', '.join(sorted(wanted))})")
        wanted &= set(formats)
    # every format gets its seeds (converting needs the others' files), then the wanted stay
    targets: dict[str, Target] = {spec.name: _target(spec) for spec in specs}
    for path in _seed_files():
        try:
            spec = registry.detect_format(path)
        except Exception:  # noqa: BLE001 - a file no format claims is not a seed
            continue
        if spec.name in targets and not targets[spec.name].directory:
            targets[spec.name].seeds.append(Seed(path, path.read_bytes()))
    seen_projects: set[tuple[str, frozenset]] = set()  # the same pairs under two folders: one seed
    for project in _seed_projects():
        try:
            spec = registry.detect_format(project)
        except Exception:  # noqa: BLE001 - a directory no format claims is not a seed
            continue
        if spec.name in targets and targets[spec.name].directory:
            kept = PROJECT_FILES.get(spec.name)
            files = {name: data for name, data in _read_project(project).items() if kept is None or kept.search(name)}
            same = (spec.name, frozenset(files.items()))
            if sum(map(len, files.values())) <= MAX_SEED_BYTES and same not in seen_projects:
                seen_projects.add(same)
                targets[spec.name].seeds.extend(project_seeds(spec.name, project, files))
    for name, seeds in wild_seeds(log).items():
        if name in targets:
            targets[name].seeds.extend(seeds)
    for name, paths in (extra_seeds or {}).items():
        if name in targets:
            for p in map(Path, paths):
                targets[name].seeds.extend(project_seeds(name, p, _read_project(p)) if p.is_dir()
                                           else [Seed(p, p.read_bytes())])
    if "mmax2" in targets:
        _add_renamed_projects(targets["mmax2"], workdir)
    if convert:
        _add_converted_seeds(targets, workdir, log, wanted)
    out = []
    for target in targets.values():
        if target.name not in wanted:
            continue
        if not target.seeds:
            log(f"{target.name}: skipped: no seed file in tests/data or samples, and no conversion gave one")
            continue
        out.append(target)
    return out


#: files that are no text (spaCy DocBin, Arrow, Parquet): no plain text form to compare with
BINARY_SUFFIXES = (".spacy", ".arrow", ".parquet")


def _target(spec: Any) -> Target:
    extension = (tuple(spec.extensions) + tuple(spec.ambiguous_extensions) + ("",))[0]
    if spec.directory:  # its files are XML (an MMAX2 project); the inputs are directories
        return Target(spec.name, "", True, False, spec.write_files is not None, directory=True)
    return Target(spec.name, extension, _is_xml(spec), _is_json(spec), spec.write is not None)


#: per directory format, the files of a project that are mutated: those its reader parses
#: (an MMAX2 reader keeps DTDs, style sheets and customizations byte for byte, unread);
#: every file for a format not listed
PROJECT_MEMBERS = {
    "mmax2": re.compile(r"^(common_paths\.xml|[^/]+\.mmax|(Basedata|Markables|Schemes)/[^/]+\.xml)$"),
}


#: per directory format, the files of a seed directory that make its project (the others
#: beside them, such as the CoNLL copy of a brat document, are left out); every file for a
#: format not listed
PROJECT_FILES = {
    "brat": re.compile(r"^[^/]+\.(ann|txt)$"),
    "litbank-tsv": re.compile(r"^[^/]+\.(ann|txt)$"),
}


def project_seeds(fmt: str, path: Path, files: dict[str, bytes], converted_from: str | None = None) -> list[Seed]:
    """One seed per file of the project that its reader parses."""
    members = PROJECT_MEMBERS.get(fmt)
    return [Seed(path, files[member], converted_from, files, member)
            for member in sorted(files) if members is None or members.search(member)]


#: what a renamed project's documents are called: a space, a comma and a non-ASCII letter
#: (real: WikiCoref's ``Jarvis Island.mmax``)
RENAMED_STEM = "Jarvis Island, No 2 é"


def renamed_project(files: dict[str, bytes]) -> dict[str, bytes] | None:
    """The project with every document renamed to a name with a space, a comma and a
    non-ASCII letter: its ``.mmax`` file, its words file and the level files named after
    it, and the references to them inside the ``.mmax`` file. None for a project whose
    ``.mmax`` files are already so named, or that has none."""
    stems = sorted(name[:-len(".mmax")] for name in files if name.endswith(".mmax") and "/" not in name)
    if not stems or any(" " in stem for stem in stems):
        return None
    renames = {stem: RENAMED_STEM + (f" {k}" if k else "") for k, stem in enumerate(stems)}
    out = {}
    for name, data in files.items():
        directory, _, base = name.rpartition("/")
        for old, new in renames.items():
            if base == f"{old}.mmax" or base.startswith(f"{old}_"):
                base = new + base[len(old):]
                if name.endswith(".mmax"):
                    data = data.replace(f">{old}_".encode(), f">{new}_".encode())
                break
        out[f"{directory}/{base}" if directory else base] = data
    return out


def _add_renamed_projects(target: Target, workdir: Path) -> None:
    """A renamed copy (:func:`renamed_project`) of each seed project, as seeds too."""
    for path in sorted({s.path for s in target.seeds}):
        files = next(s.project for s in target.seeds if s.path == path)
        renamed = renamed_project(files or {})
        if renamed is None:
            continue
        copy = workdir / "seeds" / "mmax2-renamed" / path.name
        write_project(copy, renamed)
        target.seeds.extend(project_seeds(target.name, copy, renamed, f"{_relative(path)} (renamed)"))


def wild_seeds(log: Callable[[str], None], root: Path | None = None) -> dict[str, list[Seed]]:
    """Seeds from the real files of the wild corpus: every ``manifest.json`` under
    ``root`` (default :data:`WILD`) lists files (or project folders) with their format
    (``jsonlines:preco`` is a variant of ``jsonlines``: a seed of that format). A file
    over :data:`MAX_SEED_BYTES` gives its head, cut at the last blank line (else line end)
    before the limit, for line-based formats; larger projects and binary files are left
    out (said in ``log``)."""
    from corefio.formats import registry

    root = WILD if root is None else root
    out: dict[str, list[Seed]] = {}
    if not root.is_dir():
        return out
    known = {spec.name for spec in registry.all_formats()}
    for manifest in sorted(root.rglob("manifest.json")):
        try:
            entries = json.loads(manifest.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            log(f"{_relative(manifest)}: unreadable manifest ({exc})")
            continue
        for entry in entries if isinstance(entries, list) else []:
            if not isinstance(entry, dict) or not entry.get("path") or not entry.get("format"):
                continue
            fmt = str(entry["format"]).split(":", 1)[0]
            path = manifest.parent / str(entry["path"])
            if fmt not in known:
                log(f"{_relative(path)}: format {entry['format']!r} of its manifest is not registered")
                continue
            if path.is_dir():
                files = {name: data for name, data in _read_project(path).items()
                         if PROJECT_FILES.get(fmt) is None or PROJECT_FILES[fmt].search(name)}
                if sum(map(len, files.values())) > 4 * MAX_SEED_BYTES:
                    log(f"{_relative(path)}: a {fmt} project too large to copy for every input; left out")
                    continue
                out.setdefault(fmt, []).extend(project_seeds(fmt, path, files))
            elif path.is_file():
                data = path.read_bytes()
                if len(data) > MAX_SEED_BYTES:
                    data = _head(data) if FORMATS.get(fmt, Traits(_TEXT, True)).line_based else b""
                    if not data:
                        log(f"{_relative(path)}: over {MAX_SEED_BYTES} bytes and not cut in lines; left out")
                        continue
                out.setdefault(fmt, []).append(Seed(path, data))
            else:
                log(f"{_relative(path)}: listed in {_relative(manifest)} but missing")
    return out


def _head(data: bytes) -> bytes:
    """The start of a long text file, up to :data:`MAX_SEED_BYTES`, ending after its last
    blank line (sentences and documents end there), else after its last line end."""
    head = data[:MAX_SEED_BYTES]
    for end in (b"\n\n", b"\r\n\r\n", b"\n"):
        cut = head.rfind(end)
        if cut > 0:
            return head[:cut + len(end)]
    return b""


def _read_project(directory: Path) -> dict[str, bytes]:
    return {p.relative_to(directory).as_posix(): p.read_bytes()
            for p in sorted(directory.rglob("*")) if p.is_file()}


def _seed_projects() -> list[Path]:
    """Directories holding an MMAX2 project file (``*.mmax``) under the seed roots, small
    enough to copy for every input, and those holding brat or LitBank TSV pairs (``*.ann``:
    their pairs alone are the project, :data:`PROJECT_FILES`), except the fuzzer's
    regressions (see :func:`_seed_files`)."""
    projects = []
    for root in SEED_ROOTS:
        for directory in sorted({p.parent for p in root.rglob("*.mmax")} if root.is_dir() else ()):
            if REGRESSIONS in directory.parents or WILD in directory.parents or directory == WILD:
                continue
            if sum(p.stat().st_size for p in directory.rglob("*") if p.is_file()) <= MAX_SEED_BYTES:
                projects.append(directory)
        for directory in sorted({p.parent for p in root.rglob("*.ann")} if root.is_dir() else ()):
            if REGRESSIONS not in directory.parents and WILD not in directory.parents and directory not in projects:
                projects.append(directory)
    return projects


def materialise(item: Input, directory: Path, extension: str) -> Path:
    """Put ``item`` where the reader can read it: a file ``input<extension>`` in
    ``directory``, or for a project input the directory ``input/``, a copy of the seed
    project with the mutated file in place."""
    if item.seed.project is None:
        path = directory / f"input{extension or '.txt'}"
        path.write_bytes(item.data)
        return path
    path = directory / "input"
    shutil.rmtree(path, ignore_errors=True)
    write_project(path, {**item.seed.project, str(item.seed.member): item.data})
    return path


def write_project(path: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        target = path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def _seed_files() -> list[Path]:
    """Files under the seed roots, except the fuzzer's own regressions (they are replayed
    by the tests; as seeds they would make every campaign rediscover known defects, and
    saving one would change the inputs of the next campaign)."""
    files: list[Path] = []
    for root in SEED_ROOTS:
        if root.is_dir():
            files.extend(p for p in root.rglob("*") if p.is_file() and p.stat().st_size <= MAX_SEED_BYTES
                         and REGRESSIONS not in p.parents and WILD not in p.parents)
    return sorted(files)


def _add_converted_seeds(targets: dict[str, Target], workdir: Path, log: Callable[[str], None],
                         wanted: set[str]) -> None:
    """Seeds for formats with few files: up to eight small seeds of other formats,
    spread over sizes and sources, converted by corefio's writers."""
    import corefio

    small = sorted((s for t in targets.values() for s in t.seeds if len(s.data) <= 20_000 and s.project is None),
                   key=lambda s: (len(s.data), str(s.path)))
    for target in targets.values():
        projects = len({s.path for s in target.seeds})
        if target.name not in wanted or projects >= MIN_FILE_SEEDS or not target.writable:
            continue
        own = {s.path for s in target.seeds}
        candidates = [s for s in small if s.path not in own]
        # evenly spaced over the sizes, then the rest in order (when conversions fail)
        spread = candidates[::max(1, len(candidates) // 8)]
        order = spread + [s for s in candidates if s not in spread]
        added = 0
        for seed in order:
            if added >= 8:
                break
            try:
                with _time_limit(10):
                    source_format = corefio.formats.registry.detect_format(seed.path).name
                    corpus = corefio.read(seed.path, source_format)
                    if target.directory:
                        files = corefio.dump_files(corpus, target.name)
                    else:
                        data = corefio.dumps(corpus, target.name)
            except (Exception, _TimeUp):  # noqa: BLE001 - formats are in flux; a seed that fails is left out
                continue
            if target.directory:
                path = workdir / "seeds" / target.name / seed.path.name
                write_project(path, files)
                target.seeds.extend(project_seeds(target.name, path, files, _relative(seed.path)))
            else:
                data = data.encode("utf-8") if isinstance(data, str) else data
                path = workdir / "seeds" / target.name / f"{seed.path.name}{target.extension or '.seed'}"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(data)
                target.seeds.append(Seed(path, data, _relative(seed.path)))
            added += 1
        if added:
            log(f"{target.name}: {added} seed(s) converted from other formats' files")


class _TimeUp(BaseException):
    """Raised by :class:`_time_limit` (not an ``Exception``: code under test that catches
    every ``Exception`` must not swallow it)."""


class _time_limit:
    """Raise :class:`_TimeUp` in this process after ``seconds`` (work done in the parent
    before forking must not hang the campaign)."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds

    def __enter__(self) -> None:
        def ring(signum: int, frame: Any) -> None:
            raise _TimeUp(f"over {self.seconds} s")

        self.previous = signal.signal(signal.SIGALRM, ring)
        signal.setitimer(signal.ITIMER_REAL, self.seconds)

    def __exit__(self, *exc: Any) -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, self.previous)


# ---------------------------------------------------------------------------------------------
# inputs
# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Input:
    format: str
    index: int
    data: bytes
    seed: Seed
    mutations: tuple[str, ...]


def make_input(target: Target, campaign_seed: int, index: int) -> Input:
    """Input ``index`` of ``target``: every eighth input is a seed as it is (until each
    was tried once), the others are mutated seeds."""
    if index % 8 == 0 and index // 8 < len(target.seeds):
        seed = target.seeds[index // 8]
        return Input(target.name, index, seed.data, seed, ())
    rng = random.Random(f"{campaign_seed}/{target.name}/{index}")
    seed = rng.choice(target.seeds)
    pool = [s.data for s in target.seeds if s is not seed]
    data, names = mutate(rng, seed.data, pool, target.mutations_of(seed))
    return Input(target.name, index, data, seed, tuple(names))


# ---------------------------------------------------------------------------------------------
# the checks (run in the child)
# ---------------------------------------------------------------------------------------------
def _innermost_frame(exc: BaseException) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    inside = [f for f in frames if "corefio" in f.filename and "/tests/" not in f.filename] or frames
    if not inside:
        return "?"
    f = inside[-1]
    return f"{Path(f.filename).name}:{f.lineno} in {f.name}"


def _shape(message: str) -> str:
    """A message with its variable parts (numbers, quoted values) blanked, for grouping."""
    message = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", message)
    message = re.sub(r"\d+", "N", message)
    return message[:80]


class Checker:
    """Runs the oracle on one input; ``emit`` sends progress to the parent."""

    def __init__(self, fmt: str, path: Path, seed_path: Path | None, line_based: bool,
                 emit: Callable[[dict], None], equivalent: tuple[str, ...] = (), member: str | None = None,
                 slow: float = SLOW_STEP) -> None:
        self.fmt, self.path, self.seed_path, self.line_based, self.emit = fmt, path, seed_path, line_based, emit
        #: CPU seconds a step may use
        self.slow = slow
        #: for a project (``path`` a directory): the file that was mutated
        self.member = member
        #: the mutations, when each of them keeps the meaning of the seed
        self.equivalent = equivalent
        self.findings: list[dict] = []

    def finding(self, check: str, step: str, kind: str, message: str) -> None:
        # the temporary directory says nothing: keep the file names only
        message = message.replace(f"{self.path.parent}/", "")
        self.findings.append({"check": check, "step": step, "kind": kind, "message": message[:600]})

    def call(self, step: str, fn: Callable[[], Any], *, locate: bool = False) -> tuple[str, Any]:
        """``("ok", value)``, ``("refused", error)`` (a CorefioError) or ``("crashed", error)``."""
        from corefio.errors import CorefioError

        self.emit({"step": step})
        began = time.process_time()
        try:
            return "ok", fn()
        except CorefioError as exc:
            if locate:
                self._check_location(step, exc)
            return "refused", exc
        except MemoryError as exc:
            self.finding("memory", step, "MemoryError", f"MemoryError at {_innermost_frame(exc)}")
            return "crashed", exc
        except Exception as exc:  # noqa: BLE001 - this is what the oracle looks for
            where = _innermost_frame(exc)
            self.finding("exception", step, f"{type(exc).__name__} at {where.split(':')[0]}",
                         f"{type(exc).__name__}: {exc} (at {where})")
            return "crashed", exc
        finally:
            used = time.process_time() - began
            if used > self.slow:
                self.finding("slow", step, f"over {self.slow:g} s of CPU",
                             f"step {step!r} used {used:.1f} s of CPU (limit {self.slow:g} s)")

    def _check_location(self, step: str, exc: Any) -> None:
        name = type(exc).__name__
        if not exc.file:
            self.finding("location", step, f"{name} without file: {_shape(exc.message)}",
                         f"{name} names no file: {exc}")
        elif self.line_based and exc.line is None:
            self.finding("location", step, f"{name} without line: {_shape(exc.message)}",
                         f"{name} names no line: {exc}")

    # -- the whole oracle ---------------------------------------------------------------------
    def run(self) -> dict:
        import corefio

        fmt, path = self.fmt, self.path
        read_report = corefio.Report()
        status, first = self.call("read", lambda: corefio.read(path, fmt, report=read_report), locate=True)
        accepted = status == "ok"
        if status != "crashed":
            self._validate_agrees(status, first, read_report)
        if status == "ok" and fmt == "mmax2" and path.is_dir():
            self._count_mmax2_markables(first, read_report)
        if accepted and self.equivalent:
            self._same_as_plain(first)
        if accepted:
            self._roundtrip(first)
        corpus, error = (first, None) if accepted else (None, first)
        self._score_pair("score-self", path, corpus, status, error, path)
        if self.seed_path is not None:
            self._score_pair("score-seed", path, corpus, status, error, self.seed_path)
        return {"accepted": accepted, "status": status, "findings": self.findings}

    def _count_mmax2_markables(self, corpus: Any, read_report: Any) -> None:
        """Every ``<markable>`` of the level files of the project's documents is read,
        or the reader said something about the project."""
        written = count_mmax2_markables(self.path)
        read = sum(1 for doc in corpus.documents for m in doc.markables
                   if (m.layer or "").lower() not in SENTENCE_LEVELS)
        if written != read and not any(d.severity in ("warning", "error") for d in read_report):
            self.finding("count", "read", "markables lost silently" if read < written else "markables added",
                         f"the level files hold {written} markable(s), read() gives {read}, with no warning")

    def _validate_agrees(self, status: str, read_result: Any, read_report: Any) -> None:
        """``validate`` finds an error exactly where reading refuses the input or reports
        an error (lenient repair that hides damage behind success is what this catches)."""
        import corefio

        outcome, report = self.call("validate", lambda: corefio.validate(self.path, self.fmt))
        if outcome == "refused":
            self.finding("validate", "validate", f"raised {type(report).__name__}",
                         f"validate raised instead of reporting: {report}")
            return
        if outcome != "ok":
            return
        errors, read_errors = report.errors, read_report.errors
        if status == "refused" and not errors:
            self.finding("validate", "validate", "valid, read refuses",
                         f"validate finds no error in what read() refuses ({read_result})")
        elif status == "ok" and read_errors and not errors:
            self.finding("validate", "validate", "valid, read reports errors",
                         f"validate finds no error, read() accepted with an error: {read_errors[0].format()}")
        elif status == "ok" and not read_errors and not read_report.warnings and \
                (beyond := [e for e in errors if e.code not in VALIDATE_ONLY]):
            # (a reader that repaired what it read warns; validate, which judges the bytes
            # as given, calls the same damage an error)
            errors, first = beyond, beyond[0]
            self.finding("validate", "validate", f"invalid ({first.code}), read accepts",
                         f"validate finds {len(errors)} error(s), read() accepts without one: {first.format()}")

    def _same_as_plain(self, corpus: Any) -> None:
        """After mutations that keep the meaning (line ends, a BOM, UTF-16/32), an input
        the reader accepts must read as its plain form (UTF-8, no BOM, LF) does."""
        import corefio

        mutated = self.path / self.member if self.member else self.path
        if mutated.suffix in BINARY_SUFFIXES:  # line ends and encodings mean nothing in a binary file
            return
        data = mutated.read_bytes()
        plain = plain_form(data)
        if plain is None or plain == data:
            return
        # under the input's file name: readers may name documents after the file
        original = self.path.parent / "plain" / self.path.name
        original.parent.mkdir(exist_ok=True)
        if self.member:
            shutil.copytree(self.path, original)
            (original / self.member).write_bytes(plain)
        else:
            original.write_bytes(plain)
        status, expected = self.call("read-plain", lambda: corefio.read(original, self.fmt))
        _remove(original)
        how = "+".join(dict.fromkeys(self.equivalent))
        if status == "refused":
            self.finding("equivalence", "read", f"accepted after {how}, plain form refused",
                         f"accepted after {how}, although its plain form (UTF-8, LF) is refused ({expected})")
        elif status == "ok":
            difference = compare(content(expected), content(corpus))
            if difference is not None:
                self.finding("equivalence", "read", f"read differently after {how}",
                             f"after {how}, the input reads differently from its plain form (UTF-8, LF): "
                             f"{difference}")

    def _roundtrip(self, corpus: Any) -> None:
        import corefio
        from corefio.formats.registry import get_format

        spec = get_format(self.fmt)
        if spec.write is None and spec.write_files is None:
            return
        report = corefio.Report()
        if spec.write is None:  # a project: written as its files
            status, out = self.call("write", lambda: corefio.dump_files(corpus, self.fmt, report=report))
        else:
            status, out = self.call("write", lambda: corefio.dumps(corpus, self.fmt, report=report))
        if status == "refused":
            self.finding("roundtrip", "write", f"writer refused: {type(out).__name__}",
                         f"the writer refused a corpus the reader accepted: {out}")
        if status != "ok":
            return
        # read back from a file of the same name, so that a reader naming documents
        # after their file gives the same names
        written = self.path.parent / "written" / self.path.name
        written.parent.mkdir(exist_ok=True)
        if isinstance(out, dict):
            write_project(written, out)
        else:
            try:
                data = out.encode("utf-8") if isinstance(out, str) else out
            except UnicodeEncodeError as exc:
                self.finding("roundtrip", "write", "text output not encodable",
                             f"dumps() gave text that UTF-8 cannot encode ({exc}): no file can hold it")
                return
            written.write_bytes(data)
        status, again = self.call("reread", lambda: corefio.read(written, self.fmt))
        _remove(written)
        losses = sorted(c[5:] for c in report.codes() if c.startswith("loss."))
        if status == "refused":
            self.finding("roundtrip", "reread", f"output unreadable: {type(again).__name__}",
                         f"the written output cannot be read back: {again}"
                         + (f" (losses reported: {', '.join(losses)})" if losses else ""))
            return
        if status != "ok":
            return
        difference = compare(content(corpus), content(again))
        if difference is None:
            return
        explaining = [name for name in losses if name not in CONTENT_NEUTRAL_LOSSES]
        if not explaining:
            self.finding("roundtrip", "compare", f"changed: {difference.split(':')[0]}",
                         f"read → write → read changed the document without a loss explaining it: {difference}"
                         + (f" (losses reported: {', '.join(losses)})" if losses else " (no loss reported)"))

    def _score_pair(self, step: str, key_path: Path, key_corpus: Any, key_status: str,
                    key_error: Any, response_path: Path) -> None:
        """Scoring from paths must equal scoring what ``read`` gives."""
        import corefio

        fmt = self.fmt
        status_paths, by_paths = self.call(
            f"{step}-paths",
            lambda: corefio.score(key_path, response_path, key_format=fmt, response_format=fmt),
            locate=False)
        if status_paths == "refused" and _is_format_error(by_paths) and not by_paths.file:
            self.finding("location", f"{step}-paths", f"{type(by_paths).__name__} without file",
                         f"scoring from paths refused without naming a file: {by_paths}")
        if key_status == "crashed" or status_paths == "crashed":
            return
        if key_status == "ok":
            status_read, by_read = self.call(
                f"{step}-read", lambda: corefio.score(key_corpus, corefio.read(response_path, fmt)))
        else:  # read() refused the key: scoring what it returns is refusing too
            status_read, by_read = "refused", key_error
        if status_read == "crashed":
            return
        if status_paths == "refused" and status_read == "refused":
            return
        if status_paths != status_read:
            if status_paths == "refused":
                self.finding("score", step, "paths refuse, read accepts",
                             f"scoring from paths refused ({by_paths}) what read() accepts and scores")
            else:
                self.finding("score", step, "paths score, read refuses",
                             f"scoring from paths gave numbers for what read() refuses ({by_read}); "
                             f"paths gave {_short_scores(by_paths)}")
            return
        a, b = _corpus_values(by_paths), _corpus_values(by_read)
        if a != b:
            metric = next(m for m in sorted(set(a) | set(b)) if a.get(m) != b.get(m))
            self.finding("score", step, "different numbers",
                         f"{metric}: from paths {json.dumps(a.get(metric))}, from read() {json.dumps(b.get(metric))}")


_MMAX_STEM = re.compile(r"^(.*)\.mmax$")
_MARKABLE_ELEMENT = re.compile(rb"<markable[\s/>]")
_COMMENT = re.compile(rb"<!--.*?-->", re.S)
_MARKABLE_PATH = re.compile(rb"<markable_path>\s*([^<]*?)\s*</markable_path>")
_LEVEL_FILE = re.compile(rb"<level\b[^>]*?\bname=\"([^\"]*)\"[^>]*>\s*([^<]*?)\s*</level>")
#: levels an MMAX2 reader may read as the documents' sentences rather than as markables
SENTENCE_LEVELS = ("sentence", "sentences", "s")


def count_mmax2_markables(project: Path) -> int:
    """``<markable>`` elements in the level files of the project's documents, sentence
    levels aside, by regular expressions over ``common_paths.xml`` (``$`` in a level's
    file name stands for the document) and over the level files."""
    common = project / "common_paths.xml"
    paths = _COMMENT.sub(b"", plain_form(common.read_bytes()) or b"") if common.is_file() else b""
    where = _MARKABLE_PATH.search(paths)
    directory = project / (where.group(1).decode("utf-8", "replace").replace("\\", "/") if where else "Markables")
    levels = [m.group(2).decode("utf-8", "replace") for m in _LEVEL_FILE.finditer(paths)
              if m.group(1).decode("utf-8", "replace").lower() not in SENTENCE_LEVELS]
    total = 0
    for mmax in project.iterdir():
        stem = _MMAX_STEM.match(mmax.name)
        if stem is None or not mmax.is_file():
            continue
        for level in levels:
            path = directory / level.replace("$", stem.group(1))
            if path.is_file():
                data = plain_form(_xml_as_utf8(path.read_bytes())) or b""  # UTF-16 or -32, as UTF-8
                total += len(_MARKABLE_ELEMENT.findall(_COMMENT.sub(b"", data)))
    return total


#: how an XML file without byte order mark starts in each wide encoding (XML 1.0, appendix F)
_XML_STARTS = ((b"<\x00\x00\x00", "utf-32-le"), (b"\x00\x00\x00<", "utf-32-be"), (b"<\x00", "utf-16-le"),
               (b"\x00<", "utf-16-be"))


def _xml_as_utf8(data: bytes) -> bytes:
    """An XML file in UTF-16 or UTF-32 without byte order mark (told by its first
    ``<``, as XML parsers tell it) as UTF-8; anything else as it is."""
    for start, encoding in _XML_STARTS:
        if data.startswith(start):
            try:
                return data.decode(encoding).encode("utf-8")
            except UnicodeError:
                return data
    return data


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path)
    else:
        path.unlink()


_BOMS = ((codecs.BOM_UTF32_LE, "utf-32-le"), (codecs.BOM_UTF32_BE, "utf-32-be"), (codecs.BOM_UTF8, "utf-8"),
         (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


def plain_form(data: bytes) -> bytes | None:
    """``data`` as UTF-8 without BOM, with LF line ends and a final LF: what the
    meaning-keeping mutations undo (None when the encoding its BOM names does not decode)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                data = data[len(bom):].decode(encoding).encode("utf-8")
            except UnicodeError:
                return None
            break
    data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    if data and not data.endswith(b"\n"):
        data += b"\n"
    return data


def _is_format_error(exc: Any) -> bool:
    from corefio.errors import FormatError

    return isinstance(exc, FormatError)


def _corpus_values(scores: Any) -> dict:
    return json.loads(json.dumps(scores.to_dict(per_document=False)["corpus"], sort_keys=True, default=str))


def _short_scores(scores: Any) -> str:
    values = _corpus_values(scores)
    muc = values.get("muc")
    return f"muc {json.dumps(muc)}" if muc is not None else json.dumps(values)[:200]


# -- content ----------------------------------------------------------------------------------
def content(corpus: Any) -> list[tuple]:
    """What a round trip must keep, ids aside: per document its label, word forms, the
    sorted markable spans and the chains as sets of spans."""
    out = []
    for doc in corpus.documents:
        spans = [tuple(tuple(s) for s in m.spans) for m in doc.markables]
        chains = frozenset(frozenset(spans[i] for i in chain) for chain in doc.chain_indices())
        out.append((doc.label, tuple(doc.tokens.forms), tuple(sorted(spans)), chains))
    return out


def compare(before: list[tuple], after: list[tuple]) -> str | None:
    """None when equal, else where the first difference is."""
    if len(before) != len(after):
        return (f"documents: {len(before)} became {len(after)} "
                f"({[d[0] for d in before][:3]} → {[d[0] for d in after][:3]})")
    for k, (a, b) in enumerate(zip(before, after)):
        if a[0] != b[0]:
            return f"label: document {k + 1} {a[0]!r} became {b[0]!r}"
        if a[1] != b[1]:
            if len(a[1]) != len(b[1]):
                return f"forms: document {a[0]!r} had {len(a[1])} tokens, now {len(b[1])}"
            i = next(i for i, (x, y) in enumerate(zip(a[1], b[1])) if x != y)
            return f"forms: document {a[0]!r} token {i + 1} {a[1][i]!r} became {b[1][i]!r}"
        if a[2] != b[2]:
            gone = sorted(set(a[2]) - set(b[2]))[:3]
            new = sorted(set(b[2]) - set(a[2]))[:3]
            return (f"markables: document {a[0]!r} had {len(a[2])}, now {len(b[2])} "
                    f"(lost {gone}, gained {new})")
        if a[3] != b[3]:
            gone = sorted((sorted(c) for c in a[3] - b[3]), key=str)[:2]
            return f"chains: document {a[0]!r} chains differ (e.g. lost {gone})"
    return None


# ---------------------------------------------------------------------------------------------
# the worker pool: forked children, each checking a small batch of inputs
# ---------------------------------------------------------------------------------------------
@dataclass
class Result:
    input: Input
    accepted: bool | None
    findings: list[dict]
    seconds: float
    #: the child's peak RSS when this input was done
    rss_mb: float


@dataclass
class _Running:
    pid: int
    fd: int
    batch: list[Input]
    slot: int
    #: how many inputs of the batch are done
    done: int = 0
    step: str = "start"
    started: float = 0.0
    step_started: float = 0.0
    buffer: bytes = b""
    fatal: str | None = None
    killed: bool = False
    #: the deadline passed: the child left the rest of its batch unchecked
    stopped: bool = False
    rss_mb: float = 0.0


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _vm_size() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


class Pool:
    """Up to ``jobs`` forked children at a time, each checking a batch of up to
    ``batch`` inputs one after the other (a fork per input would cost as much as the
    checks).

    A child writes JSON lines to a pipe: ``{"step": ...}`` when a step starts and
    ``{"result": ...}`` when an input is done. A step running over ``timeout`` seconds
    gets the child killed: that input is a ``hang``, and the rest of its batch goes to
    another child. A child dying any other way (a signal, an exit without result) is a
    ``crash`` of the input it was on (``memory`` for SIGKILL, what the kernel's OOM
    killer sends). The child's address space is capped at the parent's plus twice
    ``memory_mb``, so that most blow-ups end in ``MemoryError``; its peak RSS, reported
    after each input, is compared with the parent's plus ``memory_mb``.
    """

    def __init__(self, targets: dict[str, Target], workdir: Path, jobs: int = 2,
                 timeout: float = STEP_TIMEOUT, memory_mb: int = MEMORY_LIMIT_MB, batch: int = 8,
                 slow: float = SLOW_STEP) -> None:
        self.targets, self.workdir, self.jobs = targets, workdir, max(1, jobs)
        self.slow = slow
        self.timeout, self.memory_mb, self.batch = timeout, memory_mb, max(1, batch)
        self.base_rss = _rss_mb()
        self.base_vm = _vm_size()
        self.rss_limit = self.base_rss + memory_mb

    def run(self, inputs: Iterator[Input], on_result: Callable[[Result], None],
            deadline: float | None = None) -> None:
        """Check ``inputs`` (until ``deadline``, a ``time.monotonic()`` value, if given:
        children stop between two inputs when it has passed)."""
        def stop() -> bool:
            return deadline is not None and time.monotonic() >= deadline

        running: dict[int, _Running] = {}
        free = list(range(self.jobs))
        pending: list[Input] = []  # inputs of a batch whose child was killed
        exhausted = False
        try:
            while True:
                while free and (pending or not exhausted):
                    batch = pending[:self.batch]
                    del pending[:len(batch)]
                    while len(batch) < self.batch and not exhausted:
                        item = None if stop() else next(inputs, None)
                        if item is None:
                            exhausted = True
                        else:
                            batch.append(item)
                    if not batch:
                        break
                    child = self._start(batch, free.pop(0), deadline)
                    running[child.fd] = child
                if not running:
                    break
                ready, _, _ = select.select(list(running), [], [], 0.05)
                for fd in ready:
                    child = running[fd]
                    chunk = _read_some(fd)
                    if chunk:
                        for result in self._take(child, chunk):
                            on_result(result)
                        continue
                    del running[fd]
                    free.append(child.slot)
                    last = self._finish(child)
                    if last is not None:
                        on_result(last)
                    if not child.stopped:
                        pending[:0] = child.batch[child.done + 1:]
                now = time.monotonic()
                for child in running.values():
                    if not child.killed and now - child.step_started > self.timeout:
                        child.killed = True
                        _kill(child.pid)
        finally:
            for child in running.values():
                _kill(child.pid)
                os.close(child.fd)
                _reap(child.pid)

    def check(self, item: Input) -> Result:
        """One input, synchronously (minimisation, replay)."""
        results: list[Result] = []
        self.run(iter([item]), results.append)
        return results[0]

    def _start(self, batch: list[Input], slot: int, deadline: float | None) -> _Running:
        directory = self.workdir / f"slot{slot}"
        directory.mkdir(parents=True, exist_ok=True)
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child
            os.close(r)
            _child(batch, directory, self.targets, w, self.base_vm, self.memory_mb, deadline, self.slow)
            os._exit(0)  # not reached
        os.close(w)
        now = time.monotonic()
        return _Running(pid, r, batch, slot, started=now, step_started=now)

    def _take(self, child: _Running, chunk: bytes) -> list[Result]:
        """Results of the inputs the child finished in ``chunk``."""
        child.buffer += chunk
        out = []
        while b"\n" in child.buffer:
            line, child.buffer = child.buffer.split(b"\n", 1)
            try:
                message = json.loads(line)
            except ValueError:
                continue
            now = time.monotonic()
            if "step" in message:
                child.step, child.step_started = message["step"], now
            elif "fatal" in message:
                child.fatal = message["fatal"]
            elif "stopped" in message:
                child.stopped = True
            elif "result" in message and child.done < len(child.batch):
                payload = message["result"]
                findings = list(payload["findings"])
                rss = payload.get("rss_kb", 0) / 1024
                if rss > self.rss_limit >= child.rss_mb:
                    findings.append({"check": "memory", "step": "all", "kind": "peak RSS",
                                     "message": f"peak RSS {rss:.0f} MB (limit {self.rss_limit:.0f} MB)"})
                child.rss_mb = rss
                out.append(Result(child.batch[child.done], payload["accepted"], findings, now - child.started, rss))
                child.done += 1
                child.step, child.started, child.step_started = "start", now, now
        return out

    def _finish(self, child: _Running) -> Result | None:
        """The result of the input the child was on when it ended, if it had not finished."""
        os.close(child.fd)
        status, rss_kb = _reap(child.pid)
        if child.done >= len(child.batch) or (child.stopped and os.WIFEXITED(status)
                                              and os.WEXITSTATUS(status) == 0):
            return None
        seconds = time.monotonic() - child.started
        step = child.step
        if child.fatal is not None:
            last = child.fatal.strip().splitlines()[-1]
            finding = {"check": "crash", "step": step, "kind": "harness error in child",
                       "message": f"{last} (the fuzzer's own code failed; traceback: {child.fatal[-500:]})"}
        elif child.killed:
            finding = {"check": "hang", "step": step, "kind": f"over {self.timeout:g} s",
                       "message": f"step {step!r} ran over {self.timeout:g} s; killed"}
        elif os.WIFSIGNALED(status):
            sig = os.WTERMSIG(status)
            finding = {"check": "memory" if sig == signal.SIGKILL else "crash", "step": step,
                       "kind": f"signal {sig}", "message": f"the child died from signal {sig} during {step!r}"}
        else:
            finding = {"check": "crash", "step": step, "kind": "no result",
                       "message": f"the child exited ({status}) without a result during {step!r}"}
        return Result(child.batch[child.done], None, [finding], seconds, rss_kb / 1024)


def _read_some(fd: int) -> bytes:
    try:
        return os.read(fd, 65536)
    except InterruptedError:
        return b""  # select() reported it readable: the next round reads it
    except OSError:
        return b""


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _reap(pid: int) -> tuple[int, int]:
    while True:
        try:
            _, status, usage = os.wait4(pid, 0)
            return status, usage.ru_maxrss
        except InterruptedError:
            continue
        except ChildProcessError:
            return 0, 0


def meaning_kept(item: Input) -> tuple[str, ...]:
    """The input's mutations when each of them keeps the meaning of its seed (the
    ``equivalence`` check then applies), else ``()``. Never for a zip archive (line ends
    and BOMs mean nothing in it), brat (its offsets count the characters of the text,
    line ends included), or a seed with a bare CR of its own (the plain form would turn
    that CR into a line end too)."""
    if not item.mutations or not EQUIVALENT.issuperset(item.mutations):
        return ()
    if item.data.startswith(b"PK\x03\x04") or item.format in LINE_ENDS_ARE_CONTENT \
            or b"\r" in item.seed.data.replace(b"\r\n", b""):
        return ()
    return item.mutations


def _child(batch: list[Input], directory: Path, targets: dict[str, Target], fd: int, base_vm: int,
           memory_mb: int, deadline: float | None, slow: float = SLOW_STEP) -> None:
    """The child's whole life: cap memory, check each input of the batch, exit."""
    code = 0
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        quiet = os.open(os.devnull, os.O_WRONLY)  # warnings printed by the code under test
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        if base_vm:
            limit = base_vm + 2 * memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

        def emit(message: dict) -> None:
            os.write(fd, (json.dumps(message) + "\n").encode())

        for k, item in enumerate(batch):
            if k and deadline is not None and time.monotonic() >= deadline:
                emit({"stopped": k})
                break
            target = targets[item.format]
            path = materialise(item, directory, target.extension)
            seed_path = item.seed.path if item.mutations else None
            result = Checker(item.format, path, seed_path, target.line_based, emit, meaning_kept(item),
                             item.seed.member, slow).run()
            result["rss_kb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            emit({"result": result})
    except BaseException:  # noqa: BLE001 - the parent must hear about it
        code = 70
        try:
            os.write(fd, (json.dumps({"fatal": traceback.format_exc()}) + "\n").encode())
        except BaseException:  # noqa: BLE001
            pass
    finally:
        os._exit(code)


# ---------------------------------------------------------------------------------------------
# minimisation
# ---------------------------------------------------------------------------------------------
#: checks whose defect does not depend on the step it showed in (the same exception
#: escapes ``read`` and the scoring that reads; slow reading makes every step that reads slow)
_STEP_FREE = frozenset({"exception", "location", "memory", "crash", "slow"})


def signature(fmt: str, f: dict) -> tuple[str, str, str, str]:
    """What makes two findings the same defect."""
    return (fmt, f["check"], "*" if f["check"] in _STEP_FREE else f["step"], f["kind"])


def _ddmin(items: list[bytes], fails: Callable[[list[bytes]], bool], deadline: float) -> list[bytes]:
    """Delta debugging (complements only): a smaller list that still fails."""
    n = 2
    while len(items) >= 2 and time.monotonic() < deadline:
        size = -(-len(items) // n)
        for start in range(0, len(items), size):
            complement = items[:start] + items[start + size:]
            if time.monotonic() >= deadline:
                return items
            if fails(complement):
                items = complement
                n = max(n - 1, 2)
                break
        else:
            if n >= len(items):
                break
            n = min(len(items), n * 2)
    return items


def minimise(pool: Pool, item: Input, wanted: tuple, seconds: float) -> tuple[bytes, dict | None]:
    """The smallest input found in ``seconds`` that fails with signature ``wanted``,
    and its finding (None if even the input given no longer fails that way)."""
    deadline = time.monotonic() + seconds
    found: dict[bytes, dict] = {}

    def fails_with(data: bytes) -> bool:
        probe = Input(item.format, item.index, data, item.seed, item.mutations or ("minimised",))
        result = pool.check(probe)
        for f in result.findings:
            if signature(item.format, f) == wanted:
                found[data] = f
                return True
        return False

    if not fails_with(item.data):  # flaky (a hang on a busy machine, say): leave it as it is
        return item.data, None

    data = item.data
    lines = data.splitlines(keepends=True)
    lines = _ddmin(lines, lambda part: fails_with(b"".join(part)), deadline)
    data = b"".join(lines)
    if len(data) <= 4096:
        pieces = [bytes([b]) for b in data]
        data = b"".join(_ddmin(pieces, lambda part: fails_with(b"".join(part)), deadline))
    return data, found.get(data)


# ---------------------------------------------------------------------------------------------
# the campaign
# ---------------------------------------------------------------------------------------------
@dataclass
class Defect:
    signature: tuple[str, str, str, str]
    message: str
    first: Input
    #: the step of the first input (the signature may leave it out)
    step: str = ""
    count: int = 0
    minimised: bytes | None = None
    #: the input did not fail again when minimisation began
    flaky: bool = False
    saved: str | None = None

    def as_dict(self) -> dict:
        fmt, check, _, kind = self.signature
        return {"format": fmt, "check": check, "step": self.step, "kind": kind, "message": self.message,
                "count": self.count, "seed": self.first.seed.label, "index": self.first.index,
                "mutations": list(self.first.mutations), "input_bytes": len(self.first.data),
                "minimised_bytes": None if self.minimised is None else len(self.minimised),
                "preview": repr((self.minimised if self.minimised is not None else self.first.data)[:300]),
                "flaky": self.flaky, "saved": self.saved}


@dataclass
class Stats:
    tried: int = 0
    accepted: int = 0
    refused: int = 0
    failed: Counter = field(default_factory=Counter)
    seconds: float = 0.0


@dataclass
class Campaign:
    """A fuzzing campaign; :meth:`run` returns the summary that ``--json`` writes."""

    seed: int = 0
    seconds: float = 60.0
    formats: Sequence[str] | None = None
    jobs: int = 2
    count: int | None = None
    minimise_seconds: float = 10.0
    minimise_total: float = 60.0
    save: Path | None = None
    #: seconds a step may take
    timeout: float = STEP_TIMEOUT
    #: CPU seconds a step may use before it is ``slow``
    slow: float = SLOW_STEP
    #: more seed files per format name (beside those found in tests/data and samples)
    extra_seeds: dict[str, list[Path]] = field(default_factory=dict)
    #: give formats with few seed files seeds converted from other formats
    convert_seeds: bool = True
    log: Callable[[str], None] = print
    notes: list[str] = field(default_factory=list)

    def run(self) -> dict:
        workdir = Path(tempfile.mkdtemp(prefix="corefio-fuzz-"))
        try:
            return self._run(workdir)
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _note(self, message: str) -> None:
        self.notes.append(message)
        self.log(message)

    def _run(self, workdir: Path) -> dict:
        start = time.monotonic()
        try:
            targets = discover(self.formats, workdir, self._note, self.extra_seeds, self.convert_seeds)
        except Exception:  # noqa: BLE001 - a registry that does not load is the finding
            message = traceback.format_exc(limit=6)
            self._note("the format registry does not load:\n" + message)
            return {"seed": self.seed, "error": "registry: " + message.strip().splitlines()[-1],
                    "formats": {}, "defects": [], "notes": self.notes}
        if not targets:
            return {"seed": self.seed, "error": "no format to fuzz", "formats": {}, "defects": [],
                    "notes": self.notes}
        by_name = {t.name: t for t in targets}
        for target in targets:
            warm_up(target, workdir)
        gc.collect()
        gc.freeze()  # the children do not scan (and so copy) the parent's objects
        pool = Pool(by_name, workdir, self.jobs, self.timeout, slow=self.slow)
        stats = {t.name: Stats() for t in targets}
        defects: dict[tuple, Defect] = {}
        share = self.seconds / len(targets)
        for target in targets:
            self.log(f"{target.name}: {len(target.seeds)} seed(s), "
                     f"{'all inputs' if self.count else f'{share:.0f} s'}")
            self._fuzz(pool, target, stats[target.name], defects, share)
        fuzz_seconds = time.monotonic() - start
        self._minimise_all(pool, defects)
        if self.save is not None:
            for defect in defects.values():
                if not defect.flaky:
                    save_regression(defect, self.save)
        summary = {
            "seed": self.seed,
            "seconds": round(time.monotonic() - start, 1),
            "fuzz_seconds": round(fuzz_seconds, 1),
            "formats": {name: {"tried": s.tried, "accepted": s.accepted, "refused": s.refused,
                               "failed": dict(s.failed), "seconds": round(s.seconds, 1)}
                        for name, s in stats.items()},
            "defects": [d.as_dict() for d in defects.values()],
            "notes": self.notes,
        }
        return summary

    def _fuzz(self, pool: Pool, target: Target, stats: Stats, defects: dict, seconds: float) -> None:
        began = time.monotonic()
        deadline = began + seconds
        indices = iter(range(self.count)) if self.count is not None else _count_up()
        inputs = (make_input(target, self.seed, i) for i in indices)

        def on_result(result: Result) -> None:
            stats.tried += 1
            if result.accepted:
                stats.accepted += 1
            elif result.accepted is False:
                stats.refused += 1
            for f in result.findings:
                sig = signature(target.name, f)
                stats.failed[f["check"]] += 1
                defect = defects.get(sig)
                if defect is None:
                    defect = defects[sig] = Defect(sig, f["message"], result.input, step=f["step"])
                    self.log(f"  NEW {target.name} [{f['check']}/{f['step']}] {f['kind']}: "
                             f"{f['message'][:300]} (input {result.input.index}, seed {result.input.seed.label}, "
                             f"mutations {'+'.join(result.input.mutations) or 'none'})")
                elif len(result.input.data) < len(defect.first.data):
                    defect.first, defect.message, defect.step = result.input, f["message"], f["step"]
                defect.count += 1

        pool.run(inputs, on_result, None if self.count is not None else deadline)
        stats.seconds = time.monotonic() - began

    def _minimise_all(self, pool: Pool, defects: dict[tuple, Defect]) -> None:
        if self.minimise_seconds <= 0:
            return
        budget_end = time.monotonic() + self.minimise_total
        for defect in sorted(defects.values(), key=lambda d: len(d.first.data)):
            left = budget_end - time.monotonic()
            if left <= 0:
                self._note("minimisation budget spent; some defects are not minimised")
                break
            data, finding = minimise(pool, defect.first, defect.signature, min(self.minimise_seconds, left))
            if finding is None:
                defect.flaky = True
                self._note(f"{defect.signature}: the first failing input did not fail again")
                continue
            defect.minimised, defect.message, defect.step = data, finding["message"], finding["step"]


def warm_up(target: Target, workdir: Path) -> None:
    """Run the checks once in this process on the smallest seed, so that the lazy imports
    and the models' first build happen before forking, not in every child. What goes
    wrong here shows again in the children, where it is reported."""
    seed = min(target.seeds, key=lambda s: len(s.data))
    directory = workdir / "warm-up"
    directory.mkdir(parents=True, exist_ok=True)
    path = materialise(Input(target.name, 0, seed.data, seed, ()), directory, target.extension)
    try:
        with _time_limit(20):
            Checker(target.name, path, seed.path, target.line_based, lambda message: None,
                    member=seed.member).run()
    except (Exception, _TimeUp):  # noqa: BLE001 - see the docstring
        pass


def _count_up() -> Iterator[int]:
    i = 0
    while True:
        yield i
        i += 1


# ---------------------------------------------------------------------------------------------
# regressions
# ---------------------------------------------------------------------------------------------
MANIFEST = "manifest.json"


def save_regression(defect: Defect, directory: Path) -> None:
    """Keep the (minimised) input in ``directory``, listed in its manifest and README
    (a project input as a directory: the seed project with the mutated file in place)."""
    from corefio.formats.registry import get_format

    data = defect.minimised if defect.minimised is not None else defect.first.data
    fmt, check, _, kind = defect.signature
    step = defect.step
    seed = defect.first.seed
    spec = get_format(fmt)
    extension = (tuple(spec.extensions) + tuple(spec.ambiguous_extensions) + (".txt",))[0]
    digest = hashlib.sha1(data).hexdigest()[:8]
    directory.mkdir(parents=True, exist_ok=True)
    if seed.project is not None:
        name = f"{fmt}-{check}-{step}-{digest}"
        shutil.rmtree(directory / name, ignore_errors=True)
        write_project(directory / name, {**seed.project, str(seed.member): data})
    else:
        name = f"{fmt}-{check}-{step}-{digest}{extension}"
        (directory / name).write_bytes(data)
    manifest = load_manifest(directory)
    manifest[name] = {
        "format": fmt, "check": check, "step": step, "kind": kind, "message": defect.message,
        # a converted seed lives in a temporary directory: the scoring checks against a seed
        # replay only with seeds from the repository
        "seed": _relative(seed.path) if seed.converted_from is None else None,
        "mutated": bool(defect.first.mutations),
    }
    if seed.member is not None:
        manifest[name]["member"] = seed.member
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True, ensure_ascii=False) + "\n")
    write_readme(directory, manifest)
    defect.saved = _relative(directory / name)


def load_manifest(directory: Path) -> dict:
    path = directory / MANIFEST
    if not path.exists():
        return {}
    return json.loads(path.read_text())


def write_readme(directory: Path, manifest: dict) -> None:
    lines = [
        "# Fuzzer regressions",
        "",
        "Inputs found by the mutation fuzzer (`python -m tests.fuzz`, see `tests/fuzz/fuzzer.py`),",
        "minimised. `tests/fuzz/test_fuzz_budget.py` runs the fuzzer's checks on each of them:",
        "each must pass every check. One line per file: the check it failed when it was found",
        "and the seed it was mutated from (the response of the `score-seed` check).",
        "",
        f"- `{MANIFEST}`: format, check, step, message and seed of each file (the test reads it)",
    ]
    for name in sorted(manifest):
        entry = manifest[name]
        seed = f"; seed `{entry['seed']}`" if entry.get("seed") else ""
        message = entry["message"].replace("\n", " ")
        if len(message) > 160:
            message = message[:157] + "..."
        lines.append(f"- `{name}` ({entry['format']}, check `{entry['check']}` at `{entry['step']}`{seed}): {message}")
    (directory / "README.md").write_text("\n".join(lines) + "\n")


def replay_regressions(directory: Path = REGRESSIONS, jobs: int = 1, only: str | None = None,
                       timeout: float = STEP_TIMEOUT, slow: float = SLOW_STEP) -> list[tuple[str, list[dict]]]:
    """Run the oracle on every file of the manifest (or on the one called ``only``);
    ``[(file, findings)]``. ``timeout`` and ``slow``: the seconds after which a step is a
    hang, and the CPU seconds after which it is slow (the suite replays with ten times a
    campaign's: guards that hold on a busy machine, no measure of speed)."""
    from corefio.formats import registry

    manifest = load_manifest(directory)
    if only is not None:
        manifest = {name: entry for name, entry in manifest.items() if name == only}
    out: list[tuple[str, list[dict]]] = []
    if not manifest:
        return out
    workdir = Path(tempfile.mkdtemp(prefix="corefio-fuzz-replay-"))
    try:
        targets: dict[str, Target] = {}
        inputs = []
        for name, entry in sorted(manifest.items()):
            fmt = entry["format"]
            if fmt not in targets:
                targets[fmt] = _target(registry.get_format(fmt))
            path = directory / name
            seed_path = REPO / entry["seed"] if entry.get("seed") else path
            if not seed_path.exists():
                out.append((name, [{"check": "regression", "step": "seed", "kind": "seed missing",
                                    "message": f"the seed {entry['seed']} this input is scored against is gone"}]))
                continue
            mutations = ("regression",) if entry.get("seed") else ()
            if "member" in entry:  # a project: the saved directory, scored against its seed project
                files = _read_project(path)
                seed = Seed(seed_path, b"", project=files, member=entry["member"])
                inputs.append((name, Input(fmt, 0, files[entry["member"]], seed, mutations)))
            else:
                inputs.append((name, Input(fmt, 0, path.read_bytes(), Seed(seed_path, b""), mutations)))
        pool = Pool(targets, workdir, jobs, timeout=timeout, slow=slow)
        for name, item in inputs:
            out.append((name, pool.check(item).findings))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return out


# ---------------------------------------------------------------------------------------------
# printing
# ---------------------------------------------------------------------------------------------
def format_summary(summary: dict) -> str:
    lines = [f"corefio fuzz: seed {summary['seed']}"
             + (f", {summary['seconds']} s" if "seconds" in summary else "")]
    if summary.get("error"):
        lines.append(f"ERROR: {summary['error']}")
    for name, s in summary["formats"].items():
        failed = ", ".join(f"{k} ×{v}" for k, v in sorted(s["failed"].items())) or "none"
        lines.append(f"  {name:<10} {s['tried']:>7} inputs ({s['accepted']} read, {s['refused']} refused) "
                     f"in {s['seconds']} s; failed checks: {failed}")
    defects = summary["defects"]
    lines.append(f"{len(defects)} distinct defect(s)")
    for d in defects:
        size = f"{d['input_bytes']} bytes" + (f", minimised to {d['minimised_bytes']}"
                                               if d["minimised_bytes"] is not None else "")
        if d.get("flaky"):
            size += ", did not fail again"
        lines.append(f"- {d['format']} [{d['check']} at {d['step']}] {d['kind']} — {d['count']} input(s)")
        lines.append(f"    {d['message'][:400]}")
        lines.append(f"    first: input {d['index']} from {d['seed']}, mutations "
                     f"{'+'.join(d['mutations']) or 'none'} ({size})" + (f"; saved as {d['saved']}" if d["saved"] else ""))
        lines.append(f"    input: {d['preview'][:200]}")
    return "\n".join(lines)


def iter_inputs(target: Target, seed: int, indices: Iterable[int]) -> Iterator[Input]:
    for i in indices:
        yield make_input(target, seed, i)
