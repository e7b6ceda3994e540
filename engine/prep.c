/*
 * prep.c -- RFC 4518 string preparation and the other value normalisers.
 *
 * Two paths with one result:
 *   - ASCII (every byte < 0x80): mapping, case folding and space handling
 *     byte by byte, no Unicode tables touched.  NFKC is the identity on
 *     ASCII, so this path is exact, not an approximation.
 *   - Unicode: decode to code points, map (RFC 4518 2.2), case fold and
 *     NFKC through libunistring (2.3), prohibit (2.4), then insignificant
 *     space handling (2.6.1) and encode.
 * Bidi checking (2.5) is "no" in RFC 4518, so there is none.
 */
#include "prep.h"

#include <stdlib.h>
#include <unicase.h>
#include <unictype.h>
#include <uninorm.h>

#define LOCAL_CPS 256

/* Decode one code point of already validated UTF-8; advances *i. */
static inline uint32_t
utf8_next(const uint8_t *s, size_t *i)
{
    uint8_t c = s[*i];
    uint32_t cp;
    size_t k;

    if (c < 0x80) {
        (*i)++;
        return c;
    }
    k = c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : 1;
    cp = c & (0x3f >> k);
    for (size_t j = 1; j <= k; j++)
        cp = (cp << 6) | (s[*i + j] & 0x3f);
    *i += k + 1;
    return cp;
}

/* Decode one code point of UTF-8 that may be invalid; advances *i.
 * Returns UTF8_BAD where acreE_utf8_valid would fail. */
#define UTF8_BAD ((uint32_t)-1)

