/*
 * aci_kw.c -- the keyword tests of a bind rule ("userdn = VALUE", ...)
 * and the targattrfilters target: "add=A:(F) && B:(G), del=A:(F)", quoted
 * (389 wants the quotes), add= and del= lowercase, each at most once
 * (389: the second list starts at the first "del=" / "add=" of the text,
 * attrfilters_389),
 * each filter on its own attribute only (acl_verify_exactly_one_attribute);
 * stricter than 389: the attribute must be in the schema.
 *
 * What each keyword takes (389-DS 2.3, plugins/acl/acllas.c and
 * lib/libaccess, checked against those sources; where 389 checks only
 * when it evaluates, this file checks at parse time and says so):
 *   userdn, groupdn, roledn   "ldap:///X || ldap:///Y ..." (each term
 *       needs the ldap:/// or ldaps:/// prefix, any case, as
 *       DS_LASUserDnEval reads it; but a keyword written in lowercase
 *       is normalised by aclparse.c first, which needs a lowercase
 *       "ldap:///" somewhere in the value);
 *       userdn X: anyone, all, self, parent (case-insensitive), a DN, a
 *       pattern with '*' and macros, or an LDAP URL
 *       base?attrs?scope?filter (scope base, one or sub; base when
 *       empty, as RFC 4516; the base may hold macros);
 *       groupdn X: a DN, a macro pattern or a URL (389: with a filter,
 *       the groups are the entries its search finds; without one 389
 *       does not take it for a URL and it names no group);
 *       roledn X: a DN or a macro pattern;
 *   userattr    "[parent[L,L,...].]ATTR#KIND": KIND USERDN, GROUPDN,
 *       ROLEDN, LDAPURL, SELFDN by prefix, case-insensitive (389's
 *       strncasecmp), anything else a value; levels 0..9 (389 keeps at
 *       most ACLLAS_MAX_LEVELS = 10);
 *   userdnattr, groupdnattr   "[parent[...].]ATTR";
 *   authmethod  a method name, kept lowercased ("none", "simple", "ssl",
 *       "sasl MECH");
 *   ssf         a decimal number; timeofday hhmm (0000..2359), and as
 *       389 reads it under that variant: any atoi() value, or a range
 *       "hhmm-hhmm" (timeofday_389); 389's ssf is whatever (int)strtol
 *       reads ("high": 0, DS_LASSSFEval);
 *   ip          comma list: IPv4 a.b.c.d with '*' parts (the rest then
 *       does not matter) and an optional "+netmask" (lasip.c dotdecimal),
 *       or IPv6 with an optional "/bits"; 389 checks nothing when it
 *       stores the value and reads it as LASIpBuild does (ip_389);
 *   dns         comma list of host names, '*' wildcards, lowercased (389:
 *       LASDnsBuild's reading, dns_389); 389 registers the same
 *       evaluator as dnsalias, read as dns here;
 *   dayofweek   comma list of sun mon tue wed thu fri sat; 389: any
 *       text, holding on the days whose name it contains (strstr in
 *       LASDayOfWeekEval: "sunday" holds on Sundays).
 * Operators: = and != everywhere; ssf and timeofday also <= and >=; the
 * strict < and > are refused by the real 389 2.3 (observed: "ssf>0" and
 * "timeofday<0001" are ACL syntax errors) and accepted with the OpenDJ
 * variant.  389 stores <= and >= with every keyword; those that take no
 * ordering never evaluate with one (Undefined: the engine's part).
 * Unknown keywords are errors (389 defers them to evaluation).
 */
#include "aci.h"
#include "filter.h"
#include "internal.h"

#include "schema.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

/* A keyword's operand: p->s[off..off+n). */
struct operand {
    size_t off, n;
};

static void
trim(const char *s, size_t *off, size_t *n)
{
    while (*n && (s[*off] == ' ' || s[*off] == '\t'))
        (*off)++, (*n)--;
    while (*n && (s[*off + *n - 1] == ' ' || s[*off + *n - 1] == '\t'))
        (*n)--;
}

/* 389's dn.c: what a DN value must escape, anywhere and at its start */
static int
needs_escape(char c)
{
    return c == '\\' || c == '"' || c == ',' || c == ';' || c == '+' ||
           c == '<' || c == '>' || c == '=';
}

/* ... and the hex pairs of those ("\2C"), in any case */
static int
needs_escape_hex(int v)
{
    return v == 0x22 || v == 0x2b || v == 0x2c || (v >= 0x3b && v <= 0x3e) ||
           v == 0x5c;
}

/*
 * escapes_389 -- s[0..n), the text of a userdn / groupdn / roledn value
 * that aclparse.c hands to 389's DN normaliser as one DN (from its first
 * ldap:/// to its first '?' or its end), with that normaliser's escapes
 * applied (slapi_dn_normalize_ext, INVALUE): a hex pair of a character a
 * value need not escape becomes the character ("\7C" '|', "\2A" '*'),
 * but "\00" and "\20"; the escape of a character a value must escape
 * stays; any other escape is dropped ("\ " a space, "\|" '|'), but for
 * a space at the value's start, or followed by spaces alone up to a ',',
 * ';' or '+' (there "\20"), which stays.  The LAS then cuts the result
 * at "||": "ldap:///cn=g1,dc=x\ || ldap:///cn=g2,dc=x" names cn=g1,dc=x
 * and cn=g2,dc=x.  Returns a talloc string (its length in *out_n).
 */
static char *
escapes_389(struct acreA_p *p, const char *s, size_t n, size_t *out_n)
{
    char *o = talloc_array(p->ctx, char, n + 1);
    size_t k = 0;

    for (size_t i = 0; o && i < n; i++) {
        int h, l;
        if (s[i] != '\\' || i + 1 >= n) {
            o[k++] = s[i];
            continue;
        }
        char c = s[i + 1];
        size_t j = k;
        while (j && o[j - 1] == ' ')
            j--;
        int start = j && o[j - 1] == '=';
        if (i + 2 < n && (h = acreE_hexval(c)) >= 0 &&
            (l = acreE_hexval(s[i + 2])) >= 0) {
            int v = h << 4 | l;
            if (v == 0 || v == 0x20 || needs_escape_hex(v) ||
                (start && v == 0x23)) {
                memcpy(o + k, s + i, 3);
                k += 3;
            } else {
                o[k++] = (char)v;
            }
            i += 2;
            continue;
        }
        size_t m = i + 2;
        while (c == ' ' && m < n && s[m] == ' ')
            m++;
        int sep = m < n && (s[m] == ',' || s[m] == ';' || s[m] == '+');
        if (needs_escape(c) || (start && (c == ' ' || c == '#')) ||
            (c == ' ' && sep))
            o[k++] = '\\';
        o[k++] = c;
        i++;
    }
    if (!o)
        return NULL;
    o[k] = '\0';
    *out_n = k;
    return o;
}

static int
count_term(struct acreA_p *p, size_t off)
{
    if (++p->nterms > ACREA_MAX_TERMS)
        return acreA_err(p, ACRE_ERR_RULE_LIMIT, off,
                         "more than %d bind-rule terms", ACREA_MAX_TERMS);
    return 0;
}

static char *
lower_dup(struct acreA_p *p, const char *s, size_t n)
{
    char *x = talloc_strndup(p->ctx, s, n);

    for (char *c = x; c && *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    return x;
}

/* ------------------------------------------------------------------------
 * userdn / groupdn / roledn
 */
static int
url_scope(struct acreA_p *p, size_t off, const char *s, size_t n, int *scope)
{
    if (n == 0 || (n == 4 && !strncasecmp(s, "base", 4)))
        *scope = ACRE_SCOPE_BASE;
    else if (n == 3 && !strncasecmp(s, "one", 3))
        *scope = ACRE_SCOPE_ONE;
    else if (n == 3 && !strncasecmp(s, "sub", 3))
        *scope = ACRE_SCOPE_SUB;
    else if (p->variant == ACREI_ACI_389)
        *scope = -1; /* 389 stores it; its URL parse then fails: no one */
    else
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off,
                         "an LDAP URL scope is base, one or sub");
    return 0;
}

