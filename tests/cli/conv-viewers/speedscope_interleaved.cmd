tachyon-conv --to speedscope $TESTDATA/cpython/interleaved_threads/none.bin && tachyon-conv --to speedscope $TESTDATA/views/empty_stacks.bin
