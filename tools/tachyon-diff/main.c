/* SPDX-License-Identifier: MIT */
/*
 * tachyon-diff - compare two profiles key by key: self and cumulative
 * shares, their deltas, a significance test per row, verdicts, and a
 * regression gate for CI.
 *
 * main() only parses the command line (options.c) and hands over to
 * run_diff().
 */
#include "diff.h"

static void free_lists(diff_options *o)
{
    cli_list_free(&o->operands);
    cli_list_free(&o->base);
    cli_list_free(&o->new_);
    cli_list_free(&o->rewrite);
    cli_list_free(&o->include);
    cli_list_free(&o->exclude);
}

/* cli_main's callback: the tool proper. */
static int run(void *ctx)
{
    return run_diff(ctx);
}

int main(int argc, char **argv)
{
    int code =
        cli_main(&diff_spec, argc, argv, &diff_opts.quiet, run, &diff_opts);
    free_lists(&diff_opts);
    return code;
}
