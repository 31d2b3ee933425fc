"""porter emulate: run hipified kernels on the CPU with true 64-lane (or 32-lane) wavefronts.

Each GPU thread is a fiber; the lanes of a wavefront run together and every cross-lane operation (shuffle,
ballot, any/all, match, syncwarp) is a wavefront-synchronous exchange, so code that assumes 32-lane warps
behaves on wave64 as it would on gfx942 (docs/hardware.md "Cross-lane operations on a 64-lane wavefront"). `differential` runs a kernel at wave sizes 32 and
64 on the same inputs and reports which outputs differ.

    out = run_kernel("k.hip", "reduce<256>", grid=(64,), block=(256,), args=[x, y, np.int32(n)])
    rep = differential("k.hip", "reduce<256>", grid=(64,), block=(256,), args={"x": x, "y": y, "n": n})

Errors in the kernel are raised as EmulationError subclasses with the block, thread and wavefront:
DeadlockError (a __syncthreads not reached by all threads), MemoryFault (an out-of-bounds or freed-buffer access,
found by guard pages after every buffer), KernelCrash, KernelTimeout; CompileError when g++ rejects the source.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from porter.emulate.build import (CompileError, KernelLib, Param, build_kernel, make_tempdir, runner_env,
                                  runner_path, sandboxed)
from porter.targets import DEFAULT_TARGET, load_target

__all__ = ["run_kernel", "run_launcher", "differential", "kernel_signature", "KernelOutputs", "DiffReport", "OutputDiff", "Param",
           "EmulationError", "CompileError", "DeadlockError", "MemoryFault", "KernelCrash", "KernelTimeout"]

_DTYPES: dict[str, np.dtype] = {
    "f4": np.dtype(np.float32), "f8": np.dtype(np.float64), "f2": np.dtype(np.float16), "b1": np.dtype(np.bool_),
    "i1": np.dtype(np.int8), "u1": np.dtype(np.uint8), "i2": np.dtype(np.int16), "u2": np.dtype(np.uint16),
    "i4": np.dtype(np.int32), "u4": np.dtype(np.uint32), "i8": np.dtype(np.int64), "u8": np.dtype(np.uint64),
}


def param_dtype(p: Param) -> np.dtype | None:
    """The numpy dtype matching a parameter's (pointee) type, or None for void/struct types."""
    return _DTYPES.get(p.code)


class EmulationError(Exception):
    """A kernel that could not be run to completion. `report` holds the runtime's record (kind, message, block,
    thread, wave, lane, line...)."""

    def __init__(self, message: str, report: dict[str, Any] | None = None, stderr: str = "") -> None:
        super().__init__(message)
        self.report = report or {}
        self.stderr = stderr

    @property
    def kind(self) -> str:
        return str(self.report.get("kind", "error"))


class DeadlockError(EmulationError):
    """A __syncthreads() that not every thread of the block reaches."""


class MemoryFault(EmulationError):
    """An access outside a device buffer (or to a freed one)."""


class KernelCrash(EmulationError):
    """Any other fault (null pointer, division by zero, abort, stack overflow, invalid launch)."""


class KernelTimeout(EmulationError):
    """The kernel did not finish in time (often a spin-wait on another lane, which the emulator cannot run)."""


class KernelOutputs(dict[str, np.ndarray]):
    """Output buffers (non-const pointer parameters) by parameter name, plus what the run reported."""

    def __init__(self, data: dict[str, np.ndarray], *, wave_size: int, warnings: list[dict[str, Any]],
                 stats: dict[str, Any], stdout: str) -> None:
        super().__init__(data)
        self.wave_size = wave_size
        self.warnings = warnings
        self.stats = stats
        self.stdout = stdout


def kernel_signature(source_path: str | os.PathLike[str], kernel: str,
                     extra_flags: Sequence[str] = ()) -> tuple[Param, ...]:
    """The kernel's parameters (compiles the kernel if it is not cached)."""
    return build_kernel(source_path, kernel, extra_flags=extra_flags).params


def _dim3(v: int | Sequence[int]) -> tuple[int, int, int]:
    t = (int(v),) if isinstance(v, (int, np.integer)) else tuple(int(x) for x in v)
    if not 1 <= len(t) <= 3 or any(x < 1 for x in t):
        raise ValueError(f"grid/block must be 1-3 positive integers, got {v!r}")
    return (t + (1, 1))[:3]  # type: ignore[return-value]


