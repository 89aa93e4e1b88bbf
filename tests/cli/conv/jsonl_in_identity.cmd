# A JSONL export converted to JSONL: identity for schema v0 (the run id is
# kept), the pre-release dialect upgraded to v0, compressed or not, from a
# file or stdin. CPython's fixtures hold both dialects of each profile.
cd "$TESTDATA/cpython" || exit
for c in single_full repeat_rle suffix_calls pop_push interleaved_threads synthetic_frames workload; do
    tachyon-conv $c/expected.jsonl | cmp - $c/expected.jsonl && v0=same || v0=differs
    tachyon-conv $c/expected.v1.jsonl | cmp - $c/expected.jsonl && v1=equal || v1=differs
    gzip -c $c/expected.v1.jsonl | tachyon-conv - | cmp - $c/expected.jsonl && gz=equal || gz=differs
    echo "$c: v0 -> v0 $v0, v1 -> v0 $v1, gzip v1 on stdin $gz"
done
sed 's/"run_id":"0*"/"run_id":"5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e"/' workload/expected.jsonl > "$OLDPWD/w.jsonl"
tachyon-conv "$OLDPWD/w.jsonl" | cmp - "$OLDPWD/w.jsonl" && echo "a run id of its own is kept"
