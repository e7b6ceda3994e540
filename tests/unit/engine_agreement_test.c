/*
 * engine_agreement_test.c -- the randomised agreement test of the
 * optimised engine (include/acre.h: acre_policy_compile, acre_access,
 * acre_entry_decide, acre_search) against the reference evaluator of the
 * OpenLDAP dialect (tests/oracle/openldap_oracle.h), on cases made by the
 * seeded generator (tests/oracle/openldap_gen.h).
 *
 * For each seed the same slapd.conf text is compiled by the engine and
 * parsed for the oracle, and the same LDIF is loaded twice, each side
 * over its own ACRE_SCHEMA_SLAPD schema (both parsers freeze the schema
 * they are given).  The engine answers every question twice, through the
 * two hosts a server could be: the in-memory directory (its entries'
 * views, acre_directory_host) and a test host that keeps entries in
 * structures of its own (tests/unit/test_host.h: attributes in another
 * order, without normalised values for odd seeds, views copied and
 * released per lookup); both must give the oracle's answer.  Then, for
 * every requester of the case (each in requests of its own, so that
 * states the engine caches per requester identity are met again by
 * twins of a requester):
 *   checks    of a sample of the entries (all with ACRE_AGREE_FULL):
 *             "entry" and "children", each stored attribute as a whole
 *             and each of its values (every other one asked with another
 *             spelling of the description: an alias or upper case), and a
 *             few attribute types the entry lacks, for every right from
 *             disclose to manage -- entry by entry, or for every other
 *             requester in a random order; granted and mask must be
 *             identical (and acre_explain's decision, for a sample);
 *   verdicts  acre_entry_decide(READ) of a sample of the entries against
 *             the oracle's read checks of "entry" and of every value;
 *   searches  the case's searches through acre_search and
 *             acreR_oracle_search (then the first two again, requesters
 *             in reverse order): same result code, matched DN, entries in
 *             the same order with the same attributes and values.
 * The first disagreement is printed with the seed, the requester, the
 * check, both answers, acre_explain()'s text and the oracle's trace and
 * the whole case; the case is then shrunk (rules, clauses, entries,
 * lines, connection details dropped while the disagreement stays) and
 * printed again, and the test fails.
 *
 * Environment
 *   ACRE_AGREE_SEED=s         start at seed s (one seed unless ACRE_AGREE_N)
 *   ACRE_AGREE_N=n            run n seeds
 *   ACRE_AGREE_DIR=dir        also write each reproducer to dir/seed-S[-min]
 *   ACRE_AGREE_KEEP_GOING=1   report every failing seed, fail at the end
 *   ACRE_AGREE_NO_SHRINK=1    do not shrink failing cases
 *   ACRE_AGREE_FULL=1         check every entry for every requester
 *   ACRE_AGREE_VERBOSE=1      print what each test compared
 *
 * A run cannot pass vacuously: each test asserts a floor on what it
 * compared and that granted and denied outcomes both occurred in a
 * meaningful proportion; at most 5% of generated policies may be refused
 * by the parsers (a refusal is a generator bug, the next seed is used).
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>
#include <time.h>

#include "acre.h"
#include "directory.h"
#include "entry.h"
#include "openldap.h"
#include "openldap_gen.h"
#include "openldap_oracle.h"
#include "schema.h"
#include "test_host.h"

/* Seeds each test runs by default (1..n): about 5, 1.5 and 1.5 s of CPU in
 * an optimised build.  Under AddressSanitizer, whose allocator slows the
 * C library's regex engine (the oracle's) fourfold, the first half of
 * them: the sanitizer build is there to catch memory errors, the
 * optimised one to cover policies. */
#if defined(__SANITIZE_ADDRESS__)
#define SEED_DIVISOR 2
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SEED_DIVISOR 2
#endif
#endif
#ifndef SEED_DIVISOR
#define SEED_DIVISOR 1
#endif
#define CHECK_SEEDS    (30 / SEED_DIVISOR)
#define VERDICT_SEEDS  (80 / SEED_DIVISOR)
#define SEARCH_SEEDS   (80 / SEED_DIVISOR)
#define MAX_REJECT_PCT 5

/* (requester, entry) pairs a seed checks by default, spread evenly over
 * the requesters and drawn at random from the entries; ACRE_AGREE_FULL
 * checks them all.  The reference evaluator compiles every regex per
 * check with the C library, which bounds how much fits in a unit run:
 * more seeds with fewer pairs see more policies. */
#define CHECK_PAIRS   40
#define VERDICT_PAIRS 96

/* One check in this many is also told by acre_explain, whose decision
 * must be the same. */
#define EXPLAIN_EVERY 16

enum mode { M_COMPILE, M_CHECK, M_VERDICT, M_SEARCH };

static const char *const right_names[] = {
    "?",    "disclose", "auth",   "compare", "search",
    "read", "add",      "delete", "write",   "manage"};

/* Attribute types checked on entries that lack them. */
static const char *const absent_types[] = {
    "userPassword", "member", "title", "description", "memberURL", "seeAlso"};

struct stats {
    unsigned long seeds, tried, rejected;
    unsigned long compared;        /* checks, values, searches */
    unsigned long granted, denied; /* the oracle's outcomes */
    unsigned long returned;        /* search entries */
    unsigned long failures;
};

/* Both sides of one case. */
struct world {
    void *ctx;
    const struct acreG_case *c;
    char *conf, *ldif;
    acre_schema *es, *os;
    acre_policy *pol;
    acre_directory *edir;
    struct acreI_policy *cfg;
    struct acreE_dir *odir;
    unsigned search_limit; /* searches run per requester */
    unsigned n;            /* entries, paired in the oracle's walk order */
    const struct acreE_entry **oe;
    const acre_entry **ee;
    struct thost *th;           /* the engine's entries in a host of its own */
    const acre_entry_view **hv; /* [n] their views there */
};

/* The engine's two paths: the directory's views and the test host's. */
enum { P_DIR, P_HOST, NPATHS };

static const char *const path_names[NPATHS] = {"directory host", "test host"};

enum { W_OK, W_REJECTED, W_DISAGREE, W_FAIL };

/* One requester on both sides (the engine: one request per path). */
struct sess {
    acre_request *rq[NPATHS];
    struct acreR_oracle *o;
    const struct acreG_requester *g;
};

/* What failed, precisely enough to replay it on a shrunk case. */
struct item {
    enum mode kind;
    unsigned rq;
    char *entry; /* normalised DN */
    char *attr;  /* description or type name, as asked */
    char *desc;  /* the stored attribute's description, or NULL */
    char *val;   /* NULL: attribute level */
    size_t val_len;
    int right;
    unsigned search;
};

