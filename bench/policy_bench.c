/*
 * policy_bench.c -- the policy engine against the reference evaluator
 * (tests/oracle/openldap_oracle.h) on the same directory and the same
 * rules in the same run.
 *
 * The directory and rule sets come from policy_corpus.h: 6,250 users
 * (330 in a smoke run) in a company DIT, and rule sets of 10, 1,000 and
 * 100,000 access rules, most of them on departments the entries decided
 * are not in.  The LDIF is loaded twice over one ACRE_SCHEMA_SLAPD schema:
 * into an acre_directory for the engine and into an acreE_dir for the
 * oracle; each rule set is compiled by acre_policy_compile and parsed by
 * acreO_parse_conf.  The requester is POLICY_REQUESTER, a user.
 *
 * Row groups:
 *   policy_decide_10, _1k, _100k   ns per entry verdict: READ on "entry"
 *       and on every value of every attribute.  acre: acre_entry_decide
 *       over every user entry; oracle: acreR_oracle_check on "entry" and
 *       on each value, over an evenly spaced sample of the same entries
 *       (1,000 / 200 / 8 entries: the oracle walks every rule on every
 *       check, so it is timed over fewer entries; medians are per entry).
 *       policy_decide_1k also times the same verdicts against reads_pass,
 *       the reads of the entries' views no verdict can skip, in the same
 *       order (row policy_decide_1k/reads: how close a verdict is to what
 *       the machine's memory charges for the entries).
 *   policy_access_1k      ns per check: acre_access for one value (READ),
 *       against acreR_oracle_check on the same value; random values of
 *       random entries (the oracle times the first tenth of them).
 *   policy_begin_hit_1k   ns per acre_request_begin + acre_request_end,
 *       always for the same requester (the policy's per-requester cache is
 *       warm), against acreR_oracle_new + talloc_free;
 *   policy_begin_miss_1k  the same, each begin for a requester never seen
 *       before by this policy (a cursor over all the users, which no pass
 *       wraps around; reported if one does).
 *   policy_compile_100k   ms per acre_policy_compile of the 100,000-rule
 *       text, against acreO_parse_conf of the same text (the front end
 *       alone).  Timed by hand, not by bench_measure, so that freeing the
 *       result is not counted; interleaved, medians of as many
 *       repetitions as the harness makes.
 *   policy_bytes_100k     bytes per rule: acre_policy_stats_get().bytes /
 *       rules, against talloc_total_size of the parsed configuration /
 *       rules (the IR the oracle walks).  A size, not a time.
 *   policy_alloc_1k       bytes the thread allocates per entry verdict
 *       (jemalloc's thread.allocatedp) over 100,000 acre_entry_decide
 *       calls after a warm-up, on directory views and again on the bench
 *       host's, against the oracle's per entry verdict.  The engine
 *       promises none: anything else is a failed check.
 *   host_decide_1k        ns per entry verdict on the views of a host of
 *       its own (bench_host.h: copies of the entries, attributes in
 *       reverse order, with their normalised values, lookups by its own
 *       index), against the same verdicts on the directory's views in the
 *       same run: what embedding costs over acre's own directory.  The
 *       verdicts are compared first.
 *
 * A smoke run decides 330 users and its "100k" rows use 5,000 rules (the
 * notes say how many), so that it takes seconds.
 *
 * Before anything is timed, acre's verdicts are checked against the
 * oracle's on every entry of the oracle's sample (entry visibility and
 * every value), and acre_access against the oracle on every check the
 * oracle times; a mismatch fails the run and its row is not timed.
 */
#include "harness.h"
#include "policy_corpus.h"

#include <acre.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "bench_host.h"
#include "directory.h"
#include "dn.h"
#include "openldap.h"
#include "openldap_oracle.h"
#include "schema.h"

/* jemalloc's control interface; NULL when the program is linked without
 * jemalloc. */
extern int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp,
                   size_t newlen) __attribute__((weak));

#define SEED_CASES 0x6163726563617365u /* "acrecase" */
#define CONF_NAME  "policy_bench.conf"
#define LDIF_NAME  "policy_bench.ldif"

/* Where one acre value (attribute i, value j) is in the oracle's entry. */
struct vref {
    const acre_view_attr *a; /* the oracle's attribute */
    int j;                   /* its value */
};

/* The directory, loaded twice, and the entries decided. */
struct world {
    void *mem;
    acre_schema *schema;
    struct acreE_dir *odir;
    acre_directory *dir;
    size_t n;                            /* user entries */
    const acre_entry **entries;          /* acre's, walk order */
    const struct acreE_entry **oentries; /* the oracle's, same order */
    struct vref **map;                   /* [n][values of the entry] */
    const char **pool;                   /* user DNs but the requester's */
    size_t npool;
    int id_entry;
    acre_subject who;
    struct acreR_requester owho;
    struct bhost *host;             /* the same entries, a host's own */
    const acre_entry_view **hviews; /* [n] their views there */
};

