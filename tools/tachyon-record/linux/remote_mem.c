/* SPDX-License-Identifier: MIT */
/*
 * remote_mem.c - process_vm_readv wrappers. The target keeps running while
 * it is read, so a short or faulting read is a normal event (a pointer went
 * stale mid-walk): it is reported as RMEM_FAULT for the caller to drop the
 * sample, never retried here.
 */
#define _GNU_SOURCE
#include "remote_mem.h"

#include <errno.h>
#include <sys/uio.h>

#define RMEM_MAX_PIECES 1024 /* IOV_MAX */

static uint64_t calls;

static int classify(int e)
{
    if (e == EFAULT || e == EIO)
        return RMEM_FAULT;
    if (e == ESRCH)
        return RMEM_GONE;
    if (e == EPERM || e == EACCES)
        return RMEM_DENIED;
    return RMEM_OTHER;
}

int rmem_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
    rmem_piece p = {addr, buf, len};
    return rmem_readv(pid, &p, 1);
}

int rmem_readv(pid_t pid, const rmem_piece *pieces, size_t n)
{
    struct iovec local[RMEM_MAX_PIECES], remote[RMEM_MAX_PIECES];
    size_t total = 0;
    if (n > RMEM_MAX_PIECES)
        return RMEM_OTHER;
    for (size_t i = 0; i < n; i++) {
        local[i].iov_base = pieces[i].buf;
        local[i].iov_len = pieces[i].len;
        remote[i].iov_base = (void *)(uintptr_t)pieces[i].addr;
        remote[i].iov_len = pieces[i].len;
        total += pieces[i].len;
    }
    calls++;
    ssize_t got = process_vm_readv(pid, local, n, remote, n, 0);
    if (got < 0)
        return classify(errno);
    return (size_t)got == total ? RMEM_OK : RMEM_FAULT;
}

int rmem_read_u64(pid_t pid, uint64_t addr, uint64_t *out)
{
    return rmem_read(pid, addr, out, sizeof *out);
}

uint64_t rmem_calls(void)
{
    return calls;
}
