/*
 * dn.c -- RFC 4514 distinguished names: parse, validate, normalise, hash.
 *
 * One pass over the input writes two texts side by side: the normalised
 * form (canonical lowercase type names, values prepared by their equality
 * rule, multi-valued RDNs sorted) and the pretty form (canonical type names,
 * values as given, minimal escaping).  Then the ancestry hashes are chained
 * from the root over the normalised RDNs, and everything is laid out in one
 * block (see dn.h).
 *
 * Paths, fastest first:
 *   1. already normalised input (lowercase, no escapes, single spaces, one
 *      AVA per RDN, simple string syntaxes): validated, copied once; no
 *      per-value preparation;
 *   2. plain ASCII values of string syntaxes, one AVA per RDN: folded and
 *      copied without the general preparation (prep.c);
 *   3. escapes, #hex, quoted and non-ASCII values, DN-valued attributes.
 * Paths 2 and 3 also mix within one DN: the general parse tries each RDN
 * as path 2's shape first (simple_rdn), so only the RDNs that need it pay
 * for path 3.
 * Paths 1 and 2 have a word-parallel form (AVX2 where the CPU has it, else
 * SSE2; DNs up to NF_MAX bytes: every byte classified into bit masks 32 or
 * 16 at a time, then the RDNs found
 * and checked with word operations) and a byte loop (other machines,
 * longer DNs, and what the word-parallel forms leave).  All give
 * byte-identical results: a unit test parses randomised DNs every way
 * (acreD_set_paths) and compares the objects, and the unit tests and the
 * fuzz target check that normalise(normalise(x)) == normalise(x).
 *
 * Invariants: nothing is allocated for DNs of ordinary size except the
 * result itself (acre_dn_parse) or nothing at all (acre_dn_parse_buf);
 * every error names its code and byte offset; cost is linear in the input
 * (bounded by ACRE_DN_MAX_LEN) times the nesting limit.
 */
#include "dn.h"

#include "buf.h"
#include "dn_types.h"
#include "internal.h"
#include "match.h"
#include "prep.h"
#include "schema.h"

#include <pthread.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <immintrin.h>
#endif
#include <string.h>
#include <sys/random.h>
#include <talloc.h>
#include <time.h>
#include <unistd.h>

#define HDR_SIZE sizeof(struct acre_dn)
/* the header is 40 bytes, a multiple of 8: h[] follows it aligned */
typedef char acreD_hdr_size_check[HDR_SIZE == 40 ? 1 : -1];
#define DNF_SHARED 0x1 /* pretty text is the normalised text */

/* ------------------------------------------------------------------------
 * Ancestry hashing
 */
#define C1 0x9e3779b97f4a7c15ull
#define C2 0xbf58476d1ce4e5b9ull
#define C3 0x94d049bb133111ebull
#define C4 0xd6e8feb86659fd93ull
#define C5 0xc2b2ae3d27d4eb4full

static uint64_t hash_key;
/* mum(n ^ C1, C2) for the short lengths, where it is most of a short RDN's
 * hash (filled with the key: key_init) */
#define LENMIX_N 64
static uint64_t lenmix[LENMIX_N];
static uint64_t root_hash; /* h[0] of every DN (key_init) */
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static uint64_t (*hash_hook)(const void *, size_t, uint64_t);

static inline uint64_t
mum(uint64_t a, uint64_t b)
{
    unsigned __int128 r = (unsigned __int128)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

static inline uint64_t
rd64(const uint8_t *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline uint64_t
rd32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static void
key_init(void)
{
    uint64_t k = 0;

    if (getrandom(&k, sizeof(k), GRND_NONBLOCK) != (ssize_t)sizeof(k)) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        k = mum((uint64_t)ts.tv_nsec ^ C1, (uint64_t)ts.tv_sec ^ C2);
        k ^= mum((uint64_t)getpid() ^ C3, (uint64_t)(uintptr_t)&k ^ C4);
    }
    for (uint64_t n = 0; n < LENMIX_N; n++)
        lenmix[n] = mum(n ^ C1, C2);
    root_hash = mum((k | 1) ^ C4, C5);
    __atomic_store_n(&hash_key, k | 1, __ATOMIC_RELEASE);
}

uint64_t
acreD_hash_key(void)
{
    uint64_t k = __atomic_load_n(&hash_key, __ATOMIC_ACQUIRE);

    if (acre_likely(k != 0))
        return k; /* never 0 once set */
    pthread_once(&key_once, key_init);
    return hash_key;
}

void
acreD_set_hash_hook(uint64_t (*hook)(const void *, size_t, uint64_t))
{
    hash_hook = hook;
}

/* A keyed 64-bit hash of n bytes (multiply-fold mixing, 16 bytes a
 * round), without the test hook (rdn_hash). */
static inline uint64_t
rdn_hash_raw(const void *data, size_t n, uint64_t key)
{
    const uint8_t *p = data;
    uint64_t h = key ^ (n < LENMIX_N ? lenmix[n] : mum(n ^ C1, C2)), a = 0,
             b = 0;

    while (n > 16) {
        h = mum(rd64(p) ^ C3 ^ h, rd64(p + 8) ^ C4);
        p += 16;
        n -= 16;
    }
    if (n >= 8) {
        a = rd64(p);
        b = rd64(p + n - 8);
    } else if (n >= 4) {
        a = rd32(p);
        b = rd32(p + n - 4);
    } else if (n) {
        a = ((uint64_t)p[0] << 16) | ((uint64_t)p[n >> 1] << 8) | p[n - 1];
    }
    return mum(h ^ a ^ C5, b ^ C1 ^ n);
}

static uint64_t
rdn_hash(const void *data, size_t n, uint64_t key)
{
    if (acre_unlikely(hash_hook != NULL))
        return hash_hook(data, n, key);
    return rdn_hash_raw(data, n, key);
}

/* The 8 bytes of s[0..n) (n >= 8) from i < n, those past n as 0. */
static inline uint64_t
rd64_in(const uint8_t *s, size_t n, size_t i)
{
    size_t b = i + 8 <= n ? i : n - 8;

    return rd64(s + b) >> (8 * (i - b));
}

static inline uint64_t
chain(uint64_t parent, uint64_t rdn)
{
    return mum(parent ^ C2, rdn ^ C3) ^ rdn;
}

/* ------------------------------------------------------------------------
 * Parser state
 */
struct ps {
    const acre_schema *schema; /* frozen; never NULL */
    int profile;               /* its enum acreE_profile */
    const uint8_t *s;
    size_t n, i;
    unsigned flags;
    int nest;
    acre_diag *diag;
    int fast; /* path 1: the input is the normalised text */
    unsigned depth;
    struct acreE_buf norm, pretty, val, tmp;
    uint32_t nrdn[ACRE_DN_MAX_RDNS + 1], prdn[ACRE_DN_MAX_RDNS + 1];
    /* AVAs of the RDN being parsed: [start, end) in norm and in pretty */
    unsigned navas;
    uint32_t an[ACRE_DN_MAX_AVAS][2], ap[ACRE_DN_MAX_AVAS][2];
    uint32_t aoff[ACRE_DN_MAX_AVAS];
    uint8_t lnorm[768], lpretty[768], lval[384], ltmp[384];
};

static void
ps_init(struct ps *ps, const acre_schema *schema, const char *s, size_t n,
        unsigned flags, int nest, acre_diag *diag)
{
    ps->schema = schema;
    ps->profile = acreS_profile(schema);
    ps->s = (const uint8_t *)s;
    ps->n = n;
    ps->i = 0;
    ps->flags = flags;
    ps->nest = nest;
    ps->diag = diag;
    ps->fast = 0;
    ps->depth = 0;
    acreE_buf_init(&ps->norm, ps->lnorm, sizeof(ps->lnorm));
    acreE_buf_init(&ps->pretty, ps->lpretty, sizeof(ps->lpretty));
    acreE_buf_init(&ps->val, ps->lval, sizeof(ps->lval));
    acreE_buf_init(&ps->tmp, ps->ltmp, sizeof(ps->ltmp));
}

static void
ps_free(struct ps *ps)
{
    if (acre_unlikely(ps->norm.heap | ps->pretty.heap | ps->val.heap |
                      ps->tmp.heap)) {
        acreE_buf_free(&ps->norm);
        acreE_buf_free(&ps->pretty);
        acreE_buf_free(&ps->val);
        acreE_buf_free(&ps->tmp);
    }
}

static int
fail(struct ps *ps, int code, size_t off, const char *what)
{
    return acreE_diag_set(ps->diag, code, off, "%s: %s", acre_strerror(code),
                          what);
}

/* ------------------------------------------------------------------------
 * Character classes
 */
enum {
    CL_HEX = 1,    /* 0-9 A-F a-f */
    CL_ESC = 2,    /* may follow '\': , + " \ < > ; = # space */
    CL_OUT = 4,    /* must be escaped on output anywhere: , + " \ < > ; */
    CL_ALPHA = 8,  /* A-Z a-z */
    CL_DIGIT = 16, /* 0-9 */
    CL_SAFE = 32,  /* plain value byte of a normalised DN (fast path) */
    CL_UPPER = 64, /* A-Z */
    CL_STOP = 128, /* ends an unquoted value or needs a closer look */
    CL_RUN = 256,  /* CL_SAFE, space or >= 0x80: a plain value byte */
};

static uint16_t cls[256];
static pthread_once_t cls_once = PTHREAD_ONCE_INIT;
static int cls_ready; /* set (release) once cls is filled */

static void
cls_init(void)
{
    for (int c = 0; c < 256; c++) {
        uint16_t k = 0;
        if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
            (c >= 'A' && c <= 'F'))
            k |= CL_HEX;
        if (strchr(",+\"\\<>;=# ", c) && c)
            k |= CL_ESC;
        if (strchr(",+\"\\<>;", c) && c)
            k |= CL_OUT;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))
            k |= CL_ALPHA;
        if (c >= 'A' && c <= 'Z')
            k |= CL_UPPER;
        if (c >= '0' && c <= '9')
            k |= CL_DIGIT;
        if (c > 0x20 && c < 0x7f && !(k & CL_OUT))
            k |= CL_SAFE;
        if ((k & CL_OUT) || c == 0 || c == ' ')
            k |= CL_STOP;
        if ((k & CL_SAFE) || c == ' ' || c >= 0x80)
            k |= CL_RUN;
        cls[c] = k;
    }
    __atomic_store_n(&cls_ready, 1, __ATOMIC_RELEASE);
}

static inline uint8_t
lower(uint8_t c)
{
    return (uint8_t)(c + (((unsigned)c - 'A' < 26u) << 5));
}

/* put_type_fast -- the one-pass paths' type name: as written at pp (pretty),
 * lowercased at o (normalised); 8-byte stores for a short name whose
 * keys the schema keeps (the buffers have the slack) */
static inline void
put_type_fast(const struct acreD_type *ty, uint8_t *pp, uint8_t *o)
{
    if (ty->nkey && ty->lkey) {
        memcpy(pp, &ty->nkey, 8);
        memcpy(o, &ty->lkey, 8);
        return;
    }
    memcpy(pp, ty->name, ty->len);
    for (size_t k = 0; k < ty->len; k++)
        o[k] = ty->lname ? (uint8_t)ty->lname[k] : lower((uint8_t)ty->name[k]);
}

/* slapd's DN reader (libldap's LDAP_DN_ASCII_SPACE) also takes a tab,
 * a line feed and a carriage return for a space around types and values */
static inline int
ldap_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void
skip_spaces(struct ps *ps)
{
    size_t i = ps->i;
    if (ps->profile == ACRE_PROFILE_SLAPD)
        while (i < ps->n && ldap_space(ps->s[i]))
            i++;
    else
        while (i < ps->n && ps->s[i] == ' ')
            i++;
    ps->i = i;
}

static inline int
at_sep(const struct ps *ps)
{
    uint8_t c;

    if (ps->i == ps->n)
        return 1;
    c = ps->s[ps->i];
    return c == ',' || c == ';' || c == '+';
}

/* ------------------------------------------------------------------------
 * Output
 */
static inline int
reserve(struct acreE_buf *b, size_t n)
{
    return b->cap - b->len >= n ? 0 : acreE_buf_grow(b, n);
}

/* Does v[0..n) hold a byte that needs escaping wherever it stands (one of
 * , + " \ < > ; or NUL)? */
static int
has_special(const uint8_t *v, size_t n)
{
    size_t k = 0;

#if defined(__SSE2__)
    for (; k + 16 <= n; k += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(v + k));
        __m128i m = _mm_or_si128(
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(',')),
                                      _mm_cmpeq_epi8(x, _mm_set1_epi8('+'))),
                         _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')),
                                      _mm_cmpeq_epi8(x, _mm_set1_epi8('\\')))),
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('<')),
                                      _mm_cmpeq_epi8(x, _mm_set1_epi8('>'))),
                         _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8(';')),
                                      _mm_cmpeq_epi8(x, _mm_setzero_si128()))));
        if (_mm_movemask_epi8(m))
            return 1;
    }
#endif
    for (; k < n; k++)
        if ((cls[v[k]] & CL_OUT) || v[k] == 0)
            return 1;
    return 0;
}

/* put_escaped's modes */
#define PE_OCTET 1 /* bytes outside printable ASCII as \xx */
#define PE_EDGES 2 /* slapd: a tab, LF or CR first or last as \xx */

/*
 * Append value bytes with minimal RFC 4514 escaping.  PE_OCTET in mode:
 * also write bytes outside printable ASCII as \xx, so any byte string
 * survives; PE_EDGES: also a tab, line feed or carriage return that
 * starts or ends the value, which slapd's reader would take for a space
 * (as libldap escapes them).  A value that needs no escape at all (the
 * common case) is one copy.
 */
