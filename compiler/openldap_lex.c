/*
 * openldap_lex.c -- the lexical layer of the OpenLDAP front end: logical
 * lines of a slapd.conf (slapd's fp_getline) and the two tokenisers slapd
 * uses, strtok_quote for slapd.conf and strtok_quote_ldif for cn=config
 * values.
 *
 * Invariants: every output byte keeps the position of the input byte it
 * came from; nothing here allocates more than a bounded multiple of its
 * input (ACREO_MAX_LINE, ACREO_MAX_TOKEN); all memory is the caller's
 * struct acreO_lexbuf, reused from line to line (reading 100,000 lines
 * costs a handful of allocations).
 */
#include "openldap_int.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

/* ------------------------------------------------------------------------
 * Positioned strings and the reusable buffers
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

static void
ptext_free(struct acreO_ptext *t)
{
    talloc_free(t->s);
    talloc_free(t->line);
    talloc_free(t->col);
    memset(t, 0, sizeof(*t));
}

void
acreO_lexbuf_init(struct acreO_lexbuf *lb, void *ctx)
{
    memset(lb, 0, sizeof(*lb));
    lb->ctx = ctx;
}

void
acreO_lexbuf_free(struct acreO_lexbuf *lb)
{
    void *ctx = lb->ctx;

    ptext_free(&lb->line);
    ptext_free(&lb->bytes);
    talloc_free(lb->toks);
    acreO_lexbuf_init(lb, ctx);
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
    if (nl && n > 0 && p[n - 1] == '\r')
        n--;
    *len = n;
    return 1;
}

/* phys_line, telling r->marks (acreO_comment), when set, of each '#'
 * line and of the first other line after a run of them (which an include
 * may follow): 1, 0 at the end, or ACRE_ERR_NOMEM. */
static int
next_phys(struct acreO_reader *r, size_t *start, size_t *len, unsigned *line)
{
    if (!phys_line(r, start, len, line))
        return 0;
    if (!r->marks)
        return 1;
    int hash = *len && r->p[*start] == '#';
    if ((hash || r->run.prev) &&
        acreO_comment(r->marks, &r->run, r->name, hash ? *line : 0,
                      r->p + *start, *len))
        return ACRE_ERR_NOMEM;
    return 1;
}

int
acreO_lone_cr(const char *name, const char *text, size_t len, acre_diag *diag)
{
    const char *p = text, *end = text + len, *cr, *bol = text;
    unsigned line = 1;

    while ((cr = memchr(p, '\r', (size_t)(end - p)))) {
        if (cr + 1 < end && cr[1] == '\n') {
            p = cr + 2;
            continue;
        }
        for (const char *q = text; q < cr; q++)
            if (*q == '\n') {
                line++;
                bol = q + 1;
            }
        unsigned col = (unsigned)(cr - bol) + 1;
        struct acreO_ptext at = {.line = &line, .col = &col};
        return acreO_error(diag, ACRE_ERR_RULE_SYNTAX, name, &at, 0,
                           "carriage return not followed by a line feed: "
                           "slapd ends lines only at LF (or CR LF) and "
                           "reads this CR as part of the line");
    }
    return 0;
}

/* Append physical bytes [start, start+n) of line `line`, columns from
 * col0 + 1. */
static int
append_phys(struct acreO_lexbuf *lb, struct acreO_reader *r, size_t start,
            size_t n, unsigned line, unsigned col0)
{
    struct acreO_ptext *t = &lb->line;

    if (t->len + n > ACREO_MAX_LINE)
        return ACRE_ERR_RULE_LIMIT;
    if (ptext_reserve(lb->ctx, t, &lb->line_cap, n))
        return ACRE_ERR_NOMEM;
    unsigned *pl = t->line + t->len, *pc = t->col + t->len;
    memcpy(t->s + t->len, r->p + start, n);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) { /* four at a time: the stores combine */
        unsigned c = col0 + (unsigned)i + 1;
        pl[i] = pl[i + 1] = pl[i + 2] = pl[i + 3] = line;
        pc[i] = c;
        pc[i + 1] = c + 1;
        pc[i + 2] = c + 2;
        pc[i + 3] = c + 3;
    }
    for (; i < n; i++) {
        pl[i] = line;
        pc[i] = col0 + (unsigned)i + 1;
    }
    t->len += n;
    return 0;
}

static int
ends_in_backslash(const struct acreO_ptext *t)
{
    if (t->len == 0 || t->s[t->len - 1] != '\\')
        return 0;
    return t->len == 1 || t->s[t->len - 2] != '\\';
}