/* One rule set, compiled by acre and parsed for the oracle. */
struct level {
    const char *tag; /* "10", "1k", "100k" */
    size_t nrules;
    char *text;
    size_t len;
    struct acreI_policy *cfg;
    acre_policy *p;
    acre_request *rq;
    acre_request *hrq; /* the same requester, through the bench host */
    struct acreR_oracle *o;
    size_t *sample; /* the oracle's entries: indices into world */
    size_t nsample;
};

/* One value check (policy_access_*). */
struct access_case {
    const acre_entry *e;
    const char *desc; /* NUL-terminated */
    const void *val;
    size_t len;
    const struct acreE_entry *oe;
    struct vref r;
};

/* What a timed pass works on. */
struct job {
    struct world *w;
    struct level *l;
    size_t n;       /* items per loop */
    unsigned loops; /* acre: loops over the items */
    const struct access_case *cases;
    int cycle;     /* begin_miss: a new identity for every begin */
    size_t cursor; /* begin_miss: next identity in w->pool */
    size_t wraps;
};

/* ---- the timed passes ------------------------------------------------------
 */

static uint64_t
acre_decide_pass(void *arg)
{
    const struct job *j = arg;
    uint64_t sum = 0;
    acre_verdict v;

    for (unsigned r = 0; r < j->loops; r++)
        for (size_t i = 0; i < j->n; i++)
            if (acre_entry_decide(j->l->rq,
                                  acre_entry_view_of(j->w->entries[i]),
                                  ACRE_RIGHT_READ, &v) == 0)
                sum += (uint64_t)v.visible + (v.nattrs ? v.attr[0] : 0);
    return sum;
}

/*
 * The reads alone: of each entry, in the same order, the bytes any entry
 * verdict must read from the host's view -- the view itself, its DN's
 * header and ancestry hash at the entry's depth (the index probe's key)
 * and its RDN offsets, and the first 16 bytes of each attribute record
 * (id, count, values pointer) -- summed, nothing decided.  What this pass
 * costs is what the machine's memory charges for the entries, which no
 * verdict can go below (policy_decide_1k/reads).
 */
static uint64_t
reads_pass(void *arg)
{
    const struct job *j = arg;
    uint64_t sum = 0;

    for (unsigned r = 0; r < j->loops; r++)
        for (size_t i = 0; i < j->n; i++) {
            const acre_entry_view *e = acre_entry_view_of(j->w->entries[i]);
            const acre_dn *dn = e->dn;
            sum += dn->magic + acreD_h(dn)[dn->depth] + acreD_nrdn(dn)[1];
            for (unsigned k = 0; k < e->nattrs; k++)
                sum += (uint64_t)e->attrs[k].id + e->attrs[k].nvals +
                       (uintptr_t)e->attrs[k].vals;
        }
    return sum;
}

/* The oracle's entry verdict: READ on "entry", then on every value. */
static uint64_t
oracle_decide(struct acreR_oracle *o, int id_entry, const struct acreE_entry *e)
{
    struct acreR_target t = {&e->v, id_entry, 0, NULL, NULL, NULL, 0};
    uint64_t granted = acreR_oracle_check(o, &t, ACREI_ACCESS_READ, NULL, NULL);

    for (uint32_t a = 0; a < e->v.nattrs; a++)
        for (uint32_t k = 0; k < e->v.attrs[a].nvals; k++) {
            acreR_target_attr(&t, e->v.schema, &e->v, &e->v.attrs[a], (int)k);
            granted += acreR_oracle_check(o, &t, ACREI_ACCESS_READ, NULL, NULL);
        }
    return granted;
}

/* The same verdicts on the bench host's views of the same entries. */
static uint64_t
host_decide_pass(void *arg)
{
    const struct job *j = arg;
    uint64_t sum = 0;
    acre_verdict v;

    for (unsigned r = 0; r < j->loops; r++)
        for (size_t i = 0; i < j->n; i++)
            if (acre_entry_decide(j->l->hrq, j->w->hviews[i], ACRE_RIGHT_READ,
                                  &v) == 0)
                sum += (uint64_t)v.visible + (v.nattrs ? v.attr[0] : 0);
    return sum;
}

static uint64_t
oracle_decide_pass(void *arg)
{
    const struct job *j = arg;
    uint64_t sum = 0;

    for (size_t i = 0; i < j->n; i++)
        sum += oracle_decide(j->l->o, j->w->id_entry,
                             j->w->oentries[j->l->sample[i]]);
    return sum;
}

static uint64_t
acre_access_pass(void *arg)
{
    const struct job *j = arg;
    uint64_t sum = 0;

    for (unsigned r = 0; r < j->loops; r++)
        for (size_t i = 0; i < j->n; i++) {
            const struct access_case *c = &j->cases[i];

            sum += acre_access(j->l->rq, acre_entry_view_of(c->e), c->desc,
                               c->val, c->len, ACRE_RIGHT_READ, NULL) == 1;
        }
    return sum;
}

static uint64_t
oracle_access_pass(void *arg)
{
    const struct job *j = arg;
    uint64_t sum = 0;
    struct acreR_target t;

    for (size_t i = 0; i < j->n; i++) {
        const struct access_case *c = &j->cases[i];

        acreR_target_attr(&t, c->oe->v.schema, &c->oe->v, c->r.a, c->r.j);
        sum += acreR_oracle_check(j->l->o, &t, ACREI_ACCESS_READ, NULL, NULL);
    }
    return sum;
}

