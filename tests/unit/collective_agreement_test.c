/*
 * collective_agreement_test.c -- the engine's collective attributes
 * (acre_entry_collective over acre_policy_attach_subentries) held to the
 * literal reference evaluator (tests/oracle/collective_oracle.h) on
 * generated cases (collective_gen.h): every entry of every case, under
 * X.501 areas and under ACRE_COLL_STACK, with and without OpenDJ's
 * extensions and slapo-collect.
 *
 * The slapo-collect settings of a case become "overlay collect" and
 * "collectinfo" lines of a slapd.conf with no access rule (slapd's
 * default read, so the source checks let every value through).  Both
 * answers are put in the oracle's form -- descriptions as the schema's
 * first name and lowercased sorted options, a description's values in
 * order (the subentries', then slapo-collect's), attributes sorted
 * case-insensitively, collectiveAttributeSubentries as sorted normalised
 * DNs -- and compared as text.  A mismatch prints the seed, the entry and
 * both texts.  Every entry is asked twice: as the attached directory's
 * own view, and as a host of its own presents it (test_host.h).
 *
 * ACRE_COLL_SEED (first seed, default 1) and ACRE_COLL_N (seeds, default
 * 6) make longer runs; each seed is four generator settings under both
 * area modes.
 */
#include "acre.h"
#include "collective_gen.h"
#include "collective_oracle.h"
#include "schema.h"
#include "test_host.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

struct run {
    void *ctx;
    const struct acreG_coll_case *cs;
    acre_schema *schema;
    acre_directory *dir;
    acre_request *rq;
    unsigned flags; /* ACRER_COLL_* */
    unsigned compared, nonempty, mismatches;
    /* every entry compared and the oracle's text, for a second pass in
     * another order (the engine reuses results between neighbours) */
    const acre_entry **seen;
    char **want;
    unsigned nseen;
    /* the same entries in a host of their own (test_host.h): views the
     * policy was not attached from, as a server's are */
    struct thost *th;
    acre_request *hrq;
    unsigned nother, compared_other;
};

/* The slapd.conf of a case's slapo-collect settings. */
static char *
collect_conf(void *ctx, const struct acreG_coll_case *cs)
{
    char *t = talloc_strdup(ctx, cs->nci ? "overlay collect\n" : "");

    for (unsigned i = 0; t && i < cs->nci; i++) {
        t = talloc_asprintf_append(t, "collectinfo \"%s\" ", cs->ci[i].dn);
        for (unsigned k = 0; t && k < cs->ci[i].nattrs; k++)
            t = talloc_asprintf_append(t, "%s%s", k ? "," : "",
                                       cs->ci[i].attrs[k]);
        if (t)
            t = talloc_strdup_append(t, "\n");
    }
    return t;
}

/* The engine's answer for view e (through request rq) in the oracle's
 * form. */
static struct acreR_coll *
engine_view(void *ctx, struct run *R, acre_request *rq,
            const acre_entry_view *e)
{
    acre_collective_view v;
    struct acreR_coll *c = NULL;

    cr_assert_eq(acre_entry_collective(rq, e, &v), 0);
    cr_assert_eq(acreR_coll_of_view(ctx, R->schema, &v, &c), 0);
    return c;
}

static void
report(struct run *R, const acre_entry *e, const char *want, const char *got)
{
    if (strcmp(want, got) != 0 && R->mismatches++ < 3)
        cr_log_error("seed %llu (%s): %s\n--- oracle\n%s--- engine\n%s",
                     (unsigned long long)R->cs->seed,
                     R->flags & ACRER_COLL_STACK ? "stack" : "x.501",
                     acre_dn_normalised(acre_entry_dn(e), NULL), want, got);
}

static int
compare_entry(void *arg, const acre_entry *e)
{
    struct run *R = arg;
    void *tmp = talloc_new(R->ctx);
    struct acreR_coll *want;

    cr_assert_eq(acreR_coll_entry(tmp, R->dir, e, R->flags, R->cs->ci,
                                  R->cs->nci, &want),
                 0);
    struct acreR_coll *got = engine_view(tmp, R, R->rq, acre_entry_view_of(e));
    char *a = acreR_coll_text(want), *b = acreR_coll_text(got);
    cr_assert(a && b);
    R->compared++;
    R->nonempty += want->nattrs + want->nsub > 0;
    report(R, e, a, b);
    R->seen = talloc_realloc(R->ctx, R->seen, const acre_entry *, R->nseen + 1);
    R->want = talloc_realloc(R->ctx, R->want, char *, R->nseen + 1);
    cr_assert(R->seen && R->want);
    R->seen[R->nseen] = e;
    R->want[R->nseen++] = talloc_strdup(R->ctx, a);
    free(a);
    free(b);
    talloc_free(tmp);
    return 0;
}

/* Every entry again, as a host of its own presents it (attributes in
 * another order; without normalised values for odd seeds), through the
 * host's lookups: the engine finds each entry's node by its ancestry
 * hashes. */
static void
host_pass(struct run *R)
{
    for (unsigned i = 0; i < R->nseen; i++) {
        void *tmp = talloc_new(R->ctx);
        const acre_entry_view *v = thost_view(R->th, acre_entry_dn(R->seen[i]));
        cr_assert(v);
        char *b = acreR_coll_text(engine_view(tmp, R, R->hrq, v));
        cr_assert(b);
        report(R, R->seen[i], R->want[i], b);
        R->nother++;
        free(b);
        talloc_free(tmp);
    }
    R->compared_other += R->nother;
}

