"""`porter convert`: recognize what a kernel computes and write an equivalent TileLang module."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from porter.targets import config_targets

EXIT_OK, EXIT_NOT_CONVERTED, EXIT_USAGE = 0, 1, 2


def _parse_param(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise click.BadParameter(f"'{text}': expected NAME=VALUE", param_hint="--param")
    return key.strip(), value.strip()


def _typed(family: str, key: str, raw: str) -> object:
    """Turn a --param string into the type its manifest declares (validation happens in render)."""
    from porter.convert.params import ParamError
    from porter.convert.render import load_manifest

    spec = load_manifest(family).get("params", {}).get(key)
    if spec is None:
        known = ", ".join(load_manifest(family).get("params", {}))
        raise ParamError(f"template '{family}' has no parameter '{key}' (parameters: {known})")
    kind = spec.get("kind")
    try:
        if kind == "int":
            return int(raw, 0)
        if kind == "float":
            return float(raw)
        if kind == "bool":
            if raw.lower() in ("1", "true", "yes", "on"):
                return True
            if raw.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
    except ValueError as exc:
        raise ParamError(f"--param {key}={raw}: not a valid {kind}") from exc
    return raw


def _parse_worker(item: tuple[Path, object]) -> object:
    """Pool worker: the file's Facts, or the FrontendError's message (a user-input problem, not a crash)."""
    from porter.frontend import FrontendError, analyze_file

    path, config = item
    try:
        return analyze_file(path, config)
    except FrontendError as exc:
        return str(exc)


def _parse_contained(path: Path, config: object, timeout: float) -> object:
    """Parse in a worker process, as `porter analyze` does: a file that hangs libclang, crashes it or eats
    memory fails with a message instead of taking porter down. Returns FileFacts or an error message."""
    from porter.pool import Failure, imap

    (result,) = list(imap(_parse_worker, [(path, config)], 1, timeout))
    return f"{path}: {result.reason}" if isinstance(result, Failure) else result


@click.command(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("-k", "--kernel", "kernel_names", multiple=True, metavar="NAME",
              help="Kernel to convert (repeatable; NAME<args> picks one template instantiation). Default: all.")
@click.option("-o", "--output-dir", default="porter-out", show_default=True, type=click.Path(file_okay=False),
              help="Folder for the generated modules (one NAME.py per kernel).")
@click.option("--target", type=click.Choice(config_targets()), default="gfx942", show_default=True,
              help="Target whose tuning config the module defaults to (every target's configs are embedded).")
@click.option("--template", "family", default=None, metavar="FAMILY",
              help="Use this template family instead of the recognized one (see --list-templates).")
@click.option("--config", default=None, metavar="NAME", help="A tuning config of the template, by name.")
@click.option("--param", "raw_params", multiple=True, metavar="NAME=VALUE", help="Override a template parameter.")
@click.option("--force", is_flag=True, help="Overwrite existing output files.")
@click.option("--dry-run", is_flag=True, help="Recognize and report; write nothing.")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
@click.option("--list-templates", is_flag=True, help="List the template families and exit.")
@click.option("-I", "include_dirs", multiple=True, metavar="DIR", help="Include directory for parsing.")
@click.option("-D", "defines", multiple=True, metavar="NAME[=VALUE]", help="Macro definition for parsing.")
@click.option("--timeout", type=click.FloatRange(1, 3600), default=120.0, show_default=True,
              help="Seconds allowed for parsing the file (in a separate process, like `porter analyze`).")
def convert(file: str, kernel_names: tuple[str, ...], output_dir: str, target: str, family: str | None,
            config: str | None, raw_params: tuple[str, ...], force: bool, dry_run: bool, fmt: str,
            list_templates: bool, include_dirs: tuple[str, ...], defines: tuple[str, ...], timeout: float) -> None:
    """Write an equivalent TileLang kernel for each kernel in FILE that porter recognizes.

    The kernel's family (elementwise, row_reduce, softmax, layernorm, rmsnorm, transpose, gemm,
    batched_gemm, attention) is recognized from what it computes, not from its name; its dtypes, layout and
    epilogue become template parameters and its arguments are mapped to the generated function's. Each
    module holds the @tilelang.jit kernel, a torch-callable function, a torch reference and a main() that
    checks itself (python NAME.py). A kernel that matches no template is reported with the closest family
    and the facts that did not match; nothing is written for it.

    \b
    Examples:
      porter convert samples/kernels/gemm/gemm_tiled.hip -o out/
      porter convert softmax.hip --kernel softmax_rows --target sm_90a
      porter convert k.hip --template gemm --param layout=NT --force

    Exit status: 0 all selected kernels converted, 1 some kernel not recognized (or ambiguous),
    2 usage or input error.
    """
    from porter.convert.params import DtypeError, ParamError
    from porter.convert.recognize import UnknownKernel, kernels, recognize
    from porter.convert.render import list_families, render, write_module
    from porter.frontend_config import make_config
    from porter.fsutil import RefusedOverwrite, refuse_inputs

    if list_templates:
        from porter.convert.render import load_manifest
        for fam in list_families():
            click.echo(f"{fam:<14} {load_manifest(fam).get('description', '')}")
        return
    if family is not None and family not in list_families():
        raise click.UsageError(f"unknown template '{family}' (known: {', '.join(list_families())})")
    overrides = dict(_parse_param(p) for p in raw_params)
    path = Path(file)
    if not path.exists():
        raise click.UsageError(f"{file}: no such file")
    facts = _parse_contained(path, make_config(target="gfx942", include_dirs=include_dirs, defines=defines),
                             timeout)
    if isinstance(facts, str):
        click.echo(f"porter: error: {facts}", err=True)
        sys.exit(EXIT_USAGE)
    available = kernels(facts)
    selected = list(kernel_names) or available
    if not available:
        click.echo(f"porter: error: {file}: no __global__ kernels found", err=True)
        sys.exit(EXIT_USAGE)
    reports = []
    status = EXIT_OK
    for name in selected:
        report: dict[str, object] = {"kernel": name, "file": file}
        try:
            rec = recognize(facts, name)
        except UnknownKernel:
            click.echo(f"porter: error: {file}: no kernel '{name}' (kernels: {', '.join(available)})", err=True)
            status = EXIT_USAGE
            continue
        chosen = rec.best
        if family is not None:
            chosen = next(c for c in rec.candidates if c.family == family)
        elif rec.ambiguous:
            tied = [c.family for c in rec.candidates if c.score == rec.best.score]
            report.update(status="ambiguous", candidates=tied)
            reports.append(report)
            _say(fmt, f"{file}: {name}: matches {' and '.join(tied)} equally; choose one with --template")
            status = max(status, EXIT_NOT_CONVERTED)
            continue
        elif chosen.score < 1.0:
            report.update(status="not recognized", closest=chosen.family, score=chosen.score,
                          matched=list(chosen.evidence), missing=list(chosen.missing),
                          conflicts=list(chosen.conflicts))
            reports.append(report)
            _say(fmt, _not_recognized(file, name, chosen))
            status = max(status, EXIT_NOT_CONVERTED)
            continue
        from porter.convert.binding import Refusal, original_record
        from porter.convert.render import load_manifest
        try:
            record, launch = original_record(rec, chosen, path.name, load_manifest(chosen.family).get("shape_keys", []))
        except Refusal as exc:
            report.update(status="refused", family=chosen.family, reason=str(exc))
            reports.append(report)
            _say(fmt, f"{file}: {name}: not converted: recognized as '{chosen.family}', but {exc}\n"
                      f"    nothing was written")
            status = max(status, EXIT_NOT_CONVERTED)
            continue
        params = {k: v for k, v in chosen.params.items()}
        try:
            known = load_manifest(chosen.family).get("params", {})
            params = {k: v for k, v in params.items() if k in known}
            base = name.partition("<")[0].strip()
            params["kernel_name"] = base
            for key, raw in overrides.items():
                params[key] = _typed(chosen.family, key, raw)
            line = next((f.loc.line for f in facts.functions if f.name == base), None)
            text = render(chosen.family, params, target=target, config=config, original=record,
                          source_info={"file": path.name, "kernel": name, "line": line, "launch": launch})
        except ParamError as exc:
            report.update(status="error", error=str(exc))
            reports.append(report)
            if isinstance(exc, DtypeError) and "dtype" not in overrides:
                # the original's precision has no template: a refusal (exit 1), never a silent change of dtype
                report.update(status="refused", family=chosen.family, reason=f"its precision is not supported: {exc}")
                _say(fmt, f"{file}: {name}: not converted: recognized as '{chosen.family}', but its precision has "
                          f"no template ({exc})\n    nothing was written")
                status = max(status, EXIT_NOT_CONVERTED)
                continue
            click.echo(f"porter: error: {file}: {name}: {exc}", err=True)
            status = EXIT_USAGE
            continue
        out = Path(output_dir) / f"{params['kernel_name']}.py"
        report.update(status="converted", family=chosen.family, params=params,
                      arguments=[list(p) for p in chosen.arg_map], output=str(out))
        if not dry_run:
            try:
                refuse_inputs(out, [file], "the generated module")
                write_module(text, out, force=force)
            except RefusedOverwrite as exc:
                report.update(status="error", error=str(exc))
                click.echo(f"porter: error: {exc}", err=True)
                status = EXIT_USAGE
                reports.append(report)
                continue
        reports.append(report)
        mapping = ", ".join(f"{t}={o or '?'}" for t, o in chosen.arg_map)
        report["notes"] = list(chosen.notes)
        _say(fmt, f"{file}: {name}: {chosen.family} {params} -> {out}{' (dry run)' if dry_run else ''}\n"
                  f"    arguments: {mapping}" + "".join(f"\n    note: {n}" for n in chosen.notes))
    if fmt == "json":
        click.echo(json.dumps(reports, indent=2, default=str))
    sys.exit(status)


def _say(fmt: str, text: str) -> None:
    if fmt == "text":
        click.echo(text)


def _not_recognized(file: str, name: str, c) -> str:  # type: ignore[no-untyped-def]
    lines = [f"{file}: {name}: not converted: no template matches; closest is '{c.family}' "
             f"({len(c.evidence)} of {len(c.evidence) + len(c.missing)} required facts)"]
    lines += [f"    found:    {e}" for e in c.evidence]
    lines += [f"    missing:  {m}" for m in c.missing]
    lines += [f"    conflict: {x}" for x in c.conflicts]
    lines.append("    nothing was written; force a family with --template if you are sure")
    return "\n".join(lines)
