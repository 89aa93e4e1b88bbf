cp "$TESTDATA/bad/bin_frame_count.bin" . && tachyon-validate bin_frame_count.bin
