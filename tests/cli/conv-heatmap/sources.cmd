# Finding sources: below --source-root by the path's end, through
# --path-map; a missing source is said on its page and counted in one
# warning; a path that is not a Python source is never read, nor a FIFO.
cp -r $TESTDATA/heatmap/src tree && mkdir root && cp -r $TESTDATA/heatmap/src root/edge
tachyon-conv --to heatmap -o a --source-root root $TESTDATA/heatmap/edge.bin; echo "exit $?"
grep -o 'source read from [^<]*' a/file_000*.html
grep -o '<div class="note"><b>Source not available.</b> [^<]*' a/file_0002.html
grep -o '<span class="miss">[^<]*' a/index.html
tachyon-conv --to heatmap -o b $TESTDATA/heatmap/edge.bin; echo "exit $?"
grep -o '<div class="note"><b>Source not available.</b> [^<]*' b/file_0000.html
mkfifo fifo && mkdir f && ln -s ../fifo f/edge.py
tachyon-conv -q --to heatmap -o c --path-map /srv/edge/=f/ $TESTDATA/heatmap/edge.bin; echo "exit $?"
grep -o '<div class="note"><b>Source not available.</b> [^<]*' c/file_0000.html
cat >secret.json <<'JSON'
{"start_time_us": 1000, "sample_interval_us": 1000, "mode": "wall", "stats": null,
 "samples": [{"t": 2000, "interps": [{"id": 0, "threads": [{"tid": 1, "status": 3, "frames": [["/etc/passwd", [1, 1, 0, 4], "f", null], ["tree/edge.py", [17, 17, 4, 10], "<module>", null]]}]}]}]}
JSON
python3 $TESTDATA/../tests/tools/make_log.py secret.json secret.bin
tachyon-conv -q --to heatmap -o d secret.bin; echo "exit $?"
grep -c root: d/*.html
grep -o '<div class="note"><b>Source not available.</b> [^<]*' d/file_*.html
grep -o 'class="c">    main()' d/file_*.html
# a link that stays beneath the root (a venv's lib64 -> lib) is followed;
# the recorded path is read only with --recorded-paths
mkdir -p g/usr/lib64/python3.15 && ln -s lib64 g/usr/lib && printf 'def cache(f):\n    return f\n' > g/usr/lib64/python3.15/functools.py
tachyon-conv -q --to heatmap -o e --source-root g $TESTDATA/heatmap/edge.bin; echo "exit $?"
grep -o 'source read from [^<]*' e/file_000*.html
tachyon-conv -q --to heatmap -o h --path-map /srv/edge/=f/ --recorded-paths $TESTDATA/heatmap/edge.bin; echo "exit $?"
grep -o '<div class="note"><b>Source not available.</b> [^<]*' h/file_0000.html