/* no_one -- is s[0..n) a text 389 stores as a DN but that names no
 * one?  It has no '=' (a DN's RDNs all have one), nor a wildcard or a
 * macro. */
static int
no_one(const char *s, size_t n)
{
    /* "*" alone: 389's userdn LAS makes it a presence filter, which its
     * substring matcher never takes */
    return (!memchr(s, '=', n) && !memchr(s, '*', n) && !memchr(s, '$', n)) ||
           (n == 1 && s[0] == '*');
}

/* base?attrs?scope?filter at p->s[off..off+n) (after ldap:///) */
static int
url(struct acreA_p *p, enum acreI_aci_kw kw, size_t off, size_t n,
    struct acreI_aci_term *t)
{
    const char *s = p->s + off;
    size_t q[3] = {n, n, n}, nq = 0;

    for (size_t i = 0; i < n && nq < 3; i++)
        if (s[i] == '?')
            q[nq++] = i;
    t->kind = ACREI_ACI_S_URL;
    if (p->variant == ACREI_ACI_389 && no_one(s, q[0])) {
        t->scope = -1; /* 389's search from that base finds no one */
        return (t->url = talloc_strndup(p->ctx, s, n)) ? 0 : ACRE_ERR_NOMEM;
    }
    /* 389 (DS_LASUserDnEval) expands a userdn value holding a macro
     * anywhere, then reads it as a URL (acllas_eval_one_user): a macro in
     * the filter is kept as text, for the evaluator to expand */
    if (p->variant == ACREI_ACI_389 && kw == ACREI_ACI_USERDN && nq > 2) {
        char *all = talloc_strndup(p->ctx, s, n);
        if (!all)
            return ACRE_ERR_NOMEM;
        const char *fl = all + q[2] + 1;
        if (strcasestr(fl, "($dn)") || strcasestr(fl, "[$dn]") ||
            strcasestr(fl, "($attr.")) {
            t->pat.kind = ACREI_ACI_PAT_PATTERN;
            t->pat.text = talloc_strndup(p->ctx, s, q[0]);
            t->pat.len = q[0];
            t->pat.flags =
                (strcasestr(all, "($dn)") ? ACREI_ACI_MACRO_DN : 0) |
                (strcasestr(all, "[$dn]") ? ACREI_ACI_MACRO_DN_UP : 0) |
                (strcasestr(all, "($attr.") ? ACREI_ACI_MACRO_ATTR : 0);
            t->url = all;
            return t->pat.text ? 0 : ACRE_ERR_NOMEM;
        }
    }
    int rc = acreA_dnpat(p, off, s, q[0], 1, &t->pat);
    size_t sa = nq > 1 ? q[1] + 1 : n, se = nq > 2 ? q[2] : n;
    if (!rc)
        rc = url_scope(p, off + sa, s + sa, se - sa, &t->scope);
    if (!rc && nq > 2 && q[2] + 1 < n) {
        if (memchr(s + q[2] + 1, '?', n - q[2] - 1))
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off + q[2] + 1,
                             "LDAP URL extensions are not supported");
        /* 389 tests a userdn URL's filter in acllas__client_match_URL,
         * its substrings components as written; a groupdn URL's is an
         * internal search's, normalised */
        p->rawsubs = kw == ACREI_ACI_USERDN;
        rc = acreA_filter(p, off + q[2] + 1, s + q[2] + 1, n - q[2] - 1,
                          &t->filter);
        p->rawsubs = 0;
    }
    if (!rc && !(t->url = talloc_strndup(p->ctx, s, n)))
        rc = ACRE_ERR_NOMEM;
    return rc;
}

static int subject_list(struct acreA_p *p, struct acreI_bind *b,
                        struct operand v);

/*
 * escaped_list -- a 389 list whose normalised part (at, len) holds an
 * escape: the list is read from a copy of the rule text in which that
 * part is what 389's normaliser makes of it (escapes_389).  Offsets in
 * messages then point into the copy.
 */
static int
escaped_list(struct acreA_p *p, struct acreI_bind *b, struct operand v,
             size_t at, size_t len)
{
    /* the value is p->n bytes, not a string (a fuzzer's buffer has no
     * NUL after it) */
    size_t nn, end = at + len, tail = p->n > end ? p->n - end : 0;
    char *x = escapes_389(p, p->s + at, len, &nn);
    char *t = x ? talloc_array(p->ctx, char, at + nn + tail + 1) : NULL;

    if (!t)
        return ACRE_ERR_NOMEM;
    memcpy(t, p->s, at);
    memcpy(t + at, x, nn);
    memcpy(t + at + nn, p->s + end, tail);
    t[at + nn + tail] = '\0';
    const char *was = p->s;
    size_t was_n = p->n;
    p->s = t;
    p->n = at + nn + tail;
    v.n = v.n - len + nn;
    int rc = subject_list(p, b, v);
    p->s = was;
    p->n = was_n;
    return rc;
}

static int
special(const char *s, size_t n, enum acreI_aci_subj *kind)
{
    static const struct {
        const char *w;
        enum acreI_aci_subj k;
    } tab[] = {{"anyone", ACREI_ACI_S_ANYONE},
               {"all", ACREI_ACI_S_ALL},
               {"self", ACREI_ACI_S_SELF},
               {"parent", ACREI_ACI_S_PARENT}};

    for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
        if (strlen(tab[i].w) == n && !strncasecmp(s, tab[i].w, n)) {
            *kind = tab[i].k;
            return 1;
        }
    return 0;
}

static int
subject_term(struct acreA_p *p, enum acreI_aci_kw kw, size_t off, size_t n,
             struct acreI_aci_term *t)
{
    const char *s = p->s;
    size_t k;
    int rc;

    trim(s, &off, &n);
    if (!(k = acreA_url_prefix(s + off, n)))
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off,
                         "expected \"ldap:///\" before the DN");
    off += k, n -= k;
    trim(s, &off, &n);
    if (kw == ACREI_ACI_USERDN && special(s + off, n, &t->kind))
        return 0;
    /* 389's groupdn and roledn LASes take "anyone" too: everyone */
    if (p->variant == ACREI_ACI_389 && n == 6 &&
        !strncasecmp(s + off, "anyone", 6)) {
        t->kind = ACREI_ACI_S_ANYONE;
        return 0;
    }
    if (p->variant == ACREI_ACI_389 && !memchr(s + off, '?', n) &&
        no_one(s + off, n)) {
        /* 389 stores a text with no '=' as a DN (its normaliser passed
         * it: norm389) and compares it with DNs that all have one: it
         * names no one, as a URL it cannot read does */
        t->kind = ACREI_ACI_S_URL;
        t->scope = -1;
        return (t->url = talloc_strndup(p->ctx, s + off, n)) ? 0
                                                             : ACRE_ERR_NOMEM;
    }
    if (kw != ACREI_ACI_ROLEDN && memchr(s + off, '?', n))
        rc = url(p, kw, off, n, t);
    else {
        p->subject_pat = 1;
        rc = acreA_dnpat(p, off, s + off, n, 1, &t->pat);
        p->subject_pat = 0;
        t->kind = t->pat.kind == ACREI_ACI_PAT_DN ? ACREI_ACI_S_DN
                                                  : ACREI_ACI_S_PATTERN;
    }
    if (t->pat.flags & (ACREI_ACI_MACRO_DN | ACREI_ACI_MACRO_DN_UP))
        p->subject_dnmacro = 1;
    if (t->pat.flags)
        p->flags |= ACREI_ACI_F_MACRO;
    return rc;
}

