/*
 * lint_aci.c -- acre_lint for the ACI dialect: the `aci` values of LDIF
 * files read as acre_policy_compile reads them, in lint mode
 * (compiler/aci.h: every refused value is an error and the reading goes
 * on at the next one; unknown attribute names are kept, not refused),
 * then the checks on the IR (engine/ir_aci.h).  Nothing here evaluates
 * an entry: the checks reason on targets, rights and bind rules as
 * engine/eval_aci.c decides with them (389-DS 2.3's semantics).
 *
 * Every warning is at the place of the `aci` value (or, for an unknown
 * name, of the name) and starts "entry 'DN', aci value N ("NAME"): ", as
 * the parser's errors start; the line of the value is the one a
 * "# acre-lint: disable=ID" comment right above silences.
 *
 * The checks:
 *   unknown-attribute  a name the schema does not know in targetattr,
 *                      targetfilter, userattr / userdnattr / groupdnattr,
 *                      an ($attr.NAME) macro or targattrfilters;
 *   outside-holder     a target pattern (wildcards or a ($dn) macro, not
 *                      negated) whose fixed tail no DN at or below the
 *                      holder can end with: eval_aci.c matches a pattern
 *                      by its tail at the end of the entry's normalised
 *                      DN, and only entries at or below the holder are
 *                      candidates, so the ACI never applies.  (A target
 *                      DN outside the holder is an error: 389's
 *                      ACL_INVALID_TARGET, which refuses the value when
 *                      it is added and skips it when it is loaded);
 *   shadowed-rule      an allow whose every grant a deny provably
 *                      overrides (shadows(), conservative: when in doubt,
 *                      nothing is said);
 *   public-write       an allow of write, add, delete or selfwrite whose
 *                      bind rule is true for every requester (userdn
 *                      "ldap:///anyone") or every bound one ("ldap:///all");
 *   odd-value          (389) a keyword test whose value 389 reads otherwise
 *                      than it is written (acreI_bind.odd, set by the
 *                      parser, or a URL scope it cannot read, or a
 *                      targetattr / targetfilter name by alias or OID),
 *                      said with 389's reading.
 * Cost: linear in the ACIs for all but shadowing, which probes the deny
 * perms held by each ancestor of an allow's holder (a sorted array of
 * their ancestry hashes) and compares at most MAX_PAIRS of them with it.
 */
#include "lint.h"

#include "aci.h"
#include "dn.h"
#include "internal.h"
#include "openldap_int.h"
#include "schema.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

#define MAX_PAIRS 256 /* deny perms compared with one allow perm */

#define WRITE_RIGHTS \
    (ACREI_ACI_WRITE | ACREI_ACI_ADD | ACREI_ACI_DELETE | ACREI_ACI_SELFWRITE)
/* eval_aci.c's rights that an ACI without targetattr takes for an
 * attribute */
#define NO_ATTR_RIGHTS \
    (ACREI_ACI_ADD | ACREI_ACI_DELETE | ACREI_ACI_PROXY | ACREI_ACI_MODDN)

struct al {
    struct lint *l;
    void *tmp;
    const acre_schema *schema;
    const struct acreI_aci_set *set;
};

/* ------------------------------------------------------------------------
 * Texts
 */

/* "entry 'DN', aci value N ("NAME")" under tmp (NULL: out of memory) */
static const char *
who(void *tmp, const struct acreI_aci *a)
{
    const char *t = talloc_asprintf(
        tmp, "entry '%.80s', aci value %u (\"%.60s\")", acreD_pretty(a->holder),
        a->value_index + 1, a->name ? a->name : "");
    return t; /* NULL: out of memory */
}

/* The names of rights r, ", "-separated, into buf (RIGHTS_BUF bytes:
 * enough for all of them); returns buf. */
#define RIGHTS_BUF 128

static const char *
rights_text(char *buf, unsigned r)
{
    size_t n = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < ACREI_ACI_NRNAMES; i++)
        if (r & acreI_aci_rnames[i].bit)
            n += (size_t)snprintf(buf + n, RIGHTS_BUF - n, "%s%s",
                                  n ? ", " : "", acreI_aci_rnames[i].name);
    return buf;
}

/* ------------------------------------------------------------------------
 * unknown-attribute
 */
