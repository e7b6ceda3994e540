/*
 * aci_oracle.c -- the reference evaluator of the ACI dialect: targets,
 * the decision for one check, entry visibility, search filters and whole
 * searches, read straight off 389-DS 2.3's ACL plugin (acl.c,
 * filterentry.c) and /work/notes' findings on the real server.
 *
 * The decision for one check (entry E, attribute A or entry level, right
 * R), 389's acl__TestRights:
 *   1. the requester is the set's rootdn: allowed;
 *   2. the candidates are the ACIs whose holder is E or an ancestor of E
 *      (an ACI held by the root DSE applies to the root DSE only);
 *   3. an ACI applies to the check (acl__resource_match_aci) when:
 *      - target DN: E is in the target's subtree; a pattern with '*'
 *        matches E's normalised DN as acl_match_substring does with
 *        exact_match 0 (initial part anywhere, final part at the end,
 *        '*' absorbing commas); a "($dn)" macro target as
 *        acl_match_macro_in_target (the matched part is kept for the
 *        subjects); "!=" negates each;
 *      - targetscope (OpenDJ; 389 2.3 has none): E within that scope of
 *        the target DN, or of the holder without a target;
 *      - targetfilter: true on E (undefined never matches); "!=" negates;
 *      - targetattr, for an attribute check: A's type is listed (or
 *        "*", or a name pattern), "!=" negates; an ACI without
 *        targetattr applies to an attribute check, and one with
 *        targetattr to an entry-level check, only for the rights that
 *        need no attribute (add, delete, proxy, moddn) -- or, entry
 *        level, for any right when the ACI has write and an allow
 *        (389's modrdn case, which does not look at the right checked);
 *   4. deny first: a deny perm covering R whose bind rule is TRUE or
 *      UNDEFINED denies;
 *   5. then an allow perm covering R whose bind rule is TRUE allows;
 *   6. otherwise denied.
 *
 * Anonymous requesters (aclanom.c): when every ACI of elevel
 * USERDN_ANYONE (a userdn whose first term is "anyone", no userattr or
 * userdnattr after it in the text) that has read or search is a plain
 * allow (no other keyword, no self, no macro, no deny perm, no target
 * pattern, no "!=" target or targetfilter, no targetattr pattern), those
 * ACIs form 389's anonymous profile, and read / search checks where the
 * DN *bound* is anonymous (a proxied authorization's DN aside) ask it
 * first, before any proxy right: when a profile ACI with the right is
 * about the entry
 * (target subtree -- the holder's for a "($dn)" target, which 389 keeps
 * apart from aci->target --, targetfilter true) the profile decides -- at entry
 * level allowed, for an attribute allowed when one of them lists it --
 * whatever the bind rule says ("!=" included); otherwise the ordinary
 * decision applies.
 *
 * Visibility (acl_read_access_allowed_on_entry): for an anonymous
 * requester, the profile at entry level when it applies; otherwise E may
 * be returned when read is allowed on one of E's attributes (the first
 * one, then user attributes, in order) and, when a candidate without
 * targetattr that has read matches E's target (an "entry test rule"), the
 * entry-level read check is not denied by a deny perm -- where, as in
 * acl__TestRights, a check with no allow ACI about the entry at all is
 * "denied by deny" as soon as a deny ACI is about it, its bind rule
 * unevaluated (found on 389 2.3.1: an entry-level deny (read) whose
 * userdn names nobody hides every entry it targets).
 *
 * Filters (389-ds-base 2.3.1 filterentry.c, with access checks): an item
 * on an attribute without `search` is undefined (a name the schema does
 * not know is asked for too: it finds no attribute, so it is false once
 * searchable); AND is false on the
 * first false part, else undefined when a part was, else true; OR skips
 * each part whose access-only evaluation is not 0 (an item without
 * search, or a composite part that does not match), is true on a
 * matching part, false when some considered part was false, else
 * undefined; NOT keeps undefined.
 *
 * Searches: a missing base is noSuchObject (the base is not checked);
 * 389 refuses the children (subordinate) scope with protocolError;
 * an entry is returned when the filter matches without access checks
 * AND with them (back-ldbm applies both), and it is visible; LDAP
 * subentries (ldapSubEntry: 389's roles) only when the filter has an
 * (objectClass=ldapSubEntry) item or the scope is base; each requested
 * attribute it holds is returned when read on it is allowed -- an
 * explicit "*" asks for the operational `aci` too (389 does so, though
 * not for an empty attribute list).
 */
#include "aci_oracle_int.h"

#include "buf.h"
#include "dn.h"
#include "filter_impl.h"
#include "schema.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>
#include <time.h>

#include <arpa/inet.h>

/* ------------------------------------------------------------------------
 * The oracle object and shared helpers
 */

static int anon_profile_build(struct acreR_aci *o);
static int is_root(const struct acreR_aci *o);

static void
who_facts(struct acreR_aci *o)
{
    const char *m = o->who.auth_method;
    struct tm tm;
    time_t t = (time_t)o->who.time;
    size_t i;

    if (!m)
        m = o->bind ? "simple" : "none";
    for (i = 0; m[i] && i + 1 < sizeof(o->auth); i++)
        o->auth[i] = m[i] == '/' ? ' ' : (char)tolower((unsigned char)m[i]);
    o->auth[i] = 0;
    gmtime_r(&t, &tm);
    o->wday = tm.tm_wday;
    o->hhmm = tm.tm_hour * 100 + tm.tm_min;
    if (o->who.ip && inet_pton(AF_INET, o->who.ip, o->ip) == 1)
        o->ip_family = 4;
    else if (o->who.ip && inet_pton(AF_INET6, o->who.ip, o->ip) == 1)
        o->ip_family = 6;
}

static void
schema_ids(struct acreR_aci *o)
{
    const acre_schema *s = o->schema;

    o->id_member = acreS_attr_find(s, "member", 6);
    o->id_unique = acreS_attr_find(s, "uniqueMember", 12);
    o->id_url = acreS_attr_find(s, "memberURL", 9);
    o->id_roledn = acreS_attr_find(s, "nsRoleDN", 8);
    o->id_rolefilter = acreS_attr_find(s, "nsRoleFilter", 12);
    o->id_rolescope = acreS_attr_find(s, "nsRoleScopeDN", 13);
    o->id_oc = acreS_attr_find(s, "objectClass", 11);
    o->id_aci = acreS_attr_find(s, "aci", 3);
    o->oc_managed = acreS_class_find(s, "nsManagedRoleDefinition", 23);
    o->oc_filtered = acreS_class_find(s, "nsFilteredRoleDefinition", 24);
    o->oc_nested = acreS_class_find(s, "nsNestedRoleDefinition", 22);
}

int
acreR_aci_new(void *ctx, const struct acreI_aci_set *set,
              const struct acreE_dir *dir, const struct acreR_aci_who *who,
              struct acreR_aci **out)
{
    struct acreR_aci *o = talloc_zero(ctx, struct acreR_aci);
    struct acreR_aci_who as;

