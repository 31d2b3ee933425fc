"""One Target per porter/targets/*.toml, used by every stage: the analyzer's choices, the emulator's and
--confirm's launch limits, the code-object compiler's arch and occupancy, the toolchain's device libraries."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from porter import families
from porter import codeobject as co
from porter import toolchain as tc
from porter.targets import Occupancy, Target, amd_targets, known_targets, load_target

ROOT = Path(__file__).resolve().parent.parent
REDUCE = ROOT / "tests" / "data" / "toolchain" / "reduce_sum.hip"


def test_every_target_file_loads_with_every_field() -> None:
    for name in known_targets():
        t = load_target(name)
        assert t.name == name and t.wave_size in (32, 64) and t.max_threads_per_block > 0
        assert 0 < t.lds_bytes_per_workgroup <= t.lds_bytes_per_cu
        assert t.parse_arch and t.toolchain_arch and t.configs
        if t.is_amd:   # the code-object stage needs them for every AMD target
            assert isinstance(t.occupancy, Occupancy) and t.toolchain_arch.startswith("gfx")
    assert {"gfx942", "gfx950", "gfx1100", "sm_90"} <= set(known_targets())
    assert load_target("gfx1100").wave_size == 32 and load_target("gfx950").wave_size == 64


def test_command_line_target_choices_are_the_target_files() -> None:
    # every stage takes a target by its name (convert maps it to its tile-config key)
    from porter.cli.analyze import analyze
    from porter.cli.convert import convert
    from porter.cli.verify import verify
    for command in (analyze, convert):
        option = next(p for p in command.params if p.name == "target")
        assert list(option.type.choices) == known_targets(), command.name
    option = next(p for p in verify.params if p.name == "target")
    assert list(option.type.choices) == ["auto", *known_targets()]
    option = next(p for p in verify.params if p.name == "compile_for")
    assert list(option.type.choices) == [t.name for t in amd_targets()]


def test_occupancy_of_a_wave32_target_uses_its_register_file() -> None:
    # gfx1100 (wave32): 1536 VGPRs per lane allocated in granules of 24 (LLVM's FeatureGFX11FullVGPRs), 16 wave
    # slots per SIMD: 96 VGPRs still give 16 waves, 97 round up to 120 and give 12
    rdna3 = load_target("gfx1100")
    assert co.occupancy(96, 0, 256, rdna3) == (16, "max-waves")
    assert co.occupancy(97, 0, 256, rdna3) == (12, "vgprs")
    assert co.occupancy(97, 0, 256, load_target("gfx942"))[0] == 4     # 512 // 104
    with pytest.raises(ValueError, match="sm_90 has no"):
        co.occupancy(32, 0, 256, load_target("sm_90"))


def test_isa_versions_of_derived_device_libraries() -> None:
    assert [tc.isa_version(a) for a in ("gfx940", "gfx942", "gfx90a", "gfx1030", "gfx1100")] == \
        [9400, 9402, 9010, 10300, 11000]
    assert ("gfx1100", "gfx1030") in tc.derived_device_libs() and ("gfx942", "gfx940") in tc.derived_device_libs()


@pytest.fixture(scope="module")
def toolchain() -> tc.Toolchain:
    tc.setup()                  # derives the device library of every AMD target (a no-op when present)
    return tc.find_toolchain()


@pytest.mark.toolchain
@pytest.mark.parametrize("target", [t.name for t in amd_targets()])
def test_every_amd_target_compiles_or_says_why_not(target: str, toolchain: tc.Toolchain) -> None:
    t = load_target(target)
    caps = {c.name: c for c in tc.status(probe_nvidia=False).capabilities}
    if t.toolchain_arch not in tc.supported_archs(toolchain):
        # gfx950 needs LLVM 20+: the porter toolchain (clang 19) refuses it by name, and status says so
        assert not caps[f"compile-{t.toolchain_arch}"].available
        with pytest.raises(tc.ToolchainError, match=f"cannot generate {t.toolchain_arch} code"):
            co.compile_hipified(REDUCE, toolchain=toolchain, target=target)
        return
    assert caps[f"compile-{t.toolchain_arch}"].available
    obj = co.compile_hipified(REDUCE, toolchain=toolchain, target=target)
    (k,) = obj.kernels
    assert f"--offload-arch={t.toolchain_arch}" in obj.command
    assert k.arch == target and k.wavefront_size == t.wave_size     # gfx1100 code objects are wave32
    assert k.static_lds_bytes == 256 * 4 and co.check(k) == []
    assert 1 <= k.occupancy <= t.occupancy.max_waves_per_simd


@pytest.mark.slow
def test_emulator_enforces_and_reports_the_emulated_targets_limits(tmp_path: Path) -> None:
    from porter.emulate import EMULATED_TARGET, KernelCrash, run_kernel
    t = load_target(EMULATED_TARGET)
    src = tmp_path / "props.hip"
    src.write_text("#include <hip/hip_runtime.h>\n"
                   "__global__ void props(int* out) {\n"
                   "  if (threadIdx.x == 0) { out[0] = blockDim.x; }\n"
                   "}\n")
    out = run_kernel(src, "props", 1, t.max_threads_per_block, [np.zeros(1, np.int32)])
    assert out["out"][0] == t.max_threads_per_block
    with pytest.raises(KernelCrash, match=f"must be 1..{t.max_threads_per_block} on {t.name}"):
        run_kernel(src, "props", 1, t.max_threads_per_block + 1, [np.zeros(1, np.int32)])
    with pytest.raises(KernelCrash, match=f"{t.name}'s {t.lds_bytes_per_workgroup // 1024} KiB"):
        run_kernel(src, "props", 1, 64, [np.zeros(1, np.int32)], shared_bytes=t.lds_bytes_per_workgroup + 4)


def test_confirm_refuses_blocks_over_the_emulated_limit() -> None:
    from porter.confirm import Trial, run_target
    from porter.emulate import EMULATED_TARGET
    limit = load_target(EMULATED_TARGET).max_threads_per_block
    out = run_target(str(REDUCE), Trial("reduce_sum", (limit, 2, 1), "the launch at line 1"))
    assert (out.status, out.text) == ("not run", f"block {limit},2,1 (the launch at line 1) has more than {limit} "
                                                 "threads")


def test_target_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        load_target("gfx942").wave_size = 32    # type: ignore[misc]
    assert isinstance(load_target("gfx942"), Target)


def _converted(sample: str, target: str, tmp_path: Path):
    """`porter convert SAMPLE --target TARGET`, imported."""
    import importlib.util
    import sys

    from click.testing import CliRunner

    from porter.cli import main
    res = CliRunner().invoke(main, ["convert", str(families.sample(sample)), "--target", target,
                                    "-o", str(tmp_path)])
    assert res.exit_code == 0, res.output
    (path,) = tmp_path.glob("*.py")
    spec = importlib.util.spec_from_file_location(f"porter_generated_{path.stem}_{target}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module      # T.prim_func reads the source file through the module
    spec.loader.exec_module(module)
    return module


@pytest.mark.toolchain
@pytest.mark.slow
@pytest.mark.parametrize("target", [t.name for t in amd_targets()])
@pytest.mark.parametrize("sample", ["softmax/softmax_block.hip", "gemm/gemm_f16_tiled.hip"])
def test_every_amd_target_converts_and_compiles(sample: str, target: str, toolchain: tc.Toolchain,
                                                tmp_path: Path) -> None:
    from porter.verify.compile import compile_generated
    t = load_target(target)
    module = _converted(sample, target, tmp_path)
    assert module.TARGET == t.configs and module.ARCH_CONFIGS[t.toolchain_arch] == t.configs
    rep = compile_generated(module, target=target, toolchain=toolchain)
    assert rep["target"] == target and rep["config"] == module.CONFIGS[t.configs]
    if t.toolchain_arch not in tc.supported_archs(toolchain):
        assert rep["status"] == "fail" and f"cannot generate {t.toolchain_arch} code" in rep["errors"][0], rep
        return
    assert rep["status"] == "ok", rep
    assert rep["kernel"]["wavefront_size"] == t.wave_size and rep["kernel"]["arch"] == target
    if "gemm" in sample:   # matrix instructions of the target's family: MFMA on CDNA, WMMA on RDNA3
        assert rep["kernel"]["instructions"]["mfma"] > 0, rep["kernel"]["instructions"]
