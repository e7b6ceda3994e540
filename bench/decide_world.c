/*
 * decide_world.c -- the directory, policy, agreement check and timed pair
 * shared by the per-entry verdict rows (see decide_world.h).
 *
 * Invariant: a row is timed only after acre and the oracle agreed on
 * every check of its sample; the timed passes do exactly the verdicts
 * that were checked.
 */
#include "decide_world.h"

#include <stdio.h>
#include <string.h>
#include <talloc.h>

#include "directory.h"
#include "openldap.h"
#include "openldap_oracle.h"
#include "schema.h"

/* ---- the directory ------------------------------------------------------ */

struct collect_arg {
    dworld *w;
    int (*keep)(const acre_entry *);
    size_t cap;
};

static int
collect(void *arg, const acre_entry *e)
{
    struct collect_arg *c = arg;

    if (c->w->n < c->cap && (c->keep == NULL || c->keep(e)))
        c->w->entries[c->w->n++] = e;
    return 0;
}

/* List the entries under base and find their twins. */
static int
index_world(bench_run *run, dworld *w, const char *base,
            int (*keep)(const acre_entry *))
{
    size_t total = acreE_dir_count(w->odir);
    struct collect_arg c = {w, keep, total};
    acre_dn *dn;

    w->entries = talloc_array(w->mem, const acre_entry *, total);
    w->oentries = talloc_array(w->mem, const struct acreE_entry *, total);
    if (!w->entries || !w->oentries ||
        acre_dn_parse(w->mem, w->schema, base, strlen(base), 0, &dn, NULL) ||
        acre_directory_walk(w->dir, dn, ACRE_SCOPE_SUB, collect, &c) != 0)
        return -1;
    for (size_t i = 0; i < w->n; i++) {
        w->oentries[i] = acreE_dir_find(w->odir, acre_entry_dn(w->entries[i]));
        if (w->oentries[i] == NULL) {
            bench_fail(run, "%s: the oracle's directory lacks an entry", base);
            return -1;
        }
    }
    return 0;
}

int
dworld_load(bench_run *run, dworld *w, const char *name, const char *ldif,
            size_t len, const char *base, int (*keep)(const acre_entry *))
{
    acre_diag d;
    int rc;

    memset(&d, 0, sizeof d);
    if (acre_schema_new(w->mem, ACRE_SCHEMA_SLAPD, &w->schema, &d) != 0 ||
        acreE_dir_new(w->mem, w->schema, 0, &w->odir) != 0)
        return -1;
    rc = acreE_dir_load_ldif(w->odir, NULL, ldif, len, name, NULL, NULL, &d);
    if (rc == 0)
        rc = acre_directory_load(w->mem, w->schema, name, ldif, len, &w->dir,
                                 &d);
    if (rc != 0) {
        bench_fail(run, "%s: cannot load the directory: %s line %u: %s", name,
                   acre_strerror(rc), d.line, d.message);
        return -1;
    }
    w->id_entry = acreS_attr_find(w->schema, "entry", 5);
    return index_world(run, w, base, keep);
}

void
dworld_free(dworld *w)
{
    if (w->dir)
        acre_directory_free(w->dir);
    talloc_free(w->mem);
    w->dir = NULL;
    w->mem = NULL;
}

size_t *
dworld_sample(dworld *w, size_t n)
{
    size_t *s;

    if (n > w->n)
        n = w->n;
    s = talloc_array(w->mem, size_t, n ? n : 1);
    for (size_t k = 0; s && k < n; k++)
        s[k] = k * w->n / n;
    return s;
}

/* ---- the policy --------------------------------------------------------- */

