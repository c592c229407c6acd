"""Hugging Face datasets (the optional ``hf`` extra: ``pip install 'corefio[hf]'``).

Read from a directory written by ``save_to_disk`` (a ``Dataset`` or a ``DatasetDict``:
every split in order, or the one named by the read option ``split``), a ``.parquet``
file or an ``.arrow`` file; written as a ``save_to_disk`` directory, so that
``datasets.load_from_disk`` loads what corefio converted. Nothing touches the network.
One row is one document, in one of two layouts (told from the columns; the option
``layout`` forces one, and chooses what is written, ``ontonotes`` by default):

``ontonotes``   the ``conll2012_ontonotesv5`` layout: ``document_id`` and ``sentences``,
                each ``{"part_id", "words", "speaker", "coref_spans", ...}`` where a
                coreference span is ``[cluster, start, end]``, word numbers within the
                sentence, end inclusive.
``indiscrim``   the coref-data "indiscriminate identity" layout: ``id``, ``text``,
                ``sentences`` (each ``{"id", "speaker", "text", "tokens": [{"id",
                "text"}]}``) and ``coref_chains``, each chain a list of
                ``[sentence, start, end]`` (sentence index from 0, word numbers within
                it, end inclusive).

Neither layout lets a mention cross a sentence boundary (``loss.cross-sentence`` when
writing). A row that does not fit is refused with its row number as the line.

A document's part is the ``part_id`` of its sentences (``ontonotes``; sentences naming
different parts are reported, ``hf.mixed-parts``). It is written as that number, leading
zeros aside (parts pair as numbers when scoring), and as null for a document without
part, which reads back without part; a part that is no 32-bit integer is written as null
and reported (``loss.part``), as is every part in the ``indiscrim`` layout, which has no
place for one.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..io._lazy import LazyModule
from ..diagnostics import Report
from ..errors import FormatError, ModelError, UsageError
from .losses import LossLog
from .registry import Capabilities, FormatSpec, Option, register
from ..io.source import Source

model = LazyModule("corefio.model")

LAYOUTS = ("ontonotes", "indiscrim")
EXTRA_HINT = "install the optional extra: pip install 'corefio[hf]'"


def require_datasets() -> Any:
    """The ``datasets`` module, or a usage error naming the extra."""
    try:
        import datasets
    except ImportError:
        raise UsageError(f"Hugging Face datasets need the `datasets` library; {EXTRA_HINT}") from None
    return datasets


def is_saved_dataset(path: Path) -> bool:
    """A directory written by ``save_to_disk`` (a Dataset or a DatasetDict)."""
    return (path / "state.json").is_file() or (path / "dataset_dict.json").is_file()


def _quiet(datasets: Any) -> Any:
    """A context in which ``datasets`` draws no progress bar (library code never prints)."""
    import contextlib

    @contextlib.contextmanager
    def quiet() -> Iterator[None]:
        was_enabled = datasets.is_progress_bar_enabled()
        datasets.disable_progress_bars()
        try:
            yield
        finally:
            if was_enabled:
                datasets.enable_progress_bars()

    return quiet()


def _rows(source: Source, split: str | None) -> Iterator[dict]:
    datasets = require_datasets()
    path = source.path
    if path is None:  # in memory (a web upload): a parquet file can be read from its bytes
        data = source.read_bytes()
        if not data.startswith(b"PAR1"):
            raise UsageError("a Hugging Face dataset is read from a directory or a .parquet/.arrow file")
        import pyarrow as pa
        import pyarrow.parquet as pq

        try:
            table = pq.read_table(pa.BufferReader(data))
        except (OSError, ValueError) as exc:
            raise FormatError(f"not a readable parquet file: {exc}"[:300], file=source.name, line=1) from None
        yield from table.to_pylist()
        return
    try:
        if path.is_dir():
            for arrow in sorted(path.rglob("*.arrow")):
                _check_arrow(arrow, source.name)
            loaded = datasets.load_from_disk(str(path))
        elif path.name.lower().endswith(".parquet"):
            import pyarrow.parquet as pq

            table = pq.read_table(str(path))
            table.validate(full=True)
            yield from table.to_pylist()
            return
        else:
            _check_arrow(path, source.name)
            loaded = datasets.Dataset.from_file(str(path))
    except FormatError:
        raise
    except FileNotFoundError as exc:
        raise FormatError(f"not a saved Hugging Face dataset ({exc})", file=source.name, line=1) from None
    except Exception as exc:  # noqa: BLE001 - datasets and pyarrow fail in many ways on damaged files
        raise FormatError(f"not a readable Hugging Face dataset: {type(exc).__name__}: {exc}"[:300],
                          file=source.name, line=1) from None
    if isinstance(loaded, datasets.DatasetDict):
        if split is not None and split not in loaded:
            raise UsageError(f"the dataset has no split {split!r} (splits: {', '.join(loaded)})")
        parts = [loaded[name] for name in ([split] if split is not None else list(loaded))]
    else:
        parts = [loaded]
    try:
        for part in parts:
            yield from part
    except MemoryError:
        # a damaged Arrow file can claim lengths far beyond its size
        raise FormatError("the dataset claims more data than it holds (a damaged Arrow or parquet file?)",
                          file=source.name, line=1) from None
    except UnicodeDecodeError as exc:  # a string column with bytes that are not UTF-8 (found by the fuzzer)
        raise FormatError(f"a text in the dataset is not UTF-8 ({exc.reason} at byte {exc.start} of a value): "
                          "a damaged Arrow file?", file=source.name, line=1) from None
    except Exception as exc:  # noqa: BLE001 - pyarrow decoding damaged buffers (SystemError, ArrowInvalid...)
        raise FormatError(f"a row of the dataset cannot be decoded (a damaged Arrow file?): "
                          f"{type(exc).__name__}: {exc}"[:300], file=source.name, line=1) from None


def _check_arrow(path: Path, file: str) -> None:
    """Refuse an Arrow file whose buffers do not hold what its metadata says, before
    ``datasets`` maps it into memory: read through a map, an offset past the end of
    the file kills the process (SIGBUS, found by the fuzzer) instead of raising. The
    file is read once into memory and checked in full by pyarrow (offsets, lengths,
    UTF-8)."""
    import pyarrow as pa

    data = path.read_bytes()
    try:
        try:
            reader = pa.ipc.open_stream(pa.BufferReader(data))
        except pa.ArrowInvalid:
            reader = pa.ipc.open_file(pa.BufferReader(data))
        reader.read_all().validate(full=True)
    except Exception as exc:  # noqa: BLE001 - pyarrow refuses damaged buffers in many ways
        message = str(exc)
        if "utf8" in message.lower() or "utf-8" in message.lower():
            message = f"a text is not UTF-8 ({message})"
        raise FormatError(f"not a readable Hugging Face dataset: {path.name}: {type(exc).__name__}: "
                          f"{message}"[:300], file=file, line=1) from None


def _list_of_dicts(value: Any) -> list[dict] | None:
    """``sentences`` as a list of dicts (``datasets.Sequence`` of a dict gives a dict of lists)."""
    if isinstance(value, list) and all(isinstance(v, dict) for v in value):
        return value
    if isinstance(value, dict) and value and all(isinstance(v, list) for v in value.values()):
        count = len(next(iter(value.values())))
        if all(len(v) == count for v in value.values()):
            return [{key: value[key][i] for key in value} for i in range(count)]
    return None


def _detect(row: dict, fail: Any) -> str:
    if "coref_chains" in row:
        return "indiscrim"
    sentences = _list_of_dicts(row.get("sentences"))
    if sentences is not None and (not sentences or "coref_spans" in sentences[0]):
        return "ontonotes"
    raise fail(f"no known coreference layout has these columns ({', '.join(row)}); known: ontonotes "
               "(document_id, sentences with coref_spans), indiscrim (id, sentences, coref_chains)")


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _document(row: dict, number: int, layout: str | None, file: str, report: Report) -> Any:
    def fail(message: str) -> FormatError:
        return FormatError(f"row {number}: {message}", file=file, line=number)

    if not isinstance(row, dict):
        raise fail("a row must be a record")
    layout = layout or _detect(row, fail)
    sentences = _list_of_dicts(row.get("sentences"))
    if sentences is None:
        raise fail("sentences must be a list of records")
    forms: list[str] = []
    speakers: list[str | None] = []
    starts: list[int] = []
    for k, sentence in enumerate(sentences):
        if layout == "ontonotes":
            words = sentence.get("words")
        else:
            tokens = sentence.get("tokens")
            words = [t.get("text") if isinstance(t, dict) else t for t in tokens] if isinstance(tokens, list) else None
        if not isinstance(words, list) or not all(isinstance(w, str) for w in words):
            raise fail(f"sentence {k}: words must be a list of strings")
        starts.append(len(forms))
        forms.extend(words)
        speaker = sentence.get("speaker")
        speakers.extend([speaker if isinstance(speaker, str) and speaker not in ("", "-", "_") else None] * len(words))
    lengths = [(starts[k + 1] if k + 1 < len(starts) else len(forms)) - starts[k] for k in range(len(starts))]
    mentions: list[tuple[str, int, int]] = []  # (cluster, first, last)
    if layout == "ontonotes":
        for k, sentence in enumerate(sentences):
            spans = sentence.get("coref_spans") or []
            if not isinstance(spans, list):
                raise fail(f"sentence {k}: coref_spans must be a list of [cluster, start, end]")
            for span in spans:
                if not isinstance(span, list) or len(span) != 3 or not all(_is_int(x) for x in span):
                    raise fail(f"sentence {k}: coref span {span!r} is not [cluster, start, end]"[:200])
                cluster, a, b = span
                if not 0 <= a <= b < lengths[k]:
                    raise fail(f"sentence {k}: coref span {span} is outside its {lengths[k]} words")
                mentions.append((str(cluster), starts[k] + a, starts[k] + b))
        doc_id = row.get("document_id")
        values = {s.get("part_id") if _is_int(s.get("part_id")) else None for s in sentences}
        parts = values - {None}
        part = str(parts.pop()) if len(parts) == 1 else None
        if len(values) > 1:  # one document has one part: say which was kept
            shown = ", ".join(sorted(str(v) if v is not None else "none" for v in values))
            report.warning("hf.mixed-parts", "sentences of one row name different parts (part_id); the "
                           "document gets the one part some name, or none when they name several",
                           line=number, file=file, merge=True, example=f"row {number}: {shown} -> {part or 'none'}")
    else:
        chains = row.get("coref_chains")
        if not isinstance(chains, list):
            raise fail("coref_chains must be a list of chains")
        for c, chain in enumerate(chains):
            if not isinstance(chain, list):
                raise fail(f"chain {c} is not a list of [sentence, start, end]")
            for mention in chain:
                if not isinstance(mention, list) or len(mention) != 3 or not all(_is_int(x) for x in mention):
                    raise fail(f"chain {c}: mention {mention!r} is not [sentence, start, end]"[:200])
                s, a, b = mention
                if not 0 <= s < len(sentences):
                    raise fail(f"chain {c}: mention {mention} names sentence {s} of {len(sentences)}")
                if not 0 <= a <= b < lengths[s]:
                    raise fail(f"chain {c}: mention {mention} is outside the {lengths[s]} words of sentence {s}")
                mentions.append((str(c), starts[s] + a, starts[s] + b))
        doc_id = row.get("id")
        part = None
    entities = list(dict.fromkeys(cluster for cluster, _, _ in mentions))
    markables = [model.Markable.fast(f"markable_{i + 1}", ((a, b),), cluster) for i, (cluster, a, b) in
                 enumerate(mentions)]
    bounds = [model.Sentence(first=starts[k], last=starts[k] + lengths[k] - 1, id=None, comments=[],
                                   interleaved=[], attributes={}) for k in range(len(starts)) if lengths[k]]
    attributes = {"speaker": speakers} if any(s is not None for s in speakers) else {}
    try:
        return model.Document.build(
            name=doc_id if isinstance(doc_id, str) and doc_id else f"document_{number}", part=part, metadata={},
            tokens=model.Tokens(forms=forms, ids=None, whitespace=None, offsets=None, attributes=attributes),
            sentences=bounds, markables=markables,
            entities=[model.Entity(id=e, attributes={}) for e in entities], links=[], layout={},
        )
    except ModelError as exc:
        raise fail(str(exc)) from None


def stream(source: Source, *, report: Report, strict: bool = False, layout: str | None = None,
           split: str | None = None) -> Iterator[Any]:
    count = 0
    for count, row in enumerate(_rows(source, split), 1):
        yield _document(row, count, layout, source.name, report)
    if count == 0:
        raise FormatError("the dataset has no row: no document", file=source.name, line=1)


def read(source: Source, *, report: Report, strict: bool = False, layout: str | None = None,
         split: str | None = None) -> Any:
    """Read a saved dataset, a .parquet or an .arrow file (one document per row)."""
    return model.Corpus(documents=list(stream(source, report=report, strict=strict, layout=layout,
                                                    split=split)),
                              metadata={}, schemes=[], layout={})


def _sentences(doc: Any) -> list[tuple[int, int]]:
    forms = doc.tokens.forms
    return [(s.first, s.last) for s in doc.sentences] or ([(0, len(forms) - 1)] if forms else [])


#: the range of the ``part_id`` column (int32, as in ``conll2012_ontonotesv5``)
PART_RANGE = (-(2**31), 2**31 - 1)
_INTEGER = re.compile(r"^-?[0-9]{1,10}$")


def _part_id(doc: Any, log: LossLog) -> int | None:
    """The ``part_id`` of a document's sentences: its part as a number, or null for a
    document without part (read back as none). A part that is not a number in the
    column's range cannot be written (``loss.part``, written as null); leading zeros
    go (``000`` is ``0``: parts pair as numbers)."""
    part = doc.part
    if part is None:
        return None
    if _INTEGER.match(part) and PART_RANGE[0] <= int(part) <= PART_RANGE[1]:
        value = int(part)
        if part.startswith("-") and str(value) != part:  # "-0", "-01": another part when read back
            log.lose("part", "a part number with a sign and leading zeros (written as null: no part)",
                     document=doc, example=repr(part))
            return None
        return value
    log.lose("part", "a part that is not a 32-bit integer (written as null: no part)", document=doc,
             example=repr(part[:40]))
    return None


def _row(doc: Any, layout: str, log: LossLog) -> dict:
    sentences = _sentences(doc)
    sentence_of = {}
    for k, (a, b) in enumerate(sentences):
        for i in range(a, b + 1):
            sentence_of[i] = k
    speaker = doc.tokens.attributes.get("speaker")
    forms = doc.tokens.forms
    chains = []
    for chain in doc.chain_indices():
        spans = []
        for k in chain:
            m = doc.markables[k]
            s = sentence_of[m.first]
            if sentence_of[m.last] == s:  # a mention across sentences: reported as loss.cross-sentence
                spans.append((s, m.first - sentences[s][0], m.last - sentences[s][0]))
        chains.append(spans)
    if layout == "ontonotes":
        coref: list[list[list[int]]] = [[] for _ in sentences]
        for c, spans in enumerate(chains):
            for s, a, b in spans:
                coref[s].append([c, a, b])
        part = _part_id(doc, log)
        return {"document_id": doc.name, "sentences": [
            {"part_id": part, "words": forms[a : b + 1],
             "speaker": (speaker[a] or "-") if speaker is not None else "-", "coref_spans": coref[k]}
            for k, (a, b) in enumerate(sentences)]}
    if doc.part is not None:
        log.lose("part", "document parts (the indiscrim layout has none)", document=doc, example=repr(doc.part[:40]))
    whitespace = doc.tokens.whitespace
    texts = []
    for a, b in sentences:
        if whitespace is not None:
            texts.append("".join(forms[i] + (whitespace[i] if i < b else "") for i in range(a, b + 1)))
        else:
            texts.append(" ".join(forms[a : b + 1]))
    return {"id": doc.name, "text": doc.text if doc.text is not None else " ".join(texts), "sentences": [
        {"id": k + 1, "speaker": (speaker[a] or "") if speaker is not None else "", "text": texts[k],
         "tokens": [{"id": i - a + 1, "text": forms[i]} for i in range(a, b + 1)]}
        for k, (a, b) in enumerate(sentences)],
        "coref_chains": [[list(span) for span in spans] for spans in chains]}


def _features(datasets: Any, layout: str) -> Any:
    string, number = datasets.Value("string"), datasets.Value("int32")
    if layout == "ontonotes":
        return datasets.Features({"document_id": string, "sentences": [{
            "part_id": number, "words": datasets.Sequence(string), "speaker": string,
            "coref_spans": datasets.Sequence(datasets.Sequence(number, length=3))}]})
    return datasets.Features({"id": string, "text": string, "sentences": [{
        "id": number, "speaker": string, "text": string, "tokens": [{"id": number, "text": string}]}],
        "coref_chains": datasets.Sequence(datasets.Sequence(datasets.Sequence(number, length=3)))})


def write_files(corpus: Any, *, report: Report, layout: str | None = None) -> dict[str, bytes]:
    """The files of a ``save_to_disk`` directory holding one row per document."""
    datasets = require_datasets()
    layout = layout or "ontonotes"
    log = LossLog(report, "hf-datasets")
    rows = [_row(doc, layout, log) for doc in corpus.documents]
    dataset = datasets.Dataset.from_list(rows, features=_features(datasets, layout))
    out: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory(prefix="corefio-hf-") as tmp, _quiet(datasets):
        dataset.save_to_disk(tmp)
        for path in sorted(Path(tmp).rglob("*")):
            if path.is_file():
                out[path.relative_to(tmp).as_posix()] = path.read_bytes()
    return out


register(
    FormatSpec(
        name="hf-datasets",
        description="Hugging Face datasets: conll2012_ontonotesv5 or coref-data indiscrim rows "
                    "(save_to_disk directory, .parquet, .arrow; extra `hf`)",
        extensions=(".parquet", ".arrow"),
        capabilities=Capabilities(
            discontinuous=False, nested=True, crossing=True, same_entity_overlap=True, cross_sentence=False,
            token_attributes=frozenset({"speaker"}), sentences=True, multiple_documents=True,
        ),
        read=read,
        stream=stream,
        write_files=write_files,
        options=(
            Option("layout", str, None, "ontonotes or indiscrim (reading: told from the columns; writing: "
                   "ontonotes)", applies_to="read", choices=LAYOUTS),
            Option("split", str, None, "the split of a DatasetDict to read (default: all, in order)",
                   applies_to="read"),
            Option("layout", str, None, "ontonotes (default) or indiscrim", applies_to="write", choices=LAYOUTS),
        ),
        aliases=("hf", "huggingface", "datasets"),
        directory=True,
        sniff_directory=is_saved_dataset,
    )
)
