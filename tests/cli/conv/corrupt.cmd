f=$TESTDATA/cpython/pop_push/none.bin
cp $f magic.bin; printf 'XXXX' | dd of=magic.bin conv=notrunc 2>/dev/null
tachyon-conv magic.bin; echo "exit $?"
cp $f version.bin; printf '\011' | dd of=version.bin bs=1 seek=4 conv=notrunc 2>/dev/null
tachyon-conv version.bin; echo "exit $?"
cp $f strings.bin; printf '\377\377\377\377' | dd of=strings.bin bs=1 seek=40 conv=notrunc 2>/dev/null
tachyon-conv strings.bin; echo "exit $?"
printf 'hello world, not a profile\n' | gzip -c | tachyon-conv -; echo "exit $?"
