"""Start the desktop application: ``main(argv)`` creates the QApplication, the window, the loop.

``argv`` are the command-line arguments after the program name (main.py passes its own). Options:
``--quit-after MS`` closes the window by itself after MS milliseconds (smoke tests, screenshots);
``--run`` starts a run with the remembered set-up as soon as the window is shown. The very first
start (no saved settings) shows a classroom preset at its watching pace.
"""
from __future__ import annotations

import argparse
import os
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


def missing_display(argv: list[str], environ=os.environ, platform: str = sys.platform) -> str:
    """One line saying why no window can open here, or "" when a display should be there.

    Without this check Qt aborts (exit 134) with several lines about the xcb plugin."""
    if not platform.startswith("linux") or "-platform" in argv:
        return ""
    qpa = environ.get("QT_QPA_PLATFORM", "")
    if qpa and not qpa.startswith(("xcb", "wayland")):
        return ""  # offscreen, minimal, vnc, eglfs...: no display needed
    if environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"):
        return ""
    return ("main.py: error: no display was found (DISPLAY and WAYLAND_DISPLAY are unset); run the "
            "window offscreen with QT_QPA_PLATFORM=offscreen, or headless with 'python main.py run ...'")


def main(argv: list[str] | None = None) -> int:
    """Run the window until it is closed; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = parse_args(argv)
    problem = missing_display(argv)
    if problem:
        print(problem, file=sys.stderr)
        return 2
    from PyQt6 import QtCore, QtWidgets  # noqa: PLC0415 - the headless CLI never imports Qt

    from .error_dialog import install_excepthook  # noqa: PLC0415

    install_excepthook()
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([sys.argv[0], *argv])
    app.setOrganizationName(ORGANISATION)
    app.setApplicationName(APPLICATION)
    from .main_window import MainWindow  # noqa: PLC0415

    window = MainWindow()
    if not window.restored_settings:
        window.first_launch()  # a classroom preset at its pace, not a 0.2 s flash
    window.show()
    if args.run:
        QtCore.QTimer.singleShot(0, window.start)
    if args.quit_after is not None:
        QtCore.QTimer.singleShot(args.quit_after, window.close)
    return int(app.exec())


if __name__ == "__main__":
    sys.exit(main())
