/*
 * aci_oracle_agree_test.c -- the ACI agreement test: the generator's
 * cases (tests/oracle/aci_gen.h) parsed by the ACI front end
 * (compiler/aci.h: acreA_parse_ldif) and run through the reference
 * evaluator (tests/oracle/aci_oracle.h) and through the engine as a host
 * uses it (acre_policy_compile, an acre_directory host, acre_search): for
 * every requester and search both must return the same entries with the
 * same attributes, in the same order.  It also asserts that the pieces
 * fit and that the cases exercise both outcomes:
 *   - the parser accepts (almost) every generated value: at most 5% of
 *     the cases may be refused (a refusal is a generator or parser bug,
 *     printed with its diagnostic);
 *   - every search of every requester runs; the directory manager's
 *     results are exactly the entries in scope that match the filter
 *     (the rootdn bypasses access control; with an extensible item, a
 *     subset: 389's access_check_done), every other requester's are
 *     a subset of them, and every attribute returned is one read is
 *     allowed on;
 *   - searches return entries and return none, read checks are allowed
 *     and denied, entries are visible and hidden, each in a meaningful
 *     proportion, so that a broken oracle or generator cannot pass.
 *
 * The second test does the same for the OpenDJ variant: the generator's
 * OpenDJ cases (targetscope; no roles, no macros) parsed, compiled
 * (ACRE_COMPILE_ACI_OPENDJ) and decided as OpenDJ does, against the
 * oracle's OpenDJ side (tests/oracle/aci_oracle_dj.c).
 *
 * Environment: ACRE_ACI_AGREE_SEED=s (first seed), ACRE_ACI_AGREE_N=n
 * (seeds), ACRE_ACI_AGREE_DJ_N=n (OpenDJ seeds), ACRE_ACI_AGREE_VERBOSE=1
 * (print the counts).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include <time.h>

#include "aci.h"
#include "aci_gen.h"
#include "aci_oracle.h"
#include "acre.h"
#include "directory.h"
#include "filter.h"
#include "ir.h"
#include "schema.h"

#define DEFAULT_SEEDS    2000
#define DEFAULT_DJ_SEEDS 500

/* The variant the worlds are built for: ACREG_ACI_389 or _OPENDJ. */
static int variant = ACREG_ACI_389;
#define MAX_REJECT_PCT 5

struct stats {
    unsigned long seeds, rejected, searches, nonempty, empty, returned;
    unsigned long allowed, denied, visible, hidden, agreed;
};

/* One parsed case: its directory and its ACI set (with the rootdn), and
 * the engine's policy and directory built from the same text. */
struct world {
    void *ctx;
    struct acreG_aci_case *c;
    acre_schema *schema;
    struct acreE_dir *dir;
    struct acreI_aci_set set;
    acre_policy *pol;
    acre_directory *edir;
    const char *ldif; /* the case, printed with a disagreement */
};

static unsigned long
env_num(const char *name, unsigned long dflt)
{
    const char *s = getenv(name);

    return s && *s ? strtoul(s, NULL, 10) : dflt;
}

