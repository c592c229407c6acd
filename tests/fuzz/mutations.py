"""The mutations the fuzzer applies to seed files.

Each mutation is a function ``(rng, data, pool) -> bytes`` where ``pool`` holds the
other seeds of the same format (for splicing). They work on bytes, so a mutation can
produce anything a user's disk might hold: broken UTF-8, other encodings, stray control
characters. Line-level mutations keep the line ends they find.
"""

from __future__ import annotations

import codecs
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

Mutator = Callable[[random.Random, bytes, Sequence[bytes]], bytes]

#: single bytes a parser cares about
_INTERESTING_BYTES = b"()|\t \n\r#-_=;:\"'<>&/\\*0123456789\x00\x7f\x80\xc3\xff"
#: short byte strings worth inserting anywhere
_TOKENS = (
    b"(", b")", b"|", b"(1", b"1)", b"(1)", b"\t", b" ", b"\n", b"\r", b"\r\n", b"#", b"-", b"_",
    b"\x00", b"\xff", b"\xc3", b"\xe9", b"\xef\xbb\xbf", "\u00b2".encode(), b"\\", b"\"", b"'",
    b"&", b"<", b">", b"=", b";", b"\n\n", b"# begin document (x); part 000\n", b"#end document\n",
)
_SYNTHETIC_LINES = (
    b"", b"#", b"# comment", b"#begin document (fz); part 000", b"# begin document fz",
    b"#end document", b"# newdoc id = fz", b"# sent_id = fz-1", b"# text = a b",
    b"1\tx\t_\t_\t_\t_\t_\t_\t_\t_", b"1-2\tab\t_\t_\t_\t_\t_\t_\t_\t_", b"fz 0 0 x - (1)", b"\t", b" ",
    b"{}", b"[]", b"{\"doc_key\": \"fz\", \"sentences\": [[\"a\"]], \"clusters\": [[[0, 0]]]}",
)
_BRACKET_FIELDS = (
    b"-", b"_", b"(", b")", b"|", b"(1)", b"(1", b"1)", b"((1)", b"(1))", b"(1)|(2)", b"(1|(2",
    b"(1)(1)", b"1)(1", b"(x)", b"(-1)", b"(1)|", b"|(1)", b"()", b"(0)", b"(99999999999999999999)",
    b"Entity=(e1)", b"Entity=e1)", b"Entity=(e1", b"Entity=(e1-x-1-)", b"SplitAnte=e1<e2",
    b"Bridge=e1<e2", b"Entity=(e1)|Entity=(e2)",
)
_HUGE_NUMBERS = (b"9" * 5000, b"1" + b"0" * 30, b"-1", b"0", b"4294967296", b"18446744073709551617",
                 b"1e309", b"01", b"+1", b"1.5", b"NaN")
_UNICODE_DIGITS = tuple(c.encode() for c in "\u00b2\u00b9\u0663\uff13\U0001d7d9\u2075\u09e8\u0e52")
_UNICODE_NOISE = tuple(c.encode("utf-8", "surrogatepass") for c in (
    "\u200b", "\u202e", "\u0301", "\ufeff", "\u2028", "\u2029", "\u0085", "\u000b", "\u000c", "\u001c",
    "\ud800", "\U0010ffff", "\ufffe", "\u00a0", "\u3000",
)) + (b"\xe9", b"\xed\xa0\x80", b"\xc0\xaf", b"\xf4\x90\x80\x80")
_XML_ENTITIES = (b"&undefined;", b"&amp;", b"&#0;", b"&#x110000;", b"&lt;", b"&#65;", b"&#xD800;",
                 b"&", b"&amp", b"&#;", b"&#x;", b"&nbsp;", b"&#99999999999;")


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True)


def _line_end(line: bytes) -> bytes:
    for end in (b"\r\n", b"\n", b"\r"):
        if line.endswith(end):
            return end
    return b""


def _content_line_indices(lines: list[bytes]) -> list[int]:
    return [i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith(b"#")]


