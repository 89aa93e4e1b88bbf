cp "$TESTDATA/bad/bin_varint_big.bin" . && tachyon-validate bin_varint_big.bin
