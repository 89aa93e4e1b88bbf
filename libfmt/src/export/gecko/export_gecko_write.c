/* SPDX-License-Identifier: MIT */
/*
 * export_gecko_write.c - the JSON of GeckoCollector.export(): json.dump
 * with separators (",", ":"), ASCII escapes and Python float reprs, keys
 * in the collector's insertion order, no trailing newline: the meta
 * object, each thread's tables, the string array. The sample and marker
 * columns are export_gecko_cols.c's.
 */
#include <errno.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "export_gecko.h"

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

typedef gwriter wctx;

int tfmt__gwriter_flush(gwriter *w, bool all)
{
    int rc = tfmt__profile_flush(&w->b, w->sink, all ? 0 : TFMT_EXPORT_FLUSH);
    if (rc != TFMT_OK) {
        w->sink_failed = true;
        rc = tfmt__error_take(&w->g->err, tfmt_sink_error(w->sink), rc);
    }
    return rc;
}

static int flush(wctx *w, bool all)
{
    return tfmt__gwriter_flush(w, all);
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
    rc |= tfmt__buf_printf(
        b,
        ",\"processType\":0,\"categories\":%s,"
        "\"stackwalk\":0,\"toolkit\":\"\",\"version\":32,"
        "\"preprocessedProfileVersion\":57,\"appBuildID\":\"\","
        "\"physicalCPUs\":%ld,\"logicalCPUs\":%ld,\"CPUName\":\"\","
        "\"product\":\"Python\",\"symbolicated\":true,\"markerSchema\":%s,"
        "\"importedFrom\":\"Tachyon Sampling Profiler\",\"extensions\":"
        "{\"id\":[],\"name\":[],\"baseURL\":[],\"length\":0}},"
        "\"libs\":[],\"threads\":[",
        categories, cpus > 0 ? cpus : 0, cpus > 0 ? cpus : 0,
        tfmt__gecko_marker_schema(g));
    return rc;
}

/* List item i: v, after a comma unless first. */
static int put_num(wctx *w, size_t i, uint64_t v)
{
    char *p = gw_room(w, 24);
    if (!p)
        return TFMT_ENOMEM;
    *p = ',';
    return gw_done(w, tfmt__put_uint(p + (i != 0), v));
}

/* List item i: "null" when v is TFMT_NO_ID, else v. */
static int put_id(wctx *w, size_t i, uint32_t v)
{
    if (v != TFMT_NO_ID)
        return put_num(w, i, v);
    return tfmt__buf_puts(&w->b, i ? ",null" : "null");
}

static int put_line(wctx *w, size_t i, int64_t line)
{
    if (line == G_NONE_LINE)
        return tfmt__buf_puts(&w->b, i ? ",null" : "null");
    if (line >= 0)
        return put_num(w, i, (uint64_t)line);
    int rc = tfmt__buf_puts(&w->b, i ? ",-" : "-");
    return rc ? rc : put_num(w, 0, 0 - (uint64_t)line);
}

/* ---- the tables ---- */

/* `"key":[` after "]," (the previous list's end) or after `before`. */
static int key(wctx *w, const char *before, const char *name)
{
    int rc = tfmt__buf_puts(&w->b, before);
    rc |= tfmt__buf_putc(&w->b, '"');
    rc |= tfmt__buf_puts(&w->b, name);
    return rc | tfmt__buf_puts(&w->b, "\":[");
}

/* `,"key":[item,item...]` with `n` copies of `item`. */
static int repeat(wctx *w, const char *name, const char *item, size_t n)
{
    int rc = key(w, ",", name);
    rc |= tfmt__gwriter_repeat(w, item, n);
    return rc | tfmt__buf_putc(&w->b, ']');
}

