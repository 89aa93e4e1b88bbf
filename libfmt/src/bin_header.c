/* bin_header.c - placeholder until the module lands. */
#include "internal.h"
