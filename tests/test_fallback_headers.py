"""porter's fallback declarations of PyTorch (porter/parse_headers/fallback): used when the real
headers are not on the include path, never in place of them, and faithful where porter's rules read them."""

from __future__ import annotations

from pathlib import Path

import pytest

from porter import frontend
from porter.analysis import Request, analyze_one
from porter.frontend import analyze_file
from porter.frontend_config import ParseConfig

ROOT = Path(__file__).resolve().parent.parent

EXTENSION = """#include <hip/hip_runtime.h>
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>
#include <ATen/AccumulateType.h>
#include <c10/cuda/CUDAGuard.h>
template <typename scalar_t>
__global__ void scale(torch::PackedTensorAccessor32<scalar_t, 2, torch::RestrictPtrTraits> x, float s) {
  using accscalar_t = at::acc_type<scalar_t, true>;
  const accscalar_t v = x[blockIdx.x][threadIdx.x];
  x[blockIdx.x][threadIdx.x] = v * s;
}
at::Tensor launch(at::Tensor x, double s) {
  TORCH_CHECK(x.is_cuda(), "x must be on the GPU");
  TORCH_CHECK(x.dim() == 2);
  const at::cuda::OptionalCUDAGuard guard(device_of(x));
  auto stream = at::cuda::getCurrentCUDAStream();
  AT_DISPATCH_FLOATING_TYPES_AND_HALF(x.scalar_type(), "scale", [&] {
    scale<scalar_t><<<x.size(0), dim3(32, 8), 0, stream>>>(
        x.packed_accessor32<scalar_t, 2, torch::RestrictPtrTraits>(), static_cast<float>(s));
  });
  C10_CUDA_KERNEL_LAUNCH_CHECK();
  return x;
}
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("launch", &launch, "scale rows"); }
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _errors(facts) -> list[str]:  # type: ignore[no-untyped-def]
    return [d.message for d in facts.diagnostics if d.severity in ("error", "fatal")]


def test_an_extension_without_pytorch_headers_parses_with_its_launch_inside_the_dispatch(tmp_path: Path) -> None:
    facts = analyze_file(_write(tmp_path, "ext.cu", EXTENSION), ParseConfig())
    assert _errors(facts) == [] and not facts.recovered and not facts.undeclared
    # the launch inside the AT_DISPATCH lambda, with scalar_t bound to float (a type of the dispatch's list)
    assert [(ln.kernel, ln.block_dims, ln.template_args) for ln in facts.launches] == \
        [("scale", (32, 8, 1), ("float",))]


def test_a_pytorch_header_on_the_include_path_is_used_instead_of_the_fallback(tmp_path: Path) -> None:
    real = tmp_path / "torch_include" / "ATen"
    real.mkdir(parents=True)
    (real / "ATen.h").write_text("#pragma once\nnamespace at { struct Tensor { int only_in_the_real_header(); }; }\n")
    path = _write(tmp_path, "ext.cu", "#include <ATen/ATen.h>\nint f(at::Tensor t) { return t.only_in_the_real_header(); }\n")
    assert _errors(analyze_file(path, ParseConfig(include_dirs=(str(tmp_path / "torch_include"),)))) == []
    # without the folder the fallback is read, which has no such member
    assert any("only_in_the_real_header" in m for m in _errors(analyze_file(path, ParseConfig())))


def test_the_wavefront_width_macro_stays_undeclared(tmp_path: Path) -> None:
    # its value depends on the pass and the release: porter's rules judge it where clang reports it unknown
    path = _write(tmp_path, "w.hip", "#include <hip/hip_runtime.h>\n#include <c10/macros/Macros.h>\n"
                  "__global__ void k(int* o) { o[0] = C10_WARP_SIZE; }\n")
    assert "C10_WARP_SIZE" in analyze_file(path, ParseConfig()).undeclared


def test_c10_warp_size_as_a_device_constant_is_judged_by_the_release_given(tmp_path: Path) -> None:
    # in device code only the PyTorch release decides: porter's fallback does not guess, a -D or a real PyTorch
    # on -I does (2021-2025: warpSize, no constant from ROCm 7; later: a device constexpr)
    text = ("#include <hip/hip_runtime.h>\n#include <c10/macros/Macros.h>\n"
            "__global__ void k(float* o) {\n  __shared__ float p[C10_WARP_SIZE];\n  p[0] = o[0];\n  o[1] = p[0];\n}\n")
    path = str(_write(tmp_path, "k.hip", text))

    def w64_010(config: ParseConfig) -> list[int]:
        found = analyze_one(Request(path=path, config=config, target="gfx942")).findings
        return [f.line for f in found if f.rule_id == "W64-010"]

    assert w64_010(ParseConfig()) == []
    notes = analyze_one(Request(path=path, config=ParseConfig(), target="gfx942", explain=True)).notes
    assert any("C10_WARP_SIZE=warpSize" in n for n in notes)
    assert w64_010(ParseConfig(defines=("C10_WARP_SIZE=warpSize",))) == [4]
    torch = tmp_path / "torch_include"
    (torch / "c10" / "macros").mkdir(parents=True)
    (torch / "c10" / "macros" / "Macros.h").write_text("#pragma once\n#define C10_WARP_SIZE warpSize\n")
    assert w64_010(ParseConfig(include_dirs=(str(torch),))) == [4]
    (torch / "c10" / "macros" / "Macros.h").write_text("#pragma once\n#define C10_WARP_SIZE 64\n")
    assert w64_010(ParseConfig(include_dirs=(str(torch),))) == []


def test_c10_warp_size_inside_a_dispatch_lambda_is_reported_where_it_is_written(tmp_path: Path) -> None:
    text = EXTENSION.replace("dim3(32, 8)", "dim3(C10_WARP_SIZE, 8)")
    findings = analyze_one(Request(path=str(_write(tmp_path, "ext.cu", text)), config=ParseConfig(),
                                   target="gfx942")).findings
    line = text.splitlines().index(next(s for s in text.splitlines() if "C10_WARP_SIZE" in s)) + 1
    col = text.splitlines()[line - 1].index("C10_WARP_SIZE") + 1
    assert [(f.rule_id, f.line, f.col) for f in findings if f.rule_id == "W64-011"] == [("W64-011", line, col)]


def test_the_dispatch_sample_finding_needs_the_host_code_to_parse(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    sample = ROOT / "samples" / "wave64" / "torch_dispatch.hip"

    def w64_009() -> list[int]:
        result = analyze_one(Request(path=str(sample), config=ParseConfig(use_pch=False), target="gfx942"))
        return [f.line for f in result.findings if f.rule_id == "W64-009"]

    assert w64_009() == [14, 33]   # the broadcast and the definition of the launch's block
    monkeypatch.setattr(frontend, "STUB_FALLBACK", tmp_path)   # an empty fallback: PyTorch's names unknown
    assert w64_009() == []


def test_the_stub_and_fallback_declare_what_hipified_extensions_call(tmp_path: Path) -> None:
    # each of these was an error in a real extension (cupy's pba, AutoGPTQ, PyTorch's layer norm)
    text = ("#include <hip/hip_runtime.h>\n#include <hip/hip_fp16.h>\n#include <torch/extension.h>\n"
            "__device__ int dist(short2 p, int t) { short2 q = make_short2(p.x, 1); return max(q.y, 0) + abs(p.y - t); }\n"
            "__device__ __half bump(__half v) { __half_raw r; r.x = 0; __half h = __hadd(r, v); r = __half_raw(h);\n"
            "  return __halves2half2(__int2half_rn(1), h).x; }\n"
            "__global__ void k(float* o) { CUDA_KERNEL_ASSERT(o != nullptr); o[0] = __longlong_as_double(1); }\n"
            "void host(const at::Tensor& x, hipDeviceProp_t* prop) {\n"
            "  auto c = x.expect_contiguous();\n  at::Tensor y = at::empty_like(*c, LEGACY_CONTIGUOUS_MEMORY_FORMAT);\n"
            "  AT_DISPATCH_FLOATING_TYPES(x.type(), \"k\", [&] { k<<<prop->maxGridSize[0], 64>>>(y.data_ptr<float>()); });\n"
            "}\n")
    facts = analyze_file(_write(tmp_path, "ext.hip", text), ParseConfig())
    assert [d.message for d in facts.diagnostics if d.severity in ("error", "fatal")] == []
    assert "make_short2" not in facts.undeclared
