/* SPDX-License-Identifier: MIT */
/*
 * export_gecko_state.c - GeckoCollector's interval markers, call by call:
 * GIL held or not, on or off CPU, Python or native code, waiting for the
 * GIL, GC (a "<GC>" frame) and exception state. A state's interval opens
 * at the first collect() call that shows it and closes (one marker) at
 * the first call that does not, or at the last sample time.
 */
#include <errno.h>

#include "export_gecko.h"

const char *const tfmt__gecko_state_name[G_NSTATES] = {
    "Has GIL",       "No GIL",       "On CPU",          "Off CPU",
    "Python Code",   "Native Code",  "Waiting for GIL", "GC Collecting",
    "Has Exception", "No Exception",
};

/* The category of each state's markers. */
const uint8_t tfmt__gecko_state_cat[G_NSTATES] = {
    G_CAT_GIL,  G_CAT_GIL, G_CAT_CPU, G_CAT_CPU, G_CAT_CODE,
    G_CAT_CODE, G_CAT_GIL, G_CAT_GC,  G_CAT_EXC, G_CAT_EXC,
};

/* The state's name in the string array, interned when first needed. */
static int marker_name(tfmt_gecko *g, int state, uint32_t *out)
{
    if (!(g->state_named >> state & 1)) {
        const char *name = tfmt__gecko_state_name[state];
        int rc =
            tfmt__gecko_string(g, name, strlen(name), &g->state_str[state]);
        if (rc != TFMT_OK)
            return rc;
        g->state_named |= (uint16_t)(1u << state);
    }
    *out = g->state_str[state];
    return TFMT_OK;
}

int tfmt__gecko_put_marker(tfmt_gecko *g, gthread *t, const gmarker *m)
{
    uint8_t *in = tfmt__spool_room(&g->spool, &t->markers, G_MARKER_MAX);
    if (in) {
        tfmt__spool_commit(&t->markers,
                           gmarker_encode(in, m, &t->markers.prev));
        return TFMT_OK;
    }
    uint8_t buf[G_MARKER_MAX];
    size_t n = gmarker_encode(buf, m, &t->markers.prev);
    int rc = tfmt__spool_append(&g->spool, &t->markers, buf, n);
    if (rc == TFMT_EIO)
        return tfmt__error_errno(&g->err, errno, "gecko spool");
    return rc == TFMT_OK ? rc : tfmt__gecko_nomem(g);
}

static int add_marker(tfmt_gecko *g, gthread *t, int state, uint64_t end)
{
    gmarker m;
    memset(&m, 0, sizeof m);
    int rc = marker_name(g, state, &m.name);
    if (rc != TFMT_OK)
        return rc;
    m.state = (uint32_t)state;
    m.start = t->start[state];
    m.end = end;
    t->open[state] = false;
    return tfmt__gecko_put_marker(g, t, &m);
}

static void open_state(gthread *t, int state, uint64_t now)
{
    if (!t->open[state]) {
        t->open[state] = true;
        t->start[state] = now;
    }
}

/* _track_state_transition */
static int track(tfmt_gecko *g, gthread *t, bool cond, int active, int inactive,
                 uint64_t now)
{
    if (!t->initialized) {
        int s = cond ? active : inactive;
        t->open[s] = true;
        t->start[s] = now;
        return TFMT_OK;
    }
    int on = cond ? active : inactive, off = cond ? inactive : active;
    open_state(t, on, now);
    return t->open[off] ? add_marker(g, t, off, now) : TFMT_OK;
}

static int track_code(tfmt_gecko *g, gthread *t, uint8_t status, uint64_t now)
{
    if (status & TFMT_STATUS_HAS_GIL)
        return track(g, t, true, G_PY_CODE, G_NATIVE_CODE, now);
    if (status & TFMT_STATUS_ON_CPU)
        return track(g, t, true, G_NATIVE_CODE, G_PY_CODE, now);
    int rc = TFMT_OK;
    if (t->initialized && t->open[G_PY_CODE])
        rc = add_marker(g, t, G_PY_CODE, now);
    if (rc == TFMT_OK && t->initialized && t->open[G_NATIVE_CODE])
        rc = add_marker(g, t, G_NATIVE_CODE, now);
    return rc;
}

/* A state that opens when `cond` holds and closes with a marker after. */
static int track_span(tfmt_gecko *g, gthread *t, bool cond, int state,
                      uint64_t now)
{
    if (cond) {
        open_state(t, state, now);
        return TFMT_OK;
    }
    return t->open[state] ? add_marker(g, t, state, now) : TFMT_OK;
}

int tfmt__gecko_track(tfmt_gecko *g, gthread *t, uint8_t status, bool has_gc,
                      uint64_t first)
{
    int rc =
        track(g, t, status & TFMT_STATUS_HAS_GIL, G_HAS_GIL, G_NO_GIL, first);
    if (rc == TFMT_OK)
        rc = track(g, t, status & TFMT_STATUS_ON_CPU, G_ON_CPU, G_OFF_CPU,
                   first);
    if (rc == TFMT_OK)
        rc = track_code(g, t, status, first);
    if (rc == TFMT_OK)
        rc = track_span(g, t, status & TFMT_STATUS_GIL_REQUESTED, G_GIL_WAIT,
                        first);
    if (rc == TFMT_OK)
        rc = track(g, t, status & TFMT_STATUS_HAS_EXCEPTION, G_EXC, G_NO_EXC,
                   first);
    if (rc == TFMT_OK)
        rc = track_span(g, t, has_gc, G_GC, first);
    t->initialized = true;
    return rc;
}

/* _finalize_markers: close every open state at the last sample time. */
int tfmt__gecko_finalize(tfmt_gecko *g)
{
    for (int s = 0; s < G_NSTATES; s++) {
        for (size_t i = 0; i < g->nthreads; i++) {
            gthread *t = g->threads[i];
            if (!t->open[s])
                continue;
            int rc = add_marker(g, t, s, g->last_ts);
            if (rc != TFMT_OK)
                return rc;
        }
    }
    return TFMT_OK;
}
