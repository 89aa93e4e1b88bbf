python3 "$TESTDATA/../tests/tools/par_random.py" "$(command -v tachyon-conv)" . 6
