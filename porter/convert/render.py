"""Render a TileLang module from a family template, its manifest and validated parameters.

The recognizer produces (family, params); this module is the only place that turns them into source text.
No tilelang or torch import here: rendering must work where only jinja2 is installed.
"""

from __future__ import annotations

import os
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from porter.convert.params import (DTYPES, ParamError, check_identifier, check_original, sanitize_comment_text,
                                   validate_params, validate_schema)
from porter.fsutil import atomic_write
from porter.families import FAMILIES, FOLDER
from porter.targets import config_targets, known_targets, load_target

# Tile-config keys a manifest may carry configs for, one per target file's `configs` (FACTS section 4: one tile
# config does not suit every GPU); several targets may share a key (gfx950 runs gfx942's).
TARGETS = tuple(config_targets())
_CONFIG_INT_KEYS = ("threads",)


def _sharing(key: str) -> list:
    """The targets whose tile configs are `key`'s."""
    return [t for t in map(load_target, known_targets()) if t.configs == key]


def arch_configs() -> dict[str, str]:
    """AMD arch -> its config key, for a generated module to pick its tiles by the GPU present."""
    return {t.toolchain_arch: t.configs for t in map(load_target, known_targets()) if t.is_amd}


def tvm_targets() -> dict[str, dict[str, str]]:
    """Config key -> the TVM target a generated module lowers that key's configs for (the target named by the key,
    else the first sharing it)."""
    out = {}
    for key in TARGETS:
        ts = sorted(_sharing(key), key=lambda t: (t.toolchain_arch != key, t.name))
        t = ts[0]
        out[key] = {"kind": "hip", "mcpu": t.toolchain_arch} if t.is_amd else {"kind": "cuda", "arch": t.toolchain_arch}
    return out


def list_families() -> list[str]:
    """The registered families (porter.families.FAMILIES), by name."""
    return sorted(FAMILIES)


@cache
def load_manifest(family: str) -> dict[str, Any]:
    check_identifier("family", family)  # also keeps family out of path traversal
    path = FOLDER / family / "manifest.toml"
    if family not in FAMILIES or not path.is_file():
        raise ParamError(f"unknown template family '{family}' (known: {', '.join(list_families())})")
    data = tomllib.loads(path.read_text())
    if data.get("family") != family:
        raise ParamError(f"manifest {path}: family = {data.get('family')!r}, expected {family!r}")
    validate_schema(family, data.get("params", {}), data.get("dtypes", []))
    for tgt, configs in data.get("configs", {}).items():
        if tgt not in TARGETS:
            raise ParamError(f"manifest {family}: configs for unknown target {tgt!r}")
        for cfg in configs:
            for key, val in cfg.items():
                check_identifier(f"{family} config key", key)
                if not isinstance(val, (int, bool)) and not (isinstance(val, list) and key == "dtypes"):
                    raise ParamError(f"manifest {family}: config value {key}={val!r} must be an int or bool")
            wave = max(t.wave_size for t in _sharing(tgt))
            if cfg.get("threads", wave) % wave:
                raise ParamError(f"manifest {family}: {tgt} config with threads={cfg['threads']} "
                                 f"is not a multiple of the {wave}-lane wavefront")
    return data


def _config_suffix(manifest: dict[str, Any], cfg: dict[str, Any]) -> str:
    return manifest["config_name"].format(**cfg)


def config_name(family: str, dtype: str, cfg: dict[str, Any]) -> str:
    """Procedural name `gemm_f16_128x128x32_s2_t256`: file name, cache key and filter at once."""
    manifest = load_manifest(family)
    return f"{family}_{DTYPES[dtype]}_{_config_suffix(manifest, cfg)}"


def _applies(cfg: dict[str, Any], params: dict[str, Any]) -> bool:
    """A config may restrict itself with `dtypes = [...]`, `max_<param>` / `min_<param>` keys."""
    if "dtypes" in cfg and params.get("dtype") not in cfg["dtypes"]:
        return False
    for key, bound in cfg.items():
        for prefix, ok in (("max_", lambda v, b: v <= b), ("min_", lambda v, b: v >= b)):
            if key.startswith(prefix) and key[len(prefix):] in params and not ok(params[key[len(prefix):]], bound):
                return False
    return True


def _kernel_fields(cfg: dict[str, Any]) -> dict[str, Any]:
    """Config keys that reach the kernel (constraints are for selection only)."""
    return {k: v for k, v in cfg.items() if k != "dtypes" and not k.startswith(("max_", "min_"))}


def list_configs(family: str, params: dict[str, Any], target: str) -> list[tuple[str, dict[str, Any]]]:
    """(name, kernel fields) of every config of `target` that applies to these (validated) params."""
    manifest = load_manifest(family)
    if target not in TARGETS:
        raise ParamError(f"unknown target '{target}' (known: {', '.join(TARGETS)})")
    out = []
    for cfg in manifest.get("configs", {}).get(target, []):
        if _applies(cfg, params):
            out.append((config_name(family, params["dtype"], cfg), _kernel_fields(cfg)))
    return out


def _param_cell(name: str, spec: dict[str, Any]) -> str:
    kind = "/".join(spec["values"]) if spec["kind"] == "enum" else spec["kind"]
    return f"`{name}` ({kind}: {spec['doc']})" if spec.get("doc") else f"`{name}` ({kind})"


