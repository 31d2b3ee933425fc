"""porter convert: every sample kernel is recognized as its family and rendered exactly as its golden output;
refusals say why and write nothing; nothing from the input can become code."""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from porter.cli import main
from porter import families

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = families.samples()
# Samples porter must refuse rather than convert into something that computes otherwise, with the reason's gist.
REFUSED = {
    "attention/attention_causal_tiled.hip": "'S' is both the query and the key sequence length",
    "attention/attention_naive.hip": "do not show batch, heads, seq_q and seq_kv separately",   # B*H fused
    "elementwise/bias_act_naive.hip": "not converted",   # run-time `act` dispatch: no single template path
}
CONVERTED = [p for p in SAMPLES if families.sample_ref(p) not in REFUSED]
UPDATE = os.environ.get("PORTER_UPDATE_GOLDEN") == "1"


def convert(*args: str) -> tuple[int, str, str]:
    res = CliRunner().invoke(main, ["convert", *args])
    return res.exit_code, res.stdout, res.stderr


@pytest.mark.parametrize("sample", CONVERTED, ids=families.sample_ref)
def test_sample_converts_to_its_family_and_matches_golden(sample: Path, tmp_path: Path) -> None:
    family = sample.parent.parent.name
    code, out, err = convert(str(sample), "-o", str(tmp_path))
    assert code == 0, out + err
    assert f": {family} " in out, out
    modules = list(tmp_path.glob("*.py"))
    assert len(modules) == 1
    text = modules[0].read_text()
    ast.parse(text)
    assert f"Source file:   {sample.name}" in text
    golden = sample.parent / "golden" / modules[0].name
    if UPDATE:
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text)
    assert golden.is_file(), f"no golden output {golden} (PORTER_UPDATE_GOLDEN=1 writes it)"
    assert text == golden.read_text(), f"{modules[0].name} differs from {golden}"


@pytest.mark.parametrize("sample", sorted(REFUSED))
def test_sample_is_refused_with_the_reason(sample: str, tmp_path: Path) -> None:
    code, out, _ = convert(str(families.sample(sample)), "-o", str(tmp_path / "out"))
    assert code == 1, out
    assert REFUSED[sample] in out and "nothing was written" in out
    assert not (tmp_path / "out").exists()
    assert not families.golden(families.sample(sample)).exists(), \
        "a refused sample must not keep a golden module"


@pytest.mark.parametrize("sample, expected", [
    ("gemm/gemm_nt_tiled.hip", {"layout": "NT", "dtype": "float32", "epilogue": "alpha_beta"}),
    ("gemm/gemm_f16_tiled.hip", {"layout": "NN", "dtype": "float16"}),
    ("attention/attention_causal_tiled.hip", {"causal": True}),
    ("attention/attention_naive.hip", {"causal": False}),
    ("layernorm/layernorm_naive.hip", {"affine": True}),
])
def test_recognized_parameters(sample: str, expected: dict) -> None:
    from porter.convert.recognize import recognize
    from porter.frontend import analyze_file
    from porter.frontend_config import make_config

    facts = analyze_file(families.sample(sample), make_config())
    kernel = next(f.name for f in facts.functions if f.kind == "kernel")
    rec = recognize(facts, kernel)
    assert rec.best.score == 1.0 and not rec.ambiguous
    assert {k: rec.best.params[k] for k in expected} == expected


def test_gemm_arguments_are_mapped() -> None:
    code, out, _ = convert(str(families.sample("gemm/gemm_naive.hip")), "--dry-run")
    assert code == 0
    assert "arguments: A=A, B=B, C=C, M=M, N=N, K=K, alpha=alpha, beta=beta" in out


UNKNOWN = """#include <hip/hip_runtime.h>
__global__ void histogram(const int* keys, int* bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[keys[i] & 255], 1);
}
"""


