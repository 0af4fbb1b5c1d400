"""Shared fixtures for the `trellis` command's tests.

The tests need the C build (build/, or $TRELLIS_BUILD) and the package installed into
the virtual environment: scripts/setup.sh makes both. Nothing here skips when they are
missing: the tests fail and say so.
"""

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

# Variables that change what the command does; each test starts without them.
CONFIG_PREFIX = "TRELLIS_"
KEEP = frozenset({"TRELLIS_BUILD"})


@pytest.fixture(autouse=True)
def clean_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(CONFIG_PREFIX) and name not in KEEP:
            monkeypatch.delenv(name)
    # `trellis run` keeps an inherited LD_PRELOAD after its own: start without one.
    monkeypatch.delenv("LD_PRELOAD", raising=False)


@pytest.fixture(scope="session")
def trellis_exe() -> Path:
    """The installed console command, beside the interpreter running the tests."""
    exe = Path(sys.executable).parent / "trellis"
    assert exe.is_file(), f"{exe} is missing: run scripts/setup.sh"
    return exe


RunTrellis = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture
def run_trellis(trellis_exe: Path) -> RunTrellis:
    """Run `trellis ARGS` as a user would; returns the completed process."""

    def run(
        *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(trellis_exe), *args],
            capture_output=True,
            text=True,
            env={**os.environ, **(env or {})},
            cwd=cwd,
            check=False,
            timeout=120,
        )

    return run
