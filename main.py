"""Multiwalk: opens the window, or runs a headless command (run, list, bench, ...)."""
import os
import signal
import sys


def _interrupted(signum=None, frame=None):
    """Ctrl+C anywhere (even while numpy imports): one line and exit code 130, never a traceback."""
    try:
        sys.stdout.flush()
    except Exception:  # noqa: BLE001 - a closed pipe must not turn this into a traceback
        pass
    os.write(2, b"main.py: interrupted\n")
    os._exit(130)  # no interpreter teardown: worker threads or half-imported modules cannot hang it


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


def _unraisable(hook_args) -> None:
    """An interrupt raised inside a C callback (llvmlite's object-cache hook while numba compiles)
    cannot propagate: Python prints "Exception ignored" with a traceback and the run goes on as if
    Ctrl+C had never been pressed. End it here, as an interrupt anywhere else ends."""
    if issubclass(hook_args.exc_type, KeyboardInterrupt):
        _interrupted()
    sys.__unraisablehook__(hook_args)


def install_interrupt_handlers() -> None:
    # Python's own handler raises KeyboardInterrupt, so `finally` blocks still remove temporary
    # files; caught in __main__, before any heavy import, it becomes one line. A second Ctrl+C exits at once.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    sys.unraisablehook = _unraisable


if __name__ == "__main__":
    install_interrupt_handlers()
    try:
        sys.exit(main(sys.argv[1:]))
    except KeyboardInterrupt:
        signal.signal(signal.SIGINT, _interrupted)
        _interrupted()