int
dpolicy_setup(bench_run *run, dworld *w, dpolicy *dp, const char *tag,
              const char *text, size_t len, const char *authz_dn)
{
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, tag, text, len};
    acre_subject who = {0};
    struct acreR_requester owho = {0};
    acre_diag d;
    int rc;

    memset(&d, 0, sizeof d);
    dp->tag = tag;
    who.authz_dn = owho.authz_dn = authz_dn;
    rc = acreO_parse_conf(w->mem, w->schema, tag, text, len, &dp->cfg, &d);
    if (rc == 0)
        rc = acre_policy_compile(NULL, w->schema, &src, 1, 0, &dp->p, &d);
    if (rc == 0)
        rc = acre_request_begin(dp->p, authz_dn ? &who : NULL,
                                acre_directory_host(w->dir), &dp->rq);
    if (rc == 0)
        rc = acreR_oracle_new(w->mem, dp->cfg, w->odir, &owho, &dp->o);
    if (rc != 0) {
        bench_fail(run, "%s: %s at %s:%u:%u: %s", tag, acre_strerror(rc),
                   d.file ? d.file : "", d.line, d.column, d.message);
        return -1;
    }
    return 0;
}

void
dpolicy_free(dpolicy *dp)
{
    if (dp->rq)
        acre_request_end(dp->rq);
    if (dp->p)
        acre_policy_release(dp->p);
    dp->rq = NULL;
    dp->p = NULL;
}

/* ---- the agreement check ------------------------------------------------ */

/* acre's verdict on value j of attribute a. */
static int
verdict_value(const acre_verdict *v, unsigned a, unsigned j)
{
    if (v->attr[a] == ACRE_ATTR_ALL)
        return 1;
    if (v->attr[a] == ACRE_ATTR_NONE)
        return 0;
    return v->value[v->first[a] + j] != 0;
}

/* Point t at the oracle's twin of value (desc, val); -1 when none. */
static int
target_value(struct acreR_target *t, const struct acreE_entry *oe,
             const char *desc, size_t dlen, const void *val, size_t vlen)
{
    for (uint32_t a = 0; a < oe->v.nattrs; a++) {
        const acre_view_attr *at = &oe->v.attrs[a];

        if (oe->desc_len[a] != dlen || memcmp(oe->desc[a], desc, dlen) != 0)
            continue;
        for (uint32_t k = 0; k < at->nvals; k++)
            if (at->vals[k].len == vlen &&
                !memcmp(at->vals[k].val, val, vlen)) {
                acreR_target_attr(t, oe->v.schema, &oe->v, at, (int)k);
                return 0;
            }
    }
    return -1;
}

/* The mismatches between acre and the oracle on entry i (each recorded). */
static unsigned
verify_entry(bench_run *run, dworld *w, dpolicy *dp, size_t i)
{
    const acre_entry *e = w->entries[i];
    const struct acreE_entry *oe = w->oentries[i];
    const char *dn = acre_dn_normalised(acre_entry_dn(e), NULL);
    struct acreR_target t = {&oe->v, w->id_entry, 0, NULL, NULL, NULL, 0};
    acre_verdict v;
    int rc =
        acre_entry_decide(dp->rq, acre_entry_view_of(e), ACRE_RIGHT_READ, &v);
    int want = acreR_oracle_check(dp->o, &t, ACREI_ACCESS_READ, NULL, NULL);
    unsigned bad = 0, nv;
    size_t dlen, vlen;

    if (rc != 0 || v.visible != want || v.nattrs != acre_entry_nattrs(e)) {
        bench_fail(run, "%s: %s: acre_entry_decide %s, visible %d (oracle %d)",
                   dp->tag, dn, acre_strerror(rc), rc ? -1 : v.visible, want);
        return 1;
    }
    if (!want) /* nothing of an invisible entry is compared */
        return 0;
    for (unsigned a = 0; a < v.nattrs; a++) {
        const char *desc = acre_entry_attr(e, a, &dlen, &nv);

        for (unsigned j = 0; j < nv; j++) {
            const void *val = acre_entry_value(e, a, j, &vlen);

            if (target_value(&t, oe, desc, dlen, val, vlen) != 0) {
                bench_fail(run, "%s: %s: %.*s value %u not found twice",
                           dp->tag, dn, (int)dlen, desc, j);
                return bad + 1;
            }
            want = acreR_oracle_check(dp->o, &t, ACREI_ACCESS_READ, NULL, NULL);
            if (verdict_value(&v, a, j) != want && bad++ < 3)
                bench_fail(run, "%s: %s: %.*s value %u: acre %d, oracle %d",
                           dp->tag, dn, (int)dlen, desc, j, !want, want);
        }
    }
    return bad;
}

