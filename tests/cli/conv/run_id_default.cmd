d=$TESTDATA/cpython
tachyon-conv $d/workload/none.bin >a.jsonl && tachyon-conv $d/workload/none.bin >b.jsonl && cmp a.jsonl b.jsonl && echo "same input, same output"
cat $d/workload/none.bin | tachyon-conv - | cmp - a.jsonl && echo "same via stdin"
gzip -c $d/workload/none.bin | tachyon-conv - | cmp - a.jsonl && echo "same via gzip stdin"
head -n 1 a.jsonl | grep -Eq '"run_id":"[0-9a-f]{32}"' && echo "meta run_id is 32 hex digits"
echo "distinct run ids in the file: $(grep -o '"run_id":"[^"]*"' a.jsonl | sort -u | wc -l)"
tachyon-conv $d/pop_push/none.bin | head -n 1 | cmp -s - <(head -n 1 a.jsonl) || echo "another input, another run id"
tachyon-conv $d/pop_push/none.bin $d/workload/none.bin | head -n 1 >ab && tachyon-conv $d/workload/none.bin $d/pop_push/none.bin | head -n 1 >ba && tachyon-conv $d/pop_push/none.bin $d/workload/none.bin | head -n 1 | cmp - ab && echo "merge: deterministic"
cmp -s ab ba || echo "merge: order matters"
