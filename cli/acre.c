/*
 * acre.c -- the `acre` command: entry point and subcommand dispatch.
 *
 * Subcommands live in their own files (cmd_*.c) and share the helpers of
 * cli.h.  The command's allocator is jemalloc (linked into the executable,
 * never into the library).
 */
#include "cli.h"

#include <acre.h>
#include <stdio.h>
#include <string.h>

static const struct cli_cmd cmds[] = {
    {"search", "search an LDIF directory as a requester, under a policy",
     cmd_search, help_search},
    {"explain", "show the privileges a requester has on an entry, and why",
     cmd_explain, help_explain},
    {"lint", "check rule files for errors and typical mistakes", cmd_lint,
     help_lint},
    {"compile", "compile a policy; report or dump its tables", cmd_compile,
     help_compile},
    {"dn", "parse and normalise distinguished names", cmd_dn, help_dn},
};

#define NCMDS (sizeof(cmds) / sizeof(cmds[0]))

static void
usage(FILE *f)
{
    fprintf(f, "usage: acre COMMAND [ARGS]...\n"
               "       acre --version\n"
               "       acre help [COMMAND]\n\ncommands:\n");
    for (size_t i = 0; i < NCMDS; i++)
        fprintf(f, "  %-10s %s\n", cmds[i].name, cmds[i].summary);
}

static const struct cli_cmd *
find(const char *name)
{
    for (size_t i = 0; i < NCMDS; i++)
        if (strcmp(cmds[i].name, name) == 0)
            return &cmds[i];
    return NULL;
}

static int
help(int argc, char **argv)
{
    const struct cli_cmd *c;

    if (argc < 2) {
        usage(stdout);
        return 0;
    }
    if (!(c = find(argv[1]))) {
        fprintf(stderr, "acre: no such command: %s\n", argv[1]);
        return CLI_EXIT_USAGE;
    }
    c->help(stdout);
    return 0;
}

/* wants_help -- is -h or --help among the options of a command line
 * (before a "--")?  Every command then prints its help and exits 0. */
static int
wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return 1;
    return 0;
}

int
main(int argc, char **argv)
{
    const struct cli_cmd *c;

    if (argc < 2) {
        usage(stderr);
        return CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("%s\n", acre_version(NULL, NULL, NULL));
        return 0;
    }
    if (strcmp(argv[1], "help") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "-h") == 0)
        return help(argc - 1, argv + 1);
    if (!(c = find(argv[1]))) {
        fprintf(stderr, "acre: unknown command '%s' (see 'acre help')\n",
                argv[1]);
        return CLI_EXIT_USAGE;
    }
    if (wants_help(argc - 1, argv + 1)) {
        c->help(stdout);
        return 0;
    }
    return c->run(argc - 1, argv + 1);
}
