cd "$TESTDATA/diff" && tachyon-diff --format collapsed-diff base.bin regressed.bin && tachyon-diff -F collapsed-diff --normalize none --exclude "^main$" base.bin regressed.bin
