"""The public API around the registry: in-memory input, declared options, streaming."""

from __future__ import annotations

import pytest

import corefio
from corefio.diagnostics import Report
from corefio.errors import CorefioError, UsageError
from corefio.formats.losses import FEATURE_NAMES, report_losses
from corefio.model import Document, Link, Markable, Tokens
from corefio.formats.registry import Capabilities, Option, all_formats

from .conftest import DATA, SAMPLES

CONLL = "#begin document (d); part 000\nd\t0\t0\tJohn\t(1)\nd\t0\t1\tsaw\t-\nd\t0\t2\thim\t(1)\n\n#end document\n"


def test_loads_reads_text_and_bytes_like_a_file(tmp_path):
    path = tmp_path / "d.conll"
    path.write_text(CONLL)
    from_file = corefio.read(path)
    assert corefio.loads(CONLL, "conll") == from_file
    assert corefio.loads(CONLL.encode(), "conll") == from_file


def test_loads_without_a_format_sniffs_the_content():
    assert corefio.loads(CONLL).documents[0].name == "d"


def test_messages_about_in_memory_input_say_string():
    with pytest.raises(CorefioError) as info:
        corefio.loads("#begin document (d); part 000\nd\t0\t0\tJohn\t(1\n\n#end document\n", "conll")
    assert str(info.value).startswith("<string>:")


def test_an_unknown_option_is_an_error_naming_the_known_ones():
    doc = corefio.loads(CONLL, "conll")
    with pytest.raises(UsageError) as info:
        corefio.dumps(doc, "conll", no_such_option=True)
    assert "no_such_option" in str(info.value) and "known:" in str(info.value)
    with pytest.raises(UsageError):
        corefio.loads(CONLL, "conll", no_such_option=1)


def test_options_are_checked_against_their_declared_type():
    option = Option("canonical", bool, False, "help")
    with pytest.raises(UsageError):
        option.check("yes", "conll")
    assert option.check(True, "conll") is True
    counted = Option("width", int, 0, "help")
    assert counted.check("3", "x") == 3
    with pytest.raises(UsageError):
        Option("mode", str, "a", "help", choices=("a", "b")).check("c", "x")


def test_every_format_declares_its_options_with_help():
    for spec in all_formats():
        for option in spec.options:
            assert option.help and option.applies_to in ("read", "write"), (spec.name, option.name)


def test_capabilities_and_features_name_the_same_things():
    # corpus-level (schemes) and structural (nesting, several documents) ones aside
    assert set(Capabilities().as_dict()) - {"multiple_documents", "nested", "schemes"} == set(FEATURE_NAMES)


def test_schemes_a_format_cannot_hold_are_a_loss():
    from corefio.model import Corpus, Scheme, SchemeAttribute

    corpus = Corpus(documents=[corefio.loads(CONLL, "conll").documents[0]],
                    schemes=[Scheme(layer="coref", attributes=[SchemeAttribute(name="np_form")])])
    report = Report()
    corefio.dumps(corpus, "conll", report=report)
    assert report.by_code("loss.schemes")[0].examples == ["coref"]


def test_losses_are_counted_once_per_kind_with_an_example():
    doc = Document(name="d", tokens=Tokens(forms=["a", "b", "c"]),
                   markables=[Markable(id="m1", spans=((0, 0), (2, 2)), head=((0, 0),)),
                              Markable(id="m2", spans=((1, 1),), head=((1, 1),))],
                   links=[Link(id="l", type="bridging", source="m2", target="m1")])
    report = Report()
    kinds = report_losses(doc, Capabilities(), report, "demo")
    by_code = {d.code: d for d in report}
    assert kinds == len(by_code)
    assert by_code["loss.heads"].count == 2 and by_code["loss.discontinuous"].examples == ["m1"]
    assert by_code["loss.link-types"].count == 1
    assert all(d.message.startswith("demo cannot express") for d in report)


def test_counter_entity_ids_are_an_info_loss_and_named_ones_a_warning():
    def severity(label: str) -> str:
        doc = Document(name="d", tokens=Tokens(forms=["a"]), markables=[Markable(id="m", spans=((0, 0),), entity=label)])
        report = Report()
        report_losses(doc, Capabilities(), report, "demo")
        return report.by_code("loss.entity-ids")[0].severity

    assert severity("12") == "info" and severity("set_3") == "info"
    assert severity("person-4") == "warning"


