/*
 * openldap_oracle_search.c -- searches and slapacl output for the
 * reference evaluator, checked as slapd 2.5's back-mdb search and
 * send_search_entry() (back-mdb/search.c, result.c) and slapacl do.
 *
 * What a search checks:
 *   1. the base entry needs search (s) on `entry`; without it the result
 *      is noSuchObject, or insufficientAccess when the mask holds
 *      disclose (d); a missing base discloses its nearest existing
 *      ancestor as matchedDN only with d on that ancestor's `entry`;
 *   2. each candidate in scope is tested against the filter with search
 *      access asked for each item (through acreF_eval's hook; a denied
 *      item is Undefined) and must come out True;
 *   3. a matching entry needs read (r) on `entry`, else it is skipped;
 *   4. each value of each selected attribute needs read with that value;
 *      an attribute is returned when one of its values is;
 *   5. only the entries of the base's database are candidates, then, in a
 *      one-level or subtree search, those of the "subordinate" databases
 *      glued with it and within it, in configuration order, the base's
 *      own among them at its place (slapd's glue overlay).
 * Attribute selection: none or "*": user attributes; "+": operational
 * ones; names (with subtypes and options); "1.1": nothing.
 */
#include "openldap_oracle_int.h"

#include "filter.h"
#include "schema.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

/* ------------------------------------------------------------------------
 * Attribute selection
 */

struct selection {
    int user, oper;
    unsigned n;
    struct acreS_desc *want;
};

static int
select_attrs(struct acreR_oracle *o, void *ctx, const char *const *attrs,
             unsigned n, struct selection *sel)
{
    memset(sel, 0, sizeof(*sel));
    sel->user = n == 0;
    sel->want = talloc_array(ctx, struct acreS_desc, n + 1);
    if (!sel->want)
        return ACRE_ERR_NOMEM;
    for (unsigned i = 0; i < n; i++) {
        if (!strcmp(attrs[i], "*"))
            sel->user = 1;
        else if (!strcmp(attrs[i], "+"))
            sel->oper = 1;
        else if (!acreS_desc_parse(o->schema, attrs[i], strlen(attrs[i]),
                                   &sel->want[sel->n]) &&
                 sel->want[sel->n].type >= 0)
            sel->n++;
    }
    return 0;
}

/* slapd's ad_inlist for a requested description: the attribute's type
 * is the requested one or a subtype, and each requested tag is satisfied
 * by one of the attribute's (language ranges included). */
static int
desc_in(const struct acreR_oracle *o, const struct acreS_dinfo *a,
        const struct acreS_desc *want)
{
    if (!acreS_is_subtype(o->schema, a->type, want->type))
        return 0;
    for (unsigned i = 0; i < want->nopts; i++) {
        int found = 0;
        for (unsigned j = 0; j < a->nopts && !found; j++)
            found = acreR_oracle_tag_covers(want->opts[i], want->opt_len[i],
                                            a->opts[j], a->opt_len[j]);
        if (!found)
            return 0;
    }
    return 1;
}

static int
selected(const struct acreR_oracle *o, const struct selection *sel,
         const acre_view_attr *a)
{
    const struct acreS_dinfo *d = acreS_dinfo(o->schema, a->id);
    int oper = acreS_attr(o->schema, d->type)->usage != ACRES_USER;

    for (unsigned i = 0; i < sel->n; i++)
        if (desc_in(o, d, &sel->want[i]))
            return 1;
    return oper ? sel->oper : sel->user;
}

/* ------------------------------------------------------------------------
 * The search
 */

struct walk {
    struct acreR_oracle *o;
    void *ctx;
    const struct acreF_filter *filter;
    const struct selection *sel;
    struct acreR_search *res;
    int nomem;
    const struct acreI_section *db; /* whose entries alone are returned */
};

static int
check_entry(struct acreR_oracle *o, const acre_entry_view *e,
            enum acreI_access want, uint32_t *mask)
{
    struct acreR_target t;