static int
subjects(struct acreA_p *p, struct acreI_bind *b, struct operand v)
{
    const char *s = p->s;

    /* 389's normaliser finds a lowercase userdn / groupdn / roledn and
     * then wants a lowercase "ldap:///" (or "ldaps:///") in its value */
    if (p->kw_lower && !memmem(s + v.off, v.n, "ldap:///", 8) &&
        !memmem(s + v.off, v.n, "ldaps:///", 9))
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, v.off,
                         "389-DS wants \"ldap:///\" in lowercase here");
    if (p->variant == ACREI_ACI_389 && p->kw_lower) {
        const char *u = memmem(s + v.off, v.n, "ldap:///", 8), *why = NULL;
        size_t k = 8;
        if (!u) {
            u = memmem(s + v.off, v.n, "ldaps:///", 9);
            k = 9;
        }
        if (u) {
            size_t at = (size_t)(u - s) + k, end = v.off + v.n;
            const char *q = memchr(s + at, '?', end - at);
            size_t len = (q ? (size_t)(q - s) : end) - at,
                   bad = acreA_norm389(s + at, len, &why);
            if (bad < len)
                return acreA_err(p, ACRE_ERR_RULE_SYNTAX, at + bad,
                                 "389-DS refuses this value: its DN "
                                 "normaliser reads it from the first "
                                 "ldap:/// to the first '?' or the end as one "
                                 "DN, and finds %s",
                                 why);
            if (memchr(s + at, '\\', len))
                return escaped_list(p, b, v, at, len);
        }
    }
    return subject_list(p, b, v);
}

/* subject_list -- the "||" terms of v */
static int
subject_list(struct acreA_p *p, struct acreI_bind *b, struct operand v)
{
    const char *s = p->s;
    unsigned cnt = 1;

    for (size_t i = v.off; i + 1 < v.off + v.n; i++)
        if (s[i] == '|' && s[i + 1] == '|')
            cnt++, i++;
    struct acreI_aci_term *t =
        talloc_zero_array(p->ctx, struct acreI_aci_term, cnt);
    if (!t)
        return ACRE_ERR_NOMEM;
    size_t a = v.off, e = v.off + v.n;
    for (unsigned k = 0; k < cnt; k++) {
        size_t b2 = a;
        while (b2 < e && !(b2 + 1 < e && s[b2] == '|' && s[b2 + 1] == '|'))
            b2++;
        int rc = count_term(p, a);
        if (!rc)
            rc = subject_term(p, b->kw, a, b2 - a, &t[k]);
        if (rc)
            return rc;
        a = b2 + 2;
    }
    b->terms = t;
    b->nterms = cnt;
    return 0;
}

/* ------------------------------------------------------------------------
 * userattr, userdnattr, groupdnattr
 */

/* "parent[l,l,...]." at s[*i..e): levels into *levels */
static int
parent_levels(struct acreA_p *p, size_t *i, size_t e, unsigned *levels)
{
    const char *s = p->s;
    size_t j = *i + 7; /* past "parent[" */

    *levels = 0;
    for (;;) {
        while (j < e && s[j] == ' ')
            j++;
        if (j >= e || !acreE_is_digit((unsigned char)s[j]) ||
            (j + 1 < e && acreE_is_digit((unsigned char)s[j + 1])))
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, j,
                             "a parent level is a digit 0..9");
        *levels |= 1u << (s[j] - '0');
        j++;
        while (j < e && s[j] == ' ')
            j++;
        if (j < e && s[j] == ',') {
            j++;
            continue;
        }
        break;
    }
    if (j + 1 >= e || s[j] != ']' || s[j + 1] != '.')
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, j,
                         "expected \"].\" after the parent levels");
    *i = j + 2;
    return 0;
}

static int
attr_id(struct acreA_p *p, size_t a, size_t e, const char *where, int *id)
{
    size_t n = e - a;

    trim(p->s, &a, &n);
    *id = n ? acreS_attr_find(p->schema, p->s + a, n) : -1;
    if (*id < 0 && n && p->lint)
        return acreA_unknown_name(p, a, n, where);
    if (*id < 0)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, a,
                         "unknown attribute type \"%.*s\"",
                         (int)(n > 60 ? 60 : n), p->s + a);
    return 0;
}

static const struct {
    const char *w;
    enum acreI_aci_uakind k;
} ua_tab[] = {{"USERDN", ACREI_ACI_UA_USERDN},
              {"GROUPDN", ACREI_ACI_UA_GROUPDN},
              {"LDAPURL", ACREI_ACI_UA_LDAPURL},
              {"ROLEDN", ACREI_ACI_UA_ROLEDN},
              {"SELFDN", ACREI_ACI_UA_SELFDN}};

/*
 * userattr as 389 reads it (DS_LASUserAttrEval and the kinds' LAS): no
 * '#' never evaluates (Undefined: a value rule on no attribute); the
 * text before '#', when it holds "parent[", is cut with strtok at "[],."
 * -- a piece starting with a digit is a level (atoi: "1 " is 1, " 1" no
 * level at all; at most 10 pieces), the first other piece right after a
 * '.' the attribute (a '.' strtok skipped: one that ended the piece
 * before is a NUL by then, so "parent[0,1] .manager" has none); without
 * one the attribute is the text's first piece.  An attribute the schema does
 * not know names no values.
 */
/*
 * groupdnattr_url -- 389's groupdnattr="ldap:///BASE?ATTR..." (any text
 * holding "ldap:///"), as acllas__eval_memberGroupDnAttr cuts it: 8
 * bytes skipped from the start, BASE up to the first '?', ATTR up to the
 * next '?' or the end; no '?' never matches, nor does a BASE that is no
 * DN.
 */
static int
groupdnattr_url(struct acreA_p *p, struct acreI_bind *b, size_t i, size_t e)
{
    const char *s = p->s;
    size_t a = e - i > 8 ? i + 8 : e;
    const char *q1 = memchr(s + a, '?', e - a);
    acre_dn *dn;

    b->uakind = ACREI_ACI_UA_GROUPURL;
    b->levels = 1;
    b->attr = -1;
    if (!q1)
        return 0;
    size_t bn = (size_t)(q1 - (s + a)), at = (size_t)(q1 + 1 - s);
    const char *q2 = memchr(s + at, '?', e - at);
    size_t an = (q2 ? (size_t)(q2 - s) : e) - at;
    if (!(b->value = talloc_strndup(p->ctx, s + a, bn)))
        return ACRE_ERR_NOMEM;
    b->value_len = bn;
    int rc = acre_dn_parse(p->ctx, p->schema, s + a, bn, 0, &dn, NULL);
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc)
        return 0;
    struct acreI_aci_term *t = talloc_zero(p->ctx, struct acreI_aci_term);
    if (!t)
        return ACRE_ERR_NOMEM;
    t->kind = ACREI_ACI_S_DN;
    t->pat.kind = ACREI_ACI_PAT_DN;
    t->pat.dn = dn;
    b->terms = t;
    b->nterms = 1;
    b->attr = an ? acreS_attr_find(p->schema, s + at, an) : -1;
    return 0;
}

