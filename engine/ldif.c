/*
 * ldif.c -- a streaming reader of RFC 2849 LDIF content records.
 *
 * Input comes from a FILE* (read in fixed-size chunks) or from a caller's
 * buffer; both go through the same byte source, so the parser cannot tell
 * them apart.  A physical line ends at LF, an optional CR before it is
 * dropped.  A line that starts with one space continues the previous one
 * (the space is dropped); comments ('#' in column 1) and their continuation
 * lines are skipped (the first line of each is shown to an acreL_on_comment
 * callback first); a blank line ends a record.
 *
 * Memory: the reader keeps one record at a time in `rec` (every logical
 * line of the record, unfolded and with base64 undone in place, each
 * followed by a NUL) plus the fixed read chunk, so what it holds is bounded
 * by the largest record (itself at most ACREL_MAX_RECORD bytes), whatever
 * the size of the input.
 *
 * Positions: every logical line remembers where its folds were (`folds`),
 * so an error found anywhere in the unfolded text is reported at the
 * physical line and column where the offending byte was written.
 *
 * Invariants: acreL_next either returns a complete, well-formed record or
 * an error with file, line and column; after an error the reader keeps
 * returning that error.  Pointers handed out stay valid until the next call.
 */
#include "ldif.h"

#include "internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

#define CHUNK 65536 /* bytes read from a FILE at a time */

struct fold {
    size_t off;    /* offset in the logical line where this segment starts */
    unsigned line; /* its physical line */
};

/* Where one attribute's text lies in rec (offsets: rec may move). */
struct slot {
    size_t desc_off, desc_len, val_off, len, span;
    unsigned line, col, cut;
};

struct acreL_reader {
    /* byte source */
    FILE *f;
    const uint8_t *src; /* current chunk (the caller's text, or chunk) */
    size_t src_len, src_pos;
    uint8_t *chunk; /* CHUNK bytes when reading a FILE */
    int eof;
    const char *name;
    unsigned line;   /* physical lines consumed so far */
    size_t offset;   /* bytes consumed so far */
    int started;     /* a record (or the version line) has been seen */
    const char *why; /* which limit an ACRE_ERR_LDIF_SYNTAX of reading hit */
    /* the current record */
    char *rec;
    size_t rec_len, rec_cap;
    size_t llen; /* bytes of the logical line being read */
    struct fold *folds;
    size_t nfolds, folds_cap;
    struct slot *slots;
    struct acreL_attrval *vals;
    size_t nslots, slots_cap, vals_cap;
    /* a sticky error */
    int err;
    acre_diag err_diag;
    int slapd; /* acreL_set_slapd */
    /* acreL_on_comment's callback, or NULL */
    int (*on_comment)(void *arg, unsigned line, const char *s, size_t n);
    void *comment_arg;
};

/* ------------------------------------------------------------------------
 * Byte source
 */

/* refill -- make at least one unread byte available; 0 at EOF or on error. */
static int
refill(struct acreL_reader *r)
{
    size_t n;

    if (r->src_pos < r->src_len)
        return 1;
    if (!r->f || r->eof)
        return 0;
    n = fread(r->chunk, 1, CHUNK, r->f);
    if (n == 0) {
        r->eof = ferror(r->f) ? -1 : 1;
        return 0;
    }
    r->src = r->chunk;
    r->src_len = n;
    r->src_pos = 0;
    return 1;
}

/* peek -- the next byte, or -1 at the end of the input. */
static int
peek(struct acreL_reader *r)
{
    if (!refill(r))
        return -1;
    return r->src[r->src_pos];
}

static void
skip_byte(struct acreL_reader *r)
{
    r->src_pos++;
    r->offset++;
}

/* ------------------------------------------------------------------------
 * Errors
 */

/* fail -- record a sticky error at physical line/column and return it. */
static int __attribute__((format(printf, 6, 7)))
fail(struct acreL_reader *r, acre_diag *diag, int code, unsigned line,
     unsigned column, const char *fmt, ...)
{
    char msg[sizeof r->err_diag.message];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    acreE_diag_set(&r->err_diag, code, r->offset, "%s", msg);
    r->err_diag.file = r->name;
    r->err_diag.line = line;
    r->err_diag.column = column;
    r->err = code;
    if (diag)
        *diag = r->err_diag;
    return code;
}

