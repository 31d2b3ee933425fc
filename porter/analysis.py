"""`porter analyze` as a library: collect the source files, analyze each in a worker process, gather the results
into a Report (findings filtered by confidence, changed lines and a baseline, W64 findings confirmed on request).

    report = analyze(["src/"], Options(target="gfx942", select=("W64",)))
    for f in report.findings: ...

porter.cli.analyze is a thin layer over select_files / run_files / finish_report (the steps of analyze) that adds
the output formats, baselines written, --fix and exit codes."""

from __future__ import annotations

import fnmatch
import os
import tempfile
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterator

from porter.fact_queries import TORCH_WAVE
from porter.findings import Finding
from porter.lds.access_offsets import ASSUMED_ELEMENT
from porter.targets import DEFAULT_TARGET

# a file read in an includer's context: headers, and `.inc` fragments that a source or header includes mid-file
HEADER_SUFFIXES = (".cuh", ".h", ".hpp", ".hh", ".H", ".inc")  # .H: C++ headers by gcc's convention (AMReX's)
INCLUDER_SUFFIXES = (".cu", ".hip", ".cpp", ".cc", ".cxx")
SOURCE_SUFFIXES = INCLUDER_SUFFIXES + HEADER_SUFFIXES
# C sources a project compiles as HIP (hypre's CMake gives its *_device.c files LANGUAGE HIP): read when named on
# the command line, never picked up by a folder walk, where most .c files are host C
NAMED_SUFFIXES = SOURCE_SUFFIXES + (".c",)
SKIP_DIRS = {".git", ".hg", ".svn", "node_modules", "build", "__pycache__", ".venv", ".tox"}


@dataclass(frozen=True)
class Request:
    path: str
    config: Any            # porter.frontend.ParseConfig
    target: str
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    dump_facts: bool = False
    explain: bool = False                               # also run explain-only rules (LDS-000)
    params: tuple[tuple[str, Any], ...] = ()            # rule param overrides, e.g. (("default_block", (32, 8, 1)),)
    confirm: bool = False       # keep the Facts of a file with W64 findings: --confirm plans its launches from them


@dataclass
class FileResult:
    path: str
    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)      # parse diagnostics worth showing (missing includes...)
    error: str = ""                                      # the file could not be analyzed at all
    facts: dict[str, Any] | None = None
    seconds: float = 0.0
    unused_ignores: list[str] = field(default_factory=list)   # "path:line: text" of ignores that matched nothing
    sha256: str = ""                                     # of the text analyzed (--fix refuses changed files)
    parse_errors: int = 0
    token_statements: int = 0                            # statements read from tokens only (parse loss)
    coverage: dict[str, Any] = field(default_factory=dict)   # what was analyzed how (see coverage())
    internal_error: bool = False                         # porter itself failed on this file (exit 3)


def collect(paths: list[str], exclude: tuple[str, ...] = ()) -> tuple[list[str], list[str]]:
    """Expand folders into source files. Returns (files, problems): a missing path or an empty folder is a
    problem reported by name; every other path is still analyzed. A file or folder matching one of the `exclude`
    globs (see excluded) is left out."""
    files: list[str] = []
    problems: list[str] = []
    seen: set[str] = set()            # resolved paths: one file typed two ways is analyzed once

    def add(name: str) -> None:
        name = os.path.normpath(name)  # "./k.hip" and "k.hip" are one spelling in findings, fixes and baselines
        key = os.path.realpath(name)
        if key not in seen:
            seen.add(key)
            files.append(name)

    for raw in paths:
        p = Path(raw)
        if not p.exists() and not p.is_symlink():
            problems.append(f"{raw}: no such file or directory")
            continue
        if p.is_dir():
            found = sorted(f for f in _walk(p, exclude) if not excluded(f, exclude, p))
            if not found:
                problems.append(f"{raw}: no HIP/CUDA sources found (looked for {', '.join(SOURCE_SUFFIXES)})")
            for f in found:
                add(f)
        elif not excluded(raw, exclude):
            add(raw)
    return files, problems


def excluded(path: str, patterns: tuple[str, ...], root: Path | None = None) -> bool:
    """`path` matches a glob as written, relative to the folder it was found under, or by one of its folder or
    file names: `vendor`, `third_party/*`, `*.cuh` and `src/ext/**` all work."""
    if not patterns:
        return False
    p = Path(path)
    forms = {p.as_posix(), *p.parts}
    if root is not None:
        try:
            forms.add(p.relative_to(root).as_posix())
        except ValueError:
            pass
    return any(fnmatch.fnmatchcase(f, pat.rstrip("/")) for f in forms for pat in patterns)