static int
check_unknown(struct al *A, const struct acreA_lint *lint)
{
    for (unsigned k = 0; k < lint->nunk; k++) {
        const struct acreA_unknown *u = &lint->unk[k];
        const struct acreI_aci *a = &A->set->acis[u->aci];
        const char *what;
        if (!strcmp(u->where, "targetfilter"))
            what = "a filter item on it is undefined on every entry";
        else if (u->where[0] == 'a') /* an ($attr.NAME) macro */
            what = "no entry has it, so the macro matches nothing";
        else if (A->set->variant == ACREI_ACI_389 &&
                 (!strcmp(u->where, "userattr") ||
                  !strcmp(u->where, "userdnattr") ||
                  !strcmp(u->where, "groupdnattr")))
            what = "389 (and acre) read the rule as naming no one";
        else
            what = "acre refuses the aci unless the schema it is given "
                   "defines it (the rest is checked as if the name were "
                   "absent)";
        const char *w = who(A->tmp, a);
        if (w && u->first) {
            int rc = acreW_warn(
                A->l, ACREW_ODD_VALUE, &u->pos, &a->pos, NULL, NULL,
                "%s: %s names \"%s\", another name of %s: 389 compares "
                "the name as text with %s, the name its entries and "
                "filters use, so it names no attribute",
                w, u->where, u->name, u->first, u->first);
            if (rc)
                return rc;
            continue;
        }
        int rc = !w ? ACRE_ERR_NOMEM
                    : acreW_warn(A->l, ACREW_UNKNOWN_ATTRIBUTE, &u->pos,
                                 &a->pos, NULL, NULL,
                                 "%s: %s names \"%s\", which no schema "
                                 "loaded here defines: %s",
                                 w, u->where, u->name, what);
        if (rc)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * outside-holder
 */

/* Does s[0..n) end with t[0..m), case-insensitively? */
static int
ends_with(const char *s, size_t n, const char *t, size_t m)
{
    return m <= n && !strncasecmp(s + n - m, t, m);
}

/* The fixed tail of target pattern text p: what follows its last '*'
 * (its "($dn)" macro and the ',' after it); *m its length, 0 when none. */
static const char *
tail_of(const struct acreI_aci_dnpat *t, size_t *m)
{
    const char *p = t->text, *e = p + t->len, *star = NULL;

    if (t->flags & ACREI_ACI_MACRO_DN) {
        const char *mac = strstr(p, "($dn)");
        if (!mac)
            return *m = 0, p;
        star = mac + 4;
        if (star + 1 < e && star[1] == ',')
            star++;
    }
    for (const char *c = star ? star : p; c < e; c++)
        if (*c == '*')
            star = c;
    if (!star)
        return *m = 0, p;
    *m = (size_t)(e - star - 1);
    return star + 1;
}

static int
check_outside(struct al *A, const struct acreI_aci *a)
{
    const struct acreI_aci_target *t = &a->t;
    size_t hn, m;

    if (!(t->has & ACREI_ACI_T_TARGET) || t->target_neg ||
        t->target.kind != ACREI_ACI_PAT_PATTERN ||
        acre_dn_depth(a->holder) == 0)
        return 0;
    const char *tail = tail_of(&t->target, &m);
    const char *h = acre_dn_normalised(a->holder, &hn);
    if (!m || !h)
        return 0;
    /* a DN at or below the holder ends with h; one that also ends with
     * the tail exists when either ends the other ("," + h inside the
     * tail, or the tail inside h) */
    if (ends_with(h, hn, tail, m) ||
        (m > hn && ends_with(tail, m, h, hn) && tail[m - hn - 1] == ','))
        return 0;
    int comma = tail[0] == ',';
    const char *w = who(A->tmp, a);
    if (!w)
        return ACRE_ERR_NOMEM;
    return acreW_warn(A->l, ACREW_OUTSIDE_HOLDER, &a->pos, &a->pos, NULL, NULL,
                      "%s: no entry at or below the entry holding the aci "
                      "matches its target \"ldap:///%s\" (each DN it matches "
                      "ends with \"%.*s\"): the aci never applies",
                      w, t->target.text, (int)(m - comma), tail + comma);
}

/* ------------------------------------------------------------------------
 * public-write
 */

/* For whom bind rule b is surely true: 2 every requester (anonymous
 * ones included), 1 every bound requester, 0 not surely anyone. */
static int
public_level(const struct acreI_bind *b)
{
    int x, y, lv = 0;

    if (!b)
        return 0;
    switch (b->kw) {
    case ACREI_ACI_OR:
        x = public_level(b->a);
        y = public_level(b->b);
        return x > y ? x : y;
    case ACREI_ACI_AND:
        x = public_level(b->a);
        y = public_level(b->b);
        return x < y ? x : y;
    case ACREI_ACI_USERDN:
        if (b->op != ACREI_ACI_EQ)
            return 0;
        for (unsigned i = 0; i < b->nterms; i++) {
            int k = b->terms[i].kind == ACREI_ACI_S_ANYONE ? 2
                    : b->terms[i].kind == ACREI_ACI_S_ALL  ? 1
                                                           : 0;
            lv = k > lv ? k : lv;
        }
        return lv;
    default:
        return 0;
    }
}

static int
check_public(struct al *A, const struct acreI_aci *a)
{
    for (unsigned k = 0; k < a->nperms; k++) {
        const struct acreI_aci_perm *pm = &a->perms[k];
        unsigned w = pm->rights & WRITE_RIGHTS;
        int lv = pm->deny || !w ? 0 : public_level(pm->bind);
        if (!lv)
            continue;
        if (w & ACREI_ACI_SELFWRITE)
            w &= ~ACREI_ACI_WRITE; /* selfwrite carries the write bit */
        if ((pm->rights & ACREI_ACI_ALL) == ACREI_ACI_ALL)
            w = 0;
        const char *wh = who(A->tmp, a);
        char buf[RIGHTS_BUF];
        const char *rt = w ? rights_text(buf, w) : "all rights";
        if (!wh || !rt)
            return ACRE_ERR_NOMEM;
        int rc = acreW_warn(
            A->l, ACREW_PUBLIC_WRITE, &a->pos, &a->pos, NULL, NULL,
            "%s: grants %s to %s", wh, rt,
            lv == 2 ? "every requester, anonymous ones included "
                      "(userdn=\"ldap:///anyone\")"
                    : "every bound requester (userdn=\"ldap:///all\")");
        if (rc)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * odd-value
 */

#define INVALID_WORDS "Invalid, neither an allow nor a deny applies through it"

/* 389's reading of b, into a talloc string under tmp (NULL: no memory) */
static char *
odd_reading(void *tmp, const struct acreI_bind *b)
{
    static const char *const days[] = {"sun", "mon", "tue", "wed",
                                       "thu", "fri", "sat"};
    char *t = talloc_strdup(tmp, "");

    switch (b->odd) {
    case ACREI_ODD_ORDER:
        /* DS_LASRoleDnEval; LASIpEval, LASDnsEval, LASDayOfWeekEval;
         * __acllas_setup's other callers */
        return talloc_asprintf(
            tmp, "389 evaluates this keyword only with = and !=: %s",
            acreI_aci_order_answer(b->kw) == ACREI_ORDER_FALSE ? "False"
            : acreI_aci_order_answer(b->kw) == ACREI_ORDER_INVALID
                ? INVALID_WORDS
                : "Undefined, an allow never applies through it and a deny "
                  "denies");
    case ACREI_ODD_IPNEVER:
        return talloc_strdup(tmp, "389 never evaluates it (it does not start "
                                  "with an address): " INVALID_WORDS);
    case ACREI_ODD_SSF:
        return talloc_asprintf(tmp, "389 reads it as ssf %ld", b->num);
    case ACREI_ODD_DAYS:
        for (unsigned d = 0; t && d < 7; d++)
            if (b->days & (1u << d))
                t = talloc_asprintf_append(t, "%s%s", *t ? "," : "", days[d]);
        return t ? talloc_asprintf(tmp, "389 reads it as %s",
                                   *t ? t : "no day at all")
                 : NULL;
    case ACREI_ODD_NOHASH:
        return talloc_strdup(tmp, "389 never evaluates a userattr without "
                                  "'#': Undefined");
    case ACREI_ODD_LEVELS:
        for (unsigned l = 0; t && l < 32; l++)
            if (b->levels & (1u << l))
                t = talloc_asprintf_append(t, "%s%u", *t ? "," : "", l);
        return t ? talloc_asprintf(tmp,
                                   "389 cuts it at '[', ']', ',' and '.': "
                                   "levels %s%s",
                                   t, b->attr < 0 ? ", on no attribute" : "")
                 : NULL;
    case ACREI_ODD_IP:
        for (unsigned i = 0; t && i < b->naddrs; i++) {
            const struct acreI_aci_addr *a = &b->addrs[i];
            char buf[64];
            unsigned n = a->family == 4 ? 4 : 16, bits = 0;
            for (unsigned k = 0; k < n; k++)
                bits += (unsigned)__builtin_popcount(a->mask[k]);
            if (!inet_ntop(a->family == 4 ? AF_INET : AF_INET6, a->addr, buf,
                           sizeof buf))
                snprintf(buf, sizeof buf, "?");
            t = talloc_asprintf_append(t, "%s%s/%u", i ? ", " : "", buf, bits);
        }
        return t ? talloc_asprintf(tmp,
                                   "389 reads it as the prefixes %s, added in "
                                   "turn to a tree where a longer one cuts an "
                                   "earlier, shorter one",
                                   *t ? t : "(none)")
                 : NULL;
    default:
        return t;
    }
}

static int
odd_walk(struct al *A, const struct acreI_aci *a, const struct acreI_bind *b,
         unsigned depth)
{
    int rc = 0;

    if (!b || depth > 64)
        return 0;
    if (b->kw == ACREI_ACI_AND || b->kw == ACREI_ACI_OR)
        return (rc = odd_walk(A, a, b->a, depth + 1))
                   ? rc
                   : odd_walk(A, a, b->b, depth + 1);
    if (b->kw == ACREI_ACI_NOT)
        return odd_walk(A, a, b->a, depth + 1);
    const char *w = who(A->tmp, a);
    if (!w)
        return ACRE_ERR_NOMEM;
    for (unsigned i = 0; !rc && i < b->nterms; i++) {
        const struct acreI_aci_term *t = &b->terms[i];
        if (t->kind != ACREI_ACI_S_URL || t->scope >= 0)
            continue;
        const char *url = t->url ? t->url : "", *q = strchr(url, '?');
        if (!memchr(url, '=', q ? (size_t)(q - url) : strlen(url))) /* base */
            rc = acreW_warn(A->l, ACREW_ODD_VALUE, &b->pos, &a->pos, NULL, NULL,
                            "%s: \"ldap:///%.80s\" is no DN (it has no '='): "
                            "389 compares it with DNs, so it names no one",
                            w, t->url);
        else
            rc = acreW_warn(A->l, ACREW_ODD_VALUE, &b->pos, &a->pos, NULL, NULL,
                            "%s: the LDAP URL \"ldap:///%.80s\" has a scope "
                            "389 cannot read: it names no one",
                            w, t->url ? t->url : "");
    }
    if (rc || !b->odd)
        return rc;
    static const char *const kw[] = {
        "",           "",       "",         "",           "userdn",
        "groupdn",    "roledn", "userattr", "userdnattr", "groupdnattr",
        "authmethod", "ssf",    "ip",       "dns",        "dayofweek",
        "timeofday"};
    const char *r = odd_reading(A->tmp, b);
    if (!r)
        return ACRE_ERR_NOMEM;
    return acreW_warn(A->l, ACREW_ODD_VALUE, &b->pos, &a->pos, NULL, NULL,
                      "%s: %s%s%s%.80s%s: %s", w,
                      b->kw <= ACREI_ACI_TIMEOFDAY ? kw[b->kw] : "?",
                      b->op == ACREI_ACI_GE   ? " >="
                      : b->op == ACREI_ACI_LE ? " <="
                                              : "",
                      b->kw == ACREI_ACI_IP && b->text ? "=\"" : "",
                      b->kw == ACREI_ACI_IP && b->text ? b->text : "",
                      b->kw == ACREI_ACI_IP && b->text ? "\"" : "", r);
}

static int
check_odd(struct al *A, const struct acreI_aci *a)
{
    int rc = 0;

    if ((a->t.has & ACREI_ACI_T_TARGET) &&
        a->t.target.kind == ACREI_ACI_PAT_NONE) {
        const char *w = who(A->tmp, a);
        if (!w)
            return ACRE_ERR_NOMEM;
        rc = acreW_warn(A->l, ACREW_ODD_VALUE, &a->pos, &a->pos, NULL, NULL,
                        "%s: target \"ldap:///%.80s\" is no DN acre can "
                        "read: 389 stores it as one no entry is under, so "
                        "the aci applies %s",
                        w, a->t.target.text,
                        a->t.target_neg ? "everywhere in its subtree"
                                        : "nowhere");
    }
    for (unsigned k = 0; !rc && k < a->nperms; k++)
        rc = odd_walk(A, a, a->perms[k].bind, 0);
    return rc;
}

/* ------------------------------------------------------------------------
 * shadowed-rule: an allow perm A of ACI a that a deny perm D of ACI d
 * overrides wherever A grants, as eval_aci.c decides (deny first):
 *   - d is held by a's holder or an ancestor (not the root DSE unless a
 *     is: its ACIs do not apply below it);
 *   - D's rights include A's;
 *   - D's bind rule is surely True whenever A's is: the same rule, or a
 *     userdn whose first term is ldap:///anyone (in and / or with such
 *     rules) -- first, so that 389's anonymous profile, which a deny on
 *     anyone turns off, cannot grant past it;
 *   - d's targets take every entry a's take: d has no targets but
 *     target, targetattr and targetfilter; its target is none, a DN
 *     above a's target (or holder), or the same as a's; its
 *     targetfilter, if any, the same text as a's; with a macro on
 *     either side, the same holder and target;
 *   - d takes every attribute (and entry-level check) a takes: neither
 *     has targetattr (then d's ACI also has a right that takes
 *     attributes without one when a's has; and a's ACI has no read
 *     right: eval_aci.c's entry_denied, 389's check of the entry itself,
 *     hides an entry by a deny without targetattr whatever its bind rule
 *     when no allow without targetattr for read is there, so such an
 *     allow matters by being there even when it grants nothing); or
 *     both have, d's list
 *     covers a's (attrs_cover) and, when A grants write, d's ACI has an
 *     allow too (an ACI with targetattr takes the entry itself only for
 *     write and only when it allows);
 *   - neither ACI had an unknown attribute name read as absent.
 */

struct dperm {
    uint64_t h; /* ancestry hash of the holder */
    const struct acreI_aci *a;
    unsigned k;
};

static int
cmp_dperm(const void *x, const void *y)
{
    uint64_t a = ((const struct dperm *)x)->h, b = ((const struct dperm *)y)->h;

    return a < b ? -1 : a > b;
}

static int
same_term(const struct acreI_aci_term *x, const struct acreI_aci_term *y)
{
    if (x->kind != y->kind || x->scope != y->scope ||
        x->pat.kind != y->pat.kind || x->pat.flags != y->pat.flags)
        return 0;
    if (x->kind == ACREI_ACI_S_URL)
        return x->url && y->url && !strcmp(x->url, y->url);
    if (x->pat.kind == ACREI_ACI_PAT_DN)
        return acre_dn_equal(x->pat.dn, y->pat.dn);
    if (x->pat.kind == ACREI_ACI_PAT_PATTERN)
        return x->pat.len == y->pat.len &&
               !memcmp(x->pat.text, y->pat.text, x->pat.len);
    return 1; /* anyone, all, self, parent */
}

static int
same_text(const char *x, const char *y)
{
    return x == y || (x && y && !strcmp(x, y));
}

/* Are bind rules x and y the same rule (so the same outcome)? */
static int
same_bind(const struct acreI_bind *x, const struct acreI_bind *y)
{
    if (!x || !y)
        return x == y;
    if (x->kw != y->kw || x->op != y->op)
        return 0;
    switch (x->kw) {
    case ACREI_ACI_AND:
    case ACREI_ACI_OR:
        return same_bind(x->a, y->a) && same_bind(x->b, y->b);
    case ACREI_ACI_NOT:
        return same_bind(x->a, y->a);
    case ACREI_ACI_USERDN:
    case ACREI_ACI_GROUPDN:
    case ACREI_ACI_ROLEDN:
        if (x->nterms != y->nterms)
            return 0;
        for (unsigned i = 0; i < x->nterms; i++)
            if (!same_term(&x->terms[i], &y->terms[i]))
                return 0;
        return 1;
    case ACREI_ACI_USERATTR:
    case ACREI_ACI_USERDNATTR:
    case ACREI_ACI_GROUPDNATTR:
        return x->attr == y->attr && x->uakind == y->uakind &&
               x->levels == y->levels && x->value_len == y->value_len &&
               (!x->value_len || !memcmp(x->value, y->value, x->value_len));
    case ACREI_ACI_AUTHMETHOD:
    case ACREI_ACI_DNS:
        return same_text(x->text, y->text);
    case ACREI_ACI_SSF:
        return x->num == y->num;
    case ACREI_ACI_TIMEOFDAY:
        return x->num == y->num && x->tod == y->tod &&
               (x->tod != ACREI_TOD_RANGE || x->num_end == y->num_end);
    case ACREI_ACI_DAYOFWEEK:
        return x->days == y->days;
    case ACREI_ACI_IP:
        return x->naddrs == y->naddrs &&
               !memcmp(x->addrs, y->addrs, x->naddrs * sizeof(*x->addrs));
    default:
        return 0;
    }
}

/* Is bind rule b surely True for every requester (see above)? */
static int
always_true(const struct acreI_bind *b)
{
    if (!b)
        return 0;
    switch (b->kw) {
    case ACREI_ACI_OR:
        return always_true(b->a) || always_true(b->b);
    case ACREI_ACI_AND:
        return always_true(b->a) && always_true(b->b);
    case ACREI_ACI_USERDN:
        return b->op == ACREI_ACI_EQ && b->nterms &&
               b->terms[0].kind == ACREI_ACI_S_ANYONE;
    default:
        return 0;
    }
}

static int
same_target(const struct acreI_aci_target *x, const struct acreI_aci_target *y)
{
    int hx = (x->has & ACREI_ACI_T_TARGET) != 0;

    if (hx != ((y->has & ACREI_ACI_T_TARGET) != 0))
        return 0;
    if (!hx)
        return 1;
    if (x->target_neg != y->target_neg || x->target.kind != y->target.kind)
        return 0;
    if (x->target.kind == ACREI_ACI_PAT_DN)
        return acre_dn_equal(x->target.dn, y->target.dn);
    return x->target.len == y->target.len &&
           !memcmp(x->target.text, y->target.text, x->target.len);
}

/* The type of description id (its own id for a type). */
static int
base_type(const acre_schema *s, int id)
{
    const struct acreS_dinfo *d = id >= 0 ? acreS_desc_of(s, id) : NULL;

    return d ? d->type : id;
}

static int
has_id(const struct acreI_aci_target *t, int id)
{
    for (unsigned i = 0; i < t->nattrs; i++)
        if (t->attrs[i] == id)
            return 1;
    return 0;
}

/* Does d's targetattr take every attribute a's takes (as eval_aci.c's
 * attr_match compares them)? */
static int
attrs_cover(const acre_schema *s, const struct acreI_aci_target *ta,
            const struct acreI_aci_target *td)
{
    if (td->attr_star && !td->attr_neg && !td->attr_plus)
        return 1;
    if (td->attr_star || td->attr_plus || ta->attr_star || ta->attr_plus)
        return 0;
    if (!ta->attr_neg && !td->attr_neg) { /* a's names among d's */
        if (ta->nattr_pat)
            return 0;
        for (unsigned i = 0; i < ta->nattrs; i++)
            if (!has_id(td, ta->attrs[i]))
                return 0;
        return 1;
    }
    if (!ta->attr_neg && td->attr_neg) { /* no type both name */
        if (ta->nattr_pat || td->nattr_pat)
            return 0;
        for (unsigned i = 0; i < ta->nattrs; i++)
            for (unsigned j = 0; j < td->nattrs; j++)
                if (base_type(s, ta->attrs[i]) == base_type(s, td->attrs[j]))
                    return 0;
        return 1;
    }
    if (ta->attr_neg && td->attr_neg) { /* d excludes only plain types
                                           that a excludes too */
        if (td->nattr_pat)
            return 0;
        for (unsigned j = 0; j < td->nattrs; j++)
            if (td->attrs[j] < 0 || (unsigned)td->attrs[j] >= acreS_nattrs(s) ||
                !has_id(ta, td->attrs[j]))
                return 0;
        return 1;
    }
    return 0;
}

static unsigned
aci_rights(const struct acreI_aci *a, int *any_allow)
{
    unsigned r = 0;

    *any_allow = 0;
    for (unsigned k = 0; k < a->nperms; k++) {
        r |= a->perms[k].rights;
        *any_allow |= !a->perms[k].deny;
    }
    return r;
}

static int
targets_cover(const struct acreI_aci *a, const struct acreI_aci *d)
{
    const struct acreI_aci_target *ta = &a->t, *td = &d->t;
    const unsigned ok =
        ACREI_ACI_T_TARGET | ACREI_ACI_T_ATTR | ACREI_ACI_T_FILTER;

    if (td->has & ~ok)
        return 0;
    if ((a->flags | d->flags) & ACREI_ACI_F_MACRO) {
        if (!acre_dn_equal(a->holder, d->holder) || !same_target(ta, td))
            return 0;
    } else if ((td->has & ACREI_ACI_T_TARGET) && !same_target(ta, td)) {
        if (td->target_neg || td->target.kind != ACREI_ACI_PAT_DN)
            return 0;
        const acre_dn *base = a->holder; /* a takes nothing outside */
        if ((ta->has & ACREI_ACI_T_TARGET) && !ta->target_neg &&
            ta->target.kind == ACREI_ACI_PAT_DN)
            base = ta->target.dn;
        if (acre_dn_in_scope(base, td->target.dn, ACRE_SCOPE_SUB) != 1)
            return 0;
    }
    if (td->has & ACREI_ACI_T_FILTER)
        return (ta->has & ACREI_ACI_T_FILTER) &&
               ta->filter_neg == td->filter_neg &&
               same_text(ta->filter_text, td->filter_text);
    return 1;
}

static int
shadows(const acre_schema *s, const struct acreI_aci *a, unsigned ka,
        const struct acreI_aci *d, unsigned kd)
{
    const struct acreI_aci_perm *A = &a->perms[ka], *D = &d->perms[kd];
    int ha = (a->t.has & ACREI_ACI_T_ATTR) != 0;
    int hd = (d->t.has & ACREI_ACI_T_ATTR) != 0;
    int a_allow, d_allow;
    unsigned ra = aci_rights(a, &a_allow), rd = aci_rights(d, &d_allow);

    if ((d->flags & ACREI_ACI_F_UNKNOWN) ||
        (D->rights & A->rights) != A->rights)
        return 0;
    if (acre_dn_depth(d->holder) == 0 && acre_dn_depth(a->holder) != 0)
        return 0;
    if (!always_true(D->bind) && !same_bind(A->bind, D->bind))
        return 0;
    if (!targets_cover(a, d) || ha != hd)
        return 0;
    if (!ha) /* (entry_denied: an allow without targetattr for read
                changes what a deny hides by being there) */
        return !(ra & ACREI_ACI_READ) &&
               (!(ra & NO_ATTR_RIGHTS) || (rd & NO_ATTR_RIGHTS));
    if ((A->rights & ACREI_ACI_WRITE) && !d_allow)
        return 0;
    return attrs_cover(s, &a->t, &d->t);
}

static int
report_shadow(struct al *A, const struct acreI_aci *a, unsigned ka,
              const struct acreI_aci *d, unsigned kd)
{
    char ra[RIGHTS_BUF], rd[RIGHTS_BUF];
    const char *wa = who(A->tmp, a), *wd = who(A->tmp, d);
    const char *note =
        wd ? talloc_asprintf(A->tmp, "%s: this deny (%s) overrides it", wd,
                             rights_text(rd, d->perms[kd].rights))
           : NULL;

    rights_text(ra, a->perms[ka].rights);
    if (!wa || !note)
        return ACRE_ERR_NOMEM;
    return acreW_warn(A->l, ACREW_SHADOWED_RULE, &a->pos, &a->pos, &d->pos,
                      note,
                      "%s: this allow (%s) never grants anything: a deny "
                      "covering its targets, rights and bind rule overrides "
                      "it",
                      wa, ra);
}

/* The deny perm that shadows allow perm ka of a, NULL when none. */
static const struct dperm *
shadower(struct al *A, const struct dperm *v, size_t n,
         const struct acreI_aci *a, unsigned ka)
{
    unsigned depth = acre_dn_depth(a->holder), tried = 0;
    const uint64_t *h = acreD_h(a->holder);

    for (unsigned i = depth + 1; i-- > 0 && tried < MAX_PAIRS;) {
        size_t lo = 0, hi = n;
        while (lo < hi) { /* the first at or after h[i] */
            size_t mid = lo + (hi - lo) / 2;
            if (v[mid].h < h[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        for (; lo < n && v[lo].h == h[i] && tried < MAX_PAIRS; lo++) {
            const struct dperm *c = &v[lo];
            tried++;
            if (acre_dn_depth(c->a->holder) == i &&
                acre_dn_in_scope(a->holder, c->a->holder, ACRE_SCOPE_SUB) ==
                    1 &&
                shadows(A->schema, a, ka, c->a, c->k))
                return c;
        }
    }
    return NULL;
}

static int
check_shadowed(struct al *A)
{
    const struct acreI_aci_set *set = A->set;
    size_t n = 0;

    for (unsigned i = 0; i < set->n; i++)
        for (unsigned k = 0; k < set->acis[i].nperms; k++)
            n += set->acis[i].perms[k].deny != 0;
    if (!n)
        return 0;
    struct dperm *v = talloc_array(A->tmp, struct dperm, n);
    if (!v)
        return ACRE_ERR_NOMEM;
    n = 0;
    for (unsigned i = 0; i < set->n; i++) {
        const struct acreI_aci *d = &set->acis[i];
        for (unsigned k = 0; k < d->nperms; k++)
            if (d->perms[k].deny)
                v[n++] = (struct dperm){
                    acreD_h(d->holder)[acre_dn_depth(d->holder)], d, k};
    }
    qsort(v, n, sizeof(v[0]), cmp_dperm);
    for (unsigned i = 0; i < set->n; i++) {
        const struct acreI_aci *a = &set->acis[i];
        if (a->flags & ACREI_ACI_F_UNKNOWN)
            continue;
        for (unsigned k = 0; k < a->nperms; k++) {
            if (a->perms[k].deny)
                continue;
            const struct dperm *c = shadower(A, v, n, a, k);
            int rc = c ? report_shadow(A, a, k, c->a, c->k) : 0;
            if (rc)
                return rc;
        }
    }
    talloc_free(v);
    return 0;
}

/* ------------------------------------------------------------------------
 * Reading
 */

/* One ACI source: its IR in *one (NULL when it could not be read at
 * all, the error already reported). */
static int
read_one(struct al *A, acre_schema *schema, const acre_source *src, int variant,
         struct acreA_lint *lint, struct acreI_policy **one)
{
    const char *path = acreO_file_name(src->path);
    const char *text = src->text;
    size_t len = src->len;
    char *buf = NULL;
    acre_diag d;

    *one = NULL;
    if (src->path && !path)
        return ACRE_ERR_NOMEM;
    memset(&d, 0, sizeof(d));
    if (!text) {
        int rc = acreO_read_file(A->tmp, src->path, &buf, &len, &d);
        if (rc == ACRE_ERR_NOMEM)
            return rc;
        if (rc)
            return acreW_error(A->l, src->path, &d) ? ACRE_ERR_NOMEM : 0;
        text = buf;
    }
    unsigned nerrs = lint->nerrs;
    int rc = acreA_parse_ldif_lint(A->tmp, schema, path, text, len, variant,
                                   lint, one);
    talloc_free(buf);
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc && lint->nerrs == nerrs) { /* refused, but said nothing */
        memset(&d, 0, sizeof(d));
        d.code = rc;
        d.file = path;
        snprintf(d.message, sizeof(d.message), "%s", acre_strerror(rc));
        return acreW_error(A->l, src->path, &d) ? ACRE_ERR_NOMEM : 0;
    }
    return 0;
}

/* acreW_aci -- see lint.h. */
int
acreW_aci(struct lint *l, void *tmp, const acre_source *src, size_t n,
          int variant, const struct acreI_policy **cfg)
{
    struct al A = {l, tmp, NULL, NULL};
    struct acreA_lint lint = {tmp, NULL, 0, NULL, 0};
    struct acreI_policy *ir = NULL;
    struct acreI_aci_set *set = talloc_zero(tmp, struct acreI_aci_set);
    struct acreI_lintmark *marks = NULL;
    unsigned nmarks = 0;
    acre_schema *schema;
    acre_diag d;
    int failed = 0, rc;

    *cfg = NULL;
    if (!set)
        return ACRE_ERR_NOMEM;
    if ((rc = acre_schema_new(
             tmp,
             ACRE_SCHEMA_SYNTAX_MATCH |
                 (variant == ACREI_ACI_OPENDJ ? 0u : ACRE_SCHEMA_389),
             &schema, &d)))
        return rc;
    set->variant = variant;
    for (size_t i = 0; i < n; i++) {
        struct acreI_policy *one;
        unsigned first = lint.nunk;
        if (src[i].dialect != ACRE_DIALECT_ACI)
            continue;
        if ((rc = read_one(&A, schema, &src[i], variant, &lint, &one)))
            return rc;
        if (!one) {
            failed = 1;
            continue;
        }
        if (!ir) {
            ir = one;
            schema = (acre_schema *)ir->schema;
        }
        const struct acreI_aci_set *os = one->aci;
        struct acreI_aci *v =
            talloc_realloc(tmp, (struct acreI_aci *)set->acis, struct acreI_aci,
                           set->n + os->n + 1);
        struct acreI_lintmark *m = talloc_realloc(
            tmp, marks, struct acreI_lintmark, nmarks + one->nlintmarks + 1);
        if (!v || !m)
            return ACRE_ERR_NOMEM;
        if (os->n) /* (no memcpy from a NULL array) */
            memcpy(v + set->n, os->acis, os->n * sizeof(*v));
        if (one->nlintmarks)
            memcpy(m + nmarks, one->lintmarks, one->nlintmarks * sizeof(*m));
        for (unsigned k = first; k < lint.nunk; k++)
            lint.unk[k].aci += set->n;
        set->acis = v;
        set->n += os->n;
        marks = m;
        nmarks += one->nlintmarks;
    }
    for (unsigned k = 0; k < lint.nerrs; k++)
        if (acreW_error(l, NULL, &lint.errs[k]))
            return ACRE_ERR_NOMEM;
    if (failed || lint.nerrs || !ir)
        return 0;
    ir->aci = set;
    ir->lintmarks = marks;
    ir->nlintmarks = nmarks;
    A.schema = ir->schema;
    A.set = set;
    if ((rc = check_unknown(&A, &lint)))
        return rc;
    for (unsigned i = 0; i < set->n; i++) {
        if ((rc = check_outside(&A, &set->acis[i])) ||
            (rc = check_public(&A, &set->acis[i])) ||
            (rc = check_odd(&A, &set->acis[i])))
            return rc;
    }
    if ((rc = check_shadowed(&A)))
        return rc;
    *cfg = ir;
    return 0;
}
