"""A header's includer context: what a source file of the same tree says before it includes the header.

A header analyzed on its own misses the macros its includers define first: exllamav2's cache.cu includes
compat.cuh, whose `#define __shfl_xor_sync(mask, var, laneMask) __shfl_xor(var, laneMask)` (under USE_ROCM) means
no 32-bit mask of cache_q.cuh, included after it, ever reaches a *_sync intrinsic. A source file that another
source includes is a header by another name (HeCBench's egs main.cu includes EGS.h, then kernels.cu, whose whole
text sits under `#ifdef HIP_EGS` and uses EGS.h's WARP_SIZE and shared arrays): it is read the same way, in the
context of a source that includes it directly. porter/frontend.py parses such a
header after a virtual header made of the includer's preprocessor lines before that #include (its #include,
#define, #undef and conditional lines; code between them is left out), so the header's own lines and columns, and
its findings, stay its own, and each header is analyzed (and reported) once, in one includer's context.

This module only reads text (no libclang, nothing of the tree is executed), in the parent process: the tree of a
header is its folder, or the deepest -I folder above it, walked once per run (Scanner caches walks and each file's
directives).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Iterable

from porter import preamble
from porter.analysis import HEADER_SUFFIXES, INCLUDER_SUFFIXES, SKIP_DIRS, SOURCE_SUFFIXES

MAX_WALK = 5000          # source files looked at per tree: a checkout's root on -I must not cost seconds
MAX_READ = 1 << 18       # bytes of a file read for its directives
MAX_CHAIN = 3            # headers between a header and the source whose context it is read in
PASTED_LINES = 6         # lines of code of a header that another header's copy of its text must repeat in order
MAX_REACH = 400          # headers followed when checking that a context does not include the header itself

# comments are blanked (newlines kept) before directives are read; strings and character literals are skipped so
# that a "//" inside one is not taken for a comment
_LEXEMES = re.compile(rb'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|//[^\n]*|/\*.*?(?:\*/|\Z)', re.DOTALL)
# a directive a context keeps, with its continuation lines
_DIRECTIVE = re.compile(rb"^[ \t]*#[ \t]*(include|define|undef|if|ifdef|ifndef|elif|else|endif)\b"
                        rb"((?:[^\n]*\\\r?\n)*[^\n]*)", re.MULTILINE)
_CONTINUATION = re.compile(rb"\\\r?\n")
_INCLUDE_NAME = re.compile(rb"[ \t]*(?:\"([^\"\n]+)\"|<([^>\n]+)>)")
_OPENS = ("if", "ifdef", "ifndef")
# starts with the '#' so that the regex engine skips to each quickly; _includes checks it begins its line
_ANY_INCLUDE = re.compile(rb"#[ \t]*include[ \t]*(?:\"([^\"\n]+)\"|<([^>\n]+)>)")


@dataclass(frozen=True)
class Directive:
    kind: str                     # include, define, undef, if, ifdef, ifndef, elif, else, endif
    text: str                     # the logical line, comments removed, continuations joined
    line: int                     # 1-based, of its first physical line
    include: tuple[str, bool] | None = None      # (name, angled) of an #include


@dataclass(frozen=True)
class Context:
    includer: str                 # the source file whose context it is
    line: int                     # the line of its #include of the header
    text: str                     # the virtual header: the includer's directives before that line
    opened: tuple[str, ...] = ()  # those lines before the #endif lines that close what they open
    depth: int = 0                # how many conditionals they leave open

    @property
    def label(self) -> str:
        return f"{self.includer}:{self.line}"


def directives(data: bytes) -> list[Directive]:
    """The preprocessor lines of `data` that a context keeps, in order."""
    text = _LEXEMES.sub(_blank_comment, data)
    out: list[Directive] = []
    line, at = 1, 0
    for m in _DIRECTIVE.finditer(text):
        line += text.count(b"\n", at, m.start())
        at = m.start()
        kind = m.group(1)
        include = None
        if kind == b"include":
            name = _INCLUDE_NAME.match(m.group(2))
            if name is None:
                continue      # a macro include: where it leads is not read here
            include = ((name.group(1) or name.group(2)).decode("utf-8", "replace"), name.group(2) is not None)
        logical = m.group(0)
        if b"\\\n" in logical or b"\\\r\n" in logical:
            logical = _CONTINUATION.sub(b" ", logical)
        logical = logical.strip().decode("utf-8", "replace")
        out.append(Directive(kind.decode(), logical, line, include))
    return out


def _blank_comment(m: re.Match[bytes]) -> bytes:
    s = m.group(0)
    if s.startswith((b'"', b"'")):
        return s
    return b" " + b"\n" * s.count(b"\n")


class Scanner:
    """Include scans of the trees of one run, each file read at most once."""

    def __init__(self, include_dirs: Iterable[str], system_dirs: Iterable[str] = ()) -> None:
        self.include_dirs = [os.path.abspath(d) for d in include_dirs]
        self.system_dirs = [os.path.abspath(d) for d in system_dirs]
        self._directives: dict[str, list[Directive]] = {}
        self._walks: dict[str, tuple[list[str], list[str]]] = {}
        self._include_lines: dict[str, list[tuple[str, bool, int]]] = {}
        self._resolved: dict[tuple[str, bool, str], str | None] = {}
        self._reached: dict[str, frozenset[str]] = {}
        self._stripped: dict[str, list[str]] = {}

    def directives_of(self, path: str) -> list[Directive]:
        hit = self._directives.get(path)
        if hit is None:
            data = preamble.head(path, MAX_READ)
            hit = self._directives[path] = directives(data) if data is not None and b"\0" not in data else []
        return hit

    def _includes(self, path: str) -> list[tuple[str, bool, int]]:
        """(name, angled, line) of every #include line of a file, comments and conditionals not read: enough to
        know what it may include, at a fraction of directives()'s cost."""
        hit = self._include_lines.get(path)
        if hit is None:
            data = preamble.head(path, MAX_READ) or b""
            hit, line, at = [], 1, 0
            for m in _ANY_INCLUDE.finditer(data):
                start = data.rfind(b"\n", 0, m.start()) + 1
                if data[start:m.start()].strip(b" \t"):
                    continue
                line += data.count(b"\n", at, m.start())
                at = m.start()
                hit.append(((m.group(1) or m.group(2)).decode("utf-8", "replace"), m.group(2) is not None, line))
            self._include_lines[path] = hit
        return hit

    def resolve(self, name: str, angled: bool, from_dir: str) -> str | None:
        """Where the preprocessor finds `#include "name"` (or <name>) written in a file of `from_dir`: that folder
        for a quoted name, then the -I folders, then porter's stub headers (`-isystem`)."""
        key = (name, angled, "" if angled else from_dir)
        if key in self._resolved:
            return self._resolved[key]
        found = None
        if os.path.isabs(name):
            found = os.path.normpath(name) if os.path.isfile(name) else None
        else:
            for d in ([] if angled else [from_dir]) + self.include_dirs + self.system_dirs:
                candidate = os.path.normpath(os.path.join(d, name))
                if os.path.isfile(candidate):
                    found = candidate
                    break
        self._resolved[key] = found
        return found

    def _system(self, path: str) -> bool:
        return any(path.startswith(d.rstrip(os.sep) + os.sep) for d in self.system_dirs)

    def tree(self, header: str) -> str:
        """The folder whose sources may include `header`: the deepest -I folder that holds it, else its own."""
        folder = os.path.dirname(os.path.abspath(header))
        above = [d for d in self.include_dirs if folder == d or folder.startswith(d.rstrip(os.sep) + os.sep)]
        return max(above, key=len) if above else folder

    def sources(self, root: str) -> list[str]:
        return self._walk(root)[0]

    def headers(self, root: str) -> list[str]:
        return self._walk(root)[1]

    def _walk(self, root: str) -> tuple[list[str], list[str]]:
        """The source files and the headers of a tree, at most MAX_WALK of each."""
        hit = self._walks.get(root)
        if hit is None:
            sources: list[str] = []
            headers: list[str] = []
            for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
                dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.startswith("."))
                sources += [os.path.join(dirpath, n) for n in sorted(filenames) if n.endswith(INCLUDER_SUFFIXES)]
                headers += [os.path.join(dirpath, n) for n in sorted(filenames) if n.endswith(HEADER_SUFFIXES)]
                if len(sources) >= MAX_WALK:
                    break
            self._walks[root] = hit = (sources[:MAX_WALK], headers[:MAX_WALK])
        return hit

    def contexts(self, headers: Iterable[str], also: Iterable[str] = ()) -> dict[str, Context]:
        """header -> the context it is analyzed in, for the headers some source of their tree (or of `also`,
        the run's own files) includes after saying something; headers without one are left out. A source among
        `headers` gets the context of a source that includes it (never of a header: a routing header leads to
        headers, not to sources)."""
        wanted = {os.path.abspath(h): h for h in headers if h.endswith(SOURCE_SUFFIXES)}
        if not wanted:
            return {}
        roots = {self.tree(h) for h in wanted}
        candidates = sorted({os.path.abspath(s) for r in roots for s in self.sources(r)}
                            | {os.path.abspath(s) for s in also if s.endswith(INCLUDER_SUFFIXES)})
        sites: dict[str, list[tuple[str, int]]] = {}
        for source in candidates:
            folder = os.path.dirname(source)
            for name, angled, line in self._includes(source):
                target = self.resolve(name, angled, folder)
                if target is not None:
                    sites.setdefault(target, []).append((source, line))
        by_headers: dict[str, list[tuple[str, int]]] = {}
        unplaced = any(t not in sites and t.endswith(HEADER_SUFFIXES) for t in wanted)
        for header in sorted({h for r in roots for h in self.headers(r)} if unplaced else ()):
            for name, angled, line in self._includes(header):
                target = self.resolve(name, angled, os.path.dirname(header))
                if target is not None and target != header:
                    by_headers.setdefault(target, []).append((header, line))
        out: dict[str, Context] = {}
        for target in wanted:
            got = self._first_context(target, sites, by_headers)
            if got is None and target.endswith(HEADER_SUFFIXES):
                pasted = self._pasted_in(target)
                got = self._context(*pasted, target, pasted=True) if pasted is not None else None
            if got is not None and got.text:
                out[wanted[target]] = got
        return out

    def _first_context(self, target: str, sites: dict[str, list[tuple[str, int]]],
                       by_headers: dict[str, list[tuple[str, int]]], depth: int = 0) -> Context | None:
        """The context of the first usable include of `target` by a source (`sites`); for a header no source
        includes directly (cuda/commands.h behind a routing header that includes the project's macros first),
        that of a header of its tree that includes it (`by_headers`), read in its own includer's context in turn
        (MAX_CHAIN deep)."""
        found = [s for s in sites.get(target, []) if s[0] != target]
        if not found and depth < MAX_CHAIN and target.endswith(HEADER_SUFFIXES):
            found = list(by_headers.get(target, []))
        stem = os.path.splitext(os.path.basename(target))[0]
        folder = os.path.dirname(target)
        # the header's own source first (clamp.cu for clamp.cuh), then its folder's, then the rest by name
        found.sort(key=lambda s: (os.path.splitext(os.path.basename(s[0]))[0] != stem,
                                  os.path.dirname(s[0]) != folder, s))
        for source, line in found:
            outer = None
            if source.endswith(HEADER_SUFFIXES):
                if self._read_before(source, target, sites, by_headers):
                    continue
                outer = self._first_context(source, sites, by_headers, depth + 1)
            got = self._context(source, line, target, outer)
            if got is not None:
                return got
        return None

    def _read_before(self, source: str, header: str, sites: dict[str, list[tuple[str, int]]],
                     by_headers: dict[str, list[tuple[str, int]]]) -> bool:
        """Every file of the tree that includes the header `source` reads `header` first (Kokkos_Atomic.hpp
        includes Kokkos_Atomic_Generic.hpp, then Kokkos_Atomic_Load.hpp, which includes it again): `source`'s own
        include of `header` finds its guard set and reads nothing, so it is no context for it."""
        includers = [s for s in sites.get(source, []) if s[0] != source] or by_headers.get(source, [])
        return bool(includers) and all(self._reads_before(includer, line, header) for includer, line in includers)

    def _reads_before(self, source: str, line: int, header: str) -> bool:
        """An #include of `source` above `line` reads `header`, directly or through others."""
        folder = os.path.dirname(source)
        return any(at < line and (target := self.resolve(name, angled, folder)) is not None and
                   header in self._reach(target) for name, angled, at in self._includes(source))

    def _code_lines(self, path: str) -> list[str]:
        """The lines of a file without comments, stripped (blank where a line held only a comment)."""
        hit = self._stripped.get(path)
        if hit is None:
            data = preamble.head(path, MAX_READ) or b""
            text = _LEXEMES.sub(_blank_comment, data).decode("utf-8", "replace") if b"\0" not in data else ""
            hit = self._stripped[path] = [line.strip() for line in text.splitlines()]
        return hit

    def _pasted_in(self, header: str) -> tuple[str, int] | None:
        """A header of the same folder that holds `header`'s text (hypre's `headers` script writes device_utils.h,
        then device_reducer.h, into _hypre_utilities.hpp, which its sources include instead): (its path, the line
        where the copy starts). The copy is what compiles, after the lines above it; a header that nothing
        includes is then read after those lines. Its first PASTED_LINES lines of code must appear there in order."""
        own = self._code_lines(header)
        code = [(i, line) for i, line in enumerate(own) if line][:PASTED_LINES]
        if len(code) < PASTED_LINES:
            return None
        folder = os.path.dirname(header)
        for other in self.headers(self.tree(header)):
            if os.path.dirname(other) != folder or other == header:
                continue
            lines = self._code_lines(other)
            if len(lines) <= len(own) or code[0][1] not in lines:
                continue
            for j, line in enumerate(lines):
                if line == code[0][1] and [x for x in lines[j:j + code[-1][0] - code[0][0] + 1] if x] == \
                        [c for _, c in code]:
                    start = j - code[0][0] + 1
                    return (other, start) if start >= 1 else None
        return None

    def _context(self, source: str, line: int, header: str, outer: Context | None = None,
                 pasted: bool = False) -> Context | None:
        """The context of the include on `line` of `source`; None when its includes reach the header itself
        (its guard would then hide the header's text from the parse) or the line is no include after all (one in
        a comment). An include that is found nowhere is left out (the parse would stop at it), except a system
        header's name (<cstdint>, <stdio.h>). The context is empty when it says nothing the header does not say
        itself: no #define or #undef, and no include of a project file other than what the header's own leading
        includes read (a shared preamble then still serves the header, see analysis.with_shared_preambles).
        `outer` is the context `source` itself, a header, is read in: its lines come first."""
        folder = os.path.dirname(source)
        found = self.directives_of(source)
        index = next((i for i, d in enumerate(found) if d.line >= line), len(found)) if pasted else \
            next((i for i, d in enumerate(found) if d.line == line and d.include is not None), None)
        if index is None:
            return None
        kept: list[Directive] = []
        own: set[str] | None = None       # what the header's leading includes read, when first needed
        says = bool(outer and outer.text)
        depth = 0
        for d in found[:index]:
            if d.include is not None:
                target = self.resolve(d.include[0], d.include[1], folder)
                if target is None and not (d.include[1] and "/" not in d.include[0]):
                    continue
                if target is not None and header in self._reach(target):
                    return None
                if not says and target is not None and not self._system(target):
                    own = self._leading_reach(header) if own is None else own
                    says = target not in own
            says = says or d.kind in ("define", "undef")
            depth += (d.kind in _OPENS) - (d.kind == "endif")
            kept.append(d)
        if not says:
            return Context(source, line, "")
        # the include may sit inside conditionals: close them, so that the header's own text is read unchanged
        lines = [*(outer.opened if outer else ()), *(d.text for d in kept)]
        depth += outer.depth if outer else 0
        return Context(source, line, "".join(t + "\n" for t in lines + ["#endif"] * max(depth, 0)), tuple(lines),
                       depth)

    def _leading_reach(self, header: str) -> set[str]:
        """The files the header's leading #include lines read, directly or through others."""
        data = preamble.head(header) or b""
        out: set[str] = set()
        for directive in preamble.directives(data):
            m = _INCLUDE_NAME.match(directive, directive.index(b"include") + 7)
            target = self.resolve((m.group(1) or m.group(2)).decode("utf-8", "replace"), m.group(2) is not None,
                                  os.path.dirname(header)) if m is not None else None
            if target is not None:
                out |= self._reach(target)
        return out

    def _reach(self, start: str) -> frozenset[str]:
        """`start` and the project files it includes, directly or through others (at most MAX_REACH)."""
        hit = self._reached.get(start)
        if hit is not None:
            return hit
        seen = {start}
        todo = [start]
        while todo and len(seen) <= MAX_REACH:
            path = todo.pop()
            folder = os.path.dirname(path)
            for name, angled, _ in self._includes(path):
                nxt = self.resolve(name, angled, folder)
                if nxt is not None and nxt not in seen and not self._system(nxt):
                    seen.add(nxt)
                    todo.append(nxt)
        hit = self._reached[start] = frozenset(seen)
        return hit
