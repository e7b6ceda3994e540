/*
 * filter_eval.c -- evaluating a parsed filter against an entry, with the
 * three-valued logic of RFC 4511 4.5.1.7 and the item semantics of
 * slapd's servers/slapd/filterentry.c.
 *
 * AND stops at the first FALSE and is UNDEFINED if a part was; OR stops
 * at the first TRUE and is UNDEFINED if a part was; NOT keeps UNDEFINED.
 * Parts run left to right, so the access hook sees the calls slapd makes.
 *
 * An item covers the entry's attributes whose type is the item's type or
 * one of its subtypes and that carry every option of the item, a
 * language range ("lang-de-") being carried by lang-de and lang-de-*
 * (slapd ad.c is_ad_subtype): (name=x) looks at cn, sn, ...;
 * (cn;lang-en=x) at cn;lang-en only.  For each covered attribute the rule
 * of the attribute's own type is used, as slapd does.
 *
 * Item by item (slapd's test_ava_filter, test_substrings_filter,
 * test_presence_filter, test_mra_filter): TRUE when a value of a covered
 * attribute matches; UNDEFINED when none does and a covered attribute's
 * type lacks the rule, or was denied by the hook; else FALSE.  Approximate
 * matching is filter_approx.c's.  Extensible match with a type looks at
 * the covered attributes; without one, at every attribute the rule is
 * usable with; with :dn:, then at the AVAs of the entry's DN as spelt
 * (not as normalised).  An ORDERING rule in an extensible match matches
 * values that sort before the assertion, as slapd's do.
 *
 * The access hook, called exactly where slapd calls access_allowed() for
 * ACL_SEARCH (a denial makes slapd's result LDAP_INSUFFICIENT_ACCESS,
 * which every caller treats as UNDEFINED):
 *   =, ~=, >=, <=  first for the item's description (type and options)
 *                  with the prepared assertion value: denied ->
 *                  UNDEFINED.  Then for each covered attribute whose
 *                  description differs from the item's (a subtype, or
 *                  more options), for that attribute's description:
 *                  denied -> that attribute is skipped and the result is
 *                  UNDEFINED unless another attribute matches.
 *   presence,      the same, with no value (NULL, 0).
 *   substrings
 *   extensible     with a type: once for the item's description with the
 *                  prepared value, denied -> UNDEFINED; covered
 *                  attributes are not asked again (slapd does not).
 *                  Without a type: for each attribute the rule applies
 *                  to (its description), and for each DN AVA with :dn:,
 *                  with the prepared value: denied -> that attribute or
 *                  AVA is skipped (the result can then be FALSE, not
 *                  UNDEFINED).
 * Items that are UNDEFINED whatever the entry (unknown type, no rule,
 * invalid assertion; filter.c) never reach the hook.  The hook allows
 * only by returning 1; anything else denies.
 *
 * Attributes slapd evaluates specially (when the item has no options):
 *   objectClass, structuralObjectClass (with options or not)  = and ~=
 *       match subclasses: (objectClass=person) is TRUE for an
 *       inetOrgPerson entry (schema_prep.c objectSubClassMatch).  An
 *       asserted class the schema does not know, by name or OID, is
 *       UNDEFINED (filter.c: slapd's objectClassPretty refuses it).  The
 *       item is TRUE when a stored class is the asserted class or one of
 *       its subclasses, else UNDEFINED when a stored class is unknown to
 *       the schema, else FALSE.  (slapd stops at the first unknown stored
 *       class, in stored order; it never stores one while schema checking
 *       is on, so the two agree on every entry slapd would hold.)  The
 *       extensible form without a rule does the same; no named rule is
 *       usable with these types (filter.c).
 *   entryDN    = ~= and extensible compare the entry's own DN (under a
 *       389 schema ~= matches its words, as 389 does its entrydn value).
 *   hasSubordinates  present; = and ~= compare TRUE/FALSE with whether the
 *       entry has children (its tree links); >= <= are UNDEFINED.
 *   entryDN, subschemaSubentry  always present.
 *   isMemberOf  on an entry that stores none, when the memberof hook
 *       computes it (OpenDJ's virtual attribute, engine/memberof.c): =
 *       asks whether the entry is a member of the group, presence whether
 *       it is a member of any; ~= >= <=, substrings and extensible items
 *       are UNDEFINED (OpenDJ's provider supports equality only); an
 *       unknown answer is UNDEFINED.
 *   memberOf  the same, for 389's memberOf computed by the
 *       hook (static groups only); its type has no EQUALITY rule, so an =
 *       item is UNDEFINED on stored values as slapd has it, and compares
 *       the assertion as a DN (distinguishedNameMatch) with the computed
 *       ones (`vdn` nodes, filter.c); under a schema that matches by
 *       syntax (ACRE_SCHEMA_SYNTAX_MATCH) stored values compare as DNs.
 *   nsRole  the same, for 389's roles (memberof.c): = asks whether the
 *       entry holds the role the assertion names, presence whether it
 *       holds any.  For it and the virtual memberOf, substrings, ~=, >=
 *       and <= compare the computed values (the `values` hook) as stored
 *       ones, as 389 compares the values its plugins give.
 *
 * Invariants: evaluation reads the filter and the entry and allocates
 * nothing (the memberof hook builds its group index at its first call,
 * not per entry), except when a value must be normalised under a rule other
 * than its type's equality rule (ordering or extensible rules of another
 * family, :dn: AVAs) and its normal form is longer than the stack buffer
 * (EVAL_LOCAL bytes): that temporary is freed before returning.  Any
 * number of threads may evaluate the same filter at once.
 */
#include "filter.h"

#include "buf.h"
#include "filter_impl.h"

#include "dn.h"
#include "match.h"

#include <string.h>
#include <strings.h>

#define EVAL_LOCAL 512

struct ev {
    const struct acreF_filter *f;
    const acre_schema *s;
    const acre_entry_view *e;
    acreF_access_fn access;
    void *ctx;
    int (*children)(void *arg, const acre_entry_view *e);
    void *children_arg;
    int (*memberof)(void *arg, unsigned kind, const acre_entry_view *e,
                    const uint8_t *gdn, size_t len);
    void *memberof_arg;
    int (*values)(void *arg, unsigned kind, const acre_entry_view *e,
                  const acre_value **vals, uint32_t *n);
    int normal_subs; /* acreF_hooks */
    int (*cos)(void *arg, const acre_entry_view *e, int t,
               const acre_value **vals, uint32_t *n);
};

/* A buffer for values normalised during evaluation. */
struct scratch {
    struct acreE_buf b;
    uint8_t local[EVAL_LOCAL];
};

static enum acreF_result eval(const struct ev *ev, const struct acreF_node *nd);

/* ------------------------------------------------------------------------
 * Helpers
 */

static int
allowed(const struct ev *ev, const struct acreF_desc *d, const uint8_t *v,
        size_t n)
{
    return !ev->access || ev->access(ev->ctx, ev->e, d, v, n) == 1;
}

/* The hook for the item's own description (type and options). */
static int
item_allowed(const struct ev *ev, const struct acreF_node *nd, const uint8_t *v,
             size_t n)
{
    struct acreF_desc d = {nd->want.type, nd->want.nopts, nd->want.opts,
                           nd->want.opt_len};

    return allowed(ev, &d, v, n);
}

/* The description (type and options) of stored attribute a. */
static const struct acreS_dinfo *
ainfo(const struct ev *ev, const acre_view_attr *a)
{
    return acreS_desc_of(ev->s, a->id);
}

/* The hook for a stored attribute's own description. */
static int
attr_allowed(const struct ev *ev, const acre_view_attr *a, const uint8_t *v,
             size_t n)
{
    const struct acreS_dinfo *i = ainfo(ev, a);
    struct acreF_desc d = {i->type, i->nopts, i->opts, i->opt_len};

    return allowed(ev, &d, v, n);
}

static int
same_bytes(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    return an == bn && (an == 0 || memcmp(a, b, an) == 0);
}

/* The rules of type `type`: the item's own from the node, others from
 * the schema. */
static struct acreF_rules
rules_of(const struct ev *ev, const struct acreF_node *nd, int type)
{
    const struct acreS_attr *at;

    if (type == nd->want.type)
        return nd->trules;
    at = acreS_attr(ev->s, type);
    struct acreS_rules r = acreS_rules(ev->s, at);
    return (struct acreF_rules){r.eq, r.ord, r.sub};
}

/*
 * Does stored option h[0..hn) satisfy the item's option w[0..wn)?  Both
 * are lowercase.  An option ending in '-' is a language range: "lang-de-"
 * is satisfied by lang-de and by lang-de-ch (slapd ad.c is_ad_subtags);
 * any other only by itself.
 */
static int
option_covers(const char *w, size_t wn, const char *h, size_t hn)
{
    if (wn > hn)
        return wn - 1 == hn && w[wn - 1] == '-' && memcmp(w, h, hn) == 0;
    return (wn == hn || w[wn - 1] == '-') && memcmp(w, h, wn) == 0;
}

/* Does attribute a carry every option of the item, as slapd's
 * is_ad_subtype() reads options? */