static int put_stack_table(wctx *w)
{
    const gtables *t = &w->tab;
    size_t n = t->nstacks;
    int rc = key(w, "\"stackTable\":{", "frame");
    for (size_t i = 0; i < n; i++)
        rc |= put_num(w, i, t->stacks[i].frame);
    rc |= key(w, "],", "category");
    for (size_t i = 0; i < n; i++)
        rc |= put_num(w, i, t->stacks[i].cat);
    rc |= tfmt__buf_putc(&w->b, ']');
    rc |= repeat(w, "subcategory", "0", n);
    rc |= key(w, ",", "prefix");
    for (size_t i = 0; i < n; i++)
        rc |= put_id(w, i, t->stacks[i].prefix);
    rc |= tfmt__buf_putc(&w->b, ']');
    return rc | tfmt__gwriter_length(w, n, "},");
}

static int put_frame_table(wctx *w)
{
    const gtables *t = &w->tab;
    size_t n = t->nframes;
    int rc = key(w, "\"frameTable\":{", "address");
    rc |= tfmt__gwriter_repeat(w, "-1", n);
    rc |= key(w, "],", "category");
    for (size_t i = 0; i < n; i++)
        rc |= put_num(
            w, i, t->funcs[t->frames[i].func].py ? G_CAT_PYTHON : G_CAT_NATIVE);
    rc |= tfmt__buf_putc(&w->b, ']');
    rc |= repeat(w, "subcategory", "0", n);
    rc |= key(w, ",", "func");
    for (size_t i = 0; i < n; i++)
        rc |= put_num(w, i, t->frames[i].func);
    rc |= tfmt__buf_putc(&w->b, ']');
    rc |= repeat(w, "innerWindowID", "null", n);
    rc |= repeat(w, "implementation", "null", n);
    rc |= repeat(w, "optimizations", "null", n);
    rc |= key(w, ",", "line");
    for (size_t i = 0; i < n; i++) {
        int64_t l = t->frames[i].line;
        rc |= put_line(w, i, l == 0 ? G_NONE_LINE : l); /* lineno or None */
    }
    rc |= key(w, "],", "column");
    for (size_t i = 0; i < n; i++) {
        int32_t c = t->frames[i].col;
        rc |= put_id(w, i, c < 0 ? TFMT_NO_ID : (uint32_t)c);
    }
    rc |= tfmt__buf_putc(&w->b, ']');
    rc |= repeat(w, "inlineDepth", "0", n);
    rc |= repeat(w, "nativeSymbol", "null", n);
    return rc | tfmt__gwriter_length(w, n, "},");
}

static int put_func_table(wctx *w)
{
    const gtables *t = &w->tab;
    size_t n = t->nfuncs;
    int rc = key(w, "\"funcTable\":{", "name");
    for (size_t i = 0; i < n; i++)
        rc |= put_num(w, i, t->funcs[i].name);
    for (int k = 0; k < 2; k++) {
        rc |= key(w, "],", k ? "relevantForJS" : "isJS");
        for (size_t i = 0; i < n; i++)
            rc |= tfmt__buf_puts(&w->b, t->funcs[i].py
                                            ? (i ? ",true" : "true")
                                            : (i ? ",false" : "false"));
    }
    rc |= key(w, "],", "resource");
    for (size_t i = 0; i < n; i++)
        rc |= put_num(w, i, t->funcs[i].resource);
    rc |= key(w, "],", "fileName");
    for (size_t i = 0; i < n; i++)
        rc |= put_id(w, i, t->funcs[i].fname);
    rc |= key(w, "],", "lineNumber");
    for (size_t i = 0; i < n; i++)
        rc |= put_line(w, i, t->funcs[i].line);
    rc |= tfmt__buf_putc(&w->b, ']');
    rc |= repeat(w, "columnNumber", "null", n);
    return rc | tfmt__gwriter_length(w, n, "},");
}

static int put_resources(wctx *w)
{
    const gtables *t = &w->tab;
    size_t n = t->nres;
    int rc = key(w, "\"resourceTable\":{", "lib");
    rc |= tfmt__gwriter_repeat(w, "null", n);
    rc |= key(w, "],", "name");
    for (size_t i = 0; i < n; i++)
        rc |= put_num(w, i, t->res[i].name);
    rc |= tfmt__buf_putc(&w->b, ']');
    rc |= repeat(w, "host", "null", n);
    rc |= repeat(w, "type", "1", n);
    rc |= tfmt__gwriter_length(w, n, "},");
    return rc |
           tfmt__buf_puts(
               &w->b,
               "\"nativeSymbols\":{\"libIndex\":[],"
               "\"address\":[],\"name\":[],\"functionSize\":[],\"length\":0},");
}

