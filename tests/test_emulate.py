"""porter emulate: hipified kernels run on the CPU with real 64- and 32-lane wavefronts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from porter import families
from porter.emulate import (CompileError, DeadlockError, KernelCrash, MemoryFault, differential, kernel_signature,
                            run_kernel, run_launcher)
from porter.emulate.source import kernel_param_names, rewrite

pytestmark = pytest.mark.slow

DATA = Path(__file__).parent / "data" / "emulate"


@pytest.fixture(scope="session", autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory) -> None:
    mp = pytest.MonkeyPatch()
    mp.setenv("PORTER_EMULATE_CACHE", str(tmp_path_factory.mktemp("emulate-cache")))
    yield
    mp.undo()


def _x(n: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).uniform(0.5, 1.5, n).astype(np.float32)


def test_offset16_reduction_is_wrong_at_wave64_only() -> None:
    x = _x(64)
    args = {"x": x, "out": np.zeros(1, np.float32), "n": 64}
    at64 = run_kernel(DATA / "warp_reduce_16.hip", "warp_sum", 1, 64, args, warp_size=64)["out"][0]
    at32 = run_kernel(DATA / "warp_reduce_16.hip", "warp_sum", 1, 64, args, warp_size=32)["out"][0]
    total = float(x.astype(np.float64).sum())
    assert at32 == pytest.approx(total, rel=1e-5)
    assert at64 == pytest.approx(float(x[:32].astype(np.float64).sum()), rel=1e-5)  # lanes 32-63 lost
    assert abs(at64 - total) > 1.0
    rep = differential(DATA / "warp_reduce_16.hip", "warp_sum", 1, 64, args)
    assert not rep.same and [d.name for d in rep.diffs] == ["out"]
    assert rep.diffs[0].indices == [(0,)] and rep.diffs[0].values_32[0] == pytest.approx(total, rel=1e-5)


def test_warpsize_half_reduction_matches_numpy_at_both_sizes() -> None:
    x = _x(200, 1)
    args = [x, np.zeros(1, np.float32), 200]
    for w in (32, 64):
        out = run_kernel(DATA / "warp_reduce_half.hip", "warp_sum", 4, 64, args, warp_size=w)
        assert out["out"][0] == pytest.approx(float(x.astype(np.float64).sum()), rel=1e-5)
        assert out.stats["wave_ops"] > 0 and out.wave_size == w
    assert differential(DATA / "warp_reduce_half.hip", "warp_sum", 4, 64, args).same


def test_ballot_stored_in_unsigned_loses_upper_lanes() -> None:
    x = np.where(np.arange(128) % 3 == 0, 1.0, -1.0).astype(np.float32)
    want = int((x > 0).sum())
    c32 = run_kernel(DATA / "ballot_unsigned.hip", "count_positive", 1, 128, [x, np.zeros(1, np.int32)], 32)
    c64 = run_kernel(DATA / "ballot_unsigned.hip", "count_positive", 1, 128, [x, np.zeros(1, np.int32)], 64)
    assert c32["count"][0] == want
    assert c64["count"][0] == int((x.reshape(2, 64)[:, :32] > 0).sum()) != want
    fixed = run_kernel(DATA / "ballot_unsigned.hip", "count_positive_fixed", 1, 128, [x, np.zeros(1, np.int32)], 64)
    assert fixed["count"][0] == want
    rep = differential(DATA / "ballot_unsigned.hip", "count_positive", 1, 128, [x, np.zeros(1, np.int32)])
    assert rep.diffs and rep.diffs[0].values_32 == [want]


def test_shared_memory_block_reduction_matches_numpy() -> None:
    n = 1000
    x = _x(n, 2)
    want = x.astype(np.float64).reshape(-1)
    want = np.add.reduceat(np.pad(want, (0, 24)), np.arange(0, 1024, 256))
    for w in (32, 64):
        out = run_kernel(DATA / "block_reduce.hip", "block_sum", 4, 256, [x, np.full(4, np.nan, np.float32), n], w,
                         workers=2)
        np.testing.assert_allclose(out["partial"], want, rtol=1e-5)
        assert out.stats["barriers"] == 4 * 9
    dyn = run_kernel(DATA / "block_reduce.hip", "block_sum_dyn<256>", 4, 256,
                     {"x": x, "partial": np.full(4, np.nan, np.float32), "n": n}, shared_bytes=256 * 4)
    np.testing.assert_allclose(dyn["partial"], want, rtol=1e-5)


def test_early_return_before_syncthreads_is_reported_as_deadlock() -> None:
    with pytest.raises(DeadlockError) as ei:
        run_kernel(DATA / "divergent_barrier.hip", "early_exit", 1, 128,
                   [_x(128), np.zeros(128, np.float32), 100], timeout=20)
    r = ei.value.report
    assert r["block"] == [0, 0, 0] and r["thread"] == [100, 0, 0]
    assert r["wave"] == 1 and r["lane"] == 36 and r["exited"] == 28 and r["line"] == 9
    assert "thread (100,0,0) (wavefront 1, lane 36)" in str(ei.value)


def test_syncthreads_in_both_branches_is_reported() -> None:
    with pytest.raises(DeadlockError, match="different __syncthreads"):
        run_kernel(DATA / "divergent_barrier.hip", "two_barriers", 1, 64, [np.zeros(64, np.float32)], timeout=20)


def test_out_of_bounds_read_is_reported_with_thread_and_line() -> None:
    n = 1000
    with pytest.raises(MemoryFault) as ei:
        run_kernel(DATA / "out_of_bounds.hip", "shift_left", 4, 256, [_x(n), np.zeros(n, np.float32), n])
    r = ei.value.report
    assert r["thread"] == [231, 0, 0] and r["block"] == [3, 0, 0] and r["write"] is False
    assert "'x'" in r["message"] and "0 byte(s) past its end" in r["message"]
    assert r.get("source_location", "").startswith("out_of_bounds.hip:8")


def test_width32_shuffles_agree_at_both_wave_sizes() -> None:
    x = _x(128, 3)
    args = [x, np.full(4, np.nan, np.float32), np.full(128, np.nan, np.float32)]
    rep = differential(DATA / "shfl_width32.hip", "group_sums", 1, 128, args)
    assert rep.same, rep.summary()
    out = rep.outputs[64]
    np.testing.assert_allclose(out["sums"], x.reshape(4, 32).sum(1), rtol=1e-5)
    g = x.reshape(4, 32)
    up = np.concatenate([g[:, :1], g[:, :-1]], axis=1)  # __shfl_up keeps its own value at a group's lane 0
    np.testing.assert_allclose(out["bcast"], (g[:, :1] + up).reshape(-1), rtol=1e-6)


def test_intrinsics_match_numpy_model() -> None:
    keys = np.random.default_rng(4).integers(0, 9, 96).astype(np.int32)
    for w in (32, 64):
        out = run_kernel(DATA / "intrinsics.hip", "lane_ops", 1, 96,
                         [keys, np.zeros(96, np.uint64), np.zeros(96, np.uint64), np.zeros(288, np.int32),
                          np.zeros(384, np.int32), np.zeros(96, np.float32)], w)
        for start in range(0, 96, w):
            grp = keys[start:start + w]
            lanes = np.arange(len(grp), dtype=np.uint64)
            ballot = int(np.bitwise_or.reduce((grp & 1).astype(np.uint64) << lanes))
            assert (out["ballots"][start:start + w] == ballot).all()
            for j, k in enumerate(grp):
                want = int(np.bitwise_or.reduce((grp == k).astype(np.uint64) << lanes))
                assert int(out["matches"][start + j]) == want
            aa = out["anyall"].reshape(-1, 3)[start:start + w]
            assert (aa[:, 0] == int((grp == 7).any())).all() and (aa[:, 1] == 1).all()
            assert (aa[:, 2] == len(grp)).all()  # a partial last wavefront has only its real lanes active
        bits = out["bits"].reshape(-1, 4)
        k = keys.astype(np.uint32)
        assert (bits[:, 0] == [bin(v).count("1") for v in k]).all()
        assert (bits[:, 1] == [(int(v) & -int(v)).bit_length() for v in k]).all()
        assert (bits[:, 2] == [32 - int(v).bit_length() for v in k]).all()
        assert (bits[:, 3].astype(np.uint32) == [int(f"{int(v):032b}"[::-1], 2) for v in k]).all()
        t = np.arange(96, dtype=np.float64)
        lane = t % w
        ref = np.exp(lane / 64) + 1 / np.sqrt(t + 1) + np.maximum(np.tanh(t - 3), 0) + 1 / (t + 1)
        np.testing.assert_allclose(out["fmath"], ref, rtol=1e-5)


def test_atomics() -> None:
    out = run_kernel(DATA / "intrinsics.hip", "atomics", 3, 100,
                     [np.array([-5], np.int32), np.array([5000], np.uint32), np.zeros(1, np.float32),
                      np.zeros(1, np.int32), np.zeros(1, np.int32)], workers=2)
    assert out["imax"][0] == 299 and out["umin"][0] == 701 and out["fadd"][0] == 150.0
    assert out["cas"][0] >= 1 and out["exch"][0] == 42


def test_signature_and_argument_checks() -> None:
    sig = kernel_signature(DATA / "block_reduce.hip", "block_sum_dyn<256>")
    assert [(p.name, p.kind, p.code, p.const) for p in sig] == [
        ("x", "ptr", "f4", True), ("partial", "ptr", "f4", False), ("n", "val", "i4", False)]
    with pytest.raises(TypeError, match="float32"):
        run_kernel(DATA / "block_reduce.hip", "block_sum", 1, 256, [np.zeros(4), np.zeros(1, np.float32), 4])
    with pytest.raises(ValueError, match="missing"):
        run_kernel(DATA / "block_reduce.hip", "block_sum", 1, 256, {"x": np.zeros(4, np.float32)})
    with pytest.raises(CompileError, match="no_such_kernel"):
        run_kernel(DATA / "block_reduce.hip", "no_such_kernel", 1, 1, [])


def test_rewrites_keep_lines_and_skip_comments() -> None:
    src = ('// k<<<1, 2>>>(x) stays\nextern __shared__ __align__(16)\n float smem[];\n'
           'void h() { ns::k<T, 4><<<g, b, 0, s>>>(a, "<<<"); }\n')
    out = rewrite(src)
    assert out.count("\n") == src.count("\n")
    assert "// k<<<1, 2>>>(x) stays" in out and '"<<<"' in out
    assert "::porter::chevron(ns::k<T, 4>, g, b, 0, s)(a," in out
    assert "static thread_local float* const smem = reinterpret_cast<float*>(::porter::dyn_shared());" in out
    assert kernel_param_names("template <int B> __global__ void __launch_bounds__(B) k(const float* __restrict__ a,"
                              " int n, float c[]) {}", "k<128>") == ["a", "n", "c"]


def test_spinning_kernel_times_out_with_the_running_thread() -> None:
    from porter.emulate import KernelTimeout

    with pytest.raises(KernelTimeout, match=r"thread \(0,0,0\) \(wavefront 0, lane 0\)"):
        run_kernel(DATA / "spin_wait.hip", "spin", 1, 64, [np.zeros(1, np.int32)], timeout=1.5)


def test_amdgcn_builtins() -> None:
    x = np.arange(100, 228, dtype=np.int32)
    for w in (32, 64):
        out = run_kernel(DATA / "amdgcn.hip", "builtins", 1, 128,
                         [x, np.zeros(128, np.int32), np.zeros(128, np.int32), np.zeros(128, np.int32)], w)
        lanes = np.arange(128) % w
        assert (out["rank"] == lanes).all()
        assert (out["rotated"] == x[(np.arange(128) // w) * w + (lanes + 1) % w]).all()
        t = np.arange(128)
        # first active lane of the `t % 3 != 0` branch in each wavefront
        firsts = {s: next(i for i in range(s, s + w) if i % 3) for s in range(0, 128, w)}
        want = np.where(t % 3 != 0, [x[firsts[(i // w) * w]] for i in t], -1)
        assert (out["first"] == want).all()


def test_kernel_with_kilobytes_of_static_shared_memory_loads() -> None:
    """Two 32x32 float tiles (8 KiB of __shared__): more than glibc's default static TLS surplus."""
    rng = np.random.default_rng(3)
    a, b = rng.random((40, 50), np.float32), rng.random((50, 70), np.float32)
    out = run_kernel(families.sample("gemm/gemm_tiled.hip"), "gemm_tiled", (3, 2), (32, 32),
                     {"A": a, "B": b, "C": np.zeros((40, 70), np.float32), "M": 40, "N": 70, "K": 50,
                      "alpha": 1.0, "beta": 0.0}, warp_size=64)
    np.testing.assert_allclose(out["C"], a.astype(np.float64) @ b, rtol=1e-4)


def test_host_launcher_runs_as_written() -> None:
    """run_launcher calls the extern "C" launcher itself: its own grid arithmetic, its launch, its error code."""
    x = _x(3 * 1000, 4).reshape(3, 1000)
    out = run_launcher(families.sample("softmax/softmax_block.hip"), "launch_softmax_block",
                       [x, np.full_like(x, np.nan), 3, 1000])
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    np.testing.assert_allclose(out["y"], e / e.sum(axis=1, keepdims=True), rtol=1e-5)
    with pytest.raises(KernelCrash, match="returned error code 7"):
        run_launcher(DATA / "launcher_error.hip", "launch_fails", [np.zeros(4, np.float32)])