# -- byte level ------------------------------------------------------------------------------
def flip_bits(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    if not data:
        return bytes([rng.randrange(256)])
    out = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        i = rng.randrange(len(out))
        out[i] ^= 1 << rng.randrange(8)
    return bytes(out)


def set_byte(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    if not data:
        return bytes([rng.choice(_INTERESTING_BYTES)])
    out = bytearray(data)
    out[rng.randrange(len(out))] = rng.choice(_INTERESTING_BYTES)
    return bytes(out)


def insert_token(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    i = rng.randint(0, len(data))
    return data[:i] + rng.choice(_TOKENS) + data[i:]


def delete_bytes(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    if not data:
        return data
    i = rng.randrange(len(data))
    return data[:i] + data[i + rng.randint(1, 16):]


def truncate(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    return data[:rng.randint(0, len(data))]


# -- line level ------------------------------------------------------------------------------
def truncate_lines(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    lines = _lines(data)
    return b"".join(lines[:rng.randint(0, len(lines))])


def delete_lines(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    lines = _lines(data)
    if not lines:
        return data
    i = rng.randrange(len(lines))
    del lines[i:i + rng.randint(1, 3)]
    return b"".join(lines)


def duplicate_lines(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    lines = _lines(data)
    if not lines:
        return data
    i = rng.randrange(len(lines))
    block = lines[i:i + rng.randint(1, 5)]
    if block and not _line_end(block[-1]):
        block[-1] += b"\n"
    lines[i:i] = block
    return b"".join(lines)


def move_line(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    lines = _lines(data)
    if len(lines) < 2:
        return data
    line = lines.pop(rng.randrange(len(lines)))
    if not _line_end(line):
        line += b"\n"
    lines.insert(rng.randrange(len(lines) + 1), line)
    return b"".join(lines)


def insert_line(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    lines = _lines(data)
    end = _line_end(lines[0]) if lines else b"\n"
    if pool and rng.random() < 0.3:
        other = _lines(rng.choice(pool))
        new = other[rng.randrange(len(other))] if other else b"\n"
    else:
        new = rng.choice(_SYNTHETIC_LINES) + (end or b"\n")
    i = rng.randint(0, len(lines))
    if i == len(lines) and lines and not _line_end(lines[-1]):
        lines[-1] += b"\n"
    lines.insert(i, new)
    return b"".join(lines)


def bracket_edit(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    """Edit the last column of a word line (CoNLL's chains, CoNLL-U's MISC)."""
    lines = _lines(data)
    candidates = _content_line_indices(lines)
    if not candidates:
        return data
    i = rng.choice(candidates)
    line = lines[i]
    end = _line_end(line)
    body = line[:len(line) - len(end)]
    cut = max(body.rfind(b"\t"), body.rfind(b" ")) + 1
    head, field = body[:cut], body[cut:]
    choice = rng.randrange(5)
    if choice == 0 or not field:
        field = rng.choice(_BRACKET_FIELDS)
    elif choice == 1:
        k = rng.randint(0, len(field))
        field = field[:k] + bytes([rng.choice(b"()|")]) + field[k:]
    elif choice == 2:
        k = rng.randrange(len(field))
        field = field[:k] + field[k + 1:]
    elif choice == 3:
        field = re.sub(rb"\d+", lambda m: str(rng.choice((0, 1, 2, 7, 10, 123))).encode(), field, count=1)
    else:
        field = field + rng.choice((b"|", b"(1)", b")", b"|(2"))
    lines[i] = head + field + end
    return b"".join(lines)


def splice(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    """The head of this input followed by the tail of another seed (line boundaries)."""
    if not pool:
        return data
    mine, other = _lines(data), _lines(rng.choice(pool))
    a = mine[:rng.randint(0, len(mine))]
    b = other[rng.randint(0, len(other)):]
    if a and not _line_end(a[-1]):
        a[-1] += b"\n"
    return b"".join(a + b)


def repeat_block(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    """A block of lines repeated many times (long documents, many mentions)."""
    lines = _lines(data)
    if not lines:
        return data
    i = rng.randrange(len(lines))
    block = b"".join(lines[i:i + rng.randint(1, 4)])
    if not block.endswith((b"\n", b"\r")):
        block += b"\n"
    times = rng.choice((50, 500, 5000))
    # at most ~150 kB more: larger inputs test speed more than robustness, and a
    # slow step on a busy machine must not pass for a hang
    times = max(1, min(times, 150_000 // max(1, len(block))))
    return b"".join(lines[:i]) + block * times + b"".join(lines[i:])


# -- encodings and line ends ---------------------------------------------------------------
def _text(data: bytes) -> str:
    """The text of UTF-8 ``data`` without its BOM (the other encodings add their own)."""
    return data.decode("utf-8", "replace").removeprefix("\ufeff")


def bom_utf8(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    return codecs.BOM_UTF8 + data


def bom_odd(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    """Two BOMs, a BOM of another encoding before UTF-8, or a BOM starting a later line."""
    choice = rng.randrange(3)
    if choice == 0:
        return codecs.BOM_UTF8 + codecs.BOM_UTF8 + data
    if choice == 1:
        return rng.choice((codecs.BOM_UTF16_LE, codecs.BOM_UTF32_LE, codecs.BOM_UTF16_BE)) + data
    lines = _lines(data)
    if not lines:
        return codecs.BOM_UTF8
    i = rng.randrange(len(lines))
    lines[i] = codecs.BOM_UTF8 + lines[i]
    return b"".join(lines)


def utf16(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    """The same text in UTF-16 with its BOM (little or big endian)."""
    if rng.random() < 0.5:
        return codecs.BOM_UTF16_LE + _text(data).encode("utf-16-le")
    return codecs.BOM_UTF16_BE + _text(data).encode("utf-16-be")


def utf32(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    """The same text in UTF-32 with its BOM."""
    if rng.random() < 0.5:
        return codecs.BOM_UTF32_LE + _text(data).encode("utf-32-le")
    return codecs.BOM_UTF32_BE + _text(data).encode("utf-32-be")


def utf16_no_bom(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    return _text(data).encode("utf-16-le")


def crlf(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def cr_only(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    return data.replace(b"\r\n", b"\n").replace(b"\n", b"\r")


def mixed_line_ends(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    lines = data.replace(b"\r\n", b"\n").split(b"\n")
    ends = [rng.choice((b"\n", b"\r\n", b"\r")) for _ in lines[:-1]]
    return b"".join(line + end for line, end in zip(lines, ends)) + lines[-1]


def no_final_newline(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    return data.rstrip(b"\r\n")


def extra_final_newlines(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    return data + rng.choice((b"\n", b"\r\n", b"\n\n", b"\n\n\n"))


def delimiters(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    """Mix TAB and space delimiters on some lines."""
    lines = _lines(data)
    candidates = _content_line_indices(lines)
    if not candidates:
        return data
    for i in rng.sample(candidates, min(len(candidates), rng.randint(1, 3))):
        line = lines[i]
        choice = rng.randrange(4)
        if b"\t" in line and choice == 0:
            lines[i] = line.replace(b"\t", b" ")
        elif b"\t" in line and choice == 1:
            k = rng.randrange(line.count(b"\t"))
            parts = line.split(b"\t")
            lines[i] = b"\t".join(parts[:k + 1]) + rng.choice((b" ", b"   ")) + b"\t".join(parts[k + 1:])
        elif choice == 2:
            lines[i] = line.replace(b" ", b"\t")
        else:
            lines[i] = re.sub(rb"[ \t]", lambda m: m.group(0) * 2, line, count=1)
    return b"".join(lines)


# -- numbers and characters ------------------------------------------------------------------
def huge_number(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    runs = list(re.finditer(rb"\d+", data))
    if not runs:
        return data
    m = rng.choice(runs)
    return data[:m.start()] + rng.choice(_HUGE_NUMBERS) + data[m.end():]


def unicode_digit(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    runs = list(re.finditer(rb"\d", data))
    if not runs:
        return data
    m = rng.choice(runs)
    return data[:m.start()] + rng.choice(_UNICODE_DIGITS) + data[m.end():]


def unicode_noise(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    i = rng.randint(0, len(data))
    # keep UTF-8 sequences whole: move to a character start
    while 0 < i < len(data) and 0x80 <= data[i] < 0xC0:
        i -= 1
    return data[:i] + rng.choice(_UNICODE_NOISE) + data[i:]


# -- JSON ------------------------------------------------------------------------------------
def json_token(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    """Swap a JSON token for another (a list for a number, null for a string...)."""
    found = list(re.finditer(rb'-?\d+|"(?:[^"\\]|\\.)*"|\[|\]|\{|\}|,|:|null|true|false', data))
    if not found:
        return data
    m = rng.choice(found)
    new = rng.choice((b"null", b"true", b"[]", b"{}", b'""', b"0", b"-1", b"1.5", b'"x"', b"[[0, 0]]",
                      b"[0, 0, 0]", b"[1, 0]", b'"\\ud800"', b'"\\u0000"', b"", b",", b"]", b"}", b"1e999"))
    return data[:m.start()] + new + data[m.end():]


# -- XML -------------------------------------------------------------------------------------
def xml_entity(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    spots = [m.end() for m in re.finditer(rb'>|="', data)]
    i = rng.choice(spots) if spots else rng.randint(0, len(data))
    return data[:i] + rng.choice(_XML_ENTITIES) + data[i:]


def xml_unclosed(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    choice = rng.randrange(4)
    if choice == 0:
        closers = list(re.finditer(rb"</[^>]*>", data))
        if closers:
            m = rng.choice(closers)
            return data[:m.start()] + data[m.end():]
    if choice == 1:
        ends = [m.start() for m in re.finditer(rb">", data)]
        if ends:
            i = rng.choice(ends)
            return data[:i] + data[i + 1:]
    if choice == 2:
        empties = [m.start() for m in re.finditer(rb"/>", data)]
        if empties:
            i = rng.choice(empties)
            return data[:i] + data[i + 1:]
    opens = list(re.finditer(rb"<([A-Za-z_][\w.-]*)[^>]*>", data))
    if not opens:
        return data
    m = rng.choice(opens)
    return data[:m.end()] + b"<" + m.group(1) + b">" + data[m.end():]


def xml_quote(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    attrs = list(re.finditer(rb'(\s)([\w:.-]+)="([^"<]*)"', data))
    if not attrs:
        return data
    m = rng.choice(attrs)
    space, name, value = m.group(1), m.group(2), m.group(3)
    choice = rng.randrange(6)
    if choice == 0:
        new = space + name + b"='" + value + b"'"
    elif choice == 1:
        new = space + name + b'="' + value
    elif choice == 2:
        new = space + name + b"=" + value
    elif choice == 3:
        new = space + name + b'="' + value + rng.choice((b'"', b"<", b"&", b"'")) + b'x"'
    elif choice == 4:
        new = m.group(0) + m.group(0)
    else:
        new = space + name + b'=""'
    return data[:m.start()] + new + data[m.end():]


def xml_ids(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    """Point a reference elsewhere: another id, a missing one, a duplicate."""
    values = list(re.finditer(rb'="([\w:.#-]+)"', data))
    if len(values) < 2:
        return data
    m = rng.choice(values)
    other = rng.choice(values).group(1)
    new = rng.choice((other, b"missing_id", b"", other + b" " + other, b"#" + other))
    return data[:m.start(1)] + new + data[m.end(1):]


def xml_structure(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    choice = rng.randrange(4)
    decl = re.search(rb"<\?xml[^>]*\?>", data)
    after = decl.end() if decl else 0
    if choice == 0:
        doctype = rng.choice((b'<!DOCTYPE x [<!ENTITY a "b">]>', b"<!DOCTYPE struct>",
                              b'<!DOCTYPE x SYSTEM "file:///etc/passwd">'))
        return data[:after] + doctype + data[after:]
    if choice == 1:
        opens = [m.end() for m in re.finditer(rb"<[A-Za-z][^>]*[^/]>", data)]
        i = rng.choice(opens) if opens else after
        depth = rng.choice((10, 1000, 20000))
        return data[:i] + b"<struct>" * depth + b"</struct>" * depth + data[i:]
    if choice == 2:
        elements = list(re.finditer(rb"<([A-Za-z][\w.-]*)\b[^>]*/>|<([A-Za-z][\w.-]*)\b[^>]*>[^<]*</\2>", data))
        if elements:
            m = rng.choice(elements)
            return data[:m.end()] + m.group(0) + data[m.end():]
        return data
    spots = [m.end() for m in re.finditer(rb">", data)]
    i = rng.choice(spots) if spots else after
    return data[:i] + rng.choice((b"<![CDATA[x]]>", b"<!-- c -->", b"<?pi x?>", b"text", b"<x/>")) + data[i:]


# -- truncation at every kind of byte ---------------------------------------------------------
#: the kinds of byte a file can be cut at; a cut just before or just after one of them
#: leaves a reader in each state its grammar has (inside a tag, a quoted value, an entity,
#: a number, a bracket, a JSON value, a UTF-8 sequence ...)
BYTE_CLASSES: dict[str, bytes] = {
    "markup": b"<>/=!?",
    "quote": b"\"'",
    "entity": b"&;#",
    "space": b" \t",
    "newline": b"\n\r",
    "digit": b"0123456789",
    "letter": bytes(range(0x41, 0x5B)) + bytes(range(0x61, 0x7B)),
    "bracket": b"()|-_",
    "json": b"{}[],:",
    "utf8-lead": bytes(range(0xC2, 0xF5)),
}
_CLASS_PATTERNS = {name: re.compile(b"[" + re.escape(members) + b"]") for name, members in BYTE_CLASSES.items()}


def truncate_at_class(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    """Cut the file just before or just after a byte of a randomly chosen class (after a
    UTF-8 lead byte: inside a multi-byte character)."""
    present = [name for name, pattern in _CLASS_PATTERNS.items() if pattern.search(data)]
    if not present:
        return data[:rng.randint(0, len(data))]
    name = rng.choice(present)
    # a sample of the places (a large file has too many to list them all)
    places = []
    for k, m in enumerate(_CLASS_PATTERNS[name].finditer(data)):
        if k < 256:
            places.append(m.start())
        elif rng.random() < 256 / (k + 1):
            places[rng.randrange(256)] = m.start()
    i = rng.choice(places)
    return data[:i + (1 if name == "utf8-lead" or rng.random() < 0.5 else 0)]


# -- MMAX2 projects ---------------------------------------------------------------------------
_MARKABLE = re.compile(rb"<markable\b[^>]*>")
_ID = re.compile(rb'\bid="([^"]*)"')
_SPAN = re.compile(rb'\bspan="([^"]*)"')
_POINTER_VALUE = re.compile(rb'(?<!\bid)="((?:[\w-]+:)?markable_\d+(?:;(?:[\w-]+:)?markable_\d+)*)"')
_LEVEL_NAME = re.compile(rb'<level\b[^>]*\bname="([^"]+)"')
_WORD_NUMBER = re.compile(rb"word_(\d+)")


def mmax2_duplicate_id(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    """Two markables of a level with one id (real: WikiCoref): a markable copied with its
    id, or another markable's id given to it."""
    markables = list(_MARKABLE.finditer(data))
    if not markables:
        return data
    a = rng.choice(markables)
    if rng.random() < 0.5 or len(markables) < 2:
        return data[:a.end()] + b"\n" + a.group(0) + data[a.end():]
    b = rng.choice([m for m in markables if m is not a])
    id_a, id_b = _ID.search(a.group(0)), _ID.search(b.group(0))
    if id_a is None or id_b is None:
        return data
    changed = b.group(0)[:id_b.start(1)] + id_a.group(1) + b.group(0)[id_b.end(1):]
    return data[:b.start()] + changed + data[b.end():]


def mmax2_untile(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    """A level that no longer tiles the words (real: the last words outside every
    sentence): a markable removed, or its span shortened or stretched."""
    markables = list(_MARKABLE.finditer(data))
    if not markables:
        return data
    m = rng.choice(markables)
    choice = rng.randrange(3)
    if choice == 0:
        return data[:m.start()] + data[m.end():]
    span = _SPAN.search(m.group(0))
    if span is None:
        return data
    numbers = [int(n) for n in _WORD_NUMBER.findall(span.group(1))]
    if not numbers:
        return data
    first, last = min(numbers), max(numbers)
    if choice == 1:
        last = max(first, last - rng.randint(1, 5))
    else:
        last += rng.randint(1, 30)
    value = f"word_{first}" if first == last else f"word_{first}..word_{last}"
    changed = m.group(0)[:span.start(1)] + value.encode() + m.group(0)[span.end(1):]
    return data[:m.start()] + changed + data[m.end():]


def mmax2_cross_level(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    """A pointer to a markable of another level, ``level:markable_N`` (real: PCC's
    ``secmark:markable_1000211``), or a pointer value made one."""
    levels = sorted({name for other in pool for name in _LEVEL_NAME.findall(other)}) or [b"sentence", b"coref"]
    ids = _ID.findall(data) or [b"markable_1"]
    target = rng.choice(levels) + b":" + rng.choice(ids)
    values = list(_POINTER_VALUE.finditer(data))
    if values and rng.random() < 0.7:
        v = rng.choice(values)
        return data[:v.start(1)] + target + data[v.end(1):]
    markables = list(_MARKABLE.finditer(data))
    if not markables:
        return data
    m = rng.choice(markables)
    attribute = rng.choice((b"coref_class", b"anaphor_antecedent", b"bridging_antecedent", b"ref"))
    return data[:m.start()] + _add_attribute(m.group(0), attribute, target) + data[m.end():]


def _add_attribute(tag: bytes, name: bytes, value: bytes) -> bytes:
    end = -2 if tag.endswith(b"/>") else -1
    return tag[:end].rstrip() + b" " + name + b'="' + value + b'"' + tag[end:]


def mmax2_span(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    """MMAX2 span syntax at its edges: reversed ranges, fragments, unknown words, empty."""
    spans = list(_SPAN.finditer(data))
    if not spans:
        return data
    s = rng.choice(spans)
    numbers = [int(n) for n in _WORD_NUMBER.findall(s.group(1))] or [1]
    a = rng.choice(numbers)
    value = rng.choice((
        f"word_{a + 3}..word_{a}", f"word_{a},word_{a + 2}..word_{a + 4}", f"word_{a}..word_{a}",
        "word_999999", "", f"word_{a}..", f"word_{a},,word_{a + 1}", "word_0", f"word_{a};word_{a + 1}",
        f"word_{a}..word_{a + 2},word_{a + 1}",
    )).encode()
    return data[:s.start(1)] + value + data[s.end(1):]


# -- structure-aware mutations of binary and archive inputs ---------------------------------------
#: mutations of a member's text inside a zip archive (an INCEpTION XMI export)
def _inner_mutations() -> list["Mutation"]:
    return [m for m in MUTATIONS if m.kind in ("any", "xml") and not m.equivalent and m.name != "splice"]


def zip_member(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    """A zip archive with one member's bytes mutated (as XML or text), or, now and then,
    a member dropped, doubled under the same name, renamed, or a folder entry added; the
    archive stays well-formed, so the reader gets past the zip to the files in it. Not
    a zip: bits flipped."""
    import io
    import zipfile

    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = [(info.filename, archive.read(info)) for info in archive.infolist()[:64]
                       if info.file_size <= 4 << 20]
    except Exception:  # noqa: BLE001 - not a readable zip: a byte-level mutation instead
        return flip_bits(rng, data, pool)
    if not members:
        return data
    k = rng.randrange(len(members))
    name, body = members[k]
    roll = rng.random()
    if roll < 0.7:
        inner = rng.choice(_inner_mutations())
        members[k] = (name, inner.apply(rng, body, [b for _, b in members if b is not body]))
    elif roll < 0.78 and len(members) > 1:
        del members[k]
    elif roll < 0.86:
        members.insert(k, (name, body))
    elif roll < 0.93:
        members[k] = (rng.choice(["../" + name, name.upper(), name + "/x.xmi", "a/" * 3 + name, name.replace(".", "")]),
                      body)
    else:
        members.append(("folder/", b""))
    import warnings

    out = io.BytesIO()
    with warnings.catch_warnings(), zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
        warnings.simplefilter("ignore")  # a name used twice is what this mutation may make
        for member, body in members:
            archive.writestr(member, body)
    return out.getvalue()


#: odd values for a cell of a table (chosen by the kind of the value they replace)
_ODD_INTS = (-1, 0, 1, 2**31, -(2**31) - 1, 2**62, 7)
_ODD_STRINGS = ("", " ", "\r", "a\rb", "a\nb", "\t", "\x00", "é", "\u200b", "(", "-", "_", "x" * 300, "0", "-1")


def _odd_value(rng: random.Random, value: object, leaves: list) -> object:
    roll = rng.random()
    if roll < 0.1:
        return None
    if roll < 0.2 and leaves:
        return rng.choice(leaves)  # another cell's value (maybe of another type)
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return rng.choice(_ODD_INTS + (value + 1, value - 1, -value))
    if isinstance(value, float):
        return rng.choice((float("nan"), float("inf"), -0.0, 1e308))
    if isinstance(value, str):
        return rng.choice(_ODD_STRINGS + (value * 2, value[::-1], value[:1]))
    if isinstance(value, list):
        if not value:
            return [rng.choice(leaves)] if leaves else []
        choice = rng.random()
        if choice < 0.3:
            return []
        if choice < 0.6:
            return value[:-1]
        if choice < 0.8:
            return value + value[-1:]
        return list(reversed(value))
    return value


def _leaves(value: object, path: tuple, out: list) -> None:
    """Every (path, value) inside nested lists and dicts, containers included."""
    out.append((path, value))
    if isinstance(value, dict):
        for key, item in value.items():
            _leaves(item, path + (key,), out)
    elif isinstance(value, list):
        for i, item in enumerate(value[:50]):
            _leaves(item, path + (i,), out)


def _set_at(value: object, path: tuple, new: object) -> object:
    if not path:
        return new
    head, rest = path[0], path[1:]
    if isinstance(value, dict):
        return {**value, head: _set_at(value[head], rest, new)}
    copy = list(value)  # type: ignore[arg-type]
    copy[head] = _set_at(copy[head], rest, new)
    return copy


def arrow_cell(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    """An Arrow (IPC stream or file) or parquet table with one value somewhere in one
    row replaced by an odd one (negative or huge numbers, None, CR, a shorter or longer
    list, another cell's value), written back with the old schema when the value fits
    it, else with the schema the new rows give. Not such a table: bits flipped."""
    import io

    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - the hf extra is missing
        return flip_bits(rng, data, pool)
    kind = "parquet" if data[:4] == b"PAR1" else "arrow"
    try:
        if kind == "parquet":
            table = pq.read_table(io.BytesIO(data))
        else:
            try:
                table = pa.ipc.open_stream(io.BytesIO(data)).read_all()
                kind = "stream"
            except pa.ArrowInvalid:
                table = pa.ipc.open_file(io.BytesIO(data)).read_all()
        # an input mutated before (bits flipped) can hold offsets past its buffers: decoding
        # them unchecked killed the campaign's own process (a segmentation fault, seed 4127)
        table.validate(full=True)
        rows = table.to_pylist()
    except Exception:  # noqa: BLE001 - damaged already: a byte-level mutation instead
        return flip_bits(rng, data, pool)
    if not rows:
        return data
    r = rng.randrange(len(rows))
    found: list = []
    _leaves(rows[r], (), found)
    found = found[1:] or found
    path, value = rng.choice(found)
    leaves = [v for _, v in found if not isinstance(v, (dict, list))]
    rows[r] = _set_at(rows[r], path, _odd_value(rng, value, leaves))  # type: ignore[assignment]
    try:
        try:
            new = pa.Table.from_pylist(rows, schema=table.schema)
        except (pa.ArrowInvalid, pa.ArrowTypeError, TypeError, ValueError, OverflowError):
            new = pa.Table.from_pylist(rows)
        out = io.BytesIO()
        if kind == "parquet":
            pq.write_table(new, out)
        elif kind == "stream":
            with pa.ipc.new_stream(out, new.schema) as writer:
                writer.write_table(new)
        else:
            with pa.ipc.new_file(out, new.schema) as writer:
                writer.write_table(new)
        return out.getvalue()
    except Exception:  # noqa: BLE001 - no table holds these rows: leave the input alone
        return data


def docbin_field(rng: random.Random, data: bytes, pool: Sequence[bytes]) -> bytes:
    """A spaCy DocBin (zlib-compressed msgpack) with one of its fields changed: a
    document length, a token attribute, a space flag, the strings table, a span group,
    the categories or flags; compressed again, so the reader gets past zlib and msgpack.
    Not a DocBin: bits flipped."""
    import zlib

    try:
        import srsly
    except ImportError:  # pragma: no cover - the spacy extra is missing
        return flip_bits(rng, data, pool)
    try:
        message = srsly.msgpack_loads(zlib.decompress(data))
        if not isinstance(message, dict):
            raise ValueError
    except Exception:  # noqa: BLE001 - damaged already
        return flip_bits(rng, data, pool)
    key = rng.choice(sorted(k for k in message if isinstance(k, str)) or [""])
    value = message.get(key)
    if isinstance(value, (bytes, bytearray)) and value:
        raw = bytearray(value)
        roll = rng.random()
        if roll < 0.5 and len(raw) >= 4:
            i = rng.randrange(len(raw) // 4) * 4  # an int32 or a part of a uint64
            raw[i:i + 4] = rng.choice((-1, 0, 2**31 - 1, 1, 1000)).to_bytes(4, "little", signed=True)
        elif roll < 0.7:
            raw = raw[:-rng.randint(1, min(8, len(raw)))]
        else:
            raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
        message[key] = bytes(raw)
    elif isinstance(value, list):
        if value and rng.random() < 0.5 and isinstance(value[0], (bytes, bytearray)):
            k = rng.randrange(len(value))  # a span group (msgpack of its own): its bytes flipped
            raw = bytearray(value[k])
            if raw:
                raw[rng.randrange(len(raw))] ^= 1 << rng.randrange(8)
            value[k] = bytes(raw)
        else:
            message[key] = _odd_value(rng, value, [v for v in value if not isinstance(v, (list, dict))])
    else:
        message[key] = _odd_value(rng, value, [])
    try:
        return zlib.compress(srsly.msgpack_dumps(message))
    except Exception:  # noqa: BLE001 - not packable: leave the input alone
        return data


@dataclass(frozen=True)
class Mutation:
    name: str
    apply: Mutator
    weight: float
    #: which inputs it is for: "any", "xml", "json", "mmax2" (the files of an MMAX2
    #: project), "zip", "arrow" or "docbin" (see :class:`tests.fuzz.fuzzer.Traits`)
    kind: str = "any"
    #: the text means the same after it (other line ends, an encoding named by a BOM):
    #: a reader must read the same document or refuse
    equivalent: bool = False
    #: works on bytes alone (no lines, no encoding): fit for binary files too
    binary: bool = False


MUTATIONS: tuple[Mutation, ...] = (
    Mutation("flip_bits", flip_bits, 2, binary=True),
    Mutation("set_byte", set_byte, 2, binary=True),
    Mutation("insert_token", insert_token, 2, binary=True),
    Mutation("delete_bytes", delete_bytes, 1, binary=True),
    Mutation("truncate", truncate, 1, binary=True),
    Mutation("truncate_at_class", truncate_at_class, 1.5, binary=True),
    Mutation("truncate_lines", truncate_lines, 1),
    Mutation("delete_lines", delete_lines, 2),
    Mutation("duplicate_lines", duplicate_lines, 2),
    Mutation("move_line", move_line, 1),
    Mutation("insert_line", insert_line, 2),
    Mutation("bracket_edit", bracket_edit, 4),
    Mutation("splice", splice, 1, binary=True),
    Mutation("repeat_block", repeat_block, 0.3, binary=True),
    Mutation("bom_utf8", bom_utf8, 0.6, equivalent=True),
    Mutation("bom_odd", bom_odd, 0.4),
    Mutation("utf16", utf16, 0.3, equivalent=True),
    Mutation("utf32", utf32, 0.2, equivalent=True),
    Mutation("utf16_no_bom", utf16_no_bom, 0.2),
    Mutation("crlf", crlf, 0.6, equivalent=True),
    Mutation("cr_only", cr_only, 0.5, equivalent=True),
    Mutation("mixed_line_ends", mixed_line_ends, 0.4, equivalent=True),
    Mutation("no_final_newline", no_final_newline, 0.3, equivalent=True),
    Mutation("extra_final_newlines", extra_final_newlines, 0.3),
    Mutation("delimiters", delimiters, 2),
    Mutation("huge_number", huge_number, 1.5),
    Mutation("unicode_digit", unicode_digit, 1),
    Mutation("unicode_noise", unicode_noise, 1),
    Mutation("json_token", json_token, 3, "json"),
    Mutation("xml_entity", xml_entity, 2, "xml"),
    Mutation("xml_unclosed", xml_unclosed, 2, "xml"),
    Mutation("xml_quote", xml_quote, 2, "xml"),
    Mutation("xml_ids", xml_ids, 2, "xml"),
    Mutation("xml_structure", xml_structure, 1, "xml"),
    Mutation("mmax2_duplicate_id", mmax2_duplicate_id, 2, "mmax2"),
    Mutation("mmax2_untile", mmax2_untile, 2, "mmax2"),
    Mutation("mmax2_cross_level", mmax2_cross_level, 2, "mmax2"),
    Mutation("mmax2_span", mmax2_span, 2, "mmax2"),
    Mutation("zip_member", zip_member, 8, "zip"),
    Mutation("arrow_cell", arrow_cell, 12, "arrow"),
    Mutation("docbin_field", docbin_field, 12, "docbin"),
)


#: names of the mutations after which the text means the same
EQUIVALENT = frozenset(m.name for m in MUTATIONS if m.equivalent)


def mutations_for(kinds: set[str]) -> list[Mutation]:
    """The mutations that fit an input of these kinds (``{"any", "xml"}`` for XML;
    ``"bytes"``: the byte-level mutations only, for binary files)."""
    return [m for m in MUTATIONS if m.kind in kinds or ("bytes" in kinds and m.binary)]


def mutate(rng: random.Random, data: bytes, pool: Sequence[bytes], available: Sequence[Mutation]
           ) -> tuple[bytes, list[str]]:
    """``data`` after one to four mutations (fewer more often); returns their names too."""
    count = 1
    while count < 4 and rng.random() < 0.35:
        count += 1
    weights = [m.weight for m in available]
    names = []
    for mutation in rng.choices(available, weights=weights, k=count):
        data = mutation.apply(rng, data, pool)
        names.append(mutation.name)
    return data, names