/*
 * One thread: its samples are written first, which makes its tables
 * (tfmt__gecko_local), then the tables, which are freed after it.
 */
static int put_thread(wctx *w, size_t i)
{
    gthread *t = w->t = w->g->threads[i];
    w->serial = (uint32_t)i + 1;
    tfmt__gecko_tables_free(w->g->alloc, &w->tab);
    int rc = tfmt__buf_printf(
        &w->b,
        "%s{\"name\":\"Thread-%llu\","
        "\"isMainThread\":%s,\"processStartupTime\":0,"
        "\"processShutdownTime\":null,\"registerTime\":0,"
        "\"unregisterTime\":null,\"pausedRanges\":[],\"pid\":\"%ld\","
        "\"tid\":%llu,\"processType\":\"default\","
        "\"processName\":\"Python Process\",",
        i ? "," : "", (unsigned long long)t->tid, t->main ? "true" : "false",
        (long)getpid(), (unsigned long long)t->tid);
    if (rc == TFMT_OK)
        rc = tfmt__gecko_put_samples(w);
    if (rc == TFMT_OK)
        rc = put_stack_table(w);
    if (rc == TFMT_OK)
        rc = put_frame_table(w);
    if (rc == TFMT_OK)
        rc = put_func_table(w);
    if (rc == TFMT_OK)
        rc = put_resources(w);
    if (rc == TFMT_OK)
        rc = tfmt__gecko_put_markers(w);
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
    return rc ? rc
              : tfmt__buf_puts(&w->b, "],\"sources\":{\"length\":0,"
                                      "\"uuid\":[],\"filename\":[]}}}");
}

int tfmt_gecko_write(tfmt_gecko *g, tfmt_sink *sink)
{
    int rc = tfmt__gecko_finalize(g);
    if (rc == TFMT_OK)
        rc = tfmt__gecko_opcode_finalize(g);
    if (rc != TFMT_OK)
        return rc;
    if (g->sample_count > 0 && gecko_last_ms(g) > 0)
        g->interval = gecko_last_ms(g) / (double)g->sample_count;
    else if (g->iv_set)
        g->interval = (gecko_ms(g, g->iv_ts) - gecko_ms(g, g->iv_prev_ts)) /
                      (double)g->iv_count;
    wctx w;
    memset(&w, 0, sizeof w);
    w.g = g;
    w.sink = sink;
    tfmt__buf_init(&w.b, g->alloc);
    tfmt__gecko_tables_init(&w.tab, g->alloc);
    tfmt__buf_init(&w.whole, g->alloc);
    size_t nn = g->nnodes ? g->nnodes : 1;
    w.loc = tfmt__malloc(g->alloc, nn * sizeof *w.loc);
    w.loc_serial = tfmt__calloc(g->alloc, nn, sizeof *w.loc_serial);
    rc = w.loc && w.loc_serial ? put_meta(&w) : TFMT_ENOMEM;
    for (size_t i = 0; i < g->nthreads && rc == TFMT_OK; i++)
        rc = put_thread(&w, i);
    if (rc == TFMT_OK)
        rc = put_strings(&w);
    if (rc == TFMT_OK)
        rc = flush(&w, true);
    if (w.sink_failed)
        rc = g->err.code ? g->err.code : TFMT_EIO;
    else if (rc == TFMT_EIO)
        rc = tfmt__error_errno(&g->err, errno, "gecko spool");
    else if (rc != TFMT_OK)
        rc = tfmt__gecko_nomem(g);
    tfmt__buf_free(&w.b);
    tfmt__gecko_tables_free(g->alloc, &w.tab);
    tfmt__buf_free(&w.whole);
    tfmt__free(g->alloc, w.loc);
    tfmt__free(g->alloc, w.loc_serial);
    tfmt__free(g->alloc, w.chain);
    return rc;
}
