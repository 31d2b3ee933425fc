"""Build an original (hipified) sample kernel with nvcc and call it from Python: the NVIDIA-side baseline that a
converted kernel is compared against.

The .hip file is compiled unchanged: `-I porter/runtime` makes its `#include "hip/hip_runtime.h"` resolve to
porter's own HIP-to-CUDA mapping header (porter/runtime/hip2cuda.h). On NVIDIA warpSize is 32, so the kernel runs
as it was written for NVIDIA, not as gfx942 (wave64) would run it.

Every sample under samples/kernels/ defines one `__global__` kernel and one host launcher

    extern "C" int launch_<kernel>(<device pointers>, <sizes and scalars>)

that computes the grid and block, launches on the default stream and returns the hipGetLastError() code
(0 = success). The launcher does not synchronize. Calling one with torch tensors:

    import torch
    from porter import original

    lib = original.load("samples/kernels/gemm/gemm_tiled.hip")           # nvcc once, then cached
    A = torch.randn(M, K, device="cuda"); B = torch.randn(K, N, device="cuda"); C = torch.zeros(M, N, device="cuda")
    original.call(lib, "launch_gemm_tiled", A, B, C, M, N, K, 1.0, 0.0)  # tensors -> data_ptr(), checks the code
    torch.cuda.synchronize()

`load` reads the launchers' signatures from the source and sets ctypes `argtypes`/`restype`, so plain Python
ints and floats are converted to the C types the launcher declares (`float` scalars must never go through ctypes
unannotated). The launch goes to the legacy default stream (stream 0), which is also torch's default stream; if
you run torch work on another stream, synchronize before and after.

Builds are cached by content hash (source, runtime headers, arch, flags, nvcc version) under
~/.cache/porter/original (or $PORTER_ORIGINAL_CACHE). torch is never imported here.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Sequence

RUNTIME_DIR = Path(__file__).resolve().parent / "runtime"
NVCC_FLAGS = ("-x", "cu", "-shared", "-Xcompiler", "-fPIC", "-O3", "-std=c++17")


class BuildError(Exception):
    """nvcc is missing or rejected the source (message: what happened and the compiler's first errors)."""


class LaunchError(RuntimeError):
    """A launcher returned a non-zero hip/cuda error code."""


@dataclass(frozen=True)
class Launcher:
    """One `extern "C"` launcher as declared in the source: name, (C type, parameter name) pairs, return type."""
    name: str
    params: tuple[tuple[str, str], ...]
    restype: str = "int"

    def signature(self) -> str:
        return f"{self.restype} {self.name}({', '.join(f'{t} {n}' for t, n in self.params)})"


def cache_dir() -> Path:
    env = os.environ.get("PORTER_ORIGINAL_CACHE")
    root = Path(env) if env else Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "porter" / "original"
    root.mkdir(parents=True, exist_ok=True)
    return root


def find_nvcc() -> str | None:
    """nvcc from $NVCC, PATH, or $CUDA_HOME/bin; None when there is none."""
    for cand in (os.environ.get("NVCC"), shutil.which("nvcc"),
                 str(Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "bin" / "nvcc")):
        if cand and Path(cand).is_file() and os.access(cand, os.X_OK):
            return cand
    return None


def _nvcc() -> str:
    nvcc = find_nvcc()
    if nvcc is None:
        raise BuildError("nvcc not found (looked at $NVCC, PATH and $CUDA_HOME/bin): install the CUDA toolkit or "
                         "set NVCC=/path/to/nvcc to build original kernels")
    return nvcc


@cache
def _nvcc_version(nvcc: str) -> str:
    out = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    return out[-1] if out else nvcc


def _runtime_bytes() -> bytes:
    h = hashlib.sha256()
    for p in sorted(RUNTIME_DIR.rglob("*.h")):
        h.update(str(p.relative_to(RUNTIME_DIR)).encode() + b"\0" + p.read_bytes() + b"\0")
    return h.digest()


def compile_command(sample_path: str | os.PathLike[str], output: str | os.PathLike[str], arch: str = "sm_90a",
                    extra_flags: Sequence[str] = ()) -> list[str]:
    """The nvcc command line `build` runs (for people who want to reproduce a build by hand)."""
    return [_nvcc(), *NVCC_FLAGS, f"-arch={arch}", "-I", str(RUNTIME_DIR), *extra_flags, "-o", str(output),
            str(sample_path)]


def build(sample_path: str | os.PathLike[str], arch: str = "sm_90a", *, extra_flags: Sequence[str] = (),
          syntax_only: bool = False) -> Path:
    """Compile `sample_path` into a shared library with nvcc (cached); return the library's path.

    syntax_only: compile device and host code to an object file only (no link); used where there is no GPU and
    only the question "does it compile" matters. Raises BuildError."""
    src = Path(sample_path)
    if not src.is_file():
        raise BuildError(f"{src}: no such file")
    nvcc = _nvcc()
    flags = tuple(extra_flags) + (("-c",) if syntax_only else ())
    h = hashlib.sha256()
    for part in (src.read_bytes(), _runtime_bytes(), arch.encode(), "\0".join(flags).encode(),
                 _nvcc_version(nvcc).encode()):
        h.update(part + b"\0")
    key = h.hexdigest()[:20]
    out = cache_dir() / f"{src.stem}-{arch}-{key}{'.o' if syntax_only else '.so'}"
    if out.is_file():
        return out
    fd, tmp = tempfile.mkstemp(prefix=f".{src.stem}-", suffix=out.suffix, dir=out.parent)
    os.close(fd)
    try:
        cmd = compile_command(src, tmp, arch, flags)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            errors = [ln for ln in (proc.stderr + proc.stdout).splitlines() if ln.strip()]
            raise BuildError(f"{src}: nvcc failed (exit {proc.returncode}):\n" + "\n".join(errors[:20]) +
                             f"\ncommand: {' '.join(cmd)}")
        os.replace(tmp, out)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    return out


# ------------------------------------------------------------------------------------------- launcher signatures

_LAUNCHER = re.compile(r'extern\s+"C"\s+(?:__host__\s+)?(int|void|hipError_t)\s+(launch_\w+)\s*\(([^)]*)\)', re.S)
_CTYPES: dict[str, Any] = {
    "float": ctypes.c_float, "double": ctypes.c_double, "int": ctypes.c_int, "unsigned": ctypes.c_uint,
    "unsigned int": ctypes.c_uint, "long": ctypes.c_long, "long long": ctypes.c_longlong,
    "unsigned long long": ctypes.c_ulonglong, "size_t": ctypes.c_size_t, "int64_t": ctypes.c_int64,
    "int32_t": ctypes.c_int32, "bool": ctypes.c_bool,
}


def launchers(sample_path: str | os.PathLike[str]) -> dict[str, Launcher]:
    """The `extern "C" launch_*` functions declared in a sample, by name."""
    text = Path(sample_path).read_text()
    text = re.sub(r"//[^\n]*", "", text)
    out: dict[str, Launcher] = {}
    for ret, name, plist in _LAUNCHER.findall(text):
        params = []
        for raw in (p.strip() for p in plist.split(",")):
            if not raw or raw == "void":
                continue
            m = re.match(r"(.*?[\s*&])(\w+)$", raw)
            if not m:
                raise ValueError(f"{sample_path}: cannot read launcher parameter {raw!r} of {name}")
            params.append((" ".join(m.group(1).split()).replace(" *", "*"), m.group(2)))
        out[name] = Launcher(name, tuple(params), "int" if ret == "hipError_t" else ret)
    return out


def _ctype(ctype: str) -> Any:
    if ctype.endswith("*"):
        return ctypes.c_void_p
    base = ctype.replace("const ", "").strip()
    if base not in _CTYPES:
        raise ValueError(f"launcher parameter type {ctype!r} has no ctypes mapping")
    return _CTYPES[base]


def load(sample_path: str | os.PathLike[str], arch: str = "sm_90a") -> ctypes.CDLL:
    """Build (cached) and dlopen a sample; every `launch_*` function gets argtypes/restype from its declaration.
    The handle's `_porter_launchers` attribute holds the parsed Launcher records."""
    lib = ctypes.CDLL(str(build(sample_path, arch)))
    found = launchers(sample_path)
    for name, spec in found.items():
        fn = getattr(lib, name)
        fn.argtypes = [_ctype(t) for t, _ in spec.params]
        fn.restype = None if spec.restype == "void" else ctypes.c_int
    lib._porter_launchers = found  # type: ignore[attr-defined]
    return lib


def _arg(value: Any, ctype: str, pname: str) -> Any:
    if hasattr(value, "data_ptr"):
        if not ctype.endswith("*"):
            raise TypeError(f"{pname}: a tensor was passed for the {ctype} parameter")
        if getattr(value, "is_cuda", True) is False:
            raise TypeError(f"{pname}: tensor is on {getattr(value, 'device', 'the CPU')}, the kernel needs a CUDA "
                            "tensor")
        if hasattr(value, "is_contiguous") and not value.is_contiguous():
            raise TypeError(f"{pname}: tensor is not contiguous; the kernels assume dense row-major layouts")
        return value.data_ptr()
    return value


def call(lib: ctypes.CDLL, name: str, *args: Any) -> None:
    """Call launcher `name` of a library from `load`; tensors (anything with data_ptr()) become device pointers.
    Raises LaunchError on a non-zero return code. Does not synchronize."""
    spec: dict[str, Launcher] = getattr(lib, "_porter_launchers", {})
    if name not in spec:
        raise KeyError(f"{name}: not a launcher of this library (have: {', '.join(sorted(spec)) or 'none'})")
    params = spec[name].params
    if len(args) != len(params):
        raise TypeError(f"{spec[name].signature()}: takes {len(params)} arguments, got {len(args)}")
    code = getattr(lib, name)(*(_arg(a, t, n) for a, (t, n) in zip(args, params)))
    if code:
        raise LaunchError(f"{name} returned error code {code} (see cudaError_t)")
