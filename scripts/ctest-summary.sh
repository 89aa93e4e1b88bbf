#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ctest-summary.sh - run every ctest suite of a build directory and end
# with a plain "N passed, N failed" line. Exits non-zero if any test failed.
#
# usage: scripts/ctest-summary.sh BUILD_DIR [JOBS]
set -uo pipefail

build=$1
jobs=${2:-2}
log=$build/ctest.log

(cd "$build" && ctest --output-on-failure -j "$jobs") 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}

# Per-test result lines look like "  3/74 Test  #3: cli.conv.help ...   Passed".
line='^ *[0-9]+/[0-9]+ Test +#[0-9]+: '
passed=$(grep -cE "$line.* Passed +[0-9.]+ sec" "$log")
skipped=$(grep -cE "$line.*\*\*\*Skipped" "$log")
total=$(grep -cE "$line" "$log")
failed=$((total - passed - skipped))
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
    failed=1    # ctest itself failed (e.g. no tests found)
fi
echo
[ "$skipped" -gt 0 ] && echo "$skipped skipped"
echo "$passed passed, $failed failed"
[ "$rc" -eq 0 ] && [ "$failed" -eq 0 ]
