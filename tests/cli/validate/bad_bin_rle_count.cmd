cp "$TESTDATA/bad/bin_rle_count.bin" . && tachyon-validate bin_rle_count.bin
