command -v script >/dev/null || { echo "script(1) not available" >&2; exit 77; }
script -qec "tachyon-conv --to bin '$TESTDATA/cpython/single_full/none.bin'" /dev/null </dev/null | tr -d '\r'; echo "exit ${PIPESTATUS[0]}"