/* fold_of -- index of the fold segment holding logical offset off. */
static size_t
fold_of(const struct acreL_reader *r, size_t off)
{
    size_t k = 0;

    while (k + 1 < r->nfolds && r->folds[k + 1].off <= off)
        k++;
    return k;
}

static unsigned
pos_line(const struct acreL_reader *r, size_t off)
{
    return r->folds[fold_of(r, off)].line;
}

static unsigned
pos_col(const struct acreL_reader *r, size_t off)
{
    size_t k = fold_of(r, off);

    return (unsigned)(off - r->folds[k].off) + (k ? 2 : 1);
}

/*
 * fail_at -- an error at byte `off` of the current logical line, reported
 * where that byte was written (a continuation segment starts after its
 * leading space, in column 2).
 */
#define fail_at(r, diag, code, o, ...)                               \
    fail((r), (diag), (code), pos_line((r), (o)), pos_col((r), (o)), \
         __VA_ARGS__)

/*
 * lift -- record a failure of the line reader (errors already recorded by
 * fail() pass through).
 */
static int
lift(struct acreL_reader *r, acre_diag *diag, int rc)
{
    if (r->err == rc)
        return rc;
    if (rc == ACRE_ERR_LDIF_IO)
        return fail(r, diag, rc, r->line + 1, 0, "cannot read: %s",
                    strerror(errno));
    if (rc == ACRE_ERR_LDIF_SYNTAX)
        return fail(r, diag, rc, r->line + 1, 1, "%s", r->why);
    return fail(r, diag, rc, r->line + 1, 0, "out of memory");
}

/* ------------------------------------------------------------------------
 * Record storage
 */

/* reserve -- room for `more` bytes at the end of rec. */
static int
reserve(struct acreL_reader *r, size_t more)
{
    size_t cap = r->rec_cap ? r->rec_cap : 4096;
    char *p;

    if (r->rec_cap - r->rec_len >= more)
        return 0;
    if (more > ACREL_MAX_RECORD || r->rec_len > ACREL_MAX_RECORD - more) {
        r->why = "record larger than ACREL_MAX_RECORD (256 MiB)";
        return ACRE_ERR_LDIF_SYNTAX;
    }
    while (cap - r->rec_len < more)
        cap *= 2;
    p = talloc_realloc(r, r->rec, char, cap);
    if (!p)
        return ACRE_ERR_NOMEM;
    r->rec = p;
    r->rec_cap = cap;
    return 0;
}

static int
add_fold(struct acreL_reader *r, size_t off, unsigned line)
{
    if (r->nfolds == r->folds_cap) {
        size_t cap = r->folds_cap ? 2 * r->folds_cap : 16;
        struct fold *p = talloc_realloc(r, r->folds, struct fold, cap);

        if (!p)
            return ACRE_ERR_NOMEM;
        r->folds = p;
        r->folds_cap = cap;
    }
    r->folds[r->nfolds].off = off;
    r->folds[r->nfolds].line = line;
    r->nfolds++;
    return 0;
}

static int
add_slot(struct acreL_reader *r, const struct slot *s)
{
    if (r->nslots == r->slots_cap) {
        size_t cap = r->slots_cap ? 2 * r->slots_cap : 32;
        struct slot *p = talloc_realloc(r, r->slots, struct slot, cap);

        if (!p)
            return ACRE_ERR_NOMEM;
        r->slots = p;
        r->slots_cap = cap;
    }
    r->slots[r->nslots++] = *s;
    return 0;
}

/* ------------------------------------------------------------------------
 * Lines
 */

/*
 * read_phys -- consume one physical line and its LF; append its bytes
 * (without CR LF) to rec when `keep`.  Returns 1, 0 at the end of the input
 * (nothing consumed) or a negative code (r->why says which limit).
 */
static int
read_phys(struct acreL_reader *r, int keep)
{
    int any = 0, rc;
    size_t seg = 0;

    while (refill(r)) {
        const uint8_t *p = r->src + r->src_pos;
        size_t avail = r->src_len - r->src_pos;
        const uint8_t *nl = memchr(p, '\n', avail);
        size_t n = nl ? (size_t)(nl - p) : avail;

        any = 1;
        if (keep) {
            if (r->llen + n > ACREL_MAX_LINE) {
                r->why = "line longer than ACREL_MAX_LINE (16 MiB)";
                return ACRE_ERR_LDIF_SYNTAX;
            }
            if ((rc = reserve(r, n + 1)))
                return rc;
            memcpy(r->rec + r->rec_len, p, n);
            r->rec_len += n;
            r->llen += n;
            seg += n;
        }
        r->src_pos += n + (nl != NULL);
        r->offset += n + (nl != NULL);
        if (nl)
            break;
    }
    if (r->eof < 0)
        return ACRE_ERR_LDIF_IO;
    if (!any)
        return 0;
    r->line++;
    /* drop the CR of a CR LF (it is the last byte kept) */
    if (seg > 0 && r->rec[r->rec_len - 1] == '\r') {
        r->rec_len--;
        r->llen--;
    }
    return 1;
}

