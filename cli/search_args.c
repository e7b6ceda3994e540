/*
 * search_args.c -- the command line of `acre search` (search_args.h):
 * the options of cli_inputs and cli_who (load.h), then -b, -s,
 * --collective-stack and --no-collective-filter, then FILTER and ATTRs.
 */
#include "search_args.h"

#include "cli.h"

#include <acre.h>
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
    if (!strcmp(argv[*i], "--no-collective-filter")) {
        s->coll_flags |= ACRE_COLL_NO_FILTER;
        return 1;
    }
    if ((v = cli_opt("search", argc, argv, i, "-b", &bad))) {
        s->base = v;
        return 1;
    }
    if (!bad && (v = cli_opt("search", argc, argv, i, "-s", &bad))) {
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

/* positional -- FILTER first, then ATTRs. */
static int
positional(struct cli_search_args *s, const char *a)
{
    const char **na;

    if (!s->filter) {
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
    int ended = 0;

    memset(s, 0, sizeof *s);
    s->in.cmd = s->who.cmd = "search";
    s->scope = ACRE_SCOPE_SUB;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!ended && !strcmp(a, "--")) {
            ended = 1;
        } else if (!ended && a[0] == '-' && a[1]) {
            if (option(s, argc, argv, &i) < 0)
                return CLI_EXIT_USAGE;
        } else if (positional(s, a)) {
            fprintf(stderr, "acre search: out of memory\n");
            return CLI_EXIT_USAGE;
        }
    }
    if (!s->base || !s->in.npolicy || !s->in.ndata) {
        fprintf(stderr,
                "acre search: %s is required (see 'acre help "
                "search')\n",
                !s->in.npolicy ? "--policy"
                : !s->in.ndata ? "--data"
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
