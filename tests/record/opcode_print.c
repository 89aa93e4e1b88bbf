/* SPDX-License-Identifier: MIT */
/*
 * opcode_print MAJOR MINOR - print libtachyonfmt's opcode table for a
 * CPython version, one line per opcode byte: "OP NAME BASE CACHES" (NAME
 * "-" when the byte has none, CACHES -1 when unknown), for
 * check_opcodes.py to compare with the interpreter's own.
 */
#include <stdio.h>
#include <stdlib.h>

#include <tachyon/fmt.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: opcode_print MAJOR MINOR\n");
        return 2;
    }
    unsigned major = (unsigned)atoi(argv[1]), minor = (unsigned)atoi(argv[2]);
    for (unsigned op = 0; op < 256; op++) {
        const char *name = tfmt_opcode_name(major, minor, op);
        printf("%u %s %u %d\n", op, name ? name : "-",
               tfmt_opcode_base(major, minor, op),
               tfmt_opcode_cache_units(major, minor, op));
    }
    return 0;
}