/* Build the world of seed; 0, or 1 when the parser refused the case. */
static int
world_new(struct world *w, uint64_t seed)
{
    acre_diag d;
    struct acreI_policy *ir;
    acre_dn *root;

    memset(w, 0, sizeof(*w));
    w->ctx = talloc_new(NULL);
    cr_assert_eq(acreG_aci_case_new(w->ctx, seed, variant, &w->c), 0);
    char *ldif = acreG_aci_ldif(w->ctx, w->c);
    cr_assert(ldif);
    w->ldif = ldif;
    /* the schema the engine's policy makes for itself (compiler/policy.c):
     * matching by syntax, 389's types for the 389 variant */
    cr_assert_eq(acre_schema_new(
                     w->ctx,
                     ACRE_SCHEMA_SYNTAX_MATCH |
                         (variant == ACREG_ACI_OPENDJ ? 0u : ACRE_SCHEMA_389),
                     &w->schema, NULL),
                 0);
    cr_assert_eq(acreE_dir_new(w->ctx, w->schema, 0, &w->dir), 0);
    cr_assert_eq(acreE_dir_load_ldif(w->dir, NULL, ldif, strlen(ldif),
                                     "gen.ldif", NULL, NULL, &d),
                 0, "seed %llu: %s", (unsigned long long)seed, d.message);
    int rc = acreA_parse_ldif(w->ctx, w->schema, "gen.ldif", ldif, strlen(ldif),
                              variant == ACREG_ACI_OPENDJ ? ACREI_ACI_OPENDJ
                                                          : ACREI_ACI_389,
                              &ir, &d);
    if (rc) {
        fprintf(stderr, "aci agree: seed %llu refused: gen.ldif:%u:%u: %s\n",
                (unsigned long long)seed, d.line, d.column, d.message);
        return 1;
    }
    cr_assert(ir->aci);
    cr_assert_eq(ir->aci->n, acreG_aci_count(w->c), "seed %llu",
                 (unsigned long long)seed);
    w->set = *ir->aci;
    cr_assert_eq(acre_dn_parse(w->ctx, w->schema, ACREG_ACI_ROOTDN,
                               strlen(ACREG_ACI_ROOTDN), 0, &root, NULL),
                 0);
    w->set.rootdn = root;
    acre_source src = {ACRE_DIALECT_ACI, "gen.ldif", ldif, strlen(ldif)};
    unsigned flags = variant == ACREG_ACI_OPENDJ ? ACRE_COMPILE_ACI_OPENDJ : 0;
    cr_assert_eq(acre_policy_compile(w->ctx, NULL, &src, 1, flags, &w->pol, &d),
                 0, "seed %llu: %s", (unsigned long long)seed, d.message);
    cr_assert_eq(acre_directory_load(w->ctx, acre_policy_schema(w->pol),
                                     "gen.ldif", ldif, strlen(ldif), &w->edir,
                                     &d),
                 0, "seed %llu: %s", (unsigned long long)seed, d.message);
    return 0;
}

static void
world_free(struct world *w)
{
    if (w->pol)
        acre_policy_release(w->pol);
    talloc_free(w->ctx);
}

/* ------------------------------------------------------------------------
 * The engine's side: the same search through acre_search, rendered as
 * "DN\tattr,attr,...\n" lines in the order returned.
 */

struct render {
    const acre_schema *schema;
    char *out;
};

static int
render_entry(void *arg, const acre_entry_view *e, const acre_verdict *v)
{
    struct render *r = arg;

    r->out =
        talloc_asprintf_append(r->out, "%s\t", acre_dn_normalised(e->dn, NULL));
    for (unsigned i = 0; i < v->nattrs; i++)
        if (v->attr[i] != ACRE_ATTR_NONE)
            r->out = talloc_asprintf_append(
                r->out, "%s,",
                acre_schema_attr_desc(r->schema, e->attrs[i].id, NULL));
    r->out = talloc_asprintf_append(r->out, "\n");
    return 0;
}

static char *
engine_search(const struct world *w, const struct acreG_aci_who *g,
              const struct acreG_aci_search *s, int *ldap_rc)
{
    char peer[80];
    acre_subject who;
    acre_request *rq;
    struct render r = {acre_policy_schema(w->pol), talloc_strdup(w->ctx, "")};

    memset(&who, 0, sizeof who);
    /* proxied: the checks are the proxied DN's, the DN bound asks */
    who.authz_dn = g->proxied_dn ? g->proxied_dn : g->bind_dn;
    who.authc_dn = !g->proxied_dn ? NULL : g->bind_dn ? g->bind_dn : "";
    who.auth_method = g->auth_method;
    who.ssf = g->ssf;
    who.domain = g->dns;
    who.time = g->time;
    if (g->ip) {
        snprintf(peer, sizeof peer,
                 strchr(g->ip, ':') ? "IP=[%s]:40000" : "IP=%s:40000", g->ip);
        who.peername = peer;
    }
    cr_assert_eq(
        acre_request_begin(w->pol, &who, acre_directory_host(w->edir), &rq), 0);
    cr_assert_eq(acre_search(rq, s->base, s->scope, s->filter, s->attrs,
                             s->nattrs, render_entry, &r, ldap_rc, NULL),
                 0);
    acre_request_end(rq);
    return r.out;
}

