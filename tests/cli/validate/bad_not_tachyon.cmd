cp "$TESTDATA/bad/not_tachyon.txt" . && tachyon-validate not_tachyon.txt
