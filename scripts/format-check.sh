#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# format-check.sh - the C sources against .clang-format (clang-format 14).
#
# usage: scripts/format-check.sh          list every file that differs; exit
#                                         1 if any does (make format-check)
#        scripts/format-check.sh --fix    reformat them in place (make format)
#
# Every tracked .c and .h file is checked.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v clang-format >/dev/null || {
    echo "format-check: clang-format is not installed" \
         "(scripts/install-deps.sh installs it)" >&2
    exit 2
}

files=()
while IFS= read -r f; do
    files+=("$f")
done < <(git ls-files '*.c' '*.h')

if [ "${1:-}" = "--fix" ]; then
    clang-format -i "${files[@]}"
    exit 0
fi
bad=0
for f in "${files[@]}"; do
    if ! clang-format "$f" | cmp -s - "$f"; then
        echo "format-check: $f differs from .clang-format" \
             "(make format, or clang-format -i $f)"
        bad=$((bad + 1))
    fi
done
if [ $bad -gt 0 ]; then
    echo "format-check: $bad of ${#files[@]} files differ" >&2
    exit 1
fi
echo "format-check: ${#files[@]} files match .clang-format"
