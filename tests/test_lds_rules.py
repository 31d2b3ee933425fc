"""LDS rules end to end (beyond the annotated samples): the numbers in the advice, the stated block assumption,
--explain, --block, and that the fix-it edit really removes the conflict."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from porter.analysis import Request, analyze_one
from porter.cli.analyze import analyze
from porter.facts import FileFacts, Function, Launch, Loc
from porter.findings import Finding
from porter.frontend import analyze_file
from porter.frontend_config import ParseConfig, make_config
from porter.lds.access_offsets import element_evidence
from porter.ruleset import rule_by_id, select_rules

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples" / "lds"


def run(path: Path, **kw: object) -> list[Finding]:
    result = analyze_one(Request(path=str(path), config=make_config(target="gfx942"), target="gfx942", **kw))
    assert not result.error, result.error
    return result.findings


def at(findings: list[Finding], rule: str, line: int) -> Finding:
    hits = [f for f in findings if f.rule_id == rule and f.line == line]
    assert hits, f"no {rule} on line {line}: {[(f.rule_id, f.line) for f in findings]}"
    return hits[0]


OPEN = "element type T open, no instantiation in the file binds it: 4 bytes assumed, as for float"


def line_of(path: Path, needle: str) -> int:
    return next(i for i, text in enumerate(path.read_text().splitlines(), 1) if needle in text)


def kernel_file(tmp_path: Path, *lines: str) -> Path:
    """A small .hip file of the given lines after the runtime include (which is line 1)."""
    path = tmp_path / "k.hip"
    path.write_text('#include "hip/hip_runtime.h"\n' + "".join(f"{line}\n" for line in lines))
    return path


def apply_edits(path: Path, findings: list[Finding]) -> None:
    """Apply each distinct edit once, bottom-up so earlier positions stay valid (single-line edits only)."""
    lines = path.read_text().splitlines(keepends=True)
    edits = sorted({e for f in findings for e in f.edits}, key=lambda e: (e.line, e.col), reverse=True)
    for e in edits:
        assert e.line == e.end_line
        text = lines[e.line - 1]
        lines[e.line - 1] = text[:e.col - 1] + e.text + text[e.end_col - 1:]
    path.write_text("".join(lines))


# ------------------------------------------------------------------------------------------- advice numbers

def test_naive_transpose_padding_advice() -> None:
    path = SAMPLES / "transpose.hip"
    line = line_of(path, "= tile[threadIdx.x][threadIdx.y + j];")
    f = at(run(path), "LDS-001", line)
    # 32 lanes of a half-wave read one column of a [32][32] float tile: all on one bank.
    assert f.message.startswith("32-way LDS bank conflict on gfx942")
    assert "ds_read_b32" in f.message and "lanes 0-31" in f.message
    # Smallest fix: one float per row; 32 x 33 x 4 = 4224 bytes, far below 64 KiB.
    assert "pad the innermost dimension by 1" in f.message
    assert "4224 B of LDS" in f.message and "fits in 64 KiB" in f.message
    assert "block 32x8x1 from the launch at line" in f.message
    assert f.severity == "warning" and f.confidence == "high"
    decl = line_of(path, "__shared__ float tile[TILE_DIM][TILE_DIM];")
    assert len(f.edits) == 1
    e = f.edits[0]
    assert (e.line, e.text) == (decl, "TILE_DIM + 1")
    assert path.read_text().splitlines()[decl - 1][e.col - 1:e.end_col - 1] == "TILE_DIM"


def test_two_way_is_a_note_and_strided_reduction_gets_index_advice() -> None:
    scan = SAMPLES / "scan.hip"
    f = at(run(scan), "LDS-001", line_of(scan, "temp[2 * thid] = g_data[2 * thid];"))
    assert f.message.startswith("2-way") and f.severity == "note"
    reduce = SAMPLES / "reduce.hip"
    f = at(run(reduce), "LDS-001", line_of(reduce, "sdata[index] += sdata[index + s];"))
    # index = 2*s*tid with s = 4: stride 8 dwords, 8 of the 32 active lanes per bank.
    assert f.message.startswith("8-way") and "(s = 4)" in f.message and f.severity == "warning"
    assert "i + (i / 32)" in f.message


def test_float4_conflict_is_amd_only() -> None:
    path = SAMPLES / "vector.hip"
    findings = run(path)
    line = line_of(path, "float4 v = reinterpret_cast<const float4*>(&tile[ty][0])[tx];")
    f = at(findings, "LDS-002", line)
    assert "ds_read_b128" in f.message and "sm_90 is conflict-free" in f.message
    # lane 0 (row 0, byte 0) and lane 22 (row 2, col 6: 2*144 + 96 = 384 B = dword 96) share bank 0
    assert "lanes 0, 22 to bank 0" in f.message
    assert "tile[64][32]" in f.message  # the NVIDIA padding is what hurts here
    assert not [x for x in findings if x.rule_id == "LDS-001" and x.line == line]


def test_misaligned_vector_read_is_not_called_conflict_free_on_nvidia_nor_padded() -> None:
    path = SAMPLES / "misaligned.hip"
    findings = run(path)
    line = line_of(path, "uint4 wide =")
    f = at(findings, "LDS-001", line)
    assert f.confidence == "medium"
    assert "start off the 16-B alignment of ds_read_b128" in f.message
    assert "inf-way" not in f.message and "start each lane's vector at a multiple of its width" in f.message
    assert not [x for x in findings if x.rule_id == "LDS-002"]


def test_padding_unused_flat_alias() -> None:
    path = SAMPLES / "transpose.hip"
    f = at(run(path), "LDS-003", line_of(path, "tile_flat[threadIdx.x * TILE_DIM"))
    assert "declared [33] = 32 + 1 per row but indexed with a row stride of 32" in f.message
    assert "32-way conflicted" in f.message


def test_padding_bypassed_by_a_division_row_is_reported_only_where_it_costs() -> None:
    # r = threadIdx.x / 16, c = threadIdx.x % 16 on a buffer of 16 x (16 + 1): the column read c * 16 + r
    # conflicts and is LDS-003 (not LDS-001: the cause is the bypassed padding); the row-major write with the
    # same unpadded row is conflict-free and agrees with the read, so it is not reported at all
    path = SAMPLES / "transpose.hip"
    findings = run(path)
    f = at(findings, "LDS-003", line_of(path, "= block[c * 16 + r];"))
    assert "sized 272 = 16 x (16 + 1) but indexed with a row stride of 16" in f.message
    assert "ds_read_b32 is 8-way conflicted" in f.message and "padded row" not in f.message
    write = line_of(path, "block[r * 16 + c] = in[")
    assert not [x for x in findings if x.line in (write, f.line) and x.rule_id != "LDS-003"]
    assert not [x for x in findings if x.line == write]
    # a write with the unpadded row read back through the padded one: reported although conflict-free
    g = at(findings, "LDS-003", line_of(path, "buf[(ty + j) * TILE_DIM + tx] ="))
    assert f"line {line_of(path, 'buf[tx * (TILE_DIM + 1) + ty + j]')} indexes it with the padded row" in g.message


def test_flat_buffer_rows_padded_by_a_chunk() -> None:
    # 32 x (64 + 8) halves filled 16 bytes per lane: the 8-half chunk step also divides 2304 as 256 x (8 + 1),
    # but an access that steps rows by the padded 72 uses the padding; one that steps them by 64 does not
    path = SAMPLES / "padded_rows.hip"
    findings = run(path)
    used = line_of(path, "stage + (t / 8) * 72 + (t % 8) * 8) = src")
    assert not [x for x in findings if x.line == used]
    f = at(findings, "LDS-003", line_of(path, "stage + (t / 8) * 64 + (t % 8) * 8) = src"))
    assert "sized 2304 = 32 x (64 + 8) but indexed with a row stride of 64" in f.message


def test_open_element_type_reached_through_a_dependent_call() -> None:
    # the helper is handed reinterpret_cast<T*>(raw) by a call libclang leaves unresolved; nothing in the file binds
    # T, so the degree is for 4-byte elements, with the 256 threads assumed: both said in the message
    path = SAMPLES / "open_element.hip"
    f = at(run(path), "LDS-001", line_of(path, "acc += buf[lane * 64 + i];"))
    assert f"({OPEN}, i = 0)" in f.message and "(ds_read_b32, 4 B per lane)" in f.message
    assert "block 256x1x1 assumed" in f.message and f.confidence == "low"


def test_open_two_dimensional_tile_of_a_helper_takes_the_block_of_its_template_launch(tmp_path: Path) -> None:
    # an in-place transpose's T tile[16][17] in a helper that a template kernel calls through a dependent call,
    # launched from a host template with dim3(16, 16): nothing binds T, so 4 bytes are assumed; rows jj and jj + 1
    # share a 32-lane phase and the +1 pad still leaves lanes 0 and 31 on one bank. The overload taking three
    # arguments is launched elsewhere and does not lend its block. A 32 x 8 block over [32][33] is conflict-free.
    lines = ["template <typename T> __device__ void tr(T* A, int lda) {",
             "  __shared__ T tile[16][17];",
             "  int ii = threadIdx.x, jj = threadIdx.y;",
             "  tile[jj][ii] = A[ii + jj * lda];",
             "  __syncthreads();",
             "  A[ii + jj * lda] = tile[ii][jj];",
             "}",
             "template <typename T> __global__ void k(T* A, int lda) { tr(A, lda); }",
             "template <typename T> __global__ void k(T* A, int lda, int n) { A[threadIdx.x] = n; }",
             "template <typename T> void h(T* A, int lda) { k<<<1, dim3(16, 16)>>>(A, lda); }",
             "template <typename T> void h3(T* A, int lda) { k<<<1, dim3(64, 4)>>>(A, lda, 3); }"]
    findings = run(kernel_file(tmp_path, *lines))
    store, load = (at(findings, "LDS-001", n) for n in (5, 7))
    assert store.message.startswith("2-way") and "lanes 0, 31 to bank 0" in store.message
    assert OPEN in store.message and load.message.startswith("2-way")
    assert "[block 16x16x1 from the launch at line 11, for 'tr' called from 'k']" in store.message
    fixed = [x.replace("[16][17]", "[32][33]").replace("dim3(16, 16)", "dim3(32, 8)") for x in lines]
    assert not [f for f in run(kernel_file(tmp_path, *fixed)) if f.rule_id.startswith("LDS")]


def test_shared_memory_returned_by_a_getter_takes_the_specializations_element_sizes(tmp_path: Path) -> None:
    # `shared.getPointer()` on SharedMemory<U> depends on U: it may run the float or the double specialization,
    # so the store is judged for each; it conflicts for both, the worst (8 bytes, ds_write_b64) shown
    path = SAMPLES / "shared_getters.hip"
    f = at(run(path), "LDS-001", line_of(path, "buf[2 * i] = a;"))
    assert "write of 'buf' (into 's_float')" in f.message and "(ds_write_b64, 8 B per lane)" in f.message
    assert "(U = float (4 B) or double (8 B): conflicted for float and double, shown for 8-byte elements)" \
        in f.message
    assert "assumed, as for float" not in f.message
    assert "block 32x4x1 from the launch" in f.message
    # a getter that returns a pointer other than shared memory, or one whose address depends on its argument,
    # is not an LDS access
    path = kernel_file(tmp_path,
                       "__device__ float g[4096];",
                       "__device__ float* rows(int r) { extern __shared__ float s[]; return s + r * 32; }",
                       "__device__ float* glob() { return g; }",
                       "__global__ void k(float* o) {",
                       "  o[threadIdx.x] = glob()[32 * threadIdx.x] + rows(threadIdx.x)[0];",
                       "}",
                       "void h(float* o) { k<<<1, 64>>>(o); }")
    assert not [f for f in run(path) if f.rule_id.startswith("LDS")]


def test_shared_array_of_a_template_parameter_type_is_judged_at_four_bytes_when_nothing_binds_it() -> None:
    # `extern __shared__ acc_t cache[]` in a pattern the file never instantiates: acc_t is judged at 4 bytes, said
    # as assumed (--explain too), so the 64-element lane stride and the stride-2 pairs are reported, never as
    # "1 B per lane"; the contiguous cast cache is not, and nothing is left as a mapping unknown (LDS-000)
    path = SAMPLES / "open_shared_element.hip"
    findings = run(path, explain=True)
    f = at(findings, "LDS-001", line_of(path, "acc += cache[lane * 64 + i];"))
    assert OPEN.replace(" T ", " acc_t ") in f.message and "4-way" in f.message
    pairs = [line_of(path, "pairs[2 * threadIdx.x] ="), line_of(path, "pairs[2 * threadIdx.x + 1] =")]
    # the class template's element (TreeReduce<T>::interleaved): both reads of the interleaved pair, 8-way
    tree = line_of(path, "if (at < blockDim.x) part[at] += part[at + i];")
    assert [(x.rule_id, x.line) for x in findings if x.rule_id.startswith("LDS")] == \
        [("LDS-001", f.line), ("LDS-001", pairs[0]), ("LDS-001", pairs[1]), ("LDS-001", tree), ("LDS-001", tree)]
    assert all(OPEN in x.message and " 1 B per lane" not in x.message for x in findings if x.line in (*pairs, tree))
    assert all("8-way" in x.message for x in findings if x.line == tree)


def test_shared_memory_returned_by_a_conversion_operator() -> None:
    # `float *buf = SharedArray<float>();` runs the struct's `operator float*()`, which returns the extern array
    path = SAMPLES / "shared_getters.hip"
    findings = run(path)
    f = at(findings, "LDS-001", line_of(path, "out[threadIdx.x] = buf[32 * threadIdx.x];"))
    assert f.message.startswith("32-way") and "(into 's_conv')" in f.message
    assert not [x for x in findings if x.line == line_of(path, "buf[threadIdx.x] = out[threadIdx.x];")]
    # in a pattern, `T *sdata = DynamicShared<T>();` runs the class template's own conversion: T is open, 4 bytes
    g = at(findings, "LDS-001", line_of(path, "sdata[32 * threadIdx.x];"))
    assert OPEN in g.message and g.message.startswith("32-way")
    assert at(findings, "LDS-001", line_of(path, "out[threadIdx.x] = sdata[2 * threadIdx.x];")).message \
        .startswith("2-way")


def test_power_of_two_runtime_stride_is_judged_at_its_least_conflicted_value() -> None:
    # a scan over a runtime length: `offset` doubles from 1 in the up-sweep and halves in the down-sweep; every
    # power of two is tried and the least conflicted (1: a 2-dword lane stride) reported, with the down-sweep's
    # `tid < d` sampled until d covers a 64-lane wavefront
    path = SAMPLES / "scan.hip"
    findings = run(path)
    up = at(findings, "LDS-001", line_of(path, "      buf[b] += buf[a];"))
    assert up.message.startswith("2-way")
    assert "'offset' is a power of two set at run time: shown for offset = 1, the least conflicted of 1, 2, 4" \
        in up.message
    down = at(findings, "LDS-001", line_of(path, "int t = buf[a];"))
    assert "offset = 1" in down.message and "d = 64" in down.message
    # with GPU Gems' padding offset = 1 is conflict-free, so nothing holds for every offset
    padded = line_of(path, "buf[b + CONFLICT_FREE_OFFSET(b)] += buf[a + CONFLICT_FREE_OFFSET(a)];")
    assert not [f for f in findings if f.line == padded]


def test_open_element_of_a_sort_is_judged_at_four_bytes_and_reported_at_the_call(tmp_path: Path) -> None:
    # a bitonic step's value[pos] / value[pos + stride] handed to the file's compare-and-swap: nothing binds T, so
    # 4 bytes are assumed and the 2-way conflict is reported at the call (the helper only dereferences what it
    # is handed); the same step in a kernel the file instantiates for __half is conflict-free, and with a float
    # instantiation it is reported for that instantiation, assuming nothing
    path = SAMPLES / "element_evidence.hip"
    findings = run(path)
    call = line_of(path, "orderPair<T>(&value[pos], &value[pos + stride]);")
    f = at(findings, "LDS-001", call)
    assert f.message.startswith("2-way") and "(in 'orderPair' at element_evidence.hip:" in f.message
    assert OPEN in f.message and f.confidence == "low"
    assert [x.line for x in findings if x.rule_id.startswith("LDS")] == [call]
    as_float = tmp_path / "float_sort.hip"
    as_float.write_text(path.read_text().replace("halfSort<__half>(__half*)", "halfSort<float>(float*)"))
    step = line_of(as_float, "keys[pos] = keys[pos + stride];")
    g = at(run(as_float), "LDS-001", step)
    assert "halfSort<T = float>" in g.message and "assumed, as for float" not in g.message


def test_element_evidence_reads_instantiations_without_bodies_and_launches() -> None:
    # the types the file binds a pattern's parameter to, beyond the instantiations analyzed in its place: one
    # libclang gave no body for, and a launch's template arguments; types of unknown size are no evidence
    loc = Loc("k.hip", 1, 1)
    pattern = Function("k", "k@k.hip:1:1", "kernel", loc, (), is_template=True, template_params=("T", "N"))
    facts = FileFacts(path="k.hip", target="gfx942", functions=(
        pattern,
        Function("k", "k@k.hip:1:1<__half, 4>", "kernel", loc, (), template_args=(("T", "__half"), ("N", "4"))),
        Function("k", "k@k.hip:1:1<Pair, 4>", "kernel", loc, (), template_args=(("T", "Pair"), ("N", "4"))),
        Function("j", "j@k.hip:9:1<double>", "kernel", loc, (), template_args=(("T", "double"),))),
        launches=(Launch("h", "k", "k@k.hip:1:1<const float, 8>", ("const float", "8"), None, None, None, None,
                         (), loc),))
    assert element_evidence(facts, pattern, "T") == ((2, "__half"), (4, "const float"))
    assert element_evidence(replace(facts, functions=(pattern,), launches=()), pattern, "T") == ()


def test_lane_stride_of_an_assumed_block_extent_is_stated_and_not_invented() -> None:
    path = SAMPLES / "open_element.hip"
    line = line_of(path, "buf[threadIdx.x * blockDim.y + threadIdx.y] =")
    f = at(run(path), "LDS-001", line)
    assert "the lane stride is blockDim.y, 8 in the assumed block" in f.message and f.confidence == "low"
    # an odd blockDim.y steps lanes across all banks: nothing to report
    assert not [x for x in run(path, params=(("default_block", (32, 3, 1)),)) if x.line == line]


# --------------------------------------------------------------------------------------- assumed block dims

def test_assumed_block_is_stated_and_overridable() -> None:
    path = SAMPLES / "misc.hip"
    line = line_of(path, "counters[threadIdx.x * NUM_BUCKETS + b] = 0;")
    f = at(run(path), "LDS-001", line)
    assert "block 256x1x1 assumed (no constant launch or __launch_bounds__; set --block X,Y,Z)" in f.message
    assert f.confidence == "medium"
    g = at(run(path, params=(("default_block", (64, 1, 1)),)), "LDS-001", line)
    assert "block 64x1x1 assumed" in g.message


def test_launch_bounds_gives_a_1d_block() -> None:
    path = SAMPLES / "vector.hip"
    f = at(run(path), "LDS-001", line_of(path, "out[t] = grid2[t % 8][t / 8];"))
    assert "block 256x1x1 from __launch_bounds__(256), 1-D assumed" in f.message
    assert "ds_read_b64" in f.message and f.confidence == "medium"  # b64 phases are inferred


def test_block_from_host_variables_and_constexpr_bounds() -> None:
    path = SAMPLES / "launch.hip"
    findings = run(path)
    f = at(findings, "LDS-001", line_of(path, "sm[threadIdx.y][threadIdx.x] = 1.0f;"))
    decl = line_of(path, "dim3 threads(QUAD, ROWS);")
    assert f"block 4x64x1 from `dim3 threads` at launch.hip:{decl}" in f.message and f.confidence == "high"
    f = at(findings, "LDS-001", line_of(path, "s[threadIdx.x * 32] = out[threadIdx.x];"))
    assert "block 128x1x1 from __launch_bounds__(128)" in f.message
    wide = [x for x in findings if x.rule_id == "LDS-001" and "`int nthreads`" in x.message]
    assert len(wide) == 1 and wide[0].message.startswith("2-way")
    f = at(findings, "LDS-001", line_of(path, "s[threadIdx.x * 8] = out[threadIdx.x];"))
    decl = line_of(path, "dim3 chosen(n);")
    assert f"block 256x1x1 assumed (?x1x1 from `dim3 chosen` at launch.hip:{decl}, the unknown dimension" in f.message
    f = [x for x in findings if x.rule_id == "LDS-001" and "assert(blockDim.x == 4) at line" in x.message]
    assert len(f) == 1 and f[0].message.startswith("8-way") and "block 4x8x8 assumed (4x8x? from assert" in f[0].message
    f = at(findings, "LDS-001", line_of(path, "S[Bc * threadIdx.x + y] = out[y];"))
    assert f.message.startswith("32-way") and "kernel arguments as every launch passes them: Bc = 32" in f.message
    f = at(findings, "LDS-001", line_of(path, "Q[threadIdx.x * d + x] = out[x];"))
    assert f.message.startswith("32-way") and "kernel arguments as every launch passes them: d = 64" in f.message
    f = at(findings, "LDS-001", line_of(path, "s[threadIdx.y][threadIdx.x] = out[threadIdx.x];"))
    decl = line_of(path, "dim3 blk = {4, 8, (unsigned)n / 32};")
    assert f.message.startswith("8-way") and f.confidence == "medium"
    assert f"block 4x8x8 assumed (4x8x? from `dim3 blk` at launch.hip:{decl}, the unknown dimension sized for 256" \
        in f.message


def test_assumed_2d_block_takes_a_padded_tile_at_its_data_width(tmp_path: Path) -> None:
    # tile[16][16 + 1] holds 16 columns of data: with no launch the rows of threads are 16 wide, not 17, so the
    # row write of a 16x16 block is 2-way (dword 32 of row 1 meets dword 0 of row 0); a 32 + 1 tile is not
    k = kernel_file(tmp_path, "__global__ void t16(float* out) {", "  __shared__ float tile[16][17];",
                    "  tile[threadIdx.y][threadIdx.x] = out[threadIdx.x];", "  __syncthreads();",
                    "  out[threadIdx.y] = tile[threadIdx.x][threadIdx.y];", "}",
                    "__global__ void t32(float* out) {", "  __shared__ float tile[32][33];",
                    "  tile[threadIdx.y][threadIdx.x] = out[threadIdx.x];", "  __syncthreads();",
                    "  out[threadIdx.y] = tile[threadIdx.x][threadIdx.y];", "}")
    found = run(k)
    f = at(found, "LDS-001", 4)
    assert f.message.startswith("2-way") and "256 threads shaped as rows of 16" in f.message
    assert not [x for x in found if x.rule_id == "LDS-001" and x.line in (10, 12)]


def test_block_shape_from_a_flattened_3d_thread_index(tmp_path: Path) -> None:
    # tIdx = tz * 16 + ty * 4 + tx numbers the threads of a 4 x 4 x n block; a dim3 local built from the thread
    # index (idx.x = tx + 1) is followed. [x][y][z] of a 6x6x6 double tile puts the lanes of each 16-lane
    # ds_write_b64 phase at banks 8 tx + 12 ty: 2-way; the same lanes in a row of 64 doubles are not
    k = kernel_file(tmp_path, "__global__ void halo(const double* in, double* out) {",
                    "  unsigned tx = threadIdx.x, ty = threadIdx.y, tz = threadIdx.z;",
                    "  unsigned tIdx = tz * 4 * 4 + ty * 4 + tx;",
                    "  __shared__ double sol[6][6][6];", "  dim3 idx(tx + 1, ty + 1, tz + 1);",
                    "  sol[idx.x][idx.y][idx.z] = in[tIdx];", "  __shared__ double flat[64];",
                    "  flat[tIdx] = in[tIdx];", "  out[tIdx] = sol[1][1][1] + flat[0];", "}")
    found = run(k)
    f = at(found, "LDS-001", 7)
    assert f.message.startswith("2-way") and "ds_write_b64" in f.message
    assert "4x4x? from the thread index flattened as tz * 16 + ty * 4 + tx at line 4" in f.message
    assert f.confidence != "high"
    assert not [x for x in found if x.rule_id == "LDS-001" and x.line == 9]


LAMBDA_WRAPPER = (
    "template <typename B> __global__ void run2d(int n, B body) {",
    "  for (int k = blockIdx.x; k < n; k += gridDim.x) { body(k); } }",
    "template <typename B> void wrap2d(int n, B &&body, int X, int Y, int BZ) {",
    "  const dim3 threads(X, Y, BZ);",
    "  hipLaunchKernelGGL(run2d, (n + BZ - 1) / BZ, threads, 0, nullptr, n, body); }",
    "template <typename L> void forall_2d(int n, int X, int Y, L &&body) { wrap2d(n, body, X, Y, 1); }",
    "#define FOREACH_THREAD(i, k, N) for (int i = threadIdx.k; i < N; i += blockDim.k)",
)


def test_a_block_extent_passed_as_a_kernel_argument_is_that_constant(tmp_path: Path) -> None:
    # the launch hands its own block width as the tile pitch (blockDim.x of `dim3 blockDim(16, 16, 1)`): the
    # 17-word rows of a 16x16 block put two rows in a 32-lane phase, 2-way; a block built at run time says nothing
    lines = ["__global__ void copy(const float* in, float* out, unsigned W) {",
             "  __shared__ float lbuf[256];",
             "  lbuf[threadIdx.y * (W + 1) + threadIdx.x] = in[threadIdx.x];",
             "  __syncthreads();",
             "  out[threadIdx.x] = lbuf[threadIdx.x * (W + 1) + threadIdx.y];",
             "}",
             "void run(const float* in, float* out, int n) {",
             "  dim3 blockDim(16, 16, 1);",
             "  copy<<<n, blockDim>>>(in, out, blockDim.x);",
             "}"]
    f = at(run(kernel_file(tmp_path, *lines)), "LDS-001", 4)
    assert f.message.startswith("2-way") and "kernel arguments as every launch passes them: W = 16" in f.message
    changed = [x.replace("dim3 blockDim(16, 16, 1);", "dim3 blockDim(16, 16, 1); blockDim.x = n;") for x in lines]
    assert not [x for x in run(kernel_file(tmp_path, *changed)) if x.rule_id == "LDS-001"]


@pytest.mark.parametrize("row", ["Q", "Q + 1"])
def test_device_lambda_takes_the_block_its_launch_wrapper_builds(tmp_path: Path, row: str) -> None:
    # mfem's forall_2D idiom: the shared array lives in a device lambda of a host function, the wrapper passes
    # the lambda on through two calls to a launch whose block is dim3(X, Y, 1) of the caller's arguments, and
    # thread loops stride threadIdx by blockDim. s[x][y] of 16 x 16 doubles: each 16-lane phase on one bank
    k = kernel_file(tmp_path, *LAMBDA_WRAPPER,
                    "void transpose(int ne, const double* in, double* out) {", "  constexpr int Q = 16;",
                    "  forall_2d(ne, Q, Q, [=] __device__ (int e) {", f"    __shared__ double s[Q][{row}];",
                    "    FOREACH_THREAD(y, y, Q) { FOREACH_THREAD(x, x, Q) { s[x][y] = in[e * Q * Q + y * Q + x]; } }",
                    "    __syncthreads();",
                    "    FOREACH_THREAD(y, y, Q) { FOREACH_THREAD(x, x, Q) { out[e * Q * Q + y * Q + x] = s[y][x]; } }",
                    "  });", "}")
    found = [f for f in run(k) if f.rule_id.startswith("LDS")]
    if row == "Q + 1":
        assert not found
        return
    f = at(found, "LDS-001", 13)
    assert f.message.startswith("16-way") and "ds_write_b64" in f.message
    assert "block 16x16x1 from `forall_2d`'s launch of the lambda at line 11" in f.message
    assert not [x for x in found if x.line == 15]
    # kept apart from the file's kernel launches, which the host-side wave64 rules read
    facts = analyze_file(k, make_config(target="gfx942"))
    assert [(ln.kernel, ln.wrapper, ln.block_dims) for ln in facts.lambda_launches] == [
        ("transpose", "forall_2d", (16, 16, 1))]
    assert all(not ln.wrapper for ln in facts.launches)


def test_a_changed_dim3_local_is_not_taken_for_its_constructor(tmp_path: Path) -> None:
    # built as 64 tx (32-way if it stayed so), then reassigned to tx: the field is not the constructor's
    k = kernel_file(tmp_path, "__global__ void moved(const float* in) {", "  __shared__ float buf[64 * 64];",
                    "  dim3 idx(threadIdx.x * 64);", "  idx.x = threadIdx.x;",
                    "  buf[idx.x] = in[threadIdx.x];", "  __shared__ float col[64 * 64];",
                    "  dim3 kept(threadIdx.x * 64);", "  col[kept.x + kept.y] = in[threadIdx.x];", "}")
    found = run(k)
    assert not [x for x in found if x.rule_id == "LDS-001" and x.line == 6]
    assert at(found, "LDS-001", 9).message.startswith("32-way")  # kept.y: 1, dim3's default


def test_an_index_assigned_in_several_places_is_read_at_the_assignment_that_reaches_it(tmp_path: Path) -> None:
    # a scan's ai = ... in the up-sweep and again in the down-sweep: each use reads the last unconditional
    # assignment before it; one under a branch, or one a loop brings back round, leaves the index open
    k = kernel_file(tmp_path, "__global__ void sweeps(float* out) {", "  __shared__ float s[512];", "  int ai;",
                    "  ai = 2 * threadIdx.x;", "  s[ai] += 1.0f;", "  ai = threadIdx.x;", "  s[ai] += 1.0f;",
                    "  if (threadIdx.x < 64) ai = 4 * threadIdx.x;", "  s[ai] = 0.0f;", "  ai = 2 * threadIdx.x;",
                    "  for (int i = 0; i < 4; ++i) {", "    s[ai] = 0.0f;", "    ai = threadIdx.x;", "  }", "}")
    found = [x for x in run(k) if x.rule_id == "LDS-001"]
    assert at(found, "LDS-001", 6).message.startswith("2-way")
    assert not [x for x in found if x.line in (8, 10, 13)]


def test_a_launch_in_a_host_template_gives_each_instantiation_its_block(tmp_path: Path) -> None:
    # sosfilt<T><<<g, threads>>> in filtering<T>: the dependent launch runs every instantiation of the kernel, and
    # the width the template passes on is the one main gives both instantiations
    k = kernel_file(tmp_path, "template <typename T> __global__ void strided(T* out, int w) {",
                    "  __shared__ T s[512];", "  s[threadIdx.x * w] = out[threadIdx.x];", "}",
                    "template <typename T> void filtering(T* p, int w) {", "  dim3 threads(64);",
                    "  strided<T><<<1, threads>>>(p, w);", "}",
                    "int main() {", "  const int w = 2;", "  filtering<float>(nullptr, w);",
                    "  filtering<double>(nullptr, w);", "}")
    f = at(run(k), "LDS-001", 4)
    assert f.message.startswith("2-way") and "block 64x1x1 from `dim3 threads`" in f.message
    assert "kernel arguments as every launch passes them: w = 2" in f.message


def test_block_built_from_the_devices_wavefront_width(tmp_path: Path) -> None:
    # hipDeviceProp_t::warpSize and hipDeviceGetAttribute in the sample, at::cuda::warp_size() here: each is the
    # target's width, and the block is then a launch's, not an assumption; a width from anything else stays open
    path = SAMPLES / "device_width.hip"
    findings = run(path)
    f = at(findings, "LDS-001", line_of(path, "tile[row * stride + col + k] = value;"))
    decl = line_of(path, "const dim3 threads(prop.warpSize, 4, 1);")
    assert f"block 64x4x1 from `dim3 threads` at device_width.hip:{decl}; prop.warpSize: the target's wavefront " \
        "width, 64" \
        in f.message and "as called at line" in f.message
    f = at(findings, "LDS-001", line_of(path, "s[threadIdx.x * 2] = out[threadIdx.x];"))
    assert "block 64x16x1 from the launch at line" in f.message and "width: the target's wavefront width, 64" \
        in f.message and f.confidence == "high"
    k = kernel_file(tmp_path, "#include <ATen/cuda/CUDAContext.h>",
                    "__global__ void evens(float* out) {", "  __shared__ float s[128];",
                    "  s[threadIdx.x * 2] = out[threadIdx.x];", "}",
                    "__global__ void evensToo(float* out) {", "  __shared__ float s[128];",
                    "  s[threadIdx.x * 2] = out[threadIdx.x];", "}",
                    "void torchLaunch(float* out, int n, int w) {", "  const int wave = at::cuda::warp_size();",
                    "  evens<<<n, dim3(wave, 16)>>>(out);", "  evensToo<<<n, dim3(w, 16)>>>(out);", "}")
    found = run(k)
    f = at(found, "LDS-001", 5)
    assert "block 64x16x1 from `int wave` at k.hip:12; wave: the target's wavefront width, 64" in f.message
    # the same kernel under a block whose width is a parameter: 16 wide as assumed, where nothing conflicts
    assert not [x for x in found if x.rule_id == "LDS-001" and x.line == 9]


def test_header_helper_access_takes_the_helpers_width_and_direction(tmp_path: Path) -> None:
    # store16 / load16 make one 16-byte access through their pointer: judged at the call, as ds_write_b128 /
    # ds_read_b128; the same helper on global memory, or a helper that moves its pointer first, is no LDS access
    (tmp_path / "mem.h").write_text(
        '#pragma once\n#include "hip/hip_runtime.h"\n'
        "__device__ inline void store16(float* p, float4 v) { *reinterpret_cast<float4*>(p) = v; }\n"
        "__device__ inline float4 load16(const float* p) { return *reinterpret_cast<const float4*>(p); }\n"
        "__device__ inline float second(const float* p) { p += 64; return p[0]; }\n")
    path = kernel_file(tmp_path, '#include "mem.h"',
                       "__global__ void k(const float* g, float4* o) {",
                       "  __shared__ float s[4096];",
                       "  store16(s + threadIdx.x * 8, o[threadIdx.x]);",
                       "  __syncthreads();",
                       "  o[threadIdx.x] = load16(s + threadIdx.x * 16);",
                       "  o[threadIdx.x + 64] = load16(g + threadIdx.x * 16);",
                       "  o[0].x = second(s + threadIdx.x * 32);",
                       "}",
                       "void h(const float* g, float4* o) { k<<<1, 64>>>(g, o); }")
    findings = run(path)
    assert "write of 's' (in 'store16' at mem.h:3) (ds_write_b128, 16 B per lane)" in at(findings, "LDS-001", 5).message
    # 16 dwords per lane: lanes 0, 2 of the {0-3,20-23} group share banks 0-3, and so do 20, 22
    assert "read of 's' (in 'load16' at mem.h:4) (ds_read_b128, 16 B per lane)" in at(findings, "LDS-001", 7).message
    assert {f.line for f in findings if f.rule_id.startswith("LDS")} == {5, 7}
    assert all(Path(f.path).name == "k.hip" for f in findings)


def test_conflict_names_the_alias_the_line_writes(tmp_path: Path) -> None:
    # the user reads the line: a finding on `row[...]` names `row` and the array it points into, and one on the
    # array itself names the array alone
    path = kernel_file(tmp_path,
                       "__global__ void k(float* o) {",
                       "  __shared__ float tile[64 * 32];",
                       "  float* row = tile + threadIdx.x * 32;",
                       "  row[0] = o[threadIdx.x];",
                       "  __syncthreads();",
                       "  o[threadIdx.x] = tile[threadIdx.x * 32];",
                       "}",
                       "void h(float* o) { k<<<1, 64>>>(o); }")
    findings = run(path)
    assert "write of 'row' (into 'tile') (ds_write_b32" in at(findings, "LDS-001", 5).message
    assert "read of 'tile' (ds_read_b32" in at(findings, "LDS-001", 7).message


def test_conflict_names_the_instantiation(tmp_path: Path) -> None:
    # which template arguments conflict (a bool spelled as C++ does, not libclang's -1), and the launch's block
    path = kernel_file(tmp_path, "template <bool S, int N> __global__ void k(float* o) {",
                       "  __shared__ float s[N * 64];",
                       "  s[threadIdx.x * N] = S ? 1.f : 0.f;",
                       "}",
                       "void h(float* d) { k<true, 32><<<1, 64>>>(d); }")
    f = at(run(path), "LDS-001", 4)
    assert "(k<S = true, N = 32>)" in f.message and "block 64x1x1 from the launch at line 6" in f.message


# ------------------------------------------------------------------------------------------------ --explain

def test_explain_lists_undetermined_access() -> None:
    path = SAMPLES / "misc.hip"
    line = line_of(path, "keys[i] % NUM_BUCKETS] += 1;")
    assert not [f for f in run(path) if f.rule_id == "LDS-000"]
    f = at(run(path, explain=True), "LDS-000", line)
    assert "an index loaded from memory" in f.message and f.severity == "note"
    assert "LDS-000" not in {r.id for r in select_rules()}
    assert "LDS-000" in {r.id for r in select_rules(explain=True)}
    assert rule_by_id("LDS-000").explain_only


def test_triangular_loop_nest(tmp_path: Path) -> None:
    # the inner bound follows the outer variable (bitonic sort): the inner values of every sampled outer
    # iteration are judged; the XOR partner col ^ j is a permutation of aligned words, conflict-free
    path = kernel_file(tmp_path, "__global__ void __launch_bounds__(256) bitonic(int* out, int n) {",
                       "  __shared__ int row[256];",
                       "  int col = threadIdx.x;",
                       "  for (int k = 2; k <= n; k *= 2)",
                       "    for (int j = k / 2; j > 0; j /= 2) out[col] += row[col ^ j];",
                       "  for (int k = 2; k <= n; k *= 2)",
                       "    for (int j = k / 2; j > 0; j /= 2) out[col] += row[(col * k + j) & 255];",
                       "}")
    findings = run(path, explain=True)
    assert not [f for f in findings if f.line == 6]
    # an address that pairs the inner variable with the outer one is not judged on unpaired samples
    f = at(findings, "LDS-000", 8)
    assert "uses 'j' of a triangular loop nest together with the enclosing loop's variable" in f.message
    assert "unbound symbol" not in f.message


def test_cli_explain_and_block() -> None:
    path = str(SAMPLES / "misc.hip")
    runner = CliRunner()
    plain = runner.invoke(analyze, [path, "-q", "-j", "1", "--select", "LDS"])
    assert "LDS-000" not in plain.output and "LDS-001" in plain.output
    explained = runner.invoke(analyze, [path, "-q", "-j", "1", "--select", "LDS", "--explain"])
    assert "LDS-000" in explained.output and "an index loaded from memory" in explained.output
    blocked = runner.invoke(analyze, [path, "-q", "-j", "1", "--select", "LDS-001", "--block", "128,1,1"])
    assert "block 128x1x1 assumed" in blocked.output
    bad = runner.invoke(analyze, [path, "-q", "-j", "1", "--block", "0,1"])
    assert bad.exit_code == 2


# -------------------------------------------------------------------------------------------------- fix-its

@pytest.mark.parametrize("name,kernel_line", [
    ("transpose.hip", "= tile[threadIdx.x][threadIdx.y + j];"),
    ("gemm.hip", "sum += As[ty][k] * BsT[tx][k];"),
])
def test_fix_it_reanalyzes_clean(tmp_path: Path, name: str, kernel_line: str) -> None:
    src = SAMPLES / name
    copy = tmp_path / name
    shutil.copy(src, copy)
    before = [f for f in run(copy) if f.rule_id in ("LDS-001", "LDS-002")]
    line = line_of(copy, kernel_line)
    assert any(f.line == line and f.edits for f in before)
    apply_edits(copy, before)
    after = [f for f in run(copy) if f.rule_id in ("LDS-001", "LDS-002")]
    assert not after, [f"{f.line}: {f.message}" for f in after]


def test_rule_docs_name_the_model_and_counters() -> None:
    for rid in ("LDS-001", "LDS-002"):
        rule = rule_by_id(rid)
        assert rule is not None
        assert "SQ_LDS_BANK_CONFLICT" in rule.why and "SQ_LDS_IDX_ACTIVE" in rule.why
        assert "3.125" in rule.why
        assert any("Composable Kernel" in r for r in rule.references)
    assert "{0-3,20-23}" in rule_by_id("LDS-001").why and "inferred" in rule_by_id("LDS-001").why


# ------------------------------------------------------------- kernels reached through explicit instantiations

def test_kernels_reached_only_through_explicitly_instantiated_host_templates() -> None:
    path = SAMPLES / "dispatch.hip"
    findings = run(path)
    column = at(findings, "LDS-001", line_of(path, "acc += tile[col * K::kPer + i][row];"))
    # the element type, padded row and block come from rows_cuda<float> -> rows_launch<128, 2, 1, float> ->
    # the BOOL_SWITCH lambda's `auto padded = &paddedRows<K, kScale>; padded<<<..., K::kNThreads>>>`
    assert "paddedRows<K = RowTraits<128, 2, 1, float>, kScale = true>" in column.message
    assert "4-way" in column.message and "ds_read_b32" in column.message
    assert f"block 128x1x1 from the launch at line {line_of(path, 'padded<<<')}" in column.message
    assert column.confidence == "high"
    # rows r and r + 2 are both active only when kWidth - 1 > 2: the kWidth = 4 instantiation is the one
    vector = at(findings, "LDS-002", line_of(path, "[K::kNThreads + tid] = reinterpret_cast<uint4*>(tile[r])[c];"))
    assert "RowTraits<128, 4, 1, float>" in vector.message and "ds_read_b128" in vector.message
    assert "lanes 0, 22" in vector.message
    plain = range(line_of(path, "void plainRows("), line_of(path, "void rows_launch("))
    assert not [f for f in findings if f.line in plain], "the unpadded kernel is conflict-free"


def test_explicit_instantiations_and_pointer_launches_in_the_facts() -> None:
    facts = analyze_file(SAMPLES / "dispatch.hip", ParseConfig())
    names = {f.name for f in facts.functions if f.template_args}
    assert {"rows_cuda", "rows_launch", "paddedRows", "plainRows"} <= names   # cudaStream_t parsed
    kernels = {f.usr for f in facts.functions if f.kind == "kernel" and f.template_args}
    pointer_launches = [ln for ln in facts.launches if ln.kernel in ("paddedRows", "plainRows")]
    assert len(pointer_launches) == 16   # 4 rows_launch instantiations x 2 BOOL_SWITCH sides x 2 launches
    assert all(ln.kernel_usr in kernels and ln.block_dims == (128, 1, 1) for ln in pointer_launches)


def test_device_function_passed_as_a_template_argument_runs_with_the_launch_block() -> None:
    path = SAMPLES / "dispatch.hip"
    hit = at(run(path), "LDS-001", line_of(path, "acc += rows_s[u + 8 * threadIdx.y][threadIdx.x];"))
    assert "block 16x16x1 from the launch at line" in hit.message
    assert "for 'stridedRows' called from 'tileKernel'" in hit.message
    facts = analyze_file(path, ParseConfig())
    calls = {n.op for f in facts.functions if f.name == "tileKernel" and f.template_args and f.body
             for n in f.body.walk() if n.kind == "call" and n.ref}
    assert {"stridedRows", "packedRows"} <= calls


def test_launch_bounds_read_from_a_traits_argument(tmp_path: Path) -> None:
    # explicitly instantiated, launched from another file: the block comes from __launch_bounds__(K::kThreads)
    path = kernel_file(tmp_path,
                       "template <int N> struct Tr { static constexpr int kThreads = N; };",
                       "template <typename K> __global__ __launch_bounds__(K::kThreads) void k(float* o) {",
                       "  __shared__ float s[32][32];",
                       "  s[threadIdx.x % 32][threadIdx.x / 32] = o[threadIdx.x];",
                       "  __syncthreads();",
                       "  o[threadIdx.x] = s[0][threadIdx.x % 32] * K::kThreads;",
                       "}",
                       "template __global__ void k<Tr<64>>(float*);")
    hit = at(run(path), "LDS-001", 5)
    assert "block 64x1x1 from __launch_bounds__(64)" in hit.message


def test_routine_behind_a_forwarding_wrapper_is_judged_as_shared_at_lower_confidence(tmp_path: Path) -> None:
    """A block routine that only a wrapper passing its own pointer on calls: taken for shared memory with the
    assumed block, and the finding says so; an access it cannot follow says so under --explain too."""
    path = SAMPLES / "forwarded_helpers.cuh"
    f = at(run(path), "LDS-001", line_of(path, "const float a = keys[pos];"))
    assert "'keys' taken for shared memory" in f.message and "assumed" in f.message
    assert f.confidence == "low"
    open_row = kernel_file(tmp_path,
                           "__device__ void rows(float* part, int n) {",
                           "  part[threadIdx.x * n] = 1.0f;",
                           "  __syncthreads();",
                           "  float v = part[(threadIdx.x % 64) * n];",
                           "  part[threadIdx.x * n] = v;",
                           "}",
                           "__device__ void rows_of(float* part, int n) { rows(part, n); }")
    u = at(run(open_row, explain=True), "LDS-000", 5)
    assert "'part' taken for shared memory" in u.message


def test_a_shared_array_wrapper_is_the_array_it_holds(tmp_path: Path) -> None:
    """`__shared__ raw_array<double, 256>` (byte storage sized N * sizeof(T), read through `T& operator[]`) is
    256 doubles: its accesses are 8-byte ones; the declaration's facts say so too."""
    path = kernel_file(
        tmp_path,
        "template <typename T, int N> struct raw_array {",
        "  __device__ T &operator[](int i) { return reinterpret_cast<T *>(data_)[i]; }",
        "  alignas(T) unsigned char data_[N * sizeof(T)];",
        "};",
        "__global__ void k(double *out) {",
        "  __shared__ raw_array<double, 256> s;",
        "  s[threadIdx.x] = out[threadIdx.x];",
        "  __syncthreads();",
        "  out[threadIdx.x] = s[16 * threadIdx.x];",
        "}")
    facts = analyze_file(path, make_config(target="gfx942"))
    decl = next(d for d in facts.shared if d.name == "s")
    assert (decl.elem_type, decl.elem_bytes, decl.dims) == ("double", 8, (256,))
    findings = run(path)
    assert "ds_read_b64" in at(findings, "LDS-001", 10).message
    assert not [f for f in findings if f.line == 8]


