"""The Python-line counter of :mod:`tests.opcount` tells linear work from quadratic work."""

from .opcount import grows_linearly, python_lines


def _linear(text: str) -> int:
    total = 0
    for line in text.split("\n"):
        total += len(line)
    return total


def _quadratic(text: str) -> int:
    lines = text.split("\n")
    total = 0
    for line in lines:  # each line looked up among all of them, as the old LitBank reader did
        total += sum(1 for other in lines if len(other) == len(line))
    return total


def test_the_counter_tells_linear_from_quadratic():
    assert grows_linearly(_linear, lambda size: "a b\n" * (size // 4), size=400)[0]
    assert not grows_linearly(_quadratic, lambda size: "a b\n" * (size // 4), size=400)[0]


def test_the_count_is_the_same_every_time():
    text = "a b\n" * 50
    assert python_lines(lambda: _quadratic(text)) == python_lines(lambda: _quadratic(text)) > 0