static uint64_t
acre_begin_hit_pass(void *arg)
{
    const struct job *j = arg;
    uint64_t sum = 0;
    acre_request *rq;

    for (size_t i = 0; i < j->n; i++)
        if (acre_request_begin(j->l->p, &j->w->who,
                               acre_directory_host(j->w->dir), &rq) == 0) {
            acre_request_end(rq);
            sum++;
        }
    return sum;
}

static uint64_t
oracle_new_pass(void *arg)
{
    struct job *j = arg;
    struct acreR_requester who = j->w->owho;
    struct acreR_oracle *o;
    uint64_t sum = 0;

    for (size_t i = 0; i < j->n; i++) {
        if (j->cycle)
            who.authz_dn = j->w->pool[j->cursor++ % j->w->npool];
        if (acreR_oracle_new(NULL, j->l->cfg, j->w->odir, &who, &o) == 0) {
            talloc_free(o);
            sum++;
        }
    }
    return sum;
}

static uint64_t
acre_begin_miss_pass(void *arg)
{
    struct job *j = arg;
    acre_subject who = j->w->who;
    uint64_t sum = 0;
    acre_request *rq;

    for (size_t i = 0; i < j->n; i++) {
        if (j->cursor == j->w->npool) {
            j->cursor = 0;
            j->wraps++;
        }
        who.authz_dn = j->w->pool[j->cursor++];
        if (acre_request_begin(j->l->p, &who, acre_directory_host(j->w->dir),
                               &rq) == 0) {
            acre_request_end(rq);
            sum++;
        }
    }
    return sum;
}

/* ---- the directory ---------------------------------------------------------
 */

static int
is_user(const acre_entry *e)
{
    const char *rdn;
    size_t len;

    return acre_dn_rdn(acre_entry_dn(e), 0, &rdn, &len, NULL, NULL) == 0 &&
           len > 4 && memcmp(rdn, "uid=", 4) == 0;
}

static int
collect(void *arg, const acre_entry *e)
{
    struct world *w = arg;

    if (is_user(e))
        w->entries[w->n++] = e;
    return 0;
}

/* The oracle's attribute and value for acre's attribute i, value k. */
static int
find_ref(const struct acreE_entry *oe, const char *desc, size_t dlen,
         const void *val, size_t vlen, struct vref *out)
{
    for (uint32_t a = 0; a < oe->v.nattrs; a++) {
        const acre_view_attr *at = &oe->v.attrs[a];

        if (oe->desc_len[a] != dlen || memcmp(oe->desc[a], desc, dlen) != 0)
            continue;
        for (uint32_t k = 0; k < at->nvals; k++)
            if (at->vals[k].len == vlen && !memcmp(at->vals[k].val, val, vlen))
                return out->a = at, out->j = (int)k, 0;
    }
    return -1;
}

/* Map every value of entries[i] to the oracle's twin. */
static int
map_entry(bench_run *run, struct world *w, size_t i)
{
    const acre_entry *e = w->entries[i];
    unsigned nattrs = acre_entry_nattrs(e), nv, total = 0, k = 0;
    size_t dlen, vlen;

    for (unsigned a = 0; a < nattrs; a++)
        if (acre_entry_attr(e, a, &dlen, &nv))
            total += nv;
    w->map[i] = talloc_array(w->map, struct vref, total + 1);
    if (!w->map[i])
        return -1;
    for (unsigned a = 0; a < nattrs; a++) {
        const char *desc = acre_entry_attr(e, a, &dlen, &nv);

        for (unsigned j = 0; j < nv; j++) {
            const void *val = acre_entry_value(e, a, j, &vlen);

            if (find_ref(w->oentries[i], desc, dlen, val, vlen,
                         &w->map[i][k++]) != 0) {
                bench_fail(run, "policy: %s: value %u of %.*s not found twice",
                           acre_dn_normalised(acre_entry_dn(e), NULL), j,
                           (int)dlen, desc);
                return -1;
            }
        }
    }
    return 0;
}

/* List the users of acre's directory, find their twins, map their values,
 * and list the identities of policy_begin_miss. */
static int
index_world(bench_run *run, struct world *w, size_t total)
{
    acre_dn *base;

    w->entries = talloc_array(w->mem, const acre_entry *, total);
    w->oentries = talloc_array(w->mem, const struct acreE_entry *, total);
    w->map = talloc_zero_array(w->mem, struct vref *, total);
    w->pool = talloc_array(w->mem, const char *, total);
    if (!w->entries || !w->oentries || !w->map || !w->pool ||
        acre_dn_parse(w->mem, w->schema, POLICY_SUFFIX, strlen(POLICY_SUFFIX),
                      0, &base, NULL) != 0 ||
        acre_directory_walk(w->dir, base, ACRE_SCOPE_SUB, collect, w) != 0)
        return -1;
    if (!(w->host = bhost_new(w->mem, w->dir, 1)) ||
        !(w->hviews = talloc_array(w->mem, const acre_entry_view *, total)))
        return -1;
    for (size_t i = 0; i < w->n; i++) {
        const acre_dn *dn = acre_entry_dn(w->entries[i]);
        const char *pretty = acre_dn_pretty(dn, NULL);

        w->oentries[i] = acreE_dir_find(w->odir, dn);
        w->hviews[i] = bhost_view(w->host, dn);
        if (!w->oentries[i] || !w->hviews[i] || map_entry(run, w, i) != 0)
            return -1;
        if (strcmp(acre_dn_normalised(dn, NULL), POLICY_REQUESTER) != 0)
            w->pool[w->npool++] = pretty;
    }
    return 0;
}

