/* SPDX-License-Identifier: MIT */
/*
 * fixture_input.h - load a CPython fixture's input.json (the exact
 * write_sample() calls that produced its .bin files) into plain C arrays,
 * flattened to one entry per thread-sample in call order. Frames are kept
 * innermost first, as CPython passes them.
 */
#ifndef TFMT_TEST_FIXTURE_INPUT_H
#define TFMT_TEST_FIXTURE_INPUT_H

#include <stdint.h>

typedef struct fx_frame {
    const char *filename;
    const char *funcname;
    int32_t loc[4]; /* lineno, end_lineno, col, end_col; -1 n/a */
    int opcode;     /* -1 for null */
} fx_frame;

typedef struct fx_sample {
    uint64_t ts;
    uint64_t tid;
    uint32_t interp;
    uint32_t status;
    uint32_t nframes;
    fx_frame *frames; /* innermost first */
} fx_sample;

typedef struct fx_input {
    uint64_t start_time_us;
    uint64_t sample_interval_us;
    size_t nsamples;
    fx_sample *samples;
    void *json; /* owning json-c object */
} fx_input;

/* Load `path`; returns 0 on success. */
int fx_input_load(fx_input *in, const char *path);
void fx_input_free(fx_input *in);

#endif
