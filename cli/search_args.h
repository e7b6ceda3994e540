/*
 * search_args.h -- the command line of `acre search`, parsed on its own:
 * what cmd_search.c runs and what tests/fuzz/fuzz_search_args.c feeds
 * hostile argument vectors to.  Parsing reads argv only: it opens no file
 * and checks no DN or filter (that needs the policy's schema, after the
 * policy is loaded).
 */
#ifndef ACRE_CLI_SEARCH_ARGS_H
#define ACRE_CLI_SEARCH_ARGS_H

#include "load.h"

struct cli_search_args {
    struct cli_inputs in; /* --policy, --data, --dialect */
    struct cli_who who;   /* -D, --authc-dn, ... --subentries */
    const char *base;     /* -b: required */
    int scope;            /* -s: enum acre_scope, ACRE_SCOPE_SUB default */
    const char *filter;   /* the first positional argument when it starts
                             with ( or holds =, or NULL (-f: a pattern) */
    const char **attrs;   /* the other positional arguments */
    unsigned nattrs;
    unsigned coll_flags; /* ACRE_COLL_*: --collective-stack, ... */
    unsigned long wrap;  /* -o ldif-wrap: ldif_out.h, default 78 */
    long sizelimit;      /* -z: entries, 0 none; CLI_LIMIT_MAX: max */
    long timelimit;      /* -l: seconds, 0 none; CLI_LIMIT_MAX: max */
    const char *file;    /* -f: one search per line of it, or NULL */
    int attrsonly;       /* -A: attribute names only, as ldapsearch -A */
    int seen_b, seen_s, seen_o, seen_z, seen_l, seen_f; /* given once */
};

#define CLI_LIMIT_MAX (-1L) /* -z max, -l max: the server's hard limit */

/*
 * cli_search_args_parse -- fill a (its previous contents ignored) from
 * argv[1..argc): options anywhere, "--" ends them, a lone "-" is a
 * positional argument.  Every string a holds points into argv (or into
 * a->who's buffers).  A single-valued option given twice is a usage
 * error.  Returns CLI_EXIT_OK, or CLI_EXIT_USAGE with one
 * line on standard error ("acre search: ...").  Free a with
 * cli_search_args_free in either case.
 */
int cli_search_args_parse(struct cli_search_args *a, int argc, char **argv);

/* cli_search_args_free -- free the arrays of a (not argv's strings). */
void cli_search_args_free(struct cli_search_args *a);

#endif /* ACRE_CLI_SEARCH_ARGS_H */
