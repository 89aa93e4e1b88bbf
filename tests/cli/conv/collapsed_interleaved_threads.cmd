d=$TESTDATA/cpython/interleaved_threads; for v in none zstd none.hdr-u32 zstd.hdr-u32; do tachyon-conv --to collapsed $d/$v.bin >out.txt && cmp out.txt $d/expected.collapsed && echo "$v.bin ok"; done
