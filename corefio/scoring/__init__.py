"""Scoring: a key and a response (corpora, documents or files of any readable format)
compared with the registered metrics.

One descent: :func:`score` (:mod:`.engine`) reads both sides through the format
registry, pairs their documents and takes their mention views
(:mod:`corefio.compare.pairing`), matches or synchronises mentions (:mod:`.views`), builds
one contingency table per document pair, applies the metrics (:mod:`corefio.metrics`,
named in :mod:`.registry`) and sums their counts; :mod:`.render` prints the result.

* :mod:`.registry`: every metric, once (name, function, paper, properties);
* :mod:`.views`: mention views → synchronisation hook → partitions → contingency table;
* :mod:`.engine`: documents scored one pair at a time, corpus scores;
* :mod:`.render`: results as a table, JSON, CSV or the reference scorer's text;
* :mod:`.significance`, :mod:`.error_analysis`, :mod:`.breakdown`: ``corefio compare``,
  ``--errors``, ``--group-by``/``--by-kind``.

May import: every layer below (model, metrics, io, formats, compare); nothing above.
"""

from ..compare.pairing import match_documents, match_keys
from .engine import score, score_views
from .registry import DEFAULT_METRICS, METRICS, REGISTRY, Metric, get_metric, markdown_table, metric_help, resolve_metrics
from .render import DocumentScores, Scores, SyncScores, to_jsonable, typed_json
from .views import drop_singletons, partition, synchronise

__all__ = [
    "DEFAULT_METRICS", "METRICS", "REGISTRY", "DocumentScores", "SyncScores", "Metric", "Scores", "drop_singletons",
    "get_metric", "markdown_table", "match_documents", "metric_help", "match_keys", "partition", "resolve_metrics", "score",
    "score_views", "synchronise", "to_jsonable", "typed_json",
]
