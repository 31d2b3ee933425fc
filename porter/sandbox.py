"""A sandbox for running code from the input: `porter emulate`, `porter analyze --confirm` and `porter verify`'s
emulated original compile the user's kernel with its host code (constructors, static objects, anything under
`#ifndef __HIP_DEVICE_COMPILE__`) and run it on the CPU.

The program runs under bubblewrap (bwrap): new user, PID, network, IPC and UTS namespaces (no network), a
read-only view of the file system with an empty /tmp and an empty home folder, where only the paths given as
readable (the runner, the kernel library) and one writable scratch folder are visible; no capabilities,
no new privileges (bwrap always sets it), killed with porter. prlimit adds resource limits (CPU time, file size,
open files, no core dumps). Without a working bwrap porter refuses to run the code, unless the user opts in
with PORTER_ALLOW_UNSANDBOXED=1.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path

ALLOW_ENV = "PORTER_ALLOW_UNSANDBOXED"
FILE_SIZE_LIMIT = 8 << 30   # bytes one file may grow to (outputs are about the size of the inputs)
OPEN_FILES_LIMIT = 4096
# What the sandboxed program sees of porter's environment (nothing else: CI tokens stay outside).
_KEPT_ENV = ("PATH", "LANG", "LC_ALL", "GLIBC_TUNABLES", "TZ")


class SandboxUnavailable(Exception):
    """No sandbox can be set up here, and the user did not opt in to running without one."""


def _bwrap_args(bwrap: str, scratch: Path | None, readable: Sequence[Path], env: dict[str, str]) -> list[str]:
    args = [bwrap, "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
    home = Path(env.get("HOME") or os.path.expanduser("~"))
    if home != Path("/") and home.is_dir():
        args += ["--tmpfs", str(home)]  # ssh keys, tokens, caches: not the program's to read
    for p in readable:
        args += ["--ro-bind", str(p), str(p)]
    if scratch is not None:
        args += ["--bind", str(scratch), str(scratch), "--chdir", str(scratch)]
    args.append("--clearenv")
    for key in _KEPT_ENV:
        if key in env:
            args += ["--setenv", key, env[key]]
    args += ["--setenv", "HOME", str(scratch or "/tmp")]
    return args + ["--"]


@lru_cache(maxsize=None)
def _bwrap() -> tuple[str | None, str]:
    """(bwrap's path, "") where a sandbox can be created here, else (None, why not)."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return None, "bubblewrap (bwrap) is not installed (Debian/Ubuntu: apt-get install bubblewrap)"
    probe = _bwrap_args(bwrap, None, (), dict(os.environ)) + ["true"]
    try:
        r = subprocess.run(probe, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"bwrap could not be started ({e})"
    if r.returncode != 0:
        return None, f"bwrap cannot create a sandbox here ({r.stderr.strip()[:300] or f'exit {r.returncode}'})"
    return bwrap, ""


def _limits(cpu_seconds: float) -> list[str]:
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        return []
    return [prlimit, "--core=0", f"--fsize={FILE_SIZE_LIMIT}", f"--nofile={OPEN_FILES_LIMIT}",
            f"--cpu={max(1, int(cpu_seconds))}", "--"]


def command(argv: Sequence[str], *, what: str, scratch: Path | None = None, readable: Sequence[Path] = (),
            cpu_seconds: float = 3600.0, env: dict[str, str] | None = None) -> list[str]:
    """The command line that runs `argv` (the code of `what`, for messages) in the sandbox: only `readable` paths
    (besides the system's) can be read, only `scratch` written. Raises SandboxUnavailable."""
    env = dict(os.environ) if env is None else env
    bwrap, why = _bwrap()
    if bwrap is not None:
        return _limits(cpu_seconds) + _bwrap_args(bwrap, scratch, readable, env) + list(argv)
    if os.environ.get(ALLOW_ENV) == "1":
        return _limits(cpu_seconds) + list(argv)
    raise SandboxUnavailable(
        f"refusing to run {what}: its host code (constructors, static objects, code outside device-only "
        f"#if blocks) would run, and no sandbox is available: {why}. Set {ALLOW_ENV}=1 to run it without a "
        f"sandbox, for code you trust")
