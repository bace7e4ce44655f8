"""Multiwalk: opens the window, or runs a headless command (run, list, bench, ...)."""
from __future__ import annotations

import sys

def main(argv: list[str]) -> int:
    # a command word (or help) means headless; no arguments or only window options open the window
    if argv and (not argv[0].startswith("-") or argv[0] in ("-h", "--help")):
        from solvers.cli import main as cli_main

        return cli_main(argv)
    try:
        from gui.app import main as gui_main
    except ImportError as exc:
        print(f"main.py: error: the window needs PyQt6 and pyqtgraph ({exc}); install them with "
              "'pip install -r requirements.txt', or use the headless 'python main.py run ...'",
              file=sys.stderr)
        return 2
    return gui_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
