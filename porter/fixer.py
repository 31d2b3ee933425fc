"""`porter analyze --fix`: apply the mechanical rewrites that rules attach to findings, safely.

A file is only rewritten when it still has the content that was analyzed, when its edits do not overlap, and
when the rewritten text parses with no more errors than before; it is written atomically. With dry_run the
unified diff is returned and nothing is written."""

from __future__ import annotations

import difflib
import hashlib
import os
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


def apply_edits(text: str, edits: list[Edit]) -> str:
    """Apply non-overlapping edits (1-based, end exclusive) from the last to the first."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)

    def pos(line: int, col: int) -> int:
        return offsets[line - 1] + col - 1

    out = text
    for e in sorted(edits, key=lambda e: (e.line, e.col), reverse=True):
        out = out[:pos(e.line, e.col)] + e.text + out[pos(e.end_line, e.end_col):]
    return out


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
        current = Path(path).read_text()
        if hashlib.sha256(current.encode()).hexdigest() != analyzed_sha.get(path):
            report.skipped.append(f"{path}: changed since it was analyzed; not touched")
            continue
        ordered = _non_overlapping(edits)
        if ordered is None:
            report.skipped.append(f"{path}: fixes overlap; not touched (apply them one rule at a time)")
            continue
        new = apply_edits(current, ordered)
        suffix = Path(path).suffix
        fd, tmp = tempfile.mkstemp(prefix=".porter-fix-", suffix=suffix, dir=os.path.dirname(os.path.abspath(path)))
        try:
            with os.fdopen(fd, "w") as fh:
                fh.write(new)
            errors_after = reparse(tmp)
        finally:
            Path(tmp).unlink(missing_ok=True)
        if errors_after > parse_errors.get(path, 0):
            report.skipped.append(f"{path}: the fixed text does not parse cleanly ({errors_after} errors); not touched")
            continue
        diffs.append("".join(difflib.unified_diff(current.splitlines(True), new.splitlines(True),
                                                  fromfile=f"a/{path}", tofile=f"b/{path}")))
        if not dry_run:
            atomic_write(path, new)
        report.fixed[path] = len(ordered)
    report.diff = "".join(diffs)
    return report