/* ------------------------------------------------------------------------
 * Environment
 */

static int
env_flag(const char *name)
{
    const char *s = getenv(name);
    return s && *s && strcmp(s, "0") != 0;
}

static void
seed_range(unsigned def, uint64_t *first, unsigned *n)
{
    const char *s = getenv("ACRE_AGREE_SEED");
    const char *nn = getenv("ACRE_AGREE_N");

    *first = s && *s ? strtoull(s, NULL, 0) : 1;
    *n = nn && *nn ? (unsigned)strtoul(nn, NULL, 0) : (s && *s ? 1 : def);
    if (*n == 0)
        *n = 1;
}

static double
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------------------
 * The world: policy and directory on both sides
 */

struct collect {
    struct world *w;
    unsigned cap;
};

static int
collect(void *arg, const struct acreE_entry *e)
{
    struct collect *k = arg;
    struct world *w = k->w;

    if (w->n == k->cap) {
        k->cap = k->cap ? 2 * k->cap : 64;
        w->oe =
            talloc_realloc(w->ctx, w->oe, const struct acreE_entry *, k->cap);
        cr_assert(w->oe);
    }
    w->oe[w->n++] = e;
    return 0;
}

static void
world_close(struct world *w)
{
    if (w->th)
        cr_expect_eq(thost_outstanding(w->th), 0,
                     "the engine kept %ld host views",
                     thost_outstanding(w->th));
    if (w->pol)
        acre_policy_release(w->pol);
    if (w->edir)
        acre_directory_free(w->edir);
    talloc_free(w->ctx);
    memset(w, 0, sizeof(*w));
}

static int
compile_both(struct world *w, char **why)
{
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "agree.conf", w->conf,
                       strlen(w->conf)};
    acre_diag ed = {0}, od = {0};
    int erc = acre_policy_compile(NULL, w->es, &src, 1, 0, &w->pol, &ed);
    int orc = acreO_parse_conf(w->ctx, w->os, "agree.conf", w->conf,
                               strlen(w->conf), &w->cfg, &od);

    if (erc)
        w->pol = NULL;
    if (!erc && !orc)
        return W_OK;
    *why = talloc_asprintf(
        w->ctx, "engine compile: %s (%u:%u %s); oracle parse: %s (%u:%u %s)",
        erc ? acre_strerror(erc) : "ok", ed.line, ed.column, ed.message,
        orc ? acre_strerror(orc) : "ok", od.line, od.column, od.message);
    return erc && orc ? W_REJECTED : W_DISAGREE;
}

static int
load_both(struct world *w, char **why)
{
    acre_diag ed = {0}, od = {0};
    size_t len = strlen(w->ldif);
    int erc = acre_directory_load(w->ctx, w->es, "agree.ldif", w->ldif, len,
                                  &w->edir, &ed);
    int orc = acreE_dir_new(w->ctx, w->os, 0, &w->odir);

    if (erc)
        w->edir = NULL;
    if (!orc)
        orc = acreE_dir_load_ldif(w->odir, NULL, w->ldif, len, "agree.ldif",
                                  NULL, NULL, &od);
    if (!erc && !orc)
        return W_OK;
    *why =
        talloc_asprintf(w->ctx,
                        "engine load: %s (line %u: %s); oracle load: %s "
                        "(line %u: %s)",
                        erc ? acre_strerror(erc) : "ok", ed.line, ed.message,
                        orc ? acre_strerror(orc) : "ok", od.line, od.message);
    return erc && orc ? W_FAIL : W_DISAGREE;
}

/* Pair the entries: the oracle's walk of every tree, each found in the
 * engine's directory by its DN. */
static int
pair_entries(struct world *w, char **why)
{
    struct collect k = {w, 0};
    size_t nroots;
    const struct acreE_entry *const *roots =
        acreE_dir_suffixes(w->odir, &nroots);

    for (size_t i = 0; i < nroots; i++)
        acreE_dir_walk(w->odir, roots[i]->v.dn, ACRE_SCOPE_SUB, collect, &k);
    if (acre_directory_count(w->edir) != w->n ||
        acreE_dir_count(w->odir) != w->n) {
        *why = talloc_asprintf(w->ctx, "entry counts: engine %zu, oracle %u",
                               acre_directory_count(w->edir), w->n);
        return W_DISAGREE;
    }
    w->ee = talloc_array(w->ctx, const acre_entry *, w->n + 1);
    w->hv = talloc_array(w->ctx, const acre_entry_view *, w->n + 1);
    cr_assert(w->ee && w->hv);
    /* odd seeds: no normalised values; views copied per lookup always */
    w->th = thost_new(w->ctx, w->edir, w->c->seed * 7 + 1,
                      THOST_COPY | (w->c->seed & 1 ? THOST_NO_NORMS : 0));
    for (unsigned i = 0; i < w->n; i++) {
        size_t len;
        const char *s = acre_dn_normalised(w->oe[i]->v.dn, &len);
        acre_dn *dn = NULL;
        if (acre_dn_parse(w->ctx, w->es, s, len, 0, &dn, NULL) ||
            !(w->ee[i] = acre_directory_find(w->edir, dn)) ||
            !(w->hv[i] = thost_view(w->th, dn))) {
            *why = talloc_asprintf(w->ctx, "engine lacks entry %s", s);
            return W_DISAGREE;
        }
    }
    return W_OK;
}

static int
world_open(struct world *w, const struct acreG_case *c, char **why)
{
    int rc;

    memset(w, 0, sizeof(*w));
    w->ctx = talloc_new(NULL);
    w->c = c;
    w->conf = acreG_conf(w->ctx, c);
    w->ldif = acreG_ldif(w->ctx, c);
    cr_assert(w->ctx && w->conf && w->ldif);
    cr_assert_eq(acre_schema_new(w->ctx, ACRE_SCHEMA_SLAPD, &w->es, NULL), 0);
    cr_assert_eq(acre_schema_new(w->ctx, ACRE_SCHEMA_SLAPD, &w->os, NULL), 0);
    *why = NULL;
    if ((rc = compile_both(w, why)) || (rc = load_both(w, why)))
        return rc;
    return pair_entries(w, why);
}

/* ------------------------------------------------------------------------
 * Requesters
 */

