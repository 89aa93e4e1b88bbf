/* SPDX-License-Identifier: MIT */
/*
 * locate.h - find the CPython runtime inside a process.
 */
#ifndef TREC_LOCATE_H
#define TREC_LOCATE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct py_runtime_loc {
    uint64_t runtime;      /* address of _PyRuntime */
    uint64_t runtime_size; /* size of the .PyRuntime section / symbol */
    uint32_t hexversion;   /* PY_VERSION_HEX read from Py_Version */
    uint64_t code_type;    /* address of PyCode_Type */
    uint64_t none_obj;     /* address of _Py_NoneStruct (None) */
    uint64_t coro_type;    /* PyCoro_Type, 0 if not exported */
    uint64_t gen_type;     /* PyGen_Type, 0 if not exported */
    char path[512];        /* the file that defines them */
} py_runtime_loc;

enum {
    LOCATE_FOUND = 0,
    LOCATE_NOT_YET = 1, /* no interpreter mapped (yet) */
    LOCATE_ERROR = -1,  /* message in msg */
    LOCATE_DENIED = -2  /* not permitted to read the process */
};

/*
 * Look through the files mapped into `pid` whose name contains "python"
 * for the one defining _PyRuntime (ELF section .PyRuntime, else the
 * defined dynamic symbol), and read the interpreter version from its
 * Py_Version symbol. Returns a LOCATE_* value.
 */
int locate_runtime(pid_t pid, py_runtime_loc *out, char *msg, size_t msg_len);

/*
 * Look through the files mapped into `pid` whose base name contains one
 * of `needles` (NULL-terminated) for the ELF section `section`: *addr gets
 * where it is in the process, *size its size, `path` the file. Returns
 * LOCATE_FOUND, LOCATE_NOT_YET (no such file or section mapped),
 * LOCATE_DENIED or LOCATE_ERROR (the maps cannot be read).
 */
int locate_section(pid_t pid, const char *const *needles, const char *section,
                   uint64_t *addr, uint64_t *size, char *path, size_t path_len);

#endif