def test_index_helpers_with_arguments_are_read_with_the_callers_lanes() -> None:
    # flat_at(t, k) = t * 32 + k: the lanes 32 floats apart (32-way); round_down_div(2 * t, 1) = 2t: 2-way, its
    # local folded in; a helper that loads its value stays a mapping unknown, named by the load, not guessed
    path = SAMPLES / "index_helpers.hip"
    findings = run(path, explain=True)
    f = at(findings, "LDS-001", line_of(path, "tile[flat_at(t, k)] = in[k * TILE + t];"))
    assert f.message.startswith("32-way") and "lanes 0-31 to bank 0" in f.message
    assert at(findings, "LDS-001", line_of(path, "row[round_down_div(2 * t, 1)]")).message.startswith("2-way")
    u = at(findings, "LDS-000", line_of(path, "s[slot_of(perm, threadIdx.x)]"))
    assert "an index loaded from memory" in u.message
    assert not [x for x in findings if x.line == line_of(path, "row[round_down_div(2 * t, 2)]")]


def test_array_wrapper_in_a_template_pattern_is_read_from_the_class_template() -> None:
    # held_array<V, B> in a kernel template never launched: the one field `T data_[N]` gives the element V (open,
    # 4 bytes assumed) and the sweep's 2 * i lane stride is found; a class with a second field is not the array
    path = SAMPLES / "array_wrappers.hip"
    findings = run(path, explain=True)
    f = at(findings, "LDS-001", line_of(path, "part[bi] += part[i * (2 * t + 1) - 1];"))
    assert f.message.startswith("32-way") and "element type V open" in f.message and "i = 16" in f.message
    counted = line_of(path, "c[32 * threadIdx.x] = x[threadIdx.x];")
    assert not [x for x in findings if x.line == counted and x.rule_id != "LDS-000"]