static inline uint32_t
utf8_next_checked(const uint8_t *s, size_t n, size_t *i)
{
    uint8_t c = s[*i];
    uint32_t cp, min;
    size_t k;

    if (c < 0x80) {
        (*i)++;
        return c;
    }
    if (c >= 0xc2 && c <= 0xdf)
        k = 1, cp = c & 0x1f, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        k = 2, cp = c & 0x0f, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        k = 3, cp = c & 0x07, min = 0x10000;
    else
        return UTF8_BAD;
    if (n - *i <= k)
        return UTF8_BAD;
    for (size_t j = 1; j <= k; j++) {
        if ((s[*i + j] & 0xc0) != 0x80)
            return UTF8_BAD;
        cp = (cp << 6) | (s[*i + j] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return UTF8_BAD;
    *i += k + 1;
    return cp;
}

int
acreE_utf8_valid(const uint8_t *s, size_t n)
{
    size_t i = 0;

    while (i < n)
        if (utf8_next_checked(s, n, &i) == UTF8_BAD)
            return 0;
    return 1;
}

static int
put_utf8(struct acreE_buf *out, uint32_t cp)
{
    uint8_t b[4];
    size_t n;

    if (cp < 0x80)
        return acreE_buf_putc(out, (uint8_t)cp);
    if (cp < 0x800) {
        b[0] = 0xc0 | (cp >> 6);
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = 0xe0 | (cp >> 12);
        b[1] = 0x80 | ((cp >> 6) & 0x3f);
        n = 3;
    } else {
        b[0] = 0xf0 | (cp >> 18);
        b[1] = 0x80 | ((cp >> 12) & 0x3f);
        b[2] = 0x80 | ((cp >> 6) & 0x3f);
        n = 4;
    }
    b[n - 1] = 0x80 | (cp & 0x3f);
    return acreE_buf_put(out, b, n);
}

/*
 * RFC 4518 2.2.  Returns the mapped code point, 0x20 for the characters
 * mapped to SPACE, or (uint32_t)-1 for those mapped to nothing.
 */
#define MAP_NOTHING ((uint32_t)-1)

static uint32_t
map_cp(uint32_t c)
{
    if (c < 0x80) {
        if (c >= 0x09 && c <= 0x0d)
            return 0x20;
        if (c < 0x20 || c == 0x7f)
            return MAP_NOTHING;
        return c;
    }
    if (c == 0x85 || c == 0xa0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
        c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000)
        return 0x20;
    if (c <= 0x9f || c == 0xad || c == 0x34f || c == 0x6dd || c == 0x70f ||
        (c >= 0x180b && c <= 0x180e) || c == 0x1806 ||
        (c >= 0x200b && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) ||
        (c >= 0x2060 && c <= 0x2063) || (c >= 0x206a && c <= 0x206f) ||
        (c >= 0xfe00 && c <= 0xfe0f) || c == 0xfeff ||
        (c >= 0xfff9 && c <= 0xfffc) || (c >= 0x1d173 && c <= 0x1d17a) ||
        c == 0xe0001 || (c >= 0xe0020 && c <= 0xe007f))
        return MAP_NOTHING;
    return c;
}

static int
is_prohibited(uint32_t c)
{
    if (c == 0xfffd)
        return 1;
    return uc_is_general_category_withtable(
        c, UC_CATEGORY_MASK_Cn | UC_CATEGORY_MASK_Co | UC_CATEGORY_MASK_Cs);
}

static int
is_mark(uint32_t c)
{
    return c >= 0x300 &&
           uc_is_general_category_withtable(c, UC_CATEGORY_MASK_M);
}

static inline uint8_t
lower(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

/* Insignificant space handling (RFC 4518 2.6.1) over ASCII.  The output
 * is never longer than the input, or one space for an empty one. */
static int
spaces_ascii(const uint8_t *in, size_t n, int fold, struct acreE_buf *out)
{
    int any = 0, pending = 0;
    uint8_t *o;

    if (out->cap - out->len < n + 1 && acreE_buf_grow(out, n + 1))
        return ACRE_PREP_NOMEM;
    o = out->p + out->len;
    for (size_t i = 0; i < n; i++) {
        uint32_t c = in[i];
        /* map_cp is the identity on printable ASCII */
        if (c < 0x20 || c == 0x7f) {
            c = map_cp(c);
            if (c == MAP_NOTHING)
                continue;
        }
        if (c == ' ') {
            pending = any;
            continue;
        }
        if (pending)
            *o++ = ' ';
        pending = 0;
        any = 1;
        *o++ = fold ? lower((uint8_t)c) : (uint8_t)c;
    }
    if (!any)
        *o++ = ' ';
    out->len = (size_t)(o - out->p);
    return ACRE_PREP_OK;
}

static int
printable(uint8_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == ' ' || c == '\'' || c == '(' ||
           c == ')' || c == '+' || c == ',' || c == '-' || c == '.' ||
           c == '/' || c == ':' || c == '?' || c == '=';
}

/* The only white space slapd knows: its ASCII_SPACE is the space alone. */
static inline int
ascii_space(uint8_t c)
{
    return c == ' ';
}

/*
 * telephoneNumber: a PrintableString whose spaces and hyphens are
 * insignificant.  As slapd (which RFC 4517 would have fold case too, but
 * the project follows slapd): no case folding, and a value of nothing but
 * spaces and hyphens prepares to one space.
 */
static int
prep_telephone(const uint8_t *in, size_t n, struct acreE_buf *out)
{
    size_t start = out->len;

    for (size_t i = 0; i < n; i++) {
        if (!printable(in[i])) /* PrintableString: no tabs or controls */
            return ACRE_PREP_SYNTAX;
        if (in[i] == ' ' || in[i] == '-')
            continue;
        if (acreE_buf_putc(out, in[i]))
            return ACRE_PREP_NOMEM;
    }
    if (out->len == start && acreE_buf_putc(out, ' '))
        return ACRE_PREP_NOMEM;
    return ACRE_PREP_OK;
}

/* numericString: digits, spaces insignificant; all spaces -> one space. */
static int
prep_numeric(const uint8_t *in, size_t n, struct acreE_buf *out)
{
    size_t start = out->len;

    for (size_t i = 0; i < n; i++) {
        if (ascii_space(in[i]))
            continue;
        if (in[i] < '0' || in[i] > '9')
            return ACRE_PREP_SYNTAX;
        if (acreE_buf_putc(out, in[i]))
            return ACRE_PREP_NOMEM;
    }
    if (out->len == start && acreE_buf_putc(out, ' '))
        return ACRE_PREP_NOMEM;
    return ACRE_PREP_OK;
}

static int
prep_integer(const uint8_t *in, size_t n, struct acreE_buf *out)
{
    size_t i = 0;
    int neg = 0;

    if (n && in[0] == '-')
        neg = 1, i = 1;
    if (i == n)
        return ACRE_PREP_SYNTAX;
    for (size_t j = i; j < n; j++)
        if (in[j] < '0' || in[j] > '9')
            return ACRE_PREP_SYNTAX;
    while (i < n - 1 && in[i] == '0')
        i++;
    if (neg && !(n - i == 1 && in[i] == '0') && acreE_buf_putc(out, '-'))
        return ACRE_PREP_NOMEM;
    return acreE_buf_put(out, in + i, n - i) ? ACRE_PREP_NOMEM : ACRE_PREP_OK;
}

/* Space handling over code points, then UTF-8 out. */
static int
spaces_cps(const uint32_t *cp, size_t n, struct acreE_buf *out)
{
    int any = 0, pending = 0;

    for (size_t i = 0; i < n; i++) {
        int space = cp[i] == ' ' && !(i + 1 < n && is_mark(cp[i + 1]));
        if (space) {
            pending = any;
            continue;
        }
        if (pending && acreE_buf_putc(out, ' '))
            return ACRE_PREP_NOMEM;
        pending = 0;
        any = 1;
        if (put_utf8(out, cp[i]))
            return ACRE_PREP_NOMEM;
    }
    if (!any && acreE_buf_putc(out, ' '))
        return ACRE_PREP_NOMEM;
    return ACRE_PREP_OK;
}

/*
 * A per-code-point cache of the Unicode path, for the scripts most names
 * are written in.  For a code point c that is not a combining mark, not a
 * Hangul jamo (the ccc=0 characters that compose with a predecessor) and
 * whose mapped, folded NFKC form f(c) is made only of such characters,
 * preparation distributes over concatenation: prep(xy) = prep(x) prep(y)
 * before space handling.  Those code points are prepared one at a time,
 * through libunistring once, and remembered; any other code point sends
 * the whole value down the general Unicode path.  The unit tests compare
 * the two paths on every cached code point in context.
 *
 * An entry is 0 (not computed yet), FC_SLOW, FC_EMPTY (maps to nothing) or
 * the UTF-8 of f(c) in bytes 1..7 with its length in the low bits of
 * byte 0, and FC_SPACE there when f(c) holds a space (only such entries
 * need the space handling byte by byte; the others are one 8-byte store).
 * Entries are computed on first use and stored atomically; two threads
 * racing store the same value.
 */
#define FC_MAX   0x3100
#define FC_SLOW  0xffu
#define FC_EMPTY 0x80u
#define FC_SPACE 0x40u /* flag: f(c) holds a space */
#define FC_LEN   0x0fu /* the length bits */

static uint64_t fold_cache[2][FC_MAX];

static int
is_starter(uint32_t c)
{
    return !is_mark(c) && !(c >= 0x1100 && c < 0x1200) &&
           uc_combining_class(c) == 0;
}

static uint64_t
fc_compute(int fold, uint32_t c)
{
    uint32_t m = map_cp(c), rb[8], *r;
    size_t rn = 8, len = 0;
    uint64_t e = 0;

    if (m == MAP_NOTHING)
        return FC_EMPTY;
    if (!is_starter(m))
        return FC_SLOW;
    r = fold ? u32_casefold(&m, 1, NULL, UNINORM_NFKC, rb, &rn)
             : u32_normalize(UNINORM_NFKC, &m, 1, rb, &rn);
    if (!r)
        return FC_SLOW;
    for (size_t k = 0; k < rn && len != FC_SLOW; k++) {
        uint8_t u[4];
        struct acreE_buf b;
        acreE_buf_init(&b, u, sizeof(u));
        if (!is_starter(r[k]) || is_prohibited(r[k]) || put_utf8(&b, r[k]) ||
            len + b.len > 7) {
            len = FC_SLOW;
            break;
        }
        for (size_t j = 0; j < b.len; j++)
            e |= (uint64_t)u[j] << (8 * (1 + len + j));
        len += b.len;
    }
    if (r != rb)
        free(r);
    if (len == FC_SLOW || len == 0)
        return FC_SLOW;
    for (size_t k = 0; k < len; k++)
        if (((e >> (8 * (1 + k))) & 0xff) == ' ')
            return e | len | FC_SPACE;
    return e | len;
}

static uint64_t
fc_get(int fold, uint32_t c)
{
    uint64_t e = __atomic_load_n(&fold_cache[fold][c], __ATOMIC_RELAXED);

    if (!e) {
        e = fc_compute(fold, c);
        __atomic_store_n(&fold_cache[fold][c], e, __ATOMIC_RELAXED);
    }
    return e;
}

/*
 * The cached route, over UTF-8 not yet validated.  Returns ACRE_PREP_OK
 * when it prepared the value, ACRE_PREP_NOMEM, ACRE_PREP_UTF8 when it met
 * invalid UTF-8, or -1 when a code point needs the general path (out is
 * then left as it was, and the rest of the input unchecked).
 */
static int
prep_cached(int fold, const uint8_t *in, size_t n, struct acreE_buf *out)
{
    size_t start = out->len, i = 0;
    int any = 0, pending = 0;
    uint8_t *o;

    if (out->cap - out->len < 4 * n + 8 && acreE_buf_grow(out, 4 * n + 8))
        return ACRE_PREP_NOMEM;
    o = out->p + out->len;
    while (i < n) {
        uint8_t u[8];
        size_t len = 1;
        uint32_t c = in[i];
        if (c < 0x80) {
            i++;
            /* map_cp is the identity on printable ASCII */
            if (c < 0x20 || c == 0x7f) {
                c = map_cp(c);
                if (c == MAP_NOTHING)
                    continue;
            }
            if (c == ' ') {
                pending = any;
                continue;
            }
            if (pending)
                *o++ = ' ';
            pending = 0;
            any = 1;
            *o++ = fold ? lower((uint8_t)c) : (uint8_t)c;
            continue;
        } else {
            size_t at = i;
            c = utf8_next_checked(in, n, &i);
            if (c == UTF8_BAD) {
                out->len = start;
                return ACRE_PREP_UTF8;
            }
            if (c < FC_MAX) {
                uint64_t e = fc_get(fold, c);
                if (e == FC_SLOW)
                    goto slow;
                if (e == FC_EMPTY)
                    continue;
                len = e & FC_LEN;
                if (!(e & FC_SPACE)) {
                    /* no space: one store (out has 8 bytes of slack) */
                    uint64_t b = e >> 8;
                    if (pending)
                        *o++ = ' ';
                    pending = 0;
                    any = 1;
                    memcpy(o, &b, 8);
                    o += len;
                    continue;
                }
                for (size_t j = 0; j < len; j++)
                    u[j] = (uint8_t)(e >> (8 * (1 + j)));
            } else if (((c >= 0x4e00 && c <= 0x9fff) ||
                        (c >= 0xac00 && c <= 0xd7a3)) &&
                       uc_is_general_category_withtable(c,
                                                        UC_CATEGORY_MASK_Lo)) {
                /* CJK ideographs and precomposed Hangul syllables prepare
                 * to themselves (a following jamo, which could compose
                 * with a syllable, takes the general path) */
                len = i - at;
                memcpy(u, in + at, len);
            } else {
                goto slow;
            }
        }
        for (size_t j = 0; j < len; j++) {
            if (u[j] == ' ') {
                pending = any;
                continue;
            }
            if (pending)
                *o++ = ' ';
            pending = 0;
            any = 1;
            *o++ = u[j];
        }
    }
    if (!any)
        *o++ = ' ';
    out->len = (size_t)(o - out->p);
    return ACRE_PREP_OK;
slow:
    out->len = start;
    return -1;
}

/* The Unicode path for caseIgnore / caseExact strings, over UTF-8 not yet
 * validated: the cached route checks what it decodes, the rest is checked
 * before the general path. */
static int
prep_unicode(int fold, const uint8_t *in, size_t n, struct acreE_buf *out)
{
    int rc = prep_cached(fold, in, n, out);

    if (rc >= 0)
        return rc;
    if (!acreE_utf8_valid(in, n))
        return ACRE_PREP_UTF8;
    return acreE_prep_unicode_general(fold, in, n, out);
}

int
acreE_prep_unicode_general(int fold, const uint8_t *in, size_t n,
                           struct acreE_buf *out)
{
    uint32_t local[LOCAL_CPS], rlocal[2 * LOCAL_CPS];
    uint32_t *cps = local, *res;
    size_t m = 0, rn = 2 * LOCAL_CPS, i = 0;
    int rc = ACRE_PREP_OK;

    if (n > LOCAL_CPS && !(cps = malloc(n * sizeof(*cps))))
        return ACRE_PREP_NOMEM;
    while (i < n) {
        uint32_t c = map_cp(utf8_next(in, &i));
        if (c != MAP_NOTHING)
            cps[m++] = c;
    }
    res = fold ? u32_casefold(cps, m, NULL, UNINORM_NFKC, rlocal, &rn)
               : u32_normalize(UNINORM_NFKC, cps, m, rlocal, &rn);
    if (!res) {
        rc = ACRE_PREP_NOMEM;
        goto done;
    }
    for (size_t j = 0; j < rn && !rc; j++)
        if (is_prohibited(res[j]))
            rc = ACRE_PREP_PROHIBITED;
    if (!rc)
        rc = spaces_cps(res, rn, out);
    if (res != rlocal)
        free(res);
done:
    if (cps != local)
        free(cps);
    return rc;
}

static int
has_high(const uint8_t *in, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (in[i] & 0x80)
            return 1;
    return 0;
}

int
acreE_prep(enum acreE_mr mr, const uint8_t *in, size_t n, struct acreE_buf *out)
{
    int high;

    if (mr == ACRE_MR_OCTET)
        return acreE_buf_put(out, in, n) ? ACRE_PREP_NOMEM : ACRE_PREP_OK;
    high = has_high(in, n);
    if (high && (mr == ACRE_MR_CASE_IGNORE || mr == ACRE_MR_CASE_EXACT))
        return prep_unicode(mr == ACRE_MR_CASE_IGNORE, in, n, out);
    if (high && !acreE_utf8_valid(in, n))
        return ACRE_PREP_UTF8;
    switch (mr) {
    case ACRE_MR_CASE_IGNORE:
    case ACRE_MR_CASE_EXACT:
        return spaces_ascii(in, n, mr == ACRE_MR_CASE_IGNORE, out);
    case ACRE_MR_CASE_IGNORE_IA5:
    case ACRE_MR_CASE_EXACT_IA5:
        if (high)
            return ACRE_PREP_SYNTAX;
        return spaces_ascii(in, n, mr == ACRE_MR_CASE_IGNORE_IA5, out);
    case ACRE_MR_TELEPHONE:
        return high ? ACRE_PREP_SYNTAX : prep_telephone(in, n, out);
    case ACRE_MR_NUMERIC:
        return high ? ACRE_PREP_SYNTAX : prep_numeric(in, n, out);
    case ACRE_MR_INTEGER:
        return high ? ACRE_PREP_SYNTAX : prep_integer(in, n, out);
    case ACRE_MR_OCTET:
    case ACRE_MR_DN:
    case ACRE_MR_NAME_UID:
        break;
    }
    return ACRE_PREP_SYNTAX;
}

/* ------------------------------------------------------------------------
 * The SLAPD profile (see prep.h): what slapd 2.5's UTF8StringNormalize,
 * IA5StringNormalize, telephoneNumberNormalize and numericStringNormalize
 * produce.  The only white space they know is the ASCII space.
 */

/*
 * Collapse spaces in out->p[start..len) in place: leading and trailing
 * runs dropped, inner runs cut to one (a tab is not a space to slapd).
 * all_space: what a value of nothing but white space becomes (" " for
 * DirectoryString, "" for IA5).
 */
static void
slapd_collapse(struct acreE_buf *out, size_t start, const char *all_space)
{
    uint8_t *p = out->p + start, *q = p, *end = out->p + out->len;
    int was = 1; /* trims the leading run */

    for (; p < end; p++) {
        if (ascii_space(*p)) {
            if (!was)
                *q++ = *p;
            was = 1;
        } else {
            *q++ = *p;
            was = 0;
        }
    }
    if (q > out->p + start && was)
        q--;
    out->len = (size_t)(q - out->p);
    if (out->len == start && *all_space)
        out->p[out->len++] = (uint8_t)*all_space;
}

/* DirectoryString under slapd: per-character lowercase (fold), NFKC. */
static int
slapd_string(int fold, const uint8_t *in, size_t n, struct acreE_buf *out)
{
    uint32_t local[LOCAL_CPS], rlocal[2 * LOCAL_CPS], *cps = local, *res;
    size_t m = 0, rn = 2 * LOCAL_CPS, i = 0, start = out->len;
    int rc = ACRE_PREP_OK;

    if (out->cap - out->len < n + 1 && acreE_buf_grow(out, n + 1))
        return ACRE_PREP_NOMEM;
    if (!has_high(in, n)) {
        for (size_t k = 0; k < n; k++)
            out->p[out->len++] = fold ? lower(in[k]) : in[k];
        slapd_collapse(out, start, " ");
        return ACRE_PREP_OK;
    }
    if (n > LOCAL_CPS && !(cps = malloc(n * sizeof(*cps))))
        return ACRE_PREP_NOMEM;
    while (i < n) {
        uint32_t c = utf8_next(in, &i);
        cps[m++] = fold ? (c < 0x80 ? lower((uint8_t)c) : uc_tolower(c)) : c;
    }
    res = u32_normalize(UNINORM_NFKC, cps, m, rlocal, &rn);
    if (!res)
        rc = ACRE_PREP_NOMEM;
    for (size_t j = 0; !rc && j < rn; j++)
        if (put_utf8(out, res[j]))
            rc = ACRE_PREP_NOMEM;
    if (res && res != rlocal)
        free(res);
    if (cps != local)
        free(cps);
    if (rc == ACRE_PREP_OK)
        slapd_collapse(out, start, " ");
    else
        out->len = start;
    return rc;
}

/* IA5 strings under slapd: ASCII (any: other bytes kept as they are),
 * lowercased (fold), white space as above but a value of nothing but
 * white space becomes empty. */
static int
slapd_ia5(int fold, int any, const uint8_t *in, size_t n, struct acreE_buf *out)
{
    size_t start = out->len;

    if (out->cap - out->len < n + 1 && acreE_buf_grow(out, n + 1))
        return ACRE_PREP_NOMEM;
    for (size_t k = 0; k < n; k++) {
        if ((in[k] & 0x80) && !any)
            return out->len = start, ACRE_PREP_SYNTAX;
        out->p[out->len++] = fold ? lower(in[k]) : in[k];
    }
    slapd_collapse(out, start, "");
    return ACRE_PREP_OK;
}

/* ------------------------------------------------------------------------
 * The 389 profile (see prep.h): 389-DS 2.3's value_normalize_ext
 * (plugins/syntaxes/value.c) with slapi_utf8ToLower (slapd/utf8compare.c).
 */

/* The code points 389's lowercasing table leaves as they are, though
 * Unicode lowers them (the table predates them), in the planes it
 * covers; and those it lowers otherwise than Unicode's simple mapping
 * (dotted I to dotless i, the titlecase digraphs swapped with their
 * capitals, reversed E to U+0258; Georgian capitals by +0x30, below). */
static const struct {
    uint16_t lo, hi;
} keep389[] = {
    {0x019f, 0x019f}, {0x01a6, 0x01a6}, {0x01f6, 0x01f8}, {0x0218, 0x037f},
    {0x03cf, 0x03e0}, {0x03f4, 0x0400}, {0x040d, 0x040d}, {0x048a, 0x048e},
    {0x04c0, 0x04c0}, {0x04c5, 0x04c5}, {0x04c9, 0x04c9}, {0x04cd, 0x04cd},
    {0x04ec, 0x04ec}, {0x04f6, 0x04f6}, {0x04fa, 0x052e}, {0x10c7, 0x1cbf},
    {0x1e9e, 0x1e9e}, {0x1efa, 0x1efe},
};

static const struct {
    uint16_t from, to;
} odd389[] = {
    {0x0130, 0x0131}, {0x018e, 0x0258}, {0x01c4, 0x01c5}, {0x01c5, 0x01c4},
    {0x01c7, 0x01c8}, {0x01c8, 0x01c7}, {0x01ca, 0x01cb}, {0x01cb, 0x01ca},
    {0x01f1, 0x01f2}, {0x01f2, 0x01f1},
};

/* slapi_utf8ToLower on one code point: ASCII, and the two-byte
 * characters of lead bytes C3 to D5 (U+00C0-U+057F) and three-byte ones
 * of lead bytes E1 and EF (U+1000-U+1FFF, U+F000-U+FFFF) by its table;
 * any other is kept. */
static uint32_t
lower389(uint32_t c)
{
    if (c < 0x80)
        return lower((uint8_t)c);
    if (!((c >= 0xc0 && c <= 0x57f) || (c >= 0x1000 && c <= 0x1fff) ||
          c >= 0xf000) ||
        c > 0xffff)
        return c;
    for (size_t i = 0; i < sizeof odd389 / sizeof odd389[0]; i++)
        if (odd389[i].from == c)
            return odd389[i].to;
    if (c >= 0x10a0 && c <= 0x10c5)
        return c + 0x30;
    for (size_t i = 0; i < sizeof keep389 / sizeof keep389[0]; i++)
        if (c >= keep389[i].lo && c <= keep389[i].hi)
            return c;
    return uc_tolower(c);
}

/* A value printable ASCII alone (no control, no byte past ASCII)? */
static int
plain_ascii(const uint8_t *in, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (in[i] < 0x20 || in[i] >= 0x7f)
            return 0;
    return 1;
}

/* value_normalize_ext with trimming, for a case-ignoring (fold) or exact
 * string syntax: leading and trailing white space dropped, each inner run
 * kept as its first character, each code point lowercased (fold); a value
 * of white space alone becomes one space. */
static int
string389(int fold, const uint8_t *in, size_t n, struct acreE_buf *out)
{
    size_t i = 0, start = out->len, last = start;
    int prev = 0;

    while (i < n && acreE_space389(in[i]))
        i++;
    if (i == n && n)
        return acreE_buf_putc(out, ' ') ? ACRE_PREP_NOMEM : ACRE_PREP_OK;
    while (i < n) {
        uint32_t c = utf8_next(in, &i);
        int cur = acreE_space389(c);
        if (prev && cur)
            continue;
        prev = cur;
        if (put_utf8(out, fold ? lower389(c) : c)) {
            out->len = start;
            return ACRE_PREP_NOMEM;
        }
        if (!cur)
            last = out->len;
    }
    if (prev)
        out->len = last; /* the trailing run */
    return ACRE_PREP_OK;
}

/* acreE_prep_as under the 389 profile. */
static int
prep389(enum acreE_mr mr, const uint8_t *in, size_t n, struct acreE_buf *out)
{
    switch (mr) {
    case ACRE_MR_CASE_IGNORE:
    case ACRE_MR_CASE_EXACT:
        if (plain_ascii(in, n))
            break;
        if (has_high(in, n) && !acreE_utf8_valid(in, n))
            return ACRE_PREP_UTF8;
        return string389(mr == ACRE_MR_CASE_IGNORE, in, n, out);
    case ACRE_MR_CASE_IGNORE_IA5:
    case ACRE_MR_CASE_EXACT_IA5:
        if (plain_ascii(in, n) || has_high(in, n))
            break;
        return string389(mr == ACRE_MR_CASE_IGNORE_IA5, in, n, out);
    default:
        break;
    }
    return acreE_prep(mr, in, n, out);
}

int
acreE_prep_as(int profile, enum acreE_mr mr, const uint8_t *in, size_t n,
              struct acreE_buf *out)
{
    if (profile == ACRE_PROFILE_389)
        return prep389(mr, in, n, out);
    if (profile != ACRE_PROFILE_SLAPD)
        return acreE_prep(mr, in, n, out);
    switch (mr) {
    case ACRE_MR_CASE_IGNORE:
    case ACRE_MR_CASE_EXACT:
        if (has_high(in, n) && !acreE_utf8_valid(in, n))
            return ACRE_PREP_UTF8;
        return slapd_string(mr == ACRE_MR_CASE_IGNORE, in, n, out);
    case ACRE_MR_CASE_IGNORE_IA5:
    case ACRE_MR_CASE_EXACT_IA5:
        return slapd_ia5(mr == ACRE_MR_CASE_IGNORE_IA5, 0, in, n, out);
    default: /* telephone, numeric, integer, octets: as acreE_prep */
        return acreE_prep(mr, in, n, out);
    }
}

/* telephoneNumberNormalize and numericStringNormalize on any bytes:
 * spaces (and, for a telephone number, hyphens) dropped, every other byte
 * kept (numeric: up to a NUL); nothing left is " ". */
static int
slapd_squeezed(int phone, const uint8_t *in, size_t n, struct acreE_buf *out)
{
    size_t start = out->len;

    if (out->cap - out->len < n + 1 && acreE_buf_grow(out, n + 1))
        return ACRE_PREP_NOMEM;
    for (size_t k = 0; k < n && (phone || in[k]); k++)
        if (!ascii_space(in[k]) && !(phone && in[k] == '-'))
            out->p[out->len++] = in[k];
    if (out->len == start)
        out->p[out->len++] = ' ';
    return ACRE_PREP_OK;
}

int
acreE_prep_slapd_stored(enum acreE_mr mr, const uint8_t *in, size_t n,
                        struct acreE_buf *out)
{
    if (mr == ACRE_MR_CASE_IGNORE_IA5 || mr == ACRE_MR_CASE_EXACT_IA5)
        return slapd_ia5(mr == ACRE_MR_CASE_IGNORE_IA5, 1, in, n, out);
    if ((mr == ACRE_MR_TELEPHONE || mr == ACRE_MR_NUMERIC) && n)
        return slapd_squeezed(mr == ACRE_MR_TELEPHONE, in, n, out);
    return acreE_prep_as(ACRE_PROFILE_SLAPD, mr, in, n, out);
}
