"""Mention identification: did the response find the key's mentions (exact spans)?"""

from __future__ import annotations

from .base import Score
from ._table import as_table


def mention_identification(key, response=None) -> Score:
    """Mention detection recall/precision with exact boundaries (scorer.pl's
    "Identification of Mentions"; Popescu-Belis et al. 2004, §2.3): matched/|E_K| and matched/|E_R|.
    A span listed more than once, on either side, is one mention
    (:class:`~corefio.metrics.base.Repeats`)."""
    t = as_table(key, response)
    r = t.repeats
    matched = t.matched - r.matched
    return Score(matched, t.n_key - r.key_mentions, matched, t.n_response - r.mentions)
