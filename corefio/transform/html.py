"""Apply the stylesheets of ``xslt/`` with lxml (the same files run under xsltproc)."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from lxml import etree

from ..errors import CorefioError
from ..io.resources import stylesheet_path
from ..io.xmlsafe import parse_xml

if TYPE_CHECKING:  # pragma: no cover
    from ..model import Corpus


@lru_cache(maxsize=None)
def stylesheet(name: str) -> etree.XSLT:
    access = etree.XSLTAccessControl.DENY_ALL
    parser = etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
    doc = etree.parse(str(stylesheet_path(name)), parser)
    return etree.XSLT(doc, access_control=access)


def transform(name: str, xml: bytes) -> bytes:
    """Apply ``xslt/<name>`` to ``xml`` (parsed safely); return the serialised result."""
    tree = parse_xml(xml)
    try:
        result = stylesheet(name)(tree)
    except etree.XSLTApplyError as exc:
        raise CorefioError(f"stylesheet {name} failed: {exc}") from None
    return bytes(result)


def render_html(corpus: "Corpus") -> bytes:
    """The HTML page ``raf-to-html.xsl`` makes of ``corpus``, written as RAF 2.0 first
    (the page shows the chains the RAF writer records on each markable)."""
    from ..formats import raf

    return transform("raf-to-html.xsl", raf.dumps(corpus))
