d=$TESTDATA/cpython/repeat_rle
echo old >out.jsonl
tachyon-conv -o out.jsonl $d/none.bin; echo "exit $?"
tachyon-conv --to bin -o out.jsonl $d/none.bin; echo "exit $?"
cat out.jsonl; ls
