"""In-source suppressions and stable finding fingerprints.

Forms understood (IDs may be prefixes, e.g. W64 or LDS-00; several are separated by commas):
  // porter: ignore[W64-003] reason          on the finding's line or the line before
  // porter: ignore reason                   every rule, same placement
  // porter: ignore-file[W64-002] reason     the whole file
  // NOLINT(porter-W64-003)                  the line (clang-tidy style); NOLINTNEXTLINE(...) the next line
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, replace
from pathlib import Path

from porter.findings import Finding

_PORTER = re.compile(r"//\s*porter:\s*(ignore-file|ignore)(?:\[([^\]]*)\]|(?![\w-]))\s*(.*)$")
_NOLINT = re.compile(r"\bNOLINT(NEXTLINE)?\(([^)]*)\)")


@dataclass
class Ignore:
    line: int                  # line of the comment
    applies_to: tuple[int, ...]  # lines it covers (empty: the whole file)
    ids: tuple[str, ...]       # rule ids or prefixes; () means every rule
    reason: str
    text: str
    used: bool = False
    problem: str = ""          # a malformed comment suppresses nothing and says why

    def covers(self, f: Finding) -> bool:
        if self.problem:
            return False
        if self.applies_to and f.line not in self.applies_to:
            return False
        return not self.ids or any(f.rule_id == i or f.rule_id.startswith(i) for i in self.ids)


def parse_ignores(lines: tuple[str, ...] | list[str]) -> list[Ignore]:
    out: list[Ignore] = []
    for number, line in enumerate(lines, 1):
        m = _PORTER.search(line)
        if m:
            ids = tuple(i.strip() for i in (m.group(2) or "").split(",") if i.strip())
            problem = ""
            if m.group(2) is not None and not ids:
                problem = "empty [] names no rule"
            elif m.group(2) is None and m.group(3).startswith("["):
                problem = f"no space may come between '{m.group(1)}' and '['"
            if m.group(1) == "ignore-file":
                out.append(Ignore(number, (), ids, m.group(3).strip(), m.group(0), problem=problem))
            else:
                # on its own line it covers the next line; after code it covers its own line
                own = line[:m.start()].strip() != ""
                out.append(Ignore(number, (number,) if own else (number, number + 1), ids, m.group(3).strip(),
                                  m.group(0), problem=problem))
        for n in _NOLINT.finditer(line):
            ids = tuple(i.strip()[len("porter-"):] for i in n.group(2).split(",")
                        if i.strip().startswith("porter"))
            if not ids:
                continue  # NOLINT(other-tool) is not ours
            ids = tuple(i for i in ids if i not in ("", "*"))
            target = number + 1 if n.group(1) else number
            out.append(Ignore(number, (target,), ids, "", n.group(0)))
    return out


def apply_ignores(findings: list[Finding], lines: tuple[str, ...]) -> tuple[list[Finding], list[Ignore]]:
    """Mark suppressed findings (they keep their place, for SARIF's `suppressions`); return the ignores."""
    ignores = parse_ignores(lines)
    out = []
    for f in findings:
        hit = next((i for i in ignores if i.covers(f)), None)
        if hit is not None:
            hit.used = True
            f = replace(f, suppressed=hit.reason or hit.text)
        out.append(f)
    return out, ignores


def repo_path(path: str) -> str:
    """How a file is named in fingerprints, whatever spelling was typed: relative to its repository (the nearest
    folder above it with .git), else its resolved absolute path."""
    p = Path(path).resolve()
    for folder in p.parents:
        if (folder / ".git").exists():
            return p.relative_to(folder).as_posix()
    return p.as_posix()


def fingerprint(f: Finding, lines: tuple[str, ...], occurrence: int) -> str:
    """Stable across lines moving: the rule, the file, the text of the line (whitespace folded) and which
    occurrence of that (rule, text) pair in the file this is."""
    text = " ".join(lines[f.line - 1].split()) if 0 < f.line <= len(lines) else ""
    key = f"{f.rule_id}\0{repo_path(f.path)}\0{text}\0{occurrence}"
    return hashlib.sha256(key.encode()).hexdigest()[:20]


def with_fingerprints(findings: list[Finding], lines: tuple[str, ...]) -> list[Finding]:
    seen: dict[tuple[str, str], int] = {}
    out = []
    for f in sorted(findings, key=Finding.sort_key):
        text = " ".join(lines[f.line - 1].split()) if 0 < f.line <= len(lines) else ""
        k = seen.get((f.rule_id, text), 0)
        seen[(f.rule_id, text)] = k + 1
        out.append(replace(f, fingerprint=fingerprint(f, lines, k)))
    return out
