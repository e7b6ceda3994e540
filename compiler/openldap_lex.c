/*
 * openldap_lex.c -- the lexical layer of the OpenLDAP front end: logical
 * lines of a slapd.conf (slapd's fp_getline) and the two tokenisers slapd
 * uses, strtok_quote for slapd.conf and strtok_quote_ldif for cn=config
 * values.
 *
 * Invariants: every output byte keeps the position of the input byte it
 * came from; nothing here allocates more than a bounded multiple of its
 * input (ACREO_MAX_LINE, ACREO_MAX_TOKEN); all memory lives under the
 * caller's talloc context.
 */
#include "openldap_int.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

/* ------------------------------------------------------------------------
 * Positioned strings
 */

/* Make room for `more` bytes in a positioned string of capacity *cap. */
static int
ptext_reserve(void *ctx, struct acreO_ptext *t, size_t *cap, size_t more)
{
    size_t need = t->len + more + 1;

    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 64;
    while (ncap < need)
        ncap *= 2;
    char *s = talloc_realloc(ctx, t->s, char, ncap);
    unsigned *l = talloc_realloc(ctx, t->line, unsigned, ncap);
    unsigned *c = talloc_realloc(ctx, t->col, unsigned, ncap);
    if (s)
        t->s = s;
    if (l)
        t->line = l;
    if (c)
        t->col = c;
    if (!s || !l || !c)
        return ACRE_ERR_NOMEM;
    *cap = ncap;
    return 0;
}

static void
ptext_put(struct acreO_ptext *t, char ch, unsigned line, unsigned col)
{
    t->s[t->len] = ch;
    t->line[t->len] = line;
    t->col[t->len] = col;
    t->len++;
}

/* Terminate t; the position after the end is (line, col). */
static void
ptext_end(struct acreO_ptext *t, unsigned line, unsigned col)
{
    t->s[t->len] = '\0';
    t->line[t->len] = line;
    t->col[t->len] = col;
}

/* ------------------------------------------------------------------------
 * Logical lines
 */

/* The next physical line: [*start, *start + *len) without its CR LF. */
static int
phys_line(struct acreO_reader *r, size_t *start, size_t *len, unsigned *line)
{
    if (r->off >= r->len)
        return 0;
    const char *p = r->p + r->off;
    const char *nl = memchr(p, '\n', r->len - r->off);
    size_t n = nl ? (size_t)(nl - p) : r->len - r->off;

    *start = r->off;
    *line = r->lineno++;
    r->off += n + (nl != NULL);
    if (n > 0 && p[n - 1] == '\r')
        n--;
    *len = n;
    return 1;
}

/* Append physical bytes [start, start+n) of line `line`, columns from
 * col0 + 1. */
static int
append_phys(void *ctx, struct acreO_reader *r, struct acreO_ptext *t,
            size_t *cap, size_t start, size_t n, unsigned line, unsigned col0)
{
    if (t->len + n > ACREO_MAX_LINE)
        return ACRE_ERR_RULE_LIMIT;
    if (ptext_reserve(ctx, t, cap, n))
        return ACRE_ERR_NOMEM;
    for (size_t i = 0; i < n; i++)
        ptext_put(t, r->p[start + i], line, col0 + (unsigned)i + 1);
    return 0;
}

static int
ends_in_backslash(const struct acreO_ptext *t)
{
    if (t->len == 0 || t->s[t->len - 1] != '\\')
        return 0;
    return t->len == 1 || t->s[t->len - 2] != '\\';
}

/* Join the physical lines that continue t (see acreO_read_line). */
static int
continue_line(void *ctx, struct acreO_reader *r, struct acreO_ptext *t,
              size_t *cap)
{
    size_t start, n;
    unsigned line;
    int rc;

    while (phys_line(r, &start, &n, &line)) {
        if (ends_in_backslash(t)) {
            t->len--;
            rc = append_phys(ctx, r, t, cap, start, n, line, 0);
        } else if (n == 0 || !isspace((unsigned char)r->p[start])) {
            r->have_look = 1;
            r->look_off = start;
            r->look_len = n;
            r->look_line = line;
            return 0;
        } else {
            rc = append_phys(ctx, r, t, cap, start, n, line, 0);
            if (!rc)
                t->s[t->len - n] = ' ';
        }
        if (rc)
            return rc;
    }
    return 0;
}

