"""Numerics on the GPU present (DESIGN.md "Verification, stated once"; FACTS.md section 7).

The generated module supplies the protocol's pieces: make_case (NaN-prefilled outputs, seeded data that is never
zeros), TEST_SHAPES (not multiples of any tile), reference (float64) and compare (per-dtype atol/rtol plus
max|d|/max|ref|). This module runs them for >= 5 seeds, on NVIDIA through TileLang's CUDA target or on gfx942
through a ROCm build of torch, and runs the hipified original on the same inputs where it can (nvcc +
porter/runtime/hip2cuda.h on NVIDIA: warpSize 32 there, so it runs as written for NVIDIA).

Without a GPU nothing here passes: the section says exactly "numerics: not run (no GPU)". The original kernel
still runs there, on porter's CPU emulator with 64-lane wavefronts (porter.emulate), against the module's
reference: that checks the conversion (family, parameters, reference) and shows wave64 bugs of the original, but
says nothing about the generated kernel.
"""

from __future__ import annotations

import contextlib
import time
from types import ModuleType
from typing import Any, Callable

MIN_SEEDS = 5
NOT_RUN_NO_GPU = "numerics: not run (no GPU)"


def gpu() -> dict[str, Any]:
    """{"present": bool, "name", "native_target" ("sm_90a" on CUDA, "gfx942" on ROCm), "torch"}."""
    try:
        import torch
    except ImportError:
        return {"present": False, "reason": "torch is not installed"}
    info: dict[str, Any] = {"present": False, "torch": torch.__version__}
    if not torch.cuda.is_available():
        info["reason"] = "no GPU"
        return info
    info["present"] = True
    info["name"] = torch.cuda.get_device_name()
    if torch.version.hip is not None:
        arch = getattr(torch.cuda.get_device_properties(0), "gcnArchName", "")
        info["native_target"] = "gfx942" if arch.startswith("gfx942") else (arch.split(":")[0] or "rocm")
    else:
        major, minor = torch.cuda.get_device_capability()
        info["native_target"] = "sm_90a" if (major, minor) == (9, 0) else f"sm_{major}{minor}"
        info["cuda"] = torch.version.cuda
    return info


@contextlib.contextmanager
def config_target(mod: ModuleType, target: str, config: dict | None = None):
    """Make the module's wrapper use `target`'s tile config (or `config` in its place) for a while."""
    old_target = getattr(mod, "_CONFIG_TARGET", None)
    old_cfg = mod.CONFIGS.get(target)
    mod._CONFIG_TARGET = target
    if config is not None:
        mod.CONFIGS[target] = dict(config)
    try:
        yield
    finally:
        mod._CONFIG_TARGET = old_target
        if config is not None:
            if old_cfg is None:
                mod.CONFIGS.pop(target, None)
            else:
                mod.CONFIGS[target] = old_cfg


def tile_multiple(shape: dict, cfg: dict) -> bool:
    """True when every dimension of the shape is a multiple of every block size of the config: such a shape
    cannot catch a missing bounds check (the protocol asks for shapes that are not)."""
    blocks = [v for k, v in cfg.items() if k.startswith("block_") and isinstance(v, int) and v > 1]
    dims = [v for v in shape.values() if isinstance(v, int) and v > 1]
    return bool(blocks) and all(d % b == 0 for d in dims for b in blocks)


def _out_key(case: dict) -> str:
    for key in ("C", "O", "y", "out"):
        if key in case and hasattr(case[key], "data_ptr"):
            return key
    raise KeyError("no output tensor in the case")


# --------------------------------------------------------------------------------------- the original kernel

_CTYPE_DTYPE = {"float": "float32", "__half": "float16", "half": "float16", "__hip_bfloat16": "bfloat16",
                "hip_bfloat16": "bfloat16", "__nv_bfloat16": "bfloat16", "double": "float64"}
_ACT = {"relu": 0, "gelu_tanh": 1, "silu": 2}
_REDUCE_OP = {"sum": 0, "max": 1, "mean": 2}


def original_values(family: str, params: dict, case: dict) -> dict[str, Any]:
    """Values for an original launcher's parameters, by the names the samples use (samples/kernels/*)."""
    s = case["shape"]
    v: dict[str, Any] = {}
    if family in ("gemm", "batched_gemm"):
        v.update(A=case["A"], B=case["B"], C=case["C"], M=s["M"], N=s["N"], K=s["K"],
                 alpha=case.get("alpha", 1.0), beta=case.get("beta", 0.0))
        if family == "batched_gemm":
            v.update(batch=s["batch"], strideA=s["M"] * s["K"], strideB=s["K"] * s["N"], strideC=s["M"] * s["N"])
    elif family == "attention":
        v.update(Q=case["Q"], K=case["K"], V=case["V"], O=case["O"], B=s["batch"], H=s["heads"], Sq=s["seq_q"],
                 Sk=s["seq_kv"], D=case["Q"].shape[-1], scale=case["scale"])
        if s["seq_q"] == s["seq_kv"]:
            v["S"] = s["seq_q"]
    elif family == "elementwise":
        v.update(x=case["x"], bias=case.get("bias"), y=case["y"], M=s["M"], N=s["N"],
                 scale=params.get("scale", 1.0))
        if params.get("activation") in _ACT:
            v["act"] = _ACT[params["activation"]]
    else:
        v.update(x=case["x"], y=case["out"], out=case["out"], M=s["M"], N=s["N"], rows=s["M"], cols=s["N"])
        v["in"] = case["x"]
        if family == "layernorm":
            v.update(gamma=case.get("gamma"), beta=case.get("beta"), eps=params.get("eps", 1e-5))
        elif family == "rmsnorm":
            v.update(gamma=case.get("weight"), weight=case.get("weight"), eps=params.get("eps", 1e-5))
        elif family == "row_reduce" and params.get("op") in _REDUCE_OP:
            v["op"] = _REDUCE_OP[params["op"]]
    return {k: x for k, x in v.items() if x is not None}


