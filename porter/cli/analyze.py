"""`porter analyze`: find wave64 hazards and LDS bank conflicts in hipified code."""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

import click

from porter.cli import EXIT_INTERNAL
from porter.findings import SEVERITIES, severity_rank
from porter.fsutil import RefusedOverwrite, refuse_inputs
from porter.report_formats import FORMATS, render
from porter.targets import DEFAULT_TARGET

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


def _targets() -> list[str]:
    from porter.targets import known_targets
    return [t for t in known_targets()]


@click.command(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("paths", nargs=-1, required=True, type=click.Path())
@click.option("--target", default=DEFAULT_TARGET, show_default=True, type=click.Choice(_targets()),
              help="GPU to check against (its wavefront width and LDS model).")
@click.option("--exclude", multiple=True, metavar="GLOB",
              help="Leave out files or folders matching GLOB (repeatable): a name (vendor), a relative path "
                   "(third_party/*) or a pattern (*.cuh).")
@click.option("-I", "include_dirs", multiple=True, metavar="DIR", help="Add an include directory (repeatable).")
@click.option("-D", "defines", multiple=True, metavar="NAME[=VALUE]", help="Define a macro (repeatable).")
@click.option("-p", "--compile-commands", "compile_db", type=click.Path(dir_okay=False), default=None,
              help="compile_commands.json giving per-file -I/-D/-std flags (never executed).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text: path:line:col: ID [severity] message; json: one record per finding; sarif: SARIF 2.1.0 "
                   "for code scanning; github: workflow annotations.")
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
@click.option("--diff", "diff_base", default=None, metavar="BASE",
              help="Only files changed since git ref BASE, and only findings on changed lines.")
@click.option("--baseline", default=None, type=click.Path(dir_okay=False),
              help="Report only findings that are not in this baseline file.")
@click.option("--write-baseline", default=None, type=click.Path(dir_okay=False),
              help="Record the current findings in FILE (then exit 0).")
@click.option("--report-unused-ignores", is_flag=True,
              help="Report `porter: ignore[...]` / NOLINT(porter-...) comments that suppress nothing (exit 1).")
@click.option("--fix", is_flag=True, help="Apply the mechanical fix-its (64-bit masks, __popcll, 1ull << lane, ...).")
@click.option("--dry-run", is_flag=True, help="With --fix: print the unified diff, change nothing.")
@click.option("--config", "config_file", default=None, type=click.Path(dir_okay=False, exists=True),
              help="pyproject.toml with a [tool.porter] table [default: the nearest one above the current folder].")
@click.option("--confirm", "confirm_", is_flag=True,
              help="Confirm wave64 (W64) findings dynamically: compiles each affected kernel with the host C++ "
                   "compiler and RUNS it on the CPU (porter emulate, in a separate process) at warp sizes 32 and 64 "
                   "on synthesized inputs; never runs host code. Without it nothing is compiled or run.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bar and no summary line.")
@click.pass_context
def analyze(ctx: click.Context, paths: tuple[str, ...], target: str, exclude: tuple[str, ...], include_dirs: tuple[str, ...],
            defines: tuple[str, ...], compile_db: str | None, fmt: str, output: str | None, fail_on: str,
            select: tuple[str, ...], ignore: tuple[str, ...], min_confidence: str, jobs: int | None, timeout: float,
            max_file_size: int, no_pch: bool, show_fix: bool, dump_facts: bool, explain: bool, block: str | None,
            diff_base: str | None, baseline: str | None, write_baseline: str | None, report_unused_ignores: bool,
            fix: bool, dry_run: bool, config_file: str | None, quiet: bool, confirm_: bool = False) -> None:
    """Find code that hipify leaves wrong or slow on AMD Instinct GPUs.

    PATHS are .hip/.cu/.cuh/.cpp/.h files or folders (searched recursively). Each file is parsed with
    libclang on the device side for --target with porter's HIP stub header; nothing is compiled or run.

    \b
    Examples:
      porter analyze samples/
      porter analyze src/ -I include -D USE_FP16 --format json -o report.json
      porter analyze kernel.hip --select W64-003 --show-fix
      porter rules W64-001          # what a rule finds and how to fix it

    \b
    Pull-request review:
      porter analyze --diff origin/main --format sarif -o porter.sarif src/
      porter analyze src/ --write-baseline porter-baseline.json   # accept today's findings
      porter analyze src/ --baseline porter-baseline.json          # report only new ones
      porter analyze src/ --fix --dry-run                          # show the mechanical fixes

    Suppress a finding with `// porter: ignore[W64-003] reason` on its line or the line before,
    `// porter: ignore-file[ID]` for a file, or `// NOLINT(porter-W64-003)`.
    Defaults can be set in [tool.porter] of pyproject.toml; command-line options win.

    Exit status: 0 no findings at or above --fail-on, 1 findings, 2 usage or input error, 3 internal error
    (a bug in porter; please report it).
    """
    from porter.analysis import AnalysisError, Options, finish_report, run_files, select_files
    from porter.progress import progress_bar
    from porter.ruleset import RuleError, select_rules

    settings = _apply_config(ctx, config_file)
    target, include_dirs, defines, compile_db, fmt = (settings[k] for k in (
        "target", "include_dirs", "defines", "compile_db", "fmt"))
    fail_on, select, ignore, min_confidence, jobs, timeout = (settings[k] for k in (
        "fail_on", "select", "ignore", "min_confidence", "jobs", "timeout"))
    max_file_size, baseline, block = settings["max_file_size"], settings["baseline"], settings["block"]
    exclude = settings["exclude"]
    if dry_run and not fix:
        raise click.UsageError("--dry-run goes with --fix")
    if fmt not in FORMATS:
        raise click.UsageError(f"format '{fmt}' from the configuration is not one of {', '.join(FORMATS)}")

    default_block = None
    if block is not None:
        try:
            dims = tuple(int(x) for x in block.replace("x", ",").split(",") if x.strip())
        except ValueError:
            dims = ()
        if not 1 <= len(dims) <= 3 or min(dims) < 1:
            raise click.BadParameter(f"'{block}' is not X[,Y[,Z]] with positive integers", param_hint="--block")
        from porter.targets import load_target
        limit = load_target(target).max_threads_per_block
        if math.prod(dims) > limit:
            raise click.BadParameter(f"'{block}' is {math.prod(dims)} threads; a {target} block has at most {limit}",
                                     param_hint="--block")
        default_block = dims + (1,) * (3 - len(dims))
    try:
        rules = select_rules(select, ignore, explain)
    except RuleError as exc:
        raise click.UsageError(str(exc)) from exc
    if (select or ignore) and not rules:
        raise click.UsageError(f"--select/--ignore leave no rules to run (select={list(select)}, ignore={list(ignore)})")
    if compile_db and not os.path.isfile(compile_db):
        raise click.UsageError(f"{compile_db}: compile database not found")
    # --write-baseline records the findings before any baseline or --confirm applies
    options = Options(target=target, exclude=tuple(exclude), include_dirs=tuple(include_dirs), defines=tuple(defines),
                      compile_db=compile_db, use_pch=not no_pch, max_file_size=max_file_size, select=tuple(select),
                      ignore=tuple(ignore), explain=explain, dump_facts=dump_facts, min_confidence=min_confidence,
                      default_block=default_block, diff_base=diff_base,
                      baseline=None if write_baseline is not None else baseline,
                      confirm=bool(settings.get("confirm_")) and write_baseline is None, jobs=jobs, timeout=timeout)
    try:
        selection = select_files(paths, options)
    except AnalysisError as exc:
        raise click.UsageError(str(exc)) from exc
    files, problems = selection.files, selection.problems
    if diff_base is not None and not files and not problems:
        if not quiet:
            click.echo(f"porter: no changed HIP/CUDA sources since {diff_base}", err=True)
        _emit(render(fmt, [], files=0, errors=[], notes=[]), output)
        sys.exit(EXIT_CLEAN)
    for p in problems:
        click.echo(f"porter: error: {p}", err=True)
    if not files:
        sys.exit(EXIT_USAGE)
    read = [*files, *(x for x in (compile_db, baseline, config_file) if x)]
    for dest, what in ((output, "the report"), (write_baseline, "the baseline")):
        if dest is not None:
            try:
                refuse_inputs(dest, read, what)
            except RefusedOverwrite as exc:
                raise click.UsageError(str(exc)) from exc
    update, finish = progress_bar(not quiet)
    report = run_files(selection, options, update)
    finish()
    results, errors, notes = report.results, report.errors, report.notes
    for e in errors:
        click.echo(f"porter: error: {e}", err=True)
    for n in notes:
        click.echo(f"porter: note: {n}", err=True)
    if dump_facts:
        import json
        _emit(json.dumps([r.facts for r in results if r.facts is not None], indent=1) + "\n", output)
        sys.exit(EXIT_USAGE if problems or errors else EXIT_CLEAN)

    try:
        findings = finish_report(report, options).findings
    except AnalysisError as exc:
        raise click.UsageError(str(exc)) from exc
    if write_baseline is not None:
        from porter.baseline import write_baseline as _write
        count = _write(write_baseline, findings)
        click.echo(f"porter: wrote {count} findings to baseline {write_baseline}", err=True)
        sys.exit(EXIT_USAGE if problems or errors else EXIT_CLEAN)
    if not quiet and report.absorbed:
        click.echo(f"porter: {report.absorbed} findings are in the baseline {baseline}", err=True)
    if options.confirm and not quiet:
        from porter.confirm import summary
        click.echo(summary(findings), err=True)
    if fix:
        _fix(findings, results, report.config, target, dry_run, quiet)
    active = [f for f in findings if not f.suppressed]
    _emit(render(fmt, findings, files=len(results), errors=errors, notes=notes, show_fix=show_fix,
                 coverage=[r.coverage for r in results if r.coverage]), output)
    unused = [u for r in results for u in r.unused_ignores] if report_unused_ignores else []
    for u in unused:
        click.echo(f"{u}: unused porter suppression", err=True)
    if not quiet:
        counts = {s: sum(1 for f in active if f.severity == s) for s in SEVERITIES}
        suppressed = len(findings) - len(active)
        click.echo(f"porter: {len(active)} findings ({counts['error']} errors, {counts['warning']} warnings, "
                   f"{counts['note']} notes) in {len(results)} files"
                   + (f", {suppressed} suppressed" if suppressed else ""), err=True)
    if any(r.internal_error for r in results):
        sys.exit(EXIT_INTERNAL)
    if problems or errors:
        sys.exit(EXIT_USAGE)
    if unused or (fail_on != "never" and any(severity_rank(f.severity) >= severity_rank(fail_on) for f in active)):
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_CLEAN)