static int
options_match(const struct acreF_node *nd, const struct acreS_dinfo *a)
{
    for (unsigned i = 0; i < nd->want.nopts; i++) {
        uint32_t k = 0;

        while (k < a->nopts &&
               !option_covers(nd->want.opts[i], nd->want.opt_len[i], a->opts[k],
                              a->opt_len[k]))
            k++;
        if (k == a->nopts)
            return 0;
    }
    return 1;
}

/* Is type id (no options) covered by the item's type? */
static int
type_covered(const struct ev *ev, const struct acreF_node *nd, int type)
{
    if (!nd->types)
        return type == nd->want.type;
    return type >= 0 && (unsigned)type < ev->f->nattrs &&
           acreF_bit(nd->types, type);
}

static int
covers(const struct ev *ev, const struct acreF_node *nd,
       const acre_view_attr *a)
{
    const struct acreS_dinfo *d = ainfo(ev, a);

    return type_covered(ev, nd, d->type) &&
           (nd->want.nopts == 0 || options_match(nd, d));
}

/* The first covered attribute at or after i, or e->nattrs. */
static uint32_t
next_attr(const struct ev *ev, const struct acreF_node *nd, uint32_t i)
{
    const acre_entry_view *e = ev->e;

    if (!nd->types && !nd->want.nopts) {
        /* the common item, one type without options: the id of a type
         * alone is the type (schema.h: acreS_hot), others go the long
         * way */
        const struct acreS_hot *h =
            (const struct acreS_hot *)(const void *)ev->s;
        for (; i < e->nattrs; i++) {
            int id = e->attrs[i].id;
            if ((unsigned)id < h->ntypes ? id == nd->want.type
                                         : covers(ev, nd, &e->attrs[i]))
                return i;
        }
        return e->nattrs;
    }
    for (; i < e->nattrs; i++)
        if (covers(ev, nd, &e->attrs[i]))
            return i;
    return e->nattrs;
}

static uint32_t
first_attr(const struct ev *ev, const struct acreF_node *nd)
{
    return next_attr(ev, nd, 0);
}

/* Is a described exactly as the item (same type, same options)? */
static int
same_desc(const struct ev *ev, const struct acreF_node *nd,
          const acre_view_attr *a)
{
    const struct acreS_dinfo *d = ainfo(ev, a);

    if (d->type != nd->want.type || d->nopts != nd->want.nopts)
        return 0;
    for (unsigned k = 0; k < nd->want.nopts; k++)
        if (!same_bytes((const uint8_t *)d->opts[k], d->opt_len[k],
                        (const uint8_t *)nd->want.opts[k], nd->want.opt_len[k]))
            return 0;
    return 1;
}

/*
 * The form of value k of attribute a under equality rule eq: its normal
 * form when eq is its type's own equality rule (the host's, or made now),
 * else the value normalised now by eq (a rule of another family, or one
 * acreS_rules gave a type that names none).  Made values go to sc.  NULL
 * when it cannot be.
 */
static const uint8_t *
value_form(const struct ev *ev, int eq, const acre_view_attr *a, uint32_t k,
           struct scratch *sc, size_t *len)
{
    if (eq != ACREM_NONE && eq == acreS_attr(ev->s, ainfo(ev, a)->type)->eq)
        return acreE_value_norm(ev->s, a, k, &sc->b, len);
    sc->b.len = 0;
    if (eq == ACREM_NONE ||
        acreM_normalise(ev->s, eq, a->vals[k].val, a->vals[k].len, &sc->b) != 0)
        return NULL;
    *len = sc->b.len;
    return sc->b.p;
}

static void
scratch_init(struct scratch *sc)
{
    acreE_buf_init(&sc->b, sc->local, sizeof sc->local);
}

/* Whether the entry has subordinates, from the host: 1, 0, or -1 when it
 * cannot tell (no host, or its lookup failed). */
static int
has_children(const struct ev *ev)
{
    int r = ev->children ? ev->children(ev->children_arg, ev->e) : -1;

    return r < 0 ? -1 : r > 0;
}

static enum acreF_result
truth(int b)
{
    return b ? ACREF_TRUE : ACREF_FALSE;
}

/* The request flag that computes nd's virtual attribute. */
static unsigned
virtual_kind(const struct acreF_node *nd)
{
    return nd->special == ACREF_SP_ISMEMBEROF ? ACRE_REQ_ISMEMBEROF
           : nd->special == ACREF_SP_MEMBEROF ? ACRE_REQ_MEMBEROF
                                              : ACRE_REQ_NSROLE;
}

/* virtual_member's work for an isMemberOf, memberOf or nsRole item. */
static int
virtual_ask(const struct ev *ev, const struct acreF_node *nd,
            const uint8_t *gdn, size_t n, enum acreF_result *r)
{
    unsigned kind = virtual_kind(nd);

    for (uint32_t i = 0; i < ev->e->nattrs; i++)
        if (ainfo(ev, &ev->e->attrs[i])->type == nd->want.type)
            return 0;
    int m = ev->memberof(ev->memberof_arg, kind, ev->e, gdn, n);
    if (m == 2)
        return 0;
    *r = m < 0 ? ACREF_UNDEFINED : truth(m);
    return 1;
}

/*
 * The virtual isMemberOf and memberOf: 1 when nd is an item of one, the
 * entry stores none of it and the hook computes it, with *r its answer for
 * group gdn[0..n) (NULL: any group); 0 when the stored values decide.
 * (Inline: every other item leaves at the first test.)
 */
static inline int
virtual_member(const struct ev *ev, const struct acreF_node *nd,
               const uint8_t *gdn, size_t n, enum acreF_result *r)
{
    if (nd->special < ACREF_SP_ISMEMBEROF || !ev->memberof)
        return 0;
    return virtual_ask(ev, nd, gdn, n, r);
}

static enum acreF_result ext_match(const struct acreF_node *nd,
                                   const uint8_t *p, size_t n);

/* The entry's DN against a normalised DN assertion: equal, or (ext) as
 * the extensible item's rule says (dnSubtreeMatch, ...). */
static enum acreF_result
entry_dn_is(const struct ev *ev, const struct acreF_node *nd, int ext)
{
    size_t len;
    const uint8_t *dn;

    if (!ev->e->dn)
        return ACREF_FALSE;
    dn = (const uint8_t *)acre_dn_normalised(ev->e->dn, &len);
    return ext ? ext_match(nd, dn, len)
               : truth(same_bytes(dn, len, nd->norm, nd->norm_len));
}

/* entry_dn_approx389 -- ~= on entryDN under a 389 schema: 389 stores the
 * normalised DN as entrydn's value and matches it as any string, by its
 * phonetic words (acreF_approx389) */
static enum acreF_result
entry_dn_approx389(const struct ev *ev, const struct acreF_node *nd)
{
    acre_value v;

    if (!ev->e->dn || nd->approx389 != A389_WORDS)
        return ACREF_FALSE;
    v.val = acre_dn_normalised(ev->e->dn, &v.len);
    return truth(v.val && acreF_approx389(nd->raw, nd->raw_len, &v, 1));
}

/* ------------------------------------------------------------------------
 * objectClass
 */

static uint8_t
lower(uint8_t c)
{
    return c >= 'A' && c <= 'Z' ? (uint8_t)(c | 0x20) : c;
}

/* a[0..n) and b[0..n) are equal ignoring ASCII case */
static int
same_ci(const uint8_t *a, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i] && lower(a[i]) != lower(b[i]))
            return 0;
    return 1;
}

static int
name_is(const struct acreF_class_name *c, const uint8_t *v, size_t n)
{
    return c->len == n && same_ci(c->norm, v, n);
}

static int
in_subnames(const struct acreF_node *nd, const acre_value *v)
{
    for (unsigned k = 0; k < nd->nsubnames; k++)
        if (name_is(&nd->subnames[k], v->val, v->len))
            return 1;
    return 0;
}

/* Is any stored class unknown to the schema? */
static int
any_unknown(const struct ev *ev, const acre_view_attr *a)
{
    for (uint32_t k = 0; k < a->nvals; k++)
        if (acreF_class_lookup(ev->f, a->vals[k].val, a->vals[k].len) < 0)
            return 1;
    return 0;
}

/* One objectClass attribute against the asserted class (see banner). */
static enum acreF_result
class_attr(const struct ev *ev, const struct acreF_node *nd,
           const acre_view_attr *a)
{
    int unknown = 0;

    if (nd->subnames) { /* few names: compare them, no hashing */
        for (uint32_t k = 0; k < a->nvals; k++)
            if (in_subnames(nd, &a->vals[k]))
                return ACREF_TRUE;
        return any_unknown(ev, a) ? ACREF_UNDEFINED : ACREF_FALSE;
    }
    for (uint32_t k = 0; k < a->nvals; k++) {
        const acre_value *v = &a->vals[k];
        int id = acreF_class_lookup(ev->f, v->val, v->len);

        if (id < 0)
            unknown = 1;
        else if (acreF_bit(nd->subclasses, id))
            return ACREF_TRUE;
    }
    return unknown ? ACREF_UNDEFINED : ACREF_FALSE;
}

