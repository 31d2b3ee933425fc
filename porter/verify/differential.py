"""The original kernel, as written, against the generated module on the same inputs (issue #12).

The module's ORIGINAL mapping (porter.emulate.launch) says how each of the original kernel's parameters is bound
to a value of the module's case and how the original's host code launches it. verify checks the mapping against
the kernel's signature as porter's frontend reads it from the file, then for every case (the module's shapes x
seeds, fresh tensors from make_case):

- GPU present: the original is built for it (nvcc + porter/hip_for_nvcc/hip2cuda.h on NVIDIA, hipcc on ROCm) and
  launched; the generated kernel runs on a second case drawn from the same seed (identical inputs); every output
  of the generated kernel is compared with the original's. The original is also compared with the module's
  float64 reference, so a disagreement says which side moved.
- no GPU: the original runs on porter's CPU emulator with 64-lane wavefronts (as gfx942 runs it) and its outputs
  are compared with the module's float64 reference. When they disagree the original is run again with 32-lane
  wavefronts: if that run agrees, the original itself is wave64-broken, the report says so and the module is
  judged against the wave32 run.

Every comparison uses the module's own per-dtype tolerances (TOLERANCES: atol, rtol, max|d|/max|ref| bound) and
reports the first differing element: its index and both values.
"""

from __future__ import annotations

import time
from types import ModuleType
from typing import Any, Callable, Sequence

EMULATOR_TIMEOUT = 120.0     # seconds per emulated launch


def spec_of(mod: ModuleType) -> dict | None:
    """The module's validated ORIGINAL mapping, or None when it has none (SpecError when it is malformed)."""
    from porter.emulate.launch import validate

    spec = getattr(mod, "ORIGINAL", None)
    return None if spec is None else validate(spec, f"{getattr(mod, '__file__', 'module')}: ORIGINAL")


def check_against_source(spec: dict, path: str, compiled: Any = None) -> str:
    """The mapping fits the kernel as declared in `path`: porter's frontend reads its parameters, or, where there
    is no libclang (a GPU machine), the compiled kernel's signature (`compiled`: porter.emulate.Param list, names
    from the source text). Returns which of the two was used."""
    from porter.emulate.launch import (SpecError, check_signature, compiled_params, facts_of, frontend_available,
                                       kernel_params)

    if not frontend_available() and compiled is not None:
        check_signature(spec, compiled_params(compiled), path)
        return "the compiled kernel's signature (no libclang here)"
    params = kernel_params(facts_of(path), spec["kernel"])
    if params is None:
        raise SpecError(f"{path}: no __global__ kernel '{spec['kernel'].split('<')[0]}' in the file")
    check_signature(spec, params, path)
    return "porter's frontend (libclang)"


# ------------------------------------------------------------------------------------------------ comparison

def _tolerances(mod: ModuleType, dtype: str) -> tuple[float, float, float]:
    tol = getattr(mod, "TOLERANCES", {}).get(dtype)
    if not tol:
        raise KeyError(f"the module has no TOLERANCES for {dtype}")
    atol, rtol, rel = tol
    return float(atol), float(rtol), float(rel)


