"""`porter toolchain`: show what this machine can do for gfx942, set up the compiler, read a kernel's code object."""

from __future__ import annotations

import dataclasses
import json
import sys
import time
from pathlib import Path

import click

from porter import toolchain as tcmod


def _fail(exc: Exception) -> None:
    # a clear message and exit 2 (configuration problem), never a traceback
    click.echo(f"error: {exc}", err=True)
    sys.exit(2)


def _print_status(st: tcmod.ToolchainStatus, fmt: str) -> None:
    if fmt == "json":
        click.echo(json.dumps(dataclasses.asdict(st), indent=2))
        return
    if st.toolchain is None:
        click.echo(f"gfx942 toolchain: none (run `porter toolchain setup`; it installs into {st.prefix})")
    else:
        click.echo(f"gfx942 toolchain: {st.toolchain}  (ROCM_PATH={st.rocm_path})")
    for key, value in st.versions.items():
        click.echo(f"  {key:<18}{value}")
    click.echo("capabilities:")
    for cap in st.capabilities:
        click.echo(f"  {cap.name:<18}{'yes' if cap.available else 'no ':<5}{cap.reason}")
    if st.toolchain == "porter":
        click.echo(f"TileLang can build HIP kernels with it: export ROCM_PATH={st.rocm_path}")


_FORMAT = click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
                       help="text for people, json for tools")


@click.group(invoke_without_command=True)
@click.option("--setup", "do_setup", is_flag=True, help="same as `porter toolchain setup`")
@_FORMAT
@click.pass_context
def toolchain(ctx: click.Context, do_setup: bool, fmt: str) -> None:
    """Show or set up the compiler that builds HIP kernels for gfx942 (MI300X).

    \b
    porter toolchain                 what this machine can do: compile for gfx942? run on gfx942? on NVIDIA?
    porter toolchain setup           build the compiler if there is no ROCm (Debian/Ubuntu, root for apt-get)
    porter toolchain facts FILE...   compile HIP files and print registers, spills, LDS, occupancy, MFMA counts

    With ROCm installed (ROCM_PATH or /opt/rocm) porter uses it. Without ROCm, `setup` installs Debian's
    clang-19, lld-19, llvm-19 and rocm-device-libs with apt-get, and builds under ~/.cache/porter/toolchain
    (or $PORTER_TOOLCHAIN_DIR) a device-code-only gfx942 toolchain: a gfx942 device-library file, HIP 6
    headers taken (not installed) from Debian unstable, and a `hipcc` wrapper so that TileLang compiles with
    ROCM_PATH=<that dir>/rocm. It makes real gfx942 code objects; it cannot run them.
    """
    if ctx.invoked_subcommand is not None:
        return
    if do_setup:
        ctx.invoke(setup)
    else:
        ctx.invoke(status, fmt=fmt)


@toolchain.command()
@_FORMAT
@click.option("--no-nvidia-probe", is_flag=True, help="skip nvidia-smi / torch.cuda (importing torch takes seconds)")
def status(fmt: str, no_nvidia_probe: bool = False) -> None:
    """Versions and capabilities: compile for gfx942, run on gfx942, run on an NVIDIA GPU."""
    try:
        st = tcmod.status(probe_nvidia=not no_nvidia_probe)
    except tcmod.ToolchainError as exc:
        _fail(exc)
    _print_status(st, fmt)


@toolchain.command()
@click.option("--prefix", type=click.Path(path_type=Path), default=None,
              help="where to build (default $PORTER_TOOLCHAIN_DIR or ~/.cache/porter/toolchain)")
@click.option("--force", is_flag=True, help="rebuild even if the toolchain is complete")
@click.option("--quiet", "-q", is_flag=True, help="print only errors")
def setup(prefix: Path | None = None, force: bool = False, quiet: bool = False) -> None:
    """Build the gfx942 toolchain from Debian packages (idempotent: a second run returns at once).

    Skipped when ROCm is installed. Installs clang-19 lld-19 llvm-19 rocm-device-libs with apt-get (root);
    everything else stays under the prefix. Takes about 20 s on a fresh Debian 12 machine.
    """
    start = time.monotonic()
    log = (lambda _: None) if quiet else (lambda m: click.echo(f"  {m}"))
    try:
        rocm = tcmod.find_rocm()
        if rocm is not None and not force:
            if not quiet:
                click.echo(f"ROCm found at {rocm.root}: nothing to set up")
            return
        tc = tcmod.setup(prefix, log=log, force=force)
    except tcmod.ToolchainError as exc:
        _fail(exc)
    if not quiet:
        click.echo(f"gfx942 toolchain ready in {time.monotonic() - start:.1f} s: ROCM_PATH={tc.root}")


@toolchain.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--hipified", is_flag=True, help="force-include hip/hip_runtime.h, as hipcc does for hipified CUDA")
@click.option("--tilelang/--no-tilelang", default=None,
              help="add TileLang's template headers (default: when the file includes tl_templates/)")
@click.option("--dyn-lds", type=int, default=0, show_default=True, help="dynamic shared memory bytes per launch")
@click.option("-I", "includes", multiple=True, help="include directory")
@click.option("-D", "defines", multiple=True, help="preprocessor definition NAME[=VALUE]")
@_FORMAT
def facts(files: tuple[Path, ...], hipified: bool, tilelang: bool | None, dyn_lds: int, includes: tuple[str, ...],
          defines: tuple[str, ...], fmt: str) -> None:
    """Compile HIP files for gfx942 and print each kernel's code-object facts side by side.

    Exit 1 when a kernel spills, uses scratch or needs more LDS than gfx942 has.
    """
    from porter import codeobject as co
    try:
        objs = [co.compile_hip(f, hip_runtime=hipified, tilelang=tilelang, dyn_lds=dyn_lds,
                               include_dirs=includes, defines=defines) for f in files]
    except tcmod.ToolchainError as exc:
        _fail(exc)
    problems = [p for o in objs for k in o.kernels for p in co.check(k)]
    if fmt == "json":
        click.echo(json.dumps({"code_objects": [dataclasses.asdict(o) for o in objs], "problems": problems},
                              indent=2))
    else:
        cols = [(f"{Path(o.source).name}", k) for o in objs for k in o.kernels]
        click.echo(co.format_table(cols))
        for p in problems:
            click.echo(f"problem: {p}")
    sys.exit(1 if problems else 0)
