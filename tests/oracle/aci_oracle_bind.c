/*
 * aci_oracle_bind.c -- bind rules of the ACI reference evaluator, read off
 * 389-DS 2.3's acllas.c (DS_LAS*Eval) and the i15-389 findings, in
 * three-valued logic (TRUE, FALSE, UNDEFINED):
 *
 *   and / or / not   Kleene's tables; "!=" swaps TRUE and FALSE of a
 *                    keyword and keeps UNDEFINED.
 *   userdn   the "||" terms in order (DS_LASUserDnEval): an anonymous
 *            requester matches only "anyone"; otherwise a macro term,
 *            an LDAP URL (the requester's entry within the URL's scope
 *            and matching its filter), anyone, all, a wildcard pattern
 *            (acl_match_substring, anchored) or a DN; "self" and
 *            "parent" END the list whether or not they match (389 breaks
 *            out of its loop there).
 *   groupdn  the requester is a member: a `member` / `uniqueMember` value
 *            of the group or of a group nested at most 5 levels below it,
 *            or matches a `memberURL` of one; when the walk reaches
 *            level 6 (any member of a level-4 group, or a cycle) and no
 *            term is TRUE: UNDEFINED (member_of).  Anonymous: FALSE (and
 *            the list ends, as in 389).
 *   roledn   389 roles, the nsRole 389 computes: a managed role whose DN
 *            is among the requester's nsRoleDN values, a filtered role
 *            whose nsRoleFilter the requester's entry matches, a nested
 *            role one of whose nsRoleDN roles it has -- each only for
 *            entries below the role entry's parent, or below the parent
 *            of its nsRoleScopeDN when that is in the role's suffix.
 *   userattr "attr#USERDN" (and SELFDN, legacy userdnattr): a value of
 *            attr of the entry (or of its ancestors at the parent[]
 *            levels) is the requester's DN (SELFDN: on the entry itself
 *            attr must hold exactly one value, else that level is
 *            UNDEFINED); #GROUPDN: names a group the
 *            requester is a member of (nesting as groupdn), or, on an
 *            ancestor (parent[n], n > 0), the requester itself; #ROLEDN:
 *            names a role it has; #LDAPURL: a URL its entry matches;
 *            "attr#value": both the entry and the requester's entry hold
 *            that value -- and when they do not the result is UNDEFINED
 *            (389 returns LAS_EVAL_FAIL there, never FALSE).
 *   authmethod  "none" is always TRUE; else the requester's method.
 *   ssf, timeofday  numeric comparisons; dayofweek the day's bit.
 *   ip, dns  UNDEFINED when the requester's address / name is unknown.
 * Macros in subjects: "($dn)" is the part of the entry's DN the
 * target's "($dn)" matched (no match: the term is FALSE); "[$dn]" tries
 * that part and each of its ancestors; "($attr.NAME)" each value of the
 * entry's NAME.
 */
#include "aci_oracle_int.h"

#include "buf.h"
#include "match.h"
#include "schema.h"
#include "url.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

/* ------------------------------------------------------------------------
 * Three-valued helpers
 */

static enum acreR_tv
tv_not(enum acreR_tv v)
{
    return v == ACRER_T ? ACRER_F : v == ACRER_F ? ACRER_T : v;
}

static enum acreR_tv
tv_op(enum acreI_aci_op op, enum acreR_tv v)
{
    return op == ACREI_ACI_NE ? tv_not(v) : v;
}

static enum acreR_tv
tv_bool(int b)
{
    return b ? ACRER_T : ACRER_F;
}

static int
cmp_num(enum acreI_aci_op op, long a, long b)
{
    switch (op) {
    case ACREI_ACI_EQ:
        return a == b;
    case ACREI_ACI_NE:
        return a != b;
    case ACREI_ACI_LT:
        return a < b;
    case ACREI_ACI_LE:
        return a <= b;
    case ACREI_ACI_GT:
        return a > b;
    default:
        return a >= b;
    }
}

/* ------------------------------------------------------------------------
 * Entry lookups
 */

/* The values of e's attributes of type `type` (any options), as DNs;
 * values that are not DNs are left out.  *n gets the count. */
static const acre_dn **
dn_values(const struct acreR_aci *o, void *tmp, const acre_entry_view *e,
          int type, unsigned *n)
{
    const acre_dn **out = NULL;

    *n = 0;
    for (unsigned i = 0; e && type >= 0 && i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        if (acreR_aci_type_of(o, a->id) != type)
            continue;
        for (unsigned j = 0; j < a->nvals; j++) {
            const acre_dn *d =
                acreR_aci_parse_dn(o, tmp, a->vals[j].val, a->vals[j].len);
            const acre_dn **grown =
                d ? talloc_realloc(tmp, out, const acre_dn *, *n + 1) : NULL;
            if (grown) {
                out = grown;
                out[(*n)++] = d;
            }
        }
    }
    return out;
}

/* Does e hold a value of type `type` (any options) equal to v[0..n)
 * under the type's equality rule (byte equality without one)? */
