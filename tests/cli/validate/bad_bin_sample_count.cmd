cp "$TESTDATA/bad/bin_sample_count.bin" . && tachyon-validate bin_sample_count.bin
