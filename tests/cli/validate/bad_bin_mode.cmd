cp "$TESTDATA/bad/bin_mode.bin" . && tachyon-validate bin_mode.bin
