cp "$TESTDATA/bad/bin_frame_index_edge.bin" . && tachyon-validate bin_frame_index_edge.bin
