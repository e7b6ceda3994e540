/*
 * aci_parse.c -- one `aci` value: its parenthesised parts, the targets,
 * then the ACL text handed to aci_bind.c.
 *
 * Read the way 389-DS 2.3 reads it (plugins/acl/aclparse.c, acl_parse and
 * __aclp__parse_aci; what follows was checked against that source):
 *   - the value is a run of "(...)" groups, each closed at its matching
 *     parenthesis counted as slapi_find_matching_paren does (a backslash
 *     escapes the next byte; quotes do not protect parentheses); spaces
 *     may separate them; a value not starting with '(' is refused, and
 *     text after the last group that does not start with '(' is ignored,
 *     as 389 ignores it;
 *   - a group starting with 'v' is the ACL text (one is needed; 389
 *     takes several: it evaluates the last, with the rights and kinds of
 *     all, acreI_aci.xperms);
 *     one starting with a target keyword is a target; anything else is an
 *     error.  Target keywords are lowercase, as 389 compares them with
 *     strncmp: target, targetattr, targetfilter, targattrfilters,
 *     target_to, target_from; each at most once; "!=" negates (not for
 *     targattrfilters: 389 takes "!=" there as "="); a second '=' right
 *     after the operator is refused;
 *     a value starting with '"' must end with one;
 *   - target / target_to / target_from: "ldap:///DN" or "ldaps:///DN"; a
 *     target DN (no wildcard, no macro) must be the holder or below it
 *     (389's ACL_INVALID_TARGET); the only macro of a target is ($dn)
 *     (acl_check_for_target_macro; 389 would read "[$dn]" or
 *     "($attr.X)" there as literal DN text: refused here);
 *   - targetattr: names split on "||", each a known attribute type (389:
 *     slapi_attr_syntax_exists; options allowed), "*", or a name with '*'
 *     (kept as a pattern);
 *   - targetfilter: quotes and a trailing ',' taken off, then an RFC 4515
 *     filter (outer parentheses optional); a ($dn) / [$dn] macro in it
 *     needs a macro target given before it (389 checks in that order);
 *     a macro filter is kept as text only;
 *   - 389 has no targetscope, targetcontrol or extop: they are errors
 *     (its "target" prefix test sends them to the target parser, which
 *     refuses them); the OpenDJ variant accepts all three.
 * A word that only starts with a keyword is that keyword under the 389
 * variant (389's strncmp test, in its order: targattrfilters,
 * targetattr, targetfilter, target_to, target_from, target), what
 * follows it up to the first '=' is skipped; OpenDJ wants the whole
 * word.  Kept stricter than 389 on purpose: unknown keywords in the ACL
 * text are errors.
 *
 * Invariants: a value is at most ACREA_MAX_VALUE bytes and NUL-free; the
 * work is linear in it; everything is built under a scratch context and
 * stolen into the caller's only on success.
 */
#include "aci.h"
#include "internal.h"

#include "dn.h"
#include "filter.h"
#include "schema.h"

#include <string.h>
#include <strings.h>
#include <talloc.h>

/* The byte after the matching ')' of the '(' at s[i], 0 when none. */
static size_t
matching_paren(const char *s, size_t n, size_t i)
{
    int depth = 0, esc = 0;

    for (; i < n; i++) {
        if (!esc) {
            if (s[i] == '(')
                depth++;
            else if (s[i] == ')')
                depth--;
        }
        if (depth == 0)
            return i + 1;
        esc = s[i] == '\\' && !esc;
    }
    return 0;
}

static int
is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A target's operator and value: s[a..b) is after the keyword. */
struct tval {
    int neg;
    size_t off; /* of the value (inside the quotes) */
    size_t n;
};

