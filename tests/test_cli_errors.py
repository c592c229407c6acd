"""CLI transcripts of errors that say what to do (issue 22): content of another format,
a file of an MMAX2 project, a format that cannot be told, documents that do not pair."""

from __future__ import annotations

import shutil

from .conftest import DATA, SAMPLES

CONLLU = DATA / "corpora" / "gum" / "dep" / "GUM_news_worship.conllu"
PROJECT = SAMPLES / "mmax2" / "gum_news_worship"
TWO_DOCS = "".join(f"#begin document ({name}); part 000\nx 0 0 a (1)\nx 0 1 b (1)\n\n#end document\n"
                   for name in ("one", "two"))


def test_conllu_content_under_a_conll_name_gets_a_hint(cli, tmp_path):
    misnamed = tmp_path / "gum.conll"
    shutil.copy(CONLLU, misnamed)
    result = cli("info", misnamed)
    assert result.exit_code == 3
    first, hint = result.output.splitlines()
    assert first.startswith(f"corefio: error: {misnamed}:24: malformed coreference cell")
    assert hint == ("  hint: the content looks like CoNLL-U (10 tab-separated columns, `# sent_id`, `# newdoc`, "
                    "`# global.Entity`), not conll; try --from conllu")
    assert result.output.count(str(misnamed)) == 1  # no path said twice
    assert cli("info", misnamed, "--from", "conllu").exit_code == 0  # the hint is right


def test_no_hint_when_the_content_is_the_format_read(cli, tmp_path):
    broken = tmp_path / "broken.conll"
    broken.write_text("#begin document (d); part 000\nd\t0\t0\tHello\t(1\n\n#end document\n")
    result = cli("info", broken)
    assert result.exit_code == 3 and "  hint:" not in result.output


def test_a_file_of_an_mmax2_project_says_give_the_project(cli):
    for part in (PROJECT / "Basedata" / "GUM_news_worship_words.xml",
                 PROJECT / "Markables" / "GUM_news_worship_coref_level.xml"):
        result = cli("info", part)
        assert result.exit_code in (2, 3)
        assert (f"part of an MMAX2 project (GUM_news_worship.mmax): give the directory {PROJECT} or the .mmax "
                f"file {PROJECT / 'GUM_news_worship.mmax'}") in result.output
    assert cli("info", PROJECT / "GUM_news_worship.mmax").exit_code == 0


def test_cannot_tell_the_format_lists_every_format_and_does_not_repeat_the_path(cli, tmp_path):
    odd = tmp_path / "notes.txt"
    shutil.copy(SAMPLES / "key.raf.xml", odd)
    result = cli("info", odd)
    assert result.exit_code == 2
    message = result.output.strip()
    assert message.count(str(odd)) == 1
    assert "by its content it looks like RAF XML (root element <struct>): try --from raf" in message
    assert message.endswith("Formats: conll, conllu, jsonlines, mate, mmax2 (a directory, or its .mmax file), "
                            "muc, raf") or "mmax2 (a directory, or its .mmax file)" in message


def test_document_mismatch_names_both_files_the_documents_and_the_ways_out(cli, tmp_path):
    key = tmp_path / "key.conll"
    key.write_text(TWO_DOCS)
    response = tmp_path / "response.conll"
    response.write_text(TWO_DOCS.replace("(one)", "()").replace("(two)", "(three)"))
    result = cli("score", key, response, "-q")
    assert result.exit_code == 3
    first, hint = result.output.splitlines()
    assert first == (f"corefio: error: the documents of {key} (key) and {response} (response) do not match: "
                     "2 key document(s) have no response: 'one (part 000)', 'two (part 000)'; "
                     "2 response document(s) have no key: (unnamed) (part 000), 'three (part 000)'")
    assert "--pair-by order" in hint and "--pairs FILE" in hint
    assert cli("score", key, response, "-q", "--pair-by", "order").exit_code == 0


def test_info_help_explains_entities_and_chains(cli):
    text = " ".join(cli("info", "--help").stdout.split())
    assert "Markables that corefer form a chain; a chain of one markable is a singleton." in text
