/* SPDX-License-Identifier: MIT */
/*
 * py_offsets.c - pick the offsets for the target's interpreter version.
 * Supported: 3.11, 3.12 (static tables), 3.13 and 3.14 (debug offsets;
 * 3.14 with or without the GIL). 3.15 is read through its own table's
 * layout, which cannot be tested on the machines this is built on, so
 * only when asked for; later versions are refused.
 */
#include "py_offsets.h"

#include <stdio.h>

bool py_offsets_untested(uint32_t hexversion)
{
    return (hexversion >> 16) == 0x030f;
}

int py_offsets_select(pid_t pid, uint32_t hexversion, uint64_t runtime,
                      uint64_t section_size, unsigned flags, py_offsets *out,
                      char *msg, size_t msg_len)
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
    if (py_offsets_untested(hexversion) && (flags & PYOFF_ALLOW_UNTESTED))
        return py_offsets_315_load(pid, runtime, section_size, out, msg,
                                   msg_len);
    if (py_offsets_untested(hexversion)) {
        snprintf(msg, msg_len,
                 "Python %u.%u.%u is not tested with tachyon-record "
                 "(tested: 3.11, 3.12, 3.13, 3.14); --allow-untested "
                 "records it anyway",
                 major, minor, micro);
        return -1;
    }
    snprintf(msg, msg_len,
             "Python %u.%u.%u is not supported "
             "(supported: 3.11, 3.12, 3.13, 3.14)",
             major, minor, micro);
    return -1;
}