def test_unrecognized_kernel_writes_nothing(tmp_path: Path) -> None:
    src = tmp_path / "hist.hip"
    src.write_text(UNKNOWN)
    out_dir = tmp_path / "out"
    code, out, _ = convert(str(src), "-o", str(out_dir))
    assert code == 1
    assert "not converted: no template matches; closest is" in out
    assert "missing:" in out and "nothing was written" in out
    assert not out_dir.exists()


def test_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    sample = str(families.sample("softmax/softmax_naive.hip"))
    assert convert(sample, "-o", str(tmp_path))[0] == 0
    target = tmp_path / "softmax_naive.py"
    target.write_text("# my edits\n")
    code, _, err = convert(sample, "-o", str(tmp_path))
    assert code == 2 and "exists (use --force" in err
    assert target.read_text() == "# my edits\n"
    assert convert(sample, "-o", str(tmp_path), "--force")[0] == 0
    assert target.read_text() != "# my edits\n"
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_template_and_param_overrides(tmp_path: Path) -> None:
    sample = str(families.sample("gemm/gemm_naive.hip"))
    code, out, _ = convert(sample, "--dry-run", "--param", "dtype=bfloat16", "--param", "layout=TN")
    assert code == 0 and "'dtype': 'bfloat16'" in out and "'layout': 'TN'" in out
    code, _, err = convert(sample, "--dry-run", "--param", "layout=XX")
    assert code == 2 and "layout" in err
    code, _, err = convert(sample, "--dry-run", "--param", "nosuch=1")
    assert code == 2 and "has no parameter 'nosuch'" in err
    code, _, err = convert(sample, "--template", "nope")
    assert code == 2 and "unknown template" in err


def test_hostile_names_cannot_inject_code(tmp_path: Path) -> None:
    # a file name carrying a newline and code, a kernel named like a Python keyword
    evil = tmp_path / "x\nimport os; os.system('echo pwned')\n.hip"
    evil.write_text(families.sample("softmax/softmax_naive.hip").read_text())
    code, out, err = convert(str(evil), "-o", str(tmp_path / "o1"))
    assert code == 0, out + err
    text = next((tmp_path / "o1").glob("*.py")).read_text()
    assert not any(line.startswith("import os;") for line in text.splitlines())
    ast.parse(text)
    keyword = tmp_path / "kw.hip"
    keyword.write_text(families.sample("softmax/softmax_naive.hip").read_text().replace("softmax_naive", "lambda"))
    code, _, err = convert(str(keyword), "-o", str(tmp_path / "o2"))
    assert code == 2 and "lambda" in err
    assert not (tmp_path / "o2").exists()


# ------------------------------------------------------------------------------------- fidelity (issue #12)

