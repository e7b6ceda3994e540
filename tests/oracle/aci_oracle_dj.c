/*
 * aci_oracle_dj.c -- the reference evaluator for the OpenDJ variant
 * (ACREI_ACI_OPENDJ), read off OpenDJ's dseecompat handler
 * (org.opends.server.authorization.dseecompat) step by step, as plainly
 * as aci_oracle.c reads 389: every check walks every ACI of the set,
 * nothing is cached, groups are walked entry by entry.
 *
 * AciHandler.accessAllowed (one right R on entry E, attribute A or the
 * entry itself):
 *   candidates: the ACIs held by E or an ancestor of E, the root DSE's
 *   (OpenDJ's global ACIs, held at the root DN) included (AciList);
 *   applicable (Aci.isApplicable), in this order:
 *     - no targetcontrol, no extop;
 *     - haveSimilarRights: the ACI has R, or has read or search while R
 *       is read or search;
 *     - isTargetApplicable: E within the targetscope (default subtree) of
 *       the target DN when the target is a plain DN with "=", else of the
 *       holder; a "!=" DN target then refuses E at or below it; a pattern
 *       matches E's DN ("!=" negating it);
 *     - isTargetFilterApplicable: the filter matches E (Undefined is a
 *       non-match), "!=" negating it;
 *     - isTargetAttrApplicable: A and a targetattr: TargetAttr.isApplicable
 *       ("*" and "+" together: everything, or nothing with "!="; else an
 *       operational A by "+" or its name among the operational names, a
 *       user A by "*" or its name among the user names; "!=" negates when
 *       that class has "*"/"+" or names); only one of A and a targetattr:
 *       applicable when the ACI has add, delete or proxy and R is among
 *       those, else (no A, a targetattr) when the ACI has write; neither:
 *       applicable.  An applicable ACI with neither targetattr nor
 *       targattrfilters is an entry test rule;
 *   the applicable ACIs with a deny perm make the deny list, those with
 *   an allow perm the allow list (createApplicableList); both empty:
 *   denied (NO_ALLOW_ACIS, a deny evaluation);
 *   testApplicableLists: an ACI of the deny list whose AciBody.evaluate
 *   (its deny perms with R, in order; a bind rule that is not True or
 *   False stops it with FAIL) is True or FAIL denies; then one of the
 *   allow list evaluating True (its perms with R in order, FAIL stopping
 *   the walk) allows; else denied (not a deny evaluation).
 *
 * BindRule.evaluate: "and" True when both are, "or" when one is, else
 * False; "not" True unless True (EnumEvalResult.negate: FAIL becomes
 * True); keywords True or False with "!=" negating (getRet), userattr
 * FAIL for level 0 of an add.  userdn: the terms in turn until one
 * matches; anonymous matches only anyone.  groupdn: the group or a group
 * nested in it at any depth lists the requester (each group examined
 * once); memberURL groups take the requester's entry.  userattr: USERDN /
 * GROUPDN over the parent[] levels (level 0 is E), LDAPURL values of E,
 * a value held by both the requester's entry and E.
 *
 * maySend (a search result): testFilter -- search on every attribute of
 * the filter, an attribute-less item on the entry itself; then
 * accessAllowedEntry: read on E's attributes, objectClass first, then user
 * ones, then operational ones, until one is allowed (none: not sent);
 * when an entry test rule was met, read on the entry itself, and E is
 * not sent when that was denied by a deny evaluation.
 */
#include "aci_oracle_int.h"

#include "dn.h"
#include "filter_impl.h"
#include "schema.h"
#include "url.h"

#include <string.h>
#include <strings.h>
#include <talloc.h>

struct dj {
    struct acreR_aci *o;
    const acre_entry_view *e;
    const struct acreI_aci *a;
    unsigned right;
    void *tmp;
};

/* ------------------------------------------------------------------------
 * Targets
 */

