/*
 * aci_dn.c -- the DNs, DN patterns, LDAP URLs and filters inside an `aci`
 * value, and the dialect's diagnostics.
 *
 * A DN after "ldap:///" is parsed by acre_dn_parse when it holds neither
 * a '*' wildcard nor a macro.  Otherwise it is a pattern, kept as text
 * the way 389 compares it (slapi_dn_normalize_case: lowercased, no spaces
 * around ',' and '='): each RDN must still be TYPE=VALUE, where TYPE may
 * be '*' and VALUE may hold '*' and "($attr.NAME)"; an RDN may also be a
 * whole "($dn)" or "[$dn]" macro.  389 refuses a bare '*' RDN
 * (a DN such as "ldap:///" + "*,dc=example,dc=com": its DN
 * normaliser fails), and so does
 * this file.  Macro names are checked as 389's sanity check does: "($dn)",
 * "[$dn]", "($attr." + a letter, then letters, digits and '-'.
 *
 * Invariant: everything is allocated under p->ctx; errors go through
 * acreA_err, which prefixes the holder and value index.
 */
#include "aci.h"
#include "internal.h"

#include "buf.h"
#include "dn.h"
#include "filter.h"
#include "schema.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

int
acreA_err(struct acreA_p *p, int code, size_t off, const char *fmt, ...)
{
    char msg[200];
    va_list ap;
    const char *dn = p->holder ? acreD_pretty(p->holder) : "";

    if (!p->diag)
        return code;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    memset(p->diag, 0, sizeof(*p->diag));
    p->diag->code = code;
    p->diag->offset = off;
    if (p->at) {
        p->diag->file = p->at->file;
        p->diag->line = p->at->line;
        p->diag->column = p->at->column ? p->at->column + (unsigned)off : 0;
    }
    snprintf(p->diag->message, sizeof(p->diag->message),
             "entry '%.80s', aci value %u: %s", dn, p->value_index + 1, msg);
    return code;
}

int
acreA_unknown_name(struct acreA_p *p, size_t off, size_t n, const char *where)
{
    struct acreA_lint *L = p->lint;
    size_t cap = talloc_array_length(L->unk);

    if (L->nunk == cap) {
        struct acreA_unknown *v = talloc_realloc(
            L->ctx, L->unk, struct acreA_unknown, cap ? 2 * cap : 8);
        if (!v)
            return ACRE_ERR_NOMEM;
        L->unk = v;
    }
    char *name = talloc_strndup(L->ctx, p->s + off, n > 80 ? 80 : n);
    if (!name)
        return ACRE_ERR_NOMEM;
    struct acreA_unknown *u = &L->unk[L->nunk++];
    memset(u, 0, sizeof(*u));
    u->name = name;
    u->where = where;
    u->off = off;
    if (p->at)
        u->pos = *p->at;
    p->flags |= ACREI_ACI_F_UNKNOWN;
    return 0;
}

/* acreA_alias_name -- see aci.h. */
int
acreA_alias_name(struct acreA_p *p, size_t off, size_t n, int id,
                 const char *where)
{
    const char *first = acreS_attr(p->schema, id)->dn.name;
    size_t k = 0;

    while (k < n && p->s[off + k] != ';')
        k++;
    if (p->variant != ACREI_ACI_389 || !p->lint ||
        (strlen(first) == k && !strncasecmp(first, p->s + off, k)))
        return 0;
    int rc = acreA_unknown_name(p, off, n, where);
    if (!rc)
        p->lint->unk[p->lint->nunk - 1].first = first;
    return rc;
}

int
acreA_filter_names(struct acreA_p *p, size_t off, size_t n, const char *where)
{
    const char *s = p->s;

    /* an item's description follows a '(' that opens no &, |, ! or
     * nested '(' and ends at the first of = ~ < > : (the value of a
     * parsed filter holds no bare parenthesis) */
    for (size_t i = off; i < off + n; i++) {
        if (s[i] == '\\') {
            i++;
            continue;
        }
        if (s[i] != '(' || (i + 1 < off + n && strchr("&|!(", s[i + 1])))
            continue;
        size_t a = i + 1, j = a;
        while (j < off + n && !strchr("=~<>:;()", s[j]))
            j++;
        if (j == a || j >= off + n || strchr("()", s[j]))
            continue;
        int id = acreS_attr_find(p->schema, s + a, j - a);
        if (id < 0) {
            int rc = acreA_unknown_name(p, a, j - a, where);
            if (rc)
                return rc;
        } else if (p->filter389) {
            int rc = acreA_alias_name(p, a, j - a, id, where);
            if (rc)
                return rc;
        }
    }
    return 0;
}

