# Valid JSONL variants: Windows line endings, forward-compatible additions
# (notes with -v), tables split in 256-entry chunks.
cd "$TESTDATA/jsonl" && tachyon-validate -v crlf.jsonl forward_compat.jsonl chunked.jsonl
