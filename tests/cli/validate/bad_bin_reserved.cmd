cp "$TESTDATA/bad/bin_reserved.bin" . && tachyon-validate bin_reserved.bin
