"""``corefio agree`` and ``corefio adjudicate`` on real multi-annotator data, judged by
the tools of the data's own community (see ``tests/data/agreement/real/README.md``):

* ``participant-analysis``: Biblical Hebrew (Psalms, Numbers 8), two annotators (A and
  B) annotating the same texts independently in brat (cmerwich/participant-analysis,
  GPL-3.0). The repository publishes its own agreement figures (``iaa/iaa-files``) and
  the script that made them (``iaa/iaa.py``), which was run again here; coval judges the
  pairwise table and DKPro Agreement the α values.
* ``ezcoref``: three passages of public-domain fables and fairy tales, each clustered by
  the same five crowd workers (gnkitaa/ezCoref, MIT), converted to jsonlines by
  ``ezcoref/convert.py``; ezCoref's own metrics (``Tool/Tutorial_B3/score.py``) and
  coval judge the pairwise table, DKPro Agreement and NLTK the α values.

The judges' outputs are stored beside the data (the judges run outside the repository);
DKPro's inputs are the units corefio builds (``COREFIO_WRITE_UNITS=1`` writes them anew,
and a test checks that corefio still builds exactly these).
"""

from __future__ import annotations

import bisect
import json
import os
import subprocess
import sys
from itertools import combinations
from pathlib import Path

import pytest

import corefio
from corefio.agreement import adjudicate, agree
from corefio.metrics.alpha import alpha, masi_distance, passonneau_distance
from corefio.metrics.ceaf import ceaf_mention

REAL = Path(__file__).parent / "data" / "agreement" / "real"
PA = REAL / "participant-analysis"
PA_NAMES = ("chris_A", "gyus_B")
PA_DOCS = ("Numbers_008", "Psalms_011", "Psalms_067", "Psalms_070", "Psalms_129", "Psalms_138")
EZ = REAL / "ezcoref"
EZ_NAMES = tuple(f"annotator_{a}" for a in (0, 2, 9, 11, 12))
EZ_DOCS = ("pd_gu_aesopa10cy_0_0", "pd_gu_grimm10bv_0a_0", "pd_gu_grimm10bv_0a_3")
CLI = [sys.executable, "-m", "corefio"]
PAIR_METRICS = ("muc", "bcub", "ceafe", "lea", "conll")


def pa_files(name: str) -> list[Path]:
    return [PA / name / f"{doc}.ann" for doc in PA_DOCS]


def ez_file(name: str) -> Path:
    return EZ / f"{name}.jsonlines"


def judge(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


# --- reading the brat annotators by characters ------------------------------------------------

def char_chains(document) -> list[list[tuple]]:
    """A brat document's chains (singletons too), each mention as its character spans
    ((start, end), ...): what does not depend on how the text was cut into tokens."""
    offsets = document.tokens.offsets
    return [[tuple((offsets[a][0], offsets[b][1]) for a, b in m.spans) for m in chain]
            for chain in document.mention_view(False).mentions]


def pa_read(name: str, doc: str):
    return corefio.read(PA / name / f"{doc}.ann", format="brat").documents[0]


def read_iaa(path: Path) -> tuple[int, int, int]:
    """The L, M, R totals of an ``iaa.py`` output (columns 3-5, summed as ``acc.py`` sums)."""
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line]
    return tuple(sum(int(row[i]) for row in rows) for i in (2, 3, 4))


def pooled(chains: list[list[tuple]]) -> list[list[tuple]]:
    """The partition ``iaa.py`` compares: the chains of two or more mentions, and every
    singleton of the annotator in one class of its own."""
    singles = [c[0] for c in chains if len(c) == 1]
    return [c for c in chains if len(c) > 1] + ([singles] if singles else [])


def test_pa_the_published_figures_are_what_iaa_py_gives_here():
    """iaa.py run again on the copied files gives the totals the repository published
    (per text and in its total_* files); only the order of its rows and the pairing of
    tied classes differ (scipy's assignment breaks ties its own way)."""
    published_totals = {}
    for name in ("total_psalms", "total_numbers"):
        for line in (PA / "judge" / "published" / name).read_text(encoding="utf-8").splitlines():
            cells = line.split("\t")
            published_totals[cells[0].removesuffix(".iaa")] = tuple(int(x) for x in cells[2:5])
    rerun_totals = {line.split("\t")[0].removesuffix(".iaa"): tuple(int(x) for x in line.split("\t")[2:5])
                    for line in (PA / "judge" / "rerun-totals.txt").read_text(encoding="utf-8").splitlines()}
    for doc in PA_DOCS:
        rerun = read_iaa(PA / "judge" / "rerun" / f"{doc}.iaa")
        assert rerun == read_iaa(PA / "judge" / "published" / f"{doc}.iaa") == published_totals[doc]
        assert rerun == rerun_totals[doc]


