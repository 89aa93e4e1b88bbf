/* SPDX-License-Identifier: MIT */
/*
 * opcode.c - CPython's opcode names per minor version. A recorded frame
 * keeps the opcode byte the interpreter was running, which is its own
 * numbering (3.11 to 3.15 all differ) and may be a specialised or
 * instrumented variant; the tables (opcode_tables.h, generated from the
 * interpreters) name every byte and map variants to their base
 * instruction, so outputs can show both.
 */
#include "internal.h"

#include "opcode_tables.h"

static const opcode_table *table_for(unsigned major, unsigned minor)
{
    if (major != 3)
        return NULL;
    for (size_t i = 0; i < sizeof opcode_tables / sizeof opcode_tables[0]; i++)
        if (opcode_tables[i].minor == minor)
            return &opcode_tables[i];
    return NULL;
}

/*
 * Byte 255 is the binary format's "no opcode" (CPython's writer stores 255
 * for anything above MAX_REAL_OPCODE), so it never names an instruction,
 * although 3.14 and 3.15 number one there (ENTER_EXECUTOR, TRACE_RECORD).
 */
const char *tfmt_opcode_name(unsigned major, unsigned minor, unsigned op)
{
    const opcode_table *t = table_for(major, minor);
    return t && op < TFMT_NO_OPCODE ? t->names[op] : NULL;
}

unsigned tfmt_opcode_base(unsigned major, unsigned minor, unsigned op)
{
    const opcode_table *t = table_for(major, minor);
    if (!t || op >= TFMT_NO_OPCODE || !t->names[op])
        return TFMT_NO_OPCODE;
    return t->base[op];
}

int tfmt_opcode_cache_units(unsigned major, unsigned minor, unsigned op)
{
    const opcode_table *t = table_for(major, minor);
    if (!t || op >= 256 || t->caches[op] == 255)
        return -1;
    return t->caches[op];
}
