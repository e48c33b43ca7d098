"""The `harness-evo` command: Ctrl-C while the program is still starting (its imports take a second or two) is the
same one-line notice as later, not a traceback."""

import sys

INTERRUPTED = 130


def main() -> None:
    try:
        from harness_evo.cli import main as run
    except KeyboardInterrupt:
        sys.stderr.write("interrupted before anything started; nothing was recorded\n")
        sys.exit(INTERRUPTED)
    run()
