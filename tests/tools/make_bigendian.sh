#!/bin/sh
# SPDX-License-Identifier: MIT
# Regenerate testdata/bigendian/ from the little-endian CPython fixtures.
# Usage: tests/tools/make_bigendian.sh BUILD_DIR   (needs tests/bin_bswap)
set -eu
build=${1:?usage: make_bigendian.sh BUILD_DIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=$top/testdata/bigendian
mkdir -p "$out"
for d in "$top"/testdata/cpython/*/; do
    c=$(basename "$d")
    for v in none zstd none.hdr-u32; do
        "$build/tests/bin_bswap" "$d/$v.bin" "$out/$c.$v.bin"
    done
done