static int
load_world(bench_run *run, struct world *w, const policy_shape *shape)
{
    acre_diag d;
    size_t len;
    char *ldif = policy_corpus_ldif(w->mem, shape, &len);
    int rc;

    memset(&d, 0, sizeof d);
    if (!ldif || acre_schema_new(w->mem, ACRE_SCHEMA_SLAPD, &w->schema, &d))
        return -1;
    if (acreE_dir_new(w->mem, w->schema, 0, &w->odir) != 0)
        return -1;
    rc = acreE_dir_load_ldif(w->odir, NULL, ldif, len, LDIF_NAME, NULL, NULL,
                             &d);
    if (rc == 0)
        rc = acre_directory_load(w->mem, w->schema, LDIF_NAME, ldif, len,
                                 &w->dir, &d);
    if (rc != 0) {
        bench_fail(run, "policy: cannot load the directory: %s line %u: %s",
                   acre_strerror(rc), d.line, d.message);
        return -1;
    }
    w->who.authz_dn = POLICY_REQUESTER;
    w->owho.authz_dn = POLICY_REQUESTER;
    w->id_entry = acreS_attr_find(w->schema, "entry", 5);
    return index_world(run, w, acreE_dir_count(w->odir));
}

/* ---- the rule sets ---------------------------------------------------------
 */

static void
note_stats(bench_run *run, const struct level *l)
{
    acre_policy_stats st;

    acre_policy_stats_get(l->p, &st);
    if (st.rules != l->nrules)
        bench_fail(run,
                   "policy %s: acre_policy_stats_get counts %u rules "
                   "of %zu",
                   l->tag, st.rules, l->nrules);
    bench_note(run,
               "policy %s: %zu rules (%zu bytes of text): %u rules, %u "
               "clauses, %u nodes, %u residual, %zu table entries, %zu bytes",
               l->tag, l->nrules, l->len, st.rules, st.clauses, st.nodes,
               st.residual, st.table_entries, st.bytes);
}

/* Compile l's rules for acre, parse them for the oracle, start a request
 * and an oracle for the requester, pick the oracle's sample. */
static int
level_setup(bench_run *run, struct world *w, struct level *l, size_t nsample)
{
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, CONF_NAME, NULL, 0};
    acre_diag d;
    int rc;

    memset(&d, 0, sizeof d);
    if (!(l->text = policy_corpus_rules(w->mem, l->nrules, &l->len)))
        return -1;
    src.text = l->text;
    src.len = l->len;
    rc = acreO_parse_conf(w->mem, w->schema, CONF_NAME, l->text, l->len,
                          &l->cfg, &d);
    if (rc == 0)
        rc = acre_policy_compile(NULL, w->schema, &src, 1, 0, &l->p, &d);
    if (rc == 0)
        rc = acre_request_begin(l->p, &w->who, acre_directory_host(w->dir),
                                &l->rq);
    if (rc == 0)
        rc = acre_request_begin(l->p, &w->who, bhost_host(w->host), &l->hrq);
    if (rc == 0)
        rc = acreR_oracle_new(w->mem, l->cfg, w->odir, &w->owho, &l->o);
    if (rc != 0) {
        bench_fail(run, "policy %s: %s at %s:%u:%u: %s", l->tag,
                   acre_strerror(rc), d.file ? d.file : "", d.line, d.column,
                   d.message);
        return -1;
    }
    note_stats(run, l);
    l->nsample = nsample < w->n ? nsample : w->n;
    l->sample = talloc_array(w->mem, size_t, l->nsample);
    if (!l->sample)
        return -1;
    for (size_t k = 0; k < l->nsample; k++)
        l->sample[k] = k * w->n / l->nsample;
    return 0;
}

static void
level_free(struct level *l)
{
    if (l->rq)
        acre_request_end(l->rq);
    if (l->hrq)
        acre_request_end(l->hrq);
    if (l->p)
        acre_policy_release(l->p);
    l->rq = l->hrq = NULL;
    l->p = NULL;
}

/* ---- checks ----------------------------------------------------------------
 */

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

/* Compare acre's verdict on entries[i] with the oracle's check by check;
 * returns the mismatches (each reported). */
