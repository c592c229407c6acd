"""Cross-document scoring: time against the reference scorer, memory as topics are added.

    python benchmarks/bench_cdcr.py                  # 10 topics (ECB+'s test split has 10)
    python benchmarks/bench_cdcr.py --topics 20 --scorer /path/to/reference-coreference-scorers

The corpus: the ECB+-layout corpus built from GUM (tests/data/cdcr/gum-ecb), its three
topics copied (renumbered, every document renamed) until there are ``--topics`` topics
of ``--copies`` copies of a topic's two documents (10 topics of 4 documents: about 5,600
mentions, the size of ECB+'s test split), the key and the same-last-word baseline
response. For events and for entities (as the
CDCR papers score them), the key and response are written as Cattan et al.'s
topic-level meta-document CoNLL files (one block per topic; corefio's writer, the layout
of ``ariecattan/coref``'s ``conll.py``), then

* ``scorer.pl`` (v8.01) scores the files with MUC, B³ and CEAFe (the CoNLL average: what
  the papers report), CPU time of the child processes, one run (it takes minutes);
* corefio scores the same files (``--cross-document block``) and the ECB+ folders
  (``--cross-document topic``) with the same metrics, CPU time of this process, best of
  three;

and the two are checked to agree (the CoNLL average: scorer.pl's line is the mean of its
F1s as printed, truncated to two decimals, so it may be 0.01 below corefio's). Target: corefio takes no longer than
scorer.pl on the same file.

Memory: the peak of Python allocations (tracemalloc) while scoring the topics one unit
at a time, for corpora of 2 to 256 topics already read; the target is that it stays
flat (a unit's views are dropped once scored; the engine sums the units' tables in
batches of bounded size) while the corpus itself grows. Measured: 0.7 MB (2 topics),
2.9 MB (32), 4.1 MB (128 and 256 topics, 150,000 mentions).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from corefio.formats.readwrite import dumps, read, write  # noqa: E402
from corefio.model import Corpus, CrossEntity  # noqa: E402
from corefio.model.crossdoc import SUBTOPIC, TOPIC  # noqa: E402
from corefio.scoring.crossdoc import CrossSettings, score_cross  # noqa: E402

GUM = HERE.parent / "tests" / "data" / "cdcr" / "gum-ecb"


def replicate(corpus: Corpus, topics: int, copies: int = 1) -> Corpus:
    """``topics`` topics: the corpus's topics copied, renumbered from 1, each holding
    ``copies`` copies of the source topic's documents (renamed ``<t>_<n>ecb...``)."""
    base = sorted({d.metadata[TOPIC] for d in corpus.documents}, key=int)
    documents, cross = [], []
    for t in range(topics):
        source = base[t % len(base)]
        new = str(t + 1)
        for c in range(copies):
            renamed = {}
            for d in corpus.documents:
                if d.metadata[TOPIC] != source:
                    continue
                number, half = d.name[len(source) + 1:].split("ecb", 1)
                name = f"{new}_{int(number) + 10 * c}ecb{half}"
                renamed[d.name] = name
                documents.append(d.copy(name=name, metadata={**d.metadata, TOPIC: new, SUBTOPIC: f"{new}ecb{half}"}))
            for e in corpus.cross_entities:
                if all(doc in renamed for doc, _ in e.members):
                    cross.append(CrossEntity(id=f"{e.id[:3]}{t}{c}{e.id[3:]}", attributes=e.attributes,
                                             members=tuple((renamed[doc], m) for doc, m in e.members)))
    return Corpus(documents=documents, cross_entities=cross)


def cpu(fn, repeat: int = 3) -> tuple[float, object]:
    best, result = None, None
    for _ in range(repeat):
        start = time.process_time()
        result = fn()
        spent = time.process_time() - start
        best = spent if best is None else min(best, spent)
    return best, result


def scorer_pl(scorer: Path, key: Path, response: Path, metrics: str) -> tuple[float, float]:
    """CPU seconds of ``scorer.pl`` (user and system time of the child; the machine may
    be shared) for each of ``metrics``, and the CoNLL average it implies."""
    import resource

    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    f1 = []
    for metric in metrics.split(","):
        text = subprocess.run(["perl", "scorer.pl", metric, str(key), str(response), "none"], cwd=scorer,
                              capture_output=True, text=True, check=True).stdout
        totals = [line for line in text.splitlines() if line.startswith("Coreference: Recall")]
        f1.append(float(totals[-1].rsplit("F1: ", 1)[1].rstrip("%")))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    spent = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return spent, sum(f1) / len(f1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--topics", type=int, default=10)
    parser.add_argument("--copies", type=int, default=2, help="copies of a topic's documents in each topic")
    parser.add_argument("--scorer", type=Path, default=Path("/work/judges/conll+reference-coreference-scorers"))
    parser.add_argument("--memory", default="2,8,32,128,256")
    args = parser.parse_args()
    key = replicate(read(GUM / "key", "ecbplus"), args.topics, args.copies)
    response = replicate(read(GUM / "response", "ecbplus"), args.topics, args.copies)
    mentions = sum(len(d.markables) for d in key.documents)
    print(f"{args.topics} topics, {len(key.documents)} documents, {mentions} mentions")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        write(key, folder / "key", "ecbplus")
        write(response, folder / "response", "ecbplus")
        for kind in ("event", "entity"):
            files = {}
            for side, corpus in (("key", key), ("response", response)):
                files[side] = folder / f"{side}_{kind}_topic_level.conll"
                files[side].write_text(dumps(corpus, "cdcr-conll", unit="topic", mention_type=kind,
                                             validated_only=True))
            def on_files(files: dict = files) -> object:
                return score_cross(read(files["key"], "cdcr-conll"), read(files["response"], "cdcr-conll"),
                                   ["muc", "bcub", "ceafe", "conll"], settings=CrossSettings(level="block"))

            def on_folders(kind: str = kind) -> object:
                return score_cross(folder / "key", folder / "response", ["muc", "bcub", "ceafe"],
                                   key_format="ecbplus", response_format="ecbplus",
                                   settings=CrossSettings("topic", True, kind, True))

            ours_file, scores = cpu(on_files)
            ours_folder, _ = cpu(on_folders)
            line = (f"{kind:6}  corefio (meta-document file) {ours_file:7.2f} s   corefio (ECB+ folders) "
                    f"{ours_folder:7.2f} s")
            if (args.scorer / "scorer.pl").is_file():
                theirs, conll = scorer_pl(args.scorer, files["key"], files["response"], "muc,bcub,ceafe")
                ours_conll = float(scores["conll"].f1) * 100
                line += (f"   scorer.pl {theirs:7.2f} s   ratio {ours_file / theirs:.3f}   CoNLL F1 "
                         f"{ours_conll:.2f} vs {conll:.2f}")
            print(line)
    print("peak memory of scoring, corpus already read (tracemalloc):")
    for n in (int(x) for x in args.memory.split(",")):
        k = replicate(read(GUM / "key", "ecbplus"), n, args.copies)
        r = replicate(read(GUM / "response", "ecbplus"), n, args.copies)
        tracemalloc.start()
        score_cross(k, r, ["muc", "bcub", "ceafe", "lea"], settings=CrossSettings("topic", True, "all", True))
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(f"  {n:3} topics: {peak / 1e6:7.2f} MB")


if __name__ == "__main__":
    main()