int
dpolicy_verify(bench_run *run, dworld *w, dpolicy *dp, const size_t *sample,
               size_t n)
{
    size_t bad = 0;

    for (size_t k = 0; k < n && bad < 5; k++)
        bad += verify_entry(run, w, dp, sample[k]) != 0;
    if (bad)
        return -1;
    bench_note(run, "%s: acre agrees with the oracle on %zu entries", dp->tag,
               n);
    return 0;
}

/* ---- the timed pair ----------------------------------------------------- */

struct djob {
    dworld *w;
    dpolicy *dp;
    const size_t *idx;
    size_t n;
    unsigned loops;
};

static uint64_t
acre_pass(void *arg)
{
    const struct djob *j = arg;
    uint64_t sum = 0;
    acre_verdict v;

    for (unsigned r = 0; r < j->loops; r++)
        for (size_t i = 0; i < j->n; i++)
            if (acre_entry_decide(j->dp->rq,
                                  acre_entry_view_of(j->w->entries[j->idx[i]]),
                                  ACRE_RIGHT_READ, &v) == 0)
                sum += (uint64_t)v.visible + (v.nattrs ? v.attr[0] : 0);
    return sum;
}

/* The oracle's entry verdict: READ on "entry", then on every value. */
static uint64_t
oracle_pass(void *arg)
{
    const struct djob *j = arg;
    uint64_t sum = 0;

    for (size_t i = 0; i < j->n; i++) {
        const struct acreE_entry *e = j->w->oentries[j->idx[i]];
        struct acreR_target t = {&e->v, j->w->id_entry, 0, NULL, NULL, NULL, 0};

        sum += acreR_oracle_check(j->dp->o, &t, ACREI_ACCESS_READ, NULL, NULL);
        for (uint32_t a = 0; a < e->v.nattrs; a++)
            for (uint32_t k = 0; k < e->v.attrs[a].nvals; k++) {
                acreR_target_attr(&t, e->v.schema, &e->v, &e->v.attrs[a],
                                  (int)k);
                sum += acreR_oracle_check(j->dp->o, &t, ACREI_ACCESS_READ, NULL,
                                          NULL);
            }
    }
    return sum;
}

void
dpolicy_row(bench_run *run, const char *name, dworld *w, dpolicy *dp,
            const size_t *order, size_t n, unsigned loops, const size_t *sample,
            size_t nsample)
{
    struct djob ja = {w, dp, order, n, loops};
    struct djob jo = {w, dp, sample, nsample, 1};
    bench_impl impl[2] = {{"acre_entry_decide", acre_pass, &ja},
                          {"acreR_oracle_check", oracle_pass, &jo}};
    double med[2];

    bench_measure(run, impl, 2, 1, med);
    bench_row(run, name, "ns/entry", med[0] / (double)(n * loops), impl[1].name,
              med[1] / (double)nsample);
}

void
dpolicy_pair_row(bench_run *run, const char *name, dworld *w, dpolicy *dp,
                 dpolicy *other, const char *other_name, const size_t *order,
                 size_t n)
{
    struct djob ja = {w, dp, order, n, 1}, jb = {w, other, order, n, 1};
    bench_impl impl[2] = {{"acre_entry_decide", acre_pass, &ja},
                          {other_name, acre_pass, &jb}};
    double med[2];

    bench_measure(run, impl, 2, 1, med);
    bench_row(run, name, "ns/entry", med[0] / (double)n, impl[1].name,
              med[1] / (double)n);
}
