cd "$TESTDATA/diff" && tachyon-diff --include "^app/" --exclude "^(idle|walk)$" base.bin regressed.bin
