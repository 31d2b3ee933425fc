"""Read `// expect: ID`, `// ok: ID` and `// todo: ID` annotations from sample files. An annotation applies to the
next line that is not itself an annotation."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from porter import families

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = ROOT / "samples"
_ANNOT = re.compile(r"//\s*(expect|ok|todo):\s*([A-Z0-9]+-[0-9]+(?:\s*,\s*[A-Z0-9]+-[0-9]+)*)")


@dataclass(frozen=True)
class Annotation:
    path: Path
    kind: str          # expect | ok | todo
    rule_id: str
    line: int          # the line the annotation applies to

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}:{self.kind}:{self.rule_id}"


def sample_files() -> list[Path]:
    """The rule samples under samples/ and every template family's (porter/families/<family>/samples/)."""
    return sorted([p for p in SAMPLES.rglob("*") if p.suffix in (".hip", ".cu", ".cuh")] + families.samples())


def annotations(path: Path) -> list[Annotation]:
    lines = path.read_text().splitlines()
    out: list[Annotation] = []
    pending: list[tuple[str, str]] = []
    for number, line in enumerate(lines, 1):
        found = _ANNOT.findall(line)
        if found and line.strip().startswith("//"):
            pending += [(kind, rid.strip()) for kind, ids in found for rid in ids.split(",")]
            continue
        if pending and line.strip():
            out += [Annotation(path, kind, rid, number) for kind, rid in pending]
            pending = []
    return out
