/*
 * memberof.c -- OpenDJ's virtual isMemberOf, and 389's memberOf where
 * the data does not store it: the groups an entry belongs
 * to, computed from the host's group entries when the request asks for it
 * (ACRE_REQ_ISMEMBEROF, ACRE_REQ_MEMBEROF) and the entry stores no
 * attribute of that name of its own.  Both kinds share one index; a query
 * says which kind it computes.
 *
 * memberOf is what 389's memberOf plugin would have written (with member
 * and uniqueMember as its group attributes; slapd's memberof overlay
 * writes less: groupOfNames that list the entry directly): the static
 * groups only, nested and cycle-safe as
 * below; a dynamic group is no group for it (neither are its members
 * members, nor does a static group listing it pass them on), but the
 * groupOfURLs entry itself, listed in a static group, has that memberOf.
 *
 * What is a group (OpenDJ's StaticGroup and DynamicGroup):
 *   static:  objectClass groupOfNames or groupOfEntries (members in
 *            `member`) or groupOfUniqueNames (`uniqueMember`); an entry
 *            with two of these classes, or with ds-virtual-static-group,
 *            is no group.  A member value naming another group makes that
 *            group's members members too (nesting); a visited set stops
 *            cycles.
 *   dynamic: objectClass groupOfURLs: an entry is a member when it is in
 *            the base and scope of one of its memberURLs and matches the
 *            URL's filter (none: every entry).  A dynamic group has no
 *            nested members, but a static group may list it.
 * Classes are recognised by name (as stored, without case).
 *
 * The index: every group found by subtree searches of the host at the
 * policy's database suffixes (an ACI policy: of the root DN, every
 * entry the host holds), its
 * normalised DN, and a reverse map (member DN -> groups listing
 * it) sorted for binary search.  Built once per (host arg, generation) and
 * shared through the policy by every request on that host while its
 * generation stays the same (generation 0: built per request).  A query
 * walks upward from the entry's DN through the reverse map, using the
 * request's visited set and stack (sized to the index when it is taken),
 * so the per-entry path allocates nothing but what a memberURL filter's
 * evaluation may.
 *
 * 389's nsRole (ACRE_REQ_NSROLE) comes from the same index: the role
 * definitions among the entries searched (objectClass
 * nsManagedRoleDefinition, nsFilteredRoleDefinition or
 * nsNestedRoleDefinition, first match in that order), sorted by normalised
 * DN.  An entry holds role R when it is in the subtree of R's parent (of
 * R's nsRoleScopeDN instead when that is in R's suffix: acreV_role_scope)
 * and R is managed and one of the entry's nsRoleDN values names R (compared as
 * DNs), filtered and the entry matches R's (first) nsRoleFilter (which
 * sees no virtual nsRole or memberOf, but CoS values: cos.c; a filtered
 * role is disabled, as 389's roles plugin disables it, when a CoS
 * template scanned before it under its parent matches it:
 * disable_roles), or nested
 * and the entry holds a role of the index that R's nsRoleDN names,
 * ACREV_ROLE_NEST levels at most: what eval_aci.c's roledn asks of the
 * requester, asked of any entry.  The values are the roles' normalised DNs, as
 * 389 returns them.
 *
 * Fail closed: a host without search, a search that fails, or memory that
 * runs out while building fails the check (ACRE_ERR_LOOKUP, NOMEM).
 */
#include "eval.h"

#include "buf.h"
#include "cos.h"
#include "dn.h"
#include "entry.h"
#include "filter.h"
#include "internal.h"
#include "ir.h"
#include "match.h"
#include "policy.h"
#include "schema.h"
#include "url.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

struct mo_url {
    acre_dn *base;
    int scope;
    struct acreF_filter *f; /* NULL: every entry */
};

struct mo_group {
    const char *ndn;
    size_t len;
    acre_value dn;       /* the DN as the group entry has it (pretty form) */
    struct mo_url *urls; /* dynamic: its memberURLs */
    uint32_t nurls;
    int dynamic;
};

struct mo_edge {
    const char *member; /* normalised DN */
    size_t len;
    uint32_t group;
};

enum { R_MANAGED = 1, R_FILTERED, R_NESTED };

struct mo_role {
    acre_value ndn;         /* normalised DN: the nsRole value */
    const char *scope;      /* normalised DN of its parent */
    size_t scope_len;       /* (a role at the root has no scope) */
    int kind;               /* R_* */
    struct acreF_filter *f; /* filtered: nsRoleFilter, NULL if none */
    const char **nested;    /* nested: nsRoleDN values, normalised */
    size_t *nested_len;
    uint32_t nnested;
};

struct acreV_moidx {
    int refs; /* atomic: the policy's and each request's */
    const void *host;
    uint64_t gen;
    struct mo_group *g; /* sorted by DN */
    uint32_t ng;
    struct mo_edge *ed; /* sorted by member */
    uint32_t ne;
    uint32_t *dyn; /* the dynamic groups */
    uint32_t ndyn;
    struct mo_role *r; /* sorted by DN */
    uint32_t nr;
    struct acreV_cos *cos; /* 389's CoS definitions (cos.c), or NULL */
};

/* ------------------------------------------------------------------------
 * Building
 */

#define C_NAMES    0x1u   /* groupOfNames */
#define C_ENTRIES  0x2u   /* groupOfEntries */
#define C_UNIQUE   0x4u   /* groupOfUniqueNames */
#define C_URLS     0x8u   /* groupOfURLs */
#define C_VIRTUAL  0x10u  /* ds-virtual-static-group */
#define C_MANAGED  0x20u  /* nsManagedRoleDefinition */
#define C_FILTERED 0x40u  /* nsFilteredRoleDefinition */
#define C_NESTED   0x80u  /* nsNestedRoleDefinition */
#define C_TEMPLATE 0x100u /* cosTemplate */

