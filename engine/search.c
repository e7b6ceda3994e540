/*
 * search.c -- acre_search: a search of the request's directory as the
 * requester, checked as slapd 2.5's back-mdb search and send_search_entry()
 * do.  The reference evaluator's acreO_oracle_search
 * (tests/oracle/openldap_oracle_search.c), validated against slapd, is the
 * specification; this file reproduces it over the compiled policy.
 *
 * What a search checks:
 *   1. the base entry needs search (s) on `entry`; without it the result
 *      is noSuchObject, or insufficientAccess when the mask holds
 *      disclose (d); a missing base discloses its nearest existing
 *      ancestor as matchedDN only with d on that ancestor's `entry`, and
 *      only when that ancestor is in the base's database;
 *   2. each candidate in scope is tested against the filter with search
 *      access asked for each item (through acreF_eval's hook; a denied
 *      item is Undefined) and must come out True;
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
 * Memory: the base DN, the filter and the selection live in a talloc
 * context under rq->mem that is freed before returning.  The per-entry
 * path allocates nothing of its own: checks use the request's scratch,
 * verdicts its verdict buffers.
 */
#include "collective.h"
#include "directory.h"
#include "entry.h"
#include "eval.h"
#include "filter.h"
#include "internal.h"
#include "ir.h"
#include "policy.h"
#include "schema.h"

#include <string.h>
#include <talloc.h>

/* LDAP result codes acre_search reports */
#define LDAP_SUCCESS             0
#define LDAP_NO_SUCH_OBJECT      32
#define LDAP_INVALID_DN_SYNTAX   34
#define LDAP_INSUFFICIENT_ACCESS 50
#define LDAP_FILTER_ERROR        87

/* ------------------------------------------------------------------------
 * Attribute selection
 */