    if (acreR_target_type(o, &t, e, "entry") < 0)
        return 0;
    return acreR_oracle_check(o, &t, want, mask, NULL);
}

/* acreF_eval's hook: search access on the description the item names
 * (type and options, as slapd's filterentry.c passes its
 * AttributeDescription) and the asserted value. */
static int
filter_access(void *ctx, const acre_entry_view *e, const struct acreF_desc *d,
              const uint8_t *value, size_t len)
{
    struct acreR_oracle *o = ctx;
    struct acreR_target t = {e,          d->type, d->nopts, d->opts,
                             d->opt_len, value,   len};

    return acreR_oracle_check(o, &t, ACREI_ACCESS_SEARCH, NULL, NULL);
}

/* acreR_oracle_search_base -- see openldap_oracle_int.h. */
int
acreR_oracle_search_base(struct acreR_oracle *o, const acre_entry_view *e)
{
    return check_entry(o, e, ACREI_ACCESS_SEARCH, NULL);
}

/* acreR_oracle_search_match -- see openldap_oracle_int.h. */
int
acreR_oracle_search_match(struct acreR_oracle *o, const struct acreF_filter *f,
                          const acre_entry_view *e)
{
    struct acreF_hooks h = acreR_dir_hooks(o->dir);

    h.access = filter_access;
    h.ctx = o;
    return acreF_eval(f, e, &h) == ACREF_TRUE;
}

/* The readable values of a; 0 when none.  Checked in order with one
 * state, as slap_send_search_entry checks them. */
static int
readable_attr(struct walk *w, const acre_entry_view *e, const acre_view_attr *a,
              struct acreR_sattr *out)
{
    struct acreR_astate st = {0};

    out->attr = a;
    out->nvals = 0;
    out->vals = talloc_array(w->ctx, const acre_value *, a->nvals);
    if (!out->vals)
        return w->nomem = 1, 0;
    for (uint32_t i = 0; i < a->nvals; i++) {
        struct acreR_target t;
        acreR_target_attr(&t, w->o->schema, e, a, (int)i);
        if (acreR_oracle_check_seq(w->o, &t, ACREI_ACCESS_READ, NULL, NULL,
                                   &st))
            out->vals[out->nvals++] = &a->vals[i];
    }
    return out->nvals > 0;
}

static int
send_entry(struct walk *w, const acre_entry_view *e)
{
    struct acreR_search *r = w->res;
    struct acreR_sentry *v = talloc_realloc(
        w->ctx, r->entries, struct acreR_sentry, r->nentries + 1);
    if (!v)
        return w->nomem = 1;
    r->entries = v;
    struct acreR_sentry *se = &v[r->nentries++];
    se->entry = e;
    se->nattrs = 0;
    se->attrs = talloc_array(w->ctx, struct acreR_sattr, e->nattrs + 1);
    if (!se->attrs)
        return w->nomem = 1;
    for (uint32_t i = 0; i < e->nattrs; i++)
        if (selected(w->o, w->sel, &e->attrs[i]) &&
            readable_attr(w, e, &e->attrs[i], &se->attrs[se->nattrs]))
            se->nattrs++;
    return w->nomem;
}

static int
visit(void *ctx, const struct acreE_entry *de)
{
    struct walk *w = ctx;
    const acre_entry_view *e = &de->v;
    struct acreF_hooks h = acreR_dir_hooks(w->o->dir);

    h.access = filter_access;
    h.ctx = w->o;
    if (w->db && acreR_oracle_section(w->o->cfg, e->dn) != w->db)
        return 0;
    if (acreF_eval(w->filter, e, &h) != ACREF_TRUE)
        return 0;
    if (!check_entry(w->o, e, ACREI_ACCESS_READ, NULL))
        return 0;
    return send_entry(w, e);
}