    if (!o)
        return ACRE_ERR_NOMEM;
    if (who->proxied_dn) {
        /* 389: the DN bound, on its own, for its proxy right (OpenDJ's
         * proxy right is not modelled: the checks are the proxied DN's) */
        struct acreR_aci_who bound = *who;
        bound.proxied_dn = NULL;
        int rc = set->variant == ACREI_ACI_389
                     ? acreR_aci_new(o, set, dir, &bound, &o->px)
                     : 0;
        if (rc) {
            talloc_free(o);
            return rc;
        }
        o->proxied = 1;
        o->bound_anon = !who->bind_dn || !*who->bind_dn;
        if (o->px && is_root(o->px)) {
            talloc_free(o->px);
            o->px = NULL;
            o->bound_root = 1;
        }
        /* the checks are the proxied DN's, on the connection bound */
        as = *who;
        as.bind_dn = who->proxied_dn;
        if (!as.auth_method)
            as.auth_method = who->bind_dn && *who->bind_dn ? "simple" : "none";
        who = &as;
    }
    o->set = set;
    o->dir = dir;
    o->schema = acreE_dir_schema(dir);
    o->who = *who;
    o->who.proxied_dn = NULL;
    o->who.bind_dn = who->bind_dn ? talloc_strdup(o, who->bind_dn) : NULL;
    o->who.auth_method =
        who->auth_method ? talloc_strdup(o, who->auth_method) : NULL;
    o->who.ip = who->ip ? talloc_strdup(o, who->ip) : NULL;
    o->who.dns = who->dns ? talloc_strdup(o, who->dns) : NULL;
    o->bind_norm = "";
    if (who->bind_dn && *who->bind_dn) {
        acre_dn *d;
        int rc = acre_dn_parse(o, o->schema, who->bind_dn, strlen(who->bind_dn),
                               0, &d, NULL);
        if (rc) {
            talloc_free(o);
            return rc;
        }
        if (acre_dn_depth(d) > 0) {
            o->bind = d;
            o->bind_norm = acre_dn_normalised(d, NULL);
        }
    }
    who_facts(o);
    schema_ids(o);
    if (!o->proxied)
        o->bound_root = is_root(o);
    if (!o->proxied)
        o->bound_anon = !o->bind;
    *out = o;
    if (o->bound_anon)
        o->has_anon = anon_profile_build(o);
    return 0;
}

const acre_entry_view *
acreR_aci_find(const struct acreR_aci *o, const acre_dn *dn)
{
    const struct acreE_entry *d = dn ? acreE_dir_find(o->dir, dn) : NULL;

    return d ? &d->v : NULL;
}

const acre_dn *
acreR_aci_parse_dn(const struct acreR_aci *o, void *tmp, const char *s,
                   size_t n)
{
    acre_dn *dn;

    if (acre_dn_parse(tmp, o->schema, s, n, 0, &dn, NULL))
        return NULL;
    return dn;
}

int
acreR_aci_type_of(const struct acreR_aci *o, int d)
{
    const struct acreS_dinfo *di = acreS_dinfo(o->schema, d);

    return di ? di->type : d;
}

/* strcasestr bounded to the start when anchored */
static const char *
find_part(const char *p, const char *part, size_t n, int anchored)
{
    if (anchored)
        return strncasecmp(p, part, n) ? NULL : p;
    for (; *p; p++)
        if (!strncasecmp(p, part, n))
            return p;
    return n == 0 ? p : NULL;
}

int
acreR_aci_substr(const char *pat, const char *str, int exact)
{
    const char *star = strchr(pat, '*');
    const char *p = str;

    if (!star) /* no wildcard: the whole string */
        return strcasecmp(pat, str) == 0;
    if (star > pat) { /* initial */
        size_t n = (size_t)(star - pat);
        if (!(p = find_part(p, pat, n, exact)))
            return 0;
        p += n;
    }
    const char *part = star + 1;
    for (const char *next; (next = strchr(part, '*')); part = next + 1) {
        size_t n = (size_t)(next - part);
        if (n == 0)
            continue;
        if (!(p = find_part(p, part, n, 0)))
            return 0;
        p += n;
    }
    size_t fl = strlen(part), tl = strlen(p);
    return fl <= tl && strcasecmp(p + tl - fl, part) == 0;
}

static int
dir_children(void *arg, const acre_entry_view *e)
{
    const struct acreE_entry *d = acreE_dir_find(arg, e->dn);

    return d && (d->nchildren > 0 || d->first_child != NULL);
}

enum acreF_result
acreR_aci_filter_plain(const struct acreR_aci *o, const struct acreF_filter *f,
                       const acre_entry_view *e)
{
    struct acreF_hooks h = {NULL,           NULL,           dir_children,
                            (void *)o->dir, NULL,           NULL,
                            NULL,           o->normal_subs, NULL};

    return acreF_eval(f, e, &h);
}

/* ------------------------------------------------------------------------
 * Targets
 */

/* Is the ACI's holder E or an ancestor of E (root DSE ACIs: E itself)? */
static int
holder_covers(const struct acreI_aci *a, const acre_entry_view *e)
{
    if (acre_dn_depth(a->holder) == 0)
        return acre_dn_depth(e->dn) == 0;
    return acre_dn_in_scope(e->dn, a->holder, ACRE_SCOPE_SUB) == 1;
}

/* acl_match_prefix, component by component: each RDN of prefix (ending
 * in ',') against E's next RDN, "type=*" matching any value of that
 * type; the length of E's DN text it covers, or -1. */
static int
macro_prefix_rdns(const char *prefix, const char *ndn)
{
    const char *p = prefix, *n = ndn;

    while (*p) {
        const char *pe = strchr(p, ','), *ne = strchr(n, ',');
        if (!pe || !ne)
            return -1;
        size_t pl = (size_t)(pe - p), nl = (size_t)(ne - n);
        if (pl >= 2 && p[pl - 1] == '*' && p[pl - 2] == '=') {
            if (nl < pl - 1 || strncasecmp(p, n, pl - 1))
                return -1;
        } else if (pl != nl || strncasecmp(p, n, pl)) {
            return -1;
        }
        p = pe + 1;
        n = ne + 1;
    }
    return (int)(n - ndn);
}

/* The part of E's DN a "($dn)" target matches (acl_match_macro_in_target),
 * or NULL. */
static char *
macro_in_target(void *tmp, const char *ndn, const char *pat)
{
    const char *m = strstr(pat, "($dn)");
    size_t nl = strlen(ndn), sl = 0;

    if (!m)
        return NULL;
    const char *suffix = m[5] == ',' ? m + 6 : m + 5;
    if (*suffix) {
        sl = strlen(suffix);
        if (sl >= nl || strcasecmp(suffix, ndn + nl - sl))
            return NULL;
    }
    size_t pl = (size_t)(m - pat);
    long start = 0;
    if (pl > 0) {
        char *prefix = talloc_strndup(tmp, pat, pl);
        if (!prefix)
            return NULL;
        if (strstr(prefix, "=*") && prefix[pl - 1] == ',') {
            start = macro_prefix_rdns(prefix, ndn);
        } else if (strstr(prefix, "=*")) {
            /* acl_match_substr_prefix: the text before the first '*'
             * (strstr), then the rest (strstr again, at offset > 0) */
            char *star = strchr(prefix, '*');
            *star = 0;
            const char *ini = strstr(ndn, prefix);
            const char *fin =
                ini ? strstr(ini + strlen(prefix), star + 1) : NULL;
            start = fin && fin > ini + strlen(prefix)
                        ? (long)(fin - ndn) + (long)strlen(star + 1)
                        : -1;
        } else {
            const char *at = strstr(ndn, prefix);
            start = at ? (long)(at - ndn) + (long)pl : -1;
        }
        if (start < 0 || (size_t)start >= nl - sl)
            return NULL;
    }
    size_t end = nl - sl;
    if (end > (size_t)start && ndn[end - 1] == ',')
        end--;
    if (end <= (size_t)start)
        return NULL;
    return talloc_strndup(tmp, ndn + start, end - (size_t)start);
}

