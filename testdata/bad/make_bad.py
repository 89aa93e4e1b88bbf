#!/usr/bin/env python3
"""make_bad.py - regenerate the one-defect fixtures of testdata/bad/.

Every file is derived from a CPython-written fixture in testdata/cpython/
by changing exactly one thing; MANIFEST lists each file with the rule id it
must trigger and tachyon-validate's exit status (tests/cli/validate/ pins
the exact messages). Run from anywhere: python3 testdata/bad/make_bad.py
"""
import json
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
CPY = os.path.join(HERE, "..", "cpython")
MANIFEST = []


def src(case, name):
    with open(os.path.join(CPY, case, name), "rb") as f:
        return f.read()


def put(name, data, rule, status, why):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)
    MANIFEST.append((name, rule, status, why))


def lines_of(case, name="expected.jsonl"):
    return [json.loads(l) for l in src(case, name).decode().splitlines()]


def dump(records):
    """CPython's encoding: compact separators, ASCII, one record a line."""
    return "".join(json.dumps(r, separators=(",", ":")) + "\n"
                   for r in records).encode()


def raw_lines(case, name="expected.jsonl"):
    return src(case, name).decode().splitlines(keepends=True)


def jsonl_fixtures():
    base = lines_of("synthetic_frames")      # meta, strings, frames, agg, end
    v1 = lines_of("synthetic_frames", "expected.v1.jsonl")
    raw = raw_lines("synthetic_frames")

    put("jsonl_syntax.jsonl", "".join(raw[:2] + [raw[2][:60] + "\n"] +
        raw[3:]).encode(), "TV102", 1, "frame_table line cut short")
    bad_utf8 = raw[1].replace('"<GC>"', '"<G\\u0043>"').encode()
    bad_utf8 = bad_utf8.replace(b"<G\\u0043>", b"<G\xffC>")
    put("jsonl_utf8.jsonl", raw[0].encode() + bad_utf8 +
        "".join(raw[2:]).encode(), "TV102", 1, "invalid UTF-8 in a string")
    put("jsonl_not_object.jsonl", "".join(raw[:4] + ["[1,2]\n"] +
        raw[4:]).encode(), "TV103", 1, "an array line")
    put("jsonl_blank_line.jsonl", "".join(raw[:1] + ["\n"] +
        raw[1:]).encode(), "TV103", 1, "an empty line")

    r = [dict(x) for x in base]
    del r[1]["type"]
    put("jsonl_no_type.jsonl", dump(r), "TV104", 1, "record without type")
    r = [dict(x) for x in base]
    r[4]["v"] = 2
    put("jsonl_bad_version.jsonl", dump(r), "TV105", 1, "end with v 2")
    r = [dict(x) for x in base]
    del r[4]["samples_total"]
    put("jsonl_missing_field.jsonl", dump(r), "TV106", 1,
        "end without samples_total")
    r = [dict(x) for x in base]
    r[0]["sample_interval_usec"] = "1000"
    put("jsonl_wrong_type.jsonl", dump(r), "TV107", 1,
        "interval as a string")
    r = json.loads(json.dumps(base))
    r[3]["entries"][1]["self"] = -1
    put("jsonl_negative.jsonl", dump(r), "TV108", 1, "negative self")
    r = json.loads(json.dumps(base))
    r[3]["entries"][1]["self"] = -1
    put("jsonl_range_then_end.jsonl", dump(r + [r[4]]), "TV108", 1,
        "negative self, then a second end record (TV113): both reported")
    r = json.loads(json.dumps(v1))
    r[3]["entries"].append({"frame_id": 0, "self": 0, "cumulative": 0})
    put("jsonl_v1_zero_id.jsonl", dump(r), "TV108", 1,
        "frame_id 0 in the 1-based dialect")

    put("jsonl_meta_not_first.jsonl", dump([base[1], base[0]] + base[2:]),
        "TV110", 1, "string_table before meta")
    put("jsonl_two_meta.jsonl", dump(base[:2] + [base[0]] + base[2:]),
        "TV111", 1, "meta repeated")
    put("jsonl_no_end.jsonl", dump(base[:4]), "TV112", 1, "no end record")
    put("jsonl_two_end.jsonl", dump(base + [base[4]]), "TV113", 1,
        "end repeated")
    extra = {"type": "string_table", "v": 0, "run_id": base[0]["run_id"],
             "strings": [{"str_id": 99, "value": "late"}]}
    put("jsonl_after_end.jsonl", dump(base + [extra]), "TV114", 1,
        "string_table after end")
    r = json.loads(json.dumps(base))
    r[2]["run_id"] = "1" * 32
    put("jsonl_run_id.jsonl", dump(r), "TV115", 1, "second run_id")
    r = json.loads(json.dumps(base))
    r[4]["v"] = 1
    put("jsonl_mixed_dialect.jsonl", dump(r), "TV116", 1,
        "end record in the v1 dialect")

    r = json.loads(json.dumps(base))
    r[1]["strings"].append({"str_id": 3, "value": "again"})
    put("jsonl_dup_str.jsonl", dump(r), "TV120", 1, "str_id 3 twice")
    r = json.loads(json.dumps(base))
    r[2]["frames"].append(dict(r[2]["frames"][0]))
    put("jsonl_dup_frame.jsonl", dump(r), "TV121", 1, "frame_id 0 twice")
    r = json.loads(json.dumps(base))
    r[2]["frames"][1]["path_str_id"] = 99
    put("jsonl_undef_str.jsonl", dump(r), "TV122", 1,
        "path_str_id 99 undefined")
    r = json.loads(json.dumps(base))
    r[3]["entries"].append({"frame_id": 99, "self": 0, "cumulative": 0})
    put("jsonl_undef_frame.jsonl", dump(r), "TV123", 1,
        "agg entry for frame 99")
    r = json.loads(json.dumps(base))
    r[3]["entries"].append(dict(r[3]["entries"][0]))
    put("jsonl_dup_agg.jsonl", dump(r), "TV124", 1, "frame 0 listed twice")
    r = json.loads(json.dumps(base))
    r[4]["samples_total"] = 10
    put("jsonl_total.jsonl", dump(r), "TV125", 1, "end total 10, agg 9")
    r = json.loads(json.dumps(base))
    r[3]["entries"][3]["self"] = 5
    r[3]["entries"][3]["cumulative"] = 4
    put("jsonl_self_gt_cum.jsonl", dump(r), "TV126", 1,
        "self 5 > cumulative 4")
    r = json.loads(json.dumps(base))
    r[3]["entries"][2]["cumulative"] = 10  # one past the total
    put("jsonl_cum_gt_total.jsonl", dump(r), "TV127", 1,
        "cumulative 10 > total 9")

    put("jsonl_empty.jsonl", b"", "TV002", 1, "empty file")
    put("not_tachyon.txt", b"hello, not a profile\n", "TV003", 1,
        "plain text")
    long_line = dict(base[0])
    long_line["padding"] = "x" * 5000
    put("jsonl_long_line.jsonl", dump([long_line] + base[1:]), "TV101", 1,
        "a 5100-byte meta line, validated with --max-line 4096")

    import gzip
    whole = gzip.compress(src("workload", "expected.jsonl"), mtime=0)
    put("jsonl_gzip_truncated.jsonl.gz", whole[:2000], "TV004", 1,
        "gzip stream cut after 2000 bytes")

    # Warnings: exit 0, or 1 with --strict.
    put("jsonl_no_newline.jsonl", dump(base)[:-1], "TV130", 0,
        "no newline after end")
    r = json.loads(json.dumps(base))
    del r[3]["entries"][5]
    put("jsonl_no_agg.jsonl", dump(r), "TV131", 0, "frame 5 has no agg entry")
    r = json.loads(json.dumps(base))
    for x in r:
        x["run_id"] = "run-1"
    put("jsonl_run_id_form.jsonl", dump(r), "TV132", 0, "run_id 'run-1'")
    # Notes: shown with -v, exit 0.
    r = json.loads(json.dumps(base))
    r[0]["host"] = "ci-7"
    r.insert(4, {"type": "window", "v": 0, "run_id": r[0]["run_id"]})
    put("jsonl_unknown.jsonl", dump(r), "TV140", 0,
        "an unknown type and an unknown field (notes)")