def _apply_config(ctx: click.Context, config_file: str | None) -> dict:
    """CLI > [tool.porter] > defaults: a config value replaces an option only where the command line left
    the option at its default."""
    from click.core import ParameterSource

    from porter.config import KEYS, ConfigError, find_pyproject, load

    values = dict(ctx.params)
    try:
        path = Path(config_file) if config_file else find_pyproject(Path.cwd())
        if path is None:
            return values
        loaded = load(path)
    except ConfigError as exc:
        raise click.UsageError(str(exc)) from exc
    params = {p.name: p for p in ctx.command.params}
    keys = {name: key for key, (name, _) in KEYS.items()}
    for name, value in loaded.items():
        if ctx.get_parameter_source(name) in (ParameterSource.DEFAULT, None):
            try:   # the option's own type: the same choices and ranges as on the command line
                values[name] = params[name].type_cast_value(ctx, value)
            except click.BadParameter as exc:
                raise click.UsageError(f"{path}: [tool.porter] {keys[name]}: {exc.message}") from exc
    return values


def _fix(findings: list, results: list, config, target: str, dry_run: bool, quiet: bool) -> None:  # type: ignore[no-untyped-def]
    from porter.analysis import Request, analyze_one
    from porter.fixer import fix_files

    def reparse(path: str) -> int:
        return analyze_one(Request(path=path, config=config, target=target, select=("NONE",))).parse_errors

    report = fix_files(findings, {r.path: r.sha256 for r in results}, {r.path: r.parse_errors for r in results},
                       reparse, dry_run)
    if dry_run:
        sys.stdout.write(report.diff)
    for s in report.skipped:
        click.echo(f"porter: fix: {s}", err=True)
    if not quiet:
        verb = "would fix" if dry_run else "fixed"
        click.echo(f"porter: {verb} {sum(report.fixed.values())} places in {len(report.fixed)} files", err=True)


def _emit(text: str, output: str | None) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    from porter.fsutil import atomic_write
    atomic_write(output, text)
