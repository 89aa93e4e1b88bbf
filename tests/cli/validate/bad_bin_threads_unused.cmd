cp "$TESTDATA/bad/bin_threads_unused.bin" . && tachyon-validate bin_threads_unused.bin