static char *
oracle_render(const struct world *w, const struct acreR_aci_search *res)
{
    char *out = talloc_strdup(w->ctx, "");

    for (unsigned i = 0; i < res->nentries; i++) {
        const struct acreR_aci_sentry *se = &res->entries[i];
        out = talloc_asprintf_append(out, "%s\t",
                                     acre_dn_normalised(se->entry->dn, NULL));
        for (unsigned k = 0; k < se->nattrs; k++)
            out = talloc_asprintf_append(
                out, "%s,",
                acre_schema_attr_desc(w->schema,
                                      se->entry->attrs[se->attrs[k]].id, NULL));
        out = talloc_asprintf_append(out, "\n");
    }
    return out;
}

/* The entries in scope of s that match its filter, without access
 * control -- LDAP subentries (the roles) left out below a base search,
 * as 389 leaves them out: what the directory manager must get. */
struct plain {
    const struct acreF_filter *f;
    int scope;
    unsigned n;
    const struct acreE_dir *dir;
};

static int
is_role(const acre_entry_view *e)
{
    const char *dn = acre_dn_normalised(e->dn, NULL);

    return !strncmp(dn, "cn=", 3) && strstr(dn, "role,dc=") != NULL;
}

/* has_kids -- hasSubordinates, from the directory's tree. */
static int
has_kids(void *arg, const acre_entry_view *e)
{
    const struct acreE_entry *d = acreE_dir_find(arg, e->dn);

    return d && d->first_child != NULL;
}

static int
plain_visit(void *ctx, const struct acreE_entry *e)
{
    struct plain *p = ctx;
    struct acreF_hooks h = {NULL, NULL, has_kids, (void *)p->dir, NULL, NULL,
                            NULL, 0,    NULL};

    if (p->scope != ACRE_SCOPE_BASE && is_role(&e->v))
        return 0;
    p->n += acreF_eval(p->f, &e->v, &h) == ACREF_TRUE;
    return 0;
}

static unsigned
plain_count(const struct world *w, const struct acreG_aci_search *s)
{
    acre_dn *base;
    struct acreF_filter *f;
    struct plain p = {NULL, s->scope, 0, w->dir};

    /* as the server reads it: 389 rewrites numSubordinates and
     * hasSubordinates items first */
    if (acre_dn_parse(w->ctx, w->schema, s->base, strlen(s->base), 0, &base,
                      NULL) ||
        acreF_parse_flags(w->ctx, w->schema, s->filter, strlen(s->filter),
                          variant == ACREG_ACI_389 ? ACREF_389_SEARCH : 0, &f,
                          NULL))
        return 0;
    p.f = f;
    acreE_dir_walk(w->dir, base, s->scope, plain_visit, &p);
    return p.n;
}

static unsigned
user_attrs(const struct world *w, const acre_entry_view *e)
{
    unsigned n = 0;

    for (unsigned i = 0; i < e->nattrs; i++) {
        const struct acreS_dinfo *d = acreS_dinfo(w->schema, e->attrs[i].id);
        n += acreS_attr(w->schema, d->type)->usage == ACRES_USER;
    }
    return n;
}

static void
check_search(const struct world *w, struct acreR_aci *o,
             const struct acreG_aci_who *who, const struct acreG_aci_search *s,
             struct stats *st)
{
    struct acreR_aci_search *r;

