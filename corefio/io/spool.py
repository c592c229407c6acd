"""Objects kept on disk until they are needed, so that memory does not grow with the input.

A :class:`Spool` pickles objects one after another into an anonymous temporary file
(removed by the system when it is closed, or when the process ends however it ends)
and gives them back in order or by number. ``sync`` keeps the synchronised response
documents in one until the key file is written; scoring files of a format without a
fast path keeps the mention views of a large file in one (a view holds every word of
its document: the views of both sides of a 100x corpus would take gigabytes).
"""

from __future__ import annotations

import pickle
import tempfile
from collections.abc import Iterator
from typing import Any


class Spool:
    """A list of objects on disk: :meth:`append`, ``spool[i]``, ``iter(spool)``, ``len(spool)``."""

    def __init__(self) -> None:
        self.file = tempfile.TemporaryFile()
        #: where each object starts in the file
        self.offsets: list[int] = []

    def append(self, obj: Any) -> None:
        self.offsets.append(self.file.seek(0, 2))
        pickle.dump(obj, self.file, protocol=pickle.HIGHEST_PROTOCOL)

    def __len__(self) -> int:
        return len(self.offsets)

    def __getitem__(self, number: int) -> Any:
        self.file.seek(self.offsets[number])
        return pickle.load(self.file)

    def __iter__(self) -> Iterator[Any]:
        if self.offsets:
            self.file.seek(self.offsets[0])
        for _ in range(len(self.offsets)):
            yield pickle.load(self.file)  # one after the other: no seek between them

    def close(self) -> None:
        self.file.close()