/* AciList.getCandidateAcis: the ACIs of E and its ancestors, the root
 * DN's (OpenDJ's global ACIs, here the root DSE's) included. */
static int
holder_above(const struct acreI_aci *a, const acre_entry_view *e)
{
    return acre_dn_in_scope(e->dn, a->holder, ACRE_SCOPE_SUB) == 1;
}

/* AciTargets.isInScopeOf */
static int
in_scope_of(const acre_dn *dn, const acre_dn *target, int scope)
{
    unsigned d = acre_dn_depth(dn), t = acre_dn_depth(target);

    switch (scope) {
    case ACRE_SCOPE_BASE:
        return acre_dn_equal(dn, target);
    case ACRE_SCOPE_ONE:
        return d == t + 1 && acre_dn_in_scope(dn, target, ACRE_SCOPE_SUB) == 1;
    case ACRE_SCOPE_CHILDREN:
        return d > t && acre_dn_in_scope(dn, target, ACRE_SCOPE_SUB) == 1;
    default:
        return acre_dn_in_scope(dn, target, ACRE_SCOPE_SUB) == 1;
    }
}

/* AciTargets.isTargetApplicable */
static int
target_applicable(const struct dj *x)
{
    const struct acreI_aci_target *t = &x->a->t;
    int has = (t->has & ACREI_ACI_T_TARGET) != 0;
    int pattern = has && t->target.kind != ACREI_ACI_PAT_DN;
    const acre_dn *base = x->a->holder;

    if (has && !pattern && !t->target_neg)
        base = t->target.dn;
    if (!in_scope_of(x->e->dn, base,
                     t->has & ACREI_ACI_T_SCOPE ? t->scope : ACRE_SCOPE_SUB))
        return 0;
    if (!has)
        return 1;
    if (!pattern)
        return !t->target_neg ||
               acre_dn_in_scope(x->e->dn, t->target.dn, ACRE_SCOPE_SUB) != 1;
    int m =
        !t->target.flags &&
        acreR_aci_substr(t->target.text, acre_dn_normalised(x->e->dn, NULL), 0);
    return t->target_neg ? !m : m;
}

/* TargetFilter.isApplicable */
static int
filter_applicable(const struct dj *x)
{
    const struct acreI_aci_target *t = &x->a->t;

    if (!(t->has & ACREI_ACI_T_FILTER))
        return 1;
    int m = t->filter &&
            acreR_aci_filter_plain(x->o, t->filter, x->e) == ACREF_TRUE;
    return t->filter_neg ? !m : m;
}

static int
operational(const struct acreR_aci *o, int type)
{
    return type >= 0 && acreS_attr(o->schema, type)->usage != ACRES_USER;
}

/* TargetAttr.isApplicable / evalAttrType; type -1: an unknown name */
static int
targetattr_applicable(const struct dj *x, int type)
{
    const struct acreI_aci_target *t = &x->a->t;
    int oper = operational(x->o, type);

    if (t->attr_star && t->attr_plus)
        return !t->attr_neg;
    int all = oper ? t->attr_plus : t->attr_star;
    int names = !oper && t->attr_unknown > 0, ret = all;
    for (unsigned i = 0; i < t->nattrs; i++) {
        int ty = acreR_aci_type_of(x->o, t->attrs[i]);
        if (operational(x->o, ty) != oper)
            continue;
        names = 1;
        if (type >= 0 && ty == type)
            ret = 1;
    }
    if ((all || names) && t->attr_neg)
        return !ret;
    return ret;
}

static unsigned
rights_of(const struct acreI_aci *a)
{
    unsigned r = 0;

    for (unsigned i = 0; i < a->nperms; i++)
        r |= a->perms[i].rights;
    return r;
}

#define SKIP_RIGHTS (ACREI_ACI_ADD | ACREI_ACI_DELETE | ACREI_ACI_PROXY)

/* Aci.isApplicable; attr as acreR_aci_check takes it.  *test set for an
 * entry test rule. */