size_t
acreA_url_prefix(const char *s, size_t n)
{
    if (n >= 8 && !strncasecmp(s, "ldap:///", 8))
        return 8;
    if (n >= 9 && !strncasecmp(s, "ldaps:///", 9))
        return 9;
    return 0;
}

/* Does s[0..n) start with the literal lit, case-insensitively? */
static int
starts(const char *s, size_t n, const char *lit)
{
    size_t k = strlen(lit);
    return n >= k && !strncasecmp(s, lit, k);
}

/* The length of a macro at s[0..n) ("($dn)", "[$dn]", "($attr.NAME)"),
 * 0 when none starts there, (size_t)-1 when a bad one does; *flag its
 * ACREI_ACI_MACRO_* bit. */
static size_t
macro_at(const char *s, size_t n, unsigned *flag)
{
    if (starts(s, n, "($dn)")) {
        *flag = ACREI_ACI_MACRO_DN;
        return 5;
    }
    if (starts(s, n, "[$dn]")) {
        *flag = ACREI_ACI_MACRO_DN_UP;
        return 5;
    }
    if (starts(s, n, "($attr.")) {
        size_t i = 7;
        if (i >= n || !acreE_is_alpha((unsigned char)s[i]))
            return (size_t)-1;
        while (i < n && (acreE_is_alpha((unsigned char)s[i]) ||
                         acreE_is_digit((unsigned char)s[i]) || s[i] == '-'))
            i++;
        if (i >= n || s[i] != ')')
            return (size_t)-1;
        *flag = ACREI_ACI_MACRO_ATTR;
        return i + 1;
    }
    if (starts(s, n, "($") || starts(s, n, "[$"))
        return (size_t)-1;
    return 0;
}

/* The end of the RDN starting at s[i] (an unescaped ',' or n). */
static size_t
rdn_end(const char *s, size_t n, size_t i)
{
    while (i < n && s[i] != ',') {
        if (s[i] == '\\' && i + 1 < n)
            i++;
        i++;
    }
    return i;
}

static void
trim(const char *s, size_t *a, size_t *b)
{
    while (*a < *b && (s[*a] == ' ' || s[*a] == '\t'))
        (*a)++;
    while (*b > *a && (s[*b - 1] == ' ' || s[*b - 1] == '\t'))
        (*b)--;
}

/* Append s[a..b) lowercased, checking its macros; *flags collects them. */
static int
put_lower(struct acreA_p *p, size_t off, const char *s, size_t a, size_t b,
          unsigned *flags, struct acreE_buf *out)
{
    for (size_t i = a; i < b; i++) {
        unsigned f = 0;
        size_t m = macro_at(s + i, b - i, &f);
        if (m == (size_t)-1)
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off + i,
                             "unknown or malformed macro");
        /* 389 matches a "($dn)" inside a value ("ou=($dn)") by text
         * (acl_match_macro_in_target: the prefix found in the DN); a
         * "[$dn]" there it refuses ("Target is beyond the scope") */
        if (m && f == ACREI_ACI_MACRO_DN_UP)
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off + i,
                             "a [$dn] macro must be a whole RDN");
        *flags |= f;
        if (m && f == ACREI_ACI_MACRO_ATTR && p->lint) { /* ($attr.NAME) */
            int rc = 0;
            if (acreS_attr_find(p->schema, s + i + 7, m - 8) < 0)
                rc = acreA_unknown_name(p, off + i + 7, m - 8,
                                        "an ($attr.NAME) macro");
            if (rc)
                return rc;
        }
        char c = s[i];
        if (c >= 'A' && c <= 'Z')
            c = (char)(c - 'A' + 'a');
        if (acreE_buf_putc(out, (uint8_t)c))
            return ACRE_ERR_NOMEM;
    }
    return 0;
}

