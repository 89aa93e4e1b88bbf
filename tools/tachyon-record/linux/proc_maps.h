/* SPDX-License-Identifier: MIT */
/*
 * proc_maps.h - the file-backed mappings of a process (/proc/PID/maps).
 */
#ifndef TREC_PROC_MAPS_H
#define TREC_PROC_MAPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* One mapped file: where its offset-0 mapping starts. */
typedef struct pmap_file {
    uint64_t start; /* address of the mapping with file offset 0 */
    char path[512];
} pmap_file;

/*
 * List the distinct mapped files whose base name contains `needle`, each
 * with the start of its lowest offset-0 mapping. Returns the number found
 * (up to `cap`), or -1 with errno set when the maps cannot be read.
 */
int pmap_find_files(pid_t pid, const char *needle, pmap_file *out, int cap);

#endif