static int
applicable(const struct dj *x, int attr, int *test)
{
    const struct acreI_aci_target *t = &x->a->t;
    unsigned ar = rights_of(x->a), rs = ACREI_ACI_READ | ACREI_ACI_SEARCH;
    int has_ta = (t->has & ACREI_ACI_T_ATTR) != 0;

    if (t->has & (ACREI_ACI_T_CONTROL | ACREI_ACI_T_EXTOP))
        return 0;
    if (!(ar & x->right) && !((ar & rs) && (x->right & rs)))
        return 0;
    if (!holder_above(x->a, x->e) || !target_applicable(x) ||
        !filter_applicable(x))
        return 0;
    if (!has_ta && !(t->has & ACREI_ACI_T_ATTRFLT))
        *test = 1;
    if (attr != -1 && has_ta)
        return targetattr_applicable(
            x, attr == ACRER_ACI_UNKNOWN ? -1 : acreR_aci_type_of(x->o, attr));
    if (attr != -1 || has_ta) {
        if ((ar & SKIP_RIGHTS) && (x->right & SKIP_RIGHTS) == x->right)
            return 1;
        return attr == -1 && has_ta && (ar & ACREI_ACI_WRITE);
    }
    return 1;
}

/* ------------------------------------------------------------------------
 * Bind rules
 */

static const acre_entry_view *
client_entry(const struct dj *x)
{
    return x->o->bind ? acreR_aci_find(x->o, x->o->bind) : NULL;
}

/* Is the requester's entry taken by URL base/scope/filter? */
static int
url_takes_client(const struct dj *x, const acre_dn *base, int scope,
                 const struct acreF_filter *f)
{
    const acre_entry_view *u = client_entry(x);

    if (!u || !base || acre_dn_in_scope(u->dn, base, scope) != 1)
        return 0;
    return !f || acreR_aci_filter_plain(x->o, f, u) == ACREF_TRUE;
}

static int
url_text_takes_client(const struct dj *x, const char *s, size_t n)
{
    struct acreE_url u;
    struct acreF_filter *f = NULL;

    if (acreE_url_parse(x->tmp, s, n, &u))
        return 0;
    const acre_dn *base = acreR_aci_parse_dn(x->o, x->tmp, u.dn, strlen(u.dn));
    if (u.filter &&
        acreF_parse(x->tmp, x->o->schema, u.filter, strlen(u.filter), &f, NULL))
        return 0;
    return url_takes_client(x, base, u.scope, f);
}

static int
has_oc(const struct dj *x, const acre_entry_view *e, const char *name)
{
    for (unsigned i = 0; e && i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        if (acreR_aci_type_of(x->o, a->id) != x->o->id_oc)
            continue;
        for (unsigned j = 0; j < a->nvals; j++)
            if (strlen(name) == a->vals[j].len &&
                !strncasecmp(name, a->vals[j].val, a->vals[j].len))
                return 1;
    }
    return 0;
}

static int
is_group(const struct dj *x, const acre_entry_view *e)
{
    return has_oc(x, e, "groupOfNames") || has_oc(x, e, "groupOfUniqueNames") ||
           has_oc(x, e, "groupOfCertificates") || has_oc(x, e, "groupOfURLs");
}

struct seen {
    const acre_dn **dn;
    unsigned n;
};

static int
seen_add(void *tmp, struct seen *s, const acre_dn *dn)
{
    for (unsigned i = 0; i < s->n; i++)
        if (acre_dn_equal(s->dn[i], dn))
            return 0;
    const acre_dn **v = talloc_realloc(tmp, s->dn, const acre_dn *, s->n + 1);
    if (!v)
        return 0;
    s->dn = v;
    v[s->n++] = dn;
    return 1;
}

/* StaticGroup / DynamicGroup.isMember, nested groups followed at any
 * depth, each group once. */
