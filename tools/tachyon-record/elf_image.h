/* SPDX-License-Identifier: MIT */
/*
 * elf_image.h - the few facts the recorder needs from an ELF file on disk:
 * its link-time base, a named section and defined dynamic symbols.
 */
#ifndef TREC_ELF_IMAGE_H
#define TREC_ELF_IMAGE_H

#include <stddef.h>
#include <stdint.h>

typedef struct elf_image elf_image;

/* Open a 64-bit ELF file; NULL if it cannot be read or is not one. */
elf_image *elf_open(const char *path);
void elf_close(elf_image *img);

/* The first PT_LOAD p_vaddr rounded down to its alignment. */
uint64_t elf_link_base(const elf_image *img);

/* Section `name`: 0 and its address and size, or -1 if absent. */
int elf_section(const elf_image *img, const char *name, uint64_t *addr,
                uint64_t *size);

/*
 * Defined (not SHN_UNDEF) dynamic symbol `name`: 0 and its value and size,
 * or -1. Undefined references (an extension module's _PyRuntime) are
 * skipped, so they never pass for the definition.
 */
int elf_dynsym(const elf_image *img, const char *name, uint64_t *value,
               uint64_t *size);

#endif
