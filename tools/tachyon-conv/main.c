/* SPDX-License-Identifier: MIT */
/*
 * tachyon-conv - convert Tachyon binary sample logs (and JSONL exports,
 * where their per-frame totals suffice) to CPython's JSONL export,
 * collapsed stacks, the newest binary layout, or a viewer's format
 * (speedscope, Firefox Profiler, pprof, flame graph SVG, pstats, top).
 *
 * main() only parses the command line (options.c) and hands over to
 * run_conv().
 */
#include "conv.h"

/* cli_main's callback: the tool proper. */
static int run(void *ctx)
{
    return run_conv(ctx);
}

int main(int argc, char **argv)
{
    conv_options *o = &conv_opts;
    int code = cli_main(&conv_spec, argc, argv, &o->quiet, run, o);
    cli_list_free(&o->inputs);
    cli_list_free(&o->include);
    cli_list_free(&o->exclude);
    cli_list_free(&o->rewrite);
    cli_list_free(&o->threads);
    cli_list_free(&o->labels);
    cli_list_free(&o->path_maps);
    return code;
}
