"""Build an original (hipified) kernel for the GPU present and launch it from Python: the baseline a converted
kernel is compared against, with no launcher required of the user's file.

porter generates a small shim next to the file, `#include`s the file unchanged and exports two C functions:
`porter_signature()` (each parameter's type, as the compiler sees it: porter/emulate/cpu_runtime/porter_entry.h, the
same code the CPU emulator uses) and `porter_entry(argv, nargs, cfg, shmem)`, which unpacks raw argument bytes
into the kernel's parameter types and launches `kernel<<<grid, block, shmem>>>` on the default stream. On NVIDIA
the shim is built with nvcc, `-I porter/hip_for_nvcc` making `#include "hip/hip_runtime.h"` resolve to porter's
HIP-to-CUDA header (porter/hip_for_nvcc/hip2cuda.h; warpSize is 32 there, so the kernel runs as written for NVIDIA);
on ROCm with hipcc against the real HIP headers.

    from porter.verify import gpu_original
    from porter.emulate.launch import Launch
    k = gpu_original.load("porter/families/gemm/samples/gemm_tiled.hip", "gemm_tiled")   # compiled once, then cached
    k.launch(Launch("gemm_tiled", grid, block, 0, names, (A, B, C, M, N, K, alpha, beta), ("C",)))
    torch.cuda.synchronize()

Buffers are tensors on the GPU (anything with data_ptr()); scalars are packed to the parameter's own C type.
Builds are cached by content hash (source, shim, runtime headers, arch, compiler version) under
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

RUNTIME_DIR = Path(__file__).resolve().parent.parent / "hip_for_nvcc"
NVCC_FLAGS = ("-x", "cu", "-shared", "-Xcompiler", "-fPIC", "-O3", "-std=c++17")
# The original's file may define host functions that call its project's libraries (llm.c's common.h: cuBLAS;
# ggml: libggml), which porter does not link: only the shim's two entry points are exported and unreferenced
# sections are dropped, so the library loads with nothing the launched kernel does not reach left unresolved.
NVCC_DROP_UNUSED = ("-Xcompiler", "-fvisibility=hidden,-ffunction-sections,-fdata-sections", "-Xlinker",
                    "--gc-sections")
HIPCC_DROP_UNUSED = ("-fvisibility=hidden", "-ffunction-sections", "-fdata-sections", "-Wl,--gc-sections")


class BuildError(Exception):
    """nvcc is missing or rejected the source (message: what happened and the compiler's first errors)."""


class LaunchError(RuntimeError):
    """The launch failed (a non-zero hip/cuda error code, or arguments that do not fit the kernel)."""


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
    return [_nvcc(), *NVCC_FLAGS, *NVCC_DROP_UNUSED, f"-arch={arch}", "-I", str(RUNTIME_DIR), *extra_flags,
            "-o", str(output), str(sample_path)]


ENTRY_HEADER = Path(__file__).resolve().parent.parent / "emulate" / "cpu_runtime" / "porter_entry.h"
_SAFE_PATH = re.compile(r'[^"\\\n\r]+\Z')


def shim_source(source: str | os.PathLike[str], kernel: str, hip: bool = False) -> str:
    """The C++ that includes `source` unchanged and exports porter_signature / porter_entry for `kernel`."""
    from porter.emulate.launch import SpecError, validate_kernel_spelling

    src = str(Path(source).resolve())
    if not _SAFE_PATH.match(src) or not _SAFE_PATH.match(str(ENTRY_HEADER)):
        raise BuildError(f"{src}: the path cannot be written into an #include")
    try:
        validate_kernel_spelling(kernel)
    except SpecError as exc:
        raise BuildError(str(exc)) from None
    # a CUDA original (not hipified) has no hip2cuda.h in its includes; nvcc always declares cudaGetLastError
    err = "hipGetLastError()" if hip else "cudaGetLastError()"
    return (f'#include "{src}"\n'
            + ('#include <hip/hip_fp16.h>\n' if hip else "")
            + "#include <cstring>\n#include <string>\n#include <type_traits>\n#include <utility>\n"
            "namespace porter {\n"
            "template <class... P, class... A>\n"
            "void launch_kernel(void (*k)(P...), dim3 g, dim3 b, size_t shmem, A&&... a) {\n"
            "    k<<<g, b, shmem>>>(std::forward<A>(a)...);\n}\n}  // namespace porter\n"
            f'#include "{ENTRY_HEADER}"\n'
            'extern "C" __attribute__((visibility("default"))) const char* porter_signature() {\n'
            f"    static const std::string s = ::porter::signature_of(&{kernel});\n    return s.c_str();\n}}\n"
            'extern "C" __attribute__((visibility("default"))) int porter_entry(void** a, int n, '
            "const unsigned* cfg, size_t shmem) {\n"
            f"    if (int rc = ::porter::entry(&{kernel}, a, n, cfg, shmem)) return rc;\n"
            f"    return (int){err};\n}}\n")


def find_hipcc() -> str | None:
    for cand in (os.environ.get("HIPCC"), shutil.which("hipcc"), "/opt/rocm/bin/hipcc"):
        if cand and Path(cand).is_file() and os.access(cand, os.X_OK):
            return cand
    return None


def build(source: str | os.PathLike[str], kernel: str, arch: str = "sm_90a", *, hip: bool = False,
          extra_flags: Sequence[str] = ()) -> Path:
    """Compile the shim for `kernel` of `source` into a shared library (cached); return its path.
    hip=True builds with hipcc for `arch` (e.g. gfx942) against the real HIP headers. Raises BuildError."""
    src = Path(source)
    if not src.is_file():
        raise BuildError(f"{src}: no such file")
    text = shim_source(src, kernel, hip)
    if hip:
        compiler = find_hipcc()
        if compiler is None:
            raise BuildError("hipcc not found (looked at $HIPCC, PATH and /opt/rocm/bin)")
        flags = ["-x", "hip", "-shared", "-fPIC", "-O3", "-std=c++17", f"--offload-arch={arch}", *HIPCC_DROP_UNUSED,
                 *extra_flags]
    else:
        compiler = _nvcc()
        flags = [*NVCC_FLAGS, *NVCC_DROP_UNUSED, f"-arch={arch}", "-I", str(RUNTIME_DIR), *extra_flags]
    h = hashlib.sha256()
    for part in (src.read_bytes(), text.encode(), _runtime_bytes(), ENTRY_HEADER.read_bytes(), "\0".join(flags).encode(),
                 _nvcc_version(compiler).encode()):
        h.update(part + b"\0")
    out = cache_dir() / f"{src.stem}-{arch}-{h.hexdigest()[:20]}.so"
    if out.is_file():
        return out
    with tempfile.TemporaryDirectory(prefix="porter-original-", dir=cache_dir()) as tmp:
        shim = Path(tmp) / "shim.cu"
        shim.write_text(text)
        lib = Path(tmp) / "k.so"
        cmd = [compiler, *flags, "-I", str(src.parent.resolve()), "-o", str(lib), str(shim)]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            errors = [ln for ln in (proc.stderr + proc.stdout).splitlines() if ln.strip()]
            raise BuildError(f"{src}: {Path(compiler).name} failed for kernel {kernel} (exit {proc.returncode}):\n"
                             + "\n".join(errors[:20]) + f"\ncommand: {' '.join(cmd)}")
        os.replace(lib, out)
    return out


@dataclass
class Kernel:
    """A built original kernel: its library and its parameters as the compiler sees them."""
    source: Path
    kernel: str
    lib: ctypes.CDLL
    params: tuple[Any, ...]       # porter.emulate.Param (the same signature codes as the emulator)

    def launch(self, launch: Any) -> None:
        """Launch (porter.emulate.launch.Launch) on the default stream; raises LaunchError. Does not synchronize."""
        from porter.emulate import _scalar_bytes

        if len(launch.args) != len(self.params):
            raise LaunchError(f"{self.kernel} takes {len(self.params)} arguments, the launch has {len(launch.args)}")
        keep = []
        for p, v in zip(self.params, launch.args):
            if p.kind == "ptr":
                if not hasattr(v, "data_ptr"):
                    raise LaunchError(f"parameter {p.describe()}: pass a GPU tensor")
                if getattr(v, "is_cuda", True) is False:
                    raise LaunchError(f"parameter {p.describe()}: the tensor is on {getattr(v, 'device', 'the CPU')}")
                if hasattr(v, "is_contiguous") and not v.is_contiguous():
                    raise LaunchError(f"parameter {p.describe()}: the tensor is not contiguous")
                keep.append(ctypes.c_void_p(v.data_ptr()))
            else:
                try:
                    raw = _scalar_bytes(p, v)
                except ValueError as exc:
                    raise LaunchError(str(exc)) from None
                keep.append(ctypes.create_string_buffer(raw, max(8, len(raw))))
        argv = (ctypes.c_void_p * len(keep))(*(ctypes.addressof(k) for k in keep))  # kept alive by `keep`
        cfg = (ctypes.c_uint * 6)(*launch.grid, *launch.block)
        code = self.lib.porter_entry(argv, len(keep), cfg, ctypes.c_size_t(launch.shared_bytes))
        if code:
            raise LaunchError(f"{launch.describe()} failed with error code {code} (see cudaError_t / hipError_t)")


def load(source: str | os.PathLike[str], kernel: str, arch: str = "sm_90a", hip: bool = False,
         extra_flags: Sequence[str] = ()) -> Kernel:
    """Build (cached) and dlopen the shim for `kernel`; its parameters come from the compiled signature.
    extra_flags: the original project's -I/-D flags, passed to the compiler."""
    from porter.emulate import Param
    from porter.emulate.source import kernel_param_names

    lib = ctypes.CDLL(str(build(source, kernel, arch, hip=hip, extra_flags=extra_flags)))
    lib.porter_signature.restype = ctypes.c_char_p
    lib.porter_entry.restype = ctypes.c_int
    lib.porter_entry.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
    codes = [ln.split() for ln in lib.porter_signature().decode().splitlines() if ln.strip()]
    names = kernel_param_names(Path(source).read_text(), kernel) or []
    if len(names) != len(codes):
        names = [f"arg{i}" for i in range(len(codes))]
    params = tuple(Param(n, c[0], c[1], len(c) > 2 and c[2] == "const") for n, c in zip(names, codes))
    return Kernel(Path(source), kernel, lib, params)