static unsigned
verify_entry(bench_run *run, struct world *w, struct level *l, size_t i,
             size_t *readable)
{
    const acre_entry *e = w->entries[i];
    const char *dn = acre_dn_normalised(acre_entry_dn(e), NULL);
    struct acreR_target t = {
        &w->oentries[i]->v, w->id_entry, 0, NULL, NULL, NULL, 0};
    acre_verdict v;
    int rc =
        acre_entry_decide(l->rq, acre_entry_view_of(e), ACRE_RIGHT_READ, &v);
    int want = acreR_oracle_check(l->o, &t, ACREI_ACCESS_READ, NULL, NULL);
    unsigned bad = 0, k = 0, nv;
    size_t dlen;

    if (rc != 0 || v.visible != want || v.nattrs != acre_entry_nattrs(e)) {
        bench_fail(run,
                   "policy %s: %s: acre_entry_decide %s, visible %d "
                   "(oracle %d), %u attributes",
                   l->tag, dn, acre_strerror(rc), rc ? -1 : v.visible, want,
                   v.nattrs);
        return 1;
    }
    if (!want) /* nothing of an invisible entry is compared */
        return 0;
    for (unsigned a = 0; a < v.nattrs; a++) {
        const char *desc = acre_entry_attr(e, a, &dlen, &nv);

        for (unsigned j = 0; j < nv; j++, k++) {
            acreR_target_attr(&t, w->schema, &w->oentries[i]->v, w->map[i][k].a,
                              w->map[i][k].j);
            want = acreR_oracle_check(l->o, &t, ACREI_ACCESS_READ, NULL, NULL);
            *readable += want;
            if (verdict_value(&v, a, j) != want && bad++ < 3)
                bench_fail(run,
                           "policy %s: %s: %.*s value %u: acre %d, "
                           "oracle %d",
                           l->tag, dn, (int)dlen, desc, j, !want, want);
        }
    }
    return bad;
}

/* Check acre against the oracle on every entry of l's sample. */
static int
verify_level(bench_run *run, struct world *w, struct level *l)
{
    size_t visible = 0, readable = 0, bad = 0;
    struct acreR_target t;

    for (size_t k = 0; k < l->nsample && bad < 5; k++) {
        size_t i = l->sample[k];

        bad += verify_entry(run, w, l, i, &readable) != 0;
        acreR_target_type(l->o, &t, &w->oentries[i]->v, "entry");
        visible += acreR_oracle_check(l->o, &t, ACREI_ACCESS_READ, NULL, NULL);
    }
    if (bad)
        return -1;
    bench_note(run,
               "policy %s: acre agrees with the oracle on %zu entries "
               "(%zu visible, %zu values readable)",
               l->tag, l->nsample, visible, readable);
    return 0;
}

/* ---- rows ------------------------------------------------------------------
 */

/* 1 when row group <prefix><l->tag> is selected. */
static int
want_row(bench_run *run, const struct level *l, const char *prefix)
{
    char group[64];

    snprintf(group, sizeof group, "%s%s", prefix, l->tag);
    return bench_want(run, group);
}

/*
 * Time a (acre) and o (oracle) interleaved over different item counts:
 * bench_measure with one item per pass, then per-item medians (the median
 * of pass times divided by a constant is the median per item).
 */
static void
measure_pair(bench_run *run, const char *name, const char *unit,
             const bench_impl *a, size_t a_items, const bench_impl *o,
             size_t o_items)
{
    bench_impl impl[2] = {*a, *o};
    double med[2];

    bench_measure(run, impl, 2, 1, med);
    bench_row(run, name, unit, med[0] / (double)a_items, o->name,
              med[1] / (double)o_items);
}

static void
run_decide(bench_run *run, struct world *w, struct level *l)
{
    unsigned loops = (unsigned)bench_size(run, 8, 1);
    struct job ja = {.w = w, .l = l, .n = w->n, .loops = loops};
    struct job jo = {.w = w, .l = l, .n = l->nsample, .loops = 1};
    bench_impl ia = {"acre_entry_decide", acre_decide_pass, &ja};
    bench_impl io = {"acreR_oracle_check", oracle_decide_pass, &jo};
    char name[64];

    if (verify_level(run, w, l) != 0)
        return;
    snprintf(name, sizeof name, "policy_decide_%s/oracle", l->tag);
    measure_pair(run, name, "ns/entry", &ia, w->n * loops, &io, l->nsample);
    if (strcmp(l->tag, "1k") != 0)
        return;
    /* the same verdicts against the reads they cannot do without */
    bench_impl ir = {"the entries' reads", reads_pass, &ja};
    measure_pair(run, "policy_decide_1k/reads", "ns/entry", &ia, w->n * loops,
                 &ir, w->n * loops);
}

/* Does the host's verdict on entry i say what the directory's does?  The
 * host holds the attributes in reverse order. */