def _walk(root: Path, exclude: tuple[str, ...] = ()) -> Iterator[str]:
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        dirnames[:] = [d for d in dirnames if d not in SKIP_DIRS and not d.startswith(".")
                       and not excluded(os.path.join(dirpath, d), exclude, root)]
        for name in filenames:
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(dirpath, name)


def analyze_one(req: Request) -> FileResult:
    """Worker entry point: parse, extract, run the rules. Never raises for a bad input file."""
    from porter.frontend import FrontendError, analyze_file
    from porter.rule_context import RuleContext
    from porter.ruleset import run_rules, select_rules
    from porter.suppress import apply_ignores, with_fingerprints
    from porter.targets import load_target

    start = time.perf_counter()
    result = FileResult(req.path)
    try:
        facts = analyze_file(Path(req.path), req.config)
    except FrontendError as exc:
        result.error = str(exc)
        return result
    for d in facts.diagnostics:
        if d.severity in ("error", "fatal") and ("file not found" in d.message or d.severity == "fatal"):
            result.notes.append(f"{d.loc}: {d.severity}: {d.message} (analysis continued without it)")
    errors = sum(1 for d in facts.diagnostics if d.severity in ("error", "fatal"))
    if errors and not facts.functions:
        result.notes.append(f"{req.path}: {errors} parse errors and no functions recovered; nothing was checked")
    elif errors and not result.notes:
        # clang recovers from most errors, but not all (e.g. nesting past -fbracket-depth drops the rest of the
        # file): say so rather than report a silently partial result
        first = next(d for d in facts.diagnostics if d.severity in ("error", "fatal"))
        more = f" and {errors - 1} more" if errors > 1 else ""
        result.notes.append(f"{first.loc}: error: {first.message}{more}; the analysis covers what the parser "
                            f"recovered")
    for s in facts.skipped:
        result.notes.append(f"{s.loc}: {s.function}: {s.reason}")
    if facts.decoded:
        result.notes.append(facts.decoded)
    ctx = RuleContext(facts, load_target(req.target))
    findings = run_rules(ctx, select_rules(req.select, req.ignore, req.explain),
                         dict(req.params), notes=result.notes)
    findings = _weaken_recovered(findings, facts)
    result.coverage = coverage(facts)
    result.token_statements = result.coverage["recovered_statements"]
    if req.explain:
        result.notes += coverage_notes(req.path, result.coverage)
    findings, ignores = apply_ignores(with_fingerprints(findings, facts.lines), facts.lines)
    result.findings = findings
    result.unused_ignores = [f"{req.path}:{i.line}: {i.text}" for i in ignores if not i.used and not i.problem]
    result.notes += [f"{req.path}:{i.line}: malformed suppression `{i.text}` ({i.problem}); it suppresses nothing"
                     for i in ignores if i.problem]
    result.sha256 = facts.sha256
    result.parse_errors = errors
    if req.dump_facts or (req.confirm and any(f.rule_id.startswith("W64") and not f.suppressed for f in findings)):
        result.facts = facts.to_json()
    result.seconds = time.perf_counter() - start
    return result


def _weaken_recovered(findings: list[Finding], facts: Any) -> list[Finding]:
    """Findings on code read from tokens only (porter/token_reader.py) are at most low confidence."""
    if not facts.recovered:
        return findings
    spans = [(r.loc.line, r.loc.col, r.loc.end_line or r.loc.line, r.loc.end_col or 10**6) for r in facts.recovered]
    fns = {r.function for r in facts.recovered}
    bodies = [(f.loc.line, f.loc.end_line) for f in facts.functions if f.usr in fns]
    out = []
    for f in findings:
        if any((a, b) <= (f.line, f.col) <= (c, d) for a, b, c, d in spans):
            f = replace(f, confidence="low")
        elif f.confidence == "high" and any(a <= f.line <= b for a, b in bodies):
            f = replace(f, confidence="medium")  # may rest on facts read from tokens elsewhere in the function
        out.append(f)
    return out


def coverage(facts: Any) -> dict[str, Any]:
    """Per file: how much of it was analyzed from the AST, from tokens only, as template patterns, or not at all."""
    instantiated = {f.usr.split("<", 1)[0] for f in facts.functions if f.template_args}
    patterns = [f for f in facts.functions if f.is_template]
    return {"path": facts.path, "functions": len(facts.functions),
            "recovered_statements": len(facts.recovered),
            "recovered_functions": len({r.function for r in facts.recovered}),
            "template_patterns": len(patterns),
            "patterns_only": sorted(f.name for f in patterns if f.usr.split("<", 1)[0] not in instantiated),
            "undeclared": list(facts.undeclared), "context": facts.context,
            "skipped": [f"{s.function}: {s.reason}" for s in facts.skipped]}