static int
put_escaped(struct acreE_buf *b, const uint8_t *v, size_t n, int mode)
{
    static const char hx[] = "0123456789abcdef";
    int octet = mode & PE_OCTET;
    int edges =
        (mode & PE_EDGES) && n && (ldap_space(v[0]) || ldap_space(v[n - 1]));
    uint8_t *o;

    if (!octet && !edges && n && v[0] != '#' && v[0] != ' ' &&
        v[n - 1] != ' ' && !has_special(v, n)) {
        if (reserve(b, n))
            return ACRE_ERR_NOMEM;
        memcpy(b->p + b->len, v, n);
        b->len += n;
        return 0;
    }

    if (reserve(b, 3 * n))
        return ACRE_ERR_NOMEM;
    o = b->p + b->len;
    for (size_t k = 0; k < n; k++) {
        uint8_t c = v[k];
        if (cls[c] & CL_OUT || ((c == '#' || c == ' ') && k == 0) ||
            (c == ' ' && k == n - 1)) {
            *o++ = '\\';
            *o++ = c;
        } else if (c == 0 || (octet && (c < 0x20 || c >= 0x7f)) ||
                   (edges && c != ' ' && ldap_space(c) &&
                    (k == 0 || k == n - 1))) {
            *o++ = '\\';
            *o++ = (uint8_t)hx[c >> 4];
            *o++ = (uint8_t)hx[c & 15];
        } else {
            *o++ = c;
        }
    }
    b->len = (size_t)(o - b->p);
    return 0;
}

static int
put_hex(struct acreE_buf *b, const uint8_t *v, size_t n)
{
    static const char hx[] = "0123456789abcdef";
    int rc = acreE_buf_putc(b, '#');

    for (size_t k = 0; k < n && !rc; k++) {
        uint8_t e[2] = {(uint8_t)hx[v[k] >> 4], (uint8_t)hx[v[k] & 15]};
        rc = acreE_buf_put(b, e, 2);
    }
    return rc;
}

/* ------------------------------------------------------------------------
 * Values
 */

/* Handle the escape at s[i] == '\\', appending the byte it stands for. */
static int
take_escape(struct ps *ps)
{
    size_t i = ps->i;
    uint8_t c;

    if (i + 1 == ps->n)
        return fail(ps, ACRE_ERR_DN_ESCAPE, i, "'\\' at end of input");
    c = ps->s[i + 1];
    if ((cls[c] & CL_HEX) && i + 2 < ps->n && (cls[ps->s[i + 2]] & CL_HEX)) {
        c = (uint8_t)(acreE_hexval(c) << 4 | acreE_hexval(ps->s[i + 2]));
        ps->i += 3;
    } else if ((cls[c] & CL_ESC) ||
               (ps->profile == ACRE_PROFILE_SLAPD && ldap_space(c)) ||
               ps->profile == ACRE_PROFILE_389) {
        /* slapd escapes any of its white space too (tab, LF, CR); 389
         * drops a '\' before any byte that is no hex pair ("ignore an
         * escape": cn=\x is cn=x) */
        ps->i += 2;
    } else {
        return fail(ps, ACRE_ERR_DN_ESCAPE, i,
                    "'\\' must be followed by a special character or two "
                    "hex digits");
    }
    return acreE_buf_putc(&ps->val, c) ? ACRE_ERR_NOMEM : 0;
}

/* An unquoted string value; unescaped trailing spaces are dropped. */
static int
scan_string(struct ps *ps)
{
    size_t last = 0;
    int rc;

    while (ps->i < ps->n) {
        size_t j = ps->i;
        while (j < ps->n && !(cls[ps->s[j]] & CL_STOP))
            j++;
        if (j > ps->i) {
            size_t k = j;
            if (acreE_buf_put(&ps->val, ps->s + ps->i, j - ps->i))
                return ACRE_ERR_NOMEM;
            /* (slapd: trailing tabs, CRs and LFs go as spaces do) */
            while (ps->profile == ACRE_PROFILE_SLAPD && k > ps->i &&
                   ldap_space(ps->s[k - 1]))
                k--;
            if (k > ps->i)
                last = ps->val.len - (j - k);
            ps->i = j;
            continue;
        }
        switch (ps->s[j]) {
        case ',':
        case ';':
        case '+':
            ps->val.len = last;
            return 0;
        case '\\':
            if ((rc = take_escape(ps)))
                return rc;
            last = ps->val.len;
            break;
        case ' ':
            if (acreE_buf_putc(&ps->val, ' '))
                return ACRE_ERR_NOMEM;
            ps->i++;
            break;
        default: /* " < > NUL */
            return fail(ps, ACRE_ERR_DN_UNESCAPED, j,
                        "'\"', '<', '>' and NUL must be escaped");
        }
    }
    ps->val.len = last;
    return 0;
}

/* An RFC 2253 quoted value: "..." with escapes, then only spaces. */
static int
scan_quoted(struct ps *ps)
{
    size_t q = ps->i++;
    int rc;

    for (;;) {
        uint8_t c;
        if (ps->i == ps->n)
            return fail(ps, ACRE_ERR_DN_QUOTE, q, "unterminated quoted value");
        c = ps->s[ps->i];
        if (c == '"')
            break;
        if (c == '\\' && ps->profile == ACRE_PROFILE_SLAPD) {
            /* slapd (RFC 1779): '\' takes the next byte as it is, even
             * a hex digit ("\41" is "41") */
            if (ps->i + 1 == ps->n)
                return fail(ps, ACRE_ERR_DN_ESCAPE, ps->i,
                            "'\\' at end of input");
            c = ps->s[ps->i + 1];
            ps->i++;
        } else if (c == '\\') {
            if ((rc = take_escape(ps)))
                return rc;
            continue;
        }
        if (c == 0)
            return fail(ps, ACRE_ERR_DN_UNESCAPED, ps->i, "NUL in value");
        if (acreE_buf_putc(&ps->val, c))
            return ACRE_ERR_NOMEM;
        ps->i++;
    }
    ps->i++;
    skip_spaces(ps);
    if (!at_sep(ps))
        return fail(ps, ACRE_ERR_DN_QUOTE, ps->i,
                    "text after the closing quote");
    return 0;
}

/* #hex: the BER bytes go to val. */
static int
scan_hex(struct ps *ps)
{
    size_t start = ++ps->i;

    while (ps->i < ps->n && (cls[ps->s[ps->i]] & CL_HEX)) {
        size_t i = ps->i;
        if (i + 1 == ps->n || !(cls[ps->s[i + 1]] & CL_HEX))
            return fail(ps, ACRE_ERR_DN_HEX, i + 1, "odd number of hex digits");
        if (acreE_buf_putc(&ps->val, (uint8_t)(acreE_hexval(ps->s[i]) << 4 |
                                               acreE_hexval(ps->s[i + 1]))))
            return ACRE_ERR_NOMEM;
        ps->i += 2;
    }
    if (ps->i == start)
        return fail(ps, ACRE_ERR_DN_HEX, ps->i, "'#' without hex digits");
    skip_spaces(ps);
    if (!at_sep(ps))
        return fail(ps, ACRE_ERR_DN_HEX, ps->i, "not a hex digit");
    return 0;
}

/*
 * Check BER framing of v[0..n): one element, tag (low or high form), then
 * a definite length that covers the rest exactly.  On success *tag is the
 * first identifier octet and *body the offset of the contents.
 */
static int
ber_frame(const uint8_t *v, size_t n, uint8_t *tag, size_t *body)
{
    size_t i = 1, len = 0;

    if (n < 2)
        return 0;
    *tag = v[0];
    if ((v[0] & 0x1f) == 0x1f) {
        while (i < n && (v[i] & 0x80))
            i++;
        if (++i >= n)
            return 0;
    }
    if (v[i] < 0x80) {
        len = v[i++];
    } else {
        size_t k = v[i++] & 0x7f;
        if (k == 0 || k > 4 || n - i < k)
            return 0;
        while (k--)
            len = len << 8 | v[i++];
    }
    *body = i;
    return n - i == len;
}

static int
is_string_tag(uint8_t t)
{
    return t == 0x04 || t == 0x0c || t == 0x12 || t == 0x13 || t == 0x14 ||
           t == 0x16 || t == 0x1a;
}

static int parse_nested(struct ps *ps, size_t vstart, int uid);
static int parse_text(struct ps *ps);

/* Does a value of type t need its syntax checked (emit_string), under
 * profile?  Then no fast path takes it. */
static inline int
strict_syn(int profile, const struct acreD_type *t)
{
    return t->syn && profile == ACRE_PROFILE_SLAPD;
}

/* Normalise the string value in ps->val and append both forms. */
static int
emit_string(struct ps *ps, const struct acreD_type *t, size_t vstart,
            const uint8_t *pv, size_t pn, int hexform)
{
    int rc, mode;

    if (t->mr == ACRE_MR_DN || t->mr == ACRE_MR_NAME_UID)
        return parse_nested(ps, vstart, t->mr == ACRE_MR_NAME_UID);
    if (ps->val.len == 0 && t->mr != ACRE_MR_OCTET)
        return fail(ps, ACRE_ERR_DN_VALUE, vstart, "empty value");
    /* slapd checks the value with its type's syntax, then prepares it */
    if (strict_syn(ps->profile, t) &&
        !acreM_validate(NULL, t->syn, ps->val.p, ps->val.len))
        return fail(ps, ACRE_ERR_DN_VALUE, vstart,
                    "value does not fit the attribute's syntax");
    ps->tmp.len = 0;
    switch (
        acreE_prep_as(ps->profile, t->mr, ps->val.p, ps->val.len, &ps->tmp)) {
    case ACRE_PREP_OK:
        break;
    case ACRE_PREP_UTF8:
        return fail(ps, ACRE_ERR_DN_UTF8, vstart, "invalid UTF-8");
    case ACRE_PREP_PROHIBITED:
        return fail(ps, ACRE_ERR_DN_PROHIBITED, vstart,
                    "unassigned, private-use or replacement character");
    case ACRE_PREP_SYNTAX:
        return fail(ps, ACRE_ERR_DN_VALUE, vstart,
                    "value does not fit the attribute's syntax");
    default:
        return ACRE_ERR_NOMEM;
    }
    if (ps->tmp.len == 0 && t->mr != ACRE_MR_OCTET)
        return fail(ps, ACRE_ERR_DN_VALUE, vstart, "value prepares to empty");
    mode = (t->mr == ACRE_MR_OCTET ? PE_OCTET : 0) |
           (ps->profile == ACRE_PROFILE_SLAPD ? PE_EDGES : 0);
    rc = put_escaped(&ps->norm, ps->tmp.p, ps->tmp.len, mode);
    if (!rc)
        rc = hexform ? put_hex(&ps->pretty, pv, pn)
                     : put_escaped(&ps->pretty, pv, pn, mode);
    return rc ? ACRE_ERR_NOMEM : 0;
}

/*
 * Path 2's lane for the common value: plain printable ASCII (no escapes,
 * specials or controls) of a caseIgnore/caseExact(IA5) attribute.  The
 * pretty text is a copy of the run; the normalised text is the run with
 * case folded and inner spaces collapsed, and needs no escaping (the run
 * has no specials, cannot start with space or '#', and is trimmed).
 * Returns 1 when it handled the value, 0 to take the general path.
 */
#if defined(__SSE2__)
/*
 * plain_value's loop, 16 bytes at a time: copy each block to pretty and
 * (case-folded) to norm while it holds only value bytes and no double
 * space; stop at the first byte that ends the run.  Writes up to 16 bytes
 * past the run (callers reserve the slack) and returns the new position;
 * the scalar loop finishes from there.
 */
static size_t
simd_run(const uint8_t *s, size_t j, size_t n, int fold, uint8_t **pp,
         uint8_t **op, uint8_t *high)
{
    const __m128i comma = _mm_set1_epi8(','), plus = _mm_set1_epi8('+'),
                  semi = _mm_set1_epi8(';'), quote = _mm_set1_epi8('"'),
                  bsl = _mm_set1_epi8('\\'), lt = _mm_set1_epi8('<'),
                  gt = _mm_set1_epi8('>'), del = _mm_set1_epi8(0x7f),
                  sp = _mm_set1_epi8(' '), zero = _mm_setzero_si128(),
                  a1 = _mm_set1_epi8('A' - 1), z1 = _mm_set1_epi8('Z' + 1),
                  bit = _mm_set1_epi8(0x20);
    uint8_t *p = *pp, *o = *op;
    unsigned prev_sp = j > 0 && s[j - 1] == ' ';

    while (j + 16 <= n) {
        __m128i v = _mm_loadu_si128((const __m128i *)(s + j));
        __m128i bad = _mm_or_si128(
            _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, comma), _mm_cmpeq_epi8(v, plus)),
                _mm_or_si128(_mm_cmpeq_epi8(v, semi),
                             _mm_cmpeq_epi8(v, quote))),
            _mm_or_si128(
                _mm_or_si128(_mm_cmpeq_epi8(v, bsl), _mm_cmpeq_epi8(v, lt)),
                _mm_or_si128(_mm_cmpeq_epi8(v, gt), _mm_cmpeq_epi8(v, del))));
        /* controls: 0x00..0x1f (bytes >= 0x80 are negative, and fine) */
        bad = _mm_or_si128(bad, _mm_andnot_si128(_mm_cmplt_epi8(v, zero),
                                                 _mm_cmplt_epi8(v, sp)));
        unsigned m = (unsigned)_mm_movemask_epi8(bad);
        unsigned k = m ? (unsigned)__builtin_ctz(m) : 16;
        unsigned lim = (1u << k) - 1;
        unsigned spm = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(v, sp));
        if (((spm & (spm >> 1)) | (spm & prev_sp)) & lim)
            break; /* a double space: the scalar loop collapses it */
        *high |= (uint8_t)(((unsigned)_mm_movemask_epi8(v) & lim) ? 0x80 : 0);
        _mm_storeu_si128((__m128i *)p, v);
        if (fold) {
            __m128i up =
                _mm_and_si128(_mm_cmpgt_epi8(v, a1), _mm_cmplt_epi8(v, z1));
            v = _mm_add_epi8(v, _mm_and_si128(up, bit));
        }
        _mm_storeu_si128((__m128i *)o, v);
        p += k;
        o += k;
        j += k;
        if (k < 16)
            break;
        prev_sp = spm >> 15;
    }
    *pp = p;
    *op = o;
    return j;
}
#endif

