/*
 * acl_mutate.h -- damaged rules: the generated access rules of a case
 * with one or two random mutations (a token deleted, doubled, swapped,
 * replaced or preceded by a word from a pool of rule words, some wrong
 * anywhere; a character deleted or inserted; a token's case changed),
 * each on a line of an access rule.  slaptest and acre must then agree
 * on whether the configuration loads (mutate.sh).  The same for a case's
 * entries: slapadd and acre must agree on whether they load.
 */
#ifndef ACL_MUTATE_H
#define ACL_MUTATE_H

#include "dt_util.h"

#include <stdint.h>

/* acl_mutate -- rules (the text of acl_case.rules) mutated as seed says;
 * *what describes the mutations.  Both under ctx. */
char *acl_mutate(void *ctx, const char *rules, uint64_t seed, char **what);

/* acl_mutate_data -- the LDIF text of a case's entries with one or two
 * mutations of the same kinds on lines of its entries (a word from a pool
 * of entry lines and values, some wrong anywhere); slapadd and acre must
 * then agree on whether the data loads.  Under ctx. */
char *acl_mutate_data(void *ctx, const char *ldif, uint64_t seed, char **what);

#endif /* ACL_MUTATE_H */