def test_launch_bounds_parameter_of_a_pattern_is_the_blocks_size() -> None:
    # __launch_bounds__(B) with B open: B is the 256 threads assumed, said in the message, so the down-sweep from
    # B / 2 runs and the hi < B guard narrows its lanes (8 of them at i = 16: 8-way)
    path = SAMPLES / "scan.hip"
    f = at(run(path), "LDS-001", line_of(path, "V keep = part[lo];"))
    assert f.message.startswith("8-way") and "i = 16" in f.message
    assert "__launch_bounds__(B) of the open template parameter" in f.message and "B = 256" in f.message
    assert not [x for x in run(path) if x.line == line_of(path, "part[t] = data[t];")]


def test_a_guard_capped_by_a_constant_narrows_the_lanes() -> None:
    # tid < (n < 4 ? n : 4) and tid < min(n, 2): at most 4 and 2 lanes, 64 floats apart: 4- and 2-way, not 32-way
    path = SAMPLES / "capped_guards.hip"
    findings = run(path)
    assert at(findings, "LDS-001", line_of(path, "out[tid] = sums[tid * COLS];")).message.startswith("4-way")
    assert at(findings, "LDS-001", line_of(path, "sums[tid * COLS + 1];")).message.startswith("2-way")


def test_an_index_stepped_in_straight_line_code_is_followed(tmp_path: Path) -> None:
    """`i = threadIdx.x; i *= 32;` before the store: the store sees the stepped value (a 32-dword lane stride,
    one bank for every lane). A step under a branch leaves the value open: nothing is claimed."""
    path = kernel_file(tmp_path,
                       "__global__ void k(float* out, int flag) {",
                       "  __shared__ float s[64 * 32];",
                       "  int i = threadIdx.x;",
                       "  i *= 32;",
                       "  s[i] = out[threadIdx.x];",
                       "  int j = threadIdx.x;",
                       "  if (flag) j *= 32;",
                       "  s[j] = out[threadIdx.x];",
                       "  __syncthreads();",
                       "  out[threadIdx.x] = s[threadIdx.x];",
                       "}",
                       "void go(float* o) { k<<<1, 64>>>(o, 1); }")
    findings = run(path)
    assert at(findings, "LDS-001", 6).message.startswith("32-way")
    assert not [f for f in findings if f.rule_id == "LDS-001" and f.line == 9]


