python3 "$TESTDATA/../tests/tools/check_svg.py" "$(command -v tachyon-conv)" . "$TESTDATA" 4