/* A CoS template seen by the scan: its DN and the number of entries
 * seen before it (the roles plugin's test of filtered roles). */
struct mo_tmpl {
    acre_dn *dn;
    uint32_t pos;
};

struct build {
    struct acre_request *rq;
    struct acreV_moidx *x;
    const struct acreS_known *k;
    size_t capg, cape, capr;
    int rc;
    uint32_t pos;         /* entries the scan has seen */
    uint32_t *rpos;       /* each role's pos, by index in x->r */
    struct mo_tmpl *tmpl; /* the CoS templates seen */
    uint32_t nt, capt;
};

static unsigned
class_bits(const acre_schema *s, int oc_type, const acre_entry_view *e)
{
    static const struct {
        const char *name;
        unsigned bit;
    } names[] = {{"groupOfNames", C_NAMES},
                 {"groupOfEntries", C_ENTRIES},
                 {"groupOfUniqueNames", C_UNIQUE},
                 {"groupOfURLs", C_URLS},
                 {"ds-virtual-static-group", C_VIRTUAL},
                 {"nsManagedRoleDefinition", C_MANAGED},
                 {"nsFilteredRoleDefinition", C_FILTERED},
                 {"nsNestedRoleDefinition", C_NESTED},
                 {"cosTemplate", C_TEMPLATE}};

    unsigned bits = 0;

    for (uint32_t i = 0; i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        if (acreE_attr_type(s, a) != oc_type)
            continue;
        for (uint32_t j = 0; j < a->nvals; j++)
            for (size_t n = 0; n < sizeof names / sizeof names[0]; n++)
                if (strlen(names[n].name) == a->vals[j].len &&
                    !strncasecmp(names[n].name, (const char *)a->vals[j].val,
                                 a->vals[j].len))
                    bits |= names[n].bit;
    }
    return bits;
}

/* The normalised form of DN text s[0..n) (a uniqueMember's "#'...'B"
 * suffix dropped), copied under x; NULL when it is no DN. */
static const char *
member_dn(struct build *b, const char *s, size_t n, size_t *len)
{
    acre_dn *dn = NULL;
    const char *hash = memchr(s, '#', n);

    if (acre_dn_parse(b->x, b->rq->schema, s, n, 0, &dn, NULL) && hash)
        acre_dn_parse(b->x, b->rq->schema, s, (size_t)(hash - s), 0, &dn, NULL);
    if (!dn)
        return NULL;
    const char *t = acre_dn_normalised(dn, len);
    char *c = t ? talloc_strndup(b->x, t, *len) : NULL;
    talloc_free(dn);
    if (t && !c)
        b->rc = ACRE_ERR_NOMEM;
    return c;
}

static int
add_edge(struct build *b, const char *m, size_t len, uint32_t g)
{
    struct acreV_moidx *x = b->x;

    if (x->ne == b->cape) {
        b->cape = b->cape ? 2 * b->cape : 64;
        x->ed = talloc_realloc(x, x->ed, struct mo_edge, b->cape);
        if (!x->ed)
            return b->rc = ACRE_ERR_NOMEM;
    }
    x->ed[x->ne++] = (struct mo_edge){m, len, g};
    return 0;
}

static int
static_members(struct build *b, const acre_entry_view *e, int type, uint32_t g)
{
    for (uint32_t i = 0; i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        if (acreE_attr_type(b->rq->schema, a) != type)
            continue;
        for (uint32_t j = 0; j < a->nvals; j++) {
            size_t len = 0;
            const char *m = member_dn(b, (const char *)a->vals[j].val,
                                      a->vals[j].len, &len);
            if (b->rc || (m && add_edge(b, m, len, g)))
                return b->rc;
        }
    }
    return 0;
}

/* One memberURL: kept when it parses (no host part checked: OpenDJ reads
 * only base, scope and filter). */
static int
add_url(struct build *b, struct mo_group *g, const acre_value *v)
{
    struct acreE_url u;
    struct mo_url m = {NULL, 0, NULL};

    if (acreE_url_parse(b->x, (const char *)v->val, v->len, &u))
        return 0;
    if (acre_dn_parse(b->x, b->rq->schema, u.dn, strlen(u.dn), 0, &m.base,
                      NULL))
        return 0;
    m.scope = u.scope;
    if (u.filter && u.filter[0] &&
        acreF_parse(b->x, b->rq->schema, u.filter, strlen(u.filter), &m.f,
                    NULL))
        return 0;
    g->urls = talloc_realloc(b->x, g->urls, struct mo_url, g->nurls + 1);
    if (!g->urls)
        return b->rc = ACRE_ERR_NOMEM;
    g->urls[g->nurls++] = m;
    return 0;
}

static int
dynamic_urls(struct build *b, const acre_entry_view *e, struct mo_group *g)
{
    for (uint32_t i = 0; i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        if (acreE_attr_type(b->rq->schema, a) != b->k->memberURL)
            continue;
        for (uint32_t j = 0; j < a->nvals; j++)
            if (add_url(b, g, &a->vals[j]))
                return b->rc;
    }
    return 0;
}

/* The first value of e's attribute of plain type t (no options: what
 * 389's roles read, and eval_aci.c's find_attr), or NULL. */
