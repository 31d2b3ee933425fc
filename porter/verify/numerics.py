"""Numerics on the GPU present (DESIGN.md "Verification, stated once"; FACTS.md section 7).

The generated module supplies the protocol's pieces: make_case (NaN-prefilled outputs, seeded data that is never
zeros), TEST_SHAPES (not multiples of any tile), reference (float64) and compare (per-dtype atol/rtol plus
max|d|/max|ref|). This module runs them for >= 5 seeds, on NVIDIA through TileLang's CUDA target or on gfx942
through a ROCm build of torch. With --original, porter.verify.differential runs the original kernel itself on
the same inputs and compares the generated kernel with it (the reference is then the second check).

Without a GPU nothing here passes: the section says exactly "numerics: not run (no GPU)". The original kernel
still runs there, on porter's CPU emulator with 64-lane wavefronts (porter.emulate), against the module's
reference: that checks the conversion (family, parameters, reference) and shows wave64 bugs of the original, but
says nothing about the generated kernel.
"""

from __future__ import annotations

import contextlib
import time
from types import ModuleType
from typing import Any, Sequence

MIN_SEEDS = 5
NOT_RUN_NO_GPU = "numerics: not run (no GPU)"


def gpu() -> dict[str, Any]:
    """{"present": bool, "name", "native_target" (the tile-config key of the GPU's target: "sm_90a" on an H100/H200,
    "gfx942" on MI300X; the bare arch when no target file describes it), "torch"}."""
    from porter.targets import target_for_arch

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
        arch = getattr(torch.cuda.get_device_properties(0), "gcnArchName", "").split(":")[0] or "rocm"
    else:
        major, minor = torch.cuda.get_device_capability()
        arch = "sm_90a" if (major, minor) == (9, 0) else f"sm_{major}{minor}"
        info["cuda"] = torch.version.cuda
    known = target_for_arch(arch)
    info["native_target"] = known.configs if known else arch
    info["arch"] = arch
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


# --------------------------------------------------------------------------------------------------- runner

def run(mod: ModuleType, family: str, params: dict, *, target: str, seeds: int = MIN_SEEDS,
        shapes: list[dict] | None = None, original: str | None = None, device: str = "cuda",
        original_flags: Sequence[str] = ()) -> dict[str, Any]:
    """Check the generated kernel (with `target`'s tile config) and, if given, the original on the same cases
    (built with `original_flags`, its project's -I/-D flags)."""
    g = gpu()
    if not g["present"]:
        out = {"status": "not run", "reason": "no GPU", "text": NOT_RUN_NO_GPU}
        if original:
            # the generated kernel cannot run here; the original can, on the wave64 CPU emulator
            from porter.verify.differential import emulated
            out["original"] = emulated(mod, original, seeds=max(MIN_SEEDS, seeds),
                                       shapes=list(shapes) if shapes else list(mod.TEST_SHAPES),
                                       extra_flags=original_flags)
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
        if original:
            from porter.verify.differential import on_gpu
            out["original"] = on_gpu(mod, original, seeds=seeds, shapes=shapes, run_generated=mod.run_kernel,
                                     extra_flags=original_flags)
    out["seconds"] = round(time.perf_counter() - t0, 2)
    if not out["cases"]:
        ok = False
    out["status"] = "pass" if ok else "fail"
    passed = sum(c["ok"] for c in out["cases"])
    out["text"] = (f"numerics: {out['status']} ({passed}/{len(out['cases'])} cases against the module's reference, "
                   f"{len(shapes)} shapes x {seeds} seeds, {target} config on {g['name']})")
    return out


