cd "$TESTDATA/diff" && tachyon-diff --key file:func:line --format csv base.bin regressed.bin | cut -d, -f1-4,7-8,16-17
