#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# package_test.sh - the Debian packages, made and used as a packager and a
# user would (ctest -L package):
#   1. scripts/build-deb.sh: a build for /usr with Debian's build flags
#      (dpkg-buildflags) and no tests, then "cpack -G DEB"
#   2. the three packages, their names, versions and dependencies; every
#      file a plain "cmake --install" gives is in exactly one of them, in
#      the one its component says
#   3. unpack them (dpkg-deb -x) into a scratch root: run each tool from
#      there (--version, a conversion of testdata/example.bin, validate and
#      diff of the result), --help names files that are there, the man
#      pages open, the installed bash completion completes
#   4. the -dev package builds programs: pkg-config and find_package
#   5. lintian: no error (warnings are printed)
# Nothing needs root: the packages are unpacked, not installed.
#
# usage: package_test.sh SRC WORK VERSION SOVERSION [JOBS]
set -uo pipefail

src=$(cd "$1" && pwd) || exit 2
work=$2
version=$3
soversion=$4
jobs=${5:-2}
fails=0
checks=0

for tool in cpack dpkg-deb dpkg-buildflags lintian; do
    if ! command -v "$tool" >/dev/null; then
        echo "SKIP: $tool is not installed (scripts/install-deps.sh installs it)"
        exit 77
    fi
done

ok() {
    checks=$((checks + 1))
    if [ "$1" -ne 0 ]; then
        echo "FAIL $2"
        fails=$((fails + 1))
    fi
}
check() {
    local what=$1
    shift
    "$@"
    ok $? "$what"
}
run() {
    "$@" >"$work/step.log" 2>&1 || {
        echo "FAIL: $*"
        tail -n 40 "$work/step.log"
        exit 1
    }
}

rm -rf "$work"
mkdir -p "$work"
build=$work/build
root=$work/root
lib_package=libtachyonfmt$soversion

# 1. A packager's build (scripts/build-deb.sh, as make deb). ccache, when
# there, shares objects with other build folders of the same source.
export CCACHE_BASEDIR=$src CCACHE_NOHASHDIR=1
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache)
JOBS=$jobs run "$src/scripts/build-deb.sh" "$build" -DTACHYON_WERROR=ON \
    "${launcher[@]}"

# 2. The packages.
deb_tools=$build/tachyon_${version}_$(dpkg --print-architecture).deb
deb_lib=$build/${lib_package}_${version}_$(dpkg --print-architecture).deb
deb_dev=$build/libtachyonfmt-dev_${version}_$(dpkg --print-architecture).deb
for deb in "$deb_tools" "$deb_lib" "$deb_dev"; do
    [ -f "$deb" ] || { echo "FAIL: no $deb; cpack made:"; ls "$build"/*.deb; exit 1; }
done
debs=("$build"/*.deb)
check "exactly three packages" test "${#debs[@]}" -eq 3

field() { dpkg-deb -f "$1" "$2"; }
for deb in "$deb_tools" "$deb_lib" "$deb_dev"; do
    check "$deb: Version $version" test "$(field "$deb" Version)" = "$version"
done
depends_on() { # DEB PACKAGE-AND-VERSION: Depends lists it
    field "$1" Depends | tr ',' '\n' | sed 's/^ *//' | grep -qxF "$2"
}
check "tachyon depends on $lib_package (= $version)" \
    depends_on "$deb_tools" "$lib_package (= $version)"
check "libtachyonfmt-dev depends on $lib_package (= $version)" \
    depends_on "$deb_dev" "$lib_package (= $version)"
check "$lib_package depends on libarchive (dlopened)" \
    depends_on "$deb_lib" libarchive13
check "$lib_package has the ldconfig trigger" \
    sh -c "dpkg-deb --ctrl-tarfile '$deb_lib' | tar -xO ./triggers | grep -qx 'activate-noawait ldconfig'"