def patch(data, off, fmt, value):
    b = bytearray(data)
    struct.pack_into(fmt, b, off, value)
    return bytes(b)


def with_stats(data, size_field=56):
    """Insert a 56-byte statistics block before the footer (fixing the
    footer's file size), its size field set to `size_field`."""
    body, foot = data[:-32], data[-32:]
    stats = struct.pack("<ddddII8sII", 1.5, 1000.0, 0.0, 0.0, 3, 0,
                        b"TACHSTAT", 1, size_field)
    out = body + stats + foot
    return patch(out, len(out) - 24, "<Q", len(out))


def cut_region(data, k):
    """Remove the last k bytes of the sample region, moving the tables up
    and fixing the header offsets and the footer's file size."""
    str_off, frame_off = struct.unpack_from("<QQ", data, 40)
    out = data[:str_off - k] + data[str_off:]
    out = patch(out, 40, "<Q", str_off - k)
    out = patch(out, 48, "<Q", frame_off - k)
    return patch(out, len(out) - 24, "<Q", len(out))


def splice(data, off, old_len, new):
    """Replace data[off:off + old_len] (in the sample region) with `new`,
    moving the tables and fixing the header offsets and the footer's file
    size."""
    k = len(new) - old_len
    str_off, frame_off = struct.unpack_from("<QQ", data, 40)
    out = data[:off] + new + data[off + old_len:]
    out = patch(out, 40, "<Q", str_off + k)
    out = patch(out, 48, "<Q", frame_off + k)
    return patch(out, len(out) - 24, "<Q", len(out))


