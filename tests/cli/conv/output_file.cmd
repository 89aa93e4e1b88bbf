d=$TESTDATA/cpython/repeat_rle
tachyon-conv --run-id 00000000000000000000000000000000 -o out.jsonl $d/none.bin && cmp out.jsonl $d/expected.jsonl && echo "-o ok"
tachyon-conv --to collapsed --output=out.txt $d/none.bin && cmp out.txt $d/expected.collapsed && echo "--output= ok"
tachyon-conv --to bin -o out.bin $d/zstd.bin -c none && cmp out.bin $d/none.bin && echo "bin -o ok"
tachyon-conv --to collapsed -o - $d/none.bin | cmp - $d/expected.collapsed && echo "-o - is stdout"
ls