/*
 * read_more -- append the continuation lines of the logical line being
 * read (keep) or skip them (!keep).  Returns 0 or a negative code.
 */
static int
read_more(struct acreL_reader *r, int keep)
{
    while (peek(r) == ' ') {
        int rc;

        skip_byte(r);
        if (keep && (rc = add_fold(r, r->llen, r->line + 1)))
            return rc;
        rc = read_phys(r, keep);
        if (rc < 0)
            return rc;
    }
    return r->eof < 0 ? ACRE_ERR_LDIF_IO : 0;
}

enum { L_EOF, L_BLANK, L_CONTENT };

static int
all_spaces(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] != ' ')
            return 0;
    return 1;
}

/*
 * read_logical -- the next logical line, skipping comments.  On L_CONTENT
 * the unfolded line is at rec[*start .. *start + r->llen), followed by a
 * NUL, and r->folds describes it.  A line of spaces alone counts as blank.
 * Returns L_EOF, L_BLANK, L_CONTENT or a negative code, not yet recorded.
 */
static int
read_logical(struct acreL_reader *r, size_t *start)
{
    for (;;) {
        int rc;

        *start = r->rec_len;
        r->llen = 0;
        r->nfolds = 0;
        if ((rc = add_fold(r, 0, r->line + 1)))
            return rc;
        if ((rc = read_phys(r, 1)) <= 0)
            return rc < 0 ? rc : L_EOF;
        if (r->llen == 0)
            return L_BLANK;
        if (r->rec[*start] != '#') {
            if ((rc = read_more(r, 1)) < 0 || (rc = reserve(r, 1)))
                return rc;
            r->rec[r->rec_len++] = '\0';
            if (all_spaces(r->rec + *start, r->llen)) {
                r->rec_len = *start;
                return L_BLANK;
            }
            return L_CONTENT;
        }
        if (r->on_comment && (rc = r->on_comment(r->comment_arg, r->line,
                                                 r->rec + *start, r->llen)))
            return rc;
        r->rec_len = *start; /* a comment: drop it and its continuations */
        if ((rc = read_more(r, 0)) < 0)
            return rc;
    }
}

/* ------------------------------------------------------------------------
 * Base64 (RFC 4648, padded)
 */
static const int8_t b64[256] = {
    ['A'] = 1,  ['B'] = 2,  ['C'] = 3,  ['D'] = 4,  ['E'] = 5,  ['F'] = 6,
    ['G'] = 7,  ['H'] = 8,  ['I'] = 9,  ['J'] = 10, ['K'] = 11, ['L'] = 12,
    ['M'] = 13, ['N'] = 14, ['O'] = 15, ['P'] = 16, ['Q'] = 17, ['R'] = 18,
    ['S'] = 19, ['T'] = 20, ['U'] = 21, ['V'] = 22, ['W'] = 23, ['X'] = 24,
    ['Y'] = 25, ['Z'] = 26, ['a'] = 27, ['b'] = 28, ['c'] = 29, ['d'] = 30,
    ['e'] = 31, ['f'] = 32, ['g'] = 33, ['h'] = 34, ['i'] = 35, ['j'] = 36,
    ['k'] = 37, ['l'] = 38, ['m'] = 39, ['n'] = 40, ['o'] = 41, ['p'] = 42,
    ['q'] = 43, ['r'] = 44, ['s'] = 45, ['t'] = 46, ['u'] = 47, ['v'] = 48,
    ['w'] = 49, ['x'] = 50, ['y'] = 51, ['z'] = 52, ['0'] = 53, ['1'] = 54,
    ['2'] = 55, ['3'] = 56, ['4'] = 57, ['5'] = 58, ['6'] = 59, ['7'] = 60,
    ['8'] = 61, ['9'] = 62, ['+'] = 63, ['/'] = 64,
}; /* value + 1; 0 means "not a base64 letter" */

