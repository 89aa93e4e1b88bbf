cd "$TESTDATA/diff" && tachyon-diff --format csv tiny_base.bin tiny_new.bin; tachyon-diff --format csv --normalize none tiny_base.bin tiny_new.bin