/* acreF_class_lookup -- see filter_impl.h. */
int
acreF_class_lookup(const struct acreF_filter *f, const uint8_t *v, size_t n)
{
    return acreS_class_find(f->schema, (const char *)v, n);
}

/* ------------------------------------------------------------------------
 * =, ~=, >=, <=
 */

static enum acreF_result
approx_attr(const struct acreF_node *nd, const acre_view_attr *a)
{
    for (uint32_t k = 0; k < a->nvals; k++) {
        const acre_value *v = &a->vals[k];

        if (nd->approx_ok &&
            acreF_approx_match(nd->codes, nd->ncodes, v->val, v->len))
            return ACREF_TRUE;
    }
    return ACREF_FALSE;
}

static enum acreF_result
order_attr(const struct ev *ev, const struct acreF_node *nd,
           const acre_view_attr *a)
{
    struct acreF_rules at = rules_of(ev, nd, ainfo(ev, a)->type);
    int ord = at.ord, eq;
    struct scratch sc;
    enum acreF_result r = ACREF_FALSE;

    if (ord == ACREM_NONE)
        return ACREF_UNDEFINED;
    eq = acreM_info(ord)->eq;
    scratch_init(&sc);
    for (uint32_t k = 0; k < a->nvals && r == ACREF_FALSE; k++) {
        size_t len;
        const uint8_t *p = value_form(ev, eq, a, k, &sc, &len);
        int c;

        if (!p)
            continue;
        c = acreM_compare(ord, p, len, nd->norm, nd->norm_len);
        if (nd->kind == ACREF_GE ? c >= 0 : c <= 0)
            r = ACREF_TRUE;
    }
    acreE_buf_free(&sc.b);
    return r;
}

/* The values of a compared with the assertion by equality rule eq, as
 * used for =, or for ~= on a type without an approximate rule (slapd's
 * use: acreM_equal, where uniqueMemberMatch ignores a lone UID).  For =
 * through here: a rule acreS_rules gave a type that names none, each
 * value normalised now. */
static enum acreF_result
equal_by(const struct ev *ev, const struct acreF_node *nd,
         const acre_view_attr *a, int eq, enum acreM_use use)
{
    enum acreF_result r = ACREF_FALSE;
    struct scratch sc;

    scratch_init(&sc);
    for (uint32_t k = 0; k < a->nvals && r == ACREF_FALSE; k++) {
        size_t len;
        const uint8_t *p = value_form(ev, eq, a, k, &sc, &len);
        if (p &&
            (use == ACREM_USE_APPROX
                 ? acreM_equal(ev->s, eq, use, p, len, nd->norm, nd->norm_len)
                 : acreE_norm_cmp(p, len, nd->norm, nd->norm_len) == 0))
            r = ACREF_TRUE;
    }
    acreE_buf_free(&sc.b);
    return r;
}

/* 389's value_cmp of integer text (SYNTAX_INT): value v against
 * assertion s -- sign, then length (up to a NUL), then bytes; the order
 * of the last two reversed when both are negative. */
static int
int389_cmp(const uint8_t *v, size_t vn, const uint8_t *s, size_t sn)
{
    int vpos = !(vn && v[0] == '-'), spos = !(sn && s[0] == '-'), c;
    const uint8_t *z;

    if (vpos != spos)
        return vpos - spos;
    if ((z = memchr(s, 0, sn)))
        sn = (size_t)(z - s);
    if (vn != sn)
        c = vn > sn ? 1 : -1;
    else
        c = memcmp(v, s, vn);
    c = c > 0 ? 1 : c < 0 ? -1 : 0;
    return vpos ? c : -c;
}

/* An integer item whose assertion its rule refuses, as 389 compares it
 * (filter.c, invalid389): the values' integer text against nd->norm. */
static enum acreF_result
int389_attr(const struct ev *ev, const struct acreF_node *nd,
            const acre_view_attr *a)
{
    enum acreF_result r = ACREF_FALSE;
    struct scratch sc;

    scratch_init(&sc);
    for (uint32_t k = 0; k < a->nvals && r == ACREF_FALSE; k++) {
        size_t len;
        const uint8_t *p = value_form(ev, ACREM_INTEGER, a, k, &sc, &len);
        int c = p ? int389_cmp(p, len, nd->norm, nd->norm_len) : 1;
        if (p && (nd->kind == ACREF_GE   ? c >= 0
                  : nd->kind == ACREF_LE ? c <= 0
                                         : c == 0))
            r = ACREF_TRUE;
    }
    acreE_buf_free(&sc.b);
    return r;
}

/* One covered attribute of an =, ~=, >= or <= item. */
static enum acreF_result
ava_attr(const struct ev *ev, const struct acreF_node *nd,
         const acre_view_attr *a)
{
    int eq;

    if (nd->never) /* 389: an assertion no stored value can equal */
        return ACREF_FALSE;
    if (nd->int389)
        return int389_attr(ev, nd, a);
    if (nd->approx389) /* under a 389 schema */
        return truth(nd->approx389 == A389_WORDS &&
                     acreF_approx389(nd->raw, nd->raw_len, a->vals, a->nvals));
    if (nd->kind == ACREF_GE || nd->kind == ACREF_LE)
        return order_attr(ev, nd, a);
    if (nd->special == ACREF_SP_OBJECTCLASS)
        return class_attr(ev, nd, a);
    eq = rules_of(ev, nd, ainfo(ev, a)->type).eq;
    if (eq == ACREM_NONE)
        return ACREF_UNDEFINED;
    if (nd->kind == ACREF_APPROX && acreF_approx_rule(eq))
        return approx_attr(nd, a);
    if (nd->kind == ACREF_APPROX)
        return equal_by(ev, nd, a, eq, ACREM_USE_APPROX);
    if (eq != acreS_attr(ev->s, ainfo(ev, a)->type)->eq)
        return equal_by(ev, nd, a, eq, ACREM_USE_EQ);
    return truth(acreE_attr_has_value(ev->s, a, nd->norm, nd->norm_len));
}

/*
 * A virtual memberOf's or nsRole's values compared as 389 compares the
 * stored ones, by attr_fn (substrings, ~=, >=, <=), once virtual_member
 * said the entry has some (r: its answer for any group or role).
 * UNDEFINED for isMemberOf (OpenDJ's provider answers equality only) and
 * when the caller gives no values.
 */
static enum acreF_result
virtual_values(const struct ev *ev, const struct acreF_node *nd,
               enum acreF_result r,
               enum acreF_result (*attr_fn)(const struct ev *,
                                            const struct acreF_node *,
                                            const acre_view_attr *))
{
    const acre_value *vals;
    uint32_t n;

    if (nd->special == ACREF_SP_ISMEMBEROF)
        return ACREF_UNDEFINED;
    if (r != ACREF_TRUE)
        return r;
    if (!ev->values ||
        ev->values(ev->memberof_arg, virtual_kind(nd), ev->e, &vals, &n) != 0)
        return ACREF_UNDEFINED;
    acre_view_attr a = {nd->want.type, n, vals, NULL};
    return n ? attr_fn(ev, nd, &a) : ACREF_FALSE;
}

/*
 * 389's Class of Service (the cos hook): 1 when it gives the entry nd's
 * type (a plain type, asked by its own name), with *r the item decided on
 * those values alone by attr_fn (NULL: presence), as 389's virtual
 * attribute service tests them; 0 when the stored values decide.
 */
static int
cos_item(const struct ev *ev, const struct acreF_node *nd,
         enum acreF_result (*attr_fn)(const struct ev *,
                                      const struct acreF_node *,
                                      const acre_view_attr *),
         enum acreF_result *r)
{
    const acre_value *vals;
    uint32_t n;

    if (!ev->cos || nd->want.type < 0 || nd->want.nopts || nd->special)
        return 0;
    int c = ev->cos(ev->memberof_arg, ev->e, nd->want.type, &vals, &n);
    if (!c)
        return 0;
    if (c < 0) {
        *r = ACREF_UNDEFINED;
        return 1;
    }
    acre_view_attr a = {nd->want.type, n, vals, NULL};
    *r = !n ? ACREF_FALSE : !attr_fn ? ACREF_TRUE : attr_fn(ev, nd, &a);
    return 1;
}

