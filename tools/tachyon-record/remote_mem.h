/* SPDX-License-Identifier: MIT */
/*
 * remote_mem.h - reading another process's memory with process_vm_readv.
 */
#ifndef TREC_REMOTE_MEM_H
#define TREC_REMOTE_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Why a remote read failed. */
typedef enum {
    RMEM_OK = 0,
    RMEM_FAULT = -1,  /* unmapped or partly read: stale pointer, torn */
    RMEM_GONE = -2,   /* the process no longer exists */
    RMEM_DENIED = -3, /* no permission (needs CAP_SYS_PTRACE) */
    RMEM_OTHER = -4
} rmem_status;

/* One piece of a batched read. */
typedef struct rmem_piece {
    uint64_t addr;
    void *buf;
    size_t len;
} rmem_piece;

/* Read exactly `len` bytes at `addr`; RMEM_OK or a failure class. */
int rmem_read(pid_t pid, uint64_t addr, void *buf, size_t len);

/* Read all `n` pieces (at most 1024, the kernel's IOV_MAX) in one
 * system call; every byte or a failure. */
int rmem_readv(pid_t pid, const rmem_piece *pieces, size_t n);

/* Read a pointer-sized (8-byte) value. */
int rmem_read_u64(pid_t pid, uint64_t addr, uint64_t *out);

/* Number of system calls made so far (for the benchmark). */
uint64_t rmem_calls(void);

#endif
