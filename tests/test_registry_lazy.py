"""The registry imports format modules lazily (corefio/formats/__init__.py): its tables
must say what the modules register, and a lookup must import only what it needs while
giving the answers an eager registry would."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from corefio import formats
from corefio.formats.registry import FormatSpec, all_formats

from .conftest import REPO, SAMPLES


def _module(spec: FormatSpec) -> str | None:
    """The format module (``conll``, ``mmax2``, ...) that defines ``spec``'s functions."""
    for function in (spec.read, spec.write, spec.write_files):
        if function is not None and function.__module__.startswith("corefio.formats."):
            return function.__module__.split(".")[2]
    return None


def test_the_tables_list_every_module_in_order():
    assert tuple(formats.NAMES) == formats.MODULES
    assert tuple(formats.EXTENSIONS) == formats.MODULES


def test_the_tables_say_what_each_module_registers():
    by_module: dict[str, list[FormatSpec]] = {}
    for spec in all_formats():
        module = _module(spec)
        if module is not None:  # (not a format a test registered)
            by_module.setdefault(module, []).append(spec)
    assert set(by_module) == set(formats.MODULES)
    for module, specs in by_module.items():
        names = {s.name for s in specs} | {a for s in specs for a in s.aliases}
        extensions = {e for s in specs for e in s.extensions + s.ambiguous_extensions}
        assert set(formats.NAMES[module]) == names, module
        assert set(formats.EXTENSIONS[module]) == extensions, module


def test_all_formats_lists_the_modules_in_their_order():
    modules = [_module(spec) for spec in all_formats() if _module(spec) is not None]
    assert modules == sorted(modules, key=formats.MODULES.index)


# what a fresh interpreter imports for each lookup (this process has imported them all)
_PROBE = textwrap.dedent("""
    import json, sys
    from corefio.formats import registry

    def loaded():
        from corefio.formats import MODULES
        return sorted({m.split(".")[2] for m in sys.modules if m.startswith("corefio.formats.")} & set(MODULES))

    out = {}
    step = sys.argv[1]
    if step == "conll-file":
        out["name"] = registry.detect_format(sys.argv[2]).name
    elif step == "alias":
        out["name"] = registry.get_format("CoNLL-2012").name
    elif step == "raf-file":
        out["name"] = registry.detect_format(sys.argv[2]).name
    elif step == "xml-file":
        out["name"] = registry.detect_format(sys.argv[2]).name
    elif step == "unknown-extension":
        try:
            registry.detect_format(sys.argv[2], for_writing=True)
        except Exception as exc:
            out["error"] = str(exc)
    elif step == "order":
        registry.get_format("raf")
        registry.get_format("conllu")
    elif step == "outsider":
        from corefio.formats.registry import Capabilities, FormatSpec, register
        register(FormatSpec("outsider", "a format from elsewhere", (".outsider",), Capabilities()))
        out["name"] = registry.get_format("outsider").name
    elif step == "unknown-name":
        try:
            registry.get_format("nosuchformat")
        except Exception as exc:
            out["error"] = str(exc)
    out["loaded"] = loaded()
    out["model"] = "corefio.model.document" in sys.modules
    if step in ("order", "outsider"):
        out["all"] = [s.name for s in registry.all_formats()]
    print(json.dumps(out))
""")


def _probe(step: str, *arguments: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _PROBE, step, *arguments], capture_output=True, text=True,
                          cwd=REPO, check=True)
    return json.loads(done.stdout)


def test_a_conll_file_or_name_imports_the_conll_module_only(tmp_path):
    conll = tmp_path / "key.v4_gold_conll"
    conll.write_text("#begin document (d); part 000\nd 0 0 A NNP * - - - - * (0)\n\n#end document\n")
    assert _probe("conll-file", str(conll)) == {"name": "conll", "loaded": ["conll"], "model": False}
    assert _probe("alias") == {"name": "conll", "loaded": ["conll"], "model": False}


def test_a_compound_extension_imports_its_module_only():
    found = _probe("raf-file", str(SAMPLES / "key.raf.xml"))
    assert found["name"] == "raf" and found["loaded"] == ["raf"]


def test_an_ambiguous_extension_imports_the_modules_that_claim_it(tmp_path):
    xml = tmp_path / "key.xml"
    xml.write_bytes((SAMPLES / "key.raf.xml").read_bytes())
    found = _probe("xml-file", str(xml))
    assert found["name"] == "raf"
    assert found["loaded"] == sorted(m for m, exts in formats.EXTENSIONS.items() if ".xml" in exts)
    assert {"mate", "muc", "raf"} <= set(found["loaded"]) and "conll" not in found["loaded"]


def test_an_unknown_extension_or_name_imports_every_module(tmp_path):
    found = _probe("unknown-extension", str(tmp_path / "out.conll2012"))
    assert found["loaded"] == sorted(formats.MODULES)
    assert "unknown extension" in found["error"]
    found = _probe("unknown-name")
    assert found["loaded"] == sorted(formats.MODULES)
    known = found["error"].split("known: ", 1)[1]
    assert all(name in known for name in ("brat", "conll", "conllu", "jsonlines", "mate", "mmax2", "muc", "raf",
                                          "ua", "xmi", "webanno-tsv", "corenlp", "spacy"))


def test_the_order_of_all_formats_does_not_depend_on_the_order_of_imports():
    eager = [s.name for s in all_formats() if _module(s) is not None]
    assert _probe("order")["all"] == eager
    # a format registered from elsewhere comes after the built-in ones
    assert _probe("outsider")["all"] == eager + ["outsider"]


def test_the_text_of_a_brat_document_names_its_annotation_file(tmp_path):
    """A brat document's .txt given alone was taken for MUC ("could be: muc")."""
    import pytest

    from corefio.errors import UnknownFormatError
    from corefio.formats import registry

    (tmp_path / "d.ann").write_text("T1\tPerson 0 5\tAlice\n", encoding="utf-8")
    (tmp_path / "d.txt").write_text("Alice\n", encoding="utf-8")
    with pytest.raises(UnknownFormatError, match=r"text of the brat or LitBank TSV document d\.ann"):
        registry.detect_format(tmp_path / "d.txt")
    assert registry.detect_format(tmp_path).name == "brat"
