"""Accept a contingency table or two partitions (helper for the metric functions)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable

from .base import Contingency


def as_table(key: Contingency | Iterable[Iterable[Hashable]],
             response: Iterable[Iterable[Hashable]] | None = None) -> Contingency:
    if isinstance(key, Contingency):
        if response is not None:
            raise TypeError("give a contingency table or two partitions, not both")
        return key
    if response is None:
        raise TypeError("a response partition is needed")
    return Contingency.from_partitions(key, response)
