"""`porter emulate`: run one kernel launch from a hipified file on the CPU with 64- (or 32-) lane wavefronts,
or (--diff) at both sizes, and show the outputs or where they differ."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import click
import numpy as np

from porter.targets import DEFAULT_TARGET, load_target

_INPUTS_HELP = """\b
Kernel arguments, NAME=SPEC, comma-separated or with --inputs repeated:
  n=1024                      a scalar (converted to the parameter's type)
  x=rand:1024                 uniform in [-1, 1), seeded by --seed
  x=randint:1024:0:10         integers in [0, 10)
  x=zeros:1024  ones:1024  arange:1024  empty:1024 (NaN for floats, all-ones bits otherwise)
  x=full:1024:2.5             every element 2.5
  x=@data/x.npy               a NumPy .npy file
A shape is N or AxB (e.g. 64x16); a trailing :DTYPE (float32, int32, ...) overrides the default,
which is the parameter's own element type. Outputs are the non-const pointer parameters."""


def _parse_dim3(text: str) -> tuple[int, ...]:
    try:
        dims = tuple(int(p) for p in text.split(","))
    except ValueError:
        raise click.BadParameter(f"{text!r}: expected X[,Y[,Z]] of positive integers") from None
    if not 1 <= len(dims) <= 3 or min(dims) < 1:
        raise click.BadParameter(f"{text!r}: expected X[,Y[,Z]] of positive integers")
    return dims


def _split_specs(raw: tuple[str, ...]) -> dict[str, str]:
    specs: dict[str, str] = {}
    for chunk in raw:
        for item in filter(None, (s.strip() for s in chunk.split(","))):
            name, sep, spec = item.partition("=")
            if not sep or not name.strip() or not spec.strip():
                raise click.UsageError(f"--inputs: {item!r} is not NAME=SPEC")
            specs[name.strip()] = spec.strip()
    return specs


def _shape(text: str) -> tuple[int, ...]:
    try:
        shape = tuple(int(p) for p in text.lower().split("x"))
    except ValueError:
        raise click.UsageError(f"--inputs: {text!r} is not a shape (N or AxB)") from None
    return shape


def _dtype(parts: list[str], default: np.dtype | None, name: str) -> tuple[np.dtype, list[str]]:
    if parts:
        try:
            return np.dtype(parts[-1]), parts[:-1]
        except TypeError:
            pass
    if default is None:
        raise click.UsageError(f"--inputs {name}: the parameter's element type is not a NumPy type: add :DTYPE")
    return default, parts


def _materialize(name: str, spec: str, param: Any, rng: np.random.Generator) -> Any:
    from porter.emulate import param_dtype  # noqa: PLC0415 (keeps `porter --help` light)

    if param.kind == "val":
        if ":" in spec or spec.startswith("@"):
            raise click.UsageError(f"--inputs {name}: {param.describe()} is a scalar; give a number")
        try:
            return int(spec, 0)
        except ValueError:
            try:
                return float(spec)
            except ValueError:
                raise click.UsageError(f"--inputs {name}: {spec!r} is not a number") from None
    if spec.startswith("@"):
        arr = np.load(spec[1:], allow_pickle=False)
        return arr
    kind, *rest = spec.split(":")
    if not rest:
        raise click.UsageError(f"--inputs {name}: {spec!r} needs a shape, e.g. {kind}:1024")
    shape = _shape(rest[0])
    dt, extra = _dtype(rest[1:], param_dtype(param), name)
    if kind == "rand":
        return rng.uniform(-1.0, 1.0, shape).astype(dt)
    if kind == "randint":
        if len(extra) != 2:
            raise click.UsageError(f"--inputs {name}: randint:SHAPE:LOW:HIGH[:DTYPE]")
        return rng.integers(int(extra[0]), int(extra[1]), shape).astype(dt)
    if kind in ("zeros", "ones", "arange", "empty"):
        if kind == "arange":
            return np.arange(int(np.prod(shape))).reshape(shape).astype(dt)
        if kind == "empty":  # poisoned, so an output the kernel never writes is visible
            return np.full(shape, np.nan, dt) if dt.kind == "f" else np.full(shape, -1).astype(dt)
        return (np.zeros if kind == "zeros" else np.ones)(shape, dt)
    if kind == "full":
        if len(extra) != 1:
            raise click.UsageError(f"--inputs {name}: full:SHAPE:VALUE[:DTYPE]")
        return np.full(shape, float(extra[0])).astype(dt)
    raise click.UsageError(f"--inputs {name}: unknown kind {kind!r} (rand, randint, zeros, ones, arange, empty, "
                           "full, @file.npy)")


def _fmt(d: tuple[int, ...]) -> str:
    return ",".join(str(x) for x in (d + (1, 1))[:3])


def _summary(name: str, a: np.ndarray, show: int) -> str:
    flat = a.reshape(-1)
    head = np.array2string(flat[:show], precision=6, separator=", ", threshold=show + 1)
    stats = ""
    if a.size and a.dtype.kind in "fiub":
        finite = flat[np.isfinite(flat)] if a.dtype.kind == "f" else flat
        nan = int(np.isnan(flat).sum()) if a.dtype.kind == "f" else 0
        if finite.size:
            stats = f" min {finite.min():.6g} max {finite.max():.6g} mean {finite.astype(np.float64).mean():.6g}"
        stats += f" nan {nan}" if nan else ""
    return f"  {name}: shape {a.shape} {a.dtype}{stats}\n    {head}{' ...' if a.size > show else ''}"


def _save(folder: Path, name: str, a: np.ndarray, force: bool) -> None:
    from porter.fsutil import RefusedOverwrite, atomic_write  # noqa: PLC0415

    buf = io.BytesIO()
    np.save(buf, a)
    try:
        atomic_write(folder / f"{name}.npy", buf.getvalue(), force=force)
    except RefusedOverwrite as e:
        raise click.UsageError(str(e)) from None


@click.command(epilog=_INPUTS_HELP)
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--kernel", "-k", required=True, help="Kernel name; a template needs its arguments: 'reduce<256>'.")
@click.option("--grid", required=True, help="Grid size X[,Y[,Z]].")
@click.option("--block", required=True, help=f"Block size X[,Y[,Z]] (at most "
              f"{load_target(DEFAULT_TARGET).max_threads_per_block} threads).")
@click.option("--warp-size", type=click.Choice(["64", "32"]), default="64", show_default=True,
              help="Wavefront size to emulate (64: gfx942).")
@click.option("--shared", "shared", type=int, default=0, show_default=True, help="Dynamic shared memory bytes.")
@click.option("--inputs", "-i", multiple=True, help="NAME=SPEC[,NAME=SPEC...]: see below.")
@click.option("--diff", is_flag=True, help="Run at wave sizes 32 and 64 and report outputs that differ.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed for rand/randint inputs.")
@click.option("--timeout", type=float, default=60.0, show_default=True, help="Seconds before a run is stopped.")
@click.option("--workers", type=int, default=1, show_default=True,
              help="OS threads running blocks (more is faster; float atomics become order-dependent).")
@click.option("--show", type=int, default=8, show_default=True, help="Values printed per output.")
@click.option("--save", "save_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Write each output to DIR/NAME.npy (with --diff: NAME.w32.npy and NAME.w64.npy).")
@click.option("--force", is_flag=True, help="Overwrite existing files under --save.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON report instead of text.")
def emulate(file: Path, kernel: str, grid: str, block: str, warp_size: str, shared: int, inputs: tuple[str, ...],
            diff: bool, seed: int, timeout: float, workers: int, show: int, save_dir: Path | None, force: bool,
            as_json: bool) -> None:
    """Run a hipified kernel on the CPU with true 64-lane (or 32-lane) wavefronts.

    Every GPU thread is a fiber; cross-lane operations exchange values across the whole wavefront, so wave64
    hazards show up as wrong numbers. Deadlocked __syncthreads and out-of-bounds buffer accesses are reported
    with block, thread and wavefront. Exit status: 0 ran (and, with --diff, identical), 1 a kernel error or a
    difference, 2 usage or compile error.

    \b
    porter emulate k.hip -k warp_sum --grid 4 --block 256 -i x=rand:1024,out=zeros:1,n=1024
    porter emulate k.hip -k 'reduce<256>' --grid 64 --block 256 --diff -i x=rand:16384,y=empty:64,n=16384
    """
    from porter.emulate import (CompileError, EmulationError, differential,  # noqa: PLC0415
                                kernel_signature, run_kernel)

    g, b = _parse_dim3(grid), _parse_dim3(block)
    try:
        params = kernel_signature(file, kernel)
    except CompileError as e:
        click.echo(f"porter emulate: {e}", err=True)
        sys.exit(2)
    specs = _split_specs(inputs)
    names = [p.name for p in params]
    unknown = sorted(set(specs) - set(names))
    missing = [n for n in names if n not in specs]
    if unknown or missing:
        sig = ", ".join(p.describe() for p in params)
        raise click.UsageError(f"{kernel}({sig}): " + "; ".join(
            x for x in (f"unknown inputs {unknown}" if unknown else "",
                        f"missing inputs {missing}" if missing else "") if x))
    rng = np.random.default_rng(seed)
    args = {p.name: _materialize(p.name, specs[p.name], p, rng) for p in params}
    try:
        if diff:
            rep = differential(file, kernel, g, b, args, shared_bytes=shared, timeout=timeout, workers=workers)
        else:
            out = run_kernel(file, kernel, g, b, args, warp_size=int(warp_size), shared_bytes=shared,
                             timeout=timeout, workers=workers)
    except CompileError as e:
        click.echo(f"porter emulate: {e}", err=True)
        sys.exit(2)
    except (TypeError, ValueError) as e:
        raise click.UsageError(str(e)) from None
    except EmulationError as e:
        if as_json:
            click.echo(json.dumps({"kernel": kernel, "error": e.report, "message": str(e)}, indent=2))
        else:
            click.echo(f"{file}: {kernel} at wave{warp_size}: {type(e).__name__}: {e}", err=True)
        sys.exit(1)

    if diff:
        if save_dir:
            for w, o in rep.outputs.items():
                for name, a in o.items():
                    _save(save_dir, f"{name}.w{w}", a, force)
        if as_json:
            click.echo(json.dumps({
                "kernel": kernel, "same": rep.same,
                "errors": {str(w): {"message": str(e), **e.report} for w, e in rep.errors.items()},
                "diffs": [d.__dict__ for d in rep.diffs],
                "warnings": {str(w): o.warnings for w, o in rep.outputs.items()}}, indent=2, default=str))
        else:
            click.echo(rep.summary())
            for w, o in sorted(rep.outputs.items()):
                for wr in o.warnings:
                    click.echo(f"  wave{w} warning [{wr['kind']}] line {wr['line']} (x{wr['count']}): {wr['message']}")
        sys.exit(0 if rep.same else 1)

    if save_dir:
        for name, a in out.items():
            _save(save_dir, name, a, force)
    if as_json:
        click.echo(json.dumps({"kernel": kernel, "wave_size": out.wave_size, "stats": out.stats,
                               "warnings": out.warnings,
                               "outputs": {k: {"shape": list(v.shape), "dtype": str(v.dtype),
                                               "values": v.reshape(-1)[:show].tolist()} for k, v in out.items()}},
                              indent=2))
        return
    st = out.stats
    click.echo(f"{file}: {kernel} grid {_fmt(g)} block {_fmt(b)} at wave{out.wave_size}: {st.get('blocks', 0)} blocks, "
               f"{st.get('lanes', 0)} lanes, {st.get('wave_ops', 0)} wavefront exchanges, "
               f"{st.get('barriers', 0)} barriers in {st.get('seconds', 0.0):.3f} s")
    if out.stdout:
        click.echo("kernel output:\n" + out.stdout.rstrip())
    for name, a in out.items():
        click.echo(_summary(name, a, show))
    for wr in out.warnings:
        click.echo(f"warning [{wr['kind']}] line {wr['line']} (x{wr['count']}): {wr['message']}")
