cp "$TESTDATA/bad/bin_stats_size.bin" . && tachyon-validate bin_stats_size.bin
