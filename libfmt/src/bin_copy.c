/* bin_copy.c - placeholder until the module lands. */
#include "internal.h"
