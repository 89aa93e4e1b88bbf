# A failed run leaves no directory, no temporary one, and an old DIR as it
# was.
head -c 100 "$TESTDATA/cpython/workload/none.bin" >cut.bin
tachyon-conv --to heatmap -o out cut.bin; echo "exit $?"
tachyon-conv -q --to heatmap -o old $TESTDATA/cpython/single_full/none.bin; ls old
tachyon-conv --to heatmap --force -o old cut.bin; echo "exit $?"; ls old
ls -A
