/*
 * openldap_oracle_set.c -- "by set=" for the reference evaluator: the set
 * expression's value, as slapd 2.5's sets.c and acl_set_gather() compute
 * it, and whether it is empty.
 *
 * A set is a list of distinct byte strings (slapd compares with bvmatch:
 * exact bytes).  this = the entry's normalised DN; user = the requester's
 * normalised authorisation DN ("" when anonymous, which is still one
 * element); [text] = the text, not normalised; x/attr = for each element
 * (a DN, normalised first; or an ldap:/// URL searched as the rootdn) the
 * normalised values of exactly that attribute description, entryDN being
 * the DN itself; x/attr* repeats that on what it finds until nothing new
 * appears (the start is not included); x/-n = the n-th parents; x/-* =
 * each element and all its ancestors, the root "" included; | & + =
 * union, intersection and pairwise concatenation.  Values read here are
 * not access-checked.
 * Invariant: the element count of any set stays within what the
 * directory holds, so closures terminate.
 */
#include "openldap_oracle_int.h"
#include "url.h"

#include "filter.h"
#include "schema.h"

#include <string.h>
#include <strings.h>
#include <talloc.h>

struct set {
    const char **v;
    size_t *len;
    unsigned n, cap;
};

static int
set_has(const struct set *s, const char *v, size_t n)
{
    for (unsigned i = 0; i < s->n; i++)
        if (s->len[i] == n && memcmp(s->v[i], v, n) == 0)
            return 1;
    return 0;
}

/* Add v[0..n) unless present (the string is copied). */
static int
set_add(void *ctx, struct set *s, const char *v, size_t n)
{
    if (set_has(s, v, n))
        return 0;
    if (s->n == s->cap) {
        unsigned ncap = s->cap ? s->cap * 2 : 8;
        const char **nv = talloc_realloc(ctx, s->v, const char *, ncap);
        size_t *nl = nv ? talloc_realloc(ctx, s->len, size_t, ncap) : NULL;
        if (nv)
            s->v = nv;
        if (!nl)
            return -1;
        s->len = nl;
        s->cap = ncap;
    }
    if (!(s->v[s->n] = talloc_strndup(ctx, v, n)))
        return -1;
    s->len[s->n++] = n;
    return 0;
}

static int
set_union(void *ctx, struct set *into, const struct set *from)
{
    for (unsigned i = 0; i < from->n; i++)
        if (set_add(ctx, into, from->v[i], from->len[i]))
            return -1;
    return 0;
}

/* ------------------------------------------------------------------------
 * Gathering attribute values
 */

/* A class's values as the entry spells them: slapd has no normaliser
 * for objectClass (objectIdentifierMatch), a_nvals are a_vals. */
static int
add_attr_values(void *ctx, const acre_schema *s, struct set *out,
                const acre_view_attr *a)
{
    const struct acreS_known *k = acreS_known(s);
    int cls = a && (acreS_desc_of(s, a->id)->type == k->objectClass ||
                    acreS_desc_of(s, a->id)->type == k->structuralObjectClass);

    for (uint32_t i = 0; a && i < a->nvals; i++) {
        int has;
        const acre_value *v = cls ? &a->vals[i] : acreR_norm(a, i, &has);
        if (set_add(ctx, out, v->val, v->len))
            return -1;
    }
    return 0;
}

/* Values of `ad` (or the DN for entryDN) of entry e into out. */
static int
entry_values(struct check *c, struct set *out, const acre_entry_view *e,
             const struct acreI_setnode *nd)
{
    if (nd->entrydn) {
        size_t n;
        const char *dn = acre_dn_normalised(e->dn, &n);
        return set_add(c->tmp, out, dn, n);
    }
    return add_attr_values(c->tmp, c->o->schema, out,
                           acreR_oracle_find_desc(c->o->schema, e, nd->ad));
}

struct url_walk {
    struct check *c;
    struct set *out;
    const struct acreI_setnode *nd;
    const struct acreI_attrspec *extra; /* the URL's attributes */
    unsigned nextra;
    const struct acreF_filter *filter;
    const struct acreI_section *db; /* the database slapd searches */
    struct acreR_oracle *as;        /* as whom: NULL its rootdn, else no one */
    int failed;
};

static int
url_visit(void *ctx, const acre_entry_view *e)
{
    struct url_walk *w = ctx;

    struct acreF_hooks h = acreR_dir_hooks(w->c->o->dir);
    /* its entries, and those of the databases glued below it */
    const struct acreI_policy *cfg = w->c->o->cfg;
    const struct acreI_section *db = acreR_oracle_section(cfg, e->dn);
    if (db != w->db &&
        !(db && db->subordinate && acreR_oracle_superior(cfg, db) == w->db))
        return 0;
    if (w->as ? !acreR_oracle_search_match(w->as, w->filter, e)
              : w->filter && acreF_eval(w->filter, e, &h) != ACREF_TRUE)
        return 0;
    for (unsigned i = 0; i < w->nextra; i++)
        if (add_attr_values(
                w->c->tmp, w->c->o->schema, w->out,
                acreR_oracle_find_desc(w->c->o->schema, e, &w->extra[i])))
            return w->failed = 1;
    if (entry_values(w->c, w->out, e, w->nd))
        return w->failed = 1;
    return 0;
}

