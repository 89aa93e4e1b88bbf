f=$TESTDATA/cpython/workload/none.bin
head -c 100 $f >cut100.bin; tachyon-conv cut100.bin; echo "exit $?"
head -c 40000 $f >cut40000.bin; tachyon-conv cut40000.bin; echo "exit $?"
head -c 10 $f >cut10.bin; tachyon-conv cut10.bin; echo "exit $?"
: >empty.bin; tachyon-conv empty.bin; echo "exit $?"
head -c 5000 "$TESTDATA/cpython/workload/zstd.bin" | tachyon-conv -; echo "exit $?"
