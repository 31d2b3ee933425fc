"""Find or set up a compiler that turns HIP into AMD code objects (every AMD target in porter/targets), and
say what this machine can do.

Two kinds of toolchain (FACTS.md section 5):
- "rocm": a ROCm install (ROCM_PATH or /opt/rocm) with its clang; rocminfo tells which AMD GPUs are present.
- "porter": a device-code-only toolchain built from Debian packages (clang-19, lld-19, llvm-19,
  rocm-device-libs) plus a private bitcode dir, HIP >= 6 headers taken from Debian unstable's libamdhip64-dev,
  a rocwmma stand-in and a `hipcc` wrapper, all under a porter-owned prefix. It compiles; it cannot run.

Nothing here imports torch at module import time.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

# Bump when the layout of the porter prefix changes, so that an older prefix is rebuilt.
LAYOUT_VERSION = 1
LLVM_MAJOR = 19
APT_PACKAGES: tuple[str, ...] = (f"clang-{LLVM_MAJOR}", f"lld-{LLVM_MAJOR}", f"llvm-{LLVM_MAJOR}", "rocm-device-libs")
HIP_HEADERS_PACKAGE = "libamdhip64-dev"
HIP_HEADERS_SUITE = "unstable"
STAMP = "porter-toolchain.json"
# What porter creates directly under a prefix, and the manifest naming those it created there: setup never
# replaces an entry of this list that it did not create (`--prefix /opt` would otherwise delete /opt/rocm).
MANIFEST = "porter-toolchain.owned"
PREFIX_ENTRIES = ("bitcode", "bitcode.tmp", "rocm", "hip-headers.version", STAMP)

Log = Callable[[str], None]


class ToolchainError(Exception):
    """A failure the user can act on; the CLI prints the message without a traceback."""


@dataclass(frozen=True)
class Toolchain:
    kind: str                       # "rocm" or "porter"
    root: Path                      # what ROCM_PATH should be for TileLang (has bin/hipcc, include/hip)
    clang: Path                     # clang++ able to target amdgcn
    readelf: Path
    objdump: Path
    device_flags: tuple[str, ...]   # flags after the common ones: headers and bitcode location
    versions: dict[str, str] = field(default_factory=dict, hash=False, compare=False)

    @property
    def hipcc(self) -> Path:
        return self.root / "bin" / "hipcc"


# ---------------------------------------------------------------------------------------------------- helpers

def _run(cmd: list[str], *, check: bool = True, env: dict[str, str] | None = None,
         cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd)
    except FileNotFoundError as exc:
        raise ToolchainError(f"cannot run {cmd[0]}: {exc.strerror}") from None
    if check and proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-15:]
        raise ToolchainError(f"command failed ({proc.returncode}): {' '.join(cmd)}\n" + "\n".join(tail))
    return proc


def default_prefix() -> Path:
    env = os.environ.get("PORTER_TOOLCHAIN_DIR")
    if env:
        return Path(env).expanduser()
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "porter" / "toolchain"


def _first_line(text: str) -> str:
    return text.strip().splitlines()[0] if text.strip() else ""


# ---------------------------------------------------------------------------------------------------- ROCm

def rocm_root() -> Path | None:
    """A ROCm install with a clang that can target amdgcn, or None."""
    candidates = [os.environ["ROCM_PATH"]] if os.environ.get("ROCM_PATH") else []
    candidates.append("/opt/rocm")
    for cand in candidates:
        root = Path(cand)
        # porter's own prefix also looks like a ROCM_PATH; it is found through its stamp instead
        if (root.parent / STAMP).is_file():
            continue
        if _rocm_clang(root) is not None:
            return root
    return None


def _rocm_clang(root: Path) -> Path | None:
    for rel in ("llvm/bin/amdclang++", "llvm/bin/clang++", "bin/amdclang++"):
        if (root / rel).is_file():
            return root / rel
    return None


def find_rocm() -> Toolchain | None:
    root = rocm_root()
    if root is None:
        return None
    clang = _rocm_clang(root)
    assert clang is not None
    llvm_bin = clang.parent
    versions = {"clang": _first_line(_run([str(clang), "--version"], check=False).stdout)}
    ver_file = root / ".info" / "version"
    if ver_file.is_file():
        versions["rocm"] = ver_file.read_text().strip()
    return Toolchain("rocm", root, clang, llvm_bin / "llvm-readelf", llvm_bin / "llvm-objdump",
                     (f"--rocm-path={root}",), versions)


def rocm_gpu_archs() -> list[str]:
    """gfx names of the GPUs rocminfo reports; empty without ROCm or GPUs."""
    root = rocm_root()
    exe = shutil.which("rocminfo") or (str(root / "bin" / "rocminfo") if root else None)
    if not exe or not Path(exe).exists():
        return []
    proc = subprocess.run([exe], capture_output=True, text=True, timeout=60)
    return sorted(set(re.findall(r"^\s*Name:\s+(gfx[0-9a-f]+)\s*$", proc.stdout, re.M)))


# ---------------------------------------------------------------------------------------------------- porter prefix

def _llvm_tool(name: str) -> Path:
    return Path(f"/usr/bin/{name}-{LLVM_MAJOR}")


def find_porter(prefix: Path | None = None) -> Toolchain | None:
    """The porter-built toolchain if it is complete, else None."""
    prefix = prefix or default_prefix()
    stamp = prefix / STAMP
    try:
        data = json.loads(stamp.read_text())
    except (OSError, ValueError):
        return None
    if data.get("layout") != LAYOUT_VERSION:
        return None
    needed = [Path(data["clang"]), Path(data["readelf"]), Path(data["objdump"]), Path(data["resource_include"]),
              *(Path(data["bitcode_dir"]) / device_lib_name(arch) for arch, _ in derived_device_libs()),
              prefix / "rocm" / "include" / "hip" / "hip_runtime.h", prefix / "rocm" / "bin" / "hipcc"]
    if not all(p.exists() for p in needed):
        return None
    root = prefix / "rocm"
    flags = ("-nogpuinc", "-isystem", f"{data['resource_include']}/cuda_wrappers", "-isystem",
             str(root / "include"), "-include", "__clang_hip_runtime_wrapper.h",
             f"--rocm-device-lib-path={data['bitcode_dir']}")
    return Toolchain("porter", root, Path(data["clang"]), Path(data["readelf"]), Path(data["objdump"]), flags,
                     dict(data.get("versions", {})))


def find_toolchain(prefix: Path | None = None) -> Toolchain:
    """ROCm if installed, else the porter prefix; a ToolchainError that says what to do otherwise."""
    tc = find_rocm() or find_porter(prefix)
    if tc is None:
        raise ToolchainError("no AMD toolchain: no ROCm install (ROCM_PATH, /opt/rocm) and no porter toolchain "
                             f"under {prefix or default_prefix()}. Run `porter toolchain setup` (Debian/Ubuntu, "
                             "needs root for apt-get) or install ROCm.")
    return tc


# ---------------------------------------------------------------------------------------------------- setup

def _check_debian_like() -> None:
    if not Path("/etc/debian_version").is_file() or shutil.which("apt-get") is None or shutil.which("dpkg") is None:
        raise ToolchainError("`porter toolchain setup` builds its toolchain from Debian packages and needs a "
                             "Debian-like system (apt-get, dpkg). Elsewhere, install ROCm and set ROCM_PATH.")


def _installed(pkg: str) -> bool:
    proc = _run(["dpkg-query", "-W", "-f=${Status}", pkg], check=False)
    return proc.returncode == 0 and proc.stdout.strip().endswith(" installed")


def _candidate(pkg: str) -> str | None:
    proc = _run(["apt-cache", "policy", pkg], check=False)
    m = re.search(r"Candidate:\s*(\S+)", proc.stdout)
    return m.group(1) if m and m.group(1) != "(none)" else None


def _apt_prefix() -> list[str]:
    if os.geteuid() == 0:
        return []
    if shutil.which("sudo"):
        return ["sudo", "-n"]
    raise ToolchainError("installing packages needs root: run `porter toolchain setup` as root, or first run "
                         f"`apt-get install {' '.join(APT_PACKAGES)}` as root")


def _ensure_packages(packages: tuple[str, ...] | list[str], log: Log = lambda _: None) -> None:
    """apt-get install what is missing; a ToolchainError naming the package when apt does not know it."""
    missing = [p for p in packages if not _installed(p)]
    if not missing:
        return
    unknown = [p for p in missing if _candidate(p) is None]
    if unknown and not any(Path("/var/lib/apt/lists").glob("*_Packages*")):
        # a fresh container ships without package lists: fetch them once, never on every unknown name
        log("apt-get update (no package lists yet)")
        _run(_apt_prefix() + ["apt-get", "update", "-q"], check=False)
        unknown = [p for p in missing if _candidate(p) is None]
    if unknown:
        raise ToolchainError(f"package(s) not available from this machine's apt sources: {', '.join(unknown)}. "
                             f"porter needs {', '.join(APT_PACKAGES)} (Debian 12 bookworm or newer); check "
                             "/etc/apt/sources.list*, or install ROCm and set ROCM_PATH.")
    log("apt-get install " + " ".join(missing))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    _run(_apt_prefix() + ["apt-get", "install", "-y", "-q", "--no-install-recommends", *missing], env=env)


def _package_files(pkg: str) -> list[str]:
    return _run(["dpkg", "-L", pkg]).stdout.split()


def _package_version(pkg: str) -> str:
    return _run(["dpkg-query", "-W", "-f=${Version}", pkg], check=False).stdout.strip()


def isa_version(arch: str) -> int:
    """The ISA version constant of an AMD arch's oclc_isa_version file: gfx942 -> 9402, gfx1100 -> 11000,
    gfx90a -> 9010 (major, then the minor and stepping digits, which are hex)."""
    digits = arch.removeprefix("gfx")
    return int(digits[:-2]) * 1000 + int(digits[-2], 16) * 100 + int(digits[-1], 16)


def device_lib_name(arch: str) -> str:
    return f"oclc_isa_version_{arch.removeprefix('gfx')}.bc"


def derived_device_libs() -> list[tuple[str, str]]:
    """(arch, arch of the file it is derived from) for every AMD target whose device library the porter toolchain
    derives (its `device_lib` field): rocm-device-libs 5.2 predates gfx942, gfx950 and gfx11."""
    from porter.targets import amd_targets
    return sorted({(t.toolchain_arch, "gfx" + t.device_lib) for t in amd_targets() if t.device_lib})


def _build_bitcode_dir(dest: Path, log: Log) -> Path:
    """Links to the system device libraries plus one oclc_isa_version file per derived_device_libs() entry."""
    files = {Path(f).name: Path(f) for f in _package_files("rocm-device-libs") if f.endswith(".bc")}
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for name, f in files.items():
        (tmp / name).symlink_to(f)
    derived = [(arch, src) for arch, src in derived_device_libs() if device_lib_name(arch) not in files]
    for arch, src in derived:
        source = files.get(device_lib_name(src))
        if source is None:
            raise ToolchainError(f"rocm-device-libs has no {device_lib_name(src)} to derive the {arch} file from")
        # the file holds one constant, the ISA version: 9402 instead of 9400 for gfx942 (FACTS.md section 5)
        old, new = f"i32 {isa_version(src)}", f"i32 {isa_version(arch)}"
        text = _run([str(_llvm_tool("llvm-dis")), str(source), "-o", "-"]).stdout
        if old not in text:
            raise ToolchainError(f"unexpected content in {source}: no `{old}` constant")
        ll = tmp / device_lib_name(arch).replace(".bc", ".ll")
        ll.write_text(text.replace(old, new))
        _run([str(_llvm_tool("llvm-as")), str(ll), "-o", str(tmp / device_lib_name(arch))])
        ll.unlink()
    shutil.rmtree(dest, ignore_errors=True)
    tmp.rename(dest)
    log(f"bitcode dir {dest} ({len(files) + len(derived)} files)")
    return dest


# --- the machine's Debian mirror, for the private apt state

_ONE_LINE = re.compile(r"^\s*deb\s+(?:\[(?P<opts>[^\]]*)\]\s+)?(?P<uri>\S+)\s+(?P<suite>\S+)")


def debian_mirror() -> tuple[str, str | None]:
    """(URI, signed-by keyring or None) of the first configured Debian archive (not -security, not ports)."""
    entries: list[tuple[str, list[str], str | None]] = []
    files = [Path("/etc/apt/sources.list")] + sorted(Path("/etc/apt/sources.list.d").glob("*"))
    for path in files:
        if not path.is_file():
            continue
        text = path.read_text(errors="replace")
        if path.suffix == ".list" or path.name == "sources.list":
            for line in text.splitlines():
                m = _ONE_LINE.match(line)
                if m:
                    key = re.search(r"signed-by=(\S+)", m.group("opts") or "")
                    entries.append((m.group("uri"), [m.group("suite")], key.group(1) if key else None))
        elif path.suffix == ".sources":
            for stanza in re.split(r"\n\s*\n", text):
                fields = {}
                for line in stanza.splitlines():
                    m = re.match(r"^([A-Za-z-]+):\s*(.*)$", line)
                    if m:
                        fields[m.group(1).lower()] = m.group(2).strip()
                if "deb" not in fields.get("types", "").split() or fields.get("enabled", "yes").lower() == "no":
                    continue
                key = fields.get("signed-by")
                for uri in fields.get("uris", "").split():
                    entries.append((uri, fields.get("suites", "").split(), key if key and "\n" not in key else None))
    for uri, suites, key in entries:
        path = uri.rstrip("/")
        if path.endswith("/debian") and not any(s.endswith("-security") for s in suites):
            return path, key
    raise ToolchainError("no Debian archive mirror found in /etc/apt/sources.list*: porter needs one to fetch "
                         f"{HIP_HEADERS_PACKAGE} (HIP >= 6 headers) from {HIP_HEADERS_SUITE}")


def _fetch_hip_headers(dest: Path, work: Path, log: Log) -> str:
    """Download (never install) libamdhip64-dev from unstable with a private apt state; keep usr/include/hip."""
    uri, key = debian_mirror()
    etc, state, cache = work / "etc", work / "state", work / "cache"
    for d in (etc / "sources.list.d", etc / "preferences.d", state / "lists" / "partial",
              cache / "archives" / "partial", work / "dl"):
        d.mkdir(parents=True, exist_ok=True)
    signed = f"[signed-by={key}] " if key else ""
    (etc / "sources.list").write_text(f"deb {signed}{uri} {HIP_HEADERS_SUITE} main\n")
    opts = ["-o", f"Dir::Etc::SourceList={etc / 'sources.list'}", "-o", f"Dir::Etc::SourceParts={etc / 'sources.list.d'}",
            "-o", f"Dir::Etc::Preferences={etc / 'preferences'}", "-o", f"Dir::Etc::PreferencesParts={etc / 'preferences.d'}",
            "-o", f"Dir::State={state}", "-o", f"Dir::Cache={cache}", "-o", "Acquire::Languages=none",
            "-q"]
    if os.geteuid() == 0:
        # apt drops to _apt for downloads, which cannot write into root's home: stay root for this private state
        opts[-1:-1] = ["-o", "APT::Sandbox::User=root"]
    log(f"apt-get update (private state, {uri} {HIP_HEADERS_SUITE})")
    _run(["apt-get", *opts, "update"])
    log(f"apt-get download {HIP_HEADERS_PACKAGE}")
    _run(["apt-get", *opts, "download", HIP_HEADERS_PACKAGE], cwd=work / "dl")
    debs = sorted((work / "dl").glob(f"{HIP_HEADERS_PACKAGE}_*.deb"))
    if not debs:
        raise ToolchainError(f"apt-get download produced no {HIP_HEADERS_PACKAGE} .deb")
    version = debs[-1].name.split("_")[1]
    m = re.match(r"(?:\d+:)?(\d+)", version)   # Debian version: [epoch:]upstream-revision
    major = int(m.group(1)) if m else 0
    if major < 6:
        raise ToolchainError(f"{HIP_HEADERS_PACKAGE} {version} from {HIP_HEADERS_SUITE} is older than 6: "
                             "TileLang's HIP templates need HIP >= 6 headers")
    x = work / "x"
    _run(["dpkg", "-x", str(debs[-1]), str(x)])
    hip = x / "usr" / "include" / "hip"
    if not (hip / "hip_runtime.h").is_file():
        raise ToolchainError(f"{debs[-1].name} has no usr/include/hip/hip_runtime.h")
    shutil.rmtree(dest, ignore_errors=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(hip), str(dest))
    log(f"HIP headers {version} -> {dest}")
    return version


_ROCWMMA = """\
// porter stand-in for <rocwmma/rocwmma.hpp>: TileLang includes it but uses nothing from it (FACTS.md section 5).
#pragma once
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bfloat16.h>
#include <hip/hip_bf16.h>
"""

_HIPCC = """\
#!/bin/bash
# porter's hipcc stand-in (device code only, AMD GPUs): lets TileLang compile with ROCM_PATH={root}.
# It maps hipcc's --genco to clang's device-only code-object output; host compilation is not supported.
set -e
args=()
genco=0
for a in "$@"; do
  case "$a" in
    --genco) genco=1 ;;
    --version) exec {clang} --version ;;
    *) args+=("$a") ;;
  esac
