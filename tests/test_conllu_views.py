"""CoNLL-U's scoring fast path (``conllu.mention_views`` and ``conllu.scan_keys``) gives
what the full reader gives: for every CoNLL-U file of tests/data, the same mention views
(labels, forms, mentions with their ids, heads, attributes and zeros, POS tags, token
places), the same documents, the same views read by byte ranges, the same error for a
file it refuses; and the same score output, byte for byte, with and without the fast
path, for every ``--match`` mode and the corefud preset."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from corefio.compare.pairing import byte_range
from corefio.diagnostics import Report
from corefio.errors import CorefioError
from corefio.formats import conllu, registry
from corefio.io.source import Source

DATA = Path(__file__).resolve().parent / "data"

#: the CorefUD scorer's test cases are CoNLL-U files named TC-A.key, TC-A-1.response, ...
SCORER_CASES = DATA / "corefud-scorer-tests"
FILES = sorted({*DATA.rglob("*.conllu"),
                *(p for p in SCORER_CASES.glob("*/*") if p.suffix in (".key", ".response"))})


def _name(path: Path) -> str:
    return str(path.relative_to(DATA))


def _shape(view) -> tuple:
    return (view.label, view.forms, view.mentions, view.pos, view.places)


def _expected(path: Path, pos: bool) -> tuple[list, CorefioError | None]:
    """The views of the documents the full reader builds, and the error it stops at."""
    views = []
    try:
        for doc in conllu.stream(Source.of(path), report=Report()):
            views.append(_shape(doc.mention_view(pos)))
    except CorefioError as exc:
        return views, exc
    return views, None


def test_the_files_are_there() -> None:
    assert len(FILES) > 60
    assert any(p.parent.name == "zeros" for p in FILES)  # empty nodes are among them


@pytest.mark.parametrize("path", FILES, ids=_name)
def test_views_are_those_of_the_documents(path: Path) -> None:
    for pos in (False, True):
        expected, error = _expected(path, pos)
        given = []
        if error is None:
            given = [_shape(v) for v in conllu.mention_views(Source.of(path), report=Report(), pos=pos)]
            assert given == expected
        else:
            with pytest.raises(type(error)) as raised:
                for v in conllu.mention_views(Source.of(path), report=Report(), pos=pos):
                    given.append(_shape(v))
            assert str(raised.value) == str(error)
            assert given == expected


@pytest.mark.parametrize("path", FILES, ids=_name)
def test_scanned_documents_and_byte_ranges(path: Path) -> None:
    expected, error = _expected(path, False)
    if error is not None:
        # the scan looks at comments only: what it looks at, it refuses as the reader
        # does; errors inside documents show when they are read (the test above)
        try:
            docs = conllu.scan_keys(Source.of(path))
        except CorefioError as exc:
            assert (type(exc), str(exc)) == (type(error), str(error))
        else:
            assert [tuple(d[:2]) for d in docs][:len(expected)] == [_key(view) for view in expected]
        return
    docs = conllu.scan_keys(Source.of(path))
    assert [tuple(d[:2]) for d in docs] == [_key(view) for view in expected]
    size = path.stat().st_size
    runs = [[i] for i in range(len(docs))] + [list(range(1, len(docs))), list(range(len(docs)))]
    for wanted in runs:
        if not wanted:
            continue
        where = byte_range(docs, wanted, size)
        views = conllu.mention_views(Source.of(path), report=Report(), select=set(wanted), byte_range=where)
        assert [_shape(v) for v in views] == [expected[i] for i in wanted]


def _key(view: tuple) -> tuple:
    """(name, part) back from a view's label (the files here have no " (part" in names)."""
    label = view[0]
    if label.endswith(")") and " (part " in label:
        name, _, part = label[:-1].rpartition(" (part ")
        return (name, part)
    return (label, None)


