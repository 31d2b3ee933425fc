"""porter's command line. Subcommands live in their own modules of this package and are imported only when used,
so that `porter analyze` starts fast and never imports torch or tilelang."""

from __future__ import annotations

import importlib
import signal
import sys
import traceback

import click

from porter import __version__

EXIT_INTERNAL = 3   # exit statuses: 0 clean, 1 findings or failed checks, 2 usage or input error, 3 porter's own bug
ISSUES_URL = "https://github.com/porter-hip/porter/issues"

# subcommand name -> "module:attribute" (a click.Command)
_COMMANDS: dict[str, str] = {
    "analyze": "porter.cli.analyze:analyze",
    "convert": "porter.cli.convert:convert",
    "emulate": "porter.cli.emulate:emulate",
    "rules": "porter.cli.rules:rules",
    "toolchain": "porter.cli.toolchain:toolchain",
    "verify": "porter.cli.verify:verify",
}


class _Terminated(BaseException):
    """SIGTERM, raised in the main thread so that cleanup (workers, temporary files) runs as for Ctrl-C."""


def _on_sigterm(signum: int, frame: object) -> None:
    raise _Terminated()


class _LazyGroup(click.Group):
    def invoke(self, ctx: click.Context) -> object:
        # click turns Ctrl-C into "Aborted!" and exit 1, which CI would read as "findings": say what happened
        # and use the shell's codes (130 for SIGINT, 143 for SIGTERM).
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
        try:
            from porter.report_formats import protect_actions_log   # inside the try: a Ctrl-C during the import is ours too
            protect_actions_log()
            return super().invoke(ctx)
        except KeyboardInterrupt:
            click.echo("\nporter: interrupted", err=True)
            sys.exit(130)
        except _Terminated:
            click.echo("porter: terminated", err=True)
            sys.exit(143)
        except (click.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except Exception:
            # a bug in porter, not a finding (1) nor bad input (2): CI must be able to tell them apart
            traceback.print_exc()
            click.echo(f"porter: internal error (exit {EXIT_INTERNAL}); please report it with the traceback above "
                       f"and the command line at {ISSUES_URL}", err=True)
            sys.exit(EXIT_INTERNAL)
        finally:
            signal.signal(signal.SIGTERM, previous)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(_COMMANDS)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        target = _COMMANDS.get(name)
        if target is None:
            return None
        module, attr = target.split(":")
        return getattr(importlib.import_module(module), attr)


@click.group(cls=_LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="porter")
def main() -> None:
    """porter: move CUDA kernels to AMD Instinct GPUs (gfx942, MI300X).

    \b
    porter analyze PATHS   find wave64 hazards and LDS bank conflicts in hipified code
    porter rules [ID]      explain a rule
    porter convert FILE    write an equivalent TileLang kernel for a recognized kernel
    porter verify MODULE   compile for gfx942, check numerics on a present GPU, time it
    porter toolchain       show or set up the gfx942 compiler toolchain

    Exit status: 0 clean, 1 findings (or a failed check), 2 usage or input error, 3 internal error (a bug in
    porter: the traceback is printed; please report it), 130/143 interrupted.
    """
