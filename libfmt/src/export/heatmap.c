/* SPDX-License-Identifier: MIT */
/*
 * heatmap.c - the public handle of CPython's line heatmap (fmt_export.h):
 * the model is built once, then each page and the index are written to
 * the sinks the caller opens (heat_page.c, heat_index.c).
 */
#include "heat_internal.h"

int tfmt_heatmap_new(tfmt_heatmap **out, tfmt_profile *p,
                     const tfmt_heatmap_options *opts)
{
    if (!out || !p)
        return TFMT_EINVAL;
    *out = NULL;
    tfmt_heatmap *h = tfmt__calloc(p->alloc, 1, sizeof *h);
    if (!h)
        return tfmt__error(&p->err, TFMT_ENOMEM, "out of memory");
    h->p = p;
    h->alloc = p->alloc;
    memcpy(h->pyver, p->python_version, 3);
    h->pymixed = p->python_mixed;
    if (opts && (opts->python_version[0] || opts->python_version[1]))
        memcpy(h->pyver, opts->python_version, 3);
    int rc = tfmt__heat_build(h);
    if (rc == TFMT_OK) {
        size_t n = (size_t)h->ninstrs + h->nedges + h->nfuncs + 1;
        h->tmp_a = tfmt__malloc(h->alloc, n * HEAT_TMP);
        h->tmp_b = tfmt__malloc(h->alloc, n * HEAT_TMP);
        if (!h->tmp_a || !h->tmp_b)
            rc = TFMT_ENOMEM;
    }
    if (rc != TFMT_OK) {
        tfmt_heatmap_free(h);
        return tfmt__error(&p->err, rc, "out of memory");
    }
    *out = h;
    return TFMT_OK;
}

size_t tfmt_heatmap_pages(const tfmt_heatmap *h)
{
    return h ? h->npages : 0;
}

tfmt_str tfmt_heatmap_path(const tfmt_heatmap *h, size_t i)
{
    tfmt_str none = {"", 0};
    if (!h || i >= h->npages)
        return none;
    return tfmt__heat_path(h, h->pages[i]);
}

const char *tfmt_heatmap_page(tfmt_heatmap *h, size_t i)
{
    if (!h)
        return NULL;
    if (i >= h->npages)
        snprintf(h->page_name, sizeof h->page_name, "index.html");
    else
        tfmt__heat_page_name(h->page_name, (uint32_t)i);
    return h->page_name;
}

bool tfmt_heatmap_has_opcodes(const tfmt_heatmap *h)
{
    return h && h->opcodes;
}

const tfmt_error *tfmt_heatmap_error(const tfmt_heatmap *h)
{
    return h ? &h->err : NULL;
}

void tfmt_heatmap_free(tfmt_heatmap *h)
{
    if (!h)
        return;
    tfmt__heat_free_model(h);
    void *v[] = {h->tmp_a, h->tmp_b, h->paint, h->next};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++)
        tfmt__free(h->alloc, v[i]);
    tfmt__free(h->alloc, h);
}
