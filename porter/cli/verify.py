"""`porter verify`: compile a generated module for an AMD target, check its numbers on the GPU present, time it."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from porter.targets import DEFAULT_TARGET
from porter.verify.report import COMPILE_CHOICES, TARGET_CHOICES

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def _parse_shape(text: str) -> dict:
    shape = {}
    for part in text.replace(" ", "").split(","):
        key, sep, val = part.partition("=")
        if not sep or not key.isidentifier():
            raise click.BadParameter(f"'{text}': expected NAME=INT[,NAME=INT...] such as M=8192,N=8192",
                                     param_hint="--shapes")
        try:
            shape[key] = int(val, 0)
        except ValueError:
            raise click.BadParameter(f"'{part}': {val!r} is not an integer", param_hint="--shapes") from None
    return shape


def _original_flags(include_dirs: tuple[str, ...], defines: tuple[str, ...]) -> list[str]:
    """-I/-D for every build of the original (nvcc, hipcc, the emulator); each value checked, passed as one argv
    item, so nothing in it reaches a shell."""
    flags = []
    for d in include_dirs:
        flags += ["-I", str(Path(d).resolve())]
    for text in defines:
        name, _, value = text.partition("=")
        if not name.isidentifier() or "\n" in value or "\r" in value:
            raise click.BadParameter(f"'{text}': expected NAME or NAME=VALUE with NAME an identifier (one line)",
                                     param_hint="-D")
        flags.append(f"-D{text}")
    return flags


@click.command(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("path", metavar="MODULE_OR_DIR", type=click.Path(exists=True))
@click.option("--target", type=click.Choice(TARGET_CHOICES), default="auto", show_default=True,
              help="Whose tile config the numerics, timing and tuning use on the GPU present (auto: the GPU's own; "
                   "gfx942 on an NVIDIA GPU checks gfx942's tile logic there). The code object is built for "
                   "--compile-for either way.")
@click.option("--compile-for", "compile_for", type=click.Choice(COMPILE_CHOICES), default=DEFAULT_TARGET,
              show_default=True, help="The AMD target the code objects (generated and --original) are built for.")
@click.option("--seeds", type=int, default=5, show_default=True, help="Seeds per test shape (at least 5).")
@click.option("--shapes", "shape_texts", multiple=True, metavar="M=..,N=..",
              help="Shape to time (and tune) instead of the module's BENCH_SHAPE; repeatable.")
@click.option("--tune", is_flag=True, help="Try every manifest config of the target on the GPU present; write the "
                                           "best per shape to --tune-file.")
@click.option("--tune-file", type=click.Path(dir_okay=False), default=None,
              help="Where --tune writes its JSON (default: MODULE.tune.<target>.json next to the module).")
@click.option("--original", type=click.Path(exists=True, dir_okay=False), default=None, metavar="FILE.hip",
              help="The hipified original the module was converted from: its kernel is launched by porter from the "
                   "module's ORIGINAL mapping (no launcher needed) on the same cases and compared: with the "
                   "generated kernel on the GPU present, or without one on porter's wave64 CPU emulator with the "
                   "module's float64 reference. Also compiled for --compile-for side by side.")
@click.option("-I", "include_dirs", multiple=True, metavar="DIR",
              type=click.Path(exists=True, file_okay=False),
              help="Include folder for building the --original (its project's headers); repeatable.")
@click.option("-D", "defines", multiple=True, metavar="NAME[=VALUE]",
              help="Macro for building the --original; repeatable.")
@click.option("--no-compile", is_flag=True, help="Skip the AMD code object (e.g. on a GPU machine without the "
                                                 "porter toolchain or ROCm).")
@click.option("--reps", type=int, default=100, show_default=True, help="Timed repetitions (at least 100).")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None, help="Also write the JSON report here.")
@click.option("--force", is_flag=True, help="Overwrite --output / --tune-file if they exist.")
def verify(path: str, target: str, seeds: int, shape_texts: tuple[str, ...], tune: bool, tune_file: str | None,
           original: str | None, include_dirs: tuple[str, ...], defines: tuple[str, ...], compile_for: str,
           no_compile: bool, reps: int, fmt: str, output: str | None, force: bool) -> None:
    """Verify modules written by `porter convert`.

    \b
    1. code object for --compile-for (gfx942 unless told): lower the kernel with TileLang, compile it, report
       VGPR/AGPR/SGPR, spills, scratch, LDS (static + TileLang's dynamic), waves/SIMD and the instruction
       mix; fail on spills or LDS over the target's per-workgroup limit (64 KiB on gfx942). With --original, the
       hipified kernel is compiled the same way, side by side.
    2. numerics on the GPU present (NaN-prefilled outputs, >= 5 seeds, shapes that are not tile multiples,
       per-dtype tolerances and max|d|/max|ref| against a float64 reference); without a GPU the report says
       "numerics: not run (no GPU)" and nothing passes. With --original on a GPU, every output of the
       generated kernel is compared with the original kernel's on the same inputs (the reference is the second
       check); without one the original runs as gfx942 would run it (64-lane wavefronts, porter's CPU
       emulator) against the module's float64 reference: that checks the conversion, not the generated kernel.
       A disagreement fails with the first differing element; an original that is wrong at wave64 but right at
       wave32 is reported as wave64-broken and the module is judged against its wave32 run.
    3. timing: median of >= 100 reps after warm-up, cache flushed, CUDA events; generated vs torch vs
       original, as a fraction of the copy bandwidth and matmul rate measured in the same run.

    Exit status: 0 nothing failed (read the verdict: "compiled only" is not "verified"), 1 a check failed,
    2 usage error or not a generated module.
    """
    from porter.fsutil import RefusedOverwrite, atomic_write, refuse_inputs
    from porter.verify.modules import find_modules
    from porter.verify import verify as run_verify
    from porter.verify.report import to_json, to_text

    if seeds < 5:
        raise click.UsageError("--seeds must be at least 5 (the verification protocol)")
    if reps < 100:
        raise click.UsageError("--reps must be at least 100")
    shapes = [_parse_shape(t) for t in shape_texts] or None
    original_flags = _original_flags(include_dirs, defines)
    if original_flags and not original:
        raise click.UsageError("-I/-D are for building the --original; pass --original FILE")
    modules = find_modules(path)
    if not modules:
        click.echo(f"porter: error: {path}: no module written by `porter convert` here", err=True)
        sys.exit(EXIT_USAGE)
    if original and len(modules) > 1:
        raise click.UsageError("--original goes with one module, not a folder")
    if output and Path(output).exists() and not force:
        click.echo(f"porter: error: {output} exists; pass --force to overwrite", err=True)
        sys.exit(EXIT_USAGE)
    if output:
        try:
            refuse_inputs(output, [*modules, *([original] if original else [])], "the report")
        except RefusedOverwrite as exc:
            raise click.UsageError(str(exc)) from exc
    reports = []
    for mod_path, rep in run_verify(modules, reps=reps, target=target, seeds=seeds, shapes=shapes, tune=tune,
                                    original=original, compile_for=None if no_compile else compile_for, original_flags=original_flags):
        tn = rep.get("tune")
        if tn and tn.get("status") not in (None, "not run"):
            dest = Path(tune_file) if tune_file and len(modules) == 1 else \
                Path(mod_path).with_suffix(f".tune.{rep['target']}.json")
            try:
                atomic_write(dest, json.dumps({k: v for k, v in tn.items()}, indent=2, default=str) + "\n",
                             force=force)
                tn["file"] = str(dest)
            except RefusedOverwrite as exc:
                tn["file_error"] = str(exc)
                click.echo(f"porter: error: {exc}", err=True)
        reports.append(rep)
        if fmt == "text":
            click.echo(to_text(rep))
            click.echo("")
    text = to_json(reports)
    if fmt == "json":
        click.echo(text)
    if output:
        atomic_write(output, text + "\n", force=True)
    sys.exit(max(r.get("exit_code", 0) for r in reports))
