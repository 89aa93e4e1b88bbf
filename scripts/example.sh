#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# example.sh - the "make run" demo: convert the bundled example profile
# (testdata/example.bin, a CPython 3.15 Tachyon binary log of a stdlib
# workload) to an HTML flame graph, and say in one line where to open it.
#
# usage: scripts/example.sh BUILD_DIR
set -euo pipefail

build=${1:-build}
conv=$build/tools/tachyon-conv
in=testdata/example.bin
out=$build/example/example.html

mkdir -p "$(dirname "$out")"
echo "==> $conv --to html --title 'testdata/example.bin' --force -o $out $in"
"$conv" --to html --title "testdata/example.bin" --force -o "$out" "$in"

# A file:// URL of the absolute path (spaces and the few characters a
# browser would misread escaped).
path=$(cd "$(dirname "$out")" && pwd -P)/$(basename "$out")
url=${path//%/%25}
url=${url// /%20}
url=${url//#/%23}
url=${url//\?/%3F}
echo "Open file://$url in a browser: the flame graph and hottest functions of $in."