struct selection {
    const acre_schema *schema;
    int user, oper; /* all user / all operational attributes */
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
    sel->want = talloc_array(ctx, struct acreS_desc, n + 1);
    if (!sel->want)
        return ACRE_ERR_NOMEM;
    for (unsigned i = 0; i < n; i++) {
        if (!strcmp(attrs[i], "*"))
            sel->user = 1;
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
selected(void *arg, const struct acreE_attr *a)
{
    const struct selection *sel = arg;
    unsigned nopts =
        a->nopts < ACRES_MAX_OPTIONS ? a->nopts : ACRES_MAX_OPTIONS;
    struct acreS_desc have = {a->type, a->desc, a->desc_len, nopts, {0}, {0}};
    int oper =
        a->type >= 0 && acreS_attr(sel->schema, a->type)->usage != ACRES_USER;

    for (unsigned i = 0; i < nopts; i++) {
        have.opts[i] = a->opts[i];
        have.opt_len[i] = a->opt_len[i];
    }
    for (unsigned i = 0; i < sel->n; i++)
        if (acreS_desc_matches(sel->schema, &have, &sel->want[i]))
            return 1;
    return oper ? sel->oper : sel->user;
}

/* ------------------------------------------------------------------------
 * Checks
 */

/* check_entry -- `want` on e's pseudo-attribute "entry"; *mask (may be
 * NULL) the mask the deciding rule left. */
static int
check_entry(struct acre_request *rq, const struct acreE_entry *e,
            enum acreI_access want, uint32_t *mask)
{
    struct acreV_check c;

    if (rq->p->id_entry < 0)
        return 0;
    acreV_check_init(&c, rq, e, rq->p->id_entry, NULL, NULL, 0);
    return acreV_decide(&c, want, mask);
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

/* missing_base -- a base that does not exist: noSuchObject, its nearest
 * existing ancestor as matched DN when that is in the same database and
 * disclosed. */
static int
missing_base(struct acre_request *rq, const acre_dn *base,
             const struct acreI_section *db, int *ldap_rc)
{
    const struct acreE_entry *m =
        rq->dir ? acreE_dir_matched(rq->dir, base) : NULL;

    *ldap_rc = LDAP_NO_SUCH_OBJECT;
    if (m && acreI_section_for(rq->p->ir, m->dn) == db &&
        check_entry(rq, m, ACREI_ACCESS_DISCLOSE, NULL))
        return set_matched(rq, m->dn);
    return 0;
}

/*
 * check_base -- find and check the base entry.  Returns 0 with *out set
 * to go on; 1 when *ldap_rc is decided; ACRE_ERR_NOMEM.
 */
static int
check_base(struct acre_request *rq, const acre_dn *base, int *ldap_rc,
           const struct acreE_entry **out)
{
    const struct acreI_section *db = acreI_section_for(rq->p->ir, base);
    const struct acreE_entry *e =
        db && rq->dir ? acreE_dir_find(rq->dir, base) : NULL;
    uint32_t mask = 0;
    int rc;

    if (!e) {
        if (!db) {
            *ldap_rc = LDAP_NO_SUCH_OBJECT;
            return 1;
        }
        rc = missing_base(rq, base, db, ldap_rc);
        return rc ? rc : 1;
    }
    if (!check_entry(rq, e, ACREI_ACCESS_SEARCH, &mask)) {
        *ldap_rc = (mask & ACREI_PRIV_DISCLOSE) ? LDAP_INSUFFICIENT_ACCESS
                                                : LDAP_NO_SUCH_OBJECT;
        return 1;
    }
    *out = e;
    return 0;
}

/* ------------------------------------------------------------------------
 * The walk
 */

struct walk {
    struct acre_request *rq;
    const struct acreF_filter *filter;
    struct selection *sel;
    acre_search_fn fn;
    void *arg;
    int rc;               /* ACRE_ERR_NOMEM when the walk stopped for it */
    struct acreV_check c; /* the candidate's filter checks */
    int scope;            /* enum acre_scope */
};

/*
 * filter_access -- acreF_eval's hook: search access on the description the
 * item names (type and options, as slapd's access_allowed receives it)
 * and the asserted value.  The candidate's checks share one check (one
 * epoch), so the filters of rule targets are evaluated once per
 * candidate, as acreV_entry_verdict does for its values.
 */
static int
filter_access(void *ctx, const struct acreE_entry *e,
              const struct acreF_desc *d, const uint8_t *value, size_t len)
{
    struct walk *w = ctx;

    if (w->c.e != e) /* not the candidate: a check of its own */
        acreV_check_init(&w->c, w->rq, e, d->type, NULL, value, len);
    w->c.type = d->type;
    w->c.nopts = d->nopts;
    w->c.opts = d->opts;
    w->c.opt_len = d->opt_len;
    w->c.val = value;
    w->c.val_len = len;
    w->c.val_str = NULL;
    return acreV_decide(&w->c, ACREI_ACCESS_SEARCH, NULL);
}

/* visit -- one candidate: filter, read on "entry", values, callback.
 * Non-zero stops the walk (the caller's wish or an error in w->rc). */
static int
visit(void *ctx, const struct acreE_entry *e)
{
    struct walk *w = ctx;
    struct acre_request *rq = w->rq;
    const struct acreC_result *cr = NULL;
    const struct acreE_entry *fe = e;
    acre_verdict v;
    int rc;

    /* back-mdb: with the subentries control only subentries, without it
     * no subentry but a base one */
    if (rq->flags & ACRE_REQ_SUBENTRIES
            ? !acreC_is_subentry(rq->p, e)
            : w->scope != ACRE_SCOPE_BASE && acreC_is_subentry(rq->p, e))
        return 0;
    /* collective values before the candidate's checks (slapo-collect
     * sources are checked too); filters see them as X.500 says */
    if (rq->p->coll && (rc = acreC_compute(rq, e, NULL, &cr)) != 0) {
        w->rc = rc;
        return 1;
    }
    if (cr && !(rq->p->coll->flags & ACRE_COLL_NO_FILTER) &&
        !(fe = acreC_merged(rq, e, cr))) {
        w->rc = ACRE_ERR_NOMEM;
        return 1;
    }
    acreV_check_init(&w->c, rq, fe, rq->p->id_entry, NULL, NULL, 0);
    if (acreF_eval(w->filter, fe, filter_access, w) != ACREF_TRUE)
        return 0;
    rc =
        acreV_entry_verdict(rq, e, ACREI_ACCESS_READ, selected, w->sel, cr, &v);
    if (rc) {
        w->rc = rc;
        return 1;
    }
    if (!v.visible)
        return 0;
    return w->fn(w->arg, (const acre_entry *)e, &v) ? 1 : 0;
}

/* ------------------------------------------------------------------------
 * API
 */

/* search -- acre_search once the arguments are known good; temporary
 * memory under tmp. */
static int
search(struct acre_request *rq, void *tmp, const char *base, int scope,
       const char *filter, const char *const *attrs, unsigned nattrs,
       struct walk *w, int *ldap_rc)
{
    struct selection sel;
    struct acreF_filter *f;
    const struct acreE_entry *be;
    acre_dn *bdn;
    int rc;

    if (select_attrs(rq->schema, tmp, attrs, nattrs, &sel))
        return ACRE_ERR_NOMEM;
    rc = acre_dn_parse(tmp, rq->schema, base, strlen(base), 0, &bdn, NULL);
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc) {
        *ldap_rc = LDAP_INVALID_DN_SYNTAX;
        return 0;
    }
    rc = acreF_parse(tmp, rq->schema, filter, strlen(filter), &f, NULL);
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc) {
        *ldap_rc = LDAP_FILTER_ERROR;
        return 0;
    }
    if ((rc = check_base(rq, bdn, ldap_rc, &be)))
        return rc < 0 ? rc : 0;
    w->filter = f;
    w->sel = &sel;
    w->scope = scope;
    acreE_dir_walk(rq->dir, bdn, scope, visit, w);
    return w->rc;
}

/*
 * acre_search -- see acre.h.  rq, base, filter, fn and ldap_rc must not be
 * NULL, nor attrs (or one of its strings) when nattrs > 0; scope is an enum
 * acre_scope.  The matched DN is a copy under rq->mem that replaces the
 * previous search's.  A non-zero return of fn ends the search with 0 and
 * *ldap_rc 0.  On ACRE_ERR_NOMEM *ldap_rc is not meaningful.
 */
ACRE_PUBLIC int
acre_search(acre_request *rq, const char *base, int scope, const char *filter,
            const char *const *attrs, unsigned nattrs, acre_search_fn fn,
            void *arg, int *ldap_rc, const char **matched)
{
    struct walk w = {rq, NULL, NULL, fn, arg, 0, {0}, 0};
    void *tmp;
    int rc;

    if (matched)
        *matched = NULL;
    if (!rq || !base || !filter || !fn || !ldap_rc || (nattrs && !attrs) ||
        scope < ACRE_SCOPE_BASE || scope > ACRE_SCOPE_CHILDREN)
        return ACRE_ERR_INVAL;
    for (unsigned i = 0; i < nattrs; i++)
        if (!attrs[i])
            return ACRE_ERR_INVAL;
    talloc_free(rq->matched);
    rq->matched = NULL;
    *ldap_rc = LDAP_SUCCESS;
    if (!(tmp = talloc_new(rq->mem)))
        return ACRE_ERR_NOMEM;
    rc = search(rq, tmp, base, scope, filter, attrs, nattrs, &w, ldap_rc);
    talloc_free(tmp);
    if (matched)
        *matched = rq->matched;
    return rc;
}
