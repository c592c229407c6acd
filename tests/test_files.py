"""corefio.io.files: encoding detection when reading, and how outputs are written."""

from __future__ import annotations

import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from corefio.io import files
from corefio.errors import FormatError, OutputError
from corefio.io.files import atomic_write, decode_utf8, read_text

from .conftest import REPO, SAMPLES

TEXT = "#begin document (d); part 000\nd\t0\t0\tcafé\t(0)\n#end document\n"


def temporaries(directory: Path) -> list[str]:
    """Names in ``directory`` that follow corefio's temporary-file rule."""
    return sorted(n for n in os.listdir(directory) if re.fullmatch(r"\..+\.corefio-\d+-[0-9a-f]{8}\.tmp", n))


# ------------------------------------------------------------------------------------------
# reading: encodings
# ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("codec, name", [
    ("utf-16-le", "UTF-16-LE"), ("utf-16-be", "UTF-16-BE"),
    ("utf-32-le", "UTF-32-LE"), ("utf-32-be", "UTF-32-BE"),
])
def test_utf16_and_utf32_without_bom_are_named_at_line_1(tmp_path: Path, codec: str, name: str):
    path = tmp_path / "wide.conll"
    path.write_bytes(TEXT.encode(codec))
    with pytest.raises(FormatError) as info:
        read_text(path)
    error = info.value
    assert error.message.startswith(f"file looks {name} encoded (no byte order mark); corefio reads UTF-8")
    assert (error.file, error.line, error.column) == (str(path), 1, None)
    assert error.exit_code == 3


def test_two_characters_of_utf16_are_enough(tmp_path: Path):
    with pytest.raises(FormatError, match="looks UTF-16-BE"):
        decode_utf8("#b".encode("utf-16-be"), "short.conll")


@pytest.mark.parametrize("codec, name", [
    ("utf-16-le", "UTF-16-LE"), ("utf-16-be", "UTF-16-BE"),
    ("utf-32-le", "UTF-32-LE"), ("utf-32-be", "UTF-32-BE"),
])
def test_byte_order_marks_keep_their_message(codec: str, name: str):
    data = "\ufeff".encode(codec) + TEXT.encode(codec)
    with pytest.raises(FormatError) as info:
        decode_utf8(data, "marked.conll")
    assert info.value.message.startswith(f"file is {name} encoded; corefio reads UTF-8")
    assert info.value.line == 1


@pytest.mark.parametrize("codec, bom", [
    ("utf-16-le", False), ("utf-16-be", False), ("utf-32-le", False), ("utf-32-be", False),
    ("utf-16-le", True), ("utf-16-be", True), ("utf-32-le", True), ("utf-32-be", True),
])
def test_the_suggested_iconv_command_converts_the_file(tmp_path: Path, codec: str, bom: bool):
    iconv = shutil.which("iconv")
    if iconv is None:
        pytest.skip("iconv is not installed, the hint cannot be tried")
    data = ("\ufeff" if bom else "").encode(codec) + TEXT.encode(codec)
    with pytest.raises(FormatError) as info:
        decode_utf8(data, "x")
    command = re.search(r"`(iconv [^`]+)`", info.value.message).group(1).split()
    converted = subprocess.run([iconv, *command[1:]], input=data, capture_output=True, check=True).stdout
    assert decode_utf8(converted, "x") == TEXT


def test_latin1_keeps_its_message_and_position():
    with pytest.raises(FormatError) as info:
        decode_utf8(TEXT.encode("latin-1"), "latin.conll")
    assert "not valid UTF-8: byte 0xe9" in info.value.message
    assert "Latin-1" in info.value.message
    assert (info.value.line, info.value.column) == (2, 10)


def test_one_utf8_bom_is_dropped():
    assert decode_utf8(b"\xef\xbb\xbf" + TEXT.encode(), "bom.conll") == TEXT


