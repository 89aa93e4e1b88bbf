f=$TESTDATA/cpython/single_full/none.bin
tachyon-conv --run-id 1234 $f; echo "exit $?"
tachyon-conv --run-id 0000000000000000000000000000000g $f; echo "exit $?"
tachyon-conv --run-id 000000000000000000000000000000000 $f; echo "exit $?"
tachyon-conv --run-id= $f
