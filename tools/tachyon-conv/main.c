/*
 * tachyon-conv - convert Tachyon binary sample logs to CPython's JSONL
 * export, collapsed stacks, or the newest binary layout.
 *
 * main() only parses the command line and hands over to run_conv().
 */
#include "conv.h"

static conv_options opts;

static const cli_option options[] = {
    {"to", 't', CLI_ARG_REQUIRED, &opts.to,
     "output format: jsonl (default), collapsed or bin", "FORMAT",
     "jsonl|collapsed|bin"},
    {"output", 'o', CLI_ARG_REQUIRED, &opts.output,
     "write to FILE instead of stdout", "FILE", NULL},
    {"force", 'f', CLI_ARG_NONE, &opts.force, "replace an existing output FILE",
     NULL, NULL},
    {"run-id", 0, CLI_ARG_REQUIRED, &opts.run_id,
     "jsonl run id: 32 hex digits or 'random'", "HEX", NULL},
    {"compression", 'c', CLI_ARG_REQUIRED, &opts.compression,
     "bin compression: none or zstd (default: input's)", "METHOD", "none|zstd"},
    {"quiet", 'q', CLI_ARG_NONE, &opts.quiet,
     "do not print warnings or progress", NULL, NULL},
    {"verbose", 'v', CLI_ARG_NONE, &opts.verbose,
     "print a summary of each input on stderr", NULL, NULL},
    {NULL, 0, CLI_ARG_NONE, NULL, NULL, NULL, NULL}};

static const char epilog[] =
    "IN is a Tachyon binary log (\"-\" reads stdin), optionally compressed\n"
    "as a whole with gzip, zstd, xz or bzip2. Several inputs are merged into\n"
    "one profile for jsonl and collapsed output; bin takes exactly one.\n"
    "\n"
    "Without --run-id, the JSONL run id is the input's fingerprint (a hash\n"
    "of its header, footer, string and frame tables and size), so the same\n"
    "input always gives the same output; with several inputs it is a hash\n"
    "of their fingerprints in command-line order.\n"
    "\n"
    "Exit status: 0 success, 1 bad input data, 2 usage or I/O trouble.\n";

static const cli_spec spec = {
    "tachyon-conv",
    "[OPTIONS] IN...",
    "Convert Tachyon sample logs to JSONL, collapsed stacks or binary.",
    options,
    &opts.inputs,
    epilog};

int main(int argc, char **argv)
{
    cli_parse_error perr;
    int code;

    switch (cli_parse(&spec, argc, argv, &perr)) {
    case CLI_PARSE_HELP: code = cli_print_help(&spec); break;
    case CLI_PARSE_VERSION: code = cli_print_version(); break;
    case CLI_PARSE_ERROR: code = cli_usage("%s", perr.msg); break;
    default:
        cli_set_quiet(opts.quiet > 0);
        code = run_conv(&opts);
        break;
    }
    cli_list_free(&opts.inputs);
    return code;
}
