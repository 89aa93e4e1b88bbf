# A 4 MB REPEAT record whose status alternates on every sample (quadratic
# in CPython's replay) validates in linear time; `timeout` turns a
# regression into a failure instead of a hang.
command -v python3 >/dev/null || exit 77
python3 "$TESTDATA/../tests/cli/validate/make_rle.py" rle.bin
timeout 20 tachyon-validate -v rle.bin; echo "exit $?"
