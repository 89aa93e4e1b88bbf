/* SPDX-License-Identifier: MIT */
/*
 * profile_jsonl.c - CPython's JSONL export (schema v0), byte for byte.
 *
 * JsonlCollector keys frames on (path, func, line, end_line, col, end_col)
 * without the opcode, so several profile frames can share one JSONL frame;
 * it interns funcname before filename, in the order frames are first seen.
 * Iterating the profile's frames in id order (their first-seen order)
 * reproduces both id sequences. Cumulative counts each JSONL frame once
 * per stack; on the tree that is the subtree total of every node whose
 * ancestors do not show the same JSONL frame.
 */
#include <stdio.h>

#include "export_internal.h"

#define CHUNK 256

typedef struct jkey {
    uint32_t path, func;
    int32_t line, end_line, col, end_col; /* absent: 0, 0, -1, -1 */
} jkey;

/*
 * A table's entries are written in id order, 0, 1, 2, ...: the id's
 * digits are kept and counted up in place (a carry is rare) rather than
 * formatted afresh for every entry.
 */
typedef struct seq_digits {
    char d[16]; /* the digits, then spare room for a wider copy */
    size_t len;
} seq_digits;

static void seq_reset(seq_digits *s)
{
    memset(s->d, 0, sizeof s->d);
    s->d[0] = '0';
    s->len = 1;
}

/* Write the current id and count up. */
static inline char *seq_put(seq_digits *s, char *o)
{
    memcpy(o, s->d, 12); /* the caller's room holds 20 digits an id */
    o += s->len;
    size_t i = s->len;
    while (i > 0 && s->d[i - 1] == '9')
        s->d[--i] = '0';
    if (i > 0) {
        s->d[i - 1]++;
    } else {
        memmove(s->d + 1, s->d, s->len++);
        s->d[0] = '1';
    }
    return o;
}

typedef struct jctx {
    tfmt_profile *p;
    tfmt_sink *sink;
    const char *run_id;
    /* Both NULL while the JSONL ids are the profile's (jstring). */
    uint32_t *jstr; /* profile string -> JSONL string id */
    uint32_t *strs; /* JSONL string id -> profile string */
    uint32_t nstrs;
    uint32_t *jframe; /* profile frame -> JSONL frame id */
    jkey *keys;       /* per JSONL frame (unless `direct`) */
    /*
     * A profile of JSONL exports alone: every used frame is a JSONL frame
     * of its own and its figures are its export totals, so frames, keys
     * and figures are read from the profile as they are written (no
     * per-frame tables but `order`).
     */
    bool direct;
    uint32_t *order; /* direct: JSONL frame id -> profile frame, or NULL
                        while they are equal (order_add) */
    uint32_t nkeys;
    tfmt_idset set;
    uint64_t *self, *cum; /* per JSONL frame */
    seq_digits id;        /* the id of the entry being written */
    tfmt_buf out;
    bool io_failed; /* the sink failed (else: out of memory) */
} jctx;

static bool jkey_eq(const void *ctx, uint32_t id, const void *key)
{
    return memcmp(&((const jctx *)ctx)->keys[id], key, sizeof(jkey)) == 0;
}

static uint64_t jkey_hash(const jkey *k)
{
    uint64_t h = tfmt__hash_key(((uint64_t)k->path << 32) | k->func);
    h = tfmt__hash_mix(
        h ^ (((uint64_t)(uint32_t)k->line << 32) | (uint32_t)k->end_line));
    return tfmt__hash_mix(
        h ^ (((uint64_t)(uint32_t)k->col << 32) | (uint32_t)k->end_col));
}

/*
 * The two string maps, from the identity kept so far: the strings below
 * nstrs are numbered as themselves.
 */
static int leave_identity(jctx *c)
{
    const tfmt_allocator *a = c->p->alloc;
    size_t ns = c->p->nstrings ? c->p->nstrings : 1;
    c->jstr = tfmt__malloc_table(a, ns, sizeof *c->jstr);
    c->strs = tfmt__malloc_table(a, ns, sizeof *c->strs);
    if (!c->jstr || !c->strs)
        return TFMT_ENOMEM;
    memset(c->jstr, 0xff, ns * sizeof *c->jstr);
    for (uint32_t i = 0; i < c->nstrs; i++)
        c->jstr[i] = c->strs[i] = i;
    return TFMT_OK;
}

