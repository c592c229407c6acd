"""The cost of scoring bridging and split antecedents (Universal Anaphora scoring) on GUM.

    python benchmarks/bench_ua_scoring.py [GUM-TSV-DIRECTORY]

Reads the GUM WebAnno TSV documents (default: ``/work/shared/corpora/gum/coref/gum/tsv``,
or ``$COREFIO_GUM_TSV``) once, makes a response from each by dropping every fifth
markable's links and relations, and times (CPU seconds of this process, best of five)
``corefio.scoring.anaphora.score_documents`` with identity alone (MUC, B3, CEAFe,
singletons kept) and with split antecedents plus bridging (the same metrics on chains
with split-antecedent mentions, and the three bridging scores). Prints both times and
their ratio (target: at most 1.5), and, for comparison, the time of corefio's ordinary
identity scorer on the same documents.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from corefio import api  # noqa: E402
from corefio.scoring import anaphora as S  # noqa: E402


def best_of(fn, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    return min(times)


def damaged(doc):
    """The document with every fifth markable's links (identity, bridging, split) removed."""
    dropped = {m.id for i, m in enumerate(doc.markables) if i % 5 == 4}
    links = [link for link in doc.links if link.source not in dropped]
    return doc.model_copy(update={"links": links})


def main() -> None:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else
                  os.environ.get("COREFIO_GUM_TSV", "/work/shared/corpora/gum/coref/gum/tsv"))
    files = sorted(folder.glob("*.tsv"))
    if not files:
        raise SystemExit(f"no GUM .tsv files in {folder}")
    keys = [doc for f in files for doc in api.read(f).documents]
    pairs = [(doc, damaged(doc)) for doc in keys]
    mentions = sum(len(d.markables) for d in keys)
    bridges = sum(1 for d in keys for link in d.links if S._is_bridging(link.type))
    splits = sum(1 for d in keys for link in d.links if link.type == S.SPLIT_ANTECEDENT)
    identity = S.AnaphoraSettings(identity=True)
    richer = S.AnaphoraSettings(split_antecedents=True, bridging=True)
    t_identity = best_of(lambda: S.score_documents(pairs, identity))
    t_richer = best_of(lambda: S.score_documents(pairs, richer))
    from corefio.scoring import score
    from corefio.model import Corpus

    key_corpus = Corpus(documents=[k for k, _ in pairs])
    response_corpus = Corpus(documents=[r for _, r in pairs])
    t_engine = best_of(lambda: score(key_corpus, response_corpus, ["muc", "bcub", "ceafe"]))
    print(f"GUM: {len(keys)} documents, {mentions} markables, {bridges} bridging and {splits} split-antecedent links")
    print(f"identity alone (UA scoring, muc/bcub/ceafe):    {t_identity:.3f} s")
    print(f"split antecedents + bridging (UA scoring):      {t_richer:.3f} s")
    print(f"ratio: {t_richer / t_identity:.2f}x (target <= 1.5x)")
    print(f"corefio's ordinary identity scorer, for comparison: {t_engine:.3f} s")


if __name__ == "__main__":
    main()