static enum acreF_result
eval_ava(const struct ev *ev, const struct acreF_node *nd)
{
    enum acreF_result rc = ACREF_FALSE;
    int eqlike = nd->kind == ACREF_EQUALITY || nd->kind == ACREF_APPROX;

    if (nd->undef) { /* a vdn item: only a virtual memberOf answers */
        if (!virtual_member(ev, nd, nd->norm, nd->norm_len, &rc))
            return ACREF_UNDEFINED;
        return item_allowed(ev, nd, nd->norm, nd->norm_len) ? rc
                                                            : ACREF_UNDEFINED;
    }
    if (!item_allowed(ev, nd, nd->norm, nd->norm_len))
        return ACREF_UNDEFINED;
    if (virtual_member(ev, nd, nd->kind == ACREF_EQUALITY ? nd->norm : NULL,
                       nd->norm_len, &rc))
        return nd->kind == ACREF_EQUALITY
                   ? rc
                   : virtual_values(ev, nd, rc, ava_attr);
    if (cos_item(ev, nd, ava_attr, &rc))
        return rc;
    if (nd->special == ACREF_SP_HASSUBORDINATES) {
        int kids = eqlike ? has_children(ev) : -1;
        return kids < 0 ? ACREF_UNDEFINED : truth(kids == nd->hs_true);
    }
    if (nd->special == ACREF_SP_ENTRYDN && nd->approx389 &&
        nd->kind == ACREF_APPROX)
        return entry_dn_approx389(ev, nd);
    if (nd->special == ACREF_SP_ENTRYDN)
        return eqlike ? entry_dn_is(ev, nd, 0) : ACREF_UNDEFINED;
    for (uint32_t i = first_attr(ev, nd); i < ev->e->nattrs;
         i = next_attr(ev, nd, i + 1)) {
        const acre_view_attr *a = &ev->e->attrs[i];
        enum acreF_result r;

        if (!same_desc(ev, nd, a) &&
            !attr_allowed(ev, a, nd->norm, nd->norm_len)) {
            rc = ACREF_UNDEFINED;
            continue;
        }
        if ((r = ava_attr(ev, nd, a)) == ACREF_TRUE)
            return r;
        if (r == ACREF_UNDEFINED)
            rc = r;
    }
    return rc;
}

/* ------------------------------------------------------------------------
 * Presence and substrings
 */

static enum acreF_result
eval_present(const struct ev *ev, const struct acreF_node *nd)
{
    enum acreF_result rc = ACREF_FALSE;

    if (!item_allowed(ev, nd, NULL, 0))
        return ACREF_UNDEFINED;
    if (virtual_member(ev, nd, NULL, 0, &rc) || cos_item(ev, nd, NULL, &rc))
        return rc;
    if (nd->special == ACREF_SP_HASSUBORDINATES ||
        nd->special == ACREF_SP_ENTRYDN || nd->special == ACREF_SP_SUBSCHEMA)
        return ACREF_TRUE;
    for (uint32_t i = first_attr(ev, nd); i < ev->e->nattrs;
         i = next_attr(ev, nd, i + 1)) {
        const acre_view_attr *a = &ev->e->attrs[i];

        if (same_desc(ev, nd, a) || attr_allowed(ev, a, NULL, 0))
            return ACREF_TRUE;
        rc = ACREF_UNDEFINED;
    }
    return rc;
}

/*
 * subs_raw -- 389's string_filter_sub with its components as written
 * (ACREF_389_RAWSUBS): the regex "^initial.*any.*final$", every regex
 * character escaped, run on the normal form v[0..n): the initial
 * component a prefix, the final one a suffix, the others in order
 * between them without overlapping.  1 or 0.
 */
static int
subs_raw(const struct acreF_node *nd, const uint8_t *v, size_t n)
{
    size_t at = 0, end = n;
    unsigned i = 0, last = nd->nparts;

    if (nd->has_initial) {
        if (nd->part_len[0] > n || memcmp(v, nd->parts[0], nd->part_len[0]))
            return 0;
        at = nd->part_len[0];
        i = 1;
    }
    if (nd->has_final && last > i) {
        size_t fl = nd->part_len[--last];
        if (fl > end - at || memcmp(v + n - fl, nd->parts[last], fl))
            return 0;
        end = n - fl;
    }
    for (; i < last; i++) {
        const uint8_t *p =
            nd->part_len[i] <= end - at
                ? memmem(v + at, end - at, nd->parts[i], nd->part_len[i])
                : NULL;
        if (!p)
            return 0;
        at = (size_t)(p - v) + nd->part_len[i];
    }
    return 1;
}

static enum acreF_result
subs_attr(const struct ev *ev, const struct acreF_node *nd,
          const acre_view_attr *a)
{
    struct acreF_rules at = rules_of(ev, nd, ainfo(ev, a)->type);
    enum acreF_result r = ACREF_FALSE;
    struct scratch sc;
    int eq;

    if (at.sub == ACREM_NONE)
        return ACREF_UNDEFINED;
    eq = acreM_info(at.sub)->eq;
    scratch_init(&sc);
    for (uint32_t k = 0; k < a->nvals && r == ACREF_FALSE; k++) {
        size_t len;
        const uint8_t *p = value_form(ev, eq, a, k, &sc, &len);
        int m;

        if (!p)
            continue;
        m = nd->raw389 && !ev->normal_subs
                ? subs_raw(nd, p, len)
                : acreM_substr_match(ev->s, at.sub, &nd->pat, p, len);
        if (m > 0)
            r = ACREF_TRUE;
        else if (m < 0)
            r = ACREF_UNDEFINED;
    }
    acreE_buf_free(&sc.b);
    return r;
}

static enum acreF_result
eval_subs(const struct ev *ev, const struct acreF_node *nd)
{
    enum acreF_result rc = ACREF_FALSE;

    if (!item_allowed(ev, nd, NULL, 0))
        return ACREF_UNDEFINED;
    if (virtual_member(ev, nd, NULL, 0, &rc))
        return virtual_values(ev, nd, rc, subs_attr);
    if (cos_item(ev, nd, subs_attr, &rc))
        return rc;
    for (uint32_t i = first_attr(ev, nd); i < ev->e->nattrs;
         i = next_attr(ev, nd, i + 1)) {
        const acre_view_attr *a = &ev->e->attrs[i];
        enum acreF_result r;

        if (!same_desc(ev, nd, a) && !attr_allowed(ev, a, NULL, 0)) {
            rc = ACREF_UNDEFINED;
            continue;
        }
        if ((r = subs_attr(ev, nd, a)) == ACREF_TRUE)
            return r;
        if (r == ACREF_UNDEFINED)
            rc = r;
    }
    return rc;
}

/* ------------------------------------------------------------------------
 * Extensible match
 */

/* acreF_int64 -- see filter_impl.h. */
int
acreF_int64(const uint8_t *p, size_t n, int64_t *out)
{
    uint64_t v = 0, lim = (uint64_t)INT64_MAX;
    size_t i = n && p[0] == '-';

    if (i == n)
        return -1;
    if (i)
        lim++; /* |INT64_MIN| */
    for (; i < n; i++) {
        if (p[i] < '0' || p[i] > '9' || v > (lim - (p[i] - '0')) / 10)
            return -1;
        v = v * 10 + (p[i] - '0');
    }
    *out = p[0] == '-' ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

/*
 * Does form p[0..n) match the assertion under the item's rule?  An
 * equality rule: when equal.  An ordering rule: when the value sorts
 * strictly before the assertion -- slapd's ordering matchers say so under
 * SLAP_MR_EXT (schema_init.c: "match if value < asserted").  The bitwise
 * rules: when value AND assertion is the assertion (integerBitAndMatch)
 * or is not 0 (integerBitOrMatch); a number past 64 bits is an error
 * (slapd: strtol's ERANGE), hence UNDEFINED.
 */
/* The separators (unescaped ',') of normalised DN text p[0..n): the
 * number of them, and whether k is one. */
static unsigned
dn_seps(const uint8_t *p, size_t n, size_t k, int *at_k)
{
    unsigned count = 0;

    *at_k = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\\') {
            i++;
            continue;
        }
        if (p[i] == ',') {
            count++;
            *at_k |= i == k;
        }
    }
    return count;
}

/*
 * slapd's dnRelativeMatch on normalised DNs: is value v[0..n) in the
 * subtree of the asserted DN a[0..an) (dnSubtreeMatch: itself included;
 * the empty DN holds every DN), strictly below it (dnSubordinateMatch),
 * its child (dnOneLevelMatch: the rest one RDN), or above it
 * (dnSuperiorMatch: the assertion strictly below the value)?  As slapd
 * compares them: the assertion's bytes end the value, after a separator.
 * slapd's normal form escapes a ',' in a value as \2C where acre's has
 * \, so a separator here is an unescaped one.
 */
static int
dn_relative(int rule, const uint8_t *v, size_t n, const uint8_t *a, size_t an)
{
    if (rule == ACREF_RULE_DNSUPERIOR) {
        const uint8_t *t = v;
        size_t tn = n;
        v = a, n = an, a = t, an = tn;
        rule = ACREF_RULE_DNSUBORDINATE;
    }
    if (rule == ACREF_RULE_DNSUBTREE && an == n)
        return memcmp(v, a, n) == 0;
    if (an >= n)
        return 0;
    if (an == 0) /* every DN is below the root, but none is its child */
        return rule != ACREF_RULE_DNONELEVEL;
    if (memcmp(v + n - an, a, an) != 0)
        return 0;
    int sep;
    unsigned before = dn_seps(v, n - an, n - an - 1, &sep);
    return sep && (rule != ACREF_RULE_DNONELEVEL || before == 1);
}

static enum acreF_result
ext_match(const struct acreF_node *nd, const uint8_t *p, size_t n)
{
    int64_t v;

    if (ACREF_RULE_IS_DN(nd->rule))
        return truth(dn_relative(nd->rule, p, n, nd->norm, nd->norm_len));
    if (nd->rule > ACREM_COUNT) {
        if (nd->bits_range || acreF_int64(p, n, &v) != 0)
            return ACREF_UNDEFINED;
        if (nd->rule == ACREF_RULE_BITAND)
            return truth((v & nd->bits) == nd->bits);
        return truth((v & nd->bits) != 0);
    }
    if (acreM_info(nd->rule)->usage == ACREM_ORD) {
        int c = acreM_compare(nd->rule, p, n, nd->norm, nd->norm_len);
        return truth(nd->ord_ge ? c >= 0 : c < 0);
    }
    return truth(same_bytes(p, n, nd->norm, nd->norm_len));
}