int
acreO_read_line(void *ctx, struct acreO_reader *r, struct acreO_ptext *out,
                acre_diag *diag)
{
    struct acreO_ptext t = {0};
    size_t cap = 0, start, n;
    unsigned line;
    int rc;

    if (r->have_look) {
        start = r->look_off;
        n = r->look_len;
        line = r->look_line;
        r->have_look = 0;
    } else if (!phys_line(r, &start, &n, &line)) {
        return 0;
    }
    rc = append_phys(ctx, r, &t, &cap, start, n, line, 0);
    if (!rc && !(t.len >= 7 && strncasecmp(t.s, "include", 7) == 0))
        rc = continue_line(ctx, r, &t, &cap);
    if (!rc && ptext_reserve(ctx, &t, &cap, 0))
        rc = ACRE_ERR_NOMEM;
    if (rc) {
        if (diag) {
            struct acreO_ptext at = {0};
            unsigned l = line, c = 1;
            at.line = &l;
            at.col = &c;
            acreO_error(diag, rc, r->name, &at, 0,
                        rc == ACRE_ERR_NOMEM ? "out of memory"
                                             : "logical line too long");
        }
        return rc;
    }
    ptext_end(&t, t.len ? t.line[t.len - 1] : line,
              t.len ? t.col[t.len - 1] + 1 : 1);
    *out = t;
    return 1;
}

/* ------------------------------------------------------------------------
 * Tokens
 */

/* A growing array of tokens. */
struct toks {
    struct acreO_ptext *v;
    unsigned n, cap;
};

static int
toks_push(void *ctx, struct toks *ts, struct acreO_ptext t)
{
    if (ts->n == ts->cap) {
        unsigned ncap = ts->cap ? ts->cap * 2 : 16;
        struct acreO_ptext *v =
            talloc_realloc(ctx, ts->v, struct acreO_ptext, ncap);
        if (!v)
            return ACRE_ERR_NOMEM;
        ts->v = v;
        ts->cap = ncap;
    }
    ts->v[ts->n++] = t;
    return 0;
}

/* Start a token able to hold `room` bytes. */
static int
tok_start(void *ctx, struct acreO_ptext *t, size_t *cap, size_t room)
{
    memset(t, 0, sizeof(*t));
    *cap = 0;
    return ptext_reserve(ctx, t, cap, room) ? ACRE_ERR_NOMEM : 0;
}

static int
tok_error(acre_diag *diag, int rc, const char *file,
          const struct acreO_ptext *ln, size_t at)
{
    return acreO_error(diag, rc, file, ln, at,
                       rc == ACRE_ERR_NOMEM ? "out of memory"
                                            : "token too long");
}

/* One strtok_quote token of ln from k (at a non-separator): appends its
 * bytes to t when t is not NULL; returns the index after it, and through
 * *n the token's length. */
static size_t
conf_scan(const struct acreO_ptext *ln, size_t k, struct acreO_ptext *t,
          size_t *n, int *inquote)
{
    size_t end = ln->len;

    *n = 0;
    *inquote = 0;
    while (k < end) {
        char c = ln->s[k];
        size_t from = k;
        if (c == '"') {
            *inquote = !*inquote;
            k++;
            continue;
        }
        if (c == '\\' && k + 1 < end)
            from = ++k;
        else if (!*inquote && (c == ' ' || c == '\t'))
            break;
        if (t)
            ptext_put(t, ln->s[from], ln->line[from], ln->col[from]);
        (*n)++;
        k++;
    }
    return k;
}

/* One strtok_quote token of ln from *i: measured, then copied. */
static int
conf_token(void *ctx, const struct acreO_ptext *ln, size_t *i,
           struct acreO_ptext *t, int *inquote)
{
    size_t cap, n;