/* Join the physical lines that continue lb's line (see acreO_read_line). */
static int
continue_line(struct acreO_lexbuf *lb, struct acreO_reader *r)
{
    struct acreO_ptext *t = &lb->line;
    size_t start, n;
    unsigned line;
    int rc;

    while ((rc = next_phys(r, &start, &n, &line)) == 1) {
        if (ends_in_backslash(t)) {
            t->len--;
            rc = append_phys(lb, r, start, n, line, 0);
        } else if (n == 0 || !isspace((unsigned char)r->p[start])) {
            r->have_look = 1;
            r->look_off = start;
            r->look_len = n;
            r->look_line = line;
            return 0;
        } else {
            rc = append_phys(lb, r, start, n, line, 0);
            if (!rc)
                t->s[t->len - n] = ' ';
        }
        if (rc)
            return rc;
    }
    return rc;
}

/* An error of reading the logical line starting at `line`: rc. */
static int
line_error(acre_diag *diag, int rc, const char *name, unsigned line)
{
    if (diag) {
        struct acreO_ptext at = {0};
        unsigned l = line, c = 1;
        at.line = &l;
        at.col = &c;
        acreO_error(diag, rc, name, &at, 0,
                    rc == ACRE_ERR_NOMEM ? "out of memory"
                                         : "logical line too long");
    }
    return rc;
}

int
acreO_read_line(struct acreO_lexbuf *lb, struct acreO_reader *r,
                struct acreO_ptext *out, acre_diag *diag)
{
    struct acreO_ptext *t = &lb->line;
    size_t start, n;
    unsigned line;
    int rc;

    if (r->have_look) {
        start = r->look_off;
        n = r->look_len;
        line = r->look_line;
        r->have_look = 0;
    } else if ((rc = next_phys(r, &start, &n, &line)) != 1) {
        return rc ? line_error(diag, rc, r->name, r->lineno - 1) : 0;
    }
    t->len = 0;
    rc = append_phys(lb, r, start, n, line, 0);
    if (!rc && !(t->len >= 7 && strncasecmp(t->s, "include", 7) == 0))
        rc = continue_line(lb, r);
    if (!rc && ptext_reserve(lb->ctx, t, &lb->line_cap, 0))
        rc = ACRE_ERR_NOMEM;
    if (rc)
        return line_error(diag, rc, r->name, line);
    ptext_end(t, t->len ? t->line[t->len - 1] : line,
              t->len ? t->col[t->len - 1] + 1 : 1);
    *out = *t;
    return 1;
}

/* Is the physical line at off of r's text a continuation of the one
 * before (not empty once its CR LF is dropped, starting with white
 * space)?  No line at the end. */
static int
continues(const struct acreO_reader *r, size_t off)
{
    if (off >= r->len)
        return 0;
    unsigned char c = (unsigned char)r->p[off];
    if (c == '\n' || (c == '\r' && off + 1 < r->len && r->p[off + 1] == '\n'))
        return 0;
    return isspace(c) != 0;
}

/* Without a '\\', strtok_quote leaves a quote open exactly when the
 * line holds an odd number of '"': do s[0..n) have none and an even
 * number? */
static int
quotes_close(const char *s, size_t n)
{
    const char *e = s + n, *q = s;
    unsigned nq = 0;

    if (memchr(s, '\\', n))
        return 0;
    while ((q = memchr(q, '"', (size_t)(e - q)))) {
        nq++;
        q++;
    }
    return nq % 2 == 0;
}

int
acreO_read_plain(struct acreO_reader *r, const char *word, unsigned *line,
                 acre_diag *diag)
{
    size_t wlen = strlen(word), start, n, next;
    unsigned ln;
    int rc;

    if (r->have_look) {
        start = r->look_off;
        n = r->look_len;
    } else {
        if (r->off >= r->len)
            return 0;
        const char *nl = memchr(r->p + r->off, '\n', r->len - r->off);
        start = r->off;
        n = nl ? (size_t)(nl - (r->p + start)) : r->len - start;
        if (nl && n > 0 && r->p[start + n - 1] == '\r')
            n--;
    }
    const char *s = r->p + start;
    if (n < wlen || n > ACREO_MAX_TOKEN || strncasecmp(s, word, wlen) != 0 ||
        (n > wlen && s[wlen] != ' ' && s[wlen] != '\t') || !quotes_close(s, n))
        return 0;
    next = (size_t)(s - r->p) + n;
    next += next < r->len && r->p[next] == '\r';
    next += next < r->len; /* the LF */
    if (continues(r, next))
        return 0;
    if (r->have_look) {
        ln = r->look_line;
        r->have_look = 0;
    } else if ((rc = next_phys(r, &start, &n, &ln)) != 1) {
        return rc ? line_error(diag, rc, r->name, r->lineno - 1) : 0;
    }
    /* what continue_line does: the next line read ahead */
    if ((rc = next_phys(r, &start, &n, &r->look_line)) == 1) {
        r->have_look = 1;
        r->look_off = start;
        r->look_len = n;
    } else if (rc) {
        return line_error(diag, rc, r->name, ln);
    }
    *line = ln;
    return 1;
}