static const acre_value *
first_value(int t, const acre_entry_view *e)
{
    const acre_view_attr *a = t >= 0 ? acreE_entry_attr(e, t) : NULL;

    return a && a->nvals ? &a->vals[0] : NULL;
}

/* The nsRoleDN values of nested role r, normalised. */
static int
nested_roles(struct build *b, const acre_entry_view *e, struct mo_role *r)
{
    const acre_view_attr *a =
        b->k->nsRoleDN >= 0 ? acreE_entry_attr(e, b->k->nsRoleDN) : NULL;

    if (a) {
        r->nested = talloc_array(b->x, const char *, a->nvals + 1);
        r->nested_len = talloc_array(b->x, size_t, a->nvals + 1);
        if (!r->nested || !r->nested_len)
            return b->rc = ACRE_ERR_NOMEM;
        for (uint32_t j = 0; j < a->nvals; j++) {
            size_t len = 0;
            const char *m = member_dn(b, (const char *)a->vals[j].val,
                                      a->vals[j].len, &len);
            if (b->rc)
                return b->rc;
            if (m) {
                r->nested[r->nnested] = m;
                r->nested_len[r->nnested++] = len;
            }
        }
    }
    return 0;
}

/* The depth of dn's topmost ancestor (dn included) the host holds: its
 * suffix entry; 0 for none, -1 when memory ran out (a failed lookup fails
 * the request: acreV_host_get). */
static int
top_depth(struct acre_request *rq, void *tmp, const acre_dn *dn)
{
    for (unsigned d = 1; d <= acre_dn_depth(dn); d++) {
        size_t n;
        const char *t = acre_dn_ancestor(dn, d, &n);
        const acre_entry_view *v;
        acre_dn *a = NULL;
        int rc = acre_dn_parse(tmp, rq->schema, t, n, 0, &a, NULL);
        if (rc)
            return rc == ACRE_ERR_NOMEM ? -1 : 0;
        int found = acreV_host_get(rq, a, &v);
        acreV_host_release(rq, v);
        talloc_free(a);
        if (found)
            return (int)d;
    }
    return 0;
}

/* acreV_role_scope -- see eval.h. */
int
acreV_role_scope(struct acre_request *rq, void *ctx,
                 const acre_entry_view *role, const acre_dn **out)
{
    const struct acreS_known *k = acreS_known(rq->schema);
    const acre_value *v = first_value(k->nsRoleScopeDN, role);
    acre_dn *dn = NULL;

    *out = role->dn;
    if (!v || !v->len)
        return 0;
    int rc = acre_dn_parse(ctx, rq->schema, (const char *)v->val, v->len, 0,
                           &dn, NULL);
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc || !acre_dn_depth(dn))
        return 0;
    int d = top_depth(rq, ctx, dn),
        rd = d > 0 ? top_depth(rq, ctx, role->dn) : 0;
    if (d < 0 || rd < 0)
        return ACRE_ERR_NOMEM; /* never the role's own reach instead */
    size_t an = 0, bn = 0;
    const char *as = d ? acre_dn_ancestor(dn, (unsigned)d, &an) : NULL;
    const char *bs = d ? acre_dn_ancestor(role->dn, (unsigned)d, &bn) : NULL;
    if (d && d == rd && bs && an == bn && !memcmp(as, bs, an))
        *out = dn; /* in the role's suffix: 389 takes it */
    return 0;
}

/* A role definition: kept with what deciding it needs. */
static int
add_role(struct build *b, const acre_entry_view *e, unsigned bits)
{
    struct acreV_moidx *x = b->x;
    size_t n, pn = 0;
    const acre_dn *scope;
    if (acreV_role_scope(b->rq, x, e, &scope))
        return b->rc = ACRE_ERR_NOMEM;
    unsigned depth = acre_dn_depth(scope);
    const char *t = acre_dn_normalised(e->dn, &n);
    const char *p = depth ? acre_dn_ancestor(scope, depth - 1, &pn) : NULL;

    if (x->nr == b->capr) {
        b->capr = b->capr ? 2 * b->capr : 8;
        if (!(x->r = talloc_realloc(x, x->r, struct mo_role, b->capr)) ||
            !(b->rpos = talloc_realloc(x, b->rpos, uint32_t, b->capr)))
            return b->rc = ACRE_ERR_NOMEM;
    }
    b->rpos[x->nr] = b->pos;
    struct mo_role *r = &x->r[x->nr];
    memset(r, 0, sizeof(*r));
    char *c = t ? talloc_strndup(x, t, n) : NULL;
    char *sc = p ? talloc_strndup(x, p, pn) : NULL;
    if (!c || (p && !sc))
        return b->rc = ACRE_ERR_NOMEM;
    r->ndn = (acre_value){.val = (const uint8_t *)c, .len = n};
    r->scope = sc;
    r->scope_len = pn;
    x->nr++;
    if (bits & C_MANAGED) {
        r->kind = R_MANAGED;
    } else if (bits & C_FILTERED) {
        const acre_value *v = first_value(b->k->nsRoleFilter, e);
        r->kind = R_FILTERED;
        /* the roles plugin reads it with slapi_str2filter */
        if (v &&
            acreF_parse_flags(x, b->rq->schema, (const char *)v->val, v->len,
                              ACREF_389_PARENS, &r->f, NULL) == ACRE_ERR_NOMEM)
            return b->rc = ACRE_ERR_NOMEM;
    } else {
        r->kind = R_NESTED;
        return nested_roles(b, e, r);
    }
    return 0;
}

