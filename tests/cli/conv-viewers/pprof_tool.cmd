command -v pprof >/dev/null || exit 77; tachyon-conv --to pprof -o w.pb.gz $TESTDATA/cpython/workload/none.bin && pprof -top -nodecount=6 w.pb.gz && pprof -tags w.pb.gz
