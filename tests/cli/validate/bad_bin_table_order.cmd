cp "$TESTDATA/bad/bin_table_order.bin" . && tachyon-validate bin_table_order.bin
