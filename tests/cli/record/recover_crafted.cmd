# Issue 22, item 6: a crafted FILE.recover (samples end at 0, a 4-byte
# trailer) once cut the log to 64 zero bytes. Now it is refused, the log
# stays byte for byte as it was, and no file is left beside it.
head -c 45700 "$TESTDATA/cpython/workload/none.bin" > run.bin
cp run.bin before.bin
{ printf 'TACHRCV1'; printf '\0%.0s' 1 2 3 4 5 6 7 8;
  printf '\4\0\0\0\0\0\0\0'; head -c 64 /dev/zero; printf 'abcd'; } \
  > run.bin.recover
tachyon-record --recover run.bin; echo "exit $?"
cmp run.bin before.bin && echo "log unchanged"
ls