CR_STEP = (
    "#define BS 256",
    "__global__ void __launch_bounds__(BS) cr(int levels, float* d) {",
    "  __shared__ float sb[2 * BS];",
    "  int tid = threadIdx.x;",
    "  int stride = 1;",
    "  int i = BS;",
    "  sb[tid] = d[tid]; sb[tid + BS] = d[tid + BS];",
    "  __syncthreads();",
    "  for (int j = 0; j < levels; j++) {",
    "    stride <<= 1;",
    "    if (tid < i) {",
    "      int index = stride * tid + stride - 1;",
    "      int right = index + (stride >> 1);",
    "      if (right >= 2 * BS) {",
    "        right = 2 * BS - 1;",
    "      }",
    "      sb[index] = sb[index] - sb[right];",
    "    }",
    "    i >>= 1;",
    "    __syncthreads();",
    "  }",
    "  d[tid] = sb[tid];",
    "}",
)


def test_cyclic_reduction_stride_is_evaluated_per_iteration_with_its_clamped_neighbour(tmp_path: Path) -> None:
    # `stride <<= 1` at the top of the body: the reads after it see 2, 4, 8, ... (not the 1 it entered with),
    # and `right`, clamped to the array's end by an `if`, is `right >= 2 * BS ? 2 * BS - 1 : right`
    path = kernel_file(tmp_path, *CR_STEP)
    findings = run(path, explain=True)
    line = line_of(path, "sb[index] = sb[index] - sb[right];")
    f = at(findings, "LDS-001", line)
    assert f.message.startswith("16-way") and "j = 3" in f.message
    assert not [x for x in findings if x.rule_id == "LDS-000"]
    # parallel cyclic reduction: neighbours at tid + s, clamped the same way, are consecutive dwords
    pcr = tmp_path / "pcr.hip"
    pcr.write_text(path.read_text().replace("int index = stride * tid + stride - 1;", "int index = tid;")
                   .replace("int right = index + (stride >> 1);", "int right = index + stride;"))
    clean = run(pcr, explain=True)
    assert not [x for x in clean if x.rule_id.startswith("LDS")], clean