/* One RDN s[a..b) of a pattern, appended to out normalised. */
static int
pattern_rdn(struct acreA_p *p, size_t off, const char *s, size_t a, size_t b,
            unsigned *flags, struct acreE_buf *out)
{
    unsigned f = 0;
    size_t eq = a;

    trim(s, &a, &b);
    size_t m = macro_at(s + a, b - a, &f);
    if (m != (size_t)-1 && m == b - a && m && f != ACREI_ACI_MACRO_ATTR) {
        *flags |= f;
        return acreE_buf_put(out, f == ACREI_ACI_MACRO_DN ? "($dn)" : "[$dn]",
                             5)
                   ? ACRE_ERR_NOMEM
                   : 0;
    }
    /* "($attr.manager)" alone: the entry's values are whole DNs (389
     * expands the text, then reads it as a DN) */
    if (m != (size_t)-1 && m == b - a && m && f == ACREI_ACI_MACRO_ATTR)
        return put_lower(p, off, s, a, b, flags, out);
    while (eq < b && s[eq] != '=')
        eq += s[eq] == '\\' ? 2 : 1;
    /* 389 matches a subject pattern as a substring filter over the DN's
     * text: "u*" or "*judy*" (its normaliser passes an RDN with no '=') */
    if (eq >= b && p->variant == ACREI_ACI_389 && p->subject_pat &&
        memchr(s + a, '*', b - a))
        return put_lower(p, off, s, a, b, flags, out);
    if (eq >= b)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off + a,
                         "an RDN of the DN has no '=' (a '*' must stand "
                         "for a type or a value)");
    size_t ta = a, tb = eq, va = eq + 1, vb = b;
    trim(s, &ta, &tb);
    trim(s, &va, &vb);
    if (ta == tb)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off + a,
                         "an RDN of the DN has no attribute type");
    for (size_t i = ta; i < tb; i++)
        if (!acreE_is_alpha((unsigned char)s[i]) &&
            !acreE_is_digit((unsigned char)s[i]) && s[i] != '-' &&
            s[i] != '.' && s[i] != '*' && s[i] != ';' && s[i] != '_')
            return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off + i,
                             "bad character in an attribute type of the DN");
    int rc = put_lower(p, off, s, ta, tb, flags, out);
    if (!rc)
        rc = acreE_buf_putc(out, '=') ? ACRE_ERR_NOMEM : 0;
    return rc ? rc : put_lower(p, off, s, va, vb, flags, out);
}

static int
pattern(struct acreA_p *p, size_t off, const char *s, size_t n, int macros,
        struct acreI_aci_dnpat *out)
{
    char local[256];
    struct acreE_buf b;
    unsigned flags = 0;
    int rc = 0;

    acreE_buf_init(&b, local, sizeof(local));
    for (size_t i = 0; !rc && i <= n;) {
        size_t e = rdn_end(s, n, i);
        if (i && (rc = acreE_buf_putc(&b, ',') ? ACRE_ERR_NOMEM : 0))
            break;
        rc = pattern_rdn(p, off, s, i, e, &flags, &b);
        i = e + 1;
    }
    if (!rc && flags && !macros)
        rc = acreA_err(p, ACRE_ERR_RULE_SYNTAX, off,
                       "macros are not allowed here");
    if (!rc && !(out->text = talloc_strndup(p->ctx, (const char *)b.p, b.len)))
        rc = ACRE_ERR_NOMEM;
    if (!rc) {
        out->kind = ACREI_ACI_PAT_PATTERN;
        out->len = b.len;
        out->flags = flags;
        out->dn = NULL;
    }
    acreE_buf_free(&b);
    return rc;
}

int
acreA_dnpat(struct acreA_p *p, size_t off, const char *s, size_t n, int macros,
            struct acreI_aci_dnpat *out)
{
    acre_dn *dn;
    acre_diag d;

    memset(out, 0, sizeof(*out));
    if (memchr(s, '*', n) || memchr(s, '$', n))
        return pattern(p, off, s, n, macros, out);
    int rc = acre_dn_parse(p->ctx, p->schema, s, n, 0, &dn, &d);
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc)
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off + d.offset,
                         "invalid DN: %s", d.message);
    out->kind = ACREI_ACI_PAT_DN;
    out->dn = dn;
    out->len = n;
    if (!(out->text = talloc_strndup(p->ctx, s, n)))
        return ACRE_ERR_NOMEM;
    return 0;
}

