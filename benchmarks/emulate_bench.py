"""Throughput of `porter emulate`: lanes (GPU threads) executed per second for a 64-block x 256-thread launch of
a two-level reduction kernel, at wave64 and wave32, with 1 and all worker threads.

    python benchmarks/emulate_bench.py [--reps 5] [--elements-per-thread 4]

Kernel time is the runtime's own measurement of the launch (excludes compiling, which is cached, and process
start); wall time per run is printed too."""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

import numpy as np

from porter.emulate import run_kernel

KERNEL = Path(__file__).resolve().parent.parent / "tests" / "data" / "emulate" / "bench_reduce.hip"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--elements-per-thread", type=int, default=4)
    opts = ap.parse_args()
    grid, block = 64, 256
    n = grid * block * opts.elements_per_thread
    x = np.random.default_rng(0).uniform(-1, 1, n).astype(np.float32)
    want = float(x.astype(np.float64).sum())
    run_kernel(KERNEL, "reduce_sum", grid, block, [x, np.zeros(grid, np.float32), n])  # compile + warm cache
    for wave in (64, 32):
        for workers in sorted({1, os.cpu_count() or 1}):
            kt, wt = [], []
            for _ in range(opts.reps):
                t0 = time.perf_counter()
                out = run_kernel(KERNEL, "reduce_sum", grid, block, [x, np.full(grid, np.nan, np.float32), n],
                                 warp_size=wave, workers=workers)
                wt.append(time.perf_counter() - t0)
                kt.append(out.stats["seconds"])
                got = float(out["partial"].astype(np.float64).sum())
                assert abs(got - want) <= 1e-3 * max(1.0, abs(want)), (got, want)
            lanes = out.stats["lanes"]
            k = statistics.median(kt)
            print(f"wave{wave} workers={workers}: {lanes} lanes, {out.stats['wave_ops']} wavefront exchanges, "
                  f"kernel {k * 1e3:.2f} ms -> {lanes / k / 1e6:.2f} M lanes/s "
                  f"(wall {statistics.median(wt) * 1e3:.0f} ms per run incl. process start)")


if __name__ == "__main__":
    main()
