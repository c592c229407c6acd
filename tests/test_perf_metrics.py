"""The speed paths of the metrics (issues 7 and 10) give what the plain paths give:
CEAF's batched solver of small components and the alignment shared by tables that
differ only in class sizes."""

from __future__ import annotations

import random

import pytest

import corefio.metrics as M
from corefio.metrics import ceaf
from corefio.metrics.base import Contingency
from corefio.metrics.endtoend import ceaf_rn, ceaf_sys

from .reference_metrics import ceaf as reference_ceaf


def _partitions(rng: random.Random, mentions: int, classes: int, shared: float):
    """A key and a response partition over ``mentions`` mentions, the response
    sharing about ``shared`` of them with the key (others are its own)."""
    key: list[list] = [[] for _ in range(classes)]
    response: list[list] = [[] for _ in range(classes)]
    for m in range(mentions):
        if rng.random() < 0.9:
            key[rng.randrange(classes)].append(m)
        if rng.random() < shared:
            response[rng.randrange(classes)].append(m if rng.random() < 0.9 else -1 - m)
    return [c for c in key if c], [c for c in response if c]


@pytest.mark.parametrize("seed", range(40))
def test_small_components_solved_as_the_assignment_solver_does(seed, monkeypatch):
    """Trying every pairing of a component of up to SMALL entities a side gives the
    totals of the assignment solver, and the exhaustive search's (exact)."""
    rng = random.Random(seed)
    key, response = _partitions(rng, rng.randint(2, 60), rng.randint(1, 12), rng.choice([0.5, 0.9, 1.0]))
    table = Contingency.from_partitions(key, response)
    batched = (M.ceaf_mention(table), M.ceaf_entity(table))
    monkeypatch.setattr(ceaf, "SMALL", 1)  # every component to the assignment solver
    table = Contingency.from_partitions(key, response)
    assert (M.ceaf_mention(table), M.ceaf_entity(table)) == batched
    for phi, score in (("phi3", batched[0]), ("phi4", batched[1])):
        recall, precision = reference_ceaf(key, response, phi)
        assert (score.recall, score.precision) == (recall, precision)


@pytest.mark.parametrize("seed", range(10))
def test_ceaf_variants_share_the_alignment_only_where_it_is_the_same(seed):
    """CEAFm's alignment depends on the cells only: tables with other response class
    sizes reuse it; CEAFe's weights depend on the sizes and are not shared."""
    rng = random.Random(100 + seed)
    key, response = _partitions(rng, 80, 10, 0.8)
    shared = Contingency.from_partitions(key, response)
    M.ceaf_mention(shared)
    variants = (ceaf_rn(shared), ceaf_rn(shared, phi="phi4"), ceaf_sys(shared), ceaf_sys(shared, phi="phi4"))
    alone = Contingency.from_partitions(key, response)
    assert (ceaf_rn(alone), ceaf_rn(alone, phi="phi4"), ceaf_sys(alone), ceaf_sys(alone, phi="phi4")) == variants


def test_contingency_with_repeats_keeps_the_first_class():
    table = Contingency.from_partitions([[1, 2], [2, 3]], [(3, 3), {1, 4}])
    assert table.key_sizes.tolist() == [2, 1] and table.response_sizes.tolist() == [1, 2]
    assert table.cells == {(1, 0): 1, (0, 1): 1}