/* Keep CoS template e's DN for disable_roles. */
static int
add_template(struct build *b, const acre_entry_view *e)
{
    size_t n;
    const char *t = acre_dn_normalised(e->dn, &n);

    if (b->nt == b->capt) {
        b->capt = b->capt ? 2 * b->capt : 8;
        if (!(b->tmpl = talloc_realloc(b->x, b->tmpl, struct mo_tmpl, b->capt)))
            return b->rc = ACRE_ERR_NOMEM;
    }
    struct mo_tmpl *m = &b->tmpl[b->nt];
    if (acre_dn_parse(b->x, b->rq->schema, t, n, 0, &m->dn, NULL))
        return b->rc = ACRE_ERR_NOMEM;
    m->pos = b->pos;
    b->nt++;
    return 0;
}

/*
 * disable_roles -- 389's roles plugin refuses a filtered role when a CoS
 * template under the role's parent matches its filter (roles_cache.c:
 * "not allowed to refer virtual attribute", an internal subtree search of
 * (&(objectclass=costemplate)FILTER)).  It asks when its cache thread
 * takes the role's definition in, which during a load may be after later
 * entries were added: only the templates loaded before the role are
 * certain to be seen, and those are the ones asked here (the host's scan
 * order being the load order).  The template's stored values decide.
 */
static int
disable_roles(struct build *b)
{
    struct acreV_moidx *x = b->x;
    struct acre_request *rq = b->rq;

    for (uint32_t i = 0; i < x->nr; i++) {
        struct mo_role *r = &x->r[i];
        if (r->kind != R_FILTERED || !r->f)
            continue;
        acre_dn *rdn;
        if (acre_dn_parse(NULL, rq->schema, (const char *)r->ndn.val,
                          r->ndn.len, 0, &rdn, NULL))
            return ACRE_ERR_NOMEM;
        /* the role's parent: its last pd RDNs, whose text a template
         * within it ends with */
        unsigned pd = acre_dn_depth(rdn) ? acre_dn_depth(rdn) - 1 : 0;
        size_t pn, an;
        const char *p = acre_dn_ancestor(rdn, pd, &pn);
        for (uint32_t t = 0; t < b->nt && r->f; t++) {
            const struct mo_tmpl *m = &b->tmpl[t];
            const acre_entry_view *e;
            const char *a = acre_dn_ancestor(m->dn, pd, &an);
            if (m->pos > b->rpos[i] || !a || an != pn || memcmp(a, p, pn))
                continue;
            if (acreV_host_get(rq, m->dn, &e) != 1) {
                /* the scan has just seen it: a failure, which fails the
                 * index (and the check) rather than leave the role on */
                acre_dn_free(rdn);
                return rq->err ? rq->err : ACRE_ERR_LOOKUP;
            }
            struct acreF_hooks h = acreV_filter_hooks(rq, NULL, NULL);
            h.cos = NULL; /* the index being built: stored values */
            int busy = rq->mo_busy;
            rq->mo_busy = 1;
            if (acreV_filter_eval(rq, r->f, e, &h) == ACREF_TRUE)
                r->f = NULL; /* disabled: it holds no entry */
            rq->mo_busy = busy;
            acreV_host_release(rq, e);
            if (rq->err) { /* the evaluation failed: so does the index */
                acre_dn_free(rdn);
                return rq->err;
            }
        }
        acre_dn_free(rdn);
    }
    return 0;
}

/* The host search's callback: one entry, a group, a role or neither. */
static int
visit(void *arg, const acre_entry_view *e)
{
    struct build *b = arg;
    struct acreV_moidx *x = b->x;
    unsigned bits = class_bits(b->rq->schema, b->k->objectClass, e);
    unsigned nstatic =
        !!(bits & C_NAMES) + !!(bits & C_ENTRIES) + !!(bits & C_UNIQUE);

    b->pos++;
    if ((bits & (C_MANAGED | C_FILTERED | C_NESTED)) && add_role(b, e, bits))
        return b->rc;
    if ((bits & C_TEMPLATE) && add_template(b, e))
        return b->rc;
    if ((b->rc = acreV_cos_visit(x, &x->cos, b->rq, e)))
        return b->rc;

    if ((bits & C_VIRTUAL) || nstatic > 1 || (!nstatic && !(bits & C_URLS)))
        return 0;
    if (x->ng == b->capg) {
        b->capg = b->capg ? 2 * b->capg : 16;
        if (!(x->g = talloc_realloc(x, x->g, struct mo_group, b->capg)))
            return b->rc = ACRE_ERR_NOMEM;
    }
    struct mo_group *g = &x->g[x->ng];
    memset(g, 0, sizeof(*g));
    const char *t = acre_dn_normalised(e->dn, &g->len);
    const char *pt = acre_dn_pretty(e->dn, &g->dn.len);
    char *pc = pt ? talloc_strndup(x, pt, g->dn.len) : NULL;
    if (!t || !pc || !(g->ndn = talloc_strndup(x, t, g->len)))
        return b->rc = ACRE_ERR_NOMEM;
    g->dn.val = (const uint8_t *)pc;
    g->dynamic = !nstatic;
    x->ng++;
    if (g->dynamic)
        return dynamic_urls(b, e, g);
    return static_members(
        b, e, bits & C_UNIQUE ? b->k->uniqueMember : b->k->member, x->ng - 1);
}

static int
str_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    return c ? c : (an > bn) - (an < bn);
}

static int
group_cmp(const void *a, const void *b)
{
    const struct mo_group *x = a, *y = b;
    return str_cmp(x->ndn, x->len, y->ndn, y->len);
}

static int
edge_cmp(const void *a, const void *b)
{
    const struct mo_edge *x = a, *y = b;
    return str_cmp(x->member, x->len, y->member, y->len);
}

