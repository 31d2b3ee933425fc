"""The gfx942 toolchain: setup is real (apt packages, private bitcode dir, HIP headers), idempotent and explains
its failures; status says what this machine can do."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from porter import toolchain as tc
from porter.cli import main

pytestmark = pytest.mark.toolchain

DATA = Path(__file__).parent / "data" / "toolchain"


@pytest.fixture(scope="module")
def porter_tc() -> tc.Toolchain:
    # CI runs `porter toolchain setup` first; this is then a no-op, and on a fresh machine it builds (~20 s)
    return tc.setup()


def test_setup_builds_a_complete_prefix(porter_tc: tc.Toolchain) -> None:
    assert porter_tc.kind == "porter"       # setup() builds porter's own even where ROCm exists
    prefix = tc.default_prefix()
    bc = prefix / "bitcode" / "oclc_isa_version_942.bc"
    ir = subprocess.run(["llvm-dis-19", str(bc), "-o", "-"], capture_output=True, text=True, check=True).stdout
    assert "i32 9402" in ir and "i32 9400" not in ir
    assert (prefix / "bitcode" / "ocml.bc").exists()
    root = porter_tc.root
    assert (root / "include" / "hip" / "hip_bf16.h").is_file()             # HIP >= 6 headers
    assert (root / "include" / "hip" / "amd_detail" / "amd_hip_fp8.h").is_file()
    assert (root / "include" / "rocwmma" / "rocwmma.hpp").is_file()
    assert os.access(root / "bin" / "hipcc", os.X_OK)
    assert int(porter_tc.versions["hip-headers"].split(".")[0]) >= 6


def test_second_setup_is_quick_and_identical(porter_tc: tc.Toolchain) -> None:
    start = time.monotonic()
    again = tc.setup()
    assert time.monotonic() - start < 1.0
    assert again == porter_tc


def test_cli_setup_is_idempotent(porter_tc: tc.Toolchain) -> None:
    res = CliRunner().invoke(main, ["toolchain", "setup"])
    assert res.exit_code == 0, res.output
    assert "ROCM_PATH=" in res.output or "ROCm found" in res.output


def test_hipcc_wrapper_makes_a_code_object(porter_tc: tc.Toolchain, tmp_path: Path) -> None:
    src = tmp_path / "k.cc"     # TileLang writes .cc files; the wrapper must still compile them as HIP
    src.write_text("#include <hip/hip_runtime.h>\n__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }\n")
    out = tmp_path / "k.hsaco"
    proc = subprocess.run([str(porter_tc.hipcc), "-c", "--offload-arch=gfx942", "--genco", "-o", str(out), str(src)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert out.read_bytes()[:4] == b"\x7fELF"
    # host compilation is impossible without ROCm: refused with a message, not a confusing clang error
    proc = subprocess.run([str(porter_tc.hipcc), "-c", str(src)], capture_output=True, text=True)
    assert proc.returncode == 2 and "--genco" in proc.stderr


def test_tilelang_compiles_through_the_wrapper(porter_tc: tc.Toolchain, tmp_path: Path) -> None:
    # TileLang's own HIP build finds hipcc through ROCM_PATH (FACTS.md section 4)
    script = (
        "import sys; sys.path.insert(0, %r)\n"
        "import tilelang, tl_gemm\n"
        "from tvm.target import Target\n"
        "tgt = Target({'kind': 'hip', 'mcpu': 'gfx942'})\n"
        "with tgt:\n"
        "    k = tilelang.compile(tl_gemm.gemm(), target=tgt, execution_backend='tvm_ffi')\n"
        "print('MFMA-KERNEL-OK' if 'main_kernel' in k.get_kernel_source() else 'no kernel')\n"
    ) % str(DATA)
    env = dict(os.environ, ROCM_PATH=str(porter_tc.root), TILELANG_CACHE_DIR=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "MFMA-KERNEL-OK" in proc.stdout


def test_status_reports_capabilities(porter_tc: tc.Toolchain) -> None:
    st = tc.status(probe_nvidia=False)
    caps = {c.name: c for c in st.capabilities}
    assert caps["compile-gfx942"].available
    assert st.rocm_path is not None and Path(st.rocm_path, "bin", "hipcc").exists()
    if tc.find_rocm() is None:
        # without ROCm nothing can run gfx942 code, and the reason says so
        assert not caps["run-gfx942"].available and "ROCm" in caps["run-gfx942"].reason
    assert "clang" in st.versions
    json.dumps(dataclasses.asdict(st))


def test_status_cli_text_and_json(porter_tc: tc.Toolchain) -> None:
    runner = CliRunner()
    res = runner.invoke(main, ["toolchain"])
    assert res.exit_code == 0, res.output
    assert "compile-gfx942" in res.output and "run-gfx942" in res.output and "run-nvidia" in res.output
    res = runner.invoke(main, ["toolchain", "status", "--format", "json", "--no-nvidia-probe"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert {"toolchain", "rocm_path", "versions", "capabilities"} <= data.keys()
    assert any(c["name"] == "compile-gfx942" and c["available"] for c in data["capabilities"])


def test_help_teaches() -> None:
    res = CliRunner().invoke(main, ["toolchain", "--help"])
    assert res.exit_code == 0
    for word in ("setup", "ROCM_PATH", "clang-19", "TileLang", "facts"):
        assert word in res.output


def test_missing_package_is_a_clear_error() -> None:
    with pytest.raises(tc.ToolchainError) as info:
        tc._ensure_packages(["porter-no-such-package-xyz"])
    msg = str(info.value)
    assert "porter-no-such-package-xyz" in msg and "apt" in msg
    assert "Traceback" not in msg


def test_missing_package_via_cli_has_no_traceback(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(tc, "APT_PACKAGES", (*tc.APT_PACKAGES, "porter-no-such-package-xyz"))
    monkeypatch.setenv("PORTER_TOOLCHAIN_DIR", str(tmp_path / "tc"))
    monkeypatch.delenv("ROCM_PATH", raising=False)
    res = CliRunner().invoke(main, ["toolchain", "setup", "--force"])
    assert res.exit_code == 2
    assert "error:" in res.output and "porter-no-such-package-xyz" in res.output
    assert "Traceback" not in res.output
    assert isinstance(res.exception, SystemExit)


def test_mirror_comes_from_the_machine_config() -> None:
    uri, _key = tc.debian_mirror()
    assert uri.startswith(("http://", "https://")) and uri.endswith("/debian")


def test_no_toolchain_error_says_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ROCM_PATH", raising=False)
    if tc.find_rocm() is not None:
        assert tc.find_toolchain(tmp_path / "empty").kind == "rocm"   # ROCm wins over an absent prefix
        return
    with pytest.raises(tc.ToolchainError, match="porter toolchain setup"):
        tc.find_toolchain(tmp_path / "empty")


def test_setup_never_touches_what_porter_did_not_create(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # `--prefix /opt` with a real ROCm in /opt/rocm: its headers, bitcode and hipcc must survive
    opt = tmp_path / "opt"
    foreign = {opt / "rocm" / "include" / "hip" / "hip_runtime.h": "// vendor header\n",
               opt / "rocm" / "bin" / "hipcc": "#!/bin/sh\n# vendor hipcc\n",
               opt / "bitcode" / "ocml.bc": "BC"}
    for path, text in foreign.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    monkeypatch.setattr(tc, "find_rocm", lambda: None)
    res = CliRunner().invoke(main, ["toolchain", "setup", "--prefix", str(opt)])
    assert res.exit_code == 2 and "porter did not create" in res.stderr and "bitcode, rocm" in res.stderr
    assert all(path.read_text() == text for path, text in foreign.items())
    assert sorted(p.name for p in opt.iterdir()) == ["bitcode", "rocm"]


def test_prefix_claim_is_recorded_before_anything_is_built(tmp_path: Path) -> None:
    prefix = tmp_path / "new"
    tc.claim_prefix(prefix)
    assert set((prefix / tc.MANIFEST).read_text().split()) == set(tc.PREFIX_ENTRIES)
    (prefix / "bitcode").mkdir()    # left by an interrupted setup: still porter's
    tc.claim_prefix(prefix)
    (tmp_path / "mixed" / "rocm").mkdir(parents=True)
    (tmp_path / "mixed" / "rocm" / "x").write_text("")
    with pytest.raises(tc.ToolchainError, match="rocm already exist"):
        tc.claim_prefix(tmp_path / "mixed")
    assert not (tmp_path / "mixed" / tc.MANIFEST).exists()
