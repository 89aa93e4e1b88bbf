#!/bin/sh
# SPDX-License-Identifier: MIT
# pyenv_python.sh VERSION... - print the path of the CPython interpreter of
# each VERSION (e.g. 3.13.0, or 3.14.7t for a free-threaded build):
# $PY311/$PY312/.../$PY314T when set, else pyenv's (`pyenv prefix
# VERSION`, or $PYENV_ROOT/versions/VERSION), else the one
# scripts/build-cpython.sh built into its cache
# (${TACHYON_CPYTHON_CACHE:-~/.cache/tachyon/cpython}/VERSION). The record
# tests (tests/record/record_test.sh), CLI cases and bench/record_bench.sh
# all find them here. When one is missing: a message on stderr and exit
# 77, so a CLI case using it skips.
cache=${TACHYON_CPYTHON_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tachyon/cpython}
for ver in "$@"; do
    suffix=
    case $ver in
    *t) suffix=t ;;
    esac
    minor=${ver%.*}
    var=PY$(echo "$minor" | tr -d .)$(echo "$suffix" | tr t T)
    eval "py=\${$var:-}"
    if [ -z "$py" ]; then
        prefix=$(pyenv prefix "$ver" 2>/dev/null) ||
            prefix=${PYENV_ROOT:-$HOME/.pyenv}/versions/$ver
        py=$prefix/bin/python$minor$suffix
        [ -x "$py" ] || py=$cache/$ver/bin/python$minor$suffix
    fi
    if [ ! -x "$py" ]; then
        echo "CPython $ver not found (set $var, install it with pyenv, or" \
            "build it: scripts/build-cpython.sh" \
            "$([ -n "$suffix" ] && echo '--free-threaded ')Python-${ver%t}.tar.xz)" >&2
        exit 77
    fi
    echo "$py"
done
