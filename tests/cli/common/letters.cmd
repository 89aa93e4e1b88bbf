# One meaning per letter (issue 21): the short options every tool's
# --help shows, side by side; a letter that means two long options in
# two tools is reported as a conflict. (test_cli_letters.c checks the
# tables themselves.)
for t in conv diff validate record; do
    command -v "tachyon-$t" >/dev/null || continue
    "tachyon-$t" --help | sed -n "s/^  -\(.\), --\([a-z-]*\).*/\1 --\2 $t/p"
done | sort -k1,1 -k3,3 | awk '
    { tools[$1 " " $2] = tools[$1 " " $2] " " $3; long[$1] = long[$1] " " $2 }
    END {
        for (k in tools) print k ":" tools[k] | "sort"
        close("sort")
        for (l in long) {
            n = split(long[l], a, " "); first = a[1]
            for (i = 2; i <= n; i++) if (a[i] != first) print "CONFLICT: -" l ":" long[l]
        }
    }'