static uint32_t group_find(const struct acreV_moidx *x, const char *s,
                           size_t n);

static int
role_cmp(const void *a, const void *b)
{
    const struct mo_role *x = a, *y = b;
    return str_cmp((const char *)x->ndn.val, x->ndn.len,
                   (const char *)y->ndn.val, y->ndn.len);
}

/* Sort the groups by DN and the edges by member, with each edge's group
 * renumbered to its group's sorted place; list the dynamic groups. */
static int
finish(struct acreV_moidx *x)
{
    const char **gdn = talloc_array(x, const char *, x->ng + 1);
    size_t *glen = talloc_array(x, size_t, x->ng + 1);
    if (!gdn || !glen)
        return ACRE_ERR_NOMEM;
    for (uint32_t i = 0; i < x->ng; i++) {
        gdn[i] = x->g[i].ndn;
        glen[i] = x->g[i].len;
    }
    if (x->ng) /* (qsort takes no NULL, even for no element) */
        qsort(x->g, x->ng, sizeof(*x->g), group_cmp);
    for (uint32_t i = 0; i < x->ne; i++) {
        uint32_t o = x->ed[i].group;
        x->ed[i].group = group_find(x, gdn[o], glen[o]);
    }
    talloc_free(gdn);
    talloc_free(glen);
    if (x->ne)
        qsort(x->ed, x->ne, sizeof(*x->ed), edge_cmp);
    if (x->nr)
        qsort(x->r, x->nr, sizeof(*x->r), role_cmp);
    if (!(x->dyn = talloc_array(x, uint32_t, x->ng + 1)))
        return ACRE_ERR_NOMEM;
    for (uint32_t i = 0; i < x->ng; i++)
        if (x->g[i].dynamic)
            x->dyn[x->ndyn++] = i;
    return 0;
}

/* Is suffix s of database d below a suffix searched before it? */
static int
covered(const struct acreI_policy *ir, unsigned d, unsigned s)
{
    const acre_dn *dn = ir->dbs[d].suffix[s];

    for (unsigned e = 0; e <= d; e++)
        for (unsigned t = 0; t < ir->dbs[e].nsuffix && (e < d || t < s); t++)
            if (acre_dn_in_scope(dn, ir->dbs[e].suffix[t], ACRE_SCOPE_SUB) == 1)
                return 1;
    return 0;
}

/* Every entry of the policy's databases through the host's search; an
 * ACI policy has none: every entry of the host's naming contexts (a
 * subtree search of the root DN), as 389's roles and memberOf plugins
 * and OpenDJ's isMemberOf see every suffix. */
static int
search_all(struct acre_request *rq, struct build *b)
{
    const struct acreI_policy *ir = rq->p->ir;
    acre_dn *root;
    int rc = 0;

    if (!rq->host.search)
        return ACRE_ERR_LOOKUP;
    if (ir->model == ACREI_MODEL_ACI) {
        if (acre_dn_parse(b->x, rq->schema, "", 0, 0, &root, NULL))
            return ACRE_ERR_NOMEM;
        return rq->host.search(rq->host.arg, root, ACRE_SCOPE_SUB, visit, b);
    }
    for (unsigned d = 0; d < ir->ndbs && !rc; d++)
        for (unsigned s = 0; s < ir->dbs[d].nsuffix && !rc; s++)
            if (!covered(ir, d, s))
                rc = rq->host.search(rq->host.arg, ir->dbs[d].suffix[s],
                                     ACRE_SCOPE_SUB, visit, b);
    return rc;
}

/* A new index of rq's host, or NULL with rq failed. */
static struct acreV_moidx *
build(struct acre_request *rq)
{
    struct acreV_moidx *x = talloc_zero(NULL, struct acreV_moidx);
    struct build b = {.rq = rq, .x = x, .k = acreS_known(rq->schema)};
    int rc;

    if (!x) {
        acreV_fail(rq, ACRE_ERR_NOMEM);
        return NULL;
    }
    x->refs = 1;
    x->host = rq->host.arg;
    x->gen = rq->host.generation;
    rc = search_all(rq, &b);
    if (b.rc)
        rc = b.rc;
    else if (!rc && !(rc = rq->p->aci ? disable_roles(&b) : 0) &&
             !(rc = finish(x)))
        rc = acreV_cos_finish(x->cos, rq);
    if (rc) {
        talloc_free(x);
        acreV_fail(rq, rc == ACRE_ERR_NOMEM ? rc : ACRE_ERR_LOOKUP);
        return NULL;
    }
    return x;
}

/* ------------------------------------------------------------------------
 * Sharing
 */

static struct acreV_moidx *
ref(struct acreV_moidx *x)
{
    if (x)
        __atomic_add_fetch(&x->refs, 1, __ATOMIC_RELAXED);
    return x;
}

static void
unref(struct acreV_moidx *x)
{
    if (x && __atomic_sub_fetch(&x->refs, 1, __ATOMIC_ACQ_REL) == 0)
        talloc_free(x);
}

/* acreV_memberof_drop -- see eval.h. */
void
acreV_memberof_drop(struct acre_policy *p)
{
    unref(p->memberof);
    p->memberof = NULL;
}

/* acreV_memberof_end -- see eval.h. */
void
acreV_memberof_end(struct acre_request *rq)
{
    unref(rq->mo);
    rq->mo = NULL;
}

static int
current(const struct acre_request *rq, const struct acreV_moidx *x)
{
    return x && x->host == rq->host.arg && x->gen == rq->host.generation;
}

