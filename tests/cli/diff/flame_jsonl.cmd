cd "$TESTDATA/diff" && tachyon-diff -q -F html base.bin regressed.jsonl; echo "exit $?"; tachyon-diff -q -F svg -o "$OLDPWD/x.svg" base.jsonl regressed.bin; echo "exit $?"; ls "$OLDPWD"
