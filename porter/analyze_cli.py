"""`porter analyze`: find wave64 hazards and LDS bank conflicts in hipified code."""

from __future__ import annotations

import os
import sys

import click

from porter.findings import SEVERITIES, severity_rank
from porter.output import FORMATS, render

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _targets() -> list[str]:
    from porter.targets import known_targets
    return [t for t in known_targets()]


@click.command(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--target", default="gfx942", show_default=True, type=click.Choice(_targets()),
              help="GPU to check against (its wavefront width and LDS model).")
@click.option("-I", "include_dirs", multiple=True, metavar="DIR", help="Add an include directory (repeatable).")
@click.option("-D", "defines", multiple=True, metavar="NAME[=VALUE]", help="Define a macro (repeatable).")
@click.option("-p", "--compile-commands", "compile_db", type=click.Path(dir_okay=False), default=None,
              help="compile_commands.json giving per-file -I/-D/-std flags (never executed).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text: path:line:col: ID [severity] message; json: one record per finding.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), default=None,
              help="Write the report to FILE (atomically) instead of stdout.")
@click.option("--fail-on", type=click.Choice(SEVERITIES + ("never",)), default="warning", show_default=True,
              help="Exit 1 when a finding at or above this severity is reported.")
@click.option("--select", multiple=True, metavar="ID", help="Only run rules whose id starts with ID (W64, LDS-001...).")
@click.option("--ignore", multiple=True, metavar="ID", help="Skip rules whose id starts with ID.")
@click.option("--min-confidence", type=click.Choice(("low", "medium", "high")), default="low", show_default=True,
              help="Hide findings below this confidence.")
@click.option("-j", "--jobs", type=click.IntRange(1, 256), default=None,
              help="Worker processes [default: all cores].")
@click.option("--timeout", type=click.FloatRange(1, 3600), default=120.0, show_default=True,
              help="Per-file time limit in seconds; a file over it is reported and skipped.")
@click.option("--max-file-size", type=click.IntRange(1), default=8 * 1024 * 1024, show_default=True,
              help="Skip (and report) files larger than this many bytes.")
@click.option("--no-pch", is_flag=True, help="Do not use the precompiled header of the HIP stub (slower).")
@click.option("--show-fix", is_flag=True, help="Print each finding's fix under it (text format).")
@click.option("--dump-facts", is_flag=True, help="Print the extracted Facts as JSON instead of findings.")
@click.option("--explain", is_flag=True,
              help="Also list what could not be checked (LDS-000: accesses whose lane mapping is unknown).")
@click.option("--block", "block", default=None, metavar="X,Y,Z",
              help="Block size assumed for kernels without a constant launch or __launch_bounds__ [default: 256,1,1].")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no summary line.")
def analyze(paths: tuple[str, ...], target: str, include_dirs: tuple[str, ...], defines: tuple[str, ...],
            compile_db: str | None, fmt: str, output: str | None, fail_on: str, select: tuple[str, ...],
            ignore: tuple[str, ...], min_confidence: str, jobs: int | None, timeout: float, max_file_size: int,
            no_pch: bool, show_fix: bool, dump_facts: bool, explain: bool, block: str | None, quiet: bool) -> None:
    """Find code that hipify leaves wrong or slow on AMD Instinct GPUs.

    PATHS are .hip/.cu/.cuh/.cpp/.h files or folders (searched recursively). Each file is parsed with
    libclang on the device side for --target with porter's HIP stub header; nothing is compiled or run.

    \b
    Examples:
      porter analyze samples/
      porter analyze src/ -I include -D USE_FP16 --format json -o report.json
      porter analyze kernel.hip --select W64-003 --show-fix
      porter rules W64-001          # what a rule finds and how to fix it

    Exit status: 0 no findings at or above --fail-on, 1 findings, 2 usage or input error.
    """
    from porter.analysis import Request, collect, run
    from porter.frontend_config import make_config
    from porter.progress import progress_bar
    from porter.ruleset import RuleError, select_rules

    params: tuple = ()
    if block is not None:
        try:
            dims = tuple(int(x) for x in block.replace("x", ",").split(",") if x.strip())
        except ValueError:
            dims = ()
        if not 1 <= len(dims) <= 3 or min(dims) < 1:
            raise click.BadParameter(f"'{block}' is not X[,Y[,Z]] with positive integers", param_hint="--block")
        params = (("default_block", dims + (1,) * (3 - len(dims))),)
    try:
        rules = select_rules(select, ignore, explain)
    except RuleError as exc:
        raise click.UsageError(str(exc)) from exc
    if (select or ignore) and not rules:
        raise click.UsageError(f"--select/--ignore leave no rules to run (select={list(select)}, ignore={list(ignore)})")
    if compile_db and not os.path.isfile(compile_db):
        raise click.UsageError(f"{compile_db}: compile database not found")
    files, problems = collect(list(paths))
    for p in problems:
        click.echo(f"porter: error: {p}", err=True)
    if not files:
        sys.exit(EXIT_USAGE)
    config = make_config(target=target, include_dirs=include_dirs, defines=defines, compile_db=compile_db,
                         use_pch=not no_pch, max_file_bytes=max_file_size)
    requests = [Request(path=f, config=config, target=target, select=select, ignore=ignore, dump_facts=dump_facts,
                        explain=explain, params=params) for f in files]
    update, finish = progress_bar(not quiet)
    results = run(requests, jobs or os.cpu_count() or 1, timeout, update)
    finish()

    errors = [r.error for r in results if r.error]
    notes = [n for r in results for n in r.notes]
    for e in errors:
        click.echo(f"porter: error: {e}", err=True)
    for n in notes:
        click.echo(f"porter: note: {n}", err=True)
    if dump_facts:
        import json
        _emit(json.dumps([r.facts for r in results if r.facts is not None], indent=1) + "\n", output)
        sys.exit(EXIT_USAGE if problems or errors else EXIT_CLEAN)

    order = ("low", "medium", "high")
    findings = sorted((f for r in results for f in r.findings
                       if order.index(f.confidence) >= order.index(min_confidence)), key=lambda f: f.sort_key())
    _emit(render(fmt, findings, files=len(results), errors=errors, notes=notes, show_fix=show_fix), output)
    if not quiet:
        counts = {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES}
        click.echo(f"porter: {len(findings)} findings ({counts['error']} errors, {counts['warning']} warnings, "
                   f"{counts['note']} notes) in {len(results)} files", err=True)
    if problems or errors:
        sys.exit(EXIT_USAGE)
    if fail_on != "never" and any(severity_rank(f.severity) >= severity_rank(fail_on) for f in findings):
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_CLEAN)


def _emit(text: str, output: str | None) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    from porter.fsutil import atomic_write
    atomic_write(output, text)
