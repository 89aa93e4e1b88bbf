/* SPDX-License-Identifier: MIT */
/*
 * test_locate PID - print what tachyon-record's locator finds in process
 * PID, one "name value" line each: runtime (address of _PyRuntime),
 * version (PY_VERSION_HEX) and code_type (address of PyCode_Type), for
 * check_locate.py to compare with what the process reports about itself.
 */
#include <stdio.h>
#include <stdlib.h>

#include "locate.h"

int main(int argc, char **argv)
{
    py_runtime_loc loc;
    char msg[512] = "";
    if (argc != 2) {
        fprintf(stderr, "usage: test_locate PID\n");
        return 2;
    }
    int rc = locate_runtime((pid_t)atoi(argv[1]), &loc, msg, sizeof msg);
    if (rc != LOCATE_FOUND) {
        fprintf(stderr, "test_locate: %d: %s\n", rc, msg);
        return 1;
    }
    printf("runtime %llu\nversion %lu\ncode_type %llu\n",
           (unsigned long long)loc.runtime, (unsigned long)loc.hexversion,
           (unsigned long long)loc.code_type);
    return 0;
}