def test_a_second_bom_is_an_error_at_line_1_column_1(tmp_path: Path):
    path = tmp_path / "twice.conll"
    path.write_bytes(b"\xef\xbb\xbf\xef\xbb\xbf" + TEXT.encode())
    with pytest.raises(FormatError) as info:
        read_text(path)
    assert "second byte order mark" in info.value.message
    assert (info.value.file, info.value.line, info.value.column) == (str(path), 1, 1)


def test_nul_characters_in_utf8_text_are_not_taken_for_utf16():
    # alternate NULs, but only after the first 64 bytes
    late = TEXT * 3 + "a\x00b\x00c\x00d\x00" * 50
    assert decode_utf8(late.encode(), "late.conll") == late
    # a few NULs right at the start, not in a UTF-16 pattern
    early = "a\x00b\x00c\x00" + TEXT * 2
    assert decode_utf8(early.encode(), "early.conll") == early
    # non-ASCII UTF-8 (no zero bytes at all)
    assert decode_utf8(("дом\n" * 20).encode(), "ru.conll") == "дом\n" * 20


# ------------------------------------------------------------------------------------------
# writing: ordinary files and permissions
# ------------------------------------------------------------------------------------------
def test_a_new_file_is_written_without_leftovers(tmp_path: Path):
    atomic_write(tmp_path / "out.conll", TEXT)
    assert (tmp_path / "out.conll").read_text(encoding="utf-8") == TEXT
    assert os.listdir(tmp_path) == ["out.conll"]


@pytest.mark.parametrize("mode", [0o640, 0o600, 0o755, 0o444])
def test_overwriting_keeps_the_permission_bits(tmp_path: Path, mode: int):
    path = tmp_path / "out.conll"
    path.write_text("old")
    path.chmod(mode)
    atomic_write(path, "new")
    assert path.read_text() == "new"
    assert stat.S_IMODE(path.stat().st_mode) == mode


