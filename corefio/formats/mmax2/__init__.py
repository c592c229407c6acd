"""MMAX2 projects: reader and writer for every level, with sets and pointers.

MMAX2 (Müller & Strube 2006, "Multi-level annotation of linguistic data with MMAX2";
the tool's source: github.com/nlpAThits/MMAX2) stores a *project* as a directory of
small XML files. What corefio reads and writes, as found in the MMAX2 documentation,
its sample projects and real corpora (the Potsdam Commentary Corpus, PCC 2.0):

``NAME.mmax``
    one per document: ``<mmax_project><words>NAME_words.xml</words>…</mmax_project>``.
    Levels listed here count only when ``common_paths.xml`` lists none. corefio adds
    ``<corefio_document name=… part=…/>`` when the document's name cannot be the file
    name (a ``/`` in a CoNLL name) or when it has a part number; MMAX2 ignores it.
``common_paths.xml``
    shared by every ``.mmax`` of the directory: ``basedata_path``, ``scheme_path``,
    ``style_path``, ``customization_path``, ``markable_path`` (relative, ``\\``
    accepted) and ``<annotations>`` with ``<level name=… schemefile=…
    customization_file=…>$_LEVEL_level.xml</level>`` (``$``: the ``.mmax`` base name).
base data (``Basedata/NAME_words.xml``)
    ``<words><word id="word_1" …>form</word>…</words>``: ids of any prefix, numbered
    from 0 or 1 (kept in ``Tokens.ids`` unless they are ``word_1…word_n``); other word
    attributes become token attribute columns. A DOCTYPE naming a DTD is ignored (the
    DTD is never loaded).
level files (``Markables/NAME_LEVEL_level.xml``)
    ``<markables xmlns="www.eml.org/NameSpaces/LEVEL"><markable id=… span=…
    [mmax_level=…] attr=…/>``: ids unique per level, in any order; the span syntax is
    in :mod:`.levels`. A repeated id (WikiCoref has some) is a warning
    (``mmax2.duplicate-id``): the second, third… markable with id ``X`` becomes
    ``X_dup2``, ``X_dup3``… (the first such name no markable of the level carries) and
    pointers naming ``X`` name the first.
schemes (``Schemes/*.xml``)
    the attributes of a level and their types (:mod:`.schemes`): ``nominal_button``,
    ``nominal_list``, ``freetext``, ``markable_set`` (``set_N``; the same value on one
    level is one set; ``empty`` = none) and ``markable_pointer`` (``markable_N``,
    ``level:markable_N`` for another level, several joined by ``;``, ``empty`` = none).
    MMAX2 lower-cases attribute names and values when it saves, so names are compared
    case-insensitively.

Mapping to the pivot model
--------------------------
* **Identity attributes** are the ``markable_set``/``markable_pointer`` attributes
  whose name says coreference (``coref_set``, ``coref_class``, ``ref``,
  ``anaphor_antecedent``, ``dir_antecedent``, ``antecedent``, any name containing
  ``coref``); an ``mmax2.identity`` info diagnostic names those found, and the read
  option ``identity_attribute`` (``attr`` or ``level:attr``, comma-separated, ``none``)
  replaces the detection.
* **The identity level**, the level with identity attributes (the one whose name
  contains ``coref`` when several have them, else the first), becomes the default
  coreference layer (``Markable.layer is None``), so that its singletons are mentions
  and conversions to one-layer formats keep it whole. Every other level is the layer of
  its name; links name their markables ``level:id``. The level's name is kept as the
  scheme's ``name`` (``Corpus.scheme(None).name``) and written back.
* Identity sets → ``Markable.entity`` (set ids are document-wide: the same id on two
  levels is one chain); other sets → ``Markable.sets``. Identity pointers → one
  identity ``Link`` per markable and attribute, its ``targets`` the ``;`` group as
  written; other pointers → a ``Link`` typed by the attribute name in lower case (a
  link type with upper-case letters is written so, ``loss.link-type-case``). Other attributes →
  ``Markable.attributes`` (text); the schemes → ``Corpus.schemes``.
* A level called ``sentence`` (``sentences``, ``s``) without sets or pointers becomes
  ``Document.sentences`` (markable ids and attributes kept as sentence ids and
  attributes) unless one of its markables is discontinuous (then it stays a layer).
  Where the sentences do not tile the words, each run of words outside every sentence
  becomes a sentence of its own (warning ``mmax2.sentences-untiled``), a sentence inside
  another is dropped and one overlapping the sentence before starts after it (warning
  ``mmax2.sentences-overlap``).
* Layout (``Corpus.layout["mmax2"]``, ``Document.layout["mmax2"]``): the project's
  paths and levels, the files corefio does not interpret (schemes, customizations,
  style sheets, DTDs, ``common_paths.xml``, the ``.mmax`` files) byte for byte,
  namespaces, DOCTYPEs, attribute order, spans and pointers written in another form
  than the writer's (``word_3,word_4``), ``empty`` attributes left out. A project read
  and written back is the same file by file after XML canonicalisation.

Writer: a complete project (``.mmax`` files, ``common_paths.xml``, base data and DTD,
one level file per layer and document, schemes — copied when still exact, else
generated from the attributes in use —, customizations and a minimal style sheet).
The write option ``chains`` is ``sets`` (every chain a ``coref_set`` set),
``pointers`` (each mention points to the previous one of its chain), or unset: sets
for entity ids, pointers for identity links, as the document has them.

Collections: a directory whose ``.mmax`` files lie in subdirectories (MMAX2-Showcase's
ACL Anthology corpus, the layout pyMMAX2 reads) is read whole; each document reads the
``common_paths.xml`` of its own directory, else the one shared file (a name ending in
``common_paths.xml`` in the collection's directory or a subdirectory without ``.mmax``
files: ``common_files/global_common_paths.xml``; the read option ``common_paths`` names
it), whose paths are relative to each ``.mmax`` file (``../../common_files/Schemes/``).
Documents are named by their stem (by their path below the collection where two share a
stem); the writer puts them back where they were (``MMAX2Layout.home``).

Every file a project names (paths and file names in ``common_paths.xml``, the
``<words>`` of a ``.mmax`` file, level files, schemes, customizations, style sheets,
DTDs) must lie inside the project directory (a collection's directory for a
collection): an absolute name, a ``..`` or a symbolic link leading out is refused
(``UnsafeInputError`` at the line naming it) before anything is read from it, a name
the system cannot look up is an input error, and so is a file that is not a regular
one (a FIFO, a device, a directory). One class does this for every engine
(:class:`.project.Project`): the Python reader and both XSLT processors refuse and read
the same files. An element read once (``<annotations>``, ``<words>``, a path, a level's
name) written twice is an error: which one counts would be a guess.

File names: a document name a file name cannot hold as it is (``/``, ``%``, ``#``, ``:``
…) becomes a stem with ``_`` for those characters (info ``mmax2.file-name``); the
``.mmax`` file keeps the name (``<corefio_document>``).

Problems found while reading (a dangling pointer, a span naming a missing word, a
repeated id, a not-well-formed file that had to be repaired with
:mod:`corefio.io.repair`) are warnings with file and line: lenient reading goes on without
the faulty part, strict reading refuses. A file that ends with elements still open (a cut
copy) is refused in both modes.
"""

