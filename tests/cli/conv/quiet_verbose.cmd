# -q with -v is a usage error in every tool (issue 21), even bundled.
tachyon-conv -q -v "$TESTDATA/example.bin"; echo "exit $?"
tachyon-conv -vq --verbose "$TESTDATA/example.bin"; echo "exit $?"