/* The values of one attribute: TRUE at the first match, UNDEFINED at the
 * first error (slapd stops there), else FALSE. */
static enum acreF_result
ext_attr(const struct ev *ev, const struct acreF_node *nd,
         const acre_view_attr *a)
{
    enum acreF_result r = ACREF_FALSE;
    struct scratch sc;

    if (nd->special == ACREF_SP_OBJECTCLASS && !nd->rule_text)
        return class_attr(ev, nd, a);
    scratch_init(&sc);
    for (uint32_t k = 0; k < a->nvals && r == ACREF_FALSE; k++) {
        size_t len;
        const uint8_t *p = value_form(ev, nd->rule_eq, a, k, &sc, &len);

        if (p)
            r = ext_match(nd, p, len);
    }
    acreE_buf_free(&sc.b);
    return r;
}

/* One AVA "type=value" of the entry's DN, for :dn:. */
static enum acreF_result
ext_ava(const struct ev *ev, const struct acreF_node *nd, const char *ava,
        size_t n, struct scratch *raw, struct scratch *sc)
{
    const char *eq = memchr(ava, '=', n);
    size_t tl;
    int id;

    if (!eq)
        return ACREF_FALSE;
    tl = (size_t)(eq - ava);
    id = acreS_attr_find(ev->s, ava, tl);
    if (id < 0 || (unsigned)id >= ev->f->nattrs)
        return ACREF_FALSE;
    if (nd->desc) {
        if (nd->want.nopts || !type_covered(ev, nd, id))
            return ACREF_FALSE;
    } else if (!acreF_bit(nd->usable, id) ||
               !allowed(ev, &(struct acreF_desc){id, 0, NULL, NULL}, nd->norm,
                        nd->norm_len)) {
        return ACREF_FALSE;
    }
    raw->b.len = sc->b.len = 0;
    if (acreD_value_unescape(eq + 1, n - tl - 1, 1, &raw->b) ||
        acreM_normalise(ev->s, nd->rule_eq, raw->b.p, raw->b.len, &sc->b))
        return ACREF_FALSE;
    return ext_match(nd, sc->b.p, sc->b.len);
}

/* The AVAs of RDN r[0..n) (pretty form: slapd matches the DN as the
 * entry spells it, dnPrettyDN, not its normalised form), split at
 * unescaped '+'. */
static enum acreF_result
ext_rdn(const struct ev *ev, const struct acreF_node *nd, const char *r,
        size_t n, struct scratch *raw, struct scratch *sc)
{
    size_t start = 0;

    for (size_t k = 0; k <= n; k++) {
        enum acreF_result res;

        if (k < n && r[k] == '\\') {
            k++;
            continue;
        }
        if (k < n && r[k] != '+')
            continue;
        res = ext_ava(ev, nd, r + start, k - start, raw, sc);
        if (res != ACREF_FALSE)
            return res;
        start = k + 1;
    }
    return ACREF_FALSE;
}

static enum acreF_result
ext_dn(const struct ev *ev, const struct acreF_node *nd)
{
    const acre_dn *dn = ev->e->dn;
    struct scratch raw, sc;
    unsigned depth = dn ? acre_dn_depth(dn) : 0;
    enum acreF_result r = ACREF_FALSE;

    scratch_init(&raw);
    scratch_init(&sc);
    for (unsigned i = 0; i < depth && r == ACREF_FALSE; i++) {
        const char *rdn;
        size_t n;

        if (acre_dn_rdn(dn, i, NULL, NULL, &rdn, &n) == 0)
            r = ext_rdn(ev, nd, rdn, n, &raw, &sc);
    }
    acreE_buf_free(&raw.b);
    acreE_buf_free(&sc.b);
    return r;
}

/* A 389 collation item (filter_collate.c): TRUE when the values of one
 * attribute of the type (or a subtype) match, as 389's or_filter_match
 * tests them attribute by attribute. */
static enum acreF_result
coll_item(const struct ev *ev, const struct acreF_node *nd)
{
    for (uint32_t i = first_attr(ev, nd); i < ev->e->nattrs;
         i = next_attr(ev, nd, i + 1)) {
        int r = acreF_coll_match(nd->coll, &ev->e->attrs[i]);
        if (r == -2) {
            acreE_nomem++;
            return ACREF_UNDEFINED;
        }
        if (r == 0)
            return ACREF_TRUE;
    }
    return ACREF_FALSE;
}

static enum acreF_result
eval_ext(const struct ev *ev, const struct acreF_node *nd)
{
    const acre_entry_view *e = ev->e;

    if (nd->desc) {
        enum acreF_result vr;
        if (!item_allowed(ev, nd, nd->norm, nd->norm_len) ||
            virtual_member(ev, nd, NULL, 0, &vr))
            return ACREF_UNDEFINED;
        if (nd->special == ACREF_SP_ENTRYDN)
            return entry_dn_is(ev, nd, 1);
        if (nd->coll)
            return coll_item(ev, nd);
        /* no Class of Service: 389 tests an extensible item on the
         * entry's stored attributes alone (test_extensible_filter reads
         * e_attrs), so a CoS value is not seen and an overridden stored
         * one still is */
        for (uint32_t i = first_attr(ev, nd); i < e->nattrs;
             i = next_attr(ev, nd, i + 1)) {
            enum acreF_result r = ext_attr(ev, nd, &e->attrs[i]);
            if (r != ACREF_FALSE)
                return r;
        }
    } else {
        for (uint32_t i = 0; i < e->nattrs; i++) {
            const acre_view_attr *a = &e->attrs[i];
            int type = ainfo(ev, a)->type;

            if (type < 0 || (unsigned)type >= ev->f->nattrs ||
                !acreF_bit(nd->usable, type) ||
                !attr_allowed(ev, a, nd->norm, nd->norm_len))
                continue;
            enum acreF_result r = ext_attr(ev, nd, a);
            if (r != ACREF_FALSE)
                return r;
        }
    }
    return nd->dnattrs ? ext_dn(ev, nd) : ACREF_FALSE;
}

/* ------------------------------------------------------------------------
 * The tree
 */

static enum acreF_result
eval_set(const struct ev *ev, const struct acreF_node *nd)
{
    enum acreF_result stop = nd->kind == ACREF_AND ? ACREF_FALSE : ACREF_TRUE;
    enum acreF_result rc = nd->kind == ACREF_AND ? ACREF_TRUE : ACREF_FALSE;

    for (unsigned i = 0; i < nd->nkids; i++) {
        enum acreF_result r = eval(ev, nd->kids[i]);

        if (r == stop)
            return r;
        if (r == ACREF_UNDEFINED)
            rc = r;
    }
    return rc;
}

/* An item marked undef (and not a virtual memberOf's): UNDEFINED, or
 * FALSE on a type 389 does not know. */
static enum acreF_result
undef_result(const struct acreF_node *nd)
{
    return nd->undef == ACREF_UNDEF_ABSENT ? ACREF_FALSE : ACREF_UNDEFINED;
}

static enum acreF_result
eval(const struct ev *ev, const struct acreF_node *nd)
{
    enum acreF_result r;

    if (nd->undef && !nd->vdn)
        return undef_result(nd);
    switch (nd->kind) {
    case ACREF_AND:
    case ACREF_OR:
        return eval_set(ev, nd);
    case ACREF_NOT:
        r = eval(ev, nd->kids[0]);
        return r == ACREF_UNDEFINED ? r : truth(r == ACREF_FALSE);
    case ACREF_ABSOLUTE_TRUE:
        return ACREF_TRUE;
    case ACREF_ABSOLUTE_FALSE:
        return ACREF_FALSE;
    case ACREF_PRESENT:
        return eval_present(ev, nd);
    case ACREF_SUBSTRINGS:
        return eval_subs(ev, nd);
    case ACREF_EXTENSIBLE:
        return eval_ext(ev, nd);
    default:
        return eval_ava(ev, nd);
    }
}

/* acreF_schema -- see filter.h. */
const acre_schema *
acreF_schema(const struct acreF_filter *f)
{
    return f->schema;
}

/* ev_init -- an evaluation of f on e with hooks h (NULL: none); 0, or
 * -1 when f or e is not usable (the filter is then Undefined). */
static int
ev_init(struct ev *ev, const struct acreF_filter *f, const acre_entry_view *e,
        const struct acreF_hooks *h)
{
    memset(ev, 0, sizeof *ev);
    if (!f || f->magic != ACREF_MAGIC || !e)
        return -1;
    ev->f = f;
    ev->e = e;
    ev->s = f->schema;
    if (h) {
        ev->access = h->access;
        ev->ctx = h->ctx;
        ev->children = h->children;
        ev->children_arg = h->children_arg;
        ev->memberof = h->memberof;
        ev->memberof_arg = h->memberof_arg;
        ev->values = h->values;
        ev->normal_subs = h->normal_subs;
        ev->cos = h->cos;
    }
    return 0;
}