def coverage_notes(path: str, cov: dict[str, Any]) -> list[str]:
    notes = []
    if cov.get("context"):
        includer, _, line = cov["context"].rpartition(":")
        here = os.path.relpath(includer) if not os.path.relpath(includer).startswith("..") else includer
        notes.append(f"{path}: analyzed in the context of its includer {here}: after that file's #include and "
                     f"#define lines before its line {line}, which includes this header (porter/includers.py)")
    if cov["recovered_statements"]:
        notes.append(f"{path}: {cov['recovered_statements']} statements in {cov['recovered_functions']} functions "
                     f"recovered from tokens only (libclang dropped them: missing headers or unknown names); "
                     f"findings there have low confidence")
    if cov["undeclared"]:
        names = ", ".join(cov["undeclared"][:5]) + (" ..." if len(cov["undeclared"]) > 5 else "")
        notes.append(f"{path}: {len(cov['undeclared'])} names used but declared nowhere the parse could see (a "
                     f"header not on the include path: add its folder with -I): {names}; a call of one is judged by "
                     f"its name only (a `shfl` name as a shuffle), with low confidence")
    if TORCH_WAVE in cov["undeclared"]:
        notes.append(f"{path}: {TORCH_WAVE} is judged without PyTorch's headers: its uses where a constant is "
                     f"required are reported outside device code only, since in device code the PyTorch release "
                     f"decides (warpSize in 2021-2025, no constant from ROCm 7; a device constexpr later): -I "
                     f"PyTorch's include folder, or -D {TORCH_WAVE}=warpSize for the 2021-2025 headers")
    if cov["patterns_only"]:
        names = ", ".join(cov["patterns_only"][:5]) + (" ..." if len(cov["patterns_only"]) > 5 else "")
        notes.append(f"{path}: {len(cov['patterns_only'])} templates never instantiated in the file were analyzed "
                     f"as patterns, values that depend on template parameters left open ({names}); a shared "
                     f"array's element type the file binds to no type is judged at {ASSUMED_ELEMENT[0]} bytes, "
                     f"as for {ASSUMED_ELEMENT[1]}")
    return notes


def run(requests: list[Request], jobs: int, timeout: float,
        progress: Callable[[int, int, str], None] | None = None) -> list[FileResult]:
    from porter.pool import Failure, imap

    results: list[FileResult] = []
    with _scratch() as scratch:
        work = with_includer_contexts(requests)
        work = with_shared_preambles(work, scratch) if scratch is not None else work
        for i, res in enumerate(imap(analyze_one, _largest_first(work), jobs, timeout), 1):
            if isinstance(res, Failure):
                res = FileResult(res.item.path, error=f"{res.item.path}: {res.reason}",
                                 internal_error=res.internal)
            results.append(res)
            if progress is not None:
                progress(i, len(requests), res.path)
    results.sort(key=lambda r: r.path)
    return results


def _largest_first(requests: list[Request]) -> list[Request]:
    """The requests, biggest file first: a run lasts at least as long as its slowest file, which then starts at
    once instead of after the small ones (a kernel file with 96 instantiations takes ten times a header)."""
    def size(r: Request) -> int:
        try:
            return os.path.getsize(r.path)
        except OSError:
            return 0
    return sorted(requests, key=size, reverse=True)


@contextmanager
def _scratch() -> Iterator[str | None]:
    """A folder for this run's precompiled preambles, removed at the end; None when none can be made."""
    try:
        folder = tempfile.TemporaryDirectory(prefix="porter-preamble-", ignore_cleanup_errors=True)
    except OSError:
        yield None
        return
    with folder as name:
        yield name


def with_shared_preambles(requests: list[Request], scratch: str) -> list[Request]:
    """The requests, those whose leading includes several files share told to parse them from one PCH built
    in `scratch` for this run (porter/preamble.py): the same analysis, without parsing the headers each time."""
    from porter import preamble

    if len(requests) < preamble.MIN_SHARED:
        return requests
    chosen = preamble.choose([r.path for r in requests if r.config.use_pch], preamble.head)
    # a header read in its includer's context is parsed after that context, which a shared PCH would precede
    return [replace(r, config=replace(r.config, preamble_dir=scratch, preamble_includes=chosen[r.path][0],
                                      preamble_through=chosen[r.path][1]))
            if r.path in chosen and not r.config.context else r for r in requests]


def with_includer_contexts(requests: list[Request]) -> list[Request]:
    """The requests, each header (or source) that a source file of its tree includes after #include or #define
    lines told to parse after them (porter/includers.py): the macros its includer defines first apply to it."""
    from porter.includers import Scanner
    from porter.resources import package_path

    groups: dict[tuple[str, ...], list[str]] = {}
    for r in requests:
        if r.path.endswith(SOURCE_SUFFIXES):
            groups.setdefault(r.config.include_dirs, []).append(r.path)
    if not groups:
        return requests
    stubs = [str(package_path("parse_headers", "include"))]
    contexts = {}
    for dirs, headers in groups.items():
        contexts.update(Scanner(dirs, stubs).contexts(headers, also=[r.path for r in requests]))
    return [replace(r, config=replace(r.config, context=contexts[r.path].text, context_from=contexts[r.path].label))
            if r.path in contexts else r for r in requests]


