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


# What the C side calls blanks (C's isspace): TRELLIS_RULES and TRELLIS_TOPOLOGY values
# are trimmed of them.
BLANKS = " \t\n\r\v\f"
PATH_BYTES_MAX, NAME_BYTES_MAX = 4095, 255  # Linux's PATH_MAX - 1 and NAME_MAX


def could_be_path(value: str) -> bool:
    """Whether `value` could name a file at all: no newline, at most 4095 bytes, no
    '/'-separated part over 255 bytes. As the C side's trl_could_be_path: text that could
    not is never looked up (the file system would answer "File name too long")."""
    raw = os.fsencode(value)
    return (b"\n" not in raw and len(raw) <= PATH_BYTES_MAX
            and all(len(part) <= NAME_BYTES_MAX for part in raw.split(b"/")))  # fmt: skip


def _exists(path: Path) -> bool:
    try:
        path.stat()
    except OSError:
        return False
    return True


def names_file(value: str, variable: str, cwd: Path | None = None) -> bool:
    """Whether TRELLIS_RULES or TRELLIS_TOPOLOGY (`variable`) set to `value` names a file,
    decided as the C side decides it (docs/rules.md, docs/topology.md): the value trimmed
    of blanks is a file name if it has no blank (for a layout, no '=' either: every
    layout has one), or if it could be a path and names something that exists (relative
    to cwd); otherwise it is the rules or the layout themselves."""
    name = value.strip(BLANKS)
    one_word = set(BLANKS + ("=" if variable == "TRELLIS_TOPOLOGY" else ""))
    if not name:
        return False
    if not one_word & set(name):
        return True
    return could_be_path(name) and _exists((cwd or Path.cwd()) / name)


def absolute_if_file(value: str, variable: str, cwd: Path | None = None) -> str:
    """The value for TRELLIS_RULES or TRELLIS_TOPOLOGY with a file that exists made
    absolute (ranks may start in another directory); text, or a name of nothing, as
    given."""
    if names_file(value, variable, cwd):
        path = (cwd or Path.cwd()) / value.strip(BLANKS)
        if _exists(path):
            return str(path.resolve())
    return value


_SIZE = re.compile(r"(\d+)([KMG]?)", re.IGNORECASE)
_SHIFT = {"": 0, "K": 10, "M": 20, "G": 30}


def parse_size(text: str) -> int:
    """Bytes as the rules language writes them: digits with an optional K, M or G suffix
    (powers of 1024; lower case accepted here too). Raises ValueError otherwise."""
    match = _SIZE.fullmatch(text.strip())
    if not match:
        raise ValueError(f"expected a size such as 4096, 64K or 1M, got {text!r}")
    return int(match.group(1)) << _SHIFT[match.group(2).upper()]