/* target, target pattern, macro target; sets c->macro. */
static int
target_dn_matches(struct acreR_ctx *c)
{
    const struct acreI_aci_target *t = &c->a->t;
    const char *ndn = acre_dn_normalised(c->e->dn, NULL);
    int m;

    if (!(t->has & ACREI_ACI_T_TARGET))
        return 1;
    if (t->target.kind == ACREI_ACI_PAT_NONE) {
        m = 0; /* 389 stores the text as a DN: no entry is under it */
    } else if (t->target.flags & ACREI_ACI_MACRO_DN) {
        char *v = macro_in_target(c->tmp, ndn, t->target.text);
        m = v != NULL;
        c->macro = v;
    } else if (t->target.kind == ACREI_ACI_PAT_PATTERN) {
        m = acreR_aci_substr(t->target.text, ndn, 0);
    } else {
        m = acre_dn_in_scope(c->e->dn, t->target.dn, ACRE_SCOPE_SUB) == 1;
    }
    return t->target_neg ? !m : m;
}

static int
target_scope_matches(const struct acreR_ctx *c)
{
    const struct acreI_aci_target *t = &c->a->t;
    const acre_dn *base = c->a->holder;

    if (!(t->has & ACREI_ACI_T_SCOPE))
        return 1;
    if ((t->has & ACREI_ACI_T_TARGET) && t->target.kind == ACREI_ACI_PAT_DN &&
        t->target.dn)
        base = t->target.dn;
    return acre_dn_in_scope(c->e->dn, base, t->scope) == 1;
}

static int
target_filter_matches(const struct acreR_ctx *c)
{
    const struct acreI_aci_target *t = &c->a->t;

    if (!(t->has & ACREI_ACI_T_FILTER))
        return 1;
    if (!t->filter) /* a macro filter this oracle cannot expand */
        return 0;
    enum acreF_result r = acreR_aci_filter_plain(c->o, t->filter, c->e);
    if (r == ACREF_UNDEFINED)
        return 0;
    return t->filter_neg ? r == ACREF_FALSE : r == ACREF_TRUE;
}

/* Holder, target, scope and filter: the ACI is about this entry. */
static int
entry_matches(struct acreR_ctx *c)
{
    return holder_covers(c->a, c->e) && target_dn_matches(c) &&
           target_scope_matches(c) && target_filter_matches(c);
}

/* The ACI's i-th perm of all its ACL texts, the last's first: 389 keeps
 * the rights and kinds of every text on the ACI (aci_access, aci_type),
 * and evaluates the last text (perms) alone. */
static const struct acreI_aci_perm *
any_perm(const struct acreI_aci *a, unsigned i)
{
    return i < a->nperms ? &a->perms[i] : &a->xperms[i - a->nperms];
}

static unsigned
aci_rights(const struct acreI_aci *a, int *has_allow)
{
    unsigned r = 0;

    *has_allow = 0;
    for (unsigned i = 0; i < a->nperms + a->nxperms; i++) {
        r |= any_perm(a, i)->rights;
        if (!any_perm(a, i)->deny)
            *has_allow = 1;
    }
    /* 389's aci_access: selfwrite is SLAPI_ACL_SELF | SLAPI_ACL_WRITE */
    return r & ACREI_ACI_SELFWRITE ? r | ACREI_ACI_WRITE : r;
}

/* Is attribute type `type` in the ACI's targetattr list (before "!=")? */
static int
attr_listed(const struct acreR_aci *o, const struct acreI_aci_target *t,
            int type)
{
    int oper = acreS_attr(o->schema, type)->usage != ACRES_USER;

    if (t->attr_star && (o->set->variant != ACREI_ACI_OPENDJ || !oper))
        return 1;
    if (t->attr_plus && oper)
        return 1;
    for (unsigned i = 0; i < t->nattrs; i++)
        if (t->attrs[i] == type)
            return 1;
    const char *name = acreS_attr(o->schema, type)->dn.name;
    for (unsigned i = 0; name && i < t->nattr_pat; i++)
        if (acreR_aci_substr(t->attr_pat[i], name, 1))
            return 1;
    return 0;
}

#define NO_ATTR_RIGHTS \
    (ACREI_ACI_ADD | ACREI_ACI_DELETE | ACREI_ACI_PROXY | ACREI_ACI_MODDN)

/* The targetattr part of acl__resource_match_aci. */
static int
attr_matches(const struct acreR_ctx *c, int attr, unsigned right)
{
    const struct acreI_aci_target *t = &c->a->t;
    /* 389's ACI_TARGET_ATTR: a targetattr, or targattrfilters (which
     * name no attribute of the targetattr list) */
    int has = (t->has & (ACREI_ACI_T_ATTR | ACREI_ACI_T_ATTRFLT)) != 0,
        has_allow;
    unsigned ar = aci_rights(c->a, &has_allow);

    if (attr == ACRER_ACI_UNKNOWN && has) /* only "*" names it */
        return t->attr_neg ? !t->attr_star : t->attr_star;
    if (attr >= 0 && has) {
        int m = attr_listed(c->o, t, acreR_aci_type_of(c->o, attr));
        return t->attr_neg ? !m : m;
    }
    if (attr == -1 && !has)
        return 1;
    if ((ar & NO_ATTR_RIGHTS) && (right & NO_ATTR_RIGHTS))
        return 1;
    return attr < 0 && has && (ar & ACREI_ACI_WRITE) && has_allow;
}

/* ------------------------------------------------------------------------
 * The decision
 */

static int
is_root(const struct acreR_aci *o)
{
    return o->bind && o->set->rootdn && acre_dn_equal(o->bind, o->set->rootdn);
}

/* libaccess's answers (ACL_RES_*) */
enum res { RES_NONE, RES_ALLOW, RES_DENY, RES_FAIL, RES_INVALID };

static enum res
res_of(enum acreR_tv v)
{
    return v == ACRER_U ? RES_FAIL : RES_INVALID;
}

/*
 * One ACI through libaccess (ACL_INTEvalTestRights), as 389's deny and
 * allow phases hand it over (acl__TestRights): its perms for the right
 * in order, each deny absolute (aclparse.c writes "deny absolute").  The
 * rights start at the default result, nothing; a perm whose bind rule
 * is neither True nor False is an error: a deny's ends the walk with the
 * error an allow left before it, else its own; an allow's is left, when
 * none is.  An allow True makes the result ALLOW and forgets the error
 * left; a deny True ends the walk with the error left, else DENY.  At
 * the end a result that is not ALLOW is the error left, else itself.
 */
static enum res
testrights(struct acreR_ctx *c, unsigned right)
{
    enum res result = RES_NONE, allow_error = RES_NONE;

    for (unsigned j = 0; j < c->a->nperms; j++) {
        const struct acreI_aci_perm *p = &c->a->perms[j];
        if (!(p->rights & right))
            continue;
        enum acreR_tv v = acreR_aci_bind(c, p->bind);
        if (v != ACRER_T && v != ACRER_F) {
            if (p->deny)
                return allow_error ? allow_error : res_of(v);
            if (!allow_error)
                allow_error = res_of(v);
        }
        if (v != ACRER_T)
            continue;
        if (p->deny)
            return allow_error ? allow_error : RES_DENY;
        result = RES_ALLOW;
        allow_error = RES_NONE;
    }
    return result != RES_ALLOW && allow_error ? allow_error : result;
}