def first_difference(name: str, got: Any, want: Any, tol: tuple[float, float, float]) -> dict | None:
    """None when `got` matches `want` within tol (atol + rtol*|want| per element, max|d|/max|want| <= bound, NaN
    only where `want` is NaN); else the first differing element: {"output", "index", "got", "want", "count",
    "total", "detail"}."""
    import numpy as np

    atol, rtol, bound = tol
    g, w = _float64(got), _float64(want)
    if g.shape != w.shape:
        if g.size != w.size:
            return {"output": name, "index": None, "got": None, "want": None, "count": None, "total": int(w.size),
                    "detail": f"{name}: shape {tuple(g.shape)} != {tuple(w.shape)}"}
        g = g.reshape(w.shape)
    with np.errstate(invalid="ignore"):
        d = np.abs(g - w)
        ok = (d <= atol + rtol * np.abs(w)) | (np.isnan(g) & np.isnan(w))
    bad = np.argwhere(~ok)
    finite = np.isfinite(w) & np.isfinite(d)
    scale = float(np.abs(w[np.isfinite(w)]).max()) if np.isfinite(w).any() else 0.0
    worst = float(d[finite].max()) if finite.any() else 0.0
    rel = worst / scale if scale > 0 else worst
    if not len(bad) and rel <= bound:
        return None
    if len(bad):
        ix = tuple(int(i) for i in bad[0])
    else:  # every element within atol/rtol, the norm bound exceeded: point at the largest difference
        ix = tuple(int(i) for i in np.unravel_index(int(np.argmax(np.where(finite, d, 0.0))), w.shape))
    a, b = float(g[ix]), float(w[ix])
    where = ", ".join(map(str, ix))
    return {"output": name, "index": list(ix), "got": a, "want": b, "count": int(len(bad)), "total": int(w.size),
            "detail": f"{name}[{where}]: {a:.6g} vs {b:.6g} (" + (
                f"{len(bad)} of {w.size} elements differ, max|d|/max|ref| {rel:.3g})" if len(bad) else
                f"every element within atol/rtol but max|d|/max|ref| {rel:.3g} > {bound:g})")}


def _float64(t: Any) -> Any:
    """A tensor (any device, any float dtype) or array as a float64 numpy array."""
    import numpy as np

    if hasattr(t, "detach"):
        t = t.detach().to("cpu").double().numpy()
    return np.asarray(t, dtype=np.float64)


def _by_output(result: Any, launch: Any, key_of: dict[str, str], case: dict, what: str) -> dict[str, Any]:
    """A module function's result (one tensor, or a dict by case key) as {output parameter name: tensor}."""
    if isinstance(result, dict):
        by_key = {k: v for k, v in result.items()}
        return {n: by_key[key_of[n]] for n in launch.outputs if key_of[n] in by_key}
    outs = list(launch.outputs)
    if len(outs) == 1:
        return {outs[0]: result}
    main = next((n for n in outs if key_of[n] in ("C", "O", "y", "out")), None)
    if main is None:
        raise ValueError(f"{what} returns one tensor for {len(outs)} outputs ({', '.join(outs)})")
    return {main: result}


def _compare_all(got: dict[str, Any], want: dict[str, Any], tol: tuple[float, float, float]) -> dict | None:
    for name, w in want.items():
        if name not in got:
            return {"output": name, "detail": f"{name}: no such output on the other side", "index": None}
        d = first_difference(name, got[name], w, tol)
        if d:
            return d
    return None


# ---------------------------------------------------------------------------------------------- case loop

def _cases(shapes: list[dict], seeds: int):
    for shape in shapes:
        for seed in range(seeds):
            yield shape, seed


def _start(path: str, spec: dict | None, compiled: Any = None, **extra: Any) -> tuple[dict[str, Any], bool]:
    """The report section and whether the original can be run at all (else the section says why)."""
    from porter.emulate.launch import SpecError

    res: dict[str, Any] = {"file": path, "cases": [], **extra}
    if spec is None:
        res.update(status="not run", reason="the module has no ORIGINAL mapping (it was written by an older "
                                            "`porter convert`): convert the file again")
        return res, False
    res["kernel"] = spec["kernel"]
    try:
        res["signature_from"] = check_against_source(spec, path, compiled)
    except SpecError as exc:
        res.update(status="fail", reason=f"the module's ORIGINAL does not fit the original: {exc}")
        return res, False
    return res, True


