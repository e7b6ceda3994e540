/*
 * search_args.c -- the command line of `acre search` (search_args.h):
 * the options of cli_inputs and cli_who (load.h), then -b, -s, -o
 * ldif-wrap=N|no, -z, -l, -f, -A, --collective-stack and
 * --no-collective-filter, then FILTER and ATTRs.
 */
#include "search_args.h"

#include "cli.h"
#include "ldif_out.h"

#include <acre.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int
scope_of(const char *s)
{
    if (!strcmp(s, "base"))
        return ACRE_SCOPE_BASE;
    if (!strcmp(s, "one") || !strcmp(s, "onelevel"))
        return ACRE_SCOPE_ONE;
    if (!strcmp(s, "sub") || !strcmp(s, "subtree"))
        return ACRE_SCOPE_SUB;
    if (!strcmp(s, "children"))
        return ACRE_SCOPE_CHILDREN;
    return -1;
}

/* limit -- the value of -z or -l as ldapsearch reads it: a number,
 * none or unlimited (0), max; -2 when it is none of these. */
static long
limit(const char *v)
{
    char *end;
    long n;

    if (!strcmp(v, "none") || !strcmp(v, "unlimited"))
        return 0;
    if (!strcmp(v, "max"))
        return CLI_LIMIT_MAX;
    if (*v < '0' || *v > '9')
        return -2;
    errno = 0;
    n = strtol(v, &end, 10);
    return errno || *end || n > 0x7fffffffL ? -2 : n;
}

/* valued -- -b, -z, -l, -f, -o: 1 taken, 0 not one of them, -1 bad. */
static int
valued(struct cli_search_args *s, int argc, char **argv, int *i)
{
    const char *v;
    int bad = 0;

    if ((v = cli_opt("search", argc, argv, i, "-b", &bad)))
        return cli_once("search", "-b", &s->seen_b) ? -1 : (s->base = v, 1);
    if (!bad && (v = cli_opt("search", argc, argv, i, "-f", &bad)))
        return cli_once("search", "-f", &s->seen_f) ? -1 : (s->file = v, 1);
    if (!bad && (v = cli_opt("search", argc, argv, i, "-z", &bad))) {
        if (cli_once("search", "-z", &s->seen_z))
            return -1;
        if ((s->sizelimit = limit(v)) >= CLI_LIMIT_MAX)
            return 1;
        fprintf(stderr, "acre search: invalid size limit '%s'\n", v);
        return -1;
    }
    if (!bad && (v = cli_opt("search", argc, argv, i, "-l", &bad))) {
        if (cli_once("search", "-l", &s->seen_l))
            return -1;
        if ((s->timelimit = limit(v)) >= CLI_LIMIT_MAX)
            return 1;
        fprintf(stderr, "acre search: invalid time limit '%s'\n", v);
        return -1;
    }
    if (!bad && (v = cli_opt("search", argc, argv, i, "-o", &bad))) {
        if (!strncmp(v, "ldif-wrap=", 10) && !cli_ldif_wrap(v + 10, &s->wrap))
            return cli_once("search", "-o ldif-wrap", &s->seen_o) ? -1 : 1;
        fprintf(stderr,
                "acre search: invalid -o '%s' (ldif-wrap=N or "
                "ldif-wrap=no)\n",
                v);
        return -1;
    }
    return bad ? -1 : 0;
}

/* option -- argv[*i], an option of search: 1 taken, -1 bad (told). */
static int
option(struct cli_search_args *s, int argc, char **argv, int *i)
{
    const char *v;
    int r, bad = 0;

    if ((r = cli_inputs_option(&s->in, argc, argv, i)) ||
        (r = cli_who_option(&s->who, argc, argv, i)))
        return r;
    if (!strcmp(argv[*i], "--collective-stack")) {
        s->coll_flags |= ACRE_COLL_STACK;
        return 1;
    }
    if (!strcmp(argv[*i], "-A")) {
        s->attrsonly = 1;
        return 1;
    }
    if (!strcmp(argv[*i], "--no-collective-filter")) {
        s->coll_flags |= ACRE_COLL_NO_FILTER;
        return 1;
    }
    if ((r = valued(s, argc, argv, i)))
        return r;
    if ((v = cli_opt("search", argc, argv, i, "-s", &bad))) {
        if (cli_once("search", "-s", &s->seen_s))
            return -1;
        if ((s->scope = scope_of(v)) >= 0)
            return 1;
        fprintf(stderr,
                "acre search: unknown scope '%s' (base, one, sub, "
                "children)\n",
                v);
        return -1;
    }
    if (!bad)
        fprintf(stderr,
                "acre search: unknown option '%s' (see 'acre help "
                "search')\n",
                argv[*i]);
    return -1;
}

/* positional -- FILTER first, then ATTRs.  As ldapsearch, the first
 * argument is the filter only when it starts with '(' or holds an '=';
 * else the filter is the default and the argument an ATTR. */
static int
positional(struct cli_search_args *s, const char *a, int first)
{
    const char **na;

    if (first && (a[0] == '(' || strchr(a, '='))) {
        s->filter = a;
        return 0;
    }
    if (!(na = realloc(s->attrs, (s->nattrs + 1) * sizeof(*na))))
        return -1;
    na[s->nattrs++] = a;
    s->attrs = na;
    return 0;
}

/* cli_search_args_parse -- see search_args.h. */
int
cli_search_args_parse(struct cli_search_args *s, int argc, char **argv)
{
    int ended = 0, npos = 0;

    memset(s, 0, sizeof *s);
    s->in.cmd = s->who.cmd = "search";
    s->scope = ACRE_SCOPE_SUB;
    s->wrap = CLI_LDIF_WRAP_DEFAULT;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!ended && !strcmp(a, "--")) {
            ended = 1;
        } else if (!ended && a[0] == '-' && a[1]) {
            if (option(s, argc, argv, &i) < 0)
                return CLI_EXIT_USAGE;
        } else if (positional(s, a, npos++ == 0)) {
            fprintf(stderr, "acre search: out of memory\n");
            return CLI_EXIT_USAGE;
        }
    }
    int aci = s->in.dialect == ACRE_DIALECT_ACI; /* rules in the data */
    if (!s->base || (!s->in.npolicy && !aci) || !s->in.ndata) {
        fprintf(stderr,
                "acre search: %s is required (see 'acre help "
                "search')\n",
                !s->in.npolicy && !aci ? "--policy"
                : !s->in.ndata         ? "--data"
                                       : "-b");
        return CLI_EXIT_USAGE;
    }
    return CLI_EXIT_OK;
}

/* cli_search_args_free -- see search_args.h. */
void
cli_search_args_free(struct cli_search_args *s)
{
    cli_inputs_free(&s->in);
    free(s->attrs);
    s->attrs = NULL;
    s->nattrs = 0;
}