static int
target_value(struct acreA_p *p, size_t a, size_t b, int neg_ok, struct tval *v)
{
    const char *s = p->s;

    while (a < b && is_space(s[a]))
        a++;
    v->neg = a + 1 < b && s[a] == '!' && s[a + 1] == '=';
    if (v->neg && !neg_ok)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, a,
                         "\"!=\" is not allowed for this target");
    if (!v->neg && (a >= b || s[a] != '='))
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, a,
                         "expected '=' or \"!=\" after the target keyword");
    a += v->neg ? 2 : 1;
    if (a < b && s[a] == '=')
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, a,
                         "more than one '=' between a target keyword and "
                         "its value");
    while (a < b && is_space(s[a]))
        a++;
    while (b > a && is_space(s[b - 1]))
        b--;
    if (a < b && s[a] == '"') {
        if (b - a < 2 || s[b - 1] != '"')
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, a,
                             "a value starting with '\"' must end with one");
        a++;
        b--;
    }
    v->off = a;
    v->n = b - a;
    return 0;
}

/*
 * no_entry -- a 389 target s[0..n) (at byte off) that acreA_dnpat does
 * not take: a macro other than ($dn) ("($foo)", "[$dn]",
 * "($attr.cn)"), or an RDN 389's normaliser passes without an '='.  389
 * stores it when its normaliser passes it (acreA_norm389) and the text
 * ends in a DN under the holder (acl_verify_syntax), and makes it a DN
 * whose subtree holds no entry: *out becomes ACREI_ACI_PAT_NONE.  A
 * wildcard or a ($dn) with it stays refused (389 reads those otherwise):
 * 1 then, for acreA_dnpat's own error.  0, or an error.
 */
static int
no_entry(struct acreA_p *p, size_t off, const char *s, size_t n,
         struct acreI_aci_dnpat *out)
{
    const char *why = NULL;
    size_t bad = acreA_norm389(s, n, &why);
    struct acreI_aci_dnpat tail;
    acre_diag *d = p->diag;
    int under = 0;

    if (bad < n)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off + bad,
                         "389-DS refuses this target: its DN normaliser "
                         "finds %s",
                         why);
    char *text = talloc_strndup(p->ctx, s, n);
    if (!text)
        return ACRE_ERR_NOMEM;
    if (strchr(text, '*') || strcasestr(text, "($dn)"))
        return 1; /* not one: acreA_dnpat's own error */
    p->diag = NULL;
    for (size_t i = 0; !under && i < n; i++)
        if (s[i] == ',' || s[i] == ';') {
            size_t b = i + 1;
            while (b < n && s[b] == ' ')
                b++;
            int rc = acreA_dnpat(p, off + b, s + b, n - b, 0, &tail);
            if (rc == ACRE_ERR_NOMEM) {
                p->diag = d;
                return rc; /* fail closed, and say why */
            }
            under = !rc && tail.kind == ACREI_ACI_PAT_DN &&
                    (!p->holder ||
                     acre_dn_in_scope(tail.dn, p->holder, ACRE_SCOPE_SUB));
        }
    p->diag = d;
    if (!under)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off,
                         "the target is not under the entry holding the aci "
                         "(389-DS refuses it as an invalid target)");
    memset(out, 0, sizeof *out);
    out->kind = ACREI_ACI_PAT_NONE;
    out->text = text;
    out->len = n;
    return 0;
}

/* target, target_to, target_from: "ldap:///DN" */
static int
target_dn(struct acreA_p *p, const struct tval *v, int macros,
          struct acreI_aci_dnpat *out)
{
    const char *s = p->s + v->off;
    size_t k = acreA_url_prefix(s, v->n);

