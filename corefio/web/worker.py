"""The work of a request (reading, repairing, converting, validating, scoring) in a
forked process with a deadline.

At most ``count`` such processes run at once; a request waits up to ``queue_wait``
seconds for its turn (then 503). A process still busy at the deadline is killed
(SIGKILL) and the request answered 422 (the input takes too long for this server); one
that runs out of its address-space budget (``memory_mb`` on top of what the server
already maps, set with ``RLIMIT_AS``) ends with MemoryError, answered 422 too. The
event loop never waits on the process: it is told by the pipe when the answer is there.

Where ``fork`` is missing (not Linux or macOS) the work runs in a thread with a
deadline for the answer; such a thread cannot be stopped, only abandoned.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import resource
import signal
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import CorefioError
from ..scoring.engine import die_with_parent
from .errors import WebError, from_corefio, scrub


def _rss_kb() -> int:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _vsize() -> int | None:
    try:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        return None


def _child(conn, fn: Callable[..., Any], args: tuple, memory: int | None, parent: int) -> None:
    # the server's signal handlers belong to the parent
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    # a server killed outright (kill -9) takes its workers with it; ``parent`` is the
    # server's pid taken before the fork (it may be gone already)
    die_with_parent(parent)
    start_rss = _rss_kb()
    vsize = _vsize()
    if memory and vsize:
        try:
            resource.setrlimit(resource.RLIMIT_AS, (vsize + memory, vsize + memory))
        except (ValueError, OSError):  # pragma: no cover - a hard limit already lower
            pass
    started = time.perf_counter()

    def stats() -> dict:
        return {"seconds": time.perf_counter() - started,
                "peak_mb": max(0, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - start_rss) / 1024}

    try:
        value = fn(*args)
        conn.send(("ok", value, stats()))
    except WebError as exc:
        conn.send(("web", _as_tuple(exc), stats()))
    except CorefioError as exc:
        conn.send(("web", _as_tuple(from_corefio(exc)), stats()))
    except MemoryError:
        conn.send(("web", (422, "the work needs more memory than this server gives one request; use the "
                                "command line (corefio) for such files", None, "Too large"), stats()))
    except RecursionError:
        conn.send(("web", (422, "the input nests too deeply to be read", None, None), stats()))
    except OSError as exc:  # a name a project gives that no file system accepts, ...
        conn.send(("web", (422, f"cannot read the input: {scrub(exc.strerror or type(exc).__name__)}", None,
                           None), stats()))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, never a traceback
        conn.send(("other", f"{type(exc).__name__}", stats()))
    finally:
        conn.close()


def _as_tuple(err: WebError) -> tuple:
    return (err.status, err.message, err.where, err.title)


@dataclass
class Workers:
    """Bounded, deadline-limited worker processes (see the module doc)."""

    count: int = 2
    seconds: float = 60
    memory_mb: float | None = None
    queue_wait: float = 30
    running: int = 0
    #: figures of the last finished job (seconds, peak_mb: memory growth of the worker)
    last: dict = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def _try_acquire(self) -> bool:
        with self.lock:
            if self.running < self.count:
                self.running += 1
                return True
            return False

    def _release(self) -> None:
        with self.lock:
            self.running -= 1

    async def run(self, fn: Callable[..., Any], *args: Any, what: str = "the work") -> Any:
        """``fn(*args)`` in a worker process; its value, or the WebError it raised."""
        waited = time.monotonic() + self.queue_wait
        while not self._try_acquire():
            if time.monotonic() > waited:
                raise WebError(503, f"the server is busy ({self.count} requests at work); try again in a minute")
            await asyncio.sleep(0.05)
        try:
            return await self._run(fn, args, what)
        finally:
            self._release()

    async def _run(self, fn: Callable[..., Any], args: tuple, what: str) -> Any:
        try:
            ctx = multiprocessing.get_context("fork")
        except ValueError:  # pragma: no cover - no fork on this platform
            try:
                return await asyncio.wait_for(asyncio.to_thread(fn, *args), self.seconds)
            except asyncio.TimeoutError:
                raise self._too_slow(what) from None
        memory = int(self.memory_mb * 2**20) if self.memory_mb else None
        parent, child = ctx.Pipe(duplex=False)
        proc = ctx.Process(target=_child, args=(child, fn, args, memory, os.getpid()), daemon=True)
        proc.start()
        child.close()
        loop = asyncio.get_running_loop()
        ready = asyncio.Event()
        loop.add_reader(parent.fileno(), ready.set)
        try:
            try:
                await asyncio.wait_for(ready.wait(), self.seconds)
            except asyncio.TimeoutError:
                raise self._too_slow(what) from None
            finally:
                loop.remove_reader(parent.fileno())
            try:
                kind, value, stats = await asyncio.to_thread(parent.recv)
            except (EOFError, OSError):
                raise WebError(422, f"{what} stopped without an answer (out of memory?)") from None
        finally:
            parent.close()
            if proc.is_alive():
                proc.kill()
            await asyncio.to_thread(proc.join, 5)
        self.last = stats or {}
        if kind == "ok":
            return value
        if kind == "web":
            status, message, where, title = value
            raise WebError(status, message, where, title)
        raise WebError(500, f"internal error ({value}); please report it", title="Internal error")

    def _too_slow(self, what: str) -> WebError:
        return WebError(422, f"{what} took longer than the time limit of {self.seconds:g} s and was stopped; "
                             "use the command line (corefio) for such files", title="Time limit exceeded")
