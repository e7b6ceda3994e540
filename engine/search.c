/*
 * search.c -- searches as the requester, checked as slapd 2.5's back-mdb
 * search and send_search_entry() do, over the host's entries (acre.h:
 * acre_host), and search filters under access control
 * (acre_filter_match), which a host that selects its own candidates uses
 * for exactly what acre_search does to each candidate.  The reference
 * evaluator's acreR_oracle_search (tests/oracle/openldap_oracle_search.c),
 * validated against slapd, is the specification; this file reproduces it
 * over the compiled policy.
 *
 * What a search checks:
 *   1. the base entry (host get) needs search (s) on `entry`; without it
 *      the result is noSuchObject, or insufficientAccess when the mask
 *      holds disclose (d); a missing base discloses its nearest existing
 *      ancestor as matchedDN only with d on that ancestor's `entry`, and
 *      only when that ancestor is in the base's database;
 *   2. each candidate in scope (host search) is tested against the filter
 *      with search access asked for each item (acreF_eval's hook: the
 *      item's description and value; a denied item is Undefined) and
 *      must come out True;
 *   3. a matching entry needs read (r) on `entry`, else it is skipped;
 *   4. each value of each selected attribute needs read with that value;
 *      an attribute is returned when one of its values is.
 * Attribute selection: none or "*": user attributes; "+": operational
 * ones; names (with subtypes and options); "1.1" (or any name the schema
 * does not know): nothing.  Collective attributes (an attached policy)
 * are selected the same way ("ou" selects c-ou, a subtype; "+" or the
 * name selects collectiveAttributeSubentries) and decided as the entry's
 * own values; filters see them unless ACRE_COLL_NO_FILTER (never the
 * slapo-collect ones: slapd adds those to the response only).
 * Subentries (back-mdb's search.c): with ACRE_REQ_SUBENTRIES only they
 * are returned, at any scope; without it a one-level or subtree search
 * skips them and a base search returns one.
 *
 * The base: one that does not parse, or that slapd's dnNormalize refuses
 * though acre's parser takes it (an RDN naming one type twice, a #-BER
 * value), is invalidDNSyntax.  The base "" is the root DSE at scope base
 * (noSuchObject: no database holds it) and otherwise the root of the
 * database whose suffix is "", back-mdb's glue entry (glue_view).
 *
 * Under an ACI policy (389) on acre's directory, the candidates are those
 * 389's back-ldbm takes from its indexes when they can differ from every
 * entry once (filter_cand389.c: CoS values are in no index, an inequality
 * sends an entry once per value in range): candidates_389, visit.
 *
 * A host lookup that fails stops the search with ACRE_ERR_LOOKUP: the
 * entries already handed to the caller stay handed, none is added.
 *
 * Memory: the base DN, the filter and the selection live in a talloc
 * context under rq->mem that is freed before returning.  The per-entry
 * path allocates nothing of its own: checks use the request's scratch,
 * verdicts its verdict buffers.
 */
#include "aci_index.h"
#include "collective.h"
#include "cos.h"
#include "directory.h"
#include "entry.h"
#include "eval.h"
#include "filter.h"
#include "internal.h"
#include "ir.h"
#include "ir_aci.h"
#include "policy.h"
#include "schema.h"

#include <string.h>
#include <talloc.h>

/* LDAP result codes acre_search reports */
#define LDAP_SUCCESS                        0
#define LDAP_PROTOCOL_ERROR                 2
#define LDAP_ADMIN_LIMIT_EXCEEDED           11
#define LDAP_UNAVAILABLE_CRITICAL_EXTENSION 12
#define LDAP_NO_SUCH_OBJECT                 32
#define LDAP_INVALID_DN_SYNTAX              34
#define LDAP_INSUFFICIENT_ACCESS            50
#define LDAP_UNWILLING_TO_PERFORM           53
#define LDAP_FILTER_ERROR                   87

/* ------------------------------------------------------------------------
 * Attribute selection
 */

struct selection {
    const acre_schema *schema;
    int user, oper; /* all user / all operational attributes */
    int star;       /* "*" was asked (not only implied by no list) */
    int aci;        /* ACI policies: the type `aci`, which 389 returns
                       to a search that asks for "*" (not to one that asks
                       for nothing); else -1 */
    unsigned n;
    struct acreS_desc *want; /* [n] named descriptions, known types only */
};

/* select_attrs -- the selection attrs[0..n) asks for, under ctx. */
static int
select_attrs(const acre_schema *schema, void *ctx, const char *const *attrs,
             unsigned n, struct selection *sel)
{
    memset(sel, 0, sizeof(*sel));
    sel->schema = schema;
    sel->user = n == 0;
    sel->aci = -1;
    sel->want = talloc_array(ctx, struct acreS_desc, n + 1);
    if (!sel->want)
        return ACRE_ERR_NOMEM;
    for (unsigned i = 0; i < n; i++) {
        if (!strcmp(attrs[i], "*"))
            sel->user = sel->star = 1;
        else if (!strcmp(attrs[i], "+"))
            sel->oper = 1;
        else if (!acreS_desc_parse(schema, attrs[i], strlen(attrs[i]),
                                   &sel->want[sel->n]) &&
                 sel->want[sel->n].type >= 0)
            sel->n++;
    }
    return 0;
}

/* selected -- acreV_entry_verdict's select: is a in the selection? */
static int
selected(void *arg, const acre_view_attr *a)
{
    const struct selection *sel = arg;
    const struct acreS_dinfo *d = acreS_desc_of(sel->schema, a->id);
    unsigned nopts =
        d->nopts < ACRES_MAX_OPTIONS ? d->nopts : ACRES_MAX_OPTIONS;
    struct acreS_desc have = {d->type, d->text, d->text_len, nopts, {0}, {0}};
    int oper =
        d->type >= 0 && acreS_attr(sel->schema, d->type)->usage != ACRES_USER;

    for (unsigned i = 0; i < nopts; i++) {
        have.opts[i] = d->opts[i];
        have.opt_len[i] = d->opt_len[i];
    }
    for (unsigned i = 0; i < sel->n; i++)
        if (acreS_desc_matches(sel->schema, &have, &sel->want[i]))
            return 1;
    if (d->type >= 0 && d->type == sel->aci)
        return sel->star || sel->oper;
    return oper ? sel->oper : sel->user;
}

