"""File writing that never leaves a partial file behind and never clobbers a user's file by accident."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path
from typing import Iterable


class RefusedOverwrite(Exception):
    """Raised when a destination exists and the caller did not pass force=True, or is one of the inputs."""


def atomic_write(path: str | os.PathLike[str], data: str | bytes, *, force: bool = True) -> Path:
    """Write `data` to `path` without replacing what the user pointed at:
    - a regular file is replaced through a temporary file in its folder and an atomic rename (mode and, where
      allowed, owner kept); one with other hard links is rewritten in place, so that every link sees the text;
    - a symlink is followed: its target is written, the link stays;
    - a FIFO, terminal or other device is opened and written as a stream (`-o /dev/stdout` works, nothing is
      replaced).
    With force=False an existing file is left untouched and RefusedOverwrite is raised. Returns the path written."""
    dest = Path(path)
    if not force and (dest.exists() or dest.is_symlink()):
        raise RefusedOverwrite(f"{dest}: exists (use --force to overwrite)")
    payload = data.encode() if isinstance(data, str) else data
    try:
        st: os.stat_result | None = os.stat(dest)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise IsADirectoryError(f"{dest}: is a directory")
    if st is not None and not stat.S_ISREG(st.st_mode):
        with open(dest, "wb") as fh:   # the path itself, not its resolution: /dev/fd/N resolves to "pipe:[...]"
            fh.write(payload)
        return dest
    real = Path(os.path.realpath(dest))
    if st is not None and st.st_nlink > 1:
        _rewrite_in_place(real, payload)
        return real
    real.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        if st is not None:
            os.chmod(tmp, st.st_mode & 0o7777)
            try:
                os.chown(tmp, st.st_uid, st.st_gid)
            except PermissionError:
                pass   # not ours to give away; the text is what matters
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, real)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return real


def _rewrite_in_place(path: Path, payload: bytes) -> None:
    """Keep the inode (hard links share it); on a failed write put the old bytes back."""
    with open(path, "r+b") as fh:
        old = fh.read()
        try:
            fh.seek(0)
            fh.write(payload)
            fh.truncate()
            fh.flush()
            os.fsync(fh.fileno())
        except BaseException:
            fh.seek(0)
            fh.write(old)
            fh.truncate()
            raise


def refuse_inputs(output: str | os.PathLike[str], inputs: Iterable[str | os.PathLike[str]], what: str) -> None:
    """RefusedOverwrite when `output` is (through any spelling or link) one of the files read."""
    try:
        out = os.stat(output)
    except OSError:
        return
    if not stat.S_ISREG(out.st_mode):
        return   # a stream (FIFO, terminal) is never an input file
    for p in inputs:
        try:
            st = os.stat(p)
        except OSError:
            continue
        if (st.st_dev, st.st_ino) == (out.st_dev, out.st_ino):
            raise RefusedOverwrite(f"{output}: is the input {p}; refusing to overwrite it with {what}")