/*
 * unbase64 -- decode s[0..n) in place (the output never overtakes the
 * input).  Returns the decoded length, or -1 - (offset of the first bad
 * byte) when s is not padded base64.
 */
static long
unbase64(char *s, size_t n)
{
    size_t o = 0, i;
    uint32_t acc = 0;
    unsigned pad = 0, k = 0;

    if (n % 4)
        return -1 - (long)n;
    for (i = 0; i < n; i++) {
        int v = b64[(uint8_t)s[i]] - 1;

        if (s[i] == '=' && i + 2 >= n && (i + 1 == n || s[i + 1] == '=')) {
            pad++;
            v = 0;
        } else if (v < 0 || pad) {
            return -1 - (long)i;
        }
        acc = acc << 6 | (uint32_t)v;
        if (++k == 4) {
            s[o++] = (char)(acc >> 16);
            s[o++] = (char)(acc >> 8);
            s[o++] = (char)acc;
            k = 0;
            acc = 0;
        }
    }
    return (long)(o - pad);
}

/*
 * unbase64_slapd -- decode s[0..n) in place as libldap's
 * ldap_int_decode_b64_inplace does: four letters at a time, each a letter
 * of the alphabet or '=' (a byte past the end reads as NUL, which is
 * neither); the first quad with another byte ends the value (its letters
 * are not decoded), a '=' third or fourth ends it after the bytes before
 * it, and a '=' first or second decodes as libldap's table has it (0xff,
 * a char, shifted with its sign).  Returns the decoded length; *clean
 * is 0 when a byte outside the alphabet ended it (libldap's error, after
 * which slapd keeps what was decoded of an attribute value).
 */
static size_t
unbase64_slapd(char *s, size_t n, int *clean)
{
    size_t o = 0;

    *clean = 0;
    for (size_t p = 0; p < n; p += 4) {
        uint8_t c[4];
        uint32_t nib[4]; /* '=': all ones, whose low bytes shift as -1 */

        for (int i = 0; i < 4; i++) {
            c[i] = p + (size_t)i < n ? (uint8_t)s[p + (size_t)i] : 0;
            if (c[i] != '=' && !b64[c[i]])
                return o;
            nib[i] = c[i] == '=' ? UINT32_MAX : (uint32_t)(b64[c[i]] - 1);
        }
        s[o] = (char)(uint8_t)((nib[0] << 2) | (nib[1] >> 4));
        if (c[2] == '=')
            return *clean = 1, o + 1;
        s[o + 1] = (char)(uint8_t)(((nib[1] & 0x0f) << 4) | (nib[2] >> 2));
        if (c[3] == '=')
            return *clean = 1, o + 2;
        s[o + 2] = (char)(uint8_t)(((nib[2] & 0x03) << 6) | nib[3]);
        o += 3;
    }
    return *clean = 1, o;
}

/* ------------------------------------------------------------------------
 * Line syntax
 */

/* c_space -- isspace in the C locale, as libldap's LDIF reader tests it
 * around a line's colon */
static int
c_space(char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* drop_cr -- libldap's LDIF reader deletes every CR of a value (the mark
 * it leaves where it joins folded lines): l[v..e) without its CRs, moved
 * down in place; returns the new end */
static size_t
drop_cr(char *l, size_t v, size_t e)
{
    char *p = memchr(l + v, '\r', e - v);
    size_t o;

    if (!p)
        return e;
    o = (size_t)(p - l);
    for (size_t i = o; i < e; i++)
        if (l[i] != '\r')
            l[o++] = l[i];
    return o;
}

/* parse_base64 -- the value of "desc::" starts at line offset v; as
 * slapd reads it when slapd is set (2: a DN, decoded to its end or its
 * padding). */