/* The URL's attribute list, resolved (unknown names skipped). */
static struct acreI_attrspec *
url_attrs(struct check *c, const struct acreE_url *u, unsigned *n)
{
    struct acreI_attrspec *v =
        talloc_zero_array(c->tmp, struct acreI_attrspec, u->nattrs + 1);

    *n = 0;
    for (unsigned i = 0; v && i < u->nattrs; i++) {
        struct acreS_desc d;
        if (acreS_desc_parse(c->o->schema, u->attrs[i], strlen(u->attrs[i]),
                             &d) ||
            d.type < 0 || d.nopts)
            continue;
        v[*n].kind = ACREI_ATTR_EXACT;
        v[(*n)++].type = d.type;
    }
    return v;
}

/* url_visit over the directory's entries. */
static int
url_visit_dir(void *ctx, const struct acreE_entry *e)
{
    return url_visit(ctx, &e->v);
}

/* An ldap:/// element: search the database slapd selects as its rootdn
 * and collect. */
static int
gather_url(struct check *c, struct set *out, const char *s, size_t n,
           const struct acreI_setnode *nd)
{
    struct acreE_url u;
    struct acreF_filter *f = NULL;
    struct url_walk w = {c, out, nd, NULL, 0, NULL, NULL, NULL, 0};
    const acre_dn *base;

    if (acreE_url_parse(c->tmp, s, n, &u) || u.host[0] || u.nexts)
        return 0;
    if (!(base = acreR_oracle_parse_dn(c, u.dn, strlen(u.dn))))
        return 0;
    /* slapd's select_backend(dn, 1): the first database holding base
     * that is no glued subordinate; none: nothing */
    for (unsigned d = 0; !w.db && d < c->o->cfg->ndbs; d++) {
        const struct acreI_section *db = &c->o->cfg->dbs[d];
        for (unsigned i = 0; !db->subordinate && i < db->nsuffix; i++)
            if (acre_dn_in_scope(base, db->suffix[i], ACRE_SCOPE_SUB) == 1)
                w.db = db;
    }
    if (!w.db)
        return 0;
    if (u.filter &&
        acreF_parse(c->tmp, c->o->schema, u.filter, strlen(u.filter), &f, NULL))
        return 0;
    w.filter = f;
    if (!(w.extra = url_attrs(c, &u, &w.nextra)))
        return -1;
    if (!w.db->rootdn) {
        /* slapd searches as that database's rootdn: it has none, so as
         * no one, on the requester's connection (its real DN the
         * requester's); search on the base entry, then on each item of
         * the filter, (objectClass=*) when none */
        struct acreR_oracle *o = c->o;
        if (!o->anon) {
            struct acreR_requester a = o->rq;
            if (o->anon_depth >= 4)
                return -1; /* slapd would recurse without end */
            a.authc_dn = o->rq.authc_dn ? o->rq.authc_dn : o->rq.authz_dn;
            a.authz_dn = NULL;
            if (acreR_oracle_new(o, o->cfg, o->dir, &a, &o->anon))
                return -1;
            o->anon->anon_depth = o->anon_depth + 1;
        }
        w.as = o->anon;
        if (!f &&
            acreF_parse(c->tmp, o->schema, "(objectClass=*)", 15, &f, NULL))
            return -1;
        w.filter = f;
        const acre_entry_view *be = acreR_oracle_find(o, base);
        if (!be || !acreR_oracle_search_base(w.as, be))
            return 0;
    }
    acreE_dir_walk(c->o->dir, base, u.scope, url_visit_dir, &w);
    return w.failed ? -1 : 0;
}

/* slapd's acl_set_gather for one element. */
static int
gather(struct check *c, struct set *out, const char *s, size_t n,
       const struct acreI_setnode *nd)
{
    if (n >= 8 && !strncasecmp(s, "ldap:///", 8))
        return gather_url(c, out, s, n, nd);
    const acre_dn *dn = acreR_oracle_parse_dn(c, s, n);
    if (!dn)
        return 0;
    if (nd->entrydn) {
        size_t k;
        const char *t = acre_dn_normalised(dn, &k);
        return set_add(c->tmp, out, t, k);
    }
    const acre_entry_view *e = acreR_oracle_find(c->o, dn);
    return e ? entry_values(c, out, e, nd) : 0;
}

/* ------------------------------------------------------------------------
 * Evaluation
 */

/* The parent of a normalised DN string (slapd's dnParent). */
static void
parent_of(struct check *c, const char *s, size_t n, const char **p, size_t *pn)
{
    const acre_dn *dn = acreR_oracle_parse_dn(c, s, n);

    if (dn) {
        unsigned d = acre_dn_depth(dn);
        *p = d ? acre_dn_ancestor(dn, d - 1, pn) : "";
        if (!d)
            *pn = 0;
        return;
    }
    const char *comma = memchr(s, ',', n);
    *p = comma ? comma + 1 : "";
    *pn = comma ? n - (size_t)(comma + 1 - s) : 0;
}

