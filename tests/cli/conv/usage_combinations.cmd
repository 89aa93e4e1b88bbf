f=$TESTDATA/cpython/single_full/none.bin
tachyon-conv --to collapsed --run-id random $f; echo "exit $?"
tachyon-conv --compression zstd $f; echo "exit $?"
tachyon-conv --to bin -o out.bin $f $f; echo "exit $?"
tachyon-conv - - <$f; echo "exit $?"
ls
