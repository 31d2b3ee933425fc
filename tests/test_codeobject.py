"""Real gfx942 code objects: a hipified reduction and a TileLang GEMM, compiled and read back."""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from porter import codeobject as co
from porter import toolchain as tc
from porter.cli import main
from porter.targets import load_target

pytestmark = pytest.mark.toolchain

DATA = Path(__file__).parent / "data" / "toolchain"
REDUCE_STATIC_LDS = 256 * 4     # reduce_sum.hip: __shared__ float partial[BLOCK], BLOCK = 256


@pytest.fixture(scope="module")
def toolchain() -> tc.Toolchain:
    tc.setup()                  # a no-op after `porter toolchain setup`
    return tc.find_toolchain()


@pytest.fixture(scope="module")
def reduce_obj(toolchain: tc.Toolchain) -> co.CodeObject:
    return co.compile_hipified(DATA / "reduce_sum.hip", toolchain=toolchain)


@pytest.fixture(scope="module")
def tilelang_gemm(toolchain: tc.Toolchain, tmp_path_factory: pytest.TempPathFactory) -> tuple[co.CodeObject, int]:
    sys.path.insert(0, str(DATA))
    try:
        import tl_gemm
        source, dyn_lds = tl_gemm.lower_for_gfx942()
    finally:
        sys.path.remove(str(DATA))
    path = tmp_path_factory.mktemp("tl") / "gemm.hip"
    path.write_text(source)
    return co.compile_hip(path, toolchain=toolchain, dyn_lds=dyn_lds), dyn_lds


def test_hipified_reduction_facts(reduce_obj: co.CodeObject) -> None:
    (k,) = reduce_obj.kernels
    assert k.name.startswith("reduce_sum(") and k.symbol.startswith("_Z")
    assert k.wavefront_size == 64
    assert k.max_workgroup_size == 256          # __launch_bounds__(BLOCK)
    assert k.vgpr_count > 0 and k.sgprs > 0 and k.agprs == 0
    assert k.vgpr_spills == 0 and k.sgpr_spills == 0 and k.scratch_bytes == 0
    assert k.static_lds_bytes == REDUCE_STATIC_LDS and k.lds_bytes == REDUCE_STATIC_LDS
    mix = k.instructions
    assert mix.ds_write_other > 0 and mix.ds_read_other > 0
    assert mix.global_loads_b128 == 1           # the float4 load
    assert mix.barriers > 0 and mix.mfma == 0 and mix.scratch == 0
    assert co.check(k) == []


def test_occupancy_agrees_with_the_compiler(reduce_obj: co.CodeObject,
                                             tilelang_gemm: tuple[co.CodeObject, int]) -> None:
    # with no dynamic LDS porter's model must give clang's own number
    (k,) = reduce_obj.kernels
    assert k.occupancy == k.compiler_occupancy == 8
    gemm = tilelang_gemm[0].kernels[0]
    again, _ = co.occupancy(gemm.vgpr_count, gemm.static_lds_bytes, gemm.max_workgroup_size, load_target("gfx942"))
    assert again == gemm.compiler_occupancy


def test_dynamic_lds_limits_occupancy_and_is_checked(toolchain: tc.Toolchain) -> None:
    obj = co.compile_hipified(DATA / "reduce_sum.hip", toolchain=toolchain, dyn_lds=31 * 1024)
    (k,) = obj.kernels
    assert k.lds_bytes == REDUCE_STATIC_LDS + 31 * 1024
    # 2 workgroups of 4 waves fit in 64 KiB: 8 waves over 4 SIMDs
    assert (k.occupancy, k.occupancy_limit) == (2, "lds")
    problems = co.check(k, dyn_lds=64 * 1024)
    assert len(problems) == 1 and "LDS" in problems[0] and "65536" in problems[0]
    big = co.compile_hipified(DATA / "reduce_sum.hip", toolchain=toolchain, dyn_lds=64 * 1024).kernels[0]
    assert (big.occupancy, big.occupancy_limit) == (0, "lds-overflow")


def test_scratch_is_reported(toolchain: tc.Toolchain) -> None:
    (k,) = co.compile_hip(DATA / "scratch_array.hip", toolchain=toolchain).kernels
    assert k.scratch_bytes > 0 and k.instructions.scratch > 0
    problems = co.check(k)
    assert any("scratch" in p for p in problems)


