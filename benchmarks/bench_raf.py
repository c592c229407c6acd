"""RAF 2.0 at corpus size: file size, write, read, validate and view.

    python benchmarks/bench_raf.py [DATADIR]     # default benchmarks/data (generated if missing)

On the benchmark key (``generate_corpus.py``: 280 CoNLL-2012 documents, about 270,000
tokens and 75,000 mentions) it prints, each measured in a fresh process (time, and peak
resident memory of that process):

* the size of the RAF file against the CoNLL file (goal: at most 4×);
* writing the RAF file from the corpus in memory, and ``corefio convert`` CoNLL → RAF
  streamed one document at a time;
* reading it back whole (``corefio.read``) and streamed (``corefio.iter_read``)
  (goal: write and read back within 3 s and 500 MB);
* ``corefio validate`` of the RAF file (goal: 5 s, 500 MB), and the XSD check alone with
  lxml (libxml2) against the ``xmlschema`` package on the largest document;
* the HTML view of the largest document with lxml and with ``xsltproc`` (goal: 2 s
  each), and of single documents of about 10,000 to 77,000 words: a constant time per
  word means the view is linear.

Timings are the best of three runs of the step itself (imports excluded), as wall-clock
and as CPU seconds of the process (on a shared machine the CPU time is the figure to
compare), after a calibration loop and the load average; memory is
``ru_maxrss`` of the step's process, imports and the input corpus included.
"""

from __future__ import annotations

import json
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


REPEAT = 3


CPU: dict[str, float] = {}


def _best(run) -> float:
    """The shortest wall-clock time of ``REPEAT`` runs of ``run()`` (the machine may be
    shared); the shortest CPU time of this process is kept in ``CPU["last"]``."""
    times, cpu = [], []
    for _ in range(REPEAT):
        t, c = time.perf_counter(), time.process_time()
        run()
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    CPU["last"] = min(cpu)
    return min(times)


def calibration() -> float:
    """Seconds for a fixed pure-Python loop: compare runs on different machines or loads."""
    def loop():
        total = 0
        for i in range(3_000_000):
            total += i
    return _best(loop)


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _step(name: str, *args: str, fatal: bool = True) -> dict | None:
    """Run ``step_<name>`` in a fresh interpreter; it prints one JSON line."""
    out = subprocess.run([sys.executable, __file__, "--step", name, *args], capture_output=True, text=True)
    if out.returncode != 0:
        if fatal:
            raise SystemExit(f"step {name} failed:\n{out.stderr}")
        print(f"step {name} failed: {out.stderr.strip().splitlines()[-1]}")
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


# -- steps (each in its own process) ------------------------------------------------------------
def step_write(conll_path: str, raf_path: str) -> dict:
    import corefio
    from corefio.diagnostics import Report
    from corefio.formats import raf

    corpus = corefio.read(conll_path)
    before = _rss_mb()

    def run():
        with open(raf_path, "wb") as f:
            for piece in raf.write(corpus.documents, corpus=corpus.model_copy(update={"documents": []}),
                                   report=Report()):
                f.write(piece)
    seconds = _best(run)
    return {"seconds": seconds, "cpu": CPU["last"], "peak_mb": _rss_mb(), "model_mb": before}


def step_conll_read(conll_path: str) -> dict:
    """The CoNLL reader on the same corpus: a yardstick measured in the same run."""
    import corefio

    seconds = _best(lambda: corefio.read(conll_path))
    return {"seconds": seconds, "cpu": CPU["last"], "peak_mb": _rss_mb()}


def step_convert(conll_path: str, raf_path: str) -> dict:
    import corefio

    t = time.perf_counter()
    corefio.convert(conll_path, raf_path, to_format="raf")
    return {"seconds": time.perf_counter() - t, "peak_mb": _rss_mb()}


def step_read(raf_path: str) -> dict:
    import corefio

    found = []
    seconds = _best(lambda: (found.clear(), found.append(corefio.read(raf_path))))
    corpus = found[0]
    return {"seconds": seconds, "cpu": CPU["last"], "peak_mb": _rss_mb(), "documents": len(corpus.documents),
            "tokens": sum(len(d.tokens.forms) for d in corpus.documents),
            "markables": sum(len(d.markables) for d in corpus.documents)}


def step_stream(raf_path: str) -> dict:
    import corefio

    counts = []
    seconds = _best(lambda: counts.append(sum(1 for _ in corefio.iter_read(raf_path))))
    return {"seconds": seconds, "cpu": CPU["last"], "peak_mb": _rss_mb(), "documents": counts[-1]}