static int
host_agrees(struct world *w, struct level *l, size_t i)
{
    acre_verdict dv, hv;
    const acre_entry_view *d = acre_entry_view_of(w->entries[i]);

    if (acre_entry_decide(l->rq, d, ACRE_RIGHT_READ, &dv) != 0)
        return 0;
    unsigned n = dv.nattrs, vis = (unsigned)dv.visible;
    uint8_t a[64];
    for (unsigned k = 0; k < n && k < 64; k++)
        a[k] = dv.attr[k];
    if (acre_entry_decide(l->hrq, w->hviews[i], ACRE_RIGHT_READ, &hv) != 0 ||
        (unsigned)hv.visible != vis || hv.nattrs != n)
        return 0;
    for (unsigned k = 0; k < n && k < 64; k++)
        if (hv.attr[n - 1 - k] != a[k])
            return 0;
    return 1;
}

/* host_decide: the host path against the directory path, the same
 * verdicts first. */
static void
run_host_decide(bench_run *run, struct world *w, struct level *l)
{
    unsigned loops = (unsigned)bench_size(run, 8, 1);
    struct job j = {.w = w, .l = l, .n = w->n, .loops = loops};
    bench_impl ih = {"host views", host_decide_pass, &j};
    bench_impl id = {"directory views", acre_decide_pass, &j};
    bench_impl impl[2] = {ih, id};
    double med[2];
    char name[64];

    for (size_t i = 0; i < w->n; i++)
        if (!host_agrees(w, l, i)) {
            bench_fail(run, "host_decide_%s: %s: the host's verdict differs",
                       l->tag,
                       acre_dn_normalised(acre_entry_dn(w->entries[i]), NULL));
            return;
        }
    bench_note(run,
               "host_decide_%s: the host's verdicts agree on all %zu "
               "entries",
               l->tag, w->n);
    bench_measure(run, impl, 2, w->n * loops, med);
    snprintf(name, sizeof name, "host_decide_%s/directory", l->tag);
    bench_row(run, name, "ns/entry", med[0], "acre_entry_decide (dir)", med[1]);
}

/* The index of acre's attribute a, value j of entries[i] in w->map[i]. */
static size_t
value_index(const acre_entry *e, unsigned a, unsigned j)
{
    size_t k = j, dlen;
    unsigned nv;

    for (unsigned b = 0; b < a; b++)
        if (acre_entry_attr(e, b, &dlen, &nv))
            k += nv;
    return k;
}

/* n value checks on random values of random user entries. */
static struct access_case *
make_cases(struct world *w, size_t n)
{
    bench_rng rng = {SEED_CASES};
    struct access_case *cs = talloc_array(w->mem, struct access_case, n);
    size_t dlen;
    unsigned nv;

    for (size_t k = 0; cs && k < n; k++) {
        size_t i = bench_rng_below(&rng, (uint32_t)w->n);
        const acre_entry *e = w->entries[i];
        unsigned a = bench_rng_below(&rng, acre_entry_nattrs(e));
        const char *desc = acre_entry_attr(e, a, &dlen, &nv);
        unsigned j = bench_rng_below(&rng, nv);

        cs[k].e = e;
        cs[k].oe = w->oentries[i];
        cs[k].desc = talloc_strndup(cs, desc, dlen);
        cs[k].val = acre_entry_value(e, a, j, &cs[k].len);
        cs[k].r = w->map[i][value_index(e, a, j)];
        if (!cs[k].desc)
            return NULL;
    }
    return cs;
}

static int
verify_cases(bench_run *run, struct level *l, const struct access_case *cs,
             size_t n)
{
    size_t granted = 0, bad = 0;
    struct acreR_target t;

    for (size_t k = 0; k < n; k++) {
        int got = acre_access(l->rq, acre_entry_view_of(cs[k].e), cs[k].desc,
                              cs[k].val, cs[k].len, ACRE_RIGHT_READ, NULL);
        int want;

        acreR_target_attr(&t, cs[k].oe->v.schema, &cs[k].oe->v, cs[k].r.a,
                          cs[k].r.j);
        want = acreR_oracle_check(l->o, &t, ACREI_ACCESS_READ, NULL, NULL);
        granted += want;
        if (got != want && bad++ < 5)
            bench_fail(run,
                       "policy %s: %s: acre_access(%s, "
                       "acre_entry_view_of(%.*s)) = %d, "
                       "oracle %d",
                       l->tag, acre_dn_normalised(acre_entry_dn(cs[k].e), NULL),
                       cs[k].desc, (int)cs[k].len, (const char *)cs[k].val, got,
                       want);
    }
    if (bad)
        return -1;
    bench_note(run,
               "policy %s: acre_access agrees with the oracle on %zu "
               "checks (%zu granted)",
               l->tag, n, granted);
    return 0;
}

static void
run_access(bench_run *run, struct world *w, struct level *l)
{
    size_t n = bench_size(run, 20000, 500);
    unsigned loops = (unsigned)bench_size(run, 5, 1);
    struct access_case *cs = make_cases(w, n);
    struct job ja = {.w = w, .l = l, .n = n, .loops = loops, .cases = cs};
    struct job jo = {.w = w, .l = l, .n = n / 10, .loops = 1, .cases = cs};
    bench_impl ia = {"acre_access", acre_access_pass, &ja};
    bench_impl io = {"acreR_oracle_check", oracle_access_pass, &jo};
    char name[64];

    if (!cs || verify_cases(run, l, cs, jo.n) != 0)
        return;
    snprintf(name, sizeof name, "policy_access_%s/oracle", l->tag);
    measure_pair(run, name, "ns/check", &ia, n * loops, &io, jo.n);
}

