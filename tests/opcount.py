"""Counting Python work, for tests of how work grows with the input.

Times depend on the machine and on what else runs on it; the number of Python lines a
call executes does not. :func:`python_lines` counts the line events of every Python
frame (generator expressions and comprehensions included) while a function runs: a
Python loop over all sentences for each line of a file shows as work that grows with
the square of the input. Work done inside a C function (``list.index``) is one event;
tests of such code count something else (:func:`corefio.io.repair.counting`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


def python_lines(run: Callable[[], Any]) -> int:
    """How many Python lines ``run()`` executes."""
    count = 0

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        run()
    finally:
        sys.settrace(previous)
    return count


def grows_linearly(run: Callable[[str], Any], make: Callable[[int], str], size: int, factor: int = 8,
                   slack: float = 1.5) -> tuple[bool, int, int]:
    """Does ``run`` on an input ``factor`` times larger execute at most ``factor * slack``
    times as many Python lines? (small count, large count)"""
    small = python_lines(lambda: run(make(size)))
    large = python_lines(lambda: run(make(size * factor)))
    return 0 < large <= factor * slack * small, small, large