def step_same(conll_path: str, raf_path: str) -> dict:
    """Does the RAF file read back to the model the CoNLL reader built?"""
    import corefio
    from corefio.formats import raf

    a = corefio.read(conll_path)
    b = corefio.read(raf_path)
    data = Path(raf_path).read_bytes()
    return {"equal": a == b, "bytes_identical": raf.dumps(b) == data}


def step_validate(raf_path: str) -> dict:
    from corefio.checks.validation import validate_file

    reports = []
    seconds = _best(lambda: reports.append(validate_file(raf_path)))
    report = reports[-1]
    return {"seconds": seconds, "cpu": CPU["last"], "peak_mb": _rss_mb(), "errors": len(report.errors),
            "codes": sorted(report.codes())}


def step_xsd(raf_path: str, engine: str) -> dict:
    from lxml import etree

    from corefio.io.resources import schema_path

    tree = etree.parse(raf_path)
    if engine == "lxml":
        schema = etree.XMLSchema(etree.parse(str(schema_path("raf.xsd"))))
        check = schema.validate
    else:
        import xmlschema

        check = xmlschema.XMLSchema10(str(schema_path("raf.xsd"))).is_valid
    found = []
    seconds = _best(lambda: found.append(check(tree)))
    return {"seconds": seconds, "valid": bool(found[-1])}


def step_view_lxml(raf_path: str) -> dict:
    from corefio.transform.html import transform

    data = Path(raf_path).read_bytes()
    transform("raf-to-html.xsl", data)  # compile the stylesheet once, outside the timing
    pages = []
    seconds = _best(lambda: pages.append(transform("raf-to-html.xsl", data)))
    return {"seconds": seconds, "cpu": CPU["last"], "peak_mb": _rss_mb(), "bytes": len(pages[-1])}


STEPS = {"conll_read": step_conll_read, "write": step_write, "convert": step_convert, "read": step_read, "stream": step_stream,
         "same": step_same, "validate": step_validate, "xsd": step_xsd, "view_lxml": step_view_lxml}


# -- helpers run in the main process ------------------------------------------------------------
def view_xsltproc(raf_path: Path) -> float | None:
    xsltproc = shutil.which("xsltproc")
    if xsltproc is None:
        return None
    from corefio.io.resources import stylesheet_path

    command = [xsltproc, "--nonet", "--novalid", str(stylesheet_path("raf-to-html.xsl")), str(raf_path)]
    return _best(lambda: subprocess.run(command, check=True, stdout=subprocess.DEVNULL))


def merged_document(documents: list, name: str):
    """One document made of ``documents`` one after the other (ids made unique)."""
    from corefio.model import Document, Markable, Sentence, Tokens

    forms: list[str] = []
    columns: dict[str, list] = {}
    sentences, markables = [], []
    for k, doc in enumerate(documents):
        base = len(forms)
        forms.extend(doc.tokens.forms)
        for col, values in doc.tokens.attributes.items():
            columns.setdefault(col, [None] * base).extend(values)
        sentences.extend(Sentence(first=s.first + base, last=s.last + base) for s in doc.sentences)
        markables.extend(Markable(id=f"d{k}_{m.id}", spans=tuple((a + base, b + base) for a, b in m.spans),
                                  entity=None if m.entity is None else f"d{k}_{m.entity}")
                         for m in doc.markables)
    return Document(name=name, tokens=Tokens(forms=forms, attributes=columns), sentences=sentences,
                    markables=markables)


