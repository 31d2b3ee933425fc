"""A default-width broadcast of a value that every 32-lane group holds alike (a block reduction's second stage
read at a 32-lane id and combined by xor shuffles) is correct on a 64-lane wavefront (wave64._group_copies)."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.analysis import Options, analyze

# A template helper over the number of groups, with mask-passing macros: the shape of FasterTransformer-derived
# attention utilities. {load} is the second stage's read of the per-group sums.
HELPER = """#include <hip/hip_runtime.h>
#define XOR(v, m) __shfl_xor_sync(uint32_t(-1), v, m)
#define BCAST(v, l) __shfl_sync(uint32_t(-1), v, l)
template <int NG>
__device__ float group_block_sum(float* red, float s) {
  int g = threadIdx.x >> 5;
  int l = threadIdx.x & 0x1f;
  for (int m = 16; m > 0; m >>= 1) s += XOR(s, m);
  if (l == 0) red[g] = s;
  __syncthreads();
  if ({load} < NG) s = red[{load}];
  for (int m = NG >> 1; m > 0; m >>= 1) s += XOR(s, m);
  return BCAST(s, 0);
}
__global__ void sums(const float* x, float* y) {
  __shared__ float red[4];
  y[threadIdx.x] = group_block_sum<4>(red, x[threadIdx.x]);
}
"""


def _findings(tmp_path: Path, load: str) -> list[tuple[str, int]]:
    src = tmp_path / "k.hip"
    src.write_text(HELPER.replace("{load}", load))
    report = analyze([str(src)], Options(select=("W64",)))
    return sorted((f.rule_id, f.line) for f in report.findings)


def test_a_broadcast_of_group_equal_sums_keeps_only_the_mask_findings(tmp_path: Path) -> None:
    """Every group reads red[l] with l = tid & 31: the broadcast of lane 0 is right; the 32-bit masks are not."""
    assert _findings(tmp_path, "l") == [("W64-003", 8), ("W64-003", 12), ("W64-003", 13)]


@pytest.mark.parametrize("load", ["threadIdx.x", "(g * 4 + l)"])
def test_a_broadcast_of_sums_that_differ_between_groups_is_reported(tmp_path: Path, load: str) -> None:
    """Read at the thread id, or at a per-group slot, the groups hold different sums: lanes 32-63 get lane 0's."""
    found = _findings(tmp_path, load)
    assert ("W64-007", 13) in found and ("W64-001", 13) in found
