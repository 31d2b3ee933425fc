"""The leading `#include` lines of a source file: its preamble.

Files of one project usually start with the same includes (`#include "common.cuh"`), and libclang spends most of
a parse on them. porter/frontend.py precompiles them once per run for the files that share them (see
analysis.run); this module only reads text, so the parent process can group files without libclang.

A file whose first include is its own header (`#include "clamp.cuh"` in clamp.cu, next to it) shares, through that
header, the header's leading includes (`#include "common.cuh"`) when each of them is a `#pragma once` header of the
same folder: the PCH holds them, and the file's own text is parsed unchanged, its header's include of them being
skipped as the second inclusion of a `#pragma once` file, as it would be in the usual parse after the first.
"""

from __future__ import annotations

import os
import re
import stat
from collections import Counter
from typing import Callable, Iterable

# `#include "x"` / `#include <x>` alone on its line (a trailing // comment allowed); a macro include, a
# continuation or a /* */ comment on the line ends the preamble
_INCLUDE = re.compile(rb"[ \t]*#[ \t]*include[ \t]*(\"[^\"\n]+\"|<[^>\n]+>)[ \t]*(//[^\n]*)?")
_SKIP = re.compile(rb"[ \t]*(//[^\n]*|#[ \t]*pragma[ \t]+once[ \t]*)?")

# What porter's own precompiled header (porter/frontend.py) already has: a preamble of only these gains nothing.
PRECOMPILED = ("cstdint", "cstdio", "cstdlib", "cstring", "cmath", "cfloat", "climits", "algorithm", "vector",
               "string", "memory", "iostream")
STUB_HEADERS = frozenset({f"<{h}>" for h in PRECOMPILED} | {"<hip/hip_runtime.h>", "<porter_hip_stub.h>"})

# a group smaller than this costs more to precompile (the whole stub PCH is parsed again) than it saves
MIN_SHARED = 4


def leading_includes(data: bytes) -> list[tuple[int, int]]:
    """Byte spans of the #include directives before the file's first other line (blank lines, comments and
    `#pragma once` between them are allowed); a directive's span ends before its line's newline or comment."""
    spans: list[tuple[int, int]] = []
    pos, n = 0, len(data)
    while pos < n:
        end = data.find(b"\n", pos)
        end = n if end < 0 else end
        line = data[pos:end].rstrip(b"\r")
        if line.endswith(b"\\"):  # a continued line (even a continued comment) is not read here
            break
        m = _INCLUDE.fullmatch(line)
        if m is not None:
            spans.append((pos, pos + m.end(1)))
        elif line.lstrip(b" \t").startswith(b"/*"):
            close = data.find(b"*/", pos)
            end = data.find(b"\n", close) if close >= 0 else -1
            end = n if close >= 0 and end < 0 else end
            if close < 0 or data[close + 2:end].strip():
                break
        elif not _SKIP.fullmatch(line):
            break
        pos = end + 1
    return spans


def directives(data: bytes) -> tuple[bytes, ...]:
    """The include directives of the preamble, as written (without a trailing comment)."""
    return tuple(data[a:b].strip() for a, b in leading_includes(data))


def blanked(data: bytes, spans: Iterable[tuple[int, int]]) -> bytes:
    """`data` with the spans replaced by spaces: same length, same lines and columns everywhere else."""
    out = bytearray(data)
    for a, b in spans:
        out[a:b] = b" " * (b - a)
    return bytes(out)


def choose(paths: Iterable[str], read: Callable[[str], bytes | None]) -> dict[str, tuple[int, str]]:
    """path -> (how many leading includes to precompile, "" or the header they are read through): the longest
    prefix of the file's own leading includes that at least MIN_SHARED files of the same folder start with and
    that names a header the stub PCH does not have; failing that, the longest such prefix of its own header's
    (see through())."""
    prefixes: dict[str, list[tuple[str, tuple[bytes, ...]]]] = {}
    indirect: dict[str, tuple[str, list[tuple[str, tuple[bytes, ...]]]]] = {}
    for p in paths:
        data = read(p)
        found = directives(data) if data is not None else ()
        folder = os.path.dirname(p)
        prefixes[p] = [(folder, found[:k]) for k in range(1, len(found) + 1)]
        got = through(p, data, read) if data is not None else None
        if got is not None:
            indirect[p] = (got[0], [(folder, got[1][:k]) for k in range(1, len(got[1]) + 1)])
    counts = Counter(key for keys in prefixes.values() for key in keys)
    counts.update(key for _, keys in indirect.values() for key in keys)
    chosen: dict[str, tuple[int, str]] = {}
    for p, keys in prefixes.items():
        name, via = indirect.get(p, ("", []))
        for key, header in [*((k, "") for k in reversed(keys)), *((k, name) for k in reversed(via))]:
            if counts[key] >= MIN_SHARED and any(_header(d) not in STUB_HEADERS for d in key[1]):
                chosen[p] = (len(key[1]), header)
                break
    return chosen


def through(path: str, data: bytes, read: Callable[[str], bytes | None]) -> tuple[str, tuple[bytes, ...]] | None:
    """(name, directives) when the file's first leading include names, in quotes and without a folder, a header
    of the file's own folder: that header's leading includes as far as each is such a header too and starts with
    `#pragma once` (so that the header's own inclusion of it, after the PCH's, reads nothing)."""
    spans = leading_includes(data)[:1]
    name = _quoted(data[spans[0][0]:spans[0][1]]) if spans else None
    header = read(os.path.join(os.path.dirname(path), name)) if name else None
    if header is None:
        return None
    taken: list[bytes] = []
    for directive in directives(header):
        inner = _quoted(directive)
        text = read(os.path.join(os.path.dirname(path), inner)) if inner else None
        if text is None or not _pragma_once(text):
            break
        taken.append(directive)
    return (name, tuple(taken)) if taken else None  # type: ignore[return-value]


def _quoted(directive: bytes) -> str | None:
    """`#include "x.h"` -> "x.h"; None for <x.h>, a folder in the name, or a name that is not plain text."""
    name = _header(directive)
    inner = name[1:-1]
    if not name.startswith('"') or not inner or "/" in inner or "\\" in inner or inner in (".", "..") \
            or not inner.isprintable():
        return None
    return inner


def _pragma_once(data: bytes) -> bool:
    """The header's first line other than blank lines and // comments is `#pragma once`."""
    for line in data.split(b"\n"):
        line = line.strip()
        if line and not line.startswith(b"//"):
            return re.fullmatch(rb"#[ \t]*pragma[ \t]+once", line) is not None
    return False


def _header(directive: bytes) -> str:
    """`#include <cmath>` -> "<cmath>"."""
    return directive[directive.index(b"include") + 7:].strip().decode("utf-8", "replace")


def head(path: str, limit: int = 1 << 16) -> bytes | None:
    """The first `limit` bytes of a regular file (never blocks on a FIFO, never opens a device), or None."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        return os.read(fd, limit) if stat.S_ISREG(os.fstat(fd).st_mode) else None
    except OSError:
        return None
    finally:
        os.close(fd)
