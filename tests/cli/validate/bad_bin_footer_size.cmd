cp "$TESTDATA/bad/bin_footer_size.bin" . && tachyon-validate bin_footer_size.bin
