/* SPDX-License-Identifier: MIT */
/*
 * linetable.c - decode the location table of CPython 3.11+ code objects
 * (Objects/locations.md). Entries start with a byte 1CCCCLLL: code C, and
 * L+1 code units covered. Codes: 15 no location, 14 long form, 13 line
 * only, 10-12 one line with columns, 0-9 short form. Varints carry 6 bits
 * per byte with bit 6 as continuation; signed ones keep the sign in bit 0.
 * Every read is bounds-checked: the table was copied from another process.
 */
#include "linetable.h"

typedef struct lt_cursor {
    const uint8_t *p, *end;
    int bad;
} lt_cursor;

static uint32_t next_byte(lt_cursor *c)
{
    if (c->p >= c->end) {
        c->bad = 1;
        return 0;
    }
    return *c->p++;
}

static uint32_t read_varint(lt_cursor *c)
{
    uint32_t b = next_byte(c), val = b & 63;
    unsigned shift = 0;
    while ((b & 64) && !c->bad && shift < 24) {
        shift += 6;
        b = next_byte(c);
        val |= (b & 63) << shift;
    }
    return val;
}

static int32_t read_svarint(lt_cursor *c)
{
    uint32_t u = read_varint(c);
    return (u & 1) ? -(int32_t)(u >> 1) : (int32_t)(u >> 1);
}

/* Decode one entry's location, advancing `line` by its delta. */
static py_location decode_entry(lt_cursor *c, int code, int32_t *line)
{
    py_location loc = {-1, -1, -1, -1};
    if (code == 15)
        return loc;
    if (code == 14 || code == 13) {
        *line += read_svarint(c);
        loc.lineno = *line;
        loc.end_lineno = *line;
        if (code == 14) {
            loc.end_lineno = *line + (int32_t)read_varint(c);
            loc.column = (int32_t)read_varint(c) - 1;
            loc.end_column = (int32_t)read_varint(c) - 1;
        }
        return loc;
    }
    loc.lineno = loc.end_lineno = *line;
    if (code >= 10) {
        *line += code - 10;
        loc.lineno = loc.end_lineno = *line;
        loc.column = (int32_t)next_byte(c);
        loc.end_column = (int32_t)next_byte(c);
        return loc;
    }
    uint32_t second = next_byte(c);
    loc.column = (int32_t)((uint32_t)code << 3 | ((second >> 4) & 7));
    loc.end_column = loc.column + (int32_t)(second & 15);
    return loc;
}

py_location linetable_lookup(const uint8_t *table, size_t len,
                             int32_t firstlineno, int64_t addrq)
{
    py_location none = {-1, -1, -1, -1};
    if (addrq < 0)
        return (py_location){firstlineno, firstlineno, -1, -1};
    lt_cursor c = {table, table + len, 0};
    int32_t line = firstlineno;
    int64_t addr = 0;
    while (c.p < c.end) {
        uint32_t head = next_byte(&c);
        if (!(head & 128))
            return none;
        int code = (int)((head >> 3) & 15);
        int64_t units = (int64_t)(head & 7) + 1;
        py_location loc = decode_entry(&c, code, &line);
        if (c.bad)
            return none;
        if (addrq < addr + units)
            return loc;
        addr += units;
    }
    return none;
}