static int
plain_value(struct ps *ps, const struct acreD_type *t)
{
    const uint8_t *s = ps->s;
    size_t i = ps->i, j = i, avail = ps->n - i;
    int fold;
    uint8_t *o, *p, *o0, *p0, prev = 0, high = 0;

    if (t->mr > ACRE_MR_CASE_EXACT_IA5 || strict_syn(ps->profile, t))
        return 0;
    if (reserve(&ps->norm, avail + 16) || reserve(&ps->pretty, avail + 16))
        return ACRE_ERR_NOMEM;
    fold = t->mr == ACRE_MR_CASE_IGNORE || t->mr == ACRE_MR_CASE_IGNORE_IA5;
    o = o0 = ps->norm.p + ps->norm.len;
    p = p0 = ps->pretty.p + ps->pretty.len;
    /* one fused pass: copy for pretty, fold and collapse for norm (locals
     * only: stores through uint8_t pointers would force reloads of ps) */
    {
        const size_t n = ps->n;
        const uint16_t *cl = cls;
#if defined(__SSE2__)
        j = simd_run(s, j, n, fold, &p, &o, &high);
        prev = j > i ? s[j - 1] : 0;
#endif
        for (; j < n; j++) {
            uint8_t c = s[j];
            if (!(cl[c] & CL_RUN))
                break;
            *p++ = c;
            high |= c;
            if (c == ' ' && prev == ' ')
                continue;
            *o++ = fold ? lower(c) : c;
            prev = c;
        }
    }
    if (j < ps->n && s[j] != ',' && s[j] != ';' && s[j] != '+')
        return 0;
    while (p > p0 && p[-1] == ' ')
        p--;
    if (p == p0)
        return 0;
    if (high & 0x80) {
        /* non-ASCII: prepare the run properly (which validates it), then
         * escape what NFKC may have turned into specials (U+FF0C
         * FULLWIDTH COMMA is ',') */
        ps->tmp.len = 0;
        switch (
            acreE_prep_as(ps->profile, t->mr, p0, (size_t)(p - p0), &ps->tmp)) {
        case ACRE_PREP_OK:
            break;
        case ACRE_PREP_NOMEM:
            return ACRE_ERR_NOMEM;
        default:
            return 0; /* the general path reports it */
        }
        ps->pretty.len = (size_t)(p - ps->pretty.p);
        if (put_escaped(&ps->norm, ps->tmp.p, ps->tmp.len,
                        ps->profile == ACRE_PROFILE_SLAPD ? PE_EDGES : 0))
            return ACRE_ERR_NOMEM;
        ps->i = j;
        return 1;
    }
    while (o > o0 && o[-1] == ' ')
        o--;
    ps->pretty.len = (size_t)(p - ps->pretty.p);
    ps->norm.len = (size_t)(o - ps->norm.p);
    ps->i = j;
    return 1;
}

static int
parse_value(struct ps *ps, const struct acreD_type *t)
{
    size_t vstart = ps->i, body;
    uint8_t tag;
    int rc;

    ps->val.len = 0;
    if (ps->i < ps->n && ps->s[ps->i] == '#') {
        if ((rc = scan_hex(ps)))
            return rc;
        if (!ber_frame(ps->val.p, ps->val.len, &tag, &body))
            return fail(ps, ACRE_ERR_DN_BER, vstart, "bad BER framing");
        if (t->mr == ACRE_MR_OCTET || !is_string_tag(tag)) {
            rc = put_hex(&ps->norm, ps->val.p, ps->val.len);
            if (!rc)
                rc = put_hex(&ps->pretty, ps->val.p, ps->val.len);
            return rc ? ACRE_ERR_NOMEM : 0;
        }
        /* A BER string: normalise its contents like the string; the
         * pretty form keeps the hex, so save it first. */
        {
            uint8_t local[256];
            struct acreE_buf raw;
            acreE_buf_init(&raw, local, sizeof(local));
            if (acreE_buf_put(&raw, ps->val.p, ps->val.len))
                return ACRE_ERR_NOMEM;
            memmove(ps->val.p, ps->val.p + body, ps->val.len - body);
            ps->val.len -= body;
            rc = emit_string(ps, t, vstart, raw.p, raw.len, 1);
            acreE_buf_free(&raw);
        }
        return rc;
    }
    if ((rc = plain_value(ps, t)))
        return rc < 0 ? rc : 0;
    rc = ps->i < ps->n && ps->s[ps->i] == '"' ? scan_quoted(ps)
                                              : scan_string(ps);
    if (rc)
        return rc;
    return emit_string(ps, t, vstart, ps->val.p, ps->val.len, 0);
}

/*
 * A DN-valued value (distinguishedName, or nameAndOptionalUID when uid):
 * parsed as a DN of its own one nesting level deeper, then written as its
 * normalised / pretty text escaped as one value.  An inner error keeps its
 * code and is reported at the start of the outer value.
 */
static int
parse_nested(struct ps *ps, size_t vstart, int uid)
{
    struct ps in;
    acre_diag d;
    size_t dnlen = ps->val.len, k;
    int rc;

    if (ps->nest + 1 > ACRE_DN_MAX_NESTING)
        return fail(ps, ACRE_ERR_DN_NESTING, vstart,
                    "DN values nested too deeply");
    if (uid && dnlen >= 4 && ps->val.p[dnlen - 1] == 'B' &&
        ps->val.p[dnlen - 2] == '\'') {
        k = dnlen - 2;
        while (k > 0 && (ps->val.p[k - 1] == '0' || ps->val.p[k - 1] == '1'))
            k--;
        if (k >= 2 && ps->val.p[k - 1] == '\'' && ps->val.p[k - 2] == '#')
            dnlen = k - 2;
    }
    if (dnlen == 0)
        return fail(ps, ACRE_ERR_DN_VALUE, vstart, "empty DN value");
    ps_init(&in, ps->schema, (const char *)ps->val.p, dnlen, ps->flags,
            ps->nest + 1, &d);
    rc = parse_text(&in);
    if (rc == ACRE_ERR_NOMEM)
        goto out;
    if (rc) { /* keep the innermost message: no prefix per level */
        rc = acreE_diag_set(ps->diag, rc, vstart, "%s", d.message);
        goto out;
    }
    if (in.norm.len == 0) { /* only spaces: slapd refuses it as empty */
        rc = fail(ps, ACRE_ERR_DN_VALUE, vstart, "empty DN value");
        goto out;
    }
    rc = ACRE_ERR_NOMEM;
    ps->tmp.len = 0;
    if (acreE_buf_put(&ps->tmp, in.norm.p, in.norm.len) ||
        acreE_buf_put(&ps->tmp, ps->val.p + dnlen, ps->val.len - dnlen) ||
        put_escaped(&ps->norm, ps->tmp.p, ps->tmp.len,
                    ps->profile == ACRE_PROFILE_SLAPD ? PE_EDGES : 0))
        goto out;
    ps->tmp.len = 0;
    if (acreE_buf_put(&ps->tmp, in.pretty.p, in.pretty.len) ||
        acreE_buf_put(&ps->tmp, ps->val.p + dnlen, ps->val.len - dnlen) ||
        put_escaped(&ps->pretty, ps->tmp.p, ps->tmp.len,
                    ps->profile == ACRE_PROFILE_SLAPD ? PE_EDGES : 0))
        goto out;
    rc = 0;
out:
    ps_free(&in);
    return rc;
}

/* ------------------------------------------------------------------------
 * Types, AVAs, RDNs
 */

/* numericoid: number 1*("." number), number = "0" / [1-9] *DIGIT */
static int
scan_oid(struct ps *ps)
{
    int dots = 0;

    for (;;) {
        size_t d = ps->i;
        if (ps->i == ps->n || !(cls[ps->s[ps->i]] & CL_DIGIT))
            return fail(ps, ACRE_ERR_DN_TYPE, ps->i, "OID arc expected");
        while (ps->i < ps->n && (cls[ps->s[ps->i]] & CL_DIGIT))
            ps->i++;
        if (ps->s[d] == '0' && ps->i - d > 1)
            return fail(ps, ACRE_ERR_DN_TYPE, d + 1,
                        "leading zero in an OID arc");
        if (ps->i == ps->n || ps->s[ps->i] != '.')
            break;
        ps->i++;
        dots++;
    }
    if (!dots)
        return fail(ps, ACRE_ERR_DN_TYPE, ps->i, "an OID needs a '.'");
    return 0;
}

/* The attribute type, through '=' and the spaces after it. */
static int
parse_type(struct ps *ps, const struct acreD_type **out,
           struct acreD_type *unknown)
{
    size_t start = ps->i, tlen;
    int rc;

    if (cls[ps->s[ps->i]] & CL_ALPHA) {
        const uint8_t *s = ps->s;
        size_t i = ps->i + 1, n = ps->n;
        while (i < n && ((cls[s[i]] & (CL_ALPHA | CL_DIGIT)) || s[i] == '-'))
            i++;
        tlen = i - start;
        /* slapd's DN reader (libldap, not pedantic) drops options from a
         * descriptor: "cn;lang-en=x" and "cn;=x" name cn. */
        if (ps->profile == ACRE_PROFILE_SLAPD && i < n && s[i] == ';')
            while (i < n && ((cls[s[i]] & (CL_ALPHA | CL_DIGIT)) ||
                             s[i] == '-' || s[i] == ';'))
                i++;
        ps->i = i;
    } else if (cls[ps->s[ps->i]] & CL_DIGIT) {
        if ((rc = scan_oid(ps)))
            return rc;
        tlen = ps->i - start;
    } else {
        return fail(ps, ACRE_ERR_DN_TYPE, ps->i, "attribute type expected");
    }
    if (ps->i < ps->n && ps->s[ps->i] != '=' && ps->s[ps->i] != ' ' &&
        !(ps->profile == ACRE_PROFILE_SLAPD && ldap_space(ps->s[ps->i])))
        return fail(ps, ACRE_ERR_DN_TYPE, ps->i,
                    "invalid character in attribute type");
    skip_spaces(ps);
    if (ps->i == ps->n || ps->s[ps->i] != '=')
        return fail(ps, ACRE_ERR_DN_NO_EQUALS, ps->i, "'=' expected");
    ps->i++;
    skip_spaces(ps);
    *out = acreS_dn_type(ps->schema, (const char *)ps->s + start, tlen);
    if (*out)
        return 0;
    if (ps->flags & ACRE_DN_STRICT)
        return fail(ps, ACRE_ERR_DN_UNKNOWN_TYPE, start,
                    "attribute type not in the schema");
    if (tlen >= ACRED_TYPE_NAME_MAX)
        return fail(ps, ACRE_ERR_DN_TYPE, start, "attribute type too long");
    unknown->name = (const char *)ps->s + start;
    unknown->lname = NULL; /* lowercased on output */
    unknown->len = (uint8_t)tlen;
    unknown->lower = 0;
    unknown->syn = 0;
    unknown->lkey = unknown->nkey = 0;
    unknown->mr = ACRE_MR_CASE_IGNORE;
    *out = unknown;
    return 0;
}

static int
put_type(struct ps *ps, const struct acreD_type *t)
{
    size_t n = t->len;
    uint8_t *o, *p;

    /* 8 bytes of slack: a short name is one 8-byte store per text */
    if (reserve(&ps->norm, n + 9) || reserve(&ps->pretty, n + 9))
        return ACRE_ERR_NOMEM;
    o = ps->norm.p + ps->norm.len;
    p = ps->pretty.p + ps->pretty.len;
    if (t->nkey && t->lkey) {
        memcpy(p, &t->nkey, 8);
        memcpy(o, &t->lkey, 8);
    } else {
        for (size_t k = 0; k < n; k++) {
            p[k] = (uint8_t)t->name[k];
            o[k] = t->lname ? (uint8_t)t->lname[k] : lower((uint8_t)t->name[k]);
        }
    }
    o[n] = p[n] = '=';
    ps->norm.len += n + 1;
    ps->pretty.len += n + 1;
    return 0;
}

static int
parse_ava(struct ps *ps)
{
    const struct acreD_type *t;
    struct acreD_type unknown;
    int rc;

    skip_spaces(ps);
    if (at_sep(ps))
        return fail(ps, ACRE_ERR_DN_EMPTY_RDN, ps->i,
                    "attribute type expected, found a separator or the end");
    if ((rc = parse_type(ps, &t, &unknown)) || (rc = put_type(ps, t)))
        return rc;
    return parse_value(ps, t);
}

static int
seg_cmp(const uint8_t *base, const uint32_t *a, const uint32_t *b)
{
    size_t la = a[1] - a[0], lb = b[1] - b[0];
    int c = memcmp(base + a[0], base + b[0], la < lb ? la : lb);
    return c ? c : (la > lb) - (la < lb);
}

