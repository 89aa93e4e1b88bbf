#!/bin/sh
# SPDX-License-Identifier: MIT
# get-cpython-reader.sh - install CPython 3.15's own binary-log reader for
# the optional checks that compare tachyon's logs with it: Pyodide
# 315.0.0-alpha.2 (CPython 3.15.0rc1 built for WebAssembly, about 15 MB,
# from the npm registry), run with node. Not needed to build or test:
# without it those checks are skipped.
#
# usage: scripts/get-cpython-reader.sh [DIR]
#   DIR defaults to ~/.cache/tachyon/cpython-reader; the tests look there,
#   or where TACHYON_PYODIDE points (the pyodide package folder).
set -eu
dir=${1:-$HOME/.cache/tachyon/cpython-reader}
command -v npm >/dev/null || { echo "get-cpython-reader: npm not found" >&2; exit 1; }
mkdir -p "$dir"
cd "$dir"
[ -f package.json ] || echo '{"private": true}' > package.json
npm install --no-audit --no-fund pyodide@315.0.0-alpha.2 >&2
echo "$dir/node_modules/pyodide"