def test_while_loop_stride_and_a_down_sweep_entered_after_an_up_sweep(tmp_path: Path) -> None:
    # `stride = 2; while (stride <= BS) {...; stride *= 2;}` is counted like a for loop; the down-sweep after
    # it starts from `stride = BS / 2`, not from whatever the up-sweep left
    path = kernel_file(
        tmp_path,
        "#define BS 256",
        "__global__ void __launch_bounds__(BS) spike(float* w) {",
        "  __shared__ float sw[2 * BS];",
        "  int tid = threadIdx.x;",
        "  sw[tid] = w[tid]; sw[tid + BS] = w[tid + BS];",
        "  __syncthreads();",
        "  int stride = 2;",
        "  while (stride <= BS) {",
        "    if (tid < BS / stride) {",
        "      int index = stride * tid + stride / 2 - 1;",
        "      sw[index + 1] = 2.0f * sw[index + 1];",
        "    }",
        "    stride *= 2;",
        "    __syncthreads();",
        "  }",
        "  stride = BS / 2;",
        "  while (stride >= 2) {",
        "    if (tid < BS / stride) {",
        "      int index = stride * tid + stride / 2 - 1;",
        "      int minus = index - stride / 2;",
        "      minus = (minus < 0) ? 0 : minus;",
        "      sw[minus + BS] = 3.0f * sw[index + BS];",
        "    }",
        "    stride /= 2;",
        "    __syncthreads();",
        "  }",
        "  w[tid] = sw[tid];",
        "}",
    )
    findings = run(path, explain=True)
    up = at(findings, "LDS-001", line_of(path, "sw[index + 1] = 2.0f * sw[index + 1];"))
    down = at(findings, "LDS-001", line_of(path, "sw[minus + BS] = 3.0f * sw[index + BS];"))
    assert up.message.startswith("8-way") and down.message.startswith("8-way")
    assert not [x for x in findings if x.rule_id == "LDS-000"]
    # a tree reduction over the same while loop reads consecutive dwords: nothing to report
    tree = tmp_path / "tree.hip"
    tree.write_text(path.read_text().replace("int index = stride * tid + stride / 2 - 1;", "int index = tid;"))
    assert not [x for x in run(tree) if x.rule_id.startswith("LDS") and x.line < line_of(tree, "stride = BS / 2;")]