static int eval(struct check *c, const struct acreI_setnode *nd,
                struct set *out, int depth);

static int
eval_attr(struct check *c, const struct acreI_setnode *nd, struct set *out,
          int depth)
{
    struct set in = {0};

    if (eval(c, nd->kid[0], &in, depth + 1))
        return -1;
    for (unsigned i = 0; i < in.n; i++)
        if (gather(c, out, in.v[i], in.len[i], nd))
            return -1;
    for (unsigned i = 0; nd->closure && i < out->n; i++)
        if (gather(c, out, out->v[i], out->len[i], nd))
            return -1;
    return 0;
}

static int
eval_parent(struct check *c, const struct acreI_setnode *nd, struct set *out,
            int depth)
{
    struct set in = {0};

    if (eval(c, nd->kid[0], &in, depth + 1))
        return -1;
    for (unsigned i = 0; i < in.n; i++) {
        const char *s = in.v[i];
        size_t n = in.len[i];
        long up =
            nd->op == ACREI_SET_ANCESTORS ? ACRE_DN_MAX_RDNS + 1 : nd->level;
        if (nd->op == ACREI_SET_ANCESTORS && set_add(c->tmp, out, s, n))
            return -1;
        for (long k = 0; k < up && k <= ACRE_DN_MAX_RDNS && n > 0; k++) {
            parent_of(c, s, n, &s, &n);
            if (nd->op == ACREI_SET_ANCESTORS && set_add(c->tmp, out, s, n))
                return -1;
        }
        if (nd->op == ACREI_SET_PARENT && set_add(c->tmp, out, s, n))
            return -1;
    }
    return 0;
}

static int
eval_binary(struct check *c, const struct acreI_setnode *nd, struct set *out,
            int depth)
{
    struct set l = {0}, r = {0};

    if (eval(c, nd->kid[0], &l, depth + 1) ||
        eval(c, nd->kid[1], &r, depth + 1))
        return -1;
    if (nd->op == ACREI_SET_UNION)
        return set_union(c->tmp, out, &l) || set_union(c->tmp, out, &r) ? -1
                                                                        : 0;
    for (unsigned i = 0; i < l.n; i++) {
        if (nd->op == ACREI_SET_INTERSECT) {
            if (set_has(&r, l.v[i], l.len[i]) &&
                set_add(c->tmp, out, l.v[i], l.len[i]))
                return -1;
            continue;
        }
        for (unsigned j = 0; j < r.n; j++) {
            char *cat = talloc_asprintf(c->tmp, "%.*s%.*s", (int)l.len[i],
                                        l.v[i], (int)r.len[j], r.v[j]);
            if (!cat || set_add(c->tmp, out, cat, l.len[i] + r.len[j]))
                return -1;
        }
    }
    return 0;
}

static int
eval(struct check *c, const struct acreI_setnode *nd, struct set *out,
     int depth)
{
    if (depth > ACREO_MAX_SET_DEPTH * 4)
        return -1;
    switch (nd->op) {
    case ACREI_SET_THIS:
        return set_add(c->tmp, out, c->endn, c->endn_len);
    case ACREI_SET_USER:
        /* an anonymous connection has no DN at all (o_ndn null): sets.c
         * fails the expression; an operation proxied to anonymous has
         * the empty DN, the one element "" */
        if (!c->o->rq.authz_dn)
            return -1;
        return set_add(c->tmp, out, c->o->authz_norm, strlen(c->o->authz_norm));
    case ACREI_SET_LITERAL:
        return set_add(c->tmp, out, nd->lit, nd->lit_len);
    case ACREI_SET_ATTR:
        return eval_attr(c, nd, out, depth);
    case ACREI_SET_PARENT:
        if (nd->level == 0)
            return eval(c, nd->kid[0], out, depth + 1);
        return eval_parent(c, nd, out, depth);
    case ACREI_SET_ANCESTORS:
        return eval_parent(c, nd, out, depth);
    default:
        return eval_binary(c, nd, out, depth);
    }
}

int
acreR_oracle_set_matches(struct check *c, const struct acreI_set *set,
                         const struct matches *tm)
{
    const struct acreI_setnode *root = set->root;
    struct set out = {0};

    if (set->invalid)
        return 0;
    if (set->expand) {
        char buf[ACREI_EXPAND_MAX + 1];
        size_t n, off;
        if (acreI_expand(set->text.tmpl, set->text.len, tm->dn_src, tm->dn,
                         tm->dn_count, tm->val_src, tm->val, tm->val_count, buf,
                         &n) ||
            acreO_set_parse(c->tmp, c->o->schema, buf, n, &root, &off))
            return 0;
    }
    return eval(c, root, &out, 0) == 0 && out.n > 0;
}
