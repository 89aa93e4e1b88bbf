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

static int find_runtime(const elf_image *img, uint64_t *addr,
                        uint64_t *size)
{
    if (elf_section(img, ".PyRuntime", addr, size) == 0)
        return 0;
    return elf_dynsym(img, "_PyRuntime", addr, size);
}

/* Fill `out` from one candidate file; LOCATE_NOT_YET if it is not it. */
static int try_file(pid_t pid, const pmap_file *f, py_runtime_loc *out,
                    char *msg, size_t msg_len)
{
    char path[600];
    uint64_t addr, size, ver_addr = 0, type_addr = 0, dummy;
    snprintf(path, sizeof path, "/proc/%d/root%s", (int)pid, f->path);
    elf_image *img = elf_open(path);
    if (!img)
        return LOCATE_NOT_YET;
    int rc = LOCATE_NOT_YET;
    if (find_runtime(img, &addr, &size) == 0) {
        uint64_t bias = f->start - elf_link_base(img);
        rc = LOCATE_ERROR;
        if (elf_dynsym(img, "Py_Version", &ver_addr, &dummy) != 0)
            snprintf(msg, msg_len, "%s: no Py_Version symbol: Python "
                     "older than 3.11 is not supported", f->path);
        else if (elf_dynsym(img, "PyCode_Type", &type_addr, &dummy) != 0)
            snprintf(msg, msg_len, "%s: no PyCode_Type symbol", f->path);
        else if (rmem_read(pid, bias + ver_addr, &out->hexversion, 4) != 0)
            snprintf(msg, msg_len, "cannot read the memory of process %d: "
                     "%s", (int)pid, strerror(errno));
        else
            rc = LOCATE_FOUND;
        out->runtime = bias + addr;
        out->runtime_size = size;
        out->code_type = bias + type_addr;
        snprintf(out->path, sizeof out->path, "%s", f->path);
    }
    elf_close(img);
    return rc;
}

int locate_runtime(pid_t pid, py_runtime_loc *out, char *msg,
                   size_t msg_len)
{
    pmap_file files[LOCATE_MAX_FILES];
    int n = pmap_find_files(pid, "python", files, LOCATE_MAX_FILES);
    if (n < 0) {
        snprintf(msg, msg_len, "cannot read /proc/%d/maps: %s", (int)pid,
                 strerror(errno));
        return LOCATE_ERROR;
    }
    memset(out, 0, sizeof *out);
    for (int i = 0; i < n; i++) {
        int rc = try_file(pid, &files[i], out, msg, msg_len);
        if (rc != LOCATE_NOT_YET)
            return rc;
    }
    return LOCATE_NOT_YET;
}