@pytest.mark.parametrize("doc", PA_DOCS)
def test_pa_iaa_totals_are_ceaf_m_over_pooled_singletons(doc):
    """iaa.py aligns the classes of A and B one to one minimising Σ(L + R), with every
    singleton of an annotator pooled into one class S. Since Σ(L + R) = |A| + |B| − 2ΣM,
    that alignment maximises ΣM: M is the CEAF-m similarity (Luo 2005, φ3) of the pooled
    partitions, L = |A| − M and R = |B| − M. corefio's CEAF-m over the chains corefio
    reads gives exactly the judge's totals; without the pooling it does not."""
    a, b = char_chains(pa_read("chris_A", doc)), char_chains(pa_read("gyus_B", doc))
    score = ceaf_mention(pooled(a), pooled(b))
    m = score.recall_num
    expected = read_iaa(PA / "judge" / "rerun" / f"{doc}.iaa")
    assert (score.recall_den - m, m, score.precision_den - m) == expected
    assert score.recall_den == sum(map(len, a)) and score.precision_den == sum(map(len, b))
    lines = (PA / "judge" / "rerun-totals.txt").read_text(encoding="utf-8").splitlines()
    d = float(next(line for line in lines if line.startswith(doc)).split("\t")[6])
    assert round((expected[0] + expected[2]) / sum(expected), 4) == d


def test_pa_pooling_is_what_makes_the_difference():
    """Plain CEAF-m (each singleton an entity of its own, as corefio and the reference
    scorer count it) aligns other numbers of mentions than iaa.py's pooled classes: M
    is not a measure ``agree`` reports, and the pooling is the whole difference."""
    differs = []
    for doc in PA_DOCS:
        a, b = char_chains(pa_read("chris_A", doc)), char_chains(pa_read("gyus_B", doc))
        if ceaf_mention(pooled(a), pooled(b)).recall_num != ceaf_mention(a, b).recall_num:
            differs.append(doc)
    assert differs


# --- the units DKPro Agreement judged -------------------------------------------------------
# Built here from the definitions (tests/data/agreement/README.md and the module doc of
# corefio.agreement.measures), not by corefio's own unit code, so that DKPro judges both.

def _element(document: str, spans: tuple) -> str:
    return f"{document}/" + "+".join(f"{a}-{b}" for a, b in spans)


def chain_lines(documents: list[str], annotations: list[list[list[list[tuple]]]]) -> str:
    """One line per markable (every mention any annotator marked, document by document),
    one cell per annotator: the markables of the chain holding it, ``-`` if unmarked.
    ``annotations[d][a]`` is annotator a's chains of document d (mentions as spans)."""
    lines = []
    for document, chains in zip(documents, annotations):
        value_of = [{m: ",".join(sorted(_element(document, x) for x in chain)) for chain in c for m in chain}
                    for c in chains]
        for mention in sorted({m for c in chains for chain in c for m in chain}):
            lines.append("\t".join(v.get(mention, "-") for v in value_of))
    return "\n".join(lines) + "\n"


def depth_units(mentions: list[tuple], annotator: int, offset: int) -> list[str]:
    """An annotator's mentions (token spans) as α_u units: outer mentions first, each at
    the first nesting depth where it overlaps no unit already there."""
    extents = sorted({(m[0][0], m[-1][1]) for m in mentions}, key=lambda e: (e[0], -e[1]))
    ends: list[int] = []
    out = []
    for first, last in extents:
        depth = next((k for k, end in enumerate(ends) if end < first), len(ends))
        if depth == len(ends):
            ends.append(last)
        ends[depth] = last
        out.append(f"{offset + first}\t{last - first + 1}\t{annotator}\tdepth {depth + 1}\n")
    return out


def _cut_tokens(text: str, cuts: set[int]) -> list[tuple[int, int]]:
    """The text cut at whitespace and at every offset of ``cuts``: the tokens on which two
    annotators who cut words at different places can be compared."""
    import re

    pieces = []
    ordered = sorted(cuts)
    for match in re.finditer(r"\S+", text):
        a, b = match.span()
        inner = ordered[bisect.bisect_right(ordered, a):bisect.bisect_left(ordered, b)]
        bounds = [a] + inner + [b]
        pieces.extend(zip(bounds, bounds[1:]))
    return pieces


