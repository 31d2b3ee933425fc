"""`[tool.porter]` in pyproject.toml, loaded into click's default map: CLI > config > defaults."""

from __future__ import annotations

import difflib
import tomllib
from pathlib import Path
from typing import Any


class ConfigError(Exception):
    pass


# config key -> (analyze option name, kind). Paths are relative to the pyproject.toml that names them.
KEYS: dict[str, tuple[str, str]] = {
    "select": ("select", "list"),
    "ignore": ("ignore", "list"),
    "target": ("target", "target"),
    "include": ("include_dirs", "paths"),
    "define": ("defines", "list"),
    "compile-commands": ("compile_db", "path"),
    "fail-on": ("fail_on", "str"),
    "format": ("fmt", "str"),
    "min-confidence": ("min_confidence", "str"),
    "jobs": ("jobs", "int"),
    "timeout": ("timeout", "float"),
    "max-file-size": ("max_file_size", "int"),
    "baseline": ("baseline", "path"),
    "block": ("block", "str"),
    "exclude": ("exclude", "list"),               # globs, matched as --exclude matches them
}


def find_pyproject(start: Path) -> Path | None:
    """The nearest pyproject.toml at or above `start` that has a [tool.porter] table."""
    for folder in [start, *start.parents]:
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                raw = candidate.read_bytes()
            except OSError:
                continue
            if b"porter" not in raw:
                continue   # another tool's file, broken or not, is not ours to judge
            tool = _read(candidate).get("tool", {})
            if isinstance(tool, dict) and "porter" in tool:
                return candidate
        if (folder / ".git").exists():
            break
    return None


def _read(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_bytes().decode("utf-8"))
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from exc


def load(path: Path) -> dict[str, Any]:
    """Validated analyze defaults from `path`'s [tool.porter] table."""
    tool = _read(path).get("tool", {})
    if not isinstance(tool, dict):
        raise ConfigError(f"{path}: `tool` must be a table, got {tool!r}")
    table = tool.get("porter", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.porter] must be a table")
    out: dict[str, Any] = {}
    base = path.parent
    for key, value in table.items():
        if key not in KEYS:
            close = difflib.get_close_matches(key, KEYS, n=1)
            hint = f"; did you mean '{close[0]}'?" if close else f" (known: {', '.join(KEYS)})"
            raise ConfigError(f"{path}: unknown key '{key}' in [tool.porter]{hint}")
        name, kind = KEYS[key]
        out[name] = _convert(path, key, kind, value, base)
    return out


def _convert(path: Path, key: str, kind: str, value: Any, base: Path) -> Any:
    def bad(expected: str) -> ConfigError:
        return ConfigError(f"{path}: [tool.porter] {key} must be {expected}, got {value!r}")

    if kind in ("list", "paths"):
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad("a list of strings")
        return tuple(str(base / v) if kind == "paths" else v for v in value)
    if kind == "target":
        from porter.targets import known_targets
        if value not in known_targets():
            raise bad(f"one of {', '.join(known_targets())}")
        return value
    if kind in ("str", "path"):
        if not isinstance(value, str):
            raise bad("a string")
        return str(base / value) if kind == "path" else value
    if kind == "int":
        if not isinstance(value, int) or isinstance(value, bool):
            raise bad("an integer")
        return value
    if kind == "float":
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise bad("a number")
        return float(value)
    raise AssertionError(kind)