/* One pass over the candidates: deny perms (deny 1) or allow perms.
 * Returns 1 when a perm of that kind fires. */
static int
pass(struct acreR_aci *o, void *tmp, const acre_entry_view *e, int attr,
     unsigned right, int deny)
{
    for (unsigned i = 0; i < o->set->n; i++) {
        struct acreR_ctx c = {o, e, &o->set->acis[i], NULL, tmp};
        /* a deny handle: an ACI with a deny rule (any rights) whose
         * rights take the check; an allow: an allow perm with the right */
        int covered = 0, has_allow;
        for (unsigned j = 0; j < c.a->nperms + (deny ? c.a->nxperms : 0); j++)
            covered |= any_perm(c.a, j)->deny == deny &&
                       (deny || (any_perm(c.a, j)->rights & right));
        if (deny && !(aci_rights(c.a, &has_allow) & right))
            covered = 0;
        if (!covered || !entry_matches(&c) || !attr_matches(&c, attr, right))
            continue;
        /* the ACI through libaccess, whole: the deny phase denies at
         * DENY and FAIL, the allow phase grants at ALLOW */
        enum res r = testrights(&c, right);
        if (deny ? r == RES_DENY || r == RES_FAIL : r == RES_ALLOW)
            return 1;
    }
    return 0;
}

/* 1 allowed, 0 denied; *by_deny set when a deny perm decided. */
static int
decide(struct acreR_aci *o, const acre_entry_view *e, int attr, unsigned right,
       int *by_deny)
{
    void *tmp = talloc_new(o);
    int r = 0;

    *by_deny = 0;
    if (is_root(o))
        r = 1;
    else if (!tmp)
        r = 0;
    else if (pass(o, tmp, e, attr, right, 1))
        *by_deny = 1;
    else
        r = pass(o, tmp, e, attr, right, 0);
    talloc_free(tmp);
    return r;
}

static int anon_profile(struct acreR_aci *o, const acre_entry_view *e, int attr,
                        unsigned right);

/* Proxied authorization: may a check of attr (as acreR_aci_check) on e
 * go on?  389 (acl_access_allowed) asks the DN bound's proxy right, for
 * that attribute, at every check of an entry until it is granted there;
 * then not again until it is granted on another entry. */
static int
proxy_right(struct acreR_aci *o, const acre_entry_view *e, int attr)
{
    const char *dn = acre_dn_normalised(e->dn, NULL);

    if (!o->px || (o->px_granted && !strcmp(o->px_granted, dn)))
        return 1;
    if (!acreR_aci_check(o->px, e, attr, ACREI_ACI_PROXY))
        return 0;
    talloc_free(o->px_granted);
    o->px_granted = talloc_strdup(o, dn);
    return 1;
}

int
acreR_aci_check(struct acreR_aci *o, const acre_entry_view *e, int attr,
                unsigned right)
{
    if (o->set->variant == ACREI_ACI_OPENDJ)
        return acreR_dj_check(o, e, attr, right);
    /* acl_access_allowed: the anonymous profile (of an anonymous DN
     * bound) answers before the proxy right is asked */
    int by_deny, p = is_root(o) ? -1 : anon_profile(o, e, attr, right);
    if (p >= 0)
        return p;
    return proxy_right(o, e, attr) && decide(o, e, attr, right, &by_deny);
}

/* ------------------------------------------------------------------------
 * 389's anonymous profile (aclanom.c)
 */

/* What aclparse.c records of a bind rule: any rule type but plain userdn
 * (another keyword, a "self" first term, a macro), and a userdn,
 * groupdn or roledn written with "!=" (ACI_CONTAIN_NOT_*DN). */
static void
bind_facts(const struct acreI_bind *b, int *complex, int *ne)
{
    if (!b)
        return;
    if ((b->kw == ACREI_ACI_USERDN || b->kw == ACREI_ACI_GROUPDN ||
         b->kw == ACREI_ACI_ROLEDN) &&
        b->op == ACREI_ACI_NE)
        *ne = 1;
    switch (b->kw) {
    case ACREI_ACI_AND:
    case ACREI_ACI_OR:
        bind_facts(b->b, complex, ne);
        /* fall through */
    case ACREI_ACI_NOT:
        bind_facts(b->a, complex, ne);
        return;
    case ACREI_ACI_USERDN:
        if (b->nterms && b->terms[0].kind == ACREI_ACI_S_SELF)
            *complex = 1;
        for (unsigned i = 0; i < b->nterms; i++)
            if (b->terms[i].pat.flags)
                *complex = 1;
        return;
    default:
        *complex = 1;
    }
}

/* aci_elevel as aclparse.c's __aclp__normalize_acltxt leaves it: it
 * starts at ACI_DEFAULT_ELEVEL (7) and each rule, in text order, either
 * sets it (userattr and userdnattr: USERDNATTR, 3; a userdn whose first
 * URL is anyone: USERDN_ANYONE, 0) or lowers it to a floor (a userdn's
 * all: 1, another URL but self: 2; groupdnattr: 4 with an ldap URL, else
 * 5; groupdn: 6); any other rule leaves it. */
enum { EL_KEEP, EL_SET, EL_FLOOR };

static int
elevel_rule(const struct acreI_bind *b, unsigned *v)
{
    int first = b->nterms ? (int)b->terms[0].kind : -1;

    if (b->kw == ACREI_ACI_USERATTR || b->kw == ACREI_ACI_USERDNATTR)
        return *v = 3, EL_SET;
    if (b->kw == ACREI_ACI_USERDN && first == ACREI_ACI_S_ANYONE)
        return *v = 0, EL_SET;
    if (b->kw == ACREI_ACI_USERDN && first >= 0 && first != ACREI_ACI_S_SELF)
        return *v = first == ACREI_ACI_S_ALL ? 1 : 2, EL_FLOOR;
    if (b->kw == ACREI_ACI_GROUPDNATTR)
        return *v = b->uakind == ACREI_ACI_UA_GROUPURL ? 4 : 5, EL_FLOOR;
    if (b->kw == ACREI_ACI_GROUPDN)
        return *v = 6, EL_FLOOR;
    return EL_KEEP;
}

/* The rules of b in text order (an operator's left operand first). */
static void
elevel_walk(const struct acreI_bind *b, unsigned *lv)
{
    unsigned v = 0;

    if (!b)
        return;
    if (b->kw == ACREI_ACI_AND || b->kw == ACREI_ACI_OR ||
        b->kw == ACREI_ACI_NOT) {
        elevel_walk(b->a, lv);
        elevel_walk(b->b, lv);
        return;
    }
    switch (elevel_rule(b, &v)) {
    case EL_SET:
        *lv = v;
        break;
    case EL_FLOOR:
        *lv = v < *lv ? v : *lv;
        break;
    default:
        break;
    }
}

/* The ACI's elevel: its ACL texts in the order they are written, the
 * earlier ones (xperms) before the last (perms). */
static unsigned
aci_elevel(const struct acreI_aci *a)
{
    unsigned lv = 7;

    for (unsigned j = 0; j < a->nxperms; j++)
        elevel_walk(a->xperms[j].bind, &lv);
    for (unsigned j = 0; j < a->nperms; j++)
        elevel_walk(a->perms[j].bind, &lv);
    return lv;
}