/* Rewrite the text from the first AVA's start in the order `ord`. */
static int
reorder(struct acreE_buf *b, struct acreE_buf *tmp, uint32_t (*seg)[2],
        const unsigned *ord, unsigned n)
{
    uint32_t start = seg[0][0];

    tmp->len = 0;
    for (unsigned k = 0; k < n; k++) {
        const uint32_t *s = seg[ord[k]];
        if ((k && acreE_buf_putc(tmp, '+')) ||
            acreE_buf_put(tmp, b->p + s[0], s[1] - s[0]))
            return ACRE_ERR_NOMEM;
    }
    memcpy(b->p + start, tmp->p, tmp->len);
    return 0;
}

/* Sort a multi-valued RDN's AVAs by their normalised bytes. */
static int
sort_rdn(struct ps *ps)
{
    unsigned ord[ACRE_DN_MAX_AVAS], n = ps->navas;

    for (unsigned k = 0; k < n; k++) {
        unsigned j = k;
        while (j > 0 &&
               seg_cmp(ps->norm.p, ps->an[ord[j - 1]], ps->an[k]) > 0) {
            ord[j] = ord[j - 1];
            j--;
        }
        ord[j] = k;
    }
    for (unsigned k = 1; k < n; k++)
        if (seg_cmp(ps->norm.p, ps->an[ord[k - 1]], ps->an[ord[k]]) == 0) {
            unsigned late = ord[k] > ord[k - 1] ? ord[k] : ord[k - 1];
            return fail(ps, ACRE_ERR_DN_DUP_AVA, ps->aoff[late],
                        "the same AVA twice in one RDN");
        }
    if (reorder(&ps->norm, &ps->tmp, ps->an, ord, n) ||
        reorder(&ps->pretty, &ps->tmp, ps->ap, ord, n))
        return ACRE_ERR_NOMEM;
    return 0;
}

static int
parse_rdn(struct ps *ps)
{
    int rc;

    ps->navas = 0;
    for (;;) {
        unsigned k = ps->navas;
        skip_spaces(ps);
        if (k == ACRE_DN_MAX_AVAS)
            return fail(ps, ACRE_ERR_DN_TOO_MANY_AVAS, ps->i,
                        "too many AVAs in one RDN");
        ps->aoff[k] = (uint32_t)ps->i;
        ps->an[k][0] = (uint32_t)ps->norm.len;
        ps->ap[k][0] = (uint32_t)ps->pretty.len;
        if ((rc = parse_ava(ps)))
            return rc;
        ps->an[k][1] = (uint32_t)ps->norm.len;
        ps->ap[k][1] = (uint32_t)ps->pretty.len;
        ps->navas++;
        if (ps->i == ps->n || ps->s[ps->i] != '+')
            break;
        ps->i++;
        if (acreE_buf_putc(&ps->norm, '+') || acreE_buf_putc(&ps->pretty, '+'))
            return ACRE_ERR_NOMEM;
    }
    return ps->navas > 1 ? sort_rdn(ps) : 0;
}

/* The end of a path 2 parse of depth RDNs: 1, or 0 when a text came out
 * too long (the general path reports it). */
static int
path2_done(struct ps *ps, unsigned depth)
{
    if (ps->norm.len > ACRE_DN_MAX_LEN || ps->pretty.len > ACRE_DN_MAX_LEN)
        return 0;
    ps->depth = depth;
    ps->nrdn[depth] = (uint32_t)ps->norm.len + 1;
    ps->prdn[depth] = (uint32_t)ps->pretty.len + 1;
    return 1;
}

static int paths = ACRED_PATHS_BEST;

/* parse_all's nf: acre_dn_parse_buf has not tried path 1 (nf_direct) */
#define NF_UNTRIED (-2)

void
acreD_set_paths(int mode)
{
    paths = mode;
}

/*
 * Path 2's lane for the common RDN, from ps->i: one AVA whose type is a
 * known name of up to 8 bytes with a string equality rule (looked up by
 * the packed key built while scanning it), and whose value plain_value()
 * takes.  Returns 1 with ps->i at the ',' or ';' after it or at the end,
 * 0 when the RDN needs the general parse (parse_rdn, which also reports
 * any error; the caller undoes what was written), or ACRE_ERR_NOMEM.
 */
static int
simple_rdn(struct ps *ps)
{
    const uint8_t *s = ps->s;
    const size_t n = ps->n;
    const struct acreD_type *t;
    uint64_t key = 0;
    size_t i = ps->i, st;
    int rc;

    while (i < n && s[i] == ' ')
        i++;
    if (i == n || !(cls[s[i]] & CL_ALPHA))
        return 0;
    st = i;
    do {
        key |= (uint64_t)(s[i] | 0x20) << (8 * (i - st));
        i++;
    } while (i < n && i - st < 8 &&
             ((cls[s[i]] & (CL_ALPHA | CL_DIGIT)) || s[i] == '-'));
    if (i < n && ((cls[s[i]] & (CL_ALPHA | CL_DIGIT)) || s[i] == '-'))
        return 0; /* a longer name */
    while (i < n && s[i] == ' ')
        i++;
    if (i == n || s[i] != '=')
        return 0;
    do
        i++;
    while (i < n && s[i] == ' ');
    t = acreS_dn_type_packed(ps->schema, key);
    if (!t || t->mr > ACRE_MR_CASE_EXACT_IA5 || strict_syn(ps->profile, t) ||
        i == n || s[i] == '#' || s[i] == '"')
        return 0;
    if ((rc = put_type(ps, t)))
        return rc;
    ps->i = i;
    if ((rc = plain_value(ps, t)) <= 0)
        return rc;
    return ps->i == n || s[ps->i] != '+';
}

/*
 * The general path: the whole text into norm / pretty / offsets.  Each
 * RDN is tried first as path 2's common shape (simple_rdn, except in
 * ACRED_PATHS_GENERAL) and parsed in full only when that declines, so an
 * escape in one RDN costs the general parse of that RDN alone.  Each RDN's
 * texts depend on its own bytes only, so mixing the lanes changes nothing.
 */
static int
parse_text(struct ps *ps)
{
    int rc;

    skip_spaces(ps);
    if (ps->i == ps->n)
        goto done;
    for (;;) {
        size_t i0 = ps->i, n0 = ps->norm.len, p0 = ps->pretty.len;
        if (ps->depth == ACRE_DN_MAX_RDNS)
            return fail(ps, ACRE_ERR_DN_TOO_MANY_RDNS, ps->i, "too many RDNs");
        ps->nrdn[ps->depth] = (uint32_t)n0;
        ps->prdn[ps->depth] = (uint32_t)p0;
        rc = acre_likely(paths != ACRED_PATHS_GENERAL) ? simple_rdn(ps) : 0;
        if (rc < 0)
            return rc;
        if (rc == 0) {
            ps->i = i0;
            ps->norm.len = n0;
            ps->pretty.len = p0;
            if ((rc = parse_rdn(ps)))
                return rc;
        }
        ps->depth++;
        if (ps->i == ps->n)
            break;
        ps->i++; /* ',' or ';' */
        if (acreE_buf_putc(&ps->norm, ',') || acreE_buf_putc(&ps->pretty, ','))
            return ACRE_ERR_NOMEM;
    }
done:
    if (ps->norm.len > ACRE_DN_MAX_LEN || ps->pretty.len > ACRE_DN_MAX_LEN)
        return fail(ps, ACRE_ERR_DN_TOO_LONG, ps->n,
                    "normalised DN longer than ACRE_DN_MAX_LEN");
    ps->nrdn[ps->depth] = (uint32_t)ps->norm.len + 1;
    ps->prdn[ps->depth] = (uint32_t)ps->pretty.len + 1;
    return 0;
}

/*
 * Path 1: is the input exactly a normalised DN that the general path
 * would reproduce byte for byte?  Checks lowercase known type names whose
 * canonical spelling is lowercase, string syntaxes with ASCII preparation
 * (caseIgnore: no uppercase), no escapes, single inner spaces, one AVA per
 * RDN.  Returns 1 and fills nrdn/depth, or 0 to take the general path.
 */
static int
try_normalised(struct ps *ps)
{
    const uint8_t *s = ps->s;
    size_t i = 0, n = ps->n;
    unsigned depth = 0;

    if (n == 0)
        return 0;
    for (;;) {
        size_t t = i;
        const struct acreD_type *ty;
        uint8_t fold;

        if (depth == ACRE_DN_MAX_RDNS)
            return 0;
        ps->nrdn[depth] = (uint32_t)i;
        while (i < n && ((s[i] >= 'a' && s[i] <= 'z') || s[i] == '-' ||
                         (i > t && (cls[s[i]] & CL_DIGIT))))
            i++;
        if (i == t || i == n || s[i] != '=')
            return 0;
        ty = acreS_dn_type(ps->schema, (const char *)s + t, i - t);
        if (!ty || !ty->lower || ty->mr > ACRE_MR_CASE_EXACT_IA5 ||
            strict_syn(ps->profile, ty) || ty->len != i - t ||
            memcmp(ty->lname, s + t, i - t) != 0)
            return 0; /* an alias or OID is not the normalised spelling */
        fold =
            ty->mr == ACRE_MR_CASE_IGNORE || ty->mr == ACRE_MR_CASE_IGNORE_IA5;
        if (++i == n || s[i] == '#' || s[i] == ' ' || s[i] == ',')
            return 0;
        for (; i < n && s[i] != ','; i++) {
            uint16_t k = cls[s[i]];
            if (k & CL_SAFE) {
                if (fold && (k & CL_UPPER))
                    return 0;
            } else if (s[i] != ' ' || s[i - 1] == ' ') {
                return 0;
            }
        }
        if (s[i - 1] == ' ')
            return 0;
        depth++;
        if (i == n)
            break;
        if (++i == n)
            return 0;
    }
    ps->depth = depth;
    ps->nrdn[depth] = (uint32_t)n + 1;
    ps->fast = 1;
    return 1;
}

#if defined(__SSE2__)
/*
 * Path 1 for DNs of up to NF_MAX bytes, without a loop over the bytes of
 * an RDN.  One pass classifies the input 32 (AVX2) or 16 (SSE2) bytes at a
 * time into bit masks (bit j for byte j: nf_masks_avx2, nf_masks_sse2).  Then
 * the whole DN is checked with word operations: the prefix parity P of the '='
 * and ',' bits is 1 from each '=' up to the next ',', so the '=' and ','
 * strictly alternate, starting with '=' and ending in a value, exactly when no
 * '=' has P = 0, no ',' has P = 1 and the last P is 1; the value bytes are then
 * P (less the '='), and each class of bad byte is one AND.  A byte that may
 * stand in neither (uppercase, a control, a special, non-ASCII) ends the check
 * at its block: mixed-case input goes on to path 2 at once.  The RDNs are
 * walked only to check their types (each compared whole with its normalised
 * spelling: one probe of the schema's dnnf table) and to note where they start:
 * the '=' and ',' taken in order, as they alternate.  Accepts what the scalar
 * try_normalised accepts, except a caseExact value with an uppercase letter,
 * which paths 2 and 3 then turn into itself. nf_scan does it for both callers:
 * try_normalised_simd (the RDN starts into the parser state; obj_fill builds
 * the object later) and nf_direct (acre_dn_parse_buf: the object itself,
 * written in the same walk). Returns 1 when it took the DN, -1 when it met a
 * byte the word-parallel path 2 refuses too (a special, a control or non-ASCII:
 * parse_plain_simd need not try), else 0; nf_direct also NF_UNTRIED.
 */
#define NF_MAX   256
#define NF_WORDS (NF_MAX / 64)
static int layout_ok(const acre_dn *dn);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "try_normalised_simd packs block masks as little-endian words"
#endif

/* prefix XOR: bit j of the result is the parity of bits 0..j of x */
static inline uint64_t
prefix_xor(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* The set bits of a mask of words, in order (nf_bits_next). */
struct nf_bits {
    const uint64_t *m;
    size_t w, nw;
    uint64_t cur;
};

static inline void
nf_bits_init(struct nf_bits *b, const uint64_t *m, size_t nw)
{
    b->m = m;
    b->w = 0;
    b->nw = nw;
    b->cur = m[0];
}

/* The next set bit's position, or none when there is none. */
static inline size_t
nf_bits_next(struct nf_bits *b, size_t none)
{
    size_t p;

    while (!b->cur) {
        if (++b->w >= b->nw)
            return none;
        b->cur = b->m[b->w];
    }
    p = (b->w << 6) + (size_t)__builtin_ctzll(b->cur);
    b->cur &= b->cur - 1;
    return p;
}

/* The bytes of one 16-byte block of a DN, by class: bit j for byte j. */
struct nf_block {
    unsigned eq, comma, sp;
    unsigned bad;   /* a control, DEL, a byte >= 0x80, or + " \ < > ; */
    unsigned upper; /* A-Z */
    unsigned lower; /* a-z, 0-9, '-' (a normalised type's bytes) */
    unsigned stop;  /* bad | upper: what ends path 1 */
};

/* nf_classify -- the classes of block v, its masks shifted down by d
 * (the last block of a DN read again from its end). */
static inline struct nf_block
nf_classify(__m128i v, unsigned d)
{
#define NF_MASK(x) ((unsigned)_mm_movemask_epi8(x) >> d)
/* bytes in [lo, lo + len): moved to start at -128, one signed compare */
#define NF_RANGE(lo, len)                                               \
    _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8((char)(-128 - (lo)))), \
                   _mm_set1_epi8((char)(-128 + (len))))
    const __m128i sp = _mm_set1_epi8(' ');
    struct nf_block r;
    /* signed, one added: below ' ' + 1 is a control, DEL (0x80) or a
     * byte >= 0x80; '<' and '>' are the bytes whose | 2 is '>', '+' and
     * ';' those whose | 0x10 is ';' */
    __m128i bad = _mm_or_si128(
        _mm_cmplt_epi8(_mm_add_epi8(v, _mm_set1_epi8(1)),
                       _mm_set1_epi8(' ' + 1)),
        _mm_or_si128(
            _mm_or_si128(_mm_cmpeq_epi8(_mm_or_si128(v, _mm_set1_epi8(0x10)),
                                        _mm_set1_epi8(';')),
                         _mm_cmpeq_epi8(v, _mm_set1_epi8('"'))),
            _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')),
                         _mm_cmpeq_epi8(_mm_or_si128(v, _mm_set1_epi8(2)),
                                        _mm_set1_epi8('>')))));
    __m128i lower =
        _mm_or_si128(_mm_or_si128(NF_RANGE('a', 26), NF_RANGE('0', 10)),
                     _mm_cmpeq_epi8(v, _mm_set1_epi8('-')));
    r.eq = NF_MASK(_mm_cmpeq_epi8(v, _mm_set1_epi8('=')));
    r.comma = NF_MASK(_mm_cmpeq_epi8(v, _mm_set1_epi8(',')));
    r.sp = NF_MASK(_mm_cmpeq_epi8(v, sp));
    r.bad = NF_MASK(bad);
    r.upper = NF_MASK(NF_RANGE('A', 26));
    r.lower = NF_MASK(lower);
    r.stop = NF_MASK(_mm_or_si128(bad, NF_RANGE('A', 26)));
    return r;
