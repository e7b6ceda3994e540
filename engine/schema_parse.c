/*
 * schema_parse.c -- reading schema definitions: OpenLDAP .schema files,
 * LDIF subschema entries and cn=config schema entries, and the RFC 4512
 * attribute type, object class and syntax descriptions inside them.
 *
 * The parser only checks what a definition says on its own (lexical form,
 * keywords, duplicates of a keyword, lengths); it expands OID macros and
 * leaves every reference to another definition, as written, for schema.c
 * to resolve once the whole input has been read.
 *
 * Positions: a definition's text is a slice of the input (.schema: the
 * logical line, continuation lines included) or an LDIF value; tokens
 * remember their offset in that text and acreS_fail() turns it into the
 * physical line and column of the input.
 *
 * Bounded cost: one pass over the input, every token at most
 * ACRES_MAX_TOKEN bytes, every list at most ACRES_MAX_LIST entries, every
 * definition at most ACRES_MAX_DEF bytes.
 */
#include "schema_int.h"

#include "internal.h"
#include "ldif.h"
#include "prep.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

#define FAIL(d, pos, code, ...) \
    acreS_fail((d)->st, &(d)->where, (pos), (code), __VA_ARGS__)

/* One definition being parsed. */
struct def {
    struct acreS_stage *st;
    struct acreS_where where;
    const char *text; /* the definition (not NUL-terminated) */
    size_t len;
    size_t pos; /* lexer position */
};

enum { T_END, T_LP, T_RP, T_DOLLAR, T_QSTR, T_WORD };

struct tok {
    int t;
    const char *s; /* T_QSTR: inside the quotes */
    size_t n;
    size_t pos; /* offset of the token in the definition */
};

/* ------------------------------------------------------------------------
 * Positions and errors
 */

/* line_start -- offset of the first byte of 1-based line `line`. */
static size_t
line_start(const char *text, size_t len, unsigned line)
{
    size_t i = 0;

    while (--line > 0) {
        const char *nl = memchr(text + i, '\n', len - i);
        if (!nl)
            return len;
        i = (size_t)(nl - text) + 1;
    }
    return i;
}

/* at_fold -- bytes of a fold (newline, then one space) at i, or 0. */
static size_t
at_fold(const char *text, size_t len, size_t i)
{
    size_t j = i;

    if (j < len && text[j] == '\r')
        j++;
    if (j + 1 < len && text[j] == '\n' && text[j + 1] == ' ')
        return j + 2 - i;
    return 0;
}

/*
 * locate_ldif -- the input position of byte `pos` of an LDIF value whose
 * attribute starts on line w->line: walk the value as written, stepping
 * over folds.  Base64 values cannot be mapped: their first byte is used.
 */
static void
locate_ldif(const struct acreS_stage *st, const struct acreS_where *w,
            size_t pos, unsigned *line, unsigned *col, size_t *off)
{
    const char *t = st->text;
    size_t len = st->len, ls = line_start(t, len, w->line), i = ls;
    size_t left = pos + w->skip, f;

    *line = w->line;
    while (i < len && t[i] != ':' && t[i] != '\n')
        i++;
    if (i < len && t[i] == ':')
        i++;
    if (i < len && (t[i] == ':' || t[i] == '<')) {
        left = 0; /* base64: no way to map a decoded byte back */
        i++;
    }
    while (i < len && t[i] == ' ')
        i++;
    *col = (unsigned)(i - ls) + 1;
    for (;;) {
        if ((f = at_fold(t, len, i)) != 0) {
            i += f;
            ++*line;
            *col = 2;
            continue;
        }
        if (!left || i >= len || t[i] == '\n' ||
            (t[i] == '\r' && i + 1 < len && t[i + 1] == '\n'))
            break;
        i++;
        ++*col;
        left--;
    }
    *off = i;
}

static void
locate(const struct acreS_stage *st, const struct acreS_where *w, size_t pos,
       unsigned *line, unsigned *col, size_t *off)
{
    size_t o = w->off + pos, ls = 0;

    if (w->line) {
        locate_ldif(st, w, pos, line, col, off);
        return;
    }
    if (o > st->len)
        o = st->len;
    *line = 1;
    for (size_t i = 0; i < o; i++)
        if (st->text[i] == '\n') {
            ++*line;
            ls = i + 1;
        }
    *col = (unsigned)(o - ls) + 1;
    *off = o;
}

int
acreS_fail(struct acreS_stage *st, const struct acreS_where *w, size_t pos,
           int code, const char *fmt, ...)
{
    char msg[sizeof st->diag->message];
    unsigned line, col;
    size_t off;
    va_list ap;

    if (!st->diag)
        return code;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    locate(st, w, pos, &line, &col, &off);
    acreE_diag_set(st->diag, code, off, "%s", msg);
    st->diag->file = st->file;
    st->diag->line = line;
    st->diag->column = col;
    return code;
}

static int
nomem(struct def *d)
{
    return FAIL(d, 0, ACRE_ERR_NOMEM, "out of memory");
}

/* ------------------------------------------------------------------------
 * Lexical checks (RFC 4512 section 1.4)
 */

int
acreS_is_descr(const char *s, size_t n)
{
    if (n == 0 || n > ACRES_MAX_TOKEN || !acreE_is_alpha((unsigned char)s[0]))
        return 0;
    for (size_t i = 1; i < n; i++) {
        int c = (unsigned char)s[i];
        if (!acreE_is_alpha(c) && !acreE_is_digit(c) && c != '-')
            return 0;
    }
    return 1;
}