static int
sess_open(struct world *w, const struct acreG_requester *g, struct sess *s,
          char **why)
{
    acre_subject sub = {g->authz_dn, g->authc_dn, g->peername, g->sockname,
                        g->sockurl,  g->domain,   g->ssf,      g->transport_ssf,
                        g->tls_ssf,  g->sasl_ssf, NULL,        0};
    struct acreR_requester orq = {
        g->authz_dn, g->authc_dn, g->peername,      g->sockname, g->sockurl,
        g->domain,   g->ssf,      g->transport_ssf, g->tls_ssf,  g->sasl_ssf};
    int erc = acre_request_begin(w->pol, &sub, acre_directory_host(w->edir),
                                 &s->rq[P_DIR]);
    int orc = acreR_oracle_new(w->ctx, w->cfg, w->odir, &orq, &s->o);

    s->g = g;
    if (erc)
        s->rq[P_DIR] = NULL;
    else if ((erc = acre_request_begin(w->pol, &sub, thost_host(w->th),
                                       &s->rq[P_HOST])) != 0) {
        acre_request_end(s->rq[P_DIR]);
        s->rq[P_DIR] = s->rq[P_HOST] = NULL;
    }
    if (orc)
        s->o = NULL;
    if (!erc && !orc)
        return W_OK;
    *why = talloc_asprintf(w->ctx, "requester: engine %s, oracle %s",
                           erc ? acre_strerror(erc) : "ok",
                           orc ? acre_strerror(orc) : "ok");
    return erc && orc ? W_REJECTED : W_DISAGREE;
}

static void
sess_close(struct sess *s)
{
    for (int p = 0; p < NPATHS; p++)
        if (s->rq[p])
            acre_request_end(s->rq[p]);
    talloc_free(s->o);
    memset(s, 0, sizeof(*s));
}

/* ------------------------------------------------------------------------
 * Checks
 */

/* One target of an entry: a stored attribute (index ai of the oracle's
 * entry, with value vj or as a whole: -1) or a type by name ("entry",
 * "children", an absent type: ai -1). */
struct target {
    const char *attr; /* NUL-terminated description or type name */
    int ai, vj;
};

struct answer {
    int rc; /* engine: acre_access's return; oracle: granted */
    uint32_t mask;
};

/* The oracle's attribute of a target, or NULL. */
static const acre_view_attr *
tg_attr(const struct world *w, unsigned k, const struct target *tg)
{
    return tg->ai < 0 ? NULL : &w->oe[k]->v.attrs[tg->ai];
}

/* The stored value of a target, or NULL (*len 0). */
static const void *
tg_val(const struct world *w, unsigned k, const struct target *tg, size_t *len)
{
    const acre_view_attr *a = tg_attr(w, k, tg);

    *len = a && tg->vj >= 0 ? a->vals[tg->vj].len : 0;
    return a && tg->vj >= 0 ? a->vals[tg->vj].val : NULL;
}

static int
oracle_target(struct world *w, struct sess *s, unsigned k,
              const struct target *tg, struct acreR_target *t)
{
    const acre_entry_view *e = &w->oe[k]->v;

    if (tg->ai >= 0) {
        acreR_target_attr(t, w->os, e, &e->attrs[tg->ai], tg->vj);
        return 0;
    }
    return acreR_target_type(s->o, t, e, tg->attr) < 0 ? -1 : 0;
}

/* The engine's view of entry k on path p. */
static const acre_entry_view *
eview(const struct world *w, unsigned k, int p)
{
    return p == P_DIR ? acre_entry_view_of(w->ee[k]) : w->hv[k];
}

static char *
mask_text(void *ctx, uint32_t mask)
{
    char buf[ACRE_MASK_BUF];
    return talloc_strdup(ctx, acre_mask_format(mask, buf));
}

static char *
value_text(struct world *w, unsigned k, const struct target *tg)
{
    size_t len;
    const void *v = tg_val(w, k, tg, &len);

    if (!v)
        return talloc_strdup(w->ctx, "(attribute)");
    return talloc_asprintf(w->ctx, "\"%.*s\"", (int)len, (const char *)v);
}

/* The full story of one check on path p: both answers, explain and
 * trace. */
static char *
check_story(struct world *w, struct sess *s, unsigned k, int p,
            const struct target *tg, int right, const struct answer *ea,
            const struct answer *oa)
{
    struct acreR_target t;
    char *trace = NULL;
    uint32_t m = 0;
    int eg = -1;
    size_t vl;
    const void *val = tg_val(w, k, tg, &vl);
    char *ex =
        acre_explain(s->rq[p], eview(w, k, p), tg->attr, val, vl, right, &eg);

    if (!oracle_target(w, s, k, tg, &t))
        acreR_oracle_check(s->o, &t, (enum acreI_access)right, &m, &trace);
    char *txt = talloc_asprintf(
        w->ctx,
        "check: entry \"%s\" attr %s value %s right %s (through the %s)\n"
        "engine: %s (rc %d), mask %s\n"
        "oracle: %s, mask %s\n"
        "---- engine explain (granted %d) ----\n%s"
        "---- oracle trace ----\n%s",
        acre_dn_normalised(w->oe[k]->v.dn, NULL), tg->attr,
        value_text(w, k, tg), right_names[right], path_names[p],
        ea->rc == 1 ? "granted" : "denied", ea->rc, mask_text(w->ctx, ea->mask),
        oa->rc ? "granted" : "denied", mask_text(w->ctx, oa->mask), eg,
        ex ? ex : "(none)\n", trace ? trace : "(none)\n");
    free(ex);
    return txt;
}

/* Ask the oracle and the engine on both paths; 0 agree, 1 disagree
 * (story in *why). */
static int
compare_check(struct world *w, struct sess *s, unsigned k,
              const struct target *tg, int right, struct stats *st, char **why)
{
    struct acreR_target t;
    struct answer oa = {0, 0};
    size_t vl;
    const void *val = tg_val(w, k, tg, &vl);

    if (oracle_target(w, s, k, tg, &t))
        return 0;
    oa.rc =
        acreR_oracle_check(s->o, &t, (enum acreI_access)right, &oa.mask, NULL);
    st->compared++;
    if (oa.rc)
        st->granted++;
    else
        st->denied++;
    for (int p = 0; p < NPATHS; p++) {
        struct answer ea = {0, 0};
        ea.rc = acre_access(s->rq[p], eview(w, k, p), tg->attr, val, vl, right,
                            &ea.mask);
        int explained = ea.rc == 1;
        if (st->compared % EXPLAIN_EVERY == 0) { /* explain decides alike */
            char *ex = acre_explain(s->rq[p], eview(w, k, p), tg->attr, val, vl,
                                    right, &explained);
            cr_assert(ex);
            free(ex);
        }
        if ((ea.rc == 1) != (oa.rc == 1) || ea.rc < 0 || ea.mask != oa.mask ||
            (explained == 1) != (oa.rc == 1)) {
            *why = check_story(w, s, k, p, tg, right, &ea, &oa);
            return 1;
        }
    }
    return 0;
}

