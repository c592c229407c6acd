"""Markables of other layers, for writers of formats that hold one layer of mentions.

brat, LitBank TSV, WebAnno TSV (and UA, for layers other than discourse deixis) have no
place for a markable layer such as MMAX2's ``secmark`` or a sentence layer. Before
writing, :func:`coreference_layer` gives the document as such a format holds it, the
way :func:`corefio.formats.losses.project` describes it (the loss, ``loss.layers``, is reported
before the writer runs):

* a markable of another layer that takes part in a chain becomes a mention (it moves
  to the coreference layer), so the chain keeps it;
* the other markables of those layers are not written, nor links from them; a link
  loses its targets among them (and goes when none is left).

A moved markable keeps its id when no other markable has it, else it is named
``<layer>_<id>`` (numbered ``_2``, ``_3``… when that is taken too): two layers may use
the same ids (MMAX2 numbers each level's markables from ``markable_1``), and a format
with one layer needs each id once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any


def _fresh(wanted: str, taken: set[str]) -> str:
    name, k = wanted, 1
    while name in taken:
        k += 1
        name = f"{wanted}_{k}"
    return name


def _layer_and_id(m: Any, unique: bool, taken: set[str]) -> str:
    """The id a chained markable of another layer gets: its own when no other markable
    has it, else ``<layer>_<id>`` (made unique)."""
    return m.id if unique else _fresh(f"{m.layer}_{m.id}", taken)


def coreference_layer(doc: Any, keep: frozenset[str] = frozenset(),
                      new_id: Callable[[Any, bool, set[str]], str] = _layer_and_id) -> Any:
    """``doc`` with only markables of the coreference layer (and of the layers in
    ``keep``), as the module docstring says. ``new_id(markable, unique, taken)`` names a
    markable moved to the coreference layer (``unique``: no other markable has its id;
    ``taken``: the ids it must not take)."""
    if all(m.layer is None or m.layer in keep for m in doc.markables):
        return doc
    in_chain = {doc.markables[i].ref for chain in doc.chain_indices() for i in chain}
    counts = Counter(m.id for m in doc.markables)
    taken = {m.id for m in doc.markables if m.layer is None}
    rename: dict[str, str] = {}
    kept = []
    for m in doc.markables:
        if m.layer is None or m.layer in keep:
            kept.append(m)
        elif m.ref in in_chain:
            new = new_id(m, counts[m.id] == 1, taken | set(counts))
            taken.add(new)
            rename[m.ref] = new
            kept.append(m.copy(layer=None, id=new))
    gone = {m.ref for m in doc.markables if m.layer is not None and m.layer not in keep} - set(rename)
    links = []
    for link in doc.links:
        if link.source in gone:
            continue
        targets = link.targets
        if link.target_kind == "markable":
            targets = tuple(rename.get(t, t) for t in targets if t not in gone)
        if targets:
            links.append(link.copy(source=rename.get(link.source, link.source), targets=targets))
    return doc.copy(markables=kept, links=links)
