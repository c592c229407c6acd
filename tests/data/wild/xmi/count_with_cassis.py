"""Counts of a UIMA XMI file as dkpro-cassis reads it, with DKPro Core's type system; the
judge_counts of xmi/manifest.json come from it. Not run by the tests:

    python tests/data/wild/xmi/count_with_cassis.py FILE.xmi

Tokens are the DKPro Core Token annotations; every feature structure with a ``first``
feature is a chain whose links (``first``, then ``next``) are one entity. Prints JSON."""
import json
import sys
import warnings

import cassis
from cassis.typesystem import load_dkpro_core_typesystem

with open(sys.argv[1], "rb") as source, warnings.catch_warnings():
    warnings.simplefilter("ignore")  # types the XMI uses and DKPro Core's system lacks
    cas = cassis.load_cas_from_xmi(source.read().decode("utf-8"), typesystem=load_dkpro_core_typesystem(),
                                   lenient=True)
chains = []
for fs in cas.select_all_fs():
    if "first" in {f.name for f in fs.type.all_features}:
        links, link = [], fs.first
        while link is not None:
            links.append(link)
            link = link.next
        chains.append(links)
tokens = sum(fs.type.name == "de.tudarmstadt.ukp.dkpro.core.api.segmentation.type.Token" for fs in cas.select_all_fs())
print(json.dumps({"documents": 1, "tokens": tokens, "mentions": sum(map(len, chains)), "entities": len(chains),
                  "singletons": sum(len(c) == 1 for c in chains)}))