static int
parse_base64(struct acreL_reader *r, size_t start, size_t v, struct slot *s,
             int slapd, acre_diag *diag)
{
    char *l = r->rec + start;
    size_t e = r->llen;
    long m;

    for (; v < e && (l[v] == ' ' || (slapd && c_space(l[v]))); v++)
        ;
    if (slapd) {
        int clean;

        e = drop_cr(l, v, e);
        if (v == e)
            return fail_at(r, diag, ACRE_ERR_LDIF_BASE64, v,
                           "missing base64 value");
        m = (long)unbase64_slapd(l + v, e - v, &clean);
        /* a DN line that does not decode cleanly is no DN to slapadd */
        if (!clean && slapd == 2)
            return fail_at(r, diag, ACRE_ERR_LDIF_BASE64, v, "invalid base64");
        s->cut = !clean;
    } else {
        while (e > v && l[e - 1] == ' ')
            e--;
        m = unbase64(l + v, e - v);
        if (m < 0)
            return fail_at(r, diag, ACRE_ERR_LDIF_BASE64, v + (size_t)(-1 - m),
                           "invalid base64");
    }
    l[v + (size_t)m] = '\0';
    s->val_off = start + v;
    s->len = (size_t)m;
    s->col = 0;
    s->span = 0;
    return 0;
}

/* Bytes of an attribute description: letters, digits, '-', ';', '.' (OIDs)
 * and, as many servers allow, '_'. */
static const uint8_t desc_char[256] = {
    ['-'] = 1, ['.'] = 1, [';'] = 1, ['_'] = 1, ['0'] = 1, ['1'] = 1, ['2'] = 1,
    ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1, ['8'] = 1, ['9'] = 1,
    ['A'] = 1, ['B'] = 1, ['C'] = 1, ['D'] = 1, ['E'] = 1, ['F'] = 1, ['G'] = 1,
    ['H'] = 1, ['I'] = 1, ['J'] = 1, ['K'] = 1, ['L'] = 1, ['M'] = 1, ['N'] = 1,
    ['O'] = 1, ['P'] = 1, ['Q'] = 1, ['R'] = 1, ['S'] = 1, ['T'] = 1, ['U'] = 1,
    ['V'] = 1, ['W'] = 1, ['X'] = 1, ['Y'] = 1, ['Z'] = 1, ['a'] = 1, ['b'] = 1,
    ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1, ['g'] = 1, ['h'] = 1, ['i'] = 1,
    ['j'] = 1, ['k'] = 1, ['l'] = 1, ['m'] = 1, ['n'] = 1, ['o'] = 1, ['p'] = 1,
    ['q'] = 1, ['r'] = 1, ['s'] = 1, ['t'] = 1, ['u'] = 1, ['v'] = 1, ['w'] = 1,
    ['x'] = 1, ['y'] = 1, ['z'] = 1,
};

static int
ieq(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && strncasecmp(s, lit, n) == 0;
}

/*
 * parse_plain -- the SAFE-STRING value of "desc:" starts at line offset v
 * (after the colon): skip the FILL, refuse what must be base64-encoded.
 * As slapd reads it when slapd is set (2: a DN, which must still not
 * start with ':' or '<': slapd takes no such DN).
 */
static int
parse_plain(struct acreL_reader *r, size_t start, size_t v, struct slot *s,
            int slapd, acre_diag *diag)
{
    char *l = r->rec + start;
    const char *bad;
    size_t n = r->llen, full;

    /* slapd skips any white space after the colon and drops CRs */
    for (; v < n && (l[v] == ' ' || (slapd && c_space(l[v]))); v++)
        ;
    full = n;
    if (slapd && (n = drop_cr(l, v, n)) != full)
        l[n] = '\0';
    if (v < n && (l[v] == ':' || l[v] == '<') && slapd != 1)
        return fail_at(r, diag, ACRE_ERR_LDIF_SYNTAX, v,
                       "a value starting with '%c' must be base64-encoded",
                       l[v]);
    if ((bad = memchr(l + v, '\0', n - v)) ||
        (bad = memchr(l + v, '\r', n - v)))
        return fail_at(r, diag, ACRE_ERR_LDIF_SYNTAX, (size_t)(bad - l),
                       "NUL or CR in a value must be base64-encoded");
    s->val_off = start + v;
    s->len = n - v;
    s->col = 0;
    s->span = 0;
    if (fold_of(r, v) == 0 && n == full) {
        s->col = (unsigned)v + 1;
        s->span = (r->nfolds > 1 ? r->folds[1].off : n) - v;
    }
    return 0;
}

/*
 * parse_line -- split the logical line at rec[start..] (llen bytes) into
 * description and value, decoding base64 in place.  Fills s with offsets.
 */
