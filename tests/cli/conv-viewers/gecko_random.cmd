python3 $TESTDATA/../tests/tools/gecko_random.py "$(command -v tachyon-conv)" . 20 10