static int
is_member(const struct dj *x, const acre_dn *gdn, struct seen *seen)
{
    const acre_entry_view *g = acreR_aci_find(x->o, gdn);

    if (!x->o->bind || !g || !is_group(x, g) || !seen_add(x->tmp, seen, gdn))
        return 0;
    for (unsigned i = 0; i < g->nattrs; i++) {
        const acre_view_attr *a = &g->attrs[i];
        int ty = acreR_aci_type_of(x->o, a->id);
        for (unsigned j = 0; j < a->nvals; j++) {
            if (ty == x->o->id_url &&
                url_text_takes_client(x, a->vals[j].val, a->vals[j].len))
                return 1;
            if (ty != x->o->id_member && ty != x->o->id_unique)
                continue;
            const acre_dn *m = acreR_aci_parse_dn(x->o, x->tmp, a->vals[j].val,
                                                  a->vals[j].len);
            if (m && acre_dn_equal(m, x->o->bind))
                return 1;
        }
    }
    for (unsigned i = 0; i < g->nattrs; i++) {
        const acre_view_attr *a = &g->attrs[i];
        int ty = acreR_aci_type_of(x->o, a->id);
        if (ty != x->o->id_member && ty != x->o->id_unique)
            continue;
        for (unsigned j = 0; j < a->nvals; j++) {
            const acre_dn *m = acreR_aci_parse_dn(x->o, x->tmp, a->vals[j].val,
                                                  a->vals[j].len);
            if (m && is_member(x, m, seen))
                return 1;
        }
    }
    return 0;
}

static int
member(const struct dj *x, const acre_dn *gdn)
{
    struct seen s = {NULL, 0};

    return is_member(x, gdn, &s);
}

static int
one_term(const struct dj *x, enum acreI_aci_kw kw,
         const struct acreI_aci_term *t)
{
    const struct acreR_aci *o = x->o;

    if (!o->bind)
        return t->kind == ACREI_ACI_S_ANYONE && kw == ACREI_ACI_USERDN;
    switch (t->kind) {
    case ACREI_ACI_S_ANYONE:
        return kw == ACREI_ACI_USERDN;
    case ACREI_ACI_S_ALL:
        return 1;
    case ACREI_ACI_S_SELF:
        return acre_dn_equal(o->bind, x->e->dn);
    case ACREI_ACI_S_PARENT: {
        unsigned d = acre_dn_depth(x->e->dn);
        size_t n;
        const char *p = acre_dn_ancestor(x->e->dn, d ? d - 1 : 0, &n);
        const acre_dn *pdn = d ? acreR_aci_parse_dn(o, x->tmp, p, n) : NULL;
        return pdn && acre_dn_equal(o->bind, pdn);
    }
    case ACREI_ACI_S_URL:
        if (kw == ACREI_ACI_GROUPDN) /* GroupDN.decode: the base DN */
            return t->pat.dn && member(x, t->pat.dn);
        return url_takes_client(x, t->pat.dn, t->scope, t->filter);
    case ACREI_ACI_S_PATTERN:
        return kw == ACREI_ACI_USERDN && !t->pat.flags &&
               acreR_aci_substr(t->pat.text, o->bind_norm, 1);
    default:
        return kw == ACREI_ACI_GROUPDN ? member(x, t->pat.dn)
                                       : acre_dn_equal(o->bind, t->pat.dn);
    }
}

