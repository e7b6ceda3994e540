/*
 * collective_bench.c -- an entry's collective attributes through the
 * subtree index (acre_entry_collective over a policy from
 * acre_policy_attach_subentries) against the literal scan of the
 * reference evaluator (acreR_coll_entry: every entry of the directory
 * looked at, every subtree specification parsed and tested) in the same
 * run, on the same directory.
 *
 * The directory: dc=example,dc=com, a specific collective point, with
 * A areas below it (ou=areaN: three in four specific points, one in four
 * inner ones), each with ou=staff and ou=lab and K subentries whose
 * specifications cycle through the whole area, a base, a minimum, a
 * chopBefore, a maximum and an item: refinement, each giving one or two
 * c-* values; and about 4,000 users (400 in a smoke run) spread over the
 * areas' staff and lab units.  Levels: 10 subentries (A 1, K 10), 1,000
 * (A 100) and 10,000 (A 1,000).
 *
 * Row groups:
 *   collective_entry_10, _1k, _10k   ns per entry: acre_entry_collective
 *       on every user in directory order (entries of one node and depth
 *       reuse the previous result when nothing of the entry mattered),
 *       against acreR_coll_entry on an evenly spaced sample of them (the
 *       oracle's medians are per entry too).  Values are not copied by
 *       either side: acre points into the directory.
 *   collective_shuffled_10k  the same, the users in a shuffled order, so
 *       no result is reused.
 *   collective_host_10k  the users as a host of its own presents them
 *       (bench_host.h: copies, attributes in reverse order), through the
 *       host's lookups.
 *   collective_attach_10k  ms per acre_policy_attach_subentries of the
 *       10,000-subentry directory (what a changed directory costs), against
 *       acre_directory_load of its LDIF, for scale.  Timed by hand
 *       (freeing not counted), medians.
 *
 * Before anything is timed, acre's answer is checked against the oracle's
 * on every entry of the sample, value by value; a mismatch fails the run.
 */
#include "harness.h"

#include <acre.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

#include "bench_host.h"
#include "collective_oracle.h"
#include "schema.h"

#define USERS       4000
#define SMOKE_USERS 400
#define PER_AREA    10
#define LDIF_NAME   "collective_bench.ldif"
#define SUFFIX      "dc=example,dc=com"

struct level {
    const char *tag;
    unsigned areas, per_area;
};

static const struct level levels[] = {
    {"10", 1, PER_AREA}, {"1k", 100, PER_AREA}, {"10k", 1000, PER_AREA}};

struct world {
    void *mem;
    acre_schema *schema;
    acre_directory *dir;
    char *ldif;
    size_t len;
    acre_policy *rules, *p;
    acre_request *rq;
    const acre_entry **users;
    size_t n;
    size_t *sample;
    size_t nsample;
};

/* ---- the directory -------------------------------------------------------
 */

/* One subentry of area a (its k-th): the specifications cycle. */
static char *
subentry(char *t, unsigned a, unsigned k)
{
    static const char *const specs[] = {
        "{}",
        "{ base \"ou=staff\" }",
        "{ base \"ou=lab\", minimum 1 }",
        "{ specificExclusions { chopBefore:\"ou=lab\" } }",
        "{ maximum 1 }",
        "{ specificationFilter item:inetOrgPerson }",
    };
    static const char *const values[] = {"c-l: City %u\nc-l: Town %u\n",
                                         "c-ou: Staff %u\n",
                                         "c-st: State %u\n",
                                         "c-TelephoneNumber: +1 555 %04u\n",
                                         "c-o: Org %u\nc-street: %u Main St\n",
                                         "c-PostalCode: %05u\n"};
    unsigned s = k % 6;

    t = talloc_asprintf_append_buffer(
        t,
        "dn: cn=sub%u,ou=area%u," SUFFIX "\nobjectClass: subentry\n"
        "objectClass: collectiveAttributeSubentry\ncn: sub%u\n"
        "subtreeSpecification: %s\n",
        k, a, k, specs[s]);
    if (t)
        t = talloc_asprintf_append_buffer(t, values[s], a * 31 + k, k);
    return t ? talloc_strdup_append_buffer(t, "\n") : NULL;
}

