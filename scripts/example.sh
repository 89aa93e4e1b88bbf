#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# example.sh - the "make run" demo: convert the bundled example profile
# (testdata/example.bin, a CPython 3.15 Tachyon binary log of a stdlib
# workload) to JSONL and to collapsed stacks, and summarize the results.
#
# usage: scripts/example.sh BUILD_DIR
set -euo pipefail

build=${1:-build}
conv=$build/tools/tachyon-conv
in=testdata/example.bin
out=$build/example.jsonl
stacks=$build/example.collapsed

echo "==> $conv -v --force -o $out $in"
"$conv" -v --force -o "$out" "$in"
echo "==> $conv --to collapsed --force -o $stacks $in"
"$conv" --to collapsed --force -o "$stacks" "$in"

echo
echo "JSONL profile: $out ($(wc -l <"$out") records, $(wc -c <"$out") bytes)"
grep -o '^{"type":"[a-z_]*"' "$out" | cut -d'"' -f4 | uniq -c |
    awk '{ printf "  %-12s %s record(s)\n", $2, $1 }'
echo "  first line:  $(head -n 1 "$out")"
echo "  last line:   $(tail -n 1 "$out")"
echo
echo "Hottest stacks ($stacks, leaf frame and sample count):"
head -n 5 "$stacks" | awk '{ n = $NF; sub(/ [0-9]+$/, "");
    k = split($0, f, ";"); printf "  %6d  %s\n", n, f[k] }'
echo
echo "Convert your own Tachyon binary log:"
echo "  $conv profile.bin > profile.jsonl"
