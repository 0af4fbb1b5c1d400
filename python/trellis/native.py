"""Where the C build is, and calls into its `trellis-info` tool.

The algorithm table, the rules and the schedules exist once, in C; this module only
finds the build and runs the tool. The build is the repository's `build/` directory,
or the directory named by the environment variable TRELLIS_BUILD.
"""

import os
import re
import subprocess
from pathlib import Path

INFO_TOOL = "trellis-info"
LIBRARY = "libtrellis.so"


class TrellisError(Exception):
    """An error for the user: printed as it is, and the command exits with `status`."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def repo_root() -> Path:
    """The repository this package is installed from (editable install)."""
    return Path(__file__).resolve().parents[2]


def build_dir() -> Path:
    """The C build directory: $TRELLIS_BUILD, or the repository's build/."""
    env = os.environ.get("TRELLIS_BUILD")
    return Path(env).resolve() if env else repo_root() / "build"


def built_file(name: str) -> Path:
    """A file of the C build, or a TrellisError saying how to get it."""
    path = build_dir() / name
    if not path.is_file():
        raise TrellisError(
            f"trellis: {path} is missing: run scripts/setup.sh to build Trellis "
            "(or set TRELLIS_BUILD to the build directory)"
        )
    return path


def library() -> Path:
    """The absolute path of libtrellis.so, for LD_PRELOAD."""
    return built_file(LIBRARY).resolve()


def info(*args: str) -> str:
    """Run `trellis-info ARGS` and return its standard output.

    A failure becomes a TrellisError with the tool's own message (which already starts
    with "trellis: ") and its exit status (2 for bad arguments and rules errors).
    """
    tool = built_file(INFO_TOOL)
    proc = subprocess.run([str(tool), *args], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        message = proc.stderr.strip() or f"trellis: {INFO_TOOL} failed ({proc.returncode})"
        raise TrellisError(message, proc.returncode)
    return proc.stdout


_SIZE = re.compile(r"(\d+)([KMG]?)", re.IGNORECASE)
_SHIFT = {"": 0, "K": 10, "M": 20, "G": 30}


def parse_size(text: str) -> int:
    """Bytes as the rules language writes them: digits with an optional K, M or G suffix
    (powers of 1024; lower case accepted here too). Raises ValueError otherwise."""
    match = _SIZE.fullmatch(text.strip())
    if not match:
        raise ValueError(f"expected a size such as 4096, 64K or 1M, got {text!r}")
    return int(match.group(1)) << _SHIFT[match.group(2).upper()]
