/*
 * cmd_compile.c -- `acre compile`: compile a policy and report what it
 * became (acre_policy_stats_get), or with --dump print the compiled form
 * (acre_policy_dump): the rules in their dialect's syntax, then each rule
 * with its scope, each node of the subtree index with the rules of its
 * table in evaluation order, and the residual rules of each section.
 *
 * Exit: 0 compiled, 1 the rules have errors, 2 usage and system errors.
 */
#include "cli.h"
#include "load.h"

#include <acre.h>
#include <stdlib.h>
#include <string.h>

/* help_compile -- see cli.h: the usage of the command. */
void
help_compile(FILE *f)
{
    fprintf(f,
            "usage: acre compile --policy FILE... [--dialect D] [--dump]\n"
            "       acre compile --dialect aci --data FILE.ldif... "
            "[--policy FILE.ldif...] [--dump]\n\n"
            "Compile the rules (several --policy files are read as one\n"
            "slapd.conf, in order; - is standard input) and report the\n"
            "counts of rules and clauses, the size of the subtree index and\n"
            "its tables, and the memory the policy holds.  --dump prints\n"
            "the compiled form: the rules, the index nodes with their\n"
            "tables and the residual rules (with --dialect aci: the ACIs,\n"
            "their perms and holders).  Exit status: 0 compiled, 1\n"
            "the rules have errors, 2 usage or system errors.\n");
}

static void
report(const acre_policy *p, int aci)
{
    acre_policy_stats st;

    acre_policy_stats_get(p, &st);
    if (aci) { /* acre_policy_stats of an ACI policy (acre.3) */
        printf("acis:           %u\n", st.rules);
        printf("perms:          %u (allow / deny parts)\n", st.clauses);
        printf("holders:        %u (entries with aci values: index "
               "nodes)\n",
               st.nodes);
        printf("memory:         %zu bytes (%.1f KiB, %.0f bytes an aci)\n",
               st.bytes, (double)st.bytes / 1024,
               st.rules ? (double)st.bytes / st.rules : 0.0);
        return;
    }
    printf("rules:          %u\n", st.rules);
    printf("clauses:        %u\n", st.clauses);
    printf("index nodes:    %u\n", st.nodes);
    printf("residual rules: %u (not indexable by DN: regex or any)\n",
           st.residual);
    printf("table entries:  %zu (rule references in the node tables)\n",
           st.table_entries);
    printf("memory:         %zu bytes (%.1f KiB, %.0f bytes a rule)\n",
           st.bytes, (double)st.bytes / 1024,
           st.rules ? (double)st.bytes / st.rules : 0.0);
}

static int
dump(const acre_policy *p)
{
    char *s = acre_policy_dump(p);

    if (!s) {
        fprintf(stderr, "acre compile: out of memory\n");
        return CLI_EXIT_USAGE;
    }
    fputs(s, stdout);
    free(s);
    return CLI_EXIT_OK;
}

static int
parse(struct cli_inputs *in, int *dump_it, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        int r = cli_inputs_option(in, argc, argv, &i);
        if (r < 0)
            return CLI_EXIT_USAGE;
        if (r > 0)
            continue;
        if (!strcmp(argv[i], "--dump")) {
            *dump_it = 1;
            continue;
        }
        fprintf(stderr,
                "acre compile: unexpected argument '%s' (see 'acre "
                "help compile')\n",
                argv[i]);
        return CLI_EXIT_USAGE;
    }
    if (!in->npolicy && !(in->dialect == ACRE_DIALECT_ACI && in->ndata)) {
        fprintf(stderr, "acre compile: --policy is required (--data with "
                        "--dialect aci)\n");
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

/* cmd_compile -- see cli.h: run the command; returns its exit status. */
int
cmd_compile(int argc, char **argv)
{
    struct cli_inputs in;
    acre_policy *p = NULL;
    int dump_it = 0, rc;

    memset(&in, 0, sizeof in);
    in.cmd = "compile";
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        help_compile(stdout);
        return CLI_EXIT_OK;
    }
    if (!(rc = parse(&in, &dump_it, argc, argv)) &&
        !(rc = cli_policy_load(&in, &p))) {
        if (dump_it)
            rc = dump(p);
        else
            report(p, in.dialect == ACRE_DIALECT_ACI);
    }
    if (fflush(stdout) && !rc) {
        perror("acre compile: standard output");
        rc = CLI_EXIT_USAGE;
    }
    acre_policy_release(p);
    cli_inputs_free(&in);
    return rc;
}
