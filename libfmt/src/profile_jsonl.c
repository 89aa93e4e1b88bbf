/* profile_jsonl.c - placeholder until the module lands. */
#include "internal.h"