#undef NF_RANGE
#undef NF_MASK
}

/* Path 1's classes of a DN's bytes, bit j of word w for byte 64 w + j:
 * '=', ',', space, and the bytes no value may open with (space, ',',
 * '#').  The blocks' masks are packed into the words (little-endian, as
 * every machine with SSE2 is). */
union nf_mask {
    uint64_t w[NF_WORDS];
    uint32_t d[2 * NF_WORDS];
    uint16_t h[4 * NF_WORDS];
};

struct nf_masks {
    union nf_mask eq, co, sp, vs;
};

/* nf_masks_sse2 -- m from s[0..n) (0 < n <= NF_MAX), 16 bytes at a time:
 * 1, or at the first block holding a byte no normalised DN holds, -1 when
 * it is one path 2 refuses too (a control, DEL, non-ASCII, or one of
 * + " \ < > ;) and 0 when it is uppercase only; upper (path 2): uppercase
 * is no such byte. */
static inline __attribute__((always_inline)) int
nf_masks_sse2(const uint8_t *s, size_t n, struct nf_masks *m, int upper)
{
    union {
        __m128i v;
        uint8_t b[16];
    } small;

    const size_t nb = (n + 15) / 16, nw = (n + 63) / 64;

    m->eq.w[nw - 1] = m->co.w[nw - 1] = m->sp.w[nw - 1] = m->vs.w[nw - 1] = 0;
    for (size_t k = 0; k < nb; k++) {
        unsigned d = 0, in_dn = 0xffffu, stop;
        __m128i v;
        struct nf_block c;
        if (16 * k + 16 <= n) {
            v = _mm_loadu_si128((const __m128i *)(const void *)(s + 16 * k));
        } else if (n < 16) { /* zero-padded */
            memset(small.b, 0, sizeof small.b);
            memcpy(small.b, s, n);
            v = small.v;
            in_dn = (1u << n) - 1;
        } else { /* the last 16 bytes again, reaching back d */
            v = _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16));
            d = (unsigned)(16 * k + 16 - n);
        }
        c = nf_classify(v, d);
        stop = (upper ? c.bad : c.stop) & in_dn;
        if (stop)
            return c.bad & in_dn ? -1 : 0;
        m->eq.h[k] = (uint16_t)c.eq;
        m->co.h[k] = (uint16_t)c.comma;
        m->sp.h[k] = (uint16_t)c.sp;
        m->vs.h[k] = (uint16_t)(c.sp | c.comma |
                                ((unsigned)_mm_movemask_epi8(
                                     _mm_cmpeq_epi8(v, _mm_set1_epi8('#'))) >>
                                 d));
    }
    return 1;
}

#define NF_AVX2 __attribute__((target("avx2,popcnt")))

/*
 * nf_masks_avx2 -- nf_masks_sse2 32 bytes at a time, each byte classified
 * by two table lookups (its low and its high nibble, ANDed): bits 0-6
 * mark the bytes that end path 1 (bits 0, 1, 2, 5, 6 the ones path 2
 * refuses too, bits 3 and 4 uppercase), bit 7 the bytes no value opens
 * with, so that one movemask gives them.  Each stop class is a set of
 * high nibbles times a set of low ones:
 *
 *   bit 0  0x0_ 0x1_ 0x8_-0xf_   any low nibble   controls, non-ASCII
 *   bit 1  0x2_                  2 b              " +
 *   bit 2  0x3_                  b c e            ; < >
 *   bit 3  0x4_                  1-f              A-O
 *   bit 4  0x5_                  0-a              P-Z
 *   bit 5  0x5_                  c                backslash
 *   bit 6  0x7_                  f                DEL
 *   bit 7  0x2_                  0 3 c            space # ,
 *
 * cp (or NULL): room for n + 32 bytes, where the blocks read are stored as
 * they are classified, then 32 zero bytes (path 2's padded copy).
 */
#define NF_BAD 0x67

static inline NF_AVX2 __attribute__((always_inline)) int
nf_masks_avx2(const uint8_t *s, size_t n, struct nf_masks *m, int upper,
              uint8_t *cp)
{
    union {
        __m256i v;
        uint8_t b[32];
    } small;

    /* the tables (see above), one per nibble, in both lanes */
    const __m256i lo_t = _mm256_broadcastsi128_si256(_mm_setr_epi8(
        (char)0x91, 0x19, 0x1b, (char)0x99, 0x19, 0x19, 0x19, 0x19, 0x19, 0x19,
        0x19, 0x0f, (char)0xad, 0x09, 0x0d, 0x49));
    const __m256i hi_t = _mm256_broadcastsi128_si256(
        _mm_setr_epi8(0x01, 0x01, (char)0x82, 0x04, 0x08, 0x30, 0x00, 0x40,
                      0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01, 0x01));
    const __m256i nib = _mm256_set1_epi8(0x0f), zero = _mm256_setzero_si256();
    const size_t nb = (n + 31) / 32, nw = (n + 63) / 64;

    m->eq.w[nw - 1] = m->co.w[nw - 1] = m->sp.w[nw - 1] = m->vs.w[nw - 1] = 0;
    for (size_t k = 0; k < nb; k++) {
        unsigned d = 0, in_dn = ~0u, stop, eq, co, sp, vs;
        int split = 0;
        __m256i v, cl;
        if (32 * k + 32 <= n) {
            v = _mm256_loadu_si256((const __m256i *)(const void *)(s + 32 * k));
            if (cp)
                _mm256_storeu_si256((__m256i *)(void *)(cp + 32 * k), v);
        } else if (n >= 32) { /* the last 32 bytes again, reaching back d */
            v = _mm256_loadu_si256((const __m256i *)(const void *)(s + n - 32));
            d = (unsigned)(32 * k + 32 - n);
            if (cp)
                _mm256_storeu_si256((__m256i *)(void *)(cp + n - 32), v);
        } else if (n >= 16) { /* bytes 0-15, then the last 16 */
            v = _mm256_inserti128_si256(
                _mm256_castsi128_si256(
                    _mm_loadu_si128((const __m128i *)(const void *)s)),
                _mm_loadu_si128((const __m128i *)(const void *)(s + n - 16)),
                1);
            split = 1;
            if (cp) {
                _mm_storeu_si128((__m128i *)(void *)cp,
                                 _mm256_castsi256_si128(v));
                _mm_storeu_si128((__m128i *)(void *)(cp + n - 16),
                                 _mm256_extracti128_si256(v, 1));
            }
        } else { /* a DN shorter than 16 bytes, zero-padded */
            memset(small.b, 0, sizeof small.b);
            memcpy(small.b, s, n);
            v = small.v;
            in_dn = (1u << n) - 1;
            if (cp)
                _mm256_storeu_si256((__m256i *)(void *)cp, v);
        }
        cl = _mm256_and_si256(
            _mm256_shuffle_epi8(lo_t, _mm256_and_si256(v, nib)),
            _mm256_shuffle_epi8(
                hi_t, _mm256_and_si256(_mm256_srli_epi16(v, 4), nib)));
        stop =
            ~(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
                _mm256_and_si256(cl, _mm256_set1_epi8(upper ? NF_BAD : 0x7f)),
                zero)) &
            in_dn;
        if (stop) {
            unsigned bad =
                ~(unsigned)_mm256_movemask_epi8(_mm256_cmpeq_epi8(
                    _mm256_and_si256(cl, _mm256_set1_epi8(NF_BAD)), zero)) &
                in_dn;
            return bad ? -1 : 0;
        }
        eq = (unsigned)_mm256_movemask_epi8(
            _mm256_cmpeq_epi8(v, _mm256_set1_epi8('=')));
        co = (unsigned)_mm256_movemask_epi8(
            _mm256_cmpeq_epi8(v, _mm256_set1_epi8(',')));
        sp = (unsigned)_mm256_movemask_epi8(
            _mm256_cmpeq_epi8(v, _mm256_set1_epi8(' ')));
        vs = (unsigned)_mm256_movemask_epi8(cl);
        if (split) { /* byte j >= 16 is at bit j + 32 - n */
#define NF_SPLIT(x) (((x)&0xffffu) | (((x) >> (32 - n)) & ~0xffffu))
            eq = NF_SPLIT(eq);
            co = NF_SPLIT(co);
            sp = NF_SPLIT(sp);
            vs = NF_SPLIT(vs);
#undef NF_SPLIT
        }
        m->eq.d[k] = eq >> d;
        m->co.d[k] = co >> d;
        m->sp.d[k] = sp >> d;
        m->vs.d[k] = vs >> d;
    }
    if (cp) /* the copy zero-padded for 32 bytes */
        _mm256_storeu_si256((__m256i *)(void *)(cp + n), zero);
    return 1;
}

/* nf_flatten -- the positions of the set bits of m[0..nw), in order,
 * into pos; returns their count. */
static inline __attribute__((always_inline)) unsigned
nf_flatten(const uint64_t *m, size_t nw, uint32_t *pos)
{
    uint32_t *o = pos;

    for (size_t w = 0; w < nw; w++) {
        const uint32_t base = (uint32_t)(w << 6);
        for (uint64_t b = m[w]; b; b &= b - 1)
            *o++ = base + (uint32_t)__builtin_ctzll(b);
    }
    return (unsigned)(o - pos);
}

static inline __attribute__((always_inline)) int
nf_scan(const acre_schema *schema, const uint8_t *s, const size_t n,
        const struct nf_masks *m, uint32_t *nrdn, unsigned *depth_out,
        void *buf, size_t size)
{
    /* per word: the '=' and ',' (they alternate: checked) */
    uint64_t seps[NF_WORDS];
    /* their positions, in order; then n */
    uint32_t pos[NF_MAX + 1];
    const size_t nw = (n + 63) / 64;
    uint64_t bad = 0, par = 0, prev_sp = 0, prev_comma = 1, prev_eq = 0;
    unsigned depth, nseps;

    for (size_t w = 0; w < nw; w++) {
        uint64_t eq = m->eq.w[w], comma = m->co.w[w], sp = m->sp.w[w],
                 vs = m->vs.w[w], valid, p, val, start;
        size_t left = n - w * 64;
        valid = left >= 64 ? ~0ull : ~(~0ull << left);
        p = prefix_xor(eq | comma) ^ (0 - par);
        par = p >> 63;
        val = p & ~eq & valid;
        start = (comma << 1) | prev_comma; /* bytes that start an RDN */
        seps[w] = eq | comma;
        bad |= (eq & ~p) | (comma & p) |
               (val & sp & ((sp << 1) | prev_sp)) | /* two spaces */
               (start & eq) |                       /* an empty type */
               (((eq << 1) | prev_eq) & vs) |       /* value: a start */
               (((sp << 1) | prev_sp) & comma);     /* and an end */
        prev_sp = sp >> 63;
        prev_comma = comma >> 63;
        prev_eq = eq >> 63;
    }
    if (bad || !par)
        return 0;
    nseps = nf_flatten(seps, nw, pos);
    pos[nseps] = (uint32_t)n;
    depth = (nseps + 1) / 2;
    /* the RDNs: RDN r's type ends at pos[2r], the RDN at pos[2r + 1]; each
     * type is checked by its bytes (a descr in its normalised spelling:
     * acreS_dn_nf, or the long names' lookup) */
    {
        size_t t = 0, need = 0, kn = n;
        uint32_t *nr = nrdn, *pr = NULL;
        uint64_t *h = NULL, hkey = 0;
        const uint8_t *ks = s;
        uint8_t pad[8];

        if (acre_unlikely(n < 8)) { /* the type keys from a padded copy */
            memset(pad, 0, sizeof pad);
            memcpy(pad, s, n);
            ks = pad;
            kn = 8;
        }
        if (buf) {
            /* the object's layout (dn.h), known from the depth: the walk
             * writes the RDN starts and hashes in place */
            need = HDR_SIZE + 16 * ((size_t)depth + 1) + n + 1;
            need = (need + 7) & ~(size_t)7;
            if (acre_unlikely(need > size))
                return NF_UNTRIED;
            h = (uint64_t *)(void *)((char *)buf + HDR_SIZE);
            nr = (uint32_t *)(void *)&h[depth + 1];
            pr = nr + depth + 1;
            hkey = acreD_hash_key();
        }
        for (unsigned r = 0; r < depth; r++) {
            size_t e = pos[2 * r], c = pos[2 * r + 1], tlen = e - t;
            if (acre_likely(tlen <= 8)) {
                uint64_t key = rd64_in(ks, kn, t);
                key &= ~0ull >> (64 - 8 * tlen);
                if (!acreS_dn_nf(schema, key))
                    return 0; /* unknown, an alias, or not a string */
            } else {
                const struct acreD_type *ty =
                    acreS_dn_type(schema, (const char *)s + t, tlen);
                if (!ty || !ty->lower || ty->mr > ACRE_MR_CASE_EXACT_IA5 ||
                    strict_syn(acreS_profile(schema), ty) || ty->len != tlen ||
                    memcmp(ty->lname, s + t, tlen) ||
                    !(s[t] - (unsigned)'a' < 26))
                    return 0;
            }
            nr[r] = (uint32_t)t;
            if (buf)
                pr[r] = (uint32_t)t;
            t = c + 1;
        }
        nr[depth] = (uint32_t)n + 1;
        if (buf) {
            acre_dn *dn = buf;
            char *text = (char *)(pr + depth + 1);
            uint64_t hv = root_hash;
            pr[depth] = (uint32_t)n + 1;
            dn->magic = ACRED_MAGIC;
            dn->size = (uint32_t)need;
            dn->owner = 0;
            dn->depth = (uint16_t)depth;
            dn->flags = DNF_SHARED;
            dn->norm_len = dn->pretty_len = (uint32_t)n;
            dn->norm_off = dn->pretty_off = (uint32_t)(text - (char *)dn);
            dn->rdn_off = (uint32_t)((char *)nr - (char *)dn);
            memcpy(text, s, n);
            text[n] = '\0';
            /* then the hashes, chained from the root: h[i] over RDN
             * depth - i, [nr[r], nr[r + 1] - 1) */
            h[0] = hv;
            for (unsigned i = 1; i <= depth; i++) {
                const unsigned r = depth - i;
                hv = chain(
                    hv, rdn_hash_raw(s + nr[r], nr[r + 1] - 1 - nr[r], hkey));
                h[i] = hv;
            }
            acre_assert(layout_ok(dn));
        }
    }
    *depth_out = depth;
    return 1;
}