def test_iter_read_streams_documents(tmp_path):
    path = tmp_path / "two.conll"
    path.write_text(CONLL + CONLL.replace("(d)", "(e)").replace("\nd\t", "\ne\t"))
    names = [doc.name for doc in corefio.iter_read(path)]
    assert names == ["d", "e"]


def test_writing_documents_one_at_a_time_equals_writing_the_corpus(tmp_path):
    corpus = corefio.loads(CONLL + CONLL.replace("(d)", "(e)").replace("\nd\t", "\ne\t"), "conll")
    corefio.write(corpus, tmp_path / "a.conll")
    corefio.write(iter(corpus.documents), tmp_path / "b.conll")
    assert (tmp_path / "a.conll").read_bytes() == (tmp_path / "b.conll").read_bytes()


def test_a_directory_is_not_a_file_for_single_file_formats(tmp_path):
    with pytest.raises(CorefioError) as info:
        corefio.read(tmp_path, "conll")
    assert "directory" in str(info.value)


def test_validate_can_be_called_twice():
    """Reproducer D09_validate_twice.py: the validation module once shadowed the
    ``corefio.validate`` function after its first call."""
    from .conftest import SAMPLES

    first = corefio.validate(SAMPLES / "key.raf.xml")
    second = corefio.validate(SAMPLES / "key.raf.xml")
    assert not first.errors and not second.errors
    assert callable(corefio.validate) and callable(corefio.sync)


# -- issue 22: scores as a mapping of objects, whitespace in markable text -------------------
def test_scores_is_a_read_only_mapping_of_metric_to_score():
    from collections.abc import Mapping

    from corefio.scoring import score

    scores = score(SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml", ["muc", "conll"])
    assert isinstance(scores, Mapping)
    assert list(scores) == ["mentions", "muc", "bcub", "ceafe", "conll"]
    assert len(scores) == 5 and "muc" in scores and "lea" not in scores
    assert dict(scores.items())["muc"] is scores["muc"]
    assert scores.get("lea") is None
    with pytest.raises(TypeError):
        scores["muc"] = None  # type: ignore[index]
    for name, value in scores.items():  # every score has recall, precision and F1
        assert 0 <= value.recall <= 1 and 0 <= value.precision <= 1 and 0 <= value.f1 <= 1, name


def test_conll_is_a_score_object_and_its_json_is_unchanged():
    from fractions import Fraction

    from corefio.scoring import score

    scores = score(SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml", ["conll"])
    conll = scores["conll"]
    parts = [scores[m] for m in ("muc", "bcub", "ceafe")]
    assert conll.f1 == sum(Fraction(p.f1) for p in parts) / 3
    assert conll.recall == sum(Fraction(p.recall) for p in parts) / 3  # documented: means of the three
    assert conll.precision == sum(Fraction(p.precision) for p in parts) / 3
    assert conll == {"f1": conll.f1}  # the mapping of earlier versions
    assert scores.to_dict(False)["corpus"]["conll"] == {"f1": float(conll.f1)}


def test_typed_evaluation_returns_objects_and_the_same_json():
    from corefio.scoring import score
    from corefio.scoring.render import Rates, TypedScore

    scores = score(SAMPLES / "key.raf.xml", SAMPLES / "response.raf.xml", ["typed"])
    typed = scores["typed"]
    assert isinstance(typed, TypedScore) and isinstance(typed.micro, Rates)
    assert typed.f1 == typed.micro.f1 and isinstance(typed.classes["?"].recall, float)
    data = scores.to_dict(False)["corpus"]["typed"]
    assert set(data) == {"micro", "macro", "scheme", "classes", "types", "coefficients", "scheme_classes"}
    assert data["micro"] == {"recall": typed.micro.recall, "precision": typed.micro.precision, "f1": typed.f1}


def test_markable_text_honours_conllu_space_after():
    doc = corefio.read(DATA / "corpora/gum/dep/GUM_news_worship.conllu").documents[0]
    texts = [doc.markable_text(m) for m in doc.markables]
    assert "March 27, 2006" in texts
    assert "March 27 , 2006" not in texts
    conll = corefio.loads(CONLL, "conll").documents[0]  # no whitespace recorded: spaces
    assert conll.span_text((0, 2)) == "John saw him"
