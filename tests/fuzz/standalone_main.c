/* SPDX-License-Identifier: MIT */
/*
 * standalone_main.c - replays fuzz inputs without libFuzzer, so every
 * compiler can run the corpus and the past crashes inside ctest. Each
 * argument is a file or a directory (its regular files, one level, dot
 * files and README* skipped); each file is passed once to
 * LLVMFuzzerTestOneInput. Options (arguments starting with '-') are
 * ignored, so the same command line works for a libFuzzer build.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    unsigned char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
        if (n == cap) {
            unsigned char *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

static int run_file(const char *path)
{
    size_t len = 0;
    unsigned char *data = slurp(path, &len);
    if (!data) {
        fprintf(stderr, "standalone: cannot read %s\n", path);
        return 1;
    }
    LLVMFuzzerTestOneInput(data, len);
    free(data);
    return 0;
}

static int run_dir(const char *dir, size_t *count)
{
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "standalone: cannot open %s\n", dir);
        return 1;
    }
    int bad = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || strncmp(e->d_name, "README", 6) == 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        bad |= run_file(path);
        (*count)++;
    }
    closedir(d);
    return bad;
}

int main(int argc, char **argv)
{
    size_t count = 0;
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (argv[i][0] == '-')
            continue;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "standalone: no such input %s\n", argv[i]);
            bad = 1;
        } else if (S_ISDIR(st.st_mode)) {
            bad |= run_dir(argv[i], &count);
        } else {
            bad |= run_file(argv[i]);
            count++;
        }
    }
    printf("%zu inputs ran\n", count);
    return bad;
}
