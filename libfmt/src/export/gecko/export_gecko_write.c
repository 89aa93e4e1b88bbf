/*
 * export_gecko_write.c - the JSON of GeckoCollector.export(): json.dump
 * with separators (",", ":"), ASCII escapes and Python float reprs, keys
 * in the collector's insertion order, no trailing newline. Sample and
 * marker columns are streamed from the spool, one pass per column.
 */
#include <errno.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "export_gecko.h"

extern const uint8_t tfmt__gecko_state_cat[G_NSTATES];

static const char categories[] =
    "[{\"name\":\"Other\",\"color\":\"grey\",\"subcategories\":[\"Other\"]},"
    "{\"name\":\"Python\",\"color\":\"yellow\",\"subcategories\":[\"Other\"]},"
    "{\"name\":\"Native\",\"color\":\"blue\",\"subcategories\":[\"Other\"]},"
    "{\"name\":\"GC\",\"color\":\"orange\",\"subcategories\":[\"Other\"]},"
    "{\"name\":\"GIL\",\"color\":\"green\",\"subcategories\":[\"Other\"]},"
    "{\"name\":\"CPU\",\"color\":\"purple\",\"subcategories\":[\"Other\"]},"
    "{\"name\":\"Code Type\",\"color\":\"red\",\"subcategories\":"
    "[\"Other\"]},"
    "{\"name\":\"Opcodes\",\"color\":\"magenta\",\"subcategories\":"
    "[\"Other\"]},"
    "{\"name\":\"Exception\",\"color\":\"lightblue\",\"subcategories\":"
    "[\"Other\"]}]";

typedef struct wctx {
    tfmt_gecko *g;
    tfmt_sink *sink;
    tfmt_buf b;
    gthread *t;
    int col;                    /* column being written */
    bool first;
    bool sink_failed;
} wctx;

static int flush(wctx *w, bool all)
{
    int rc = tfmt__profile_flush(&w->b, w->sink,
                                 all ? 0 : TFMT_EXPORT_FLUSH);
    if (rc != TFMT_OK) {
        w->sink_failed = true;
        w->g->err = *tfmt_sink_error(w->sink);
    }
    return rc;
}

static int put_str(wctx *w, const char *s)
{
    return tfmt__json_put_string(&w->b, s, strlen(s));
}

static int put_meta(wctx *w)
{
    tfmt_gecko *g = w->g;
    struct utsname u;
    if (uname(&u) != 0)
        memset(&u, 0, sizeof u);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    tfmt_buf *b = &w->b;
    int rc = tfmt__buf_puts(b, "{\"meta\":{\"interval\":");
    rc |= tfmt__put_pyfloat(b, g->interval);
    rc |= tfmt__buf_puts(b, ",\"startTime\":");
    rc |= tfmt__put_pyfloat(b, g->start_ms);
    rc |= tfmt__buf_puts(b, ",\"abi\":");
    rc |= put_str(w, u.machine);
    rc |= tfmt__buf_puts(b, ",\"misc\":\"Python profiler\",\"oscpu\":");
    rc |= put_str(w, u.machine);
    rc |= tfmt__buf_puts(b, ",\"platform\":");
    rc |= put_str(w, u.sysname);
    rc |= tfmt__buf_printf(b, ",\"processType\":0,\"categories\":%s,"
        "\"stackwalk\":0,\"toolkit\":\"\",\"version\":32,"
        "\"preprocessedProfileVersion\":57,\"appBuildID\":\"\","
        "\"physicalCPUs\":%ld,\"logicalCPUs\":%ld,\"CPUName\":\"\","
        "\"product\":\"Python\",\"symbolicated\":true,\"markerSchema\":[],"
        "\"importedFrom\":\"Tachyon Sampling Profiler\",\"extensions\":"
        "{\"id\":[],\"name\":[],\"baseURL\":[],\"length\":0}},"
        "\"libs\":[],\"threads\":[", categories, cpus > 0 ? cpus : 0,
        cpus > 0 ? cpus : 0);
    return rc;
}

static int sep(wctx *w)
{
    int rc = w->first ? TFMT_OK : tfmt__buf_putc(&w->b, ',');
    w->first = false;
    return rc;
}

static int put_line(tfmt_buf *b, int64_t line)
{
    return line == G_NONE_LINE ? tfmt__buf_puts(b, "null")
                               : tfmt__buf_put_i64(b, line);
}

/* ---- sample and marker columns ---- */

