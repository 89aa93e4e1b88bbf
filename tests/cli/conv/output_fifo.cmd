# A non-regular output (here a FIFO; /dev/null works the same way) is
# written in place: no --force needed, no temporary file, no rename.
d=$TESTDATA/cpython/pop_push
mkfifo pipe
cat pipe >got.txt &
tachyon-conv --to collapsed -o pipe $d/none.bin; echo "exit $?"
wait
cmp got.txt $d/expected.collapsed && echo "collapsed through the FIFO"
cat pipe >got.bin &
tachyon-conv --to bin -c none -o pipe $d/zstd.bin; echo "exit $?"
wait
cmp got.bin $d/none.bin && echo "bin through the FIFO"
[ -p pipe ] && echo "pipe is still a FIFO"
ls