    cr_assert_eq(acreR_aci_search(o, w->ctx, s->base, s->scope, s->filter,
                                  s->attrs, s->nattrs, &r),
                 0);
    cr_assert(r->rc == 0 || r->rc == 32 ||
                  (r->rc == 53 && variant == ACREG_ACI_389),
              "rc %d", r->rc);
    int erc = -1;
    char *eng = engine_search(w, who, s, &erc);
    char *ora = oracle_render(w, r);
    if ((erc != r->rc || strcmp(eng, ora)) && getenv("ACRE_ACI_AGREE_VERBOSE"))
        fprintf(stderr, "%s\n", w->ldif);
    cr_assert_eq(erc, r->rc, "seed %llu %s %s: engine rc %d, oracle %d",
                 (unsigned long long)w->c->seed,
                 acreG_aci_who_text(w->ctx, who),
                 acreG_aci_search_text(w->ctx, s), erc, r->rc);
    cr_assert_str_eq(eng, ora,
                     "seed %llu %s %s\nengine:\n%s\noracle:\n%s(the case: "
                     "ACRE_ACI_AGREE_VERBOSE=1)",
                     (unsigned long long)w->c->seed,
                     acreG_aci_who_text(w->ctx, who),
                     acreG_aci_search_text(w->ctx, s), eng, ora);
    st->agreed++;
    unsigned plain = plain_count(w, s);
    cr_assert_leq(
        r->nentries, plain, "seed %llu %s %s", (unsigned long long)w->c->seed,
        acreG_aci_who_text(w->ctx, who), acreG_aci_search_text(w->ctx, s));
    st->searches++;
    st->returned += r->nentries;
    if (r->nentries)
        st->nonempty++;
    else
        st->empty++;
    /* (a proxied requester's checks depend on the entry's first check
     * in the operation, which granted the proxy right: not asked again) */
    for (unsigned i = 0; !who->proxied_dn && i < r->nentries; i++) {
        const struct acreR_aci_sentry *se = &r->entries[i];
        for (unsigned k = 0; k < se->nattrs; k++)
            cr_assert(acreR_aci_check(o, se->entry,
                                      se->entry->attrs[se->attrs[k]].id,
                                      ACREI_ACI_READ));
    }
}

/* Read checks of every attribute of every entry, and visibility. */
static int
check_entry(void *ctx, const struct acreE_entry *de)
{
    void **a = ctx;
    struct acreR_aci *o = a[0];
    struct stats *st = a[1];

    for (unsigned i = 0; i < de->v.nattrs; i++) {
        if (acreR_aci_check(o, &de->v, de->v.attrs[i].id, ACREI_ACI_READ))
            st->allowed++;
        else
            st->denied++;
    }
    if (acreR_aci_visible(o, &de->v))
        st->visible++;
    else
        st->hidden++;
    return 0;
}

static void
run_seed(uint64_t seed, struct stats *st)
{
    struct world w;

    st->seeds++;
    if (world_new(&w, seed)) {
        st->rejected++;
        world_free(&w);
        return;
    }
    for (unsigned q = 0; q < w.c->nrq; q++) {
        const struct acreG_aci_who *g = &w.c->rq[q];
        struct acreR_aci_who who = {g->bind_dn,   g->auth_method, g->ssf,
                                    g->ip,        g->dns,         g->time,
                                    g->proxied_dn};
        struct acreR_aci *o;
        cr_assert_eq(acreR_aci_new(w.ctx, &w.set, w.dir, &who, &o), 0);
        for (unsigned i = 0; i < w.c->nsearches; i++)
            check_search(&w, o, g, &w.c->searches[i], st);
        int is_root = g->bind_dn && !g->proxied_dn &&
                      !strcmp(g->bind_dn, ACREG_ACI_ROOTDN);
        if (is_root)
            continue;
        void *arg[2] = {o, st};
        acre_dn *sfx;
        cr_assert_eq(acre_dn_parse(w.ctx, w.schema, ACREG_ACI_SUFFIX,
                                   strlen(ACREG_ACI_SUFFIX), 0, &sfx, NULL),
                     0);
        acreE_dir_walk(w.dir, sfx, ACRE_SCOPE_SUB, check_entry, arg);
    }
    world_free(&w);
}