/* jstring() past the identity: the maps, made when first needed. */
static uint32_t jstring_mapped(jctx *c, uint32_t s)
{
    if (!c->jstr && leave_identity(c) != TFMT_OK)
        return TFMT_NO_ID;
    if (c->jstr[s] == TFMT_NO_ID) {
        c->strs[c->nstrs] = s;
        c->jstr[s] = c->nstrs++;
    }
    return c->jstr[s];
}

/*
 * The JSONL id of profile string s, assigned on first sight; TFMT_NO_ID
 * when out of memory. While the strings come in the order the profile
 * has them (as when it holds one export, whose table CPython wrote in
 * this order), no map is kept: 4 bytes a string twice, 8 MB for a
 * million frames.
 */
static inline uint32_t jstring(jctx *c, uint32_t s)
{
    if (c->jstr || s > c->nstrs)
        return jstring_mapped(c, s);
    c->nstrs += s == c->nstrs;
    return s;
}

/* The JSONL id of a profile string numbered already, and back. */
static uint32_t jstr_of(const jctx *c, uint32_t s)
{
    return c->jstr ? c->jstr[s] : s;
}

static uint32_t str_of(const jctx *c, uint32_t id)
{
    return c->strs ? c->strs[id] : id;
}

static int make_key(jctx *c, const tfmt_frame *f, jkey *k)
{
    int32_t line, end_line, col, end_col;
    tfmt__profile_norm_loc(f, &line, &end_line, &col, &end_col);
    memset(k, 0, sizeof *k);
    k->func = jstring(c, f->funcname); /* funcname first */
    k->path = jstring(c, f->filename);
    if (k->func == TFMT_NO_ID || k->path == TFMT_NO_ID)
        return TFMT_ENOMEM;
    k->line = line;
    k->end_line = end_line > 0 ? end_line : 0;
    k->col = col >= 0 ? col : -1;
    k->end_col = end_col >= 0 ? end_col : -1;
    return TFMT_OK;
}

/* The JSONL frame id of profile frame `i`, assigned on first sight. */
static int map_frame(jctx *c, size_t i)
{
    jkey k;
    if (make_key(c, &c->p->frames[i], &k) != TFMT_OK)
        return TFMT_ENOMEM;
    uint64_t h = jkey_hash(&k);
    uint32_t id = tfmt__idset_find(&c->set, h, &k, jkey_eq, c);
    if (id == TFMT_NO_ID) {
        id = c->nkeys++;
        c->keys[id] = k;
        if (tfmt__idset_insert(&c->set, h, id) != TFMT_OK)
            return TFMT_ENOMEM;
    }
    c->jframe[i] = id;
    return TFMT_OK;
}

/*
 * The next JSONL frame is profile frame i (direct). While they are the
 * same numbers, as when an export lists every frame it defines, no table
 * is kept; the first frame left out starts one.
 */
static int order_add(jctx *c, uint32_t i)
{
    if (!c->order && i != c->nkeys) {
        size_t nf = c->p->nframes ? c->p->nframes : 1;
        c->order = tfmt__malloc(c->p->alloc, nf * sizeof *c->order);
        if (!c->order)
            return TFMT_ENOMEM;
        for (uint32_t k = 0; k < c->nkeys; k++)
            c->order[k] = k;
    }
    if (c->order)
        c->order[c->nkeys] = i;
    c->nkeys++;
    return TFMT_OK;
}

/* The profile frame of JSONL frame `id` (direct). */
static uint32_t frame_of(const jctx *c, uint32_t id)
{
    return c->order ? c->order[id] : id;
}

/*
 * Assign JSONL string and frame ids in CPython's first-seen order;
 * frames no node uses and no export listed keep TFMT_NO_ID.
 */
/* Number the strings of the frames JSONL exports listed (direct). */
static int map_direct(jctx *c)
{
    const tfmt_profile *p = c->p;
    int rc = TFMT_OK;
    for (size_t i = 0; i < p->naggs && i < p->nframes && rc == TFMT_OK; i++) {
        if (!p->agg_listed[i])
            continue;
        if (jstring(c, p->frames[i].funcname) == TFMT_NO_ID || /* first */
            jstring(c, p->frames[i].filename) == TFMT_NO_ID)
            return TFMT_ENOMEM;
        rc = order_add(c, (uint32_t)i);
    }
    return rc;
}