static int
userattr_389(struct acreA_p *p, struct acreI_bind *b, size_t i, size_t e)
{
    const char *hash = memchr(p->s + i, '#', e - i);
    size_t h = hash ? (size_t)(hash - p->s) : e, n = h - i;
    char *t = talloc_strndup(p->ctx, p->s + i, n), *next = NULL, *w;
    const char *attr = t;
    unsigned nlev = 0;
    int rc;

    if (!t)
        return ACRE_ERR_NOMEM;
    if (b->kw == ACREI_ACI_GROUPDNATTR &&
        memmem(p->s + i, e - i, "ldap:///", 8))
        return groupdnattr_url(p, b, i, e);
    b->levels = 1;
    int parent = strstr(t, "parent[") != NULL;
    if (parent) {
        char *copy = talloc_strdup(t, t);
        if (!copy)
            return ACRE_ERR_NOMEM;
        b->levels = 0;
        attr = strtok_r(copy, "[],. ", &next);
        /* the plain reading: "parent[" digits "," ... "]." attr */
        if (strncmp(t, "parent[", 7))
            b->odd = ACREI_ODD_LEVELS;
        while ((w = strtok_r(NULL, "[],.", &next))) {
            size_t wn = strlen(w);
            if (acreE_is_digit((unsigned char)*w)) {
                long l = nlev++ < 10 ? strtol(w, NULL, 10) : -1;
                if (l >= 0 && l < 32)
                    b->levels |= 1u << l;
                if (l < 0 || l > 9 || wn != 1)
                    b->odd = ACREI_ODD_LEVELS;
            } else if (w[-1] == '.') { /* strtok left it: not an end */
                attr = w;
                break;
            } else {
                b->odd = ACREI_ODD_LEVELS; /* a piece 389 passes over */
            }
        }
        if (attr == copy || !b->levels)
            b->odd = ACREI_ODD_LEVELS;
    }
    size_t an = attr ? strlen(attr) : 0, a = i;
    if (attr == t) { /* the whole text, without its blanks */
        an = n;
        trim(p->s, &a, &an);
        attr = p->s + a;
    }
    b->attr = an ? acreS_attr_find(p->schema, attr, an) : -1;
    if (b->attr < 0 && p->lint && an &&
        (rc =
             acreA_unknown_name(p, i, n,
                                b->kw == ACREI_ACI_USERDNATTR    ? "userdnattr"
                                : b->kw == ACREI_ACI_GROUPDNATTR ? "groupdnattr"
                                                                 : "userattr")))
        return rc;
    if (!b->levels) { /* "parent[]": no level to look at */
        b->attr = -1;
        b->levels = 1;
    }
    talloc_free(t);
    if (b->kw != ACREI_ACI_USERATTR) {
        b->uakind = b->kw == ACREI_ACI_USERDNATTR ? ACREI_ACI_UA_USERDN
                                                  : ACREI_ACI_UA_GROUPDN;
        return 0;
    }
    b->uakind = ACREI_ACI_UA_VALUE;
    if (!hash) {
        b->attr = -1;
        b->levels = 1;
        b->value = "";
        b->odd = ACREI_ODD_NOHASH;
        return 0;
    }
    for (size_t k = 0; k < sizeof(ua_tab) / sizeof(ua_tab[0]); k++)
        if (!strncasecmp(p->s + h + 1, ua_tab[k].w, strlen(ua_tab[k].w)) &&
            e - h - 1 >= strlen(ua_tab[k].w)) {
            b->uakind = ua_tab[k].k;
            break;
        }
    /* a value rule's attribute is the whole text before '#'
     * (DS_LASUserAttrEval reads no levels): with "parent[" in it, it
     * names no attribute, whatever levels were read -- "parent[0, 2]"
     * too, whose levels alone would look like the entry itself */
    if (parent && b->uakind == ACREI_ACI_UA_VALUE) {
        b->attr = -1;
        b->levels = 1;
    }
    b->value_len = e - h - 1;
    if (!(b->value = talloc_strndup(p->ctx, p->s + h + 1, b->value_len)))
        return ACRE_ERR_NOMEM;
    return 0;
}

static int
userattr(struct acreA_p *p, struct acreI_bind *b, struct operand v)
{
    const char *s = p->s;
    size_t i = v.off, e = v.off + v.n;
    int rc;

    trim(s, &i, &v.n);
    e = i + v.n;
    if (p->variant == ACREI_ACI_389)
        return userattr_389(p, b, i, e);
    b->levels = 1;
    if (e - i >= 7 && !strncasecmp(s + i, "parent[", 7) &&
        (rc = parent_levels(p, &i, e, &b->levels)))
        return rc;
    const char *hash = memchr(s + i, '#', e - i);
    size_t h = hash ? (size_t)(hash - s) : e;
    if (b->kw != ACREI_ACI_USERATTR) {
        b->uakind = b->kw == ACREI_ACI_USERDNATTR ? ACREI_ACI_UA_USERDN
                                                  : ACREI_ACI_UA_GROUPDN;
        return attr_id(p, i, e,
                       b->kw == ACREI_ACI_USERDNATTR ? "userdnattr"
                                                     : "groupdnattr",
                       &b->attr);
    }
    if (!hash)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, i,
                         "userattr is \"attr#KIND\" or \"attr#value\"");
    if ((rc = attr_id(p, i, h, "userattr", &b->attr)))
        return rc;
    b->uakind = ACREI_ACI_UA_VALUE;
    for (size_t k = 0; k < sizeof(ua_tab) / sizeof(ua_tab[0]); k++)
        if (!strncasecmp(s + h + 1, ua_tab[k].w, strlen(ua_tab[k].w)) &&
            e - h - 1 >= strlen(ua_tab[k].w)) {
            b->uakind = ua_tab[k].k;
            break;
        }
    /* OpenDJ (UserAttr.decode): roledn is refused; SELFDN is no kind
     * there, just a value */
    if (p->variant == ACREI_ACI_OPENDJ && b->uakind == ACREI_ACI_UA_ROLEDN)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, h + 1,
                         "OpenDJ does not support roledn");
    if (p->variant == ACREI_ACI_OPENDJ && b->uakind == ACREI_ACI_UA_SELFDN)
        b->uakind = ACREI_ACI_UA_VALUE;
    /* 389 takes "parent[..].attr#value" and looks for an attribute named
     * with the whole text before '#', which no entry has: the rule is
     * never True.  Kept as a value rule on no attribute (attr -1). */
    if (b->levels != 1 && b->uakind == ACREI_ACI_UA_VALUE) {
        b->attr = -1;
        b->levels = 1;
    }
    b->value_len = e - h - 1;
    if (!(b->value = talloc_strndup(p->ctx, s + h + 1, b->value_len)))
        return ACRE_ERR_NOMEM;
    return 0;
}

/* ------------------------------------------------------------------------
 * ip, dns, dayofweek, ssf, timeofday, authmethod
 */
static int
ipv4(const char *s, size_t n, struct acreI_aci_addr *a)
{
    char buf[64];
    const char *plus = memchr(s, '+', n);
    size_t an = plus ? (size_t)(plus - s) : n;
    unsigned part = 0;
    int star = 0;

    /* parts: digits or '*' (that byte does not matter); with fewer than
     * four parts the last is '*' and the missing ones do not matter */
    a->family = 4;
    for (size_t i = 0;; part++) {
        size_t j = i;
        if (part == 4)
            return -1;
        while (j < an && s[j] != '.')
            j++;
        star = j - i == 1 && s[i] == '*';
        if (!star) {
            if (j == i || j - i > 3 || strspn(s + i, "0123456789") < j - i)
                return -1;
            unsigned v = 0;
            for (size_t k = i; k < j; k++)
                v = v * 10 + (unsigned)(s[k] - '0');
            if (v > 255)
                return -1;
            a->addr[part] = (uint8_t)v;
            a->mask[part] = 0xff;
        }
        if (j == an)
            break;
        i = j + 1;
    }
    if (part < 3 && !star)
        return -1; /* a short address without '*' */
    if (!plus)
        return 0;
    if (n - an - 1 >= sizeof(buf))
        return -1;
    memcpy(buf, plus + 1, n - an - 1);
    buf[n - an - 1] = 0;
    struct in_addr m;
    if (strspn(buf, "0123456789.") != strlen(buf) ||
        inet_pton(AF_INET, buf, &m) != 1)
        return -1;
    for (int k = 0; k < 4; k++)
        a->mask[k] &= ((const uint8_t *)&m)[k];
    return 0;
}

static int
ipv6(const char *s, size_t n, struct acreI_aci_addr *a)
{
    char buf[64];
    const char *slash = memchr(s, '/', n);
    size_t an = slash ? (size_t)(slash - s) : n;
    unsigned bits = 128;

    if (an >= sizeof(buf))
        return -1;
    memcpy(buf, s, an);
    buf[an] = 0;
    if (inet_pton(AF_INET6, buf, a->addr) != 1)
        return -1;
    if (slash) {
        size_t k = n - an - 1;
        if (!k || k > 3 || strspn(slash + 1, "0123456789") < k)
            return -1;
        memcpy(buf, slash + 1, k);
        buf[k] = 0;
        if ((bits = (unsigned)atoi(buf)) > 128)
            return -1;
    }
    a->family = 6;
    for (unsigned i = 0; i < 16; i++)
        a->mask[i] = bits >= 8 * (i + 1) ? 0xff
                     : bits > 8 * i ? (uint8_t)(0xff << (8 - (bits - 8 * i)))
                                    : 0;
    for (unsigned i = 0; i < 16; i++)
        a->addr[i] &= a->mask[i];
    return 0;
}

