/* SPDX-License-Identifier: MIT */
/*
 * elf_image.c - minimal ELF64 reader over pread: headers, section names and
 * .dynsym. Everything read from the file is bounds-checked against the
 * file size; the recorder opens files named by another process.
 */
#include "elf_image.h"

#include <elf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ELF_MAX_TABLE (64u << 20)

struct elf_image {
    int fd;
    uint64_t file_size;
    Elf64_Ehdr eh;
    Elf64_Shdr *sh; /* eh.e_shnum section headers */
    char *shstr;    /* section name table */
    uint64_t shstr_size;
};

/* pread exactly `len` bytes at `off` inside the file; else -1. */
static int read_at(const elf_image *img, void *buf, uint64_t len, uint64_t off)
{
    if (off > img->file_size || len > img->file_size - off)
        return -1;
    ssize_t got = pread(img->fd, buf, len, (off_t)off);
    return got == (ssize_t)len ? 0 : -1;
}

/* Allocate and read a table of `len` bytes; NULL on failure. */
static void *read_table(const elf_image *img, uint64_t len, uint64_t off)
{
    if (len == 0 || len > ELF_MAX_TABLE)
        return NULL;
    void *p = malloc(len + 1);
    if (p && read_at(img, p, len, off) != 0) {
        free(p);
        return NULL;
    }
    if (p)
        ((char *)p)[len] = '\0';
    return p;
}

static int check_header(const Elf64_Ehdr *eh)
{
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_shentsize != sizeof(Elf64_Shdr) ||
        eh->e_phentsize != sizeof(Elf64_Phdr))
        return -1;
    return 0;
}

static int load_sections(elf_image *img)
{
    uint64_t n = img->eh.e_shnum;
    img->sh = read_table(img, n * sizeof(Elf64_Shdr), img->eh.e_shoff);
    if (!img->sh || img->eh.e_shstrndx >= n)
        return -1;
    const Elf64_Shdr *s = &img->sh[img->eh.e_shstrndx];
    img->shstr = read_table(img, s->sh_size, s->sh_offset);
    img->shstr_size = s->sh_size;
    return img->shstr ? 0 : -1;
}

elf_image *elf_open(const char *path)
{
    struct stat st;
    elf_image *img = calloc(1, sizeof *img);
    if (!img)
        return NULL;
    img->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (img->fd < 0 || fstat(img->fd, &st) != 0) {
        elf_close(img);
        return NULL;
    }
    img->file_size = (uint64_t)st.st_size;
    if (read_at(img, &img->eh, sizeof img->eh, 0) != 0 ||
        check_header(&img->eh) != 0 || load_sections(img) != 0) {
        elf_close(img);
        return NULL;
    }
    return img;
}

void elf_close(elf_image *img)
{
    if (!img)
        return;
    if (img->fd >= 0)
        close(img->fd);
    free(img->sh);
    free(img->shstr);
    free(img);
}

uint64_t elf_link_base(const elf_image *img)
{
    for (unsigned i = 0; i < img->eh.e_phnum; i++) {
        Elf64_Phdr ph;
        uint64_t off = img->eh.e_phoff + (uint64_t)i * sizeof ph;
        if (read_at(img, &ph, sizeof ph, off) != 0)
            return 0;
        if (ph.p_type != PT_LOAD)
            continue;
        uint64_t align = ph.p_align ? ph.p_align : 1;
        return ph.p_vaddr & ~(align - 1);
    }
    return 0;
}

static const Elf64_Shdr *find_section(const elf_image *img, const char *name)
{
    for (unsigned i = 0; i < img->eh.e_shnum; i++) {
        const Elf64_Shdr *s = &img->sh[i];
        if (s->sh_name < img->shstr_size &&
            strcmp(img->shstr + s->sh_name, name) == 0)
            return s;
    }
    return NULL;
}

int elf_section(const elf_image *img, const char *name, uint64_t *addr,
                uint64_t *size)
{
    const Elf64_Shdr *s = find_section(img, name);
    if (!s)
        return -1;
    *addr = s->sh_addr;
    *size = s->sh_size;
    return 0;
}

static int match_symbol(const Elf64_Sym *sym, const char *strtab,
                        uint64_t strsize, const char *name)
{
    if (sym->st_shndx == SHN_UNDEF || sym->st_name >= strsize)
        return 0;
    return strcmp(strtab + sym->st_name, name) == 0;
}

int elf_dynsym(const elf_image *img, const char *name, uint64_t *value,
               uint64_t *size)
{
    const Elf64_Shdr *ds = find_section(img, ".dynsym");
    if (!ds || ds->sh_link >= img->eh.e_shnum)
        return -1;
    const Elf64_Shdr *ss = &img->sh[ds->sh_link];
    Elf64_Sym *syms = read_table(img, ds->sh_size, ds->sh_offset);
    char *strtab = read_table(img, ss->sh_size, ss->sh_offset);
    int rc = -1;
    size_t n = syms ? ds->sh_size / sizeof(Elf64_Sym) : 0;
    for (size_t i = 0; strtab && i < n; i++) {
        if (match_symbol(&syms[i], strtab, ss->sh_size, name)) {
            *value = syms[i].st_value;
            *size = syms[i].st_size;
            rc = 0;
            break;
        }
    }
    free(syms);
    free(strtab);
    return rc;
}
