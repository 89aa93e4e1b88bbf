/* bin_reader.c - placeholder until the module lands. */
#include "internal.h"
