/*
 * build.h -- turning the intermediate form into a compiled policy.
 */
#ifndef ACRE_BUILD_H
#define ACRE_BUILD_H

#include "policy.h"

/*
 * acreP_build -- fill p's rules, clauses, nodes, tables and node hash from
 * p->ir and p->schema (already set), allocating under p->mem.  Returns 0
 * or ACRE_ERR_NOMEM.
 */
int acreP_build(struct acre_policy *p);

/*
 * acreP_build_index -- p's nodes, node hash and tables afresh over the
 * rules and clauses p already holds (shared with the policy it was
 * attached from), with extra[0..nextra) as nodes too (deduplicated).
 * Allocates under p->mem.  Returns 0 or ACRE_ERR_NOMEM.
 */
int acreP_build_index(struct acre_policy *p, const acre_dn *const *extra,
                      size_t nextra);

/* acreP_generation_next -- a generation number no policy of this process
 * had (policy.c). */
uint64_t acreP_generation_next(void);

/* acreP_subentry_class -- set p->subentry_oid: objectClass subentry as
 * p's schema normalises it (collective_build.c). */
void acreP_subentry_class(struct acre_policy *p);

/* acreP_node_index -- the index of the node named dn, or -1. */
int acreP_node_index(const struct acre_policy *p, const acre_dn *dn);

/* acreP_clause_flags -- the ACREP_C_* flags of clause b: the evaluator's
 * split (acreV_clause_flags) narrowed by SELFONLY and GROUPONLY. */
uint8_t acreP_clause_flags(const struct acreI_clause *b);

/* qsort_r order of node indexes (arg: the nodes): shallower first, then
 * by index -- parents before children. */
int acreP_node_cmp_depth(const void *a, const void *b, void *arg);

#endif /* ACRE_BUILD_H */
