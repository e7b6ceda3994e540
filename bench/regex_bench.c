/*
 * regex_bench.c -- policy_decide_1k_regex10: acre's per-entry verdict on
 * `make bench-slapd`'s case of mix regex10 and 1,000 rules (100 of them
 * dn.regex targets) against the reference evaluator, in the same run.
 *
 * The directory and the rules are bench-slapd's, from the one copy both
 * use (slapd_case.c): 100 units of 100
 * people under ou=people and 20 groups of 50; rule i is about unit
 * i % 150 and is, by i % 10, a subtree rule on phone and mail with a
 * group, a dn.regex rule with an expanded `$0` clause, a filter rule on
 * dn.children, a dn.base rule, a dn.one password rule, a dnattr rule, a
 * subtree val.regex rule, or a set rule on groups; the last is
 * `access to * by self write by users read by * none`.  The requester is
 * bench-slapd's user; the entries decided are those of its search (the
 * subtree of ou=people, 10,101 entries; a smoke run uses 5 units and 100
 * rules).  The oracle is timed over an evenly spaced sample.
 *
 * policy_decide_100k_regex10: the same entries and requester under the
 * mix at 100,000 rules (each unit then named by about 667 rules of one
 * kind, in a row of its node's table) against the mix at 1,000, timed in
 * turn: the ratio says how flat a verdict's cost is in the number of
 * rules (1.0: flat; a smoke run: 10,000 against 100).  The oracle, whose
 * cost grows with the rules, checks a few entries only.
 */
#include "decide_world.h"
#include "slapd_case.h"

#include <stdio.h>
#include <string.h>
#include <talloc.h>

/* bench-slapd's policy of nrules rules. */
static char *
mix_rules(void *ctx, unsigned nrules)
{
    char *s =
        talloc_asprintf(ctx, "database mdb\nsuffix \"dc=example,dc=com\"\n"
                             "rootdn \"cn=manager,dc=example,dc=com\"\n");

    for (unsigned i = 0; s && i + 1 < nrules; i++) {
        char *r = slapd_case_rule(s, 1, i);

        s = r ? talloc_strdup_append(s, r) : NULL;
    }
    if (s)
        s = talloc_strdup_append(s, "access to *\n  by self write\n"
                                    "  by users read\n  by * none\n");
    return s;
}

/* bench-slapd's directory in w (w->mem made by the caller). */
static int
mix_world(bench_run *run, dworld *w)
{
    unsigned units = (unsigned)bench_size(run, SLAPD_CASE_UNITS, 5);
    char *ldif = w->mem ? slapd_case_ldif(w->mem, units) : NULL;

    return ldif ? dworld_load(run, w, "regex10.ldif", ldif, strlen(ldif),
                              SLAPD_CASE_BASE, NULL)
                : -1;
}

static int
bench_regex(bench_run *run)
{
    unsigned nrules = (unsigned)bench_size(run, 1000, 100);
    dworld w = {.mem = talloc_new(NULL)};
    dpolicy dp = {0};
    char *rules = w.mem ? mix_rules(w.mem, nrules) : NULL;
    size_t nsample = bench_size(run, 50, 10), *sample, *order;
    int rc = -1;

    if (!rules || mix_world(run, &w) != 0 ||
        dpolicy_setup(run, &w, &dp, "policy_decide_1k_regex10", rules,
                      strlen(rules), SLAPD_CASE_USER) != 0)
        goto out;
    if (!(sample = dworld_sample(&w, nsample)) ||
        !(order = dworld_sample(&w, w.n)))
        goto out;
    bench_note(run, "policy_decide_1k_regex10: %u rules, %zu entries decided",
               nrules, w.n);
    rc = 0;
    if (dpolicy_verify(run, &w, &dp, sample, nsample) == 0)
        dpolicy_row(run, "policy_decide_1k_regex10/oracle", &w, &dp, order, w.n,
                    1, sample, nsample);
out:
    dpolicy_free(&dp);
    dworld_free(&w);
    return rc;
}

static int
bench_flat(bench_run *run)
{
    unsigned small = (unsigned)bench_size(run, 1000, 100);
    dworld w = {.mem = talloc_new(NULL)};
    dpolicy big = {0}, base = {0};
    char *rb = w.mem ? mix_rules(w.mem, small * 100) : NULL;
    char *rs = w.mem ? mix_rules(w.mem, small) : NULL;
    size_t nsample = bench_size(run, 3, 2), *sample, *order;
    int rc = -1;

    if (!rb || !rs || mix_world(run, &w) != 0 ||
        dpolicy_setup(run, &w, &big, "policy_decide_100k_regex10", rb,
                      strlen(rb), SLAPD_CASE_USER) != 0 ||
        dpolicy_setup(run, &w, &base, "policy_decide_100k_regex10 (base)", rs,
                      strlen(rs), SLAPD_CASE_USER) != 0)
        goto out;
    if (!(sample = dworld_sample(&w, nsample)) ||
        !(order = dworld_sample(&w, w.n)))
        goto out;
    bench_note(run,
               "policy_decide_100k_regex10: %u rules against %u, %zu "
               "entries decided",
               small * 100, small, w.n);
    rc = 0;
    if (dpolicy_verify(run, &w, &big, sample, nsample) == 0)
        dpolicy_pair_row(run, "policy_decide_100k_regex10/1k", &w, &big, &base,
                         "acre_entry_decide (1k rules)", order, w.n);
out:
    dpolicy_free(&base);
    dpolicy_free(&big);
    dworld_free(&w);
    return rc;
}

static int
bench_regex_groups(bench_run *run)
{
    int rc = 0;

    if (bench_want(run, "policy_decide_1k_regex10"))
        rc |= bench_regex(run);
    if (bench_want(run, "policy_decide_100k_regex10"))
        rc |= bench_flat(run);
    return rc;
}

static const char *const regex_groups[] = {"policy_decide_1k_regex10",
                                           "policy_decide_100k_regex10", NULL};

const bench_def bench_regex_def = {"regex10", regex_groups, bench_regex_groups};
