"""Compile the emulation runtime, the job runner and one shared library per kernel with the host g++, cached by
content hash under ~/.cache/porter/emulate (or $PORTER_EMULATE_CACHE)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from porter import sandbox
from porter.emulate.source import kernel_param_names, launcher_param_names, rewrite

RUNTIME_DIR = Path(__file__).resolve().parent / "cpu_runtime"
CXX_FLAGS = ["-std=c++17", "-O2", "-g1", "-fPIC", "-fvisibility=hidden", "-fno-strict-aliasing", "-pthread"]
LINK_UNUSED = ["-ffunction-sections", "-fdata-sections", "-Wl,--gc-sections"]


class CompileError(Exception):
    """g++ rejected the kernel source (message: the compiler's first errors)."""


@dataclass(frozen=True)
class Param:
    """One kernel parameter as the compiler sees it: `ptr` (a device buffer) or `val` (a scalar passed by value).
    code: f4/f8/f2 floats, i1..i8/u1..u8 integers, b1 bool, v0 void, p8 pointer, V<n> other n-byte types."""
    name: str
    kind: str
    code: str
    const: bool = False

    @property
    def nbytes(self) -> int:
        digits = "".join(ch for ch in self.code if ch.isdigit())
        return int(digits) if digits else 0

    def describe(self) -> str:
        t = {"f4": "float", "f8": "double", "f2": "__half", "b1": "bool", "v0": "void"}.get(self.code, self.code)
        return f"{'const ' if self.const else ''}{t}{'*' if self.kind == 'ptr' else ''} {self.name}"


@dataclass(frozen=True)
class KernelLib:
    path: Path
    source: Path
    kernel: str
    params: tuple[Param, ...]


def cache_dir() -> Path:
    env = os.environ.get("PORTER_EMULATE_CACHE")
    if env:
        root = Path(env)
    else:
        root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "porter" / "emulate"
    root.mkdir(parents=True, exist_ok=True)
    return root


def _cxx() -> str:
    cxx = os.environ.get("CXX", "g++")
    if not shutil.which(cxx):
        raise CompileError(f"{cxx}: not found; porter emulate needs a host C++17 compiler (g++ >= 9)")
    return cxx


@cache
def _compiler_id() -> str:
    return subprocess.run([_cxx(), "--version"], capture_output=True, text=True).stdout.splitlines()[0]


def _sha(*parts: str | bytes) -> str:
    h = hashlib.sha256()
    for p in parts:
        h.update(p.encode() if isinstance(p, str) else p)
        h.update(b"\0")
    return h.hexdigest()[:20]


@cache
def runtime_hash() -> str:
    files = sorted(p for p in RUNTIME_DIR.rglob("*") if p.is_file())
    return _sha(_compiler_id(), " ".join(CXX_FLAGS), *(p.read_bytes() for p in files))


def _compile(cmd: list[str], what: str) -> None:
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        errors = [ln for ln in r.stderr.splitlines() if "error" in ln]
        head = "\n".join(errors[:12]) or r.stderr[-3000:]
        raise CompileError(f"{what} failed to compile:\n{head}")


def _publish(tmp: Path, dest: Path) -> Path:
    os.replace(tmp, dest)  # atomic: concurrent builders race harmlessly
    return dest


@cache
def runtime_artifacts() -> tuple[Path, Path]:
    """(runtime object, runner executable), built once per runtime version and compiler."""
    root = cache_dir()
    h = runtime_hash()
    obj, runner = root / f"rt-{h}.o", root / f"runner-{h}"
    if not obj.exists():
        tmp = root / f".rt-{h}.{os.getpid()}.o"
        _compile([_cxx(), *CXX_FLAGS, "-c", str(RUNTIME_DIR / "porter_rt.cpp"), "-o", str(tmp)], "porter runtime")
        _publish(tmp, obj)
    if not runner.exists():
        tmp = root / f".runner-{h}.{os.getpid()}"
        _compile([_cxx(), "-std=c++17", "-O2", str(RUNTIME_DIR / "runner.cpp"), "-o", str(tmp), "-ldl"],
                 "porter runner")
        _publish(tmp, runner)
    return obj, runner


def _deps_ok(entry: Path) -> bool:
    try:
        deps = json.loads((entry / "deps.json").read_text())
        return all(Path(p).is_file() and _sha(Path(p).read_bytes()) == h for p, h in deps.items())
    except (OSError, ValueError):
        return False


def _record_deps(entry: Path, depfile: Path, skip: set[Path]) -> None:
    # User headers the kernel includes (not system or porter runtime headers) invalidate the cache entry.
    raw = depfile.read_text().replace("\\\n", " ").split(":", 1)[-1].split()
    deps = {}
    for p in raw:
        path = Path(p).resolve()
        if path in skip or str(path).startswith(("/usr/", str(RUNTIME_DIR))) or not path.is_file():
            continue
        deps[str(path)] = _sha(path.read_bytes())
    (entry / "deps.json").write_text(json.dumps(deps))


def build_kernel(source: str | os.PathLike[str], kernel: str, wave_size: int = 64, host: bool = False,
                 extra_flags: Sequence[str] = ()) -> KernelLib:
    """Compile `kernel` (a name, `ns::name` or a template-id such as `name<256>`) from a hipified source file.
    With host=True, `kernel` names a host launcher function instead, called as written (see porter_entry.h).
    extra_flags: the original project's -I/-D flags (porter.cli.verify validates them)."""
    src = Path(source).resolve()
    text = src.read_text()
    # Code that tests __AMDGCN_WAVEFRONT_SIZE in #if needs it as a literal: then the library is per wave size.
    wave_macro = wave_size if "__AMDGCN_WAVEFRONT_SIZE" in text else None
    obj, runner = runtime_artifacts()
    key = _sha(runtime_hash(), str(src), text, kernel, str(wave_macro), "host" if host else "kernel", *extra_flags)
    entry = cache_dir() / f"k-{key}"
    lib = entry / "kernel.so"
    if not (lib.exists() and (entry / "signature.txt").exists() and _deps_ok(entry)):
        entry.mkdir(parents=True, exist_ok=True)
        body = rewrite(text)
        (entry / "src.hip").write_text(f'#line 1 "{src}"\n{body}')
        (entry / "wrapper.cpp").write_text(
            '#include "src.hip"\n#include "porter_entry.h"\n'
            'extern "C" __attribute__((visibility("default"))) const char* porter_signature() {\n'
            f"    static const std::string s = ::porter::signature_of(&{kernel});\n"
            "    return s.c_str();\n}\n"
            'extern "C" __attribute__((visibility("default"))) int porter_entry(void** a, int n, '
            "const unsigned* cfg, size_t shmem) {\n"
            + (f"    return ::porter::host_entry(&{kernel}, a, n);\n}}\n" if host else
               f"    return ::porter::entry(&{kernel}, a, n, cfg, shmem);\n}}\n"))
        defines = [f"-D__AMDGCN_WAVEFRONT_SIZE={wave_macro}"] if wave_macro else []
        tmp = entry / f".kernel.{os.getpid()}.so"
        # CUDA sources (not hipified) find the CUDA-named headers in cpu_runtime/cuda. The file's host code may call its
        # project's libraries (cuBLAS, libggml), which are not linked: only porter's two entry points are exported
        # and unreferenced sections are dropped, so nothing the launched kernel does not reach stays unresolved.
        cmd = [_cxx(), *CXX_FLAGS, *defines, *LINK_UNUSED, "-shared", "-I", str(RUNTIME_DIR),
               "-I", str(RUNTIME_DIR / "cuda"), "-I", str(src.parent), *extra_flags,
               "-include", str(RUNTIME_DIR / "hip" / "hip_runtime.h"), "-MD", "-MF", str(entry / "deps.d"),
               str(entry / "wrapper.cpp"), str(obj), "-o", str(tmp)]
        try:
            _compile(cmd, f"{src.name} (kernel {kernel})")
        except CompileError as e:
            hint = ""
            if f"&{kernel}" in str(e) or "no matching function" in str(e) or "overloaded" in str(e):
                hint = (f"\nhint: `{kernel}` must name one kernel; give a template's arguments explicitly, "
                        f"e.g. --kernel '{kernel.split('<')[0]}<256>'")
            raise CompileError(str(e) + hint) from None
        # loading the library runs its constructors and static initializers: the user's host code
        sig = subprocess.run(sandboxed([str(runner), "--signature", str(tmp)], f"{src.name} (kernel {kernel})",
                                       readable=(runner, tmp)), capture_output=True, text=True, env=runner_env())
        if sig.returncode != 0:
            raise CompileError(f"cannot load the compiled kernel: {sig.stderr.strip()}")
        (entry / "signature.txt").write_text(sig.stdout)
        _record_deps(entry, entry / "deps.d", {entry / "src.hip", entry / "wrapper.cpp"})
        _publish(tmp, lib)
    codes = [ln.split() for ln in (entry / "signature.txt").read_text().splitlines() if ln.strip()]
    names = (launcher_param_names(text, kernel) if host else kernel_param_names(text, kernel)) or []
    if len(names) != len(codes):
        names = [f"arg{i}" for i in range(len(codes))]
    params = tuple(Param(n, c[0], c[1], len(c) > 2 and c[2] == "const") for n, c in zip(names, codes))
    return KernelLib(lib, src, kernel, params)


def runner_path() -> Path:
    return runtime_artifacts()[1]


# `__shared__` arrays are thread_local, and the runtime's initial-exec TLS (porter_rt.h) puts a kernel library's
# whole TLS block in the static TLS surplus that glibc keeps for dlopen (about 1.6 KiB by default): a kernel with
# two 16x16 float tiles already fails to load. The runner process gets room for 1 MiB of static shared memory,
# more than any target's LDS per workgroup (porter/targets/*.toml).
STATIC_TLS_BYTES = 1 << 20


def runner_env() -> dict[str, str]:
    """The environment for the runner process (glibc >= 2.32 reads the tunable at start-up)."""
    env = dict(os.environ)
    tunable = f"glibc.rtld.optional_static_tls={STATIC_TLS_BYTES}"
    env["GLIBC_TUNABLES"] = f"{env['GLIBC_TUNABLES']}:{tunable}" if env.get("GLIBC_TUNABLES") else tunable
    return env


def sandboxed(argv: list[str], what: str, *, scratch: Path | None = None, readable: tuple[Path, ...] = (),
              cpu_seconds: float = 120.0) -> list[str]:
    """`argv` (which runs the user's code) wrapped in porter's sandbox; CompileError where there is none."""
    try:
        return sandbox.command(argv, what=what, scratch=scratch, readable=readable, cpu_seconds=cpu_seconds,
                               env=runner_env())
    except sandbox.SandboxUnavailable as e:
        raise CompileError(str(e)) from None


def make_tempdir() -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix="porter-emulate-")
