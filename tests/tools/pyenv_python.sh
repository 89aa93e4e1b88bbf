#!/bin/sh
# SPDX-License-Identifier: MIT
# pyenv_python.sh VERSION... - print the path of the CPython interpreter of
# each VERSION (e.g. 3.13.0): $PY311/$PY312/... when set, else pyenv's
# (`pyenv prefix VERSION`, or $PYENV_ROOT/versions/VERSION). The record
# tests (tests/record/record_test.sh), CLI cases and bench/record_bench.sh
# all find them here. When one is missing: a message on stderr and exit
# 77, so a CLI case using it skips.
for ver in "$@"; do
    minor=${ver%.*}
    var=PY$(echo "$minor" | tr -d .)
    eval "py=\${$var:-}"
    if [ -z "$py" ]; then
        prefix=$(pyenv prefix "$ver" 2>/dev/null) ||
            prefix=${PYENV_ROOT:-$HOME/.pyenv}/versions/$ver
        py=$prefix/bin/python$minor
    fi
    if [ ! -x "$py" ]; then
        echo "CPython $ver not found (set $var or install it with pyenv)" >&2
        exit 77
    fi
    echo "$py"
done