/* ------------------------------------------------------------------------
 * Checks
 */

/* check_entry -- `want` on e's pseudo-attribute "entry"; *mask (may be
 * NULL) the mask the deciding rule left. */
static int
check_entry(struct acre_request *rq, const acre_entry_view *e,
            enum acreI_access want, uint32_t *mask)
{
    struct acreV_check c;

    if (rq->p->id_entry < 0)
        return 0;
    acreV_check_init(&c, rq, e, rq->p->id_entry, NULL, NULL, 0);
    return acreV_decide(&c, want, mask);
}

/* ------------------------------------------------------------------------
 * Filters under access control (acre_filter_match)
 */

struct acre_filter {
    uint32_t magic;
    const struct acreF_filter *f;
};

#define FILTER_MAGIC 0x61637266u /* "acrf" */

/* One filter evaluation: its entry's checks share one check (one epoch),
 * so the filters of rule targets are evaluated once per entry, as
 * acreV_entry_verdict does for its values. */
struct fmatch {
    struct acre_request *rq;
    struct acreV_check c;
};

/*
 * filter_access -- acreF_eval's hook: search access on the description the
 * item names (type and options, as slapd's access_allowed receives it)
 * and the asserted value.
 */
static int
filter_access(void *ctx, const acre_entry_view *e, const struct acreF_desc *d,
              const uint8_t *value, size_t len)
{
    struct fmatch *m = ctx;

    if (m->c.e != e) /* not the candidate: a check of its own */
        acreV_check_init(&m->c, m->rq, e, d->type, NULL, value, len);
    m->c.type = d->type;
    m->c.nopts = d->nopts;
    m->c.opts = d->opts;
    m->c.opt_len = d->opt_len;
    m->c.va = NULL;
    m->c.val = value;
    m->c.val_len = len;
    m->c.val_str = NULL;
    return acreV_decide(&m->c, ACREI_ACCESS_SEARCH, NULL);
}

/*
 * filter_match -- f on e (cr: e's collective result, or NULL) as the
 * requester may search it: 1 True, 0 False or Undefined, or
 * ACRE_ERR_NOMEM / ACRE_ERR_LOOKUP.  Filters see the collective values
 * unless ACRE_COLL_NO_FILTER (never the slapo-collect ones: slapd adds
 * those to the response only).
 */
static int
filter_match(struct acre_request *rq, const struct acreF_filter *f,
             const acre_entry_view *e, const struct acreC_result *cr, int scope)
{
    const acre_entry_view *fe = e;
    struct fmatch m;
    enum acreF_result r;

    if (rq->p->aci)
        return acreV_aci_filter(rq, f, e, scope);
    if (cr && !(rq->p->coll->flags & ACRE_COLL_NO_FILTER) &&
        !(fe = acreC_merged(rq, e, cr, ACREC_MERGE_SUBENTRY)))
        return ACRE_ERR_NOMEM;
    struct acreF_hooks h = acreV_filter_hooks(rq, filter_access, &m);
    m.rq = rq;
    acreV_check_init(&m.c, rq, fe, rq->p->id_entry, NULL, NULL, 0);
    r = acreV_filter_eval(rq, f, fe, &h);
    if (rq->err)
        return rq->err;
    return r == ACREF_TRUE;
}

/* acreV_search_base -- see eval.h. */
int
acreV_search_base(struct acre_request *rq, const acre_entry_view *e)
{
    int ok = check_entry(rq, e, ACREI_ACCESS_SEARCH, NULL);

    return rq->err ? rq->err : ok;
}

/* acreV_search_match -- see eval.h. */
int
acreV_search_match(struct acre_request *rq, const struct acreF_filter *f,
                   const acre_entry_view *e)
{
    return filter_match(rq, f, e, NULL, ACRE_SCOPE_SUB);
}

ACRE_PUBLIC int
acre_filter_parse(void *mem_ctx, const acre_schema *schema, const char *filter,
                  size_t len, acre_filter **out, acre_diag *diag)
{
    struct acre_filter *h;
    struct acreF_filter *f;
    int rc;

    if (acreS_check(schema))
        return acreE_diag_set(diag, ACRE_ERR_BADOBJ, 0, "not a schema");
    if (!out || !filter)
        return acreE_diag_set(diag, ACRE_ERR_INVAL, 0, "invalid argument");
    if (!(h = talloc_zero(mem_ctx, struct acre_filter)))
        return acreE_diag_set(diag, ACRE_ERR_NOMEM, 0, "out of memory");
    if ((rc = acreF_parse(h, schema, filter, len, &f, diag)) != 0) {
        talloc_free(h);
        return rc;
    }
    h->magic = FILTER_MAGIC;
    h->f = f;
    *out = h;
    return 0;
}

ACRE_PUBLIC void
acre_filter_free(acre_filter *f)
{
    if (acreE_is(f, FILTER_MAGIC)) {
        f->magic = 0;
        talloc_free(f);
    }
}

ACRE_PUBLIC int
acre_filter_match(acre_request *rq, const acre_filter *f,
                  const acre_entry_view *e)
{
    const struct acreC_result *cr = NULL;
    int rc;

    if ((rc = acreE_handle(rq, ACREE_REQUEST_MAGIC)) ||
        (rc = acreE_handle(f, FILTER_MAGIC)))
        return rc;
    if (acreF_schema(f->f) != rq->schema || !acreE_view_check(rq->schema, e))
        return ACRE_ERR_INVAL;
    rq->err = 0;
    if (rq->p->coll && (rc = acreC_compute(rq, e, NULL, &cr)) != 0)
        return rc;
    if (rq->err)
        return rq->err;
    return filter_match(rq, f->f, e, cr, ACRE_SCOPE_SUB);
}