/* ------------------------------------------------------------------------
 * Tokens
 *
 * A line's tokens go one after the other into lb->bytes, each followed by
 * its NUL and end position.  Every token takes at least one byte of the
 * line and yields at most as many, so 2 * len + 1 bytes always suffice:
 * the room is made once per line and the tokens never move.
 */

/* Room for the tokens of a line of n bytes; the array emptied. */
static int
toks_begin(struct acreO_lexbuf *lb, size_t n)
{
    lb->bytes.len = 0;
    return ptext_reserve(lb->ctx, &lb->bytes, &lb->bytes_cap, 2 * n);
}

/* Room for token k. */
static int
toks_room(struct acreO_lexbuf *lb, unsigned k)
{
    if (k < lb->toks_cap)
        return 0;
    unsigned ncap = lb->toks_cap ? lb->toks_cap * 2 : 16;
    struct acreO_ptext *v =
        talloc_realloc(lb->ctx, lb->toks, struct acreO_ptext, ncap);
    if (!v)
        return ACRE_ERR_NOMEM;
    lb->toks = v;
    lb->toks_cap = ncap;
    return 0;
}

/* An empty token where the next bytes of lb go. */
static struct acreO_ptext
tok_at(const struct acreO_lexbuf *lb)
{
    const struct acreO_ptext *b = &lb->bytes;

    return (struct acreO_ptext){b->s + b->len, 0, b->line + b->len,
                                b->col + b->len};
}

/* Close token t (ending before position (line, col)) and keep it as
 * token k. */
static void
tok_keep(struct acreO_lexbuf *lb, struct acreO_ptext *t, unsigned k,
         unsigned line, unsigned col)
{
    ptext_end(t, line, col);
    lb->bytes.len += t->len + 1;
    lb->toks[k] = *t;
}

static int
tok_error(acre_diag *diag, int rc, const char *file,
          const struct acreO_ptext *ln, size_t at)
{
    return acreO_error(diag, rc, file, ln, at,
                       rc == ACRE_ERR_NOMEM ? "out of memory"
                                            : "token too long");
}

/* Append ln's bytes [k, e) to t. */
static void
ptext_copy(struct acreO_ptext *t, const struct acreO_ptext *ln, size_t k,
           size_t e)
{
    memcpy(t->s + t->len, ln->s + k, e - k);
    memcpy(t->line + t->len, ln->line + k, (e - k) * sizeof(unsigned));
    memcpy(t->col + t->len, ln->col + k, (e - k) * sizeof(unsigned));
    t->len += e - k;
}

/* The bytes that end a run strtok_quote copies as it is: QUOTING ones
 * always, SEPARATING ones outside quotes. */
enum { QUOTING = 1, SEPARATING = 2 };

static const unsigned char stops[256] = {
    ['"'] = QUOTING, ['\\'] = QUOTING, [' '] = SEPARATING, ['\t'] = SEPARATING};

/* Where the run of bytes from k that strtok_quote copies as they are
 * ends: at a quote, a backslash, or (unquoted) a space or tab. */
static size_t
plain_run(const struct acreO_ptext *ln, size_t k, int q)
{
    const unsigned char *s = (const unsigned char *)ln->s;
    unsigned mask = q ? QUOTING : QUOTING | SEPARATING;

    if (q && k < ln->len) { /* long runs (DNs): two memchr */
        const unsigned char *e = memchr(s + k, '"', ln->len - k);
        size_t end = e ? (size_t)(e - s) : ln->len;
        const unsigned char *b = memchr(s + k, '\\', end - k);
        return b ? (size_t)(b - s) : end;
    }
    while (k < ln->len && !(stops[s[k]] & mask))
        k++;
    return k;
}

/* One strtok_quote token of ln from k (at a non-separator), appended to
 * t when t is not NULL (else only scanned); returns the index after it. */
static size_t
conf_scan(const struct acreO_ptext *ln, size_t k, struct acreO_ptext *t,
          size_t *n, int *inquote)
{
    size_t end = ln->len;
    int q = 0;

    *n = 0;
    while (k < end) {
        size_t e = plain_run(ln, k, q);
        if (e > k) {
            if (t)
                ptext_copy(t, ln, k, e);
            *n += e - k;
            k = e;
            continue;
        }
        char c = ln->s[k];
        size_t from = k;
        if (c == '"') {
            q = !q;
            k++;
            continue;
        }
        if (c == '\\' && k + 1 < end)
            from = ++k;
        else if (!q && (c == ' ' || c == '\t'))
            break;
        if (t)
            ptext_put(t, ln->s[from], ln->line[from], ln->col[from]);
        ++*n;
        k++;
    }
    *inquote = q;
    return k;
}

