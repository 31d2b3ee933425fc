"""Changed files and lines against a git base, for `porter analyze --diff BASE` (git is only read)."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@", re.M)


class DiffError(Exception):
    pass


# The checkout's own .git/config may name programs that plain `git diff` runs: an fsmonitor hook, an external
# diff, textconv and clean filters (and a refreshed index would run the post-index-change hook). porter only reads.
_SAFE_CONFIG = ("core.fsmonitor=false", "core.hooksPath=", "diff.external=", "core.untrackedCache=false")
_SAFE_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0"}
_UNSAFE_ENV = ("GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_DIFF_OPTS", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT")


def _filter_overrides(cwd: Path) -> list[str]:
    """`-c filter.NAME.clean=` (and process, smudge) for every filter driver the configuration defines: an empty
    command disables the driver. Reading the configuration runs nothing."""
    res = subprocess.run(["git", "config", "--name-only", "--get-regexp", r"^filter\..*\.(clean|smudge|process)$"],
                         cwd=cwd, capture_output=True, text=True, timeout=60, env=_env())
    return [arg for key in sorted(set(res.stdout.splitlines())) for arg in ("-c", f"{key}=")]


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _UNSAFE_ENV}
    return {**env, **_SAFE_ENV}


def _git(args: list[str], cwd: Path) -> str:
    safe = [arg for kv in _SAFE_CONFIG for arg in ("-c", kv)]
    if args[0] == "diff":
        args = [args[0], "--no-ext-diff", "--no-textconv", *args[1:]]
    try:
        safe += _filter_overrides(cwd)
        res = subprocess.run(["git", "--no-pager", *safe, *args], cwd=cwd,
                             capture_output=True, text=True, timeout=60, env=_env())
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