/* the machine has AVX2 and acreD_set_paths allows it */
static inline int
use_avx2(void)
{
    return paths == ACRED_PATHS_BEST && __builtin_cpu_supports("avx2");
}

/* nf_path1 -- path 1 of s[0..n) (0 < n <= NF_MAX), the masks made 16
 * bytes at a time (nf_scan's answer). */
static int
nf_path1_sse2(const acre_schema *schema, const uint8_t *s, size_t n,
              uint32_t *nrdn, unsigned *depth, void *buf, size_t size)
{
    struct nf_masks m;
    int rc;

    if (s[n - 1] == ' ' || s[n - 1] == '=')
        return 0; /* a value ending in a space, an empty last value */
    if ((rc = nf_masks_sse2(s, n, &m, 0)) <= 0)
        return rc;
    return nf_scan(schema, s, n, &m, nrdn, depth, buf, size);
}

/* ... and 32 at a time, with the AVX2 instructions. */
static NF_AVX2 int
nf_path1_avx2(const acre_schema *schema, const uint8_t *s, size_t n,
              uint32_t *nrdn, unsigned *depth, void *buf, size_t size)
{
    struct nf_masks m;
    int rc;

    if (s[n - 1] == ' ' || s[n - 1] == '=')
        return 0;
    if ((rc = nf_masks_avx2(s, n, &m, 0, NULL)) <= 0)
        return rc;
    return nf_scan(schema, s, n, &m, nrdn, depth, buf, size);
}

static int
try_normalised_simd(struct ps *ps)
{
    unsigned depth;
    int rc;

    if (ps->n == 0)
        return 0;
    rc = use_avx2() ? nf_path1_avx2(ps->schema, ps->s, ps->n, ps->nrdn, &depth,
                                    NULL, 0)
                    : nf_path1_sse2(ps->schema, ps->s, ps->n, ps->nrdn, &depth,
                                    NULL, 0);
    if (rc > 0) {
        ps->depth = depth;
        ps->fast = 1;
    }
    return rc;
}

/*
 * nf_direct -- path 1 into a caller's buffer in one pass, for
 * acre_dn_parse_buf.  Once the word checks pass, the depth (from the
 * count of '=' and ',') fixes the object's layout, so nf_scan's walk
 * writes each RDN's start in place; then come the header, the text and
 * the RDN hashes, chained from the root in one loop.  The object is byte for
 * byte what obj_fill makes of path 1 (a unit test compares them; the
 * padding after the text is not written).  Returns 1 with the object in
 * buf; 0 or -1 as try_normalised_simd (buf may then hold part of an
 * object: the caller's, as on any error); or NF_UNTRIED when the DN is
 * path 1's but does not fit (parse_all then runs as usual and reports
 * it), buf untouched.
 */
static inline __attribute__((always_inline)) int
nf_direct(const acre_schema *schema, const uint8_t *s, size_t n, void *buf,
          size_t size)
{
    unsigned depth;

    if (n == 0)
        return 0;
    return use_avx2() ? nf_path1_avx2(schema, s, n, NULL, &depth, buf, size)
                      : nf_path1_sse2(schema, s, n, NULL, &depth, buf, size);
}

/* path 2's masks (nf_masks_sse2 / nf_masks_avx2 with uppercase allowed):
 * 1, or 0 at a byte path 2 refuses */
static int
p2_masks_sse2(const uint8_t *s, size_t n, struct nf_masks *m)
{
    return nf_masks_sse2(s, n, m, 1) > 0;
}

static NF_AVX2 int
p2_masks_avx2(const uint8_t *s, size_t n, struct nf_masks *m)
{
    return nf_masks_avx2(s, n, m, 1, NULL) > 0;
}

/*
 * p2_check -- path 2's word checks of a DN of n bytes (0 < n <= NF_MAX)
 * from its masks m (uppercase allowed): the '=' and ',' alternate, no
 * space inside or after a type, no '=' after a space or ',', no value
 * opening with a space, ',' or '#' or ending in a space, no two spaces in
 * a value.  1 with, per word, the bytes that start a type (after a ',', a
 * space or the start; its bytes are checked by its lookup), the '=' and
 * the ','; else 0.
 */
static inline __attribute__((always_inline)) int
p2_check(const struct nf_masks *mk, size_t n, uint64_t *tstart, uint64_t *eqs,
         uint64_t *commas)
{
    const size_t nw = (n + 63) / 64;
    uint64_t bad = 0, par = 0, prev_sp = 0, prev_comma = 1, prev_eq = 0,
             prev_tch = 0;

    for (size_t w = 0; w < nw; w++) {
        uint64_t eq = mk->eq.w[w], comma = mk->co.w[w], sp = mk->sp.w[w],
                 vs = mk->vs.w[w], valid, p, typ, val, tsp, tch;
        size_t left = n - w * 64;
        valid = left >= 64 ? ~0ull : ~(~0ull << left);
        p = prefix_xor(eq | comma) ^ (0 - par);
        par = p >> 63;
        typ = ~p & ~comma & valid;
        val = p & ~eq & valid;
        tsp = typ & sp;
        tch = typ & ~sp;
        /* a type starts at a byte other than a space after a ',', a space
         * or the start (its bytes are checked by its lookup) */
        tstart[w] = tch & ((comma << 1) | prev_comma | (sp << 1) | prev_sp);
        eqs[w] = eq;
        commas[w] = comma;
        bad |= (eq & ~p) | (comma & p) |
               (tsp & ((tch << 1) | prev_tch)) | /* "cn =", "c n" */
               (eq & ((sp << 1) | prev_sp | (comma << 1) | prev_comma)) |
               (((eq << 1) | prev_eq) & vs) |      /* value start */
               (((sp << 1) | prev_sp) & comma) |   /* value end */
               (val & sp & ((sp << 1) | prev_sp)); /* two spaces */
        prev_sp = sp >> 63;
        prev_comma = comma >> 63;
        prev_eq = eq >> 63;
        prev_tch = tch >> 63;
    }
    return !bad && par;
}

/*
 * Path 2 for the common shape, word-parallel like path 1: ASCII DNs of up
 * to NF_MAX bytes whose RDNs are one AVA each, a known type of a string
 * syntax spelt in any case (spaces before it allowed), '=', and a value of
 * printable ASCII with no specials, escapes, quotes or '=', no space at
 * either end and no two in a row.  The masks find the RDNs; each type is
 * one probe of the schema's short-name index; each value is copied as it
 * stands to the pretty text and, case-folded 16 bytes at a time when its
 * rule ignores case, to the normalised one.  Anything else returns 0 with
 * nothing written, for parse_text.  Returns 1 when the
 * whole DN was parsed, or ACRE_ERR_NOMEM.
 */
static int
parse_plain_simd(struct ps *ps)
{
    union {
        __m128i v[NF_MAX / 16 + 1];
        uint8_t b[NF_MAX + 16];
    } in;

    /* per word: type starts; '='; ',' */
    uint64_t tstart[NF_WORDS], eqs[NF_WORDS], commas[NF_WORDS];
    struct nf_masks mk;
    const size_t n = ps->n, nw = (n + 63) / 64;
    unsigned depth = 0;

    if (n == 0 || ps->s[n - 1] == ' ' || ps->s[n - 1] == '=')
        return 0;
    if (!(use_avx2() ? p2_masks_avx2(ps->s, n, &mk)
                     : p2_masks_sse2(ps->s, n, &mk)))
        return 0;
    memcpy(in.b, ps->s, n);
    memset(in.b + n, 0, nw * 64 + 16 - n);
    if (!p2_check(&mk, n, tstart, eqs, commas))
        return 0;
    {
        struct nf_bits bt, be, bc;
        size_t e;
        nf_bits_init(&bt, tstart, nw);
        nf_bits_init(&be, eqs, nw);
        nf_bits_init(&bc, commas, nw);
        while ((e = nf_bits_next(&be, SIZE_MAX)) != SIZE_MAX) {
            const struct acreD_type *ty;
            size_t t = nf_bits_next(&bt, e), c = nf_bits_next(&bc, n), tlen,
                   vlen;
            uint8_t *o, *pp;
            tlen = e - t;
            if (t >= e)
                return 0; /* no type */
            if (tlen <= 8) {
                uint64_t key;
                memcpy(&key, in.b + t, 8);
                if (tlen < 8)
                    key &= (1ull << (8 * tlen)) - 1;
                ty = acreS_dn_fast(ps->schema, acreS_lower8(key));
            } else {
                ty = acreS_dn_type(ps->schema, (const char *)in.b + t, tlen);
                if (ty && (ty->mr > ACRE_MR_CASE_EXACT_IA5 ||
                           strict_syn(ps->profile, ty)))
                    return 0;
            }
            if (!ty)
                return 0; /* unknown, or not a string: the general path */
            vlen = c - e - 1;
            /* slack: 8-byte name stores, 16-byte value blocks */
            if (reserve(&ps->norm, ty->len + vlen + 26) ||
                reserve(&ps->pretty, ty->len + vlen + 26))
                return ACRE_ERR_NOMEM;
            ps->nrdn[depth] = (uint32_t)ps->norm.len;
            ps->prdn[depth] = (uint32_t)ps->pretty.len;
            depth++;
            o = ps->norm.p + ps->norm.len;
            pp = ps->pretty.p + ps->pretty.len;
            put_type_fast(ty, pp, o);
            o += ty->len;
            pp += ty->len;
            *o++ = *pp++ = '=';
            {
                const __m128i a1 = _mm_set1_epi8('A' - 1),
                              z1 = _mm_set1_epi8('Z' + 1);
                const __m128i bit =
                    _mm_set1_epi8(ty->mr == ACRE_MR_CASE_IGNORE ||
                                          ty->mr == ACRE_MR_CASE_IGNORE_IA5
                                      ? 0x20
                                      : 0);
                for (size_t k = 0; k < vlen; k += 16) {
                    __m128i v =
                        _mm_loadu_si128((const __m128i *)(in.b + e + 1 + k));
                    __m128i up = _mm_and_si128(_mm_cmpgt_epi8(v, a1),
                                               _mm_cmplt_epi8(v, z1));
                    _mm_storeu_si128((__m128i *)(pp + k), v);
                    _mm_storeu_si128((__m128i *)(o + k),
                                     _mm_add_epi8(v, _mm_and_si128(up, bit)));
                }
            }
            o += vlen;
            pp += vlen;
            if (c < n)
                *o++ = *pp++ = ',';
            ps->norm.len = (size_t)(o - ps->norm.p);
            ps->pretty.len = (size_t)(pp - ps->pretty.p);
        }
    }
    return path2_done(ps, depth);
}

/* room for each of path 2's texts when it goes straight into a buffer */
#define P2_TEXT_MAX 1024

/* p2_value -- path 2's value v[0..vlen) (v readable for vlen + 15 bytes)
 * to o (normalised: case-folded when fold) and pp (pretty), 16 bytes at a
 * time (up to 15 past vlen written); returns nonzero when the two
 * differ. */
static inline NF_AVX2 __attribute__((always_inline)) unsigned
p2_value(const uint8_t *v, size_t vlen, int fold, uint8_t *o, uint8_t *pp)
{
    const __m128i a1 = _mm_set1_epi8('A' - 1), z1 = _mm_set1_epi8('Z' + 1),
                  bit = _mm_set1_epi8(fold ? 0x20 : 0);
    unsigned diff = 0;

    for (size_t k = 0; k < vlen; k += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(v + k));
        __m128i up = _mm_and_si128(
            _mm_and_si128(_mm_cmpgt_epi8(x, a1), _mm_cmplt_epi8(x, z1)), bit);
        size_t left = vlen - k;
        _mm_storeu_si128((__m128i *)(void *)(pp + k), x);
        _mm_storeu_si128((__m128i *)(void *)(o + k), _mm_add_epi8(x, up));
        diff |= (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(up, bit)) &
                (unsigned)_mm_movemask_epi8(
                    _mm_cmpgt_epi8(_mm_set1_epi8((char)(left < 16 ? left : 16)),
                                   _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
                                                 10, 11, 12, 13, 14, 15)));
    }
    return fold ? diff : 0;
}

