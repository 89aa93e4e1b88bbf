/* model.c - names of the sample model's enumerations. */
#include "internal.h"

const char *tfmt_mode_name(int mode)
{
    /* CPython's constants.PROFILING_MODE_NAMES, indexed by mode. */
    static const char *const NAMES[] = {"wall", "cpu", "gil", "all",
                                        "exception"};
    if (mode < 0 || mode >= (int)(sizeof NAMES / sizeof NAMES[0]))
        return NULL;
    return NAMES[mode];
}
