"""Start the desktop application: ``main(argv)`` creates the QApplication, the window, the loop.

``argv`` are the command-line arguments after the program name (main.py passes its own). Options:
``--quit-after MS`` closes the window by itself after MS milliseconds (smoke tests, screenshots);
``--run`` starts a run with the remembered set-up as soon as the window is shown.
"""
from __future__ import annotations

import argparse
import sys

ORGANISATION = "Multiwalk"
APPLICATION = "Multiwalk"


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="main.py", description="Open the Multiwalk window.")
    parser.add_argument("--quit-after", type=int, metavar="MS", default=None,
                        help="close the window after MS milliseconds (stopping any run)")
    parser.add_argument("--run", action="store_true",
                        help="start a run with the remembered set-up when the window opens")
    # Qt's own options (-platform, -style...) pass through to QApplication
    args, _unknown = parser.parse_known_args(argv)
    if args.quit_after is not None and args.quit_after < 0:
        parser.error("--quit-after must be >= 0")
    return args


def main(argv: list[str] | None = None) -> int:
    """Run the window until it is closed; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    from PyQt6 import QtCore, QtWidgets  # noqa: PLC0415 - the headless CLI never imports Qt

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([sys.argv[0], *argv])
    app.setOrganizationName(ORGANISATION)
    app.setApplicationName(APPLICATION)
    from .main_window import MainWindow  # noqa: PLC0415

    window = MainWindow()
    window.show()
    if args.run:
        QtCore.QTimer.singleShot(0, window.start)
    if args.quit_after is not None:
        QtCore.QTimer.singleShot(args.quit_after, window.close)
    return int(app.exec())


if __name__ == "__main__":
    sys.exit(main())
