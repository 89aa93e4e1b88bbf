/* SPDX-License-Identifier: MIT */
/*
 * tachyon/fmt_flat.h - a "flat" profile: self and cumulative sample counts
 * per key, where a key is a function, a (file, function) pair or a (file,
 * function, line) triple, after the rewrite and filter rules of a
 * tfmt_match. Built from aggregated profiles (binary logs) or from JSONL
 * exports; several inputs add up. This is what profile diffs compare.
 *
 * Counting:
 *   - self(k): samples whose leaf frame has key k.
 *   - cumulative(k): samples with key k anywhere on the stack, counted once
 *     per sample even when k appears several times (recursion, or the same
 *     function at several lines under a coarse key).
 *   - From JSONL, which has no stacks, cumulative(k) is the SUM of the
 *     per-frame cumulative counts CPython wrote for the frames mapping to k.
 *     CPython dedups per frame (file, function, line, columns) only, so a
 *     sample whose stack holds k at two different frames (recursion through
 *     different lines) is counted twice. The sum is capped at the input's
 *     samples_total. Binary inputs have no such error; for them
 *     cumulative_frames reproduces the JSONL figure exactly (per distinct
 *     location ignoring the opcode, as CPython's JSONL collector keys
 *     frames), so a binary log and a JSONL file can be compared like for
 *     like.
 *   - Frames dropped by the include/exclude rules get no key; their samples
 *     still count in the totals (so shares stay shares of everything).
 *
 * Memory is proportional to the unique keys (and, with `stacks`, to the
 * unique folded stacks), never to the number of samples.
 */
#ifndef TACHYON_FMT_FLAT_H
#define TACHYON_FMT_FLAT_H

#include "fmt_model.h"
#include "fmt_profile.h"
#include "fmt_jsonl.h"
#include "fmt_match.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tfmt_flat tfmt_flat;

/* What identifies a row. */
typedef enum {
    TFMT_FLAT_KEY_FUNC = 1,      /* function name only */
    TFMT_FLAT_KEY_FILE_FUNC = 2, /* file and function (lines ignored) */
    TFMT_FLAT_KEY_FILE_FUNC_LINE = 3
} tfmt_flat_key;

#define TFMT_FLAT_OPTIONS_VERSION 1
typedef struct tfmt_flat_options {
    unsigned version;            /* TFMT_FLAT_OPTIONS_VERSION */
    const tfmt_allocator *alloc; /* NULL: libc */
    tfmt_flat_key key;           /* 0: TFMT_FLAT_KEY_FILE_FUNC */
    tfmt_match *match;           /* rules; NULL: none. Borrowed, must
                                    outlive the flat's builders */
    bool stacks;                 /* also collect folded stacks */
} tfmt_flat_options;
/* A braced initializer, which clang-format takes for a block. */
/* clang-format off */
#define TFMT_FLAT_OPTIONS_INIT {TFMT_FLAT_OPTIONS_VERSION, NULL, 0, NULL, false}
/* clang-format on */

/* Totals and metadata of everything added. */
typedef struct tfmt_flat_info {
    size_t inputs;         /* profiles and JSONL files added */
    uint64_t samples;      /* thread-samples counted, summed */
    uint64_t interval_us;  /* of the first input that had one, else 0 */
    bool mixed_interval;   /* inputs disagree on the interval */
    bool has_duration;     /* every input had a measured duration */
    double duration_s;     /* summed measured durations */
    double ticks;          /* summed duration / interval: the sampling
                              ticks the runs spanned (has_duration) */
    bool exact_cumulative; /* every input had stacks (not JSONL), so
                              cumulative counts each key once per stack */
    bool has_stacks;       /* folded stacks were collected from every
                              input (opts.stacks, tfmt_flat_add_profile) */
} tfmt_flat_info;