def original_args(launcher, family: str, params: dict, case: dict) -> list[Any]:
    """Arguments for `launcher` (porter.original.Launcher); ValueError says why the original cannot take this case."""
    values = original_values(family, params, case)
    args = []
    for ctype, pname in launcher.params:
        if pname not in values:
            raise ValueError(f"no value for launcher parameter '{ctype} {pname}' in a {family} case "
                             f"({case['shape']})")
        val = values[pname]
        if ctype.endswith("*"):
            base = ctype.replace("const", "").replace("*", "").strip()
            want = _CTYPE_DTYPE.get(base)
            have = str(getattr(val, "dtype", "")).replace("torch.", "")
            if want is None or want != have:
                raise ValueError(f"launcher parameter '{ctype} {pname}' does not take a {have} tensor")
        args.append(val)
    return args


def _load_original(path: str):
    from porter import original

    lib = original.load(path)
    launchers = lib._porter_launchers  # type: ignore[attr-defined]
    if len(launchers) != 1:
        raise ValueError(f"{path}: expected one launch_* function, found {len(launchers)}")
    (name, spec), = launchers.items()
    return lib, name, spec


# --------------------------------------------------------------------------------------------------- runner

def run(mod: ModuleType, family: str, params: dict, *, target: str, seeds: int = MIN_SEEDS,
        shapes: list[dict] | None = None, original: str | None = None, device: str = "cuda") -> dict[str, Any]:
    """Check the generated kernel (with `target`'s tile config) and, if given, the original on the same cases."""
    g = gpu()
    if not g["present"]:
        out = {"status": "not run", "reason": "no GPU", "text": NOT_RUN_NO_GPU}
        if original:
            # the generated kernel cannot run here; the original can, on the wave64 CPU emulator
            out["original"] = run_original_emulated(mod, family, params, original, seeds=max(MIN_SEEDS, seeds),
                                                    shapes=list(shapes) if shapes else list(mod.TEST_SHAPES))
        return out
    import torch

    seeds = max(MIN_SEEDS, seeds)
    shapes = list(shapes) if shapes else list(mod.TEST_SHAPES)
    cfg = mod.CONFIGS.get(target, mod.CONFIGS[mod.TARGET])
    out: dict[str, Any] = {"device": g["name"], "config_target": target,
                           "config_name": mod.CONFIG_NAMES.get(target), "config": cfg, "seeds": seeds,
                           "shapes": shapes, "cases": []}
    if g["native_target"] != target:
        out["note"] = (f"{target}'s tile config run on {g['name']} ({g['native_target']}): checks the tile logic, "
                       "not that target's hardware")
    out["tile_multiple_shapes"] = [s for s in shapes if tile_multiple(s, cfg)]
    t0 = time.perf_counter()
    ok = True
    with config_target(mod, target):
        for shape in shapes:
            for seed in range(seeds):
                case = mod.make_case(shape, seed, device)
                try:
                    res = mod.run_kernel(case)
                    torch.cuda.synchronize()
                    good, msg = mod.compare(res, mod.reference(case), case["out_dtype"])
                except Exception as exc:  # a kernel that fails to build or launch fails its case
                    good, msg = False, f"{type(exc).__name__}: {str(exc).strip()[:300]}"
                ok &= bool(good)
                out["cases"].append({"shape": shape, "seed": seed, "ok": bool(good), "detail": msg})
    out["seconds"] = round(time.perf_counter() - t0, 2)
    if not out["cases"]:
        ok = False
    out["status"] = "pass" if ok else "fail"
    passed = sum(c["ok"] for c in out["cases"])
    out["text"] = (f"numerics: {out['status']} ({passed}/{len(out['cases'])} cases, {len(shapes)} shapes x {seeds} "
                   f"seeds, {target} config on {g['name']})")
    if original:
        out["original"] = run_original(mod, family, params, original, seeds=seeds, shapes=shapes, device=device)
    return out


class _CannotRun(Exception):
    """The original cannot run at all (e.g. it does not build): no case is recorded, the section is "not run"."""


