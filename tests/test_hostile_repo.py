"""Issue 13, done-when: porter's documented CI invocations (README "Review pull requests", docs/github-actions.md,
.pre-commit-hooks.yaml), run from the root of a checkout full of planted files, execute nothing, forge no
workflow command, leak no file from outside the checkout, and write nothing but their output."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import hostile

PORTER = [sys.executable, "-c", "import sys; from porter.cli import main; sys.exit(main())"]
SECRET = "PORTER_SECRET_5ca1ab1e"


def _tree(root: Path) -> dict[str, str]:
    """Every file and link under root -> a hash of what it is (content, link target or kind)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            if p.is_symlink():
                out[str(p)] = "link:" + os.readlink(p)
            elif p.is_file():
                out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest()
            else:
                out[str(p)] = "dir"
    return out


def _hostile_checkout(root: Path, marker: Path, secret: Path) -> None:
    hostile.git_repo_with_hostile_config(root, marker)           # .git/config and hooks that run programs;
    # the rest is the pull request's: new files, untracked here (--diff reports those as wholly changed)
    hostile.plant_libraries(root, marker)                         # librt.so.1 & co. at the root and below it
    hostile.plant_forged_commands(root)                           # `::` in names, static_assert and #error
    hostile.host_code_kernel(root, marker)                        # constructors, static objects, system()
    hostile.leaking_include(root, secret)                         # a diagnostic quoting a file outside
    db = [{"directory": str(root), "file": "k.hip", "command": f"touch {marker} && cc -DX=`touch {marker}` -c k.hip"},
          {"directory": str(root), "file": "new.hip", "arguments": ["sh", "-c", f"touch {marker}"]}]
    hostile.write(root / "compile_commands.json", json.dumps(db))
    hostile.write(root / "pyproject.toml",
                  '[tool.porter]\ncompile-commands = "compile_commands.json"\ninclude = ["/proc/self", "/etc"]\n'
                  f'define = ["X=1\\n{hostile.FORGED}", "Y=$(touch {marker})"]\n')


def test_documented_ci_invocations_in_a_hostile_checkout(tmp_path: Path) -> None:
    marker = Path(f"/tmp/porter_pwned_{uuid.uuid4().hex}")
    secret = tmp_path / "outside" / "secret.txt"
    hostile.write(secret, f"{SECRET}\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    _hostile_checkout(repo, marker, secret)
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, GITHUB_ACTIONS="true", HOME=str(home), GITHUB_TOKEN="ghs_" + SECRET)
    before, outside_before = _tree(repo), _tree(tmp_path / "outside")
    changed = sorted(str(p.relative_to(repo)) for p in repo.glob("*.hip"))
    runs = [  # docs/github-actions.md, then the pre-commit hook (pre-commit passes the changed files)
        ["analyze", ".", "--diff", "main", "--format", "sarif", "-o", "porter.sarif", "--fail-on", "never"],
        ["analyze", ".", "--diff", "main", "--format", "github", "--fail-on", "error"],
        ["analyze", "--quiet", *changed],
    ]
    results = [subprocess.run(PORTER + args, cwd=repo, env=env, capture_output=True, text=True, timeout=300)
               for args in runs]
    for args, proc in zip(runs, results):
        assert "Traceback" not in proc.stderr, (args, proc.stderr)
        assert not marker.exists(), (args, marker.read_text())
        assert not hostile.forged_commands(proc.stdout + "\n" + proc.stderr), (args, proc.stdout, proc.stderr)
        assert SECRET not in proc.stdout + proc.stderr, (args, proc.stdout, proc.stderr)
    assert [p.returncode for p in results] == [0, 1, 1], [(p.returncode, p.stderr[-500:]) for p in results]
    sarif = json.loads((repo / "porter.sarif").read_text())
    assert SECRET not in (repo / "porter.sarif").read_text()
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in sarif["runs"][0]["results"]}
    assert {"k.hip", "new.hip", "host_code.hip"} <= uris, uris
    annotations = [ln for ln in results[1].stdout.splitlines() if ln.startswith("::")]
    assert len(annotations) >= len(hostile.FORGED_NAMES) + 2, results[1].stdout
    # nothing written but the report: the checkout (.git included) and the folder outside are as they were,
    # and in HOME only porter's own cache
    after = _tree(repo)
    assert {k: v for k, v in after.items() if not k.endswith("porter.sarif")} == before
    assert _tree(tmp_path / "outside") == outside_before
    assert all(Path(p).relative_to(home).parts[:2] in ((".cache",), (".cache", "porter")) for p in _tree(home))
