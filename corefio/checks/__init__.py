"""Judging a file or a corpus without changing it.

=====================  ==========================================================
:mod:`.validation`     ``corefio validate``: XSDs for the XML formats, then the
                       semantic checks; agrees with what the readers accept
:mod:`.info`           ``corefio info``: what a document holds, in numbers
=====================  ==========================================================

May import: the model, :mod:`corefio.io`, :mod:`corefio.formats` (to read what it checks).
"""
