#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# build-deb.sh - the Debian packages of tachyon (make deb; docs/install.md):
# a build for /usr with Debian's compiler and linker flags (dpkg-buildflags,
# with every hardening option), without tests, then cpack -G DEB.
# The .deb files land in BUILD_DIR, and their paths are printed.
#
# usage: scripts/build-deb.sh [BUILD_DIR [CMAKE_ARG...]]
#   BUILD_DIR   default build-deb; CMAKE_ARGs are added to the configure
#   JOBS        parallel compile jobs (default: nproc)
set -euo pipefail

src=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build-deb}
[ $# -gt 0 ] && shift
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}

# Every hardening flag (bindnow too) unless the caller chose.
export DEB_BUILD_MAINT_OPTIONS=${DEB_BUILD_MAINT_OPTIONS:-hardening=+all}
cflags="$(dpkg-buildflags --get CFLAGS) $(dpkg-buildflags --get CPPFLAGS)"
ldflags=$(dpkg-buildflags --get LDFLAGS)
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=None \
    -DCMAKE_INSTALL_PREFIX=/usr -DTACHYON_BUILD_TESTS=OFF \
    "-DCMAKE_C_FLAGS=$cflags" "-DCMAKE_EXE_LINKER_FLAGS=$ldflags" \
    "-DCMAKE_SHARED_LINKER_FLAGS=$ldflags" "$@"
cmake --build "$build" -j "$jobs"
build=$(cd "$build" && pwd)
(cd "$build" && cpack -G DEB -B "$build")
ls "$build"/*.deb
