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

/* acreP_clause_flags -- the ACREP_C_* flags of clause b: the evaluator's
 * split (acreV_clause_flags) narrowed by SELFONLY and GROUPONLY. */
uint8_t acreP_clause_flags(const struct acreI_clause *b);

#endif /* ACRE_BUILD_H */
