/* SPDX-License-Identifier: MIT */
/*
 * out_folded.c - --format collapsed-diff: the two-column folded format
 * FlameGraph's difffolded.pl writes and flamegraph.pl / inferno draw as a
 * differential flame graph: "frame;frame;frame BASE NEW" per stack, root
 * first, threads merged, sorted by stack. With --normalize share or time
 * the base counts are scaled to the new side's total (difffolded.pl -n),
 * rounded to integers; with none they are raw.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "diff.h"

typedef struct fentry {
    tfmt_str stack;
    uint64_t base, new_;
} fentry;

static int by_stack(const void *x, const void *y)
{
    const fentry *a = x, *b = y;
    size_t n = a->stack.len < b->stack.len ? a->stack.len : b->stack.len;
    int r = memcmp(a->stack.ptr, b->stack.ptr, n);
    if (r)
        return r;
    return (a->stack.len > b->stack.len) - (a->stack.len < b->stack.len);
}

/* Union of both sides' stacks with their counts. */
static fentry *collect(const diff_ctx *c, size_t *count)
{
    const tfmt_flat *bf = c->base.flat, *nf = c->new_.flat;
    size_t nb = tfmt_flat_stack_count(bf), nn = tfmt_flat_stack_count(nf);
    fentry *e = malloc((nb + nn + 1) * sizeof *e);
    unsigned char *seen = calloc(nn + 1, 1);
    size_t k = 0;
    if (!e || !seen) {
        free(e);
        free(seen);
        return NULL;
    }
    for (size_t i = 0; i < nb; i++) {
        fentry *f = &e[k++];
        tfmt_flat_stack_at(bf, i, &f->stack, &f->base);
        size_t j = tfmt_flat_stack_find(nf, f->stack.ptr, f->stack.len);
        f->new_ = 0;
        if (j != SIZE_MAX) {
            tfmt_str s;
            tfmt_flat_stack_at(nf, j, &s, &f->new_);
            seen[j] = 1;
        }
    }
    for (size_t j = 0; j < nn; j++) {
        if (seen[j])
            continue;
        fentry *f = &e[k++];
        tfmt_flat_stack_at(nf, j, &f->stack, &f->new_);
        f->base = 0;
    }
    free(seen);
    *count = k;
    return e;
}

int diff_write_folded(diff_out *o, const diff_ctx *c)
{
    size_t n = 0;
    fentry *e = collect(c, &n);
    if (!e)
        return -1;
    qsort(e, n, sizeof *e, by_stack);
    double scale = 1.0;
    if (c->set->norm != NORM_NONE && c->base.denom > 0)
        scale = c->new_.denom / c->base.denom;
    for (size_t i = 0; i < n; i++) {
        diff_out_write(o, e[i].stack.ptr, e[i].stack.len);
        diff_out_printf(o, " %llu %llu\n",
                        (unsigned long long)llround((double)e[i].base * scale),
                        (unsigned long long)e[i].new_);
    }
    free(e);
    return 0;
}
