"""The C code's shape (scripts/check_layers.py): no circles between the files of src/ and
tools/, no include from a lower layer to a higher one, no file over 600 lines, apart from
the exceptions the script lists, which may only name src/mpi and src/exec and only
shrink. Also the checker itself, on small trees made up here."""

import importlib.util
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "check_layers.py"


def check(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *args, str(root)],
        capture_output=True,
        text=True,
        check=False,
    )


def checker():
    spec = importlib.util.spec_from_file_location("check_layers", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_code_keeps_its_layers():
    result = check(REPO)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.rstrip().endswith(": ok")


def test_exceptions_are_in_src_mpi_and_src_exec_only():
    """What issue 32 restructures there; everything else has no exception."""
    exceptions = checker().EXCEPTIONS
    named = [
        *(node for nodes in exceptions["circle"] for node in nodes),
        *(path for pair in exceptions["upward"] + exceptions["sideways"] for path in pair[:1]),
        *exceptions["long"],
    ]
    for path in named:
        assert path.startswith(("src/mpi/", "src/exec/")), path


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def test_a_circle_through_includes_is_found_with_its_lines(tmp_path):
    root = write(
        tmp_path,
        {
            "src/core/a.h": "int a(void);\n",
            "src/core/a.c": '#include "core/a.h"\n#include "core/b.h"\nint a(void) { return 0; }\n',
            "src/core/b.h": "int b(void);\n",
            "src/core/b.c": '\n#include "core/a.h"\nint b(void) { return a(); }\n',
            "src/core/c.c": '#include "core/a.h"\n',
        },
    )
    result = check(root, "--strict")
    assert result.returncode == 1
    assert "circle: src/core/a, src/core/b\n" in result.stdout
    assert "  src/core/a -> src/core/b -> src/core/a\n" in result.stdout
    assert 'src/core/a.c:2: #include "core/b.h"' in result.stdout
    assert 'src/core/b.c:2: #include "core/a.h"' in result.stdout
    assert "src/core/c" not in result.stdout


def test_a_header_declaring_another_files_function_makes_an_arrow(tmp_path):
    """tools/trellis_info.h declared info_simulate.c's cmd_simulate: a circle the
    includes alone do not show."""
    root = write(
        tmp_path,
        {
            "tools/main.h": "int helper(void);\nint cmd_other(void);\n",
            "tools/main.c": '#include "main.h"\nint helper(void) { return 1; }\n'
            "int main(void)\n{\n    return cmd_other();\n}\n",
            "tools/other.c": '#include "main.h"\nint cmd_other(void) { return helper(); }\n',
        },
    )
    result = check(root, "--strict")
    assert result.returncode == 1
    assert "circle: tools/main, tools/other\n" in result.stdout
    assert (
        "tools/main.c:5: cmd_other(), declared in tools/main.h (read through "
        "tools/main.c:1), defined in tools/other.c"
    ) in result.stdout


def test_a_shared_variable_makes_an_arrow_but_the_algorithm_table_does_not(tmp_path):
    root = write(
        tmp_path,
        {
            "src/algo/algo.h": "extern const int trl_algorithms[];\nextern int shared;\n",
            "src/algo/algo.c": '#include "algo/algo.h"\n'
            "int first(void) { return trl_algorithms[0] + shared; }\n",
            "src/algo/algorithms.c": '#include "algo/algo.h"\nconst int trl_algorithms[] = {1};\n'
            "int shared = 2;\n",
        },
    )
    result = check(root, "--strict")
    assert "src/algo/algo.c:2: shared, declared in src/algo/algo.h" in result.stdout
    assert "trl_algorithms," not in result.stdout


def test_upward_and_sideways_includes_and_long_files(tmp_path):
    root = write(
        tmp_path,
        {
            "src/core/status.h": "",
            "src/algo/algo.h": "",
            "src/core/low.c": '#include "core/status.h"\n#include "algo/algo.h"\n',
            "src/sim/sim.h": "",
            "src/select/select.c": '#include "sim/sim.h"\n',
            "tools/big.c": "int x;\n" * 601,
            "tools/fine.c": "int y;\n" * 600,
        },
    )
    result = check(root, "--strict")
    assert result.returncode == 1
    out = result.stdout
    assert "upward include: src/core/low.c:2: src/algo/algo.h (src/core includes src/algo)" in out
    assert (
        "sideways include: src/select/select.c:1: src/sim/sim.h (src/select includes src/sim)"
    ) in out
    assert "long file: tools/big.c: 601 lines (at most 600)" in out
    assert "tools/fine.c" not in out


def test_an_exception_no_longer_needed_fails(tmp_path):
    """The exception list only shrinks: an entry whose finding is gone must go."""
    root = write(tmp_path, {"src/core/ok.c": "int ok;\n"})
    result = check(root)
    entries = sum(len(v) for v in checker().EXCEPTIONS.values())
    assert result.stdout.count("stale exception: ") == entries
    assert result.returncode == (1 if entries else 0)


def test_src_mpi_is_three_layers(tmp_path):
    """context, engine, entry: each may include the ones before it only."""
    root = write(
        tmp_path,
        {
            "src/mpi/context/comm.h": "",
            "src/mpi/context/comm.c": '#include "mpi/context/comm.h"\n#include "mpi/entry/x.h"\n',
            "src/mpi/engine/run.c": '#include "mpi/context/comm.h"\n',
            "src/mpi/entry/x.h": "",
            "src/mpi/entry/y.c": '#include "mpi/engine/run.h"\n#include "mpi/context/comm.h"\n',
            "src/mpi/engine/run.h": "",
        },
    )
    result = check(root, "--strict")
    assert result.returncode == 1
    out = result.stdout
    assert (
        "upward include: src/mpi/context/comm.c:2: src/mpi/entry/x.h "
        "(src/mpi/context includes src/mpi/entry)"
    ) in out
    assert "src/mpi/engine/run.c" not in out
    assert "src/mpi/entry/y.c" not in out
    assert "circle" not in out
