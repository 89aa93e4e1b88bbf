cp "$TESTDATA/bad/bin_string_offset.bin" . && tachyon-validate bin_string_offset.bin