def _bind(params: Sequence[Param], args: Sequence[Any] | Mapping[str, Any]) -> list[Any]:
    if isinstance(args, Mapping):
        names = [p.name for p in params]
        unknown = sorted(set(args) - set(names))
        missing = [n for n in names if n not in args]
        if unknown or missing:
            raise ValueError(f"arguments do not match the kernel's parameters ({', '.join(names)}): "
                             f"unknown {unknown}, missing {missing}")
        return [args[n] for n in names]
    if len(args) != len(params):
        sig = ", ".join(p.describe() for p in params)
        raise ValueError(f"the kernel takes {len(params)} arguments ({sig}), got {len(args)}")
    return list(args)


def _scalar_bytes(p: Param, v: Any) -> bytes:
    dt = param_dtype(p)
    if dt is None:
        raw = v.tobytes() if isinstance(v, (np.ndarray, np.generic)) else bytes(v)
        if len(raw) != p.nbytes:
            raise ValueError(f"parameter {p.describe()}: expects {p.nbytes} raw bytes, got {len(raw)}")
        return raw
    arr = np.asarray(v)
    if arr.shape != ():
        raise ValueError(f"parameter {p.describe()} is a scalar, got an array of shape {arr.shape}")
    if dt.kind in "iu":
        if arr.dtype.kind not in "iub" or not np.can_cast(np.min_scalar_type(arr.item()), dt, "safe") \
                and not (np.iinfo(dt).min <= int(arr.item()) <= np.iinfo(dt).max):
            raise ValueError(f"parameter {p.describe()}: {v!r} is not a value of type {dt}")
    return np.asarray(arr, dtype=dt).tobytes()


def _check_buffer(p: Param, v: Any) -> np.ndarray:
    dt = param_dtype(p)
    if not isinstance(v, np.ndarray):
        if dt is None:
            raise TypeError(f"parameter {p.describe()}: pass a numpy array")
        v = np.asarray(v, dtype=dt)
    if dt is not None and v.dtype != dt:
        raise TypeError(f"parameter {p.describe()} expects a {dt} array, got {v.dtype} "
                        f"(convert it explicitly: porter never casts buffers silently)")
    if dt is None and p.nbytes and v.nbytes % p.nbytes:
        raise TypeError(f"parameter {p.describe()}: {v.nbytes} bytes is not a whole number of {p.nbytes}-byte items")
    return np.ascontiguousarray(v)