static int
has_value(const struct acreR_aci *o, const acre_entry_view *e, int type,
          const char *v, size_t n)
{
    const struct acreS_attr *at = acreS_attr(o->schema, type);
    uint8_t local[512];
    struct acreE_buf b;

    if (!e)
        return 0;
    acreE_buf_init(&b, local, sizeof(local));
    int ok = at->eq == ACREM_NONE ||
             acreM_normalise(o->schema, at->eq, (const uint8_t *)v, n, &b) == 0;
    int found = 0;
    for (unsigned i = 0; ok && !found && i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        if (acreR_aci_type_of(o, a->id) != type)
            continue;
        for (unsigned j = 0; !found && j < a->nvals; j++) {
            const acre_value *x =
                at->eq != ACREM_NONE && a->norms ? &a->norms[j] : &a->vals[j];
            const uint8_t *want =
                at->eq != ACREM_NONE ? b.p : (const uint8_t *)v;
            size_t wl = at->eq != ACREM_NONE ? b.len : n;
            found = x->len == wl && memcmp(x->val, want, wl) == 0;
        }
    }
    acreE_buf_free(&b);
    return found;
}

static const acre_entry_view *
bind_entry(const struct acreR_aci *o)
{
    return o->bind ? acreR_aci_find(o, o->bind) : NULL;
}

/* The requester's entry within scope of base and matching f (NULL: no
 * filter, which takes no one): 389's acllas__client_match_URL and
 * dynamic group test. */
static int
bind_matches_url(const struct acreR_aci *o, const acre_dn *base, int scope,
                 const struct acreF_filter *f)
{
    const acre_entry_view *be = bind_entry(o);

    if (!be || acre_dn_in_scope(be->dn, base, scope) != 1)
        return 0;
    /* acllas__client_match_URL: no filter, no one */
    return f && acreR_aci_filter_plain(o, f, be) == ACREF_TRUE;
}

/* A URL value ("ldap:///base??scope?filter") the requester matches. */
static int
bind_matches_url_text(const struct acreR_aci *o, void *tmp, const char *s,
                      size_t n)
{
    struct acreE_url u;
    struct acreF_filter *f = NULL;

    /* 389 reads "ldap://" and "ldaps://" URLs alone, case aside */
    if ((n < 7 || strncasecmp(s, "ldap://", 7)) &&
        (n < 8 || strncasecmp(s, "ldaps://", 8)))
        return 0;
    if (acreE_url_parse(tmp, s, n, &u))
        return 0;
    const acre_dn *base = acreR_aci_parse_dn(o, tmp, u.dn, strlen(u.dn));
    if (!base)
        return 0;
    /* 389's string_filter_sub takes the substrings components of this
     * filter as written: the search has set FILTER_NORMALIZED; the text
     * is slapi_str2filter's (a value's balanced parentheses its own) */
    if (u.filter &&
        acreF_parse_flags(tmp, o->schema, u.filter, strlen(u.filter),
                          ACREF_389_RAWSUBS | ACREF_389_PARENS, &f, NULL))
        return 0;
    return bind_matches_url(o, base, u.scope, f);
}

/* ------------------------------------------------------------------------
 * Groups and roles
 */

/* Is e an entry 389's group search finds: one of the object classes of
 * its filter_groups, as a stored objectClass value? */
static int
is_group(const struct acreR_aci *o, const acre_entry_view *e)
{
    static const char *const classes[] = {"groupOfNames", "groupOfUniqueNames",
                                          "groupOfCertificates", "groupOfURLs"};

    for (unsigned i = 0; e && i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        if (acreR_aci_type_of(o, a->id) != o->id_oc)
            continue;
        for (unsigned j = 0; j < a->nvals; j++)
            for (unsigned k = 0; k < 4; k++)
                if (strlen(classes[k]) == a->vals[j].len &&
                    !strncasecmp(classes[k], a->vals[j].val, a->vals[j].len))
                    return 1;
    }
    return 0;
}

static int
listed(const acre_dn *const *list, unsigned n, const acre_dn *dn)
{
    for (unsigned i = 0; i < n; i++)
        if (acre_dn_equal(list[i], dn))
            return 1;
    return 0;
}

/* Visit group entry g: TRUE when it lists the requester (member or
 * uniqueMember) or one of its memberURLs takes the requester's entry;
 * else every member / uniqueMember value is appended to *next. */
static int
visit_group(const struct acreR_aci *o, void *tmp, const acre_entry_view *g,
            const acre_dn ***next, unsigned *nnext)
{
    int types[2] = {o->id_member, o->id_unique};

    for (int k = 0; k < 2; k++) {
        unsigned n;
        const acre_dn **v = dn_values(o, tmp, g, types[k], &n);
        for (unsigned i = 0; i < n; i++) {
            if (acre_dn_equal(v[i], o->bind))
                return 1;
            const acre_dn **x =
                talloc_realloc(tmp, *next, const acre_dn *, *nnext + 1);
            if (x)
                *next = x, x[(*nnext)++] = v[i];
        }
    }
    for (unsigned i = 0; i < g->nattrs; i++) {
        const acre_view_attr *a = &g->attrs[i];
        if (acreR_aci_type_of(o, a->id) != o->id_url)
            continue;
        for (unsigned j = 0; j < a->nvals; j++)
            if (bind_matches_url_text(o, tmp, a->vals[j].val, a->vals[j].len))
                return 1;
    }
    return 0;
}

