"""Why an engine cannot run here, in words a teacher can read aloud (and what would fix it).

The engine layer reports the exact cause (a driver error, a missing package); the window shows
this plain sentence in its tabs and keeps the exact cause in a tooltip for whoever must fix it.
"""
from __future__ import annotations

# (substring of the engine layer's reason, plain cause, what would make the engine available)
_CAUSES = (
    ("CuPy is not installed", "the CuPy package is not installed",
     "install it with 'pip install cupy-cuda13x' on a machine with an NVIDIA GPU"),
    ("InsufficientDriver", "this machine has no NVIDIA GPU driver recent enough for CUDA",
     "run on a machine with an NVIDIA GPU and a current NVIDIA driver"),
    ("older than", "the NVIDIA driver is too old for the installed CUDA",
     "update the NVIDIA driver"),
    ("no CUDA device", "no NVIDIA GPU was found",
     "run on a machine with an NVIDIA GPU"),
    ("no CUDA driver", "no NVIDIA GPU or driver was found",
     "run on a machine with an NVIDIA GPU and its driver"),
    ("could not be opened", "the NVIDIA GPU is busy or could not be opened",
     "close other programs using the GPU, or check the driver"),
)


def plain_reason(reason: str) -> str:
    """The cause of an engine's unavailability without driver jargon (unknown causes unchanged)."""
    for key, cause, _fix in _CAUSES:
        if key in reason:
            return cause
    return reason


def gpu_explanation(reason: str) -> str:
    """Two sentences for a tab: why the GPU engines are unavailable and what would change that."""
    for key, cause, fix in _CAUSES:
        if key in reason:
            return (f"The GPU engines (cupy, cuda) are unavailable: {cause}. To use them, {fix}; "
                    "the numpy engine runs here meanwhile.")
    return (f"The GPU engines (cupy, cuda) are unavailable: {reason}. "
            "The numpy engine runs here meanwhile.")


TIMING_NOTE = ("Timings exclude kernel compilation and warm-up: the cuda engine compiles its kernels "
               "(first use; cached on disk, see 'python main.py warmup') before its clock starts.")


def gpu_notice_label(status: tuple[bool, str]):
    """A label for the top of a GPU panel: why the GPU engines are unavailable and what would make
    them available (hidden when they are available); the exact cause in its tooltip."""
    from PyQt6 import QtWidgets  # noqa: PLC0415 - this module's text helpers stay Qt-free

    ok, reason = status
    label = QtWidgets.QLabel(gpu_explanation(reason))
    label.setWordWrap(True)
    label.setStyleSheet("background: #1d3a5a; color: #d8e8ff; padding: 6px;")
    label.setToolTip(f"exact cause: {reason}")
    label.setVisible(not ok)
    return label
