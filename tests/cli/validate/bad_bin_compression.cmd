cp "$TESTDATA/bad/bin_compression.bin" . && tachyon-validate bin_compression.bin