    if (!k)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, v->off,
                         "a target must be \"ldap:///DN\"");
    size_t a = k;
    while (a < v->n && s[a] == ' ')
        a++;
    acre_diag *d = p->diag;
    int lenient = macros && p->variant == ACREI_ACI_389;
    if (p->variant == ACREI_ACI_389 && memchr(s + a, '*', v->n - a)) {
        /* 389 normalises the text, then makes it a substring filter
         * over the entry's DN; "*" alone is a presence filter, which it
         * refuses for a target */
        const char *why = NULL;
        size_t bad = acreA_norm389(s + a, v->n - a, &why);
        if (bad < v->n - a)
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, v->off + a + bad,
                             "389-DS refuses this target: its DN "
                             "normaliser finds %s",
                             why);
        if (v->n - a == 1)
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, v->off + a,
                             "389-DS refuses a target \"ldap:///*\" (a "
                             "presence filter)");
        p->subject_pat = 1;
    }
    if (lenient)
        p->diag = NULL; /* no_entry may take what acreA_dnpat refuses */
    int rc = acreA_dnpat(p, v->off + a, s + a, v->n - a, macros, out);
    p->subject_pat = 0;
    p->diag = d;
    if (lenient &&
        (rc == ACRE_ERR_RULE_SYNTAX ||
         (!rc && (out->flags & ~ACREI_ACI_MACRO_DN))) &&
        (rc = no_entry(p, v->off + a, s + a, v->n - a, out)) == 1)
        rc = acreA_dnpat(p, v->off + a, s + a, v->n - a, macros, out);
    if (rc || out->kind == ACREI_ACI_PAT_NONE)
        return rc;
    /* 389's acl_verify_syntax checks the target alone (macros: it is
     * the target), not target_to / target_from */
    if (macros && out->kind == ACREI_ACI_PAT_DN && p->holder &&
        !acre_dn_in_scope(out->dn, p->holder, ACRE_SCOPE_SUB))
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, v->off,
                         "the target is outside the subtree of the entry "
                         "holding the aci (389-DS refuses it as an invalid "
                         "target, and skips it when loading)");
    return 0;
}

/* One name of a targetattr list, s[a..b) trimmed and unquoted. */
static int
targetattr_name(struct acreA_p *p, size_t a, size_t b,
                struct acreI_aci_target *t, int *ids, const char **pats)
{
    const char *s = p->s;
    struct acreS_desc d;

    while (a < b && is_space(s[a]))
        a++;
    while (b > a && is_space(s[b - 1]))
        b--;
    if (b - a >= 2 && s[a] == '"' && s[b - 1] == '"')
        a++, b--;
    if (b - a == 1 && s[a] == '*')
        return t->attr_star = 1, 0;
    if (b - a == 1 && s[a] == '+' && p->variant == ACREI_ACI_OPENDJ)
        return t->attr_plus = 1, 0;
    if (memchr(s + a, '*', b - a)) {
        char *x = talloc_strndup(p->ctx, s + a, b - a);
        if (!x)
            return ACRE_ERR_NOMEM;
        for (char *c = x; *c; c++)
            if (*c >= 'A' && *c <= 'Z')
                *c = (char)(*c - 'A' + 'a');
        pats[t->nattr_pat++] = x;
        return 0;
    }
    /* OpenDJ takes a name the schema does not know (TargetAttr: a
     * placeholder user attribute type); lint mode still names it */
    if (a < b && !acreS_desc_parse(p->schema, s + a, b - a, &d) && d.type < 0 &&
        p->variant == ACREI_ACI_OPENDJ) {
        int rc = p->lint ? acreA_unknown_name(p, a, b - a, "targetattr") : 0;
        return rc ? rc : (t->attr_unknown++, 0);
    }
    if (a < b && p->lint &&
        (acreS_desc_parse(p->schema, s + a, b - a, &d) || d.type < 0))
        return acreA_unknown_name(p, a, b - a, "targetattr");
    if (a == b || acreS_desc_parse(p->schema, s + a, b - a, &d) || d.type < 0)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, a,
                         "targetattr \"%.*s\" does not exist in schema",
                         (int)(b - a > 60 ? 60 : b - a), s + a);
    /* 389 compares the name as text with the type's first name, which
     * its entries and filters use: an alias or an OID names nothing */
    const char *first = acreS_attr(p->schema, d.type)->dn.name;
    if (p->variant == ACREI_ACI_389 &&
        (strlen(first) != d.name_len || strncasecmp(first, d.name, d.name_len)))
        return acreA_alias_name(p, a, b - a, d.type, "targetattr");
    int id = d.nopts ? acreS_desc_intern(p->schema, &d) : d.type;
    if (id < 0)
        return id == ACRE_ERR_NOMEM ? id
                                    : acreA_err(p, ACRE_ERR_RULE_LIMIT, a,
                                                "too many descriptions");
    ids[t->nattrs++] = id;
    return 0;
}

