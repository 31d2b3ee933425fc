"""Speed and memory of `porter analyze` against a bare libclang parse of the same files.

Builds a corpus of real-sized kernel files (each the bundled wave64 samples, namespaced, with the usual STL
includes: 300+ lines), then times, with the same worker count:
  1. bare libclang: parse each file with porter's arguments and precompiled header, nothing else;
  2. porter analyze: parse, extract Facts, run every rule, format the report (the real command line).
The two runs alternate --repeat times (default 3) and the table shows each one's median, so a noisy machine
moves both. Prints a table. Usage: python benchmarks/analyze_speed.py [--files 120] [--jobs 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HEADER = "#include <hip/hip_runtime.h>\n#include <vector>\n#include <cmath>\n#include <algorithm>\n#include <cstdio>\n"


def build_corpus(dest: Path, count: int) -> list[Path]:
    parts = []
    for sample in sorted((ROOT / "samples" / "wave64").glob("*.hip")):
        body = re.sub(r"^#include.*$", "", sample.read_text(), flags=re.M)
        parts.append(body)
    files = []
    for i in range(count):
        text = HEADER + "".join(f"namespace s{i}_{j} {{\n{body}\n}}  // namespace s{i}_{j}\n"
                                for j, body in enumerate(parts))
        path = dest / f"kernels_{i:03d}.hip"
        path.write_text(text)
        files.append(path)
    return files


def _bare_parse(path: str) -> float:
    import clang.cindex as ci
    from porter.frontend import _PARSE_OPTIONS, build_args, precompiled_header
    from porter.frontend_config import ParseConfig

    config = ParseConfig()
    args = build_args(Path(path), config, precompiled_header(config))
    start = time.perf_counter()
    ci.Index.create(excludeDecls=True).parse(path, args=args, options=_PARSE_OPTIONS)
    return time.perf_counter() - start


def bare(files: list[Path], jobs: int) -> float:
    _bare_parse(str(files[0]))  # build the PCH outside the timing
    start = time.perf_counter()
    with mp.get_context("fork").Pool(jobs) as pool:
        pool.map(_bare_parse, [str(f) for f in files], chunksize=1)
    return time.perf_counter() - start


def porter_run(folder: Path, jobs: int) -> tuple[float, int]:
    exe = Path(sys.executable).parent / "porter"
    start = time.perf_counter()
    res = subprocess.run([str(exe), "analyze", str(folder), "-q", "-j", str(jobs), "--format", "json"],
                         capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if res.returncode not in (0, 1):
        sys.exit(f"porter analyze failed ({res.returncode}): {res.stderr[-2000:]}")
    return elapsed, res.stdout.count('"rule_id"')


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--files", type=int, default=120)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    bare_runs, porter_runs = [], []
    with tempfile.TemporaryDirectory(prefix="porter-bench-") as tmp:
        files = build_corpus(Path(tmp), args.files)
        lines = sum(f.read_text().count("\n") for f in files)
        for i in range(args.repeat):
            bare_runs.append(bare(files, args.jobs))
            if i == 0:  # RUSAGE_CHILDREN is a running peak: read it before porter has run
                bare_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
            seconds, findings = porter_run(Path(tmp), args.jobs)
            porter_runs.append(seconds)
        porter_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    bare_s, porter_s = statistics.median(bare_runs), statistics.median(porter_runs)
    n = len(files)
    print(f"corpus: {n} files, {lines} lines ({lines // n} per file), {args.jobs} workers, {mp.cpu_count()} cores, "
          f"median of {args.repeat} alternating runs")
    print(f"{'run':<22}{'total s':>9}{'ms/file':>10}{'peak RSS MB':>13}")
    print(f"{'bare libclang parse':<22}{bare_s:>9.2f}{1000 * bare_s / n:>10.1f}{bare_rss:>13.0f}")
    print(f"{'porter analyze':<22}{porter_s:>9.2f}{1000 * porter_s / n:>10.1f}{porter_rss:>13.0f}")
    print(f"porter / bare: {porter_s / bare_s:.2f}x   findings: {findings}   "
          f"(runs: bare {', '.join(f'{x:.2f}' for x in bare_runs)} s; porter {', '.join(f'{x:.2f}' for x in porter_runs)} s)")


if __name__ == "__main__":
    main()