static char *
make_ldif(void *mem, const struct level *lv, size_t users, size_t *len)
{
    char *t = talloc_strdup(mem, "dn: " SUFFIX "\nobjectClass: domain\n"
                                 "dc: example\nadministrativeRole: "
                                 "collectiveAttributeSpecificArea\n\n");
    size_t per = users / lv->areas ? users / lv->areas : 1;

    for (unsigned a = 0; t && a < lv->areas; a++) {
        t = talloc_asprintf_append_buffer(
            t,
            "dn: ou=area%u," SUFFIX "\nobjectClass: organizationalUnit\n"
            "ou: area%u\nadministrativeRole: %s\n\n"
            "dn: ou=staff,ou=area%u," SUFFIX "\nobjectClass: "
            "organizationalUnit\nou: staff\n\n"
            "dn: ou=lab,ou=area%u," SUFFIX "\nobjectClass: "
            "organizationalUnit\nou: lab\n\n",
            a, a,
            a % 4 == 3 ? "collectiveAttributeInnerArea"
                       : "collectiveAttributeSpecificArea",
            a, a);
        for (unsigned k = 0; t && k < lv->per_area; k++)
            t = subentry(t, a, k);
        for (size_t u = 0; t && u < per; u++)
            t = talloc_asprintf_append_buffer(
                t,
                "dn: uid=u%u.%zu,ou=%s,ou=area%u," SUFFIX "\n"
                "objectClass: %s\nuid: u%u.%zu\ncn: User %zu\nsn: U\n\n",
                a, u, u % 3 ? "staff" : "lab", a,
                u % 5 ? "inetOrgPerson" : "person\nobjectClass: uidObject", a,
                u, u);
    }
    if (t)
        *len = strlen(t);
    return t;
}

static int
is_user(const acre_entry *e)
{
    const char *rdn;
    size_t len;

    return acre_dn_rdn(acre_entry_dn(e), 0, &rdn, &len, NULL, NULL) == 0 &&
           len > 4 && memcmp(rdn, "uid=", 4) == 0;
}

static int
collect_user(void *arg, const acre_entry *e)
{
    struct world *w = arg;

    if (is_user(e))
        w->users[w->n++] = e;
    return 0;
}

static int
setup(bench_run *run, struct world *w, const struct level *lv)
{
    static const char conf[] = "database mdb\nsuffix \"" SUFFIX "\"\n";
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "collective.conf", conf,
                       sizeof conf - 1};
    size_t users = bench_size(run, USERS, SMOKE_USERS);
    acre_diag d;
    acre_dn *base;
    int rc;

    memset(&d, 0, sizeof d);
    w->ldif = make_ldif(w->mem, lv, users, &w->len);
    if (!w->ldif ||
        acre_schema_new(w->mem, ACRE_SCHEMA_SLAPD, &w->schema, &d) != 0)
        return -1;
    rc = acre_directory_load(w->mem, w->schema, LDIF_NAME, w->ldif, w->len,
                             &w->dir, &d);
    if (rc == 0)
        rc = acre_policy_compile(NULL, w->schema, &src, 1, 0, &w->rules, &d);
    if (rc == 0)
        rc =
            acre_policy_attach_subentries(NULL, w->rules, w->dir, 0, &w->p, &d);
    if (rc == 0 && d.code)
        rc = d.code; /* a warning: the corpus is wrong */
    if (rc == 0)
        rc =
            acre_request_begin(w->p, NULL, acre_directory_host(w->dir), &w->rq);
    if (rc != 0) {
        bench_fail(run, "collective %u areas: %s line %u: %s", lv->areas,
                   acre_strerror(rc), d.line, d.message);
        return -1;
    }
    w->users =
        talloc_array(w->mem, const acre_entry *, acre_directory_count(w->dir));
    if (!w->users ||
        acre_dn_parse(w->mem, w->schema, SUFFIX, strlen(SUFFIX), 0, &base,
                      NULL) ||
        acre_directory_walk(w->dir, base, ACRE_SCOPE_SUB, collect_user, w))
        return -1;
    w->nsample = bench_size(run, lv->areas > 100 ? 8 : 50, 4);
    w->sample = talloc_array(w->mem, size_t, w->nsample);
    if (!w->sample)
        return -1;
    for (size_t k = 0; k < w->nsample; k++)
        w->sample[k] = k * w->n / w->nsample;
    return 0;
}