/* Does entry e hold value v of type `type` (equality rule of the type)? */
static int
holds(const struct dj *x, const acre_entry_view *e, int type, const char *v,
      size_t n)
{
    const acre_schema *s = x->o->schema;
    const struct acreS_attr *at = acreS_attr(s, type);
    uint8_t local[512];
    struct acreE_buf b;
    int found = 0;

    if (!e)
        return 0;
    acreE_buf_init(&b, local, sizeof local);
    if (at->eq != ACREM_NONE &&
        acreM_normalise(s, at->eq, (const uint8_t *)v, n, &b) != 0) {
        acreE_buf_free(&b);
        return 0;
    }
    for (unsigned i = 0; !found && i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        if (acreR_aci_type_of(x->o, a->id) != type)
            continue;
        for (unsigned j = 0; !found && j < a->nvals; j++) {
            if (at->eq == ACREM_NONE) {
                found = a->vals[j].len == n && !memcmp(a->vals[j].val, v, n);
                continue;
            }
            struct acreE_buf vb;
            uint8_t l2[512];
            acreE_buf_init(&vb, l2, sizeof l2);
            if (!acreM_normalise(s, at->eq, (const uint8_t *)a->vals[j].val,
                                 a->vals[j].len, &vb))
                found = vb.len == b.len && !memcmp(vb.p, b.p, b.len);
            acreE_buf_free(&vb);
        }
    }
    acreE_buf_free(&b);
    return found;
}

/* UserAttr.evalEntryAttr: USERDN or GROUPDN values of e's attribute */
static int
entry_attr(const struct dj *x, const struct acreI_bind *b,
           const acre_entry_view *e)
{
    for (unsigned i = 0; i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        if (acreR_aci_type_of(x->o, a->id) != b->attr)
            continue;
        for (unsigned j = 0; j < a->nvals; j++) {
            const acre_dn *d = acreR_aci_parse_dn(x->o, x->tmp, a->vals[j].val,
                                                  a->vals[j].len);
            if (!d && b->uakind == ACREI_ACI_UA_GROUPDN)
                return 0; /* GroupDN.evaluate stops at a non-DN */
            if (!d)
                continue;
            if (b->uakind == ACREI_ACI_UA_USERDN ? acre_dn_equal(d, x->o->bind)
                                                 : member(x, d))
                return 1;
        }
    }
    return 0;
}

static enum acreR_tv
get_ret(enum acreI_aci_op op, int matched, int undefined)
{
    if (matched || !undefined)
        return (op == ACREI_ACI_NE) != !matched ? ACRER_F : ACRER_T;
    return ACRER_U;
}

/* UserAttr.evaluate */
static enum acreR_tv
userattr(const struct dj *x, const struct acreI_bind *b)
{
    int m = 0, undefined = 0;

    if (b->attr < 0) {
        m = 0;
    } else if (b->uakind == ACREI_ACI_UA_VALUE) {
        m = x->o->bind &&
            holds(x, client_entry(x), b->attr, b->value, b->value_len) &&
            holds(x, x->e, b->attr, b->value, b->value_len);
    } else if (b->uakind == ACREI_ACI_UA_LDAPURL) {
        for (unsigned i = 0; x->o->bind && !m && i < x->e->nattrs; i++) {
            const acre_view_attr *a = &x->e->attrs[i];
            if (acreR_aci_type_of(x->o, a->id) != b->attr)
                continue;
            for (unsigned j = 0; !m && j < a->nvals; j++)
                m = url_text_takes_client(x, a->vals[j].val, a->vals[j].len);
        }
    } else if (x->o->bind && (b->uakind == ACREI_ACI_UA_USERDN ||
                              b->uakind == ACREI_ACI_UA_GROUPDN)) {
        unsigned levels = b->levels ? b->levels : 1u;
        unsigned depth = acre_dn_depth(x->e->dn);
        for (unsigned l = 0; !m && l < 10; l++) {
            if (!(levels & (1u << l)))
                continue;
            if (l == 0) {
                if (x->right & ACREI_ACI_ADD)
                    undefined = 1;
                else
                    m = entry_attr(x, b, x->e);
                continue;
            }
            if (l > depth)
                continue;
            size_t n;
            const char *p = acre_dn_ancestor(x->e->dn, depth - l, &n);
            const acre_dn *pdn = acreR_aci_parse_dn(x->o, x->tmp, p, n);
            const acre_entry_view *pe = pdn ? acreR_aci_find(x->o, pdn) : NULL;
            if (pe)
                m = entry_attr(x, b, pe);
        }
    }
    return get_ret(b->op, m, undefined);
}