done
if [ "$genco" != 1 ]; then
  echo "porter hipcc stand-in: only --genco (device code object) compiles are supported" >&2
  exit 2
fi
# -x hip: TileLang writes .cc files; -O3 first so that a later -O wins (real hipcc defaults to -O3)
exec {clang} -x hip -O3 -std=c++17 --offload-device-only --no-gpu-bundle-output {flags} "${{args[@]}}"
"""


def _write_if_changed(path: Path, text: str, mode: int | None = None) -> None:
    if not path.is_file() or path.read_text() != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text)
        if mode is not None:
            tmp.chmod(mode)
        tmp.replace(path)


def claim_prefix(prefix: Path) -> None:
    """Refuse a prefix where an entry porter writes exists and porter did not create it; else record, before
    creating anything, that these entries are porter's (so an interrupted setup can be resumed)."""
    manifest = prefix / MANIFEST
    try:
        owned = set(manifest.read_text().split()) if manifest.is_file() else set()
    except (OSError, UnicodeDecodeError) as exc:
        raise ToolchainError(f"{manifest}: cannot read porter's manifest: {exc}") from None
    if (prefix / STAMP).is_file():
        owned |= set(PREFIX_ENTRIES)   # built before the manifest existed: the stamp is porter's own file
    foreign = [name for name in PREFIX_ENTRIES
               if name not in owned and ((prefix / name).exists() or (prefix / name).is_symlink())]
    if foreign:
        raise ToolchainError(f"{prefix}: {', '.join(foreign)} already exist(s) and porter did not create "
                             f"{'them' if len(foreign) > 1 else 'it'}; nothing was changed. Give --prefix a new "
                             f"or empty folder (e.g. {prefix / 'porter-toolchain'}).")
    if owned != set(PREFIX_ENTRIES):
        prefix.mkdir(parents=True, exist_ok=True)
        tmp = manifest.with_name(manifest.name + ".tmp")
        tmp.write_text("\n".join(PREFIX_ENTRIES) + "\n")
        tmp.replace(manifest)


