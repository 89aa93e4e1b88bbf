# tachyon-conv -o FILE without --to writes the format its name says
# (issue 21): each output equals what --to gives (decompressed where the
# name adds .gz, .zst...); a bare .json is refused (exit 2, nothing
# written); a name that says nothing keeps jsonl; --to wins over a name
# that says another format, with a warning (-q silences it).
i=$TESTDATA/example.bin
# gecko has the time and pid of the conversion, as CPython's has
unstamped() { sed -E 's/"startTime":[0-9.]+//; s/"pid":"[0-9]+"//g'; }
same() { # NAME FORMAT [DECOMPRESS]
    tachyon-conv -o "$1" "$i" || return
    tachyon-conv --to "$2" -o "ref.$2" "$i" || return
    if [ -n "${3:-}" ]; then
        $3 <"$1" >a.out && $3 <"ref.$2" >b.out 2>/dev/null || cp "ref.$2" b.out
        cmp -s a.out b.out && echo "$1: $2 (through $3)" || echo "$1: NOT $2"
    else
        cmp -s "$1" "ref.$2" && echo "$1: $2" || echo "$1: NOT $2"
    fi
    rm -f "ref.$2"
}
same run.jsonl jsonl
same run.collapsed collapsed
same run.folded collapsed
same run.bin bin
same run.svg svg
same run.html html
same run.pstats pstats
same run.prof pstats
same run.pprof pprof
same run.pb.gz pprof "gzip -dc"
same run.speedscope.json speedscope
same run.gecko.json gecko unstamped
same RUN.HTML html
same run.jsonl.gz jsonl "gzip -dc"
same run.collapsed.zst collapsed "zstd -dc"
same run.out jsonl
same run jsonl
tachyon-conv -o run.json "$i"; echo "run.json: exit $?"; ls run.json 2>/dev/null
tachyon-conv -o run.json.gz "$i"; echo "run.json.gz: exit $?"
tachyon-conv --to speedscope -o s.json "$i" && echo "--to speedscope -o s.json: no warning"
tachyon-conv --to jsonl -o run2.html "$i" && head -c 9 run2.html && echo
tachyon-conv --to top -o t.pb.gz "$i" && gzip -dc t.pb.gz | head -n 1
tachyon-conv -q --to collapsed -o q.svg "$i" && echo "-q: no warning"
tachyon-conv --pstats-compat -o c.html "$i" && echo "--pstats-compat wins"
tachyon-conv --to heatmap -o heat.html "$i" && ls heat.html
tachyon-conv --compression zstd -o z.bin "$i" && echo "z.bin: --compression applies to a .bin name"
