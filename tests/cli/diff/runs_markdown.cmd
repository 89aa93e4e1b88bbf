cd "$TESTDATA/diff" && tachyon-diff --format markdown --fail-on-regression 1 --base run_base1.bin --base run_base2.bin --base run_base3.bin --new run_new1.bin --new run_new2.bin --new run_new3.bin
