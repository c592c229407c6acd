"""Scoring: a key and a response (corpora, documents or files of any readable format)
compared with the registered metrics.

* :mod:`.registry`: every metric, once (name, function, paper, properties);
* :mod:`.documents`: which documents are compared, and where their mention views
  come from;
* :mod:`.views`: mention views → synchronisation hook → partitions → contingency table;
* :mod:`.engine`: documents scored one pair at a time, corpus scores;
* :mod:`.render`: results as JSON, CSV or the reference scorer's text.
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
