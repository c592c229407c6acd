"""Agreement among annotators and adjudication into one gold (``corefio agree``,
``corefio adjudicate``): :mod:`.study` reads and pairs the annotations,
:mod:`.measures` measures agreement, :mod:`.adjudication` merges them."""

from .measures import Agreement, PairRow, PlaceRow, agree, measure
from .study import Study, build_study

__all__ = ["Agreement", "PairRow", "PlaceRow", "Study", "agree", "build_study", "measure"]
from .adjudication import Adjudication, Conflict, adjudicate, merge

__all__ += ["Adjudication", "Conflict", "adjudicate", "merge"]
