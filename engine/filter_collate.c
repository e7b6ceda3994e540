/*
 * filter_collate.c -- 389-DS's collation matching rules in extensible
 * filter items (its collation plugin: language-sensitive ordering,
 * equality and substrings by ICU collation keys), for the filters 389
 * answers (filter.h: ACREF_389_* flags).
 *
 * Rules (collate_389.h, the profiles of 389's slapd-collations.conf): a
 * profile is named by its OID or one of its language tags ("fr",
 * "fr-FR", "default").  The item's operator, as 389's or_filter_create
 * takes it:
 *   - the rule names a profile and the value has more than one byte: the
 *     value's first byte chooses ('<' less, "<=" less or equal, '>'
 *     greater, ">=" greater or equal, '*' substrings, anything else
 *     equality), and the value is matched whole, that byte included
 *     ("(uid:fr:=>=A)" compares values with ">=A");
 *   - else the rule is a profile's OID followed by ".1" to ".6" (less,
 *     less or equal, equal, greater or equal, greater, substrings) and
 *     the value is matched as given;
 *   - else 389 has no such filter and the item is Undefined.
 * A value's key is ICU's sort key (the profile's locale, strength and
 * decomposition) of the value without leading and trailing white space;
 * an empty or invalid value has none.  Ordering and equality compare keys
 * as byte strings; substrings split the value at each '*' (then undo
 * "\2a" and "\5c" in each part) and find each part's key in the value by
 * the keys of its prefixes, as 389's ss_match does, including its
 * quirks: an initial part that fails on the first value ends the test
 * of that attribute.
 *
 * The collator is opened when the filter is parsed and closed with it;
 * matching only reads it (ICU collators are thread-safe for that).
 */
#include "filter_impl.h"

#include "collate_389.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>
#include <unicode/ucol.h>
#include <unicode/ustring.h>

enum { OP_LT = 1, OP_LE, OP_EQ, OP_GE, OP_GT, OP_SUB };

#define MAX_COMBINING 3 /* 389's MAX_CHAR_COMBINING */

struct acreF_coll {
    UCollator *coll;
    int op;
    /* OP_SUB: the parts' keys (len 0: an empty part; NULL parts: the
     * pattern is "*", presence); else keys[0], or none */
    uint8_t **key;
    size_t *key_len;
    unsigned nkeys;
};

/* The profile named exactly (without case) s[0..n), or NULL. */
static const struct coll389 *
profile_of(const char *s, size_t n)
{
    for (size_t i = 0; i < sizeof coll389 / sizeof coll389[0]; i++)
        for (const char *id = coll389[i].ids; *id; id += strlen(id) + 1)
            if (strlen(id) == n && !strncasecmp(id, s, n))
                return &coll389[i];
    return NULL;
}

static int
destroy(struct acreF_coll *c)
{
    if (c->coll)
        ucol_close(c->coll);
    return 0;
}

static UCollator *
open_profile(const struct coll389 *p)
{
    char locale[64];
    UErrorCode err = U_ZERO_ERROR;
    UColAttributeValue strength, decomposition;

    if (*p->lang)
        snprintf(locale, sizeof locale, "%s%s%s%s%s", p->lang,
                 *p->country ? "_" : "", p->country, *p->variant ? "_" : "",
                 p->variant);
    UCollator *c = ucol_open(*p->lang ? locale : NULL, &err);
    if (U_FAILURE(err))
        return NULL;
    /* collate.c's reading of the codes, its fall-throughs included */
    strength = p->strength == 1   ? UCOL_PRIMARY
               : p->strength == 2 ? UCOL_TERTIARY
               : p->strength == 3 ? UCOL_TERTIARY
               : p->strength == 4 ? UCOL_IDENTICAL
                                  : UCOL_SECONDARY;
    decomposition = p->decomposition == 1   ? UCOL_OFF
                    : p->decomposition == 2 ? UCOL_ON
                    : p->decomposition == 3 ? UCOL_ON
                                            : UCOL_DEFAULT;
    err = U_ZERO_ERROR;
    ucol_setAttribute(c, UCOL_STRENGTH, strength, &err);
    err = U_ZERO_ERROR;
    ucol_setAttribute(c, UCOL_NORMALIZATION_MODE, decomposition, &err);
    return c;
}

