/* SPDX-License-Identifier: MIT */
/*
 * locate.c - find _PyRuntime, PyCode_Type and Py_Version in a running
 * process. Address = mapping start of the file's offset-0 mapping minus
 * its link-time base plus the link-time address, which covers PIE and
 * shared builds (pyenv's libpython) and non-PIE executables (Debian's
 * /usr/bin/python3.11) alike.
 */
#include "locate.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "elf_image.h"
#include "proc_maps.h"
#include "remote_mem.h"

#define LOCATE_MAX_FILES 32

static int find_runtime(const elf_image *img, uint64_t *addr, uint64_t *size)
{
    if (elf_section(img, ".PyRuntime", addr, size) == 0)
        return 0;
    return elf_dynsym(img, "_PyRuntime", addr, size);
}

/* Read what `img` (mapped at `f`) says about the runtime into `out`. */
static int read_symbols(pid_t pid, const pmap_file *f, const elf_image *img,
                        py_runtime_loc *out, char *msg, size_t msg_len)
{
    uint64_t addr, size, ver = 0, type = 0, none = 0, dummy;
    uint64_t bias = f->start - elf_link_base(img);
    if (find_runtime(img, &addr, &size) != 0)
        return LOCATE_NOT_YET;
    if (elf_dynsym(img, "Py_Version", &ver, &dummy) != 0) {
        snprintf(msg, msg_len,
                 "%s: no Py_Version symbol: Python older "
                 "than 3.11 is not supported",
                 f->path);
        return LOCATE_ERROR;
    }
    if (elf_dynsym(img, "PyCode_Type", &type, &dummy) != 0 ||
        elf_dynsym(img, "_Py_NoneStruct", &none, &dummy) != 0) {
        snprintf(msg, msg_len,
                 "%s: no PyCode_Type or _Py_NoneStruct "
                 "symbol",
                 f->path);
        return LOCATE_ERROR;
    }
    out->runtime = bias + addr;
    out->runtime_size = size;
    out->code_type = bias + type;
    out->none_obj = bias + none;
    /* the objects a Task's coroutine may be, for --async-aware */
    out->coro_type =
        elf_dynsym(img, "PyCoro_Type", &addr, &dummy) == 0 ? bias + addr : 0;
    out->gen_type =
        elf_dynsym(img, "PyGen_Type", &addr, &dummy) == 0 ? bias + addr : 0;
    snprintf(out->path, sizeof out->path, "%s", f->path);
    int rc = rmem_read(pid, bias + ver, &out->hexversion, 4);
    if (rc == RMEM_OK)
        return LOCATE_FOUND;
    snprintf(msg, msg_len, "cannot read the memory of process %d", (int)pid);
    return rc == RMEM_DENIED ? LOCATE_DENIED : LOCATE_ERROR;
}

/* Fill `out` from one candidate file; LOCATE_NOT_YET if it is not it. */
static int try_file(pid_t pid, const pmap_file *f, py_runtime_loc *out,
                    char *msg, size_t msg_len)
{
    char path[600];
    uint64_t dummy;
    snprintf(path, sizeof path, "/proc/%d/root%s", (int)pid, f->path);
    elf_image *img = elf_open(path);
    if (!img)
        return LOCATE_NOT_YET;
    int rc = read_symbols(pid, f, img, out, msg, msg_len);
    if (rc == LOCATE_NOT_YET &&
        elf_dynsym(img, "Py_Initialize", &dummy, &dummy) == 0) {
        /* An interpreter without _PyRuntime: Python 3.6 or older. */
        snprintf(msg, msg_len,
                 "%s: Python older than 3.11 is not "
                 "supported (no _PyRuntime)",
                 f->path);
        rc = LOCATE_ERROR;
    }
    elf_close(img);
    return rc;
}

int locate_runtime(pid_t pid, py_runtime_loc *out, char *msg, size_t msg_len)
{
    pmap_file files[LOCATE_MAX_FILES];
    int n = pmap_find_files(pid, "python", files, LOCATE_MAX_FILES);
    if (n < 0) {
        int denied = errno == EACCES || errno == EPERM;
        snprintf(msg, msg_len, "cannot read /proc/%d/maps: %s", (int)pid,
                 strerror(errno));
        return denied ? LOCATE_DENIED : LOCATE_ERROR;
    }
    memset(out, 0, sizeof *out);
    for (int i = 0; i < n; i++) {
        int rc = try_file(pid, &files[i], out, msg, msg_len);
        if (rc != LOCATE_NOT_YET)
            return rc;
    }
    return LOCATE_NOT_YET;
}

/* Section `section` of the file mapped at `f`, relocated; -1 if absent. */
static int section_in(pid_t pid, const pmap_file *f, const char *section,
                      uint64_t *addr, uint64_t *size)
{
    char path[600];
    uint64_t at, len;
    snprintf(path, sizeof path, "/proc/%d/root%s", (int)pid, f->path);
    elf_image *img = elf_open(path);
    if (!img)
        return -1;
    int rc = elf_section(img, section, &at, &len);
    if (rc == 0) {
        *addr = f->start - elf_link_base(img) + at;
        *size = len;
    }
    elf_close(img);
    return rc;
}

int locate_section(pid_t pid, const char *const *needles, const char *section,
                   uint64_t *addr, uint64_t *size, char *path, size_t path_len)
{
    for (size_t k = 0; needles[k]; k++) {
        pmap_file files[LOCATE_MAX_FILES];
        int n = pmap_find_files(pid, needles[k], files, LOCATE_MAX_FILES);
        if (n < 0)
            return errno == EACCES || errno == EPERM ? LOCATE_DENIED
                                                     : LOCATE_ERROR;
        for (int i = 0; i < n; i++) {
            if (section_in(pid, &files[i], section, addr, size) == 0) {
                snprintf(path, path_len, "%s", files[i].path);
                return LOCATE_FOUND;
            }
        }
    }
    return LOCATE_NOT_YET;
}
