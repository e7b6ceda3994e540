/*
 * aci_scan389.c -- what 389-DS's rule scanner refuses in an ACL text.
 *
 * Before libaccess reads an ACL text, 389's aclparse.c normalises the
 * DNs of its userdn, groupdn and roledn rules (__aclp__normalize_acltxt).
 * It cuts the text at every ';' into parts, and in each allow or deny
 * part looks for the rules word by word (__aclp__getNextLASRule): words
 * are cut at spaces only, and a word holds a rule when, in the order
 * userdnattr, userdn, groupdnattr, groupdn, userattr, roledn,
 * authmethod, ip, timeofday, dayofweek, dns, ssf, the first of those
 * names found anywhere in it (case-sensitively) is followed by an '=' in
 * the same word or by a word starting with an operator.  So
 * dns="vip.example.com" holds "ip" before "dns" and no rule, and
 * userattr="manager#userdn" holds "userdn" before "userattr".  Checked
 * on 389-DS 2.3.1:
 *   - a scan that finds no rule up to the end of the part, after a word
 *     that held one of the names, leaves 389 with a pointer into freed
 *     memory, and the aci is refused (userattr="manager#userdn";
 *     ... and dns="ship.example.com"); one that finds a rule later in the
 *     part is fine (dns="ship.example.com" and userdn=...);
 *   - a part where the scan finds no rule at all loses its bind rule in
 *     389's rewrite, and libaccess refuses what is left
 *     (userdn ! = "ldap:///anyone");
 *   - a rule found at a userdn, groupdn or roledn name must have an '='
 *     and an "ldap:///" or "ldaps:///" after which 389's DN normaliser
 *     takes the text up to its '?' or its closing quote
 *     (roledn="ldap:///cn=userdn,dc=x" is read from "userdn" and
 *     refused); userattr, userdnattr and groupdnattr rules only need
 *     the DN after an "ldap:///" to normalise.
 * Only the 389 variant asks; the parse proper has accepted the text.
 */
#include "aci.h"
#include "internal.h"

#include <string.h>
#include <strings.h>

enum { K_NONE, K_UDNATTR, K_UDN, K_GDNATTR, K_GDN, K_UATTR, K_RDN, K_OTHER };

static const struct {
    const char *w;
    int kind, dn;
} las[] = {
    {"userdnattr", K_UDNATTR, 0},  {"userdn", K_UDN, 1},
    {"groupdnattr", K_GDNATTR, 0}, {"groupdn", K_GDN, 1},
    {"userattr", K_UATTR, 0},      {"roledn", K_RDN, 1},
    {"authmethod", K_OTHER, 0},    {"ip", K_OTHER, 0},
    {"timeofday", K_OTHER, 0},     {"dayofweek", K_OTHER, 0},
    {"dns", K_OTHER, 0},           {"ssf", K_OTHER, 0},
};

/* acreA_find -- see aci.h. */
size_t
acreA_find(const char *s, size_t a, size_t b, const char *t)
{
    size_t n = strlen(t);

    for (size_t i = a; i + n <= b; i++)
        if (!memcmp(s + i, t, n))
            return i;
    return (size_t)-1;
}

/* The next word of s[*i..e) cut at spaces (strtok with " "). */
static int
word(const char *s, size_t *i, size_t e, size_t *wa, size_t *wb)
{
    while (*i < e && s[*i] == ' ')
        (*i)++;
    if (*i >= e)
        return 0;
    *wa = *i;
    while (*i < e && s[*i] != ' ')
        (*i)++;
    *wb = *i;
    if (*i < e)
        (*i)++;
    return 1;
}

static int
is_word(const char *s, size_t a, size_t b, const char *w)
{
    return b - a == strlen(w) && !strncasecmp(s + a, w, b - a);
}

/* The closing end of a rule: back from x to a '"', else x's trailing
 * spaces left out (389 cannot find the quote). */
static size_t
rule_end(const char *s, size_t b, size_t x)
{
    size_t end = x;

    while (end != b && s[end] != '"')
        end--;
    if (end == b) {
        end = x;
        while (end != b && s[end] == ' ')
            end--;
        if (end != b)
            end++;
    }
    return end;
}

struct scan {
    size_t start, end, at, atn; /* the rule's start and end; a bad name */
    int found, dangling;
};

