d=$TESTDATA/cpython/suffix_calls
for v in none zstd none.hdr-u32 zstd.hdr-u32; do tachyon-conv --to bin --compression none $d/$v.bin >out.bin && cmp out.bin $d/none.bin && echo "$v.bin -> none: equals none.bin"; done
tachyon-conv --to bin $d/none.bin >keep.bin && cmp keep.bin $d/none.bin && echo "none.bin -> bin: equals none.bin"
tachyon-conv --to bin $d/zstd.bin >z.bin && echo "zstd.bin -> bin: compression field $(od -An -tu4 -j56 -N4 z.bin | tr -d ' ')"
tachyon-conv --to bin --compression none z.bin | cmp - $d/none.bin && echo "... -> none: equals none.bin"
tachyon-conv --to bin -c zstd $d/none.bin >z2.bin && tachyon-conv --run-id 00000000000000000000000000000000 z2.bin | cmp - $d/expected.jsonl && echo "none.bin -> zstd -> jsonl: equals expected.jsonl"