static int
white(uint8_t b)
{
    return b == ' ' || (b >= '\t' && b <= '\r');
}

/*
 * The sort key of v[0..n) without its leading and trailing white space
 * into a buffer of the caller's (*out, *cap; grown with realloc when
 * *heap, else replaced by a malloc'd one): its length, 0 when there is
 * none (empty, invalid UTF-8), or -1 when memory ran out.
 */
static long
key_of(const UCollator *c, const uint8_t *v, size_t n, uint8_t **out,
       size_t *cap, int *heap)
{
    UChar local[128], *u = local;
    int32_t ulen = 0;
    UErrorCode err = U_ZERO_ERROR;
    long klen;

    while (n && white(v[0]))
        v++, n--;
    while (n && (white(v[n - 1]) || !v[n - 1]))
        n--;
    if (!n || n > INT32_MAX / 2)
        return 0;
    u_strFromUTF8(u, 128, &ulen, (const char *)v, (int32_t)n, &err);
    if (err == U_BUFFER_OVERFLOW_ERROR) {
        if (!(u = malloc(sizeof(UChar) * (size_t)ulen)))
            return -1;
        err = U_ZERO_ERROR;
        u_strFromUTF8(u, ulen, NULL, (const char *)v, (int32_t)n, &err);
    }
    if (U_FAILURE(err)) {
        if (u != local)
            free(u);
        return 0;
    }
    klen = ucol_getSortKey(c, u, ulen, *out, (int32_t)*cap);
    if (klen > (long)*cap) {
        uint8_t *b = *heap ? realloc(*out, (size_t)klen) : malloc((size_t)klen);
        if (!b) {
            klen = -1;
        } else {
            *out = b;
            *cap = (size_t)klen;
            *heap = 1;
            klen = ucol_getSortKey(c, u, ulen, *out, (int32_t)*cap);
        }
    }
    if (u != local)
        free(u);
    return klen;
}

/* A key of v[0..n) kept under c: its bytes and length (0 for none). */
static int
keep_key(struct acreF_coll *c, const uint8_t *v, size_t n, unsigned i)
{
    uint8_t local[128], *b = local;
    size_t cap = sizeof local;
    int heap = 0;
    long k = key_of(c->coll, v, n, &b, &cap, &heap);

    if (k < 0)
        return ACRE_ERR_NOMEM;
    c->key[i] = k ? talloc_memdup(c, b, (size_t)k) : NULL;
    c->key_len[i] = k ? (size_t)k : 0;
    if (heap)
        free(b);
    return k && !c->key[i] ? ACRE_ERR_NOMEM : 0;
}

/* 389's ss_unescape: "\2a" is '*', "\5c" is '\', in place; the new
 * length. */
static size_t
unescape(uint8_t *s, size_t n)
{
    size_t i = 0, o = 0;

    while (i < n) {
        if (n - i >= 3 && s[i] == '\\' &&
            ((s[i + 1] == '2' && (s[i + 2] | 32) == 'a') ||
             (s[i + 1] == '5' && (s[i + 2] | 32) == 'c'))) {
            s[o++] = s[i + 1] == '2' ? '*' : '\\';
            i += 3;
        } else {
            s[o++] = s[i++];
        }
    }
    return o;
}

