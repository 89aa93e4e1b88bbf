cp "$TESTDATA/bad/bin_magic.bin" . && tachyon-validate bin_magic.bin