/* ------------------------------------------------------------------------
 * ip as 389 reads it.  389 stores any ip value and parses it when it
 * first evaluates it (lasip.cpp LASIpBuild, dotdecimal, colonhex_ipv6):
 * C string functions over the raw value, no syntax to speak of.  What it
 * makes is a bit tree to which each address adds its prefix in turn; a
 * value it cannot read stops the building where it fails (the addresses
 * before stay: 389 answers Undefined on the first evaluation only, then
 * from that part of the tree, the answer kept here).  The prefixes are
 * kept in order (addr with mask = the first bits); the engine walks them
 * as the tree would (ip_tree in eval_aci.c).
 */

/* glibc's atoi: (int)strtol, the long cut to 32 bits */
static uint32_t
atoi_u32(const char *s)
{
    return (uint32_t)(unsigned long)strtol(s, NULL, 10);
}

/* the first byte of s is in set, or s is empty (strcspn(s, set) == 0) */
static int
lead_in(const char *s, const char *set)
{
    return !*s || strchr(set, *s);
}

/* dotdecimal: the IPv4 address and netmask as 389 computes them;
 * -1 where it gives up */
static int
dotdec_389(const char *ip, const char *mask, uint32_t *addr, uint32_t *nm)
{
    char tok[64];

    if (!lead_in(mask, "0123456789.") || !lead_in(ip, "0123456789.*") ||
        strlen(mask) >= sizeof tok || strlen(ip) >= sizeof tok)
        return -1;
    *addr = *nm = 0;
    for (int i = 0; i < 4; i++) {
        const char *dot = strchr(mask, '.');
        size_t n = dot ? (size_t)(dot - mask) : strlen(mask);
        memcpy(tok, mask, n);
        tok[n] = 0;
        *nm += atoi_u32(tok) << (8 * (3 - i));
        if (!dot)
            break;
        mask = dot + 1;
    }
    for (int i = 0; i < 4; i++) {
        static const uint32_t star_last[] = {0, 0xff000000u, 0xffff0000u,
                                             0xffffff00u};
        static const uint32_t star_mid[] = {0x00ffffffu, 0xff00ffffu,
                                            0xffff00ffu, 0xffffff00u};
        static const uint32_t short_end[] = {0xff000000u, 0xffff0000u,
                                             0xffffff00u, 0xffffffffu};
        const char *dot = strchr(ip, '.');
        size_t n = dot ? (size_t)(dot - ip) : strlen(ip);
        memcpy(tok, ip, n);
        tok[n] = 0;
        if (dot)
            ip = dot + 1;
        if (!strcmp(tok, "*")) {
            *nm &= dot || i == 3 ? star_mid[i] : star_last[i];
            continue;
        }
        *addr += atoi_u32(tok) << (8 * (3 - i));
        if (!dot) {
            *nm &= short_end[i];
            break;
        }
    }
    return 0;
}

/* colonhex_ipv6 */
static int
colonhex_389(const char *ip, const char *mask, struct acreI_aci_addr *a)
{
    if (!lead_in(mask, "0123456789") ||
        !lead_in(ip, "0123456789:ABCDEFabcdef."))
        return -1;
    int bits = (int)atoi_u32(mask);
    if (bits < 1 || bits > 128 || inet_pton(AF_INET6, ip, a->addr) != 1)
        return -1;
    a->family = 6;
    for (int i = 0; i < 16; i++) {
        int k = bits - 8 * i;
        a->mask[i] = k >= 8 ? 0xff : k > 0 ? (uint8_t)(0xff << (8 - k)) : 0;
        a->addr[i] &= a->mask[i];
    }
    return 0;
}

/* an IPv4 address and netmask as LASIpAddPattern takes them: the prefix
 * runs down to the netmask's lowest bit set (the pattern's bits above it
 * count whatever the netmask says there); netmask 0: every address */
static void
prefix_v4(uint32_t addr, uint32_t nm, struct acreI_aci_addr *a)
{
    unsigned bits = 0;

    if (nm)
        for (bits = 32; !(nm & (1u << (32 - bits))); bits--)
            ;
    uint32_t m = bits ? 0xffffffffu << (32 - bits) : 0;
    a->family = 4;
    for (int i = 0; i < 4; i++) {
        a->addr[i] = (uint8_t)((addr & m) >> (24 - 8 * i));
        a->mask[i] = (uint8_t)(m >> (24 - 8 * i));
    }
}

/* Does 389's reading of ip value s (b's prefixes, in order) differ from
 * the plain one (a comma list of addresses, ipv4() / ipv6(), any of which
 * matches)?  So when the plain reading refuses an element, when the two
 * lists differ, or when a prefix lies inside an earlier, shorter one
 * (389's tree then cuts the shorter). */
static int
ip_plain_differs(const char *s, const struct acreI_bind *b)
{
    unsigned n = 0;

    for (const char *t = s, *c;; t = c + 1) {
        size_t a = 0, len = (c = strchr(t, ',')) ? (size_t)(c - t) : strlen(t);
        struct acreI_aci_addr x;
        trim(t, &a, &len);
        memset(&x, 0, sizeof x);
        if (!len || len >= 64 ||
            (memchr(t + a, ':', len) ? ipv6(t + a, len, &x)
                                     : ipv4(t + a, len, &x)) ||
            n >= b->naddrs || x.family != b->addrs[n].family ||
            memcmp(x.mask, b->addrs[n].mask, sizeof x.mask))
            return 1;
        for (unsigned k = 0; k < 16; k++)
            if ((x.addr[k] & x.mask[k]) != b->addrs[n].addr[k])
                return 1;
        n++;
        if (!c)
            break;
    }
    if (n != b->naddrs)
        return 1;
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = i + 1; j < n; j++) {
            const struct acreI_aci_addr *x = &b->addrs[i], *y = &b->addrs[j];
            unsigned k = 0, len = x->family == 4 ? 4 : 16, bx = 0, by = 0;
            if (x->family != y->family)
                continue;
            while (k < len && (y->addr[k] & x->mask[k]) == x->addr[k])
                k++;
            for (unsigned q = 0; q < len; q++)
                bx += (unsigned)__builtin_popcount(x->mask[q]),
                    by += (unsigned)__builtin_popcount(y->mask[q]);
            if (k == len && by > bx)
                return 1; /* y inside x, and longer */
        }
    return 0;
}

static int
ip_389(struct acreA_p *p, struct acreI_bind *b, struct operand v)
{
    char *s = talloc_strndup(p->ctx, p->s + v.off, v.n), tok[64], tok2[64];
    struct acreI_aci_addr *out;
    const char *cur = s;
    size_t d;

    if (!s ||
        !(out = talloc_zero_array(p->ctx, struct acreI_aci_addr, v.n + 1)))
        return ACRE_ERR_NOMEM;
    b->addrs = out;
    b->text = s;
    b->ipmode = ACREI_IP_TREE;
    if (!lead_in(s, "0123456789.*,+ \t"
                    "ABCDEFabcdef:/")) {
        b->ipmode = ACREI_IP_NEVER;
        b->odd = ACREI_ODD_IPNEVER;
        return 0;
    }
    do {
        struct acreI_aci_addr *a = &out[b->naddrs];
        uint32_t addr, nm;
        int bad;

        d = strcspn(cur, ", \t");
        if (d >= sizeof tok)
            break;
        memcpy(tok, cur, d);
        tok[d] = 0;
        const char *next = strpbrk(cur + d, "1234567890+.*ABCDEFabcdef:/");
        int v6 = strchr(tok, ':') != NULL;
        char *sep = strchr(tok, v6 ? '/' : '+');
        if (sep) {
            *sep = 0;
            bad = v6 ? colonhex_389(tok, sep + 1, a)
                     : dotdec_389(tok, sep + 1, &addr, &nm);
        } else if (next && *next == (v6 ? '/' : '+')) {
            /* "addr + mask": the mask is the next token, and 389 then
             * goes on one byte into it (so its tail reads as one more
             * address) */
            next = strpbrk(next + 1,
                           v6 ? "1234567890.*:ABCDEFabcdef" : "1234567890.*");
            if (!next)
                break; /* 389 would read past the value */
            d = strcspn(next, ", \t");
            if (d >= sizeof tok2)
                break;
            memcpy(tok2, next, d);
            tok2[d] = 0;
            bad = v6 ? colonhex_389(tok, tok2, a)
                     : dotdec_389(tok, tok2, &addr, &nm);
            next = strpbrk(next + 1,
                           v6 ? "1234567890+.:ABCDEFabcdef*" : "1234567890+.*");
        } else {
            bad = v6 ? colonhex_389(tok, "128", a)
                     : dotdec_389(tok, "255.255.255.255", &addr, &nm);
        }
        if (bad)
            break;
        if (!v6)
            prefix_v4(addr, nm, a);
        b->naddrs++;
        cur = next;
    } while (cur && d);
    if (b->naddrs && !(b->addrs = talloc_realloc(
                           p->ctx, out, struct acreI_aci_addr, b->naddrs)))
        return ACRE_ERR_NOMEM;
    if (ip_plain_differs(s, b))
        b->odd = ACREI_ODD_IP;
    return 0;
}

