/* SPDX-License-Identifier: MIT */
/*
 * main.c - the consumer project's program: what a log is, and how many
 * samples it holds, through the installed headers and library only.
 */
#include <stdio.h>

#include <tachyon/fmt.h>

int main(int argc, char **argv)
{
    tfmt_source *src = NULL;
    tfmt_bin_reader *r = NULL;
    tfmt_profile *p = NULL;
    tfmt_detection d;
    tfmt_error err = {0};
    int rc = argc == 2 ? tfmt_source_open_path(&src, argv[1], NULL, &err)
                       : TFMT_EINVAL;
    if (rc == TFMT_OK)
        rc = tfmt_detect(src, &d, &err);
    if (rc == TFMT_OK)
        rc = tfmt_bin_open(&r, src, NULL, &err);
    if (rc == TFMT_OK)
        rc = tfmt_profile_new(&p, NULL);
    if (rc == TFMT_OK && tfmt_profile_add_bin(p, r) < 0) {
        err = *tfmt_profile_error(p);
        rc = err.code;
    }
    if (rc == TFMT_OK)
        printf("%s, %llu samples, libtachyonfmt %s\n", tfmt_kind_name(d.kind),
               (unsigned long long)tfmt_profile_samples(p), tfmt_version());
    else
        fprintf(stderr, "consumer: %s\n", err.msg[0] ? err.msg : "usage");
    tfmt_profile_free(p);
    tfmt_bin_free(r);
    tfmt_source_free(src);
    return rc == TFMT_OK ? 0 : 1;
}
