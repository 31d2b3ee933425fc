"""A template family is its folder plus one line in porter/families/__init__.py's FAMILIES: every registered
family's folder holds every piece, every family folder is registered, and porter's code outside the folders
names no family (it reads the registry)."""

from __future__ import annotations

import ast
import re
import tomllib
from pathlib import Path

import pytest

from porter import families
from porter.families import FAMILIES, FOLDER

PORTER = FOLDER.parent


@pytest.mark.parametrize("family", FAMILIES)
def test_family_folder_has_every_piece(family: str) -> None:
    folder = FOLDER / family
    manifest = tomllib.loads((folder / "manifest.toml").read_text())
    assert manifest["family"] == family
    assert re.match(r'\{% extends "(_common/base|\w+/kernel)\.py\.j2" %\}', (folder / "kernel.py.j2").read_text())
    assert callable(families.hooks(family, "recognize").candidate)
    verify = families.hooks(family, "verify")
    assert verify is None or callable(verify.reference_slice), "verify.py holds the hooks porter.verify reads"
    samples = families.samples(family)
    assert samples, f"{family}: no samples/*.hip"
    assert any(families.golden(s).is_file() for s in samples), f"{family}: no sample with a golden module"
    assert all(families.sample(families.sample_ref(s)) == s for s in samples)


def test_every_family_folder_is_registered() -> None:
    folders = {p.name for p in FOLDER.iterdir() if p.is_dir() and (p / "manifest.toml").exists()}
    assert folders == set(FAMILIES)
    assert (FOLDER / "_common" / "base.py.j2").is_file() and not (FOLDER / "_common" / "manifest.toml").exists()


def test_each_recognizer_makes_its_own_familys_candidate() -> None:
    """The registry loop asks every family; each answers for itself only (gemm and batched_gemm share one
    recognizer and split by the batch index: exactly one of them answers)."""
    from porter.convert.recognize import features, kernels, read
    from porter.fact_queries import FileView
    from porter.frontend import analyze_file
    from porter.frontend_config import make_config

    for path in (families.sample("gemm/gemm_naive.hip"), families.sample("batched_gemm/bgemm_naive.hip")):
        facts = analyze_file(path, make_config())
        fv = FileView(facts)
        view = fv.kernel_by_name(kernels(facts)[0])[0]
        k = read(features(fv, view), facts)
        answers = {fam: families.hooks(fam, "recognize").candidate(k) for fam in FAMILIES}
        assert all(c is None or c.family == fam for fam, c in answers.items())
        assert sum(answers[f] is not None for f in ("gemm", "batched_gemm")) == 1
        assert sum(c is not None for c in answers.values()) == len(FAMILIES) - 1


def _names_a_family(path: Path) -> list[str]:
    """String constants in code (not docstrings) equal to a family's name."""
    text = path.read_text()
    if not any(f'"{f}"' in text or f"'{f}'" in text for f in FAMILIES):
        return []
    tree = ast.parse(text)
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    return [f"{path.relative_to(PORTER.parent)}:{n.lineno}: {n.value!r}" for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and n.value in FAMILIES and id(n) not in docs]


def test_no_code_outside_the_family_folders_names_a_family() -> None:
    found = [hit for p in sorted(PORTER.rglob("*.py")) if FOLDER not in p.parents and p.parent != FOLDER
             for hit in _names_a_family(p)]
    assert not found, "branch on the family through a hook in its folder instead:\n" + "\n".join(found)


def test_families_readme_table_is_the_generated_one() -> None:
    from click.testing import CliRunner

    from porter.cli import main
    text = (FOLDER / "README.md").read_text()
    res = CliRunner().invoke(main, ["convert", "--list-templates", "--table"])
    assert res.exit_code == 0, res.output
    assert res.output.strip() in text, "regenerate the table with `porter convert --list-templates --table`"
    rows = re.findall(r"^\| (\w+) \|", res.output, re.M)
    assert sorted(r for r in rows if r != "family") == sorted(FAMILIES)