def _fallbacks(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Counts the files mention_views and scan_keys hand to the full reader."""
    calls: list[str] = []
    stream = conllu.stream

    def counted(source, **kwargs):
        calls.append(source.name)
        return stream(source, **kwargs)

    monkeypatch.setattr(conllu, "stream", counted)
    return calls


#: files of the usual layout (LF line ends, a blank line after every sentence, no
#: error): the fast path reads them itself
USUAL = [p for p in FILES if "wild" in p.parts or "corefud-scorer-tests" in p.parts or "ua-scorer" in p.parts]


def test_the_fast_path_reads_the_usual_files_itself(monkeypatch: pytest.MonkeyPatch) -> None:
    assert len(USUAL) > 40
    calls = _fallbacks(monkeypatch)
    for path in USUAL:
        docs = conllu.scan_keys(Source.of(path))
        assert all(len(d) == 4 for d in docs)
        list(conllu.mention_views(Source.of(path), report=Report(), pos=True))
    assert calls == []


def test_a_file_with_cr_line_ends_goes_to_the_full_reader(monkeypatch: pytest.MonkeyPatch) -> None:
    path = DATA / "regressions" / "E01_conllu_cr_only.conllu"
    expected, error = _expected(path, False)
    assert error is None
    calls = _fallbacks(monkeypatch)
    assert [_shape(v) for v in conllu.mention_views(Source.of(path), report=Report())] == expected
    assert calls == [str(path)]


def _variants(text: str) -> dict[str, bytes]:
    """The file in the layouts the fast path reads itself besides LF: CRLF line ends, a
    byte order mark, no blank line after the last sentence (a warning), no line end at all."""
    crlf = text.replace("\n", "\r\n").encode()
    bare = text.rstrip("\n")
    return {"crlf": crlf, "bom": b"\xef\xbb\xbf" + text.encode(), "crlf-bom": b"\xef\xbb\xbf" + crlf,
            "no-final-blank": (bare + "\n").encode(), "no-final-newline": bare.encode(),
            "no-final-blank-crlf": (bare + "\n").replace("\n", "\r\n").encode()}


@pytest.mark.parametrize("path", [p for p in USUAL if p.suffix == ".conllu"], ids=_name)
def test_line_ends_marks_and_file_ends(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _fallbacks(monkeypatch)
    for variant, data in _variants(path.read_text(encoding="utf-8")).items():
        file = tmp_path / f"{variant}.conllu"
        file.write_bytes(data)
        full = Report()
        expected = [_shape(doc.mention_view(True)) for doc in conllu.read(Source.of(file), report=full).documents]
        calls.clear()
        fast = Report()
        assert [_shape(v) for v in conllu.mention_views(Source.of(file), report=fast, pos=True)] == expected, variant
        assert [(d.code, d.line, d.message) for d in fast] == [(d.code, d.line, d.message) for d in full], variant
        docs = conllu.scan_keys(Source.of(file))
        assert [d[:2] for d in docs] == [_key(view) for view in expected]
        for i in range(len(docs)):
            where = byte_range(docs, [i], len(data))
            views = conllu.mention_views(Source.of(file), report=Report(), select={i}, byte_range=where, pos=True)
            assert [_shape(v) for v in views] == [expected[i]], (variant, i)
        assert calls == [], variant


def test_blank_lines_with_blanks_go_to_the_full_reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "blanks.conllu"
    path.write_text("# newdoc id = d\n1\ta\t_\t_\t_\t_\t_\t_\t_\tEntity=(e1)\n \t\n"
                    "1\tb\t_\t_\t_\t_\t_\t_\t_\tEntity=(e1)\n\n")
    expected, error = _expected(path, False)
    assert error is None and len(expected[0][1]) == 2
    calls = _fallbacks(monkeypatch)
    assert [_shape(v) for v in conllu.mention_views(Source.of(path), report=Report())] == expected
    assert calls == [str(path)]


def test_a_relation_off_the_first_word_is_the_readers_warning(tmp_path: Path) -> None:
    """The fast path leaves the warning (with its line) to the full reader."""
    path = tmp_path / "moved.conllu"
    path.write_text("# newdoc id = d\n# global.Entity = eid-etype-head-other\n"
                    "1\ta\t_\t_\t_\t_\t_\t_\t_\tEntity=(e1-x-1-)\n"
                    "2\tb\t_\t_\t_\t_\t_\t_\t_\tEntity=(e2-x-1-\n"
                    "3\tc\t_\t_\t_\t_\t_\t_\t_\tBridge=e1<e2|Entity=e2)\n\n")
    report = Report()
    views = list(conllu.mention_views(Source.of(path), report=report))
    assert [d.code for d in report] == ["conllu.relation-moved"]
    assert report.by_code("conllu.relation-moved")[0].line == 5
    assert [m.spans for chain in views[0].mentions for m in chain] == [((0, 0),), ((1, 2),)]


# -- scores: byte for byte the same with and without the fast path -------------------------
def _pairs() -> list[tuple[Path, Path]]:
    pairs = []
    for path in FILES:
        name = path.name
        if ".response" not in name and "response" not in path.stem:
            continue
        for key in (path.with_name(name.replace(".response", "")),
                    path.with_name(name.replace("response", "key")),
                    path.with_name(name.split("-")[0] + "-" + name.split("-")[1].split(".")[0] + ".key")
                    if name.startswith("TC-") and name.count("-") >= 2 else path):
            if key != path and key.exists():
                pairs.append((key, path))
                break
    return pairs


PAIRS = _pairs()
MODES = [["--match", "exact"], ["--match", "head"], ["--match", "min"], ["--match", "partial"],
         ["--preset", "corefud"], ["--keep-zeros", "--zero-match", "linear", "--by-kind", "pos"]]


def test_there_are_pairs() -> None:
    assert len(PAIRS) > 30
    assert {p.parent.name for p, _ in PAIRS} >= {"zeros", "head-match", "gum", "ko_ecmt"}


def _without_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = registry._FORMATS["conllu"]
    monkeypatch.setitem(registry._FORMATS, "conllu",
                        dataclasses.replace(spec, mention_views=None, scan_keys=None))


def _pair_params() -> list:
    """Every pair; the fast tier scores the first of each folder, CI's slow tier all."""
    seen: set[Path] = set()
    params = []
    for key, response in PAIRS:
        first = response.parent not in seen
        seen.add(response.parent)
        params.append(pytest.param(key, response, id=_name(response), marks=() if first else pytest.mark.slow))
    return params


@pytest.mark.parametrize("key,response", _pair_params())
def test_scores_are_the_same_without_the_fast_path(key: Path, response: Path, cli,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    spec = registry._FORMATS["conllu"]
    read: list[str] = []

    def counted(source, **kwargs):
        read.append(source.name)
        return spec.mention_views(source, **kwargs)

    for mode in MODES:
        args = ["score", key, response, "--format", "json", "--jobs", "1", "--from", "conllu", *mode]
        read.clear()
        with monkeypatch.context() as m:
            m.setitem(registry._FORMATS, "conllu", dataclasses.replace(spec, mention_views=counted))
            fast = cli(*args)
        assert read, "the fast path was taken"
        with monkeypatch.context() as m:
            _without_fast_path(m)
            full = cli(*args)
        assert (fast.exit_code, fast.output) == (full.exit_code, full.output), mode


@pytest.mark.parametrize("piece", [5, 64, 1000])
def test_small_pieces(piece: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The files read in pieces of a few bytes (blank lines and lines cut between two
    reads, the inherited fields found several pieces back) give the same views."""
    monkeypatch.setattr(conllu, "_PIECE", piece)
    calls = _fallbacks(monkeypatch)
    for path in (DATA / "wild/conllu/gum/en_gum-ud-dev.trimmed.conllu",
                 DATA / "wild/conllu/ko_ecmt/ko_ecmt-corefud-dev.first5docs.conllu",
                 DATA / "corefud-scorer-tests/zeros/TC-ZA.key"):
        for variant, data in {"lf": path.read_bytes(), "crlf": path.read_bytes().replace(b"\n", b"\r\n")}.items():
            file = tmp_path / f"{variant}.conllu"
            file.write_bytes(data)
            expected = [_shape(doc.mention_view(False)) for doc in conllu.read(Source.of(file), report=Report()).documents]
            calls.clear()
            assert [_shape(v) for v in conllu.mention_views(Source.of(file), report=Report())] == expected
            docs = conllu.scan_keys(Source.of(file))
            assert len(docs) == len(expected)
            for i in range(len(docs)):
                views = conllu.mention_views(Source.of(file), report=Report(), select={i},
                                             byte_range=byte_range(docs, [i], len(data)))
                assert [_shape(v) for v in views] == [expected[i]], (path.name, variant, i)
            assert calls == []