/* dayofweek as 389 reads it: the days whose lowercase name the value's
 * first 511 bytes, lowercased, contain */
static int
days_389(struct acreA_p *p, struct acreI_bind *b, struct operand v)
{
    static const char *const days[] = {"sun", "mon", "tue", "wed",
                                       "thu", "fri", "sat"};
    char *s = lower_dup(p, p->s + v.off, v.n < 511 ? v.n : 511);

    if (!s)
        return ACRE_ERR_NOMEM;
    for (unsigned d = 0; d < 7; d++)
        if (strstr(s, days[d]))
            b->days |= 1u << d;
    /* the plain reading: a comma list of day names, each once */
    unsigned plain = 0;
    for (char *t = s, *c;; t = c + 1) {
        size_t a = 0, n = (c = strchr(t, ',')) ? (size_t)(c - t) : strlen(t);
        trim(t, &a, &n);
        unsigned d = 0;
        while (d < 7 && !(n == 3 && !memcmp(t + a, days[d], 3)))
            d++;
        if (d == 7 || (plain & (1u << d))) {
            b->odd = ACREI_ODD_DAYS;
            break;
        }
        plain |= 1u << d;
        if (!c)
            break;
    }
    talloc_free(s);
    return 0;
}

/* ssf as 389 reads it: (int)strtol of the value without its blanks */
static int
ssf_389(struct acreA_p *p, struct acreI_bind *b, struct operand v)
{
    char *s = talloc_strndup(p->ctx, p->s + v.off, v.n);

    if (!s)
        return ACRE_ERR_NOMEM;
    b->num = (int32_t)(uint32_t)(unsigned long)strtol(s, NULL, 10);
    size_t a = 0, n = v.n;
    trim(s, &a, &n);
    if (!n || strspn(s + a, "0123456789") != n || n > 9)
        b->odd = ACREI_ODD_SSF;
    talloc_free(s);
    return 0;
}

/* Split v on ',' and call fn on each trimmed element. */
static int
each(struct acreA_p *p, struct operand v,
     int (*fn)(struct acreA_p *p, struct acreI_bind *b, size_t off, size_t n),
     struct acreI_bind *b)
{
    size_t a = v.off, e = v.off + v.n;

    for (;;) {
        const char *c = memchr(p->s + a, ',', e - a);
        size_t z = c ? (size_t)(c - p->s) : e, n = z - a, o = a;
        trim(p->s, &o, &n);
        int rc = count_term(p, o);
        if (!rc)
            rc = fn(p, b, o, n);
        if (rc)
            return rc;
        if (!c)
            return 0;
        a = z + 1;
    }
}

static int
ip_one(struct acreA_p *p, struct acreI_bind *b, size_t off, size_t n)
{
    struct acreI_aci_addr *a = (struct acreI_aci_addr *)&b->addrs[b->naddrs];
    const char *s = p->s + off;
    int bad = !n || n >= 64       ? -1
              : memchr(s, ':', n) ? ipv6(s, n, a)
                                  : ipv4(s, n, a);

    if (bad)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off, "invalid ip address");
    b->naddrs++;
    return 0;
}

static int
dns_one(struct acreA_p *p, struct acreI_bind *b, size_t off, size_t n)
{
    (void)b;
    for (size_t i = 0; i < n; i++) {
        char c = p->s[off + i];
        if (!acreE_is_alpha((unsigned char)c) &&
            !acreE_is_digit((unsigned char)c) && c != '-' && c != '.' &&
            c != '*' && c != '_')
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off + i,
                             "invalid character in a dns name");
    }
    if (!n)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off, "empty dns name");
    return 0;
}

/*
 * dns_389 -- a dns value as LASDnsBuild reads it: names cut at runs of
 * ',', ' ' and tab, any other byte kept (a name no host has never
 * matches), at most 255 bytes a name (the rest starts the next one); an
 * empty first name (the value starts with a separator, or is empty)
 * ends the list there (its loop stops at a name of no bytes).  b->text
 * gets the names, lowercased, joined by ','.
 */
static int
dns_389(struct acreA_p *p, struct acreI_bind *b, struct operand v)
{
    const char *s = p->s + v.off, *e = s + v.n;
    char *out = talloc_array(p->ctx, char, 2 * v.n + 1), *o = out;
    int rc;

    if (!out)
        return ACRE_ERR_NOMEM;
    size_t n;
    do {
        n = 0;
        while (s + n < e && s[n] != ',' && s[n] != ' ' && s[n] != '\t')
            n++;
        if (n > 255)
            n = 255;
        if ((rc = count_term(p, (size_t)(s - p->s))))
            return rc;
        if (o > out)
            *o++ = ',';
        for (size_t i = 0; i < n; i++)
            *o++ = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a') : s[i];
        s += n;
        while (s < e && (*s == ',' || *s == ' ' || *s == '\t'))
            s++;
    } while (s < e && n);
    *o = '\0';
    b->text = out;
    return 0;
}

static int
day_one(struct acreA_p *p, struct acreI_bind *b, size_t off, size_t n)
{
    static const char *days[] = {"sun", "mon", "tue", "wed",
                                 "thu", "fri", "sat"};

    for (unsigned d = 0; d < 7; d++)
        if (n == 3 && !strncasecmp(p->s + off, days[d], 3)) {
            b->days |= 1u << d;
            return 0;
        }
    return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off,
                     "a day is sun, mon, tue, wed, thu, fri or sat");
}

static int
number(struct acreA_p *p, struct operand v, long max, long *out)
{
    size_t a = v.off, n = v.n;

    trim(p->s, &a, &n);
    if (!n || n > 9 || strspn(p->s + a, "0123456789") < n)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, a, "expected a number");
    long x = 0;
    for (size_t i = 0; i < n; i++)
        x = x * 10 + (p->s[a + i] - '0');
    if (x > max)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, a, "number out of range");
    *out = x;
    return 0;
}

/* atoi389 -- what C's atoi reads at s[0..n): blanks, a sign, digits
 * (saturating far past any time of day). */
