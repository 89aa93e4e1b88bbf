cp "$TESTDATA/bad/bin_encoding.bin" . && tachyon-validate bin_encoding.bin
