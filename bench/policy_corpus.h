/*
 * policy_corpus.h -- a deterministic directory and OpenLDAP rule sets of
 * any size for the policy benchmarks (bench/policy_bench.c).
 *
 * The directory is a company DIT under dc=example,dc=com:
 *
 *   ou=people     inetOrgPerson users uid=userNNNNN (10 attributes, 15
 *                 values each); the requester is one of them
 *   ou=org        departments ou=deptD, each with users uid=uDxK (12
 *                 attributes, 17 values: also departmentNumber, manager)
 *                 and a team ou=team0 of users uid=tDxK
 *   ou=groups     cn=hr and one groupOfNames cn=grpD per department
 *
 * The rules are a slapd.conf: two global rules (root DSE, subschema),
 * then one database for the suffix whose rules are a userPassword rule, a
 * rule on ou=people, nrules - 5 department rules and a final
 * `access to * by users read by * none`.  Department rules spread over
 * max((nrules - 5) / 4, 1) department DNs -- about four rules per
 * department, whatever nrules -- of which only the first few exist in
 * the directory, so most rules never match an entry decided.  They mix
 * dn.subtree, dn.base, dn.one and dn.children targets, filter= and
 * attrs= conditions, and dn.exact, dn.subtree, group, dnattr, self, users
 * and anonymous clauses.
 *
 * Same arguments, same bytes, on every machine (seeded generator).
 */
#ifndef ACRE_BENCH_POLICY_CORPUS_H
#define ACRE_BENCH_POLICY_CORPUS_H

#include <stddef.h>

#define POLICY_SUFFIX    "dc=example,dc=com"
#define POLICY_REQUESTER "uid=user00042,ou=people,dc=example,dc=com"

/* The rules every rule set has besides the department rules. */
#define POLICY_FIXED_RULES 5

typedef struct policy_shape {
    unsigned people;     /* users under ou=people (more than 42) */
    unsigned depts;      /* departments under ou=org */
    unsigned dept_users; /* users directly under each department */
    unsigned team_users; /* users under each department's ou=team0 */
} policy_shape;

/*
 * policy_corpus_ldif -- the directory as LDIF, parents first.
 *   len: OUT, bytes of the text.
 * Returns a talloc string under ctx, or NULL when out of memory.
 */
char *policy_corpus_ldif(void *ctx, const policy_shape *shape, size_t *len);

/*
 * policy_corpus_rules -- slapd.conf text with exactly nrules access rules
 * (nrules >= POLICY_FIXED_RULES + 1).
 *   len: OUT, bytes of the text.
 * Returns a talloc string under ctx, or NULL when out of memory.
 */
char *policy_corpus_rules(void *ctx, size_t nrules, size_t *len);

#endif /* ACRE_BENCH_POLICY_CORPUS_H */