/*
 * Membership of the requester in group gdn, as 389's
 * acllas__user_ismember_of_group walks it: the named group is level 0;
 * the member values of a level's entries, in order and with repeats
 * (389 keeps no list of what it has seen), make the next level; an entry
 * is looked into only when it is a group (is_group).  TRUE as soon as a
 * group of levels 0..5 lists the requester; FALSE when a level is empty
 * before level 6; UNDEFINED once the entries of level 5 are visited in
 * vain (so a cycle, or any member of a level-4 group, ends UNDEFINED).
 */
static enum acreR_tv
member_of(const struct acreR_aci *o, void *tmp, const acre_dn *gdn)
{
    const acre_dn **cur = talloc_array(tmp, const acre_dn *, 1);
    unsigned ncur = 1;

    if (!o->bind || !cur)
        return ACRER_F;
    cur[0] = gdn;
    for (int level = 0;; level++) {
        const acre_dn **next = NULL;
        unsigned nnext = 0;
        for (unsigned i = 0; i < ncur; i++) {
            const acre_entry_view *g = acreR_aci_find(o, cur[i]);
            if (g && is_group(o, g) && visit_group(o, tmp, g, &next, &nnext))
                return ACRER_T;
        }
        if (level == ACRER_GROUP_NEST)
            return ACRER_U;
        if (!nnext)
            return ACRER_F;
        cur = next;
        ncur = nnext;
    }
}

static int
has_class(const struct acreR_aci *o, const acre_entry_view *e, int oc)
{
    for (unsigned i = 0; oc >= 0 && i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        if (acreR_aci_type_of(o, a->id) != o->id_oc)
            continue;
        for (unsigned j = 0; j < a->nvals; j++) {
            int id =
                acreS_class_find(o->schema, a->vals[j].val, a->vals[j].len);
            if (id >= 0 && acreS_class_is(o->schema, id, oc))
                return 1;
        }
    }
    return 0;
}

/* The suffix of dn: its topmost ancestor in the directory (dn included),
 * as normalised text, or NULL. */
static const char *
suffix_of(const struct acreR_aci *o, void *tmp, const acre_dn *dn)
{
    for (unsigned d = 1; d <= acre_dn_depth(dn); d++) {
        const char *t = acre_dn_ancestor(dn, d, NULL);
        const acre_dn *a = acreR_aci_parse_dn(o, tmp, t, strlen(t));
        if (a && acreR_aci_find(o, a))
            return t;
    }
    return NULL;
}

/* The DN whose parent's subtree role r reaches: its nsRoleScopeDN when
 * that names a DN of the role's suffix (389's roles_cache), else its own. */
static const acre_dn *
role_scope_dn(const struct acreR_aci *o, void *tmp, const acre_entry_view *r,
              const acre_dn *rdn)
{
    unsigned n;
    const acre_dn **v = dn_values(o, tmp, r, o->id_rolescope, &n);

    if (n == 0 || acre_dn_depth(v[0]) == 0)
        return rdn;
    const char *a = suffix_of(o, tmp, v[0]), *b = suffix_of(o, tmp, rdn);
    return a && b && strcmp(a, b) == 0 ? v[0] : rdn;
}