static void
fill_item(struct world *w, struct item *it, unsigned k, const struct target *tg,
          int right)
{
    size_t vl;
    const void *val = tg_val(w, k, tg, &vl);

    it->entry = talloc_strdup(NULL, acre_dn_normalised(w->oe[k]->v.dn, NULL));
    it->attr = talloc_strdup(it->entry, tg->attr);
    it->desc = tg->ai >= 0 ? talloc_strndup(it->entry, w->oe[k]->desc[tg->ai],
                                            w->oe[k]->desc_len[tg->ai])
                           : NULL;
    it->val = val ? talloc_memdup(it->entry, val, vl) : NULL;
    it->val_len = vl;
    it->right = right;
}

/* The description a host might pass for attribute i of entry e: as
 * stored most of the time; for every other value a name's other spelling
 * (an alias, or upper case), which must make no difference. */
static const char *
desc_variant(void *ctx, const struct acreE_entry *e, unsigned i, unsigned j)
{
    static const char *const alias[][2] = {{"cn", "commonName"},
                                           {"sn", "surname"},
                                           {"uid", "userid"},
                                           {"mail", "rfc822Mailbox"},
                                           {"gn", "givenName"},
                                           {"o", "organizationName"},
                                           {"ou", "organizationalUnitName"}};
    char *d = talloc_strndup(ctx, e->desc[i], e->desc_len[i]);
    size_t n = strcspn(d, ";");

    if (!d || j % 2 == 0)
        return d;
    for (size_t a = 0; a < sizeof(alias) / sizeof(alias[0]); a++)
        if (strlen(alias[a][0]) == n && !strncasecmp(d, alias[a][0], n))
            return talloc_asprintf(ctx, "%s%s", alias[a][1], d + n);
    for (char *p = d; *p; p++)
        if (*p >= 'a' && *p <= 'z')
            *p = (char)(*p - 'a' + 'A');
    return d;
}

/* The targets of entry k: "entry", "children", each stored attribute as
 * a whole and each value, and the absent types. */
struct task {
    unsigned k;
    struct target tg;
};

struct tasks {
    struct task *v;
    unsigned n, cap;
};

static void
add_task(struct world *w, struct tasks *ts, unsigned k, const char *attr,
         int ai, int vj)
{
    if (ts->n == ts->cap) {
        ts->cap = ts->cap ? 2 * ts->cap : 256;
        ts->v = talloc_realloc(w->ctx, ts->v, struct task, ts->cap);
        cr_assert(ts->v);
    }
    ts->v[ts->n].k = k;
    ts->v[ts->n].tg.attr = attr;
    ts->v[ts->n].tg.ai = ai;
    ts->v[ts->n].tg.vj = vj;
    ts->n++;
}

/* Does e store an attribute of type `type` (any options)? */
static int
has_type(const acre_schema *s, const acre_entry_view *e, int type)
{
    for (unsigned i = 0; i < e->nattrs; i++)
        if (acreS_dinfo(s, e->attrs[i].id)->type == type)
            return 1;
    return 0;
}

static void
entry_tasks(struct world *w, struct sess *s, unsigned k, struct tasks *ts)
{
    const struct acreE_entry *e = w->oe[k];

    add_task(w, ts, k, "entry", -1, -1);
    add_task(w, ts, k, "children", -1, -1);
    for (uint32_t i = 0; i < e->v.nattrs; i++) {
        const acre_view_attr *a = &e->v.attrs[i];
        add_task(w, ts, k, desc_variant(w->ctx, e, i, 0), (int)i, -1);
        for (uint32_t j = 0; j < a->nvals; j++)
            add_task(w, ts, k, desc_variant(w->ctx, e, i, j), (int)i, (int)j);
    }
    for (size_t i = 0; i < sizeof(absent_types) / sizeof(absent_types[0]);
         i++) {
        struct acreR_target t;
        int type = acreR_target_type(s->o, &t, &e->v, absent_types[i]);
        if (type >= 0 && !has_type(w->os, &e->v, type))
            add_task(w, ts, k, absent_types[i], -1, -1);
    }
}

/* Every right on every target of the chosen entries: entry by entry, as
 * a server checks a search result, or (shuffled) in a random order
 * across entries, targets and rights, which defeats any cache keyed on
 * the last entry or requester state. */
static int
run_checks(struct world *w, struct sess *s, const uint8_t *chosen,
           struct acreG_rng *shuffle, struct stats *st, struct item *it,
           char **why)
{
    struct tasks ts = {NULL, 0, 0};
    const unsigned nr = ACRE_RIGHT_MANAGE - ACRE_RIGHT_DISCLOSE + 1;

    for (unsigned k = 0; k < w->n; k++)
        if (chosen[k])
            entry_tasks(w, s, k, &ts);
    uint32_t *order = talloc_array(w->ctx, uint32_t, ts.n * nr + 1);
    cr_assert(order);
    for (uint32_t i = 0; i < ts.n * nr; i++)
        order[i] = i;
    for (uint32_t i = ts.n * nr; shuffle && i > 1; i--) {
        uint32_t j = acreG_rng_below(shuffle, i), x = order[i - 1];
        order[i - 1] = order[j];
        order[j] = x;
    }
    int failed = 0;
    for (uint32_t i = 0; i < ts.n * nr && !failed; i++) {
        const struct task *t = &ts.v[order[i] / nr];
        int right = ACRE_RIGHT_DISCLOSE + (int)(order[i] % nr);
        if (compare_check(w, s, t->k, &t->tg, right, st, why)) {
            fill_item(w, it, t->k, &t->tg, right);
            failed = 1;
        }
    }
    talloc_free(order);
    talloc_free(ts.v);
    return failed;
}

/* ------------------------------------------------------------------------
 * Verdicts
 */

/* The oracle's attribute of e whose description is desc as written. */
static int
oracle_attr(const struct acreE_entry *e, const char *desc, size_t len)
{
    for (uint32_t i = 0; i < e->v.nattrs; i++)
        if (e->desc_len[i] == len && !memcmp(e->desc[i], desc, len))
            return (int)i;
    return -1;
}

static int
oracle_value(const acre_view_attr *a, const void *val, size_t len)
{
    for (uint32_t j = 0; a && j < a->nvals; j++)
        if (a->vals[j].len == len && !memcmp(a->vals[j].val, val, len))
            return (int)j;
    return -1;
}

static int
engine_readable(const acre_verdict *v, unsigned i, unsigned j)
{
    if (v->attr[i] == ACRE_ATTR_ALL)
        return 1;
    if (v->attr[i] == ACRE_ATTR_SOME)
        return v->value[v->first[i] + j] != 0;
    return 0;
}

