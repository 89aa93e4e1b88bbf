cp "$TESTDATA/bad/bin_header_zero.bin" . && tachyon-validate bin_header_zero.bin
