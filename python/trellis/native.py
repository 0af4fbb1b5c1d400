"""Where Trellis' C parts are, and calls into its `trellis-info` tool.

The algorithm table, the rules and the schedules exist once, in C; this module only
finds them and runs the tool. The library (libtrellis.so, which `trellis run` preloads)
is the first of, in this order:

1. $TRELLIS_LIB, the library file itself;
2. next to this package (trellis/libtrellis.so, as a package that bundles it has it);
3. the install prefix's lib: `cmake --install build --prefix P` puts it in P/lib (or
   P/lib64, P/lib/<multiarch>), P being the prefix the command is installed in too
   (`pip install .` into a virtual environment P, or P=/usr/local);
4. the build tree: $TRELLIS_BUILD, or in a source checkout build/ (Open MPI) and
   build-mpich/ (MPICH).

When an MPI is named (`--mpi`, TRELLIS_MPI), a library built for another MPI is passed
over (and $TRELLIS_LIB must be built for it). trellis-info is found the same way: next
to the package, P/bin, the build tree. Programs of the build tree (bench/latency) come
from the build tree only.
"""

import os
import re
import subprocess
import sys
import sysconfig
from pathlib import Path

from trellis import mpi_impl

INFO_TOOL = "trellis-info"
LIBRARY = "libtrellis.so"
LIB_VARIABLE = "TRELLIS_LIB"


class TrellisError(Exception):
    """An error for the user: printed as it is, and the command exits with `status`."""

    def __init__(self, message: str, status: int = 1) -> None:
        super().__init__(message)
        self.status = status


def repo_root() -> Path:
    """The repository this package is installed from (editable install)."""
    return Path(__file__).resolve().parents[2]


def source_checkout() -> Path | None:
    """The source checkout this package runs from, if it does (editable install)."""
    root = repo_root()
    return root if (root / "CMakeLists.txt").is_file() and (root / "src").is_dir() else None


def build_dir(mpi: str | None = None) -> Path:
    """The C build directory: $TRELLIS_BUILD, or the checkout's build tree for the MPI
    (build/ for Open MPI, the default)."""
    env = os.environ.get("TRELLIS_BUILD")
    if env:
        return Path(env).resolve()
    name = mpi_impl.get(mpi or mpi_impl.DEFAULT).build_dir
    return (source_checkout() or repo_root()) / name


def how_to_build() -> str:
    """What to do when a part of the C build is missing: in a source checkout, build it;
    installed without it (`pip install .` alone), install it into this prefix."""
    if os.environ.get("TRELLIS_BUILD"):
        return "TRELLIS_BUILD names a build directory without it: build it there, or unset it"
    if source_checkout() is not None:
        return "run scripts/setup.sh to build Trellis (or set TRELLIS_BUILD to a build directory)"
    return (f"this trellis command is installed without Trellis' C part: in a source checkout, "
            f"after scripts/setup.sh, run cmake --install build --prefix {prefixes()[0]} "
            "(docs/install.md), or set TRELLIS_BUILD to a build directory")  # fmt: skip


def missing(what: str, searched: list[Path]) -> TrellisError:
    """The error for a part of the C build found nowhere: every place looked, and what to
    do."""
    where = ", ".join(str(p) for p in searched) or "nowhere (no build tree known)"
    return TrellisError(f"trellis: no {what}: looked in {where}; {how_to_build()}")


def built_file(name: str, mpi: str | None = None) -> Path:
    """A file of the C build tree (programs such as bench/latency live there only), or a
    TrellisError saying where it looked and how to get it."""
    trees = _build_trees(mpi)[:1]
    for tree in trees:
        if (tree / name).is_file():
            return tree / name
    raise missing(f"{name} (of the build tree)", [tree / name for tree in trees])


def prefixes() -> list[Path]:
    """Where the command is installed: sys.prefix, and the prefix of this package's
    site-packages when it lies elsewhere (pip install --prefix)."""
    found = [Path(sys.prefix)]
    here = Path(__file__).resolve().parent
    if here.parent.name in {"site-packages", "dist-packages"}:
        found.append(here.parents[3])  # P/lib/pythonX.Y/site-packages/trellis
    return list(dict.fromkeys(found))


def _installed(subdirs: list[str], name: str) -> list[Path]:
    return [prefix / sub / name for prefix in prefixes() for sub in subdirs]


def _build_trees(mpi: str | None) -> list[Path]:
    """The build trees to look in: $TRELLIS_BUILD, or a source checkout's (the MPI's, or
    each MPI's in turn); none for a command installed away from a checkout."""
    if os.environ.get("TRELLIS_BUILD"):
        return [build_dir(mpi)]
    checkout = source_checkout()
    if checkout is None:
        return []
    if mpi:
        return [checkout / mpi_impl.get(mpi).build_dir]
    return [checkout / cls.build_dir for cls in mpi_impl.KINDS.values()]


def library_candidates(mpi: str | None = None) -> list[Path]:
    """Where libtrellis.so is looked for, in order (after $TRELLIS_LIB)."""
    multiarch = sysconfig.get_config_var("MULTIARCH")
    libdirs = ["lib", "lib64", *([f"lib/{multiarch}"] if multiarch else [])]
    return [
        Path(__file__).resolve().parent / LIBRARY,
        *_installed(libdirs, LIBRARY),
        *(tree / LIBRARY for tree in _build_trees(mpi)),
    ]


def library(mpi: str | None = None, explicit: str | None = None) -> Path:
    """The absolute path of libtrellis.so, for LD_PRELOAD, built for `mpi` if named:
    `explicit` (a configuration's TRELLIS_LIB), else $TRELLIS_LIB, else the search."""
    explicit = explicit or os.environ.get(LIB_VARIABLE)
    if explicit:
        path = Path(explicit)
        if not path.is_file():
            raise TrellisError(f"trellis: {LIB_VARIABLE}={explicit}: no such file")
        built = mpi_impl.built_for(path)
        if mpi and built and built != mpi:
            raise TrellisError(
                f"trellis: {LIB_VARIABLE}={explicit} is built for {built}, not {mpi}"
            )
        return path.resolve()
    searched = library_candidates(mpi)
    for path in searched:
        if path.is_file() and (not mpi or mpi_impl.built_for(path) in {mpi, None}):
            return path.resolve()
    built_for = f" built for {mpi}" if mpi else ""
    err = missing(f"{LIBRARY}{built_for}", searched)
    raise TrellisError(f"{err} (or set {LIB_VARIABLE} to the library)")


def info_tool() -> Path:
    """trellis-info: next to the package, in the install prefix's bin, or the build's."""
    searched = [Path(__file__).resolve().parent / INFO_TOOL, *_installed(["bin"], INFO_TOOL),
                *(tree / INFO_TOOL for tree in _build_trees(None)[:1])]  # fmt: skip
    for path in searched:
        if path.is_file():
            return path
    raise missing(INFO_TOOL, searched)


def info(*args: str) -> str:
    """Run `trellis-info ARGS` and return its standard output.

    A failure becomes a TrellisError with the tool's own message (which already starts
    with "trellis: ") and its exit status (2 for bad arguments and rules errors).
    """
    tool = info_tool()
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
    """Bytes as the rules language writes them: digits with an optional K, M or G suffix,
    either case (powers of 1024; the C side's trl_parse_size, the one grammar of sizes).
    Raises ValueError otherwise."""
    match = _SIZE.fullmatch(text.strip())
    if not match:
        raise ValueError(f"expected a size such as 4096, 64K or 1M, got {text!r}")
    return int(match.group(1)) << _SHIFT[match.group(2).upper()]