/* A base that does not exist: noSuchObject, matchedDN if disclosed. */
static void
missing_base(struct acreR_oracle *o, const acre_dn *base,
             const struct acreI_section *db, struct acreR_search *res)
{
    const struct acreE_entry *dm = acreE_dir_matched(o->dir, base);
    const acre_entry_view *m = dm ? &dm->v : NULL;

    res->rc = 32;
    if (m && acreR_oracle_section(o->cfg, m->dn) == db &&
        check_entry(o, m, ACREI_ACCESS_DISCLOSE, NULL))
        res->matched = acre_dn_pretty(m->dn, NULL);
}

/* The base entry: 0 to go on, else the result is decided. */
static int
check_base(struct acreR_oracle *o, const acre_dn *base,
           struct acreR_search *res, const acre_entry_view **out)
{
    const struct acreI_section *db = acreR_oracle_section(o->cfg, base);
    const acre_entry_view *e = db ? acreR_oracle_find(o, base) : NULL;
    uint32_t mask = 0;

    if (!e) {
        if (db)
            missing_base(o, base, db, res);
        else
            res->rc = 32;
        return 1;
    }
    if (!check_entry(o, e, ACREI_ACCESS_SEARCH, &mask)) {
        res->rc = (mask & ACREI_PRIV_DISCLOSE) ? 50 : 32;
        return 1;
    }
    *out = e;
    return 0;
}

/* acreR_oracle_superior -- see openldap_oracle_int.h. */
const struct acreI_section *
acreR_oracle_superior(const struct acreI_policy *cfg,
                      const struct acreI_section *s)
{
    for (unsigned d = (unsigned)(s - cfg->dbs) + 1; d < cfg->ndbs; d++)
        if (!cfg->dbs[d].subordinate && cfg->dbs[d].nsuffix &&
            acre_dn_in_scope(s->suffix[0], cfg->dbs[d].suffix[0],
                             ACRE_SCOPE_SUB) == 1)
            return &cfg->dbs[d];
    return NULL;
}

int
acreR_oracle_search(struct acreR_oracle *o, void *ctx, const char *base,
                    int scope, const char *filter, const char *const *attrs,
                    unsigned nattrs, struct acreR_search **out)
{
    struct acreR_search *res = talloc_zero(ctx, struct acreR_search);
    struct selection sel;
    struct acreF_filter *f;
    acre_dn *bdn;
    const acre_entry_view *be;

    if (!res || select_attrs(o, res, attrs, nattrs, &sel))
        return ACRE_ERR_NOMEM;
    *out = res;
    if (acre_dn_parse(res, o->schema, base, strlen(base), 0, &bdn, NULL)) {
        res->rc = 34;
        return 0;
    }
    if (acreF_parse(res, o->schema, filter, strlen(filter), &f, NULL)) {
        res->rc = 87;
        return 0;
    }
    /* back-mdb returns its own database's entries (select_backend) */
    const struct acreI_section *db = acreR_oracle_section(o->cfg, bdn);
    struct walk w = {o, res, f, &sel, res, 0, db};
    /* slapd's glue overlay (backglue.c glue_sub_attach, glue_op_search):
     * a "subordinate" database hangs from the first database after it
     * that is no subordinate and holds its suffix; a one-level or
     * subtree search in the superior or in one of its subordinates runs
     * in the superior first (when the base is there), then in each of
     * its subordinates in configuration order, skipping those outside
     * the base's database: in the base's database as asked, in another
     * from its suffix (a one-level search of the suffix's parent reads
     * the suffix entry, a subtree search above the suffix its subtree),
     * each with its own base check; the first result is kept, a
     * success, adminLimitExceeded or noSuchObject replaces it, anything
     * replaces a failure, another database's noSuchObject counts as a
     * success, and a kept noSuchObject or limit ends the search */
    const struct acreI_section *top = NULL;
    int glued = 0;
    if (db && (scope == ACRE_SCOPE_ONE || scope == ACRE_SCOPE_SUB))
        top = db->subordinate ? acreR_oracle_superior(o->cfg, db) : db;
    for (unsigned d = 0; top && d < o->cfg->ndbs; d++)
        glued |= o->cfg->dbs[d].subordinate && o->cfg->dbs[d].nsuffix &&
                 acreR_oracle_superior(o->cfg, &o->cfg->dbs[d]) == top;
    if (!glued) {
        if (!check_base(o, bdn, res, &be))
            acreE_dir_search(o->dir, bdn, scope, visit, &w);
        return w.nomem ? ACRE_ERR_NOMEM : 0;
    }
    int err = 53;
    for (int d = -1; d < (int)o->cfg->ndbs && !w.nomem; d++) {
        const struct acreI_section *s = d < 0 ? top : &o->cfg->dbs[d];
        const acre_dn *sb = bdn;
        int sc = scope;
        if (d >= 0 && (!s->subordinate || !s->nsuffix ||
                       acreR_oracle_superior(o->cfg, s) != top))
            continue;
        if (s != db) {
            if (d < 0 ||
                acre_dn_in_scope(s->suffix[0], db->suffix[0], ACRE_SCOPE_SUB) !=
                    1 ||
                acre_dn_in_scope(s->suffix[0], bdn, scope) != 1)
                continue;
            sb = s->suffix[0];
            sc = scope == ACRE_SCOPE_ONE ? ACRE_SCOPE_BASE : ACRE_SCOPE_SUB;
        }
        res->rc = 0;
        if (!check_base(o, sb, res, &be)) {
            w.db = s;
            acreE_dir_search(o->dir, sb, sc, visit, &w);
        }
        if (res->rc == 0 || res->rc == 11 || res->rc == 32 || err != 0)
            err = res->rc;
        if (s != db && res->rc == 32)
            err = 0;
        if (err == 0)
            res->matched = NULL;
        if (err == 11 || err == 32)
            break;
    }
    res->rc = err;
    return w.nomem ? ACRE_ERR_NOMEM : 0;
}

