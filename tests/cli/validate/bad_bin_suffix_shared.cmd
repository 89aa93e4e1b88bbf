cp "$TESTDATA/bad/bin_suffix_shared.bin" . && tachyon-validate bin_suffix_shared.bin
