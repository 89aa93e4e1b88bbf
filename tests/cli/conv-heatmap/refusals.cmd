# Usage errors: no directory, options of other formats, bad --path-map,
# --recorded-paths alone; no directory is made in /dev.
f=$TESTDATA/heatmap/edge.bin
tachyon-conv --to heatmap $f; echo "exit $?"
tachyon-conv --to heatmap -o - $f; echo "exit $?"
tachyon-conv --to heatmap --no-lines -o out $f; echo "exit $?"
tachyon-conv --to svg --source-root . -o x.svg $f; echo "exit $?"
tachyon-conv --to heatmap --path-map /srv/edge -o out $f; echo "exit $?"
tachyon-conv --to heatmap --path-map =/x -o out $f; echo "exit $?"
tachyon-conv --to heatmap --path-map /x= -o out $f; echo "exit $?"
tachyon-conv --to heatmap --recorded-paths -o out $f; echo "exit $?"
tachyon-conv --to top --recorded-paths $f; echo "exit $?"
tachyon-conv --to heatmap -o /dev/hm $f; echo "exit $?"
tachyon-conv --to heatmap -o nodir/out $f; echo "exit $?"
ls -A
