/* SPDX-License-Identifier: MIT */
/*
 * advise.h - memory advice for large tables. Declared apart from
 * internal.h because tachyon-diff compiles advise.c in as well (its row
 * arrays are as large as the library's tables), so the project has one
 * copy of it. Never installed.
 */
#ifndef TFMT_ADVISE_H
#define TFMT_ADVISE_H

#include <stddef.h>

/*
 * Ask for transparent huge pages for [p, p + n), a block not yet touched
 * (its first writes then fault 2 MiB at a time, and later probes miss the
 * TLB less). Only the whole huge pages inside the block are advised, and
 * only on Linux; elsewhere a no-op.
 */
void tfmt__advise_huge(void *p, size_t n);

#endif
