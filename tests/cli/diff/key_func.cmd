cd "$TESTDATA/diff" && tachyon-diff --key func --format csv base.bin regressed.bin | cut -d, -f1-4,7-8