/* The macro targetfilter of a as 389's anonymous profile reads it, its
 * text unexpanded (slapi_str2filter: up to the parenthesis closing the
 * first, balanced parentheses a value's), under ctx; NULL when it cannot
 * be read. */
static const struct acreF_filter *
raw_filter(const struct acreR_aci *o, void *ctx, const struct acreI_aci *a)
{
    const char *ft = a->t.filter_text ? a->t.filter_text : "";
    char *w = ft[0] == '('
                  ? talloc_strndup(ctx, ft, acreF_paren_end(ft, strlen(ft)))
                  : talloc_asprintf(ctx, "(%s)", ft);
    struct acreF_filter *f = NULL;

    if (!w || acreF_parse_flags(ctx, o->schema, w, strlen(w),
                                ACREF_389_NAMES | ACREF_389_PARENS, &f, NULL))
        f = NULL;
    talloc_free(w);
    return f;
}

/* Build the profile: 0 when 389 would have none (then every check of
 * an anonymous requester takes the ordinary path). */
static int
anon_profile_build(struct acreR_aci *o)
{
    const struct acreI_aci_set *set = o->set;
    unsigned n = 0;

    if (set->variant != ACREI_ACI_389 ||
        !(o->anon = talloc_array(o, unsigned, set->n + 1)))
        return 0;
    for (unsigned i = 0; i < set->n; i++) {
        const struct acreI_aci *a = &set->acis[i];
        int complex = 0, ne = 0, has_allow, deny = 0;
        unsigned r = aci_rights(a, &has_allow);
        for (unsigned j = 0; j < a->nperms + a->nxperms; j++) {
            bind_facts(any_perm(a, j)->bind, &complex, &ne);
            deny |= any_perm(a, j)->deny;
        }
        if (deny && ne) /* "deny ... userdn != X": no profile at all */
            return 0;
        /* "Must be a anyone rule": aci_elevel USERDN_ANYONE */
        if (aci_elevel(a) != 0 || !(r & (ACREI_ACI_READ | ACREI_ACI_SEARCH)))
            continue;
        int pattern = (a->t.has & ACREI_ACI_T_TARGET) &&
                      a->t.target.kind == ACREI_ACI_PAT_PATTERN &&
                      !(a->t.target.flags & ACREI_ACI_MACRO_DN);
        if (complex || deny || pattern || a->t.target_neg || a->t.filter_neg ||
            a->t.nattr_pat)
            return 0;
        /* a macro targetfilter: 389 reads its text unexpanded; one it
         * cannot read keeps no profile */
        void *tmp = talloc_new(NULL);
        int unread = (a->t.has & ACREI_ACI_T_FILTER) && !a->t.filter &&
                     !raw_filter(o, tmp, a);
        talloc_free(tmp);
        if (unread)
            return 0;
        o->anon[n++] = i;
    }
    o->nanon = n;
    return n > 0;
}

/* aclanom_match_profile: 1 allowed, 0 denied, -1 no profile ACI with
 * this right is about e (the ordinary path decides). */
static int
anon_profile_check(struct acreR_aci *o, const acre_entry_view *e, int attr,
                   unsigned right)
{
    int result = 0, tmatched = 0;

    for (unsigned k = 0; k < o->nanon && !result; k++) {
        const struct acreI_aci *a = &o->set->acis[o->anon[k]];
        /* a "($dn)" target leaves 389's aci->target empty: the holder */
        const acre_dn *base = (a->t.has & ACREI_ACI_T_TARGET) && a->t.target.dn
                                  ? a->t.target.dn
                                  : a->holder;
        int has_allow;
        if ((a->t.has & ACREI_ACI_T_TARGET) &&
            a->t.target.kind == ACREI_ACI_PAT_NONE)
            continue; /* its target DN has no entry under it */
        if (!(aci_rights(a, &has_allow) & right) ||
            acre_dn_in_scope(e->dn, base, ACRE_SCOPE_SUB) != 1 ||
            (acre_dn_depth(a->holder) == 0 && acre_dn_depth(e->dn) > 0))
            continue;
        if (a->t.has & ACREI_ACI_T_FILTER) {
            void *tmp = talloc_new(NULL);
            const struct acreF_filter *f =
                a->t.filter ? a->t.filter : raw_filter(o, tmp, a);
            int taken = f && acreR_aci_filter_plain(o, f, e) == ACREF_TRUE;
            talloc_free(tmp);
            if (!taken)
                continue;
        }
        tmatched = 1;
        if (attr == -1)
            return 1;
        int m = a->t.attr_star ||
                ((a->t.has & ACREI_ACI_T_ATTR) && attr >= 0 &&
                 attr_listed(o, &a->t, acreR_aci_type_of(o, attr)));
        result = a->t.attr_neg ? !m : m;
    }
    return tmatched ? result : -1;
}

static int
anon_profile(struct acreR_aci *o, const acre_entry_view *e, int attr,
             unsigned right)
{
    if (!o->has_anon || !(right & (ACREI_ACI_READ | ACREI_ACI_SEARCH)))
        return -1;
    return anon_profile_check(o, e, attr, right);
}

/* ------------------------------------------------------------------------
 * Visibility
 */

/* Read on one of E's attributes, in order: the first one whatever it
 * is, then the user attributes (389 skips operational ones). */
static int
some_attr_readable(struct acreR_aci *o, const acre_entry_view *e)
{
    for (unsigned i = 0; i < e->nattrs; i++) {
        int type = acreR_aci_type_of(o, e->attrs[i].id);
        if (i > 0 && acreS_attr(o->schema, type)->usage != ACRES_USER)
            continue;
        if (acreR_aci_check(o, e, e->attrs[i].id, ACREI_ACI_READ))
            return 1;
    }
    return 0;
}

/* A candidate without targetattr, with read, about E. */
static int
entry_test_rule(struct acreR_aci *o, void *tmp, const acre_entry_view *e)
{
    for (unsigned i = 0; i < o->set->n; i++) {
        struct acreR_ctx c = {o, e, &o->set->acis[i], NULL, tmp};
        int has_allow;
        if (!(c.a->t.has & (ACREI_ACI_T_ATTR | ACREI_ACI_T_ATTRFLT)) &&
            (aci_rights(c.a, &has_allow) & ACREI_ACI_READ) && entry_matches(&c))
            return 1;
    }
    return 0;
}

/* acl__TestRights' handles for an entry-level read: the ACIs about E at
 * entry level with read among their rights, with an allow perm (*allow)
 * or a deny perm (*deny), whatever their bind rules. */
static void
entry_read_handles(struct acreR_aci *o, void *tmp, const acre_entry_view *e,
                   unsigned *allow, unsigned *deny)
{
    *allow = *deny = 0;
    for (unsigned i = 0; i < o->set->n; i++) {
        struct acreR_ctx c = {o, e, &o->set->acis[i], NULL, tmp};
        int has_allow, has_deny = 0;
        if (!(aci_rights(c.a, &has_allow) & ACREI_ACI_READ) ||
            !entry_matches(&c) || !attr_matches(&c, -1, ACREI_ACI_READ))
            continue;
        for (unsigned j = 0; j < c.a->nperms + c.a->nxperms; j++)
            has_deny |= any_perm(c.a, j)->deny;
        *allow += has_allow != 0;
        *deny += has_deny != 0;
    }
}

