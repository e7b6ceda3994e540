/*
 * acl_shrink.h -- shrink a case on which slapd and acre differ to a
 * small one on which they still differ.
 *
 * The case is reduced to its one differing search, then, while the
 * answers still differ (each attempt a full slapd run): the filter is
 * replaced by its parts (a child of & or |, the operand of !), children
 * are dropped; requested attributes are dropped; whole rules, then "by"
 * clauses, are dropped; entries are dropped with their subtrees, then
 * attribute lines of the remaining entries.  Removals are tried in
 * halves, then quarters, and so on down to single units (a simple
 * delta debugging), and the passes repeat until none succeeds or the
 * attempt budget is spent.  An attempt slapd refuses (slaptest or
 * slapadd) counts as "no longer differs".
 */
#ifndef ACL_SHRINK_H
#define ACL_SHRINK_H

#include "acl_check.h"

/*
 * acl_shrink -- the smallest case found from search i of c that still
 * differs; attempts run in directory work.  max_runs bounds the slapd
 * runs.  The result hangs off ctx; its last outcome is in *out.
 */
struct acl_case *acl_shrink(void *ctx, struct acl_runner *run,
                            const struct acl_case *c, unsigned i,
                            const char *work, unsigned max_runs,
                            struct acl_outcome **out);

#endif /* ACL_SHRINK_H */
