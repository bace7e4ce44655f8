"""The speedup baseline chooser shared by the Compare engines and Speedup sweep tabs.

Speedups are ratios of rates measured in the same run (solvers/measure.py); the user picks which
CPU engine they are against: numpy (the readable reference) or numba (compiled, every core or one
core). Titles then name it with its thread count ("x vs numba, 16 threads").
"""
from __future__ import annotations

from PyQt6 import QtCore, QtWidgets

from solvers.engines import get_engine, list_engines, reference_engine

PREFERRED = "numba"  # the honest CPU baseline: compiled, on every core (issue 13)


def baseline_engines() -> list[str]:
    """CPU engines that can serve as a baseline here (available, not on a GPU)."""
    return [e for e in list_engines() if not get_engine(e).is_gpu and get_engine(e).available]


def baseline_combo() -> QtWidgets.QComboBox:
    """A combo of the baseline engines, numba on every core chosen where it runs, else numpy."""
    combo = QtWidgets.QComboBox()
    for engine in baseline_engines():
        combo.addItem(engine, engine)
        combo.setItemData(combo.count() - 1, get_engine(engine).title,
                         QtCore.Qt.ItemDataRole.ToolTipRole)
    names = baseline_engines()
    combo.setCurrentIndex(names.index(PREFERRED if PREFERRED in names else reference_engine().name))
    combo.setToolTip("The CPU engine every speedup is a ratio against (measured in the same run)")
    return combo


def baseline_words(engine: str, threads: int | None) -> tuple[str, str]:
    """(short label, tooltip) of a baseline: ("numba, 16 threads", "<CPU model>, 16 threads")."""
    e = get_engine(engine)
    return e.baseline_label(threads), f"{e.title}: {e.status()[1]}"
