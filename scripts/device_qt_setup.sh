# Source on the GPU machine: `source scripts/device_qt_setup.sh .device-qt` (scripts/device_check.sh
# does it). A copy of ../shared/tools/device-qt/setup.sh, kept in the repository because ../shared
# is not carried to the GPU machine; .device-qt is built here by ../shared/tools/device-qt/build.sh.
# Unpacks the carried Qt, supplies only the system libraries that machine lacks, sets the Qt environment.
_dq=${1:-.device-qt}; _t=$(mktemp -d)
tar -xJf "$_dq/qt.tar.xz" -C "$_t" && tar -xJf "$_dq/syslibs.tar.xz" -C "$_t" && mkdir -p "$_t/need"
for _f in "$_t"/syslibs/*.so*; do _b=$(basename "$_f"); ldconfig -p | grep -q " $_b " || ln -sf "$_f" "$_t/need/$_b"; done
export PYTHONPATH="$_t/site${PYTHONPATH:+:$PYTHONPATH}" LD_LIBRARY_PATH="$_t/need${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export QT_QPA_PLATFORM=offscreen QT_QPA_FONTDIR="$_t/syslibs/fonts"
"${PYTHON:-python3}" -c "from PyQt6.QtWidgets import QApplication; import pyqtgraph, pytestqt; print('Qt ready on this machine: pyqtgraph', pyqtgraph.__version__)"
