/*
 * cold_bench.c -- policy_decide_1k_cold: policy_decide_1k's verdicts
 * (bench/policy_bench.c: the same generated company DIT and 1,000 rules,
 * the same requester) over a directory larger than the last-level cache,
 * its users visited in a shuffled order, so that each verdict reads its
 * entry, and the index nodes it probes, from memory.  Against the
 * reference evaluator on a random sample of the same entries (the first
 * of the shuffled order), in the same run.
 *
 * COLD_PEOPLE users under ou=people (15 values each) make hundreds of
 * MiB in each directory (the run peaks at about 420 MB): this machine's core
 * reaches a 32 MiB L3 (getconf reports the whole socket's, 508 MiB),
 * so the walk leaves no entry in cache for its next visit.  A smoke run
 * uses the smoke directory of policy_bench.c, which is not cold: it only
 * checks that the row works.
 */
#include "decide_world.h"
#include "policy_corpus.h"

#include <stdio.h>
#include <string.h>
#include <talloc.h>

#define COLD_PEOPLE  100000u
#define SEED_SHUFFLE 0x636f6c6473687566u /* "coldshuf" */

static int
is_user(const acre_entry *e)
{
    const char *rdn;
    size_t len;

    return acre_dn_rdn(acre_entry_dn(e), 0, &rdn, &len, NULL, NULL) == 0 &&
           len > 4 && memcmp(rdn, "uid=", 4) == 0;
}

/* 0..n-1 in a seeded random order (Fisher-Yates), under ctx. */
static size_t *
shuffled(void *ctx, size_t n)
{
    bench_rng rng = {SEED_SHUFFLE};
    size_t *o = talloc_array(ctx, size_t, n ? n : 1);

    for (size_t i = 0; o && i < n; i++)
        o[i] = i;
    for (size_t i = n; o && i > 1; i--) {
        size_t j = bench_rng_below(&rng, (uint32_t)i), t = o[i - 1];

        o[i - 1] = o[j];
        o[j] = t;
    }
    return o;
}

static int
bench_cold(bench_run *run)
{
    const policy_shape full = {COLD_PEOPLE, 50, 20, 5}, smoke = {300, 5, 4, 2};
    dworld w = {.mem = talloc_new(NULL)};
    dpolicy dp = {0};
    size_t llen = 0, rlen = 0, *sample, *order;
    size_t nsample = bench_size(run, 200, 10);
    char *ldif = w.mem ? policy_corpus_ldif(
                             w.mem, bench_smoke(run) ? &smoke : &full, &llen)
                       : NULL;
    char *rules = w.mem ? policy_corpus_rules(w.mem, 1000, &rlen) : NULL;
    int rc = -1;

    if (!ldif || !rules ||
        dworld_load(run, &w, "cold.ldif", ldif, llen, POLICY_SUFFIX, is_user) !=
            0 ||
        dpolicy_setup(run, &w, &dp, "policy_decide_1k_cold", rules, rlen,
                      POLICY_REQUESTER) != 0)
        goto out;
    TALLOC_FREE(ldif); /* both directories keep copies */
    if (!(sample = shuffled(w.mem, w.n)) || !(order = shuffled(w.mem, w.n)))
        goto out;
    if (nsample > w.n)
        nsample = w.n;
    bench_note(run, "policy_decide_1k_cold: %zu users in a shuffled order",
               w.n);
    rc = 0;
    if (dpolicy_verify(run, &w, &dp, sample, nsample) == 0)
        dpolicy_row(run, "policy_decide_1k_cold/oracle", &w, &dp, order, w.n, 1,
                    sample, nsample);
out:
    dpolicy_free(&dp);
    dworld_free(&w);
    return rc;
}

static const char *const cold_groups[] = {"policy_decide_1k_cold", NULL};

const bench_def bench_cold_def = {"cold", cold_groups, bench_cold};
