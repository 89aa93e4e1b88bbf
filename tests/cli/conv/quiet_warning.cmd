cp "$TESTDATA/cpython/single_full/none.bin" w.bin
printf '\001' | dd of=w.bin bs=1 seek=$(( $(wc -c <w.bin) - 1 )) conv=notrunc 2>/dev/null
tachyon-conv --to collapsed w.bin; echo "exit $?"
tachyon-conv -q --to collapsed w.bin; echo "exit $?"