static int sample_col(void *ctx, const void *rec)
{
    wctx *w = ctx;
    gsample s;
    memcpy(&s, rec, sizeof s);
    int rc = sep(w);
    if (w->col == 0)
        rc |= tfmt__buf_put_u64(&w->b, s.stack);
    else
        rc |= tfmt__put_pyfloat(&w->b, s.time);
    return rc ? rc : flush(w, false);
}

static int marker_type(wctx *w, const gmarker *m)
{
    /* "type": the name without spaces */
    tfmt_pstring n = w->g->strs[m->name];
    const char *s = w->g->strbuf.data + n.off;
    int rc = tfmt__buf_puts(&w->b, "{\"type\":\"");
    for (uint32_t i = 0; i < n.len; i++)
        if (s[i] != ' ')
            rc |= tfmt__buf_putc(&w->b, s[i]);
    rc |= tfmt__buf_puts(&w->b, "\",\"duration\":");
    rc |= tfmt__put_pyfloat(&w->b, m->end - m->start);
    return rc | tfmt__buf_printf(&w->b, ",\"tid\":%llu}",
                                 (unsigned long long)w->t->tid);
}

static int marker_col(void *ctx, const void *rec)
{
    wctx *w = ctx;
    gmarker m;
    memcpy(&m, rec, sizeof m);
    int rc = sep(w);
    switch (w->col) {
    case 0: rc |= marker_type(w, &m); break;
    case 1: rc |= tfmt__buf_printf(&w->b, "%u", m.name); break;
    case 2: rc |= tfmt__put_pyfloat(&w->b, m.start); break;
    case 3: rc |= tfmt__put_pyfloat(&w->b, m.end); break;
    case 4: rc |= tfmt__buf_putc(&w->b, '1'); break;
    default:
        rc |= tfmt__buf_printf(&w->b, "%u", tfmt__gecko_state_cat[m.state]);
    }
    return rc ? rc : flush(w, false);
}

static int columns(wctx *w, gstream *st, size_t recsize,
                   int (*fn)(void *, const void *), const char *const *keys,
                   int ncols)
{
    for (int c = 0; c < ncols; c++) {
        int rc = tfmt__buf_printf(&w->b, "%s\"%s\":[", c ? "," : "",
                                  keys[c]);
        w->col = c;
        w->first = true;
        if (rc == TFMT_OK)
            rc = tfmt__gspool_each(&w->g->spool, st, recsize, fn, w);
        if (rc == TFMT_OK)
            rc = tfmt__buf_putc(&w->b, ']');
        if (rc != TFMT_OK)
            return rc;
    }
    return TFMT_OK;
}

static int put_samples(wctx *w)
{
    static const char *const keys[] = {"stack", "time"};
    gthread *t = w->t;
    int rc = tfmt__buf_puts(&w->b, "\"samples\":{");
    if (rc == TFMT_OK)
        rc = columns(w, &t->samples, sizeof(gsample), sample_col, keys, 2);
    if (rc == TFMT_OK)
        rc = tfmt__buf_puts(&w->b, ",\"eventDelay\":[");
    for (uint64_t i = 0; i < t->samples.count && rc == TFMT_OK; i++) {
        rc = tfmt__buf_puts(&w->b, i ? ",null" : "null");
        if (rc == TFMT_OK && (i & 4095) == 0)
            rc = flush(w, false);
    }
    if (rc == TFMT_OK)
        rc = tfmt__buf_putc(&w->b, ']');
    return rc ? rc : tfmt__buf_printf(&w->b,
        ",\"weight\":null,\"weightType\":\"samples\",\"length\":%llu},",
        (unsigned long long)t->samples.count);
}

static int put_markers(wctx *w)
{
    static const char *const keys[] = {"data", "name", "startTime",
                                       "endTime", "phase", "category"};
    gthread *t = w->t;
    int rc = tfmt__buf_puts(&w->b, "\"markers\":{");
    if (rc == TFMT_OK)
        rc = columns(w, &t->markers, sizeof(gmarker), marker_col, keys, 6);
    return rc ? rc : tfmt__buf_printf(&w->b, ",\"length\":%llu}}",
                                      (unsigned long long)t->markers.count);
}

/* ---- the tables ---- */

/* `n` copies of `item`, comma separated, as a JSON array. */
static int repeat(tfmt_buf *b, const char *key, const char *item, size_t n)
{
    int rc = tfmt__buf_printf(b, ",\"%s\":[", key);
    for (size_t i = 0; i < n; i++)
        rc |= tfmt__buf_printf(b, i ? ",%s" : "%s", item);
    return rc | tfmt__buf_putc(b, ']');
}