static long
atoi389(const char *s, size_t n)
{
    size_t i = 0;
    long x = 0, sign = 1;

    while (i < n && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r')))
        i++;
    if (i < n && (s[i] == '-' || s[i] == '+'))
        sign = s[i++] == '-' ? -1 : 1;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
        if (x < 100000000L)
            x = x * 10 + (s[i] - '0');
    return sign * x;
}

/* timeofday as 389 reads it (lastod.cpp LASTimeOfDayEval): no syntax at
 * all -- a value with a '-' is a range of two atoi() values (each part
 * under six bytes, else the rule never evaluates), any other an atoi()
 * value ("2400", "12", even "abc": 0). */
static int
timeofday_389(struct acreA_p *p, struct acreI_bind *b, struct operand v)
{
    const char *s = p->s + v.off;
    const char *dash = memchr(s, '-', v.n);

    if (!dash) {
        b->num = atoi389(s, v.n);
        return 0;
    }
    size_t a = (size_t)(dash - s), e = v.n - a - 1;
    if (a >= 6 || e >= 6) {
        b->tod = ACREI_TOD_INVALID;
        return 0;
    }
    b->tod = ACREI_TOD_RANGE;
    b->num = atoi389(s, a);
    b->num_end = atoi389(dash + 1, e);
    return 0;
}

static int
operand_of(struct acreA_p *p, struct acreI_bind *b, struct operand v)
{
    int rc;

    switch (b->kw) {
    case ACREI_ACI_USERDN:
    case ACREI_ACI_GROUPDN:
    case ACREI_ACI_ROLEDN:
        return subjects(p, b, v);
    case ACREI_ACI_USERATTR:
    case ACREI_ACI_USERDNATTR:
    case ACREI_ACI_GROUPDNATTR:
        return userattr(p, b, v);
    case ACREI_ACI_AUTHMETHOD:
        trim(p->s, &v.off, &v.n);
        return (b->text = lower_dup(p, p->s + v.off, v.n)) ? 0 : ACRE_ERR_NOMEM;
    case ACREI_ACI_SSF:
        if (p->variant == ACREI_ACI_389)
            return ssf_389(p, b, v);
        return number(p, v, 1000000000L, &b->num);
    case ACREI_ACI_TIMEOFDAY:
        if (p->variant == ACREI_ACI_389)
            return timeofday_389(p, b, v);
        if ((rc = number(p, v, 2359, &b->num)))
            return rc;
        if (b->num % 100 > 59)
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, v.off,
                             "timeofday is hhmm");
        return 0;
    case ACREI_ACI_IP:
        if (p->variant == ACREI_ACI_389)
            return ip_389(p, b, v);
        if (!(b->addrs = talloc_zero_array(p->ctx, struct acreI_aci_addr,
                                           v.n / 2 + 1)))
            return ACRE_ERR_NOMEM;
        return each(p, v, ip_one, b);
    case ACREI_ACI_DNS:
        if (p->variant == ACREI_ACI_389)
            return dns_389(p, b, v);
        if ((rc = each(p, v, dns_one, b)))
            return rc;
        return (b->text = lower_dup(p, p->s + v.off, v.n)) ? 0 : ACRE_ERR_NOMEM;
    case ACREI_ACI_DAYOFWEEK:
        if (p->variant == ACREI_ACI_389)
            return days_389(p, b, v);
        return each(p, v, day_one, b);
    default:
        return ACRE_ERR_INVAL;
    }
}

/* ------------------------------------------------------------------------
 * KEYWORD OP VALUE
 */
static const struct {
    const char *w;
    enum acreI_aci_kw kw;
    int ordered; /* takes <= >= (and, OpenDJ, < >) */
} kw_tab[] = {
    {"userdn", ACREI_ACI_USERDN, 0},
    {"groupdn", ACREI_ACI_GROUPDN, 0},
    {"roledn", ACREI_ACI_ROLEDN, 0},
    {"userattr", ACREI_ACI_USERATTR, 0},
    {"userdnattr", ACREI_ACI_USERDNATTR, 0},
    {"groupdnattr", ACREI_ACI_GROUPDNATTR, 0},
    {"authmethod", ACREI_ACI_AUTHMETHOD, 0},
    {"ssf", ACREI_ACI_SSF, 1},
    {"ip", ACREI_ACI_IP, 0},
    {"dns", ACREI_ACI_DNS, 0},
    {"dnsalias", ACREI_ACI_DNS, 0}, /* 389: LASDnsEval too */
    {"dayofweek", ACREI_ACI_DAYOFWEEK, 0},
    {"timeofday", ACREI_ACI_TIMEOFDAY, 1},
};

static int
op_of(struct acreA_lex *L, int ordered, enum acreI_aci_op *op)
{
    const char *s = L->p->s + L->t.off;
    size_t n = L->t.n;

    if (L->t.kind != ACREA_TOP)
        return acreA_err(L->p, ACRE_ERR_RULE_SYNTAX, L->t.off,
                         "expected '=' or \"!=\" after the keyword");
    *op = n == 1 && s[0] == '='   ? ACREI_ACI_EQ
          : s[0] == '!'           ? ACREI_ACI_NE
          : n == 2 && s[0] == '<' ? ACREI_ACI_LE
          : n == 2 && s[0] == '>' ? ACREI_ACI_GE
          : s[0] == '<'           ? ACREI_ACI_LT
          : s[0] == '>'           ? ACREI_ACI_GT
                                  : 0;
    if (*op == 0 || (n == 2 && s[1] != '=')) /* "==" */
        return acreA_err(L->p, ACRE_ERR_RULE_SYNTAX, L->t.off,
                         "unknown operator");
    if (*op > ACREI_ACI_NE && !ordered && L->p->variant != ACREI_ACI_389)
        return acreA_err(L->p, ACRE_ERR_RULE_SYNTAX, L->t.off,
                         "this keyword takes only '=' or \"!=\"");
    return 0;
}

int
acreA_keyword(struct acreA_lex *L, const struct acreI_bind **out)
{
    struct acreA_p *p = L->p;
    size_t off = L->t.off;
    size_t k = 0, nk = sizeof(kw_tab) / sizeof(kw_tab[0]);
    int rc;

    if (L->t.kind != ACREA_TWORD)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off, "expected a bind rule");
    while (k < nk && !acreA_is(L, kw_tab[k].w))
        k++;
    if (k == nk)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off,
                         "unknown bind rule keyword \"%.*s\"",
                         (int)(L->t.n > 40 ? 40 : L->t.n), p->s + off);
    /* OpenDJ (EnumBindRuleKeyword, BindRule.decode): no roledn, nor
     * the old userdnattr / groupdnattr, nor 389's dnsalias */
    int alias = !strcmp(kw_tab[k].w, "dnsalias");
    if (p->variant == ACREI_ACI_OPENDJ &&
        (kw_tab[k].kw == ACREI_ACI_ROLEDN || alias ||
         kw_tab[k].kw == ACREI_ACI_USERDNATTR ||
         kw_tab[k].kw == ACREI_ACI_GROUPDNATTR))
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off,
                         "OpenDJ does not support %s", kw_tab[k].w);
    struct acreI_bind *b = talloc_zero(p->ctx, struct acreI_bind);
    if (!b)
        return ACRE_ERR_NOMEM;
    b->kw = kw_tab[k].kw;
    p->kw_lower = !memcmp(p->s + off, kw_tab[k].w, L->t.n);
    /* libaccess finds a rule's LAS by its exact name: 389 refuses the
     * aci when a bind rule keyword is not written in lowercase */
    if (p->variant == ACREI_ACI_389 && !p->kw_lower)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off,
                         "389-DS takes bind rule keywords in lowercase only "
                         "(%s)",
                         kw_tab[k].w);
    b->pos.file = p->at ? p->at->file : NULL;
    b->pos.line = p->at ? p->at->line : 0;
    b->pos.column = p->at && p->at->column ? p->at->column + (unsigned)off : 0;
    if ((rc = count_term(p, off)) || (rc = acreA_next(L)) ||
        (rc = op_of(L, kw_tab[k].ordered, &b->op)) || (rc = acreA_next(L)))
        return rc;
    if (b->op > ACREI_ACI_NE && !kw_tab[k].ordered)
        b->odd = ACREI_ODD_ORDER;
    if (L->t.kind != ACREA_TQSTR && L->t.kind != ACREA_TWORD)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, L->t.off,
                         "expected a value after the operator");
    struct operand v = {L->t.off, L->t.n};
    if ((rc = operand_of(p, b, v)) || (rc = acreA_next(L)))
        return rc;
    *out = b;
    return 0;
}

/* ------------------------------------------------------------------------
 * targattrfilters="add=attr:(f) && attr2:(f2), del=attr:(f)"
 */

