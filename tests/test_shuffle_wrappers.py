"""A call of a project's shuffle wrapper (THC's WARP_SHFL_XOR in a header on -I) is judged as the shuffle the
wrapper's body makes, at the call, with the wrapper's defaults (frontend._through_wrapper)."""

from __future__ import annotations

from pathlib import Path

from porter.analysis import Options, analyze

WRAPPER = """#pragma once
template <typename T>
__device__ __forceinline__ T WARP_SHFL_XOR(T value, int laneMask, int width = warpSize,
                                           unsigned int mask = 0xffffffff) {
#if defined(USE_ROCM)
  return __shfl_xor(value, laneMask, width);
#else
  return __shfl_xor_sync(mask, value, laneMask, width);
#endif
}
"""
KERNEL = """#include <hip/hip_runtime.h>
#include "device_utils.cuh"
__global__ void k(const float* x, float* y) {
  float v = x[threadIdx.x];
  for (int o = 16; o > 0; o >>= 1) v += WARP_SHFL_XOR(v, o, 32);
  if (threadIdx.x % 32 == 0) y[threadIdx.x / 32] = v;
}
"""


def _findings(tmp_path: Path, *defines: str) -> list[tuple[str, int]]:
    (tmp_path / "include").mkdir()
    (tmp_path / "src").mkdir()
    (tmp_path / "include" / "device_utils.cuh").write_text(WRAPPER)
    (tmp_path / "src" / "k.cu").write_text(KERNEL)
    report = analyze([str(tmp_path / "src")], Options(include_dirs=(str(tmp_path / "include"),), defines=defines,
                                                      select=("W64",)))
    return [(f.rule_id, f.line) for f in report.findings]


def test_the_default_mask_reaches_the_sync_intrinsic_at_the_call(tmp_path: Path) -> None:
    """Without USE_ROCM the wrapper passes its default 0xffffffff to __shfl_xor_sync: reported at the call."""
    assert _findings(tmp_path) == [("W64-003", 5)]


def test_on_rocm_the_wrapper_passes_no_mask(tmp_path: Path) -> None:
    """With USE_ROCM it calls the mask-less __shfl_xor with the width given (32): nothing to report."""
    assert _findings(tmp_path, "USE_ROCM") == []
