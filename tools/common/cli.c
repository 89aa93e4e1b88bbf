/* cli.c - placeholder until the module lands. */