static int
targetattr(struct acreA_p *p, const struct tval *v, struct acreI_aci_target *t)
{
    size_t a = v->off, e = v->off + v->n, max = v->n / 2 + 2;
    int *ids = talloc_array(p->ctx, int, max);
    const char **pats = talloc_array(p->ctx, const char *, max);
    int rc = 0;

    if (!ids || !pats)
        return ACRE_ERR_NOMEM;
    t->attr_neg = v->neg;
    /* 389 stores targetattr="" as a list that names no attribute */
    if (v->n == 0 && p->variant == ACREI_ACI_389)
        return t->attrs = ids, t->attr_pat = pats, 0;
    while (!rc) {
        const char *bar = NULL;
        for (size_t i = a; i + 1 < e && !bar; i++)
            if (p->s[i] == '|' && p->s[i + 1] == '|')
                bar = p->s + i;
        size_t b = bar ? (size_t)(bar - p->s) : e;
        rc = targetattr_name(p, a, b, t, ids, pats);
        if (!bar)
            break;
        a = b + 2;
        /* 389 stops at the end of the text: "cn ||" is "cn" */
        size_t z = a;
        while (z < e && p->s[z] == ' ')
            z++;
        if (z == e && p->variant == ACREI_ACI_389)
            break;
    }
    t->attrs = ids;
    t->attr_pat = pats;
    return rc;
}

/* 389's slapi_find_matching_paren: the ')' closing the '(' at s[i]
 * (a backslash escapes the next byte), or e when there is none. */
static size_t
close389(const char *s, size_t i, size_t e)
{
    int depth = 0, esc = 0;

    for (; i < e; i++) {
        if (!esc && s[i] == '(')
            depth++;
        else if (!esc && s[i] == ')')
            depth--;
        if (depth == 0)
            return i;
        esc = s[i] == '\\' && !esc;
    }
    return e;
}

/*
 * trim389 -- the part of a targetfilter s[*a..*a+*n) that 389 parses:
 * __acl_trim_filterstr takes doubled outer parentheses off ("((f))" is
 * "(f)"), then slapi_str2filter reads one parenthesised filter and
 * ignores what follows it ("(f)(g)" and "(f)x" are "(f)").
 */
static void
trim389(const char *s, size_t *a, size_t *n)
{
    size_t str = *a, tmp = *a, e = *a + *n;

    while (tmp < e && s[tmp++] == '(' && tmp < e && s[tmp] == '(') {
        size_t m = close389(s, str, e);
        if (m < e) {
            e = m;
            str++;
        }
    }
    if (str < e && s[str] == '(') {
        size_t m = close389(s, str, e);
        if (m < e)
            e = m + 1;
    }
    *a = str;
    *n = e - str;
}

static int
targetfilter(struct acreA_p *p, const struct tval *v,
             struct acreI_aci_target *t)
{
    size_t a = v->off, n = v->n;
    const char *s = p->s;

    t->filter_neg = v->neg;
    /* 389: a trailing ',' goes, then enclosing quotes (again) */
    if (n && s[a + n - 1] == ',')
        n--;
    if (n >= 2 && s[a] == '"' && s[a + n - 1] == '"')
        a++, n -= 2;
    if (p->variant == ACREI_ACI_389)
        trim389(s, &a, &n);
    if (!(t->filter_text = talloc_strndup(p->ctx, s + a, n)))
        return ACRE_ERR_NOMEM;
    if (strcasestr(t->filter_text, "($dn)") ||
        strcasestr(t->filter_text, "[$dn]")) {
        if (!p->target_macro)
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, a,
                             "a ($dn) macro in targetfilter needs a macro "
                             "in a target given before it");
        p->flags |= ACREI_ACI_F_MACRO;
        return p->lint ? acreA_filter_names(p, a, n, "targetfilter") : 0;
    }
    p->filter389 = 1;
    int rc = acreA_filter(p, a, s + a, n, &t->filter);
    if (!rc && p->lint)
        rc = acreA_filter_names(p, a, n, "targetfilter");
    p->filter389 = 0;
    return rc;
}

