"""The leading `#include` lines of a source file: its preamble.

Files of one project usually start with the same includes (`#include "common.cuh"`), and libclang spends most of
a parse on them. porter/frontend.py precompiles them once per run for the files that share them (see
analysis.run); this module only reads text, so the parent process can group files without libclang.
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


def choose(paths: Iterable[str], read: Callable[[str], bytes | None]) -> dict[str, int]:
    """path -> how many of its leading includes to precompile: the longest prefix of them that at least
    MIN_SHARED files of the same folder start with and that names a header the stub PCH does not have."""
    prefixes: dict[str, list[tuple[str, tuple[bytes, ...]]]] = {}
    for p in paths:
        data = read(p)
        found = directives(data) if data is not None else ()
        prefixes[p] = [(os.path.dirname(p), found[:k]) for k in range(1, len(found) + 1)]
    counts = Counter(key for keys in prefixes.values() for key in keys)
    chosen: dict[str, int] = {}
    for p, keys in prefixes.items():
        for key in reversed(keys):
            if counts[key] >= MIN_SHARED and any(_header(d) not in STUB_HEADERS for d in key[1]):
                chosen[p] = len(key[1])
                break
    return chosen


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
