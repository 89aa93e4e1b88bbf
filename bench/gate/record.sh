#!/bin/sh
# SPDX-License-Identifier: MIT
# record.sh BUILD_DIR OUT_DIR [UNCHANGED] [CHANGED] - record the gate
# trial's real runs of prog.py with tachyon-record (default 1000 Hz), one
# at a time: UNCHANGED (default 10) runs as is (u01.bin ...) and CHANGED
# (default 5) with --slower (c01.bin ...), interleaved (u01 c01 u02 c02
# ...) so a change in the machine's load hits both kinds alike.
# PYTHON (default: pyenv's 3.13.0) is the interpreter.
set -eu
build=${1:-build}
out=${2:-gate-runs}
nu=${3:-10}
nc=${4:-5}
here=$(cd "$(dirname "$0")" && pwd)
py=${PYTHON:-$(pyenv prefix 3.13.0)/bin/python3.13}
rec=$build/tools/tachyon-record
[ -x "$rec" ] || { echo "record.sh: no $rec (build first)" >&2; exit 2; }
mkdir -p "$out"
one() {
    "$rec" -a -q -o "$out/$1.bin" -- "$py" "$here/prog.py" $2 >/dev/null
}
i=1
while [ "$i" -le "$nu" ] || [ "$i" -le "$nc" ]; do
    n=$(printf %02d "$i")
    [ "$i" -gt "$nu" ] || one "u$n" ""
    [ "$i" -gt "$nc" ] || one "c$n" --slower
    i=$((i + 1))
done
