"""Run `porter analyze` over public CUDA/HIP trees and print, per tree: files analyzed, files that crashed (an
internal error, a dead worker or a time-out), files with parse loss (parse errors, or statements recovered from
tokens only), findings, wall milliseconds per file, and the workers' CPU milliseconds per file (user + system: what
the files cost, which other load on the machine moves less than it moves the wall time).

    python benchmarks/real_trees.py [--root /tmp/porter-trees] [-j 2] [--only ggml,llm.c] [--limit N]
                                    [--extra NAME=DIR ...] [--store DIR] [--timeout S]

The trees are materialized from the bare snapshots under /work/.mirror (`git archive` of a pinned commit into
--root; nothing is executed, nothing third-party is committed). Trees of repositories too big to mirror come
from the local store (benchmarks/store_trees.toml lists every file with its commit and sha256;
benchmarks/store_trees.py checks the folder and says how to refill it): vllm-csrc and vllm-csrc-rocm are vllm's
csrc (the ROCm paged attention and top-level files, store folder vllm-csrc-00d63169) analyzed with torch's
headers (torch.utils.cpp_extension.include_paths()), once as CUDA and once with -D USE_ROCM, as

    python benchmarks/real_trees.py --only vllm-csrc,vllm-csrc-rocm --timeout 600

A store tree whose folder is missing or differs from the list is skipped with the reason. --extra adds a folder
of your own analyzed with its own folder on the include path. The list of crashed files (an internal error, a
function porter could not extract, a dead worker or a time-out) is printed under the table with the first line
of each error."""

from __future__ import annotations

import argparse
import io
import resource
import subprocess
import sys
import tarfile
import time
from dataclasses import dataclass, replace
from pathlib import Path

import store_trees

MIRROR = Path("/work/.mirror")


@dataclass(frozen=True)
class Tree:
    name: str
    mirror: str                 # owner+name under MIRROR
    commit: str
    export: tuple[str, ...]     # folders taken from the snapshot
    paths: tuple[str, ...]      # what is analyzed, relative to the export root
    includes: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()


TREES = (
    Tree("ggml", "ggml-org+ggml", "d99724f2b141fed9e1a9f402213506c081433465", ("src", "include"),
         ("src/ggml-cuda",), ("include", "src", "src/ggml-cuda"), ("GGML_USE_HIP",)),
    Tree("bitsandbytes", "bitsandbytes-foundation+bitsandbytes", "95f9af309d4d5793847169c39288dcd3fcbdf564",
         ("csrc",), ("csrc",), ("csrc",)),
    Tree("llm.c", "karpathy+llm.c", "f1e2ace651495b74ae22d45d1723443fd00ecd3a", ("dev", "llmc", "train_gpt2.cu"),
         ("dev/cuda", "llmc", "train_gpt2.cu"), (".", "llmc", "dev")),
    Tree("causal-conv1d", "Dao-AILab+causal-conv1d", "0d2252d161f25f7907bbd05985c08ab98d255874", ("csrc",),
         ("csrc",), ("csrc",)),
    # xformers before its kernels moved out (1297aae5): the ROCm CK-tile attention (hip_fmha, hip_decoder) and the
    # CUDA sparse24 kernels; CK and CUTLASS headers are not in the snapshot, so this checks porter survives them
    Tree("xformers", "facebookresearch+xformers", "720adff2b021f6f43957718514f5be3d10e36fb1", ("xformers/csrc",),
         ("xformers/csrc",), ("xformers/csrc",)),
    Tree("mamba", "state-spaces+mamba", "e9594ce1c732d97440f0332fdc43170a2294dbfa", ("csrc",), ("csrc",),
         ("csrc",)),
    Tree("flash-attention", "Dao-AILab+flash-attention", "0251105a2fb19d2957484b7f023cd8c115286ced", ("csrc",),
         ("csrc",), ("csrc",)),
    Tree("rocm-flash-attention", "ROCm+flash-attention", "b3ae4966b2567811880db10d9e040a775b99c7d7", ("csrc",),
         ("csrc",), ("csrc",)),
    Tree("flashinfer", "flashinfer-ai+flashinfer", "fb28d7242b3506a2348265962041acc1fb56cca4", ("include", "csrc"),
         ("include", "csrc"), ("include", "csrc")),
)


def materialize(tree: Tree, root: Path) -> Path | None:
    dest = root / tree.name
    if dest.is_dir():
        return dest
    repo = MIRROR / tree.mirror / "repo"
    if not repo.is_dir():
        return None
    data = subprocess.run(["git", "-C", str(repo), "archive", tree.commit, *tree.export], capture_output=True,
                          check=True).stdout
    tmp = dest.with_suffix(".tmp")
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(tmp, filter="data")
    tmp.rename(dest)
    return dest