static int
parse_line(struct acreL_reader *r, size_t start, struct slot *s,
           acre_diag *diag)
{
    const char *l = r->rec + start;
    size_t n = r->llen, i = 0, k = 0;
    int empty_opt = 0, slapd;

    /* slapd's ldif_parse_line2 first skips white space (isspace) */
    while (r->slapd && k < n && (l[k] == ' ' || (l[k] >= '\t' && l[k] <= '\r')))
        k++;
    i = k;
    while (i < n && desc_char[(uint8_t)l[i]]) {
        empty_opt |= l[i] == ';' && (i == k || l[i - 1] == ';');
        i++;
    }
    if (i == n)
        return fail_at(r, diag, ACRE_ERR_LDIF_SYNTAX, i, "line has no colon");
    if (l[i] != ':' || i == k)
        return fail_at(r, diag, ACRE_ERR_LDIF_SYNTAX, i,
                       "invalid character in attribute description");
    if (empty_opt || l[i - 1] == ';')
        return fail_at(r, diag, ACRE_ERR_LDIF_SYNTAX, k,
                       "empty attribute option in \"%.*s\"", (int)(i - k),
                       l + k);
    s->desc_off = start + k;
    s->desc_len = i - k;
    s->cut = 0;
    s->line = r->folds[0].line;
    if (i + 1 < n && l[i + 1] == '<')
        return fail_at(r, diag, ACRE_ERR_LDIF_UNSUPPORTED, i + 1,
                       "URL values (\":<\") are not supported");
    /* slapd's reader (2: the DN's: its base64 must decode cleanly) */
    slapd = r->slapd ? 1 + ieq(l + k, i - k, "dn") : 0;
    if (i + 1 < n && l[i + 1] == ':')
        return parse_base64(r, start, i + 2, s, slapd, diag);
    return parse_plain(r, start, i + 1, s, slapd, diag);
}

/* ------------------------------------------------------------------------
 * Records
 */

/* lead -- which kind of line a description introduces. */
enum { D_ATTR, D_DN, D_VERSION, D_CHANGE };

static int
lead(const struct acreL_reader *r, const struct slot *s)
{
    const char *d = r->rec + s->desc_off;
    char c = (char)(d[0] | 0x20);

    if (c != 'd' && c != 'v' && c != 'c')
        return D_ATTR; /* most lines: no string compare */
    if (ieq(d, s->desc_len, "dn"))
        return D_DN;
    if (ieq(d, s->desc_len, "version"))
        return D_VERSION;
    if (ieq(d, s->desc_len, "changetype") || ieq(d, s->desc_len, "control"))
        return D_CHANGE;
    return D_ATTR;
}

/*
 * first_line -- read up to the first line of the next record, past blank
 * lines and the version line.  Returns L_EOF, L_CONTENT (the dn: line
 * parsed into *s) or a negative, recorded code.
 */
static int
first_line(struct acreL_reader *r, struct slot *s, acre_diag *diag)
{
    for (;;) {
        size_t start;
        int t = read_logical(r, &start), rc;

        if (t < 0)
            return lift(r, diag, t);
        if (t == L_EOF)
            return L_EOF;
        if (t == L_BLANK)
            continue;
        /* (slapd: a record's first line, its leading spaces skipped) */
        if (r->rec[start] == ' ' && !r->slapd)
            return fail_at(r, diag, ACRE_ERR_LDIF_SYNTAX, 0,
                           "continuation line with no line to continue");
        if ((rc = parse_line(r, start, s, diag)))
            return rc;
        if (lead(r, s) == D_DN) {
            r->started = 1;
            return L_CONTENT;
        }
        if (lead(r, s) != D_VERSION || r->started)
            return fail_at(r, diag, ACRE_ERR_LDIF_SYNTAX, 0,
                           "record does not start with \"dn:\"");
        if (s->len != 1 || r->rec[s->val_off] != '1')
            return fail_at(r, diag, ACRE_ERR_LDIF_UNSUPPORTED,
                           s->val_off - start, "unsupported LDIF version");
        r->started = 1;
        r->rec_len = 0;
    }
}

/*
 * body -- read the attribute lines of a record up to a blank line or the
 * end of the input, adding a slot for each.
 */
