"""Coreference metrics: small pure functions over two partitions or a contingency table.

=================  ==============================================================  ===========
name               metric                                                          returns
=================  ==============================================================  ===========
``mentions``       mention identification (exact spans)                            Score
``muc``            MUC (Vilain et al. 1995)                                        Score
``bcub``           B³, equal weight per mention (Bagga & Baldwin 1998)             Score
``bcub_class``     B³, equal weight per class                                      Score
``ceafm``          CEAF φ3, mention-based (Luo 2005)                               Score
``ceafe``          CEAF φ4, entity-based (Luo 2005)                                Score
``blanc``          BLANC (Recasens & Hovy 2011; Luo et al. 2014)                   BlancScore
``lea``            LEA (Moosavi & Strube 2016)                                     Score
``conll``          mean F1 of muc, bcub, ceafe (Denis & Baldridge 2009)            (average)
``bcub_0`` …       B³_0, B³_all, B³_r&n, B³_sys (Cai & Strube 2010)                Score
``ceafm_orig`` …   CEAF_orig, CEAF_r&n, CEAF_sys, φ3 (ceafm_*) and φ4 (ceafe_*)    Score
``kappa``          κ (Passonneau 1997; seed 000 DEF.7)                             Value
``core``           core classes C (seed 000 DEF.11-14)                             Score
``xcore``          exclusive core classes XC (seed 000 §3.5.4)                     Score
``info``           information measure H (seed 000 DEF.15-17)                      (Value, Value)
``dmt``            distributional match (seed 000 §3.7)                            Value
``derr``           distributional error and its direction (seed 000 §3.7)          Value
``typed``          typed evaluation (Žitkus et al. 2023, seed 004)                 TypedResult
=================  ==============================================================  ===========
"""

from .agreement import kappa
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
from .typed import TypedCounts, TypedResult, macro_average, micro_average, typed_evaluation

__all__ = [
    "BlancScore", "Contingency", "Score", "Value", "TypedCounts", "TypedResult",
    "b_cubed", "b_cubed_0", "b_cubed_all", "b_cubed_class", "b_cubed_rn", "b_cubed_sys",
    "blanc", "ceaf_entity", "ceaf_mention", "ceaf_orig", "ceaf_rn", "ceaf_sys", "core_class",
    "d_err", "dmt", "exclusive_core", "information", "kappa", "lea", "macro_average",
    "mention_identification", "micro_average", "muc", "typed_evaluation",
]
