for i in 1 2 3 4; do cat "$TESTDATA/cpython/workload/none.bin"; done | gzip -n | head -c 40000 > cut.bin.gz; tachyon-validate cut.bin.gz