    conf_scan(ln, *i, NULL, &n, inquote);
    if (n > ACREO_MAX_TOKEN)
        return ACRE_ERR_RULE_LIMIT;
    if (tok_start(ctx, t, &cap, n))
        return ACRE_ERR_NOMEM;
    *i = conf_scan(ln, *i, t, &n, inquote);
    ptext_end(t, ln->line[*i], ln->col[*i]);
    return 0;
}

int
acreO_tokenize_conf(void *ctx, const struct acreO_ptext *ln,
                    struct acreO_ptext **out, unsigned *n, int *unterminated,
                    const char *file, acre_diag *diag)
{
    struct toks ts = {0};
    size_t i = 0;
    int rc, inquote = 0;

    *unterminated = 0;
    for (;;) {
        struct acreO_ptext t;
        while (i < ln->len && (ln->s[i] == ' ' || ln->s[i] == '\t'))
            i++;
        if (i >= ln->len)
            break;
        size_t at = i;
        rc = conf_token(ctx, ln, &i, &t, &inquote);
        if (!rc)
            rc = toks_push(ctx, &ts, t);
        if (rc)
            return tok_error(diag, rc, file, ln, at);
    }
    *unterminated = inquote;
    *out = ts.v;
    *n = ts.n;
    return 0;
}

/* One strtok_quote_ldif token of v from k (at a non-space): appends its
 * bytes to t when not NULL; returns the index after it; *n its length
 * before slapd drops the last inner quote, *quote where that quote is in
 * the token ((size_t)-1: none). */
static size_t
ldif_scan(const struct acreO_ptext *v, size_t k, struct acreO_ptext *t,
          size_t *n, size_t *quote)
{
    size_t end = v->len;
    int inquote = 0;

    *n = 0;
    *quote = (size_t)-1;
    if (v->s[k] == '"') {
        inquote = 1;
        k++;
    }
    for (; k < end; k++) {
        char c = v->s[k];
        if (c == '"') {
            if (inquote &&
                (k + 1 == end || isspace((unsigned char)v->s[k + 1]))) {
                k++;
                break;
            }
            inquote = 1;
            *quote = *n;
        } else if (!inquote && isspace((unsigned char)c)) {
            break;
        }
        if (t)
            ptext_put(t, c, v->line[k], v->col[k]);
        (*n)++;
    }
    return k;
}

/* One strtok_quote_ldif token of v from *i: measured, then copied. */
static int
ldif_token(void *ctx, const struct acreO_ptext *v, size_t *i,
           struct acreO_ptext *t)
{
    size_t cap, n, quote;

    ldif_scan(v, *i, NULL, &n, &quote);
    if (n > ACREO_MAX_TOKEN)
        return ACRE_ERR_RULE_LIMIT;
    if (tok_start(ctx, t, &cap, n))
        return ACRE_ERR_NOMEM;
    size_t k = ldif_scan(v, *i, t, &n, &quote);
    if (quote != (size_t)-1) { /* slapd drops the last inner quote */
        size_t m = t->len - quote - 1;
        memmove(t->s + quote, t->s + quote + 1, m);
        memmove(t->line + quote, t->line + quote + 1, m * sizeof(unsigned));
        memmove(t->col + quote, t->col + quote + 1, m * sizeof(unsigned));
        t->len--;
    }
    ptext_end(t, v->line[k], v->col[k]);
    *i = k;
    return 0;
}

int
acreO_tokenize_ldif(void *ctx, const struct acreO_ptext *v,
                    struct acreO_ptext **out, unsigned *n, const char *file,
                    acre_diag *diag)
{
    struct toks ts = {0};
    size_t i = 0;
    int rc;

    for (;;) {
        struct acreO_ptext t;
        while (i < v->len && isspace((unsigned char)v->s[i]))
            i++;
        if (i >= v->len)
            break;
        size_t at = i;
        rc = ldif_token(ctx, v, &i, &t);
        if (!rc)
            rc = toks_push(ctx, &ts, t);
        if (rc)
            return tok_error(diag, rc, file, v, at);
    }
    *out = ts.v;
    *n = ts.n;
    return 0;
}