/* OpenDJ targetscope */
static int
targetscope(struct acreA_p *p, const struct tval *v, struct acreI_aci_target *t)
{
    static const struct {
        const char *name;
        int scope;
    } tab[] = {{"base", ACRE_SCOPE_BASE},
               {"onelevel", ACRE_SCOPE_ONE},
               {"subtree", ACRE_SCOPE_SUB},
               {"subordinate", ACRE_SCOPE_CHILDREN}};

    for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
        if (strlen(tab[i].name) == v->n &&
            !strncasecmp(p->s + v->off, tab[i].name, v->n)) {
            t->scope = tab[i].scope;
            return 0;
        }
    return acreA_err(p, ACRE_ERR_RULE_SYNTAX, v->off,
                     "targetscope must be base, onelevel, subtree or "
                     "subordinate");
}

/* The target keywords, and which variant knows them. */
enum tkw {
    T_TARGET,
    T_ATTR,
    T_FILTER,
    T_ATTRFLT,
    T_TO,
    T_FROM,
    T_SCOPE,
    T_CONTROL,
    T_EXTOP
};

static const struct {
    const char *name;
    enum tkw kw;
    unsigned bit;
    int opendj_only, neg_ok;
} tkws[] = {
    {"target", T_TARGET, ACREI_ACI_T_TARGET, 0, 1},
    {"targetattr", T_ATTR, ACREI_ACI_T_ATTR, 0, 1},
    {"targetfilter", T_FILTER, ACREI_ACI_T_FILTER, 0, 1},
    {"targattrfilters", T_ATTRFLT, ACREI_ACI_T_ATTRFLT, 0, 0},
    {"target_to", T_TO, ACREI_ACI_T_TO, 0, 1},
    {"target_from", T_FROM, ACREI_ACI_T_FROM, 0, 1},
    {"targetscope", T_SCOPE, ACREI_ACI_T_SCOPE, 1, 0},
    {"targetcontrol", T_CONTROL, ACREI_ACI_T_CONTROL, 1, 1},
    {"extop", T_EXTOP, ACREI_ACI_T_EXTOP, 1, 1},
};

static int
one_target(struct acreA_p *p, size_t i, size_t kn, size_t e, unsigned k,
           struct acreI_aci_target *t)
{
    struct tval v;
    int rc;

    if (tkws[k].opendj_only && p->variant != ACREI_ACI_OPENDJ)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, i,
                         "%s is not supported by 389-DS", tkws[k].name);
    if (t->has & tkws[k].bit)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, i, "%s given twice",
                         tkws[k].name);
    t->has |= tkws[k].bit;
    /* 389 reads targattrfilters from the first '=': "!=" is "=" */
    if ((rc = target_value(p, i + kn, e,
                           tkws[k].neg_ok || (tkws[k].kw == T_ATTRFLT &&
                                              p->variant == ACREI_ACI_389),
                           &v)))
        return rc;
    switch (tkws[k].kw) {
    case T_TARGET:
        /* 389 keeps one "!=" flag for target, target_to and target_from
         * (aclparse.c's ACI_TARGET_NOT): any of them negates all three */
        t->target_neg |= v.neg;
        if ((rc = target_dn(p, &v, 1, &t->target)))
            return rc;
        if (t->target.flags & ~ACREI_ACI_MACRO_DN)
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, v.off,
                             "a target takes only the ($dn) macro");
        if (t->target.flags) {
            p->target_macro = 1;
            p->flags |= ACREI_ACI_F_MACRO;
        }
        return 0;
    case T_TO:
        t->target_neg |= v.neg;
        return target_dn(p, &v, 0, &t->to);
    case T_FROM:
        t->target_neg |= v.neg;
        return target_dn(p, &v, 0, &t->from);
    case T_ATTR:
        return targetattr(p, &v, t);
    case T_FILTER:
        return targetfilter(p, &v, t);
    case T_ATTRFLT:
        return acreA_attrfilters(p, v.off, v.n, t);
    case T_SCOPE:
        return targetscope(p, &v, t);
    default: /* OpenDJ targetcontrol / extop: OIDs, kept unchecked */
        return 0;
    }
}

