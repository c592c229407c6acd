"""corefio.dask on a distributed.LocalCluster: the same results as one process.

The cluster has two worker processes on this machine. A worker killed while tasks run
is restarted by its nanny and Dask runs its tasks again: the results must not change
and no partial output may be left.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

import corefio

dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")

import corefio.dask as cd  # noqa: E402

from .conftest import DATA, SAMPLES  # noqa: E402

KEY = SAMPLES / "key.raf.xml"
RESPONSE = SAMPLES / "response.raf.xml"


def _conll_documents(n: int, seed: int) -> list[str]:
    """n small CoNLL documents whose chains depend on ``seed`` (a key and responses)."""
    import random

    rng = random.Random(seed)
    out = []
    for d in range(n):
        lines = [f"#begin document (doc{d}); part 000"]
        for i in range(40):
            label = rng.choice(["-", "-", f"({rng.randrange(6)})"])
            lines.append(f"doc{d}\t0\t{i}\tw{i}\t{label}")
        lines += ["", "#end document"]
        out.append("\n".join(lines) + "\n")
    return out


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, host="127.0.0.1")
    with distributed.Client(cluster) as c:
        yield c
    cluster.close()


@pytest.fixture
def corpus(tmp_path: Path) -> tuple[list[Path], list[Path], Path, Path]:
    """Eight key files and their responses (three documents each), and the same
    documents concatenated into one key file and one response file."""
    keys, responses = _conll_documents(24, 1), _conll_documents(24, 2)
    key_files, response_files = [], []
    for k in range(8):
        kf, rf = tmp_path / f"part{k}.key.conll", tmp_path / f"part{k}.response.conll"
        kf.write_text("".join(keys[3 * k:3 * k + 3]))
        rf.write_text("".join(responses[3 * k:3 * k + 3]))
        key_files.append(kf)
        response_files.append(rf)
    whole_key, whole_response = tmp_path / "all.key.conll", tmp_path / "all.response.conll"
    whole_key.write_text("".join(keys))
    whole_response.write_text("".join(responses))
    return key_files, response_files, whole_key, whole_response


METRICS = ["mentions", "muc", "bcub", "ceafe", "ceafm", "blanc", "lea", "conll", "info", "kappa"]


def test_score_equals_one_process_to_the_last_digit(client, corpus):
    key_files, response_files, whole_key, whole_response = corpus
    local = corefio.score(whole_key, whole_response, METRICS, per_document=True)
    remote = cd.score(key_files, response_files, METRICS, per_document=True)
    # fractions compared exactly, documents in order (the diagnostics name other files)
    assert remote.to_dict()["corpus"] == local.to_dict()["corpus"]
    assert remote.to_dict()["documents"] == local.to_dict()["documents"]
    assert remote["muc"] == local["muc"] and remote["bcub"] == local["bcub"]
    assert [d.name for d in remote.documents] == [d.name for d in local.documents]


def test_convert_and_validate_on_the_cluster(client, corpus, tmp_path):
    key_files = corpus[0]
    out = tmp_path / "out"
    written = cd.convert(key_files, out, to="conllu")
    assert [p.name for p in written] == [f"part{k}.conllu" for k in range(8)]
    for source, target in zip(key_files, written):
        assert corefio.read(target).documents == corefio.read(source).documents or \
            [d.mention_view().chains for d in corefio.read(target).documents] == \
            [d.mention_view().chains for d in corefio.read(source).documents]
    reports = cd.validate([*written, DATA / "regressions" / "D08_empty_document.conll"])
    assert all(not reports[str(p)].errors for p in written)
    assert len(reports) == 9


def test_a_killed_worker_changes_nothing(client, corpus, tmp_path):
    """Kill one worker while the conversion and the scoring run: Dask runs its tasks
    again; outputs are complete and the scores equal the one-process scores."""
    key_files, response_files, whole_key, whole_response = corpus
    # many tasks, so that some are still running when the worker dies
    many_keys = key_files * 6
    many_responses = response_files * 6
    pids = list(client.run(os.getpid).values())
    out = tmp_path / "killed"

    future = client.submit(cd.score, many_keys, many_responses, METRICS, pure=False)
    deadline = time.monotonic() + 30
    while not any(client.processing().values()) and time.monotonic() < deadline:
        time.sleep(0.01)
    os.kill(pids[0], signal.SIGKILL)
    scores = future.result(timeout=120)
    # the same files scored in this process, one pair after the other
    assert scores.to_dict()["corpus"] == cd.score(many_keys, many_responses, METRICS,
                                                  scheduler="synchronous").to_dict()["corpus"]

    client.wait_for_workers(2, timeout=60)
    killed = pids[0]
    pids = list(client.run(os.getpid).values())
    assert killed not in pids  # the worker did die (its nanny started another)
    names = [tmp_path / f"copy{k}.key.conll" for k in range(24)]
    for k, name in enumerate(names):
        name.write_bytes(key_files[k % 8].read_bytes())
    future = client.submit(cd.convert, names, out, "conllu", pure=False)
    while not any(client.processing().values()) and time.monotonic() < deadline + 30:
        time.sleep(0.01)
    os.kill(pids[-1], signal.SIGKILL)
    written = future.result(timeout=120)
    assert len(written) == 24
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in written)  # no temporary file left
    for source, target in zip(names, written):
        assert [d.mention_view().chains for d in corefio.read(target).documents] == \
            [d.mention_view().chains for d in corefio.read(source).documents]


def test_threads_and_synchronous_schedulers_give_the_same_scores(corpus):
    key_files, response_files, whole_key, whole_response = corpus
    local = corefio.score(whole_key, whole_response, METRICS).to_dict()
    for scheduler in ("threads", "synchronous"):
        assert cd.score(key_files, response_files, METRICS, scheduler=scheduler).to_dict()["corpus"] == local["corpus"]


def test_usage_errors(corpus):
    with pytest.raises(corefio.UsageError, match="key files but"):
        cd.score(corpus[0], corpus[1][:2], ["muc"], scheduler="synchronous")
