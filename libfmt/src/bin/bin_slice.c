/* SPDX-License-Identifier: MIT */
/*
 * bin_slice.c - readers of one part of a sample region (see bin_slice.h):
 * the reader of bin_reader.c over a byte range, with its threads seeded
 * from the scans and the parent's tables borrowed.
 */
#include "bin_reader.h"
#include "bin_slice.h"

uint64_t tfmt__bin_region_size(const tfmt_bin_reader *r)
{
    const tfmt_info *info = &r->fx.info;
    if (info->compression != TFMT_COMPRESSION_NONE)
        return 0;
    return info->string_table_offset - TFMT_BIN_HEADER_SIZE;
}

/* Seed thread i of `s` with `depth` placeholders from *next on. */
static int seed_thread(tfmt_bin_reader *s, const tfmt_bin_seed *seed,
                       uint32_t *next)
{
    s->threads[s->nthreads] = (bin_thread){0};
    bin_thread *t = &s->threads[s->nthreads];
    t->tid = seed->tid;
    t->interp = seed->interp;
    if (tfmt__tidmap_insert(&s->thread_map, seed->tid, seed->interp,
                            (uint32_t)s->nthreads) != TFMT_OK)
        return TFMT_ENOMEM;
    s->nthreads++;
    if (seed->depth == 0)
        return TFMT_OK;
    if (tfmt__reserve_stack(s->alloc, &t->stack, &t->cap, seed->depth) !=
        TFMT_OK)
        return TFMT_ENOMEM;
    for (uint32_t j = 0; j < seed->depth; j++)
        t->stack[j] = (*next)++;
    t->depth = seed->depth;
    return TFMT_OK;
}

static int seed_threads(tfmt_bin_reader *s, const tfmt_bin_seed *seeds,
                        size_t n)
{
    if (n > s->max_threads ||
        tfmt__grow(s->alloc, (void **)&s->threads, &s->capthreads, n ? n : 1,
                   sizeof *s->threads) != TFMT_OK)
        return TFMT_ENOMEM;
    uint32_t next = s->tables.nframes;
    for (size_t i = 0; i < n; i++) {
        if (seeds[i].depth > TFMT_MAX_DEPTH ||
            seed_thread(s, &seeds[i], &next) != TFMT_OK)
            return TFMT_ENOMEM;
    }
    return TFMT_OK;
}

int tfmt__bin_slice_open(tfmt_bin_reader **out, tfmt_bin_reader *parent,
                         uint64_t from, uint64_t to, const tfmt_bin_seed *seeds,
                         size_t nseeds, tfmt_error *err)
{
    *out = NULL;
    tfmt_bin_reader *s = tfmt__calloc(parent->alloc, 1, sizeof *s);
    if (!s)
        return tfmt__error(err, TFMT_ENOMEM, "out of memory");
    s->alloc = parent->alloc;
    s->opts = parent->opts;
    s->opts.on_note = NULL; /* a slice flags notes as `odd` */
    s->max_threads = parent->max_threads;
    s->fx = parent->fx;
    s->tables = parent->tables; /* borrowed: not freed with the slice */
    s->swap = parent->swap;
    s->slice = true;
    s->dmask = UINT64_MAX;
    tfmt__tidmap_init(&s->thread_map, s->alloc);
    int rc = seed_threads(s, seeds, nseeds);
    if (rc != TFMT_OK)
        rc = tfmt__error(err, TFMT_ENOMEM, "out of memory");
    if (rc == TFMT_OK)
        rc = tfmt__bin_stream_open_range(&s->stream, parent->stream.src, from,
                                         to, false, s->alloc, err);
    if (rc != TFMT_OK) {
        tfmt_bin_free(s);
        return rc;
    }
    *out = s;
    return TFMT_OK;
}

bool tfmt__bin_slice_odd(const tfmt_bin_reader *r)
{
    return r->odd;
}

size_t tfmt__bin_threads(const tfmt_bin_reader *r)
{
    return r->nthreads;
}

void tfmt__bin_thread_state(const tfmt_bin_reader *r, size_t i,
                            const uint32_t **stack, uint32_t *depth,
                            uint64_t *ts)
{
    const bin_thread *t = &r->threads[i];
    *stack = t->stack;
    *depth = t->depth;
    *ts = t->prev_ts;
}

void tfmt__bin_read_by_slices(tfmt_bin_reader *r, uint64_t samples)
{
    tfmt_bin_stream *s = &r->stream;
    r->samples_read = samples;
    r->state = TFMT_DONE;
    /* tfmt_bin_bytes_read: the whole region */
    s->pos = s->end = s->mem ? s->mem : s->win;
    s->base = tfmt__bin_region_size(r);
    s->eof = true;
}