static enum acreR_tv
bind_rule(const struct dj *x, const struct acreI_bind *b)
{
    enum acreR_tv l, r;
    int m = 0;

    if (!b)
        return ACRER_U;
    switch (b->kw) {
    case ACREI_ACI_AND:
        l = bind_rule(x, b->a);
        r = bind_rule(x, b->b);
        return l == ACRER_T && r == ACRER_T ? ACRER_T : ACRER_F;
    case ACREI_ACI_OR:
        l = bind_rule(x, b->a);
        r = bind_rule(x, b->b);
        return l == ACRER_T || r == ACRER_T ? ACRER_T : ACRER_F;
    case ACREI_ACI_NOT:
        return bind_rule(x, b->a) == ACRER_T ? ACRER_F : ACRER_T;
    case ACREI_ACI_USERDN:
    case ACREI_ACI_GROUPDN:
        for (unsigned i = 0; i < b->nterms && !m; i++)
            m = one_term(x, b->kw, &b->terms[i]);
        return get_ret(b->op, m, 0);
    case ACREI_ACI_USERATTR:
        return userattr(x, b);
    case ACREI_ACI_ROLEDN:
    case ACREI_ACI_USERDNATTR:
    case ACREI_ACI_GROUPDNATTR:
        return ACRER_F; /* OpenDJ's parser refuses them */
    case ACREI_ACI_TIMEOFDAY:
        /* TimeOfDay: "=" is True when the time is not the value, "!="
         * when it is; the orderings as written */
        switch (b->op) {
        case ACREI_ACI_EQ:
            return x->o->hhmm != b->num ? ACRER_T : ACRER_F;
        case ACREI_ACI_NE:
            return x->o->hhmm == b->num ? ACRER_T : ACRER_F;
        case ACREI_ACI_LT:
            return x->o->hhmm < b->num ? ACRER_T : ACRER_F;
        case ACREI_ACI_LE:
            return x->o->hhmm <= b->num ? ACRER_T : ACRER_F;
        case ACREI_ACI_GT:
            return x->o->hhmm > b->num ? ACRER_T : ACRER_F;
        default:
            return x->o->hhmm >= b->num ? ACRER_T : ACRER_F;
        }
    default: {
        /* authmethod, ssf, ip, dns, dayofweek, timeofday: as 389, its
         * two failures one */
        struct acreR_ctx c = {x->o, x->e, x->a, NULL, x->tmp};
        enum acreR_tv v = acreR_aci_bind(&c, b);
        return v == ACRER_I ? ACRER_U : v;
    }
    }
}

/* AciBody.evaluate */
static enum acreR_tv
body_evaluate(const struct dj *x, int deny_eval)
{
    enum acreR_tv res = ACRER_F;

    for (unsigned i = 0; i < x->a->nperms; i++) {
        const struct acreI_aci_perm *p = &x->a->perms[i];
        if (deny_eval && !p->deny)
            continue;
        if (!(p->rights & x->right))
            continue;
        res = bind_rule(x, p->bind);
        if (res != ACRER_T && res != ACRER_F)
            return ACRER_U;
        if (res == ACRER_T)
            return ACRER_T;
    }
    return res;
}

/* ------------------------------------------------------------------------
 * AciHandler.accessAllowed
 */

static int
is_root(const struct acreR_aci *o)
{
    return o->bind && o->set->rootdn && acre_dn_equal(o->bind, o->set->rootdn);
}

/* 1 allowed, 0 denied; *deny_eval as AciContainer.isDenyEval; *test set
 * when an entry test rule was applicable. */
