"""Shapes of real kernel libraries that porter must read: parameter packs, _Float16, missing headers (parse loss
read back from tokens), templates never instantiated, vendored folders, every target. The sources are small
files written for these tests that reproduce the patterns seen in public trees (benchmarks/real_trees.py)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from porter.analysis import Request, analyze_one, collect
from porter.frontend import analyze_file
from porter.frontend_config import ParseConfig
from porter.targets import known_targets, load_target

ROOT = Path(__file__).resolve().parent.parent

PACKS = """#include <hip/hip_runtime.h>
template <typename... Args> __device__ int total(Args... a) { return (a + ... + 0); }
template <int... Ns> __device__ int count() { return sizeof...(Ns); }
__global__ void packs(int* o) {
  unsigned m = __ballot(o[threadIdx.x] > 0);
  o[threadIdx.x] = total(1, 2, 3) + count<1, 2>() + m;
}
"""

FLOAT16 = """#include <hip/hip_runtime.h>
__global__ void halves(_Float16* out, const float* in) {
  _Float16 h = (_Float16)in[threadIdx.x];
  const _Float16* p = (const _Float16*)in;
  out[threadIdx.x] = h + p[0];
}
"""

# the header that defines kFullWarpMask and WS is not on the include path (an excerpt, a vendored build tree)
MISSING_HEADER = """#include <hip/hip_runtime.h>
#include "project_warp_utils.h"
__global__ void vote(float* out, const float* in) {
  float v = in[threadIdx.x];
  unsigned m = __ballot_sync(kFullWarpMask, v > 0);
  int lanes = WS / 2;
  if (threadIdx.x % 32 == 0) out[threadIdx.x / 32] = v + __popc(m) + lanes;
}
"""

TEMPLATE_ONLY = """#include <hip/hip_runtime.h>
template <typename T, int BLOCK>
__global__ void vote_t(unsigned* out, const T* in) {
  T v = in[threadIdx.x];
  unsigned m = __ballot(v > T(0));
  out[blockIdx.x] = m;
}
"""


# a PyTorch extension's launch code; PyTorch's headers are on the include path or not
TORCH_HOST = """#include <hip/hip_runtime.h>
#include <c10/macros/Macros.h>
__global__ void rows(float* x) { x[threadIdx.x % C10_WARP_SIZE] = 0.f; }
void launch(float* x, int n) {
  int threads = (n + C10_WARP_SIZE - 1) / C10_WARP_SIZE * C10_WARP_SIZE;
  rows<<<1, threads>>>(x);
}
"""

# THC's WARP_SHFL (PyTorch) is not on the include path: in a template pattern clang defers the lookup and says
# nothing, in ordinary code it drops the statement (apex's layer norm before 7eed38aa, threads (32, 4))
UNDECLARED_SHUFFLE = """#include <hip/hip_runtime.h>
#include <THC/THCDeviceUtils.cuh>
template <typename U> __device__ U rotate_rows(U mu) {
  int src = (threadIdx.x + 1) & 31;
  return WARP_SHFL(mu, src);
}
__device__ float rotate_rows_f(float mu) {
  int src = (threadIdx.x + 1) & 31;
  float b = WARP_SHFL(mu, src);
  return WARP_SHFL(mu, src, 32) + b;
}
"""


# apex's type_shim.h at HEAD: the block folds into the first wavefront, whose reduction runs down to `lanes`
FIRST_WAVE = """#include <hip/hip_runtime.h>
template <typename T> __device__ T max_into_lanes(T* x, T val, int lanes = 1) {
  int tid = threadIdx.x + threadIdx.y * blockDim.x;
  T final = val;
  if (tid < warpSize) {
    final = fmaxf(x[tid], x[tid + warpSize]);
    for (int i = 16; i >= lanes; i >>= 1) final = fmaxf(final, __shfl_down(final, i));
    for (int i = warpSize / 2; i >= lanes; i >>= 1) final = final + __shfl_down(final, i);
  }
  return final;
}
"""


# exllamav2's rms_norm before 6feebfb: NUM_WARPS = 1024 / warpSize is not a constant, so clang rejects the
# array and, in the template, exposes the subscripts that read it without their array
PARTIALS_FROM_WARPSIZE = """#include <hip/hip_runtime.h>
#define NUM_WARPS (1024 / warpSize)
template <int K>
__global__ void norm(const float* x, float* y) {
  int lane = threadIdx.x % warpSize;
  float v = x[threadIdx.x] * K;
  __shared__ float sums[NUM_WARPS];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  if (lane == 0) sums[threadIdx.x / warpSize] = v;
  __syncthreads();
  v = sums[lane];
  float g = lane < NUM_WARPS ? sums[lane] : 0.0f;
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  y[threadIdx.x] = v + g;
}
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _analyze(path: Path, explain: bool = False):  # type: ignore[no-untyped-def]
    return analyze_one(Request(path=str(path), config=ParseConfig(), target="gfx942", explain=explain))


