cp "$TESTDATA/bad/bin_zstd_truncated.bin" . && tachyon-validate bin_zstd_truncated.bin