/* acreF_eval -- see filter.h. */
enum acreF_result
acreF_eval(const struct acreF_filter *f, const acre_entry_view *e,
           const struct acreF_hooks *h)
{
    struct ev ev;

    if (ev_init(&ev, f, e, h))
        return ACREF_UNDEFINED;
    return eval(&ev, f->root);
}

/* ------------------------------------------------------------------------
 * Plain filters through a map of the entry's types (filter.h: acreF_plain,
 * acreF_eval_typed).  An item without subtypes or options covers the
 * attributes of its type; when the entry has one such attribute and no
 * attribute with options (the map's contract), eval's loops over the
 * covered attributes meet that one alone, the hook (none here) allows
 * it, and the item's answer is its attribute's (ava_attr, subs_attr),
 * or FALSE without it; presence is whether it is there.
 */

static int
plain_node(const struct acreF_node *nd)
{
    if (nd->undef && !nd->vdn)
        return 1;
    switch (nd->kind) {
    case ACREF_AND:
    case ACREF_OR:
    case ACREF_NOT:
        for (unsigned i = 0; i < nd->nkids; i++)
            if (!plain_node(nd->kids[i]))
                return 0;
        return 1;
    case ACREF_ABSOLUTE_TRUE:
    case ACREF_ABSOLUTE_FALSE:
        return 1;
    case ACREF_EXTENSIBLE:
        return 0;
    default: /* =, ~=, >=, <=, presence, substrings */
        return !nd->undef && !nd->types && !nd->want.nopts &&
               nd->want.type >= 0 &&
               (nd->special == ACREF_SP_NONE ||
                nd->special == ACREF_SP_OBJECTCLASS);
    }
}

/* acreF_plain -- see filter.h. */
int
acreF_plain(const struct acreF_filter *f)
{
    return f && f->magic == ACREF_MAGIC && plain_node(f->root);
}

static enum acreF_result
typed(const struct ev *ev, const struct acreF_node *nd,
      const struct acreF_typemap *m)
{
    enum acreF_result r, stop, rc;
    const acre_view_attr *a;
    int t = nd->want.type;

    if (nd->undef && !nd->vdn)
        return undef_result(nd);
    switch (nd->kind) {
    case ACREF_AND:
    case ACREF_OR: /* eval_set */
        stop = nd->kind == ACREF_AND ? ACREF_FALSE : ACREF_TRUE;
        rc = nd->kind == ACREF_AND ? ACREF_TRUE : ACREF_FALSE;
        for (unsigned i = 0; i < nd->nkids; i++) {
            if ((r = typed(ev, nd->kids[i], m)) == stop)
                return r;
            if (r == ACREF_UNDEFINED)
                rc = r;
        }
        return rc;
    case ACREF_NOT:
        r = typed(ev, nd->kids[0], m);
        return r == ACREF_UNDEFINED ? r : truth(r == ACREF_FALSE);
    case ACREF_ABSOLUTE_TRUE:
        return ACREF_TRUE;
    case ACREF_ABSOLUTE_FALSE:
        return ACREF_FALSE;
    default:
        break;
    }
    a = (unsigned)t < m->ntypes && m->stamp[t] == m->ep
            ? &ev->e->attrs[m->at[t]]
            : NULL;
    if (nd->kind == ACREF_PRESENT || !a)
        return truth(a != NULL);
    if (nd->kind == ACREF_EQUALITY && nd->special == ACREF_SP_NONE) {
        /* ava_attr's way for it: a's type is the item's */
        int eq = nd->trules.eq;
        if (eq == ACREM_NONE)
            return ACREF_UNDEFINED;
        if (eq != acreS_attr(ev->s, t)->eq) /* a rule by syntax */
            return equal_by(ev, nd, a, eq, ACREM_USE_EQ);
        return truth(acreE_attr_has_value(ev->s, a, nd->norm, nd->norm_len));
    }
    return nd->kind == ACREF_SUBSTRINGS ? subs_attr(ev, nd, a)
                                        : ava_attr(ev, nd, a);
}

/* acreF_eval_typed -- see filter.h. */
enum acreF_result
acreF_eval_typed(const struct acreF_filter *f, const acre_entry_view *e,
                 const struct acreF_typemap *m)
{
    struct ev ev;

    if (!f || f->magic != ACREF_MAGIC || !e)
        return ACREF_UNDEFINED; /* as ev_init */
    if (f->root->kind == ACREF_PRESENT && !f->root->undef) {
        /* a presence item alone: no context needed */
        int t = f->root->want.type;
        return truth((unsigned)t < m->ntypes && m->stamp[t] == m->ep);
    }
    ev_init(&ev, f, e, NULL);
    return typed(&ev, f->root, m);
}

/* ------------------------------------------------------------------------
 * 389-DS's evaluation under access control (its filterentry.c, as
 * slapi_vattr_filter_test runs it for a search): each item's search
 * right is checked before the item is evaluated; an OR first asks which
 * of its children the requester may search at all (every item of the
 * child), ignores the others, and evaluates the rest without further
 * checks.  Results: 0 True, -1 False, 1 Undefined (no right).
 *
 * One flag runs through the whole evaluation as 389's access_check_done
 * does (struct opt's acd): an item checked for access sets it (an
 * extensible one to -1, an other one to 1); an extensible item clears it
 * whenever it is evaluated, even matched alone, as an OR matches each
 * part it may search.  Where the flag is clear, 389 takes a part's
 * answer as unchecked: a NOT asks its part again for access alone and
 * answers that when it is not 0 (an OR asked so still matches: False
 * stays False, unnegated), and an AND part that matched is checked
 * again without counting as a match.
 */

#define R389_TRUE  0
#define R389_FALSE (-1)
#define R389_UNDEF 1

/* plain -- nd evaluated without access checks, in 389's two values */
static int
plain389(const struct ev *ev, const struct acreF_node *nd)
{
    struct ev pv = *ev;

    pv.access = NULL;
    return eval(&pv, nd) == ACREF_TRUE ? R389_TRUE : R389_FALSE;
}

/*
 * 389's filter optimiser (filter.c slapi_filter_optimise), which one-level
 * and subtree searches run before evaluating: an AND or OR takes in the
 * children of its direct children of the same kind (transitively), then
 * puts some kinds first (AND: equality items but on "objectclass"; OR:
 * approx, >=, <= and substrings), then optimises its new first child;
 * any other node optimises its next sibling instead.  The kinds put
 * first go in the reverse of their order (filter_prioritise_element
 * pushes each onto the head of the list), the others stay in theirs.
 * The evaluation runs on the optimised tree: the merging changes what it
 * answers (an OR asks each child for access as a whole), and the order
 * changes which checks an AND or OR makes before it stops, which 389's
 * access_check_done and its per-operation answers of ACIs see.  So the
 * nodes the optimiser reaches are marked here, and e389 walks a marked
 * node's children as it orders them (`ordered`).
 */
#define OPT_MARKS 32 /* nodes marked per evaluation; deeper ones not */

struct opt {
    const struct acreF_node *mark[OPT_MARKS];
    unsigned nmark;
    int acd; /* 389's access_check_done, as the evaluation leaves it */
};

static int
opt_marked(const struct opt *o, const struct acreF_node *nd)
{
    for (unsigned i = 0; o && i < o->nmark; i++)
        if (o->mark[i] == nd)
            return 1;
    return 0;
}

/* merged -- call fn for each child of nd as the optimiser merges them */
static int
merged(const struct acreF_node *nd, const struct acreF_node *at,
       int (*fn)(void *arg, const struct acreF_node *kid), void *arg)
{
    for (unsigned i = 0; i < at->nkids; i++) {
        const struct acreF_node *k = at->kids[i];
        int rc = k->kind == nd->kind ? merged(nd, k, fn, arg) : fn(arg, k);
        if (rc)
            return rc;
    }
    return 0;
}

static int
first_put(const struct acreF_node *nd, const struct acreF_node *k)
{
    if (nd->kind == ACREF_AND)
        return k->kind == ACREF_EQUALITY &&
               !(k->desc && k->desc_len == 11 &&
                 !strncasecmp(k->desc, "objectclass", 11));
    return k->kind == ACREF_APPROX || k->kind == ACREF_GE ||
           k->kind == ACREF_LE || k->kind == ACREF_SUBSTRINGS;
}

#define OPT_LIST 64 /* children of one node the simulation orders */

struct opt_list {
    const struct acreF_node *nd;
    const struct acreF_node *k[OPT_LIST];
    unsigned n, total; /* kept, and met in the two passes */
    int pass;          /* 1: the kinds put first; 0: the others */
};

static int
opt_collect(void *arg, const struct acreF_node *k)
{
    struct opt_list *l = arg;

    if (first_put(l->nd, k) == l->pass && l->total++ < OPT_LIST)
        l->k[l->n++] = k;
    return 0;
}

/* opt_order -- nd's children as the optimiser leaves them in l (0; -1:
 * more than OPT_LIST, not ordered) */
