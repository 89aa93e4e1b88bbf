#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# install-deps.sh - install the Debian 12 packages tachyon needs, only if
# some are missing (then apt-get update + install).
#
# usage: scripts/install-deps.sh [--build | --deb | --test] [--sanitize]
#   --build      what the build needs (the default): a C compiler, CMake,
#                pkg-config and the four libraries; make run uses this set
#   --test       the build's packages and those only the tests need: make
#                test. python3 and python3-jsonschema (test helpers, schema
#                checks), zstd, xz-utils, bzip2 and gzip (compressed
#                inputs), protobuf-compiler (pprof decoded by protoc),
#                clang-format (make format-check), scdoc, man-db and
#                groff-base (the man pages, built and rendered by docs.man),
#                clickhouse-server, clickhouse-client and curl (the fleet
#                test, ctest -L clickhouse, docs/guide-fleet.md, which starts
#                its own server on loopback; the packaged service itself is
#                not used), bash-completion, zsh and fish (the shell
#                completions, cli.completion), dpkg-dev, file and lintian
#                (the Debian packages made and checked, ctest -L package)
#   --deb        the build's packages and what make deb needs besides:
#                dpkg-dev (dpkg-buildflags, dpkg-shlibdeps), file (for
#                cpack) and scdoc (the man pages the packages hold)
#   --sanitize   also clang and its sanitizer runtimes (make sanitize)
#
# Runs without a terminal (no prompts); uses sudo only when not root.
set -euo pipefail

build_packages=(
    build-essential cmake pkg-config
    libarchive-dev libjson-c-dev libpcre2-dev libzstd-dev
)
test_packages=(
    python3 python3-jsonschema zstd xz-utils bzip2 gzip
    protobuf-compiler clang-format scdoc man-db groff-base
    clickhouse-server clickhouse-client curl zookeeper
    bash-completion zsh fish dpkg-dev file lintian
)
deb_packages=(dpkg-dev file scdoc)

packages=("${build_packages[@]}")
for arg in "$@"; do
    case $arg in
    --build) ;;
    --test) packages+=("${test_packages[@]}") ;;
    --deb) packages+=("${deb_packages[@]}") ;;
    --sanitize) packages+=(clang libclang-rt-dev) ;;
    *)
        echo "usage: scripts/install-deps.sh [--build | --deb | --test]" \
            "[--sanitize]" >&2
        exit 2
        ;;
    esac
done

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-deps: not a Debian system, skipped; install the" \
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
