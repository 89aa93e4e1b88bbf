cd "$TESTDATA/diff" && tachyon-diff --color always --top 1 base.bin regressed.bin | grep db.py | cat -v; tachyon-diff --color never --top 1 base.bin regressed.bin | grep db.py | cat -v
