#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# build_pprof.sh - build Google's pprof from Debian's source package, offline,
# to open `tachyon-conv --to pprof` output in the real viewer (the golden
# case tests/cli/conv-viewers/pprof_tool runs when `pprof` is on PATH).
#
# usage: scripts/build_pprof.sh [OUT]     (default OUT: ./pprof)
# Needs: apt-get install golang-go golang-github-google-pprof-dev
set -euo pipefail
out=${1:-pprof}
if ! command -v go >/dev/null ||
   [ ! -d /usr/share/gocode/src/github.com/google/pprof ]; then
    echo "build_pprof: apt-get install golang-go" \
         "golang-github-google-pprof-dev" >&2
    exit 2
fi
cache=$(mktemp -d)
trap 'rm -rf "$cache"' EXIT
GOPATH=/usr/share/gocode GO111MODULE=off GOFLAGS= GOCACHE=$cache \
    go build -o "$out" github.com/google/pprof
echo "build_pprof: wrote $out"
