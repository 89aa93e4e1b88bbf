#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# run_case.sh - run CLI golden test cases and compare exit code, stdout and
# stderr with the committed expectations.
#
# usage: tests/cli/run_case.sh [--update] CASE.cmd...
#
# A case is tests/cli/<tool>/<name>.cmd: one bash command line run in an
# empty scratch directory with the tools on PATH, $TESTDATA pointing at
# testdata/, stdin from /dev/null, LC_ALL=C and CI=1 (no progress lines).
# Expectations sit next to it: <name>.exit (the exit code), <name>.stdout
# and <name>.stderr (exact bytes). A missing .exit means 0 and a missing
# .stdout or .stderr means no output at all (as zstd's cli-tests), so a
# case keeps only the files that say something. A <name>.stdout.glob or
# <name>.stderr.glob (a bash pattern) may replace the exact file for output
# that legitimately varies. tests/cli/CMakeLists.txt finds every case.
#
# A case that cannot run here (a missing helper program) exits 77; the
# runner then reports SKIP and exits 77, which ctest counts as skipped.
#
# --update rewrites .exit/.stdout/.stderr from the actual run (removing
# the ones that would say 0 or nothing). Review the resulting diff before
# committing: an expectation is a claim about the right behaviour, not a
# copy of whatever the tool printed.
#
# The installed data folder the tools name in --help (TACHYON_DATADIR, by
# default the one in TOOLS_DIR/datadir.txt, which the build writes) reads
# as @DATADIR@ in the expectations, so they hold for any install prefix.
#
# Environment: TOOLS_DIR (default: build/tools of this checkout), TESTDATA
# (default: testdata/ of this checkout), CLI_WRAPPER (optional: a command
# every tool runs under, e.g. "valgrind -q --error-exitcode=99
# --leak-check=full"; its complaints then show up as golden differences),
# TACHYON_DATADIR (see above).
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
: "${TOOLS_DIR:=$root/build/tools}"
: "${TESTDATA:=$root/testdata}"
TOOLS_DIR=$(cd "$TOOLS_DIR" && pwd) || exit 2
TESTDATA=$(cd "$TESTDATA" && pwd) || exit 2
update=0

# With CLI_WRAPPER, put shims that run each tool under it first on PATH.
path_dir=$TOOLS_DIR
if [ -n "${CLI_WRAPPER:-}" ]; then
    path_dir=$(mktemp -d "${TMPDIR:-/tmp}/tachyon-shims.XXXXXX") || exit 2
    trap 'rm -rf "$path_dir"' EXIT
    for tool in "$TOOLS_DIR"/tachyon-*; do
        [ -x "$tool" ] || continue
        printf '#!/bin/sh\nexec %s "%s" "$@"\n' "$CLI_WRAPPER" "$tool" \
            >"$path_dir/${tool##*/}"
        chmod +x "$path_dir/${tool##*/}"
    done
fi

# Without TACHYON_DATADIR, the folder the build of TOOLS_DIR names.
if [ -z "${TACHYON_DATADIR:-}" ] && [ -f "$TOOLS_DIR/datadir.txt" ]; then
    TACHYON_DATADIR=$(cat "$TOOLS_DIR/datadir.txt")
fi

# Write @DATADIR@ for the installed data folder in output file $1.
mask_datadir() {
    local re
    [ -n "${TACHYON_DATADIR:-}" ] || return 0
    grep -qF -- "$TACHYON_DATADIR" "$1" || return 0
    re=$(printf '%s' "$TACHYON_DATADIR" | sed 's/[][\\/.*^$|]/\\&/g')
    sed -i "s|$re|@DATADIR@|g" "$1"
}

# Compare actual output file $1 with expectation base $2 (exact or glob).
check_stream() {
    local actual=$1 base=$2
    if [ -f "$base.glob" ]; then
        local pattern text
        pattern=$(cat "$base.glob")
        text=$(cat "$actual")
        # shellcheck disable=SC2053
        [[ $text == $pattern ]] && return 0
        echo "--- $base.glob does not match; actual output:"
        cat "$actual"
        return 1
    fi
    local expected=$base
    [ -f "$base" ] || expected=/dev/null    # no file: no output
    cmp -s "$expected" "$actual" && return 0
    echo "--- $base differs:"
    diff -u "$expected" "$actual" | head -n 60
    return 1
}

# The expected exit code of case base $1: its .exit file, or 0.
expected_exit() {
    if [ -f "$1.exit" ]; then cat "$1.exit"; else echo 0; fi
}

# --update: keep file $2 with the contents of $1, unless that is nothing.
update_stream() {
    local actual=$1 base=$2
    [ -f "$base.glob" ] && return 0
    if [ -s "$actual" ]; then cp "$actual" "$base"; else rm -f "$base"; fi
}

# Run one case; print a verdict line; return 0 on pass.
run_one() {
    local cmd base scratch code fail=0
    if [ ! -f "$1" ]; then
        echo "FAIL $1: no such case"
        return 1
    fi
    cmd=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
    base=${cmd%.cmd}
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/tachyon-cli.XXXXXX") || return 2
    mkdir "$scratch/work" || return 2
    (
        cd "$scratch/work" &&
        PATH="$path_dir:$PATH" TESTDATA="$TESTDATA" LC_ALL=C CI=1 \
            bash -c "$(cat "$cmd")" >../stdout.out 2>../stderr.out </dev/null
        echo $? >../exit.out
    )
    code=$(cat "$scratch/exit.out")
    mask_datadir "$scratch/stdout.out"
    mask_datadir "$scratch/stderr.out"
    if [ "$code" = 77 ] && [ "$(expected_exit "$base")" != 77 ]; then
        echo "SKIP $base: $(head -n 1 "$scratch/stderr.out")"
        rm -rf "$scratch"
        return 77
    fi
    if [ "$update" = 1 ]; then
        rm -f "$base.exit"
        [ "$code" = 0 ] || echo "$code" >"$base.exit"
        update_stream "$scratch/stdout.out" "$base.stdout"
        update_stream "$scratch/stderr.out" "$base.stderr"
        echo "updated $base"
    else
        if [ "$code" != "$(expected_exit "$base")" ]; then
            echo "--- exit code $code, expected $(expected_exit "$base")"
            fail=1
        fi
        check_stream "$scratch/stdout.out" "$base.stdout" || fail=1
        check_stream "$scratch/stderr.out" "$base.stderr" || fail=1
        if [ $fail = 0 ]; then echo "PASS $base"; else echo "FAIL $base"; fi
    fi
    rm -rf "$scratch"
    return $fail
}

if [ "${1:-}" = "--update" ]; then
    update=1
    shift
fi
if [ $# -eq 0 ]; then
    echo "usage: $0 [--update] CASE.cmd..." >&2
    exit 2
fi
status=0
skipped=0
for c in "$@"; do
    run_one "$c"
    case $? in
    0) ;;
    77) skipped=$((skipped + 1)) ;;
    *) status=1 ;;
    esac
done
if [ $status = 0 ] && [ $skipped -gt 0 ] && [ $skipped = $# ]; then
    exit 77
fi
exit $status
