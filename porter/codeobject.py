"""Compile HIP for gfx942 to a real code object and read its facts: registers, spills, scratch, LDS, occupancy and
the instruction mix, per kernel (FACTS.md section 5 says where each number comes from).

The facts come from three places that must agree: clang's `-Rpass-analysis=kernel-resource-usage` remarks,
the code object's AMDGPU metadata note (`llvm-readelf --notes`) and its disassembly (`llvm-objdump -d`).
"""

from __future__ import annotations

import importlib.util
import math
import re
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Mapping

from porter.targets import DEFAULT_TARGET, Target, load_target
from porter.toolchain import Toolchain, ToolchainError, find_toolchain, supported_archs

REMARK_FLAG = "-Rpass-analysis=kernel-resource-usage"


class CompileError(ToolchainError):
    """The compiler rejected the source; the message carries its diagnostics."""


@dataclass(frozen=True)
class InstructionMix:
    total: int
    mfma: int                   # matrix-core instructions: v_mfma_*, v_smfmac_* (CDNA), v_wmma_* (RDNA3)
    ds_read_b128: int
    ds_write_b128: int
    ds_read_other: int          # ds_read_b32/b64/b96, ds_read2*, ds_read_u8/u16...
    ds_write_other: int
    ds_other: int               # atomics, permutes, swizzles
    scratch: int                # scratch_* (gfx942 spills and private arrays go through these)
    buffer_loads: int           # buffer_* may be global (resource descriptors) or scratch: reported apart
    buffer_stores: int
    global_loads: int           # global_load* and flat_load*
    global_loads_b128: int      # of which 16 bytes per lane (float4 / uint4 loads)
    global_stores: int
    global_atomics: int
    barriers: int
    mfma_kinds: tuple[tuple[str, int], ...]   # e.g. (("v_mfma_f32_16x16x16_f16", 256),)


@dataclass(frozen=True)
class KernelFacts:
    name: str                   # demangled
    symbol: str                 # as in the code object
    arch: str
    wavefront_size: int
    max_workgroup_size: int
    sgprs: int
    vgprs: int                  # architectural VGPRs
    agprs: int                  # accumulation VGPRs (MFMA results)
    vgpr_count: int             # unified register file use per lane: align(vgprs, 4) + agprs on gfx942
    sgpr_spills: int
    vgpr_spills: int
    scratch_bytes: int          # private segment bytes per lane
    static_lds_bytes: int       # __shared__ arrays known at compile time
    dynamic_lds_bytes: int      # extern __shared__ bytes supplied at launch (TileLang's buf_dyn_shmem)
    lds_bytes: int              # static + dynamic
    occupancy: int              # waves per SIMD from VGPRs and LDS; 0 when the kernel cannot launch
    occupancy_limit: str        # "vgprs", "lds", "max-waves" or "lds-overflow"
    compiler_occupancy: int | None   # clang's number, which ignores dynamic LDS
    instructions: InstructionMix


@dataclass(frozen=True)
class CodeObject:
    source: str
    output: str | None          # the .hsaco path, None when compiled into a temporary directory
    command: tuple[str, ...]
    toolchain: str
    kernels: tuple[KernelFacts, ...]

    def kernel(self, name: str) -> KernelFacts:
        for k in self.kernels:
            if name in (k.name, k.symbol) or k.name.split("(")[0] == name:
                return k
        raise KeyError(f"no kernel {name!r} in {self.source} (have: {', '.join(k.name for k in self.kernels)})")


# ---------------------------------------------------------------------------------------------------- compile

def tilelang_include_dir() -> Path:
    """TileLang's template headers (tl_templates/...) ship in the package's src/ dir; found without importing it."""
    spec = importlib.util.find_spec("tilelang")
    if spec is None or spec.origin is None:
        raise ToolchainError("tilelang is not installed: `pip install tilelang==0.1.15` (after torch==2.13.0)")
    src = Path(spec.origin).parent / "src"
    if not (src / "tl_templates" / "hip").is_dir():
        raise ToolchainError(f"no tl_templates/hip under {src}: unexpected tilelang layout")
    return src


def compile_command(tc: Toolchain, source: Path, output: Path, *, arch: str = "gfx942",
                    hip_runtime: bool = False, tilelang: bool = False, include_dirs: Iterable[Path | str] = (),
                    defines: Iterable[str] = (), extra_flags: Iterable[str] = ()) -> list[str]:
    cmd = [str(tc.clang), "-x", "hip", f"--offload-arch={arch}", "--offload-device-only",
           "--no-gpu-bundle-output", "-O3", "-std=c++17", *tc.device_flags]
    if hip_runtime:
        # plain hipified kernels often rely on hipcc's implicit runtime header
        cmd += ["-include", "hip/hip_runtime.h"]
    if tilelang:
        cmd += ["-I", str(tilelang_include_dir())]
    for d in include_dirs:
        cmd += ["-I", str(d)]
    cmd += [f"-D{d}" for d in defines]
    cmd += [*extra_flags, REMARK_FLAG, "-c", str(source), "-o", str(output)]
    return cmd