/* ------------------------------------------------------------------------
 * The base
 */

/* set_matched -- keep the pretty form of dn in the request. */
static int
set_matched(struct acre_request *rq, const acre_dn *dn)
{
    rq->matched = talloc_strdup(rq->mem, acre_dn_pretty(dn, NULL));
    return rq->matched ? 0 : ACRE_ERR_NOMEM;
}

/* The nearest existing ancestor of dn through the host (*out, to
 * release), or 0 with *out NULL; a failed lookup sets rq->err. */
static int
nearest_ancestor(struct acre_request *rq, const acre_dn *dn,
                 const acre_entry_view **out)
{
    uint64_t buf[ACRE_DN_BUF_MAX / 8 + 1];

    *out = NULL;
    for (unsigned i = acre_dn_depth(dn); i-- > 1 && !rq->err;) {
        size_t n;
        const char *t = acre_dn_ancestor(dn, i, &n);
        acre_dn *a;
        if (acre_dn_parse_buf(buf, sizeof buf, rq->schema, t, n, 0, &a, NULL) ==
                0 &&
            acreV_host_get(rq, a, out) == 1)
            return 1;
    }
    return 0;
}

/* missing_base -- a base that does not exist: noSuchObject, its nearest
 * existing ancestor as matched DN when that is in the same database and
 * disclosed. */
static int
missing_base(struct acre_request *rq, const acre_dn *base,
             const struct acreI_section *db, int *ldap_rc)
{
    const acre_entry_view *m;
    int rc = 0;

    *ldap_rc = LDAP_NO_SUCH_OBJECT;
    if (nearest_ancestor(rq, base, &m)) {
        if (acreI_section_for(rq->p->ir, m->dn) == db &&
            check_entry(rq, m, ACREI_ACCESS_DISCLOSE, NULL))
            rc = set_matched(rq, m->dn);
        acreV_host_release(rq, m);
    }
    return rc ? rc : rq->err;
}

/* aci_missing_base -- 389's answer for a base that does not exist
 * (findentry.c): noSuchObject with its nearest existing ancestor as
 * matched DN, unless the requester may not read that ancestor (checked
 * on the attribute "1.1": nothing specific): then success, no entry. */
static int
aci_missing_base(struct acre_request *rq, const acre_dn *base,
                 const struct acreF_filter *f, int *ldap_rc)
{
    const acre_entry_view *m;
    int rc = 0;

    *ldap_rc = LDAP_NO_SUCH_OBJECT;
    /* OpenDJ: noSuchObject always; the matched DN only when maySend
     * would send that entry (filterNonDisclosableMatchedDN) */
    if (rq->p->aci->set->variant == ACREI_ACI_OPENDJ) {
        if (nearest_ancestor(rq, base, &m)) {
            int ok = acreV_aci_may_send(rq, f, m);
            if (ok == 1)
                rc = set_matched(rq, m->dn);
            acreV_host_release(rq, m);
        }
        return rc ? rc : rq->err;
    }
    if (nearest_ancestor(rq, base, &m)) {
        struct acreF_desc none = {-1, 0, NULL, NULL};
        /* find_entry checks it before ldbm_back_next_search_entry sets
         * SLAPI_PLUGIN_SYNTAX_FILTER_NORMALIZED: URL filters take their
         * substrings normalised there (rq->ger), in ACI state of its own
         * (nothing kept of it serves a search's entries) */
        struct acreV_aci_rq *state = rq->aci;
        rq->aci = NULL;
        rq->ger = 1;
        /* no check when the DN bound is the directory manager (its
         * SLAPI_REQUESTOR_ISROOT, proxied authorization or not) */
        const acre_dn *root = rq->p->aci->rootdn;
        int ok = (rq->authc && root && acre_dn_equal(rq->authc, root)) ||
                 acreV_aci_check(rq, m, &none, ACREI_ACI_READ);
        acreV_aci_end(rq);
        rq->aci = state;
        rq->ger = 0;
        if (!ok)
            *ldap_rc = LDAP_SUCCESS;
        else
            rc = set_matched(rq, m->dn);
        acreV_host_release(rq, m);
    }
    return rc ? rc : rq->err;
}

/* A database whose suffix is "" has no entry of that name, but back-mdb
 * makes one up for ID 0, the root of its tree (mdb_id2entry): its DN
 * empty, objectClass and structuralObjectClass "glue".  It is the base of
 * a search from "" (any scope but base, which the frontend answers with
 * the root DSE: fe_op_search), checked like any base; the search never
 * returns it (ID 0 is no candidate, and mdb_search skips glue). */
struct glue {
    acre_entry_view v;
    acre_view_attr a[2];
    acre_value val;
};

/* glue_view -- g as that entry, named base (the empty DN), in rq's
 * schema. */
static const acre_entry_view *
glue_view(struct acre_request *rq, const acre_dn *base, struct glue *g)
{
    const struct acreS_known *k = acreS_known(rq->schema);
    unsigned n = 0;

    g->val = (acre_value){4, "glue"};
    if (k->objectClass >= 0)
        g->a[n++] = (acre_view_attr){k->objectClass, 1, &g->val, NULL};
    if (k->structuralObjectClass >= 0)
        g->a[n++] =
            (acre_view_attr){k->structuralObjectClass, 1, &g->val, NULL};
    g->v = (acre_entry_view){rq->schema, base, n, g->a, NULL};
    return &g->v;
}

/* glue_base -- the database a search of base at scope reaches through
 * back-mdb's glue root (glue_view), or NULL when it is an ordinary one. */