/*
 * p2_direct -- path 2 (parse_plain_simd) into a caller's buffer in one
 * pass, for acre_dn_parse_buf with AVX2, as nf_direct is for path 1: the
 * masks (and a padded copy of the DN, made as they are), then the depth
 * (the count of '='), which fixes the object's layout; the walk over the
 * RDNs writes both texts and the RDN starts to the stack; then, once the
 * object is known to fit, it is written: the starts, the texts (the pretty
 * one only when it differs), the RDN hashes made and chained.  Nothing is
 * written to buf before that (a DN declined leaves it as it was).  Both texts
 * have the same RDN starts (a type's canonical name is as long as its lowercase
 * one; a value keeps its length).  The object is byte for byte what obj_fill
 * makes of parse_plain_simd's parse (the path tests compare them).
 * Returns 1 with the object in buf, or 0 when the DN is not path 2's, or
 * does not fit (buf may then hold part of an object; parse_all decides
 * and reports).
 */
static NF_AVX2 int
p2_direct(const acre_schema *schema, const uint8_t *s, size_t n, void *buf,
          size_t size)
{
    union {
        __m256i v[NF_MAX / 32 + 2];
        uint8_t b[NF_MAX + 64];
    } in;

    /* the texts, written with 8- and 16-byte stores that reach past
     * their ends: copied into the object when done, which is left as
     * obj_fill leaves it past them */
    uint8_t norm[P2_TEXT_MAX], pretty[P2_TEXT_MAX];
    uint64_t tstart[NF_WORDS], seps[NF_WORDS], commas[NF_WORDS];
    /* the '=' and ',' in order (they alternate: p2_check), then n */
    uint32_t pos[NF_MAX + 1];
    struct nf_masks mk;
    const size_t nw = (n + 63) / 64;
    unsigned depth, diff = 0, nseps;
    uint8_t *text, *o = norm, *pp = pretty;
    uint64_t *h, hkey, hv;
    uint32_t *nr, *pr, rs[NF_MAX / 2 + 1]; /* the RDN starts */
    acre_dn *dn = buf;
    size_t need, nlen, t = 0;

    if (nf_masks_avx2(s, n, &mk, 1, in.b) <= 0 ||
        !p2_check(&mk, n, tstart, seps, commas))
        return 0;
    for (size_t w = 0; w < nw; w++)
        seps[w] |= commas[w];
    nseps = nf_flatten(seps, nw, pos);
    pos[nseps] = (uint32_t)n;
    depth = (nseps + 1) / 2;
    h = (uint64_t *)(void *)((char *)buf + HDR_SIZE);
    nr = (uint32_t *)(void *)&h[depth + 1];
    pr = nr + depth + 1;
    text = (uint8_t *)(pr + depth + 1);
    if ((size_t)(text - (uint8_t *)buf) >= size)
        return 0;
    hkey = acreD_hash_key();
    hv = root_hash; /* set with the key (key_init): read after it */
    for (unsigned r = 0; r < depth; r++) {
        const struct acreD_type *ty;
        size_t e = pos[2 * r], c = pos[2 * r + 1], tlen, vlen;
        while (in.b[t] == ' ') /* the type starts after any spaces */
            t++;
        tlen = e - t;
        if (t >= e)
            return 0; /* no type */
        if (tlen <= 8) {
            uint64_t key;
            memcpy(&key, in.b + t, 8);
            key &= ~0ull >> (64 - 8 * tlen);
            ty = acreS_dn_fast(schema, acreS_lower8(key));
        } else {
            ty = acreS_dn_type(schema, (const char *)in.b + t, tlen);
            if (ty && (ty->mr > ACRE_MR_CASE_EXACT_IA5 ||
                       strict_syn(acreS_profile(schema), ty)))
                return 0;
        }
        if (!ty)
            return 0; /* unknown, or not a string: the general path */
        vlen = c - e - 1;
        /* slack: 8-byte name stores, 16-byte value blocks */
        if ((size_t)(norm + sizeof norm - o) < (size_t)ty->len + vlen + 26)
            return 0; /* (the pretty text is as long) */
        rs[r] = (uint32_t)(o - norm);
        put_type_fast(ty, pp, o);
        diff |= !ty->lower;
        o += ty->len;
        pp += ty->len;
        *o++ = *pp++ = '=';
        diff |= p2_value(in.b + e + 1, vlen,
                         ty->mr == ACRE_MR_CASE_IGNORE ||
                             ty->mr == ACRE_MR_CASE_IGNORE_IA5,
                         o, pp);
        o += vlen;
        pp += vlen;
        if (c < n)
            *o++ = *pp++ = ',';
        t = c + 1;
    }
    nlen = (size_t)(o - norm);
    if (nlen > ACRE_DN_MAX_LEN)
        return 0;
    need = (size_t)(text - (uint8_t *)buf) + nlen + 1 + (diff ? nlen + 1 : 0);
    need = (need + 7) & ~(size_t)7;
    if (need > size)
        return 0;
    memcpy(text, norm, nlen);
    text[nlen] = '\0';
    rs[depth] = (uint32_t)nlen + 1;
    for (unsigned r = 0; r <= depth; r++)
        nr[r] = pr[r] = rs[r];
    dn->magic = ACRED_MAGIC;
    dn->size = (uint32_t)need;
    dn->owner = 0;
    dn->depth = (uint16_t)depth;
    dn->flags = diff ? 0 : DNF_SHARED;
    dn->norm_len = dn->pretty_len = (uint32_t)nlen;
    dn->norm_off = (uint32_t)(text - (uint8_t *)dn);
    dn->pretty_off = dn->norm_off + (diff ? (uint32_t)nlen + 1 : 0);
    dn->rdn_off = (uint32_t)((char *)nr - (char *)dn);
    if (diff) {
        memcpy(text + nlen + 1, pretty, nlen);
        text[2 * nlen + 1] = '\0';
    }
    /* the RDN hashes, chained from the root; read back only now, when the
     * stores that wrote the text are done (a load spanning stores still
     * in flight waits for them) */
    h[0] = hv;
    for (unsigned i = 1; i <= depth; i++) {
        const unsigned r = depth - i;
        hv = chain(hv, rdn_hash_raw(norm + rs[r], rs[r + 1] - 1 - rs[r], hkey));
        h[i] = hv;
    }
    acre_assert(layout_ok(dn));
    return 1;
}
#endif

/* The whole parse; nf: what nf_direct found, or NF_UNTRIED. */
static int
parse_all(struct ps *ps, int nf)
{
    if (acre_unlikely(!__atomic_load_n(&cls_ready, __ATOMIC_ACQUIRE)))
        pthread_once(&cls_once, cls_init);
    if (ps->n > ACRE_DN_MAX_LEN)
        return fail(ps, ACRE_ERR_DN_TOO_LONG, ACRE_DN_MAX_LEN,
                    "DN longer than ACRE_DN_MAX_LEN");
    if (acre_unlikely(paths == ACRED_PATHS_GENERAL))
        return parse_text(ps);
#if defined(__SSE2__)
    if (acre_likely(paths == ACRED_PATHS_BEST || paths == ACRED_PATHS_SSE2) &&
        ps->n <= NF_MAX) {
        int rc = nf == NF_UNTRIED ? try_normalised_simd(ps) : nf;
        if (rc > 0)
            return 0;
        /* rc < 0: a byte that path 2 refuses too (a special, a control,
         * non-ASCII) */
        if (rc == 0 && (rc = parse_plain_simd(ps)))
            return rc < 0 ? rc : 0;
        ps->norm.len = ps->pretty.len = 0;
    } else
#endif
        if (try_normalised(ps))
        return 0;
    return parse_text(ps);
}

/* ------------------------------------------------------------------------
 * The object
 */
static const uint8_t *
ps_norm(const struct ps *ps, size_t *len)
{
    *len = ps->fast ? ps->n : ps->norm.len;
    return ps->fast ? ps->s : ps->norm.p;
}

static int
ps_shared(const struct ps *ps)
{
    return ps->fast || (ps->norm.len == ps->pretty.len &&
                        memcmp(ps->norm.p, ps->pretty.p, ps->norm.len) == 0);
}

/* The object's size; *shared: the pretty text is the normalised one. */
static size_t
obj_size(const struct ps *ps, int *shared)
{
    size_t nlen, size;

    ps_norm(ps, &nlen);
    *shared = ps_shared(ps);
    size = HDR_SIZE + 8 * (ps->depth + 1) + 8 * (ps->depth + 1) + nlen + 1;
    if (!*shared)
        size += ps->pretty.len + 1;
    return (size + 7) & ~(size_t)7;
}

/* Invariant: the block is laid out as doc/internals.md draws it (dn.h):
 * offsets inside it, RDN starts rising from 0 to norm_len + 1 (and
 * pretty_len + 1; the empty DN has only that end, 1), NUL-terminated
 * texts. */
static int
layout_ok(const acre_dn *dn)
{
    const uint32_t *nr = acreD_nrdn(dn), *pr = acreD_prdn(dn);

    if (dn->magic != ACRED_MAGIC || dn->size % 8 ||
        dn->rdn_off != HDR_SIZE + 8 * ((size_t)dn->depth + 1) ||
        (size_t)dn->norm_off + dn->norm_len >= dn->size ||
        (size_t)dn->pretty_off + dn->pretty_len >= dn->size ||
        acreD_norm(dn)[dn->norm_len] || acreD_pretty(dn)[dn->pretty_len] ||
        (dn->depth && (nr[0] || pr[0])) || nr[dn->depth] != dn->norm_len + 1 ||
        pr[dn->depth] != dn->pretty_len + 1)
        return 0;
    for (unsigned k = 0; k < dn->depth; k++)
        if (nr[k + 1] <= nr[k] || pr[k + 1] <= pr[k])
            return 0;
    return 1;
}

/* Lay the object out (dn.h); shared: from obj_size. */
static void
obj_fill(const struct ps *ps, acre_dn *dn, size_t size, int shared)
{
    size_t nlen;
    const uint8_t *norm = ps_norm(ps, &nlen);
    uint64_t *h = (uint64_t *)(void *)(dn + 1);
    const unsigned d = ps->depth;
    uint32_t *rdn = (uint32_t *)&h[d + 1];
    char *text = (char *)(rdn + 2 * (d + 1));
    const uint32_t *nr = ps->nrdn, *pr = shared ? ps->nrdn : ps->prdn;
    const uint64_t key = acreD_hash_key();
    uint64_t hv = root_hash;

    memset(dn, 0, HDR_SIZE);
    dn->magic = ACRED_MAGIC;
    dn->size = (uint32_t)size;
    dn->depth = (uint16_t)d;
    dn->norm_len = (uint32_t)nlen;
    dn->rdn_off = (uint32_t)((char *)rdn - (char *)dn);
    dn->norm_off = (uint32_t)(text - (char *)dn);
    memcpy(text, norm, nlen);
    text[nlen] = '\0';
    if (shared) {
        dn->flags = DNF_SHARED;
        dn->pretty_off = dn->norm_off;
        dn->pretty_len = dn->norm_len;
    } else {
        dn->pretty_off = dn->norm_off + (uint32_t)nlen + 1;
        dn->pretty_len = (uint32_t)ps->pretty.len;
        memcpy(text + nlen + 1, ps->pretty.p, ps->pretty.len);
        text[nlen + 1 + ps->pretty.len] = '\0';
    }
    memcpy(rdn, nr, 4 * (d + 1));
    memcpy(rdn + d + 1, pr, 4 * (d + 1));
    h[0] = hv;
    for (unsigned i = 1; i <= d; i++) {
        unsigned r = d - i;
        hv = chain(hv, rdn_hash(norm + nr[r], nr[r + 1] - 1 - nr[r], key));
        h[i] = hv;
    }
    acre_assert(layout_ok(dn));
}

static int
check_args(const char *str, unsigned flags, acre_dn **out, acre_diag *diag)
{
    if (!str || !out || (flags & ~(ACRE_DN_STRICT | ACRE_DN_SLAPD)))
        return acreE_diag_set(diag, ACRE_ERR_INVAL, 0, "invalid argument");
    return 0;
}

/* acreS_freeze(NULL), once made: the built-in schema lives as long as
 * the process, so a NULL schema costs one load */
static const acre_schema *builtin_schema;

/* The schema DNs are read with: s frozen on first use, or the built-in. */
static inline int
use_schema(const acre_schema **s, acre_diag *diag)
{
    if (*s == NULL) {
        const acre_schema *b =
            __atomic_load_n(&builtin_schema, __ATOMIC_ACQUIRE);
        if (acre_likely(b != NULL)) {
            *s = b;
            return 0;
        }
        if ((*s = acreS_freeze(NULL)) == NULL)
            return acreE_diag_set(diag, ACRE_ERR_NOMEM, 0,
                                  "cannot build the built-in schema");
        __atomic_store_n(&builtin_schema, *s, __ATOMIC_RELEASE);
        return 0;
    }
    if (acreS_check(*s))
        return acreE_diag_set(diag, ACRE_ERR_BADOBJ, 0, "not a schema");
    *s = acreS_freeze(*s);
    if (!*s)
        return acreE_diag_set(diag, ACRE_ERR_NOMEM, 0,
                              "cannot build the built-in schema");
    return 0;
}