/* The directory manager gets exactly the plain results, */
static void
root_sees_all(uint64_t seed)
{
    struct world w;

    if (world_new(&w, seed)) {
        world_free(&w);
        return;
    }
    struct acreR_aci_who who = {
        ACREG_ACI_ROOTDN, "simple", 0, NULL, NULL, 0, NULL};
    struct acreR_aci *o;
    cr_assert_eq(acreR_aci_new(w.ctx, &w.set, w.dir, &who, &o), 0);
    for (unsigned i = 0; i < w.c->nsearches; i++) {
        const struct acreG_aci_search *s = &w.c->searches[i];
        struct acreR_aci_search *r;
        cr_assert_eq(acreR_aci_search(o, w.ctx, s->base, s->scope, s->filter,
                                      NULL, 0, &r),
                     0);
        /* but where an extensible item leaves 389's access_check_done
         * clear, which takes entries out for the root DN too */
        if (strstr(s->filter, ":="))
            cr_assert_leq(r->nentries, plain_count(&w, s), "seed %llu %s",
                          (unsigned long long)seed,
                          acreG_aci_search_text(w.ctx, s));
        else
            cr_assert_eq(r->nentries, plain_count(&w, s), "seed %llu %s",
                         (unsigned long long)seed,
                         acreG_aci_search_text(w.ctx, s));
        for (unsigned k = 0; k < r->nentries; k++)
            cr_assert_eq(r->entries[k].nattrs,
                         user_attrs(&w, r->entries[k].entry));
    }
    world_free(&w);
}

static void
agree(int v, uint64_t first, unsigned long n)
{
    struct stats st = {0};

    variant = v;
    setenv("TZ", "UTC", 1); /* the oracle reads times as UTC */
    tzset();
    for (unsigned long i = 0; i < n; i++) {
        run_seed(first + i, &st);
        root_sees_all(first + i);
    }
    if (getenv("ACRE_ACI_AGREE_VERBOSE"))
        fprintf(stderr,
                "aci agree (%s): %lu seeds (%lu refused), %lu searches (%lu "
                "non-empty, %lu empty, %lu entries), reads %lu allowed %lu "
                "denied, entries %lu visible %lu hidden\n",
                v == ACREG_ACI_OPENDJ ? "opendj" : "389", st.seeds, st.rejected,
                st.searches, st.nonempty, st.empty, st.returned, st.allowed,
                st.denied, st.visible, st.hidden);
    cr_assert_leq(st.rejected * 100, st.seeds * MAX_REJECT_PCT,
                  "%lu of %lu cases refused by the parser", st.rejected,
                  st.seeds);
    cr_assert_geq(st.searches, 6 * (st.seeds - st.rejected));
    cr_assert_eq(st.agreed, st.searches);
    cr_assert_geq(st.nonempty * 5, st.searches, "non-empty %lu of %lu",
                  st.nonempty, st.searches);
    cr_assert_geq(st.empty * 10, st.searches, "empty %lu of %lu", st.empty,
                  st.searches);
    unsigned long reads = st.allowed + st.denied;
    cr_assert_geq(st.allowed * 10, reads, "allowed %lu of %lu", st.allowed,
                  reads);
    cr_assert_geq(st.denied * 10, reads, "denied %lu of %lu", st.denied, reads);
    unsigned long ents = st.visible + st.hidden;
    cr_assert_geq(st.visible * 10, ents, "visible %lu of %lu", st.visible,
                  ents);
    cr_assert_geq(st.hidden * 10, ents, "hidden %lu of %lu", st.hidden, ents);
}

Test(aci_agree, oracle_runs_generated_cases, .timeout = 300)
{
    agree(ACREG_ACI_389, env_num("ACRE_ACI_AGREE_SEED", 1),
          env_num("ACRE_ACI_AGREE_N", DEFAULT_SEEDS));
}

Test(aci_agree, opendj_variant_runs_generated_cases, .timeout = 300)
{
    agree(ACREG_ACI_OPENDJ, env_num("ACRE_ACI_AGREE_SEED", 1),
          env_num("ACRE_ACI_AGREE_DJ_N", DEFAULT_DJ_SEEDS));
}