static void
run_begin(bench_run *run, struct world *w, struct level *l)
{
    struct job ja = {.w = w, .l = l, .n = bench_size(run, 100000, 1000)};
    struct job jo = {.w = w, .l = l, .n = bench_size(run, 10000, 100)};
    bench_impl ia = {"acre_request_begin", acre_begin_hit_pass, &ja};
    bench_impl io = {"acreR_oracle_new", oracle_new_pass, &jo};
    char name[64];

    if (want_row(run, l, "policy_begin_hit_")) {
        snprintf(name, sizeof name, "policy_begin_hit_%s/oracle", l->tag);
        measure_pair(run, name, "ns/req", &ia, ja.n, &io, jo.n);
    }
    if (!want_row(run, l, "policy_begin_miss_"))
        return;
    /* a warm-up and the repetitions never wrap */
    ja.n = jo.n = w->npool / (bench_reps(run) + 2);
    ja.cycle = jo.cycle = 1;
    ia.pass = acre_begin_miss_pass;
    snprintf(name, sizeof name, "policy_begin_miss_%s/oracle", l->tag);
    measure_pair(run, name, "ns/req", &ia, ja.n, &io, jo.n);
    if (ja.wraps)
        bench_note(run,
                   "policy_begin_miss: the %zu identities were reused "
                   "%zu times: some begins were cached",
                   w->npool, ja.wraps);
}

/* jemalloc's per-thread count of bytes allocated; NULL when unavailable. */
static const uint64_t *
thread_allocated(void)
{
    uint64_t *p = NULL;
    size_t sz = sizeof p;

    if (mallctl == NULL || mallctl("thread.allocatedp", &p, &sz, NULL, 0))
        return NULL;
    return p;
}

static void
run_alloc(bench_run *run, struct world *w, struct level *l)
{
    const uint64_t *ctr = thread_allocated();
    size_t calls = bench_size(run, 100000, 1000);
    uint64_t before, acre_bytes, oracle_bytes;
    acre_verdict v;
    char name[64];

    if (ctr == NULL) {
        bench_note(run, "policy_alloc: jemalloc's mallctl(\"thread."
                        "allocatedp\") is unavailable: not measured");
        return;
    }
    /* warm-up: two passes, as a search's first entries size the
     * request's scratch -- its verdict arrays, and its table of entry
     * shapes, made larger once when the shapes keep evicting each other */
    for (size_t i = 0; i < 2 * w->n; i++)
        acre_entry_decide(l->rq, acre_entry_view_of(w->entries[i % w->n]),
                          ACRE_RIGHT_READ, &v);
    before = *ctr;
    for (size_t i = 0; i < calls; i++)
        acre_entry_decide(l->rq, acre_entry_view_of(w->entries[i % w->n]),
                          ACRE_RIGHT_READ, &v);
    acre_bytes = *ctr - before;
    /* the host path too: its views, its lookups */
    for (size_t i = 0; i < 2 * w->n; i++)
        acre_entry_decide(l->hrq, w->hviews[i % w->n], ACRE_RIGHT_READ, &v);
    before = *ctr;
    for (size_t i = 0; i < calls; i++)
        acre_entry_decide(l->hrq, w->hviews[i % w->n], ACRE_RIGHT_READ, &v);
    acre_bytes += *ctr - before;
    before = *ctr;
    for (size_t k = 0; k < l->nsample; k++)
        oracle_decide(l->o, w->id_entry, w->oentries[l->sample[k]]);
    oracle_bytes = *ctr - before;
    bench_note(run,
               "policy_alloc_%s: acre allocated %llu bytes over %zu "
               "acre_entry_decide calls on directory views and %zu on a "
               "host's; the oracle %llu over %zu verdicts",
               l->tag, (unsigned long long)acre_bytes, calls, calls,
               (unsigned long long)oracle_bytes, l->nsample);
    if (acre_bytes != 0)
        bench_fail(run,
                   "policy_alloc_%s: acre_entry_decide allocated %llu "
                   "bytes in %zu calls after a warm-up; it must allocate "
                   "nothing",
                   l->tag, (unsigned long long)acre_bytes, calls);
    snprintf(name, sizeof name, "policy_alloc_%s/oracle", l->tag);
    bench_row(run, name, "B/entry", (double)acre_bytes / (double)(2 * calls),
              "acreR_oracle_check", (double)oracle_bytes / (double)l->nsample);
}

/* One compile (acre) or parse (oracle) of l's text, in ns; -1 on error. */
static double
time_compile(struct world *w, const struct level *l, int oracle)
{
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, CONF_NAME, l->text, l->len};
    struct acreI_policy *cfg = NULL;
    acre_policy *p = NULL;
    double t0 = bench_now_ns(), t1;
    int rc;

    if (oracle)
        rc = acreO_parse_conf(NULL, w->schema, CONF_NAME, l->text, l->len, &cfg,
                              NULL);
    else
        rc = acre_policy_compile(NULL, w->schema, &src, 1, 0, &p, NULL);
    t1 = bench_now_ns();
    if (p)
        acre_policy_release(p);
    talloc_free(cfg);
    return rc == 0 ? t1 - t0 : -1;
}