/* arcs -- number of dot-separated numbers making up s, or 0 when s is not
 * such a list (empty arc, leading zero, other character). */
static unsigned
arcs(const char *s, size_t n)
{
    unsigned count = 0;
    size_t i = 0;

    if (n == 0 || n > ACRES_MAX_TOKEN)
        return 0;
    for (;;) {
        size_t start = i;
        while (i < n && acreE_is_digit((unsigned char)s[i]))
            i++;
        if (i == start || (s[start] == '0' && i - start > 1))
            return 0;
        count++;
        if (i == n)
            return count;
        if (s[i] != '.')
            return 0;
        i++;
    }
}

int
acreS_is_numericoid(const char *s, size_t n)
{
    return arcs(s, n) >= 2;
}

/* ------------------------------------------------------------------------
 * The lexer
 */

static int
is_ws(int c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

static int
is_special(int c)
{
    return c == '(' || c == ')' || c == '$' || c == '\'';
}

static int
lex(struct def *d, struct tok *t)
{
    const char *p = d->text;
    size_t i = d->pos;

    while (i < d->len && is_ws((unsigned char)p[i]))
        i++;
    t->pos = i;
    t->s = p + i;
    t->n = 0;
    if (i == d->len) {
        d->pos = i;
        return t->t = T_END, 0;
    }
    if (p[i] == '\'') {
        const char *q = memchr(p + i + 1, '\'', d->len - i - 1);
        if (!q)
            return FAIL(d, i, ACRE_ERR_SCHEMA_SYNTAX,
                        "unterminated quoted string");
        t->t = T_QSTR;
        t->s = p + i + 1;
        t->n = (size_t)(q - t->s);
        d->pos = (size_t)(q - p) + 1;
        return 0;
    }
    if (is_special((unsigned char)p[i])) {
        t->t = p[i] == '(' ? T_LP : p[i] == ')' ? T_RP : T_DOLLAR;
        t->n = 1;
        d->pos = i + 1;
        return 0;
    }
    while (i < d->len && !is_ws((unsigned char)p[i]) &&
           !is_special((unsigned char)p[i]))
        i++;
    t->t = T_WORD;
    t->n = i - t->pos;
    d->pos = i;
    return 0;
}

static const char *
tok_name(int t)
{
    static const char *const names[] = {
        "end of definition", "'('", "')'", "'$'", "quoted string", "word"};
    return names[t];
}

/* expect -- the next token, which must be of type `type`. */
static int
expect(struct def *d, int type, struct tok *t)
{
    int rc = lex(d, t);

    if (rc)
        return rc;
    if (t->t != type)
        return FAIL(d, t->pos, ACRE_ERR_SCHEMA_SYNTAX, "expected %s, found %s",
                    tok_name(type), tok_name(t->t));
    return 0;
}

/* ------------------------------------------------------------------------
 * Values: OIDs (with macros), descriptors, strings
 */

static int
is_word(const struct tok *t)
{
    return t->t == T_WORD || t->t == T_QSTR;
}

/*
 * expand -- the numeric OID written as t (a numericoid, a macro name, or
 * macro:suffix with suffix a dotted list of numbers), allocated in keep.
 */
static int
expand(struct def *d, const char *s, size_t n, size_t pos, const char **out)
{
    const char *colon, *m, *suffix = NULL;
    size_t mlen, slen = 0;
    char *r;

    if (n && acreE_is_digit((unsigned char)s[0])) {
        if (!acreS_is_numericoid(s, n))
            return FAIL(d, pos, ACRE_ERR_SCHEMA_SYNTAX,
                        "malformed numeric OID '%.*s'", (int)n, s);
        *out = talloc_strndup(d->st->keep, s, n);
        return *out ? 0 : nomem(d);
    }
    colon = memchr(s, ':', n);
    mlen = colon ? (size_t)(colon - s) : n;
    if (colon) {
        suffix = colon + 1;
        slen = n - mlen - 1;
        if (!arcs(suffix, slen))
            return FAIL(d, pos, ACRE_ERR_SCHEMA_SYNTAX,
                        "malformed OID suffix in '%.*s'", (int)n, s);
    }
    if (!acreS_is_descr(s, mlen))
        return FAIL(d, pos, ACRE_ERR_SCHEMA_SYNTAX, "malformed OID '%.*s'",
                    (int)n, s);
    m = acreS_macro_find(d->st, s, mlen);
    if (!m)
        return FAIL(d, pos, ACRE_ERR_SCHEMA_UNKNOWN, "unknown OID macro '%.*s'",
                    (int)mlen, s);
    if (strlen(m) + (suffix ? slen + 1 : 0) > ACRES_MAX_TOKEN)
        return FAIL(d, pos, ACRE_ERR_SCHEMA_SYNTAX, "OID too long");
    r = suffix ? talloc_asprintf(d->st->keep, "%s.%.*s", m, (int)slen, suffix)
               : talloc_strdup(d->st->keep, m);
    if (!r)
        return nomem(d);
    *out = r;
    return 0;
}

/* oid_tok -- a token naming an OID to expand (quotes allowed). */
static int
oid_tok(struct def *d, const char **out, uint32_t *pos)
{
    struct tok t;
    int rc = lex(d, &t);

    if (rc)
        return rc;
    if (!is_word(&t))
        return FAIL(d, t.pos, ACRE_ERR_SCHEMA_SYNTAX,
                    "expected an OID, found %s", tok_name(t.t));
    if (pos)
        *pos = (uint32_t)t.pos;
    return expand(d, t.s, t.n, t.pos, out);
}

/* ref_tok -- a reference (descr or numericoid) from token t. */
static int
ref_tok(struct def *d, const struct tok *t, struct acreS_ref *r)
{
    if (!is_word(t))
        return FAIL(d, t->pos, ACRE_ERR_SCHEMA_SYNTAX,
                    "expected a name or OID, found %s", tok_name(t->t));
    if (!acreS_is_descr(t->s, t->n) && !acreS_is_numericoid(t->s, t->n))
        return FAIL(d, t->pos, ACRE_ERR_SCHEMA_SYNTAX,
                    "malformed name or OID '%.*s'",
                    (int)(t->n > 64 ? 64 : t->n), t->s);
    r->s = t->s;
    r->n = (uint32_t)t->n;
    r->pos = (uint32_t)t->pos;
    return 0;
}

static int
ref(struct def *d, struct acreS_ref *r)
{
    struct tok t;
    int rc = lex(d, &t);

    return rc ? rc : ref_tok(d, &t, r);
}

/*
 * oids -- oid / "(" oid *( "$" oid ) ")" into a new array in mem.
 */
static int
oids(struct def *d, struct acreS_ref **out, unsigned *n)
{
    struct acreS_ref *v = NULL;
    unsigned cap = 0;
    struct tok t;
    int rc = lex(d, &t);

    if (rc)
        return rc;
    if (t.t != T_LP) {
        if (!(v = talloc_array(d->st->mem, struct acreS_ref, 1)))
            return nomem(d);
        *out = v;
        *n = 1;
        return ref_tok(d, &t, v);
    }
    for (*n = 0;; (*n)++) {
        if ((rc = lex(d, &t)))
            return rc;
        if (*n == cap) {
            cap = cap ? 2 * cap : 8;
            if (cap > ACRES_MAX_LIST)
                return FAIL(d, t.pos, ACRE_ERR_SCHEMA_SYNTAX,
                            "list longer than %u entries", ACRES_MAX_LIST);
            v = talloc_realloc(d->st->mem, v, struct acreS_ref, cap);
            if (!v)
                return nomem(d);
        }
        if ((rc = ref_tok(d, &t, &v[*n])))
            return rc;
        if ((rc = lex(d, &t)))
            return rc;
        if (t.t == T_RP)
            break;
        if (t.t != T_DOLLAR)
            return FAIL(d, t.pos, ACRE_ERR_SCHEMA_SYNTAX,
                        "expected '$' or ')', found %s", tok_name(t.t));
    }
    (*n)++;
    *out = v;
    return 0;
}

/* names -- qdescrs: 'a' / ( 'a' 'b' ... ) */
static int
names(struct def *d, const char ***out, uint32_t **pos, unsigned *n)
{
    const char **v;
    uint32_t *p;
    struct tok t;
    int list, rc = lex(d, &t);

    if (rc)
        return rc;
    list = t.t == T_LP;
    v = talloc_array(d->st->keep, const char *, ACRES_MAX_NAMES);
    p = talloc_array(d->st->mem, uint32_t, ACRES_MAX_NAMES);
    if (!v || !p)
        return nomem(d);
    for (*n = 0;;) {
        if (list && (rc = lex(d, &t)))
            return rc;
        if (list && t.t == T_RP && *n > 0)
            break;
        if (t.t != T_QSTR)
            return FAIL(d, t.pos, ACRE_ERR_SCHEMA_SYNTAX,
                        "expected a quoted name, found %s", tok_name(t.t));
        if (!acreS_is_descr(t.s, t.n))
            return FAIL(d, t.pos, ACRE_ERR_SCHEMA_SYNTAX,
                        "malformed name '%.*s'", (int)(t.n > 64 ? 64 : t.n),
                        t.s);
        if (*n == ACRES_MAX_NAMES)
            return FAIL(d, t.pos, ACRE_ERR_SCHEMA_SYNTAX, "more than %u names",
                        ACRES_MAX_NAMES);
        p[*n] = (uint32_t)t.pos;
        if (!(v[(*n)++] = talloc_strndup(v, t.s, t.n)))
            return nomem(d);
        if (!list)
            break;
    }
    *out = talloc_realloc(d->st->keep, v, const char *, *n);
    if (!*out)
        return nomem(d);
    *pos = p;
    return 0;
}

/* qdstring -- DESC: unescape \27 and \5C, drop line breaks of folding. */
static int
qdstring(struct def *d, const char **out)
{
    struct tok t;
    char *r;
    size_t j = 0;
    int rc = expect(d, T_QSTR, &t);

    if (rc)
        return rc;
    if (!(r = talloc_size(d->st->keep, t.n + 1)))
        return nomem(d);
    for (size_t i = 0; i < t.n; i++) {
        int c = (unsigned char)t.s[i];
        if (c == '\\') {
            int hi = i + 2 < t.n ? acreE_hexval((unsigned char)t.s[i + 1]) : -1;
            int lo = i + 2 < t.n ? acreE_hexval((unsigned char)t.s[i + 2]) : -1;
            int v = hi < 0 || lo < 0 ? -1 : hi * 16 + lo;
            if (v != 0x27 && v != 0x5c)
                return FAIL(d, t.pos + 1 + i, ACRE_ERR_SCHEMA_SYNTAX,
                            "bad escape in quoted string (only \\27 and "
                            "\\5C are allowed)");
            r[j++] = (char)v;
            i += 2;
        } else if (c == 0) {
            return FAIL(d, t.pos + 1 + i, ACRE_ERR_SCHEMA_SYNTAX,
                        "NUL byte in quoted string");
        } else if (c != '\n' &&
                   !(c == '\r' && i + 1 < t.n && t.s[i + 1] == '\n')) {
            r[j++] = (char)c;
        }
    }
    r[j] = 0;
    if (!acreE_utf8_valid((const uint8_t *)r, j))
        return FAIL(d, t.pos, ACRE_ERR_SCHEMA_SYNTAX,
                    "quoted string is not valid UTF-8");
    *out = r;
    return 0;
}

/* qdstrings -- the value of an X- extension: 'a' / ( 'a' 'b' ... ). */
static int
qdstrings(struct def *d)
{
    struct tok t;
    int rc = lex(d, &t);

    if (rc)
        return rc;
    if (t.t == T_QSTR)
        return 0;
    if (t.t != T_LP)
        return FAIL(d, t.pos, ACRE_ERR_SCHEMA_SYNTAX,
                    "expected a quoted string, found %s", tok_name(t.t));
    for (;;) {
        if ((rc = lex(d, &t)))
            return rc;
        if (t.t == T_RP)
            return 0;
        if (t.t != T_QSTR)
            return FAIL(d, t.pos, ACRE_ERR_SCHEMA_SYNTAX,
                        "expected a quoted string, found %s", tok_name(t.t));
    }
}

/* noidlen -- SYNTAX: oid{len}, the OID possibly a macro, quotes allowed. */
static int
noidlen(struct def *d, struct acreS_atdef *a)
{
    struct tok t;
    const char *brace;
    size_t n;
    int rc = lex(d, &t);

    if (rc)
        return rc;
    if (!is_word(&t))
        return FAIL(d, t.pos, ACRE_ERR_SCHEMA_SYNTAX,
                    "expected a syntax OID, found %s", tok_name(t.t));
    brace = memchr(t.s, '{', t.n);
    n = brace ? (size_t)(brace - t.s) : t.n;
    if (brace) {
        size_t k = n + 1, digits = 0;
        unsigned long long v = 0;
        while (k < t.n && acreE_is_digit((unsigned char)t.s[k]) &&
               digits < 10) {
            v = v * 10 + (unsigned)(t.s[k++] - '0');
            digits++;
        }
        if (!digits || k + 1 != t.n || t.s[k] != '}' || v > 0x7fffffff)
            return FAIL(d, t.pos + k, ACRE_ERR_SCHEMA_SYNTAX,
                        "malformed syntax length");
        a->syntax_len = (unsigned)v;
    }
    a->syntax_pos = (uint32_t)t.pos;
    return expand(d, t.s, n, t.pos, &a->syntax);
}

/* ------------------------------------------------------------------------
 * Keywords
 */

/* ORDER KW: enum kw and keywords[] list the same words in the same order. */
enum kw {
    KW_NAME,
    KW_DESC,
    KW_OBSOLETE,
    KW_SUP,
    KW_EQUALITY,
    KW_ORDERING,
    KW_SUBSTR,
    KW_SYNTAX,
    KW_SINGLE_VALUE,
    KW_COLLECTIVE,
    KW_NO_USER_MOD,
    KW_USAGE,
    KW_ABSTRACT,
    KW_STRUCTURAL,
    KW_AUXILIARY,
    KW_MUST,
    KW_MAY,
    KW_EXT, /* X-... */
    KW_UNKNOWN
};

/* ORDER KW */
static const char *const keywords[] = {
    "NAME",
    "DESC",
    "OBSOLETE",
    "SUP",
    "EQUALITY",
    "ORDERING",
    "SUBSTR",
    "SYNTAX",
    "SINGLE-VALUE",
    "COLLECTIVE",
    "NO-USER-MODIFICATION",
    "USAGE",
    "ABSTRACT",
    "STRUCTURAL",
    "AUXILIARY",
    "MUST",
    "MAY",
};

#define AT_KWS                                                         \
    ((1u << KW_NAME) | (1u << KW_DESC) | (1u << KW_OBSOLETE) |         \
     (1u << KW_SUP) | (1u << KW_EQUALITY) | (1u << KW_ORDERING) |      \
     (1u << KW_SUBSTR) | (1u << KW_SYNTAX) | (1u << KW_SINGLE_VALUE) | \
     (1u << KW_COLLECTIVE) | (1u << KW_NO_USER_MOD) | (1u << KW_USAGE))
#define OC_KWS                                                      \
    ((1u << KW_NAME) | (1u << KW_DESC) | (1u << KW_OBSOLETE) |      \
     (1u << KW_SUP) | (1u << KW_ABSTRACT) | (1u << KW_STRUCTURAL) | \
     (1u << KW_AUXILIARY) | (1u << KW_MUST) | (1u << KW_MAY))
#define SYN_KWS ((1u << KW_NAME) | (1u << KW_DESC))

static enum kw
keyword(const struct tok *t)
{
    if (t->t != T_WORD)
        return KW_UNKNOWN;
    if (t->n > 2 && (t->s[0] == 'X' || t->s[0] == 'x') && t->s[1] == '-')
        return KW_EXT;
    for (unsigned k = 0; k < sizeof keywords / sizeof keywords[0]; k++)
        if (strlen(keywords[k]) == t->n &&
            strncasecmp(keywords[k], t->s, t->n) == 0)
            return (enum kw)k;
    return KW_UNKNOWN;
}

/* seen_bit -- the "given once" bit of k: the three kinds share one. */
static unsigned
seen_bit(enum kw k)
{
    if (k == KW_STRUCTURAL || k == KW_AUXILIARY)
        k = KW_ABSTRACT;
    return 1u << k;
}

/*
 * next_kw -- the next keyword of a description allowing `allowed`;
 * KW_UNKNOWN with *done = 1 at the closing parenthesis.  X- extensions are
 * consumed here.
 */
static int
next_kw(struct def *d, unsigned allowed, unsigned *seen, enum kw *k, int *done)
{
    struct tok t;
    int rc;

    for (;;) {
        if ((rc = lex(d, &t)))
            return rc;
        if (t.t == T_RP) {
            *done = 1;
            if ((rc = lex(d, &t)))
                return rc;
            if (t.t != T_END)
                return FAIL(d, t.pos, ACRE_ERR_SCHEMA_SYNTAX,
                            "text after the closing ')'");
            return 0;
        }
        if (t.t == T_END)
            return FAIL(d, t.pos, ACRE_ERR_SCHEMA_SYNTAX,
                        "missing ')' at the end of the definition");
        *k = keyword(&t);
        if (*k == KW_EXT) {
            if ((rc = qdstrings(d)))
                return rc;
            continue;
        }
        if (*k == KW_UNKNOWN || !(allowed & (1u << *k)))
            return FAIL(d, t.pos, ACRE_ERR_SCHEMA_SYNTAX,
                        "unexpected %s '%.*s'",
                        t.t == T_WORD ? "keyword" : "token",
                        (int)(t.n > 64 ? 64 : t.n), t.s);
        if (*seen & seen_bit(*k))
            return FAIL(d, t.pos, ACRE_ERR_SCHEMA_SYNTAX, "'%.*s' given twice",
                        (int)t.n, t.s);
        *seen |= seen_bit(*k);
        *done = 0;
        return 0;
    }
}

static int
usage(struct def *d, enum acreS_usage *u)
{
    static const char *const usages[] = {
        "userApplications", "directoryOperation", "distributedOperation",
        "dSAOperation"};
    struct tok t;
    int rc = expect(d, T_WORD, &t);

    if (rc)
        return rc;
    for (unsigned i = 0; i < 4; i++)
        if (strlen(usages[i]) == t.n && strncasecmp(usages[i], t.s, t.n) == 0)
            return *u = (enum acreS_usage)i, 0;
    return FAIL(d, t.pos, ACRE_ERR_SCHEMA_SYNTAX, "unknown USAGE '%.*s'",
                (int)(t.n > 64 ? 64 : t.n), t.s);
}

/* ------------------------------------------------------------------------
 * Descriptions
 */

/* grow -- make room for one more element in a stage array. */
#define GROW(d, arr, n, cap, type, max, what)                           \
    do {                                                                \
        if ((n) == (max))                                               \
            return FAIL((d), 0, ACRE_ERR_SCHEMA_SYNTAX,                 \
                        "more than %u %s in one load", (unsigned)(max), \
                        (what));                                        \
        if ((n) == (cap)) {                                             \
            unsigned c_ = (cap) ? 2 * (cap) : 64;                       \
            type *p_ = talloc_realloc((d)->st->mem, (arr), type, c_);   \
            if (!p_)                                                    \
                return nomem(d);                                        \
            (arr) = p_;                                                 \
            (cap) = c_;                                                 \
        }                                                               \
    } while (0)

static int
at_keyword(struct def *d, struct acreS_atdef *a, enum kw k)
{
    switch (k) {
    case KW_NAME:
        return names(d, &a->names, &a->name_pos, &a->nnames);
    case KW_DESC:
        return qdstring(d, &a->desc);
    case KW_OBSOLETE:
        a->flags |= ACRES_OBSOLETE;
        return 0;
    case KW_SUP:
        return ref(d, &a->sup);
    case KW_EQUALITY:
    case KW_ORDERING:
    case KW_SUBSTR:
        return ref(d, &a->rule[k - KW_EQUALITY]);
    case KW_SYNTAX:
        return noidlen(d, a);
    case KW_SINGLE_VALUE:
        a->flags |= ACRES_SINGLE_VALUE;
        return 0;
    case KW_COLLECTIVE:
        a->flags |= ACRES_COLLECTIVE;
        return 0;
    case KW_NO_USER_MOD:
        a->flags |= ACRES_NO_USER_MOD;
        return 0;
    default: /* KW_USAGE */
        return usage(d, &a->usage);
    }
}

/* parse_at -- an AttributeTypeDescription (RFC 4512 4.1.2). */
static int
parse_at(struct def *d)
{
    struct acreS_stage *st = d->st;
    struct acreS_atdef a = {.where = d->where, .usage = ACRES_USER};
    unsigned seen = 0;
    struct tok t;
    enum kw k = KW_UNKNOWN;
    int done = 0, rc = expect(d, T_LP, &t);

    if (rc || (rc = oid_tok(d, &a.oid, &a.oid_pos)))
        return rc;
    while (!(rc = next_kw(d, AT_KWS, &seen, &k, &done)) && !done)
        if ((rc = at_keyword(d, &a, k)))
            return rc;
    if (rc)
        return rc;
    if (!a.sup.s && !a.syntax)
        return FAIL(d, t.pos, ACRE_ERR_SCHEMA_SYNTAX,
                    "attribute type %s has neither SUP nor SYNTAX", a.oid);
    GROW(d, st->at, st->nat, st->atcap, struct acreS_atdef, ACRES_MAX_ATTRS,
         "attribute types");
    st->at[st->nat++] = a;
    return 0;
}

static int
oc_keyword(struct def *d, struct acreS_ocdef *o, enum kw k)
{
    switch (k) {
    case KW_NAME:
        return names(d, &o->names, &o->name_pos, &o->nnames);
    case KW_DESC:
        return qdstring(d, &o->desc);
    case KW_OBSOLETE:
        o->flags |= ACRES_OBSOLETE;
        return 0;
    case KW_SUP:
        return oids(d, &o->sup, &o->nsup);
    case KW_ABSTRACT:
        o->kind = ACRES_ABSTRACT;
        return 0;
    case KW_STRUCTURAL:
        o->kind = ACRES_STRUCTURAL;
        return 0;
    case KW_AUXILIARY:
        o->kind = ACRES_AUXILIARY;
        return 0;
    case KW_MUST:
        return oids(d, &o->must, &o->nmust);
    default: /* KW_MAY */
        return oids(d, &o->may, &o->nmay);
    }
}

/* parse_oc -- an ObjectClassDescription (RFC 4512 4.1.1). */
static int
parse_oc(struct def *d)
{
    struct acreS_stage *st = d->st;
    struct acreS_ocdef o = {.where = d->where, .kind = ACRES_STRUCTURAL};
    unsigned seen = 0;
    struct tok t;
    enum kw k = KW_UNKNOWN;
    int done = 0, rc = expect(d, T_LP, &t);

    if (rc || (rc = oid_tok(d, &o.oid, &o.oid_pos)))
        return rc;
    while (!(rc = next_kw(d, OC_KWS, &seen, &k, &done)) && !done)
        if ((rc = oc_keyword(d, &o, k)))
            return rc;
    if (rc)
        return rc;
    GROW(d, st->oc, st->noc, st->occap, struct acreS_ocdef, ACRES_MAX_CLASSES,
         "object classes");
    st->oc[st->noc++] = o;
    return 0;
}

/*
 * parse_syntax -- an LDAP syntax description (RFC 4512 4.1.5): only its
 * OID matters here (attribute types may then use it).  OpenLDAP also
 * accepts NAME in it, as pmi.schema has.
 */
static int
parse_syntax(struct def *d)
{
    struct acreS_stage *st = d->st;
    const char *oid, *desc, **nm;
    uint32_t *np;
    unsigned seen = 0, nn;
    struct tok t;
    enum kw k = KW_UNKNOWN;
    int done = 0, rc = expect(d, T_LP, &t);

    if (rc || (rc = oid_tok(d, &oid, NULL)))
        return rc;
    while (!(rc = next_kw(d, SYN_KWS, &seen, &k, &done)) && !done) {
        rc = k == KW_NAME ? names(d, &nm, &np, &nn) : qdstring(d, &desc);
        if (rc)
            return rc;
    }
    if (rc)
        return rc;
    GROW(d, st->syn, st->nsyn, st->syncap, const char *, ACRES_MAX_SYNTAX,
         "syntaxes");
    st->syn[st->nsyn++] = oid;
    return 0;
}

/*
 * parse_skip -- a description acre has no use for (DIT content rules):
 * balanced parentheses, nothing after them.
 */
static int
parse_skip(struct def *d)
{
    struct tok t;
    unsigned depth = 0;
    int rc = expect(d, T_LP, &t);

    for (depth = 1; !rc && depth > 0;) {
        if ((rc = lex(d, &t)))
            break;
        if (t.t == T_END)
            return FAIL(d, t.pos, ACRE_ERR_SCHEMA_SYNTAX,
                        "missing ')' at the end of the definition");
        if (t.t == T_LP && ++depth > 8)
            return FAIL(d, t.pos, ACRE_ERR_SCHEMA_SYNTAX,
                        "parentheses nested too deeply");
        if (t.t == T_RP)
            depth--;
    }
    if (!rc && !(rc = lex(d, &t)) && t.t != T_END)
        return FAIL(d, t.pos, ACRE_ERR_SCHEMA_SYNTAX,
                    "text after the closing ')'");
    return rc;
}

/*
 * parse_macro -- "NAME OID" (objectidentifier / olcObjectIdentifier).
 * Redefining a name with the same OID is allowed, with another is not.
 */
static int
parse_macro(struct def *d)
{
    struct acreS_stage *st = d->st;
    struct tok name, end;
    const char *oid, *old;
    int rc = expect(d, T_WORD, &name);

    if (rc || (rc = oid_tok(d, &oid, NULL)) || (rc = lex(d, &end)))
        return rc;
    if (end.t != T_END)
        return FAIL(d, end.pos, ACRE_ERR_SCHEMA_SYNTAX,
                    "objectidentifier takes a name and an OID");
    if (!acreS_is_descr(name.s, name.n))
        return FAIL(d, name.pos, ACRE_ERR_SCHEMA_SYNTAX,
                    "malformed OID macro name '%.*s'",
                    (int)(name.n > 64 ? 64 : name.n), name.s);
    if ((old = acreS_macro_find(st, name.s, name.n)) != NULL) {
        if (strcmp(old, oid) == 0)
            return 0;
        return FAIL(d, name.pos, ACRE_ERR_SCHEMA_DUP,
                    "OID macro '%.*s' already defined as %s", (int)name.n,
                    name.s, old);
    }
    GROW(d, st->mac, st->nmac, st->maccap, struct acreS_macro, ACRES_MAX_MACROS,
         "OID macros");
    st->mac[st->nmac].oid = oid;
    if (!(st->mac[st->nmac].name = talloc_strndup(st->keep, name.s, name.n)))
        return nomem(d);
    st->nmac++;
    return 0;
}

const char *
acreS_macro_find(const struct acreS_stage *st, const char *name, size_t n)
{
    for (unsigned i = st->nmac; i-- > 0;)
        if (strncasecmp(st->mac[i].name, name, n) == 0 &&
            st->mac[i].name[n] == 0)
            return st->mac[i].oid;
    if (st->s)
        for (unsigned i = 0; i < st->s->nmacros; i++)
            if (strncasecmp(st->s->macros[i].name, name, n) == 0 &&
                st->s->macros[i].name[n] == 0)
                return st->s->macros[i].oid;
    return NULL;
}

/*
 * parse_opts -- "NAME..." (attributeoptions / olcAttributeOptions): the
 * options slapd's ad_define_option takes, letters, digits and '-', a
 * last '=' too; whether they clash with those defined is the commit's.
 */
static int
parse_opts(struct def *d)
{
    struct acreS_stage *st = d->st;
    const char *t = d->text;
    size_t i = d->pos;

    for (;;) {
        while (i < d->len && is_ws((unsigned char)t[i]))
            i++;
        if (i == d->len)
            return 0;
        size_t b = i;
        while (i < d->len && !is_ws((unsigned char)t[i]))
            i++;
        for (size_t k = b; k < i; k++)
            if (!acreE_is_digit(t[k]) &&
                !((t[k] | 0x20) >= 'a' && (t[k] | 0x20) <= 'z') &&
                t[k] != '-' && !(t[k] == '=' && k + 1 == i))
                return FAIL(d, b, ACRE_ERR_SCHEMA_SYNTAX,
                            "illegal option name \"%.*s\"",
                            (int)(i - b > 64 ? 64 : i - b), t + b);
        GROW(d, st->opt, st->nopt, st->optcap, struct acreS_optstage,
             ACRES_MAX_MACROS, "attribute options");
        struct acreS_optstage *o = &st->opt[st->nopt];
        if (!(o->def.name = talloc_strndup(st->keep, t + b, i - b)))
            return nomem(d);
        o->def.len = (unsigned)(i - b);
        o->where = d->where;
        o->pos = b;
        st->nopt++;
    }
}

/* ------------------------------------------------------------------------
 * OpenLDAP .schema files
 */

enum kind { K_AT, K_OC, K_MACRO, K_SYNTAX, K_SKIP, K_OPTS, K_IGNORE };

static const struct {
    const char *word;
    enum kind kind;
} directives[] = {
    {"attributetype", K_AT},       {"attributetypes", K_AT},
    {"objectclass", K_OC},         {"objectclasses", K_OC},
    {"objectidentifier", K_MACRO}, {"ldapsyntax", K_SYNTAX},
    {"ldapsyntaxes", K_SYNTAX},    {"ditcontentrule", K_SKIP},
    {"attributeoptions", K_OPTS},
};

static int
dispatch(struct def *d, enum kind k)
{
    switch (k) {
    case K_AT:
        return parse_at(d);
    case K_OC:
        return parse_oc(d);
    case K_MACRO:
        return parse_macro(d);
    case K_SYNTAX:
        return parse_syntax(d);
    case K_SKIP:
        return parse_skip(d);
    case K_OPTS:
        return parse_opts(d);
    default:
        return 0;
    }
}

/*
 * logical_end -- end of the logical line starting at pos: the first
 * newline not followed by a space or tab (continuation), or len.
 */
static size_t
logical_end(const char *t, size_t len, size_t pos)
{
    for (;;) {
        const char *nl = memchr(t + pos, '\n', len - pos);
        if (!nl)
            return len;
        pos = (size_t)(nl - t) + 1;
        if (pos == len || (t[pos] != ' ' && t[pos] != '\t'))
            return pos - 1;
    }
}

static int
directive(struct def *d, size_t s, size_t end)
{
    const char *t = d->st->text;
    size_t k = s;

    while (k < end && !is_ws((unsigned char)t[k]))
        k++;
    for (unsigned i = 0; i < sizeof directives / sizeof directives[0]; i++)
        if (strlen(directives[i].word) == k - s &&
            strncasecmp(directives[i].word, t + s, k - s) == 0) {
            d->where.off = k;
            d->text = t + k;
            d->len = end - k;
            d->pos = 0;
            return dispatch(d, directives[i].kind);
        }
    d->where.off = s;
    return FAIL(d, 0, ACRE_ERR_SCHEMA_SYNTAX, "unknown directive '%.*s'",
                (int)(k - s > 64 ? 64 : k - s), t + s);
}

static int
read_schema(struct acreS_stage *st)
{
    const char *t = st->text;
    struct def d = {.st = st};
    size_t pos = 0;
    int rc;

    while (pos < st->len) {
        size_t start = pos, end = logical_end(t, st->len, pos), s = start;
        pos = end + 1;
        if (t[start] == '#')
            continue;
        while (s < end && is_ws((unsigned char)t[s]))
            s++;
        if (s == end)
            continue;
        if (end - s > ACRES_MAX_DEF) {
            d.where.off = s;
            return FAIL(&d, 0, ACRE_ERR_SCHEMA_SYNTAX,
                        "definition longer than %u bytes", ACRES_MAX_DEF);
        }
        if ((rc = directive(&d, s, end)))
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * LDIF: subschema entries and cn=config schema entries
 */

static const struct {
    const char *attr;
    enum kind kind;
    int ordered; /* olc*: values may start with {n} */
} ldif_attrs[] = {
    {"attributeTypes", K_AT, 0},      {"objectClasses", K_OC, 0},
    {"ldapSyntaxes", K_SYNTAX, 0},    {"olcAttributeTypes", K_AT, 1},
    {"olcObjectClasses", K_OC, 1},    {"olcObjectIdentifier", K_MACRO, 1},
    {"olcLdapSyntaxes", K_SYNTAX, 1}, {"olcAttributeOptions", K_OPTS, 0},
};

/* ldif_kind -- what an attribute of the record holds (by its type, any
 * options ignored); K_IGNORE for everything else. */
static enum kind
ldif_kind(const struct acreL_attrval *v, int *ordered)
{
    const char *semi = memchr(v->desc, ';', v->desc_len);
    size_t n = semi ? (size_t)(semi - v->desc) : v->desc_len;

    for (unsigned i = 0; i < sizeof ldif_attrs / sizeof ldif_attrs[0]; i++)
        if (strlen(ldif_attrs[i].attr) == n &&
            strncasecmp(ldif_attrs[i].attr, v->desc, n) == 0) {
            *ordered = ldif_attrs[i].ordered;
            return ldif_attrs[i].kind;
        }
    return K_IGNORE;
}

/* pass_of -- macros first, then syntaxes, then types and classes: the
 * order in which slapd applies the attributes of a cn=config entry. */
static int
pass_of(enum kind k)
{
    return k == K_MACRO ? 0 : k == K_SYNTAX ? 1 : 2;
}

static int
ldif_value(struct acreS_stage *st, const struct acreL_attrval *v, enum kind k,
           int ordered)
{
    struct def d = {.st = st, .where = {.line = v->line}};
    size_t skip = 0;
    char *copy;

    if (v->len > ACRES_MAX_DEF)
        return FAIL(&d, 0, ACRE_ERR_SCHEMA_SYNTAX,
                    "definition longer than %u bytes", ACRES_MAX_DEF);
    if (memchr(v->val, 0, v->len))
        return FAIL(&d, 0, ACRE_ERR_SCHEMA_SYNTAX, "NUL byte in definition");
    if (ordered && v->len && v->val[0] == '{') {
        skip = 1;
        while (skip < v->len && skip < 12 && acreE_is_digit(v->val[skip]))
            skip++;
        if (skip == 1 || skip >= v->len || v->val[skip] != '}')
            return FAIL(&d, skip, ACRE_ERR_SCHEMA_SYNTAX,
                        "malformed {n} prefix");
        skip++;
    }
    if (!(copy = talloc_memdup(st->mem, v->val + skip, v->len - skip)))
        return nomem(&d);
    d.where.skip = (unsigned)skip;
    d.text = copy;
    d.len = v->len - skip;
    return dispatch(&d, k);
}

static int
ldif_record(struct acreS_stage *st, const struct acreL_record *rec)
{
    for (int pass = 0; pass < 3; pass++)
        for (size_t i = 0; i < rec->nvals; i++) {
            int ordered = 0, rc;
            enum kind k = ldif_kind(&rec->vals[i], &ordered);
            if (k == K_IGNORE || pass_of(k) != pass)
                continue;
            if ((rc = ldif_value(st, &rec->vals[i], k, ordered)))
                return rc;
        }
    return 0;
}

static int
read_ldif(struct acreS_stage *st)
{
    struct acreL_reader *r;
    struct acreL_record rec;
    int rc = acreL_open(st->mem, NULL, st->text, st->len, st->file, &r);

    if (rc)
        return rc;
    while ((rc = acreL_next(r, &rec, st->diag)) == 1)
        if ((rc = ldif_record(st, &rec)))
            return rc;
    if (rc < 0 && rc != ACRE_ERR_NOMEM) {
        /* keep the reader's position and message, as a schema error */
        if (st->diag)
            st->diag->code = ACRE_ERR_SCHEMA_SYNTAX;
        rc = ACRE_ERR_SCHEMA_SYNTAX;
    }
    return rc;
}

/* ------------------------------------------------------------------------
 * Format detection
 */

/* is_ldif -- does the first line that is not blank or a comment start
 * with "dn:" or "version:"? */
static int
is_ldif(const char *t, size_t len)
{
    size_t pos = 0;

    while (pos < len) {
        size_t end = logical_end(t, len, pos), s = pos;
        if (t[pos] != '#') {
            while (s < end && is_ws((unsigned char)t[s]))
                s++;
            if (s < end)
                return (end - s >= 3 && strncasecmp(t + s, "dn:", 3) == 0) ||
                       (end - s >= 8 && strncasecmp(t + s, "version:", 8) == 0);
        }
        pos = end + 1;
    }
    return 0;
}

int
acreS_parse(struct acreS_stage *st)
{
    return is_ldif(st->text, st->len) ? read_ldif(st) : read_schema(st);
}
