"""The precompiled header is a cache: racing workers, a PCH broken by an interrupted run and a cache folder that
cannot be written must cost time at most, never a file's analysis."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from test_review import BUGGY
from test_robustness import no_traceback, porter

pytestmark = pytest.mark.slow


def _sources(root: Path, n: int) -> Path:
    src = root / "src"
    src.mkdir()
    for i in range(n):
        (src / f"k{i}.hip").write_text(BUGGY)
    return src


def _analyzed(root: Path, env: dict[str, str], jobs: str = "4") -> None:
    proc = porter("analyze", "src", "-q", "-j", jobs, "--format", "json", cwd=root, env=env)
    no_traceback(proc)
    assert proc.returncode == 1 and "error" not in proc.stderr, proc.stderr[-2000:]
    assert len({f["path"] for f in json.loads(proc.stdout)["findings"]}) == len(list((root / "src").iterdir()))


def test_workers_racing_to_build_the_pch_all_succeed(tmp_path: Path) -> None:
    _sources(tmp_path, 16)
    _analyzed(tmp_path, {**os.environ, "PORTER_CACHE_DIR": str(tmp_path / "cache")})
    assert len(list((tmp_path / "cache" / "pch").glob("*.pch"))) == 1
    assert not list((tmp_path / "cache" / "pch").glob("*tmp"))


def test_a_broken_pch_is_rebuilt(tmp_path: Path) -> None:
    _sources(tmp_path, 4)
    env = {**os.environ, "PORTER_CACHE_DIR": str(tmp_path / "cache")}
    _analyzed(tmp_path, env, "1")
    pch = next((tmp_path / "cache" / "pch").glob("*.pch"))
    size = pch.stat().st_size
    pch.write_bytes(pch.read_bytes()[:4096])   # what a run killed while writing it would have left
    _analyzed(tmp_path, env)
    assert pch.stat().st_size == size
    next((tmp_path / "cache" / "pch").glob("*.h")).touch()   # a header newer than its PCH: stale
    _analyzed(tmp_path, env)


def test_unwritable_cache_folder_falls_back_to_parsing_without_a_pch(tmp_path: Path) -> None:
    _sources(tmp_path, 2)
    home = tmp_path / "home-is-a-file"
    home.write_text("")
    env = {k: v for k, v in os.environ.items() if k != "PORTER_CACHE_DIR"}
    _analyzed(tmp_path, {**env, "HOME": str(home)}, "2")
