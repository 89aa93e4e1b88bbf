head -c 100 "$TESTDATA/cpython/workload/none.bin" >cut.bin
echo old >out.jsonl
tachyon-conv --force -o out.jsonl cut.bin; echo "exit $?"
tachyon-conv --to bin --force -o out.jsonl cut.bin; echo "exit $?"
tachyon-conv -o new.jsonl cut.bin; echo "exit $?"
cat out.jsonl; ls
