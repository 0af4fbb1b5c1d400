#!/usr/bin/env bash
# The format check of .ci/run: C and C headers as .clang-format says (clang-format), the
# Python as pyproject.toml's [tool.ruff] says (ruff format). Lists what differs and exits
# non-zero; `bash scripts/check_format.sh --fix` rewrites the files instead.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mapfile -t c_files < <(git ls-files '*.c' '*.h')
if [[ ${1:-} == --fix ]]; then
    clang-format -i "${c_files[@]}"
    .venv/bin/ruff format python tests bench scripts
    exit
fi
rc=0
clang-format --dry-run --Werror "${c_files[@]}" 2>&1 | grep -E '^[^ ].*(error|warning):' |
    cut -d: -f1 | sort -u | sed 's/^/format: clang-format would change /'
((PIPESTATUS[0] == 0)) || rc=1
.venv/bin/ruff format --check python tests bench scripts || rc=1
echo "format: ${#c_files[@]} C files checked; $( ((rc == 0)) && echo clean || echo 'not clean: bash scripts/check_format.sh --fix')"
exit $rc
