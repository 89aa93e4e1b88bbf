# The pages of testdata/heatmap/edge.bin (tests/tools/make_heatmap_fixtures.py
# says what its samples hold), byte for byte, its sources found through
# --path-map; then the pages' well-formedness and links.
tachyon-conv --to heatmap -o out --path-map /srv/edge/=$TESTDATA/heatmap/src/ $TESTDATA/heatmap/edge.bin 2>&1 | sed "s|$TESTDATA|TESTDATA|g"
ls out
for f in out/index.html out/file_*.html; do echo "==> $f"; sed "s|$TESTDATA|TESTDATA|g" $f; done
python3 $TESTDATA/../tests/tools/check_heatmap.py out