/* A target group p->s[i..e) (inside its parentheses). */
static int
target(struct acreA_p *p, size_t i, size_t e, struct acreI_aci_target *t)
{
    size_t w = i;

    while (w < e && (acreE_is_alpha((unsigned char)p->s[w]) || p->s[w] == '_'))
        w++;
    for (unsigned k = 0; k < sizeof(tkws) / sizeof(tkws[0]); k++) {
        size_t kn = strlen(tkws[k].name);
        int same = p->variant == ACREI_ACI_OPENDJ
                       ? !strncasecmp(p->s + i, tkws[k].name, kn)
                       : !strncmp(p->s + i, tkws[k].name, kn);
        if (kn == w - i && same &&
            (p->variant != ACREI_ACI_389 || tkws[k].opendj_only))
            return one_target(p, i, kn, e, k, t);
    }
    /* 389 takes the first keyword, in its own order, that the word starts
     * with ("targetattrs", as FreeIPA ships it, is targetattr), and reads
     * the operator at the first '=' after it */
    static const unsigned order389[] = {3, 1, 2, 4, 5, 0};
    for (unsigned j = 0; p->variant == ACREI_ACI_389 &&
                         j < sizeof(order389) / sizeof(order389[0]);
         j++) {
        unsigned k = order389[j];
        size_t kn = strlen(tkws[k].name);
        if (kn > e - i || strncmp(p->s + i, tkws[k].name, kn))
            continue;
        const char *eq = memchr(p->s + i + kn, '=', e - i - kn);
        size_t op = eq ? (size_t)(eq - p->s) : i + kn;
        if (eq && op > i + kn && p->s[op - 1] == '!')
            op--;
        return one_target(p, i, op - i, e, k, t);
    }
    return acreA_err(p, ACRE_ERR_RULE_SYNTAX, i,
                     "unknown keyword: expected target, targetattr, "
                     "targetfilter, targattrfilters, target_to, target_from "
                     "or version");
}

/* The groups of the value, in order; the ACL text last or anywhere. */
static int
groups(struct acreA_p *p, struct acreI_aci *a)
{
    size_t i = 0, n = p->n;
    int seen = 0, text = 0;

    for (;;) {
        while (i < n && is_space(p->s[i]))
            i++;
        if (i >= n)
            break;
        if (p->s[i] != '(') {
            if (!seen)
                return acreA_err(p, ACRE_ERR_RULE_SYNTAX, i,
                                 "an aci starts with '('");
            break; /* 389 ignores what follows the last group */
        }
        size_t e = matching_paren(p->s, n, i);
        if (!e)
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, i,
                             "unbalanced parentheses");
        seen = 1;
        size_t b = i + 1;
        while (b < e - 1 && is_space(p->s[b]))
            b++;
        int rc;
        if (b >= e - 1)
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, b, "empty group");
        if (p->s[b] == 'v') {
            /* 389 parses each ACL text and evaluates the last, keeping
             * the rights and kinds of all on the ACI (xperms) */
            if (text && p->variant != ACREI_ACI_389)
                return acreA_err(p, ACRE_ERR_RULE_SYNTAX, b,
                                 "a second ACL text");
            if (text) {
                struct acreI_aci_perm *x = talloc_realloc(
                    p->ctx, (struct acreI_aci_perm *)a->xperms,
                    struct acreI_aci_perm, a->nxperms + a->nperms);
                if (!x)
                    return ACRE_ERR_NOMEM;
                memcpy(x + a->nxperms, a->perms, a->nperms * sizeof(*x));
                a->xperms = x;
                a->nxperms += a->nperms;
            }
            text = 1;
            rc = acreA_acltext(p, b, e - 1 - b, a);
        } else {
            rc = target(p, b, e - 1, &a->t);
        }
        if (rc)
            return rc;
        i = e;
    }
    if (!text)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, n,
                         "no \"(version 3.0; acl ...)\" part");
    return 0;
}

