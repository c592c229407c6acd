"""Putting a key and a response side by side, before anything is scored.

=========================  ======================================================
:mod:`.pairing`            which documents are compared (by name, order or a pairs
                           file), and their mention views, read one at a time
:mod:`.alignment`          two tokenisations of one text, aligned by characters
:mod:`.matching`           mention matching modes (exact, head, MIN, partial, zeros)
:mod:`.synchronisation`    markables re-indexed by their targets; key, response,
                           intersection and union markable sets
=========================  ======================================================

May import: the model, :mod:`corefio.metrics` (assignment), :mod:`corefio.io`,
:mod:`corefio.formats` (reading). The scoring engine builds on this layer.
"""
