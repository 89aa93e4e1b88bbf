# Outputs that need stacks refuse a JSONL export in one line that says why
# (exit 2, nothing written), also after a binary log; so do the filters
# that need samples and --per-thread; --rewrite applies.
cd "$TESTDATA/cpython/single_full" || exit
for t in collapsed speedscope gecko pprof svg html; do
    tachyon-conv --to $t -o "$OLDPWD/out.$t" none.bin expected.jsonl; echo "--to $t: exit $?"
done
tachyon-conv --to bin -o "$OLDPWD/out.bin" expected.jsonl; echo "--to bin: exit $?"
ls "$OLDPWD" | grep -c '^out\.' 
tachyon-conv --to top --thread 1 expected.jsonl; echo "--thread: exit $?"
tachyon-conv --to top --exclude main expected.jsonl; echo "--exclude: exit $?"
tachyon-conv --to top --per-thread expected.jsonl; echo "--per-thread: exit $?"
tachyon-conv --to top --rewrite '\.py$=>.pyx' expected.jsonl | tail -n +3
