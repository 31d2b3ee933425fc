"""Build the front end's ParseConfig without importing libclang (keeps the parent process light)."""

from __future__ import annotations

from dataclasses import dataclass, field

from porter.targets import DEFAULT_TARGET


@dataclass(frozen=True)
class ParseConfig:
    target: str = DEFAULT_TARGET
    include_dirs: tuple[str, ...] = ()
    defines: tuple[str, ...] = ()
    compile_db: str | None = None
    std: str = "c++17"
    use_pch: bool = True
    max_file_bytes: int = 8 * 1024 * 1024
    extra_args: tuple[str, ...] = field(default=())
    preamble_dir: str = ""          # where this run's shared preamble PCHs live (see porter/preamble.py)
    preamble_includes: int = 0      # how many of the file's leading includes to take from one
    preamble_through: str = ""      # or of the leading includes of this header, the file's first include
    context: str = ""               # a header's includer context, read first (porter/includers.py)
    context_from: str = ""          # "includer:line" it comes from


def make_config(**kwargs: object) -> ParseConfig:
    return ParseConfig(**{k: tuple(v) if isinstance(v, (list, tuple)) else v for k, v in kwargs.items()})  # type: ignore[arg-type]
