/*
 * filter_gen.h -- the seeded generator of search filters and searches for
 * the differential filter suite.
 *
 * Filters are drawn from the values of the DIT they will run on (so most
 * of them select something), then respelt: other cases, spaces, dashes,
 * aliases and OIDs of types, subtypes and options, escapes.  Every filter
 * kind of RFC 4511/4515/4526 is produced, including extensible matches
 * with and without :dn:, unknown types and rules, values invalid for the
 * syntax, and (&) / (|).  Only filters ldapsearch accepts are produced.
 *
 * Invariant: the same DIT and seed give the same searches.
 */
#ifndef FILTER_GEN_H
#define FILTER_GEN_H

#include "dt_dit.h"

struct fg_search {
    const char *scope; /* "base", "one", "sub" or "children" */
    char *base;
    char *filter;
};

/*
 * fg_generate -- n filters, each run in two searches: subtree from the
 * suffix, then from a random base (existing or not) with a random scope.
 * *out (2n searches) is freed with fg_free.
 */
void fg_generate(const struct dt_dit *d, uint64_t seed, unsigned n,
                 struct fg_search **out, unsigned *nout);
void fg_free(struct fg_search *v, unsigned n);

#endif /* FILTER_GEN_H */
