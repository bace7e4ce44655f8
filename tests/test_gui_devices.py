"""The window's devices field (gui/config_form.py): shown only where the engine sees several devices,
carried into the RunConfig (a run split over them, solvers/shards.py), refused beside the field for
an algorithm that cannot be split, and saved with the set-up."""
from __future__ import annotations

import pytest

pytest.importorskip("PyQt6")

from gui.config_form import ConfigForm  # noqa: E402
from solvers import config_io  # noqa: E402
from solvers.config import RunConfig  # noqa: E402
from solvers.engines import get_engine  # noqa: E402
from solvers.runner import Runner  # noqa: E402

pytestmark = pytest.mark.gui


@pytest.fixture
def two_devices(monkeypatch):
    """The numpy engine seen as two devices (its shards share the CPU, as '0,0' does)."""
    monkeypatch.setattr(type(get_engine("numpy")), "device_count", lambda self: 2)


def _form(qtbot, algorithm="pattern_search"):
    form = ConfigForm()
    qtbot.addWidget(form)
    form.engine_combo.setCurrentText("numpy")
    form._on_engine_combo_changed()  # re-read the device count (patched after the form was built)
    form.algorithm_combo.setCurrentIndex(form.algorithm_combo.findData(algorithm))
    return form


def test_hidden_with_one_device(qtbot):
    form = _form(qtbot)
    assert not form.devices_row.isVisibleTo(form) and not form.devices_label.isVisibleTo(form)
    assert form.devices() is None and form.build_config().devices is None


def test_all_devices_split_the_run_and_equal_one_device(qtbot, two_devices):
    form = _form(qtbot)
    assert form.devices_row.isVisibleTo(form)
    assert [form.devices_combo.itemText(i) for i in range(form.devices_combo.count())] == [
        "one (device 0)", "all 2 (numpy)"]
    form.budget_edit.setText("5")
    one = form.build_config()
    form.devices_combo.setCurrentIndex(1)
    split = form.build_config()
    assert split.devices == "all" and one.devices is None
    a, b = Runner(one).run(), Runner(split).run()
    assert (b.best_f, b.evals) == (a.best_f, a.evals)
    form.set_running(True)
    assert not form.devices_combo.isEnabled()
    form.set_running(False)
    assert form.devices_combo.isEnabled()


def test_an_algorithm_that_cannot_be_split_is_refused_beside_the_field(qtbot, two_devices):
    form = _form(qtbot, "multidirectional_search")  # (particle swarm splits by swarms since issue 15)
    form.devices_combo.setCurrentIndex(1)
    assert form.build_config() is None
    assert "cannot be split over devices" in form.devices_row.error
    form.devices_combo.setCurrentIndex(0)
    assert form.devices_row.error == ""  # cleared as soon as the choice changes
    assert form.build_config() is not None


def test_devices_saved_and_restored(qtbot, two_devices, tmp_path):
    form = _form(qtbot)
    form.devices_combo.setCurrentIndex(1)
    state, config = form.state(), form.build_config()
    assert state["devices"] == "all"
    other = _form(qtbot)
    other.set_state(state)
    assert other.devices() == "all"
    third = _form(qtbot)
    third.apply_config(config)
    assert third.build_config().devices == "all"
    third.apply_config(config.replace(devices=None))
    assert third.devices() is None
    path = config_io.save_config(config, tmp_path / "split.json")
    assert config_io.load_config(path) == config
    plain = RunConfig.build("pattern_search", "sphere", 2)
    path = config_io.save_config(plain, tmp_path / "plain.json")
    assert "devices" not in path.read_text() and config_io.load_config(path).devices is None
