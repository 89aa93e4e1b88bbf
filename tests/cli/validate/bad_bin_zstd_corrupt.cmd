cp "$TESTDATA/bad/bin_zstd_corrupt.bin" . && tachyon-validate bin_zstd_corrupt.bin