/* The substring parts of pattern v[0..n), split at each run of '*'. */
static int
sub_keys(struct acreF_coll *c, const uint8_t *v, size_t n)
{
    unsigned parts = 1;

    for (size_t i = 0; i < n; i++)
        if (v[i] == '*') {
            parts++;
            while (i + 1 < n && v[i + 1] == '*')
                i++;
        }
    if (parts == 1) { /* no wildcard: equality */
        uint8_t *t = talloc_memdup(c, n ? v : (const uint8_t *)"", n + 1);
        if (!t)
            return ACRE_ERR_NOMEM;
        c->op = OP_EQ;
        c->key = talloc_array(c, uint8_t *, 1);
        c->key_len = talloc_array(c, size_t, 1);
        c->nkeys = 1;
        if (!c->key || !c->key_len)
            return ACRE_ERR_NOMEM;
        int rc = keep_key(c, t, unescape(t, n), 0);
        if (!rc && !c->key[0])
            c->nkeys = 0; /* no key: nothing matches */
        return rc;
    }
    if (parts == 2 && n <= 1)
        return 0; /* "*": presence (no keys) */
    c->key = talloc_array(c, uint8_t *, parts);
    c->key_len = talloc_array(c, size_t, parts);
    if (!c->key || !c->key_len)
        return ACRE_ERR_NOMEM;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && v[i] != '*')
            continue;
        size_t len = i - start;
        uint8_t *t =
            talloc_memdup(c, len ? v + start : (const uint8_t *)"", len + 1);
        int rc;
        if (!t)
            return ACRE_ERR_NOMEM;
        if ((rc = keep_key(c, t, unescape(t, len), c->nkeys++)))
            return rc;
        while (i + 1 < n && v[i + 1] == '*')
            i++;
        start = i + 1;
        if (i + 1 == n && v[i] == '*') { /* a trailing run: an empty final */
            c->key[c->nkeys] = NULL;
            c->key_len[c->nkeys++] = 0;
            break;
        }
    }
    return 0;
}

/* acreF_coll_prepare -- see filter_impl.h. */
int
acreF_coll_prepare(void *ctx, const char *rule, size_t rule_len,
                   const uint8_t *v, size_t n, struct acreF_coll **out)
{
    const struct coll389 *p = profile_of(rule, rule_len);
    int op = OP_EQ;

    *out = NULL;
    if (p && n > 1) {
        op = v[0] == '<'   ? (v[1] == '=' ? OP_LE : OP_LT)
             : v[0] == '>' ? (v[1] == '=' ? OP_GE : OP_GT)
             : v[0] == '*' ? OP_SUB
                           : OP_EQ;
        while (n && v[0] == ' ')
            v++, n--;
    } else if (rule_len > 2 && rule[rule_len - 2] == '.' &&
               rule[rule_len - 1] >= '1' && rule[rule_len - 1] <= '6') {
        op = rule[rule_len - 1] - '0';
        p = profile_of(rule, rule_len - 2);
    } else {
        p = NULL;
    }
    if (!p)
        return 0;
    struct acreF_coll *c = talloc_zero(ctx, struct acreF_coll);
    if (!c)
        return ACRE_ERR_NOMEM;
    talloc_set_destructor(c, destroy);
    if (!(c->coll = open_profile(p))) {
        talloc_free(c);
        return 0;
    }
    c->op = op;
    int rc;
    if (op == OP_SUB) {
        rc = sub_keys(c, v, n);
    } else {
        c->key = talloc_array(c, uint8_t *, 1);
        c->key_len = talloc_array(c, size_t, 1);
        c->nkeys = 1;
        rc = !c->key || !c->key_len ? ACRE_ERR_NOMEM : keep_key(c, v, n, 0);
        if (!rc && !c->key[0])
            c->nkeys = 0; /* no key: nothing matches */
    }
    if (rc) {
        talloc_free(c);
        return rc;
    }
    *out = c;
    return 0;
}

/* ------------------------------------------------------------------------
 * Matching
 */

struct kb {
    uint8_t local[256], *b;
    size_t cap;
    int heap;
};

static long
kb_key(const struct acreF_coll *c, struct kb *k, const uint8_t *v, size_t n)
{
    return key_of(c->coll, v, n, &k->b, &k->cap, &k->heap);
}

/* LDAP_UTF8LEN: the bytes of the character at v[0] (a lead byte and the
 * continuation bytes after it), at most n. */
static size_t
char_len(const uint8_t *v, size_t n)
{
    size_t k = 1;

    if (v[0] & 0x80)
        while (k < n && (v[k] & 0xC0) == 0x80)
            k++;
    return k;
}

static int
key_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    int r = memcmp(a, b, an < bn ? an : bn);
    return r ? r : (an > bn) - (an < bn);
}

/* 389's ss_match: 0 when a prefix of *v[0..*n) has key kk (v advanced
 * past it), 1 when a later start may (v advanced one character), -1 when
 * none will; -2 when memory ran out. */