def _run_cases(res: dict[str, Any], mod: ModuleType, family: str, params: dict, spec, *, shapes: list[dict],
               seeds: int, device: str, run: Callable[[dict, list], Any],
               errors: tuple[type[BaseException], ...]) -> None:
    """The original on the generated module's cases (fresh tensors, same seeds): `run(case, args)` runs it and
    returns its output tensor; an exception in `errors` fails that case. Fills res["cases"] and res["status"]."""
    ok = True
    for shape in shapes:
        for seed in range(seeds):
            case = mod.make_case(shape, seed, device)
            try:
                args = original_args(spec, family, params, case)
            except ValueError as exc:
                res["cases"].append({"shape": shape, "seed": seed, "ok": None, "detail": f"skipped: {exc}"})
                break
            try:
                good, msg = mod.compare(run(case, args), mod.reference(case), case["out_dtype"])
            except _CannotRun:
                raise
            except errors as exc:
                good, msg = False, f"{type(exc).__name__}: {str(exc)[:300]}"
            ok &= bool(good)
            res["cases"].append({"shape": shape, "seed": seed, "ok": bool(good), "detail": msg})
    ran = [c for c in res["cases"] if c["ok"] is not None]
    res["status"] = "not run" if not ran else ("pass" if ok else "fail")
    if not ran:
        res["reason"] = "no case fits the original's launcher"


def run_original(mod: ModuleType, family: str, params: dict, path: str, *, seeds: int, shapes: list[dict],
                 device: str = "cuda") -> dict[str, Any]:
    """The hipified original on the generated module's cases, built with nvcc (NVIDIA only)."""
    import torch

    from porter.original import BuildError

    res: dict[str, Any] = {"file": path, "cases": []}
    if torch.version.hip is not None:
        res.update(status="not run", reason="the original runs through nvcc on NVIDIA only in porter for now")
        return res
    try:
        lib, name, spec = _load_original(path)
    except (BuildError, ValueError, OSError) as exc:
        res.update(status="not run", reason=f"cannot build the original: {str(exc)[:500]}")
        return res
    from porter.original import call

    def run(case: dict, args: list) -> Any:
        call(lib, name, *args)
        torch.cuda.synchronize()
        return case[_out_key(case)]

    res["launcher"] = spec.signature()
    _run_cases(res, mod, family, params, spec, shapes=shapes, seeds=seeds, device=device, run=run,
               errors=(Exception,))
    res["note"] = "built with nvcc through porter/runtime/hip2cuda.h: warpSize 32, as written for NVIDIA"
    return res


EMULATOR_TIMEOUT = 120.0     # seconds per emulated launch


def _to_numpy(value: Any) -> Any:
    """A CPU tensor as the numpy array the emulator takes (bfloat16, which numpy lacks, as raw 16-bit words)."""
    import torch

    if not isinstance(value, torch.Tensor):
        return value
    if value.dtype == torch.bfloat16:
        return value.contiguous().view(torch.int16).numpy()
    return value.contiguous().numpy()


def _from_numpy(array: Any, like: Any) -> Any:
    import torch

    t = torch.from_numpy(array.copy())
    return t.view(torch.bfloat16) if like.dtype == torch.bfloat16 else t


def run_original_emulated(mod: ModuleType, family: str, params: dict, path: str, *, seeds: int,
                          shapes: list[dict], timeout: float = EMULATOR_TIMEOUT) -> dict[str, Any]:
    """The hipified original's launcher, run as written on the CPU emulator at wave size 64 (gfx942's), on the
    generated module's cases, compared with the module's float64 reference by the module's own tolerances."""
    from porter.emulate import CompileError, EmulationError, run_launcher
    from porter.original import launchers

    res: dict[str, Any] = {"file": path, "runner": "emulator", "wave_size": 64, "cases": [],
                           "note": "run on porter's CPU emulator with 64-lane wavefronts (as gfx942 would run it); "
                                   "the generated kernel itself was not run"}
    try:
        found = launchers(path)
    except (OSError, UnicodeDecodeError) as exc:
        res.update(status="not run", reason=f"cannot read the original: {exc}")
        return res
    if len(found) != 1:
        res.update(status="not run", reason=f"expected one extern \"C\" launch_* function, found {len(found)}")
        return res
    (name, spec), = found.items()

    def run(case: dict, args: list) -> Any:
        out_tensor = case[_out_key(case)]
        out_name = next(p for (_, p), a in zip(spec.params, args) if a is out_tensor)
        try:
            outs = run_launcher(path, name, [_to_numpy(a) for a in args], warp_size=64, timeout=timeout)
        except CompileError as exc:
            raise _CannotRun(f"the emulator cannot build the original: {str(exc)[:500]}") from None
        return _from_numpy(outs[out_name], out_tensor)

    res["launcher"] = spec.signature()
    t0 = time.perf_counter()
    try:
        _run_cases(res, mod, family, params, spec, shapes=shapes, seeds=seeds, device="cpu", run=run,
                   errors=(EmulationError, ValueError, TypeError))
    except _CannotRun as exc:
        res.update(status="not run", reason=str(exc))
    res["seconds"] = round(time.perf_counter() - t0, 2)
    return res
