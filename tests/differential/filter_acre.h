/*
 * filter_acre.h -- the acre side of the differential filter suite: load
 * an LDIF file into acre's in-memory directory and answer a search with
 * acre's filter evaluator, in the form slapd's answers are compared in.
 *
 * Invariant: both sides' DNs go through the same normalisation
 * (acre_dn_parse with fa_schema(), which is also the directory's, then
 * acre_dn_normalised) and are sorted, so a result is a set.
 */
#ifndef FILTER_ACRE_H
#define FILTER_ACRE_H

#include "dt_results.h"
#include "dt_util.h"

#include "directory.h"

/* Result codes: LDAP's, plus this one for a filter acre cannot parse. */
#define FA_RC_FILTER_ERROR      (-1)
#define FA_RC_LDAPSEARCH_FILTER 249 /* ldapsearch: Bad search filter (-7) */

/* fa_schema -- the built-in schema under the SLAPD profile (one per
 * process), which every acre side of the suite uses. */
const acre_schema *fa_schema(void);

/* fa_load_dir -- a directory under ctx holding the LDIF file, or NULL
 * after printing why acre refused it (prefix: the suite's name). */
struct acreE_dir *fa_load_dir(void *ctx, const char *ldif, const char *suite);

/*
 * fa_search -- one search (scope "base", "one", "sub" or "children"):
 * out gets the result code (0, 32 noSuchObject, 34 invalidDNSyntax or
 * FA_RC_FILTER_ERROR) and the sorted normalised DNs of the entries the
 * filter is TRUE for; why gets acre's error text, if any.
 */
void fa_search(const struct acreE_dir *dir, const char *scope, const char *base,
               const char *filter, struct dt_result *out, struct dt_str *why);

/* fa_norm_dn -- the normalised form of dn (heap), or NULL if acre cannot
 * parse it. */
char *fa_norm_dn(const char *dn);

/* fa_normalise -- replace r's DNs by their normalised forms ("!" + the DN
 * as returned when acre cannot parse it), then sort them. */
void fa_normalise(struct dt_result *r);
void fa_sort(struct dt_result *r);

/* fa_same -- same code and DNs.  fa_contains -- dn in sorted r. */
int fa_same(const struct dt_result *a, const struct dt_result *b);
int fa_contains(const struct dt_result *r, const char *dn);

#endif /* FILTER_ACRE_H */