static int
opt_order(const struct acreF_node *nd, struct opt_list *l)
{
    l->nd = nd;
    l->n = l->total = 0;
    l->pass = 1;
    merged(nd, nd, opt_collect, l); /* the kinds put first ... */
    for (unsigned i = 0, j = l->n; i < j / 2; i++) {
        const struct acreF_node *t = l->k[i]; /* ... reversed */
        l->k[i] = l->k[j - 1 - i];
        l->k[j - 1 - i] = t;
    }
    l->pass = 0;
    merged(nd, nd, opt_collect, l); /* then the others, in order */
    return l->total > OPT_LIST ? -1 : 0;
}

/* ordered -- call fn for each child of nd as the optimiser orders them
 * (merged only, past OPT_LIST children), until one returns non-zero */
static int
ordered(const struct acreF_node *nd,
        int (*fn)(void *arg, const struct acreF_node *kid), void *arg)
{
    struct opt_list l;

    if (opt_order(nd, &l))
        return merged(nd, nd, fn, arg);
    for (unsigned i = 0; i < l.n; i++) {
        int rc = fn(arg, l.k[i]);
        if (rc)
            return rc;
    }
    return 0;
}

static void
opt_node(struct opt *o, const struct acreF_node *nd)
{
    struct opt_list l;

    if (o->nmark == OPT_MARKS)
        return;
    o->mark[o->nmark++] = nd;
    opt_order(nd, &l);
    /* the new first child is optimised; a leaf or NOT hands on to its
     * next sibling, up to the first AND or OR */
    for (unsigned i = 0; i < l.n; i++)
        if (l.k[i]->kind == ACREF_AND || l.k[i]->kind == ACREF_OR) {
            opt_node(o, l.k[i]);
            return;
        }
}

/* plain_walk -- plain389 of nd (389's verify_access 0), leaving o->acd as
 * that walk does: clear when it evaluates an extensible item (its lists
 * stop at their first False (AND) or True (OR) part) */
struct plain_w {
    const struct ev *ev;
    struct opt *o;
    int kind, rc;
};

static int plain_walk(const struct ev *ev, struct opt *o,
                      const struct acreF_node *nd);

static int
plain_kid(void *arg, const struct acreF_node *k)
{
    struct plain_w *w = arg;

    w->rc = plain_walk(w->ev, w->o, k);
    return w->rc == (w->kind == ACREF_AND ? R389_FALSE : R389_TRUE);
}

static int
plain_walk(const struct ev *ev, struct opt *o, const struct acreF_node *nd)
{
    if (nd->kind != ACREF_EXTENSIBLE && !nd->ext_below)
        return plain389(ev, nd);
    if (nd->kind == ACREF_EXTENSIBLE) {
        o->acd = 0;
        return plain389(ev, nd);
    }
    /* the parts in 389's order for the flag, the answer as a whole */
    struct plain_w w = {ev, o, nd->kind, 0};
    if (nd->kind == ACREF_NOT)
        plain_walk(ev, o, nd->kids[0]);
    else if (opt_marked(o, nd))
        ordered(nd, plain_kid, &w);
    else
        for (unsigned i = 0; i < nd->nkids; i++)
            if (plain_kid(&w, nd->kids[i]))
                break;
    return plain389(ev, nd);
}

/* e389 -- nd; only: check the rights of its items and nothing else */
struct e389_walk {
    const struct ev *ev;
    struct opt *o;
    int only, kind, undefined, nomatch, done;
};

static int e389(const struct ev *ev, struct opt *o, const struct acreF_node *nd,
                int only);

static int
e389_kid(void *arg, const struct acreF_node *k)
{
    struct e389_walk *w = arg;
    int rc;

    if (w->kind == ACREF_AND) {
        rc = e389(w->ev, w->o, k, w->only);
        if (rc > 0) {
            w->undefined = rc;
        } else if (rc < 0) {
            w->undefined = 0;
            w->nomatch = R389_FALSE;
            return 1;
        } else if (w->o->acd) {
            w->nomatch = R389_TRUE;
        } else if ((rc = e389(w->ev, w->o, k, 1)) != 0) {
            w->undefined = rc; /* checked again, not a match */
        }
        return 0;
    }
    if ((rc = e389(w->ev, w->o, k, 1)) != 0) {
        w->undefined = rc;
        return 0;
    }
    /* the part is matched even when only access is asked for: 389's
     * vattr_test_filter_list_or does not look at only_check_access, so
     * an OR checked for access answers whether it matches */
    w->undefined = 0;
    if (plain_walk(w->ev, w->o, k) == R389_TRUE) {
        w->nomatch = R389_TRUE;
        return 1;
    }
    w->nomatch = R389_FALSE;
    return 0;
}

/* Does 389 ask for search access to item nd's type?  Its known types,
 * and the names it does not know (a type the ACIs' targetattr "*" or
 * "!=" lists take). */
static int
checked389(const struct acreF_node *nd)
{
    return nd->undef == ACREF_UNDEF_ABSENT ||
           (!nd->undef && nd->want.type >= 0);
}

static int
e389(const struct ev *ev, struct opt *o, const struct acreF_node *nd, int only)
{
    int rc;

    switch (nd->kind) {
    case ACREF_AND:
    case ACREF_OR: {
        struct e389_walk w = {
            ev, o, only, nd->kind, 0, nd->kind == ACREF_AND ? R389_FALSE : 1,
            0};
        if (opt_marked(o, nd))
            ordered(nd, e389_kid, &w);
        else
            for (unsigned i = 0; i < nd->nkids; i++)
                if (e389_kid(&w, nd->kids[i]))
                    break;
        if (nd->kind == ACREF_AND)
            return w.undefined ? w.undefined : w.nomatch;
        return w.nomatch == 1 ? w.undefined : w.nomatch;
    }
    case ACREF_NOT:
        rc = e389(ev, o, nd->kids[0], only);
        if (only || rc > 0)
            return rc;
        if (!o->acd) {
            /* the part's answer was not checked: its access alone */
            int again = e389(ev, o, nd->kids[0], 1);
            if (again)
                return again;
        }
        return rc == R389_TRUE ? R389_FALSE : R389_TRUE;
    case ACREF_ABSOLUTE_TRUE:
        return only ? 0 : R389_TRUE;
    case ACREF_ABSOLUTE_FALSE:
        return only ? 0 : R389_FALSE;
    case ACREF_EXTENSIBLE:
        o->acd = 0;
        if (!nd->desc) /* no type to check: matched, even for access */
            return plain389(ev, nd);
        o->acd = -1;
        if (checked389(nd) && !item_allowed(ev, nd, nd->norm, nd->norm_len))
            return R389_UNDEF;
        return only ? 0 : plain389(ev, nd);
    default:
        o->acd = 1;
        if (checked389(nd) && !item_allowed(ev, nd, nd->norm, nd->norm_len))
            return R389_UNDEF;
        if (only)
            return 0;
        return plain389(ev, nd);
    }
}

/*
 * 389's index candidates.  A one-level or subtree search evaluates the
 * filter only on the entries its indexes give (ldbm's filter_candidates):
 * an item on an attribute of 389's default indexes (template-dse.ldif,
 * cn=default indexes) gives the entries whose values match it, any other
 * item every entry; AND intersects, OR unites, NOT gives every entry.  An
 * entry that is no candidate is never tested, so it asks no ACI for its
 * search right -- which matters where 389 keeps an ACI's answer from the
 * first entry that asks (eval_aci.c, ACREP_ACI_FIRST).  Skipping such an
 * entry never changes whether the filter matches it.
 */
static const struct {
    const char *name;
    unsigned char pres, eq, sub;
} idx389[] = {
    {"aci", 1, 0, 0},
    {"cn", 1, 1, 1},
    {"entryusn", 0, 1, 0},
    {"givenName", 1, 1, 1},
    {"mail", 1, 1, 1},
    {"mailAlternateAddress", 0, 1, 0},
    {"mailHost", 0, 1, 0},
    {"member", 0, 1, 0},
    {"memberOf", 0, 1, 0},
    {"memberUid", 1, 1, 0},
    {"gidNumber", 0, 1, 0},
    {"uidNumber", 0, 1, 0},
    {"nsCertSubjectDN", 0, 1, 0},
    {"nsTombstoneCSN", 0, 1, 0},
    {"nsUniqueId", 0, 1, 0},
    {"ntUniqueId", 0, 1, 0},
    {"ntUserDomainId", 0, 1, 0},
    {"numSubordinates", 1, 0, 0},
    {"objectClass", 0, 1, 0},
    {"owner", 0, 1, 0},
    {"seeAlso", 0, 1, 0},
    {"sn", 1, 1, 1},
    {"sudoHost", 1, 1, 0},
    {"targetUniqueId", 0, 1, 0},
    {"telephoneNumber", 1, 1, 1},
    {"uid", 0, 1, 0},
    {"uniqueMember", 0, 1, 0},
};

