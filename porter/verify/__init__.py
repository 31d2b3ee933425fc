"""`porter verify`: compile a generated module for an AMD target (gfx942 by default), check its numbers on the GPU present, time it.

`verify(path, ...)` is the library call (porter.cli.verify prints and writes what it yields); one module's
report is porter.verify.report.verify_module."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any


def verify(modules: Sequence[str | Path], *, reps: int = 100, **options: Any) -> Iterator[tuple[Path, dict[str, Any]]]:
    """(module, report) for each generated module, in order (a generator: reports come as each is done).
    options: target, seeds, shapes, tune, original, compile_for, original_flags (see verify_module). The GPU's
    copy bandwidth and matmul rate are measured once, before the first module, when a GPU is present."""
    from porter.verify.numerics import gpu
    from porter.verify.report import verify_module

    timer = peaks = None
    for i, mod_path in enumerate(modules):
        if i == 0 and gpu()["present"]:
            from porter.verify.perf import Timer, measure_peaks
            timer = Timer(reps=reps)
            peaks = measure_peaks(timer)
        yield Path(mod_path), verify_module(mod_path, timer=timer, peaks=peaks, **options)