def compile_hip(source: Path | str, output: Path | str | None = None, *, toolchain: Toolchain | None = None,
                arch: str | None = None, hip_runtime: bool = False, tilelang: bool | None = None,
                include_dirs: Iterable[Path | str] = (), defines: Iterable[str] = (),
                extra_flags: Iterable[str] = (), dyn_lds: int | Mapping[str, int] = 0,
                target: str = DEFAULT_TARGET) -> CodeObject:
    """Compile one HIP file for `arch` (default: the target's toolchain_arch) and return the facts of every
    kernel in it, judged against `target`'s occupancy and limits.

    dyn_lds: dynamic shared memory per launch, one number for all kernels or per kernel name.
    tilelang: add TileLang's template headers; None = when the source includes tl_templates/.
    """
    tc = toolchain or find_toolchain()
    arch = arch or load_target(target).toolchain_arch
    if arch not in supported_archs(tc):
        raise ToolchainError(f"{tc.clang} cannot generate {arch} code (it is newer than this LLVM); use a ROCm "
                             f"or LLVM release that knows {arch}")
    source = Path(source)
    if not source.is_file():
        raise ToolchainError(f"no such file: {source}")
    if tilelang is None:
        tilelang = "tl_templates/" in source.read_text(errors="replace")
    with tempfile.TemporaryDirectory(prefix="porter-co-") as tmp:
        out = Path(output) if output is not None else Path(tmp) / (source.stem + ".hsaco")
        cmd = compile_command(tc, source, out, arch=arch, hip_runtime=hip_runtime, tilelang=tilelang,
                              include_dirs=include_dirs, defines=defines, extra_flags=extra_flags)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            errors = [ln for ln in proc.stderr.splitlines() if "remark:" not in ln]
            raise CompileError(f"{source}: compiling for {arch} failed\n" + "\n".join(errors[-40:]))
        notes = _tool(tc.readelf, "--notes", out)
        disasm = _tool(tc.objdump, "-d", f"--mcpu={arch}", out)
    kernels = build_facts(parse_notes(notes), parse_remarks(proc.stderr), parse_disassembly(disasm),
                          load_target(target), dyn_lds, _demangler(tc))
    return CodeObject(str(source), str(output) if output is not None else None, tuple(cmd), tc.kind, kernels)


def compile_hipified(source: Path | str, **kw) -> CodeObject:
    """A hipified CUDA file as hipify leaves it: hip/hip_runtime.h is forced in as hipcc would."""
    return compile_hip(source, hip_runtime=True, **kw)


def compile_text(text: str, name: str = "kernel.hip", **kw) -> CodeObject:
    """Compile HIP source held in memory (e.g. TileLang's kernel_source)."""
    with tempfile.TemporaryDirectory(prefix="porter-src-") as tmp:
        path = Path(tmp) / name
        path.write_text(text)
        return compile_hip(path, **kw)


def _tool(exe: Path, *args: object) -> str:
    proc = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise ToolchainError(f"{exe.name} failed: {proc.stderr.strip()[:2000]}")
    return proc.stdout


def _demangler(tc: Toolchain):
    exe = tc.readelf.with_name(tc.readelf.name.replace("readelf", "cxxfilt"))

    def demangle(names: list[str]) -> list[str]:
        if not names or not exe.exists():
            return names
        proc = subprocess.run([str(exe)], input="\n".join(names) + "\n", capture_output=True, text=True)
        out = proc.stdout.splitlines()
        return out if proc.returncode == 0 and len(out) == len(names) else names
    return demangle


# ---------------------------------------------------------------------------------------------------- parsers

_REMARK = re.compile(r"remark:\s+(?P<key>[A-Za-z][A-Za-z ]*?(?: \[[^\]]+\])?):\s+(?P<value>\S+)\s+\[-Rpass")


def parse_remarks(text: str) -> dict[str, dict[str, str]]:
    """clang's kernel-resource-usage remarks: {function: {"VGPRs": "38", "LDS Size [bytes/block]": "0", ...}}."""
    out: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for line in text.splitlines():
        m = _REMARK.search(line)
        if not m:
            continue
        key, value = m.group("key").strip(), m.group("value")
        if key == "Function Name":
            current = out.setdefault(value, {})
        elif current is not None:
            current[key] = value
    return out


