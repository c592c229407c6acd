"""Counts of a Stanford CoreNLP XML output as the ``corenlp_xml`` library reads it (PyPI
``corenlp-xml`` 1.0.4, relwell/corenlp-xml-lib); the judge_counts of the XML files in
corenlp/manifest.json come from it. Not run by the tests (the library is not one of
corefio's dependencies): in an environment that has it,

    python tests/data/wild/count_with_corenlp_xml.py FILE.xml

Tokens are the sentences' tokens, entities the coreference chains, mentions theirs.
Prints JSON."""
import json
import sys

from corenlp_xml.document import Document

with open(sys.argv[1], "rb") as source:
    document = Document(source.read())
chains = document.coreferences
print(json.dumps({"documents": 1, "tokens": sum(len(s.tokens) for s in document.sentences),
                  "mentions": sum(len(c.mentions) for c in chains), "entities": len(chains),
                  "singletons": sum(len(c.mentions) == 1 for c in chains)}))
