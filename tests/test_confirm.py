"""porter analyze --confirm: wave64 findings checked by running the kernel on the CPU emulator at warp sizes 32
and 64 with a launch synthesized from the Facts; plain analyze never compiles or runs anything."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from porter import families
from porter.cli import main

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
REDUCTIONS = ROOT / "samples" / "wave64" / "reductions.hip"
MASKS = ROOT / "samples" / "wave64" / "masks.hip"
VOTES = ROOT / "tests" / "data" / "confirm" / "votes.hip"
PORTER = Path(sys.executable).parent / "porter"


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("confirm") / "emulate-cache"
    mp = pytest.MonkeyPatch()
    mp.setenv("PORTER_EMULATE_CACHE", str(path))
    yield path
    mp.undo()


def analyze_json(*args: str) -> list[dict]:
    res = CliRunner().invoke(main, ["analyze", *args, "--format", "json", "--fail-on", "never", "-q"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)["findings"]


def at(findings: list[dict], line: int, rule: str) -> dict:
    hits = [f for f in findings if f["line"] == line and f["rule_id"] == rule]
    assert len(hits) == 1, [(f["line"], f["rule_id"]) for f in findings]
    return hits[0]


@pytest.fixture(scope="module")
def reductions(cache: Path) -> list[dict]:
    return analyze_json(str(REDUCTIONS), "--confirm")


@pytest.fixture(scope="module")
def votes(cache: Path) -> list[dict]:
    return analyze_json(str(VOTES), "--confirm")


def test_offset16_reduction_with_wavefront_lane_ids_is_confirmed(reductions: list[dict]) -> None:
    f = at(reductions, 14, "W64-001")                       # block_sum_wave
    c = f["confirmation"]
    assert c.startswith("confirmed: outputs differ at warp size 32 vs 64"), c
    assert "block_sum_wave<<<2, 256>>>" in c and "the launch at line 146" in c
    # `in` is sized to what `in[tid]` reaches (tid < 512 threads); `out` is only an atomicAdd target (fallback size)
    assert "buffers sized from the index expressions: in 512;" in c and "in=rand:512,out=rand:2048,n=512" in c
    # The numbers are real: the synthesized inputs are `porter emulate`'s rand/randint with seed 0, in parameter
    # order (in, out); n = 512 threads. At warp size 32 the block sums are right; at 64 lanes 32-63 are lost.
    rng = np.random.default_rng(0)
    x = rng.uniform(-1.0, 1.0, 512).astype(np.float32)
    out = rng.uniform(-1.0, 1.0, 2048).astype(np.float32)
    m = re.search(r"out\[0\]: (\S+) vs (\S+);", c)
    assert m, c
    w32, w64 = float(m.group(1)), float(m.group(2))
    assert w32 == pytest.approx(float(out[0]) + float(x[:512].astype(np.float64).sum()), rel=1e-4)
    lanes_0_31 = sum(float(x[b + w * 64: b + w * 64 + 32].astype(np.float64).sum())
                     for b in (0, 256) for w in range(4))
    assert w64 == pytest.approx(float(out[0]) + lanes_0_31, rel=1e-4)
    assert f"reproduce: porter emulate {REDUCTIONS} -k 'block_sum_wave' --grid 2 --block 256,1,1 --diff" in c


def test_correct_reductions_are_not_flagged_and_do_not_differ(reductions: list[dict], cache: Path) -> None:
    # block_sum_fixed (lines 47-54), block_sum_groups (27-44), scan_groups and logical_warps (122-145): no findings
    assert not [f for f in reductions if 27 <= f["line"] <= 54 or 122 <= f["line"] <= 145]
    # and running the correct kernel the same way shows no difference (no false confirmations from float atomics)
    from porter.confirm import Trial, run_target

    out = run_target(str(REDUCTIONS), Trial("block_sum_fixed", (256, 1, 1), "the launch at line 148"))
    assert out.status == "not confirmed", out.line()
    assert "does not prove" in out.text


def test_device_function_findings_run_through_their_calling_kernel(reductions: list[dict]) -> None:
    c = at(reductions, 62, "W64-001")["confirmation"]        # warp_allreduce_max, called by softmax_rows
    assert c.startswith("confirmed:") and "softmax_rows<<<2, 256>>>" in c
    assert at(reductions, 115, "W64-001")["confirmation"].startswith("confirmed:")       # scan_wave
    # wave_sum<double> is reached through sum_templated, whose lane 0 sums lanes 0-31 at both sizes: honest miss
    c = at(reductions, 77, "W64-001")["confirmation"]
    assert c.startswith("not confirmed:") and "sum_templated" in c and "does not prove" in c


def test_ballot_in_unsigned_is_confirmed(votes: list[dict]) -> None:
    c = at(votes, 8, "W64-004")["confirmation"]              # count_votes
    assert c.startswith("confirmed: outputs differ at warp size 32 vs 64 (counts[0]:"), c
    # the correct twin (64-bit mask) is not flagged at all
    assert not [f for f in votes if 12 <= f["line"] <= 18]


def test_template_launched_from_host_runs_with_that_launch(votes: list[dict]) -> None:
    c = at(votes, 43, "W64-004")["confirmation"]
    assert c.startswith("confirmed:") and "count_tiled<128><<<2, 128>>>" in c and "the launch at line 48" in c


def test_unsynthesizable_inputs_say_not_run_and_why(votes: list[dict]) -> None:
    c = at(votes, 29, "W64-004")["confirmation"]             # a struct passed by value
    assert c.startswith("not run:") and "'s'" in c and "struct" in c
    c = at(votes, 36, "W64-004")["confirmation"]             # a template never instantiated
    assert c.startswith("not run:") and "count_generic" in c and "no instantiation" in c


def test_masks_sample(cache: Path) -> None:
    found = analyze_json(str(MASKS), "--confirm")
    assert at(found, 63, "W64-004")["confirmation"].startswith("confirmed:")      # vote_counts
    assert at(found, 88, "W64-006")["confirmation"].startswith("confirmed:")      # lane_bits: 1 << lane
    c = at(found, 12, "W64-003")["confirmation"]             # reduce_sync: no kernel calls it
    assert c == "not run: no kernel in this file calls the __device__ function 'reduce_sync'"


def test_text_and_sarif_show_the_confirmation(cache: Path) -> None:
    res = CliRunner().invoke(main, ["analyze", str(VOTES), "--confirm", "--fail-on", "never", "-q"])
    lines = res.stdout.splitlines()
    i = next(k for k, ln in enumerate(lines) if ln.startswith(f"{VOTES}:8:"))
    assert lines[i + 1].startswith("    confirmed: outputs differ")
    res = CliRunner().invoke(main, ["analyze", str(VOTES), "--confirm", "--format", "sarif", "--fail-on", "never",
                                    "-q"])
    results = json.loads(res.stdout)["runs"][0]["results"]
    props = [r["properties"].get("confirmation", "") for r in results]
    assert any(p.startswith("confirmed:") for p in props) and any(p.startswith("not run:") for p in props)


def test_plain_analyze_never_compiles_or_runs(tmp_path: Path) -> None:
    cache = tmp_path / "emulate-cache"
    env = {**os.environ, "PORTER_EMULATE_CACHE": str(cache)}
    res = subprocess.run([str(PORTER), "analyze", str(VOTES), str(REDUCTIONS), "--format", "json", "-q"],
                         capture_output=True, text=True, env=env)
    assert res.returncode == 1, res.stderr                    # findings, reported
    doc = json.loads(res.stdout)
    assert doc["findings"] and not any("confirmation" in f for f in doc["findings"])
    assert not cache.exists()
    # the same check notices a build: --confirm fills the cache
    res = subprocess.run([str(PORTER), "analyze", str(VOTES), "--confirm", "-q"], capture_output=True, text=True,
                         env=env)
    assert res.returncode == 1, res.stderr
    assert cache.is_dir() and any(cache.iterdir())


def test_help_says_confirm_compiles_and_runs() -> None:
    res = CliRunner().invoke(main, ["analyze", "--help"])
    text = " ".join(res.stdout.split())
    assert "--confirm" in text and "RUNS it on the CPU" in text and "separate process" in text
    assert "never runs host code" in text


def test_file_scope_initializers_block_the_run(tmp_path: Path) -> None:
    # static Boom boom; would call abort() as the emulator loads the kernel's library: refused, nothing built
    cache = tmp_path / "emulate-cache"
    src = ROOT / "tests" / "data" / "confirm" / "load_time.hip"
    res = subprocess.run([str(PORTER), "analyze", str(src), "--confirm", "--format", "json", "-q"],
                         capture_output=True, text=True, env={**os.environ, "PORTER_EMULATE_CACHE": str(cache)})
    (f,) = json.loads(res.stdout)["findings"]
    assert f["confirmation"].startswith("not run: file-scope 'boom' (line 8) is initialized by calling 'Boom'")
    assert not cache.exists()


def test_buffers_are_sized_from_the_index_expressions_and_inputs_reach_the_ballot(cache: Path) -> None:
    """row_sums reads x[row * N + j]: with M = N = 512 that is 512 * 512 elements, which a buffer of a few times
    the threads would not hold (the launch would fault: "not run"). count_above's predicate x > threshold is false
    for every lane with threshold 1.0: the second input set (threshold 0.25) activates lanes and confirms it."""
    src = ROOT / "tests" / "data" / "confirm" / "sized.hip"
    res = CliRunner().invoke(main, ["analyze", str(src), "--confirm", "--format", "json", "--fail-on", "never"])
    found = json.loads(res.stdout)["findings"]
    c = at(found, 11, "W64-001")["confirmation"]
    assert c.startswith("confirmed:") and "buffers sized from the index expressions: x 262144" in c, c
    assert "default inputs, integer arguments 512" in c
    c = at(found, 18, "W64-004")["confirmation"]
    assert c.startswith("confirmed:") and "inputs reaching data-dependent code" in c and "threshold=0.25" in c, c
    assert "porter: --confirm: 3 confirmed, 0 not confirmed (refuted on the synthesized launch" in res.stderr


def test_interval_bounds_of_index_expressions() -> None:
    from porter.emulate.launch import facts_of
    from porter.emulate.sizing import buffer_elements, choose_scalar

    facts = facts_of(families.sample("transpose/transpose_naive.hip"))
    fn = next(f for f in facts["functions"] if f["kind"] == "kernel")
    # out[c * rows + r], in[r * cols + c] with c < 32 * 2, r < 8, rows = cols = n
    need = buffer_elements(fn, (32, 8, 1), (2, 1, 1), 100)
    assert need == {"in": 7 * 100 + 63 + 1, "out": 63 * 100 + 7 + 1}
    n, need = choose_scalar(fn, (32, 8, 1), (2, 1, 1), 1 << 20, 4096)
    assert n == 1 << 6 and max(need.values()) <= 4096


def test_the_library_call_confirms_from_the_facts_the_analysis_kept(cache: Path, votes: list[dict],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import porter.confirm
    from porter.analysis import Options, analyze

    reparsed: list[list[str]] = []
    real = porter.confirm._facts_for
    monkeypatch.setattr(porter.confirm, "_facts_for", lambda paths, *a: reparsed.append(paths) or real(paths, *a))
    report = analyze([str(VOTES)], Options(confirm=True, jobs=1))
    assert reparsed == [[]], "--confirm parsed a file the analysis had just parsed"
    assert report.results[0].facts is not None and report.errors == []
    # the same lines as `porter analyze --confirm` on the command line
    assert [(f.line, f.rule_id, f.confirmed) for f in report.findings] == \
        [(f["line"], f["rule_id"], f.get("confirmation", "")) for f in votes]
