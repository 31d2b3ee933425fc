"""`porter convert`: recognize what a kernel computes and write an equivalent TileLang module."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from porter.targets import DEFAULT_TARGET, known_targets


def _parse_param(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise click.BadParameter(f"'{text}': expected NAME=VALUE", param_hint="--param")
    return key.strip(), value.strip()


@click.command(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("file", type=click.Path(dir_okay=False), required=False)
@click.option("-k", "--kernel", "kernel_names", multiple=True, metavar="NAME",
              help="Kernel to convert (repeatable; NAME<args> picks one template instantiation). Default: all.")
@click.option("-o", "--output-dir", default="porter-out", show_default=True, type=click.Path(file_okay=False),
              help="Folder for the generated modules (one NAME.py per kernel).")
@click.option("--target", type=click.Choice(known_targets()), default=DEFAULT_TARGET, show_default=True,
              help="Target whose tile config the module defaults to (every target's configs are embedded; "
                   "gfx950 uses gfx942's, sm_90 the sm_90a ones).")
@click.option("--template", "family", default=None, metavar="FAMILY",
              help="Use this template family instead of the recognized one (see --list-templates).")
@click.option("--config", default=None, metavar="NAME", help="A tuning config of the template, by name.")
@click.option("--param", "raw_params", multiple=True, metavar="NAME=VALUE", help="Override a template parameter.")
@click.option("--force", is_flag=True, help="Overwrite existing output files.")
@click.option("--dry-run", is_flag=True, help="Recognize and report; write nothing.")
@click.option("--format", "fmt", type=click.Choice(("text", "json")), default="text", show_default=True)
@click.option("--list-templates", is_flag=True, help="List the template families and exit.")
@click.option("--table", is_flag=True, help="With --list-templates: the markdown table of porter/families/README.md "
                                            "(parameters and default configs, from the manifests).")
@click.option("-I", "include_dirs", multiple=True, metavar="DIR", help="Include directory for parsing.")
@click.option("-D", "defines", multiple=True, metavar="NAME[=VALUE]", help="Macro definition for parsing.")
@click.option("--timeout", type=click.FloatRange(1, 3600), default=120.0, show_default=True,
              help="Seconds allowed for parsing the file (in a separate process, like `porter analyze`).")
def convert(file: str | None, kernel_names: tuple[str, ...], output_dir: str, target: str, family: str | None,
            config: str | None, raw_params: tuple[str, ...], force: bool, dry_run: bool, fmt: str,
            list_templates: bool, table: bool, include_dirs: tuple[str, ...], defines: tuple[str, ...], timeout: float) -> None:
    """Write an equivalent TileLang kernel for each kernel in FILE that porter recognizes.

    The kernel's family (elementwise, row_reduce, softmax, layernorm, rmsnorm, transpose, gemm,
    batched_gemm, attention) is recognized from what it computes, not from its name; its dtypes, layout and
    epilogue become template parameters and its arguments are mapped to the generated function's. Each
    module holds the @tilelang.jit kernel, a torch-callable function, a torch reference and a main() that
    checks itself (python NAME.py). A kernel that matches no template is reported with the closest family
    and the facts that did not match; nothing is written for it.

    \b
    Examples:
      porter convert porter/families/gemm/samples/gemm_tiled.hip -o out/
      porter convert softmax.hip --kernel softmax_rows --target sm_90
      porter convert k.hip --template gemm --param layout=NT --force

    Exit status: 0 all selected kernels converted, 1 some kernel not recognized (or ambiguous),
    2 usage or input error.
    """
    from porter.convert.pipeline import EXIT_OK, EXIT_USAGE, convert_kernel, parse
    from porter.convert.recognize import kernels
    from porter.convert.render import list_families

    if table and not list_templates:
        raise click.UsageError("--table goes with --list-templates")
    if list_templates and table:
        from porter.convert.render import families_table
        click.echo(families_table())
        return
    if list_templates:
        from porter.convert.render import load_manifest
        for fam in list_families():
            click.echo(f"{fam:<14} {load_manifest(fam).get('description', '')}")
        return
    if file is None:
        raise click.UsageError("missing argument FILE (only --list-templates goes without one)")
    if family is not None and family not in list_families():
        raise click.UsageError(f"unknown template '{family}' (known: {', '.join(list_families())})")
    overrides = dict(_parse_param(p) for p in raw_params)
    path = Path(file)
    if not path.exists():
        raise click.UsageError(f"{file}: no such file")
    facts = parse(path, include_dirs, defines, timeout)
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
        out = convert_kernel(facts, name, file, output_dir=output_dir, family=family, target=target, config=config,
                             overrides=overrides, dry_run=dry_run, force=force)
        if out.report is not None:
            reports.append(out.report)
        if out.error:
            click.echo(f"porter: error: {out.error}", err=True)
        if out.message:
            _say(fmt, out.message)
        status = EXIT_USAGE if out.status == EXIT_USAGE else max(status, out.status)
    if fmt == "json":
        click.echo(json.dumps(reports, indent=2, default=str))
    sys.exit(status)


def _say(fmt: str, text: str) -> None:
    if fmt == "text":
        click.echo(text)
