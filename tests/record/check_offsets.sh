#!/bin/sh
# SPDX-License-Identifier: MIT
# check_offsets.sh PYTHON PRINT_OFFSETS - re-derive every constant that
# tachyon-record assumes for PYTHON's minor version from the DWARF of its
# libpython (gdb -batch) and compare. Skips (77) without gdb, without a
# shared libpython or without debug information.
py=$1
printer=$2
command -v gdb >/dev/null 2>&1 || { echo "SKIP: no gdb"; exit 77; }
minor=$("$py" -c 'import sys; print("%d.%d" % sys.version_info[:2])')
lib=$("$py" -c 'import sysconfig, os
v = sysconfig.get_config_var
print(os.path.join(v("LIBDIR"), v("LDLIBRARY")))')
[ -f "$lib" ] || { echo "SKIP: no shared libpython ($lib)"; exit 77; }
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