static int
access_allowed(struct acreR_aci *o, const acre_entry_view *e, int attr,
               unsigned right, int *deny_eval, int *test)
{
    void *tmp = talloc_new(o);
    unsigned n = o->set->n;
    char *in_deny = tmp ? talloc_zero_array(tmp, char, n + 1) : NULL;
    char *in_allow = tmp ? talloc_zero_array(tmp, char, n + 1) : NULL;
    int ndeny = 0, nallow = 0, r = 0;

    *deny_eval = 1;
    if (!in_deny || !in_allow) {
        talloc_free(tmp);
        return 0;
    }
    for (unsigned i = 0; i < n; i++) {
        struct dj x = {o, e, &o->set->acis[i], right, tmp};
        if (!applicable(&x, attr, test))
            continue;
        for (unsigned j = 0; j < x.a->nperms; j++) {
            if (x.a->perms[j].deny)
                ndeny += !in_deny[i], in_deny[i] = 1;
            else
                nallow += !in_allow[i], in_allow[i] = 1;
        }
    }
    if (ndeny == 0 && nallow == 0)
        goto out; /* NO_ALLOW_ACIS */
    for (unsigned i = 0; i < n; i++) {
        struct dj x = {o, e, &o->set->acis[i], right, tmp};
        if (in_deny[i] && body_evaluate(&x, 1) != ACRER_F)
            goto out; /* EVALUATED_DENY_ACI: True or FAIL */
    }
    *deny_eval = 0;
    for (unsigned i = 0; i < n && !r; i++) {
        struct dj x = {o, e, &o->set->acis[i], right, tmp};
        r = in_allow[i] && body_evaluate(&x, 0) == ACRER_T;
    }
out:
    talloc_free(tmp);
    return r;
}

int
acreR_dj_check(struct acreR_aci *o, const acre_entry_view *e, int attr,
               unsigned right)
{
    int de, test = 0;

    return is_root(o) || access_allowed(o, e, attr, right, &de, &test);
}

/* AciHandler.accessAllowedEntry, getAllAttrs order */
int
acreR_dj_visible(struct acreR_aci *o, const acre_entry_view *e)
{
    int test = 0, de, found = 0;

    if (is_root(o))
        return 1;
    for (int pass = 0; pass < 3 && !found; pass++)
        for (unsigned i = 0; i < e->nattrs && !found; i++) {
            int ty = acreR_aci_type_of(o, e->attrs[i].id);
            int in = pass == 0   ? ty == o->id_oc
                     : pass == 1 ? ty != o->id_oc && !operational(o, ty)
                                 : ty != o->id_oc && operational(o, ty);
            if (in)
                found = access_allowed(o, e, e->attrs[i].id, ACREI_ACI_READ,
                                       &de, &test);
        }
    if (!found)
        return 0;
    if (test && !access_allowed(o, e, -1, ACREI_ACI_READ, &de, &test) && de)
        return 0;
    return 1;
}

/* AciHandler.testFilter */
static int
test_filter(struct acreR_aci *o, const acre_entry_view *e,
            const struct acreF_node *n)
{
    switch (n->kind) {
    case ACREF_AND:
    case ACREF_OR:
    case ACREF_NOT:
    case ACREF_ABSOLUTE_TRUE:
    case ACREF_ABSOLUTE_FALSE:
        for (unsigned i = 0; i < n->nkids; i++)
            if (!test_filter(o, e, n->kids[i]))
                return 0;
        return 1;
    default:
        if (!n->desc)
            return acreR_dj_check(o, e, -1, ACREI_ACI_SEARCH);
        if (n->want.type < 0)
            return acreR_dj_check(o, e, ACRER_ACI_UNKNOWN, ACREI_ACI_SEARCH);
        return acreR_dj_check(o, e, n->want.type, ACREI_ACI_SEARCH);
    }
}

int
acreR_dj_filter(struct acreR_aci *o, const acre_entry_view *e,
                const struct acreF_filter *f)
{
    enum acreF_result r = acreR_aci_filter_plain(o, f, e);

    if (r != ACREF_TRUE)
        return r == ACREF_FALSE ? 0 : -1;
    return is_root(o) || test_filter(o, e, f->root) ? 1 : 0;
}