int
acreR_aci_visible(struct acreR_aci *o, const acre_entry_view *e)
{
    if (o->set->variant == ACREI_ACI_OPENDJ)
        return acreR_dj_visible(o, e);
    if (is_root(o))
        return 1;
    int p = anon_profile(o, e, -1, ACREI_ACI_READ);
    if (p >= 0)
        return p;
    if (!some_attr_readable(o, e))
        return 0;
    void *tmp = talloc_new(o);
    int hidden = 0, by_deny;
    if (tmp && entry_test_rule(o, tmp, e)) {
        unsigned allow, deny;
        entry_read_handles(o, tmp, e, &allow, &deny);
        /* no allow handle at all: 389 denies at once, flagged as a deny
         * when deny handles exist, without evaluating them */
        if (allow == 0)
            hidden = deny > 0;
        else
            hidden = !decide(o, e, -1, ACREI_ACI_READ, &by_deny) && by_deny;
    }
    talloc_free(tmp);
    return !hidden;
}

/* ------------------------------------------------------------------------
 * Filters
 */

struct fwalk {
    struct acreR_aci *o;
    const acre_entry_view *e;
    const struct acreF_filter *f;
    int acd; /* 389's access_check_done, shared by the whole walk */
};

/* 389's modes of slapi_vattr_filter_test_ext_internal: matching only,
 * matching with access checks, access checks only (the "-1" mode OR
 * uses on each of its parts). */
enum fmode { F_PLAIN, F_VERIFY, F_ACCESS };

/* An item: search on its attribute (a rule-only extensible item has
 * none to check; a name the schema does not know is asked as such). */
static int
item_access(const struct fwalk *w, const struct acreF_node *n)
{
    if (is_root(w->o)) /* the ACL plugin grants the root DN everything */
        return 1;
    if (!n->desc)
        return 1;
    return acreR_aci_check(w->o, w->e,
                           n->want.type < 0 ? ACRER_ACI_UNKNOWN : n->want.type,
                           ACREI_ACI_SEARCH);
}

static int friend(const struct acreR_aci *o, const struct acreF_node *n,
                  const char *name);

/* 389's codes: 0 true, -1 false, 1 undefined. */
static int
node_plain(const struct fwalk *w, const struct acreF_node *n)
{
    struct acreF_filter sub = *w->f;

    /* 389 stores no hasSubordinates: an item its back end left (see
     * rewrite389) finds no attribute */
    if (w->o->set->variant == ACREI_ACI_389 &&
        friend(w->o, n, "hasSubordinates"))
        return -1;
    sub.root = (struct acreF_node *)n;
    switch (acreR_aci_filter_plain(w->o, &sub, w->e)) {
    case ACREF_TRUE:
        return 0;
    case ACREF_FALSE:
        return -1;
    default:
        return 1;
    }
}

static int node_eval(struct fwalk *w, const struct acreF_node *n,
                     enum fmode mode);

/* vattr_test_filter_list_and (2.3.1): a part that matched counts only
 * when access_check_done is set after it (or nothing is checked); else
 * it is asked again for access alone */
static int
list_and(struct fwalk *w, const struct acreF_node *n, enum fmode mode)
{
    int nomatch = -1, undefined = 0;

    for (unsigned i = 0; i < n->nkids; i++) {
        int rc = node_eval(w, n->kids[i], mode);
        if (rc > 0) {
            undefined = rc;
        } else if (rc < 0) {
            undefined = 0;
            nomatch = -1;
            break;
        } else if (mode == F_PLAIN || w->acd) {
            nomatch = 0;
        } else if ((rc = node_eval(w, n->kids[i], F_ACCESS)) != 0) {
            undefined = rc;
        }
    }
    return undefined ? undefined : nomatch;
}

/* vattr_test_filter_list_or (2.3.1): a part is ignored unless its
 * access-only evaluation is 0 (that code, -1 included, is kept as the
 * OR's answer when no part is left), then matched without access checks
 * -- in every mode: the function never looks at only_check_access, so
 * an OR asked for access alone answers whether it matches. */
static int
list_or(struct fwalk *w, const struct acreF_node *n, enum fmode mode)
{
    int nomatch = 1, undefined = 0;

    for (unsigned i = 0; i < n->nkids; i++) {
        int rc;
        if (mode != F_PLAIN && (rc = node_eval(w, n->kids[i], F_ACCESS))) {
            undefined = rc;
            continue;
        }
        undefined = 0;
        rc = node_eval(w, n->kids[i], F_PLAIN);
        if (rc == 0)
            return 0;
        if (rc > 0)
            undefined = rc;
        else
            nomatch = -1;
    }
    return nomatch == 1 ? undefined : nomatch;
}

/* slapi_vattr_filter_test_ext_internal (2.3.1), with the
 * access_check_done it threads through every call: set by each item it
 * checks (1; an extensible item -1), cleared by every extensible item
 * it evaluates (test_extensible_filter), read by AND and NOT */
static int
node_eval(struct fwalk *w, const struct acreF_node *n, enum fmode mode)
{
    switch (n->kind) {
    case ACREF_AND:
    case ACREF_ABSOLUTE_TRUE:
        return list_and(w, n, mode);
    case ACREF_OR:
    case ACREF_ABSOLUTE_FALSE:
        return list_or(w, n, mode);
    case ACREF_NOT: {
        int rc = node_eval(w, n->kids[0], mode);
        if (mode == F_ACCESS || rc > 0)
            return rc;
        if (mode == F_VERIFY && !w->acd) {
            int rc2 = node_eval(w, n->kids[0], F_ACCESS);
            if (rc2)
                return rc2;
        }
        return rc == 0 ? -1 : 0;
    }
    case ACREF_EXTENSIBLE:
        w->acd = 0;
        if (mode != F_PLAIN && n->desc) {
            w->acd = -1;
            if (!item_access(w, n))
                return 1;
            if (mode == F_ACCESS)
                return 0;
        }
        return node_plain(w, n);
    default:
        if (mode != F_PLAIN) {
            w->acd = 1;
            if (!item_access(w, n))
                return 1;
        }
        return mode == F_ACCESS ? 0 : node_plain(w, n);
    }
}

int
acreR_aci_filter(struct acreR_aci *o, const acre_entry_view *e,
                 const struct acreF_filter *f)
{
    if (o->set->variant == ACREI_ACI_OPENDJ)
        return acreR_dj_filter(o, e, f);
    struct fwalk w = {o, e, f, 0};
    /* the root DN too: access is granted, access_check_done still runs */
    int rc = node_eval(&w, f->root, F_VERIFY);

    return rc == 0 ? 1 : rc < 0 ? 0 : -1;
}

/* ------------------------------------------------------------------------
 * 389's filter optimiser (filter.c slapi_filter_optimise, 2.3.1), which a
 * one-level or subtree search runs on its filter before the tests above,
 * done literally on a copy of the tree: an AND (OR) takes in the children
 * of its AND (OR) children, puts its equality items but objectClass's
 * (its approx, >=, <= and substring items) first, in reverse order
 * (filter_prioritise_element pushes each onto the head), then optimises
 * its new first child; a leaf or NOT optimises its next sibling instead.
 */

static struct acreF_node *
node_copy(void *ctx, const struct acreF_node *n)
{
    struct acreF_node *c = talloc(ctx, struct acreF_node);

    if (!c)
        return NULL;
    *c = *n;
    if (n->nkids) {
        c->kids = talloc_array(c, struct acreF_node *, n->nkids);
        if (!c->kids)
            return NULL;
        for (unsigned i = 0; i < n->nkids; i++)
            if (!(c->kids[i] = node_copy(c, n->kids[i])))
                return NULL;
    }
    return c;
}

