# Every CPython fixture (both JSONL dialects, every binary variant, both
# byte orders) is valid.
cd "$TESTDATA" && tachyon-validate -v cpython/*/expected*.jsonl cpython/*/*.bin bigendian/*.bin
