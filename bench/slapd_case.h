/*
 * slapd_case.h -- the text of `make bench-slapd`'s case: its directory and
 * the rules of its two mixes.  One copy for the two users that must see
 * the same bytes: bench-slapd itself (tests/differential/acl_bench.c,
 * linked with libldap) and acre-bench's policy_decide_1k_regex10 row
 * (bench/regex_bench.c).  Needs talloc only.
 *
 * The directory: SLAPD_CASE_PER_UNIT people in each of `units` units under
 * ou=people, plus SLAPD_CASE_GROUPS groups of 50.  Rule i is about unit
 * i % 150 (units past 99 do not exist, as in a policy that outlived its
 * data) and its shape is chosen by i % 10; every shape has a dn.subtree,
 * dn.one, dn.base or dn.children target, but shape 3 in mix regex10, which
 * is a dn.regex rule: one rule in ten.
 */
#ifndef ACRE_BENCH_SLAPD_CASE_H
#define ACRE_BENCH_SLAPD_CASE_H

#define SLAPD_CASE_BASE     "ou=people,dc=example,dc=com"
#define SLAPD_CASE_USER     "uid=p0-0,ou=unit0," SLAPD_CASE_BASE
#define SLAPD_CASE_UNITS    100
#define SLAPD_CASE_PER_UNIT 100
#define SLAPD_CASE_GROUPS   20

/* slapd_case_ldif -- the directory with `units` units, in ctx; NULL out
 * of memory. */
char *slapd_case_ldif(void *ctx, unsigned units);

/* slapd_case_rule -- rule i of mix dn (regex 0) or regex10 (regex 1), an
 * "access to" directive with its by clauses, in ctx; NULL out of
 * memory. */
char *slapd_case_rule(void *ctx, int regex, unsigned i);

#endif /* ACRE_BENCH_SLAPD_CASE_H */
