cp "$TESTDATA/bad/bin_thread_count.bin" . && tachyon-validate bin_thread_count.bin