def _addr2line(obj: str, offset: int, source: Path) -> str | None:
    try:
        r = subprocess.run(["addr2line", "-e", obj, "-f", "-C", "-i", hex(offset)], capture_output=True,
                           text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    lines = r.stdout.splitlines()
    frames = [(lines[i], lines[i + 1]) for i in range(0, len(lines) - 1, 2)]
    for func, loc in frames:  # innermost first: prefer the first frame in the user's own file
        if loc.startswith(str(source) + ":"):
            return f"{Path(loc.split(' ')[0]).name} in {func}"
    return None


def _raise_for(err: dict[str, Any], lib: KernelLib, stderr: str) -> None:
    msg = str(err.get("message", "kernel failed"))
    if "pc_object" in err and "pc_offset" in err:
        where = _addr2line(str(err["pc_object"]), int(err["pc_offset"]), lib.source)
        if where:
            err["source_location"] = where
            msg += f", at {where}"
    kind = err.get("kind")
    cls = {"deadlock": DeadlockError, "out-of-bounds": MemoryFault, "timeout": KernelTimeout}.get(kind, KernelCrash)
    raise cls(msg, err, stderr)


def run_kernel(source_path: str | os.PathLike[str], kernel: str, grid: int | Sequence[int],
               block: int | Sequence[int], args: Sequence[Any] | Mapping[str, Any], warp_size: int = 64,
               shared_bytes: int = 0, timeout: float = 60.0, workers: int = 1,
               extra_flags: Sequence[str] = ()) -> KernelOutputs:
    """Compile (cached) and run one launch of `kernel` from a hipified source on the CPU.

    args: positional list or {parameter name: value}; numpy arrays for pointer parameters (copied into guarded
    device buffers and back; the dtype must match the pointee type), Python/numpy scalars for the rest.
    Returns the non-const pointer parameters' final contents by parameter name. workers > 1 runs blocks on several
    OS threads (float atomics then become order-dependent). extra_flags: -I/-D flags for the source's headers."""
    if warp_size not in (32, 64):
        raise ValueError("warp_size must be 32 or 64")
    lib = build_kernel(source_path, kernel, warp_size, extra_flags=extra_flags)
    return _run(lib, _bind(lib.params, args), _dim3(grid), _dim3(block), warp_size, shared_bytes, timeout, workers)


def run_launcher(source_path: str | os.PathLike[str], launcher: str, args: Sequence[Any] | Mapping[str, Any],
                 warp_size: int = 64, timeout: float = 60.0, workers: int = 1) -> KernelOutputs:
    """Call a host launcher of a hipified source (e.g. `extern "C" int launch_gemm(float* A, ..., int M)`) as
    written: its grid/block arithmetic runs on the host and its launches run in the emulator. Arguments and
    outputs as for run_kernel (pointer parameters are device buffers). A non-zero return is a KernelCrash."""
    if warp_size not in (32, 64):
        raise ValueError("warp_size must be 32 or 64")
    lib = build_kernel(source_path, launcher, warp_size, host=True)
    return _run(lib, _bind(lib.params, args), (1, 1, 1), (1, 1, 1), warp_size, 0, timeout, workers)


# The GPU whose launch limits (threads per block, LDS per workgroup) the emulator enforces and reports through
# hipGetDeviceProperties; the wave size is chosen per run.
EMULATED_TARGET = DEFAULT_TARGET


def _limits_line() -> str:
    t = load_target(EMULATED_TARGET)
    return f"limits {t.max_threads_per_block} {t.lds_bytes_per_workgroup} {t.name}"


def _run(lib: KernelLib, values: list[Any], g: tuple[int, int, int], b: tuple[int, int, int], warp_size: int,
         shared_bytes: int, timeout: float, workers: int) -> KernelOutputs:
    with make_tempdir() as tmp:
        d = Path(tmp)
        lines = [f"so {lib.path}", f"wave {warp_size}", f"workers {max(1, int(workers))}", f"timeout {timeout}",
                 f"diag {d / 'diag.jsonl'}", f"grid {g[0]} {g[1]} {g[2]}", f"block {b[0]} {b[1]} {b[2]}",
                 f"shared {int(shared_bytes)}", _limits_line()]
        stack_kb = os.environ.get("PORTER_EMULATE_STACK_KB")
        if stack_kb:
            lines.append(f"stack {int(stack_kb) * 1024}")
        buffers: dict[int, np.ndarray] = {}
        for i, (p, v) in enumerate(zip(lib.params, values)):
            if p.kind == "ptr":
                arr = _check_buffer(p, v)
                buffers[i] = arr
                arr.tofile(d / f"a{i}.in")
                out = "-" if p.const else str(d / f"a{i}.out")
                lines.append(f"buf {arr.nbytes} {p.name} {d / f'a{i}.in'} {out}")
            else:
                raw = _scalar_bytes(p, v)
                lines.append(f"val {len(raw)} {raw.hex() or '00'}")
        (d / "job").write_text("\n".join(lines) + "\n")
        try:
            cmd = sandboxed([str(runner_path()), str(d / "job")], f"{lib.source.name} ({lib.kernel})", scratch=d,
                            readable=(runner_path(), lib.path), cpu_seconds=(timeout + 15) * max(1, int(workers)))
            r = subprocess.run(cmd, capture_output=True, text=True, env=runner_env(), timeout=timeout + 15)
        except subprocess.TimeoutExpired as e:
            raise KernelTimeout(f"the kernel did not finish within {timeout} s (runner killed)",
                                {"kind": "timeout"}) from e
        events = []
        if (d / "diag.jsonl").exists():
            for ln in (d / "diag.jsonl").read_text().splitlines():
                try:
                    events.append(json.loads(ln))
                except ValueError:
                    continue
        errors = [e for e in events if e.get("event") == "error"]
        if errors:
            _raise_for(errors[0], lib, r.stderr)
        if r.returncode == 3:  # runner.cpp: the host launcher returned an error code
            raise KernelCrash(r.stderr.strip().removeprefix("porter-emu-run: "), {"kind": "launcher-error"},
                              r.stderr)
        if r.returncode != 0:
            raise KernelCrash(f"the kernel runner failed (exit {r.returncode}): {r.stderr.strip()[-2000:]}",
                              {"kind": "crash", "returncode": r.returncode}, r.stderr)
        outputs = {}
        for i, p in enumerate(lib.params):
            if p.kind == "ptr" and not p.const:
                src = buffers[i]
                outputs[p.name] = np.fromfile(d / f"a{i}.out", dtype=src.dtype).reshape(src.shape)
        stats = next((e for e in events if e.get("event") == "stats"), {})
        warnings = [e for e in events if e.get("event") == "warning"]
        return KernelOutputs(outputs, wave_size=warp_size, warnings=warnings, stats=stats, stdout=r.stdout)


@dataclass
class OutputDiff:
    """One output that differs between wave sizes: how many elements, the first few indices and values."""
    name: str
    n_differ: int
    total: int
    indices: list[tuple[int, ...]]
    values_32: list[Any]
    values_64: list[Any]
    max_abs_diff: float | None

    def describe(self) -> str:
        pairs = ", ".join(f"{list(ix) if len(ix) > 1 else ix[0]}: {a!r} vs {b!r}"
                          for ix, a, b in zip(self.indices, self.values_32, self.values_64))
        extra = f", max |diff| {self.max_abs_diff:.6g}" if self.max_abs_diff is not None else ""
        return f"{self.name}: {self.n_differ} of {self.total} elements differ{extra}; first (wave32 vs wave64): {pairs}"


@dataclass
class DiffReport:
    """Result of running one kernel at wave sizes 32 and 64 on the same inputs."""
    kernel: str
    outputs: dict[int, KernelOutputs] = field(default_factory=dict)
    errors: dict[int, EmulationError] = field(default_factory=dict)
    diffs: list[OutputDiff] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return not self.diffs and not self.errors

    def summary(self) -> str:
        if self.same:
            names = ", ".join(sorted(self.outputs.get(64, {}))) or "(no outputs)"
            return f"{self.kernel}: outputs identical at wave32 and wave64 ({names})"
        lines = [f"{self.kernel}: wave32 and wave64 differ"]
        lines += [f"  wave{w}: {type(e).__name__}: {e}" for w, e in sorted(self.errors.items())]
        lines += ["  " + d.describe() for d in self.diffs]
        return "\n".join(lines)


def _compare(name: str, a: np.ndarray, b: np.ndarray, rtol: float, atol: float, first: int) -> OutputDiff | None:
    if a.dtype.kind in "fc":
        ok = np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    else:
        ok = a == b
    bad = np.argwhere(~ok)
    if not len(bad):
        return None
    idx = [tuple(int(i) for i in ix) for ix in bad[:first]]
    mad = None
    if a.dtype.kind in "fiu":
        d = np.abs(a.astype(np.float64) - b.astype(np.float64))
        mad = float(np.nanmax(d[~ok])) if np.isfinite(d[~ok]).any() else float("nan")
    return OutputDiff(name, int(len(bad)), int(a.size), idx, [a[i].item() for i in idx], [b[i].item() for i in idx], mad)


def differential(source: str | os.PathLike[str], kernel: str, grid: int | Sequence[int], block: int | Sequence[int],
                 args: Sequence[Any] | Mapping[str, Any], shared_bytes: int = 0, timeout: float = 60.0,
                 rtol: float = 1e-5, atol: float = 1e-6, first: int = 5, workers: int = 1) -> DiffReport:
    """Run the kernel at wave sizes 32 and 64 on identical copies of the inputs and report differing outputs.
    Floats compare with isclose(rtol, atol) (NaN equals NaN); integers exactly. A run that fails is recorded in
    `errors` rather than raised (a deadlock at one wave size only is itself a finding); CompileError is raised."""
    rep = DiffReport(kernel)
    for w in (32, 64):
        copied = ({k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in args.items()}
                  if isinstance(args, Mapping) else [v.copy() if isinstance(v, np.ndarray) else v for v in args])
        try:
            rep.outputs[w] = run_kernel(source, kernel, grid, block, copied, warp_size=w, shared_bytes=shared_bytes,
                                        timeout=timeout, workers=workers)
        except CompileError:
            raise
        except EmulationError as e:
            rep.errors[w] = e
    if 32 in rep.outputs and 64 in rep.outputs:
        for name, a in rep.outputs[32].items():
            d = _compare(name, a, rep.outputs[64][name], rtol, atol, first)
            if d:
                rep.diffs.append(d)
    return rep