static int
put_first(const struct acreF_node *parent, const struct acreF_node *k)
{
    if (parent->kind == ACREF_AND)
        return k->kind == ACREF_EQUALITY &&
               !(k->desc && k->desc_len == 11 &&
                 !strncasecmp(k->desc, "objectclass", 11));
    return k->kind == ACREF_APPROX || k->kind == ACREF_GE ||
           k->kind == ACREF_LE || k->kind == ACREF_SUBSTRINGS;
}

/* splice -- n's children with same-kind children replaced by theirs */
static void
splice(const struct acreF_node *n, const struct acreF_node *at,
       struct acreF_node **out, unsigned *k)
{
    for (unsigned i = 0; i < at->nkids; i++) {
        if (at->kids[i]->kind == n->kind)
            splice(n, at->kids[i], out, k);
        else
            out[(*k)++] = at->kids[i];
    }
}

static unsigned
leaves(const struct acreF_node *n)
{
    unsigned c = 1;

    for (unsigned i = 0; i < n->nkids; i++)
        c += leaves(n->kids[i]);
    return c;
}

static int
optimise(void *ctx, struct acreF_node *n)
{
    struct acreF_node **all = talloc_array(ctx, struct acreF_node *, leaves(n)),
                      **list;
    unsigned k = 0, j = 0;

    if (!all || !(list = talloc_array(ctx, struct acreF_node *, leaves(n))))
        return -1;
    splice(n, n, all, &k);
    /* put first, each on the head of the list: in reverse order */
    for (unsigned i = k; i-- > 0;)
        if (put_first(n, all[i]))
            list[j++] = all[i];
    for (unsigned i = 0; i < k; i++)
        if (!put_first(n, all[i]))
            list[j++] = all[i];
    n->kids = list;
    n->nkids = j;
    for (unsigned i = 0; i < j; i++) /* "optimise the first child" */
        if (list[i]->kind == ACREF_AND || list[i]->kind == ACREF_OR)
            return optimise(ctx, list[i]);
    return 0;
}

/* ------------------------------------------------------------------------
 * Searches
 */

struct selection {
    int user, oper, star; /* star: "*" itself was asked */
    unsigned n;
    int *types;
};

static int
select_attrs(struct acreR_aci *o, void *ctx, const char *const *attrs,
             unsigned n, struct selection *sel)
{
    memset(sel, 0, sizeof(*sel));
    sel->user = n == 0;
    if (!(sel->types = talloc_array(ctx, int, n + 1)))
        return ACRE_ERR_NOMEM;
    for (unsigned i = 0; i < n; i++) {
        if (!strcmp(attrs[i], "*"))
            sel->user = sel->star = 1;
        else if (!strcmp(attrs[i], "+"))
            sel->oper = 1;
        else if (strcmp(attrs[i], "1.1")) {
            int t = acreS_attr_find(o->schema, attrs[i], strlen(attrs[i]));
            if (t >= 0)
                sel->types[sel->n++] = t;
        }
    }
    return 0;
}

static int
selected(const struct acreR_aci *o, const struct selection *sel, int id)
{
    int type = acreR_aci_type_of(o, id);

    for (unsigned i = 0; i < sel->n; i++)
        if (acreS_is_subtype(o->schema, type, sel->types[i]))
            return 1;
    if (sel->star && o->set->variant == ACREI_ACI_389 && type == o->id_aci)
        return 1; /* 389 returns aci for an explicit "*" (not for none) */
    if (acreS_attr(o->schema, type)->usage != ACRES_USER)
        return sel->oper;
    return sel->user;
}

struct swalk {
    struct acreR_aci *o;
    void *ctx;
    const struct acreF_filter *f;
    const struct selection *sel;
    struct acreR_aci_search *res;
    int nomem;
    int skip_subentries;
};

static int
send_entry(struct swalk *w, const acre_entry_view *e)
{
    struct acreR_aci_search *r = w->res;
    struct acreR_aci_sentry *v = talloc_realloc(
        w->ctx, r->entries, struct acreR_aci_sentry, r->nentries + 1);

    if (!v)
        return w->nomem = 1;
    r->entries = v;
    struct acreR_aci_sentry *se = &v[r->nentries++];
    se->entry = e;
    se->nattrs = 0;
    if (!(se->attrs = talloc_array(w->ctx, unsigned, e->nattrs + 1)))
        return w->nomem = 1;
    for (unsigned i = 0; i < e->nattrs; i++)
        if (selected(w->o, w->sel, e->attrs[i].id) &&
            acreR_aci_check(w->o, e, e->attrs[i].id, ACREI_ACI_READ))
            se->attrs[se->nattrs++] = i;
    return 0;
}

/* Does the filter have an item (objectClass=ldapSubEntry)? */
static int
asks_subentries(const struct acreR_aci *o, const struct acreF_node *n)
{
    for (unsigned i = 0; i < n->nkids; i++)
        if (asks_subentries(o, n->kids[i]))
            return 1;
    return n->kind == ACREF_EQUALITY && n->want.type == o->id_oc &&
           n->raw_len == 12 &&
           !strncasecmp((const char *)n->raw, "ldapSubEntry", 12);
}

