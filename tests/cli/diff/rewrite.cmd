cd "$TESTDATA/diff" && tachyon-diff --rewrite "^.*/site-packages/=>" --fail-on-regression 0 --min-delta 0 base.bin moved.bin
