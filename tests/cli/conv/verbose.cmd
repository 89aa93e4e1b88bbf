cp "$TESTDATA/cpython/interleaved_threads/zstd.hdr-u32.bin" in.bin && gzip -c in.bin >in.gz
tachyon-conv -v in.bin >/dev/null; tachyon-conv -v --to bin in.gz >/dev/null