static int
is_subentry(const struct acreR_aci *o, const acre_entry_view *e)
{
    int oc = acreS_class_find(o->schema, "ldapSubEntry", 12);

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

static int
visit(void *ctx, const struct acreE_entry *de)
{
    struct swalk *w = ctx;
    const acre_entry_view *e = &de->v;
    struct fwalk fw = {w->o, e, w->f, 0};

    if (w->skip_subentries && is_subentry(w->o, e))
        return 0;
    if (node_eval(&fw, w->f->root, F_PLAIN) != 0 ||
        acreR_aci_filter(w->o, e, w->f) != 1 || !acreR_aci_visible(w->o, e))
        return 0;
    return send_entry(w, e);
}

/* ------------------------------------------------------------------------
 * 389's rewrite of numSubordinates and hasSubordinates items (back-ldbm
 * ldbm_attr.c, grok_and_rewrite_filter), literally: the filter written
 * out again with each item the back end rewrites replaced by the text it
 * puts there, and read anew.  Its decoder has named each type by the
 * schema's first name; a type with options is another name.
 */

/* friend -- is item n on the type whose first name is `name`? */
static int friend(const struct acreR_aci *o, const struct acreF_node *n,
                  const char *name)
{
    if (!n->desc || n->want.type < 0 || n->want.nopts)
        return 0;
    const struct acreS_attr *at = acreS_attr(o->schema, n->want.type);
    return at->nnames && !strcasecmp(at->names[0], name);
}

/* escape -- v[0..len) as a filter value (RFC 4515). */
static char *
escape(void *ctx, const uint8_t *v, size_t len)
{
    char *s = talloc_strdup(ctx, "");

    for (size_t i = 0; s && i < len; i++)
        s = strchr("*()\\", v[i]) || v[i] < 0x20 || v[i] >= 0x7f
                ? talloc_asprintf_append(s, "\\%02x", v[i])
                : talloc_asprintf_append(s, "%c", v[i]);
    return s;
}

/* grok -- the text of n after the rewrite (NULL: no memory); *cannot
 * when grok_and_rewrite_filter returns 1 for it. */
static char *
grok(const struct acreR_aci *o, void *ctx, const struct acreF_filter *f,
     const struct acreF_node *n, int *cannot)
{
    int has = friend(o, n, "hasSubordinates");
    int num = friend(o, n, "numSubordinates");
    /* the value as 389 reads it: a C string */
    char *v =
        n->raw ? talloc_strndup(ctx, (const char *)n->raw, n->raw_len) : NULL;

    *cannot = 0;
    switch (n->kind) {
    case ACREF_AND:
    case ACREF_OR:
    case ACREF_NOT: {
        char *t = talloc_strdup(ctx, n->kind == ACREF_AND  ? "(&"
                                     : n->kind == ACREF_OR ? "(|"
                                                           : "(!");
        for (unsigned i = 0; t && i < n->nkids; i++) {
            int ignored;
            char *k = grok(o, ctx, f, n->kids[i], &ignored);
            t = k ? talloc_strdup_append(t, k) : NULL;
        }
        return t ? talloc_strdup_append(t, ")") : NULL;
    }
    case ACREF_EQUALITY:
        if (has && v && !strcasecmp(v, "TRUE"))
            return "(&(numsubordinates=*)(numsubordinates>=1))";
        if (has && v && !strcasecmp(v, "FALSE"))
            return "(&(objectclass=*)(!(numsubordinates=*)))";
        if (num && v && atoi(v) > 0) {
            char *e = escape(ctx, n->raw, n->raw_len);
            return e ? talloc_asprintf(
                           ctx, "(&(numsubordinates=*)(numsubordinates=%s))", e)
                     : NULL;
        }
        if (num && v && atoi(v) == 0)
            return "(&(objectclass=*)(!(numsubordinates=*)))";
        *cannot = has || num;
        break;
    case ACREF_GE:
        if (num && v) {
            if (atoi(v) == 0)
                return "(objectclass=*)";
            char *e = escape(ctx, n->raw, n->raw_len);
            return e ? talloc_asprintf(
                           ctx, "(&(numsubordinates=*)(numsubordinates>=%s))",
                           e)
                     : NULL;
        }
        *cannot = has;
        break;
    case ACREF_PRESENT:
        if (has || num)
            return "(objectclass=*)";
        break;
    case ACREF_LE:
    case ACREF_APPROX:
    case ACREF_SUBSTRINGS:
        *cannot = has || num;
        break;
    default:
        break;
    }
    /* as it is */
    struct acreF_filter one = *f;
    struct acreE_buf b;
    uint8_t local[256];
    char *t = NULL;
    one.root = (struct acreF_node *)n;
    acreE_buf_init(&b, local, sizeof local);
    if (acreF_to_string(&one, &b) == 0)
        t = talloc_strndup(ctx, (const char *)b.p, b.len);
    acreE_buf_free(&b);
    return t;
}

/* rewrite389 -- *f as 389's back end tests it: 0, or 53 (unwilling-
 * ToPerform) when the whole filter is an item it cannot rewrite, or an
 * error.  The one filter (&(numsubordinates=*)(numsubordinates>=1)),
 * compared as text with the types by their first names, is left alone. */
static int
rewrite389(const struct acreR_aci *o, void *ctx, struct acreF_filter **f)
{
    const struct acreF_node *r = (*f)->root;
    int cannot;

    if (r->kind == ACREF_AND && r->nkids == 2 &&
        r->kids[0]->kind == ACREF_PRESENT &&
        friend(o, r->kids[0], "numSubordinates") &&
        r->kids[1]->kind == ACREF_GE &&
        friend(o, r->kids[1], "numSubordinates") && r->kids[1]->raw_len == 1 &&
        r->kids[1]->raw[0] == '1')
        return 0;
    char *t = grok(o, ctx, *f, r, &cannot);
    if (!t)
        return ACRE_ERR_NOMEM;
    if (cannot)
        return 53;
    int rc = acreF_parse(ctx, o->schema, t, strlen(t), f, NULL);
    return rc; /* (a text it wrote that does not parse: an error) */
}

int
acreR_aci_search(struct acreR_aci *o, void *ctx, const char *base, int scope,
                 const char *filter, const char *const *attrs, unsigned nattrs,
                 struct acreR_aci_search **out)
{
    struct acreR_aci_search *res = talloc_zero(ctx, struct acreR_aci_search);
    struct selection sel;
    struct acreF_filter *f;
    acre_dn *bdn;

    if (!res || select_attrs(o, res, attrs, nattrs, &sel))
        return ACRE_ERR_NOMEM;
    *out = res;
    /* an operation of its own: no proxy right granted yet */
    talloc_free(o->px_granted);
    o->px_granted = NULL;
    if (acre_dn_parse(res, o->schema, base, strlen(base), 0, &bdn, NULL)) {
        res->rc = 34;
        return 0;
    }
    if (acreF_parse(res, o->schema, filter, strlen(filter), &f, NULL)) {
        res->rc = 87;
        return 0;
    }
    if (scope == ACRE_SCOPE_CHILDREN && o->set->variant == ACREI_ACI_389) {
        res->rc = 2; /* 389: "Unknown search scope" */
        return 0;
    }
    if (o->proxied && is_root(o) && o->set->variant == ACREI_ACI_389) {
        res->rc = 12; /* proxyauth_get_dn: "Proxy dn should not be rootdn" */
        return 0;
    }
    if (o->set->variant == ACREI_ACI_389) {
        int rc = rewrite389(o, res, &f);
        if (rc == 53) {
            res->rc = 53;
            return 0;
        }
        if (rc)
            return rc;
    }
    if (!acreE_dir_find(o->dir, bdn) && o->set->variant == ACREI_ACI_OPENDJ) {
        res->rc = 32; /* OpenDJ: noSuchObject whatever the access */
        return 0;
    }
    if (!acreE_dir_find(o->dir, bdn)) {
        /* 389's findentry.c: noSuchObject, unless the nearest existing
         * ancestor may not be read (on the attribute "1.1"): success;
         * judged before the search sets FILTER_NORMALIZED */
        res->rc = 32;
        for (unsigned d = acre_dn_depth(bdn); d-- > 1;) {
            size_t n;
            const char *t = acre_dn_ancestor(bdn, d, &n);
            acre_dn *adn;
            const struct acreE_entry *a;
            if (acre_dn_parse(res, o->schema, t, n, 0, &adn, NULL) ||
                !(a = acreE_dir_find(o->dir, adn)))
                continue;
            o->normal_subs = 1;
            /* findentry.c asks the ACL plugin unless the DN bound is the
             * directory manager (SLAPI_REQUESTOR_ISROOT) */
            if (!o->bound_root &&
                !acreR_aci_check(o, &a->v, ACRER_ACI_UNKNOWN, ACREI_ACI_READ))
                res->rc = 0;
            o->normal_subs = 0;
            break;
        }
        return 0;
    }
    if (scope != ACRE_SCOPE_BASE && o->set->variant == ACREI_ACI_389 &&
        (f->root->kind == ACREF_AND || f->root->kind == ACREF_OR)) {
        struct acreF_filter *of = talloc(res, struct acreF_filter);
        if (!of || !(*of = *f, of->root = node_copy(of, f->root)) ||
            optimise(of, of->root))
            return ACRE_ERR_NOMEM;
        f = of;
    }
    struct swalk w = {o, res, f, &sel, res, 0, 0};
    w.skip_subentries =
        scope != ACRE_SCOPE_BASE && !asks_subentries(o, f->root);
    acreE_dir_search(o->dir, bdn, scope, visit, &w); /* in the server's order */
    return w.nomem ? ACRE_ERR_NOMEM : 0;
}