/* Does the requester have role rdn (389 nsRole)? */
static int
has_role(const struct acreR_aci *o, void *tmp, const acre_dn *rdn, int depth)
{
    const acre_entry_view *r = acreR_aci_find(o, rdn), *be = bind_entry(o);
    unsigned n;

    if (!r || !be || depth > ACRER_ROLE_NEST)
        return 0;
    const acre_dn *sdn = role_scope_dn(o, tmp, r, rdn);
    const char *pt = acre_dn_ancestor(sdn, acre_dn_depth(sdn) - 1, NULL);
    const acre_dn *scope = acreR_aci_parse_dn(o, tmp, pt, strlen(pt));
    if (!scope || acre_dn_in_scope(be->dn, scope, ACRE_SCOPE_SUB) != 1)
        return 0;
    if (has_class(o, r, o->oc_managed)) {
        const acre_dn **v = dn_values(o, tmp, be, o->id_roledn, &n);
        return listed(v, n, rdn);
    }
    if (has_class(o, r, o->oc_nested)) {
        const acre_dn **v = dn_values(o, tmp, r, o->id_roledn, &n);
        for (unsigned i = 0; i < n; i++)
            if (has_role(o, tmp, v[i], depth + 1))
                return 1;
        return 0;
    }
    for (unsigned i = 0; has_class(o, r, o->oc_filtered) && i < r->nattrs;
         i++) {
        const acre_view_attr *a = &r->attrs[i];
        struct acreF_filter *f;
        if (acreR_aci_type_of(o, a->id) != o->id_rolefilter ||
            acreF_parse_flags(tmp, o->schema, a->vals[0].val, a->vals[0].len,
                              ACREF_389_PARENS, &f, NULL))
            continue;
        return acreR_aci_filter_plain(o, f, be) == ACREF_TRUE;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Macros
 */

typedef enum acreR_tv (*cand_fn)(struct acreR_ctx *c, const char *cand);

/* Replace the first occurrence of key in text by val. */
static char *
replace(void *tmp, const char *text, const char *key, const char *val)
{
    const char *at = strstr(text, key);

    if (!at)
        return talloc_strdup(tmp, text);
    return talloc_asprintf(tmp, "%.*s%s%s", (int)(at - text), text, val,
                           at + strlen(key));
}

/* Each expansion of text, given to fn; TRUE on the first TRUE, else
 * UNDEFINED if one was, else FALSE. */
static enum acreR_tv
expand(struct acreR_ctx *c, const char *text, cand_fn fn)
{
    enum acreR_tv r = ACRER_F;
    const char *at;

    if (strstr(text, "($dn)")) {
        if (!c->macro)
            return ACRER_F;
        return expand(c, replace(c->tmp, text, "($dn)", c->macro), fn);
    }
    if (strstr(text, "[$dn]")) {
        for (const char *m = c->macro; m && *m && r != ACRER_T;) {
            enum acreR_tv v = expand(c, replace(c->tmp, text, "[$dn]", m), fn);
            r = v == ACRER_T ? v : v == ACRER_U ? v : r;
            const char *comma = strchr(m, ',');
            m = comma ? comma + 1 : NULL;
        }
        return r;
    }
    if ((at = strstr(text, "($attr."))) {
        const char *end = strchr(at, ')');
        if (!end)
            return ACRER_F;
        int type =
            acreS_attr_find(c->o->schema, at + 7, (size_t)(end - at - 7));
        char *key = talloc_strndup(c->tmp, at, (size_t)(end - at + 1));
        for (unsigned i = 0; type >= 0 && i < c->e->nattrs && r != ACRER_T;
             i++) {
            const acre_view_attr *a = &c->e->attrs[i];
            if (acreR_aci_type_of(c->o, a->id) != type)
                continue;
            for (unsigned j = 0; j < a->nvals && r != ACRER_T; j++) {
                char *v =
                    talloc_strndup(c->tmp, a->vals[j].val, a->vals[j].len);
                enum acreR_tv x = expand(c, replace(c->tmp, text, key, v), fn);
                r = x == ACRER_T ? x : x == ACRER_U ? x : r;
            }
        }
        return r;
    }
    return fn(c, text);
}

static enum acreR_tv
cand_user(struct acreR_ctx *c, const char *cand)
{
    if (strchr(cand, '*'))
        return tv_bool(acreR_aci_substr(cand, c->o->bind_norm, 1));
    const acre_dn *d = acreR_aci_parse_dn(c->o, c->tmp, cand, strlen(cand));
    return tv_bool(d && acre_dn_equal(d, c->o->bind));
}

static enum acreR_tv
cand_group(struct acreR_ctx *c, const char *cand)
{
    const acre_dn *d = acreR_aci_parse_dn(c->o, c->tmp, cand, strlen(cand));

    return d ? member_of(c->o, c->tmp, d) : ACRER_F;
}

static enum acreR_tv
cand_role(struct acreR_ctx *c, const char *cand)
{
    const acre_dn *d = acreR_aci_parse_dn(c->o, c->tmp, cand, strlen(cand));

    return tv_bool(d && has_role(c->o, c->tmp, d, 0));
}

/* ------------------------------------------------------------------------
 * Subjects
 */

static const acre_dn *
parent_of(struct acreR_ctx *c, const acre_dn *dn)
{
    unsigned d = acre_dn_depth(dn);
    size_t n;

    if (d == 0)
        return NULL;
    const char *s = acre_dn_ancestor(dn, d - 1, &n);
    return acreR_aci_parse_dn(c->o, c->tmp, s, n);
}

static enum acreR_tv
userdn(struct acreR_ctx *c, const struct acreI_bind *b)
{
    const struct acreR_aci *o = c->o;
    int matched = 0, stop = 0;

    for (unsigned i = 0; i < b->nterms && !matched && !stop; i++) {
        const struct acreI_aci_term *t = &b->terms[i];
        if (!o->bind) {
            matched = t->kind == ACREI_ACI_S_ANYONE;
            continue;
        }
        switch (t->kind) {
        case ACREI_ACI_S_ANYONE:
        case ACREI_ACI_S_ALL:
            matched = 1;
            break;
        case ACREI_ACI_S_SELF:
            matched = acre_dn_equal(o->bind, c->e->dn);
            stop = 1;
            break;
        case ACREI_ACI_S_PARENT:
            matched = acre_dn_equal(o->bind, parent_of(c, c->e->dn));
            stop = 1;
            break;
        case ACREI_ACI_S_URL:
            matched = t->scope >= 0 &&
                      bind_matches_url(o, t->pat.dn, t->scope, t->filter);
            break;
        case ACREI_ACI_S_PATTERN:
            matched = expand(c, t->pat.text, cand_user) == ACRER_T;
            break;
        default:
            matched = acre_dn_equal(o->bind, t->pat.dn);
        }
    }
    return tv_op(b->op, tv_bool(matched));
}

/* The groups an "ldap:///base??scope?(filter)" groupdn names: every
 * entry in scope matching the filter, each tested as groupdn tests one. */
struct gwalk {
    struct acreR_ctx *c;
    const struct acreI_aci_term *t;
    enum acreR_tv r;
};

static int
group_visit(void *ctx, const struct acreE_entry *x)
{
    struct gwalk *w = ctx;

    if (w->t->filter &&
        acreR_aci_filter_plain(w->c->o, w->t->filter, &x->v) != ACREF_TRUE)
        return 0;
    enum acreR_tv v = member_of(w->c->o, w->c->tmp, x->v.dn);
    if (v == ACRER_T)
        return w->r = ACRER_T, 1;
    if (v == ACRER_U)
        w->r = ACRER_U;
    return 0;
}

static enum acreR_tv
group_url(struct acreR_ctx *c, const struct acreI_aci_term *t)
{
    struct gwalk w = {c, t, ACRER_F};

    if (t->pat.dn)
        acreE_dir_walk(c->o->dir, t->pat.dn, t->scope, group_visit, &w);
    return w.r;
}

static enum acreR_tv
groupdn(struct acreR_ctx *c, const struct acreI_bind *b)
{
    enum acreR_tv r = ACRER_F;
    int undefined = 0;

    for (unsigned i = 0; i < b->nterms && r != ACRER_T; i++) {
        const struct acreI_aci_term *t = &b->terms[i];
        enum acreR_tv v;
        if (t->kind == ACREI_ACI_S_ANYONE) {
            r = ACRER_T;
            break;
        }
        if (!c->o->bind)
            break;
        if (t->kind == ACREI_ACI_S_PATTERN)
            v = expand(c, t->pat.text, cand_group);
        else if (t->kind == ACREI_ACI_S_URL)
            v = t->scope < 0 ? ACRER_F : group_url(c, t);
        else
            v = member_of(c->o, c->tmp, t->pat.dn);
        if (v == ACRER_T)
            r = ACRER_T;
        else if (v == ACRER_U)
            undefined = 1;
    }
    if (r != ACRER_T && undefined)
        return ACRER_U;
    return tv_op(b->op, r);
}

static enum acreR_tv
roledn(struct acreR_ctx *c, const struct acreI_bind *b)
{
    int matched = 0;

    for (unsigned i = 0; i < b->nterms && !matched; i++) {
        const struct acreI_aci_term *t = &b->terms[i];
        if (t->kind == ACREI_ACI_S_ANYONE) { /* any_role */
            matched = 1;
            break;
        }
        if (!c->o->bind) /* anonymous: "Role not evaluated" */
            break;
        if (t->kind == ACREI_ACI_S_URL) /* a text no role DN is */
            continue;
        if (t->kind == ACREI_ACI_S_PATTERN)
            matched = expand(c, t->pat.text, cand_role) == ACRER_T;
        else
            matched = has_role(c->o, c->tmp, t->pat.dn, 0);
    }
    return tv_op(b->op, tv_bool(matched));
}

/* ------------------------------------------------------------------------
 * userattr
 */

/* One entry's attr values against the requester. */
static enum acreR_tv
userattr_entry(struct acreR_ctx *c, const struct acreI_bind *b,
               const acre_entry_view *x, int parent)
{
    const struct acreR_aci *o = c->o;
    enum acreR_tv r = ACRER_F;
    unsigned n;

    if (b->uakind == ACREI_ACI_UA_LDAPURL) {
        for (unsigned i = 0; i < x->nattrs; i++) {
            const acre_view_attr *a = &x->attrs[i];
            for (unsigned j = 0;
                 acreR_aci_type_of(o, a->id) == b->attr && j < a->nvals; j++)
                if (bind_matches_url_text(o, c->tmp, a->vals[j].val,
                                          a->vals[j].len))
                    return ACRER_T;
        }
        return ACRER_F;
    }
    if (b->uakind == ACREI_ACI_UA_SELFDN && !parent) {
        /* SELFDN on the entry itself: the attribute (the type alone,
         * as 389's attrlist_find names it) holds exactly one value, or
         * the level is Undefined */
        unsigned count = 0;
        int found = 0;
        for (unsigned i = 0; i < x->nattrs; i++)
            if (x->attrs[i].id == b->attr) {
                found = 1;
                count += x->attrs[i].nvals;
            }
        if (found && count != 1)
            return ACRER_U;
    }
    const acre_dn **v = dn_values(o, c->tmp, x, b->attr, &n);
    for (unsigned i = 0; i < n && r != ACRER_T; i++) {
        enum acreR_tv t;
        switch (b->uakind) {
        case ACREI_ACI_UA_GROUPDN:
            /* an ancestor's value: naming the requester itself is True
             * (389 compares each value with the bind DN first) */
            t = parent && o->bind && acre_dn_equal(v[i], o->bind)
                    ? ACRER_T
                    : member_of(o, c->tmp, v[i]);
            break;
        case ACREI_ACI_UA_ROLEDN:
            t = tv_bool(has_role(o, c->tmp, v[i], 0));
            break;
        default: /* USERDN, SELFDN; anonymous: the empty DN */
            t = tv_bool(o->bind ? acre_dn_equal(v[i], o->bind)
                                : acre_dn_depth(v[i]) == 0);
        }
        r = t == ACRER_T ? t : t == ACRER_U ? t : r;
    }
    return r;
}

/* groupdnattr="ldap:///BASE?ATTR": acllas__eval_memberGroupDnAttr,
 * literally -- the requester's groups found upwards under BASE (entries
 * whose member or uniqueMember is the requester or a group found, each
 * once), then the entry's ATTR values compared with the requester and
 * those groups; a value that is no DN ends it False. */
struct upw {
    const struct acreR_aci *o;
    void *tmp;
    const acre_dn *x;
    const acre_dn **g;
    unsigned n;
};

static int
upw_visit(void *ctx, const struct acreE_entry *e)
{
    struct upw *w = ctx;
    int types[2] = {w->o->id_member, w->o->id_unique}, hit = 0;

    for (int k = 0; k < 2; k++) {
        unsigned n;
        const acre_dn **v = dn_values(w->o, w->tmp, &e->v, types[k], &n);
        hit |= listed(v, n, w->x);
    }
    if (hit && !listed(w->g, w->n, e->v.dn)) {
        const acre_dn **g =
            talloc_realloc(w->tmp, w->g, const acre_dn *, w->n + 1);
        if (g)
            w->g = g, g[w->n++] = e->v.dn;
    }
    return 0;
}

static enum acreR_tv
groupdnattr_url(struct acreR_ctx *c, const struct acreI_bind *b)
{
    const struct acreR_aci *o = c->o;
    struct upw w = {o, c->tmp, o->bind, NULL, 0};

    if (!o->bind || b->attr < 0 || !b->nterms)
        return tv_op(b->op, ACRER_F);
    for (unsigned i = 0; i == 0 || i <= w.n; i++) {
        w.x = i ? w.g[i - 1] : o->bind;
        acreE_dir_walk(o->dir, b->terms[0].pat.dn, ACRE_SCOPE_SUB, upw_visit,
                       &w);
    }
    for (unsigned i = 0; i < c->e->nattrs; i++) {
        const acre_view_attr *a = &c->e->attrs[i];
        if (acreR_aci_type_of(o, a->id) != b->attr)
            continue;
        for (unsigned j = 0; j < a->nvals; j++) {
            const acre_dn *v =
                acreR_aci_parse_dn(o, c->tmp, a->vals[j].val, a->vals[j].len);
            if (!v)
                return tv_op(b->op, ACRER_F);
            if (acre_dn_equal(v, o->bind) || listed(w.g, w.n, v))
                return tv_op(b->op, ACRER_T);
        }
    }
    return tv_op(b->op, ACRER_F);
}

/* The LAS of one userattr kind (DS_LASUserDnAttrEval,
 * DS_LASGroupDnAttrEval, DS_LASRoleDnAttrEval, DS_LASLdapUrlAttrEval),
 * operator op applied as each applies it. */
static enum acreR_tv
kind_las(struct acreR_ctx *c, const struct acreI_bind *b, enum acreI_aci_op op)
{
    const struct acreR_aci *o = c->o;
    int group =
        b->kw == ACREI_ACI_GROUPDNATTR ||
        (b->kw == ACREI_ACI_USERATTR && b->uakind == ACREI_ACI_UA_GROUPDN);
    int role = b->kw == ACREI_ACI_USERATTR && b->uakind == ACREI_ACI_UA_ROLEDN;

    /* anonymous: no groups, no roles -- False before any operator */
    if ((group || role) && !o->bind)
        return ACRER_F;
    if (b->uakind == ACREI_ACI_UA_GROUPURL)
        return groupdnattr_url(c, b);
    /* roles: the attribute named by the whole text, on the entry itself;
     * missing: False before any operator */
    if (role) {
        int has = 0;
        for (unsigned i = 0;
             b->attr >= 0 && !(b->levels & ~1u) && i < c->e->nattrs; i++)
            has |= acreR_aci_type_of(o, c->e->attrs[i].id) == b->attr;
        if (!has)
            return ACRER_F;
    }
    /* anonymous: #LDAPURL False; USERDN and SELFDN (DS_LASUserDnAttrEval,
     * which never asks) compare the values with the empty DN */
    if (!o->bind && b->uakind == ACREI_ACI_UA_LDAPURL)
        return tv_op(op, ACRER_F);
    enum acreR_tv r = ACRER_F;
    unsigned levels = b->levels ? b->levels : 1u,
             depth = acre_dn_depth(c->e->dn);
    for (unsigned l = 0; l < 32 && r != ACRER_T; l++) {
        if (!(levels & (1u << l)) || l > depth)
            continue;
        const acre_entry_view *x = c->e;
        if (l > 0) {
            size_t n;
            const char *s = acre_dn_ancestor(c->e->dn, depth - l, &n);
            x = acreR_aci_find(o, acreR_aci_parse_dn(o, c->tmp, s, n));
        }
        if (!x)
            continue;
        enum acreR_tv t = userattr_entry(c, b, x, l != 0);
        r = t == ACRER_T ? t : t == ACRER_U ? t : r;
    }
    return tv_op(op, r);
}

/*
 * userattr / userdnattr / groupdnattr.  The old keywords are their LAS;
 * "userattr" with a kind hands its operator to the kind's LAS and then,
 * on a True or False answer, applies it again itself
 * (DS_LASUserAttrEval): so "!=" answers as "=", but where the LAS said
 * False before looking at its operator.  On the LAS's FAIL it returns
 * its rc as it was, 0: no LAS result, which libaccess ends the rule on
 * with ACL_RES_ERROR, an error no phase acts on -- as Invalid.  The value
 * form applies the operator once.
 */
static enum acreR_tv
userattr(struct acreR_ctx *c, const struct acreI_bind *b)
{
    const struct acreR_aci *o = c->o;

    if (b->uakind == ACREI_ACI_UA_VALUE) {
        /* attr -1: "parent[..].attr#value", for which 389 looks up an
         * attribute named by the whole text before '#': never there */
        int m = b->attr >= 0 &&
                has_value(o, c->e, b->attr, b->value, b->value_len) &&
                has_value(o, bind_entry(o), b->attr, b->value, b->value_len);
        return m ? tv_op(b->op, ACRER_T) : ACRER_U;
    }
    enum acreR_tv v = kind_las(c, b, b->op);
    if (b->kw != ACREI_ACI_USERATTR)
        return v;
    if (v == ACRER_U)
        return ACRER_I;
    return tv_op(b->op, v);
}

/* ------------------------------------------------------------------------
 * Connection facts
 */

/* 389's bit tree, built as LASIpAddPattern builds it: nodes of two
 * slots, each True, False or a further node; each prefix walks its bits
 * from the top, makes a node wherever a slot holds a constant, and sets
 * True in the slot of its last bit; netmask 0 sets both root slots True.
 * The address then walks the tree to the first constant. */
#define TREE_T (-1)
#define TREE_F (-2)

static int
bit_at(const uint8_t *a, unsigned i)
{
    return (a[i / 8] >> (7 - i % 8)) & 1;
}

static enum acreR_tv
ip_tree(const struct acreI_bind *b, int fam, const uint8_t *ip)
{
    unsigned nb = fam == 4 ? 32 : 128, nn = 0;
    int(*slot)[2] = calloc((size_t)b->naddrs * nb + 1, sizeof *slot);
    enum acreR_tv r = ACRER_F;

    if (!slot)
        return ACRER_U;
    for (unsigned i = 0; i < b->naddrs; i++) {
        const struct acreI_aci_addr *a = &b->addrs[i];
        unsigned len = 0;
        if (a->family != fam)
            continue;
        while (len < nb && bit_at(a->mask, len))
            len++;
        if (!nn) {
            slot[0][0] = slot[0][1] = TREE_F;
            nn = 1;
        }
        if (!len) {
            slot[0][0] = slot[0][1] = TREE_T;
            continue;
        }
        int cur = 0;
        for (unsigned k = 0; k < len; k++) {
            int v = bit_at(a->addr, k);
            if (k == len - 1) {
                slot[cur][v] = TREE_T;
                break;
            }
            if (slot[cur][v] < 0) {
                slot[nn][0] = slot[nn][1] = TREE_F;
                slot[cur][v] = (int)nn++;
            }
            cur = slot[cur][v];
        }
    }
    if (nn) {
        int cur = 0;
        for (unsigned k = 0; k < nb; k++) {
            int nx = slot[cur][bit_at(ip, k)];
            if (nx < 0) {
                r = nx == TREE_T ? ACRER_T : ACRER_F;
                break;
            }
            cur = nx;
        }
    }
    free(slot);
    return r;
}

static enum acreR_tv
ip_rule(const struct acreR_aci *o, const struct acreI_bind *b)
{
    static const uint8_t mapped[12] = {0, 0, 0, 0, 0,    0,
                                       0, 0, 0, 0, 0xff, 0xff};
    int m = 0;

    if (!o->ip_family) /* LASIpEval: no client address, a failure */
        return ACRER_U;
    if (b->ipmode == ACREI_IP_NEVER) /* then a value it cannot read */
        return ACRER_I;
    if (b->ipmode == ACREI_IP_TREE)
        return tv_op(b->op, o->ip_family == 6 && !memcmp(o->ip, mapped, 12)
                                ? ip_tree(b, 4, o->ip + 12)
                                : ip_tree(b, o->ip_family, o->ip));
    for (unsigned i = 0; i < b->naddrs && !m; i++) {
        const struct acreI_aci_addr *a = &b->addrs[i];
        unsigned len = a->family == 4 ? 4 : 16;
        if (a->family != o->ip_family)
            continue;
        m = 1;
        for (unsigned k = 0; k < len; k++)
            if ((o->ip[k] & a->mask[k]) != (a->addr[k] & a->mask[k]))
                m = 0;
    }
    return tv_op(b->op, tv_bool(m));
}

/* One dns pattern p[0..n) against host name h. */
static int
dns_one(const char *p, size_t n, const char *h)
{
    size_t hl = strlen(h);

    if (n == 1 && p[0] == '*')
        return 1;
    if (n > 1 && p[0] == '*') /* "*.example.com": a suffix */
        return hl >= n - 1 && !strncasecmp(h + hl - (n - 1), p + 1, n - 1);
    return hl == n && !strncasecmp(h, p, n);
}

/* 389's LASDnsBuild / LASDnsMatch, literally: a table of keys ("*"
 * for a lone star, the rest of a "*" name, else the name); the host
 * name looked up whole, then from each '.' after its first byte. */
static int
dns_389(const char *text, const char *h)
{
    char keys[64][256];
    unsigned nk = 0;

    for (const char *p = text; *p && nk < 64;) {
        size_t n = strcspn(p, ", ");
        if (n || p == text)
            snprintf(keys[nk++], sizeof keys[0], "%.*s",
                     (int)(*p == '*' && n > 1 ? n - 1 : n),
                     *p == '*' && n > 1 ? p + 1 : p);
        p += n + (p[n] != '\0');
    }
    for (unsigned k = 0; k < nk; k++)
        if (!strcmp(keys[k], "*"))
            return 1;
    for (const char *t = h; t; t = strchr(t + 1, '.'))
        for (unsigned k = 0; k < nk; k++)
            if (!strcasecmp(keys[k], t))
                return 1;
    return 0;
}

static enum acreR_tv
dns_rule(const struct acreR_aci *o, const struct acreI_bind *b)
{
    const char *p = b->text;
    int m = 0;

    if (!o->who.dns || !p)
        return ACRER_U;
    if (o->set->variant == ACREI_ACI_389)
        return tv_op(b->op, tv_bool(dns_389(p, o->who.dns)));
    while (*p && !m) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t n = strcspn(p, ", ");
        if (n)
            m = dns_one(p, n, o->who.dns);
        p += n;
    }
    return tv_op(b->op, tv_bool(m));
}

static enum acreR_tv
keyword(struct acreR_ctx *c, const struct acreI_bind *b)
{
    const struct acreR_aci *o = c->o;

    /* an ordering with a keyword other than ssf and timeofday:
     * LASIpEval, LASDnsEval, LASDayOfWeekEval say Invalid; the callers of
     * __acllas_setup fail, but DS_LASRoleDnEval says False */
    if (b->op != ACREI_ACI_EQ && b->op != ACREI_ACI_NE &&
        b->kw != ACREI_ACI_SSF && b->kw != ACREI_ACI_TIMEOFDAY) {
        if (b->kw == ACREI_ACI_ROLEDN)
            return ACRER_F;
        if (b->kw == ACREI_ACI_IP || b->kw == ACREI_ACI_DNS ||
            b->kw == ACREI_ACI_DAYOFWEEK)
            return ACRER_I;
        return ACRER_U;
    }
    switch (b->kw) {
    case ACREI_ACI_USERDN:
        return userdn(c, b);
    case ACREI_ACI_GROUPDN:
        return groupdn(c, b);
    case ACREI_ACI_ROLEDN:
        return roledn(c, b);
    case ACREI_ACI_USERATTR:
    case ACREI_ACI_USERDNATTR:
    case ACREI_ACI_GROUPDNATTR:
        return userattr(c, b);
    case ACREI_ACI_AUTHMETHOD:
        return tv_op(b->op,
                     tv_bool(b->text && (!strcasecmp(b->text, "none") ||
                                         !strcasecmp(b->text, o->auth))));
    case ACREI_ACI_SSF:
        return tv_bool(cmp_num(b->op, (long)o->who.ssf, b->num));
    case ACREI_ACI_IP:
        return ip_rule(o, b);
    case ACREI_ACI_DNS:
        return dns_rule(o, b);
    case ACREI_ACI_DAYOFWEEK:
        return tv_op(b->op, tv_bool((b->days >> o->wday) & 1u));
    case ACREI_ACI_TIMEOFDAY:
        /* lastod.cpp: a range "a-b" (wrapping past midnight when b < a)
         * is = inside, != outside, any other operator Invalid; a range
         * part of six bytes or more Invalid */
        if (b->tod == ACREI_TOD_INVALID)
            return ACRER_I;
        if (b->tod == ACREI_TOD_RANGE) {
            int inside = b->num <= b->num_end
                             ? o->hhmm >= b->num && o->hhmm <= b->num_end
                             : o->hhmm >= b->num || o->hhmm <= b->num_end;
            if (b->op == ACREI_ACI_EQ)
                return tv_bool(inside);
            if (b->op == ACREI_ACI_NE)
                return tv_bool(!inside);
            return ACRER_I;
        }
        return tv_bool(cmp_num(b->op, o->hhmm, b->num));
    default:
        return ACRER_U;
    }
}

enum acreR_tv
acreR_aci_bind(struct acreR_ctx *c, const struct acreI_bind *b)
{
    enum acreR_tv x;

    if (!b)
        return ACRER_U;
    switch (b->kw) {
    /* libaccess (oneeval.cpp ACLEvalAce) walks the rule left to right
     * and returns at the first keyword that is neither True nor False */
    case ACREI_ACI_AND:
        x = acreR_aci_bind(c, b->a);
        return x == ACRER_T ? acreR_aci_bind(c, b->b) : x;
    case ACREI_ACI_OR:
        x = acreR_aci_bind(c, b->a);
        return x == ACRER_F ? acreR_aci_bind(c, b->b) : x;
    case ACREI_ACI_NOT:
        return tv_not(acreR_aci_bind(c, b->a));
    default:
        return keyword(c, b);
    }
}