static const struct acreI_section *
glue_base(struct acre_request *rq, const acre_dn *base, int scope)
{
    if (rq->p->aci || acre_dn_depth(base) || scope == ACRE_SCOPE_BASE)
        return NULL;
    return acreI_section_for(rq->p->ir, base);
}

/*
 * check_base -- find and check the base entry (searched at scope).
 * Returns 0 to go on; 1 when *ldap_rc is decided; ACRE_ERR_NOMEM or
 * ACRE_ERR_LOOKUP.
 */
static int
check_base(struct acre_request *rq, const acre_dn *base, int scope,
           const struct acreF_filter *f, int *ldap_rc)
{
    const struct acreI_section *db = acreI_section_for(rq->p->ir, base);
    const acre_entry_view *e = NULL;
    struct glue glue;
    uint32_t mask = 0;
    int rc, ok, got;

    if (rq->p->aci) { /* 389 checks no access on the base itself */
        if (acreV_host_get(rq, base, &e) != 1) {
            if (rq->err)
                return rq->err;
            rc = aci_missing_base(rq, base, f, ldap_rc);
            return rc ? rc : 1;
        }
        acreV_host_release(rq, e);
        return 0;
    }
    if (!db) {
        *ldap_rc = LDAP_NO_SUCH_OBJECT;
        return 1;
    }
    if ((got = acreV_host_get(rq, base, &e)) != 1) {
        if (rq->err)
            return rq->err;
        if (!glue_base(rq, base, scope)) {
            rc = missing_base(rq, base, db, ldap_rc);
            return rc ? rc : 1;
        }
        e = glue_view(rq, base, &glue);
    }
    ok = check_entry(rq, e, ACREI_ACCESS_SEARCH, &mask);
    if (got == 1)
        acreV_host_release(rq, e);
    if (rq->err)
        return rq->err;
    if (!ok) {
        *ldap_rc = (mask & ACREI_PRIV_DISCLOSE) ? LDAP_INSUFFICIENT_ACCESS
                                                : LDAP_NO_SUCH_OBJECT;
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Attribute types only (ACRE_REQ_ATTRSONLY)
 */

/* read_alone -- slapd's check of read on attribute id of e, without a
 * value: 1, 0. */
static int
read_alone(struct acre_request *rq, const acre_entry_view *e, int id)
{
    struct acreV_check c;

    acreV_check_init(&c, rq, e, -1, acreS_dinfo(rq->schema, id), NULL, 0);
    return acreV_decide(&c, ACREI_ACCESS_READ, NULL);
}

/* attrs_only -- verdict v of e made for a search of types only: each
 * selected attribute of e (not one a collective attribute hides) and
 * collective one of cr answered by read on the attribute alone.  Returns
 * rq->err (a lookup failed, out of memory). */
static int
attrs_only(struct acre_request *rq, const acre_entry_view *e,
           const struct acreC_result *cr, struct selection *sel,
           acre_verdict *v)
{
    const struct acreC_out *o = cr ? acreC_outs(cr) : NULL;
    uint32_t nc = cr ? acreC_nout(cr) : 0;
    size_t n = (size_t)v->nattrs + nc;

    if (n > rq->ao_cap) {
        uint8_t *a = talloc_realloc(rq->mem, rq->ao_attr, uint8_t, n * 2 + 16);
        if (!a)
            return ACRE_ERR_NOMEM;
        rq->ao_attr = a;
        rq->ao_cap = n * 2 + 16;
    }
    rq->err = 0;
    for (uint32_t i = 0; i < v->nattrs && !rq->err; i++)
        rq->ao_attr[i] = selected(sel, &e->attrs[i]) &&
                                 !(cr && acreC_hidden(cr, &e->attrs[i])) &&
                                 read_alone(rq, e, e->attrs[i].id)
                             ? ACRE_ATTR_ALL
                             : ACRE_ATTR_NONE;
    for (uint32_t k = 0; k < nc && !rq->err; k++)
        rq->ao_attr[v->nattrs + k] = o[k].a.nvals && selected(sel, &o[k].a) &&
                                             read_alone(rq, e, o[k].a.id)
                                         ? ACRE_ATTR_ALL
                                         : ACRE_ATTR_NONE;
    v->attr = rq->ao_attr;
    if (nc)
        v->coll_attr = rq->ao_attr + v->nattrs;
    return rq->err;
}

/* ------------------------------------------------------------------------
 * The walk
 */

/* A candidate's normalised DN. */
struct cand_dn {
    const char *s;
    size_t len;
};

/* cands_cmp -- qsort and bsearch order of the candidates' DNs. */
static int
cands_cmp(const void *a, const void *b)
{
    const struct cand_dn *x = a, *y = b;
    int c = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);

    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* acreF_cand_host's id: a directory entry's place in load order, which
 * is the ID slapadd gives it, and 389's (the host is a directory:
 * candidates, candidates_389). */
static uint64_t
cand_id(void *arg, const acre_entry_view *e)
{
    (void)arg;
    return (uint64_t)acreE_entry_of(e)->id + 1;
}

/* times_389 -- how many times 389's candidates hold ID id. */
static size_t
times_389(const struct acreF_ids389 *c, uint64_t id)
{
    size_t lo = 0, hi = c->n, k = 0;

    if (c->all)
        return 1;
    while (lo < hi) { /* the first place not below id */
        size_t mid = lo + (hi - lo) / 2;
        if (c->id[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    while (lo + k < c->n && c->id[lo + k] == id)
        k++;
    return k;
}

struct walk {
    struct acre_request *rq;
    const struct acreF_filter *filter;
    struct selection *sel;
    acre_search_fn fn;
    void *arg;
    int rc;      /* an error that stopped the walk */
    int scope;   /* enum acre_scope */
    int ldapsub; /* ACI: the filter names objectClass=ldapSubEntry */
    /* back-mdb's candidates, sorted (candidates), or NULL for all */
    struct cand_dn *cands;
    unsigned ncands;
    /* 389's candidates by entry ID, repeats kept (candidates_389), or
     * NULL for every entry once */
    const struct acreF_ids389 *ids389;
    /* the database whose entries alone the walk returns (under an
     * OpenLDAP policy; else NULL): the one holding the base (slapd's
     * select_backend), then each subordinate one glued below it
     * (glued_search); the host's search also reaches other databases'
     * entries in scope -- every naming context from back-mdb's glue
     * root (glue_base), a database whose suffix lies below the base's */
    const struct acreI_section *db;
};

/* visit -- one candidate: filter, read on "entry", values, callback.
 * Non-zero stops the walk (the caller's wish or an error in w->rc). */
static int
visit(void *ctx, const acre_entry_view *e)
{
    struct walk *w = ctx;
    struct acre_request *rq = w->rq;
    const struct acreC_result *cr = NULL;
    acre_verdict v;
    int rc;

    if (!acreE_view_check(rq->schema, e)) {
        w->rc = ACRE_ERR_LOOKUP;
        return 1;
    }
    if (w->db && acreI_section_for(rq->p->ir, e->dn) != w->db)
        return 0;
    if (w->cands) {
        struct cand_dn key;
        key.s = acre_dn_normalised(e->dn, &key.len);
        if (!bsearch(&key, w->cands, w->ncands, sizeof key, cands_cmp))
            return 0;
    }
    size_t times = 1;
    if (w->ids389 && !(times = times_389(w->ids389, cand_id(NULL, e))))
        return 0;
    /* 389: an ldapSubEntry (a role definition...) only for a base search
     * or a filter that asks for objectClass=ldapSubEntry */
    if (rq->p->aci && w->scope != ACRE_SCOPE_BASE && !w->ldapsub &&
        acreV_aci_ldapsubentry(rq->schema, e))
        return 0;
    /* back-mdb: with the subentries control only subentries, without it
     * no subentry but a base one */
    if (!rq->p->aci &&
        (rq->flags & ACRE_REQ_SUBENTRIES
             ? !acreC_is_subentry(rq->p, e)
             : w->scope != ACRE_SCOPE_BASE && acreC_is_subentry(rq->p, e)))
        return 0;
    rq->err = 0;
    /* collective values before the candidate's checks (slapo-collect
     * sources are checked too); filters see them as X.500 says */
    if ((rq->p->coll && (rc = acreC_compute(rq, e, NULL, &cr)) != 0) ||
        (rc = rq->err) != 0 ||
        (rc = filter_match(rq, w->filter, e, cr, w->scope)) < 0) {
        w->rc = rc;
        return 1;
    }
    if (rc != 1)
        return 0;
    rc =
        acreV_entry_verdict(rq, e, ACREI_ACCESS_READ, selected, w->sel, cr, &v);
    if (rc) {
        w->rc = rc;
        return 1;
    }
    if (!v.visible)
        return 0;
    if ((rq->flags & ACRE_REQ_ATTRSONLY) && !rq->p->aci &&
        (rc = attrs_only(rq, e, cr, w->sel, &v)) != 0) {
        w->rc = rc;
        return 1;
    }
    while (times--)
        if (w->fn(w->arg, e, &v))
            return 1;
    return 0;
}

/* ------------------------------------------------------------------------
 * API
 */

/* ------------------------------------------------------------------------
 * size.unchecked: back-mdb refuses a search (adminLimitExceeded) when
 * both its candidates from the indexes (filter_cand.c) and the entries in
 * scope under the base (its nsubs: the base's children for a one-level
 * search, its subtree with itself otherwise) are more than the limit; a
 * base search has one candidate and is never refused.  "All candidates"
 * counts the database's entries (its highest entry ID: slapadd numbers
 * them from 1 and acre's directory holds no deleted ones).
 */

struct count {
    struct acre_request *rq;
    const struct acreI_section *db;
    unsigned long n;
    int (*fn)(void *fn_arg, const acre_entry_view *e); /* else count */
    void *fn_arg;
};

static int
count_visit(void *arg, const acre_entry_view *e)
{
    struct count *c = arg;

    if (acreI_section_for(c->rq->p->ir, e->dn) != c->db)
        return 0;
    c->n++;
    return c->fn ? c->fn(c->fn_arg, e) : 0;
}

/* The entries of c->db within scope of base, into c->n. */
static int
count_scope(struct count *c, const acre_dn *base, int scope)
{
    c->n = 0;
    int rc = c->rq->host.search(c->rq->host.arg, base, scope, count_visit, c);
    return rc < 0 ? ACRE_ERR_LOOKUP : rc;
}

/* acreF_cand_host's each: the entries under the database's suffixes. */
static int
cand_each(void *arg, int (*fn)(void *fn_arg, const acre_entry_view *e),
          void *fn_arg)
{
    struct count c = *(struct count *)arg;
    int rc = 0;

    c.fn = fn;
    c.fn_arg = fn_arg;
    for (unsigned i = 0; !rc && i < c.db->nsuffix; i++)
        rc = count_scope(&c, c.db->suffix[i], ACRE_SCOPE_SUB);
    return rc;
}

/* The candidates back-mdb takes from its indexes for this search, when
 * they can leave out entries the filter matches: for a requester with a
 * size.unchecked limit (an ordered walk stops at it) and when the filter
 * has items whose candidates can (acreF_candidates_narrow).  *set gets them
 * sorted, *nset their number, or *set NULL for every entry.  *refused 1 when
 * back-mdb refuses the search for the limit.  0, or a negative
 * ACRE_ERR_* (ACRE_ERR_UNSUPPORTED when back-mdb would take them with
 * index keys acre does not reproduce: acreF_candidates). */
static int
candidates(struct acre_request *rq, void *tmp, const acre_dn *base, int scope,
           const struct acreF_filter *f, long limit, struct cand_dn **set,
           unsigned *nset, int *refused)
{
    const struct acreI_section *db = acreI_section_for(rq->p->ir, base);
    struct count c = {rq, db, 0, NULL, NULL};
    struct acreF_cand_host h = {
        &c, cand_each, acreE_dir_is_host(&rq->host) ? cand_id : NULL, NULL};
    struct acreF_cands cands;
    unsigned long total = 0, nsubs;
    int rc = 0;

    *refused = 0;
    *set = NULL;
    *nset = 0;
    if (scope == ACRE_SCOPE_BASE || !db || rq->p->aci ||
        (limit <= 0 && !acreF_candidates_narrow(f, db->idx, db->nidx)))
        return 0;
    if ((rc =
             acreF_candidates(tmp, f, db->idx, db->nidx, limit,
                              !!(rq->flags & ACRE_REQ_SUBENTRIES), &h, &cands)))
        return rc;
    if (!cands.all) {
        /* mdb_search walks these alone (none: a set, not NULL) */
        static struct cand_dn none[1];
        *set = cands.n ? talloc_array(tmp, struct cand_dn, cands.n) : none;
        if (!*set)
            return ACRE_ERR_NOMEM;
        for (unsigned i = 0; i < cands.n; i++)
            (*set)[i] = (struct cand_dn){cands.dn[i], cands.len[i]};
        if (cands.n)
            qsort(*set, cands.n, sizeof **set, cands_cmp);
        *nset = cands.n;
    }
    if (limit <= 0)
        return 0;
    if (cands.all) {
        for (unsigned i = 0; !rc && i < db->nsuffix; i++)
            if (!(rc = count_scope(&c, db->suffix[i], ACRE_SCOPE_SUB)))
                total += c.n;
        if (rc)
            return rc;
    } else {
        total = cands.n;
    }
    if (!total)
        return 0; /* no candidates: nothing to refuse */
    /* back-mdb keeps no subtree count for its glue root (ID 0) and
     * takes the database's entries for it, whatever the scope */
    if ((rc = count_scope(&c, base,
                          scope == ACRE_SCOPE_ONE && acre_dn_depth(base)
                              ? ACRE_SCOPE_ONE
                              : ACRE_SCOPE_SUB)))
        return rc;
    nsubs = c.n;
    *refused = (nsubs < total ? nsubs : total) > (unsigned long)limit;
    return 0;
}

/* acreF_cand_host's each for 389: every entry of the directory (389's
 * database holds them all). */
static int
each_389(void *arg, int (*fn)(void *fn_arg, const acre_entry_view *e),
         void *fn_arg)
{
    struct acre_request *rq = arg;
    acre_dn *root;
    int rc =
        acre_dn_parse(rq->mem, rq->schema, "", 0, ACRE_DN_SLAPD, &root, NULL);

    if (rc)
        return rc;
    rc = rq->host.search(rq->host.arg, root, ACRE_SCOPE_SUB, fn, fn_arg);
    talloc_free(root);
    return rc < 0 ? ACRE_ERR_LOOKUP : rc;
}

/* acreF_cand_host's memberof for 389: the request's virtual memberOf. */
static int
memberof_389(void *arg, const acre_entry_view *e, const acre_value **vals,
             uint32_t *n)
{
    return acreV_memberof_values(arg, ACRE_REQ_MEMBEROF, e, vals, n);
}

/* The candidates 389's back-ldbm takes for this search (filter_cand389.c)
 * into *out under tmp, when they can differ from every entry once (an
 * inequality on an equality-indexed type, an indexed type CoS gives) and
 * the host is a directory (its load order is 389's entry IDs); else
 * *out NULL. */
static int
candidates_389(struct acre_request *rq, void *tmp, const acre_dn *base,
               int scope, const struct acreF_filter *f,
               const struct acreF_ids389 **out)
{
    const int *types = NULL;
    const char *const *names;
    uint32_t ncos = 0;
    struct acreF_ids389 *ids;
    int rc;

    *out = NULL;
    if (scope == ACRE_SCOPE_BASE || !acreE_dir_is_host(&rq->host))
        return 0;
    if (acreV_cos_active(rq) &&
        (rc = acreV_cos_types(rq, &types, &names, &ncos)))
        return rc;
    if (!acreF_candidates_389_matter(f, types, ncos))
        return 0;
    struct acreF_cand_host h = {rq, each_389, cand_id, memberof_389};
    if (!(ids = talloc(tmp, struct acreF_ids389)))
        return ACRE_ERR_NOMEM;
    if ((rc = acreF_candidates_389(tmp, f, scope, base, &h, ids)))
        return rc;
    *out = ids;
    return 0;
}

/*
 * db_search -- one database's part of a search, as its back-mdb runs it:
 * the base entry's check, the candidates (size.unchecked: limit), the
 * host's search of base at scope kept to db's entries.  *ldap_rc: the
 * database's result.  Returns 0, a positive value when the caller's
 * callback stopped the search, or an ACRE_ERR_*.
 */
static int
db_search(struct acre_request *rq, void *tmp, struct walk *w,
          const struct acreI_section *db, const acre_dn *base, int scope,
          long limit, int *ldap_rc)
{
    int rc, refused;

    *ldap_rc = LDAP_SUCCESS;
    if ((rc = check_base(rq, base, scope, w->filter, ldap_rc)))
        return rc < 0 ? rc : 0;
    if ((rc = candidates(rq, tmp, base, scope, w->filter, limit, &w->cands,
                         &w->ncands, &refused)))
        return rc;
    if (refused) {
        *ldap_rc = LDAP_ADMIN_LIMIT_EXCEEDED;
        return 0;
    }
    w->db = db;
    w->scope = scope;
    rc = rq->host.search(rq->host.arg, base, scope, visit, w);
    if (w->rc)
        return w->rc;
    return rc < 0 ? ACRE_ERR_LOOKUP : rc;
}

/* glue_top -- the topmost superior of the base's database x when a search
 * at scope goes through slapd's glue overlay (a one-level or subtree
 * search of a database that has glued subordinates or is one), else
 * NULL. */
static const struct acreI_section *
glue_top(const struct acreI_policy *ir, const struct acreI_section *x,
         int scope)
{
    const struct acreI_section *top;

    if (!x || !x->nsuffix ||
        (scope != ACRE_SCOPE_ONE && scope != ACRE_SCOPE_SUB) ||
        !(top = x->subordinate ? acreI_superior(ir, x) : x))
        return NULL;
    for (unsigned d = 0; d < ir->ndbs; d++)
        if (ir->dbs[d].subordinate && ir->dbs[d].nsuffix &&
            acreI_superior(ir, &ir->dbs[d]) == top)
            return top;
    return NULL;
}

/*
 * glued_search -- a search of bdn at scope through slapd's glue overlay
 * (backglue.c, glue_op_search; glue_top): every glued subordinate hangs
 * from its topmost superior (a subordinate below another from the same
 * one), and the search runs in the superior first when the base is
 * there, then in each of its subordinates within the base's database in
 * the order they are configured, the base's database at its place among
 * them (so a subordinate's search returns those of the subordinates
 * below it first).  In the base's database it is the search asked; in
 * another, a one-level search of its suffix's parent is a base search of
 * the suffix entry, a subtree search above the suffix one from it,
 * anything else nothing (a children search reads none of them).  Each is
 * a search of its own (db_search: its base checked, its candidates),
 * and the results combine as glue_op_response keeps them: the first
 * result is kept, then a success, a limit or noSuchObject replaces the
 * one kept, anything replaces a failure; noSuchObject from another
 * database than the base's counts as success (its suffix entry is not
 * there); the search stops at a limit or noSuchObject kept.
 */
static int
glued_search(struct acre_request *rq, void *tmp, struct walk *w,
             const struct acreI_section *top, const acre_dn *bdn, int scope,
             long limit, int *ldap_rc)
{
    const struct acreI_policy *ir = rq->p->ir;
    const struct acreI_section *x = w->db;
    int rc = 0, err = LDAP_UNWILLING_TO_PERFORM, r;

    for (unsigned d = 0; !rc && d <= ir->ndbs; d++) {
        /* the superior first (d == 0), then the subordinates (d - 1) */
        const struct acreI_section *s = d ? &ir->dbs[d - 1] : top;
        const acre_dn *base = bdn;
        int sc = scope;
        if (d &&
            (!s->subordinate || !s->nsuffix || acreI_superior(ir, s) != top))
            continue;
        if (s != x) {
            if (!d || acre_dn_in_scope(s->suffix[0], x->suffix[0],
                                       ACRE_SCOPE_SUB) != 1)
                continue;
            base = s->suffix[0];
            sc = acre_dn_in_scope(base, bdn, scope) != 1 ? -1
                 : scope == ACRE_SCOPE_ONE               ? ACRE_SCOPE_BASE
                                                         : ACRE_SCOPE_SUB;
            if (sc < 0)
                continue;
        }
        if ((rc = db_search(rq, tmp, w, s, base, sc, limit, &r)) < 0)
            return rc;
        if (r == LDAP_SUCCESS || r == LDAP_ADMIN_LIMIT_EXCEEDED ||
            r == LDAP_NO_SUCH_OBJECT || err != LDAP_SUCCESS)
            err = r;
        if (s != x && r == LDAP_NO_SUCH_OBJECT)
            err = LDAP_SUCCESS;
        if (err == LDAP_SUCCESS) {
            talloc_free(rq->matched);
            rq->matched = NULL;
        }
        if (err == LDAP_ADMIN_LIMIT_EXCEEDED || err == LDAP_NO_SUCH_OBJECT)
            break;
    }
    w->db = x;
    w->scope = scope;
    *ldap_rc = rc > 0 ? LDAP_SUCCESS : err;
    return 0;
}

/* dn389_refused -- does 389's DN normaliser (slapi_dn_normalize_ext)
 * refuse DN text s, which acre's parser refuses: an escape at its end or
 * a quote left open?  (Checked on 389 2.3: "uid=erin\\" and
 * "uid=e\"rin,..." are invalidDNSyntax; "foo", "uid=", ",,", "uid=#zz",
 * "uid=er\\zin" are noSuchObject.) */
static int
dn389_refused(const char *s)
{
    int quoted = 0;

    for (size_t i = 0; s[i]; i++) {
        if (s[i] == '\\') {
            if (!s[++i])
                return 1;
        } else if (s[i] == '"') {
            quoted = !quoted;
        }
    }
    return quoted;
}

/* search -- acre_search once the arguments are known good; temporary
 * memory under tmp. */
static int
search(struct acre_request *rq, void *tmp, const char *base, int scope,
       const char *filter, const char *const *attrs, unsigned nattrs,
       struct walk *w, int *ldap_rc)
{
    struct selection sel;
    struct acreF_filter *f;
    acre_dn *bdn = NULL;
    int rc;

    if (select_attrs(rq->schema, tmp, attrs, nattrs, &sel))
        return ACRE_ERR_NOMEM;
    if (rq->p->aci && rq->p->aci->set->variant == ACREI_ACI_389)
        sel.aci = acreS_attr_find(rq->schema, "aci", 3);
    rc = acre_dn_parse(tmp, rq->schema, base, strlen(base), ACRE_DN_SLAPD, &bdn,
                       NULL);
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    int is389 = rq->p->aci && rq->p->aci->set->variant == ACREI_ACI_389;
    /* 389's DN normaliser refuses little (an escape or a quote left
     * open): any other base it cannot find is noSuchObject, in the back
     * end, once the request is decoded (below) */
    int missing389 = rc && is389 && !dn389_refused(base);
    if (rc && !missing389) {
        *ldap_rc = LDAP_INVALID_DN_SYNTAX;
        return 0;
    }
    /* 389 refuses while it decodes the request: the subordinate scope,
     * which it does not have (before the filter), then, at the first in
     * the filter's order, an empty and/or (protocolError: get_filter_list;
     * a parenthesis in a value is escaped) or an extensible item it has
     * no plugin for (unavailableCriticalExtension) */
    if (is389 && scope == ACRE_SCOPE_CHILDREN) {
        *ldap_rc = LDAP_PROTOCOL_ERROR;
        return 0;
    }
    acre_diag fd = {0};
    rc = acreF_parse_flags(tmp, rq->schema, filter, strlen(filter),
                           is389 ? ACREF_389_SEARCH : 0, &f, &fd);
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (is389 && (!rc || rc == ACRE_ERR_FILTER_RULE)) {
        const char *a = strstr(filter, "(&)"), *o = strstr(filter, "(|)");
        const char *e = !a ? o : !o ? a : a < o ? a : o;
        if (e && (!rc || (size_t)(e - filter) < fd.offset)) {
            *ldap_rc = LDAP_PROTOCOL_ERROR;
            return 0;
        }
    }
    if (rc) {
        *ldap_rc = rc == ACRE_ERR_FILTER_RULE && is389
                       ? LDAP_UNAVAILABLE_CRITICAL_EXTENSION
                       : LDAP_FILTER_ERROR;
        return 0;
    }
    /* a proxied authorization naming the directory manager (under ACI
     * rules an authc_dn stands for 389's control: eval_aci.c) is refused
     * once the request is decoded (op_shared_search: proxyauth_get_dn) */
    if (is389 && rq->who.authc_dn && rq->authz && rq->p->aci->rootdn &&
        acre_dn_equal(rq->authz, rq->p->aci->rootdn)) {
        *ldap_rc = LDAP_UNAVAILABLE_CRITICAL_EXTENSION;
        return 0;
    }
    /* then its back end's rewrite of numSubordinates and hasSubordinates
     * items refuses a filter that is one item it cannot rewrite */
    if (acreF_unwilling(f)) {
        *ldap_rc = LDAP_UNWILLING_TO_PERFORM;
        return 0;
    }
    /* slapd's limits_check refuses a size.unchecked=disabled requester
     * before the back end looks at the base */
    long limit = ACRE_LIMIT_NONE;
    if ((rc = acreV_unchecked(rq, bdn, &limit)))
        return rc;
    if (limit == 0) {
        *ldap_rc = LDAP_ADMIN_LIMIT_EXCEEDED;
        return 0;
    }
    rq->err = 0;
    if (!rq->host.search)
        return ACRE_ERR_LOOKUP;
    if (missing389) { /* no matched DN: the text names no entry's parent */
        *ldap_rc = LDAP_NO_SUCH_OBJECT;
        return 0;
    }
    w->filter = f;
    w->sel = &sel;
    w->scope = scope;
    w->ldapsub = acreF_names_value(f, "objectclass", "ldapsubentry");
    w->db = glue_base(rq, bdn, scope);
    if (!w->db && !rq->p->aci)
        w->db = acreI_section_for(rq->p->ir, bdn);
    const struct acreI_section *top =
        rq->p->aci ? NULL : glue_top(rq->p->ir, w->db, scope);
    if (top)
        return glued_search(rq, tmp, w, top, bdn, scope, limit, ldap_rc);
    if ((rc = check_base(rq, bdn, scope, f, ldap_rc)))
        return rc < 0 ? rc : 0;
    int refused;
    if ((rc = candidates(rq, tmp, bdn, scope, f, limit, &w->cands, &w->ncands,
                         &refused)))
        return rc;
    if (refused) {
        *ldap_rc = LDAP_ADMIN_LIMIT_EXCEEDED;
        return 0;
    }
    if (is389 && (rc = candidates_389(rq, tmp, bdn, scope, f, &w->ids389)))
        return rc;
    rc = rq->host.search(rq->host.arg, bdn, scope, visit, w);
    if (w->rc)
        return w->rc;
    return rc < 0 ? ACRE_ERR_LOOKUP : 0;
}

/*
 * acre_search -- see acre.h.  rq, base, filter, fn and ldap_rc must not be
 * NULL, nor attrs (or one of its strings) when nattrs > 0; scope is an enum
 * acre_scope.  The matched DN is a copy under rq->mem that replaces the
 * previous search's.  A non-zero return of fn ends the search with 0 and
 * *ldap_rc 0.  On an error *ldap_rc is not meaningful.
 */
ACRE_PUBLIC int
acre_search(acre_request *rq, const char *base, int scope, const char *filter,
            const char *const *attrs, unsigned nattrs, acre_search_fn fn,
            void *arg, int *ldap_rc, const char **matched)
{
    struct walk w = {rq, NULL, NULL, fn, arg, 0, 0, 0, NULL, 0, NULL, NULL};
    void *tmp;
    int rc;

    if (matched)
        *matched = NULL;
    if (!acreE_is(rq, ACREE_REQUEST_MAGIC))
        return rq ? ACRE_ERR_BADOBJ : ACRE_ERR_INVAL;
    if (!base || !filter || !fn || !ldap_rc || (nattrs && !attrs) ||
        scope < ACRE_SCOPE_BASE || scope > ACRE_SCOPE_CHILDREN)
        return ACRE_ERR_INVAL;
    for (unsigned i = 0; i < nattrs; i++)
        if (!attrs[i])
            return ACRE_ERR_INVAL;
    talloc_free(rq->matched);
    rq->matched = NULL;
    *ldap_rc = LDAP_SUCCESS;
    if (rq->p->aci)
        acreV_aci_operation(rq);
    if (!(tmp = talloc_new(rq->mem)))
        return ACRE_ERR_NOMEM;
    rc = search(rq, tmp, base, scope, filter, attrs, nattrs, &w, ldap_rc);
    talloc_free(tmp);
    if (matched)
        *matched = rq->matched;
    return rc;
}
