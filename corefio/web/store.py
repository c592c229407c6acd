"""The results and converted files the pages link to, kept in memory for a while.

Each item has a size in bytes (:func:`Store.add` is told it: the result's pickled
corpora, scores and CSV, or a converted file's bytes). The store keeps the newest items
whose sizes add up to at most ``max_bytes``, none older than ``max_age`` seconds, and
refuses an item larger than ``max_bytes`` on its own. Nothing is written to disk.
"""

from __future__ import annotations

import collections
import secrets
import threading
import time
from typing import Any

from .errors import WebError


class Store:
    """The latest items, by random token (see the module doc)."""

    def __init__(self, max_bytes: int, max_age: float) -> None:
        self.max_bytes = max_bytes
        self.max_age = max_age
        self.items: collections.OrderedDict[str, tuple[Any, int, float]] = collections.OrderedDict()
        self.bytes = 0
        self.lock = threading.Lock()

    def add(self, item: Any, size: int) -> str | None:
        """The item's token; None when it is larger than the whole store."""
        if size > self.max_bytes:
            return None
        token = secrets.token_urlsafe(16)
        with self.lock:
            self._expire()
            self.items[token] = (item, size, time.monotonic())
            self.bytes += size
            while self.bytes > self.max_bytes:
                _, (_, old, _) = self.items.popitem(last=False)
                self.bytes -= old
        return token

    def get(self, token: str) -> Any:
        with self.lock:
            self._expire()
            entry = self.items.get(token)
        if entry is None:
            raise WebError(404, f"this result is no longer kept (the server keeps results for "
                                f"{self.max_age / 60:g} minutes, {self.max_bytes / 2**20:g} MB in all); "
                                "upload the files again")
        return entry[0]

    def _expire(self) -> None:
        limit = time.monotonic() - self.max_age
        while self.items:
            token, (_, size, created) = next(iter(self.items.items()))
            if created >= limit:
                break
            del self.items[token]
            self.bytes -= size