def test_stride_after_a_counted_loop_and_a_log2_level_count(tmp_path: Path) -> None:
    # the value a counted loop leaves its carried variable with: log2(BS) - 5 = 3 doublings, stride 8
    path = kernel_file(
        tmp_path,
        "#define BS 256",
        "__global__ void __launch_bounds__(BS) gather(float* d) {",
        "  __shared__ float sa[2 * BS];",
        "  __shared__ float sp[64];",
        "  int tid = threadIdx.x;",
        "  sa[tid] = d[tid]; sa[tid + BS] = d[tid + BS];",
        "  __syncthreads();",
        "  int levels = (int)log2f(BS) - 5;",
        "  int stride = 1;",
        "  for (int j = 0; j < levels; j++) {",
        "    stride <<= 1;",
        "  }",
        "  if (tid < 64) {",
        "    sp[tid] = sa[tid * stride + stride - 1];",
        "  }",
        "  __syncthreads();",
        "  d[tid] = sp[tid % 64];",
        "}",
    )
    f = at(run(path), "LDS-001", line_of(path, "sp[tid] = sa[tid * stride + stride - 1];"))
    assert f.message.startswith("8-way")
    once = tmp_path / "once.hip"
    once.write_text(path.read_text().replace("(int)log2f(BS) - 5", "(int)log2f(BS) - 8"))
    assert not [x for x in run(once) if x.rule_id.startswith("LDS")]