def bounds_fixtures():
    """One value just past a bound (mutation testing found the far-out
    values of the others let a loosened bound through)."""
    one = src("single_full", "none.bin")        # FULL depth 3, frames at 81
    suf = src("suffix_calls", "none.bin")       # 5 frames; SUFFIX at 83
    rle = src("repeat_rle", "none.bin")         # REPEAT count at 97
    put("bin_frame_index_edge.bin", patch(suf, 101, "<B", 5), "TV223", 1,
        "frame index 5 of 5 (the frame count) in the second record")
    put("bin_varint_big.bin", splice(one, 81, 1, b"\x80\x80\x80\x80\x10"),
        "TV221", 1, "frame index varint 80 80 80 80 10 (2^32)")
    put("bin_rle_count.bin", patch(rle, 97, "<B", 127), "TV220", 1,
        "REPEAT count 127 where 91 pairs fit")
    put("bin_suffix_shared.bin", patch(suf, 99, "<B", 3), "TV222", 1,
        "SUFFIX shares 3 frames of a 2-frame stack")


def bin_fixtures():
    one = src("single_full", "none.bin")        # 1 sample, 3 frames, FULL
    two = src("interleaved_threads", "none.bin")
    zst = src("workload", "zstd.bin")
    n = len(one)
    put("bin_too_small.bin", one[:40], "TV201", 1, "40 bytes")
    put("bin_magic.bin", b"\x7fELF" + one[4:], "TV202", 1,
        "magic of an ELF file")
    put("bin_header_zero.bin", bytes(64) + one[64:], "TV202", 1,
        "header never written (all zero)")
    put("bin_version.bin", patch(one, 4, "<I", 2), "TV203", 1, "version 2")
    put("bin_string_offset.bin", patch(one, 40, "<Q", n + 100), "TV205", 1,
        "string table offset past the end")
    str_off, frame_off = struct.unpack_from("<QQ", one, 40)
    put("bin_table_order.bin", patch(one, 40, "<Q", frame_off + 1), "TV207",
        1, "string table after the frame table")
    put("bin_string_count.bin", patch(one, n - 32, "<I", 0xFFFFFFFF),
        "TV208", 1, "footer string count 4294967295")
    put("bin_frame_count.bin", patch(one, n - 28, "<I", 0xFFFFFFFF),
        "TV209", 1, "footer frame count 4294967295")
    put("bin_footer_size.bin", patch(one, n - 24, "<Q", n + 1), "TV210", 1,
        "footer file size one too big")
    put("bin_stats_size.bin", with_stats(one, 1000), "TV211", 1,
        "statistics block claims 1000 bytes")
    trailing = one[:-32] + b"\0\0\0\0\0" + one[-32:]
    put("bin_trailing.bin", patch(trailing, n + 5 - 24, "<Q", n + 5),
        "TV214", 1, "5 bytes between the frame table and the footer")
    put("bin_compression.bin", patch(one, 56, "<I", 7), "TV215", 1,
        "compression id 7")
    put("bin_zstd_corrupt.bin", zst[:64] + b"\0\0\0\0" + zst[68:], "TV216",
        1, "zstd frame magic zeroed")
    put("bin_zstd_truncated.bin", cut_region(zst, 20), "TV216", 1,
        "last 20 bytes of the zstd frame removed (tables moved up)")
    put("bin_truncated.bin", one[:120], "TV206", 1,
        "cut after 120 of 180 bytes")
    put("bin_thread_count.bin", patch(two, 36, "<I", 1), "TV218", 1,
        "header says 1 thread, the samples have 2")
    put("bin_encoding.bin", patch(one, 76, "<B", 7), "TV219", 1,
        "stack encoding 7")
    put("bin_frame_index.bin", patch(one, 81, "<B", 100), "TV223", 1,
        "frame index 100 of 3")
    put("bin_sample_count.bin", patch(one, 28, "<Q", 2), "TV225", 1,
        "header declares 2 samples, the data has 1")
    put("bin_mode.bin", patch(one, 60, "<I", 7), "TV226", 1,
        "profiling mode 7 - 1")
    bounds_fixtures()
    # Warnings: exit 0, or 1 with --strict.
    put("bin_threads_unused.bin", patch(one, 36, "<I", 5), "TV230", 0,
        "header declares 5 threads, the samples have 1")
    put("bin_checksum.bin", patch(one, n - 10, "<B", 1), "TV231", 0,
        "a footer checksum byte set")
    put("bin_reserved.bin", patch(one, 11, "<B", 1), "TV232", 0,
        "reserved header byte 11 set")


def main():
    jsonl_fixtures()
    bin_fixtures()
    with open(os.path.join(HERE, "MANIFEST"), "w") as f:
        f.write("# file rule exit-status description "
                "(generated by make_bad.py)\n")
        for name, rule, status, why in MANIFEST:
            f.write("%s %s %d %s\n" % (name, rule, status, why))


if __name__ == "__main__":
    main()
