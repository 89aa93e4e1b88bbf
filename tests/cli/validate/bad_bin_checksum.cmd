cp "$TESTDATA/bad/bin_checksum.bin" . && tachyon-validate bin_checksum.bin
