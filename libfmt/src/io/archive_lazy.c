/* SPDX-License-Identifier: MIT */
/*
 * archive_lazy.c - dlopen libarchive on first use (archive_lazy.h says
 * why). The table is filled once under pthread_once and never changes
 * afterwards, so it is the one piece of process-wide state libfmt keeps:
 * the library's symbols, not anything a caller could observe.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

#include "archive_lazy.h"

#ifndef TFMT_LIBARCHIVE_SONAME
#define TFMT_LIBARCHIVE_SONAME "libarchive.so.13"
#endif

static tfmt_archive_api api;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[200]; /* empty once loaded */

static const struct {
    const char *name;
    size_t off;
} symbols[] = {
#define TFMT_ARCHIVE_SYMBOL(f) {#f, offsetof(tfmt_archive_api, f)},
    TFMT_ARCHIVE_FUNCS(TFMT_ARCHIVE_SYMBOL)
#undef TFMT_ARCHIVE_SYMBOL
};

static void load(void)
{
    void *h = dlopen(TFMT_LIBARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(load_error, sizeof load_error, "%s", dlerror());
        return;
    }
    for (size_t i = 0; i < sizeof symbols / sizeof symbols[0]; i++) {
        void *p = dlsym(h, symbols[i].name);
        if (!p) {
            snprintf(load_error, sizeof load_error, "%s has no %s",
                     TFMT_LIBARCHIVE_SONAME, symbols[i].name);
            return;
        }
        /* POSIX guarantees a function pointer fits: copy the bits. */
        memcpy((char *)&api + symbols[i].off, &p, sizeof p);
    }
}

int tfmt__archive_load(tfmt_error *err)
{
    if (pthread_once(&once, load) != 0)
        return tfmt__error(err, TFMT_EIO, "cannot load libarchive");
    if (load_error[0])
        return tfmt__error(err, TFMT_EIO, "cannot load libarchive: %s",
                           load_error);
    return TFMT_OK;
}

const tfmt_archive_api *tfmt__ar(void)
{
    return &api;
}