def _import_golden(path: Path):  # type: ignore[no-untyped-def]
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(f"porter_golden_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("sample", CONVERTED, ids=families.sample_ref)
def test_original_binds_every_parameter_to_a_case_value(sample: Path) -> None:
    """ORIGINAL lists the kernel's parameters in declaration order; each is bound to a key make_case provides;
    every run-time scalar is drawn per seed, never 0 or +-1, so a conversion that fixes or drops it disagrees."""
    from porter.frontend import analyze_file
    from porter.frontend_config import make_config

    facts = analyze_file(sample, make_config())
    kernel = next(f for f in facts.functions if f.kind == "kernel" and f.body is not None)
    mod = _import_golden(families.golden(sample))
    rec = mod.ORIGINAL
    assert [a["name"] for a in rec["args"]] == [p.name for p in kernel.params]
    assert rec["kernel"].partition("<")[0] == kernel.name
    cases = [mod.make_case(mod.TEST_SHAPES[0], seed, "cpu") for seed in (0, 1)]
    for arg in rec["args"]:
        assert arg["bind"] in ("case", "shape"), arg     # no sample specializes on a selector
        for case in cases:
            where = case["shape"] if arg["bind"] == "shape" else case
            assert arg["key"] in where, f"{arg['name']}: make_case has no {arg['key']!r}"
        if arg["bind"] == "case" and "*" not in arg["ctype"]:
            values = [case[arg["key"]] for case in cases]
            assert values[0] != values[1], f"{arg['name']} is the same for every seed"
            if "float" in arg["ctype"]:
                assert all(v not in (0, 1, -1) for v in values), f"{arg['name']}: trivial value {values}"
    written = {a["name"] for a in rec["args"] if a.get("output")}
    assert written, "the original writes some buffer"
    for arg in rec["args"]:
        assert ("output" in arg) == (arg["name"] in written)


def test_fp32_gemm_keeps_fp32_math_and_the_strict_tolerance() -> None:
    text = families.golden(families.sample("gemm/gemm_naive.hip")).read_text()
    assert "T.gemm(" not in text   # T.gemm on float32 runs TF32 tensor cores on sm_90
    assert '"float32": [1e-4, 1e-4, 1e-5]' in text and "TF32" in text
    assert "T.gemm(" in families.golden(families.sample("gemm/gemm_f16_tiled.hip")).read_text()


LEAKY = """#include "hip/hip_runtime.h"
__global__ void leaky(const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { float v = x[i]; y[i] = v > 0.0f ? v : 0.01f * v; }
}
void run(const float* x, float* y, int n) { leaky<<<(n + 255) / 256, 256>>>(x, y, n); }
"""

EXTRA_SCALAR = """#include "hip/hip_runtime.h"
__global__ void shifted_relu(const float* x, float* y, int M, int N, float shift) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M * N) y[i] = fmaxf(x[i] + shift, 0.0f);
}
void run(const float* x, float* y, int M, int N, float s) {
  shifted_relu<<<(M * N + 255) / 256, 256>>>(x, y, M, N, s);
}
"""

NO_LAUNCH = """#include "hip/hip_runtime.h"
__global__ void copy_scale(const float* x, float* y, int M, int N, float s) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < M * N) y[i] = s * x[i] + x[i % N];
}
"""


# ggml's shapes (written here): a run-time slope passed to a helper is no scale; a product of two inputs is no bias
RUNTIME_LEAKY = """#include "hip/hip_runtime.h"
__device__ float leaky(float x, float slope) { return fmaxf(x, 0.0f) + fminf(x, 0.0f) * slope; }
__global__ void leaky_k(const float* x, float* y, int n, float slope) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = leaky(x[i], slope);
}
void launch(const float* x, float* y, int n, float slope) { leaky_k<<<(n + 255) / 256, 256>>>(x, y, n, slope); }
"""
SILU_BACK = """#include "hip/hip_runtime.h"
__device__ float silu_grad(float g, float x) { float s = 1.0f / (1.0f + expf(-x)); return g * s * (1.0f + x * (1.0f - s)); }
__global__ void silu_back(const float* grad, const float* x, float* dx, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) dx[i] = silu_grad(grad[i], x[i]);
}
void launch(const float* g, const float* x, float* dx, int n) { silu_back<<<(n + 255) / 256, 256>>>(g, x, dx, n); }
"""


@pytest.mark.parametrize("source, reason", [
    (LEAKY, "not converted"),                                   # the 0.01 slope is no template's
    (RUNTIME_LEAKY, "not converted"),                           # was relu(x * slope)
    (SILU_BACK, "'x' (const float*) is a tensor the template does not read"),   # was silu(grad + x)
    (NO_LAUNCH, "does not launch the kernel"),                  # no grid to run the original with
])
def test_kernels_that_would_change_meaning_are_refused(source: str, reason: str, tmp_path: Path) -> None:
    src = tmp_path / "k.hip"
    src.write_text(source)
    code, out, _ = convert(str(src), "-o", str(tmp_path / "out"))
    assert code == 1 and reason in out, out
    assert not (tmp_path / "out").exists()


def test_a_runtime_scalar_is_an_argument_or_a_refusal(tmp_path: Path) -> None:
    src = tmp_path / "k.hip"
    src.write_text(EXTRA_SCALAR)
    code, out, _ = convert(str(src), "-o", str(tmp_path / "out"))
    if code == 0:   # converted: `shift` must be bound, never dropped
        text = next((tmp_path / "out").glob("*.py")).read_text()
        assert "'name': 'shift'" in text
    else:
        assert "shift" in out and "nothing was written" in out


def test_saxpy_keeps_the_scale_and_the_accumulation(tmp_path: Path) -> None:
    text = families.golden(families.sample("elementwise/saxpy_rows.hip")).read_text()
    assert "{'name': 'a', 'ctype': 'float', 'bind': 'case', 'key': 'scale'}" in text
    assert "{'name': 'y', 'ctype': 'float*', 'bind': 'case', 'key': 'y', 'output': True}" in text
    assert "accumulate=True" in text and "y0 + x * scale" in text


def test_convert_corpus_entries_are_pinned_and_expect_a_family_or_a_refusal() -> None:
    import tomllib

    from porter.convert import list_families

    sources = tomllib.loads((ROOT / "corpus" / "sources.toml").read_text())["snapshot"]
    commits = {s["id"]: s["commit"] for s in sources}
    entries = tomllib.loads((ROOT / "corpus" / "convert.toml").read_text())["kernel"]
    assert len(entries) >= 15
    seen = set()
    for e in entries:
        assert commits.get(e["snapshot"]) == e["commit"], e
        assert e["expect"] in (*list_families(), "refuse") and e["why"].strip()
        assert len(e["sha256"]) == 64 and not Path(e["path"]).is_absolute() and ".." not in Path(e["path"]).parts
        assert (e["snapshot"], e["path"], e["kernel"]) not in seen
        seen.add((e["snapshot"], e["path"], e["kernel"]))
    assert {e["expect"] for e in entries} > {"refuse"}, "the corpus must hold kernels expected to convert too"


def test_scale_with_a_runtime_bias_and_a_grid_stride_loop_converts(tmp_path: Path) -> None:
    """ggml's scale_f32 shape: dst = scale * x + bias over n elements, no launch site in the file."""
    src = tmp_path / "scale.hip"
    src.write_text('#include "hip/hip_runtime.h"\n'
                   "__global__ void scale_k(const float* x, float* dst, const float scale, const float bias,\n"
                   "                        const long long n) {\n"
                   "  long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n"
                   "  long long stride = (long long)blockDim.x * gridDim.x;\n"
                   "  for (long long i = tid; i < n; i += stride) dst[i] = scale * x[i] + bias;\n"
                   "}\n")
    code, out, _ = convert(str(src), "-o", str(tmp_path / "out"))
    assert code == 0, out
    text = (tmp_path / "out" / "scale_k.py").read_text()
    assert "(v) * scale + shift" in text and "{'name': 'bias', 'ctype': 'const float', 'bind': 'case', " \
        "'key': 'shift'}" in text
    assert "a covering grid" in text and "'grid': [['min', ['cdiv', 'N', 256], 1024], 1, 1]" in text


CUDA_SOURCE = """#include <cuda_runtime.h>
#include <cuda_bf16.h>
typedef __nv_bfloat16 floatX;

__global__ void two_pass_softmax(float* out, const float* inp, int rows, int cols) {
    extern __shared__ float red[];
    int r = blockIdx.x;
    const float* p = inp + r * cols;
    float m = -INFINITY;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) m = fmaxf(m, p[i]);
    red[threadIdx.x] = m;
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        __syncthreads();
        if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
    }
    __syncthreads();
    float mx = red[0];
    __syncthreads();
    for (int i = threadIdx.x; i < cols; i += blockDim.x) out[r * cols + i] = expf(p[i] - mx);
    p = out + r * cols;
    float sum = 0.0f;
    for (int i = threadIdx.x; i < cols; i += blockDim.x) sum += p[i];
    red[threadIdx.x] = sum;
    for (int s = blockDim.x / 2; s > 0; s /= 2) {
        __syncthreads();
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
    }
    __syncthreads();
    float total = red[0];
    for (int i = threadIdx.x; i < cols; i += blockDim.x) out[r * cols + i] = p[i] / total;
}

void launch_softmax(float* out, const float* inp, int rows, int cols, int block_size) {
    block_size = 64;  // this kernel is written for one block size
    two_pass_softmax<<<rows, block_size, block_size * sizeof(float)>>>(out, inp, rows, cols);
}

__global__ void relu_x(floatX* out, const floatX* inp, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = inp[i];
        out[i] = fmaxf(v, 0.0f);
    }
}

void launch_relu(floatX* out, const floatX* inp, int n) { relu_x<<<(n + 127) / 128, 128>>>(out, inp, n); }
"""


def test_cuda_source_converts_and_its_emulated_original_agrees(tmp_path: Path) -> None:
    """llm.c's shapes, as CUDA (not hipified): a row pointer reassigned from the input to the output between the two
    passes reads the right tensor in each, a launcher that fixes its block size is launched with it, a typedef'd
    element type (floatX = bf16) is kept; the CUDA file itself runs on the wave64 emulator and agrees."""
    from porter.verify.differential import emulated

    src = tmp_path / "kernels.cu"
    src.write_text(CUDA_SOURCE)
    code, out, _ = convert(str(src), "-o", str(tmp_path / "out"))
    assert code == 0, out
    soft = (tmp_path / "out" / "two_pass_softmax.py").read_text()
    assert ": softmax " in out and "'block': [64, 1, 1]" in soft and "'shared_bytes': ['*', 64, 4]" in soft
    relu = (tmp_path / "out" / "relu_x.py").read_text()
    assert "'dtype': 'bfloat16'" in out and "'ctype': '__hip_bfloat16*'" in relu
    for name in ("two_pass_softmax", "relu_x"):
        mod = _import_golden(tmp_path / "out" / f"{name}.py")
        res = emulated(mod, str(src), seeds=1, shapes=list(mod.TEST_SHAPES)[:2])
        assert res["status"] == "pass", res


def test_the_library_call_writes_what_the_command_line_writes(tmp_path: Path) -> None:
    from porter.convert import ConvertError, convert

    sample = families.sample("softmax/softmax_block.hip")
    (out,) = convert(str(sample), output_dir=tmp_path)
    assert out.status == 0 and out.report["status"] == "converted" and out.error == ""
    written = Path(out.report["output"])
    assert written.read_text() == (sample.parent / "golden" / written.name).read_text()
    assert out.message.startswith(f"{sample}: softmax_block: softmax ")
    host_only = tmp_path / "host.hip"
    host_only.write_text("int add(int a, int b) { return a + b; }\n")
    with pytest.raises(ConvertError, match="no __global__ kernels"):
        convert(str(host_only), output_dir=tmp_path)


def test_convert_and_the_emulator_read_one_record_grammar() -> None:
    import subprocess
    import sys

    from porter.convert.params import ParamError, check_expr
    from porter.emulate.launch import SpecError, _check_expr, base_ctype
    from porter.launch_grammar import CTYPES, SCALAR_CTYPES

    # every C type convert may write into ORIGINAL is one the emulator (and the nvcc shim) can pass
    assert all(base_ctype(t)[0] in SCALAR_CTYPES for t in CTYPES)
    for bad in (["pow", "M", 2], ["+", "M"], True, 1.5, ["+", ["*"] * 3, 1]):
        with pytest.raises(ParamError):
            check_expr("grid[0]", bad, {"M"})
        with pytest.raises(SpecError):
            _check_expr(bad, "ORIGINAL.grid")
    assert check_expr("grid[0]", ("cdiv", "M", 256), {"M"}) == ["cdiv", "M", 256]
    # the grammar is importable where numpy is not (convert renders without it)
    probe = "import sys, porter.launch_grammar, porter.convert.params; sys.exit('numpy' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", probe]).returncode == 0


def test_list_templates_needs_no_file_and_convert_does() -> None:
    code, out, _ = convert("--list-templates")
    assert code == 0 and [line.split()[0] for line in out.splitlines()] == sorted(families.FAMILIES)
    code, _, err = convert("-o", "out")
    assert code == 2 and "missing argument FILE" in err