def families_table(keys: tuple[str, ...] = ("gfx942", "sm_90a")) -> str:
    """The markdown table of porter/families/README.md, made from the manifests: each family's parameters (kind and
    `doc`) and its default config per tile-config key for the default parameters (`porter convert --list-templates
    --table`)."""
    lines = ["| family | params (besides `kernel_name`) | " + " | ".join(f"{k} default" for k in keys) + " |",
             "|---|---|" + "---|" * len(keys)]
    for fam in list_families():
        manifest = load_manifest(fam)
        schema = manifest.get("params", {})
        defaults = validate_params(fam, schema, {}, manifest.get("dtypes", []))
        params = ", ".join(_param_cell(n, s) for n, s in schema.items() if n != "kernel_name")
        configs = [f"`{select_config(fam, defaults, k, None)[0]}`" for k in keys]
        lines.append(f"| {fam} | {params} | " + " | ".join(configs) + " |")
    return "\n".join(lines)


def select_config(family: str, params: dict[str, Any], target: str, config: str | None) -> tuple[str, dict]:
    configs = list_configs(family, params, target)
    if not configs:
        raise ParamError(f"template '{family}' has no {target} config for these parameters")
    if config is None:
        return configs[0]  # manifests list the tuned default first
    for name, fields in configs:
        if config == name:
            return name, fields
    raise ParamError(f"config '{config}' is not a {target} config of '{family}' for these parameters; "
                     f"choose one of: {', '.join(n for n, _ in configs)}")


def _environment() -> jinja2.Environment:
    # autoescape off: the output is Python, not HTML; safety comes from validating every value instead.
    env = jinja2.Environment(loader=jinja2.FileSystemLoader(str(FOLDER)),
                              undefined=jinja2.StrictUndefined, autoescape=False,
                              keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=True)
    # `py` emits a validated value as a Python literal (repr of str/int/float/bool/dict of those).
    env.filters["py"] = _py_literal
    env.filters["py_record"] = _py_record
    return env


def _py_literal(value: Any) -> str:
    if isinstance(value, (bool, int, float, str)) or value is None:
        return repr(value)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_py_literal(k)}: {_py_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_py_literal(v) for v in value) + "]"
    raise TypeError(f"cannot emit {type(value).__name__} as a literal")


def _unused(manifest: dict[str, Any], params: dict[str, Any], name: str) -> bool:
    """A parameter the others make irrelevant (`unless = "runtime_eps"`: eps is not a constant then)."""
    switch = manifest.get("params", {}).get(name, {}).get("unless")
    return bool(switch and params.get(switch))


def _py_record(record: dict[str, Any] | None) -> str:
    """A validated ORIGINAL record as a Python literal laid out one field (and one argument) per line."""
    if record is None:
        return "None"
    lines = ["{"]
    for key, value in record.items():
        if key == "args":
            lines.append(f"    {_py_literal(key)}: [")
            lines += [f"        {_py_literal(arg)}," for arg in value]
            lines.append("    ],")
        else:
            lines.append(f"    {_py_literal(key)}: {_py_literal(value)},")
    return "\n".join(lines + ["}"])


def render(family: str, params: dict[str, Any], *, target: str = "gfx942", config: str | None = None,
           source_info: dict[str, Any] | None = None, original: dict[str, Any] | None = None) -> str:
    """Return the text of a self-contained TileLang module for `family` with `params`.

    `config` names a tuning config of `target` (default: the manifest's first that applies). The module also
    embeds the default config of every other target so the same file runs on either vendor's GPU.
    `source_info` may hold `file`, `kernel`, `launch` (and `line`): they go into the header comment only,
    sanitized. `original` is the ORIGINAL record of CONTRACT.md (how `porter verify` launches the original on the
    module's cases), validated field by field; None renders `ORIGINAL = None` (a module not converted from a file)."""
    manifest = load_manifest(family)
    checked = validate_params(family, manifest.get("params", {}), params, manifest.get("dtypes", []))
    configs: dict[str, dict[str, Any]] = {}
    names: dict[str, str] = {}
    for tgt in TARGETS:
        if tgt == target:
            names[tgt], configs[tgt] = select_config(family, checked, tgt, config)
        elif list_configs(family, checked, tgt):
            names[tgt], configs[tgt] = select_config(family, checked, tgt, None)
    if target not in configs:
        raise ParamError(f"unknown target '{target}' (known: {', '.join(TARGETS)})")
    info = dict(source_info or {})
    unknown = set(info) - {"file", "kernel", "line", "launch"}
    if unknown:
        raise ParamError(f"unknown source_info key(s): {', '.join(sorted(map(repr, unknown)))}")
    line = info.get("line")
    if line is not None and (isinstance(line, bool) or not isinstance(line, int) or line < 0):
        raise ParamError(f"source_info 'line' must be a non-negative int, got {line!r}")
    header = {
        "file": sanitize_comment_text(info.get("file", "<unknown>"), "file"),
        "kernel": sanitize_comment_text(info.get("kernel", "<unknown>"), "kernel"),
        "line": line,
        "launch": sanitize_comment_text(info["launch"], "launch") if "launch" in info else None,
    }
    record = check_original(original, manifest.get("shape_keys", [])) if original is not None else None
    text = _environment().get_template(f"{family}/kernel.py.j2").render(
        family=family, description=manifest.get("description", ""), p=checked, target=target,
        config_name=names[target], configs=configs, config_names=names, source=header, original=record,
        arch_configs=arch_configs(), tvm_targets=tvm_targets(),
        params_repr=", ".join(f"{k}={v!r}" for k, v in checked.items() if not _unused(manifest, checked, k)))
    return text


def write_module(text: str, path: str | os.PathLike[str], force: bool = False) -> Path:
    """Write a rendered module atomically; refuses to overwrite an existing file unless force=True."""
    return atomic_write(path, text, force=force)
