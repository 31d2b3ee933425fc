"""LDS bank-conflict model (porter.lds). Every expected number is worked out by hand in the comments.

Notation: gfx942 has 32 banks x 4 B, bank = (byte_address / 4) % 32, wave64, and the phase tables of
../shared/FACTS.md section 1: b32 phases 0-31 / 32-63, b64 phases of 16 lanes, ds_write_b128 phases of 8
contiguous lanes, ds_read_b128 groups {0-3,20-23} {4-7,16-19} {8-11,28-31} {12-15,24-27} (+32). NVIDIA sm_90:
warp32, b32 one phase of 32, b64 two half-warps, b128 four quarter-warps. Lanes are x-major: with block (bx, by)
lane l of wave 0 is tx = l % bx, ty = l // bx.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from porter.lds import (Access, Affine, ArrayAccess, EvalError, LdsModelError, SharedArray, Swizzle, affine_of,
                        analyze, evaluate, find_padding, from_json, load_model, symbols, to_c)
from porter.lds.affine import depends_on_thread
from porter.lds.model import parse_lanes, thread_of
from porter.targets import load_target

TX, TY = "tid.x", "tid.y"


def float_2d(row: object, col: object, pitch: int, elem: int = 4) -> tuple:
    """Byte address of tile[row][col] in a row-major array with `pitch` elements per row."""
    return ("*", ("+", ("*", row, pitch), col), elem)


# ---------------------------------------------------------------------------------------------- target data

def test_gfx942_phase_tables_are_facts_section_1() -> None:
    m = load_model("gfx942")
    assert m.wave_size == load_target("gfx942").wave_size == 64
    read128 = m.table_for(16, "read")
    assert read128.instruction("read") == "ds_read_b128" and read128.status == "documented"
    expected = [(0, 3, 20, 23), (4, 7, 16, 19), (8, 11, 28, 31), (12, 15, 24, 27)]
    expected += [(a + 32, b + 32, c + 32, d + 32) for a, b, c, d in expected]
    assert read128.phases == tuple(tuple(range(a, b + 1)) + tuple(range(c, d + 1)) for a, b, c, d in expected)
    write128 = m.table_for(16, "write")
    assert write128.instruction("write") == "ds_write_b128" and write128.status == "documented"
    assert write128.phases == tuple(tuple(range(i, i + 8)) for i in range(0, 64, 8))
    b64 = m.table_for(8, "read")
    assert b64.status == "inferred" and b64.phases == tuple(tuple(range(i, i + 16)) for i in range(0, 64, 16))
    assert m.table_for(8, "write") is b64
    b32 = m.table_for(4, "write")
    assert b32.status == "assumed" and b32.phases == (tuple(range(32)), tuple(range(32, 64)))
    # 1- and 2-byte accesses (ds_read_u16, ds_write_b8) are checked like b32.
    assert m.table_for(2, "read") is b32 and m.table_for(1, "write") is b32
    assert all(t.banks == 32 and t.bank_width_bytes == 4 for t in m.tables)
    assert m.limit_bytes == 65536


def test_gfx950_and_sm_90_tables() -> None:
    g950 = load_model("gfx950")
    assert g950.wave_size == 64
    assert g950.table_for(16, "read").banks == 64 and g950.table_for(8, "read").banks == 64
    assert g950.table_for(16, "read").status == "inferred" and g950.table_for(8, "read").status == "inferred"
    assert g950.table_for(4, "read").banks == 32 and g950.table_for(16, "write").banks == 32
    nv = load_model("sm_90")
    assert nv.wave_size == 32
    assert nv.table_for(4, "read").phases == (tuple(range(32)),)
    assert nv.table_for(8, "read").phases == (tuple(range(16)), tuple(range(16, 32)))
    assert nv.table_for(16, "write").phases == tuple(tuple(range(i, i + 8)) for i in range(0, 32, 8))


def test_no_table_wider_than_128_bits() -> None:
    with pytest.raises(LdsModelError, match="no LDS read of 32 bytes"):
        analyze("gfx942", Access(address=0, elem_bytes=16, vector=2), (64, 1, 1))


def test_parse_lanes_and_thread_of() -> None:
    assert parse_lanes("0-3,20-23") == (0, 1, 2, 3, 20, 21, 22, 23)
    assert parse_lanes("7") == (7,)
    # Block (32, 8): wave 1 lane 5 is linear thread 69 -> x = 5, y = 2.
    assert thread_of(5, 1, (32, 8, 1), 64) == (5, 2, 0)
    # Block (8, 4, 4): linear 64 + 33 = 97 -> x = 1, y = 97 // 8 % 4 = 0, z = 97 // 32 = 3.
    assert thread_of(33, 1, (8, 4, 4), 64) == (1, 0, 3)


# ---------------------------------------------------------------------------------------------- expressions

def test_c_integer_semantics() -> None:
    env = {"a": -7, "b": 2}
    assert evaluate(("/", "a", "b"), env) == -3  # truncates toward zero (Python's // would give -4)
    assert evaluate(("%", "a", "b"), env) == -1  # sign of the dividend
    assert evaluate(("%", 7, -2), {}) == 1
    assert evaluate(("^", 6, 3), {}) == 5
    assert evaluate(("<<", 1, 5), {}) == 32 and evaluate((">>", 33, 5), {}) == 1
    assert evaluate(("?:", ("<", "a", 0), 10, 20), env) == 10
    assert evaluate(("&&", 0, ("/", 1, 0)), {}) == 0  # short-circuit protects the division
    assert evaluate(("neg", ("~", 0)), {}) == 1
    with pytest.raises(EvalError, match="unbound symbol 'k'"):
        evaluate(("+", "k", 1), {})
    with pytest.raises(EvalError, match="division by zero"):
        evaluate(("%", 1, 0), {})
    with pytest.raises(EvalError, match="malformed"):
        evaluate(("**", 2, 3), {})


def test_json_round_trip_and_helpers() -> None:
    expr = ("+", ("*", TY, 33), ("^", TX, ("%", "k", 4)))
    assert from_json(["+", ["*", TY, 33], ["^", TX, ["%", "k", 4]]]) == expr
    assert symbols(expr) == {TX, TY, "k"}
    assert to_c(expr) == "((tid.y * 33) + (tid.x ^ (k % 4)))"
    with pytest.raises(EvalError):
        from_json(["+", 1])


def test_affine_algebra() -> None:
    a = Affine({TX: 1, TY: 32}, 4)
    b = Affine.sym(TY, -32) + 1
    assert a + b == Affine({TX: 1}, 5)  # the tid.y terms cancel and are dropped
    assert (a * 4).evaluate({TX: 3, TY: 2}) == (3 + 64 + 4) * 4
    assert hash(a + b) == hash(Affine({TX: 1}, 5))
    assert affine_of(("+", ("*", ("+", TY, "j"), 33), TX)) == Affine({TY: 33, "j": 33, TX: 1}, 0)
    assert affine_of(("<<", TX, 2)) == Affine({TX: 4})
    assert affine_of(("^", TX, TY)) is None and affine_of(("*", TX, TY)) is None
    assert evaluate(a.to_expr(), {TX: 3, TY: 2}) == a.evaluate({TX: 3, TY: 2}) == 71


def test_affine_of_opaque_keeps_division_and_modulo_rows() -> None:
    # c * 16 + r with r = tid.x / 16 and c = tid.x % 16: each non-affine term becomes one symbol, so the row
    # stride (16) is still its coefficient; equal terms share a symbol
    expr = ("*", ("+", ("*", ("%", TX, 16), 16), ("+", ("/", TX, 16), ("/", TX, 16))), 4)
    assert affine_of(expr) is None
    assert affine_of(expr, opaque=True) == Affine({"(tid.x % 16)": 64, "(tid.x / 16)": 8})
    assert affine_of(("*", TX, TY), opaque=True) == Affine({"(tid.x * tid.y)": 1})
    assert depends_on_thread("(tid.x % 16)") and not depends_on_thread("((it0 == 0) ? 0 : 16)")


_leaf = st.one_of(st.integers(-50, 50), st.sampled_from([TX, TY, "k"]))
_affine_expr = st.recursive(_leaf, lambda sub: st.one_of(
    st.tuples(st.sampled_from(["+", "-"]), sub, sub),
    st.tuples(st.just("*"), sub, st.integers(-9, 9)),
    st.tuples(st.just("neg"), sub)), max_leaves=12)


@given(_affine_expr, st.integers(0, 63), st.integers(0, 15), st.integers(-5, 5))
def test_affine_of_agrees_with_evaluate(expr: object, x: int, y: int, k: int) -> None:
    env = {TX: x, TY: y, "k": k}
    form = affine_of(expr)
    assert form is not None
    assert form.evaluate(env) == evaluate(expr, env)


# ---------------------------------------------------------------------------------------------- b32 cases

def test_column_read_of_32x32_float_tile_is_32_way() -> None:
    # tile[tx][ty], float tile[32][32], block (32, 8). Wave 0, phase 0 = lanes 0-31 = tx 0..31, ty 0:
    # byte (tx*32 + 0)*4 -> dword tx*32 -> bank 0 for every lane, 32 distinct dwords -> cost 32.
    # ideal = ceil(32 lanes * 4 B / 128 B) = 1. Phase 1 (ty 1) is the same in bank 1.
    acc = Access(address=float_2d(TX, TY, 32), elem_bytes=4)
    r = analyze("gfx942", acc, (32, 8, 1), wave=0)
    assert r.instruction == "ds_read_b32"
    assert r.phase_costs == (32, 32) and r.worst.ideal == 1 and r.degree == 32.0
    assert r.worst.index == 0 and r.worst.lanes == tuple(range(32))
    assert r.worst_bank == 0 and r.colliding_lanes == tuple(range(32))
    # NVIDIA: one 32-lane phase per warp, same arithmetic.
    assert analyze("sm_90", acc, (32, 8, 1)).degree == 32.0


def test_padded_column_read_is_conflict_free() -> None:
    # tile[32][33]: dword tx*33 + ty -> bank (tx + ty) % 32: 32 different banks in each phase.
    acc = Access(address=float_2d(TX, TY, 33), elem_bytes=4)
    r = analyze("gfx942", acc, (32, 8, 1))  # every wave of the block
    assert r.conflict_free and r.phase_costs == (1, 1) and r.cycles == r.ideal_cycles == 2


def test_row_read_is_conflict_free() -> None:
    # tile[ty][tx], pitch 32: dword ty*32 + tx -> bank tx, all different within a phase.
    r = analyze("gfx942", Access(address=float_2d(TY, TX, 32), elem_bytes=4), (32, 8, 1))
    assert r.degree == 1.0 and r.phase_costs == (1, 1)


def test_broadcast_read_costs_one() -> None:
    # Every lane reads tile[0][0]: one dword, one bank, broadcast -> cost 1 in each phase.
    r = analyze("gfx942", Access(address=0, elem_bytes=4), (256, 1, 1))
    assert r.phase_costs == (1, 1) and r.degree == 1.0
    # Same dword through a non-trivial expression: (tx & 0) * 4.
    r = analyze("gfx942", Access(address=("*", ("&", TX, 0), 4), elem_bytes=4), (64, 1, 1))
    assert r.degree == 1.0


def test_gemm_tiles_are_conflict_free() -> None:
    # Classic 16x16 SGEMM: As[16][16], Bs[16][16], block (16, 16), inner loop k.
    # As[ty][k]: phase 0 = lanes 0-31 = ty 0 and 1 -> dwords k and 16 + k: two dwords in banks k and k+16, each
    # read by 16 lanes (broadcast) -> cost 1.
    # Bs[k][tx]: dwords 16k + tx, tx 0..15 -> 16 banks, each dword shared by ty 0 and 1 -> cost 1.
    ks = {"k": [0, 1, 7, 15]}
    a = analyze("gfx942", Access(address=float_2d(TY, "k", 16), elem_bytes=4), (16, 16, 1), samples=ks)
    b = analyze("gfx942", Access(address=float_2d("k", TX, 16), elem_bytes=4), (16, 16, 1), samples=ks)
    assert a.degree == 1.0 and b.degree == 1.0
    # As[ty][k] really is a 2-dword phase: lanes 0-15 share one dword, lanes 16-31 another.
    assert a.phases[0].cost == 1 and a.cycles == a.ideal_cycles == 2  # one wave (the worst) is reported


def test_worst_loop_value_and_worst_wave_are_reported() -> None:
    # address = tx * s * 4: s = 1 -> stride 1 dword (free); s = 2 -> banks 0,2,..,30, lanes tx and tx+16 collide
    # (2-way); s = 32 -> all in bank 0 (32-way). The worst sample wins and its value is reported.
    acc = Access(address=("*", ("*", TX, "s"), 4), elem_bytes=4)
    r = analyze("gfx942", acc, (64, 1, 1), samples={"s": [1, 2, 32]})
    assert r.degree == 32.0 and r.env == (("s", 32),)
    assert analyze("gfx942", acc, (64, 1, 1), samples={"s": 2}).degree == 2.0
    # Only threads with ty >= 2 (wave 1 of a (32, 4) block) read a column.
    acc = Access(address=("?:", (">=", TY, 2), float_2d(TX, 0, 32), float_2d(0, TX, 32)), elem_bytes=4)
    assert analyze("gfx942", acc, (32, 4, 1), wave=0).degree == 1.0
    worst = analyze("gfx942", acc, (32, 4, 1))
    assert worst.degree == 32.0 and worst.wave == 1


def test_inactive_lanes_are_excluded() -> None:
    # Block of 16 threads: lanes 16-63 do not exist. tile[tx][0] with pitch 32 -> 16 distinct dwords in bank 0:
    # cost 16, ideal ceil(16*4/128) = 1. The second b32 phase (lanes 32-63) has no active lane and is absent.
    acc = Access(address=float_2d(TX, 0, 32), elem_bytes=4)
    r = analyze("gfx942", acc, (16, 1, 1))
    assert r.phase_costs == (16,) and r.worst.lanes == tuple(range(16))
    # A lane-dependent guard `if (tx < 8)`: 8 lanes left -> cost 8.
    guarded = dataclasses.replace(acc, predicate=("<", TX, 8))
    assert analyze("gfx942", guarded, (16, 1, 1)).phase_costs == (8,)
    # No lane active at all: nothing is conflicted.
    none = analyze("gfx942", dataclasses.replace(acc, predicate=0), (16, 1, 1))
    assert none.degree == 1.0 and none.worst is None and none.phases == ()


# ---------------------------------------------------------------------------------------------- 16-bit and 64-bit

def test_half_lanes_share_a_dword() -> None:
    # __half s[..], s[tx]: lanes 2i and 2i+1 read the two halves of dword i. Phase 0 (lanes 0-31) touches dwords
    # 0..15 once each -> cost 1; ideal = ceil(32*2/128) = 1.
    r = analyze("gfx942", Access(address=("*", TX, 2), elem_bytes=2), (64, 1, 1))
    assert r.phase_costs == (1, 1) and r.worst.ideal == 1
    # __half tile[32][32] read by column, tile[tx][ty]: byte (32tx + ty)*2 -> dword 16tx + ty/2 -> bank 0 for even
    # tx, 16 for odd tx: 16 distinct dwords in bank 0 -> cost 16 (not 32: the row is only 16 dwords long).
    r = analyze("gfx942", Access(address=float_2d(TX, TY, 32, elem=2), elem_bytes=2), (32, 2, 1))
    assert r.degree == 16.0 and r.colliding_lanes == tuple(range(0, 32, 2))


def test_half_transpose_needs_a_dword_of_padding() -> None:
    # With one half of padding, tile[32][33], the ty = 1 column is 2-way: element 33tx + 1, dword
    # (33tx + 1) // 2 = 33m for tx = 2m, 33m + 17 for tx = 2m + 1 -> banks m and m + 17; m = 15 on the odd side
    # (bank 32 % 32 = 0) meets m = 0 on the even side. Two halves of padding (one dword): dword 17tx + ty/2 ->
    # bank 17tx % 32, all different (17 is odd). So the search answers 2, the write tile[ty][tx] is free anyway.
    arr = SharedArray("tile", (32, 32), 2)
    res = find_padding("gfx942", arr, [ArrayAccess((TY, TX), op="write"), ArrayAccess((TX, TY))], (32, 2, 1))
    assert res.current.degree == 16.0
    pad1 = analyze("gfx942", Access(address=float_2d(TX, TY, 33, elem=2), elem_bytes=2), (32, 2, 1))
    assert pad1.degree == 2.0 and pad1.worst.index == 1  # phase 1 = lanes 32-63 = ty 1
    assert res.padding is not None and res.padding.pad == 2 and res.padding.bytes == 32 * 34 * 2


def test_double_column_read_uses_16_lane_phases() -> None:
    # double tile[32][32], tile[tx][ty], block (32, 2): ds_read_b64, phases of 16 lanes (inferred). Lane reads
    # dwords 2(32tx + ty) and +1 -> banks 2ty, 2ty+1 for every tx: 16 lanes x 1 dword each in bank 0 -> cost 16,
    # ideal ceil(16*8/128) = 1. Padding 1 double: dwords 2(33tx + ty) -> banks 2(tx + ty) % 32, 2(tx+ty)+1:
    # tx 0..15 cover all 32 banks once -> cost 1.
    acc = Access(address=float_2d(TX, TY, 32, elem=8), elem_bytes=8)
    r = analyze("gfx942", acc, (32, 2, 1))
    assert r.instruction == "ds_read_b64" and r.status == "inferred"
    assert r.phase_costs == (16, 16, 16, 16) and r.worst.lanes == tuple(range(16))
    assert analyze("gfx942", dataclasses.replace(acc, address=float_2d(TX, TY, 33, elem=8)), (32, 2, 1)).degree == 1
    # NVIDIA half-warps give the same 16-way.
    assert analyze("sm_90", acc, (32, 2, 1)).phase_costs == (16, 16)


# ---------------------------------------------------------------------------------------------- 128-bit

def float4_row_read(pitch: int, op: str = "read") -> Access:
    # float tile[..][pitch]; block (8, 8); each thread moves the float4 at tile[ty][4*tx]: one 16-byte chunk
    # q = ty*pitch/4 + tx; its 4 dwords sit in banks 4(q % 8) .. 4(q % 8) + 3.
    return Access(address=float_2d(TY, ("*", TX, 4), pitch), elem_bytes=4, vector=4, op=op)


def test_float4_unpadded_rows_are_free_everywhere() -> None:
    # pitch 32 floats = 8 chunks per row -> q % 8 = tx. NVIDIA quarter-warp = one row -> 8 different chunk banks.
    # gfx942 group {0-3, 20-23}: lanes 0-3 are row 0, tx 0-3; lanes 20-23 are row 2, tx 4-7 -> q % 8 = 0-3 and
    # 4-7: free. The groups were chosen so that anything with q % 8 == lane % 8 is free.
    for target in ("gfx942", "sm_90"):
        r = analyze(target, float4_row_read(32), (8, 8, 1))
        assert r.degree == 1.0, target


def test_float4_pitch_36_conflicts_only_on_gfx942_reads() -> None:
    # The usual "pad by one float4" pitch 36 floats = 9 chunks: q = 9ty + tx.
    # NVIDIA, quarter-warp 0 = lanes 0-7 = row 0: q 0..7 -> free; quarter 1 = row 1: q 9..16 -> q % 8 = 1..7,0:
    # free. A contiguous 8-lane model (and gfx942's ds_write_b128, which IS contiguous) says the same.
    # gfx942 ds_read_b128 group {0-3, 20-23}: lanes 0-3 = row 0, tx 0-3 -> q 0..3 -> banks 0..15; lanes 20-23 =
    # row 2, tx 4-7 -> q 22..25 -> q % 8 = 6, 7, 0, 1 -> banks 24..31 and 0..7. Banks 0..7 each hold two
    # distinct dwords (dword 0 of lane 0 and dword 96 of lane 22, ...) -> cost 2, ideal ceil(8*16/128) = 1.
    # Every group is like that ({4-7, 16-19}: q 4..7 vs 18..21 -> chunk banks 2..5 meet 4, 5), so 2-way.
    assert analyze("sm_90", float4_row_read(36), (8, 8, 1)).degree == 1.0
    assert analyze("gfx942", float4_row_read(36, op="write"), (8, 8, 1)).degree == 1.0
    r = analyze("gfx942", float4_row_read(36), (8, 8, 1))
    assert r.instruction == "ds_read_b128"
    assert r.degree == 2.0 and r.phase_costs == (2,) * 8
    assert r.worst.lanes == (0, 1, 2, 3, 20, 21, 22, 23)
    assert r.worst_bank == 0 and r.colliding_lanes == (0, 22)  # lane 22: q = 24, dwords 96..99, banks 0..3


def test_non_contiguous_groups_are_what_matters() -> None:
    # Same access, same hardware numbers, but ds_read_b128 given contiguous 8-lane phases: free. So the 2-way
    # above comes from the group membership alone, not from bank count or width.
    m = load_model("gfx942")
    write = m.table_for(16, "write")
    fake = dataclasses.replace(m, tables=tuple(
        dataclasses.replace(t, phases=write.phases) if "ds_read_b128" in t.instructions else t
        for t in m.tables))
    assert analyze(fake, float4_row_read(36), (8, 8, 1)).degree == 1.0
    assert analyze(m, float4_row_read(36), (8, 8, 1)).degree == 2.0


def test_misaligned_vector_lanes_are_reported() -> None:
    # float4 at tile[tx][0] with pitch 33 floats: lane 1 starts at byte 132, not a multiple of 16.
    acc = Access(address=float_2d(TX, 0, 33), elem_bytes=4, vector=4)
    r = analyze("gfx942", acc, (8, 1, 1))
    assert not r.aligned and r.misaligned_lanes == (1, 2, 3, 5, 6, 7)  # 33*4*tx % 16 == 0 only for tx % 4 == 0


# ---------------------------------------------------------------------------------------------- padding search

TRANSPOSE = [ArrayAccess((("+", TY, "j"), TX), op="write", label="tile[ty+j][tx] = in"),
             ArrayAccess((TX, ("+", TY, "j")), op="read", label="out = tile[tx][ty+j]")]
J = {"j": [0, 8, 16, 24]}


def test_padding_for_32x32_float_transpose_is_one() -> None:
    # Block (32, 8), j = 0, 8, 16, 24. The read tile[tx][ty+j] is 32-way at P = 0 (bank (ty + j) for every lane
    # of a phase); at P = 1 dword 33tx + ty + j -> bank (tx + ty + j) % 32: free. The write is row-wise: free.
    res = find_padding("gfx942", SharedArray("tile", (32, 32), 4), TRANSPOSE, (32, 8, 1), samples=J)
    assert res.current.degree == 32.0
    assert res.padding is not None and res.padding.pad == 1
    assert res.padding.bytes == 32 * 33 * 4 == 4224 and res.padding.fits
    assert res.swizzle is None  # padding worked and fits: no need to look further
    assert res.recommended is res.padding
    assert res.max_pad == 31  # one 128-byte pass of banks in floats, minus one
    # Same answer on NVIDIA.
    assert find_padding("sm_90", SharedArray("tile", (32, 32), 4), TRANSPOSE, (32, 8, 1), samples=J).padding.pad == 1


def test_already_free_array_needs_no_padding() -> None:
    res = find_padding("gfx942", SharedArray("tile", (32, 32), 4), [TRANSPOSE[0]], (32, 8, 1), samples=J)
    assert res.current.conflict_free and res.padding.pad == 0 and res.recommended is res.current


def test_lds_size_check_and_swizzle_fallback() -> None:
    # float tile[128][128] = 65536 B: exactly gfx942's 64 KiB. Column read tile[tx][ty] with pitch 128: every lane
    # of a phase in bank ty -> 32-way. P = 1 fixes it (bank (tx + ty) % 32) but needs 128*129*4 = 66048 B > 65536.
    # So the swizzle col ^ (row % k) is tried: the read touches dword 128tx + (ty ^ (tx % k)) -> bank
    # ty ^ (tx % k): 32 different banks only when k = 32 (k = 16 leaves pairs tx, tx+16 -> 2-way). The write
    # tile[ty][tx ^ (ty % 32)] permutes one row: free. Size unchanged, so it fits.
    arr = SharedArray("tile", (128, 128), 4)
    accs = [ArrayAccess((TY, TX), op="write"), ArrayAccess((TX, TY))]
    res = find_padding("gfx942", arr, accs, (32, 8, 1))
    assert res.current.bytes == 65536 and res.current.fits and res.current.degree == 32.0
    assert res.padding.pad == 1 and res.padding.bytes == 66048 and not res.padding.fits
    assert res.swizzle is not None and res.swizzle.swizzle == Swizzle(k=32, d=1, granule=1)
    assert res.swizzle.fits and res.swizzle.conflict_free and res.recommended is res.swizzle
    assert res.swizzle.swizzle.describe() == "(col ^ (row % 32))"
    # gfx950 has 160 KiB: the padding fits and no swizzle is searched.
    res950 = find_padding("gfx950", arr, accs, (32, 8, 1))
    assert res950.padding.pad == 1 and res950.padding.fits and res950.swizzle is None


def test_other_shared_memory_counts_against_the_limit() -> None:
    # 32x32 transpose with 61,400 B of other shared arrays: unpadded 4096 + 61400 = 65496 fits, padded
    # 4224 + 61400 = 65624 does not -> the swizzle (k = 32, as above) is the recommendation.
    res = find_padding("gfx942", SharedArray("tile", (32, 32), 4), TRANSPOSE, (32, 8, 1), samples=J,
                       other_shared_bytes=61400)
    assert res.current.fits and res.current.total_bytes == 65496
    assert res.padding.pad == 1 and not res.padding.fits and res.padding.total_bytes == 65624
    assert res.recommended is res.swizzle and res.swizzle.swizzle.k == 32


def test_nvidia_float4_padding_does_not_fix_gfx942() -> None:
    # float tile[64][32] written as float4 rows, tile[ty][4tx], and read as float4 "columns", tile[tx][4ty], by a
    # block (8, 8) (lane l: tx = l % 8, ty = l // 8). With a pitch of p 16-byte chunks the read's chunk is
    # q = p*tx + ty and its banks are 4(q % 8) .. +3. Paddings of 1-3 floats put the float4s off 16-byte
    # alignment (no single b128 instruction): not candidates. So p runs over 8..15 (pads 0, 4, ..., 28).
    # NVIDIA: quarter-warp 0 = lanes 0-7 = tx 0..7, ty 0 -> q % 8 = p*tx % 8: distinct iff p is odd -> pad 4.
    # gfx942 group {0-3, 20-23}: (tx 0-3, ty 0) and (tx 4-7, ty 2): S = {0, p, 2p, 3p} and {4p+2, .., 7p+2}.
    # p odd: 4p = 4 mod 8, so the second set is S + 6: p=1 {0,1,2,3}/{6,7,0,1}, p=3 {0,3,6,1}/{6,1,4,7},
    # p=5 {0,5,2,7}/{6,3,0,5}, p=7 {0,7,6,5}/{6,5,4,3}: always a repeat -> 2-way. p even: p=0,4 repeat inside S,
    # p=2 {0,2,4,6}/{2,4,6,0}, p=6 {0,6,4,2}/{2,0,6,4}. No padding works on gfx942.
    # Swizzle chunk ^ (row % 8) (granule 4 floats, k = 8): read q % 8 = ty ^ (tx % 8); group {0-3, 20-23} ->
    # {0,1,2,3} and 2 ^ {4,5,6,7} = {6,7,4,5}: free (and so for every group); the write q % 8 = tx ^ ty is a
    # permutation within each 8-lane row phase: free. k = 2 or 4 keep the repeats (xor changes only low bits).
    arr = SharedArray("tile", (64, 32), 4)
    accs = [ArrayAccess((TY, ("*", TX, 4)), vector=4, op="write"), ArrayAccess((TX, ("*", TY, 4)), vector=4)]
    nv = find_padding("sm_90", arr, accs, (8, 8, 1))
    assert nv.current.degree == 8.0  # p = 8: every lane of a quarter-warp in chunk banks 0..3
    assert nv.padding is not None and nv.padding.pad == 4
    res = find_padding("gfx942", arr, accs, (8, 8, 1))
    assert res.padding is None
    assert res.best_padding.degree == 2.0 and res.best_padding.pad == 4  # the NVIDIA fix, still 2-way here
    assert res.swizzle is not None and res.swizzle.swizzle == Swizzle(k=8, d=1, granule=4)
    assert res.recommended is res.swizzle and res.swizzle.bytes == 64 * 32 * 4
    # The misaligned paddings really are rejected, not just conflicted.
    from porter.lds.padding import to_access
    for pad in (1, 2, 3):
        assert analyze("gfx942", to_access(arr, accs[1], pad), (8, 8, 1)).misaligned_lanes
