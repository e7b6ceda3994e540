/*
 * search.h -- what `acre search` (cmd_search.c) and its printing
 * (search_print.c) share: the state of the command and of its current
 * search.
 */
#ifndef ACRE_CLI_SEARCH_H
#define ACRE_CLI_SEARCH_H

#include "search_args.h"

#include <acre.h>
#include <time.h>

struct search {
    struct cli_search_args a; /* the command line (search_args.h) */
    const acre_schema *schema;
    acre_limits lim;       /* in force (acre_search_limits) */
    unsigned long count;   /* entries the current search returned */
    int exceeded;          /* it stopped at a limit: 4 size, 3 time */
    struct timespec start; /* when it began (-l) */
    int nomem;             /* printing ran out of memory */
    unsigned line;         /* -f: the line being searched, from 1 */
    acre_request *rq;      /* the current search's */
    int want_ismo;         /* --ismemberof and isMemberOf or + asked */
    int want_mo;           /* --memberof and memberOf, * or no list */
    int want_role;         /* 389's nsRole (aci) and nsRole or + asked */
    int want_cos;          /* 389's Class of Service (aci, 389) */
    const acre_host *host; /* the directory's lookups */
    int as389;             /* attributes named and ordered as 389 sends them */
    char **req389;         /* as389: the names asked for, normalised as 389
                              does, without repeats (NULL: no list) */
    const char **spell389; /* [i]: req389[i] as the client wrote it */
    unsigned nreq389;
    int all_user, all_op; /* as389: "*" (or no list), "+" asked */
};

/* search_print_entry -- acre_search's callback (arg: the struct search):
 * the readable part of the entry as ldapsearch -LLL prints it, from
 * slapd (or, with as389, from 389).  Stops the search (returns 1) at an
 * entry past the size limit, or once the time limit has passed; -1 when
 * printing ran out of memory (s->nomem set). */
int search_print_entry(void *arg, const acre_entry_view *view,
                       const acre_verdict *v);

/* search_wants -- is `name` asked for by the attribute list, by name or
 * by `all` ("*" or "+"; "*" also when the list is empty)? */
int search_wants(const struct search *s, const char *name, const char *all);

/* search_setup_389 / search_free_389 -- as389 and the names asked for, as
 * 389 normalises them; a CLI_EXIT_* code. */
int search_setup_389(struct search *s);
void search_free_389(struct search *s);

#endif