static void
run_compile(bench_run *run, struct world *w, struct level *l)
{
    /* as many repetitions as bench_measure makes */
    unsigned reps = bench_reps(run);
    double t[2][BENCH_MAX_REPS];
    char name[64];

    for (unsigned r = 0; r < reps; r++)
        for (int k = 0; k < 2; k++) {
            int which = (int)((r + (unsigned)k) % 2);

            t[which][r] = time_compile(w, l, which);
            if (t[which][r] < 0) {
                bench_fail(run, "policy %s: %s failed on a repetition", l->tag,
                           which ? "acreO_parse_conf" : "acre_policy_compile");
                return;
            }
        }
    snprintf(name, sizeof name, "policy_compile_%s/parse", l->tag);
    bench_row(run, name, "ms", bench_median(t[0], reps) / 1e6,
              "acreO_parse_conf", bench_median(t[1], reps) / 1e6);
}

static void
run_bytes(bench_run *run, struct level *l)
{
    acre_policy_stats st;
    char name[64];

    acre_policy_stats_get(l->p, &st);
    if (st.rules == 0)
        return;
    snprintf(name, sizeof name, "policy_bytes_%s/parse", l->tag);
    bench_row(run, name, "B/rule", (double)st.bytes / st.rules,
              "acreO_parse_conf IR",
              (double)talloc_total_size(l->cfg) / (double)l->nrules);
}

/* ---- the benchmark ---------------------------------------------------------
 */

static int
want_any(bench_run *run, const char *const *groups)
{
    for (; *groups; groups++)
        if (bench_want(run, *groups))
            return 1;
    return 0;
}

static const char *const groups_10[] = {"policy_decide_10", NULL};
static const char *const groups_1k[] = {"policy_decide_1k",
                                        "policy_access_1k",
                                        "policy_begin_hit_1k",
                                        "policy_begin_miss_1k",
                                        "policy_alloc_1k",
                                        "host_decide_1k",
                                        NULL};
static const char *const groups_100k[] = {
    "policy_decide_100k", "policy_compile_100k", "policy_bytes_100k", NULL};

/* The rows of one rule set. */
static void
run_level(bench_run *run, struct world *w, struct level *l)
{
    if (want_row(run, l, "policy_decide_"))
        run_decide(run, w, l);
    if (strcmp(l->tag, "1k") == 0) {
        if (want_row(run, l, "policy_access_"))
            run_access(run, w, l);
        run_begin(run, w, l);
        if (want_row(run, l, "policy_alloc_"))
            run_alloc(run, w, l);
        if (want_row(run, l, "host_decide_"))
            run_host_decide(run, w, l);
    }
    if (strcmp(l->tag, "100k") == 0) {
        if (want_row(run, l, "policy_compile_"))
            run_compile(run, w, l);
        if (want_row(run, l, "policy_bytes_"))
            run_bytes(run, l);
    }
}

static int
bench_policy(bench_run *run)
{
    static const policy_shape full = {5000, 50, 20, 5}, smoke = {300, 5, 4, 2};
    const char *const *groups[3] = {groups_10, groups_1k, groups_100k};
    struct level lv[3] = {{.tag = "10", .nrules = 10},
                          {.tag = "1k", .nrules = 1000},
                          {.tag = "100k", .nrules = 100000}};
    size_t nsample[3] = {bench_size(run, 1000, 50), bench_size(run, 200, 10),
                         bench_size(run, 8, 2)};
    struct world w = {0};
    int rc = -1;

    /* the front end alone takes seconds for 100,000 rules */
    lv[2].nrules = bench_size(run, 100000, 5000);
    if (!(w.mem = talloc_new(NULL)) ||
        load_world(run, &w, bench_smoke(run) ? &smoke : &full) != 0)
        goto out;
    bench_note(run, "policy: %zu users of %zu entries, requester %s", w.n,
               acreE_dir_count(w.odir), POLICY_REQUESTER);
    for (int i = 0; i < 3; i++) {
        if (!want_any(run, groups[i]))
            continue;
        if (level_setup(run, &w, &lv[i], nsample[i]) != 0)
            goto out;
        run_level(run, &w, &lv[i]);
        level_free(&lv[i]);
    }
    rc = 0;
out:
    for (int i = 0; i < 3; i++)
        level_free(&lv[i]);
    if (w.dir)
        acre_directory_free(w.dir);
    talloc_free(w.mem);
    return rc;
}

static const char *const policy_groups[] = {
    "policy_decide_10",
    "policy_decide_1k",
    "policy_decide_100k",
    "policy_access_1k",
    "policy_begin_hit_1k",
    "policy_begin_miss_1k",
    "policy_alloc_1k",
    "policy_compile_100k",
    "policy_bytes_100k",
    "host_decide_1k",
    NULL,
};

const bench_def bench_policy_def = {"policy", policy_groups, bench_policy};
