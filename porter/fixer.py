"""`porter analyze --fix`: apply the mechanical rewrites that rules attach to findings, safely.

A file is only rewritten when it still has the content that was analyzed, when its edits do not overlap, and
when the rewritten text parses with no more errors than before, and when it did not change while that was
checked. Edits are applied to the bytes (clang's columns count bytes; line endings are kept); the file is
written through porter.fsutil.atomic_write (symlinks followed, hard links kept). With dry_run the
unified diff is returned and nothing is written."""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from porter.findings import Edit, Finding
from porter.fsutil import atomic_write


@dataclass
class FixReport:
    fixed: dict[str, int] = field(default_factory=dict)       # path -> edits applied
    skipped: list[str] = field(default_factory=list)          # "path: why"
    diff: str = ""


def apply_edits(data: bytes, edits: list[Edit]) -> bytes:
    """Apply non-overlapping edits from the last to the first. Positions are clang's: 1-based lines (ended by LF,
    CRLF or CR) and 1-based byte columns, end exclusive; line endings outside the edits are kept as they are."""
    starts = [0] + [m.end() for m in _LINE_END.finditer(data)]

    def pos(line: int, col: int) -> int:
        if not 0 < line <= len(starts) or col < 1:
            raise ValueError(f"edit position {line}:{col} is outside the file")
        return starts[line - 1] + col - 1

    out = data
    for e in sorted(edits, key=lambda e: (e.line, e.col), reverse=True):
        out = out[:pos(e.line, e.col)] + e.text.encode() + out[pos(e.end_line, e.end_col):]
    return out


_LINE_END = re.compile(rb"\r\n|\r|\n")


def _non_overlapping(edits: list[Edit]) -> list[Edit] | None:
    unique = sorted(set(edits), key=lambda e: (e.line, e.col, e.end_line, e.end_col))
    for a, b in zip(unique, unique[1:]):
        if (b.line, b.col) < (a.end_line, a.end_col):
            return None
    return unique


def fix_files(findings: list[Finding], analyzed_sha: dict[str, str], parse_errors: dict[str, int],
              reparse, dry_run: bool) -> FixReport:  # type: ignore[no-untyped-def]
    """`reparse(path_of_temp_copy) -> error count` checks the rewritten text before it replaces the file."""
    report = FixReport()
    by_file: dict[str, list[Edit]] = {}
    for f in findings:
        if f.edits and not f.suppressed:
            by_file.setdefault(f.path, []).extend(f.edits)
    diffs = []
    for path, edits in sorted(by_file.items()):
        real = os.path.realpath(path)   # a symlink stays a symlink: its target is what gets fixed
        try:
            before = os.stat(real)
            current = Path(real).read_bytes()
        except OSError as exc:
            report.skipped.append(f"{path}: cannot read: {exc.strerror or exc}; not touched")
            continue
        if hashlib.sha256(current).hexdigest() != analyzed_sha.get(path):
            report.skipped.append(f"{path}: changed since it was analyzed; not touched")
            continue
        ordered = _non_overlapping(edits)
        if ordered is None:
            report.skipped.append(f"{path}: fixes overlap; not touched (apply them one rule at a time)")
            continue
        try:
            new = apply_edits(current, ordered)
        except ValueError as exc:
            report.skipped.append(f"{path}: {exc}; not touched")
            continue
        fd, tmp = tempfile.mkstemp(prefix=".porter-fix-", suffix=Path(path).suffix, dir=os.path.dirname(real))
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(new)
            errors_after = reparse(tmp)
        finally:
            Path(tmp).unlink(missing_ok=True)
        if errors_after > parse_errors.get(path, 0):
            report.skipped.append(f"{path}: the fixed text does not parse cleanly ({errors_after} errors); not touched")
            continue
        old_text, new_text = current.decode(), new.decode()
        diffs.append("".join(difflib.unified_diff(old_text.splitlines(True), new_text.splitlines(True),
                                                  fromfile=f"a/{path}", tofile=f"b/{path}")))
        if not dry_run:
            if _changed(real, before, current):
                report.skipped.append(f"{path}: changed while the fix was checked (saved meanwhile?); not touched, "
                                      f"run --fix again")
                continue
            atomic_write(real, new)
        report.fixed[path] = len(ordered)
    report.diff = "".join(diffs)
    return report


def _changed(path: str, before: os.stat_result, content: bytes) -> bool:
    """Whether the file differs from what was read (an editor may save it during the re-parse)."""
    try:
        now = os.stat(path)
        return (now.st_mtime_ns, now.st_size, now.st_ino) != (before.st_mtime_ns, before.st_size, before.st_ino) \
            or Path(path).read_bytes() != content
    except OSError:
        return True