/* Is the token of ln at k a plain run (no quote or backslash: its bytes
 * as they are)?  Then *t is that run of ln itself. */
static int
plain_token(const struct acreO_ptext *ln, size_t k, struct acreO_ptext *t)
{
    size_t e = plain_run(ln, k, 0);

    if (e < ln->len && ln->s[e] != ' ' && ln->s[e] != '\t')
        return 0;
    *t = (struct acreO_ptext){ln->s + k, e - k, ln->line + k, ln->col + k};
    return 1;
}

int
acreO_tokenize_conf(struct acreO_lexbuf *lb, const struct acreO_ptext *ln,
                    unsigned max, struct acreO_ptext **out, unsigned *n,
                    int *unterminated, const char *file, acre_diag *diag)
{
    unsigned k = 0;
    size_t i = 0, len;
    int rc, inquote = 0;

    *unterminated = 0;
    if ((rc = toks_begin(lb, ln->len)))
        return tok_error(diag, rc, file, ln, 0);
    for (;;) {
        while (i < ln->len && (ln->s[i] == ' ' || ln->s[i] == '\t'))
            i++;
        if (i >= ln->len)
            break;
        size_t at = i;
        struct acreO_ptext t = tok_at(lb);
        if (k < max && ln->s == lb->line.s && plain_token(ln, i, &t)) {
            /* in place: its bytes and positions are the line's */
            if ((rc = t.len > ACREO_MAX_TOKEN ? ACRE_ERR_RULE_LIMIT
                                              : toks_room(lb, k)))
                return tok_error(diag, rc, file, ln, at);
            i += t.len;
            t.s[t.len] = '\0'; /* the blank after it, or the line's NUL */
            i += i < ln->len;
            lb->toks[k++] = t;
            inquote = 0;
            continue;
        }
        i = conf_scan(ln, i, k < max ? &t : NULL, &len, &inquote);
        rc = len > ACREO_MAX_TOKEN ? ACRE_ERR_RULE_LIMIT
             : k < max             ? toks_room(lb, k)
                                   : 0;
        if (rc)
            return tok_error(diag, rc, file, ln, at);
        if (k < max)
            tok_keep(lb, &t, k++, ln->line[i], ln->col[i]);
    }
    *unterminated = inquote;
    *out = lb->toks;
    *n = k;
    return 0;
}

/* One strtok_quote_ldif token of v from k (at a non-space), appended to
 * t; returns the index after it.  *quote: where in t the last inner
 * quote is ((size_t)-1: none), which slapd drops. */
static size_t
ldif_scan(const struct acreO_ptext *v, size_t k, struct acreO_ptext *t,
          size_t *quote)
{
    size_t end = v->len;
    int inquote = 0;

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
            *quote = t->len;
        } else if (!inquote && isspace((unsigned char)c)) {
            break;
        }
        ptext_put(t, c, v->line[k], v->col[k]);
    }
    return k;
}

/* Drop byte q of t (slapd drops the last inner quote). */
static void
drop_byte(struct acreO_ptext *t, size_t q)
{
    size_t m = t->len - q - 1;

    memmove(t->s + q, t->s + q + 1, m);
    memmove(t->line + q, t->line + q + 1, m * sizeof(unsigned));
    memmove(t->col + q, t->col + q + 1, m * sizeof(unsigned));
    t->len--;
}

int
acreO_tokenize_ldif(struct acreO_lexbuf *lb, const struct acreO_ptext *v,
                    struct acreO_ptext **out, unsigned *n, const char *file,
                    acre_diag *diag)
{
    unsigned k = 1;
    size_t i = 0, quote;
    int rc;

    if ((rc = toks_begin(lb, v->len)) || (rc = toks_room(lb, 0)))
        return tok_error(diag, rc, file, v, 0);
    for (;;) {
        while (i < v->len && isspace((unsigned char)v->s[i]))
            i++;
        if (i >= v->len)
            break;
        size_t at = i;
        struct acreO_ptext t = tok_at(lb);
        i = ldif_scan(v, i, &t, &quote);
        rc = t.len > ACREO_MAX_TOKEN ? ACRE_ERR_RULE_LIMIT : toks_room(lb, k);
        if (rc)
            return tok_error(diag, rc, file, v, at);
        if (quote != (size_t)-1)
            drop_byte(&t, quote);
        tok_keep(lb, &t, k++, v->line[i], v->col[i]);
    }
    *out = lb->toks;
    *n = k;
    return 0;
}
