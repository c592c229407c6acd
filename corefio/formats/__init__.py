"""The formats: the registry, reading and writing through it, one module per format.

:mod:`.registry` (every format's :class:`~corefio.formats.registry.FormatSpec` and
capabilities), :mod:`.readwrite` (read, iter_read, loads, write, dumps, convert),
:mod:`.losses` (capabilities → loss reports), then a module (or package) per format:
``conll``, ``conllu``, ``jsonlines/``, ``mate``, ``mmax2/``, ``muc``, ``raf``, ``ua``,
``xmi``, ``brat``, ``litbank_tsv``, ``webanno_tsv``, ``corenlp``, ``hf_datasets``,
``spacy_docbin``. May import: the model, :mod:`corefio.io`.

Format modules are imported when the registry first needs them.

Each module registers its format(s) when imported. The registry does not import them
all at once: ``corefio score key.v4_gold_conll ...`` needs the CoNLL module only, and
the six others (with the model, XML helpers, ...) cost about 0.05 s more on
the command line (0.14 s in a fresh process). The tables
below tell the registry, before importing anything, which module a file name or a
format name belongs to; anything
that needs every format (:func:`~corefio.formats.registry.all_formats`, sniffing a file whose
extension is unknown or ambiguous, a name in no table) imports them all.

Adding a format: write its module, add it to :data:`MODULES`, :data:`NAMES` and
:data:`EXTENSIONS` (``tests/test_registry_lazy.py`` checks that the tables say what the
modules register).
"""

import importlib
from types import ModuleType

#: the format modules, in the order :func:`~corefio.formats.registry.all_formats` lists their formats
MODULES = ("conll", "conllu", "jsonlines", "mate", "mmax2", "muc", "raf", "ua", "xmi", "brat", "litbank_tsv",
           "webanno_tsv", "corenlp", "hf_datasets", "spacy_docbin", "ecbplus", "cdcr_conll", "cdcr_json")

#: module → the names and aliases of the formats it registers
NAMES: dict[str, tuple[str, ...]] = {
    "conll": ("conll", "conll2012", "conll-2012", "conll2011", "conll-2011"),
    "conllu": ("conllu", "corefud"),
    "jsonlines": ("jsonlines", "e2e", "jsonl", "wl-coref", "wl", "wlcoref", "preco"),
    "mate": ("mate",),
    "mmax2": ("mmax2",),
    "muc": ("muc",),
    "raf": ("raf",),
    "ua": ("ua", "conllua", "universal-anaphora"),
    "xmi": ("xmi", "uima-xmi", "inception-xmi"),
    "brat": ("brat",),
    "litbank_tsv": ("litbank-tsv", "litbank"),
    "webanno_tsv": ("webanno-tsv", "webanno"),
    "corenlp": ("corenlp", "stanford", "corenlp-json", "corenlp-xml"),
    "hf_datasets": ("hf-datasets", "hf", "huggingface", "datasets"),
    "spacy_docbin": ("spacy", "docbin", "spacy-docbin"),
    "ecbplus": ("ecbplus", "ecb+", "ecb"),
    "cdcr_conll": ("cdcr-conll", "meta-conll"),
    "cdcr_json": ("cdcr-json", "wec", "wec-eng", "ucdcr"),
}

#: module → every extension its formats claim (``extensions`` and ``ambiguous_extensions``)
EXTENSIONS: dict[str, tuple[str, ...]] = {
    "conll": (".conll", ".v4_gold_conll", ".v4_auto_conll", ".v5_gold_conll", ".v5_auto_conll",
              ".gold_conll", ".auto_conll", ".v2_gold_conll", ".v2_auto_conll", ".v9_gold_conll",
              ".v9_auto_conll", ".key", ".response"),
    "conllu": (".conllu",),
    "jsonlines": (".jsonlines", ".jsonl"),
    "mate": (".mate.xml", ".mate", ".xml"),
    "mmax2": (".mmax",),
    "muc": (".sgm", ".sgml", ".xml", ".txt"),
    "raf": (".raf", ".raf.xml", ".xml"),
    "ua": (".conllua",),
    "xmi": (".xmi", ".zip"),
    "brat": (".ann",),
    "litbank_tsv": (".ann",),
    "webanno_tsv": (".tsv", ".zip"),
    "corenlp": (".json", ".xml"),
    "hf_datasets": (".parquet", ".arrow"),
    "spacy_docbin": (".spacy",),
    "ecbplus": (".xml",),
    "cdcr_conll": (),
    "cdcr_json": (".json",),
}


def __getattr__(name: str) -> ModuleType:
    """``corefio.formats.raf`` and the like work whether or not the module was imported yet."""
    if name in MODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
