"""Changed files and lines against a git base, for `porter analyze --diff BASE` (git is only read)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.M)


class DiffError(Exception):
    pass


def _git(args: list[str], cwd: Path) -> str:
    try:
        res = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, timeout=60)
    except FileNotFoundError as exc:
        raise DiffError("--diff needs git, which is not installed") from exc
    if res.returncode != 0:
        raise DiffError(res.stderr.strip() or f"git {' '.join(args)} failed")
    return res.stdout


def repo_root(cwd: Path) -> Path:
    try:
        return Path(_git(["rev-parse", "--show-toplevel"], cwd).strip())
    except DiffError as exc:
        raise DiffError(f"--diff needs a git repository, and {cwd} is not inside one") from exc


def changed_lines(base: str, cwd: Path) -> dict[Path, set[int] | None]:
    """Absolute path -> changed line numbers (None: the whole file is new) for files that differ from `base`
    in the working tree, plus untracked files that git does not ignore."""
    root = repo_root(cwd)
    try:
        _git(["rev-parse", "--verify", "--quiet", f"{base}^{{commit}}"], root)
    except DiffError as exc:
        raise DiffError(f"--diff: '{base}' is not a known commit, branch or tag in {root}") from exc
    out: dict[Path, set[int] | None] = {}
    names = _git(["diff", "--name-only", "--diff-filter=ACMR", "-z", base, "--"], root).split("\0")
    for name in filter(None, names):
        diff = _git(["diff", "-U0", "--no-color", base, "--", name], root)
        lines: set[int] = set()
        for m in _HUNK.finditer(diff):
            start, count = int(m.group(1)), int(m.group(2) or "1")
            lines.update(range(start, start + count))
        out[(root / name).resolve()] = lines
    for name in filter(None, _git(["ls-files", "--others", "--exclude-standard", "-z"], root).split("\0")):
        out[(root / name).resolve()] = None
    return out
