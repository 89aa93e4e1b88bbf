# Every binary defect in testdata/bad (see its MANIFEST) gets one located
# message; checksum, reserved-byte and unused-thread findings are warnings.
cd "$TESTDATA/bad" || exit
for f in bin_checksum bin_compression bin_encoding bin_footer_size bin_frame_count bin_frame_index bin_header_zero bin_magic bin_mode bin_reserved bin_sample_count bin_stats_size bin_string_count bin_string_offset bin_table_order bin_thread_count bin_threads_unused bin_too_small bin_trailing bin_truncated bin_version bin_zstd_corrupt bin_zstd_truncated; do
    tachyon-conv --to collapsed $f.bin >/dev/null; echo "$f: exit $?"
done
tachyon-conv not_tachyon.txt; echo "not_tachyon: exit $?"
tachyon-conv jsonl_syntax.jsonl; echo "jsonl_syntax: exit $?"
tachyon-conv --to bin bin_zstd_truncated.bin >/dev/null; echo "bin_zstd_truncated --to bin: exit $?"
