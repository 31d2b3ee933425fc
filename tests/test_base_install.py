"""The base install (`pip install porter`: libclang, click, jinja2, numpy) must be enough for `porter --help` and
every subcommand's `--help`; torch and tilelang come only with the `convert` extra."""

import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# import name of each base dependency (and what those import themselves)
_BASE_IMPORTS = {"libclang": ["clang"], "click": ["click"], "jinja2": ["jinja2", "markupsafe"], "numpy": ["numpy"]}

_PROBE = """
import importlib.abc, sys
allowed = set(sys.argv[1].split(","))
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        top = name.split(".")[0]
        if top in sys.stdlib_module_names or top in allowed or top == "porter" or top.startswith("_"):
            return None
        raise ImportError(f"{name} is not a base dependency")
sys.meta_path.insert(0, Block())
from click.testing import CliRunner
from porter.cli import main, _COMMANDS
runner = CliRunner()
for args in [["--help"]] + [[c, "--help"] for c in sorted(_COMMANDS)]:
    r = runner.invoke(main, args)
    if r.exit_code != 0:
        print("FAILED", args, r.output, repr(r.exception))
        sys.exit(1)
print("ok")
"""


def test_help_needs_only_the_base_dependencies() -> None:
    deps = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    names = {d.split("=")[0].split(">")[0].split("<")[0].strip() for d in deps}
    assert names == set(_BASE_IMPORTS), names
    allowed = ",".join(m for mods in _BASE_IMPORTS.values() for m in mods)
    proc = subprocess.run([sys.executable, "-c", _PROBE, allowed], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0 and proc.stdout.strip().endswith("ok"), proc.stdout + proc.stderr