def test_launch_bounds_spelled_through_a_qualifier_macro(tmp_path: Path) -> None:
    # rocSPARSE's ROCSPARSE_KERNEL(BLOCKSIZE): the block of a pattern is its __launch_bounds__ parameter
    path = kernel_file(
        tmp_path,
        "#define MY_KERNEL(T) __launch_bounds__(T) static __global__",
        "template <unsigned BLOCKSIZE>",
        "MY_KERNEL(BLOCKSIZE) void k(float* d) {",
        "  __shared__ float s[2 * BLOCKSIZE];",
        "  int tid = threadIdx.x;",
        "  s[tid] = d[tid]; s[tid + BLOCKSIZE] = d[tid + BLOCKSIZE];",
        "  __syncthreads();",
        "  int stride = BLOCKSIZE / 32;",
        "  d[tid] = s[(tid * stride) % (2 * BLOCKSIZE)];",
        "}",
    )
    f = at(run(path), "LDS-001", line_of(path, "d[tid] = s[(tid * stride) % (2 * BLOCKSIZE)];"))
    assert f.message.startswith("8-way") and "__launch_bounds__(BLOCKSIZE)" in f.message


def test_reference_to_a_shared_element_is_accessed_where_it_is_used(tmp_path: Path) -> None:
    # `MinLoc& mine = minloc[threadIdx.x]`: each `mine.val` reads or writes that element's 8-byte field, at a
    # 16-byte lane stride (2-way for ds_read_b64); binding the reference accesses nothing
    lines = (
        "struct MinLoc { double val; long loc; };",
        "__global__ void __launch_bounds__(256) first_min(const double* x, MinLoc* out, int n) {",
        "  __shared__ MinLoc minloc[256];",
        "  minloc[threadIdx.x].val = 1e300;",
        "  for (int i = blockIdx.x * 256 + threadIdx.x; i < n; i += gridDim.x * 256) {",
        "    MinLoc& mine = minloc[threadIdx.x];",
        "    if (x[i] < mine.val) { mine.val = x[i]; }",
        "  }",
        "  __syncthreads();",
        "  if (threadIdx.x == 0) out[blockIdx.x] = minloc[0];",
        "}",
    )
    path = kernel_file(tmp_path, *lines)
    findings = run(path, explain=True)
    use = line_of(path, "if (x[i] < mine.val)")
    hits = [f for f in findings if f.rule_id == "LDS-001" and f.line == use]
    assert {f.message.split(" of ")[0] for f in hits} == {"2-way LDS bank conflict on gfx942: read",
                                                          "2-way LDS bank conflict on gfx942: write"}
    assert "'mine' (into 'minloc')" in hits[0].message
    assert not [f for f in findings if f.line == line_of(path, "MinLoc& mine")]
    # one double per lane: consecutive 8-byte slots, conflict-free
    flat = tmp_path / "flat.hip"
    flat.write_text(path.read_text().replace("double val; long loc;", "double val;"))
    assert not [f for f in run(flat) if f.rule_id.startswith("LDS")]


