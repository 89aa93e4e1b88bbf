# pstats from an export: CPython's direct and cumulative counts (the
# JSONL's per-frame figures), no caller edges (a warning says so). Equal
# to CPython's own pstats except callers, and except cumulative where a
# function recursed through two columns of one line (workload's fib).
pairs=
for c in single_full repeat_rle suffix_calls pop_push interleaved_threads synthetic_frames workload; do
    tachyon-conv --to pstats -o $c.pstats $TESTDATA/cpython/$c/expected.jsonl 2>>warnings && pairs="$pairs $c.pstats $TESTDATA/cpython/$c/expected.pstats"
done
sed "s|$TESTDATA/||" warnings
python3 - $pairs <<'PY'
import marshal, sys
a = sys.argv[1:]
for got, exp in zip(a[::2], a[1::2]):
    g = marshal.load(open(got, "rb")); e = marshal.load(open(exp, "rb"))
    odd = [k for k in e if k != ("__sampled__",) and g.get(k, (0, 0))[:2] != e[k][:2]]
    callers = sum(1 for k, v in g.items() if k != ("__sampled__",) and v[4])
    print(got, "keys equal" if set(g) == set(e) else "keys differ",
          "counts differ at", odd, "callers", callers)
PY
