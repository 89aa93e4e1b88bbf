cp "$TESTDATA/bad/bin_string_count.bin" . && tachyon-validate bin_string_count.bin
