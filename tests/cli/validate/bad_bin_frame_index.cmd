cp "$TESTDATA/bad/bin_frame_index.bin" . && tachyon-validate bin_frame_index.bin