int
acreD_value_unescape(const char *v, size_t n, int hex, struct acreE_buf *out)
{
    const uint8_t *s = (const uint8_t *)v;

    pthread_once(&cls_once, cls_init);
    if (reserve(out, n))
        return ACRE_ERR_NOMEM;
    if (hex && n && s[0] == '#') {
        for (size_t k = 1; k + 1 < n; k += 2)
            out->p[out->len++] =
                (uint8_t)(acreE_hexval(s[k]) << 4 | acreE_hexval(s[k + 1]));
        return 0;
    }
    for (size_t k = 0; k < n; k++) {
        uint8_t c = s[k];
        if (c == '\\' && k + 2 < n && (cls[s[k + 1]] & CL_HEX) &&
            (cls[s[k + 2]] & CL_HEX)) {
            c = (uint8_t)(acreE_hexval(s[k + 1]) << 4 | acreE_hexval(s[k + 2]));
            k += 2;
        } else if (c == '\\' && k + 1 < n) {
            c = s[++k];
        }
        out->p[out->len++] = c;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Public API
 */
/*
 * slapd_refused -- ACRE_DN_SLAPD: does slapd's dnNormalize refuse dn,
 * which acre's parser took?  An RDN naming one type twice (RFC 4512;
 * slapd's AVA_Sort) or a value in #-BER form ("not supported"), read on
 * the pretty RDNs, where types are canonical and '+', '=' and a string
 * value's leading '#' are escaped.  0, or the error (diag set).
 */
static int
slapd_refused(const acre_dn *dn, acre_diag *diag)
{
    for (unsigned i = 0; i < dn->depth; i++) {
        const char *r, *type[ACRE_DN_MAX_AVAS];
        size_t n, tlen[ACRE_DN_MAX_AVAS], start = 0;
        unsigned k = 0;
        if (acre_dn_rdn(dn, i, NULL, NULL, &r, &n))
            continue;
        for (size_t j = 0; j <= n; j++) {
            if (j < n && r[j] == '\\') {
                j++;
                continue;
            }
            if (j < n && r[j] != '+')
                continue;
            const char *eq = memchr(r + start, '=', j - start);
            if (eq && eq[1] == '#')
                return acreE_diag_set(diag, ACRE_ERR_DN_BER, 0,
                                      "a #-BER value, which slapd does not "
                                      "take (invalidDNSyntax)");
            type[k] = r + start;
            tlen[k] = eq ? (size_t)(eq - type[k]) : j - start;
            for (unsigned m = 0; m < k; m++)
                if (tlen[m] == tlen[k] &&
                    !strncasecmp(type[m], type[k], tlen[k]))
                    return acreE_diag_set(diag, ACRE_ERR_DN_DUP_AVA, 0,
                                          "an RDN naming one type twice, "
                                          "which slapd refuses "
                                          "(invalidDNSyntax)");
            if (k < ACRE_DN_MAX_AVAS - 1)
                k++;
            start = j + 1;
        }
    }
    return 0;
}

int
acreD_path1(const char *s, size_t n)
{
#if defined(__SSE2__)
    static union {
        uint64_t align;
        unsigned char b[ACRE_DN_BUF_MAX];
    } out;

    const acre_schema *schema = NULL;

    if (use_schema(&schema, NULL) || n > NF_MAX)
        return 0;
    return nf_direct(schema, (const uint8_t *)s, n, out.b, sizeof out.b) > 0;
#else
    (void)s;
    (void)n;
    return -1;
#endif
}

/* acre_dn_parse_buf past path 1 in one pass (nf: nf_direct's answer),
 * apart so that the parser state stays out of the fast path's frame. */
static __attribute__((noinline)) int
parse_buf_general(void *buf, size_t size, const acre_schema *schema,
                  const char *str, size_t len, unsigned flags, acre_dn **out,
                  acre_diag *diag, int nf)
{
    struct ps ps;
    size_t need;
    int rc, shared;

    ps_init(&ps, schema, str, len, flags, 0, diag);
    rc = parse_all(&ps, nf);
    if (!rc) {
        need = obj_size(&ps, &shared);
        if (need > size) {
            rc = acreE_diag_set(diag, ACRE_ERR_NOSPACE, 0,
                                "DN needs %zu bytes, buffer has %zu", need,
                                size);
        } else {
            obj_fill(&ps, buf, need, shared);
            if ((flags & ACRE_DN_SLAPD) &&
                (rc = slapd_refused((const acre_dn *)buf, diag)))
                ; /* the buffer is the caller's */
            else
                *out = buf;
        }
    }
    ps_free(&ps);
    return rc;
}

/* acre_dn_parse_buf in full: every argument checked, then path 1 into
 * buf (nf_direct) and, when that declines, parse_buf_general. */
static __attribute__((noinline)) int
parse_buf_checked(void *buf, size_t size, const acre_schema *schema,
                  const char *str, size_t len, unsigned flags, acre_dn **out,
                  acre_diag *diag)
{
    int rc, nf = NF_UNTRIED;

    if ((rc = check_args(str, flags, out, diag)) ||
        (rc = use_schema(&schema, diag)))
        return rc;
    if (!buf || ((uintptr_t)buf & 7))
        return acreE_diag_set(diag, ACRE_ERR_INVAL, 0, "buffer not aligned");
#if defined(__SSE2__)
    if (acre_likely((paths == ACRED_PATHS_BEST || paths == ACRED_PATHS_SSE2) &&
                    hash_hook == NULL) &&
        len <= NF_MAX) {
        nf = nf_direct(schema, (const uint8_t *)str, len, buf, size);
        if (nf > 0) {
            if ((flags & ACRE_DN_SLAPD) &&
                (rc = slapd_refused((const acre_dn *)buf, diag)))
                return rc; /* the buffer is the caller's */
            *out = buf;
            return 0;
        }
    }
#endif
    return parse_buf_general(buf, size, schema, str, len, flags, out, diag, nf);
}

#if defined(__SSE2__)
/* acre_dn_parse_buf's common call (below), in one frame: path 1 into buf,
 * else parse_buf_general. */
static NF_AVX2 int
parse_buf_avx2(void *buf, size_t size, const acre_schema *schema,
               const char *str, size_t len, unsigned flags, acre_dn **out,
               acre_diag *diag)
{
    const uint8_t *s = (const uint8_t *)str;
    struct nf_masks m;
    unsigned depth;
    int nf = 0;

    if (s[len - 1] != ' ' && s[len - 1] != '=' &&
        ((nf = nf_masks_avx2(s, len, &m, 0, NULL)) > 0
             ? (nf = nf_scan(schema, s, len, &m, NULL, &depth, buf, size)) > 0
             : nf == 0 && p2_direct(schema, s, len, buf, size))) {
        *out = buf;
        return 0;
    }
    return parse_buf_general(buf, size, schema, str, len, flags, out, diag, nf);
}
#endif

/*
 * The common call first, with no frame of its own: the built-in schema,
 * sound arguments, a DN of 1..NF_MAX bytes, AVX2 and no test hooks go
 * straight to path 1 (nf_path1_avx2); what it declines, and every other
 * call, takes parse_buf_checked (which tries path 1 again only when it was
 * not tried: nf_direct's answers are the same).
 */
ACRE_PUBLIC int
acre_dn_parse_buf(void *buf, size_t size, const acre_schema *schema,
                  const char *str, size_t len, unsigned flags, acre_dn **out,
                  acre_diag *diag)
{
#if defined(__SSE2__)
    const acre_schema *b = __atomic_load_n(&builtin_schema, __ATOMIC_ACQUIRE);

    if (acre_likely(schema == NULL && b != NULL && str && out && buf &&
                    !((uintptr_t)buf & 7) && !(flags & ~ACRE_DN_STRICT) &&
                    len - 1 < NF_MAX && paths == ACRED_PATHS_BEST &&
                    hash_hook == NULL) &&
        __builtin_cpu_supports("avx2")) {
        return parse_buf_avx2(buf, size, b, str, len, flags, out, diag);
    }
#endif
    return parse_buf_checked(buf, size, schema, str, len, flags, out, diag);
}

ACRE_PUBLIC int
acre_dn_parse(void *mem_ctx, const acre_schema *schema, const char *str,
              size_t len, unsigned flags, acre_dn **out, acre_diag *diag)
{
    struct ps ps;
    acre_dn *dn;
    size_t need;
    int rc, shared;

    if ((rc = check_args(str, flags, out, diag)) ||
        (rc = use_schema(&schema, diag)))
        return rc;
    ps_init(&ps, schema, str, len, flags, 0, diag);
    rc = parse_all(&ps, NF_UNTRIED);
    if (!rc) {
        need = obj_size(&ps, &shared);
        dn = talloc_named_const(mem_ctx, need, "acre_dn");
        if (!dn) {
            rc = acreE_diag_set(diag, ACRE_ERR_NOMEM, 0, "out of memory");
        } else {
            obj_fill(&ps, dn, need, shared);
            dn->owner = (uint64_t)(uintptr_t)dn;
            if ((flags & ACRE_DN_SLAPD) && (rc = slapd_refused(dn, diag)))
                talloc_free(dn);
            else
                *out = dn;
        }
    }
    ps_free(&ps);
    return rc;
}

ACRE_PUBLIC int
acre_dn_copy(void *mem_ctx, const acre_dn *dn, acre_dn **out)
{
    acre_dn *c;

    int rc = acreE_handle(dn, ACRED_MAGIC);

    if (rc || !out)
        return rc ? rc : ACRE_ERR_INVAL;
    c = talloc_named_const(mem_ctx, dn->size, "acre_dn");
    if (!c)
        return ACRE_ERR_NOMEM;
    memcpy(c, dn, dn->size);
    c->owner = (uint64_t)(uintptr_t)c;
    *out = c;
    return 0;
}

ACRE_PUBLIC void
acre_dn_free(acre_dn *dn)
{
    if (acreE_is(dn, ACRED_MAGIC) && dn->owner == (uintptr_t)dn) {
        dn->magic = 0;
        talloc_free(dn);
    }
}

/* ok -- dn is an acre_dn (internal.h: Handles). */
static inline int
ok(const acre_dn *dn)
{
    return acreE_is(dn, ACRED_MAGIC);
}

ACRE_PUBLIC size_t
acre_dn_size(const acre_dn *dn)
{
    return ok(dn) ? dn->size : 0;
}

/* The accessors take NULL, or what is not a DN, and give the neutral
 * answer (see acre.h). */

ACRE_PUBLIC const char *
acre_dn_normalised(const acre_dn *dn, size_t *len)
{
    if (len)
        *len = ok(dn) ? dn->norm_len : 0;
    return ok(dn) ? acreD_norm(dn) : NULL;
}

ACRE_PUBLIC const char *
acre_dn_pretty(const acre_dn *dn, size_t *len)
{
    if (len)
        *len = ok(dn) ? dn->pretty_len : 0;
    return ok(dn) ? acreD_pretty(dn) : NULL;
}

ACRE_PUBLIC unsigned
acre_dn_depth(const acre_dn *dn)
{
    return ok(dn) ? dn->depth : 0;
}

ACRE_PUBLIC uint64_t
acre_dn_ancestor_hash(const acre_dn *dn, unsigned i)
{
    return ok(dn) && i <= dn->depth ? acreD_h(dn)[i] : 0;
}

ACRE_PUBLIC int
acre_dn_rdn(const acre_dn *dn, unsigned i, const char **norm, size_t *norm_len,
            const char **pretty, size_t *pretty_len)
{
    int rc = acreE_handle(dn, ACRED_MAGIC);

    if (rc || i >= dn->depth)
        return rc ? rc : ACRE_ERR_INVAL;

    const uint32_t *nr = acreD_nrdn(dn), *pr = acreD_prdn(dn);
    if (norm)
        *norm = acreD_norm(dn) + nr[i];
    if (norm_len)
        *norm_len = nr[i + 1] - 1 - nr[i];
    if (pretty)
        *pretty = acreD_pretty(dn) + pr[i];
    if (pretty_len)
        *pretty_len = pr[i + 1] - 1 - pr[i];
    return 0;
}

ACRE_PUBLIC const char *
acre_dn_ancestor(const acre_dn *dn, unsigned i, size_t *len)
{
    size_t off;

    if (!ok(dn) || i > dn->depth) {
        if (len)
            *len = 0;
        return NULL;
    }
    off = i == 0 ? dn->norm_len : acreD_nrdn(dn)[dn->depth - i];
    if (len)
        *len = dn->norm_len - off;
    return acreD_norm(dn) + off;
}

ACRE_PUBLIC int
acre_dn_equal(const acre_dn *a, const acre_dn *b)
{
    return ok(a) && ok(b) && a->depth == b->depth &&
           acreD_h(a)[a->depth] == acreD_h(b)[b->depth] &&
           a->norm_len == b->norm_len &&
           memcmp(acreD_norm(a), acreD_norm(b), a->norm_len) == 0;
}

ACRE_PUBLIC int
acre_dn_in_scope(const acre_dn *entry, const acre_dn *base, int scope)
{
    unsigned de, db;
    size_t off;

    int rc = acreE_handle(entry, ACRED_MAGIC);

    if (rc || (rc = acreE_handle(base, ACRED_MAGIC)))
        return rc;
    de = entry->depth;
    db = base->depth;
    switch (scope) {
    case ACRE_SCOPE_BASE:
        if (de != db)
            return 0;
        break;
    case ACRE_SCOPE_ONE:
        if (de != db + 1)
            return 0;
        break;
    case ACRE_SCOPE_SUB:
        if (de < db)
            return 0;
        break;
    case ACRE_SCOPE_CHILDREN:
        if (de <= db)
            return 0;
        break;
    default:
        return ACRE_ERR_INVAL;
    }
    if (acreD_h(entry)[db] != acreD_h(base)[db])
        return 0;
    if (db == 0)
        return 1;
    off = acreD_nrdn(entry)[de - db];
    return entry->norm_len - off == base->norm_len &&
           memcmp(acreD_norm(entry) + off, acreD_norm(base), base->norm_len) ==
               0;
}