/* The policy's index of the host when current, else a new one (kept in
 * the policy unless the generation is 0); with a reference. */
static struct acreV_moidx *
shared(struct acre_request *rq)
{
    struct acre_policy *p = rq->p;
    struct acreV_moidx *x = NULL;

    if (rq->host.generation) {
        pthread_mutex_lock(&p->lock);
        if (current(rq, p->memberof))
            x = ref(p->memberof);
        pthread_mutex_unlock(&p->lock);
        if (x)
            return x;
    }
    if (!(x = build(rq)) || !rq->host.generation)
        return x;
    pthread_mutex_lock(&p->lock);
    unref(p->memberof);
    p->memberof = ref(x);
    pthread_mutex_unlock(&p->lock);
    return x;
}

/* The request's index, and its visited set and stack for it. */
static struct acreV_moidx *
take(struct acre_request *rq)
{
    struct acreV_moidx *x;

    if (current(rq, rq->mo))
        return rq->mo;
    acreV_memberof_end(rq);
    if (!(x = shared(rq)))
        return NULL;
    talloc_free(rq->mo_seen);
    talloc_free(rq->mo_stack);
    talloc_free(rq->mo_vals);
    rq->mo_seen = talloc_zero_array(rq, uint8_t, x->ng + 1);
    rq->mo_stack = talloc_array(rq, uint32_t, x->ng + 1);
    rq->mo_vals = talloc_array(rq, acre_value, x->ng + 1);
    talloc_free(rq->mo_rvals);
    rq->mo_rvals = talloc_array(rq, acre_value, x->nr + 1);
    if (!rq->mo_seen || !rq->mo_stack || !rq->mo_vals || !rq->mo_rvals) {
        unref(x);
        acreV_fail(rq, ACRE_ERR_NOMEM);
        return NULL;
    }
    return rq->mo = x;
}

/* acreV_cos_of -- see cos.h. */
const struct acreV_cos *
acreV_cos_of(struct acre_request *rq, int *rc)
{
    const struct acreV_moidx *x = take(rq);

    *rc = x ? 0 : rq->err ? rq->err : ACRE_ERR_LOOKUP;
    return x ? x->cos : NULL;
}

/* ------------------------------------------------------------------------
 * Queries
 */

/* The index of DN s[0..n) among count records sorted by DN (key gives
 * record i's), or UINT32_MAX. */
static uint32_t
find_sorted(const struct acreV_moidx *x, uint32_t count,
            const char *(*key)(const struct acreV_moidx *, uint32_t, size_t *),
            const char *s, size_t n)
{
    uint32_t lo = 0, hi = count;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        size_t kn;
        const char *k = key(x, mid, &kn);
        int c = str_cmp(k, kn, s, n);
        if (!c)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return UINT32_MAX;
}

static const char *
group_key(const struct acreV_moidx *x, uint32_t i, size_t *n)
{
    *n = x->g[i].len;
    return x->g[i].ndn;
}

static uint32_t
group_find(const struct acreV_moidx *x, const char *s, size_t n)
{
    return find_sorted(x, x->ng, group_key, s, n);
}