def setup(prefix: Path | None = None, log: Log = lambda _: None, force: bool = False) -> Toolchain:
    """Build the porter toolchain under `prefix`; quick and silent when it is already complete."""
    prefix = (prefix or default_prefix()).resolve()
    if not force:
        existing = find_porter(prefix)
        if existing is not None:
            return existing
    claim_prefix(prefix)
    _check_debian_like()
    _ensure_packages(APT_PACKAGES, log)
    clang = _llvm_tool("clang++")
    resource = Path(_run([str(clang), "-print-resource-dir"]).stdout.strip()) / "include"
    if not (resource / "cuda_wrappers").is_dir():
        raise ToolchainError(f"{resource}/cuda_wrappers is missing (libclang-common-{LLVM_MAJOR}-dev)")
    prefix.mkdir(parents=True, exist_ok=True)
    (prefix / STAMP).unlink(missing_ok=True)   # incomplete until rewritten at the end
    bitcode = _build_bitcode_dir(prefix / "bitcode", log)
    root = prefix / "rocm"
    hip_dir = root / "include" / "hip"
    hip_version_file = prefix / "hip-headers.version"
    if force or not (hip_dir / "hip_runtime.h").is_file() or not hip_version_file.is_file():
        with tempfile.TemporaryDirectory(prefix="porter-apt-", dir=prefix) as work:
            hip_version = _fetch_hip_headers(hip_dir, Path(work), log)
        hip_version_file.write_text(hip_version + "\n")
    hip_version = hip_version_file.read_text().strip()
    _write_if_changed(root / "include" / "rocwmma" / "rocwmma.hpp", _ROCWMMA)
    flags = " ".join(["-nogpuinc", "-isystem", f"{resource}/cuda_wrappers", "-isystem", str(root / "include"),
                      "-include", "__clang_hip_runtime_wrapper.h", f"--rocm-device-lib-path={bitcode}"])
    _write_if_changed(root / "bin" / "hipcc", _HIPCC.format(root=root, clang=clang, flags=flags),
                      0o755)
    versions = {"clang": _first_line(_run([str(clang), "--version"]).stdout),
                "rocm-device-libs": _package_version("rocm-device-libs"), "hip-headers": hip_version}
    stamp = {"layout": LAYOUT_VERSION, "clang": str(clang), "readelf": str(_llvm_tool("llvm-readelf")),
             "objdump": str(_llvm_tool("llvm-objdump")), "resource_include": str(resource),
             "bitcode_dir": str(bitcode), "versions": versions}
    _write_if_changed(prefix / STAMP, json.dumps(stamp, indent=2) + "\n")
    tc = find_porter(prefix)
    if tc is None:
        raise ToolchainError(f"setup finished but the toolchain under {prefix} is incomplete")
    log(f"toolchain ready: ROCM_PATH={root}")
    return tc