static int map_frames(jctx *c)
{
    /* Only frames some call path uses or an export listed: CPython sees
     * no others (frames interned for samples a filter then dropped must
     * not show). Frames of JSONL exports alone (no call tree) differ in
     * their JSONL keys already (an export has no opcodes, and a frame
     * without a location is interned as one): no table needed. */
    const tfmt_profile *p = c->p;
    if (c->direct)
        return map_direct(c);
    uint8_t *used = tfmt__malloc(p->alloc, p->nframes ? p->nframes : 1);
    if (!used)
        return TFMT_ENOMEM;
    tfmt__profile_used(p, used);
    int rc = TFMT_OK;
    for (size_t i = 0; i < p->nframes && rc == TFMT_OK; i++) {
        if (used[i])
            rc = map_frame(c, i);
        else
            c->jframe[i] = TFMT_NO_ID;
    }
    tfmt__free(p->alloc, used);
    return rc;
}

/* self and cumulative per JSONL frame (recursion counted once). */
static int aggregate(jctx *c)
{
    const tfmt_profile *p = c->p;
    if (c->direct)
        return TFMT_OK;
    tfmt_ptree t;
    uint32_t *open = tfmt__calloc(p->alloc, c->nkeys + 1, sizeof *open);
    if (!open || tfmt__ptree_build(p, &t) != TFMT_OK) {
        tfmt__free(p->alloc, open);
        return TFMT_ENOMEM;
    }
    tfmt_pwalk w;
    uint32_t n = 0;
    int ev;
    tfmt__pwalk_init(&w, p, &t);
    for (;;) {
        ev = tfmt__pwalk_next(&w, &n);
        if (ev == 0)
            break;
        if (p->nodes[n].frame == TFMT_NO_ID)
            continue;
        uint32_t jf = c->jframe[p->nodes[n].frame];
        if (ev < 0) {
            open[jf]--;
            continue;
        }
        c->self[jf] += p->nodes[n].self;
        if (open[jf]++ == 0)
            c->cum[jf] += t.total[n];
    }
    tfmt__ptree_free(p, &t);
    tfmt__free(p->alloc, open);
    return tfmt__xadd_exports(p, c->jframe, c->nkeys, c->self, c->cum);
}

/* ---- emission: hand-written JSON into one buffer, flushed in MBs ---- */

#define LIT(o, s) (memcpy((o), (s), sizeof(s) - 1), (o) + sizeof(s) - 1)

static char *put_i64(char *o, int64_t v)
{
    if (v < 0) {
        *o++ = '-';
        return tfmt__put_dec(o, (uint64_t)0 - (uint64_t)v);
    }
    return tfmt__put_dec(o, (uint64_t)v);
}

/* Make room for `n` more bytes, flushing first when the buffer is big. */
static char *room(jctx *c, size_t n)
{
    if (c->out.len >= TFMT_EXPORT_FLUSH &&
        tfmt__profile_flush(&c->out, c->sink, 0) != TFMT_OK) {
        c->io_failed = true;
        return NULL;
    }
    if (tfmt__buf_reserve(&c->out, n) != TFMT_OK)
        return NULL;
    return c->out.data + c->out.len;
}

static void commit(jctx *c, char *o)
{
    c->out.len = (size_t)(o - c->out.data);
}

/* The most a JSON string of n bytes takes, quotes included. */
static size_t json_size(size_t n)
{
    return n * 6 + 2;
}

/* {"type":"<type>","v":0,"run_id":"<run_id>" */
static char *head(jctx *c, char *o, const char *type)
{
    o = LIT(o, "{\"type\":\"");
    size_t n = strlen(type);
    memcpy(o, type, n);
    o = LIT(o + n, "\",\"v\":0,\"run_id\":");
    return tfmt__json_put_raw(o, c->run_id, strlen(c->run_id));
}

static size_t head_size(const jctx *c, const char *type)
{
    return 48 + strlen(type) + json_size(strlen(c->run_id));
}

static int put_meta(jctx *c)
{
    const tfmt_profile *p = c->p;
    char *o = room(c, head_size(c, "meta"));
    if (!o)
        return TFMT_ENOMEM;
    commit(c, head(c, o, "meta"));
    if (tfmt__buf_puts(&c->out, ",\"sample_interval_usec\":") != TFMT_OK ||
        tfmt__buf_put_u64(&c->out, p->interval_us) != TFMT_OK)
        return TFMT_ENOMEM;
    if (p->mode != TFMT_MODE_UNKNOWN) {
        /* CPython: _MODE_NAMES.get(mode, str(mode)). */
        const char *name = tfmt_mode_name(p->mode);
        char num[16];
        if (!name) {
            snprintf(num, sizeof num, "%d", p->mode);
            name = num;
        }
        if (tfmt__buf_puts(&c->out, ",\"mode\":") != TFMT_OK ||
            tfmt__json_put_string(&c->out, name, strlen(name)) != TFMT_OK)
            return TFMT_ENOMEM;
    }
    return tfmt__buf_puts(&c->out, "}\n");
}