from __future__ import annotations

from ..registry import Capabilities, FormatSpec, Option, register
from .project import MMAX2Layout, MMAX2ProjectLayout, holds_documents
from .reader import read
from .writer import write_files

CAPABILITIES = Capabilities(
    discontinuous=True, nested=True, crossing=True, same_entity_overlap=True, cross_sentence=True,
    entity_ids=True, link_structure=True, link_types=True, multi_target_links=True, markable_attributes=True,
    entity_attributes=False, link_attributes=False, heads=False, min=False, optional=False, layers=True,
    sets=True, token_attributes=True, token_ids=True, whitespace=False, offsets=False, text=False,
    regions=False, sentences=True, sentence_attributes=frozenset({"id", "attributes"}), metadata=False,
    schemes=True,
    multiple_documents=True,
)

SPEC = register(FormatSpec(
    name="mmax2",
    description="MMAX2 project (directory or .mmax file): every level, sets and pointers",
    extensions=(".mmax",),
    capabilities=CAPABILITIES,
    read=read,
    write_files=write_files,
    options=(
        Option("identity_attribute", str, None,
               "set/pointer attributes that mean coreference (attr or level:attr, comma-separated; "
               "'none'); default: detected from the scheme names", applies_to="read"),
        Option("common_paths", str, None, "the common paths file a collection's documents share (relative "
               "to the directory read); default: the one file named *common_paths.xml in the collection's "
               "directory or in a subdirectory without .mmax files", applies_to="read"),
        Option("chains", str, None, "write chains as 'sets' (coref_set) or 'pointers'; default: as the "
               "document has them", applies_to="write", choices=("sets", "pointers")),
    ),
    directory=True,
    sniff_directory=holds_documents,
))

__all__ = ["CAPABILITIES", "SPEC", "MMAX2Layout", "MMAX2ProjectLayout", "read", "write_files"]
