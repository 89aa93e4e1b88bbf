#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# install-deps.sh - install the Debian 12 packages tachyon needs to build
# and test, only if some are missing (then apt-get update + install).
#
# python3-scipy and python3-statsmodels are tachyon-diff's statistics
# oracle (ctest unit.diff_oracle).
#
# clickhouse-server (18.16 on Debian 12) and curl are for the fleet test
# (ctest -L clickhouse, README "Fleet scale"), which starts its own server
# on loopback; the packaged service itself is not used.
#
# usage: scripts/install-deps.sh [--sanitize]
#   --sanitize   also install clang and its sanitizer runtimes (make sanitize)
#
# Runs without a terminal (no prompts); uses sudo only when not root.
set -euo pipefail

packages=(
    build-essential cmake pkg-config
    libarchive-dev libjson-c-dev libpcre2-dev libzstd-dev
    python3 python3-jsonschema python3-scipy python3-statsmodels
    zstd xz-utils bzip2 gzip
    protobuf-compiler clang-format
    clickhouse-server clickhouse-client curl
)
if [ "${1:-}" = "--sanitize" ]; then
    packages+=(clang libclang-rt-dev)
fi

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-deps: not a Debian system, skipped; the build needs the" \
         "equivalents of: ${packages[*]}" >&2
    exit 0
fi

missing=()
for p in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
    [ "$status" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: apt-get not found; install these packages (or their" \
         "equivalents) by hand: ${missing[*]}" >&2
    exit 1
fi
sudo=()
if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "install-deps: not root and no sudo; install: ${missing[*]}" >&2
        exit 1
    fi
    sudo=(sudo -n)
fi

echo "install-deps: installing ${missing[*]}"
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends "${missing[@]}" </dev/null