def test_compile_error_carries_the_diagnostic(toolchain: tc.Toolchain) -> None:
    with pytest.raises(co.CompileError, match="not_declared"):
        co.compile_hipified(DATA / "broken.hip", toolchain=toolchain)


def test_tilelang_gemm_uses_mfma_without_spills(tilelang_gemm: tuple[co.CodeObject, int]) -> None:
    obj, dyn_lds = tilelang_gemm
    (k,) = obj.kernels
    assert "-I" in obj.command       # TileLang's template headers were found automatically
    assert k.name == "main_kernel" and k.wavefront_size == 64
    assert dyn_lds == (128 * 32 + 32 * 128) * 2     # A and B tiles in fp16, single-buffered on HIP
    assert k.dynamic_lds_bytes == dyn_lds and k.static_lds_bytes == 0
    assert k.instructions.mfma > 0
    assert all(name.startswith("v_mfma_f32_") and name.endswith("_f16") for name, _ in k.instructions.mfma_kinds)
    assert k.agprs > 0 and k.vgpr_count >= k.vgprs + k.agprs
    assert k.vgpr_spills == 0 and k.sgpr_spills == 0 and k.scratch_bytes == 0 and k.instructions.scratch == 0
    assert k.instructions.ds_write_b128 > 0
    assert co.check(k) == []


def test_facts_are_json(reduce_obj: co.CodeObject, tilelang_gemm: tuple[co.CodeObject, int]) -> None:
    for obj in (reduce_obj, tilelang_gemm[0]):
        data = json.loads(json.dumps(dataclasses.asdict(obj)))
        assert data["kernels"][0]["instructions"]["total"] > 0
    with pytest.raises(dataclasses.FrozenInstanceError):
        reduce_obj.kernels[0].vgprs = 1     # type: ignore[misc]


def test_side_by_side(reduce_obj: co.CodeObject, tilelang_gemm: tuple[co.CodeObject, int]) -> None:
    table = co.format_table([("original", reduce_obj.kernels[0]), ("tilelang", tilelang_gemm[0].kernels[0])])
    lines = table.splitlines()
    assert "original" in lines[0] and "tilelang" in lines[0]
    assert any(line.startswith("MFMA") and " 0 " in line for line in lines)


def test_parsers_on_known_text() -> None:
    remarks = ("k.hip:1:1: remark: Function Name: f [-Rpass-analysis=kernel-resource-usage]\n"
               "k.hip:1:1: remark:     VGPRs: 38 [-Rpass-analysis=kernel-resource-usage]\n"
               "k.hip:1:1: remark:     Occupancy [waves/SIMD]: 3 [-Rpass-analysis=kernel-resource-usage]\n"
               "k.hip:1:1: remark:     LDS Size [bytes/block]: 0 [-Rpass-analysis=kernel-resource-usage]\n")
    assert co.parse_remarks(remarks) == {"f": {"VGPRs": "38", "Occupancy [waves/SIMD]": "3",
                                               "LDS Size [bytes/block]": "0"}}
    notes = ("amdhsa.kernels:\n  - .agpr_count:     4\n    .args:\n      - .offset: 0\n        .size: 8\n"
             "    .name:           f\n    .vgpr_count:     44\namdhsa.target:   amdgcn-amd-amdhsa--gfx942\n")
    assert co.parse_notes(notes) == [{"agpr_count": "4", "args": "", "name": "f", "vgpr_count": "44"}]


def test_cli_facts_exit_codes(toolchain: tc.Toolchain) -> None:
    runner = CliRunner()
    res = runner.invoke(main, ["toolchain", "facts", "--hipified", str(DATA / "reduce_sum.hip")])
    assert res.exit_code == 0, res.output
    assert "reduce_sum" in res.output and "waves/SIMD" in res.output
    res = runner.invoke(main, ["toolchain", "facts", "--format", "json", str(DATA / "scratch_array.hip")])
    assert res.exit_code == 1
    assert json.loads(res.output)["problems"]
    res = runner.invoke(main, ["toolchain", "facts", "--hipified", str(DATA / "broken.hip")])
    assert res.exit_code == 2 and "not_declared" in res.output and "Traceback" not in res.output
