"""A macro given on the command line (-D NAME=body) counts as one #defined in the file: porter's build flags
say what the project's build says (vLLM's ROCm build got WARP_SIZE = warpSize from a header it did not ship)."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter.analysis import Request, analyze_one
from porter.frontend_config import make_config

HEADER = """#pragma once
#include "compat.h"   // not there: its WARP_SIZE comes from the command line
template <typename T, int lanes = WARP_SIZE>
__device__ T warp_sum(T v) {
  static_assert(lanes <= WARP_SIZE, "wider than a wavefront");
  for (int m = lanes >> 1; m > 0; m >>= 1) v += __shfl_xor(v, m);
  return v;
}
__device__ inline int lane_of(int t) { return t % WARP_SIZE; }
"""


def _w64_010(tmp_path: Path, define: str) -> list[tuple[int, str]]:
    path = tmp_path / "reduce.cuh"
    path.write_text(HEADER)
    result = analyze_one(Request(path=str(path), config=make_config(target="gfx942", defines=[define]),
                                 target="gfx942", dump_facts=True))
    assert not result.error, result.error
    return sorted((f.line, f.path) for f in result.findings if f.rule_id == "W64-010")


@pytest.mark.parametrize("define", ["WARP_SIZE=warpSize", "WARP_SIZE=(warpSize)"])
def test_a_command_line_width_macro_is_read_as_its_definition(tmp_path: Path, define: str) -> None:
    got = _w64_010(tmp_path, define)
    # the template's default and its static_assert; not the run-time use, and no definition line to report
    assert got == [(3, str(tmp_path / "reduce.cuh")), (5, str(tmp_path / "reduce.cuh"))]


def test_a_command_line_literal_width_is_a_constant(tmp_path: Path) -> None:
    assert _w64_010(tmp_path, "WARP_SIZE=64") == []
