"""The README's two commands are the ones CI runs and that a fresh clone supports."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _readme_commands():
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```(?:bash|sh)\n(.*?)```", text, flags=re.S)
    return [b.strip() for b in blocks]


def test_ci_runs_the_readme_test_command():
    commands = _readme_commands()
    assert len(commands) >= 2, "README needs a set-up/start command and a test command"
    test_cmd = commands[1]
    ci = (ROOT / ".ci" / "run").read_text()
    assert test_cmd in ci, f"CI must run the README's test command: {test_cmd}"


def test_readme_setup_installs_requirements_and_starts_the_program():
    setup = _readme_commands()[0]
    assert "requirements.txt" in setup and "main.py" in setup
