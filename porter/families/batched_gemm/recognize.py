"""batched_gemm: gemm's recognizer (porter/families/gemm/recognize.py) for a kernel with a batch index."""

from __future__ import annotations

from porter.convert.recognize import Candidate, KernelReading
from porter.families.gemm.recognize import candidate_of


def candidate(k: KernelReading) -> Candidate | None:
    return candidate_of(k) if k.f.uses_block_z else None
