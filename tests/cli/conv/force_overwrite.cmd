d=$TESTDATA/cpython/repeat_rle
echo old >out.txt
tachyon-conv --to collapsed --force -o out.txt $d/none.bin && cmp out.txt $d/expected.collapsed && echo "replaced"
echo old >out.bin
tachyon-conv --to bin -f -c none -o out.bin $d/zstd.bin && cmp out.bin $d/none.bin && echo "replaced bin"
ls
