"""Issue 13, security: nothing in a checkout may run code through porter, forge CI annotations, leak files or
steer git (the checkout is the attacker's). Each test reproduces one attack."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import hostile

PORTER = [sys.executable, "-c", "import sys; from porter.cli import main; sys.exit(main())"]


def porter(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 180) \
        -> subprocess.CompletedProcess:
    return subprocess.run(PORTER + list(args), cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def new_marker() -> Path:
    return Path(f"/tmp/porter_pwned_{uuid.uuid4().hex}")


def test_libraries_in_the_current_folder_are_not_loaded(tmp_path: Path) -> None:
    """libclang's RPATH ends in an empty entry (the current folder): a planted librt.so.1 would run."""
    marker = new_marker()
    hostile.plant_libraries(tmp_path, marker)
    hostile.write(tmp_path / "k.hip", hostile.GOOD_KERNEL)
    hostile.write(tmp_path / "k2.hip", hostile.GOOD_KERNEL)
    for args in (["analyze", "."], ["analyze", ".", "-j", "2"], ["convert", "k.hip", "-o", "out"]):
        proc = porter(*args, cwd=tmp_path)
        assert "Traceback" not in proc.stderr, proc.stderr
        assert not marker.exists(), (args, proc.stderr)
    assert "W64" in porter("analyze", ".", cwd=tmp_path).stdout
