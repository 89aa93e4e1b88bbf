#!/bin/sh
# SPDX-License-Identifier: MIT
# check_offsets.sh PYTHON PRINT_OFFSETS - re-derive every constant that
# tachyon-record assumes for PYTHON's minor version from the DWARF of its
# libpython, or of the executable for a static build (gdb -batch), and
# compare. Skips (77) without gdb or without debug information.
py=$1
printer=$2
command -v gdb >/dev/null 2>&1 || { echo "SKIP: no gdb"; exit 77; }
minor=$("$py" -c 'import sys, sysconfig
ft = "t" if sysconfig.get_config_var("Py_GIL_DISABLED") else ""
print("%d.%d%s" % (sys.version_info[:2] + (ft,)))')
# The file that holds the interpreter: a shared libpython (pyenv), else
# the executable itself (a static build, as build-cpython.sh makes).
lib=$("$py" -c 'import sysconfig, os, sys
v = sysconfig.get_config_var
lib = os.path.join(v("LIBDIR"), v("LDLIBRARY"))
print(lib if lib.endswith(".so") or ".so." in lib else sys.executable)')
[ -f "$lib" ] || { echo "SKIP: no libpython or executable ($lib)"; exit 77; }
tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT
"$printer" "$minor" > "$tmp/expected" || exit 2
cut -f1 "$tmp/expected" | sed 's/^/print /' > "$tmp/cmds"
gdb -batch -nx -x "$tmp/cmds" "$lib" > "$tmp/gdb" 2>&1
if ! grep -q '^\$1 = ' "$tmp/gdb"; then
    echo "SKIP: gdb cannot evaluate (no debug info?)"
    cat "$tmp/gdb"
    exit 77
fi
sed -n 's/^\$[0-9]* = //p' "$tmp/gdb" > "$tmp/actual"
n=$(wc -l < "$tmp/expected")
paste "$tmp/expected" "$tmp/actual" | awk -F'\t' -v n="$n" '
    $2 != $3 { print "MISMATCH: " $1 ": table " $2 ", DWARF " $3; bad++ }
    END { if (NR != n) { print "gdb gave " NR " values for " n; bad++ }
          printf "%d passed, %d failed\n", NR - bad, bad; exit bad > 0 }'
