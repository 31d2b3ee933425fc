"""Whether torch sees a GPU here: tests marked `gpu` check what ran on it, or the exact no-GPU report without one."""

from __future__ import annotations

from functools import cache


@cache
def gpu_present() -> bool:
    from porter.verify.numerics import gpu
    return bool(gpu()["present"])