# ------------------------------------------------------------------------------------------ the library call

class AnalysisError(Exception):
    """A problem that stops the whole analysis (a git ref that does not exist, an unreadable baseline); the CLI
    reports it as a usage error."""


@dataclass(frozen=True)
class Options:
    """What to analyze for, as `porter analyze`'s options say it (porter.cli.analyze builds one)."""
    target: str = DEFAULT_TARGET
    exclude: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    compile_db: str | None = None
    use_pch: bool = True
    max_file_size: int = 8 * 1024 * 1024
    select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    explain: bool = False
    dump_facts: bool = False                 # keep every file's Facts (FileResult.facts); findings are not filtered
    min_confidence: str = "low"
    default_block: tuple[int, int, int] | None = None
    diff_base: str | None = None             # only files and lines changed since this git ref
    baseline: str | None = None              # drop findings recorded in this baseline file
    confirm: bool = False                    # run W64 findings' kernels on the CPU emulator (porter.confirm)
    jobs: int | None = None
    timeout: float = 120.0


@dataclass
class Selection:
    files: list[str]
    problems: list[str]                      # paths that are missing or hold no sources
    changed: dict | None = None              # resolved path -> changed lines (None: the whole file), with diff_base


@dataclass
class Report:
    results: list[FileResult]
    problems: list[str]
    config: Any                              # the ParseConfig the files were parsed with (--fix parses again)
    changed: dict | None = None
    findings: list[Finding] = field(default_factory=list)
    absorbed: int = 0                        # findings the baseline held

    @property
    def errors(self) -> list[str]:
        return [r.error for r in self.results if r.error]

    @property
    def notes(self) -> list[str]:
        return [n for r in self.results for n in r.notes]


def select_files(paths: list[str] | tuple[str, ...], options: Options) -> Selection:
    files, problems = collect(list(paths), tuple(options.exclude))
    if options.diff_base is None:
        return Selection(files, problems)
    from porter.gitdiff import DiffError, changed_lines
    try:
        changed = changed_lines(options.diff_base, Path.cwd())
    except DiffError as exc:
        raise AnalysisError(str(exc)) from exc
    return Selection([f for f in files if Path(f).resolve() in changed], problems, changed)


def run_files(selection: Selection, options: Options,
              progress: Callable[[int, int, str], None] | None = None) -> Report:
    """Parse and check every selected file in worker processes (no findings filtered yet)."""
    from porter.frontend_config import make_config

    config = make_config(target=options.target, include_dirs=options.include_dirs, defines=options.defines,
                         compile_db=options.compile_db, use_pch=options.use_pch, max_file_bytes=options.max_file_size)
    params = (("default_block", options.default_block),) if options.default_block else ()
    requests = [Request(path=f, config=config, target=options.target, select=options.select, ignore=options.ignore,
                        dump_facts=options.dump_facts, explain=options.explain, params=params,
                        confirm=options.confirm) for f in selection.files]
    results = run(requests, options.jobs or os.cpu_count() or 1, options.timeout, progress)
    return Report(results, selection.problems, config, selection.changed)


def finish_report(report: Report, options: Options) -> Report:
    """The findings at or above min_confidence, on changed lines, not in the baseline; confirmed on request."""
    order = ("low", "medium", "high")
    findings = sorted((f for r in report.results for f in r.findings
                       if order.index(f.confidence) >= order.index(options.min_confidence)), key=lambda f: f.sort_key())
    changed = report.changed
    if changed is not None:
        findings = [f for f in findings if changed.get(Path(f.path).resolve()) is None
                    or f.line in changed[Path(f.path).resolve()]]
    if options.baseline is not None:
        from porter.baseline import BaselineError, filter_baseline, load_baseline
        try:
            findings, report.absorbed = filter_baseline(findings, load_baseline(options.baseline))
        except BaselineError as exc:
            raise AnalysisError(str(exc)) from exc
    if options.confirm:
        from porter.confirm import confirm
        findings = confirm(findings, report.results, config=report.config, target=options.target, jobs=options.jobs,
                           default_block=options.default_block or (256, 1, 1))
    report.findings = findings
    return report


def analyze(paths: list[str] | tuple[str, ...], options: Options = Options(),
            progress: Callable[[int, int, str], None] | None = None) -> Report:
    """`porter analyze PATHS` without the command line: the Report of every file and the findings to show."""
    report = run_files(select_files(paths, options), options, progress)
    return report if options.dump_facts else finish_report(report, options)
