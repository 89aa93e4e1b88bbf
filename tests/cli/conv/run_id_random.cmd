f=$TESTDATA/cpython/pop_push/none.bin
tachyon-conv --run-id random $f >a.jsonl && tachyon-conv --run-id random $f >b.jsonl || exit
for x in a b; do grep -o '"run_id":"[^"]*"' $x.jsonl | sort -u | grep -Ec '^"run_id":"[0-9a-f]{12}4[0-9a-f]{3}[89ab][0-9a-f]{15}"$'; done
cmp -s a.jsonl b.jsonl || echo "the two run ids differ"
sed 's/"run_id":"[0-9a-f]*"/"run_id":"00000000000000000000000000000000"/' a.jsonl | cmp - "$TESTDATA/cpython/pop_push/expected.jsonl" && echo "otherwise equal to expected.jsonl"
