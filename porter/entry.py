"""The `porter` console script. Importing the command line (click and porter.cli) takes a moment after the
interpreter has started; a Ctrl-C in that moment must end porter as one during a run does (exit 130, one line),
not with a traceback, so the import happens inside the handler."""

from __future__ import annotations

import sys


def run() -> None:
    try:
        from porter.cli import main
    except KeyboardInterrupt:
        sys.stderr.write("\nporter: interrupted\n")
        sys.exit(130)
    main()
