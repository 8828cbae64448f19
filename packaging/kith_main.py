"""The bundled app's entry point: `kith` with no arguments opens the window; with arguments it is the CLI."""
import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()
    from app.cli import run_cli

    if len(sys.argv) == 1 or sys.argv[1].startswith("-psn_"):  # a double-click (macOS adds -psn_… on old systems)
        sys.argv[1:] = ["gui"]
    run_cli()