def porter(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", "import sys; from porter.cli import main; sys.exit(main())", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=120)


def test_parameter_packs_and_float16_are_analyzed_not_crashed(tmp_path: Path) -> None:
    packs, halves = _write(tmp_path, "packs.cu", PACKS), _write(tmp_path, "halves.cu", FLOAT16)
    proc = porter("analyze", str(packs), str(halves), "--format", "json")
    assert proc.returncode == 1, proc.stderr  # a finding, no error
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    report = json.loads(proc.stdout)
    assert report["errors"] == []
    assert [f["rule_id"] for f in report["findings"]] == ["W64-004"]   # the ballot next to the pack call
    facts = analyze_file(halves, ParseConfig())
    assert [f.name for f in facts.functions] == ["halves"] and facts.functions[0].body is not None


def test_a_crash_in_one_function_costs_that_function_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from porter import frontend

    path = _write(tmp_path, "two.cu", PACKS + "__global__ void other(int* o) { o[0] = __popc(__ballot(1)); }\n")
    original = frontend._Extractor._function_facts

    def fail_on_packs(self, c):  # type: ignore[no-untyped-def]
        if c.spelling == "packs":
            raise ValueError("simulated extractor bug")
        return original(self, c)

    monkeypatch.setattr(frontend._Extractor, "_function_facts", fail_on_packs)
    facts = analyze_file(path, ParseConfig())
    assert "other" in [f.name for f in facts.functions] and "packs" not in [f.name for f in facts.functions]
    assert [s.function for s in facts.skipped] == ["packs"]
    assert all(c.function.startswith(("other", "total", "count")) for c in facts.cross_lane)
    result = _analyze(path)
    assert not result.error
    assert any("packs: not analyzed" in n and "simulated extractor bug" in n for n in result.notes)
    assert {f.rule_id for f in result.findings} == {"W64-005"}   # other()'s __popc of a ballot still found
    assert result.coverage["skipped"]


def test_statements_dropped_by_a_missing_header_are_read_from_tokens(tmp_path: Path) -> None:
    path = _write(tmp_path, "excerpt.cu", MISSING_HEADER)
    result = _analyze(path, explain=True)
    by_rule = {(f.rule_id, f.line): f for f in result.findings}
    # the initializer libclang dropped: a ballot kept in 32 bits; the mask is a name declared nowhere the parse
    # saw, whose width is unknown (hypre's HYPRE_WARP_FULL_MASK is 64-bit on HIP): no 32-bit claim
    assert by_rule[("W64-004", 5)].confidence == "low"
    assert ("W64-003", 5) not in by_rule
    # findings elsewhere in that function rest partly on the recovered ballot; the 32-lane ids agree with the
    # 32-bit mask the code keeps (W64-004 reports the ballot that loses lanes 32-63, not the ids)
    assert by_rule[("W64-005", 7)].confidence == "medium"
    assert ("W64-002", 7) not in by_rule
    assert result.coverage["recovered_statements"] == 2 and result.coverage["recovered_functions"] == 1
    assert any("2 statements in 1 functions recovered from tokens only" in n for n in result.notes)
    facts = analyze_file(path, ParseConfig())
    assert {r.loc.line for r in facts.recovered} == {5, 6}
    assert any(lit.value == 2 and lit.loc.line == 6 for lit in facts.literals)   # WS / 2


def test_a_subscript_of_an_array_clang_rejected_keeps_its_array(tmp_path: Path) -> None:
    path = _write(tmp_path, "rms.cu", PARTIALS_FROM_WARPSIZE)
    facts = analyze_file(path, ParseConfig())
    reads = [(a.array, a.loc.line) for a in facts.shared_accesses if not a.is_write]
    assert reads == [("sums", 11), ("sums", 12)]
    assert {r.loc.line for r in facts.recovered} == {11, 12}
    # lanes 16-63 read past the 16 partials at line 11; line 12 keeps them out
    assert [(f.rule_id, f.line, f.confidence) for f in _analyze(path).findings if f.rule_id == "W64-008"] == \
        [("W64-008", 11, "low")]


def test_parse_loss_is_in_the_json_report(tmp_path: Path) -> None:
    path = _write(tmp_path, "excerpt.cu", MISSING_HEADER)
    report = json.loads(porter("analyze", str(path), "--format", "json", "-q").stdout)
    assert report["coverage"][0]["recovered_statements"] == 2
    assert report["coverage"][0]["path"] == str(path)


def test_a_shuffle_wrapper_from_a_missing_header_is_judged_by_its_name(tmp_path: Path) -> None:
    path = _write(tmp_path, "layer_norm.cu", UNDECLARED_SHUFFLE)
    result = _analyze(path, explain=True)
    # a 32-lane source lane at the wrapper's default width, in the pattern and in the dropped statement; the
    # call that passes width 32 is not reported
    assert [(f.rule_id, f.line, f.confidence) for f in result.findings] == [("W64-007", 5, "low"),
                                                                          ("W64-007", 9, "low")]
    assert result.coverage["undeclared"] == ["WARP_SHFL"]
    assert any("1 names used but declared nowhere" in n and "WARP_SHFL" in n for n in result.notes)


def test_a_reduction_given_the_first_wavefront_must_cover_it(tmp_path: Path) -> None:
    path = _write(tmp_path, "type_shim.h", FIRST_WAVE)
    found = [f for f in _analyze(path).findings if f.rule_id == "W64-001"]
    # the tree from 16 under `tid < warpSize`, down to a run-time `lanes`; the one from warpSize / 2 is right
    assert [(f.line, f.confidence) for f in found] == [(7, "medium")]
    assert [(e.line, e.text) for e in found[0].edits] == [(7, "warpSize / 2")]


def test_template_never_instantiated_is_analyzed_as_a_pattern(tmp_path: Path) -> None:
    path = _write(tmp_path, "pattern.cu", TEMPLATE_ONLY)
    result = _analyze(path, explain=True)
    # the ballot's argument depends on T: clang leaves the call unresolved in the pattern
    assert [(f.rule_id, f.line) for f in result.findings] == [("W64-004", 5)]
    assert result.coverage["patterns_only"] == ["vote_t"]
    assert any("1 templates never instantiated in the file were analyzed as patterns" in n for n in result.notes)


def test_exclude_option_and_config_key(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "third_party" / "cutlass").mkdir(parents=True)
    _write(tmp_path / "src", "mine.cu", PACKS)
    _write(tmp_path / "third_party" / "cutlass", "theirs.cu", PACKS)
    _write(tmp_path / "src", "gen.cuh", PACKS)
    files, _ = collect([str(tmp_path)], ("third_party", "*.cuh"))
    assert [Path(f).name for f in files] == ["mine.cu"]
    proc = porter("analyze", ".", "--exclude", "third_party/*", "--format", "json", "-q", cwd=tmp_path)
    assert {Path(f["path"]).name for f in json.loads(proc.stdout)["findings"]} == {"mine.cu", "gen.cuh"}
    (tmp_path / "pyproject.toml").write_text('[tool.porter]\nexclude = ["third_party", "gen.cuh"]\n')
    (tmp_path / ".git").mkdir()
    proc = porter("analyze", ".", "--format", "json", "-q", cwd=tmp_path)
    assert {Path(f["path"]).name for f in json.loads(proc.stdout)["findings"]} == {"mine.cu"}, proc.stderr


@pytest.mark.parametrize("target", known_targets())
def test_every_listed_target_analyzes(target: str) -> None:
    proc = porter("analyze", "--target", target, str(ROOT / "samples" / "wave64" / "reductions.hip"),
                  "--format", "json")
    assert proc.returncode in (0, 1), proc.stderr
    report = json.loads(proc.stdout)
    assert report["errors"] == [] and report["notes"] == [], report
    w64 = [f for f in report["findings"] if f["rule_id"].startswith("W64-")]
    if load_target(target).wave_size == 64:
        assert w64, "the wave64 sample has hazards on every 64-lane target porter lists"
    else:   # a 32-lane target: the sample's code is correct there, and "lanes 32-63 are lost" would be false
        assert not w64, w64


def test_token_reading_of_deep_nesting_stops_instead_of_overflowing() -> None:
    import re

    from porter.token_reader import Reader, Tok
    for src in ("-" * 5000 + "x;", "a=" * 5000 + "1;", "(" * 5000 + "1" + ")" * 5000 + ";", "if(a)" * 3000 + "x;",
                "{" * 3000 + "}" * 3000):
        toks = [Tok(t, 1, i + 1) for i, t in enumerate(re.findall(r"[A-Za-z_]\w*|\d+|\S", src))]
        assert Reader(toks, "deep.cu").statements()   # read as far as the depth limit, under the default stack


def test_token_reading_skips_template_argument_lists_but_not_comparisons() -> None:
    import re

    from porter.token_reader import Reader, Tok
    src = ("reduce<Max, T>(buf, -at::numeric_limits<T>::max(), static_cast<T>(0));"
           "if (i < n) x = y > (z);")
    toks = [Tok(t, 1, i + 1) for i, t in enumerate(re.findall(r"::|[A-Za-z_]\w*|\d+|\S", src))]
    call, cond = Reader(toks, "t.cu").statements()
    assert (call.kind, call.op, len(call.children)) == ("call", "reduce", 3)
    assert [(c.kind, c.op) for c in call.children] == [("ref", "buf"), ("unop", "-"), ("cast", "static")]
    assert call.children[1].children[0].op == "max" and call.children[2].type == "T"
    assert [n.op for n in cond.walk() if n.kind == "binop"] == ["<", "=", ">"]   # a < b is still a comparison


# apex xentropy's shape: a helper's only call spans lines and one argument names what no included header declares,
# so libclang drops the statement; the tokens must be read to the call's end to reach the helper at all
DROPPED_CALL = """#include <hip/hip_runtime.h>
template <typename AccT>
__device__ void stage2(AccT* buf, AccT init, AccT* out, AccT v) {
  buf[threadIdx.x] = v;
  __syncthreads();
  AccT acc = init;
  int lane = threadIdx.x % 64;
  if (threadIdx.x < 64 && lane < blockDim.x / 64)
    for (int i = 0; i < 64; ++i) acc += buf[lane * 64 + i];
  *out = acc;
}
template <typename T>
__global__ void k(const T* in, T* out) {
  extern __shared__ unsigned char raw[];
  auto sbuf = reinterpret_cast<T*>(raw);
  T r;
  stage2<T>(sbuf,
            -nowhere::limits<T>::max(),
            &r,
            in[threadIdx.x]);
  out[blockIdx.x] = r;
}
"""


def test_a_multi_line_call_dropped_by_libclang_still_reaches_its_helper(tmp_path: Path) -> None:
    path = _write(tmp_path, "dropped.cu", DROPPED_CALL)
    facts = analyze_file(path, ParseConfig())
    assert any(r.loc.line == 17 and r.loc.end_line == 20 for r in facts.recovered)
    result = _analyze(path)
    assert [(f.rule_id, f.line) for f in result.findings if f.rule_id.startswith("LDS")] == [("LDS-001", 9)]


TORCH_STRIDE = """#include <hip/hip_runtime.h>
__global__ void partials(float* out) {
  __shared__ float smem[1024];
  smem[threadIdx.x] = out[threadIdx.x];
  __syncthreads();
  float acc = 0.f;
  int lane = threadIdx.x % C10_WARP_SIZE;
  if (lane < blockDim.x / C10_WARP_SIZE)
    for (int i = 0; i < C10_WARP_SIZE; ++i) acc += smem[lane * C10_WARP_SIZE + i];
  out[threadIdx.x] = acc;
}
"""


@pytest.mark.parametrize("target, found", [("gfx942", True), ("gfx1100", False)])
def test_c10_warp_size_without_its_header_is_the_wavefront_in_device_indexing(tmp_path: Path, target: str,
                                                                               found: bool) -> None:
    # every PyTorch release gives C10_WARP_SIZE = 64 on a 64-wide device; on a wave32 one older releases still said
    # 64, so the lane stride is not known there and nothing is claimed
    path = _write(tmp_path, "torch_lds.cu", TORCH_STRIDE)
    result = analyze_one(Request(path=str(path), config=ParseConfig(), target=target))
    lds = [(f.rule_id, f.line) for f in result.findings if f.rule_id.startswith("LDS")]
    assert lds == ([("LDS-001", 9)] if found else [])


def test_integers_read_from_tokens_fold_as_c_computes_them() -> None:
    import re

    from porter.token_reader import Reader, Tok
    src = "a = -7 / 2; b = -7 % 2; c = 4611686018427387905 / 1; d = 1 / 0; e = 1 << 64;"
    toks = [Tok(t, 1, i + 1) for i, t in enumerate(re.findall(r"[A-Za-z_]\w*|\d+|<<|\S", src))]
    values = [st.children[1].value for st in Reader(toks, "fold.cu").statements()]
    assert values == [-3, -1, 4611686018427387905, None, None]   # truncation toward zero, exact, undefined left out


MANY_INSTANCES = """#include <hip/hip_runtime.h>
template <int W, bool A, bool B>
__global__ void conv(float* o) {
  __shared__ float s[64][33];
  s[threadIdx.x % 64][W] = o[threadIdx.x];
  __syncthreads();
  o[threadIdx.x] = A ? s[threadIdx.x % 64][0] : B ? 1.f : 0.f;
}
template <int W, bool A, bool B>
void launch(float* o) { conv<W, A, B><<<1, 64>>>(o); }
"""


def test_a_kernel_template_is_analyzed_in_a_bounded_covering_set_of_instantiations(tmp_path: Path) -> None:
    from porter import frontend

    combos = [(w, a, b) for w in (2, 3, 4) for a in ("true", "false") for b in ("true", "false")]
    text = MANY_INSTANCES + "".join(f"template void launch<{w}, {a}, {b}>(float*);\n" for w, a, b in combos)
    path = _write(tmp_path, "switches.cu", text)
    facts = analyze_file(path, ParseConfig())
    kernels = [f for f in facts.functions if f.name == "conv" and f.template_args]
    hosts = [f for f in facts.functions if f.name == "launch" and f.template_args]
    assert len(kernels) == frontend.MAX_KERNEL_INSTANCES < len(combos) and len(hosts) == len(combos)
    for position, values in enumerate((("2", "3", "4"), ("true", "false"), ("true", "false"))):
        assert {f.template_args[position][1] for f in kernels} == set(values)   # every value of every argument
    assert [(s.function, s.reason.split(";")[0]) for s in facts.skipped] == \
        [("conv", f"8 of its {len(combos)} instantiations analyzed (chosen to cover every template argument value)")]
    result = _analyze(path)
    assert any("conv: 8 of its 12 instantiations analyzed" in n for n in result.notes)


def test_a_crash_in_one_matcher_costs_that_rule_only(monkeypatch: pytest.MonkeyPatch) -> None:
    from porter.matchers import lds

    def broken(ctx, params):  # type: ignore[no-untyped-def]
        yield from ()
        raise RuntimeError("simulated matcher bug")

    monkeypatch.setattr(lds, "bank_conflict", broken)
    result = _analyze(ROOT / "samples" / "lds" / "dispatch.hip")
    assert not result.error
    assert any("LDS-001 not checked: porter's matcher lds:bank_conflict failed (RuntimeError: simulated matcher "
               "bug)" in n for n in result.notes), result.notes
    rules = {f.rule_id for f in result.findings}
    assert "LDS-001" not in rules and "LDS-002" in rules   # the other rules of the file still report


def test_header_helpers_are_the_projects_own(tmp_path: Path) -> None:
    """The device functions a file calls from its project's headers are read for their call sites (W64-001,
    LDS helper accesses); the C++ library's and HIP's own functions are not, however their paths are spelled."""
    (tmp_path / "util.h").write_text("#pragma once\n#include <cmath>\n"
                                     "__device__ inline float half_sum(float v) {\n"
                                     "  for (int o = 16; o > 0; o /= 2) v += __shfl_xor(v, o);\n  return v;\n}\n")
    src = tmp_path / "k.hip"
    src.write_text('#include <hip/hip_runtime.h>\n#include <cmath>\n#include <algorithm>\n#include "util.h"\n'
                   "__global__ void k(float* x) {\n"
                   "  float v = std::fabs(x[threadIdx.x]) + sqrtf(x[0]) + std::min(x[1], x[2]) + std::max(1.0f, x[3]);\n"
                   "  x[threadIdx.x] = half_sum(v) + __shfl(v, 0);\n}\n")
    facts = analyze_file(src, ParseConfig())
    assert [(h.name, Path(h.loc.path).name, h.loc.line) for h in facts.helpers] == [("half_sum", "util.h", 3)]


def _accumulator_kernel(pairs: int) -> str:
    """Two accumulators that are reassigned from each other again and again (unrolled dot-product code, as in
    vllm's ROCm skinny GEMMs): every definition of one reads both."""
    steps = "".join("  a = a + b;\n  b = b + a;\n" for _ in range(pairs))
    return ("#include <hip/hip_runtime.h>\n__global__ void accumulate(const float* in, float* out) {\n"
            "  __shared__ float tile[256];\n  float a = in[0];\n  float b = in[1];\n" + steps +
            "  int k = (int)a + (int)b;\n  tile[threadIdx.x] = in[threadIdx.x];\n  __syncthreads();\n"
            "  out[threadIdx.x] = tile[k % 256];\n}\n")


def test_variables_reassigned_from_each_other_are_analyzed_in_bounded_time(tmp_path: Path) -> None:
    path = _write(tmp_path, "acc.cu", _accumulator_kernel(12))   # was a time-out: 2^24 definition walks
    start = time.process_time()
    result = _analyze(path)
    assert time.process_time() - start < 10
    assert not result.error and not result.coverage.get("skipped")


def test_thread_dependence_follows_definition_chains_of_any_length(tmp_path: Path) -> None:
    from porter.fact_queries import FunctionView

    chain = "".join(f"  int v{i + 1} = v{i} + 1;\n" for i in range(12))
    path = _write(tmp_path, "chain.cu", "#include <hip/hip_runtime.h>\n__global__ void chain(int* o, int n) {\n"
                  "  int v0 = threadIdx.x;\n" + chain + "  int u = n * 2;\n  o[v12] = u;\n}\n")
    facts = analyze_file(path, ParseConfig())
    view = FunctionView(facts.functions[0], facts)
    refs = {n.op: n for n in view.nodes() if n.kind == "ref"}
    assert view.depends_on_thread(refs["v12"]) and view.depends_on_thread(refs["v1"])
    assert not view.depends_on_thread(refs["u"]) and not view.depends_on_thread(refs["n"])


def _pytorch_findings(path: Path, include: Path) -> list[tuple[str, int, str]]:
    config = ParseConfig(include_dirs=(str(include),), defines=("USE_ROCM",))
    return [(f.rule_id, f.line, f.confidence)
            for f in analyze_one(Request(path=str(path), config=config, target="gfx942")).findings]


def test_c10_warp_size_in_host_code_without_pytorch_headers_is_reported_at_each_use(tmp_path: Path) -> None:
    path = _write(tmp_path, "ext.cu", TORCH_HOST)
    findings = _analyze(path).findings
    # the host uses, at their columns, as a guess (porter cannot see which PyTorch release defines it); the
    # device use on line 3 is the device's width and is not reported
    assert [(f.rule_id, f.line, f.col, f.end_col, f.confidence) for f in findings] == \
        [("W64-011", 5, c, c + len("C10_WARP_SIZE"), "low") for c in (22, 43, 59)]
    assert "at::cuda::warp_size()" in findings[0].message


def test_c10_warp_size_defined_as_warpsize_is_a_certain_host_read(tmp_path: Path) -> None:
    path = _write(tmp_path, "ext.cu", TORCH_HOST)
    headers = tmp_path / "old" / "c10" / "macros"
    headers.mkdir(parents=True)
    (headers / "Macros.h").write_text("#define C10_WARP_SIZE warpSize\n")   # older PyTorch releases on ROCm
    assert _pytorch_findings(path, tmp_path / "old") == [("W64-011", 5, "high")] * 3


def test_c10_warp_size_with_the_installed_pytorch_headers_is_a_run_time_query(tmp_path: Path) -> None:
    import importlib.util
    spec = importlib.util.find_spec("torch")   # its headers, without importing it
    if spec is None or spec.origin is None:
        pytest.skip("torch is not installed")
    include = Path(spec.origin).parent / "include"
    # recent releases give host code an overload that calls at::cuda::warp_size(): nothing to report
    assert _pytorch_findings(_write(tmp_path, "ext.cu", TORCH_HOST), include) == []


INACTIVE_BRANCH = """\
__global__ void reduce(float *out, const float *in) {
  float v = in[threadIdx.x];
  unsigned int mask = 0xffffffffu;
  if (threadIdx.x < MISSING_WIDTH) {
#if !defined(USE_ROCM)
    v += __shfl_down_sync(mask, v, 16);
#endif
#pragma unroll
    for (int o = 32; o > 0; o /= 2)
      v += __shfl_down(v, o);
  }
  if (threadIdx.x == 0) out[0] = v;
}
"""


@pytest.mark.parametrize("defines,reported", [((), True), (("USE_ROCM",), False)])
def test_token_reading_leaves_out_branches_the_preprocessor_skipped(tmp_path: Path, defines: tuple[str, ...],
                                                                     reported: bool) -> None:
    # libclang drops the if statement (an undeclared name), so it is read from tokens: the CUDA-only branch is
    # code only when USE_ROCM is not defined, and '#pragma unroll' is not a statement
    path = _write(tmp_path, "branch.cu", INACTIVE_BRANCH)
    result = analyze_one(Request(path=str(path), config=ParseConfig(defines=defines), target="gfx942"))
    assert any(f.rule_id == "W64-003" and f.line == 6 for f in result.findings) is reported


PARENTHESIZED_LAUNCH = """#include <hip/hip_runtime.h>
#define LAUNCH(kernel, grid, block, shm, stream, ...) hipLaunchKernelGGL(kernel, grid, block, shm, stream, __VA_ARGS__)
template <unsigned B, unsigned W> __global__ void k(int* out) { out[threadIdx.x / W] = B; }
template <typename T> void run(int* out) { LAUNCH((k<256, 64>), dim3(1), dim3(256), 0, 0, out); }
template void run<float>(int*);
"""


def test_a_parenthesized_kernel_in_a_launch_macro_is_a_launch_of_it_in_each_calling_function(tmp_path: Path) -> None:
    # rocSPARSE's RETURN_IF_HIPLAUNCHKERNELGGL_ERROR((k<256, 64>), ...): the parentheses keep the template
    # argument list's commas out of the macro's arguments, and hide the callee from the call
    facts = analyze_file(_write(tmp_path, "launch.hip", PARENTHESIZED_LAUNCH), ParseConfig())
    assert [(ln.kernel, ln.kernel_usr.partition("<")[2]) for ln in facts.launches] == [("k", "256,64>")] * 2
    assert len({ln.caller for ln in facts.launches}) == 2     # the host template's pattern and its instance
