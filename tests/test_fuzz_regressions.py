"""Defects the fuzzer found (``python -m tests.fuzz``), each on a small input built here
and on the minimised input it saved (``tests/data/regressions/fuzz/``, which
``tests/fuzz/test_fuzz_budget.py`` also replays through every check); and a defect of the
fuzzer itself that stopped a campaign."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import corefio
from corefio.errors import CorefioError
from corefio.model import zeros

from .conftest import DATA, REPO

FUZZ = DATA / "regressions" / "fuzz"


def conllu_with_empty_node(token_id: str) -> str:
    return ("# newdoc id = d\n# sent_id = s1\n# text = Kim left\n"
            "1\tKim\t_\t_\t_\t_\t2\tnsubj\t2:nsubj\tEntity=(e1-person-1)\n"
            f"{token_id}\tshe\t_\t_\t_\t_\t_\t_\t2:nsubj\tEntity=(e1-person-1)\n"
            "2\tleft\t_\t_\t_\t_\t0\troot\t0:root\t_\n\n")


@pytest.mark.parametrize("token_id", ["1." + "9" * 5000, "9" * 5000 + ".1"], ids=["k", "word"])
def test_an_empty_node_id_of_thousands_of_digits_is_read_or_refused_never_a_value_error(tmp_path: Path, token_id):
    """Seed 4127, conllu: an empty node ``1.999…9`` (5,000 digits) made scoring from paths
    raise ValueError (int() refuses over 4,300 digits) in ``model/zeros.py``."""
    path = tmp_path / "huge.conllu"
    path.write_text(conllu_with_empty_node(token_id))
    for call in (lambda: corefio.read(path), lambda: corefio.score(path, path)):
        try:
            call()
        except CorefioError:
            pass


def test_written_number_takes_at_most_eighteen_digits():
    assert zeros._written_number("1.3", 1) == 3
    assert zeros._written_number("1." + "9" * 18, 1) == int("9" * 18)
    assert zeros._written_number("1." + "9" * 19, 1) is None
    assert zeros._written_number("9" * 5000 + ".1", 1) is None


def test_the_saved_input_scores_against_itself():
    path = FUZZ / "conllu-exception-score-self-paths-05677e18.conllu"
    corpus = corefio.read(path)
    assert [len(d.tokens) for d in corpus.documents] == [2]
    mentions = corefio.score(path, path).to_dict(per_document=False)["corpus"]["mentions"]
    assert mentions == corefio.score(corpus, corpus).to_dict(per_document=False)["corpus"]["mentions"]


# -- the fuzzer itself ----------------------------------------------------------------------------
ARROW_MUTATION = """
import io, random, struct, sys
import pyarrow as pa
from tests.fuzz import mutations
table = pa.table({"w": ["abc", "def", "ghi"]})
out = io.BytesIO()
with pa.ipc.new_stream(out, table.schema) as writer:
    writer.write_table(table)
data = bytearray(out.getvalue())
at = data.find(struct.pack("<iiii", 0, 3, 6, 9))
assert at > 0
data[at + 4:at + 8] = struct.pack("<i", 1 << 30)  # the second string ends a gigabyte away
mutated = mutations.arrow_cell(random.Random(1), bytes(data), [])
print(len(mutated))
"""


def test_the_arrow_mutation_survives_an_offset_past_the_buffers():
    """Seed 4127: the campaign process itself died (a segmentation fault in pyarrow)
    when ``arrow_cell`` decoded an Arrow table damaged by an earlier mutation. Run in a
    child, so that a crash is this test's failure; the damaged table gets bits flipped
    instead."""
    pytest.importorskip("pyarrow")
    done = subprocess.run([sys.executable, "-c", ARROW_MUTATION], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTHONPATH": str(REPO)}, cwd=REPO)
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    assert int(done.stdout.split()[-1]) > 0
