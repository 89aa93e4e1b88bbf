#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# check_spdx.sh SRCDIR - every source file of the tree (C, headers, build
# files, scripts, SQL) names its licence in an SPDX-License-Identifier line
# within its first three lines, and every licence named has its text in
# LICENSES/. Test data, golden outputs and fuzz corpora are data, not
# source, and are covered by LICENSE as a whole.
set -euo pipefail
cd "$1"
fail=0
while IFS= read -r f; do
    case "$f" in
        testdata/* | tests/fuzz/corpus/* | tests/cli/*/*.* | LICENSES/*) continue ;;
    esac
    case "$f" in
        *.c | *.h | *.in | *.py | *.sh | *.cmake | *.mjs | *.proto | *.sql | \
        *.dict | *.scd | *CMakeLists.txt | Makefile | .ci/run) ;;
        *) continue ;;
    esac
    [ -f "$f" ] || continue
    ids=$(head -n 3 "$f" | sed -n 's/.*SPDX-License-Identifier: \([^*]*\).*/\1/p')
    if [ -z "$ids" ]; then
        echo "$f: no SPDX-License-Identifier line in its first 3 lines"
        fail=1
        continue
    fi
    for id in $(echo "$ids" | tr -d '()' | sed 's/ AND / /g; s/ OR / /g'); do
        if [ ! -f "LICENSES/$id.txt" ]; then
            echo "$f: licence $id has no text in LICENSES/$id.txt"
            fail=1
        fi
    done
done < <(git ls-files 2>/dev/null || find . -type f -printf '%P\n')
[ -f LICENSE ] || { echo "LICENSE is missing"; fail=1; }
exit $fail