# ---------------------------------------------------------------------------------------------------- status

@dataclass(frozen=True)
class Capability:
    name: str
    available: bool
    reason: str


@dataclass(frozen=True)
class ToolchainStatus:
    toolchain: str | None           # "rocm", "porter" or None
    rocm_path: str | None           # what to export as ROCM_PATH for TileLang
    prefix: str                     # where `porter toolchain setup` puts its toolchain
    versions: dict[str, str]
    capabilities: tuple[Capability, ...]


def _nvidia_gpus() -> tuple[bool, str]:
    smi = shutil.which("nvidia-smi")
    if smi:
        proc = subprocess.run([smi, "-L"], capture_output=True, text=True, timeout=60)
        gpus = [ln for ln in proc.stdout.splitlines() if ln.startswith("GPU ")]
        if proc.returncode == 0 and gpus:
            return True, f"{len(gpus)} GPU(s): {gpus[0].split('(')[0].strip()}"
    import importlib.util
    if importlib.util.find_spec("torch") is not None:
        import torch  # only here: importing torch costs seconds
        if torch.cuda.is_available() and torch.version.cuda:
            return True, f"torch.cuda: {torch.cuda.device_count()} GPU(s), {torch.cuda.get_device_name(0)}"
        return False, "no NVIDIA GPU (nvidia-smi " + ("found none" if smi else "missing") + "; torch.cuda unavailable)"
    return False, "no NVIDIA GPU (nvidia-smi " + ("found none" if smi else "missing") + "; torch not installed)"


