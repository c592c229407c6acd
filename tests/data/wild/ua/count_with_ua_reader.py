"""Counts of a .CONLLUA file as the UA scorer 2.0's own reader (scorer.ua.reader.UAReader of
juntaoy/universal-anaphora-scorer, branch v2.0-Beta-Michal, 127ba3d8807fd30dabce6be9a8a755aec20bde9f)
reads it; the manifest's judge_counts of this family come from it. Not run by the tests:

    cd $JUDGES/ua-scorer-v2 && PYTHONPATH=. python .../tests/data/wild/ua/count_with_ua_reader.py FILE

Mentions, entities and singletons from the identity column (non-referring markables
included, each -Pseudo entity one group), bridging from the bridging column, split
antecedents from ElementOf in the identity and the discourse-deixis columns. Prints JSON."""
import json
import sys

from scorer.ua.reader import UAReader

reader = UAReader(keep_singletons=True, keep_bridging=True, keep_non_referring=True,
                  keep_split_antecedents=True, keep_zeros=True)
docs = reader.get_all_docs(sys.argv[1])
out = dict(documents=len(docs), tokens=0, empty_nodes=0, mentions=0, entities=0, singletons=0,
           bridging=0, split_antecedents=0)
for name, lines in docs.items():
    out["tokens"] += len(reader.get_doc_tokens_without_zeros(lines))
    out["empty_nodes"] += sum("." in line.split()[0] for line in lines)
    clusters, bridging = reader.get_doc_markables(name, lines, markable_column=10)
    out["mentions"] += sum(len(c[0]) for c in clusters.values())
    out["entities"] += len(clusters)
    out["singletons"] += sum(len(c[0]) == 1 for c in clusters.values())
    out["bridging"] += len(bridging)
    out["split_antecedents"] += sum(len(c[3]) for c in clusters.values())
    dd, _ = reader.get_doc_markables(name, lines, markable_column=12)
    out["split_antecedents"] += sum(len(c[3]) for c in dd.values())
print(json.dumps(out))