def pa_units() -> dict[str, str]:
    """DKPro inputs for the brat annotators: chain units by character spans; α_u units on
    the tokens both annotators' cuts give (texts end to end in file order)."""
    annotations, units = [], []
    offset = 0
    for doc in PA_DOCS:
        chains = [star_chains(PA / name / f"{doc}.ann") for name in PA_NAMES]
        annotations.append(chains)
        cuts = {x for c in chains for chain in c for m in chain for span in m for x in span}
        tokens = _cut_tokens((PA / PA_NAMES[0] / f"{doc}.txt").read_text(encoding="utf-8"), cuts)
        starts = {a: i for i, (a, _) in enumerate(tokens)}
        ends = {b: i for i, (_, b) in enumerate(tokens)}
        for annotator, c in enumerate(chains):
            mentions = [tuple((starts[a], ends[b]) for a, b in m) for chain in c for m in chain]
            units.extend(depth_units(mentions, annotator, offset))
        offset += len(tokens)
    lines = chain_lines(list(PA_DOCS), annotations)
    out = {f"participant_chains.{d}.in": f"coding 2 {d}\n" + lines for d in ("passonneau", "dkpro-masi")}
    out["participant_mentions.unitizing.in"] = f"unitizing 2 0 {offset}\n" + "".join(units)
    return out


def ez_read(name: str) -> list[dict]:
    return [json.loads(line) for line in ez_file(name).read_text(encoding="utf-8").splitlines()]


def ez_units() -> dict[str, str]:
    """DKPro inputs for the five crowd workers, from the jsonlines read as JSON."""
    workers = [ez_read(n) for n in EZ_NAMES]
    annotations, units = [], []
    offset = 0
    for d, doc in enumerate(EZ_DOCS):
        assert all(w[d]["doc_key"] == doc for w in workers)
        chains = [[[((a, b),) for a, b in cluster] for cluster in w[d]["clusters"]] for w in workers]
        annotations.append(chains)
        for annotator, c in enumerate(chains):
            units.extend(depth_units([m for chain in c for m in chain], annotator, offset))
        offset += sum(len(s) for s in workers[0][d]["sentences"])
    lines = chain_lines(list(EZ_DOCS), annotations)
    out = {f"ezcoref_chains.{d}.in": f"coding 5 {d}\n" + lines for d in ("passonneau", "dkpro-masi")}
    out["ezcoref_mentions.unitizing.in"] = f"unitizing 5 0 {offset}\n" + "".join(units)
    return out


@pytest.mark.parametrize("build,where", [(pa_units, PA), (ez_units, EZ)], ids=["participant-analysis", "ezcoref"])
def test_the_judged_units_are_these(build, where):
    """The units DKPro judged are the ones built here (COREFIO_WRITE_UNITS=1 writes them)."""
    for name, text in build().items():
        path = where / "judge" / "dkpro" / name
        if os.environ.get("COREFIO_WRITE_UNITS"):
            path.parent.mkdir(exist_ok=True)
            path.write_text(text, encoding="utf-8")
        assert path.read_text(encoding="utf-8") == text


# --- agree on the brat annotators -----------------------------------------------------------

@pytest.fixture(scope="module")
def pa_result():
    return agree([pa_files(n) for n in PA_NAMES], format="brat")


def test_pa_agree_pairs_the_texts(pa_result):
    """The six texts pair by name although A and B cut their words at other places
    (brat mentions inside a word: a suffix, a prefixed preposition)."""
    assert pa_result.annotators == list(PA_NAMES)
    assert sorted(d.document for d in pa_result.documents) == list(PA_DOCS)
    assert all(d.conll is not None for d in pa_result.documents)


def test_pa_pairwise_table_is_coval_s(pa_result):
    """coval over the character spans of the .ann files (singletons kept, documents
    summed): MUC, B³, CEAF-e, LEA and CoNLL F1 are corefio's pairwise row."""
    expected = judge(PA / "judge" / "coval_pairs.json")["pairs"][0]
    row = pa_result.pairs[0]
    for metric in PAIR_METRICS:
        value = expected[metric] if metric == "conll" else expected[metric]["f1"]
        assert float(row.f1[metric]) == pytest.approx(value, abs=1e-9), metric