def _finish(res: dict[str, Any], t0: float) -> dict[str, Any]:
    ran = [c for c in res["cases"] if c["ok"] is not None]
    res["seconds"] = round(time.perf_counter() - t0, 2)
    if "status" not in res:
        res["status"] = "not run" if not ran else ("pass" if all(c["ok"] for c in ran) else "fail")
    if not ran and "reason" not in res:
        res["reason"] = "no case could be run"
    broken = [c for c in ran if c.get("wave64_broken")]
    if broken:
        res["wave64_broken"] = (f"the original is wave64-broken: its wave64 run disagrees with the module's reference "
                                f"in {len(broken)} of {len(ran)} cases (first: {broken[0]['wave64']}) while its "
                                f"wave32 run agrees; the module was compared with the wave32 run")
    return res


def _numpy(value: Any) -> Any:
    """A CPU tensor as the numpy array the emulator takes (bfloat16, which numpy lacks, as raw 16-bit words)."""
    import torch

    if not isinstance(value, torch.Tensor):
        return value
    if value.dtype == torch.bfloat16:
        return value.contiguous().view(torch.int16).numpy()
    return value.contiguous().numpy()


def _tensor(array: Any, like: Any) -> Any:
    import torch

    t = torch.from_numpy(array.copy()).reshape(like.shape)
    return t.view(torch.bfloat16) if like.dtype == torch.bfloat16 else t


def emulated(mod: ModuleType, path: str, *, seeds: int, shapes: list[dict],
             timeout: float = EMULATOR_TIMEOUT, extra_flags: Sequence[str] = ()) -> dict[str, Any]:
    """No GPU: the original on the wave64 CPU emulator vs the module's float64 reference (wave32 when broken)."""
    from porter.emulate import CompileError, EmulationError
    from porter.emulate.launch import SpecError, bind, emulate

    t0 = time.perf_counter()
    try:
        spec = spec_of(mod)
    except SpecError as exc:
        return _finish({"file": path, "cases": [], "status": "fail", "reason": str(exc)}, t0)
    res, ok = _start(path, spec, runner="emulator", wave_size=64, shapes=shapes,
                     note="the original ran on porter's CPU emulator with 64-lane wavefronts (as gfx942 runs it) "
                          "against the module's float64 reference; the generated kernel itself was not run")
    if not ok:
        return _finish(res, t0)
    key_of = {a["name"]: a.get("key", a["name"]) for a in spec["args"]}

    def run(case: dict, wave: int) -> tuple[Any, dict[str, Any]]:
        launch = bind(spec, {k: _numpy(v) for k, v in case.items()})
        outs = emulate(path, launch, wave, timeout, extra_flags)
        tensors = {n: _tensor(outs[n], case[key_of[n]]) for n in outs}
        return launch, tensors

    for shape, seed in _cases(shapes, seeds):
        case = mod.make_case(shape, seed, "cpu")
        entry: dict[str, Any] = {"shape": shape, "seed": seed}
        try:
            tol = _tolerances(mod, case["out_dtype"])
            launch, got = run(case, 64)
            entry["launch"] = launch.describe()
            want = _by_output(mod.reference(case), launch, key_of, case, "reference")
            diff = _compare_all(got, want, tol)
            if diff is None:
                entry.update(ok=True, detail="original (wave64) = reference")
            else:
                entry["wave64"] = diff["detail"]
                _, got32 = run(mod.make_case(shape, seed, "cpu"), 32)
                diff32 = _compare_all(got32, want, tol)
                if diff32 is None:
                    entry.update(ok=True, wave64_broken=True,
                                 detail=f"wave64 run differs ({diff['detail']}); wave32 run = reference")
                else:
                    entry.update(ok=False, first_difference=diff,
                                 detail=f"original vs reference: {diff['detail']} (the wave32 run differs too: "
                                        f"{diff32['detail']})")
        except CompileError as exc:
            res.update(status="not run", reason=f"the emulator cannot build the original: {str(exc)[:500]}")
            break
        except SpecError as exc:
            entry.update(ok=False, detail=f"the module's ORIGINAL does not fit its case: {exc}")
        except (EmulationError, ValueError, TypeError, KeyError) as exc:
            entry.update(ok=False, detail=f"{type(exc).__name__}: {str(exc)[:300]}")
        res["cases"].append(entry)
    return _finish(res, t0)


