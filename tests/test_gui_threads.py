"""The window's threads field (gui/config_form.py): only where the engine lets the user choose a
thread count (numba on every core), carried into the RunConfig and saved with the form's state."""
from __future__ import annotations

import pytest

pytest.importorskip("PyQt6")

from gui.config_form import ConfigForm  # noqa: E402
from solvers.engines import get_engine  # noqa: E402

pytestmark = pytest.mark.gui


@pytest.fixture
def form(qtbot):
    if not get_engine("numba").available:
        pytest.skip("numba is not installed")
    form = ConfigForm()
    qtbot.addWidget(form)
    return form


def test_threads_field_follows_the_engine(form):
    form.engine_combo.setCurrentText("numpy")
    assert not form.threads_spin.isEnabled()
    form.engine_combo.setCurrentText("numba1")  # one core by definition: nothing to choose
    assert not form.threads_spin.isEnabled()
    form.engine_combo.setCurrentText("numba")
    assert form.threads_spin.isEnabled()
    assert form.threads_spin.maximum() == get_engine("numba").max_threads()
    assert form.threads_spin.value() == 0 and form.threads_spin.text() == "all cores"
    assert form.build_config().threads is None
    form.threads_spin.setValue(1)
    assert form.build_config().threads == 1
    form.set_running(True)
    assert not form.threads_spin.isEnabled()
    form.set_running(False)
    assert form.threads_spin.isEnabled()
    form.engine_combo.setCurrentText("numpy")
    assert form.build_config().threads is None  # numpy has no threads to set


def test_threads_saved_and_restored_with_the_set_up(form, qtbot):
    form.engine_combo.setCurrentText("numba")
    form.threads_spin.setValue(1)
    state = form.state()
    config = form.build_config()
    other = ConfigForm()
    qtbot.addWidget(other)
    other.set_state(state)
    assert other.engine() == "numba" and other.threads_spin.value() == 1
    third = ConfigForm()
    qtbot.addWidget(third)
    third.apply_config(config)
    assert third.build_config().threads == 1
    third.apply_config(config.replace(threads=None))
    assert third.threads_spin.value() == 0 and third.build_config().threads is None
