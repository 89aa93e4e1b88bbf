cp "$TESTDATA/bad/bin_too_small.bin" . && tachyon-validate bin_too_small.bin
