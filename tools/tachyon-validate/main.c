/* SPDX-License-Identifier: MIT */
/*
 * tachyon-validate - check Tachyon binary sample logs and JSONL exports
 * against every rule of their format, reporting each problem with a stable
 * rule id (schemas/RULES.md).
 *
 * main() only parses the command line (options.c) and hands over to
 * run_validate().
 */
#include "validate.h"

/* cli_main's callback: the tool proper. */
static int run(void *ctx)
{
    return run_validate(ctx);
}

int main(int argc, char **argv)
{
    int code = cli_main(&tv_spec, argc, argv, &tv_opts.quiet, run, &tv_opts);
    cli_list_free(&tv_opts.files);
    return code;
}
