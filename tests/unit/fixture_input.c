/* SPDX-License-Identifier: MIT */
/* fixture_input.c - see fixture_input.h. Test code: aborts on bad JSON. */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture_input.h"

static json_object *get(json_object *o, const char *key)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(o, key, &v)) {
        fprintf(stderr, "input.json: missing key %s\n", key);
        abort();
    }
    return v;
}

static void load_frame(fx_frame *f, json_object *a)
{
    json_object *loc = json_object_array_get_idx(a, 1);
    json_object *op = json_object_array_get_idx(a, 3);
    f->filename = json_object_get_string(json_object_array_get_idx(a, 0));
    f->funcname = json_object_get_string(json_object_array_get_idx(a, 2));
    for (int k = 0; k < 4; k++)
        f->loc[k] = loc ? (int32_t)json_object_get_int64(
                              json_object_array_get_idx(loc, (size_t)k))
                        : -1;
    f->opcode = op ? (int)json_object_get_int64(op) : -1;
}

static void add_thread(fx_input *in, size_t *cap, uint64_t ts, uint32_t interp,
                       json_object *th)
{
    if (in->nsamples == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        in->samples = realloc(in->samples, *cap * sizeof *in->samples);
    }
    fx_sample *s = &in->samples[in->nsamples++];
    json_object *frames = get(th, "frames");
    s->ts = ts;
    s->interp = interp;
    s->tid = (uint64_t)json_object_get_uint64(get(th, "tid"));
    s->status = (uint32_t)json_object_get_int64(get(th, "status"));
    s->nframes = (uint32_t)json_object_array_length(frames);
    s->frames = calloc(s->nframes + 1, sizeof *s->frames);
    for (uint32_t i = 0; i < s->nframes; i++)
        load_frame(&s->frames[i], json_object_array_get_idx(frames, i));
}

int fx_input_load(fx_input *in, const char *path)
{
    memset(in, 0, sizeof *in);
    json_object *root = json_object_from_file(path);
    if (!root)
        return -1;
    in->json = root;
    in->start_time_us = json_object_get_uint64(get(root, "start_time_us"));
    in->sample_interval_us =
        json_object_get_uint64(get(root, "sample_interval_us"));
    json_object *samples = get(root, "samples");
    size_t cap = 0;
    for (size_t i = 0; i < json_object_array_length(samples); i++) {
        json_object *smp = json_object_array_get_idx(samples, i);
        uint64_t ts = json_object_get_uint64(get(smp, "t"));
        json_object *interps = get(smp, "interps");
        for (size_t j = 0; j < json_object_array_length(interps); j++) {
            json_object *ip = json_object_array_get_idx(interps, j);
            uint32_t id = (uint32_t)json_object_get_int64(get(ip, "id"));
            json_object *threads = get(ip, "threads");
            for (size_t k = 0; k < json_object_array_length(threads); k++)
                add_thread(in, &cap, ts, id,
                           json_object_array_get_idx(threads, k));
        }
    }
    return 0;
}

void fx_input_free(fx_input *in)
{
    for (size_t i = 0; i < in->nsamples; i++)
        free(in->samples[i].frames);
    free(in->samples);
    json_object_put(in->json);
    memset(in, 0, sizeof *in);
}
