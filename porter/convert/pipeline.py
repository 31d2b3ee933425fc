"""`porter convert` as a library: parse a file (in a contained worker process), recognize each kernel, bind its
launch, render and write its module. porter.cli.convert prints what these return.

    for out in convert("softmax.hip", output_dir="out", target="gfx942"):
        print(out.report["status"], out.message or out.error)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from porter.targets import DEFAULT_TARGET, config_key

EXIT_OK, EXIT_NOT_CONVERTED, EXIT_USAGE = 0, 1, 2


class ConvertError(Exception):
    """The file cannot be converted at all (it does not parse, or holds no kernel): a usage error."""


@dataclass
class Converted:
    """One kernel's outcome: its JSON record (None when the kernel does not exist), the exit status it asks for,
    the text for the text format and the error line for stderr."""
    report: dict[str, Any] | None
    status: int = EXIT_OK
    message: str = ""
    error: str = ""


def typed_param(family: str, key: str, raw: str) -> object:
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


def parse(path: Path, include_dirs: tuple[str, ...] = (), defines: tuple[str, ...] = (),
          timeout: float = 120.0) -> object:
    """Parse in a worker process, as `porter analyze` does: a file that hangs libclang, crashes it or eats
    memory fails with a message instead of taking porter down. Returns FileFacts or an error message."""
    from porter.frontend_config import make_config
    from porter.pool import Failure, imap

    config = make_config(target=DEFAULT_TARGET, include_dirs=include_dirs, defines=defines)
    (result,) = list(imap(_parse_worker, [(path, config)], 1, timeout))
    return f"{path}: {result.reason}" if isinstance(result, Failure) else result


def convert_kernel(facts: Any, name: str, file: str, *, output_dir: str | Path, family: str | None = None,
                   target: str | None = None, config: str | None = None, overrides: dict[str, str] | None = None,
                   dry_run: bool = False, force: bool = False) -> Converted:
    """Recognize kernel `name` of the parsed `file`, render its module and write it to output_dir/NAME.py.
    target: the target (name, or tile-config key) whose config the module defaults to (default: gfx942)."""
    from porter.convert.binding import Refusal, original_record
    from porter.convert.params import DtypeError, ParamError
    from porter.convert.recognize import UnknownKernel, kernels, recognize
    from porter.convert.render import load_manifest, render, write_module
    from porter.families import hooks
    from porter.fsutil import RefusedOverwrite, refuse_inputs

    overrides = overrides or {}
    path = Path(file)
    report: dict[str, Any] = {"kernel": name, "file": file}
    try:
        rec = recognize(facts, name)
    except UnknownKernel:
        return Converted(None, EXIT_USAGE, error=f"{file}: no kernel '{name}' (kernels: {', '.join(kernels(facts))})")
    chosen = rec.best
    if family is not None:
        chosen = next(c for c in rec.candidates if c.family == family)
    elif rec.ambiguous:
        tied = [c.family for c in rec.candidates if c.score == rec.best.score]
        report.update(status="ambiguous", candidates=tied)
        return Converted(report, EXIT_NOT_CONVERTED,
                         f"{file}: {name}: matches {' and '.join(tied)} equally; choose one with --template")
    elif chosen.score < 1.0:
        report.update(status="not recognized", closest=chosen.family, score=chosen.score,
                      matched=list(chosen.evidence), missing=list(chosen.missing), conflicts=list(chosen.conflicts))
        return Converted(report, EXIT_NOT_CONVERTED, _not_recognized(file, name, chosen))
    try:
        bind = getattr(hooks(chosen.family, "recognize"), "bind", None)
        if bind is not None:    # arguments the body does not show (attention's sizes, from the launch grid)
            chosen = bind(rec, chosen)
        record, launch = original_record(rec, chosen, path.name, load_manifest(chosen.family).get("shape_keys", []))
    except Refusal as exc:
        report.update(status="refused", family=chosen.family, reason=str(exc))
        return Converted(report, EXIT_NOT_CONVERTED, f"{file}: {name}: not converted: recognized as "
                                                     f"'{chosen.family}', but {exc}\n    nothing was written")
    params = {k: v for k, v in chosen.params.items()}
    try:
        known = load_manifest(chosen.family).get("params", {})
        params = {k: v for k, v in params.items() if k in known}
        base = name.partition("<")[0].strip()
        params["kernel_name"] = base
        for key, raw in overrides.items():
            params[key] = typed_param(chosen.family, key, raw)
        line = next((f.loc.line for f in facts.functions if f.name == base), None)
        text = render(chosen.family, params, target=config_key(target or DEFAULT_TARGET), config=config,
                      original=record,
                      source_info={"file": path.name, "kernel": name, "line": line, "launch": launch})
    except ParamError as exc:
        report.update(status="error", error=str(exc))
        if isinstance(exc, DtypeError) and "dtype" not in overrides:
            # the original's precision has no template: a refusal (exit 1), never a silent change of dtype
            report.update(status="refused", family=chosen.family, reason=f"its precision is not supported: {exc}")
            return Converted(report, EXIT_NOT_CONVERTED, f"{file}: {name}: not converted: recognized as "
                                                         f"'{chosen.family}', but its precision has no template "
                                                         f"({exc})\n    nothing was written")
        return Converted(report, EXIT_USAGE, error=f"{file}: {name}: {exc}")
    out = Path(output_dir) / f"{params['kernel_name']}.py"
    report.update(status="converted", family=chosen.family, params=params,
                  arguments=[list(p) for p in chosen.arg_map], output=str(out))
    if not dry_run:
        try:
            refuse_inputs(out, [file], "the generated module")
            write_module(text, out, force=force)
        except RefusedOverwrite as exc:
            report.update(status="error", error=str(exc))
            return Converted(report, EXIT_USAGE, error=str(exc))
    mapping = ", ".join(f"{t}={o or '?'}" for t, o in chosen.arg_map)
    report["notes"] = list(chosen.notes)
    return Converted(report, EXIT_OK,
                     f"{file}: {name}: {chosen.family} {params} -> {out}{' (dry run)' if dry_run else ''}\n"
                     f"    arguments: {mapping}" + "".join(f"\n    note: {n}" for n in chosen.notes))


def convert(file: str, *, output_dir: str | Path = "porter-out", kernels: tuple[str, ...] = (),
            include_dirs: tuple[str, ...] = (), defines: tuple[str, ...] = (), timeout: float = 120.0,
            **options: Any) -> list[Converted]:
    """`porter convert FILE` without the command line: one Converted per selected kernel (default: every
    kernel in the file). options: family, target, config, overrides, dry_run, force (see convert_kernel).
    Raises ConvertError when the file does not parse or holds no kernel."""
    from porter.convert.recognize import kernels as kernels_of

    facts = parse(Path(file), include_dirs, defines, timeout)
    if isinstance(facts, str):
        raise ConvertError(facts)
    available = kernels_of(facts)
    if not available:
        raise ConvertError(f"{file}: no __global__ kernels found")
    return [convert_kernel(facts, name, file, output_dir=output_dir, **options) for name in kernels or available]


def _not_recognized(file: str, name: str, c: Any) -> str:
    lines = [f"{file}: {name}: not converted: no template matches; closest is '{c.family}' "
             f"({len(c.evidence)} of {len(c.evidence) + len(c.missing)} required facts)"]
    lines += [f"    found:    {e}" for e in c.evidence]
    lines += [f"    missing:  {m}" for m in c.missing]
    lines += [f"    conflict: {x}" for x in c.conflicts]
    lines.append("    nothing was written; force a family with --template if you are sure")
    return "\n".join(lines)