# Each package's files, as paths without the leading "./".
contents() { dpkg-deb -c "$1" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./||'; }
contents "$deb_tools" | sort >"$work/tools.list"
contents "$deb_lib" | sort >"$work/lib.list"
contents "$deb_dev" | sort >"$work/dev.list"

# Every file of a plain install is in one package (the Debian ones gzip
# man pages; /usr/share/doc/PACKAGE is theirs alone).
DESTDIR=$work/plain run cmake --install "$build"
(cd "$work/plain" && find . ! -type d | sed 's|^\./||' |
    sed -E 's|^(usr/share/man/.*)$|\1.gz|; s|\.gz\.gz$|.gz|' | sort) \
    >"$work/plain.list"
cat "$work"/{tools,lib,dev}.list | grep -v '^usr/share/doc/' | sort >"$work/all.list"
check "the packages hold every installed file once (left: plain install, right: packages)" \
    diff "$work/plain.list" "$work/all.list"
check "no file in two packages" \
    test -z "$(cat "$work"/{tools,lib,dev}.list | sort | uniq -d)"
for list in tools lib dev; do
    package=$list
    [ "$list" = tools ] && package=tachyon
    [ "$list" = lib ] && package=$lib_package
    [ "$list" = dev ] && package=libtachyonfmt-dev
    check "$package has copyright and changelog.gz" grep -qx \
        "usr/share/doc/$package/copyright" "$work/$list.list"
    check "$package has changelog.gz" grep -qx \
        "usr/share/doc/$package/changelog.gz" "$work/$list.list"
done

# Which package holds what (the components of CMakeLists.txt).
only_in() { # LIST REGEX WHAT: every file matching REGEX is in LIST
    local stray
    stray=$(cat "$work"/{tools,lib,dev}.list | grep -E "$2" | sort |
        comm -23 - "$work/$1.list")
    [ -z "$stray" ] || { echo "    $3 outside $1: $stray"; return 1; }
}
check "tools, completions, data and man1/man7 in tachyon" only_in tools \
    '^usr/(bin/|share/(tachyon|bash-completion|zsh|fish)/|share/man/man[17]/)' "tool files"
check "headers, .so link, pkg-config, CMake and man3 in -dev" only_in dev \
    '^usr/(include/|lib/.*/(pkgconfig|cmake)/|lib/.*\.so$|share/man/man3/)' "dev files"
check "the library alone in $lib_package" test "$(grep -v '^usr/share/doc/' \
    "$work/lib.list")" = "$(grep -E "libtachyonfmt\.so\.$soversion(\..*)?$" "$work/lib.list")"
multiarch=$(dirname "$(grep -E 'libtachyonfmt\.so\.' "$work/lib.list" | head -n 1)")
soname=$(readelf -d "$work/plain/$multiarch/libtachyonfmt.so.$version" |
    sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
check "soname libtachyonfmt.so.$soversion ($soname), as the package name says" \
    test "$soname" = "libtachyonfmt.so.$soversion"

# 3. Unpacked: the tools run from the scratch root.
for deb in "$deb_tools" "$deb_lib" "$deb_dev"; do
    run dpkg-deb -x "$deb" "$root"
done
export LD_LIBRARY_PATH=$root/$multiarch
tools=$(cd "$root/usr/bin" && ls tachyon-*)
for t in $tools; do
    out=$("$root/usr/bin/$t" --version 2>&1)
    check "$t --version: '$out'" test "$out" = "$t $version (libtachyonfmt $version)"
    check "$t has no RPATH (the library is in the loader's path)" sh -c \
        "! readelf -d '$root/usr/bin/$t' | grep -Eq 'R(UN)?PATH'"
    check "$t loads the unpacked library" sh -c \
        "ldd '$root/usr/bin/$t' | grep -q '$root/$multiarch/libtachyonfmt.so.$soversion'"
done
scratch=$work/run
mkdir -p "$scratch"
check "tachyon-conv converts testdata/example.bin to JSONL" \
    "$root/usr/bin/tachyon-conv" -q -o "$scratch/example.jsonl" "$src/testdata/example.bin"
check "tachyon-conv converts it to a flame graph (svg)" \
    "$root/usr/bin/tachyon-conv" -q --to svg -o "$scratch/example.svg" "$src/testdata/example.bin"
check "tachyon-validate: the log and the JSONL are valid" \
    "$root/usr/bin/tachyon-validate" "$src/testdata/example.bin" "$scratch/example.jsonl"
check "tachyon-diff: the log against its JSONL, no gate trips" \
    "$root/usr/bin/tachyon-diff" -q --fail-on-regression 0.1 \
    -o "$scratch/diff.txt" "$src/testdata/example.bin" "$scratch/example.jsonl"

# --help names installed files that are there.
named_files() { # TOOL: the /usr/share/tachyon paths its --help names
    "$root/usr/bin/$1" --help | grep -o '/usr/share/tachyon/[A-Za-z0-9_./-]*[A-Za-z0-9_]'
}
for t in tachyon-validate tachyon-conv; do
    names=$(named_files "$t")
    check "$t --help names files in /usr/share/tachyon" test -n "$names"
    for f in $names; do
        check "$t --help names $f, which the package has" test -f "$root$f"
    done
done
check "RULES.md is installed" test -f "$root/usr/share/tachyon/RULES.md"
check "the ClickHouse DDL is installed" \
    test -f "$root/usr/share/tachyon/clickhouse/tachyon_stacks.sql"

# Man pages (the source has them as docs/man/*.scd): one per tool in
# section 1, each opens; completions per tool.
man=0
compgen -G "$src/docs/man/*.scd" >/dev/null && man=1
[ $man = 1 ] || echo "NOTE: the source has no man pages (docs/man/*.scd); not checked"
if [ $man = 1 ]; then
    check "tachyon(7) names the installed data, /usr/share/tachyon/" sh -c \
        "MANWIDTH=200 man -l '$root/usr/share/man/man7/tachyon.7.gz' 2>/dev/null |
            grep -q '/usr/share/tachyon/'"
fi
for t in $tools; do
    page=$root/usr/share/man/man1/$t.1.gz
    if [ $man = 1 ]; then
        check "man page $t(1) is there" test -f "$page"
        check "man -l $t.1.gz opens and names $t" sh -c \
            "MANWIDTH=80 man -l '$page' 2>/dev/null | grep -q '$t'"
    fi
    check "bash completion of $t" test -f "$root/usr/share/bash-completion/completions/$t"
    check "zsh completion of $t" test -f "$root/usr/share/zsh/vendor-completions/_$t"
    check "fish completion of $t" test -f "$root/usr/share/fish/vendor_completions.d/$t.fish"
done
reply=$(bash --norc --noprofile -c '
    source "$1"
    COMP_WORDS=(tachyon-conv --to sv)
    COMP_CWORD=2
    _tachyon_conv tachyon-conv sv --to
    echo "${COMPREPLY[@]}"' _ "$root/usr/share/bash-completion/completions/tachyon-conv")
check "the installed bash completion: tachyon-conv --to sv<TAB> gives svg ('$reply')" \
    test "$reply" = svg

# 4. The -dev package: pkg-config and CMake find the library.
pc_dir=$root/$multiarch/pkgconfig
check "pkg-config --modversion tachyonfmt is $version" \
    test "$(PKG_CONFIG_PATH=$pc_dir pkg-config --modversion tachyonfmt)" = "$version"
check "examples/hottest.c builds with pkg-config's flags and runs" sh -c "
    cc -o '$scratch/hottest' '$src/examples/hottest.c' \
        \$(PKG_CONFIG_PATH='$pc_dir' pkg-config --cflags --libs tachyonfmt) &&
    '$scratch/hottest' '$src/testdata/cpython/workload/none.bin' >/dev/null"
check "find_package(tachyon $version) builds tests/consumer and it runs" \
    cmake -DPREFIX="$root/usr" -DWORK="$work/consumer" \
    -DSRC="$src/tests/consumer" -DCC=cc -DWANT="$version" \
    -DINPUT="$src/testdata/cpython/workload/none.bin" \
    -P "$src/tests/consumer/run_consumer.cmake"

# Before 1.0 a minor release may break the API: the CMake package of
# 0.2.x does not accept a request for 0.1.
IFS=. read -r major minor _ <<<"$version"
if [ "$major" = 0 ] && [ "$minor" -gt 0 ]; then
    older=0.$((minor - 1))
    cmake -S "$src/tests/consumer" -B "$work/consumer-older" \
        -DCMAKE_PREFIX_PATH="$root/usr" -DTACHYON_WANT="$older" \
        >"$work/older.log" 2>&1
    check "find_package(tachyon $older) refuses $version" \
        grep -q "compatible with requested version \"$older\"" "$work/older.log"
fi

# One version everywhere (the project's, in CMakeLists.txt).
check "the changelogs' version is $version" sh -c \
    "zcat '$root/usr/share/doc/tachyon/changelog.gz' | head -n 1 | grep -qF '($version)'"
if [ -f "$src/CHANGELOG.md" ]; then
    check "CHANGELOG.md's newest release is $version" sh -c \
        "grep -m 1 -E '^## ' '$src/CHANGELOG.md' | grep -qF '$version'"
else
    echo "NOTE: no CHANGELOG.md in the source tree; its version is not checked"
fi

# 5. lintian: errors fail, warnings are shown.
lintian --tag-display-limit 0 "$deb_tools" "$deb_lib" "$deb_dev" \
    >"$work/lintian.log" 2>&1
grep -E '^[EWI]: ' "$work/lintian.log"
check "lintian reports no error" test -z "$(grep '^E: ' "$work/lintian.log")"

echo "$((checks - fails)) passed, $fails failed"
[ "$fails" -eq 0 ]
