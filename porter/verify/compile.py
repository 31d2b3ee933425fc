"""The code-object section of a verify report (the default target unless told another AMD target): lower the
generated kernel to HIP with TileLang, compile it to a real code object (porter.codeobject, toolchain from
porter.toolchain) and read registers, spills, scratch, LDS, occupancy and the instruction mix; optionally the
hipified original the same way, for a side-by-side table.

Errors (spills, LDS over the target's per-workgroup limit, wrong wave size) fail the check; scratch without spills
is a warning (a private array indexed at run time: slow, not wrong).
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Sequence

from porter.targets import DEFAULT_TARGET



def _facts_dict(k) -> dict[str, Any]:
    d = dataclasses.asdict(k)
    d["instructions"]["mfma_kinds"] = dict(k.instructions.mfma_kinds)
    return d


def _classify(problems: list[str]) -> tuple[list[str], list[str]]:
    errors, warnings = [], []
    for p in problems:
        (warnings if "uses scratch" in p else errors).append(p)
    return errors, warnings


def dynamic_lds_bytes(artifact) -> int:
    """TileLang's dynamic shared memory (the `dyn_shared_memory_buf` attribute of the lowered device functions).
    Static shared arrays are counted by the code object itself (group_segment_fixed_size)."""
    dyn = 0
    for _, fn in artifact.device_mod.functions.items():
        if fn.attrs is not None and "dyn_shared_memory_buf" in fn.attrs:
            dyn = max(dyn, int(fn.attrs["dyn_shared_memory_buf"]))
    return dyn


def _primary(kernels) -> Any:
    return max(kernels, key=lambda k: k.instructions.total)


def compile_generated(mod: ModuleType, *, config: dict | None = None, shape: dict | None = None,
                      toolchain=None, target: str = DEFAULT_TARGET) -> dict[str, Any]:
    """Lower `mod` for `target` (its tile config for the target unless `config`) and compile the HIP source."""
    from porter.codeobject import check, compile_text
    from porter.targets import load_target
    from porter.toolchain import ToolchainError, find_toolchain

    key = load_target(target).configs
    cfg = dict(config or mod.CONFIGS.get(key) or {})
    shape = dict(shape or mod.LOWER_SHAPE)
    out: dict[str, Any] = {"target": target, "config": cfg, "config_name": mod.CONFIG_NAMES.get(key),
                           "shape": shape}
    try:
        tc = toolchain or find_toolchain()
    except ToolchainError as exc:
        out.update(status="not run", reason=str(exc).splitlines()[0])
        return out
    t0 = time.perf_counter()
    try:
        artifact = mod.lower(key, shape, cfg)
    except Exception as exc:  # TileLang rejected the kernel for this target: a finding, not a crash
        out.update(status="fail", errors=[f"TileLang lowering for {target} failed: {type(exc).__name__}: "
                                          f"{str(exc).strip().splitlines()[-1] if str(exc).strip() else ''}"])
        return out
    dyn = dynamic_lds_bytes(artifact)
    out["tilelang_shared_memory_bytes"] = int(mod.shared_memory_bytes(artifact))
    out["lower_s"] = round(time.perf_counter() - t0, 3)
    t1 = time.perf_counter()
    try:
        co = compile_text(artifact.kernel_source, name="generated.hip", toolchain=tc, tilelang=True,
                          dyn_lds=dyn, target=target)
    except ToolchainError as exc:
        out.update(status="fail", errors=[f"compiling the lowered HIP source failed: {exc}"])
        return out
    out["compile_s"] = round(time.perf_counter() - t1, 3)
    out["toolchain"] = co.toolchain
    out["kernels"] = [_facts_dict(k) for k in co.kernels]
    if not co.kernels:
        out.update(status="fail", errors=["the code object holds no kernel"])
        return out
    k = _primary(co.kernels)
    out["kernel"] = _facts_dict(k)
    problems = [p for kk in co.kernels for p in check(kk, target=target)]
    errors, warnings = _classify(problems)
    out.update(status="fail" if errors else "ok", errors=errors, warnings=warnings)
    out["_facts"] = k  # for the side-by-side table; dropped from JSON
    return out


def compile_original(path: str | Path, toolchain=None, extra_flags: Sequence[str] = (),
                     target: str = DEFAULT_TARGET) -> dict[str, Any]:
    """The hipified original as hipify leaves it (hip_runtime.h forced in, as hipcc does)."""
    from porter.codeobject import check, compile_hipified
    from porter.toolchain import ToolchainError, find_toolchain

    out: dict[str, Any] = {"target": target, "file": str(path)}
    try:
        tc = toolchain or find_toolchain()
    except ToolchainError as exc:
        out.update(status="not run", reason=str(exc).splitlines()[0])
        return out
    try:
        co = compile_hipified(path, toolchain=tc, target=target, extra_flags=extra_flags)
    except ToolchainError as exc:
        out.update(status="fail", errors=[str(exc)])
        return out
    out["kernels"] = [_facts_dict(k) for k in co.kernels]
    if not co.kernels:
        out.update(status="fail", errors=["the code object holds no kernel"])
        return out
    k = _primary(co.kernels)
    out["kernel"] = _facts_dict(k)
    errors, warnings = _classify([p for kk in co.kernels for p in check(kk, target=target)])
    out.update(status="fail" if errors else "ok", errors=errors, warnings=warnings)
    out["_facts"] = k
    return out


def side_by_side(generated: dict, original: dict | None) -> str:
    from porter.codeobject import format_table

    cols = []
    if original and "_facts" in original:
        cols.append(("original (hipified)", original["_facts"]))
    if "_facts" in generated:
        cols.append(("generated (TileLang)", generated["_facts"]))
    return format_table(cols) if cols else ""
