/* SPDX-License-Identifier: MIT */
/*
 * proc_maps.c - parse /proc/PID/maps to find where the interpreter's files
 * are loaded. Only offset-0 mappings matter: that is where an ELF file's
 * first PT_LOAD segment lands, the base of every address computation.
 */
#include "proc_maps.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* Parse one maps line into start, offset and path; 0 if it has a path. */
static int parse_line(const char *line, uint64_t *start, uint64_t *offset,
                      const char **path)
{
    uint64_t end;
    char perms[8];
    int used = 0;
    if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %n",
               start, &end, perms, offset, &used) < 4 ||
        used == 0)
        return -1;
    *path = line + used;
    return (*path)[0] == '/' ? 0 : -1;
}

static void add_file(pmap_file *out, int *n, int cap, uint64_t start,
                     const char *path)
{
    for (int i = 0; i < *n; i++) {
        if (strcmp(out[i].path, path) == 0) {
            if (start < out[i].start)
                out[i].start = start;
            return;
        }
    }
    if (*n >= cap || strlen(path) >= sizeof out[0].path)
        return;
    out[*n].start = start;
    strcpy(out[*n].path, path);
    (*n)++;
}

int pmap_find_files(pid_t pid, const char *needle, pmap_file *out, int cap)
{
    char name[64], line[1024];
    snprintf(name, sizeof name, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(name, "r");
    if (!f)
        return -1;
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        uint64_t start, offset;
        const char *path;
        line[strcspn(line, "\n")] = '\0';
        if (parse_line(line, &start, &offset, &path) != 0 || offset != 0)
            continue;
        if (strstr(base_name(path), needle))
            add_file(out, &n, cap, start, path);
    }
    fclose(f);
    return n;
}