def parse_notes(text: str) -> list[dict[str, str]]:
    """The scalar keys of each entry of amdhsa.kernels in `llvm-readelf --notes` (a YAML subset, read by indent)."""
    kernels: list[dict[str, str]] = []
    inside = False
    for line in text.splitlines():
        if line.startswith("amdhsa.kernels:"):
            inside = True
            continue
        if not inside:
            continue
        if line and not line.startswith(" "):
            break  # next top-level key: amdhsa.target, amdhsa.version
        m = re.match(r"^  - \.([\w.]+):\s*(.*)$", line)
        if m:
            kernels.append({m.group(1): m.group(2).strip()})
            continue
        m = re.match(r"^    \.([\w.]+):\s*(.*)$", line)
        if m and kernels:
            kernels[-1][m.group(1)] = m.group(2).strip()
    return kernels


def parse_disassembly(text: str) -> dict[str, Counter[str]]:
    """Mnemonic counts per symbol in `llvm-objdump -d` output."""
    ops: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        m = re.match(r"^[0-9a-fA-F]+ <(.+)>:$", line)
        if m:
            current = ops.setdefault(m.group(1), [])
        elif current is not None and line.startswith("\t") and line.strip():
            current.append(line.split()[0])
    out = {}
    for sym, seq in ops.items():
        # the code object pads the text section with s_nop / s_code_end after the last s_endpgm: not code
        while seq and seq[-1] in ("s_nop", "s_code_end"):
            seq.pop()
        out[sym] = Counter(seq)
    return out


def instruction_mix(counts: Counter[str]) -> InstructionMix:
    def n(pred) -> int:
        return sum(c for op, c in counts.items() if pred(op))

    mfma = {op: c for op, c in counts.items() if op.startswith(("v_mfma_", "v_smfmac_", "v_wmma_", "v_swmmac_"))}
    return InstructionMix(
        total=sum(counts.values()),
        mfma=sum(mfma.values()),
        ds_read_b128=counts.get("ds_read_b128", 0),
        ds_write_b128=counts.get("ds_write_b128", 0),
        ds_read_other=n(lambda op: op.startswith("ds_read") and op != "ds_read_b128"),
        ds_write_other=n(lambda op: op.startswith("ds_write") and op != "ds_write_b128"),
        ds_other=n(lambda op: op.startswith("ds_") and not op.startswith(("ds_read", "ds_write"))),
        scratch=n(lambda op: op.startswith("scratch_")),
        buffer_loads=n(lambda op: op.startswith("buffer_load")),
        buffer_stores=n(lambda op: op.startswith("buffer_store")),
        global_loads=n(lambda op: op.startswith(("global_load", "flat_load"))),
        global_loads_b128=n(lambda op: op in ("global_load_dwordx4", "flat_load_dwordx4")),
        global_stores=n(lambda op: op.startswith(("global_store", "flat_store"))),
        global_atomics=n(lambda op: op.startswith(("global_atomic", "flat_atomic"))),
        barriers=counts.get("s_barrier", 0),
        mfma_kinds=tuple(sorted(mfma.items())),
    )


# ---------------------------------------------------------------------------------------------------- occupancy