static void
teardown(struct world *w)
{
    if (w->rq)
        acre_request_end(w->rq);
    acre_policy_release(w->p);
    acre_policy_release(w->rules);
    talloc_free(w->mem);
}

/* ---- checks ----------------------------------------------------------------
 */

/* acre's answer as the oracle's text: descriptions by the schema's first
 * name, sorted case-insensitively, subentries' normalised DNs sorted. */
static int
by_type(const void *a, const void *b)
{
    return strcasecmp(((const struct acreR_coll_attr *)a)->type,
                      ((const struct acreR_coll_attr *)b)->type);
}

static int
by_string(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static char *
acre_text(void *mem, const struct world *w, const acre_collective_view *v)
{
    struct acreR_coll c = {0};

    c.attrs = talloc_zero_array(mem, struct acreR_coll_attr, v->nattrs + 1);
    c.subentries = talloc_array(mem, const char *, v->nsubentries + 1);
    if (!c.attrs || !c.subentries)
        return NULL;
    for (unsigned i = 0; i < v->nattrs; i++) {
        size_t dl;
        unsigned nv, fl;
        const char *d = acre_collective_attr(v, i, &dl, &nv, &fl);
        struct acreS_desc p;
        if (fl & ACRE_COLLATTR_OPER)
            continue;
        if (acreS_desc_parse(w->schema, d, dl, &p) || p.type < 0 || p.nopts)
            return NULL; /* the corpus has no options */
        const struct acreS_attr *at = acreS_attr(w->schema, p.type);
        struct acreR_coll_attr *a = &c.attrs[c.nattrs++];
        a->type = at->nnames ? at->names[0] : at->oid;
        a->vals = talloc_array(mem, const char *, nv + 1);
        a->lens = talloc_array(mem, size_t, nv + 1);
        if (!a->vals || !a->lens)
            return NULL;
        for (unsigned j = 0; j < nv; j++)
            a->vals[a->nvals] =
                acre_collective_value(v, i, j, &a->lens[a->nvals]),
            a->nvals++;
    }
    for (unsigned k = 0; k < v->nsubentries; k++)
        c.subentries[c.nsub++] = acre_dn_normalised(
            acre_entry_dn(acre_collective_subentry(v, k)), NULL);
    qsort(c.attrs, c.nattrs, sizeof(c.attrs[0]), by_type);
    qsort(c.subentries, c.nsub, sizeof(c.subentries[0]), by_string);
    return acreR_coll_text(&c);
}

static int
verify(bench_run *run, const struct world *w, const char *tag)
{
    size_t values = 0;

    for (size_t k = 0; k < w->nsample; k++) {
        const acre_entry *e = w->users[w->sample[k]];
        void *tmp = talloc_new(NULL);
        struct acreR_coll *want;
        acre_collective_view v;
        char *a = NULL, *b = NULL;
        int ok = tmp &&
                 acreR_coll_entry(tmp, w->dir, e, 0, NULL, 0, &want) == 0 &&
                 acre_entry_collective(w->rq, acre_entry_view_of(e), &v) == 0 &&
                 (a = acreR_coll_text(want)) && (b = acre_text(tmp, w, &v)) &&
                 strcmp(a, b) == 0;
        if (!ok)
            bench_fail(run,
                       "collective %s: %s: acre and the oracle differ:\n"
                       "%s--- acre\n%s",
                       tag, acre_dn_normalised(acre_entry_dn(e), NULL),
                       a ? a : "(none)\n", b ? b : "(none)\n");
        for (unsigned i = 0; ok && i < v.nattrs; i++) {
            unsigned nv;
            acre_collective_attr(&v, i, NULL, &nv, NULL);
            values += nv;
        }
        free(a);
        free(b);
        talloc_free(tmp);
        if (!ok)
            return -1;
    }
    bench_note(run,
               "collective %s: acre agrees with the oracle on %zu entries "
               "(%zu values, collectiveAttributeSubentries included)",
               tag, w->nsample, values);
    return 0;
}

/* ---- timed passes --------------------------------------------------------
 */

struct job {
    const struct world *w;
    const acre_entry_view **order; /* the entries, in the order visited */
    size_t n;
    unsigned loops;
    acre_request *rq; /* the request they are decided in */
};

static uint64_t
acre_pass(void *arg)
{
    const struct job *j = arg;
    acre_collective_view v;
    uint64_t sum = 0;

    for (unsigned r = 0; r < j->loops; r++)
        for (size_t i = 0; i < j->n; i++)
            if (acre_entry_collective(j->rq, j->order[i], &v) == 0)
                sum += v.nattrs + v.nsubentries;
    return sum;
}

static uint64_t
oracle_pass(void *arg)
{
    const struct job *j = arg;
    uint64_t sum = 0;

    for (size_t k = 0; k < j->w->nsample; k++) {
        struct acreR_coll *c;
        void *tmp = talloc_new(NULL);
        if (tmp &&
            acreR_coll_entry(tmp, j->w->dir, j->w->users[j->w->sample[k]], 0,
                             NULL, 0, &c) == 0)
            sum += c->nattrs + c->nsub;
        talloc_free(tmp);
    }
    return sum;
}

static void
run_entries(bench_run *run, const struct world *w, const char *group,
            const acre_entry_view **order, acre_request *rq)
{
    unsigned loops = (unsigned)bench_size(run, 20, 1);
    struct job ja = {w, order, w->n, loops, rq};
    struct job jo = {w, NULL, 0, 1, NULL};
    bench_impl impl[2] = {{"acre_entry_collective", acre_pass, &ja},
                          {"acreR_coll_entry", oracle_pass, &jo}};
    double med[2];
    char name[64];

    bench_measure(run, impl, 2, 1, med);
    snprintf(name, sizeof name, "%s/oracle", group);
    bench_row(run, name, "ns/entry", med[0] / (double)(w->n * loops),
              "acreR_coll_entry", med[1] / (double)w->nsample);
}

/* The users' views in directory order. */
static const acre_entry_view **
in_order(const struct world *w)
{
    const acre_entry_view **v =
        talloc_array(w->mem, const acre_entry_view *, w->n);

    for (size_t i = 0; v && i < w->n; i++)
        v[i] = acre_entry_view_of(w->users[i]);
    return v;
}

/* The users in a shuffled order (no two neighbours share a result). */
static const acre_entry_view **
shuffled(const struct world *w)
{
    const acre_entry_view **v = in_order(w);
    bench_rng rng = {0x636f6c6c65637476u};

    if (!v)
        return NULL;
    for (size_t i = w->n; i > 1; i--) {
        size_t k = bench_rng_below(&rng, (uint32_t)i);
        const acre_entry_view *t = v[i - 1];
        v[i - 1] = v[k];
        v[k] = t;
    }
    return v;
}

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* acre_policy_attach_subentries against acre_directory_load, by hand. */
static void
run_attach(bench_run *run, const struct world *w)
{
    unsigned reps = (unsigned)bench_size(run, 7, 1);
    double *ta = calloc(reps, sizeof(double));
    double *tl = calloc(reps, sizeof(double));

    for (unsigned r = 0; ta && tl && r < reps; r++) {
        acre_policy *q = NULL;
        acre_directory *d = NULL;
        double t0 = bench_now_ns();
        int rc =
            acre_policy_attach_subentries(NULL, w->rules, w->dir, 0, &q, NULL);
        double t1 = bench_now_ns();
        int rl = acre_directory_load(NULL, w->schema, LDIF_NAME, w->ldif,
                                     w->len, &d, NULL);
        double t2 = bench_now_ns();
        acre_policy_release(q);
        acre_directory_free(d);
        if (rc || rl) {
            bench_fail(run, "collective_attach: %s / %s", acre_strerror(rc),
                       acre_strerror(rl));
            break;
        }
        ta[r] = (t1 - t0) / 1e6;
        tl[r] = (t2 - t1) / 1e6;
    }
    if (ta && tl) {
        qsort(ta, reps, sizeof(double), cmp_double);
        qsort(tl, reps, sizeof(double), cmp_double);
        bench_row(run, "collective_attach_10k/load", "ms", ta[reps / 2],
                  "acre_directory_load", tl[reps / 2]);
    }
    free(ta);
    free(tl);
}

/* ---- the benchmark -------------------------------------------------------
 */

/* The users as a host of its own presents them (bench_host.h), in
 * directory order, and a request through its lookups; NULL when memory
 * runs out. */
static const acre_entry_view **
host_users(const struct world *w, acre_request **rq)
{
    struct bhost *h = bhost_new(w->mem, w->dir, 1);
    const acre_entry_view **v =
        h ? talloc_array(w->mem, const acre_entry_view *, w->n) : NULL;

    for (size_t i = 0; v && i < w->n; i++)
        if (!(v[i] = bhost_view(h, acre_entry_dn(w->users[i]))))
            return NULL;
    if (!v || acre_request_begin(w->p, NULL, bhost_host(h), rq))
        return NULL;
    return v;
}

static const char *const collective_groups[] = {"collective_entry_10",
                                                "collective_entry_1k",
                                                "collective_entry_10k",
                                                "collective_shuffled_10k",
                                                "collective_host_10k",
                                                "collective_attach_10k",
                                                NULL};

static int
bench_collective(bench_run *run)
{
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        const struct level *lv = &levels[i];
        char entry[64], shuf[64], host[64], attach[64];
        struct world w;

        snprintf(entry, sizeof entry, "collective_entry_%s", lv->tag);
        snprintf(shuf, sizeof shuf, "collective_shuffled_%s", lv->tag);
        snprintf(host, sizeof host, "collective_host_%s", lv->tag);
        snprintf(attach, sizeof attach, "collective_attach_%s", lv->tag);
        int big = !strcmp(lv->tag, "10k");
        if (!bench_want(run, entry) &&
            !(big && (bench_want(run, shuf) || bench_want(run, host) ||
                      bench_want(run, attach))))
            continue;
        memset(&w, 0, sizeof w);
        if (!(w.mem = talloc_new(NULL)))
            return -1;
        if (setup(run, &w, lv) != 0 || verify(run, &w, lv->tag) != 0) {
            teardown(&w);
            return -1;
        }
        bench_note(run,
                   "collective %s: %u subentries in %u areas, %zu users, "
                   "%zu entries",
                   lv->tag, lv->areas * lv->per_area, lv->areas, w.n,
                   acre_directory_count(w.dir));
        if (bench_want(run, entry))
            run_entries(run, &w, entry, in_order(&w), w.rq);
        if (big && bench_want(run, shuf)) {
            const acre_entry_view **order = shuffled(&w);
            if (order)
                run_entries(run, &w, shuf, order, w.rq);
        }
        if (big && bench_want(run, host)) {
            acre_request *hrq = NULL;
            const acre_entry_view **order = host_users(&w, &hrq);
            if (!order) {
                bench_fail(run, "collective_host: the host failed");
                teardown(&w);
                return -1;
            }
            run_entries(run, &w, host, order, hrq);
            acre_request_end(hrq);
        }
        if (big && bench_want(run, attach))
            run_attach(run, &w);
        teardown(&w);
    }
    return 0;
}

const bench_def bench_collective_def = {"collective", collective_groups,
                                        bench_collective};
