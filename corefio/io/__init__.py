"""Bytes in and out, before any format is known: the lowest layer above the model.

=====================  ==========================================================
:mod:`.source`         a file, a directory, bytes or standard input, read once;
                       :func:`~corefio.io.source.confined_path` keeps every path a
                       file names inside its project
:mod:`.files`          reading and atomic writing, UTF-8 decoding with located errors
:mod:`.xmlsafe`        the one XML parser: no network, no entities, no DTD loading
:mod:`.repair`         repair of malformed SGML/XML, every change reported
:mod:`.resources`      where the XSD schemas and XSLT stylesheets are (checkout or wheel)
:mod:`.spool`          objects kept on disk until needed (memory bounded by one of them)
=====================  ==========================================================

May import: :mod:`corefio.errors`, :mod:`corefio.diagnostics`. Nothing here knows a
format or the pivot model.
"""
