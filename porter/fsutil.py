"""File writing that never leaves a partial file behind and never clobbers a user's file by accident."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


class RefusedOverwrite(Exception):
    """Raised when a destination exists and the caller did not pass force=True."""


def atomic_write(path: str | os.PathLike[str], data: str | bytes, *, force: bool = True) -> Path:
    """Write `data` to `path` through a temporary file in the same folder and an atomic rename.
    With force=False an existing file is left untouched and RefusedOverwrite is raised."""
    dest = Path(path)
    if not force and dest.exists():
        raise RefusedOverwrite(f"{dest}: exists (use --force to overwrite)")
    dest.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode() if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(payload)
            fh.flush()
            os.fsync(fh.fileno())
        if dest.exists():
            os.chmod(tmp, dest.stat().st_mode & 0o7777)
        else:
            os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return dest