int
acreA_filter(struct acreA_p *p, size_t off, const char *s, size_t n,
             const struct acreF_filter **out)
{
    struct acreF_filter *f;
    acre_diag d;
    int wrap = !n || s[0] != '(';
    char *t = wrap ? talloc_asprintf(p->ctx, "(%.*s)", (int)n, s)
                   : talloc_strndup(p->ctx, s, n);

    if (!t)
        return ACRE_ERR_NOMEM;
    /* 389 reads every filter of an ACI with slapi_str2filter (a
     * targetfilter, targattrfilters, a userdn or groupdn URL's):
     * balanced parentheses in a value are the value's */
    unsigned fl = p->variant == ACREI_ACI_389 ? ACREF_389_PARENS : 0;
    if (p->variant == ACREI_ACI_389 && p->filter389)
        fl |= ACREF_389_NAMES;
    if (p->variant == ACREI_ACI_389 && p->rawsubs)
        fl |= ACREF_389_RAWSUBS;
    int rc =
        acreF_parse_flags(p->ctx, p->schema, t, n + (wrap ? 2 : 0), fl, &f, &d);
    talloc_free(t);
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc) {
        size_t at = d.offset > (size_t)wrap ? d.offset - wrap : 0;
        return acreA_err(p, ACRE_ERR_RULE_SYNTAX, off + (at < n ? at : n),
                         "invalid filter: %s", d.message);
    }
    *out = f;
    return 0;
}

/*
 * acreA_norm389 (aci.h) -- where 389's DN normaliser (slapi_dn_normalize_ext)
 * refuses s[0..n) read as one DN: the offset of the byte it stops at, else n.
 * aclparse.c hands it a userdn, groupdn or roledn value from its first
 * "ldap:///" to its first '?' or its end, "||" lists and all, and
 * refuses the ACI when it fails.  It fails on a quote or a separator (,
 * ; +) in a type, anything but spaces between a type and its '=', a
 * separator starting a value, and a '\' ending the text; *why says
 * which.  Everything else passes: a type with no '=' up to the end
 * ("anyone"), a value holding "|| ldap:///..." up to the next separator.
 */
size_t
acreA_norm389(const char *s, size_t n, const char **why)
{
    enum { B4TYPE, INTYPE, B4EQUAL, B4VALUE, VALUE1, VALUE, QUOTED, B4SEP };

    int st = B4TYPE;
    size_t i = 0;

    while (i < n) {
        char c = s[i];
        int sp = c == ' ' || c == '\n' || c == '\r',
            sep = c == ',' || c == ';' || c == '+';
        switch (st) {
        case B4TYPE:
            st = sp ? B4TYPE : INTYPE;
            i++;
            break;
        case INTYPE:
            if (c == '"' || sep) {
                *why = "a quote, ',', ';' or '+' in an attribute type";
                return i;
            }
            st = c == '='               ? B4VALUE
                 : c == ')' || c == ']' ? VALUE /* a macro's end */
                 : sp                   ? B4EQUAL
                                        : INTYPE;
            i += !sp;
            break;
        case B4EQUAL:
            if (!sp && c != '=') {
                *why = "an attribute type followed by something else than '='";
                return i;
            }
            st = c == '=' ? B4VALUE : B4EQUAL;
            i++;
            break;
        case B4VALUE:
            if (c == '"')
                st = QUOTED;
            else if (!sp)
                st = VALUE1;
            i += sp || c == '"';
            break;
        case VALUE1:
            if (sp) {
                i++;
                break;
            }
            if (sep) {
                *why = "a value starting with ',', ';' or '+'";
                return i;
            }
            st = VALUE;
            /* fall through */
        case VALUE:
            if (c == '\\' && i + 1 >= n) {
                *why = "a '\\' ending it";
                return i;
            }
            if (sep)
                st = B4SEP;
            else
                i += c == '\\' ? 2 : 1;
            break;
        case QUOTED: /* an escaped quote does not end it */
            if (c == '\\' && i + 1 < n && s[i + 1] == '"')
                i++;
            else if (c == '"')
                st = B4SEP;
            i++;
            break;
        default: /* B4SEP: what follows a quoted value is dropped */
            st = sep ? B4TYPE : B4SEP;
            i++;
        }
    }
    return n;
}