/* One __aclp__getNextLASRule over s[b..e). */
static void
next_rule(const char *s, size_t b, size_t e, struct scan *r)
{
    size_t i = b, wa, wb, rs = (size_t)-1, endw = (size_t)-1;
    int in_dn = 0, start = 0;

    memset(r, 0, sizeof(*r));
    if (e - b >= 5 &&
        (!strncasecmp(s + b, "allow", 5) || !strncasecmp(s + b, "deny", 4))) {
        while (i < e && s[i] == ')') /* the first word ends at a ')' */
            i++;
        while (i < e && s[i] != ')')
            i++;
        if (i < e)
            i++;
    } else if (!word(s, &i, e, &wa, &wb)) {
        return;
    }
    while (word(s, &i, e, &wa, &wb)) {
        int kind = K_NONE, got = 0;
        size_t k, kl = 0;
        rs = (size_t)-1;
        for (k = 0; k < sizeof(las) / sizeof(las[0]); k++)
            if ((rs = acreA_find(s, wa, wb, las[k].w)) != (size_t)-1) {
                kind = las[k].kind;
                kl = r->atn = strlen(las[k].w);
                in_dn |= las[k].dn;
                break;
            }
        size_t len = wb - wa;
        if (in_dn && (s[wb - 1] == '"' || (len > 1 && s[wb - 2] == '"') ||
                      (len > 2 && s[wb - 3] == '"')))
            in_dn = 0;
        if (kind != K_NONE) {
            if (memchr(s + rs + kl, '=', wb - rs - kl)) {
                got = 1;
            } else if (word(s, &i, e, &wa, &wb)) {
                got = s[wa] == '=' || s[wa] == '>' || s[wa] == '<' ||
                      (wb - wa >= 2 && s[wa] == '!' && s[wa + 1] == '=');
            } else {
                wa = wb = (size_t)-1; /* no word left */
            }
        }
        if (!start && got) {
            start = 1;
            r->start = rs;
        } else if (wa != (size_t)-1 && !in_dn &&
                   (is_word(s, wa, wb, "and") || is_word(s, wa, wb, "or") ||
                    is_word(s, wa, wb, "not") || is_word(s, wa, wb, ";")) &&
                   start) {
            endw = wa - 1;
            break;
        }
    }
    r->found = start;
    r->end = rule_end(s, b, endw != (size_t)-1 ? endw : e - 1);
    r->dangling = !start && rs != (size_t)-1;
    r->at = rs;
}

/* __aclp__copy_normalized_str: the DN after "ldap:///" in s[a..e) up to
 * '?' must normalise; strict: and there must be one.  0 or the offset of
 * the trouble + 1. */
static size_t
copy_norm(const char *s, size_t a, size_t e, int strict)
{
    size_t p = acreA_find(s, a, e, "ldap:///"), k = 8;
    const char *why;

    if (p == (size_t)-1) {
        p = acreA_find(s, a, e, "ldaps:///");
        k = 9;
    }
    if (p == (size_t)-1)
        return strict ? a + 1 : 0;
    p += k;
    const char *q = memchr(s + p, '?', e > p ? e - p : 0);
    size_t len = (q ? (size_t)(q - s) : e) - p;
    size_t bad = acreA_norm389(s + p, len, &why);
    return bad < len ? p + bad + 1 : 0;
}

/* The rule a scan found at s[r->start..r->end): 0 or the offset of the
 * trouble + 1. */
static size_t
check_rule(const char *s, const struct scan *r)
{
    size_t a = r->start, e = r->end;

    if (!strncmp(s + a, "userdnattr", 10) || !strncmp(s + a, "userattr", 8) ||
        !strncmp(s + a, "groupdnattr", 11))
        return copy_norm(s, a, e, 0);
    int udn = !strncmp(s + a, "userdn", 6);
    if (!udn && strncmp(s + a, "groupdn", 7) && strncmp(s + a, "roledn", 6))
        return 0;
    const char *eq = memchr(s + a, '=', e - a);
    if (!eq)
        return a + 1;
    size_t bad = copy_norm(s, a, e, 1);
    if (bad)
        return bad;
    size_t p = (size_t)(eq - s) - 1;
    if (udn) { /* and an ldap:/// of any case after the operator */
        for (size_t i = p; i + 8 <= e; i++)
            if (!strncasecmp(s + i, "ldap:///", 8) ||
                (i + 9 <= e && !strncasecmp(s + i, "ldaps:///", 9)))
                return 0;
        return a + 1;
    }
    return 0;
}

/* acreA_scan389 -- see aci.h. */
int
acreA_scan389(struct acreA_p *p, size_t off, size_t n)
{
    const char *s = p->s;
    size_t e = off + n, i, semi;
    int first = 1;

    /* past "version 3.0;" and "acl NAME;" */
    for (int k = 0; k < 2; k++) {
        const char *c = memchr(s + off, ';', e - off);
        if (!c)
            return 0;
        off = (size_t)(c - s) + 1;
    }
    for (i = off; i < e; i = semi + 1) {
        const char *c = memchr(s + i, ';', e - i);
        semi = c ? (size_t)(c - s) : e;
        if (!first) { /* a later part counts when "allow" or "deny" follows */
            if (acreA_find(s, i, e, "allow") == (size_t)-1 &&
                acreA_find(s, i, e, "deny") == (size_t)-1)
                return 0;
        }
        first = 0;
        size_t b = i;
        while (b < semi && s[b] == ' ')
            b++;
        if (semi - b < 4 ||
            (strncasecmp(s + b, "allow", 5) && strncasecmp(s + b, "deny", 4)))
            return 0; /* the parse proper has judged it */
        struct scan r;
        next_rule(s, b, semi, &r);
        if (!r.found && !r.dangling) /* 389 then drops the bind rule */
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, b,
                             "389-DS refuses this aci: its rule scanner "
                             "finds no bind rule in this part");
        while (r.found && r.start < r.end) {
            size_t bad = check_rule(s, &r);
            if (bad)
                return acreA_err(p, ACRE_ERR_RULE_SYNTAX, bad - 1,
                                 "389-DS refuses this aci: its rule scanner "
                                 "reads a rule from the name at column %u "
                                 "that does not hold one",
                                 (unsigned)(r.start - off) + 1);
            size_t from = r.end + 1;
            if (from >= semi)
                break;
            next_rule(s, from, semi, &r);
        }
        if (r.dangling)
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, r.at,
                             "389-DS refuses this aci: its rule scanner "
                             "takes \"%.*s\" here for a rule name and finds "
                             "no rule after it",
                             (int)r.atn, s + r.at);
        if (!c)
            break;
    }
    return 0;
}
