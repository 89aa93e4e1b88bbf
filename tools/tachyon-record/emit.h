/* SPDX-License-Identifier: MIT */
/*
 * emit.h - hand a sample taken by the unwinder to the binary log writer.
 */
#ifndef TREC_EMIT_H
#define TREC_EMIT_H

#include <stdbool.h>
#include <stdint.h>

#include <tachyon/fmt.h>

#include "unwind.h"

#define EMIT_MEMO_SLOTS 8192u

typedef struct emit_memo {
    uint64_t serial; /* code entry serial; 0 = empty */
    int64_t addrq;
    uint8_t opcode;
    uint32_t frame; /* writer frame index */
} emit_memo;

/* Writer frame indices of the synthetic frames, once interned. */
typedef struct emit_synthetic {
    bool done;
    uint32_t frame;
} emit_synthetic;

/* The writer frame of a task's <task> frame, by task address and name
 * (names of up to EMIT_TASK_NAME bytes are remembered; a task is looked
 * for in EMIT_TASK_PROBES slots from its address's). */
#define EMIT_TASK_SLOTS 65536u
#define EMIT_TASK_NAME 48u
#define EMIT_TASK_PROBES 4u
typedef struct emit_task_memo {
    uint64_t addr; /* 0: empty */
    uint32_t frame;
    uint16_t len;
    char name[EMIT_TASK_NAME];
} emit_task_memo;

typedef struct emitter {
    tfmt_bin_writer *w;
    emit_synthetic gc, native;
    emit_memo memo[EMIT_MEMO_SLOTS];
    emit_task_memo *tasks; /* EMIT_TASK_SLOTS, allocated when first used */
} emitter;

/*
 * Intern the frames of every thread in u->threads (innermost first, file
 * name before function name, as CPython does) and append one
 * thread-sample per thread at `timestamp_us`. Returns a tfmt status.
 */
int emit_sample(emitter *e, const unwinder *u, uint64_t timestamp_us);

#endif