/* acreF_index389 -- see filter_impl.h. */
unsigned
acreF_index389(const acre_schema *s, int t)
{
    const struct acreS_attr *at;
    const char *name;

    if (t < 0)
        return 0;
    at = acreS_attr(s, t);
    name = at->nnames ? at->names[0] : at->oid;
    for (size_t i = 0; i < sizeof idx389 / sizeof idx389[0]; i++)
        if (!strcasecmp(name, idx389[i].name))
            return (idx389[i].eq ? ACREF_IX389_EQ : 0u) |
                   (idx389[i].pres ? ACREF_IX389_PRES : 0u) |
                   (idx389[i].sub ? ACREF_IX389_SUB : 0u);
    return 0;
}

/* sub_keys389 -- does substrings item nd give 389's index a key?  Its
 * keys are 3 bytes: an initial part of 2 or more ("^ab"), a final one of
 * 2 or more ("ab$"), a middle one of 3 or more; an item with none (such
 * as "*le*") makes every entry a candidate. */
static int
sub_keys389(const struct acreF_node *nd)
{
    for (unsigned k = 0; k < nd->nparts; k++) {
        int edge = (k == 0 && nd->has_initial) ||
                   (k + 1 == nd->nparts && nd->has_final);
        if (nd->part_len[k] >= (edge ? 2u : 3u))
            return 1;
    }
    return 0;
}

/* indexed389 -- does one of 389's default indexes serve item nd? */
static int
indexed389(const struct ev *ev, const struct acreF_node *nd)
{
    unsigned ix = nd->undef ? 0 : acreF_index389(ev->s, nd->want.type);

    switch (nd->kind) {
    case ACREF_EQUALITY:
    case ACREF_GE:
    case ACREF_LE:
        return !!(ix & ACREF_IX389_EQ);
    case ACREF_SUBSTRINGS:
        return (ix & ACREF_IX389_SUB) && sub_keys389(nd);
    case ACREF_PRESENT:
        return !!(ix & ACREF_IX389_PRES);
    default:
        return 0;
    }
}

/* The byte order of index keys: a and b's common part, then length. */
static int
key_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);

    return c ? c : (an > bn) - (an < bn);
}

/* range_cmp -- a value's index key p against the key 389 makes of item
 * nd's assertion.  That key is the assertion normalised in place with
 * its length left as sent (string_assertion2keys_ava updates bv_len only
 * when the normaliser gave a new string): an assertion its normal form
 * shortened ("+1555-0120") keeps a NUL and the rest of its bytes after
 * that form, so a value whose key is the form itself sorts before it and
 * any longer one after. */
static int
range_cmp(const uint8_t *p, size_t len, const struct acreF_node *nd)
{
    int c = key_cmp(p, len, nd->norm, nd->norm_len);

    return c == 0 && nd->norm_len < nd->raw_len ? -1 : c;
}

/* range389 -- does the equality index of >= or <= item nd (and, for
 * 389's bounded range (&(t>=a)(t<=b)), of <= item hi too) give the
 * entry?  389 reads the keys (each value in its equality rule's normal
 * form) in byte order from the assertion's key on, or up to it, or
 * between the two: as bytes, so integers are in text order there
 * ("1000" < "999") though the item then compares them as numbers. */
static int
range389(const struct ev *ev, const struct acreF_node *nd,
         const struct acreF_node *hi)
{
    int eq = nd->int389 ? ACREM_INTEGER : nd->rule_eq, in = 0;
    struct scratch sc;

    scratch_init(&sc);
    for (uint32_t i = first_attr(ev, nd); !in && i < ev->e->nattrs;
         i = next_attr(ev, nd, i + 1)) {
        const acre_view_attr *a = &ev->e->attrs[i];
        for (uint32_t k = 0; !in && k < a->nvals; k++) {
            size_t len;
            const uint8_t *p = value_form(ev, eq, a, k, &sc, &len);
            if (!p)
                continue;
            int c = range_cmp(p, len, nd);
            in = nd->kind == ACREF_GE ? c >= 0 : c <= 0;
            if (in && hi)
                in = range_cmp(p, len, hi) <= 0;
        }
    }
    acreE_buf_free(&sc.b);
    return in;
}

/* bounded389 -- for an AND of exactly a >= and a <= item on one type
 * (as written) of an equality index, 389's candidates are the keys
 * between the two (list_candidates' bounded range): 1 or 0 into *in;
 * returns 0 when nd is no such AND. */
static int
bounded389(const struct ev *ev, const struct acreF_node *nd, int *in)
{
    const struct acreF_node *a, *b;

    if (nd->nkids != 2)
        return 0;
    a = nd->kids[0], b = nd->kids[1];
    if (a->kind == ACREF_LE) {
        const struct acreF_node *t = a;
        a = b, b = t;
    }
    if (a->kind != ACREF_GE || b->kind != ACREF_LE || !a->desc || !b->desc ||
        a->desc_len != b->desc_len ||
        strncasecmp(a->desc, b->desc, a->desc_len) || !indexed389(ev, a) ||
        a->int389 != b->int389)
        return 0;
    *in = range389(ev, a, b);
    return 1;
}

static int cand389(const struct ev *ev, const struct acreF_node *nd);

struct and389 {
    const struct ev *ev;
    int indexed; /* a child before gave the index a list */
};

/* One child of an AND, in the optimiser's order: 1 when it takes the
 * entry out.  389 stops intersecting once a list has ten entries or
 * fewer (FILTER_TEST_THRESHOLD) and lets the filter test do the rest; in
 * directories of that size the first list decides.  So a >= or <= item,
 * whose range of keys is not what it matches, counts only as the first
 * child with a list; other items count as the entries they match, which
 * changes which entries are tested but never the answer. */
static int
and389_kid(void *arg, const struct acreF_node *k)
{
    struct and389 *w = arg;
    int range =
        (k->kind == ACREF_GE || k->kind == ACREF_LE) && indexed389(w->ev, k);
    int listed = range || k->kind == ACREF_AND || k->kind == ACREF_OR ||
                 indexed389(w->ev, k);

    if (range && w->indexed)
        return 0;
    int out = range ? !range389(w->ev, k, NULL) : !cand389(w->ev, k);
    w->indexed |= listed;
    return out;
}

/* key389 -- does the entry have an index key nd reads? */
static int
key389(const struct ev *ev, const struct acreF_node *nd)
{
    if (nd->kind == ACREF_GE || nd->kind == ACREF_LE)
        return range389(ev, nd, NULL);
    return plain389(ev, nd) == R389_TRUE;
}

/* cand389 -- is the entry among 389's index candidates for nd? */
static int
cand389(const struct ev *ev, const struct acreF_node *nd)
{
    switch (nd->kind) {
    case ACREF_AND: {
        struct and389 w = {ev, 0};
        int in;
        if (bounded389(ev, nd, &in))
            return in;
        return !ordered(nd, and389_kid, &w);
    }
    case ACREF_OR:
        for (unsigned i = 0; i < nd->nkids; i++)
            if (cand389(ev, nd->kids[i]))
                return 1;
        return nd->nkids == 0;
    case ACREF_NOT:
    case ACREF_ABSOLUTE_TRUE:
    case ACREF_ABSOLUTE_FALSE:
        return 1;
    default:
        if (!indexed389(ev, nd))
            return 1;
        if (nd->want.nopts) {
            /* the index is the type's, options or not: an item on
             * cn;x-foo reads cn's keys, which hold every subtype's
             * values */
            struct acreF_node base = *nd;
            base.want.nopts = 0;
            return key389(ev, &base);
        }
        return key389(ev, nd);
    }
}

/* acreF_eval_389 -- see filter.h. */
enum acreF_result
acreF_eval_389(const struct acreF_filter *f, const acre_entry_view *e,
               const struct acreF_hooks *h, int optimise)
{
    struct ev ev;
    struct opt o = {{NULL}, 0, 0};
    int rc;

    if (ev_init(&ev, f, e, h))
        return ACREF_UNDEFINED;
    if (optimise && !cand389(&ev, f->root))
        return ACREF_FALSE; /* not tested: asks nothing */
    if (optimise && (f->root->kind == ACREF_AND || f->root->kind == ACREF_OR))
        opt_node(&o, f->root);
    rc = e389(&ev, &o, f->root, 0);
    return rc == R389_TRUE    ? ACREF_TRUE
           : rc == R389_FALSE ? ACREF_FALSE
                              : ACREF_UNDEFINED;
}

/* every_item -- acreF_every_item on node n, depth-first, left to right */
static int
every_item(const struct acreF_node *n,
           int (*item)(void *arg, const struct acreF_desc *d), void *arg)
{
    if (n->kind == ACREF_AND || n->kind == ACREF_OR || n->kind == ACREF_NOT ||
        n->kind == ACREF_ABSOLUTE_TRUE || n->kind == ACREF_ABSOLUTE_FALSE) {
        for (unsigned i = 0; i < n->nkids; i++)
            if (!every_item(n->kids[i], item, arg))
                return 0;
        return 1;
    }
    if (!n->desc) /* a rule-only extensible item: no attribute */
        return item(arg, NULL);
    struct acreF_desc d = {n->want.type, n->want.nopts, n->want.opts,
                           n->want.opt_len};
    return item(arg, &d);
}

/* acreF_every_item -- see filter.h. */
int
acreF_every_item(const struct acreF_filter *f,
                 int (*item)(void *arg, const struct acreF_desc *d), void *arg)
{
    return every_item(f->root, item, arg);
}