static int
ss_match(const struct acreF_coll *c, struct kb *k, const uint8_t **v, size_t *n,
         const uint8_t *kk, size_t kn)
{
    size_t len = 0, attempts = MAX_COMBINING;

    for (;;) {
        long vk = kb_key(c, k, *v, len);
        if (vk < 0)
            return -2;
        if (vk > 0) {
            if ((size_t)vk > kn) {
                if (--attempts == 0)
                    break;
            } else if ((size_t)vk == kn && !memcmp(k->b, kk, kn)) {
                *v += len;
                *n -= len;
                return 0;
            }
        }
        if (len >= *n)
            break;
        len += char_len(*v + len, *n - len);
    }
    if (*n > 0) {
        size_t one = char_len(*v, *n);
        *v += one;
        *n -= one;
        return 1;
    }
    return -1;
}

/* 389's ss_filter_match over an attribute's values: 0 matched, -1 not,
 * -2 out of memory. */
static int
ss_values(const struct acreF_coll *c, struct kb *k, const acre_view_attr *a)
{
    int rc = -1;

    for (uint32_t j = 0; j < a->nvals; j++) {
        const uint8_t *v = a->vals[j].val;
        size_t n = a->vals[j].len;
        unsigned i = 0;

        if (!c->nkeys)
            return 0; /* presence */
        if (c->key_len[0] > 0 &&
            (rc = ss_match(c, k, &v, &n, c->key[0], c->key_len[0])) != 0)
            return rc == -2 ? -2 : -1; /* initial failed: 389 stops */
        rc = 0;
        while (++i < c->nkeys) {
            if (c->key_len[i] == 0) {
                rc = 0;
            } else if (i + 1 < c->nkeys) { /* middle */
                do
                    rc = ss_match(c, k, &v, &n, c->key[i], c->key_len[i]);
                while (rc > 0);
                if (rc < 0)
                    break;
            } else { /* final: keys of ever longer tails */
                size_t attempts = MAX_COMBINING, start = n ? n - 1 : 0;
                rc = -1;
                if (!n && v > (const uint8_t *)a->vals[j].val) {
                    /* 389 reads the byte before the end then */
                    long vk = kb_key(c, k, v - 1, 1);
                    if (vk < 0)
                        return -2;
                    if ((size_t)vk == c->key_len[i] && vk > 0 &&
                        !memcmp(k->b, c->key[i], (size_t)vk))
                        rc = 0;
                    break;
                }
                for (;;) {
                    long vk = kb_key(c, k, v + start, n - start);
                    if (vk < 0)
                        return -2;
                    if (vk > 0) {
                        if ((size_t)vk > c->key_len[i]) {
                            if (--attempts == 0)
                                break;
                        } else if ((size_t)vk == c->key_len[i] &&
                                   !memcmp(k->b, c->key[i], (size_t)vk)) {
                            rc = 0;
                            break;
                        }
                    }
                    if (start == 0)
                        break;
                    do /* back one UTF-8 character */
                        start--;
                    while (start > 0 && (v[start] & 0xC0) == 0x80);
                }
                break;
            }
        }
        if (rc == -2)
            return -2;
        if (rc != -1)
            break;
    }
    return rc;
}

/* 389's op_filter_match: 0 matched, -1 not, -2 out of memory. */
static int
op_values(const struct acreF_coll *c, struct kb *k, const acre_view_attr *a)
{
    for (uint32_t j = 0; j < a->nvals && c->nkeys && c->key[0]; j++) {
        long vk = kb_key(c, k, a->vals[j].val, a->vals[j].len);
        if (vk < 0)
            return -2;
        if (!vk)
            continue;
        int r = key_cmp(k->b, (size_t)vk, c->key[0], c->key_len[0]);
        if ((c->op == OP_LT && r < 0) || (c->op == OP_LE && r <= 0) ||
            (c->op == OP_EQ && r == 0) || (c->op == OP_GE && r >= 0) ||
            (c->op == OP_GT && r > 0))
            return 0;
    }
    return -1;
}

/* acreF_coll_match -- see filter_impl.h. */
int
acreF_coll_match(const struct acreF_coll *c, const acre_view_attr *a)
{
    struct kb k;
    int rc;

    k.b = k.local;
    k.cap = sizeof k.local;
    k.heap = 0;
    rc = c->op == OP_SUB ? ss_values(c, &k, a) : op_values(c, &k, a);
    if (k.heap)
        free(k.b);
    return rc;
}