_SUPPORTED: dict[Path, frozenset[str]] = {}


def supported_archs(tc: Toolchain) -> frozenset[str]:
    """The AMD processors the toolchain's clang can generate code for (clang 19 knows gfx942 and gfx1100, not
    gfx950)."""
    if tc.clang not in _SUPPORTED:
        proc = _run([str(tc.clang), "--target=amdgcn-amd-amdhsa", "-nogpulib", "-print-supported-cpus"], check=False)
        _SUPPORTED[tc.clang] = frozenset(w for w in (proc.stdout + proc.stderr).split() if w.startswith("gfx"))
    return _SUPPORTED[tc.clang]


def status(prefix: Path | None = None, probe_nvidia: bool = True) -> ToolchainStatus:
    prefix = prefix or default_prefix()
    tc = find_rocm() or find_porter(prefix)
    from porter.targets import amd_targets

    caps: list[Capability] = []
    archs = rocm_gpu_archs()
    known = supported_archs(tc) if tc is not None else set()
    for arch in sorted({t.toolchain_arch for t in amd_targets()}):
        if tc is None:
            caps.append(Capability(f"compile-{arch}", False,
                                   "no toolchain: run `porter toolchain setup` or install ROCm"))
        elif arch not in known:
            caps.append(Capability(f"compile-{arch}", False, f"{tc.clang} does not know {arch} (a newer LLVM does)"))
        else:
            how = "ROCm at " + str(tc.root) if tc.kind == "rocm" else "porter toolchain (Debian clang-19 + device libs)"
            caps.append(Capability(f"compile-{arch}", True, how))
        if tc is not None and tc.kind == "rocm" and arch in archs:
            caps.append(Capability(f"run-{arch}", True, f"rocminfo reports {arch}"))
        elif tc is None or tc.kind != "rocm":
            caps.append(Capability(f"run-{arch}", False, f"needs ROCm and a {arch} GPU (no ROCm install here)"))
        else:
            seen = ", ".join(archs) if archs else "no AMD GPU"
            caps.append(Capability(f"run-{arch}", False, f"rocminfo reports {seen}"))
    if probe_nvidia:
        ok, why = _nvidia_gpus()
        caps.append(Capability("run-nvidia", ok, why))
    return ToolchainStatus(tc.kind if tc else None, str(tc.root) if tc else None, str(prefix),
                           dict(tc.versions) if tc else {}, tuple(caps))
