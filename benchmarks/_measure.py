"""How the benchmark scripts measure a command, and what they say about the machine.

A command is run by a small measuring process (a fresh ``python -c`` with nothing
imported but the standard library), so that what it reports belongs to the command
alone:

* ``cpu``: user + system seconds of the command and of every process it started and
  waited for (its workers), from ``getrusage(RUSAGE_CHILDREN)`` of the measuring
  process. Other load on the machine disturbs it much less than the wall time: it is
  the figure to compare on a shared machine.
* ``wall``: seconds from start to exit.
* ``peak_mb``: the largest resident size any one process of the command reached
  (``ru_maxrss`` of the children; exact).
* ``tree_mb``: the largest sum of the resident sizes of the command and its descendants,
  sampled every 100 ms from ``/proc`` (what the command holds at once with its workers;
  a peak shorter than 100 ms can be missed).

Results are appended as JSON lines to a file, one object per run, with the date, the
load average before and after, and the git commit, so that a long benchmark can run in
pieces and be reported once at the end.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
DATA = HERE / "data"

#: the measuring process: runs argv[2:], writes stdout to argv[1] ('-': discard)
MEASURER = r"""
import json, os, resource, subprocess, sys, time

def tree_rss(root):
    children, rss = {}, {}
    for name in os.listdir('/proc'):
        if not name.isdigit():
            continue
        try:
            with open('/proc/' + name + '/stat', 'rb') as f:
                fields = f.read().rsplit(b')', 1)[1].split()
            children.setdefault(int(fields[1]), []).append(int(name))
            rss[int(name)] = int(fields[21]) * PAGE
        except (OSError, IndexError, ValueError):
            pass
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo.extend(children.get(pid, ()))
    return total

PAGE = os.sysconf('SC_PAGE_SIZE')
out = open(os.devnull, 'wb') if sys.argv[1] == '-' else open(sys.argv[1], 'wb')
began = time.perf_counter()
process = subprocess.Popen(sys.argv[2:], stdout=out, stderr=subprocess.PIPE)
import threading
err = []
reader = threading.Thread(target=lambda: err.append(process.stderr.read()))
reader.start()
tree = 0
have_proc = os.path.isdir('/proc/self')
while process.poll() is None:
    if have_proc:
        tree = max(tree, tree_rss(process.pid))
    time.sleep(0.1)
wall = time.perf_counter() - began
reader.join()
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "user": usage.ru_utime,
                  "system": usage.ru_stime, "peak_mb": usage.ru_maxrss / 1024,
                  "tree_mb": max(tree, usage.ru_maxrss * 1024) / 2**20,
                  "code": process.returncode, "stderr": err[0].decode(errors='replace')[-1500:]}))
"""


def measure(command: list, stdout: Path | str = "-", env: dict | None = None, cwd: Path = REPO) -> dict:
    """Run ``command`` (a list of arguments) under the measuring process; return its
    figures (see the module's docstring) and ``code``, the command's exit status."""
    args = [sys.executable, "-c", MEASURER, str(stdout), *map(str, command)]
    done = subprocess.run(args, capture_output=True, text=True, cwd=cwd, env=env)
    if done.returncode:
        raise RuntimeError(f"the measuring process failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def corefio_command(*arguments) -> list:
    """``python -m corefio ARGUMENTS`` with this interpreter."""
    return [sys.executable, "-m", "corefio", *map(str, arguments)]


_compiled = False


def environment() -> dict:
    """The environment the commands run in: this checkout first on the path, no
    variable that would change how many processes a command uses, and corefio's
    modules compiled once, as an installed package has them.

    ``PYTHONDONTWRITEBYTECODE`` (set on some shared machines, so that checkouts stay
    free of ``__pycache__``) made every measured run compile corefio's sources again:
    0.1 s of the 0.36 s of ``corefio --version`` and 0.3–0.4 s of every command that
    scores (2026-11-27, benchmark machine), time no installed corefio spends (pip
    compiles a package when it installs it). The runs therefore keep their bytecode
    beside the sources (``__pycache__``, ignored by git), compiled here before the first
    run is measured. (Not ``PYTHONPYCACHEPREFIX``: Python then looks for the bytecode of
    the standard library and of the installed packages there too, and compiles them.)"""
    global _compiled
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    env.pop("COREFIO_WORKERS", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not _compiled:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(REPO / "corefio"), str(HERE / "bare_read.py")],
                       env=env, check=True, stdout=subprocess.DEVNULL)
        _compiled = True
    return env


def load_average() -> tuple[float, float, float]:
    try:
        return os.getloadavg()
    except OSError:
        return (float("nan"),) * 3


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def git_commit() -> str:
    done = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", "corefio"],
                           capture_output=True, text=True).stdout.strip()
    return done.stdout.strip() + ("+changes" if dirty else "") if done.returncode == 0 else "unknown"


def machine() -> str:
    """One line: the date, the machine (``uname -m``, CPU model, cores), the load average
    and the commit measured."""
    one, five, fifteen = load_average()
    return (f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; {platform.machine()}, {cpu_model()}, "
            f"{os.cpu_count()} cores; load average {one:.2f} {five:.2f} {fifteen:.2f}; "
            f"Python {platform.python_version()}; corefio at {git_commit()}")


def record(path: Path, entry: dict) -> dict:
    """Append ``entry`` with the date, the load average and the commit to ``path``;
    return what was written."""
    entry = {**entry, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
             "load": [round(x, 2) for x in load_average()], "commit": git_commit()}
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps(entry) + "\n")
    return entry


def records(path: Path) -> list[dict]:
    if not path.exists():
        return []
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def bench_files(scale: int) -> tuple[Path, Path]:
    """The CoNLL-2012 key and response of ``generate_corpus.py --scale SCALE`` (made
    the first time)."""
    suffix = f"_x{scale}" if scale > 1 else ""
    key = DATA / f"bench_key{suffix}.v4_gold_conll"
    response = DATA / f"bench_response{suffix}.v4_auto_conll"
    if not key.exists() or not response.exists():
        sys.path.insert(0, str(HERE))
        from generate_corpus import DOCS, generate  # type: ignore

        generate(DATA, DOCS * scale, suffix)
    return key, response
