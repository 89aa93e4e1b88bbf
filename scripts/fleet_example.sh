#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# fleet_example.sh - record the fleet example logs in testdata/fleet/ (the
# data of docs/guide-fleet.md): examples/fleet/app.py run as a small
# fleet, each run recorded by tachyon-record for one second with CPython
# 3.13 and named SERVICE-VERSION-BUILD-HOST.bin, which the guide's load
# loop turns into labels. Version 42 (builds 1042, 1043) renders JSON with
# indent and sorted keys; host h3 checksums each response 8 times.
#
# usage: scripts/fleet_example.sh [BUILD_DIR] [OUT_DIR]
# Recordings differ from run to run (they sample a live process); the
# committed files are one such recording.
set -euo pipefail
build=${1:-build}
out=${2:-testdata/fleet}
python=${PYTHON:-$(pyenv prefix 3.13.0)/bin/python3.13}
here=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$out"
# The app is copied to /tmp/srv/app.py so its file name in the logs does
# not depend on where the repository is checked out.
mkdir -p /tmp/srv
cp "$here/examples/fleet/app.py" /tmp/srv/app.py
record() {   # NAME ARGS...
    local name=$1
    shift
    "$build/tools/tachyon-record" -q -c zstd -o "$out/$name.bin" -- \
        "$python" /tmp/srv/app.py "$@"
}
for build_no in 1040 1041 1042 1043; do
    version=$((build_no < 1042 ? 41 : 42))
    record "api-$version-$build_no-h1" "$version" 1
    record "api-$version-$build_no-h2" "$version" 1
    record "api-$version-$build_no-h3" "$version" 1 --rounds 8
done
record "worker-42-1043-h1" 42 1 --worker
ls -l "$out"