static size_t string_size(const jctx *c, uint32_t id)
{
    return 40 + json_size(tfmt__profile_str(c->p, str_of(c, id)).len);
}

static char *put_string(jctx *c, char *o, uint32_t id)
{
    o = LIT(o, "{\"str_id\":");
    o = seq_put(&c->id, o);
    o = LIT(o, ",\"value\":");
    tfmt_str s = tfmt__profile_str(c->p, str_of(c, id));
    o = tfmt__json_put_raw(o, s.ptr, s.len);
    *o++ = '}';
    return o;
}

/* The most a frame entry and an agg entry take. */
#define FRAME_SIZE (96 + 7 * 20)
#define AGG_SIZE (40 + 3 * 20)

/* The key of a profile frame whose strings map_frames numbered. */
static void numbered_key(const jctx *c, const tfmt_frame *f, jkey *k)
{
    int32_t line, end_line, col, end_col;
    tfmt__profile_norm_loc(f, &line, &end_line, &col, &end_col);
    k->func = jstr_of(c, f->funcname);
    k->path = jstr_of(c, f->filename);
    k->line = line;
    k->end_line = end_line > 0 ? end_line : 0;
    k->col = col >= 0 ? col : -1;
    k->end_col = end_col >= 0 ? end_col : -1;
}

static char *put_frame(jctx *c, char *o, uint32_t id)
{
    jkey direct;
    if (c->direct)
        numbered_key(c, &c->p->frames[frame_of(c, id)], &direct);
    const jkey *k = c->direct ? &direct : &c->keys[id];
    o = LIT(o, "{\"frame_id\":");
    o = seq_put(&c->id, o);
    o = LIT(o, ",\"path_str_id\":");
    o = tfmt__put_dec(o, k->path);
    o = LIT(o, ",\"func_str_id\":");
    o = tfmt__put_dec(o, k->func);
    o = LIT(o, ",\"line\":");
    o = put_i64(o, k->line);
    if (k->end_line > 0) {
        o = LIT(o, ",\"end_line\":");
        o = put_i64(o, k->end_line);
    }
    if (k->col >= 0) {
        o = LIT(o, ",\"col\":");
        o = put_i64(o, k->col);
    }
    if (k->end_col >= 0) {
        o = LIT(o, ",\"end_col\":");
        o = put_i64(o, k->end_col);
    }
    *o++ = '}';
    return o;
}

static char *put_agg(jctx *c, char *o, uint32_t id)
{
    o = LIT(o, "{\"frame_id\":");
    o = seq_put(&c->id, o);
    uint64_t self, cum;
    if (c->direct) {
        const tfmt_pagg *a = &c->p->aggs[frame_of(c, id)];
        self = a->self;
        cum = a->cum < c->p->agg_samples ? a->cum : c->p->agg_samples;
    } else {
        self = c->self[id];
        cum = c->cum[id];
    }
    o = LIT(o, ",\"self\":");
    o = tfmt__put_dec(o, self);
    o = LIT(o, ",\"cumulative\":");
    o = tfmt__put_dec(o, cum);
    *o++ = '}';
    return o;
}

typedef char *(*put_fn)(jctx *c, char *o, uint32_t id);
typedef size_t (*size_fn)(const jctx *c, uint32_t id);

/*
 * One record per CHUNK entries; none for an empty list. Each record's
 * room is made once (an entry takes at most `each` bytes plus what `size`
 * says, if given), then written.
 */
