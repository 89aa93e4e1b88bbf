# -q with -v is a usage error in every tool (issue 21), even bundled.
tachyon-validate -q -v "$TESTDATA/example.bin"; echo "exit $?"
tachyon-validate -vq --verbose "$TESTDATA/example.bin"; echo "exit $?"
