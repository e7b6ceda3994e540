/*
 * decide_world.h -- what the per-entry verdict rows of acre-bench beyond
 * policy_bench.c share: a directory loaded twice (an acre_directory for
 * the engine, an acreE_dir for the reference evaluator), a policy compiled
 * by acre and parsed for the oracle with one requester each, the check
 * that both give the same verdicts on a sample, and the timed pair.
 *
 * Used by regex_bench.c (policy_decide_1k_regex10), company_bench.c
 * (company_decide) and cold_bench.c (policy_decide_1k_cold).  The verdict
 * timed is policy_bench.c's: READ on "entry" and on every value of every
 * attribute, by acre_entry_decide against acreR_oracle_check on "entry"
 * and each value (over a sample: the oracle walks every rule on every
 * check).  Everything lives under the world's talloc context but the
 * directory and the policy, freed by dworld_free and dpolicy_free.
 */
#ifndef ACRE_BENCH_DECIDE_WORLD_H
#define ACRE_BENCH_DECIDE_WORLD_H

#include "harness.h"

#include <acre.h>
#include <stddef.h>

struct acreE_dir;
struct acreE_entry;
struct acreI_policy;
struct acreR_oracle;

/* The directory, loaded twice, and the entries decided (walk order). */
typedef struct dworld {
    void *mem;
    acre_schema *schema;
    struct acreE_dir *odir;
    acre_directory *dir;
    size_t n;                            /* entries decided */
    const acre_entry **entries;          /* acre's */
    const struct acreE_entry **oentries; /* the oracle's twins */
    int id_entry;                        /* the type "entry" */
} dworld;

/* One policy and one requester, for acre and for the oracle. */
typedef struct dpolicy {
    const char *tag;
    struct acreI_policy *cfg;
    acre_policy *p;
    acre_request *rq;
    struct acreR_oracle *o;
} dpolicy;

/*
 * dworld_load -- load ldif[0..len) (named `name`) twice over a new
 * ACRE_SCHEMA_SLAPD schema and list the entries within the subtree of
 * `base` (base included) that keep() accepts (keep NULL: all), acre's in
 * the directory's walk order, each with its twin.  w->mem must be set.
 * Returns 0, or -1 with a failure recorded.
 */
int dworld_load(bench_run *run, dworld *w, const char *name, const char *ldif,
                size_t len, const char *base, int (*keep)(const acre_entry *));

/* dworld_free -- free w's directory and its talloc context. */
void dworld_free(dworld *w);

/*
 * dpolicy_setup -- compile text[0..len) (slapd.conf) for acre, parse it
 * for the oracle, and begin a request and an oracle for authz_dn (NULL:
 * anonymous).  Returns 0, or -1 with a failure recorded.
 */
int dpolicy_setup(bench_run *run, dworld *w, dpolicy *dp, const char *tag,
                  const char *text, size_t len, const char *authz_dn);

/* dpolicy_free -- end dp's request and release its policy. */
void dpolicy_free(dpolicy *dp);

/*
 * dpolicy_verify -- compare acre's verdict with the oracle's, check by
 * check, on the entries sample[0..n) (indices into w).  Returns 0, or -1
 * with the mismatches recorded as failures.
 */
int dpolicy_verify(bench_run *run, dworld *w, dpolicy *dp, const size_t *sample,
                   size_t n);

/*
 * dpolicy_row -- time acre's verdicts on the entries order[0..n) (`loops`
 * times over) against the oracle's on sample[0..nsample), interleaved,
 * and record row `name` in ns per entry.
 */
void dpolicy_row(bench_run *run, const char *name, dworld *w, dpolicy *dp,
                 const size_t *order, size_t n, unsigned loops,
                 const size_t *sample, size_t nsample);

/*
 * dpolicy_pair_row -- time acre's verdicts on the entries order[0..n)
 * under dp against the same under other (named other_name), in turn,
 * and record row `name` in ns per entry.
 */
void dpolicy_pair_row(bench_run *run, const char *name, dworld *w, dpolicy *dp,
                      dpolicy *other, const char *other_name,
                      const size_t *order, size_t n);

/*
 * dworld_sample -- n indices evenly spaced over w's entries (n at most
 * w->n), under w->mem; NULL when out of memory.
 */
size_t *dworld_sample(dworld *w, size_t n);

#endif /* ACRE_BENCH_DECIDE_WORLD_H */
