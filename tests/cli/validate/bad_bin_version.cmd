cp "$TESTDATA/bad/bin_version.bin" . && tachyon-validate bin_version.bin