/* One row. Strings are borrowed from the flat until it is freed. */
typedef struct tfmt_flat_row {
    tfmt_str file; /* empty for TFMT_FLAT_KEY_FUNC */
    tfmt_str func;
    int32_t line; /* -1 unless the key has lines; 0 = no line */
    uint64_t self;
    uint64_t cumulative;
    uint64_t cumulative_frames; /* cumulative as JSONL computes it: per
                                   frame, summed per key, capped at each
                                   input's total (equal to `cumulative`
                                   for JSONL inputs) */
} tfmt_flat_row;

/* `opts` may be NULL. */
TFMT_API int tfmt_flat_new(tfmt_flat **out, const tfmt_flat_options *opts);

/*
 * Add every sample of profile `p` (which the caller keeps and frees). Its
 * measured duration comes from the statistics block of its first input.
 * Returns TFMT_OK, or a negative status with tfmt_flat_error filled.
 */
TFMT_API int tfmt_flat_add_profile(tfmt_flat *f, const tfmt_profile *p);

/*
 * Stream every remaining sample of binary log `r` (which the caller keeps
 * and frees) into the flat, without building a call tree: the fast path
 * when folded stacks are not needed (opts.stacks must be false). Counts
 * equal those of tfmt_profile_add_bin + tfmt_flat_add_profile without
 * skip_idle. Returns TFMT_OK, or a negative status with tfmt_flat_error
 * filled (the reader's error, copied, for a corrupt log).
 */
TFMT_API int tfmt_flat_add_bin(tfmt_flat *f, tfmt_bin_reader *r);

/*
 * Read JSONL records from `r` to its end and add the agg entries. String
 * and frame records must precede the agg entries that use them. Returns
 * TFMT_OK or a negative status; tfmt_flat_error then holds the located
 * error (the reader's, copied, or a reference to an unknown id).
 */
TFMT_API int tfmt_flat_add_jsonl(tfmt_flat *f, tfmt_jsonl_reader *r);

TFMT_API const tfmt_flat_info *tfmt_flat_get_info(const tfmt_flat *f);

/* Rows, in order of first appearance. */
TFMT_API size_t tfmt_flat_count(const tfmt_flat *f);
TFMT_API void tfmt_flat_row_at(const tfmt_flat *f, size_t i,
                               tfmt_flat_row *out);

/* The counts of row `i` only (no strings touched: cheaper in big loops). */
TFMT_API void tfmt_flat_counts_at(const tfmt_flat *f, size_t i, uint64_t *self,
                                  uint64_t *cumulative,
                                  uint64_t *cumulative_frames);

/*
 * Index of the row with this key (file ignored for TFMT_FLAT_KEY_FUNC,
 * line ignored unless TFMT_FLAT_KEY_FILE_FUNC_LINE), or SIZE_MAX.
 */
TFMT_API size_t tfmt_flat_find(const tfmt_flat *f, const tfmt_flat_row *key);

/*
 * For each row i in [from, to) of `f`: out[i - from] = the index of the
 * row with the same key in `in` (as tfmt_flat_find would give), or
 * UINT32_MAX. Both flats must use the same key kind. Faster than calling
 * tfmt_flat_find row by row (lookups are batched); read-only, so several
 * threads may each take a range.
 */
TFMT_API void tfmt_flat_find_rows(const tfmt_flat *in, const tfmt_flat *f,
                                  size_t from, size_t to, uint32_t *out);

/*
 * Folded stacks (with opts.stacks and stack inputs): "a;b;c" root first,
 * each frame written as its key ("file:func", "func" or "file:func:line"),
 * frames dropped by the filter rules left out (stacks left empty are not
 * kept), threads merged; `count` is the self weight of that stack.
 */
TFMT_API size_t tfmt_flat_stack_count(const tfmt_flat *f);
TFMT_API void tfmt_flat_stack_at(const tfmt_flat *f, size_t i, tfmt_str *stack,
                                 uint64_t *count);
TFMT_API size_t tfmt_flat_stack_find(const tfmt_flat *f, const char *stack,
                                     size_t len);

/* The error behind the last negative status. Never NULL. */
TFMT_API const tfmt_error *tfmt_flat_error(const tfmt_flat *f);

TFMT_API void tfmt_flat_free(tfmt_flat *f);

#ifdef __cplusplus
}
#endif
#endif