static inline __attribute__((always_inline)) int
put_chunks(jctx *c, const char *type, const char *extra, uint32_t n, put_fn put,
           size_fn size, size_t each)
{
    size_t fixed = head_size(c, type) + strlen(extra) + 4;
    seq_reset(&c->id);
    for (uint32_t i = 0; i < n; i += CHUNK) {
        uint32_t end = n - i > CHUNK ? i + CHUNK : n;
        size_t need = fixed + (size_t)(end - i) * (each + 1);
        for (uint32_t j = i; size && j < end; j++)
            need += size(c, j);
        char *o = room(c, need);
        if (!o)
            return TFMT_ENOMEM;
        o = head(c, o, type);
        memcpy(o, extra, strlen(extra));
        o += strlen(extra);
        for (uint32_t j = i; j < end; j++) {
            if (j > i)
                *o++ = ',';
            o = put(c, o, j);
        }
        o = LIT(o, "]}\n");
        commit(c, o);
    }
    return TFMT_OK;
}

static int put_all(jctx *c)
{
    char total[48], agg[112];
    snprintf(total, sizeof total, ",\"samples_total\":%llu",
             (unsigned long long)c->p->samples_total);
    snprintf(agg, sizeof agg,
             ",\"kind\":\"frame\",\"scope\":\"final\"%s,\"entries\":[", total);
    int rc = put_meta(c);
    if (rc == TFMT_OK)
        rc = put_chunks(c, "string_table", ",\"strings\":[", c->nstrs,
                        put_string, string_size, 0);
    if (rc == TFMT_OK)
        rc = put_chunks(c, "frame_table", ",\"frames\":[", c->nkeys, put_frame,
                        NULL, FRAME_SIZE);
    if (rc == TFMT_OK)
        rc = put_chunks(c, "agg", agg, c->nkeys, put_agg, NULL, AGG_SIZE);
    char *o =
        rc == TFMT_OK ? room(c, head_size(c, "end") + sizeof total) : NULL;
    if (!o)
        return rc == TFMT_OK ? TFMT_ENOMEM : rc;
    o = head(c, o, "end");
    memcpy(o, total, strlen(total));
    o = LIT(o + strlen(total), "}\n");
    commit(c, o);
    return TFMT_OK;
}

static int ctx_init(jctx *c, tfmt_profile *p, tfmt_sink *sink,
                    const char *run_id)
{
    const tfmt_allocator *a = p->alloc;
    size_t nf = p->nframes ? p->nframes : 1;
    memset(c, 0, sizeof *c);
    c->p = p;
    c->sink = sink;
    c->run_id = run_id;
    tfmt__buf_init(&c->out, a);
    tfmt__idset_init(&c->set, a);
    c->direct = p->nnodes == 0;
    if (!c->direct) {
        c->jframe = tfmt__malloc_table(a, nf, sizeof *c->jframe);
        c->keys = tfmt__malloc_table(a, nf, sizeof *c->keys);
        c->self = tfmt__calloc(a, nf, sizeof *c->self);
        c->cum = tfmt__calloc(a, nf, sizeof *c->cum);
    }
    bool tables = c->direct || (c->jframe && c->keys && c->self && c->cum);
    if (!tables ||
        tfmt__buf_reserve(&c->out, TFMT_EXPORT_FLUSH + 4096) != TFMT_OK)
        return TFMT_ENOMEM;
    return TFMT_OK;
}

static void ctx_free(jctx *c)
{
    const tfmt_allocator *a = c->p->alloc;
    tfmt__free(a, c->jstr);
    tfmt__free(a, c->strs);
    tfmt__free(a, c->jframe);
    tfmt__free(a, c->order);
    tfmt__free(a, c->keys);
    tfmt__free(a, c->self);
    tfmt__free(a, c->cum);
    tfmt__idset_free(&c->set);
    tfmt__buf_free(&c->out);
}

int tfmt_profile_write_jsonl(tfmt_profile *p, tfmt_sink *sink,
                             const char *run_id)
{
    if (!p || !sink || !run_id)
        return TFMT_EINVAL;
    /* The node index is the largest table left: not needed here. */
    tfmt__profile_drop_index(p);
    jctx c;
    int rc = ctx_init(&c, p, sink, run_id);
    if (rc == TFMT_OK)
        rc = map_frames(&c);
    if (rc == TFMT_OK)
        rc = aggregate(&c);
    if (rc == TFMT_OK)
        rc = put_all(&c);
    if (rc == TFMT_OK && tfmt__profile_flush(&c.out, sink, 0) != TFMT_OK)
        c.io_failed = true;
    if (c.io_failed) {
        rc = tfmt__error_take(&p->err, tfmt_sink_error(sink), TFMT_EIO);
    } else if (rc != TFMT_OK) {
        rc = tfmt__error(&p->err, rc, "out of memory");
    }
    ctx_free(&c);
    return rc;
}
