"""A one-line progress bar on stderr: drawn only on a terminal, silent in CI, in pipes and with --quiet."""

from __future__ import annotations

import os
import sys
import time
from typing import Callable


def progress_bar(enabled: bool, label: str = "analyzing") -> tuple[Callable[[int, int, str], None], Callable[[], None]]:
    """Return (update, finish). update(done, total, current_item) redraws at most 10 times a second."""
    active = enabled and sys.stderr.isatty() and not os.environ.get("CI")
    last = [0.0]

    def update(done: int, total: int, item: str) -> None:
        if not active:
            return
        now = time.monotonic()
        if done < total and now - last[0] < 0.1:
            return
        last[0] = now
        width = 30
        filled = int(width * done / max(total, 1))
        name = item if len(item) <= 40 else "..." + item[-37:]
        sys.stderr.write(f"\r{label} [{'#' * filled}{'.' * (width - filled)}] {done}/{total} {name:<40}")
        sys.stderr.flush()

    def finish() -> None:
        if active:
            sys.stderr.write("\r" + " " * 100 + "\r")
            sys.stderr.flush()

    return update, finish
