"""Issue 13, security: nothing in a checkout may run code through porter, forge CI annotations, leak files or
steer git (the checkout is the attacker's). Each test reproduces one attack."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

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


@pytest.mark.parametrize("fmt", ["text", "github", "json"])
def test_workflow_commands_cannot_be_forged(tmp_path: Path, fmt: str) -> None:
    hostile.plant_forged_commands(tmp_path)
    env = dict(os.environ, GITHUB_ACTIONS="true")
    proc = porter("analyze", ".", "--format", fmt, "-D", f"X=1\n{hostile.FORGED}", cwd=tmp_path, env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == 1, proc.stderr  # the W64 findings, in every file
    assert not hostile.forged_commands(proc.stdout), proc.stdout
    assert not hostile.forged_commands(proc.stderr), proc.stderr
    if fmt == "github":  # one annotation per finding, each on its own line
        annotations = [ln for ln in proc.stdout.splitlines() if ln.startswith("::")]
        assert len(annotations) == len(hostile.FORGED_NAMES), proc.stdout
    if fmt == "text":  # the text is still there to read, only neutralized
        assert "\\::error::newline.hip" in proc.stdout and "stop-commands" in proc.stderr


# ------------------------------------------------------------------------------------------ the sandbox

def test_emulate_runs_host_code_only_in_the_sandbox(tmp_path: Path) -> None:
    marker = new_marker()
    src = hostile.host_code_kernel(tmp_path, marker)
    proc = porter("emulate", str(src), "-k", "warp_sum", "--grid", "1", "--block", "64", "-i",
                  "in=rand:64,out=zeros:2")
    assert proc.returncode == 0, proc.stderr   # it ran, in the sandbox, where its writes went nowhere
    assert not marker.exists(), marker.read_text()
    proc = porter("analyze", str(src), "--confirm", "--format", "json")
    assert '"confirmation"' in proc.stdout and "not run" not in proc.stdout, proc.stdout + proc.stderr
    assert not marker.exists(), marker.read_text()


def test_no_sandbox_refuses_unless_opted_in(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import numpy as np

    from porter import emulate, sandbox
    marker = new_marker()
    src = hostile.host_code_kernel(tmp_path, marker)
    monkeypatch.setattr(sandbox, "_bwrap", lambda: (None, "bwrap is not installed (test)"))
    monkeypatch.delenv(sandbox.ALLOW_ENV, raising=False)
    args = [np.ones(64, np.float32), np.zeros(2, np.float32)]
    with pytest.raises(emulate.CompileError, match=f"refusing to run host_code.hip.*{sandbox.ALLOW_ENV}=1"):
        emulate.run_kernel(src, "warp_sum", (1,), (64,), args)
    assert not marker.exists()
    monkeypatch.setenv(sandbox.ALLOW_ENV, "1")   # the user's choice: then the host code does run
    emulate.run_kernel(src, "warp_sum", (1,), (64,), args)
    assert marker.read_text().count("loaded") and marker.read_text().count("static")
    marker.unlink()


def test_sandbox_has_no_network_no_writes_no_home_no_secrets(tmp_path: Path) -> None:
    from porter import sandbox
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    outside = Path(__file__).resolve().parent / f".sandbox-probe-{uuid.uuid4().hex}"  # not under /tmp
    home_file = Path.home() / f".porter-secret-{uuid.uuid4().hex}"
    home_file.write_text("secret")
    script = (f"touch {outside} 2>/dev/null && echo wrote-outside; touch {scratch}/ok && echo wrote-scratch; "
              f"cat {home_file} 2>/dev/null; echo token=$GITHUB_TOKEN; "
              "cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d ' '; grep NoNewPrivs /proc/self/status; "
              "ulimit -c")
    try:
        cmd = sandbox.command(["sh", "-c", script], what="a test", scratch=scratch,
                              env=dict(os.environ, GITHUB_TOKEN="ghs_secret"))
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=60).stdout.split()
    finally:
        home_file.unlink()
    assert out == ["wrote-scratch", "token=", "lo", "NoNewPrivs:", "1", "0"], out
    assert not outside.exists() and (scratch / "ok").exists()


# ----------------------------------------------------------------------------------- files and git

def test_diff_runs_nothing_from_the_checkouts_git_config(tmp_path: Path) -> None:
    marker = new_marker()
    hostile.git_repo_with_hostile_config(tmp_path, marker)
    assert not marker.exists()
    index = (tmp_path / ".git" / "index").read_bytes()
    proc = porter("analyze", "--diff", "HEAD", ".", "--format", "json", cwd=tmp_path)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert not marker.exists(), proc.stderr
    assert {"k.hip", "new.hip"} <= {Path(p).name for p in re.findall(r'"path": "([^"]+)"', proc.stdout)}, proc
    assert (tmp_path / ".git" / "index").read_bytes() == index  # only read


def test_diagnostics_never_echo_files_outside_the_tree(tmp_path: Path) -> None:
    secret = new_marker()
    secret.write_text("PORTER_SECRET_4c0ffee\n")
    try:
        hostile.leaking_include(tmp_path / "src", secret)
        for fmt in ("text", "json", "sarif"):
            proc = porter("analyze", "src", "--format", fmt, cwd=tmp_path)
            assert "W64-00" in proc.stdout, proc.stderr
            assert "PORTER_SECRET" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
            assert "withheld" in proc.stdout + proc.stderr
    finally:
        secret.unlink()
    hostile.write(tmp_path / "src" / "inside.h", "INSIDE_NAME\n")   # the tree's own text is still quoted
    hostile.write(tmp_path / "src" / "leak.hip", (tmp_path / "src" / "leak.hip").read_text()
                  .replace(str(secret), "inside.h"))
    assert "T<INSIDE_NAME>" in porter("analyze", "src", cwd=tmp_path).stderr


def test_config_target_is_a_name_not_a_path(tmp_path: Path) -> None:
    hostile.write(tmp_path / "elsewhere" / "evil.toml", 'name = "evil"\n')
    hostile.write(tmp_path / "repo" / "pyproject.toml", '[tool.porter]\ntarget = "/../../../../../../../../'
                  f'{tmp_path.relative_to("/")}/elsewhere/evil"\n')
    hostile.write(tmp_path / "repo" / "k.hip", hostile.GOOD_KERNEL)
    proc = porter("analyze", "k.hip", cwd=tmp_path / "repo")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert "[tool.porter] target must be one of " in proc.stderr and "gfx942" in proc.stderr, proc.stderr
    from porter.targets import load_target
    with pytest.raises(KeyError, match="unknown target"):
        load_target(f"../../../../../../../..{tmp_path}/elsewhere/evil")