static int put_stack_table(wctx *w)
{
    gthread *t = w->t;
    tfmt_buf *b = &w->b;
    int rc = tfmt__buf_puts(b, "\"stackTable\":{\"frame\":[");
    for (size_t i = 0; i < t->nstacks; i++)
        rc |= tfmt__buf_printf(b, i ? ",%u" : "%u", t->stacks[i].frame);
    rc |= tfmt__buf_puts(b, "],\"category\":[");
    for (size_t i = 0; i < t->nstacks; i++)
        rc |= tfmt__buf_printf(b, i ? ",%u" : "%u", t->stacks[i].cat);
    rc |= tfmt__buf_putc(b, ']');
    rc |= repeat(b, "subcategory", "0", t->nstacks);
    rc |= tfmt__buf_puts(b, ",\"prefix\":[");
    for (size_t i = 0; i < t->nstacks; i++) {
        uint32_t pre = t->stacks[i].prefix;
        rc |= tfmt__buf_puts(b, i ? "," : "");
        rc |= pre == TFMT_NO_ID ? tfmt__buf_puts(b, "null")
                                : tfmt__buf_printf(b, "%u", pre);
    }
    return rc | tfmt__buf_printf(b, "],\"length\":%zu},", t->nstacks);
}

static int put_frame_table(wctx *w)
{
    gthread *t = w->t;
    tfmt_buf *b = &w->b;
    size_t n = t->nframes;
    int rc = tfmt__buf_puts(b, "\"frameTable\":{\"address\":[");
    for (size_t i = 0; i < n; i++)
        rc |= tfmt__buf_puts(b, i ? ",-1" : "-1");
    rc |= tfmt__buf_puts(b, "],\"category\":[");
    for (size_t i = 0; i < n; i++)
        rc |= tfmt__buf_printf(b, i ? ",%d" : "%d",
            t->funcs[t->frames[i].func].py ? G_CAT_PYTHON : G_CAT_NATIVE);
    rc |= tfmt__buf_putc(b, ']');
    rc |= repeat(b, "subcategory", "0", n);
    rc |= tfmt__buf_puts(b, ",\"func\":[");
    for (size_t i = 0; i < n; i++)
        rc |= tfmt__buf_printf(b, i ? ",%u" : "%u", t->frames[i].func);
    rc |= tfmt__buf_putc(b, ']');
    rc |= repeat(b, "innerWindowID", "null", n);
    rc |= repeat(b, "implementation", "null", n);
    rc |= repeat(b, "optimizations", "null", n);
    rc |= tfmt__buf_puts(b, ",\"line\":[");
    for (size_t i = 0; i < n; i++) {
        int64_t l = t->frames[i].line;
        rc |= tfmt__buf_puts(b, i ? "," : "");
        rc |= put_line(b, l == 0 ? G_NONE_LINE : l);  /* lineno or None */
    }
    rc |= tfmt__buf_puts(b, "],\"column\":[");
    for (size_t i = 0; i < n; i++) {
        int32_t c = t->frames[i].col;
        rc |= tfmt__buf_puts(b, i ? "," : "");
        rc |= c < 0 ? tfmt__buf_puts(b, "null") : tfmt__buf_printf(b, "%d", c);
    }
    rc |= tfmt__buf_putc(b, ']');
    rc |= repeat(b, "inlineDepth", "0", n);
    rc |= repeat(b, "nativeSymbol", "null", n);
    return rc | tfmt__buf_printf(b, ",\"length\":%zu},", n);
}

static int put_func_table(wctx *w)
{
    gthread *t = w->t;
    tfmt_buf *b = &w->b;
    size_t n = t->nfuncs;
    int rc = tfmt__buf_puts(b, "\"funcTable\":{\"name\":[");
    for (size_t i = 0; i < n; i++)
        rc |= tfmt__buf_printf(b, i ? ",%u" : "%u", t->funcs[i].name);
    for (int k = 0; k < 2; k++) {
        rc |= tfmt__buf_puts(b, k ? "],\"relevantForJS\":["
                                  : "],\"isJS\":[");
        for (size_t i = 0; i < n; i++)
            rc |= tfmt__buf_printf(b, "%s%s", i ? "," : "",
                                   t->funcs[i].py ? "true" : "false");
    }
    rc |= tfmt__buf_puts(b, "],\"resource\":[");
    for (size_t i = 0; i < n; i++)
        rc |= tfmt__buf_printf(b, i ? ",%u" : "%u", t->funcs[i].resource);
    rc |= tfmt__buf_puts(b, "],\"fileName\":[");
    for (size_t i = 0; i < n; i++) {
        uint32_t f = t->funcs[i].fname;
        rc |= tfmt__buf_puts(b, i ? "," : "");
        rc |= f == TFMT_NO_ID ? tfmt__buf_puts(b, "null")
                              : tfmt__buf_printf(b, "%u", f);
    }
    rc |= tfmt__buf_puts(b, "],\"lineNumber\":[");
    for (size_t i = 0; i < n; i++) {
        rc |= tfmt__buf_puts(b, i ? "," : "");
        rc |= put_line(b, t->funcs[i].line);
    }
    rc |= tfmt__buf_putc(b, ']');
    rc |= repeat(b, "columnNumber", "null", n);
    return rc | tfmt__buf_printf(b, ",\"length\":%zu},", n);
}