/* Where the oracle's attribute oi value oj is in engine view ev (matched
 * by canonical description and bytes): 0 with *i, *j, or -1. */
static int
engine_place(struct world *w, unsigned k, const acre_entry_view *ev,
             unsigned oi, unsigned oj, unsigned *i, unsigned *j)
{
    const acre_view_attr *oa = &w->oe[k]->v.attrs[oi];
    const char *want = acreS_dinfo(w->os, oa->id)->text;

    for (unsigned a = 0; a < ev->nattrs; a++) {
        const acre_view_attr *ea = &ev->attrs[a];
        if (strcmp(acreS_dinfo(w->es, ea->id)->text, want))
            continue;
        int b = oracle_value(ea, oa->vals[oj].val, oa->vals[oj].len);
        if (b < 0)
            return -1;
        *i = a;
        *j = (unsigned)b;
        return 0;
    }
    return -1;
}

/* The verdict rendered as text, in the oracle's entry's order: "visible
 * N" then per attribute its readable-value bits.  ev NULL asks the oracle
 * (counting its outcomes in st); else v is ev's verdict. */
static char *
render_verdict(struct world *w, struct sess *s, unsigned k,
               const acre_entry_view *ev, const acre_verdict *v,
               struct stats *st, int *nbits)
{
    const struct acreE_entry *e = w->oe[k];
    struct acreR_target t;
    int visible = v ? v->visible : 0;

    *nbits = 0;
    if (!ev) {
        acreR_target_type(s->o, &t, &e->v, "entry");
        visible = acreR_oracle_check(s->o, &t, ACREI_ACCESS_READ, NULL, NULL);
        st->compared++;
        if (visible)
            st->granted++;
        else
            st->denied++;
    }
    char *txt = talloc_asprintf(w->ctx, "visible %d\n", visible);
    for (unsigned oi = 0; oi < e->v.nattrs; oi++) {
        const acre_view_attr *a = &e->v.attrs[oi];
        txt = talloc_asprintf_append(txt, "  %.*s:", (int)e->desc_len[oi],
                                     e->desc[oi]);
        struct acreR_astate ast = {0}; /* the values in order, as slapd */
        for (unsigned oj = 0; oj < a->nvals; oj++) {
            unsigned i, j;
            int r = 0;
            if (ev) {
                r = engine_place(w, k, ev, oi, oj, &i, &j) < 0
                        ? -1 /* the sides' entries differ */
                        : engine_readable(v, i, j);
            } else {
                acreR_target_attr(&t, w->os, &e->v, a, (int)oj);
                r = acreR_oracle_check_seq(s->o, &t, ACREI_ACCESS_READ, NULL,
                                           NULL, &ast);
                st->compared++;
                if (r > 0)
                    st->granted++;
                else
                    st->denied++;
            }
            *nbits += r > 0;
            txt = talloc_asprintf_append(txt, " %s",
                                         r < 0 ? "?"
                                         : r   ? "1"
                                               : "0");
        }
        txt = talloc_asprintf_append(txt, "\n");
    }
    return txt;
}

/* The first value (or the entry) on which path p's verdict differs, as a
 * check story. */
static char *
verdict_story(struct world *w, struct sess *s, unsigned k, int p,
              const acre_verdict *v)
{
    const struct acreE_entry *e = w->oe[k];
    const acre_entry_view *ev = eview(w, k, p);
    struct acreR_target t;
    struct answer ea = {v->visible, 0}, oa = {0, 0};
    struct target tg = {"entry", -1, -1};

    acreR_target_type(s->o, &t, &e->v, "entry");
    oa.rc = acreR_oracle_check(s->o, &t, ACREI_ACCESS_READ, &oa.mask, NULL);
    if (oa.rc != v->visible)
        return check_story(w, s, k, p, &tg, ACRE_RIGHT_READ, &ea, &oa);
    for (unsigned oi = 0; oi < e->v.nattrs; oi++) {
        const acre_view_attr *a = &e->v.attrs[oi];
        for (unsigned oj = 0; oj < a->nvals; oj++) {
            unsigned i, j;
            if (engine_place(w, k, ev, oi, oj, &i, &j))
                continue;
            acreR_target_attr(&t, w->os, &e->v, a, (int)oj);
            oa.rc =
                acreR_oracle_check(s->o, &t, ACREI_ACCESS_READ, &oa.mask, NULL);
            ea.rc = engine_readable(v, i, j);
            if (ea.rc != oa.rc) {
                tg.attr = talloc_strndup(w->ctx, e->desc[oi], e->desc_len[oi]);
                tg.ai = (int)oi;
                tg.vj = (int)oj;
                acre_access(s->rq[p], ev, tg.attr, a->vals[oj].val,
                            a->vals[oj].len, ACRE_RIGHT_READ, &ea.mask);
                return check_story(w, s, k, p, &tg, ACRE_RIGHT_READ, &ea, &oa);
            }
        }
    }
    return talloc_strdup(w->ctx, "");
}

