# -q with -v is a usage error in every tool (issue 21), even bundled.
tachyon-diff -q -v "$TESTDATA/example.bin"; echo "exit $?"
tachyon-diff -vq --verbose "$TESTDATA/example.bin"; echo "exit $?"