def load_original(path: str, kernel: str, extra_flags: Sequence[str] = ()) -> tuple[Any, dict[str, str]]:
    """The original kernel built for the GPU present (porter.verify.gpu_original.Kernel) and how it was built."""
    import torch

    from porter.verify import gpu_original

    if torch.version.hip is not None:
        arch = getattr(torch.cuda.get_device_properties(0), "gcnArchName", "gfx942").split(":")[0]
        return gpu_original.load(path, kernel, arch, hip=True, extra_flags=extra_flags), {"runner": "hipcc", "arch": arch,
                                                             "note": f"built with hipcc for {arch}"}
    major, minor = torch.cuda.get_device_capability()
    arch = f"sm_{major}{minor}"
    return gpu_original.load(path, kernel, arch, extra_flags=extra_flags), {
        "runner": "nvcc", "arch": arch,
        "note": f"built with nvcc for {arch} through porter/hip_for_nvcc/hip2cuda.h: warpSize 32, as written for NVIDIA"}


def on_gpu(mod: ModuleType, path: str, *, seeds: int, shapes: list[dict],
           run_generated: Callable[[dict], Any], extra_flags: Sequence[str] = ()) -> dict[str, Any]:
    """GPU: the original (built for this GPU) and the generated kernel (`run_generated(case)`) on identical cases;
    every generated output against the original's, and the original against the module's reference."""
    import torch

    from porter.verify import gpu_original
    from porter.emulate.launch import SpecError, bind

    t0 = time.perf_counter()
    try:
        spec = spec_of(mod)
    except SpecError as exc:
        return _finish({"file": path, "cases": [], "status": "fail", "reason": str(exc)}, t0)
    if spec is None:
        return _finish(_start(path, spec)[0], t0)
    try:
        kern, how = load_original(path, spec["kernel"], extra_flags)
    except (gpu_original.BuildError, OSError) as exc:
        return _finish({"file": path, "cases": [], "kernel": spec["kernel"], "status": "not run",
                        "reason": f"cannot build the original: {str(exc)[:800]}"}, t0)
    res, ok = _start(path, spec, kern.params, shapes=shapes, **how)
    if not ok:
        return _finish(res, t0)
    res["build_seconds"] = round(time.perf_counter() - t0, 2)
    key_of = {a["name"]: a.get("key", a["name"]) for a in spec["args"]}
    for shape, seed in _cases(shapes, seeds):
        entry: dict[str, Any] = {"shape": shape, "seed": seed}
        try:
            ocase = mod.make_case(shape, seed, "cuda")
            tol = _tolerances(mod, ocase["out_dtype"])
            launch = bind(spec, ocase)
            entry["launch"] = launch.describe()
            kern.launch(launch)
            torch.cuda.synchronize()
            orig = {n: launch.value(n) for n in launch.outputs}
            gcase = mod.make_case(shape, seed, "cuda")
            gen = _by_output(run_generated(gcase), launch, key_of, gcase, "run_kernel")
            torch.cuda.synchronize()
            diff = _compare_all(gen, {n: orig[n] for n in gen}, tol)
            ref = _compare_all(orig, _by_output(mod.reference(ocase), launch, key_of, ocase, "reference"), tol)
            entry["original_vs_reference"] = "agree" if ref is None else ref["detail"]
            if diff is None:
                entry.update(ok=True, detail="generated = original")
            else:
                entry.update(ok=False, first_difference=diff, detail=f"generated vs original: {diff['detail']}")
        except SpecError as exc:
            entry.update(ok=False, detail=f"the module's ORIGINAL does not fit its case: {exc}")
        except Exception as exc:  # a kernel that fails to launch fails its case
            entry.update(ok=False, detail=f"{type(exc).__name__}: {str(exc).strip()[:300]}")
        res["cases"].append(entry)
    return _finish(res, t0)
