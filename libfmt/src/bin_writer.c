/* bin_writer.c - placeholder until the module lands. */
#include "internal.h"