def main() -> None:
    from generate_corpus import generate

    from corefio.model import Corpus

    data = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "data"
    conll_path = data / "bench_key.v4_gold_conll"
    if not conll_path.exists():
        generate(data)
    raf_path = data / "bench_key.raf.xml"
    converted = data / "bench_key.converted.raf.xml"
    conll_bytes = conll_path.stat().st_size
    with open("/proc/loadavg") as f:
        load = f.read().split()[0]
    print(f"machine: calibration loop {calibration():.3f} s (3 million additions), "
          f"load average {load}; times are the best of {REPEAT} runs")

    w = _step("write", str(conll_path), str(raf_path))
    raf_bytes = raf_path.stat().st_size
    print(f"benchmark key: {conll_bytes / 1e6:.1f} MB CoNLL -> {raf_bytes / 1e6:.1f} MB RAF 2.0 "
          f"(ratio {raf_bytes / conll_bytes:.2f}; goal <= 4; RAF 1.0 was 211 MB, ratio 15.3)")
    print(f"write RAF from the model   {w['seconds']:6.2f} s  cpu {w['cpu']:5.2f} s  peak {w['peak_mb']:5.0f} MB "
          f"(the model alone: {w['model_mb']:.0f} MB)")
    r = _step("read", str(raf_path))
    print(f"read RAF (whole corpus)    {r['seconds']:6.2f} s  cpu {r['cpu']:5.2f} s  peak {r['peak_mb']:5.0f} MB   "
          f"{r['documents']} documents, {r['tokens']} tokens, {r['markables']} markables")
    s = _step("stream", str(raf_path))
    print(f"read RAF (streamed)        {s['seconds']:6.2f} s  cpu {s['cpu']:5.2f} s  peak {s['peak_mb']:5.0f} MB")
    cr = _step("conll_read", str(conll_path))
    print(f"(yardstick: read CoNLL      {cr['seconds']:6.2f} s  cpu {cr['cpu']:5.2f} s  peak {cr['peak_mb']:5.0f} MB; "
          f"RAF read / CoNLL read = {r['cpu'] / cr['cpu']:.2f} in CPU time)")
    total = w["seconds"] + r["seconds"]
    total_cpu = w["cpu"] + r["cpu"]
    print(f"write + read back          {total:6.2f} s  cpu {total_cpu:5.2f} s  "
          f"peak {max(w['peak_mb'], r['peak_mb']):5.0f} MB (goal <= 3 s, <= 500 MB)")
    c = _step("convert", str(conll_path), str(converted), fatal=False)
    if c is not None:
        print(f"convert CoNLL -> RAF       {c['seconds']:6.2f} s   peak {c['peak_mb']:6.0f} MB (streamed; "
              f"CoNLL reading included; was 27 s, 4 GB)")
    same = _step("same", str(conll_path), str(raf_path))
    print(f"RAF reads back to the CoNLL reader's model: {same['equal']}; rewritten bytes identical: "
          f"{same['bytes_identical']}")
    v = _step("validate", str(raf_path))
    print(f"validate RAF               {v['seconds']:6.2f} s  cpu {v['cpu']:5.2f} s  peak {v['peak_mb']:5.0f} MB   "
          f"{v['errors']} errors {v['codes']} (goal <= 5 s, <= 500 MB; was killed after 14 min)")

    # the largest document on its own, then merged documents of N and 4N words
    import corefio

    corpus = corefio.read(raf_path)
    largest = max(corpus.documents, key=lambda d: len(d.tokens.forms))
    from corefio.formats import raf

    one = data / "bench_largest.raf.xml"
    one.write_bytes(raf.dumps(Corpus(documents=[largest])))
    x_lxml = _step("xsd", str(one), "lxml")
    x_py = _step("xsd", str(one), "xmlschema")
    print(f"XSD only, largest document ({len(largest.tokens.forms)} words): lxml {x_lxml['seconds']:.4f} s, "
          f"xmlschema {x_py['seconds']:.3f} s ({x_py['seconds'] / max(x_lxml['seconds'], 1e-9):.0f}x slower)")
    vl = _step("view_lxml", str(one))
    vx = view_xsltproc(one)
    print(f"view largest document      lxml {vl['seconds']:.3f} s (cpu {vl['cpu']:.3f} s), xsltproc "
          f"{'not installed' if vx is None else f'{vx:.3f} s'} (goal <= 2 s each)")
    docs = corpus.documents
    print("view of one document made of k benchmark documents (time per word constant = linear):")
    for k in (10, 20, 40, 80):
        doc = merged_document(docs[:k], f"{k}")
        path = data / f"bench_view_{k}.raf.xml"
        path.write_bytes(raf.dumps(Corpus(documents=[doc])))
        n = len(doc.tokens.forms)
        lx = _step("view_lxml", str(path))["seconds"]
        xp = view_xsltproc(path)
        line = f"  {n:6d} words: lxml {lx:6.3f} s ({lx / n * 1e6:5.1f} us/word)"
        if xp is not None:
            line += f", xsltproc {xp:6.3f} s ({xp / n * 1e6:5.1f} us/word)"
        print(line)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--step":
        result = STEPS[sys.argv[2]](*sys.argv[3:])
        print(json.dumps(result))
    else:
        main()