static int
compare_verdict(struct world *w, struct sess *s, unsigned k, struct stats *st,
                char **why)
{
    int obits;
    char *otxt = render_verdict(w, s, k, NULL, NULL, st, &obits);

    for (int p = 0; p < NPATHS; p++) {
        acre_verdict v;
        int ebits;
        int rc =
            acre_entry_decide(s->rq[p], eview(w, k, p), ACRE_RIGHT_READ, &v);
        if (rc) {
            *why = talloc_asprintf(w->ctx,
                                   "verdict of \"%s\" (%s): acre_entry_decide "
                                   "returned %s\noracle:\n%s",
                                   acre_dn_normalised(w->oe[k]->v.dn, NULL),
                                   path_names[p], acre_strerror(rc), otxt);
            return 1;
        }
        char *etxt = render_verdict(w, s, k, eview(w, k, p), &v, st, &ebits);
        if (!strcmp(etxt, otxt))
            continue;
        /* an entry nobody may see: the engine need not decide its values */
        if (!v.visible && !strncmp(otxt, "visible 0", 9) && ebits == 0)
            continue;
        *why = talloc_asprintf(w->ctx,
                               "verdict of \"%s\" (read, %s) differs\n"
                               "---- engine ----\n%s---- oracle ----\n%s%s",
                               acre_dn_normalised(w->oe[k]->v.dn, NULL),
                               path_names[p], etxt, otxt,
                               verdict_story(w, s, k, p, &v));
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Searches
 *
 * Both sides render an entry as "dn: <normalised DN>" and one line per
 * attribute returned ("  <canonical description>: "v1" "v2"", values in
 * stored order), the lines sorted: hosts may order attributes as they
 * like.
 */

struct ecollect {
    struct world *w;
    char *txt;
    unsigned n;
};

static char *
append_value(char *txt, const void *val, size_t len)
{
    return talloc_asprintf_append(txt, " \"%.*s\"", (int)len,
                                  (const char *)val);
}

static int
cmp_line(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append the entry's attribute lines, sorted, to txt. */
static char *
append_sorted(void *ctx, char *txt, char **lines, unsigned n)
{
    qsort(lines, n, sizeof(lines[0]), cmp_line);
    for (unsigned i = 0; i < n; i++)
        txt = talloc_asprintf_append(txt, "%s\n", lines[i]);
    return txt;
}

static int
engine_result(void *arg, const acre_entry_view *e, const acre_verdict *v)
{
    struct ecollect *k = arg;
    char **lines = talloc_array(k->w->ctx, char *, e->nattrs + 1);
    unsigned n = 0;

    k->n++;
    k->txt = talloc_asprintf_append(k->txt, "dn: %s\n",
                                    acre_dn_normalised(e->dn, NULL));
    for (unsigned i = 0; i < e->nattrs && i < v->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        unsigned shown = 0;
        char *line =
            talloc_asprintf(lines, "  %s:", acreS_dinfo(k->w->es, a->id)->text);
        for (unsigned j = 0; j < a->nvals; j++) {
            if (!engine_readable(v, i, j))
                continue;
            line = append_value(line, a->vals[j].val, a->vals[j].len);
            shown++;
        }
        if (shown)
            lines[n++] = line;
    }
    k->txt = append_sorted(k->w->ctx, k->txt, lines, n);
    talloc_free(lines);
    return 0;
}

static char *
oracle_result(struct world *w, const struct acreR_search *r)
{
    char *txt = talloc_asprintf(w->ctx, "rc %d matched %s\n", r->rc,
                                r->matched ? r->matched : "(none)");

    for (unsigned i = 0; i < r->nentries; i++) {
        const struct acreR_sentry *se = &r->entries[i];
        char **lines = talloc_array(w->ctx, char *, se->nattrs + 1);
        txt = talloc_asprintf_append(txt, "dn: %s\n",
                                     acre_dn_normalised(se->entry->dn, NULL));
        for (unsigned j = 0; j < se->nattrs; j++) {
            const struct acreR_sattr *sa = &se->attrs[j];
            lines[j] = talloc_asprintf(
                lines, "  %s:", acreS_dinfo(w->os, sa->attr->id)->text);
            for (unsigned m = 0; m < sa->nvals; m++)
                lines[j] =
                    append_value(lines[j], sa->vals[m]->val, sa->vals[m]->len);
        }
        txt = append_sorted(w->ctx, txt, lines, se->nattrs);
        talloc_free(lines);
    }
    return txt;
}

static int
compare_search(struct world *w, struct sess *s, const struct acreG_search *q,
               struct stats *st, char **why)
{
    struct acreR_search *res = NULL;

    cr_assert_eq(acreR_oracle_search(s->o, w->ctx, q->base, q->scope, q->filter,
                                     q->attrs, q->nattrs, &res),
                 0);
    char *otxt = oracle_result(w, res);
    st->compared++;
    st->returned += res->nentries;
    if (res->nentries)
        st->granted++;
    else
        st->denied++;
    for (int p = 0; p < NPATHS; p++) {
        struct ecollect k = {w, talloc_strdup(w->ctx, ""), 0};
        int ldap_rc = -1;
        const char *matched = NULL;
        int rc = acre_search(s->rq[p], q->base, q->scope, q->filter, q->attrs,
                             q->nattrs, engine_result, &k, &ldap_rc, &matched);
        char *etxt = talloc_asprintf(w->ctx, "rc %d matched %s\n%s", ldap_rc,
                                     matched ? matched : "(none)", k.txt);
        if (!rc && !strcmp(etxt, otxt))
            continue;
        *why = talloc_asprintf(w->ctx,
                               "%s differs through the %s (acre_search "
                               "returned %s)\n"
                               "---- engine ----\n%s---- oracle ----\n%s",
                               acreG_search_text(w->ctx, q), path_names[p],
                               rc ? acre_strerror(rc) : "0", etxt, otxt);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * One requester, one mode
 */

static int
run_requester(struct world *w, struct sess *s, enum mode m,
              const uint8_t *chosen, struct acreG_rng *shuffle,
              struct stats *st, struct item *it, char **why)
{
    const struct acreG_case *c = w->c;

    switch (m) {
    case M_CHECK:
        return run_checks(w, s, chosen, shuffle, st, it, why);
    case M_VERDICT:
        for (unsigned k = 0; k < w->n; k++)
            if (chosen[k] && compare_verdict(w, s, k, st, why)) {
                it->entry = talloc_strdup(
                    NULL, acre_dn_normalised(w->oe[k]->v.dn, NULL));
                return 1;
            }
        return 0;
    case M_SEARCH:
        for (unsigned q = 0; q < c->nsearches && q < w->search_limit; q++)
            if (compare_search(w, s, &c->searches[q], st, why)) {
                it->search = q;
                return 1;
            }
        return 0;
    default:
        return 0;
    }
}

/* ------------------------------------------------------------------------
 * Replaying one failing item (for shrinking)
 */

static int
find_entry(struct world *w, const char *ndn)
{
    for (unsigned k = 0; k < w->n; k++)
        if (!strcmp(acre_dn_normalised(w->oe[k]->v.dn, NULL), ndn))
            return (int)k;
    return -1;
}

static int
replay_check(struct world *w, struct sess *s, const struct item *it,
             struct stats *st, char **why)
{
    int k = find_entry(w, it->entry);
    struct target tg = {it->attr, -1, -1};

    if (k < 0)
        return 0;
    if (it->desc) {
        tg.ai = oracle_attr(w->oe[k], it->desc, strlen(it->desc));
        if (tg.ai < 0)
            return 0;
        if (it->val && (tg.vj = oracle_value(&w->oe[k]->v.attrs[tg.ai], it->val,
                                             it->val_len)) < 0)
            return 0;
    }
    return compare_check(w, s, (unsigned)k, &tg, it->right, st, why);
}

/* Does the item still fail on case c?  1 yes (story in *why, a talloc
 * string under mem), 0 no. */
static int
replay(const struct acreG_case *c, const struct item *it, void *mem, char **why)
{
    struct world w;
    struct sess s = {0};
    struct stats st = {0};
    char *msg = NULL;
    int fails = 0;
    int rc = world_open(&w, c, &msg);

    if (rc != W_OK) {
        fails = it->kind == M_COMPILE && rc == W_DISAGREE;
    } else if (it->kind != M_COMPILE) {
        rc = sess_open(&w, &c->rq[it->rq], &s, &msg);
        if (rc == W_DISAGREE) {
            fails = 1;
        } else if (rc == W_OK) {
            int k;
            switch (it->kind) {
            case M_CHECK:
                fails = replay_check(&w, &s, it, &st, &msg);
                break;
            case M_VERDICT:
                k = find_entry(&w, it->entry);
                fails =
                    k >= 0 && compare_verdict(&w, &s, (unsigned)k, &st, &msg);
                break;
            default:
                fails =
                    compare_search(&w, &s, &c->searches[it->search], &st, &msg);
                break;
            }
        }
        sess_close(&s);
    }
    if (fails && why)
        *why = talloc_strdup(mem, msg ? msg : "");
    world_close(&w);
    return fails;
}

/* ------------------------------------------------------------------------
 * Shrinking
 */

static int
try_omit(struct acreG_case *c, const struct item *it, uint8_t *flag)
{
    *flag = 1;
    if (replay(c, it, NULL, NULL))
        return 1;
    *flag = 0;
    return 0;
}

static int
shrink_rules(struct acreG_case *c, const struct item *it)
{
    int changed = 0;

    for (unsigned i = 0; i < c->nrules; i++) {
        struct acreG_rule *r = &c->rules[i];
        if (!r->omit && try_omit(c, it, &r->omit))
            changed = 1;
        for (unsigned j = 0; !r->omit && j < r->nby; j++) {
            unsigned left = 0;
            for (unsigned x = 0; x < r->nby; x++)
                left += !r->omit_by[x];
            if (!r->omit_by[j] && left > 1 && try_omit(c, it, &r->omit_by[j]))
                changed = 1;
        }
    }
    return changed;
}

/* Lines slapadd needs: objectClass, the naming attribute and the
 * attributes the generated classes require -- the first of each kind in
 * an entry is kept, so that a shrunk LDIF still loads into slapd. */
static int
needed_line(const struct acreG_entry *e, unsigned j)
{
    static const char *const must[] = {
        "objectClass", "cn", "sn", "ou", "dc", "o", "member", "uniqueMember"};
    const char *l = e->lines[j], *colon = strchr(l, ':');
    size_t n = colon ? (size_t)(colon - l) : strlen(l);
    size_t rn = strcspn(e->dn, "=");
    int keep = rn == n && !strncasecmp(e->dn, l, n);

    if (n == 11 && !strncasecmp(l, "objectClass", 11))
        return 1; /* every one: a structural class and its auxiliaries */

    for (size_t i = 0; !keep && i < sizeof(must) / sizeof(must[0]); i++)
        keep = strlen(must[i]) == n && !strncasecmp(must[i], l, n);
    for (unsigned k = 0; keep && k < j; k++) /* a later one may go */
        if (!strncasecmp(e->lines[k], l, n) && e->lines[k][n] == ':' &&
            !e->omit_line[k])
            return 0;
    return keep;
}

static int
shrink_entries(struct acreG_case *c, const struct item *it)
{
    int changed = 0;

    for (unsigned i = c->nentries; i-- > 0;) {
        struct acreG_entry *e = &c->entries[i];
        if (!e->omit && try_omit(c, it, &e->omit))
            changed = 1;
        for (unsigned j = 0; !e->omit && j < e->nlines; j++)
            if (!e->omit_line[j] && !needed_line(e, j) &&
                try_omit(c, it, &e->omit_line[j]))
                changed = 1;
    }
    return changed;
}

/* Drop connection details and the proxy one at a time. */
static void
shrink_requester(struct acreG_case *c, const struct item *it)
{
    struct acreG_requester *g = &c->rq[it->rq];
    const char **strs[] = {&g->peername, &g->sockname, &g->sockurl, &g->domain,
                           &g->authc_dn};
    unsigned *nums[] = {&g->ssf, &g->transport_ssf, &g->tls_ssf, &g->sasl_ssf};

    for (size_t i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
        const char *old = *strs[i];
        *strs[i] = NULL;
        if (old && !replay(c, it, NULL, NULL))
            *strs[i] = old;
    }
    for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
        unsigned old = *nums[i];
        *nums[i] = 0;
        if (old && !replay(c, it, NULL, NULL))
            *nums[i] = old;
    }
}

static void
shrink(struct acreG_case *c, const struct item *it)
{
    for (int round = 0; round < 4; round++) {
        int changed = shrink_rules(c, it);
        changed |= shrink_entries(c, it);
        if (!changed)
            break;
    }
    if (it->kind != M_COMPILE)
        shrink_requester(c, it);
}

/* ------------------------------------------------------------------------
 * Reporting a failure
 */

static void
write_dir(const struct acreG_case *c, const struct acreG_requester *g,
          const char *story, const char *suffix)
{
    const char *dir = getenv("ACRE_AGREE_DIR");
    char path[4096];

    if (!dir || !*dir)
        return;
    snprintf(path, sizeof(path), "%s/seed-%llu%s", dir,
             (unsigned long long)c->seed, suffix);
    if (acreG_write_reproducer(c, g, story, path, NULL))
        fprintf(stderr, "agreement: cannot write %s\n", path);
    else
        fprintf(stderr, "agreement: reproducer written to %s\n", path);
}

static void
report(struct acreG_case *c, struct item *it, const char *story)
{
    const struct acreG_requester *g =
        it->kind == M_COMPILE ? NULL : &c->rq[it->rq];
    static const char *const kinds[] = {"compile", "check", "verdict",
                                        "search"};
    void *tmp = talloc_new(NULL);

    fprintf(stderr,
            "\n######## agreement: %s mismatch, seed %llu "
            "(rerun: ACRE_AGREE_SEED=%llu) ########\n"
            "requester: %s\n%s\n",
            kinds[it->kind], (unsigned long long)c->seed,
            (unsigned long long)c->seed, g ? acreG_requester_text(tmp, g) : "-",
            story);
    acreG_write_reproducer(c, g, story, NULL, stderr);
    write_dir(c, g, story, "");
    if (!replay(c, it, NULL, NULL)) {
        fprintf(stderr, "agreement: asked alone on a fresh request, the "
                        "sides agree: the disagreement depends on what the "
                        "request (or the policy's cache) saw before\n");
    } else if (!env_flag("ACRE_AGREE_NO_SHRINK")) {
        char *min = NULL;
        shrink(c, it);
        if (replay(c, it, tmp, &min)) {
            fprintf(stderr, "######## shrunk reproducer, seed %llu ########\n",
                    (unsigned long long)c->seed);
            acreG_write_reproducer(c, g, min, NULL, stderr);
            write_dir(c, g, min, "-min");
        }
    }
    fflush(stderr);
    talloc_free(tmp);
}

/* ------------------------------------------------------------------------
 * One seed, one test
 */

/* Which entries requester r of the case checks: `pairs` spread over
 * the requesters, at least two each, drawn by a PRNG of the seed. */
static void
choose_entries(const struct world *w, uint64_t seed, unsigned r, unsigned pairs,
               uint8_t *chosen)
{
    struct acreG_rng rng;
    unsigned nrq = w->c->nrq ? w->c->nrq : 1;
    unsigned want = pairs / nrq < 2 ? 2 : pairs / nrq;

    memset(chosen, 0, w->n);
    if (!pairs || want >= w->n || env_flag("ACRE_AGREE_FULL")) {
        memset(chosen, 1, w->n);
        return;
    }
    acreG_rng_seed(&rng, seed * 0x9e3779b97f4a7c15ull + r + 1);
    for (unsigned got = 0; got < want;) {
        unsigned k = acreG_rng_below(&rng, w->n);
        if (!chosen[k])
            chosen[k] = 1, got++;
    }
}

/* Run seed's case in mode m.  Returns 0 done, 1 the parsers refused the
 * policy (a generator bug, counted), 2 a disagreement (reported). */
static int
run_seed(uint64_t seed, enum mode m, struct stats *st)
{
    void *ctx = talloc_new(NULL);
    struct acreG_case *c = NULL;
    struct world w;
    struct item it;
    char *why = NULL;
    int result = 0;

    memset(&it, 0, sizeof(it));
    cr_assert_eq(acreG_case_new(ctx, seed, &c), 0);
    int rc = world_open(&w, c, &why);
    if (rc == W_REJECTED) {
        fprintf(stderr, "agreement: seed %llu: policy refused by both: %s\n",
                (unsigned long long)seed, why);
        world_close(&w);
        talloc_free(ctx);
        return 1;
    }
    if (rc != W_OK) {
        it.kind = M_COMPILE;
        char *story = talloc_asprintf(ctx, "%s", why ? why : "");
        world_close(&w);
        if (rc == W_FAIL)
            cr_assert_fail("seed %llu: generated case unusable: %s",
                           (unsigned long long)seed, story);
        report(c, &it, story);
        talloc_free(ctx);
        return 2;
    }
    uint8_t *chosen = talloc_array(ctx, uint8_t, w.n + 1);
    cr_assert(chosen);
    /* searches run twice: the second pass, in reverse order, meets the
     * requesters' state cached in the policy by the first */
    unsigned steps = m == M_SEARCH ? 2 * c->nrq : c->nrq;
    for (unsigned i = 0; i < steps && !result; i++) {
        unsigned r = i < c->nrq ? i : 2 * c->nrq - 1 - i;
        struct sess s = {0};
        choose_entries(&w, seed, r,
                       m == M_CHECK     ? CHECK_PAIRS
                       : m == M_VERDICT ? VERDICT_PAIRS
                                        : 0,
                       chosen);
        struct acreG_rng shuffle;
        acreG_rng_seed(&shuffle, seed * 31 + r);
        w.search_limit = i < c->nrq ? c->nsearches : 2;
        rc = sess_open(&w, &c->rq[r], &s, &why);
        if (rc == W_OK && run_requester(&w, &s, m, chosen,
                                        r % 2 ? &shuffle : NULL, st, &it, &why))
            rc = W_DISAGREE;
        sess_close(&s);
        if (rc == W_DISAGREE) {
            it.kind = m;
            it.rq = r;
            char *story = talloc_strdup(ctx, why);
            world_close(&w);
            report(c, &it, story);
            result = 2;
        }
    }
    if (!result)
        world_close(&w);
    talloc_free(it.entry);
    talloc_free(ctx);
    return result;
}

struct floors {
    unsigned long per_seed; /* compared, per seed */
    unsigned pct;           /* granted and denied, each at least */
};

static void
run(enum mode m, const char *name, unsigned def_seeds, struct floors fl)
{
    struct stats st;
    uint64_t first;
    unsigned want;
    double t0 = now();

    memset(&st, 0, sizeof(st));
    seed_range(def_seeds, &first, &want);
    for (uint64_t seed = first; st.seeds < want && st.tried < 2ul * want + 10;
         seed++) {
        st.tried++;
        int rc = run_seed(seed, m, &st);
        if (rc == 1) {
            st.rejected++;
            continue;
        }
        st.seeds++;
        if (rc == 2) {
            st.failures++;
            cr_assert(env_flag("ACRE_AGREE_KEEP_GOING"),
                      "%s: engine and oracle disagree on seed %llu (details "
                      "above; rerun with ACRE_AGREE_SEED=%llu)",
                      name, (unsigned long long)seed, (unsigned long long)seed);
        }
    }
    if (env_flag("ACRE_AGREE_VERBOSE"))
        fprintf(stderr,
                "agreement %s: %lu seeds from %llu (%lu refused), %lu "
                "compared, %lu granted, %lu denied, %lu entries returned, "
                "%lu failing seeds, %.2f s\n",
                name, st.seeds, (unsigned long long)first, st.rejected,
                st.compared, st.granted, st.denied, st.returned, st.failures,
                now() - t0);
    cr_assert_eq(st.failures, 0, "%s: %lu seeds disagree", name, st.failures);
    cr_assert_leq(st.rejected * 100, st.tried * MAX_REJECT_PCT,
                  "%s: %lu of %lu generated policies refused", name,
                  st.rejected, st.tried);
    cr_assert_geq(st.compared, fl.per_seed * st.seeds,
                  "%s: only %lu compared over %lu seeds", name, st.compared,
                  st.seeds);
    cr_assert_geq(st.granted * 100, st.compared * fl.pct,
                  "%s: only %lu of %lu granted", name, st.granted, st.compared);
    cr_assert_geq(st.denied * 100, st.compared * fl.pct,
                  "%s: only %lu of %lu denied", name, st.denied, st.compared);
}

Test(agreement, checks)
{
    run(M_CHECK, "checks", CHECK_SEEDS, (struct floors){1000, 5});
}

Test(agreement, verdicts)
{
    run(M_VERDICT, "verdicts", VERDICT_SEEDS, (struct floors){300, 5});
}

Test(agreement, searches)
{
    run(M_SEARCH, "searches", SEARCH_SEEDS, (struct floors){10, 5});
}
