"""Rule references to porter's own docs name a file that ships with porter and a heading that exists in it."""

import re

from click.testing import CliRunner

from porter.cli import main
from porter.resources import data_dir
from porter.ruleset import load_rules


def test_every_docs_reference_names_an_existing_heading() -> None:
    seen = 0
    for rule in load_rules():
        for ref in rule.references:
            assert "shared/FACTS" not in ref, f"{rule.id}: cites a file users do not have: {ref}"
            m = re.fullmatch(r"docs/(\S+) '([^']+)'.*", ref)
            if not ref.startswith("docs/"):
                continue
            assert m, f"{rule.id}: docs reference without a quoted heading: {ref}"
            text = (data_dir("docs") / m.group(1)).read_text()
            assert re.search(rf"^#+ {re.escape(m.group(2))}$", text, re.M), f"{rule.id}: no heading {m.group(2)!r}"
            seen += 1
    assert seen >= len(load_rules())     # every rule cites the hardware facts it rests on


def test_rules_command_prints_where_the_facts_are() -> None:
    out = CliRunner().invoke(main, ["rules", "W64-003"]).output
    path = data_dir("docs") / "hardware.md"
    assert f"{path} 'Cross-lane operations on a 64-lane wavefront'" in out


def test_a_rule_names_only_target_fields_it_can_be_checked_against(tmp_path, monkeypatch) -> None:
    import pytest

    from porter import ruleset
    src = (data_dir("rules") / "W64-001.toml").read_text().replace("applies_to = { wave_size = 64 }",
                                                                   "applies_to = { lanes = 64 }")
    (tmp_path / "W64-001.toml").write_text(src)
    with pytest.raises(ruleset.RuleError, match="applies_to takes target fields"):
        ruleset._load(tmp_path / "W64-001.toml")