def store_work(only: set[str], store: Path) -> list[tuple[Tree, Path]]:
    """The store trees' variants as Trees over their store folders; a tree that cannot be analyzed is skipped
    with the reason."""
    work = []
    for st in store_trees.load():
        names = [st.name + suffix for suffix, _ in st.variants]
        if only and not only.intersection(names):
            continue
        why = store_trees.unavailable(st, store) or (_torch_missing() if st.torch else "")
        if why:
            print(f"{st.name}: skipped: {why}")
            continue
        includes = st.includes + (_torch_includes() if st.torch else ())
        work += [(Tree(st.name + suffix, "", "", (), st.paths, includes, defines), store / st.store)
                 for suffix, defines in st.variants if not only or st.name + suffix in only]
    return work


def _torch_missing() -> str:
    import importlib.util
    return "" if importlib.util.find_spec("torch") else "torch is not installed (its headers are on the include path)"


def _torch_includes() -> tuple[str, ...]:
    import torch.utils.cpp_extension as ext
    return tuple(ext.include_paths())


def analyze(base: Path, tree: Tree, jobs: int, limit: int | None, timeout: float) -> dict:
    from porter.analysis import Request, collect, run
    from porter.frontend_config import make_config

    files, _ = collect([str(base / p) for p in tree.paths])
    files = files[:limit] if limit else files
    config = make_config(target="gfx942", include_dirs=[str(base / d) for d in tree.includes],
                         defines=tree.defines)
    requests = [Request(path=f, config=config, target="gfx942") for f in files]
    start, cpu = time.perf_counter(), _children_cpu()
    results = run(requests, jobs, timeout)
    wall, cpu = time.perf_counter() - start, _children_cpu() - cpu
    crashed = [r for r in results if r.error and ("internal error" in r.error or "crashed" in r.error
                                                  or "timed out" in r.error)]
    crashed += [replace(r, error=f"{r.path}: {s}") for r in results if not r.error
                for s in r.coverage.get("skipped", [])[:1] if "porter could not extract" in s]
    loss = [r for r in results if not r.error and (r.parse_errors or r.token_statements)]
    return {"files": len(results), "analyzed": sum(1 for r in results if not r.error), "crashed": crashed,
            "refused": sum(1 for r in results if r.error) - len(crashed), "loss": len(loss),
            "recovered": sum(r.token_statements for r in results),
            "findings": sum(len(r.findings) for r in results), "ms": 1000 * wall / max(1, len(results)),
            "cpu_ms": 1000 * cpu / max(1, len(results))}


def _children_cpu() -> float:
    """CPU seconds of the finished worker processes (the pool joins its workers before run() returns)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", type=Path, default=Path("/tmp/porter-trees"))
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--only", default="", help="comma-separated tree names")
    ap.add_argument("--limit", type=int, default=None, help="at most N files per tree")
    ap.add_argument("--extra", action="append", default=[], metavar="NAME=DIR")
    ap.add_argument("--store", type=Path, default=store_trees.DEFAULT_STORE,
                    help="local store of files read one by one")
    ap.add_argument("--timeout", type=float, default=120.0, help="per-file limit in seconds")
    args = ap.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    args.root.mkdir(parents=True, exist_ok=True)
    only = {n for n in args.only.split(",") if n}
    work: list[tuple[Tree, Path]] = []
    for tree in TREES:
        if only and tree.name not in only:
            continue
        base = materialize(tree, args.root)
        if base is None:
            print(f"{tree.name}: snapshot {MIRROR / tree.mirror} not present, skipped")
            continue
        work.append((tree, base))
    work += store_work(only, args.store)
    for spec in args.extra:
        name, _, folder = spec.partition("=")
        work.append((Tree(name, "", "", (), (".",), (".",)), Path(folder).resolve()))
    header = f"{'tree':22} {'files':>6} {'analyzed':>8} {'crashed':>7} {'refused':>7} {'parse loss':>10} " \
             f"{'token stmts':>11} {'findings':>8} {'ms/file':>8} {'cpu ms/file':>11}"
    print(header)
    print("-" * len(header))
    crashes = []
    for tree, base in work:
        row = analyze(base, tree, args.jobs, args.limit, args.timeout)
        crashes += row["crashed"]
        print(f"{tree.name:22} {row['files']:>6} {row['analyzed']:>8} {len(row['crashed']):>7} {row['refused']:>7} "
              f"{row['loss']:>10} {row['recovered']:>11} {row['findings']:>8} {row['ms']:>8.0f} {row['cpu_ms']:>11.0f}",
              flush=True)
    for r in crashes:
        print(f"crashed: {r.error.splitlines()[0][:240]}")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