static int parse_value(void *ctx, const acre_schema *schema,
                       const acre_dn *holder, unsigned value_index,
                       const char *text, size_t len, int variant,
                       const struct acreI_pos *at, struct acreI_aci *out,
                       acre_diag *diag, struct acreA_lint *lint);

int
acreA_parse_value(void *ctx, const acre_schema *schema, const acre_dn *holder,
                  unsigned value_index, const char *text, size_t len,
                  int variant, const struct acreI_pos *at,
                  struct acreI_aci *out, acre_diag *diag)
{
    return parse_value(ctx, schema, holder, value_index, text, len, variant, at,
                       out, diag, NULL);
}

int
acreA_parse_value_lint(void *ctx, const acre_schema *schema,
                       const acre_dn *holder, unsigned value_index,
                       const char *text, size_t len, int variant,
                       const struct acreI_pos *at, struct acreI_aci *out,
                       acre_diag *diag, struct acreA_lint *lint)
{
    unsigned first = lint ? lint->nunk : 0;
    int rc = parse_value(ctx, schema, holder, value_index, text, len, variant,
                         at, out, diag, lint);

    if (rc && lint)
        lint->nunk = first; /* the error is reported instead */
    return rc;
}

static int
parse_value(void *ctx, const acre_schema *schema, const acre_dn *holder,
            unsigned value_index, const char *text, size_t len, int variant,
            const struct acreI_pos *at, struct acreI_aci *out, acre_diag *diag,
            struct acreA_lint *lint)
{
    void *scratch = talloc_new(ctx);
    struct acreA_p p = {.ctx = scratch,
                        .schema = schema ? schema : acreS_builtin(),
                        .holder = holder,
                        .value_index = value_index,
                        .s = text,
                        .n = len,
                        .variant = variant,
                        .at = at,
                        .diag = diag,
                        .lint = lint};
    struct acreI_aci a = {0};
    int rc;

    memset(out, 0, sizeof(*out));
    if (!scratch)
        return ACRE_ERR_NOMEM;
    if (!text || (variant != ACREI_ACI_389 && variant != ACREI_ACI_OPENDJ))
        rc = acreA_err(&p, ACRE_ERR_INVAL, 0, "invalid argument");
    else if (len > ACREA_MAX_VALUE)
        rc = acreA_err(&p, ACRE_ERR_RULE_LIMIT, ACREA_MAX_VALUE,
                       "value longer than %u bytes", ACREA_MAX_VALUE);
    else if (memchr(text, '\0', len))
        rc = acreA_err(&p, ACRE_ERR_RULE_SYNTAX,
                       (size_t)((const char *)memchr(text, '\0', len) - text),
                       "NUL byte in the value");
    else {
        a.t.scope = ACRE_SCOPE_SUB;
        rc = groups(&p, &a);
    }
    if (!rc && p.subject_dnmacro && !p.target_macro)
        rc = acreA_err(&p, ACRE_ERR_RULE_SYNTAX, 0,
                       "a ($dn) macro in a subject needs a macro in the "
                       "target");
    if (!rc && !(a.text = talloc_strndup(scratch, text, len)))
        rc = ACRE_ERR_NOMEM;
    if (rc == ACRE_ERR_NOMEM && diag)
        acreA_err(&p, rc, 0, "out of memory");
    if (rc) {
        talloc_free(scratch);
        return rc;
    }
    a.len = len;
    a.holder = holder;
    a.value_index = value_index;
    a.flags = p.flags;
    if (at)
        a.pos = *at;
    *out = a;
    return 0; /* scratch stays: it holds the result, a child of ctx */
}