def occupancy(vgpr_count: int, lds_bytes: int, workgroup_size: int, target: Target) -> tuple[int, str]:
    """(waves per SIMD, what limits it) from the unified VGPR use and the workgroup's LDS (FACTS.md section 1)."""
    x = target.occupancy
    if x is None:
        raise ValueError(f"target {target.name} has no [occupancy] table")
    max_waves, simds, granule, file_size = x.max_waves_per_simd, x.simds_per_cu, x.vgpr_granule, x.vgprs_per_simd_lane
    alloc = max(granule, math.ceil(vgpr_count / granule) * granule)
    by_vgpr = min(max_waves, file_size // alloc)
    by_lds = max_waves
    if lds_bytes > 0:
        groups = target.lds_bytes_per_cu // lds_bytes
        if groups == 0:
            return 0, "lds-overflow"
        waves_per_group = math.ceil(max(1, workgroup_size) / target.wave_size)
        # a workgroup's waves spread over the CU's SIMDs; at least one wave runs if one group fits
        by_lds = max(1, min(max_waves, groups * waves_per_group // simds))
    waves = min(by_vgpr, by_lds)
    limit = "max-waves" if waves == max_waves else ("vgprs" if by_vgpr <= by_lds else "lds")
    return waves, limit


def build_facts(notes: list[dict[str, str]], remarks: dict[str, dict[str, str]],
                disasm: dict[str, Counter[str]], target: Target, dyn_lds: int | Mapping[str, int] = 0,
                demangle=lambda names: names) -> tuple[KernelFacts, ...]:
    symbols = [k.get("name", "") for k in notes]
    names = demangle(symbols)
    facts = []
    for meta, symbol, name in zip(notes, symbols, names):
        rem = remarks.get(symbol, {})
        dyn = int(dyn_lds.get(name.split("(")[0], dyn_lds.get(symbol, 0))) if isinstance(dyn_lds, Mapping) \
            else int(dyn_lds)
        static_lds = int(meta.get("group_segment_fixed_size", 0))
        wg = int(meta.get("max_flat_workgroup_size", target.max_threads_per_block))
        vgpr_count = int(meta.get("vgpr_count", 0))
        waves, limit = occupancy(vgpr_count, static_lds + dyn, wg, target)
        arch_vgprs = int(rem["VGPRs"]) if "VGPRs" in rem else vgpr_count - int(meta.get("agpr_count", 0))
        occ = rem.get("Occupancy [waves/SIMD]")
        facts.append(KernelFacts(
            name=name, symbol=symbol, arch=target.name,
            wavefront_size=int(meta.get("wavefront_size", 0)), max_workgroup_size=wg,
            sgprs=int(meta.get("sgpr_count", rem.get("SGPRs", 0))), vgprs=arch_vgprs,
            agprs=int(meta.get("agpr_count", rem.get("AGPRs", 0))), vgpr_count=vgpr_count,
            sgpr_spills=int(meta.get("sgpr_spill_count", rem.get("SGPRs Spill", 0))),
            vgpr_spills=int(meta.get("vgpr_spill_count", rem.get("VGPRs Spill", 0))),
            scratch_bytes=int(meta.get("private_segment_fixed_size", 0)),
            static_lds_bytes=static_lds, dynamic_lds_bytes=dyn, lds_bytes=static_lds + dyn,
            occupancy=waves, occupancy_limit=limit, compiler_occupancy=int(occ) if occ else None,
            instructions=instruction_mix(disasm.get(symbol, Counter())),
        ))
    return tuple(facts)


# ---------------------------------------------------------------------------------------------------- checks

def check(kernel: KernelFacts, dyn_lds: int | None = None, target: str | None = None) -> list[str]:
    """Problems that make a kernel slow or unlaunchable on the target; empty when none.

    dyn_lds overrides the dynamic LDS bytes recorded at compile time.
    """
    tgt = load_target(target or kernel.arch)
    lds = kernel.static_lds_bytes + (kernel.dynamic_lds_bytes if dyn_lds is None else dyn_lds)
    problems = []
    if kernel.vgpr_spills or kernel.sgpr_spills:
        problems.append(f"{kernel.name}: register spills ({kernel.vgpr_spills} VGPR, {kernel.sgpr_spills} SGPR) "
                        "go to scratch memory: use smaller tiles or fewer live values per thread")
    if kernel.scratch_bytes or kernel.instructions.scratch:
        problems.append(f"{kernel.name}: uses scratch ({kernel.scratch_bytes} bytes/lane, "
                        f"{kernel.instructions.scratch} scratch instructions): a local array indexed at run time "
                        "or a spill; keep per-thread arrays small and indexed by constants")
    if lds > tgt.lds_bytes_per_workgroup:
        problems.append(f"{kernel.name}: needs {lds} bytes of LDS, over {tgt.name}'s {tgt.lds_bytes_per_workgroup} "
                        "per workgroup: the launch fails; use smaller tiles or fewer pipeline stages")
    if kernel.wavefront_size and kernel.wavefront_size != tgt.wave_size:
        problems.append(f"{kernel.name}: compiled for wave{kernel.wavefront_size}, {tgt.name} runs wave{tgt.wave_size}")
    return problems


def format_table(columns: list[tuple[str, KernelFacts]]) -> str:
    """Kernels side by side (e.g. the hipified original next to the generated TileLang kernel)."""
    rows: list[tuple[str, ...]] = [("", *(label for label, _ in columns))]

    def row(title: str, get) -> None:
        rows.append((title, *(str(get(k)) for _, k in columns)))

    row("kernel", lambda k: k.name if len(k.name) < 40 else k.name[:37] + "...")
    row("VGPRs (arch+acc)", lambda k: f"{k.vgpr_count} ({k.vgprs}+{k.agprs})")
    row("SGPRs", lambda k: k.sgprs)
    row("spills (v/s)", lambda k: f"{k.vgpr_spills}/{k.sgpr_spills}")
    row("scratch B/lane", lambda k: k.scratch_bytes)
    row("LDS (static+dyn)", lambda k: f"{k.lds_bytes} ({k.static_lds_bytes}+{k.dynamic_lds_bytes})")
    row("waves/SIMD", lambda k: f"{k.occupancy} ({k.occupancy_limit})")
    row("MFMA", lambda k: k.instructions.mfma)
    row("ds_read b128/other", lambda k: f"{k.instructions.ds_read_b128}/{k.instructions.ds_read_other}")
    row("ds_write b128/other", lambda k: f"{k.instructions.ds_write_b128}/{k.instructions.ds_write_other}")
    row("global ld/st", lambda k: f"{k.instructions.global_loads}/{k.instructions.global_stores}")
    row("instructions", lambda k: k.instructions.total)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)