static int put_resources(wctx *w)
{
    gthread *t = w->t;
    tfmt_buf *b = &w->b;
    size_t n = t->nres;
    int rc = tfmt__buf_puts(b, "\"resourceTable\":{\"lib\":[");
    for (size_t i = 0; i < n; i++)
        rc |= tfmt__buf_puts(b, i ? ",null" : "null");
    rc |= tfmt__buf_puts(b, "],\"name\":[");
    for (size_t i = 0; i < n; i++)
        rc |= tfmt__buf_printf(b, i ? ",%u" : "%u", t->res[i].name);
    rc |= tfmt__buf_putc(b, ']');
    rc |= repeat(b, "host", "null", n);
    rc |= repeat(b, "type", "1", n);
    return rc | tfmt__buf_printf(b, ",\"length\":%zu},\"nativeSymbols\":"
        "{\"libIndex\":[],\"address\":[],\"name\":[],\"functionSize\":[],"
        "\"length\":0},", n);
}

static int put_thread(wctx *w, size_t i)
{
    gthread *t = w->t = &w->g->threads[i];
    int rc = tfmt__buf_printf(&w->b, "%s{\"name\":\"Thread-%llu\","
        "\"isMainThread\":%s,\"processStartupTime\":0,"
        "\"processShutdownTime\":null,\"registerTime\":0,"
        "\"unregisterTime\":null,\"pausedRanges\":[],\"pid\":\"%ld\","
        "\"tid\":%llu,\"processType\":\"default\","
        "\"processName\":\"Python Process\",", i ? "," : "",
        (unsigned long long)t->tid, t->main ? "true" : "false",
        (long)getpid(), (unsigned long long)t->tid);
    if (rc == TFMT_OK)
        rc = put_samples(w);
    if (rc == TFMT_OK)
        rc = put_stack_table(w);
    if (rc == TFMT_OK)
        rc = put_frame_table(w);
    if (rc == TFMT_OK)
        rc = put_func_table(w);
    if (rc == TFMT_OK)
        rc = put_resources(w);
    if (rc == TFMT_OK)
        rc = put_markers(w);
    return rc ? rc : flush(w, false);
}

static int put_strings(wctx *w)
{
    tfmt_gecko *g = w->g;
    int rc = tfmt__buf_puts(&w->b, "],\"pages\":[],\"shared\":"
                                   "{\"stringArray\":[");
    for (size_t i = 0; i < g->nstrs && rc == TFMT_OK; i++) {
        rc = tfmt__buf_puts(&w->b, i ? "," : "");
        rc |= tfmt__json_put_string(&w->b, g->strbuf.data + g->strs[i].off,
                                    g->strs[i].len);
        if (rc == TFMT_OK)
            rc = flush(w, false);
    }
    return rc ? rc : tfmt__buf_puts(&w->b, "],\"sources\":{\"length\":0,"
                                    "\"uuid\":[],\"filename\":[]}}}");
}

int tfmt_gecko_write(tfmt_gecko *g, tfmt_sink *sink)
{
    int rc = tfmt__gecko_finalize(g);
    if (rc != TFMT_OK)
        return rc;
    if (g->sample_count > 0 && g->last_time > 0)
        g->interval = g->last_time / (double)g->sample_count;
    wctx w;
    memset(&w, 0, sizeof w);
    w.g = g;
    w.sink = sink;
    tfmt__buf_init(&w.b, g->alloc);
    rc = put_meta(&w);
    for (size_t i = 0; i < g->nthreads && rc == TFMT_OK; i++)
        rc = put_thread(&w, i);
    if (rc == TFMT_OK)
        rc = put_strings(&w);
    if (rc == TFMT_OK)
        rc = flush(&w, true);
    if (rc == TFMT_EIO && !w.sink_failed)
        rc = tfmt__error_errno(&g->err, errno, "gecko spool");
    else if (rc != TFMT_OK && !w.sink_failed)
        rc = tfmt__gecko_nomem(g);
    tfmt__buf_free(&w.b);
    return rc;
}
