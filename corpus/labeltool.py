"""Helpers for writing labels (needs the materialized corpus).

    python corpus/labeltool.py show SNAPSHOT PATH [FIRST-LAST]   print numbered lines to read
    python corpus/labeltool.py fill corpus/labels/X.toml          replace "?" hashes by the real ones

`fill` writes the file's sha256 and each label's stripped-line sha256 where the labels file says "?"; it never
changes a hash that is already there (a wrong one is an error for the integrity test and materialize.py)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpusdata import Corpus, file_hash, line_hash, load_sources  # noqa: E402
from materialize import materialize  # noqa: E402

_KV = re.compile(r'^(\s*)(snapshot|path|line|sha256|text_sha256)\s*=\s*(.+?)\s*$')


def _root(snapshot: str) -> Path:
    snaps = load_sources()
    m = materialize(Corpus(snapshots=snaps), only={snapshot})
    if snapshot not in m.roots:
        sys.exit(f"labeltool: {snapshot}: {m.unavailable.get(snapshot, 'unknown snapshot')}")
    return m.roots[snapshot]


def show(snapshot: str, path: str, span: str | None) -> None:
    lines = (_root(snapshot) / path).read_text(errors="replace").splitlines()
    a, b = (1, len(lines)) if not span else (int(x) for x in span.split("-"))
    for n in range(a, min(b, len(lines)) + 1):
        print(f"{n:5d}  {lines[n - 1]}")


def fill(labels: Path) -> None:
    out, snap, path, text, line = [], None, None, None, None
    roots: dict[str, Path] = {}
    for raw in labels.read_text().splitlines():
        m = _KV.match(raw)
        if m:
            indent, key, value = m.groups()
            if key == "snapshot":
                snap, text = value.strip('"'), None
            elif key == "path":
                path = value.strip('"')
                if snap not in roots:
                    roots[snap] = _root(snap)
                data = (roots[snap] / path).read_bytes()
                text = data.decode(errors="replace").splitlines()
                digest = file_hash(data)
            elif key == "line":
                line = int(value.split("#")[0])
            elif key == "sha256" and value == '"?"':
                raw = f'{indent}sha256 = "{digest}"'
            elif key == "text_sha256" and value == '"?"':
                raw = f'{indent}text_sha256 = "{line_hash(text[line - 1])}"'
        out.append(raw)
    labels.write_text("\n".join(out) + "\n")


def main() -> int:
    if len(sys.argv) >= 4 and sys.argv[1] == "show":
        show(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
    elif len(sys.argv) == 3 and sys.argv[1] == "fill":
        fill(Path(sys.argv[2]))
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
