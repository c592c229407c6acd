"""Coreference metrics: small pure functions over two partitions or a contingency table.

Each function takes a :class:`Contingency` table (or a key and a response partition,
iterables of classes of hashable mentions) and returns counts (:class:`Score`,
:class:`BlancScore`) or a single value (:class:`Value`). Which metric the scorer
computes under which name, with its paper and its properties, is listed once, in
:mod:`corefio.scoring.registry`.
"""

from .agreement import KappaCounts, kappa, kappa_counts, kappa_d0
from .base import BlancScore, Contingency, Score, Value
from .bcubed import b_cubed, b_cubed_class
from .blanc import blanc
from .ceaf import ceaf_entity, ceaf_mention
from .core import core_class, exclusive_core
from .distributional import d_err, dmt
from .endtoend import b_cubed_0, b_cubed_all, b_cubed_rn, b_cubed_sys, ceaf_orig, ceaf_rn, ceaf_sys
from .information import information
from .lea import lea
from .mentions import mention_identification
from .muc import muc
from .profile import Profile
from .typed import TypedCounts, TypedResult, macro_average, micro_average, typed_evaluation

__all__ = [
    "BlancScore", "Contingency", "KappaCounts", "Profile", "Score", "Value", "TypedCounts", "TypedResult",
    "b_cubed", "b_cubed_0", "b_cubed_all", "b_cubed_class", "b_cubed_rn", "b_cubed_sys",
    "blanc", "ceaf_entity", "ceaf_mention", "ceaf_orig", "ceaf_rn", "ceaf_sys", "core_class",
    "d_err", "dmt", "exclusive_core", "information", "kappa", "kappa_counts", "kappa_d0", "lea", "macro_average",
    "mention_identification", "micro_average", "muc", "typed_evaluation",
]
