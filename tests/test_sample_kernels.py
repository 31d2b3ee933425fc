"""porter/families/<family>/samples/: the hipified convert inputs. Each parses with porter's front end, holds one
kernel and its `extern "C"` launcher, and (where nvcc exists) compiles unchanged with nvcc through
porter/hip_for_nvcc/hip2cuda.h, in the shim porter.verify.gpu_original generates to launch the kernel itself."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from porter import families
from porter.verify import gpu_original
from porter.frontend import analyze_file
from porter.frontend_config import make_config

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = families.samples()
IDS = [families.sample_ref(p) for p in SAMPLES]

NVCC = gpu_original.find_nvcc()
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc not found (PATH, $NVCC, $CUDA_HOME/bin): the nvcc build "
                                "of the original kernels cannot be checked on this machine")


def _launchers(path: Path) -> list[str]:
    return re.findall(r'extern\s+"C"\s+int\s+(launch_\w+)\s*\(', path.read_text())


def _spelling(path: Path) -> str:
    """The kernel as its launcher launches it first (`k` or `k<args>`): what porter.verify.gpu_original builds."""
    facts = analyze_file(path, make_config(target="gfx942"))
    launch = facts.launches[0]
    return f"{launch.kernel}<{', '.join(launch.template_args)}>" if launch.template_args else launch.kernel


def test_every_family_has_a_naive_and_an_optimized_sample() -> None:
    for fam in families.FAMILIES:
        files = [p.name for p in families.samples(fam)]
        assert len(files) >= 2, f"{fam}: want a naive and a shared-memory variant, have {files}"
        assert any("naive" in f for f in files), f"{fam}: no naive variant in {files}"
        assert any("naive" not in f for f in files), f"{fam}: no optimized variant in {files}"


@pytest.mark.parametrize("path", SAMPLES, ids=IDS)
def test_sample_parses_with_one_kernel_and_its_launcher(path: Path) -> None:
    facts = analyze_file(path, make_config(target="gfx942"))
    errors = [f"{d.loc}: {d.severity}: {d.message}" for d in facts.diagnostics if d.severity in ("error", "fatal")]
    assert not errors, "front-end errors:\n" + "\n".join(errors)
    kernels = sorted({f.name for f in facts.functions if f.kind == "kernel"})
    assert len(kernels) == 1, f"want exactly one __global__ kernel, found {kernels}"
    kernel = kernels[0]
    text = path.read_text()
    assert text.startswith('#include "hip/hip_runtime.h"'), "hipified files start with the hip_runtime include"
    assert f'extern "C" int launch_{kernel}(' in text
    hosts = [f.name for f in facts.functions if f.kind == "host"]
    assert hosts == [f"launch_{kernel}"], f"want the one host launcher launch_{kernel}, found {hosts}"
    assert [lc.kernel for lc in facts.launches] and {lc.kernel for lc in facts.launches} == {kernel}
    assert all(lc.caller.startswith(f"launch_{kernel}") for lc in facts.launches)
    assert _launchers(path) == [f"launch_{kernel}"]


@pytest.mark.parametrize("path", SAMPLES, ids=IDS)
def test_header_comment_states_semantics_and_launcher(path: Path) -> None:
    head = "\n".join(ln for ln in path.read_text().splitlines()[:12] if ln.startswith("//"))
    (launcher,) = _launchers(path)
    assert f"Launcher: int {launcher}(" in head, "the header comment must give the launcher's signature"
    assert path.parent.parent.name in head.split(":")[0], "the header comment must open with the family name"


def test_shim_includes_the_file_unchanged_and_launches_the_kernel() -> None:
    path = families.sample("row_reduce/row_reduce_naive.hip")
    text = gpu_original.shim_source(path, "row_reduce_naive<1>")
    assert text.startswith(f'#include "{path.resolve()}"\n')
    assert "k<<<g, b, shmem>>>" in text and "::porter::entry(&row_reduce_naive<1>, a, n, cfg, shmem)" in text
    assert "porter_entry.h" in text and "cudaGetLastError()" in text
    assert "hipGetLastError()" in gpu_original.shim_source(path, "row_reduce_naive<1>", hip=True)
    for bad in ("k; system(\"x\")", "k<1>(); int y", "k\n#include <x>"):
        with pytest.raises(gpu_original.BuildError, match="not a kernel spelling"):
            gpu_original.shim_source(path, bad)


def test_original_does_not_import_torch() -> None:
    code = "import sys, porter.verify.gpu_original; assert 'torch' not in sys.modules, 'porter.verify.gpu_original imported torch'"
    subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)


def test_hip_include_redirects_to_the_mapping_header() -> None:
    runtime = ROOT / "porter" / "hip_for_nvcc"
    assert (runtime / "hip2cuda.h").is_file()
    for name in ("hip_runtime.h", "hip_fp16.h", "hip_bf16.h"):
        assert '#include "../hip2cuda.h"' in (runtime / "hip" / name).read_text()


def test_build_without_nvcc_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gpu_original, "find_nvcc", lambda: None)
    with pytest.raises(gpu_original.BuildError, match="nvcc not found"):
        gpu_original.build(SAMPLES[0], "k")


# ---------------------------------------------------------------------------------------------------- nvcc builds

@pytest.fixture(scope="module")
def nvcc_builds(tmp_path_factory: pytest.TempPathFactory) -> dict[Path, Path | Exception]:
    """Build every sample once, in parallel, into a fresh cache (so a stale cache cannot hide a broken build)."""
    cache = tmp_path_factory.mktemp("original-cache")
    old = os.environ.get("PORTER_ORIGINAL_CACHE")
    os.environ["PORTER_ORIGINAL_CACHE"] = str(cache)

    # libclang runs here, one file at a time: porter's frontend keeps per-process state (its pool uses processes)
    spellings = {p: _spelling(p) for p in SAMPLES}

    def one(p: Path) -> Path | Exception:
        try:
            return gpu_original.build(p, spellings[p], "sm_90a")
        except gpu_original.BuildError as exc:
            return exc

    try:
        with ThreadPoolExecutor(max_workers=max(2, min(8, os.cpu_count() or 2))) as pool:
            return dict(zip(SAMPLES, pool.map(one, SAMPLES)))
    finally:
        if old is None:
            os.environ.pop("PORTER_ORIGINAL_CACHE", None)
        else:
            os.environ["PORTER_ORIGINAL_CACHE"] = old


@needs_nvcc
@pytest.mark.parametrize("path", SAMPLES, ids=IDS)
def test_sample_compiles_with_nvcc_through_the_header(path: Path, nvcc_builds: dict) -> None:
    built = nvcc_builds[path]
    assert not isinstance(built, Exception), str(built)
    assert built.is_file() and built.stat().st_size > 0
    nm = subprocess.run(["nm", "-D", "--defined-only", str(built)], capture_output=True, text=True)
    if nm.returncode == 0:
        assert " T porter_entry" in nm.stdout and " T porter_signature" in nm.stdout, built.name


@needs_nvcc
def test_header_maps_wave_intrinsics(tmp_path: Path) -> None:
    """HIP's mask-less shuffles and 64-bit __ballot compile through the header; the result types are HIP's."""
    src = tmp_path / "probe.hip"
    src.write_text('#include "hip/hip_runtime.h"\n#include "hip/hip_fp16.h"\n#include "hip/hip_bf16.h"\n'
                   "__global__ void probe(float* x, __half* h, hip_bfloat16* b) {\n"
                   "  float v = x[threadIdx.x];\n"
                   "  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);\n"
                   "  v += __shfl(v, 0) + __shfl_xor(v, 1, 16) + __shfl_up(v, 1);\n"
                   "  static_assert(sizeof(__ballot(1)) == 8, \"__ballot is 64-bit in HIP\");\n"
                   "  static_assert(sizeof(__activemask()) == 8, \"__activemask is 64-bit in HIP\");\n"
                   "  if (__any(v > 0.0f) && !__all(v > 1.0f)) v += (float)__popcll(__ballot(v > 0.0f));\n"
                   "  h[threadIdx.x] = __float2half(v); b[threadIdx.x] = __float2bfloat16(v + __lane_id());\n"
                   "}\n"
                   'extern "C" int launch_probe(float* x, __half* h, hip_bfloat16* b) {\n'
                   "  float* d = nullptr; hipMalloc(&d, 4); hipMemcpy(d, x, 4, hipMemcpyDeviceToDevice);\n"
                   "  hipLaunchKernelGGL(probe, dim3(1), dim3(64), 0, 0, x, h, b);\n"
                   "  hipDeviceSynchronize(); hipFree(d);\n"
                   "  return (int)hipGetLastError();\n}\n")
    cmd = gpu_original.compile_command(src, tmp_path / "probe.o", "sm_90a", ["-c"])
    proc = subprocess.run(cmd, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
