#!/bin/sh
# SPDX-License-Identifier: MIT
# record_test.sh VERSION SCRIPT ARGS... - run a record test SCRIPT with the
# CPython VERSION (e.g. 3.13.0) it is about. The interpreter comes from
# $PY311/$PY312/$PY313 when set, else from pyenv (`pyenv prefix VERSION`,
# or $PYENV_ROOT/versions/VERSION), as tests/tools/pyenv_python.sh finds
# it. VERSION may also be the path of an interpreter (/usr/bin/python3.11). A missing interpreter skips the test
# (exit 77, ctest's SKIP_RETURN_CODE).
ver=$1
script=$2
shift 2
case $ver in
/*)
    if [ ! -x "$ver" ]; then
        echo "SKIP: $ver not found"
        exit 77
    fi
    exec "$ver" "$script" "$@" ;;
esac
if ! py=$(sh "$(dirname "$0")/../tools/pyenv_python.sh" "$ver" 2>&1); then
    echo "SKIP: $py"
    exit 77
fi
exec "$py" "$script" "$@"
