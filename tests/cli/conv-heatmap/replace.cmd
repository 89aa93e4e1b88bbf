# DIR: an empty directory is filled; a non-empty one needs --force, which
# replaces only a directory holding a heatmap's files; a file is refused.
f=$TESTDATA/heatmap/edge.bin
mkdir empty && tachyon-conv -q --to heatmap -o empty $f; echo "exit $?"; ls empty
tachyon-conv -q --to heatmap -o empty $f; echo "exit $?"
tachyon-conv -q --to heatmap --force -o empty $TESTDATA/cpython/single_full/none.bin; echo "exit $?"; ls empty
mkdir mine && echo keep >mine/notes.txt
tachyon-conv -q --to heatmap --force -o mine $f; echo "exit $?"; ls mine
echo x >afile
tachyon-conv -q --to heatmap --force -o afile $f; echo "exit $?"; cat afile
tachyon-conv -q --to heatmap -o trailing/ $f; echo "exit $?"; ls trailing
tachyon-conv -q --to heatmap -o trailing// $f; echo "exit $?"
ls -A
