/* SPDX-License-Identifier: MIT */
/*
 * py_offsets.c - pick the offsets for the target's interpreter version.
 * Supported: 3.11, 3.12 (static tables), 3.13 and 3.14 (debug offsets;
 * 3.14 with or without the GIL). Newer versions change the debug-offsets
 * layout and frame rules and cannot be tested on the machines this is
 * built on, so they are refused.
 */
#include "py_offsets.h"

#include <stdio.h>

int py_offsets_select(pid_t pid, uint32_t hexversion, uint64_t runtime,
                      uint64_t section_size, py_offsets *out, char *msg,
                      size_t msg_len)
{
    unsigned major = hexversion >> 24, minor = (hexversion >> 16) & 0xff;
    unsigned micro = (hexversion >> 8) & 0xff;
    if (major == 3 && minor == 11) {
        *out = py_offsets_311;
        return 0;
    }
    if (major == 3 && minor == 12) {
        *out = py_offsets_312;
        return 0;
    }
    if (major == 3 && minor == 13)
        return py_offsets_313_load(pid, runtime, section_size, out, msg,
                                   msg_len);
    if (major == 3 && minor == 14)
        return py_offsets_314_load(pid, runtime, section_size, out, msg,
                                   msg_len);
    snprintf(msg, msg_len,
             "Python %u.%u.%u is not supported "
             "(supported: 3.11, 3.12, 3.13, 3.14)",
             major, minor, micro);
    return -1;
}