/* ------------------------------------------------------------------------
 * slapacl
 */

static void
put_line(char **s, const char *name, const char *val, size_t vlen,
         uint32_t mask)
{
    char buf[ACRE_MASK_BUF];

    if (!*s)
        return;
    acreI_mask_format(mask, buf);
    *s = val ? talloc_asprintf_append_buffer(*s, "%s=%.*s: %s\n", name,
                                             (int)vlen, val, buf)
             : talloc_asprintf_append_buffer(*s, "%s: %s\n", name, buf);
}

/* The attribute's name as slapd prints it: the schema's, then the
 * options. */
static char *
attr_name(struct acreR_oracle *o, void *ctx, const acre_view_attr *a)
{
    return talloc_strdup(ctx, acreS_dinfo(o->schema, a->id)->text);
}

char *
acreR_oracle_slapacl(struct acreR_oracle *o, void *ctx,
                     const acre_entry_view *e)
{
    char *s = talloc_strdup(ctx, "");
    uint32_t mask = 0;
    struct acreR_target t;

    acreR_target_type(o, &t, e, "entry");
    acreR_oracle_check(o, &t, ACREI_ACCESS_AUTH, &mask, NULL);
    put_line(&s, "entry", NULL, 0, mask);
    acreR_target_type(o, &t, e, "children");
    acreR_oracle_check(o, &t, ACREI_ACCESS_AUTH, &mask, NULL);
    put_line(&s, "children", NULL, 0, mask);
    for (uint32_t i = 0; s && i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        char *name = attr_name(o, s, a);
        for (uint32_t j = 0; name && j < a->nvals; j++) {
            acreR_target_attr(&t, o->schema, e, a, (int)j);
            acreR_oracle_check(o, &t, ACREI_ACCESS_AUTH, &mask, NULL);
            int pw = t.type == o->id_userpassword;
            put_line(&s, name, pw ? "****" : (const char *)a->vals[j].val,
                     pw ? 4 : a->vals[j].len, mask);
        }
    }
    return s;
}