@pytest.mark.parametrize("umask, expected", [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_a_new_file_gets_0o666_minus_the_umask(tmp_path: Path, umask: int, expected: int):
    old = os.umask(umask)
    try:
        atomic_write(tmp_path / "new.conll", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.conll").stat().st_mode) == expected


def test_a_missing_directory_is_an_output_error(tmp_path: Path):
    with pytest.raises(OutputError, match="does not exist"):
        atomic_write(tmp_path / "nowhere" / "out.conll", "x")


def test_a_directory_as_output_is_an_output_error(tmp_path: Path):
    (tmp_path / "dir").mkdir()
    with pytest.raises(OutputError, match="is a directory"):
        atomic_write(tmp_path / "dir", "x")
    assert (tmp_path / "dir").is_dir()


def test_a_very_long_name_still_gets_a_legal_temporary_name(tmp_path: Path):
    path = tmp_path / ("é" * 120 + ".conll")  # 246 bytes: room for the name, not for more
    atomic_write(path, "x")
    atomic_write(path, "y")
    assert path.read_text() == "y"
    assert os.listdir(tmp_path) == [path.name]


def test_threads_writing_the_same_output_do_not_collide(tmp_path: Path):
    path = tmp_path / "out.txt"
    errors: list[BaseException] = []

    def write(n: int) -> None:
        try:
            for _ in range(20):
                atomic_write(path, str(n) * 10_000)
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    content = path.read_text()
    assert len(content) == 10_000 and len(set(content)) == 1
    assert os.listdir(tmp_path) == ["out.txt"]


# ------------------------------------------------------------------------------------------
# writing: unwritable places
# ------------------------------------------------------------------------------------------
def _check_refused(path: Path, old: str | None) -> None:
    with pytest.raises(OutputError) as info:
        atomic_write(path, "new")
    error = info.value
    assert error.exit_code == 6
    assert error.file == str(path)
    assert str(error).startswith(f"{path}: cannot write")
    if old is None:
        assert not path.exists()
    else:
        assert path.read_text() == old
    assert temporaries(path.parent) == []


def test_a_read_only_directory_is_an_output_error(tmp_path: Path):
    locked = tmp_path / "locked"
    locked.mkdir()
    (locked / "old.txt").write_text("old")
    if os.geteuid() != 0:
        locked.chmod(0o555)
        undo = ["chmod", "755", str(locked)]
    else:
        # root ignores permission bits; an immutable directory refuses root too
        chattr = shutil.which("chattr")
        if chattr is None:
            pytest.skip("running as root without chattr: no way to make a directory read-only")
        done = subprocess.run([chattr, "+i", str(locked)], capture_output=True)
        if done.returncode != 0:
            pytest.skip(f"chattr +i is not supported here: {done.stderr.decode().strip()}")
        undo = [chattr, "-i", str(locked)]
    try:
        _check_refused(locked / "new.txt", None)
        _check_refused(locked / "old.txt", "old")
    finally:
        subprocess.run(undo, check=True)


def test_a_read_only_directory_refuses_an_unprivileged_user():
    """The same as a real user meets it: a forked child drops root and writes."""
    if os.geteuid() != 0:
        pytest.skip("only root can switch to another user; see test_a_read_only_directory_is_an_output_error")
    base = Path(tempfile.mkdtemp())
    locked = base / "locked"
    try:
        base.chmod(0o755)
        locked.mkdir()
        (locked / "old.txt").write_text("old")
        (locked / "old.txt").chmod(0o666)
        locked.chmod(0o555)
        outcomes = []
        for name in ("new.txt", "old.txt"):
            read_end, write_end = os.pipe()
            pid = os.fork()
            if pid == 0:  # child: never return into pytest
                try:
                    os.close(read_end)
                    os.setgroups([])
                    os.setgid(65534)
                    os.setuid(65534)
                    try:
                        atomic_write(locked / name, "new")
                        outcome = "written"
                    except OutputError as exc:
                        outcome = f"OutputError {exc.exit_code} {exc}"
                    except BaseException as exc:
                        outcome = f"{type(exc).__name__} {exc}"
                    os.write(write_end, outcome.encode())
                finally:
                    os._exit(0)
            os.close(write_end)
            with os.fdopen(read_end, "rb") as pipe:
                outcomes.append(pipe.read().decode())
            os.waitpid(pid, 0)
        assert outcomes == [
            f"OutputError 6 {locked / 'new.txt'}: cannot write: Permission denied",
            f"OutputError 6 {locked / 'old.txt'}: cannot write: Permission denied",
        ]
        assert (locked / "old.txt").read_text() == "old"
        assert sorted(os.listdir(locked)) == ["old.txt"]
    finally:
        if locked.exists():
            locked.chmod(0o755)
        shutil.rmtree(base)


def _fail_on_temporary(call, error: type[OSError]):
    """``call`` (os.open, os.replace...) failing with ``error`` for temporary files only."""

    def failing(*args, **kwargs):
        if ".corefio-" in os.fspath(args[0]):
            raise error(13, "Permission denied")
        return call(*args, **kwargs)

    return failing


def test_permission_denied_creating_the_temporary_is_an_output_error(tmp_path: Path, monkeypatch):
    (tmp_path / "old.txt").write_text("old")
    monkeypatch.setattr(files.os, "open", _fail_on_temporary(os.open, PermissionError))
    _check_refused(tmp_path / "old.txt", "old")
    _check_refused(tmp_path / "new.txt", None)


def test_permission_denied_renaming_is_an_output_error_and_removes_the_temporary(tmp_path: Path, monkeypatch):
    (tmp_path / "old.txt").write_text("old")
    monkeypatch.setattr(files.os, "replace", _fail_on_temporary(os.replace, PermissionError))
    _check_refused(tmp_path / "old.txt", "old")
    _check_refused(tmp_path / "new.txt", None)
    assert os.listdir(tmp_path) == ["old.txt"]


def test_the_cli_reports_an_unwritable_output_with_exit_code_6(cli, tmp_path: Path, monkeypatch):
    monkeypatch.setattr(files.os, "open", _fail_on_temporary(os.open, PermissionError))
    result = cli("convert", SAMPLES / "key.raf.xml", tmp_path / "key.conll")
    assert result.exit_code == 6, result.output
    assert "cannot write: Permission denied" in result.output
    assert "internal error" not in result.output


# ------------------------------------------------------------------------------------------
# writing: leftovers of killed writers
# ------------------------------------------------------------------------------------------
STALLED_WRITER = """
import os, sys, time
from corefio.io import files

def stall(fd):
    # the whole payload is in the temporary file; wait here to be killed
    print("writing", flush=True)
    time.sleep(120)

os.fsync = stall
files.atomic_write(sys.argv[1], b"x" * 5_000_000)
"""


def test_a_killed_writer_leaves_a_temporary_the_next_write_removes(tmp_path: Path):
    target = tmp_path / "out.conll"
    target.write_text("old")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    child = subprocess.Popen([sys.executable, "-c", STALLED_WRITER, str(target)],
                             stdout=subprocess.PIPE, env=env)
    try:
        assert child.stdout.readline() == b"writing\n"
        (leftover,) = temporaries(tmp_path)
        assert re.fullmatch(rf"\.out\.conll\.corefio-{child.pid}-[0-9a-f]{{8}}\.tmp", leftover)
        assert (tmp_path / leftover).stat().st_size == 5_000_000
        # a writer that is still alive keeps its temporary
        atomic_write(tmp_path / "out.conll", "meanwhile")
        assert temporaries(tmp_path) == [leftover]
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=30) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
        child.stdout.close()
    assert temporaries(tmp_path) == [leftover]  # the litter a kill -9 leaves
    atomic_write(target, "new")
    assert target.read_text() == "new"
    assert os.listdir(tmp_path) == ["out.conll"]


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_only_stale_temporaries_of_the_same_output_are_removed(tmp_path: Path):
    dead = _dead_pid()
    sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        names = {
            "stale": f".out.txt.corefio-{dead}-0123abcd.tmp",
            "mine, left by an earlier process": f".out.txt.corefio-{os.getpid()}-89abcdef.tmp",
            "alive": f".out.txt.corefio-{sleeper.pid}-0123abcd.tmp",
            "other output": f".out.txt.gz.corefio-{dead}-0123abcd.tmp",
            "other output 2": f".ut.txt.corefio-{dead}-0123abcd.tmp",
            "not ours": f".out.txt.{dead}.tmp",
            "user file": f".out.txt.corefio-{dead}-0123abcd.tmp.keep",
        }
        for name in names.values():
            (tmp_path / name).write_text("litter")
        (tmp_path / "dir").mkdir()
        (tmp_path / "dir" / f".out.txt.corefio-{dead}-0123abcd.tmp").mkdir()
        atomic_write(tmp_path / "out.txt", "x")
        atomic_write(tmp_path / "dir" / "out.txt", "x")
        left = set(os.listdir(tmp_path))
        assert names["stale"] not in left
        assert names["mine, left by an earlier process"] not in left
        kept = {k for k, v in names.items() if v in left}
        assert kept == {"alive", "other output", "other output 2", "not ours", "user file"}
        assert (tmp_path / "dir" / f".out.txt.corefio-{dead}-0123abcd.tmp").is_dir()
    finally:
        sleeper.kill()
        sleeper.wait()


def test_a_temporary_another_thread_is_writing_is_kept(tmp_path: Path):
    busy = f".out.txt.corefio-{os.getpid()}-00000000.tmp"
    (tmp_path / busy).write_text("half")
    files._writing.add(busy)
    try:
        atomic_write(tmp_path / "out.txt", "x")
    finally:
        files._writing.discard(busy)
    assert (tmp_path / busy).exists()


# ------------------------------------------------------------------------------------------
# writing: links, devices, FIFOs, inputs
# ------------------------------------------------------------------------------------------
def test_a_symlink_is_written_through(tmp_path: Path):
    real_dir, link_dir = tmp_path / "real", tmp_path / "links"
    real_dir.mkdir()
    link_dir.mkdir()
    target = real_dir / "out.conll"
    target.write_text("old")
    target.chmod(0o640)
    link = link_dir / "out.conll"
    link.symlink_to(Path("..") / "real" / "out.conll")
    atomic_write(link, TEXT)
    assert link.is_symlink() and os.readlink(link) == os.path.join("..", "real", "out.conll")
    assert target.read_text(encoding="utf-8") == TEXT
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert os.listdir(real_dir) == ["out.conll"] and os.listdir(link_dir) == ["out.conll"]


def test_a_chain_of_links_and_a_dangling_link(tmp_path: Path):
    target = tmp_path / "target.txt"
    (tmp_path / "one").symlink_to(target)  # dangling: the write creates the target
    (tmp_path / "two").symlink_to(tmp_path / "one")
    atomic_write(tmp_path / "two", "through two links")
    assert (tmp_path / "two").is_symlink() and (tmp_path / "one").is_symlink()
    assert target.read_text() == "through two links"


def test_a_stale_temporary_next_to_the_link_target_is_cleaned(tmp_path: Path):
    (tmp_path / "real").mkdir()
    stale = tmp_path / "real" / f".out.txt.corefio-{_dead_pid()}-0123abcd.tmp"
    stale.write_text("litter")
    (tmp_path / "link.txt").symlink_to(tmp_path / "real" / "out.txt")
    atomic_write(tmp_path / "link.txt", "x")
    assert os.listdir(tmp_path / "real") == ["out.txt"]


def test_a_symlink_loop_is_an_output_error(tmp_path: Path):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(OutputError, match="cannot write"):
        atomic_write(tmp_path / "a", "x")


def test_an_input_is_never_overwritten(tmp_path: Path):
    source = tmp_path / "in.conll"
    source.write_text("input")
    (tmp_path / "link.conll").symlink_to(source)
    os.link(source, tmp_path / "hard.conll")
    for output in (source, tmp_path / "link.conll", tmp_path / "hard.conll", tmp_path / "." / "in.conll"):
        with pytest.raises(OutputError, match="refusing to overwrite an input file"):
            atomic_write(output, "output", inputs=[tmp_path / "other", source])
    assert source.read_text() == "input" and (tmp_path / "link.conll").is_symlink()
    # the input given through a link is recognised as well
    with pytest.raises(OutputError, match="refusing"):
        atomic_write(source, "output", inputs=[tmp_path / "link.conll"])


def _device(tmp_path: Path, real: str) -> Path:
    """A character device to write to, standing for ``real`` (/dev/null, /dev/full).

    As root, a private twin made with mknod (same device number, so the same driver): a
    broken atomic_write could then only replace the twin, never the system's device.
    Other users get ``real`` itself, which they cannot replace.
    """
    if not os.path.exists(real):
        pytest.skip(f"no {real} on this system")
    if os.geteuid() != 0:
        return Path(real)
    twin = tmp_path / os.path.basename(real)
    try:
        os.mknod(twin, stat.S_IFCHR | 0o666, os.stat(real).st_rdev)
        os.close(os.open(twin, os.O_WRONLY))
    except OSError as exc:
        pytest.skip(f"cannot make a private copy of {real} with mknod: {exc}")
    return twin


def test_dev_null_is_written_to_and_stays_a_device(tmp_path: Path):
    null = _device(tmp_path, "/dev/null")
    before = os.stat(null)
    neighbours = set(os.listdir(null.parent))
    # a device is never "an input overwritten", even when it is also the input
    atomic_write(null, TEXT * 1000, inputs=[null])
    after = os.lstat(null)
    assert stat.S_ISCHR(after.st_mode) and after.st_rdev == before.st_rdev
    assert after.st_ino == before.st_ino  # the very same node, not a replacement
    assert set(os.listdir(null.parent)) == neighbours  # no temporary file next to it


def test_a_link_to_dev_null_stays_a_link(tmp_path: Path):
    null = _device(tmp_path, "/dev/null")
    (tmp_path / "sink").symlink_to(null)
    atomic_write(tmp_path / "sink", "x")
    assert os.readlink(tmp_path / "sink") == str(null)
    assert stat.S_ISCHR(os.lstat(null).st_mode)


def test_a_full_device_is_an_output_error(tmp_path: Path):
    full = _device(tmp_path, "/dev/full")
    with pytest.raises(OutputError, match="cannot write: No space left on device"):
        atomic_write(full, "x" * 100_000)
    assert stat.S_ISCHR(os.lstat(full).st_mode)


def _fifo_reader(fifo: Path, limit: int | None = None):
    """A thread that opens ``fifo`` and reads it to the end (or ``limit`` bytes, then closes).

    Opening a FIFO blocks until the other side opens it too, so reader and writer meet.
    """
    received = bytearray()

    def read() -> None:
        with open(fifo, "rb", buffering=0) as pipe:
            while limit is None or len(received) < limit:
                chunk = pipe.read(65536 if limit is None else limit - len(received))
                if not chunk:
                    break
                received.extend(chunk)

    # a daemon: if the FIFO were wrongly replaced, the thread would wait forever in open()
    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread, received


def test_a_fifo_is_written_directly(tmp_path: Path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    thread, received = _fifo_reader(fifo)
    payload = ("é" * 1_000_000).encode()  # far more than a pipe holds
    atomic_write(fifo, payload)
    thread.join(timeout=30)
    assert not thread.is_alive()
    assert bytes(received) == payload
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert os.listdir(tmp_path) == ["pipe"]


def test_a_fifo_whose_reader_leaves_is_an_output_error(tmp_path: Path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    thread, received = _fifo_reader(fifo, limit=1)
    with pytest.raises(OutputError, match="cannot write: Broken pipe"):
        atomic_write(fifo, b"x" * 1_000_000)
    thread.join(timeout=30)
    assert bytes(received) == b"x"
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


# ------------------------------------------------------------------------------------------
# writing in pieces, and multi-file outputs
# ------------------------------------------------------------------------------------------
def test_pieces_are_written_in_order(tmp_path: Path):
    path = tmp_path / "out.conll"
    atomic_write(path, (piece for piece in ["#begin", b" document", bytearray(b" (d)"), "\n"]))
    assert path.read_text() == "#begin document (d)\n"
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    thread, received = _fifo_reader(fifo)
    atomic_write(fifo, iter([b"a", "é"]))
    thread.join(timeout=30)
    assert bytes(received) == "aé".encode()


class Refused(Exception):
    pass


def test_an_error_raised_by_the_pieces_leaves_the_old_file(tmp_path: Path):
    path = tmp_path / "out.conll"
    path.write_text("old")

    def pieces():
        yield "new " * 100_000
        raise Refused("a loss in strict mode")

    with pytest.raises(Refused):
        atomic_write(path, pieces())
    assert path.read_text() == "old"
    assert os.listdir(tmp_path) == ["out.conll"]


def test_pieces_are_not_consumed_when_the_output_is_refused(tmp_path: Path):
    source = tmp_path / "in.conll"
    source.write_text("input")
    consumed = []

    def pieces():
        consumed.append(True)
        yield "x"

    with pytest.raises(OutputError, match="refusing"):
        atomic_write(source, pieces(), inputs=[source])
    assert consumed == []


def test_a_tree_is_written_under_its_directory(tmp_path: Path):
    root = tmp_path / "project"
    tree = {"doc.mmax": b"<mmax/>", "Basedata/doc_words.xml": "<words/>", "Markables/a/b.xml": b"m"}
    files.atomic_write_tree(root, tree)
    assert (root / "doc.mmax").read_bytes() == b"<mmax/>"
    assert (root / "Basedata" / "doc_words.xml").read_text() == "<words/>"
    assert (root / "Markables" / "a" / "b.xml").read_bytes() == b"m"
    files.atomic_write_tree(root, {"doc.mmax": b"again"}, force=True)  # a full directory only with force
    assert (root / "doc.mmax").read_bytes() == b"again"
    assert temporaries(root) == []


def test_a_tree_goes_into_an_existing_directory_only_when_it_is_empty_or_forced(tmp_path: Path):
    root = tmp_path / "project"
    root.mkdir()
    files.atomic_write_tree(root, {"doc.mmax": b"first", "Basedata/w.xml": b"w"})  # empty: fine
    with pytest.raises(OutputError, match=r"overwrite 1 existing file\(s\).*doc\.mmax.*--force"):
        files.atomic_write_tree(root, {"doc.mmax": b"second", "other.xml": b"o"})
    assert (root / "doc.mmax").read_bytes() == b"first" and not (root / "other.xml").exists()
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep")
    with pytest.raises(OutputError, match=r"not empty \(it holds notes\.txt\)"):
        files.atomic_write_tree(mine, {"doc.mmax": b"x"})
    assert os.listdir(mine) == ["notes.txt"]
    files.atomic_write_tree(root, {"doc.mmax": b"second"}, force=True)
    assert (root / "doc.mmax").read_bytes() == b"second" and (root / "Basedata" / "w.xml").read_bytes() == b"w"


@pytest.mark.parametrize("name", ["../escape.xml", "a/../../escape.xml", "/tmp/escape.xml", "", "a\\..\\b"])
def test_a_tree_refuses_paths_that_leave_it_and_writes_nothing(tmp_path: Path, name: str):
    root = tmp_path / "project"
    with pytest.raises(OutputError, match="not a path inside the output directory"):
        files.atomic_write_tree(root, {"ok.xml": b"x", name: b"x"})
    assert os.listdir(tmp_path) == []


def test_a_tree_never_overwrites_an_input(tmp_path: Path):
    root = tmp_path / "project"
    root.mkdir()
    (root / "doc.mmax").write_text("input")
    with pytest.raises(OutputError, match="refusing to overwrite an input file"):
        files.atomic_write_tree(root, {"new.xml": b"x", "doc.mmax": b"x"}, inputs=[root / "doc.mmax"])
    with pytest.raises(OutputError, match="inside an input directory"):
        files.atomic_write_tree(root, {"new.xml": b"x"}, inputs=[root])
    assert os.listdir(root) == ["doc.mmax"] and (root / "doc.mmax").read_text() == "input"


def test_a_tree_needs_an_existing_parent_and_a_directory(tmp_path: Path):
    with pytest.raises(OutputError, match="does not exist"):
        files.atomic_write_tree(tmp_path / "missing" / "project", {"a.xml": b"x"})
    (tmp_path / "file").write_text("not a directory")
    with pytest.raises(OutputError, match="cannot write"):
        files.atomic_write_tree(tmp_path / "file", {"a.xml": b"x"})
    assert (tmp_path / "file").read_text() == "not a directory"


# ------------------------------------------------------------------------------------------
# writing a tree: one sync, one rename
# ------------------------------------------------------------------------------------------
@pytest.fixture
def counted(monkeypatch):
    """Counts of the calls that wait for the disk: ``os.fsync`` and the one file system sync."""
    counts = {"fsync": 0, "sync": 0}
    fsync, sync = os.fsync, files._sync_filesystem

    def counting_fsync(fd):
        counts["fsync"] += 1
        return fsync(fd)

    def counting_sync(path):
        counts["sync"] += 1
        return sync(path)

    monkeypatch.setattr(files.os, "fsync", counting_fsync)
    monkeypatch.setattr(files, "_sync_filesystem", counting_sync)
    return counts


def test_a_tree_of_1132_files_is_synced_once_not_once_per_file(tmp_path: Path, counted):
    """An MMAX2 project of 1,132 files once waited for the disk about 2,264 times (each
    file synced, then its folder); now the staged tree is synced once and renamed."""
    tree = {f"Markables/doc{k}_coref_level.xml": f"<markables n='{k}'/>" for k in range(1000)}
    tree.update({f"Basedata/doc{k}_words.xml": b"<words/>" for k in range(132)})
    root = tmp_path / "project"
    files.atomic_write_tree(root, tree)
    assert counted["sync"] == 1 and counted["fsync"] <= 1
    assert sum(len(names) for _, _, names in os.walk(root)) == 1132
    assert (root / "Markables" / "doc7_coref_level.xml").read_text() == "<markables n='7'/>"
    assert os.listdir(tmp_path) == ["project"]  # no staging folder left


def test_an_mmax2_project_is_written_with_one_sync(tmp_path: Path, counted):
    import corefio

    corpus = corefio.read(SAMPLES / "key.raf.xml")
    corpus = corpus.copy(documents=[d.copy(name=f"doc{k}") for k in range(40) for d in corpus.documents[:1]])
    corefio.write(corpus, tmp_path / "project", "mmax2")
    written = sum(len(names) for _, _, names in os.walk(tmp_path / "project"))
    assert written > 80
    assert counted["sync"] == 1 and counted["fsync"] <= 1
    assert len(corefio.read(tmp_path / "project", "mmax2").documents) == 40


def test_a_tree_appears_whole_or_not_at_all(tmp_path: Path):
    """A failure while the files are produced leaves no directory and nothing staged."""
    def failing():
        yield b"<a/>"
        raise RuntimeError("the writer failed")

    root = tmp_path / "project"
    with pytest.raises(RuntimeError):
        files.atomic_write_tree(root, {"a.xml": b"x", "b.xml": failing(), "c.xml": b"z"})
    assert os.listdir(tmp_path) == []
    root.mkdir()
    with pytest.raises(RuntimeError):
        files.atomic_write_tree(root, {"a.xml": b"x", "b.xml": failing()})
    assert os.listdir(root) == [] and os.listdir(tmp_path) == ["project"]


def test_a_forced_tree_keeps_other_files_modes_and_links(tmp_path: Path, counted):
    root = tmp_path / "project"
    root.mkdir()
    (root / "notes.txt").write_text("mine")
    (root / "a.xml").write_text("old")
    os.chmod(root / "a.xml", 0o600)
    real = tmp_path / "elsewhere.xml"
    real.write_text("old link target")
    (root / "b.xml").symlink_to(real)
    files.atomic_write_tree(root, {"a.xml": b"new a", "b.xml": b"new b", "sub/c.xml": b"c"}, force=True)
    assert (root / "notes.txt").read_text() == "mine"
    assert (root / "a.xml").read_text() == "new a" and stat.S_IMODE((root / "a.xml").stat().st_mode) == 0o600
    assert (root / "b.xml").is_symlink() and real.read_text() == "new b"
    assert (root / "sub" / "c.xml").read_text() == "c"
    assert counted["sync"] == 1
    assert sorted(os.listdir(tmp_path)) == ["elsewhere.xml", "project"]


def test_a_tree_through_a_link_to_a_directory(tmp_path: Path):
    real = tmp_path / "real"
    real.mkdir()
    link = tmp_path / "link"
    link.symlink_to(real)
    files.atomic_write_tree(link, {"a.xml": b"x"})
    assert link.is_symlink() and (real / "a.xml").read_bytes() == b"x"