static int
body(struct acreL_reader *r, acre_diag *diag)
{
    for (;;) {
        struct slot s;
        size_t start;
        int t = read_logical(r, &start), rc;

        if (t < 0)
            return lift(r, diag, t);
        if (t != L_CONTENT)
            return 0;
        if ((rc = parse_line(r, start, &s, diag)))
            return rc;
        switch (lead(r, &s)) {
        case D_DN:
            return fail_at(r, diag, ACRE_ERR_LDIF_SYNTAX, 0,
                           "second \"dn:\" in a record (missing blank line?)");
        case D_CHANGE:
            if (r->nslots == 0)
                return fail_at(r, diag, ACRE_ERR_LDIF_UNSUPPORTED, 0,
                               "change records (\"%.*s:\") are not supported",
                               (int)s.desc_len, r->rec + s.desc_off);
            break;
        }
        if ((rc = add_slot(r, &s)))
            return lift(r, diag, rc);
    }
}

/* publish -- turn the slots into the caller's view (rec no longer moves). */
static int
publish(struct acreL_reader *r, const struct slot *dn, struct acreL_record *rec)
{
    if (r->vals_cap < r->nslots) {
        struct acreL_attrval *p =
            talloc_realloc(r, r->vals, struct acreL_attrval, r->nslots);

        if (!p)
            return ACRE_ERR_NOMEM;
        r->vals = p;
        r->vals_cap = r->nslots;
    }
    for (size_t i = 0; i < r->nslots; i++) {
        const struct slot *s = &r->slots[i];

        r->vals[i].desc = r->rec + s->desc_off;
        r->vals[i].desc_len = s->desc_len;
        r->vals[i].val = (const uint8_t *)r->rec + s->val_off;
        r->vals[i].len = s->len;
        r->vals[i].line = s->line;
        r->vals[i].col = s->col;
        r->vals[i].span = s->span;
        r->vals[i].cut = s->cut;
    }
    rec->dn = r->rec + dn->val_off;
    rec->dn_len = dn->len;
    rec->line = dn->line;
    rec->dn_col = dn->col;
    rec->dn_span = dn->span;
    rec->nvals = r->nslots;
    rec->vals = r->vals;
    return 0;
}

/* ------------------------------------------------------------------------
 * API
 */
/*
 * acreL_open -- see ldif.h.  The reader is a talloc child of mem_ctx; a
 * FILE is read in CHUNK-byte pieces, a buffer is read in place (it must
 * outlive the reader).  One reader is used by one thread at a time.
 */
int
acreL_open(void *mem_ctx, FILE *f, const char *text, size_t len,
           const char *name, struct acreL_reader **out)
{
    struct acreL_reader *r = talloc_zero(mem_ctx, struct acreL_reader);

    if (!r)
        return ACRE_ERR_NOMEM;
    r->name = name;
    if (f) {
        r->f = f;
        r->chunk = talloc_size(r, CHUNK);
        if (!r->chunk) {
            talloc_free(r);
            return ACRE_ERR_NOMEM;
        }
    } else {
        r->src = (const uint8_t *)text;
        r->src_len = text ? len : 0;
    }
    *out = r;
    return 0;
}

/* acreL_set_slapd -- see ldif.h. */
void
acreL_set_slapd(struct acreL_reader *r)
{
    r->slapd = 1;
}

/*
 * acreL_next -- see ldif.h.  The record's pointers point into the reader
 * and stay valid until the next call or acreL_close.  Errors are sticky.
 */
/* acreL_desc_is -- see ldif.h. */
int
acreL_desc_is(const struct acreL_attrval *av, const char *name)
{
    size_t n = strlen(name);

    return av->desc_len == n && !strncasecmp(av->desc, name, n);
}

int
acreL_next(struct acreL_reader *r, struct acreL_record *rec, acre_diag *diag)
{
    struct slot dn;
    int rc;

    if (r->err) {
        if (diag)
            *diag = r->err_diag;
        return r->err;
    }
    r->rec_len = 0;
    r->nslots = 0;
    rc = first_line(r, &dn, diag);
    if (rc != L_CONTENT)
        return rc; /* L_EOF is 0 */
    if ((rc = body(r, diag)))
        return rc;
    if ((rc = publish(r, &dn, rec)))
        return lift(r, diag, rc);
    return 1;
}

/* acreL_on_comment -- see ldif.h. */
void
acreL_on_comment(struct acreL_reader *r,
                 int (*fn)(void *arg, unsigned line, const char *s, size_t n),
                 void *arg)
{
    r->on_comment = fn;
    r->comment_arg = arg;
}

/* acreL_close -- see ldif.h; NULL is ignored. */
void
acreL_close(struct acreL_reader *r)
{
    talloc_free(r);
}