/* The first edge whose member is s[0..n). */
static uint32_t
edge_first(const struct acreV_moidx *x, const char *s, size_t n)
{
    uint32_t lo = 0, hi = x->ne;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (str_cmp(x->ed[mid].member, x->ed[mid].len, s, n) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Is e a member of dynamic group g?  Its URL filters see no virtual
 * isMemberOf (rq->mo_busy). */
static int
dynamic_has(struct acre_request *rq, const struct mo_group *g,
            const acre_entry_view *e)
{
    for (uint32_t i = 0; i < g->nurls; i++) {
        const struct mo_url *u = &g->urls[i];
        int in = u->scope == ACRE_SCOPE_BASE
                     ? acre_dn_equal(e->dn, u->base)
                     : acre_dn_in_scope(e->dn, u->base, u->scope) == 1;
        if (!in)
            continue;
        if (!u->f)
            return 1;
        struct acreF_hooks h = acreV_filter_hooks(rq, NULL, NULL);
        rq->mo_busy = 1;
        enum acreF_result r = acreV_filter_eval(rq, u->f, e, &h);
        rq->mo_busy = 0;
        if (r == ACREF_TRUE)
            return 1;
    }
    return 0;
}

#define MO_ALL (UINT32_MAX - 1)

struct walk {
    struct acre_request *rq;
    const struct acreV_moidx *x;
    uint32_t target; /* UINT32_MAX: any group; MO_ALL: every group */
    uint32_t top;    /* entries on rq->mo_stack */
    int dynamic;     /* dynamic groups count (isMemberOf, not memberOf) */
};

/* Reached group g: 1 when it is the target, else pushed once. */
static int
reach(struct walk *w, uint32_t g)
{
    if (w->target == UINT32_MAX || g == w->target)
        return 1; /* (MO_ALL names no group: the index holds fewer) */
    if (!w->rq->mo_seen[g]) {
        w->rq->mo_seen[g] = 1;
        w->rq->mo_stack[w->top++] = g;
    }
    return 0;
}

/* The groups listing DN s[0..n): 1 when one is the target. */
static int
listed_in(struct walk *w, const char *s, size_t n)
{
    const struct acreV_moidx *x = w->x;

    for (uint32_t i = edge_first(x, s, n);
         i < x->ne && !str_cmp(x->ed[i].member, x->ed[i].len, s, n); i++)
        if (x->ed[i].group != UINT32_MAX && reach(w, x->ed[i].group))
            return 1;
    return 0;
}

static int
walk(struct walk *w, const acre_entry_view *e)
{
    size_t n = 0;
    const char *s = acre_dn_normalised(e->dn, &n);
    const struct acreV_moidx *x = w->x;

    if (!s)
        return 0;
    for (uint32_t i = 0; i < x->ndyn && w->dynamic; i++)
        if (dynamic_has(w->rq, &x->g[x->dyn[i]], e) && reach(w, x->dyn[i]))
            return 1;
    if (listed_in(w, s, n))
        return 1;
    for (uint32_t k = 0; k < w->top; k++) { /* the stack grows as we go */
        const struct mo_group *g = &x->g[w->rq->mo_stack[k]];
        if (listed_in(w, g->ndn, g->len))
            return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Roles
 */

static const char *
role_key(const struct acreV_moidx *x, uint32_t i, size_t *n)
{
    *n = x->r[i].ndn.len;
    return x->r[i].ndn.val;
}

static uint32_t
role_find(const struct acreV_moidx *x, const char *s, size_t n)
{
    return find_sorted(x, x->nr, role_key, s, n);
}

/* One entry's roles being decided. */
struct rwalk {
    struct acre_request *rq;
    const struct acreV_moidx *x;
    const acre_entry_view *e;
    const char *s; /* e's normalised DN */
    size_t n;
    unsigned steps; /* role definitions looked at for the current role */
    struct acreE_buf b;
};

/* Is the entry in the subtree of r's parent (the parent included)? */
static int
in_role_scope(const struct rwalk *w, const struct mo_role *r)
{
    size_t m = r->scope_len;

    if (!r->scope || w->n < m || memcmp(w->s + w->n - m, r->scope, m))
        return 0;
    return w->n == m || m == 0 || w->s[w->n - m - 1] == ',';
}

/* Does one of the entry's nsRoleDN values name r (compared as DNs)? */
static int
managed_by(struct rwalk *w, const struct mo_role *r)
{
    const acre_schema *sc = w->rq->schema;
    int t = acreS_known(sc)->nsRoleDN;
    const acre_view_attr *a = t >= 0 ? acreE_entry_attr(w->e, t) : NULL;

    if (a) {
        for (uint32_t j = 0; j < a->nvals; j++) {
            w->b.len = 0;
            if (acreM_normalise(sc, ACREM_DN, a->vals[j].val, a->vals[j].len,
                                &w->b) == 0 &&
                !str_cmp((const char *)w->b.p, w->b.len,
                         (const char *)r->ndn.val, r->ndn.len))
                return 1;
        }
    }
    return 0;
}

/* Does the entry hold role ri?  1, 0, or -1 when the steps ran out. */
static int
role_holds(struct rwalk *w, uint32_t ri, unsigned depth)
{
    const struct mo_role *r = &w->x->r[ri];
    int res = 0;

    if (depth > ACREV_ROLE_NEST)
        return 0;
    if (++w->steps > ACREV_ROLE_STEPS)
        return -1;
    if (!in_role_scope(w, r))
        return 0;
    if (r->kind == R_MANAGED)
        return managed_by(w, r);
    if (r->kind == R_FILTERED) {
        if (!r->f)
            return 0;
        struct acreF_hooks h = acreV_filter_hooks(w->rq, NULL, NULL);
        int busy = w->rq->mo_busy;
        w->rq->mo_busy = 1; /* its filter sees no nsRole (CoS: cos.c) */
        enum acreF_result fr = acreV_filter_eval(w->rq, r->f, w->e, &h);
        w->rq->mo_busy = busy;
        return fr == ACREF_TRUE;
    }
    for (uint32_t j = 0; j < r->nnested && res != 1; j++) {
        uint32_t k = role_find(w->x, r->nested[j], r->nested_len[j]);
        int h = k == UINT32_MAX ? 0 : role_holds(w, k, depth + 1);
        if (h)
            res = h; /* held wins over unknown, unknown over not held */
    }
    return res;
}

static void
rwalk_init(struct rwalk *w, struct acre_request *rq,
           const struct acreV_moidx *x, const acre_entry_view *e,
           uint8_t *local, size_t cap)
{
    *w = (struct rwalk){rq, x, e, NULL, 0, 0, {0}};
    w->s = acre_dn_normalised(e->dn, &w->n);
    acreE_buf_init(&w->b, local, cap);
}

/* The nsRole hook: does e hold the role normalised DN gdn names (NULL:
 * any role)?  1, 0, -1 unknown. */
static int
nsrole_ask(struct acre_request *rq, const struct acreV_moidx *x,
           const acre_entry_view *e, const uint8_t *gdn, size_t len)
{
    uint8_t local[256];
    struct rwalk w;
    int r = 0;

    rwalk_init(&w, rq, x, e, local, sizeof local);
    if (!w.s) {
        r = 0;
    } else if (gdn) {
        uint32_t k = role_find(x, (const char *)gdn, len);
        r = k == UINT32_MAX ? 0 : role_holds(&w, k, 0);
    } else {
        for (uint32_t k = 0; k < x->nr && r != 1; k++) {
            w.steps = 0;
            int h = role_holds(&w, k, 0);
            if (h)
                r = h;
        }
    }
    acreE_buf_free(&w.b);
    return r;
}

/* acreV_nsrole_values -- see eval.h. */
int
acreV_nsrole_values(struct acre_request *rq, const acre_entry_view *e,
                    const acre_value **vals, uint32_t *n)
{
    const struct acreV_moidx *x;
    uint8_t local[256];
    struct rwalk w;

    *vals = NULL;
    *n = 0;
    if (!(rq->flags & ACRE_REQ_NSROLE) || rq->mo_busy)
        return 0;
    if (!(x = take(rq)))
        return rq->err ? rq->err : ACRE_ERR_NOMEM;
    rwalk_init(&w, rq, x, e, local, sizeof local);
    for (uint32_t k = 0; w.s && k < x->nr; k++) {
        w.steps = 0;
        if (role_holds(&w, k, 0) == 1) /* sorted by DN: so are the values */
            rq->mo_rvals[(*n)++] = x->r[k].ndn;
    }
    acreE_buf_free(&w.b);
    *vals = rq->mo_rvals;
    return rq->err;
}

/* acreV_virtual_values -- see eval.h. */
int
acreV_virtual_values(void *arg, unsigned kind, const acre_entry_view *e,
                     const acre_value **vals, uint32_t *n)
{
    struct acre_request *rq = arg;

    if (kind == ACRE_REQ_NSROLE)
        return acreV_nsrole_values(rq, e, vals, n);
    return acreV_memberof_values(rq, kind, e, vals, n);
}

/* acreV_memberof -- see eval.h. */
int
acreV_memberof(void *arg, unsigned kind, const acre_entry_view *e,
               const uint8_t *gdn, size_t len)
{
    struct acre_request *rq = arg;
    const struct acreV_moidx *x;

    if (!(rq->flags & kind))
        return 2;
    if (rq->mo_busy)
        return -1;
    if (!(x = take(rq)))
        return -1;
    if (kind == ACRE_REQ_NSROLE)
        return nsrole_ask(rq, x, e, gdn, len);
    struct walk w = {rq, x, UINT32_MAX, 0, kind == ACRE_REQ_ISMEMBEROF};
    if (gdn && (w.target = group_find(x, (const char *)gdn, len)) == UINT32_MAX)
        return 0; /* not a group */
    if (gdn && x->g[w.target].dynamic && !w.dynamic)
        return 0; /* not a group for memberOf */
    int r = walk(&w, e);
    for (uint32_t k = 0; k < w.top; k++)
        rq->mo_seen[rq->mo_stack[k]] = 0;
    return r;
}

static int
u32_cmp(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* acreV_memberof_values -- see eval.h. */
int
acreV_memberof_values(struct acre_request *rq, unsigned kind,
                      const acre_entry_view *e, const acre_value **vals,
                      uint32_t *n)
{
    const struct acreV_moidx *x;

    *vals = NULL;
    *n = 0;
    if (!(rq->flags & kind) || rq->mo_busy)
        return 0;
    if (!(x = take(rq)))
        return rq->err ? rq->err : ACRE_ERR_NOMEM;
    struct walk w = {rq, x, MO_ALL, 0, kind == ACRE_REQ_ISMEMBEROF};
    walk(&w, e);
    /* the index is sorted by normalised DN: so are the values */
    qsort(rq->mo_stack, w.top, sizeof(*rq->mo_stack), u32_cmp);
    for (uint32_t k = 0; k < w.top; k++) {
        rq->mo_seen[rq->mo_stack[k]] = 0;
        rq->mo_vals[k] = x->g[rq->mo_stack[k]].dn;
    }
    *vals = rq->mo_vals;
    *n = w.top;
    return rq->err;
}

/* Does e store attribute type t? */
static int
stores(const acre_schema *s, int t, const acre_entry_view *e)
{
    for (uint32_t i = 0; i < e->nattrs; i++)
        if (acreE_attr_type(s, &e->attrs[i]) == t)
            return 1;
    return 0;
}

/* The virtual values of kind (a request flag) of e: the public
 * accessors' common part. */
static int
entry_values(acre_request *rq, unsigned kind, const acre_entry_view *e,
             const acre_value **vals, uint32_t *n)
{
    int rc;

    if (vals)
        *vals = NULL;
    if (n)
        *n = 0;
    if ((rc = acreE_handle(rq, ACREE_REQUEST_MAGIC)))
        return rc;
    if (!vals || !n || !acreE_view_check(rq->schema, e))
        return ACRE_ERR_INVAL;
    const struct acreS_known *k = acreS_known(rq->schema);
    int t = kind == ACRE_REQ_ISMEMBEROF ? k->isMemberOf
            : kind == ACRE_REQ_MEMBEROF ? k->memberOf
                                        : k->nsRole;
    if (t < 0 || stores(rq->schema, t, e))
        return 0;
    rq->err = 0;
    if (kind == ACRE_REQ_NSROLE)
        return acreV_nsrole_values(rq, e, vals, n);
    return acreV_memberof_values(rq, kind, e, vals, n);
}

/* acre_entry_ismemberof -- see acre.h. */
ACRE_PUBLIC int
acre_entry_ismemberof(acre_request *rq, const acre_entry_view *e,
                      const acre_value **vals, uint32_t *n)
{
    return entry_values(rq, ACRE_REQ_ISMEMBEROF, e, vals, n);
}

/* acre_entry_memberof -- see acre.h. */
ACRE_PUBLIC int
acre_entry_memberof(acre_request *rq, const acre_entry_view *e,
                    const acre_value **vals, uint32_t *n)
{
    return entry_values(rq, ACRE_REQ_MEMBEROF, e, vals, n);
}

/* acre_entry_nsrole -- see acre.h. */
ACRE_PUBLIC int
acre_entry_nsrole(acre_request *rq, const acre_entry_view *e,
                  const acre_value **vals, uint32_t *n)
{
    return entry_values(rq, ACRE_REQ_NSROLE, e, vals, n);
}