def test_undeclared_element_type_is_not_read_as_int(tmp_path: Path) -> None:
    """`__shared__ uchar lbuf[...]` without the header that declares uchar: clang reads the element as int. The
    OpenCL scalar name gives its size (1 byte), so 8-byte rows of a byte buffer are contiguous per phase; an
    element type of any other undeclared name has no size and is not judged."""
    lines = ("__global__ void __launch_bounds__(256) box(uint2* out, const uint2* in) {",
             "  __shared__ uchar lbuf[2448];",
             "  int lx = threadIdx.x % 16, ly = threadIdx.x / 16;",
             "  *((uint2 *)(&lbuf[ly * 136 + (lx << 3)])) = in[threadIdx.x];",
             "  __syncthreads();",
             "  out[threadIdx.x] = *((uint2 *)(&lbuf[ly * 136 + (lx << 3) + 136]));",
             "}")
    path = kernel_file(tmp_path, *lines)
    decl = next(d for d in analyze_file(path, make_config(target="gfx942")).shared if d.name == "lbuf")
    assert decl.elem_bytes == 1
    assert not [f for f in run(path) if f.rule_id.startswith("LDS")]
    # read as 4-byte ints the same index would be a 32-byte lane stride: 4-way
    as_int = tmp_path / "as_int.hip"
    as_int.write_text(path.read_text().replace("uchar lbuf", "int lbuf"))
    assert "4-way" in at(run(as_int), "LDS-001", 5).message
    other = tmp_path / "other.hip"
    other.write_text(path.read_text().replace("uchar lbuf", "pixel_t lbuf"))
    assert next(d for d in analyze_file(other, make_config(target="gfx942")).shared).elem_bytes is None
    assert not [f for f in run(other) if f.rule_id.startswith("LDS")]


def test_a_32_byte_slot_is_judged_as_its_16_byte_halves(tmp_path: Path) -> None:
    """A whole double4 store per lane (hoomd's Scalar4 sums) is two ds_write_b128 at a 32-byte lane stride: each
    8-lane phase reuses four banks at two addresses, 2-way; a 16-byte slot (float4) is conflict-free."""
    path = kernel_file(tmp_path,
                       "__global__ void __launch_bounds__(256) sums(const double4* in, double* out) {",
                       "  extern __shared__ double4 sdata[];",
                       "  sdata[threadIdx.x] = in[threadIdx.x];",
                       "  __syncthreads();",
                       "  out[threadIdx.x] = sdata[255 - threadIdx.x].w;",
                       "}")
    f = at(run(path), "LDS-001", 4)
    assert f.message.startswith("2-way") and "ds_write_b128" in f.message
    narrow = tmp_path / "narrow.hip"
    narrow.write_text(path.read_text().replace("double4", "float4").replace("double*", "float*"))
    assert not [f for f in run(narrow) if f.rule_id == "LDS-001" and f.line == 4]


def test_shared_arrays_passed_to_a_helper_with_an_undeclared_parameter_type(tmp_path: Path) -> None:
    """rocSOLVER's bisection helper takes `rocblas_int` parameters whose header is missing: the call keeps its
    argument positions, and statements clang dropped (they use such values) still name the helper's parameters,
    so the 4-element lane stride of `sh_ninter[4 * tid]` is found in the helper as called by the kernel."""
    path = kernel_file(tmp_path,
                       "template <int DIM, typename T>",
                       "__device__ void run(const int tid, const rocblas_int n, T* out, T* sh_inter, int* sh_ninter) {",
                       "  rocblas_int nl = n;",
                       "  if (tid < n) {",
                       "    sh_inter[4 * tid] = out[tid];",
                       "    sh_ninter[4 * tid] = nl;",
                       "  }",
                       "  __syncthreads();",
                       "  out[tid] = sh_inter[4 * tid + 1];",
                       "}",
                       "template <typename T>",
                       "__global__ void __launch_bounds__(128) kern(T* out, const rocblas_int n) {",
                       "  __shared__ T sh_inter[4 * 128];",
                       "  __shared__ int sh_ninter[4 * 128];",
                       "  run<2>(threadIdx.x, n, out, sh_inter, sh_ninter);",
                       "}")
    findings = run(path)
    assert "4-way" in at(findings, "LDS-001", 7).message
    assert "'sh_ninter' (as called at line 16)" in at(findings, "LDS-001", 7).message
    assert "4-way" in at(findings, "LDS-001", 6).message
    spread = tmp_path / "spread.hip"
    spread.write_text(path.read_text().replace("4 * tid", "tid"))
    assert not [f for f in run(spread) if f.rule_id == "LDS-001"]


def test_uncalled_scan_helper_over_a_typedef_pointer(tmp_path: Path) -> None:
    """SuperLU's incScan(pfx_dtype* inOut, pfx_dtype* temp, n) (typedef int pfx_dtype), called from another file:
    `temp` exchanges values between threads (Blelloch sweeps at offset*(2t+1)-1) and is judged as shared memory
    of ints; `inOut`, read and written by each thread at its own elements only, is not taken for shared memory."""
    path = kernel_file(tmp_path,
                       "typedef int pfx_dtype;",
                       "__device__ void incScan(pfx_dtype* inOut, pfx_dtype* temp, int n) {",
                       "  int t = threadIdx.x;",
                       "  int offset = 1;",
                       "  temp[2 * t] = inOut[2 * t];",
                       "  for (int d = n >> 1; d > 0; d >>= 1) {",
                       "    __syncthreads();",
                       "    if (t < d) {",
                       "      int ai = offset * (2 * t + 1) - 1;",
                       "      int bi = offset * (2 * t + 2) - 1;",
                       "      temp[bi] += temp[ai];",
                       "    }",
                       "    offset *= 2;",
                       "  }",
                       "  __syncthreads();",
                       "  inOut[2 * t] = temp[2 * t] + inOut[2 * t];",
                       "}")
    findings = run(path)
    f = at(findings, "LDS-001", 12)
    assert "'temp' taken for shared memory" in f.message
    assert not [f for f in findings if "'inOut'" in f.message]
