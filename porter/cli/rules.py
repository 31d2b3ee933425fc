"""`porter rules [ID]`: list the rules, or print one rule's documentation."""

from __future__ import annotations

import textwrap

import click

from porter.resources import data_dir
from porter.targets import known_targets, load_target


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("rule_id", required=False)
@click.option("--table", is_flag=True, help="Print the rule list as a Markdown table (as in README.md).")
def rules(rule_id: str | None, table: bool) -> None:
    """List porter's rules, or explain rule RULE_ID (what it finds, why it is wrong on gfx942, the fix,
    a bad and a good example).

    \b
    Examples:
      porter rules              # one line per rule
      porter rules W64-003      # the full documentation of one rule
    """
    from porter.ruleset import load_rules, rule_by_id

    if table:
        click.echo(markdown_table(load_rules()), nl=False)
        return
    if rule_id is None:
        for r in load_rules():
            click.echo(f"{r.id:<9} {r.severity:<8} {r.category:<7} {r.title}")
        return
    rule = rule_by_id(rule_id.upper())
    if rule is None:
        known = ", ".join(r.id for r in load_rules())
        raise click.UsageError(f"unknown rule '{rule_id}' (known: {known})")
    click.echo(doc(rule))


def doc(rule) -> str:  # type: ignore[no-untyped-def]
    """The rule's documentation, in fixed sections."""
    parts = [f"{rule.id}: {rule.title}", f"category: {rule.category}   severity: {rule.severity}   "
             f"confidence: {rule.confidence}   applies to: {_applies(rule)}", "", "What it finds and why it is wrong on gfx942", "",
             textwrap.fill(" ".join(rule.why.split()), 100), "", "Fix", "", textwrap.fill(" ".join(rule.fix.split()), 100),
             "", "Bad", "", textwrap.indent(rule.bad.strip("\n"), "    "), "", "Good", "",
             textwrap.indent(rule.good.strip("\n"), "    ")]
    if rule.references:
        parts += ["", "References", ""] + [f"  - {_locate(r)}" for r in rule.references]
    return "\n".join(parts)


def _applies(rule) -> str:  # type: ignore[no-untyped-def]
    if not rule.applies_to:
        return "every target"
    names = [t for t in known_targets() if rule.applies(load_target(t))]
    need = ", ".join(f"{k} = {v}" for k, v in rule.applies_to)
    return f"targets with {need} ({', '.join(names) or 'none listed'})"


def _locate(reference: str) -> str:
    """A reference to porter's own docs/ names the file as installed, so the reader can open it."""
    if not reference.startswith("docs/"):
        return reference
    name, _, section = reference[len("docs/"):].partition(" ")
    return f"{data_dir('docs') / name} {section}".rstrip()


def markdown_table(rules) -> str:  # type: ignore[no-untyped-def]
    lines = ["| id | category | severity | title |", "|---|---|---|---|"]
    lines += [f"| {r.id} | {r.category} | {r.severity} | {r.title} |" for r in rules]
    return "\n".join(lines) + "\n"
