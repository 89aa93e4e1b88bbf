#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# build-cpython.sh - build a CPython interpreter from a source tarball into
# tachyon's cache, once, for tachyon-record's tests and benchmarks.
#
# usage: scripts/build-cpython.sh [--free-threaded] TARBALL
#
#   Python-X.Y.Z.tar.xz          -> $CACHE/X.Y.Z/bin/pythonX.Y
#   --free-threaded (3.13+)      -> $CACHE/X.Y.Zt/bin/pythonX.Yt
#
# CACHE is $TACHYON_CPYTHON_CACHE, else ${XDG_CACHE_HOME:-~/.cache}/tachyon/
# cpython. A finished build (its interpreter runs) is reused as it is; a
# build is made in a scratch folder and moved into place only when it
# works, so an interrupted one leaves nothing the tests would pick up.
# Prints the interpreter's path on stdout.
set -euo pipefail

ft=0
if [ "${1:-}" = "--free-threaded" ]; then
    ft=1
    shift
fi
[ $# -eq 1 ] || { echo "usage: $0 [--free-threaded] TARBALL" >&2; exit 2; }
tarball=$(realpath "$1")
base=$(basename "$tarball")
version=${base#Python-}
version=${version%.tar.*}
case "$version" in
    [0-9]*.[0-9]*.[0-9]*) ;;
    *) echo "$0: cannot tell the version from '$base'" >&2; exit 2 ;;
esac
minor=${version%.*}
suffix=""
configure=(--with-ensurepip=no --without-doc-strings)
if [ "$ft" = 1 ]; then
    suffix=t
    configure+=(--disable-gil)
fi
cache=${TACHYON_CPYTHON_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/tachyon/cpython}
prefix=$cache/$version$suffix
python=$prefix/bin/python$minor$suffix

if [ -x "$python" ] && "$python" -c 'import _remote_debugging' 2>/dev/null; then
    echo "$python"
    exit 0
fi

# What CPython's build needs here (the modules the tests use: ctypes for
# nothing, asyncio, threading, _remote_debugging; no SSL, no Tk).
if command -v dpkg-query >/dev/null 2>&1; then
    need=()
    for p in build-essential pkg-config libffi-dev zlib1g-dev xz-utils; do
        st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
        [ "$st" = "install ok installed" ] || need+=("$p")
    done
    if [ ${#need[@]} -gt 0 ]; then
        sudo=()
        [ "$(id -u)" -eq 0 ] || sudo=(sudo -n)
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q \
            </dev/null >&2
        "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
            --no-install-recommends "${need[@]}" </dev/null >&2
    fi
fi

mkdir -p "$cache"
work=$(mktemp -d "$cache/.build-$version$suffix.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "build-cpython: building $version$suffix in $work (about 6 minutes)" >&2
tar -xf "$tarball" -C "$work"
src=$work/Python-$version
stage=$work/stage
(
    cd "$src"
    ./configure --prefix="$prefix" "${configure[@]}" >"$work/configure.log" 2>&1 ||
        { tail -20 "$work/configure.log" >&2; exit 1; }
    make -j "$(nproc)" >"$work/make.log" 2>&1 ||
        { tail -40 "$work/make.log" >&2; exit 1; }
    make install DESTDIR="$stage" >"$work/install.log" 2>&1 ||
        { tail -20 "$work/install.log" >&2; exit 1; }
)
# DESTDIR keeps the configured prefix inside the stage: move that into place.
rm -rf "$prefix"
mv "$stage$prefix" "$prefix"
"$python" -c 'import _remote_debugging, asyncio, threading' >&2
echo "$python"
