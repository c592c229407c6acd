"""The XSLT stylesheets of ``xslt/`` run from Python, by lxml or by ``xsltproc``.

=====================  ==========================================================
:mod:`.engine`         ``corefio convert --engine xslt``: MATE, MMAX2 and MUC to the
                       RAF pivot and back through the stylesheets, every file a
                       project names checked before a processor sees it
:mod:`.html`           ``corefio view`` of a RAF file through ``raf-to-html.xsl``
=====================  ==========================================================

May import: the model, :mod:`corefio.io`, :mod:`corefio.formats`.
"""