/* The entries again, in a scrambled order, against the oracle's texts. */
static void
second_pass(struct run *R)
{
    uint64_t x = R->cs->seed * 0x9e3779b97f4a7c15ull + 1;

    for (unsigned i = R->nseen; i > 1; i--) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        unsigned k = (unsigned)(x % i);
        const acre_entry *e = R->seen[i - 1];
        char *w = R->want[i - 1];
        R->seen[i - 1] = R->seen[k], R->want[i - 1] = R->want[k];
        R->seen[k] = e, R->want[k] = w;
    }
    for (unsigned i = 0; i < R->nseen; i++) {
        void *tmp = talloc_new(R->ctx);
        char *b = acreR_coll_text(
            engine_view(tmp, R, R->rq, acre_entry_view_of(R->seen[i])));
        cr_assert(b);
        report(R, R->seen[i], R->want[i], b);
        free(b);
        talloc_free(tmp);
    }
}

/* Every entry of one case. */
static void
run_case(void *ctx, const struct acreG_coll_case *cs, struct run *R)
{
    acre_diag d;
    acre_policy *p, *q;
    char *conf = collect_conf(ctx, cs);
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "collect.conf", conf,
                       strlen(conf)};

    R->ctx = ctx;
    R->cs = cs;
    R->flags = cs->flags;
    cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &R->schema, &d), 0);
    if (cs->schema_text)
        cr_assert_eq(acre_schema_load_buffer(R->schema, "opendj.schema",
                                             cs->schema_text,
                                             strlen(cs->schema_text), &d),
                     0, "%s", d.message);
    cr_assert_eq(acre_policy_compile(ctx, R->schema, &src, 1, 0, &p, &d), 0,
                 "seed %llu: %s line %u: %s", (unsigned long long)cs->seed,
                 acre_strerror(d.code), d.line, d.message);
    cr_assert_eq(acre_directory_load(ctx, R->schema, "gen.ldif", cs->ldif,
                                     strlen(cs->ldif), &R->dir, &d),
                 0, "seed %llu: line %u: %s", (unsigned long long)cs->seed,
                 d.line, d.message);
    cr_assert_eq(acre_policy_attach_subentries(
                     ctx, p, R->dir,
                     cs->flags & ACRER_COLL_STACK ? ACRE_COLL_STACK : 0, &q,
                     &d),
                 0);
    cr_assert_eq(
        acre_request_begin(q, NULL, acre_directory_host(R->dir), &R->rq), 0);
    R->th = thost_new(ctx, R->dir, cs->seed * 3 + 1,
                      THOST_COPY | (cs->seed & 1 ? THOST_NO_NORMS : 0));
    cr_assert_eq(acre_request_begin(q, NULL, thost_host(R->th), &R->hrq), 0);
    acre_dn *root;
    size_t n = 0;
    cr_assert_eq(acre_dn_parse(ctx, R->schema, "", 0, 0, &root, NULL), 0);
    const char *const suffixes[] = {"dc=example,dc=com", "o=other"};
    for (unsigned i = 0; i < 2; i++) {
        acre_dn *b;
        cr_assert_eq(acre_dn_parse(ctx, R->schema, suffixes[i],
                                   strlen(suffixes[i]), 0, &b, NULL),
                     0);
        if (acre_directory_find(R->dir, b))
            acre_directory_walk(R->dir, b, ACRE_SCOPE_SUB, compare_entry, R);
        n++;
    }
    host_pass(R);
    second_pass(R);
    acre_request_end(R->rq);
    acre_request_end(R->hrq);
    cr_expect_eq(thost_outstanding(R->th), 0, "host views not released");
    acre_policy_release(q);
    acre_policy_release(p);
}

static unsigned long long
env(const char *name, unsigned long long dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtoull(v, NULL, 0) : dflt;
}

TestSuite(collective_agreement, .timeout = 600);

Test(collective_agreement, engine_matches_oracle)
{
    static const unsigned gen[] = {0, ACREG_GEN_OPENDJ, ACREG_GEN_COLLECT,
                                   ACREG_GEN_OPENDJ | ACREG_GEN_COLLECT};
    static const unsigned mode[] = {ACREG_GEN_X501, ACREG_GEN_STACK};
    unsigned long long seed0 = env("ACRE_COLL_SEED", 1);
    unsigned long long n = env("ACRE_COLL_N", 6);
    unsigned compared = 0, nonempty = 0, mismatches = 0, cases = 0;
    unsigned other = 0;

    for (unsigned long long s = seed0; s < seed0 + n; s++)
        for (unsigned g = 0; g < 4; g++)
            for (unsigned m = 0; m < 2; m++) {
                void *ctx = talloc_new(NULL);
                struct acreG_coll_case *cs;
                struct run R;
                memset(&R, 0, sizeof(R));
                cr_assert_eq(acreG_coll_gen(ctx, s, gen[g] | mode[m], &cs), 0);
                run_case(ctx, cs, &R);
                compared += R.compared;
                other += R.compared_other;
                nonempty += R.nonempty;
                mismatches += R.mismatches;
                cases++;
                talloc_free(ctx);
            }
    cr_log_info("collective agreement: %u cases, %u entries (%u with "
                "collective attributes; %u also through a host of their "
                "own), "
                "%u mismatches",
                cases, compared, nonempty, other, mismatches);
    cr_expect_eq(mismatches, 0, "%u entries differ", mismatches);
    /* a run that compares too little proves nothing */
    cr_expect_geq(compared, 40 * n * 8, "only %u entries compared", compared);
    cr_expect_eq(other, compared,
                 "only %u of %u entries compared through the test host", other,
                 compared);
    cr_expect_geq(nonempty, compared / 5, "only %u entries with values",
                  nonempty);
}