def test_pa_alpha_is_dkpro_s(pa_result):
    for distance in ("passonneau", "dkpro-masi"):
        expected = judge(PA / "judge" / "dkpro" / f"participant_chains.{distance}.out.json")
        found = agree([pa_files(n) for n in PA_NAMES], format="brat", distance=distance).chain_alpha
        assert float(found.value) == pytest.approx(expected["alpha"], abs=1e-12)
    expected = judge(PA / "judge" / "dkpro" / "participant_mentions.unitizing.out.json")
    assert float(pa_result.unitizing.value) == pytest.approx(expected["alpha"], abs=1e-12)
    # the missing values: markables only one of the two annotators marked
    marked = [{m for c in char_chains(pa_read(n, doc)) for m in c} for n in PA_NAMES for doc in PA_DOCS]
    only_one = sum(len(marked[i] ^ marked[i + len(PA_DOCS)]) for i in range(len(PA_DOCS)))
    assert pa_result.chain_alpha.missing == only_one


def test_pa_cli_json_is_the_api_s(pa_result, tmp_path):
    out = tmp_path / "agree.json"
    run = subprocess.run(CLI + ["agree", str(PA / "chris_A"), str(PA / "gyus_B"),
                                "--from", "brat", "--format", "json", "-o", str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["annotators"] == list(PA_NAMES)
    assert data["chain_alpha"]["alpha"] == pytest.approx(float(pa_result.chain_alpha.value), abs=1e-12)
    assert data["pairs"][0]["f1"]["conll"] == pytest.approx(float(pa_result.pairs[0].f1["conll"]), abs=1e-12)
    assert len(data["documents"]) == len(PA_DOCS)


# --- agree on the crowd workers ------------------------------------------------------------

@pytest.fixture(scope="module")
def ez_result():
    return agree([ez_file(n) for n in EZ_NAMES])


def test_ez_agree_pairs_the_passages(ez_result):
    assert ez_result.annotators == list(EZ_NAMES)
    assert sorted(d.document for d in ez_result.documents) == list(EZ_DOCS)
    assert len(ez_result.pairs) == 10
    # ezCoref shows every worker the same candidate mentions: all are marked by all
    assert ez_result.chain_alpha.missing == 0 and ez_result.unitizing.value == 1
    assert all(row.f1["mentions:exact"] == 1 for row in ez_result.pairs)


def test_ez_pairwise_table_is_ezcoref_s_and_coval_s(ez_result):
    """ezCoref's own metrics (score.py: muc, b_cubed, ceafe, summed over the passages)
    and coval (those and LEA) give corefio's pairwise rows, pair by pair."""
    own = {tuple(r["annotators"]): r for r in judge(EZ / "judge" / "ezcoref_score_pairs.json")["pairs"]}
    coval = {tuple(r["annotators"]): r for r in judge(EZ / "judge" / "coval_pairs.json")["pairs"]}
    for row in ez_result.pairs:
        first, second = EZ_NAMES[row.first], EZ_NAMES[row.second]
        ids = (int(first.split("_")[1]), int(second.split("_")[1]))
        for metric in ("muc", "bcub", "ceafe"):
            assert float(row.f1[metric]) == pytest.approx(own[ids][metric]["f1"], abs=1e-9), (ids, metric)
        for metric in PAIR_METRICS:
            value = coval[first, second][metric]
            value = value if metric == "conll" else value["f1"]
            assert float(row.f1[metric]) == pytest.approx(value, abs=1e-9), (ids, metric)
    mean = sum(judge(EZ / "judge" / "coval_pairs.json")["pairs"][i]["conll"] for i in range(10)) / 10
    assert float(ez_result.mean["conll"]) == pytest.approx(mean, abs=1e-9)


@pytest.mark.parametrize("distance", ["passonneau", "dkpro-masi"])
def test_ez_chain_alpha_is_dkpro_s(distance):
    expected = judge(EZ / "judge" / "dkpro" / f"ezcoref_chains.{distance}.out.json")
    found = agree([ez_file(n) for n in EZ_NAMES], distance=distance).chain_alpha
    assert float(found.observed) == pytest.approx(expected["observed"], abs=1e-12)
    assert float(found.expected) == pytest.approx(expected["expected"], abs=1e-12)
    assert float(found.value) == pytest.approx(expected["alpha"], abs=1e-12)


def test_ez_unitizing_alpha_is_dkpro_s(ez_result):
    expected = judge(EZ / "judge" / "dkpro" / "ezcoref_mentions.unitizing.out.json")
    assert float(ez_result.unitizing.value) == pytest.approx(expected["alpha"], abs=1e-12)


def test_ez_chain_alpha_with_nltk():
    """NLTK's AnnotationTask over the same units (five coders) with corefio's exact
    distances gives corefio's α, MASI included (which DKPro does not have)."""
    from nltk.metrics.agreement import AnnotationTask

    lines = (EZ / "judge" / "dkpro" / "ezcoref_chains.passonneau.in").read_text(encoding="utf-8").splitlines()[1:]
    rows = [[None if c == "-" else frozenset(c.split(",")) for c in line.split("\t")] for line in lines]
    for name, distance in (("passonneau", passonneau_distance), ("masi", masi_distance)):
        triples = [(f"c{c}", f"u{u}", v) for u, row in enumerate(rows) for c, v in enumerate(row) if v is not None]
        task = AnnotationTask(data=triples, distance=lambda x, y, d=distance: float(d(x, y)))
        ours = agree([ez_file(n) for n in EZ_NAMES], distance=name).chain_alpha
        assert ours.value == alpha(rows, distance).value
        assert task.alpha() == pytest.approx(float(ours.value), abs=1e-9)


def test_ez_cli_table_and_json(ez_result, tmp_path):
    files = [str(ez_file(n)) for n in EZ_NAMES]
    table = subprocess.run(CLI + ["agree", *files], capture_output=True, text=True)
    assert table.returncode == 0, table.stderr
    assert "annotator_0 / annotator_2" in table.stdout and "annotator_11 / annotator_12" in table.stdout
    data = json.loads(subprocess.run(CLI + ["agree", *files, "--format", "json"], capture_output=True, text=True,
                                     check=True).stdout)
    assert data["chain_alpha"]["alpha"] == pytest.approx(float(ez_result.chain_alpha.value), abs=1e-12)
    assert [p["annotators"] for p in data["pairs"]] == [[EZ_NAMES[a], EZ_NAMES[b]]
                                                          for a, b in combinations(range(5), 2)]


# --- adjudicate ---------------------------------------------------------------------------

def chains_of(document) -> set[frozenset]:
    return {frozenset(m.spans for m in chain) for chain in document.mention_view(False).mentions}


def test_pa_an_annotator_with_itself_is_given_back():
    result = adjudicate([pa_files("chris_A")] * 2, format="brat")
    assert result.conflicts == []
    for gold, doc in zip(result.gold.documents, PA_DOCS):
        assert {frozenset(map(tuple, c)) for c in char_chains(gold)} == \
               {frozenset(map(tuple, c)) for c in char_chains(pa_read("chris_A", doc))}


def star_chains(path: Path) -> list[list[tuple]]:
    """The chains of a .ann as participant-analysis writes them (and iaa.py reads them):
    ``T`` lines ``Mention START END``, one ``*<TAB>Coreference T.. T..`` line per chain of
    two or more mentions, every other mention a singleton."""
    lines = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines()]
    spans = {p[0]: ((int(p[1].split()[1]), int(p[1].split()[2])),) for p in lines if p[0].startswith("T")}
    chains, seen = [], set()
    for p in lines:
        if p[0] == "*":
            ids = p[1].split()[1:]
            chains.append([spans[i] for i in ids])
            seen.update(ids)
    return chains + [[s] for t, s in spans.items() if t not in seen]


def as_set(chains) -> set[frozenset]:
    return {frozenset(c) for c in chains}


@pytest.fixture(scope="module")
def pa_gold(tmp_path_factory):
    out = tmp_path_factory.mktemp("pa") / "gold"
    run = subprocess.run(CLI + ["adjudicate", str(PA / "chris_A"), str(PA / "gyus_B"),
                                "--from", "brat", "-o", str(out), "--to", "brat"], capture_output=True, text=True)
    return out, run


def test_pa_gold_in_brat_reads_back(pa_gold):
    """Two annotators: the gold is the union of their mentions and chains, on the
    annotators' text, written as brat and read back. brat attributes are single words,
    so the conflict notes cannot go into the gold: that loss is reported."""
    out, run = pa_gold
    assert run.returncode == 0, run.stderr
    assert "loss.value" in run.stderr
    back = corefio.read(out, format="brat")
    by_name = {d.name: d for d in back.documents}
    assert sorted(by_name) == list(PA_DOCS)
    for doc in PA_DOCS:
        gold = by_name[doc]
        a, b = char_chains(pa_read("chris_A", doc)), char_chains(pa_read("gyus_B", doc))
        assert (PA / "chris_A" / f"{doc}.txt").read_text(encoding="utf-8") == gold.text
        kept = {m for c in char_chains(gold) for m in c}
        assert kept == {m for c in a + b for m in c}
        entity = {m: i for i, c in enumerate(char_chains(gold)) for m in c}
        for chain in a + b:  # each annotator's chain lies inside one gold chain
            assert len({entity[m] for m in chain}) == 1


def test_pa_gold_keeps_the_annotators_coreference_lines(pa_gold):
    """The annotators wrote chains as brat equivalences (``*<TAB>Coreference``, the
    relation their annotation.conf declares, the only one iaa.py reads); the gold says
    its chains the same way, so that their tools read it, and loses no chain label."""
    out, run = pa_gold
    assert run.returncode == 0, run.stderr
    assert "loss.label" not in run.stderr
    back = {d.name: d for d in corefio.read(out, format="brat").documents}
    for doc in PA_DOCS:
        assert as_set(star_chains(out / f"{doc}.ann")) == as_set(char_chains(back[doc]))


def test_ez_an_annotator_with_itself_is_given_back():
    result = adjudicate([ez_file("annotator_9")] * 3)
    assert result.conflicts == []
    source = corefio.read(ez_file("annotator_9")).documents
    assert [chains_of(d) for d in result.gold.documents] == [chains_of(d) for d in source]


def root(parent: dict, x):
    """Union-find: the representative of ``x``."""
    while parent.setdefault(x, x) != x:
        x = parent[x]
    return x


def test_ez_majority_of_five(tmp_path):
    """Five workers: a link (two mentions in one chain) is kept with three votes; the
    gold's chains are the transitive closure of the kept links. Written as jsonlines
    (the workers' format) and read back."""
    out = tmp_path / "gold.jsonlines"
    run = subprocess.run(CLI + ["adjudicate", *(str(ez_file(n)) for n in EZ_NAMES), "-o", str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    gold = corefio.read(out).documents
    workers = [corefio.read(ez_file(n)).documents for n in EZ_NAMES]
    for number, document in enumerate(gold):
        votes: dict[tuple, int] = {}
        for worker in workers:
            for chain in chains_of(worker[number]):
                for x, y in combinations(sorted(chain), 2):
                    votes[x, y] = votes.get((x, y), 0) + 1
        parent: dict = {}
        mentions = {m for chain in chains_of(workers[0][number]) for m in chain}
        for (x, y), count in votes.items():
            if count >= 3:
                parent[root(parent, x)] = root(parent, y)
        expected: dict = {}
        for m in mentions:
            expected.setdefault(root(parent, m), set()).add(m)
        assert chains_of(document) == {frozenset(c) for c in expected.values()}


def test_ez_gold_as_xmi_opens_in_cassis(tmp_path):
    """The gold of the five workers written as INCEpTION XMI opens in dkpro-cassis with
    one CoreferenceChain per gold chain (a singleton: a chain of one link, as INCEpTION
    keeps a mention that corefers with nothing) and one link per gold mention."""
    cassis = pytest.importorskip("cassis")
    from corefio.formats.xmi import TYPE_SYSTEM

    import zipfile

    out = tmp_path / "gold.zip"  # several documents: a zip of one .xmi per document
    run = subprocess.run(CLI + ["adjudicate", *(str(ez_file(n)) for n in EZ_NAMES), "-o", str(out), "--to", "xmi"],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    direct = adjudicate([ez_file(n) for n in EZ_NAMES]).gold.documents
    typesystem = cassis.load_typesystem(TYPE_SYSTEM)
    with zipfile.ZipFile(out) as archive:
        members = [n for n in archive.namelist() if n.endswith(".xmi")]
        texts = [archive.read(n).decode("utf-8") for n in members]
    assert len(texts) == len(direct)
    found = links = 0
    for text in texts:
        cas = cassis.load_cas_from_xmi(text, typesystem=typesystem)
        for chain in cas.select("de.tudarmstadt.ukp.dkpro.core.api.coref.type.CoreferenceChain"):
            found += 1
            link = chain.first
            while link is not None:
                links += 1
                link = link.next
    assert found == sum(len(chains_of(d)) for d in direct)
    assert links == sum(len(c) for d in direct for c in chains_of(d))