/* The end of the element starting at a: sep outside parentheses, or e. */
static size_t
split_at(const char *s, size_t a, size_t e, const char *sep)
{
    int depth = 0;
    size_t k = strlen(sep);

    for (size_t i = a; i < e; i++) {
        if (s[i] == '\\' && i + 1 < e) {
            i++;
            continue;
        }
        depth += s[i] == '(' ? 1 : s[i] == ')' ? -1 : 0;
        if (depth == 0 && i + k <= e && !memcmp(s + i, sep, k))
            return i;
    }
    return e;
}

/* 389 (acl_verify_exactly_one_attribute): every item of the parsed
 * filter is on the attribute type *arg (options aside); an extensible
 * item naming no type is on none. */
static int
own_attr_item(void *arg, const struct acreF_desc *d)
{
    return d && d->type == *(const int *)arg;
}

static int
only_attr(struct acreA_p *p, size_t a, const struct acreF_filter *f, int type)
{
    if (!acreF_every_item(f, own_attr_item, &type))
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, a,
                         "a targattrfilters filter may test only its "
                         "own attribute");
    return 0;
}

static int
attrfilter(struct acreA_p *p, size_t a, size_t e,
           struct acreI_aci_attrfilter *f)
{
    const char *colon = memchr(p->s + a, ':', e - a);
    int rc;

    if (!colon)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, a,
                         "targattrfilters elements are attr:(filter)");
    size_t c = (size_t)(colon - p->s), fa = c + 1, fn = e - c - 1;
    if ((rc = attr_id(p, a, c, "targattrfilters", &f->type)))
        return rc;
    /* 389 finds the filter of an attribute by comparing its name, as
     * written, with the attribute's (normalised to the type's first
     * name) as strings, case aside (slapi_attr_type_cmp, attrlist_find):
     * a filter named by an alias or an OID governs nothing */
    size_t na = a, nn = c - a;
    trim(p->s, &na, &nn);
    for (size_t i = 0; i < nn; i++)
        if (p->s[na + i] == ';')
            nn = i;
    const struct acreS_attr *at =
        f->type >= 0 ? acreS_attr(p->schema, f->type) : NULL;
    const char *first = !at ? NULL : at->nnames ? at->names[0] : at->oid;
    f->alias =
        first && (strlen(first) != nn || strncasecmp(first, p->s + na, nn));
    trim(p->s, &fa, &fn);
    if (p->variant == ACREI_ACI_389) {
        /* __acl_trim_filterstr first takes off the parentheses around a
         * parenthesised filter: "((cn=a))" is "(cn=a)" */
        size_t m;
        while (fn > 1 && p->s[fa] == '(' && p->s[fa + 1] == '(' &&
               (m = acreF_paren_end(p->s + fa, fn)) > 1 &&
               p->s[fa + m - 1] == ')')
            fa++, fn = m - 2;
        fn = acreF_paren_end(p->s + fa, fn);
    }
    if (!(f->text = talloc_strndup(p->ctx, p->s + fa, fn)))
        return ACRE_ERR_NOMEM;
    if ((rc = acreA_filter(p, fa, p->s + fa, fn, &f->filter)))
        return rc;
    return only_attr(p, fa, f->filter, f->type);
}

/* s[a..e) holds w (389's strstr), or not: its offset, or e */
static size_t
find_str(const char *s, size_t a, size_t e, const char *w)
{
    size_t i = acreA_find(s, a, e, w);

    return i == (size_t)-1 ? e : i;
}

static int
attrfilter_list(struct acreA_p *p, size_t a, size_t e,
                const struct acreI_aci_attrfilter **out, unsigned *n)
{
    unsigned cnt = 0, max = (unsigned)((e - a) / 3 + 1);
    struct acreI_aci_attrfilter *f =
        talloc_zero_array(p->ctx, struct acreI_aci_attrfilter, max);
    int is389 = p->variant == ACREI_ACI_389;

    if (!f)
        return ACRE_ERR_NOMEM;
    for (;;) {
        /* 389 (process_filter_list) finds the first "&&" with strstr,
         * parentheses or not */
        size_t z =
            is389 ? find_str(p->s, a, e, "&&") : split_at(p->s, a, e, "&&");
        size_t o = a, k = z - a;
        int rc = count_term(p, a);
        /* 389 drops one ',' ending a filter (__acl_trim_filterstr): the
         * separator before its "del=" */
        trim(p->s, &o, &k);
        if (is389 && k && p->s[o + k - 1] == ',')
            k--;
        if (!rc)
            rc = attrfilter(p, o, o + k, &f[cnt++]);
        if (rc)
            return rc;
        a = z + 2;
        /* 389 ends the list at a trailing "&&" (the empty rest) */
        if (z >= e || (is389 && a >= e))
            break;
        if (is389) {
            size_t r = a, rn = e - a;
            trim(p->s, &r, &rn);
            if (!rn)
                break;
        }
    }
    *out = f;
    *n = cnt;
    return 0;
}

/* 389 (__aclp__init_targetattrfilters): the text before the first '=' is
 * "add" or "del", as written; the other list starts at the first
 * "del=" (else "del =") of the rest, or "add=" / "add =" when del came
 * first, wherever it is -- in a filter too -- and the character before
 * it is cut off, whatever it is (", " and " && " are the separators
 * that work). */
static int
attrfilters_389(struct acreA_p *p, size_t a, size_t e,
                struct acreI_aci_target *t)
{
    const char *s = p->s;
    const char *eq = memchr(s + a, '=', e - a);

    if (!eq)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, a,
                         "targattrfilters parts are add=... or del=...");
    size_t q = (size_t)(eq - s);
    int add = q - a == 3 && !memcmp(s + a, "add", 3);
    if (!add && !(q - a == 3 && !memcmp(s + a, "del", 3)))
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, a,
                         "targattrfilters parts are add=... or del=...");
    size_t l1 = q + 1, z = find_str(s, l1, e, add ? "del=" : "add=");
    if (z >= e)
        z = find_str(s, l1, e, add ? "del =" : "add =");
    size_t end1 = z >= e ? e : z > l1 ? z - 1 : l1, n1 = end1 - l1;
    int rc;
    trim(s, &l1, &n1);
    rc =
        add ? attrfilter_list(p, l1, l1 + n1, &t->add_filters, &t->nadd_filters)
            : attrfilter_list(p, l1, l1 + n1, &t->del_filters,
                              &t->ndel_filters);
    if (rc || z >= e)
        return rc;
    size_t l2 = (size_t)((const char *)memchr(s + z, '=', e - z) - s) + 1;
    size_t n2 = e - l2;
    trim(s, &l2, &n2);
    return add ? attrfilter_list(p, l2, l2 + n2, &t->del_filters,
                                 &t->ndel_filters)
               : attrfilter_list(p, l2, l2 + n2, &t->add_filters,
                                 &t->nadd_filters);
}

int
acreA_attrfilters(struct acreA_p *p, size_t off, size_t n,
                  struct acreI_aci_target *t)
{
    size_t a = off, e = off + n;

    if (off == 0 || p->s[off - 1] != '"')
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off,
                         "targattrfilters takes a quoted value");
    if (p->variant == ACREI_ACI_389)
        return attrfilters_389(p, a, e, t);

    for (;;) {
        size_t z = split_at(p->s, a, e, ","), o = a, k = z - a;
        trim(p->s, &o, &k);
        /* 389 compares them case-sensitively (strcmp, strstr) */
        int (*cmp)(const char *, const char *, size_t) =
            p->variant == ACREI_ACI_389 ? strncmp : strncasecmp;
        int add = k >= 4 && !cmp(p->s + o, "add=", 4);
        int del = k >= 4 && !cmp(p->s + o, "del=", 4);
        int rc;
        if (!add && !del)
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, o,
                             "targattrfilters parts are add=... or del=...");
        if ((add && t->add_filters) || (del && t->del_filters))
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, o,
                             "add= or del= given twice");
        rc = add ? attrfilter_list(p, o + 4, o + k, &t->add_filters,
                                   &t->nadd_filters)
                 : attrfilter_list(p, o + 4, o + k, &t->del_filters,
                                   &t->ndel_filters);
        if (rc)
            return rc;
        if (z >= e)
            return 0;
        a = z + 1;
    }
}
