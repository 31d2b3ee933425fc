"""Timing on the GPU present (FACTS.md section 7, METHOD.md): warm-up, median of >= 100 reps timed with device
events, the last-level cache flushed before every rep, and the two ceilings (copy bandwidth, matmul rate)
measured in the same process so that every rate is reported against a number seen on this machine.

torch is imported inside the functions: importing this module costs nothing.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from typing import Callable, Sequence

from porter.families import FAMILIES, hooks

MIN_REPS = 100
FLUSH_BYTES = 512 * 1024 * 1024   # larger than any last-level cache (MI300X 256 MB Infinity Cache, H200 60 MB L2)


@dataclass(frozen=True)
class Timing:
    median_ms: float
    min_ms: float
    reps: int

    def as_dict(self) -> dict:
        return asdict(self)


class Timer:
    """Times callables with CUDA/HIP events; one flush buffer for the whole run."""

    def __init__(self, reps: int = MIN_REPS, warmup: int = 10, flush: bool = True):
        import torch

        self.torch = torch
        self.reps = max(MIN_REPS, reps)
        self.warmup = warmup
        self.flush = torch.empty(FLUSH_BYTES, dtype=torch.uint8, device="cuda") if flush else None

    def time(self, fn: Callable[[], object], reps: int | None = None) -> Timing:
        torch = self.torch
        reps = max(MIN_REPS, reps or self.reps)
        for _ in range(self.warmup):
            fn()
        torch.cuda.synchronize()
        starts = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        ends = [torch.cuda.Event(enable_timing=True) for _ in range(reps)]
        for i in range(reps):
            if self.flush is not None:
                self.flush.zero_()
            starts[i].record()
            fn()
            ends[i].record()
        torch.cuda.synchronize()
        times = [s.elapsed_time(e) for s, e in zip(starts, ends)]
        return Timing(statistics.median(times), min(times), reps)


def measure_peaks(timer: Timer, matmul_n: int = 8192) -> dict:
    """Device-to-device copy bandwidth (bytes read + written) and torch.matmul fp16 / bf16 rates on random data."""
    torch = timer.torch
    out: dict = {"device": torch.cuda.get_device_name(), "torch": torch.__version__}
    n = 1 << 30  # 1 GiB source, several times any L2
    src = torch.randint(0, 255, (n,), dtype=torch.uint8, device="cuda")
    dst = torch.empty_like(src)
    t = timer.time(lambda: dst.copy_(src))
    out["copy_bytes"] = 2 * n
    out["copy_ms"] = t.median_ms
    out["copy_gbps"] = 2 * n / t.median_ms * 1e-6
    del src, dst
    for name, dt in (("float16", torch.float16), ("bfloat16", torch.bfloat16)):
        a = torch.randn(matmul_n, matmul_n, device="cuda", dtype=dt)
        b = torch.randn(matmul_n, matmul_n, device="cuda", dtype=dt)
        t = timer.time(lambda: torch.matmul(a, b))
        out[f"matmul_{name}_n"] = matmul_n
        out[f"matmul_{name}_ms"] = t.median_ms
        out[f"matmul_{name}_tflops"] = 2.0 * matmul_n ** 3 / t.median_ms * 1e-9
        del a, b
    torch.cuda.empty_cache()
    return out


def rate(flops: float, nbytes: float, ms: float) -> tuple[float, str]:
    """(value, unit): TFLOP/s when the work counts operations, GB/s when it counts bytes."""
    if flops:
        return flops / ms * 1e-9, "TFLOP/s"
    return nbytes / ms * 1e-6, "GB/s"


def _fraction(flops: float, nbytes: float, ms: float, dtype: str, peaks: dict | None) -> tuple[float | None, str | None]:
    if not peaks:
        return None, None
    if flops:
        key = f"matmul_{dtype}_tflops"
        if key not in peaks:
            return None, None
        return flops / ms * 1e-9 / peaks[key], f"torch.matmul {dtype} {peaks[f'matmul_{dtype}_n']}^3"
    return nbytes / ms * 1e-6 / peaks["copy_gbps"], "device-to-device copy"


def _reference_slice(family: str, params: dict, case: dict, res):
    """(case, output) to check against the reference: a family's verify hook `reference_slice` takes a slice where
    a float64 reference of the whole output would cost seconds and tens of GB (large attention, GEMM)."""
    hook = hooks(family, "verify") if family in FAMILIES else None
    return hook.reference_slice(params, case, res) if hook is not None else (case, res)


def bench(mod, family: str, params: dict, *, target: str, shapes: list[dict] | None = None,
          original: str | None = None, timer: Timer | None = None, peaks: dict | None = None,
          device: str = "cuda", original_flags: Sequence[str] = ()) -> dict:
    """Generated vs torch vs original (where it runs) at each shape (default the module's BENCH_SHAPE),
    then a re-check of the generated kernel at that shape (a kernel that raced or corrupted state must not pass)."""
    import torch

    from porter.verify.numerics import config_target

    timer = timer or Timer()
    shapes = list(shapes) if shapes else [mod.BENCH_SHAPE]
    out: dict = {"config_target": target, "config_name": mod.CONFIG_NAMES.get(target),
                 "reps": timer.reps, "flush_bytes": FLUSH_BYTES if timer.flush is not None else 0,
                 "method": "CUDA events around each call, median of reps after warm-up, cache flushed before each",
                 "rows": []}
    orig = spec = None
    if original:
        from porter.emulate.launch import bind
        from porter.verify.differential import load_original, spec_of
        try:
            spec = spec_of(mod)
            if spec is None:
                raise ValueError("the module has no ORIGINAL mapping")
            orig = load_original(original, spec["kernel"], original_flags)[0]
        except Exception as exc:
            out["original_error"] = f"cannot build the original: {str(exc)[:300]}"

    with config_target(mod, target):
        for shape in shapes:
            flops, nbytes = mod.work(shape)
            dtype = params.get("dtype", "float32")
            row: dict = {"shape": shape, "flops": flops, "bytes": nbytes}
            case = mod.make_case(shape, 0, device)
            impls: list[tuple[str, object]] = [("generated", lambda: mod.run_kernel(case)),
                                               ("torch", lambda: mod.torch_baseline(case))]
            if orig is not None:
                ocase = mod.make_case(shape, 0, device)
                try:
                    launch = bind(spec, ocase)
                    impls.append(("original", lambda: orig.launch(launch)))
                except ValueError as exc:
                    row["original_skipped"] = str(exc)
            for label, fn in impls:
                try:
                    t = timer.time(fn)
                except Exception as exc:
                    row[label] = {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}
                    continue
                value, unit = rate(flops, nbytes, t.median_ms)
                frac, of = _fraction(flops, nbytes, t.median_ms, dtype, peaks)
                row[label] = {**t.as_dict(), "rate": value, "unit": unit, "fraction_of_peak": frac, "peak": of}
            g = row.get("generated", {})
            for other in ("torch", "original"):
                if "median_ms" in g and "median_ms" in row.get(other, {}):
                    row[f"speedup_vs_{other}"] = row[other]["median_ms"] / g["median_ms"]
            # re-check after timing, at the timed shape, on fresh data
            check = mod.make_case(shape, 1, device)
            try:
                res = mod.run_kernel(check)
                torch.cuda.synchronize()
                sub, res = _reference_slice(family, params, check, res)
                good, msg = mod.compare(res, mod.reference(sub), check["out_dtype"])
                if sub is not check:
                    msg += " (reference on a slice: " + sub["_slice"] + ")"
            except Exception as exc:
                good, msg = False, f"{type(exc).__name__}: {str(exc)[:300]}"
            row["recheck"] = {"ok": bool(good), "detail": msg}
            del case, check
            torch.cuda.empty_cache()
            out["rows"].append(row)
    out["status"] = "ok" if all(r["recheck"]["ok"] and "median_ms" in r.get("generated", {})
                                for r in out["rows"]) else "fail"
    return out
