/*
 * filter_cand.c -- the candidates slapd's back-mdb takes from its indexes
 * for a search filter (search.c search_candidates, filterindex.c
 * mdb_filter_candidates), which a requester's size.unchecked limit
 * bounds.  Only their number matters.  An item is:
 *   - "all" when back-mdb cannot look it up in an index (its attribute
 *     not indexed for that kind of item, a NOT, (&), an objectClass
 *     presence item, an extensible item but on entryDN), which counts
 *     the database's entries;
 *   - none when it is Undefined, or (|);
 *   - the entries the index keys it asks for lead to, found by a scan of
 *     the database: an entryDN equality (a DN lookup: the entry
 *     matched), objectClass equality (its index keys each class with its
 *     superclasses: the entries matched), and on an indexed type
 *     presence (the entries with a value of a description whose index is
 *     that one), equality (... with a value of the same syntax and rule
 *     as the item's type whose normalised form is the assertion's, for
 *     the rules whose index key is that form: caseIgnore, caseExact,
 *     their IA5 forms, numericString, telephoneNumber, DN, octetString,
 *     boolean; for integer, whose key is a 4-byte form of the value,
 *     exact from -2^30 to 2^30 - 1 and past that shortened to its
 *     leading digits and a count of the bytes dropped (int_key): a
 *     value with the assertion's key) and substrings (... with,
 *     for each key octetStringSubstringsFilter makes of the assertion,
 *     a value octetStringSubstringsIndexer makes it of);
 *     An inequality on a type whose ordering rule has no ordered index
 *     keys (all but integer and generalizedTime) uses the presence index;
 *     An approximate item has the codes of its words as keys (no hash),
 *     each made by some word of some value (approxIndexer), or on a
 *     type without an approximate rule its equality keys; a word
 *     without letters has an empty code, a key LMDB will not read: the
 *     walk fails there (acreF_cands' partial, item and node);
 *     An inequality on integer or generalizedTime walks the ordered keys
 *     (inequality_candidates): from the assertion's up, or from the first
 *     up to it, uniting each key's entries until they are at least the
 *     size.unchecked limit (in the order of the keys: int_key,
 *     time_key; <= walks the presence key first);
 *   - unknown otherwise (other rules on an indexed type):
 *     ACRE_ERR_UNSUPPORTED, never a guess.
 * Index keys are hashes; two values whose hashes collide are not
 * reproduced.  AND and OR intersect and unite the sets (but two lists
 * whose ID ranges meet in one ID intersect in it: combine); back-mdb first
 * rewrites the filter to (|(objectClass=referral)(F)) unless F itself is
 * an objectClass presence item.
 */
#include "filter_impl.h"

#include "buf.h"
#include "entry.h"
#include "internal.h"
#include "ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

/* slapd's defaults (index_substr_if_minlen, _if_maxlen, _any_len,
 * _any_step), which acre does not let a configuration change */
#define SUB_IF_MIN   2
#define SUB_IF_MAX   4
#define SUB_ANY_LEN  4
#define SUB_ANY_STEP 2

/* A node's candidates, and slapd's precomputed result when its filter
 * parser made the node a computed one (SLAPD_FILTER_COMPUTED), which a
 * NOT above it inverts. */
enum { COMP_NONE, COMP_TRUE, COMP_FALSE, COMP_UNDEF };

struct cctx {
    void *ctx;
    const struct acreF_filter *f;
    const struct acreI_index *idx;
    unsigned nidx;
    const struct acreF_cand_host *h;
    long limit; /* size.unchecked: ordered key walks stop there */
};

static const struct acreI_index *
idx_find(const struct cctx *c, int type, const char *opts, size_t n)
{
    for (unsigned i = 0; i < c->nidx; i++)
        if (c->idx[i].type == type && strlen(c->idx[i].opts) == n &&
            !memcmp(c->idx[i].opts, opts, n))
            return &c->idx[i];
    return NULL;
}

/* back-mdb's mdb_index_mask: the index description type[;opts] uses --
 * its own, for a tagged one its type's (unless notags), else the nearest
 * of its type and supertypes that allows subtypes.  opts: lower-cased,
 * sorted, ';'-joined. */
static const struct acreI_index *
index_of(const struct cctx *c, int type, const char *opts, size_t n)
{
    const struct acreI_index *ix;

    if ((ix = idx_find(c, type, opts, n)))
        return ix;
    if (n && (ix = idx_find(c, type, "", 0)) && !(ix->mask & ACREI_IDX_NOTAGS))
        return ix;
    for (int t = type; t >= 0; t = acreS_attr(c->f->schema, t)->sup)
        if ((ix = idx_find(c, t, "", 0)) && !(ix->mask & ACREI_IDX_NOSUBTYPES))
            return ix;
    return NULL;
}

/* The index of a filter item's description. */
static const struct acreI_index *
item_index(const struct cctx *c, const struct acreS_desc *d)
{
    char opts[512];
    size_t n = 0;

    for (unsigned i = 0; i < d->nopts; i++) {
        if (n + d->opt_len[i] + 1 > sizeof opts)
            return NULL; /* longer than any index's options */
        if (i)
            opts[n++] = ';';
        memcpy(opts + n, d->opts[i], d->opt_len[i]);
        n += d->opt_len[i];
    }
    return index_of(c, d->type, opts, n);
}

/* The index of a stored attribute's description (id). */
static const struct acreI_index *
attr_index(const struct cctx *c, int id)
{
    const struct acreS_dinfo *d = acreS_dinfo(c->f->schema, id);
    const char *opts = d ? strchr(d->text, ';') : NULL;

    if (!d)
        return NULL;
    return opts ? index_of(c, d->type, opts + 1, strlen(opts + 1))
                : index_of(c, d->type, "", 0);
}

/* Would back-mdb answer item nd from an index (mdb_index_param)? */
static const struct acreI_index *
indexed(const struct cctx *c, const struct acreF_node *nd)
{
    const struct acreI_index *ix = item_index(c, &nd->want);
    const struct acreS_attr *at = acreS_attr(c->f->schema, nd->want.type);
    unsigned m = ix ? ix->mask : 0;
    int used;

    switch (nd->kind) {
    case ACREF_PRESENT:
        used = ACREI_IDX_HAS(m, ACREI_IDX_PRESENT);
        break;
    case ACREF_EQUALITY:
        used = ACREI_IDX_HAS(m, ACREI_IDX_EQUALITY);
        break;
    case ACREF_APPROX: /* the equality index when the type has no approx
                          rule (slapd's come with these equality rules) */
        used = at->eq == ACREM_CASE_IGNORE || at->eq == ACREM_CASE_EXACT ||
                       at->eq == ACREM_CASE_IGNORE_IA5 ||
                       at->eq == ACREM_CASE_EXACT_IA5
                   ? ACREI_IDX_HAS(m, ACREI_IDX_APPROX)
                   : ACREI_IDX_HAS(m, ACREI_IDX_EQUALITY);
        break;
    case ACREF_SUBSTRINGS:
        used = ACREI_IDX_HAS(m, ACREI_IDX_SUBSTR);
        break;
    case ACREF_GE:
    case ACREF_LE: /* ordered index keys, else the presence index */
        used = at->ord == ACREM_INTEGER_ORD || at->ord == ACREM_GENTIME_ORD
                   ? ACREI_IDX_HAS(m, ACREI_IDX_EQUALITY)
                   : ACREI_IDX_HAS(m, ACREI_IDX_PRESENT);
        break;
    default:
        used = 0;
    }
    return used ? ix : NULL;
}

/*
 * slapd's integer index key of normalised integer v[0..n) (schema_init.c
 * integerVal2Key with the default index_intlen of 4 bytes), as a
 * big-endian number: memcmp's order of the keys is its order.  The key
 * is the value's two's complement in 4 bytes, the sign bit inverted,
 * when it fits with two sign bits (-2^30 .. 2^30 - 1).  A longer value
 * first loses 7 decimal digits for every 3 bytes it is to lose, as many
 * times as it has digits past 11 (12 with its '-') and 2 more; its
 * binary form (lutil_str2bin: the magnitude's bytes, negated for a
 * negative value, a sign byte only when the first byte's top bit is not
 * the sign, then one leading sign byte dropped) then starts with a count
 * of the bytes past 4 it has with those lost, in bytes of its own that
 * the inverted sign bits delimit, and goes on with its leading bytes.
 * -1 when v is not an integer.
 */
static int64_t
int_key(const uint8_t *v, size_t n)
{
    const uint8_t sign = n && v[0] == '-' ? 0xff : 0;
    size_t len = n, kmax = sign ? 12 : 11, start = 1, ilen;
    unsigned long chop = 0;
    uint8_t b[9], key[4];
    uint32_t signmask = ~0x7fu;
    int64_t x;

    if (len > kmax) { /* 7 digits for every 3 bytes chopped */
        size_t c = (len - kmax + 2) / 7;
        len -= 7 * c;
        chop = 3 * c;
    }
    if (!len || acreF_int64(v, len, &x))
        return -1;
    uint64_t m = sign ? (uint64_t)0 - (uint64_t)x : (uint64_t)x;
    unsigned nb = 1;
    while (nb < 8 && (m >> (8 * nb)))
        nb++;
    uint64_t t = sign ? (uint64_t)0 - m : m;
    for (unsigned i = 0; i < nb; i++)
        b[1 + i] = (uint8_t)(t >> (8 * (nb - 1 - i)));
    if ((b[1] ^ sign) & 0x80)
        b[start = 0] = sign;
    if (b[start] == sign)
        start++; /* the leading sign byte dropped */
    ilen = nb + 1 - start;
    long k = 4 - (long)(ilen + chop);
    if (k > 0) {
        memset(key, sign, (size_t)k);
        memcpy(key + k, b + start, ilen);
    } else if (k != 0 || ((b[start] ^ sign) & 0xc0)) {
        /* the count of bytes past 4, then as many leading bytes as fit */
        uint8_t lb[sizeof(long) + 2];
        size_t lp = sizeof lb, kb;
        unsigned long c = (unsigned long)-k;
        do {
            lb[--lp] = (uint8_t)((c & 0xff) ^ sign);
            signmask >>= 1;
        } while ((c >>= 8) != 0 ||
                 ((signmask >> 1) & (uint32_t)(lb[lp] ^ sign)));
        kb = sizeof lb - lp < 4 ? sizeof lb - lp : 4;
        memcpy(key, lb + lp, kb);
        memcpy(key + kb, b + start, 4 - kb);
    } else {
        memcpy(key, b + start, 4);
    }
    key[0] ^= (uint8_t)(signmask & 0xff);
    return (int64_t)((uint32_t)key[0] << 24 | (uint32_t)key[1] << 16 |
                     (uint32_t)key[2] << 8 | key[3]);
}

/*
 * slapd's generalizedTime index key of normalised value v[0..n)
 * (generalizedTimeIndexer: 40 bits of lutil_tm2gtime's time, which
 * counts from the year 0000 of the proleptic Gregorian calendar): the
 * days times 675 (86,400 / 128), whose bits past 25 make the first byte
 * (7 bits, 0x40 toggled), then the rest of them times 128 plus the
 * seconds of the day, of which the key keeps 32 bits (so the keys of the
 * last seconds before each 2^25 boundary of the first part wrap, as
 * slapd's do; fractions of a second are not in the key).  -1 when v is
 * not a normalised time.
 */
static int64_t
time_key(const uint8_t *v, size_t n)
{
    static const int moffset[12] = {0,   31,  59,  90,  120, 151,
                                    181, 212, 243, 273, 304, 334};
    static const int w[6] = {4, 2, 2, 2, 2, 2};
    int f[6];
    size_t at = 0;

    if (n < 14)
        return -1;
    for (int i = 0; i < 6; i++) {
        f[i] = 0;
        for (int j = 0; j < w[i]; j++, at++) {
            if (v[at] < '0' || v[at] > '9')
                return -1;
            f[i] = f[i] * 10 + (v[at] - '0');
        }
    }
    int year = f[0], mon = f[1] - 1, s;
    if (mon < 0 || mon > 11 || f[2] < 1)
        return -1;
    long days = (long)year * 365;
    s = (year - 1) / 4; /* the leap days before the year */
    days += s;
    s /= 25;
    days -= s;
    s /= 4;
    days += s;
    if (year > 0)
        days++; /* the year 0000 was a leap year */
    days += moffset[mon];
    if (mon > 1)
        days += (year % 4) ? 0 : (year % 100) ? 1 : (year % 400) ? 0 : 1;
    days += f[2] - 1;
    long t = days * 675, g = t >> 25;
    t -= g << 25;
    g = (g & 0x7f) ^ 0x40;
    uint64_t sec =
        ((uint64_t)t << 7) + (uint64_t)(f[3] * 3600 + f[4] * 60 + f[5]);
    return (int64_t)((uint64_t)(g & 0xff) << 32 | (sec & 0xffffffffu));
}

/* Do normalised values a and b of equality rule eq make one index key:
 * int_key's or time_key's, else the value itself (eq_key_is_value)? */
static int
same_eq_key(int eq, const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    if (eq == ACREM_INTEGER)
        return int_key(a, an) == int_key(b, bn);
    if (eq == ACREM_GENTIME)
        return time_key(a, an) == time_key(b, bn);
    return an == bn && !memcmp(a, b, an);
}

/* Is an equality index key the normalised value itself, or, for integer
 * and generalizedTime, int_key's and time_key's (see banner)? */
static int
eq_key_is_value(const struct acreF_node *nd)
{
    switch (nd->trules.eq) {
    case ACREM_CASE_IGNORE:
    case ACREM_CASE_EXACT:
    case ACREM_CASE_IGNORE_IA5:
    case ACREM_CASE_EXACT_IA5:
    case ACREM_NUMERIC_STRING:
    case ACREM_TELEPHONE:
    case ACREM_DN:
    case ACREM_OCTET:
    case ACREM_BOOLEAN:
        return nd->rule == nd->trules.eq;
    case ACREM_INTEGER:
        return nd->rule == ACREM_INTEGER &&
               int_key(nd->norm, nd->norm_len) >= 0;
    case ACREM_GENTIME:
        return nd->rule == ACREM_GENTIME &&
               time_key(nd->norm, nd->norm_len) >= 0;
    default:
        return 0;
    }
}

/* ---- sets of candidates ---------------------------------------------- */

/* e's back-mdb ID as the host knows it (its place in slapadd's load
 * order), 0 when it does not. */
static uint64_t
entry_id(const struct cctx *c, const acre_entry_view *e)
{
    return c->h->id ? c->h->id(c->h->arg, e) : 0;
}

static int
has(const struct acreF_cands *s, const char *dn, size_t n)
{
    for (unsigned i = 0; i < s->n; i++)
        if (s->len[i] == n && !memcmp(s->dn[i], dn, n))
            return 1;
    return 0;
}

/* Add entry dn[0..n), whose back-mdb ID is id (0: unknown), to s. */
static int
add(void *ctx, struct acreF_cands *s, const char *dn, size_t n, uint64_t id)
{
    if (has(s, dn, n))
        return 0;
    const char **d = talloc_realloc(ctx, s->dn, const char *, s->n + 1);
    size_t *l = d ? talloc_realloc(ctx, s->len, size_t, s->n + 1) : NULL;
    uint64_t *ids = l ? talloc_realloc(ctx, s->id, uint64_t, s->n + 1) : NULL;
    if (d)
        s->dn = d;
    if (l)
        s->len = l;
    if (ids)
        s->id = ids;
    if (!ids || !(s->dn[s->n] = talloc_strndup(ctx, dn, n)))
        return ACRE_ERR_NOMEM;
    s->id[s->n] = id;
    s->len[s->n++] = n;
    return 0;
}

/* The smallest and largest IDs of s (not empty); 0 when one is unknown. */
static int
id_bounds(const struct acreF_cands *s, uint64_t *lo, uint64_t *hi)
{
    *lo = UINT64_MAX;
    *hi = 0;
    for (unsigned i = 0; i < s->n; i++) {
        if (!s->id[i])
            return 0;
        *lo = s->id[i] < *lo ? s->id[i] : *lo;
        *hi = s->id[i] > *hi ? s->id[i] : *hi;
    }
    return 1;
}

/* a := a AND b, or a OR b (mdb_idl_intersection, mdb_idl_union).  Two
 * lists whose ID ranges meet in a single ID intersect in that ID, whether
 * both hold it or not: mdb_idl_intersection returns max(first IDs) when
 * it equals min(last IDs) before it looks at the lists.  ("all" is a
 * range covering every list, which that leaves exact.) */
static int
combine(void *ctx, struct acreF_cands *a, const struct acreF_cands *b, int and)
{
    if (and) {
        uint64_t alo, ahi, blo, bhi;
        if (b->all)
            return 0;
        if (a->all) {
            *a = *b;
            return 0;
        }
        if (a->n && b->n && id_bounds(a, &alo, &ahi) &&
            id_bounds(b, &blo, &bhi) &&
            (alo > blo ? alo : blo) == (ahi < bhi ? ahi : bhi)) {
            uint64_t one = alo > blo ? alo : blo;
            const struct acreF_cands *from = alo == one ? a : b;
            for (unsigned i = 0; i < from->n; i++)
                if (from->id[i] == one) {
                    a->dn[0] = from->dn[i];
                    a->len[0] = from->len[i];
                    a->id[0] = one;
                    break;
                }
            a->n = 1;
            return 0;
        }
        unsigned k = 0;
        for (unsigned i = 0; i < a->n; i++)
            if (has(b, a->dn[i], a->len[i])) {
                a->dn[k] = a->dn[i];
                a->id[k] = a->id[i];
                a->len[k++] = a->len[i];
            }
        a->n = k;
        return 0;
    }
    if (a->all || b->all) {
        a->all = 1;
        return 0;
    }
    for (unsigned i = 0; i < b->n; i++)
        if (add(ctx, a, b->dn[i], b->len[i], b->id[i]))
            return ACRE_ERR_NOMEM;
    return 0;
}

/* ---- the scan of the database ------------------------------------------ */

/* A substrings index key: its kind ('^' initial, '*' any, '$' final) and
 * the normalised bytes it stands for. */
struct key {
    char pre;
    const uint8_t *p;
    size_t n;
};

/* What an entry must have to be a candidate: a match of f, or a value
 * of a description indexed by ix that is present / equal to the item's
 * assertion / gives every key of keys[0..nkeys). */
struct scan {
    const struct cctx *c;
    const struct acreF_filter *f;
    const struct acreI_index *ix;
    const struct acreF_node *nd;
    const struct key *keys;
    unsigned nkeys;
    int words; /* an approx item: its first `words` codes are the keys */
    struct acreF_cands *out;
    struct acreE_buf buf;
    int rc;
};

/* Does normalised value v[0..n) give key k (octetStringSubstringsIndexer
 * with the same flags the filter's keys were made with)? */
static int
gives(const uint8_t *v, size_t n, const struct key *k)
{
    if (n < k->n)
        return 0;
    if (k->pre == '^')
        return !memcmp(v, k->p, k->n);
    if (k->pre == '$')
        return !memcmp(v + n - k->n, k->p, k->n);
    for (size_t j = 0; j + k->n <= n; j++)
        if (!memcmp(v + j, k->p, k->n))
            return 1;
    return 0;
}

/* Does e hold what s looks for in the index s->ix? */
static int
in_index(struct scan *s, const acre_entry_view *e)
{
    const acre_schema *sch = s->c->f->schema;
    const struct acreF_node *nd = s->nd;
    const struct acreS_attr *ft = acreS_attr(sch, nd->want.type);
    uint64_t found = 0; /* substrings: the keys seen, one bit each */

    for (unsigned i = 0; i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        if (attr_index(s->c, a->id) != s->ix)
            continue;
        if (nd->kind == ACREF_PRESENT || nd->kind == ACREF_GE ||
            nd->kind == ACREF_LE)
            return 1; /* the presence key */
        const struct acreS_attr *at =
            acreS_attr(sch, acreS_dinfo(sch, a->id)->type);
        if (s->words) { /* approx keys: the words' codes, nothing hashed */
            if (!acreF_approx_rule(at->eq))
                continue;
            for (unsigned j = 0; j < a->nvals; j++) {
                size_t n;
                const uint8_t *v = acreE_value_norm(sch, a, j, &s->buf, &n);
                if (v)
                    (void)acreF_approx_keys(v, n, nd->codes, (unsigned)s->words,
                                            &found);
            }
            continue;
        }
        /* a key also hashes the syntax and rule of the stored type */
        if (!at->syntax || !ft->syntax || strcmp(at->syntax, ft->syntax) ||
            (nd->kind == ACREF_EQUALITY ? at->eq != ft->eq
                                        : at->sub != ft->sub))
            continue;
        for (unsigned j = 0; j < a->nvals; j++) {
            size_t n;
            const uint8_t *v = acreE_value_norm(sch, a, j, &s->buf, &n);
            if (!v)
                continue;
            if (nd->kind == ACREF_EQUALITY) {
                if (same_eq_key(at->eq, v, n, nd->norm, nd->norm_len))
                    return 1;
                continue;
            }
            for (unsigned k = 0; k < s->nkeys; k++)
                if (gives(v, n, &s->keys[k]))
                    found |= 1ull << k;
        }
    }
    if (s->words)
        return found == (s->words == 64 ? ~0ull : (1ull << s->words) - 1);
    return nd->kind == ACREF_SUBSTRINGS &&
           found == (s->nkeys == 64 ? ~0ull : (1ull << s->nkeys) - 1);
}

static int
scan_visit(void *arg, const acre_entry_view *e)
{
    struct scan *s = arg;
    int yes = s->f ? acreF_eval(s->f, e, NULL) == ACREF_TRUE : in_index(s, e);

    if (yes) {
        size_t n;
        const char *dn = acre_dn_normalised(e->dn, &n);
        if ((s->rc = add(s->c->ctx, s->out, dn, n, entry_id(s->c, e))))
            return 1;
    }
    return 0;
}

static int
scan(struct scan *s)
{
    uint8_t local[256];

    /* a value or filter item that could not be normalised for want of
     * memory reads as no match: an undercount, which would let through
     * a search slapd refuses, so it fails instead (acreE_nomem) */
    unsigned long nomem = acreE_nomem;
    acreE_buf_init(&s->buf, local, sizeof local);
    *s->out = (struct acreF_cands){0};
    int rc = s->c->h->each(s->c->h->arg, scan_visit, s);
    acreE_buf_free(&s->buf);
    if (!s->rc && acreE_nomem != nomem)
        s->rc = ACRE_ERR_NOMEM;
    return s->rc ? s->rc : rc < 0 ? rc : 0;
}

/* The entries of the database item nd matches (nd alone as a filter). */
static int
matching(const struct cctx *c, const struct acreF_node *nd,
         struct acreF_cands *out)
{
    struct acreF_filter one = *c->f;
    struct scan s = {.c = c, .f = &one, .out = out};

    one.root = (struct acreF_node *)nd;
    return scan(&s);
}

/* ---- ordered keys: >= and <= on integer and generalizedTime -------------- */

/* An ordered index key: its place in the index's byte order, and the
 * entry one of whose values made it. */
struct okey {
    uint64_t order;
    const char *dn;
    size_t len;
    uint64_t id; /* the entry's back-mdb ID, 0 if unknown */
};

struct oscan {
    const struct cctx *c;
    const struct acreI_index *ix;
    const struct acreF_node *nd;
    struct okey *keys;
    size_t n, cap;
    struct acreE_buf buf;
    int rc;
};

/* The place of normalised value v[0..n) of rule eq among the index's
 * keys, or -1 when its key is not reproduced: an integer's key int_key,
 * which memcmp orders as the integers (several long ones can share
 * one); a generalizedTime's time_key, which they order as the times
 * but where its seconds wrap.  The presence key comes before them
 * all (0): slapd 2.5.13 walks it first for <= and never for >=, whatever
 * the assertion ((uidNumber>=0) does not reach it). */
static int64_t
key_order(int eq, const uint8_t *v, size_t n)
{
    int64_t k = eq == ACREM_INTEGER ? int_key(v, n) : time_key(v, n);
    return k < 0 ? -1 : k + 1;
}

static int
okey_add(struct oscan *s, uint64_t order, const acre_entry_view *e)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 16;
        struct okey *k = talloc_realloc(s->c->ctx, s->keys, struct okey, cap);
        if (!k)
            return ACRE_ERR_NOMEM;
        s->keys = k;
        s->cap = cap;
    }
    /* a copy: the host's view lives for the callback only */
    size_t n;
    const char *dn = acre_dn_normalised(e->dn, &n);
    if (!(s->keys[s->n].dn = talloc_strndup(s->c->ctx, dn, n)))
        return ACRE_ERR_NOMEM;
    s->keys[s->n].order = order;
    s->keys[s->n].len = n;
    s->keys[s->n].id = entry_id(s->c, e);
    s->n++;
    return 0;
}

static int
oscan_visit(void *arg, const acre_entry_view *e)
{
    struct oscan *s = arg;
    const acre_schema *sch = s->c->f->schema;
    const struct acreS_attr *ft = acreS_attr(sch, s->nd->want.type);
    int present = 0;

    for (unsigned i = 0; i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        if (attr_index(s->c, a->id) != s->ix)
            continue;
        present = 1;
        const struct acreS_attr *at =
            acreS_attr(sch, acreS_dinfo(sch, a->id)->type);
        if (!at->syntax || !ft->syntax || strcmp(at->syntax, ft->syntax) ||
            at->eq != ft->eq)
            continue;
        for (unsigned j = 0; j < a->nvals; j++) {
            size_t n;
            const uint8_t *v = acreE_value_norm(sch, a, j, &s->buf, &n);
            int64_t o = v ? key_order(ft->eq, v, n) : 0;
            if (o < 0) {
                s->rc = ACRE_ERR_UNSUPPORTED;
                return 1;
            }
            if (v && (s->rc = okey_add(s, (uint64_t)o, e)))
                return 1;
        }
    }
    /* the presence key, first in the index's order (ordered) */
    if (present && ACREI_IDX_HAS(s->ix->mask, ACREI_IDX_PRESENT) &&
        (s->rc = okey_add(s, 0, e)))
        return 1;
    return 0;
}

/* Do keys k[0..n) all name one entry? */
static int
one_entry(const struct okey *k, size_t n)
{
    for (size_t i = 1; i < n; i++)
        if (k[i].len != k[0].len || memcmp(k[i].dn, k[0].dn, k[0].len))
            return 0;
    return 1;
}

static int
by_order(const void *a, const void *b)
{
    const struct okey *x = a, *y = b;
    return x->order < y->order ? -1 : x->order > y->order;
}

/* inequality_candidates: the keys from the assertion's up (>=) or from
 * the first up to it (<=), key by key in the index's order, united until
 * they hold size.unchecked entries. */
static int
ordered(const struct cctx *c, const struct acreF_node *nd,
        const struct acreI_index *ix, struct acreF_cands *out)
{
    const struct acreS_attr *ft = acreS_attr(c->f->schema, nd->want.type);
    int64_t a = key_order(ft->eq, nd->norm, nd->norm_len);
    struct oscan s = {.c = c, .ix = ix, .nd = nd};
    uint8_t local[256];
    int rc;

    if (a < 0 || nd->rule != ft->ord)
        return ACRE_ERR_UNSUPPORTED;
    unsigned long nomem = acreE_nomem; /* see scan() */
    acreE_buf_init(&s.buf, local, sizeof local);
    rc = c->h->each(c->h->arg, oscan_visit, &s);
    acreE_buf_free(&s.buf);
    if (!s.rc && acreE_nomem != nomem)
        s.rc = ACRE_ERR_NOMEM;
    if (s.rc || rc < 0)
        return s.rc ? s.rc : rc;
    if (s.n)
        qsort(s.keys, s.n, sizeof *s.keys, by_order);
    *out = (struct acreF_cands){0};
    /* The presence key (order 0, one per entry) is four zero bytes.  An
     * integer's keys have its size and <= walks it first; a time's have
     * five (padded to eight), and mdb_idl_fetch_key passes over a key of
     * another size, but having stopped on it, LMDB's cursor keeps its
     * duplicates' position: when the first time key holds a single
     * entry (no duplicates of its own), MDB_GET_MULTIPLE reads the
     * presence key's entries in its place (when they are at least two,
     * so that they were duplicates).  slapd 2.5.13 answers so. */
    size_t np = 0, i = 0;
    while (np < s.n && s.keys[np].order == 0)
        np++;
    int time = ft->eq == ACREM_GENTIME, first = 1;
    if (time)
        i = np;
    while (i < s.n) {
        uint64_t k = s.keys[i].order;
        size_t j = i;
        while (j < s.n && s.keys[j].order == k)
            j++;
        if (nd->kind == ACREF_GE ? k < (uint64_t)a : k > (uint64_t)a) {
            i = j;
            first = 0;
            continue;
        }
        size_t from = i, to = j;
        if (time && first && nd->kind == ACREF_LE && np >= 2 &&
            one_entry(s.keys + i, j - i))
            from = 0, to = np; /* the presence key's, as LMDB gives them */
        first = 0;
        for (size_t m = from; m < to; m++)
            if ((rc = add(c->ctx, out, s.keys[m].dn, s.keys[m].len,
                          s.keys[m].id)))
                return rc;
        i = j;
        if (out->n >= (unsigned long)c->limit)
            break;
    }
    return 0;
}

/* octetStringSubstringsFilter's keys for nd's assertion under mask m,
 * into keys (at most 64: more is ACRE_ERR_UNSUPPORTED).  slapd tests
 * each kind with a plain `flags & SLAP_INDEX_SUBSTR_...`, which the
 * shared substr bit makes true for every kind once any is indexed (and
 * its indexer makes every kind of key too): subinitial alone gives any
 * and final keys as well. */
static int
substring_keys(const struct acreF_node *nd, unsigned m, struct key *keys,
               unsigned *nkeys)
{
    const struct acreM_substr *p = &nd->pat;
    int any = !!(m & ACREI_IDX_SUB_ANY);
    unsigned k = 0;
#define KEY(c, b, len)                             \
    do {                                           \
        if (k == 64)                               \
            return ACRE_ERR_UNSUPPORTED;           \
        keys[k++] = (struct key){(c), (b), (len)}; \
    } while (0)

    if ((m & ACREI_IDX_SUB_INIT) && p->initial &&
        p->initial_len >= SUB_IF_MIN) {
        size_t n = p->initial_len;
        KEY('^', p->initial, n < SUB_IF_MAX ? n : SUB_IF_MAX);
        if (n > SUB_IF_MAX && any)
            for (size_t j = SUB_IF_MAX - 1; j + SUB_ANY_LEN <= n;
                 j += SUB_ANY_STEP)
                KEY('*', p->initial + j, SUB_ANY_LEN);
    }
    for (unsigned i = 0; any && i < p->nany; i++)
        for (size_t j = 0;
             p->any_len[i] >= SUB_ANY_LEN && j + SUB_ANY_LEN <= p->any_len[i];
             j += SUB_ANY_STEP)
            KEY('*', p->any[i] + j, SUB_ANY_LEN);
    if ((m & ACREI_IDX_SUB_FINAL) && p->final && p->final_len >= SUB_IF_MIN) {
        size_t n = p->final_len, kl = n < SUB_IF_MAX ? n : SUB_IF_MAX;
        KEY('$', p->final + n - kl, kl);
        if (n > SUB_IF_MAX && any)
            for (size_t j = 0; j + SUB_IF_MAX <= n; j += SUB_ANY_STEP)
                KEY('*', p->final + j, SUB_ANY_LEN);
    }
#undef KEY
    *nkeys = k;
    return 0;
}

/* ---- the filter --------------------------------------------------------- */

static int
item(const struct cctx *c, const struct acreF_node *nd, struct acreF_cands *out,
     int *comp)
{
    const struct acreS_known *k = acreS_known(c->f->schema);
    const struct acreI_index *ix;

    if (nd->undef) {
        /* slapd marks an item on an unknown type or with a value its
         * rule refuses Undefined (SLAPD_FILTER_UNDEFINED: no candidate,
         * a NOT above it stays a NOT); an extensible item it cannot
         * parse becomes a computed Undefined (get_mra's errors), which a
         * NOT keeps Undefined */
        if (nd->kind == ACREF_EXTENSIBLE) {
            if (nd->desc && nd->want.type < 0) {
                /* an extensible item on an unknown attribute */
                return ACRE_ERR_UNSUPPORTED;
            }
            *comp = COMP_UNDEF;
        }
        return 0;
    }
    if (nd->kind == ACREF_EXTENSIBLE) {
        if (nd->special != ACREF_SP_ENTRYDN ||
            nd->rule == ACREF_RULE_DNSUBTREE ||
            nd->rule == ACREF_RULE_DNONELEVEL ||
            nd->rule == ACREF_RULE_DNSUBORDINATE) {
            out->all = 1; /* ext_candidates: no index */
            return 0;
        }
        if (nd->rule == ACREM_DN)
            return matching(c, nd, out); /* mdb_dn2id */
        /* an entryDN item with dnSuperiorMatch */
        return ACRE_ERR_UNSUPPORTED;
    }
    if (nd->kind == ACREF_EQUALITY && nd->special == ACREF_SP_ENTRYDN)
        return matching(c, nd, out);
    if (nd->kind == ACREF_PRESENT && nd->want.type == k->objectClass &&
        !nd->want.nopts) {
        out->all = 1;
        return 0;
    }
    if (!(ix = indexed(c, nd))) {
        out->all = 1;
        return 0;
    }
    if (nd->want.type == k->objectClass && !nd->want.nopts &&
        nd->kind == ACREF_EQUALITY)
        return matching(c, nd, out); /* classes with superclasses */
    /* an inequality on a type without ordered index keys: the presence
     * index (mdb_filter_candidates) */
    const struct acreS_attr *at = acreS_attr(c->f->schema, nd->want.type);
    int ord_keys = at->ord == ACREM_INTEGER_ORD || at->ord == ACREM_GENTIME_ORD;
    if (nd->want.type != k->objectClass &&
        (nd->kind == ACREF_PRESENT ||
         ((nd->kind == ACREF_GE || nd->kind == ACREF_LE) && !ord_keys) ||
         (nd->kind == ACREF_EQUALITY && eq_key_is_value(nd)) ||
         nd->kind == ACREF_SUBSTRINGS)) {
        struct key keys[64];
        struct scan s = {.c = c, .ix = ix, .nd = nd, .keys = keys, .out = out};
        if (nd->kind == ACREF_SUBSTRINGS) {
            if (substring_keys(nd, ix->mask, keys, &s.nkeys)) {
                /* a substrings item with more than 64 index keys */
                return ACRE_ERR_UNSUPPORTED;
            }
            if (!s.nkeys) {
                out->all = 1; /* no key: substring_candidates gives all */
                return 0;
            }
        }
        return scan(&s);
    }
    if ((nd->kind == ACREF_GE || nd->kind == ACREF_LE) && ord_keys &&
        (at->eq == ACREM_INTEGER || at->eq == ACREM_GENTIME))
        return ordered(c, nd, ix, out);
    if (nd->kind == ACREF_APPROX && nd->want.type != k->objectClass) {
        struct scan s = {.c = c, .ix = ix, .nd = nd, .out = out};
        struct acreF_node eq;
        if (!acreF_approx_rule(at->eq)) {
            /* approx_candidates: the equality rule and its keys */
            if (!eq_key_is_value(nd))
                return ACRE_ERR_UNSUPPORTED;
            eq = *nd;
            eq.kind = ACREF_EQUALITY;
            s.nd = &eq;
            return scan(&s);
        }
        /* approx_candidates reads the keys in turn, intersecting, and
         * stops when they give nothing.  A word without letters has an
         * empty code, a key LMDB will not read (MDB_BAD_VALSIZE): there
         * back-mdb stops with what it has, failed.  At the first key
         * what it has is every entry, and mdb_filter_candidates then asks
         * id2entry for the last entry's ID (mi_nextid is 0 until the
         * server adds an entry; acre reads a directory as slapadd loaded
         * it) and overwrites the failure with that read's success.  A
         * later failure goes up to the lists above (node). */
        unsigned nk = 0;
        while (nd->approx_ok && nk < nd->ncodes && *nd->codes[nk])
            nk++;
        if (!nd->approx_ok || nk > 64)
            return ACRE_ERR_UNSUPPORTED;
        if (!nk) {
            out->all = 1; /* no key, or a failure at the first: all */
            return 0;
        }
        s.words = nk;
        int rc = scan(&s);
        out->partial = !rc && nk < nd->ncodes && out->n;
        return rc;
    }
    /* a filter item back-mdb answers from an index whose keys acre does not
     * reproduce */
    return ACRE_ERR_UNSUPPORTED;
}

static int
node(const struct cctx *c, const struct acreF_node *nd, struct acreF_cands *out,
     int *comp)
{
    int rc, kc;

    *out = (struct acreF_cands){0};
    *comp = COMP_NONE;
    switch (nd->kind) {
    case ACREF_ABSOLUTE_TRUE:
        *comp = COMP_TRUE;
        out->all = 1;
        return 0;
    case ACREF_ABSOLUTE_FALSE:
        *comp = COMP_FALSE;
        return 0;
    case ACREF_NOT: {
        struct acreF_cands k;
        if ((rc = node(c, nd->kids[0], &k, &kc)))
            return rc;
        /* get_filter folds a NOT over a computed filter */
        *comp = kc == COMP_TRUE    ? COMP_FALSE
                : kc == COMP_FALSE ? COMP_TRUE
                                   : kc;
        out->all = *comp == COMP_NONE || *comp == COMP_TRUE;
        return 0;
    }
    case ACREF_AND:
    case ACREF_OR: {
        int and = nd->kind == ACREF_AND;
        for (unsigned i = 0; i < nd->nkids; i++) {
            struct acreF_cands k;
            if ((rc = node(c, nd->kids[i], &k, &kc)))
                return rc;
            /* list_candidates: an AND passes over a member that failed,
             * but after a failed first one it keeps the empty set it
             * started from; an OR stops at one, failed, with what it has */
            if (k.partial && !and) {
                out->partial = 1;
                break;
            }
            if (k.partial && !i) {
                *out = (struct acreF_cands){0};
                break;
            }
            if (k.partial)
                continue;
            if (!i)
                *out = k;
            else if ((rc = combine(c->ctx, out, &k, and)))
                return rc;
            if (and&&!out->all && !out->n)
                break; /* list_candidates stops at an empty AND */
        }
        return 0;
    }
    default:
        return item(c, nd, out, comp);
    }
}

/* The entries of class cls (objectClass=cls), by the objectClass
 * equality index, or every entry without one. */
static int
of_class(const struct cctx *c, const char *cls, struct acreF_cands *out)
{
    const struct acreS_known *k = acreS_known(c->f->schema);
    const struct acreI_index *ix = index_of(c, k->objectClass, "", 0);
    struct acreF_filter *f;
    char text[64];
    int rc;

    *out = (struct acreF_cands){0};
    if (!ix || !ACREI_IDX_HAS(ix->mask, ACREI_IDX_EQUALITY)) {
        out->all = 1;
        return 0;
    }
    int n = snprintf(text, sizeof text, "(objectClass=%s)", cls);
    if ((rc = acreF_parse(c->ctx, c->f->schema, text, (size_t)n, &f, NULL)))
        return rc;
    return matching(c, f->root, out);
}

/* acreF_candidates -- see filter.h. */
int
acreF_candidates(void *ctx, const struct acreF_filter *f,
                 const struct acreI_index *idx, unsigned nidx, long limit,
                 int subentries, const struct acreF_cand_host *h,
                 struct acreF_cands *out)
{
    struct cctx c = {ctx, f, idx, nidx, h, limit};
    const struct acreS_known *k = acreS_known(f->schema);
    const struct acreF_node *r = f->root;
    struct acreF_cands fc;
    int comp, rc;

    *out = (struct acreF_cands){0};
    /* search_candidates: with the subentries control the filter is
     * ANDed with (objectClass=subentry), which comes first */
    if (subentries) {
        if ((rc = of_class(&c, "subentry", out)) ||
            (rc = node(&c, r, &fc, &comp)))
            return rc;
        return fc.partial ? 0 : combine(ctx, out, &fc, 1);
    }
    /* else (objectClass=*) alone is all; anything else is ORed after
     * (objectClass=referral): every entry unless objectClass has an
     * equality index (the rest does not matter then), else the
     * referrals, by class */
    if (r->kind == ACREF_PRESENT && !r->undef &&
        r->want.type == k->objectClass && !r->want.nopts) {
        out->all = 1;
        return 0;
    }
    if ((rc = of_class(&c, "referral", out)) || out->all ||
        (rc = node(&c, r, &fc, &comp)))
        return rc;
    if (fc.partial) {
        out->partial = 1; /* the OR stops at its failed member */
        return 0;
    }
    return combine(ctx, out, &fc, 0);
}

/* Can nd's candidates leave out entries it matches
 * (acreF_candidates_narrow)? */
static int
narrow(const struct cctx *c, const struct acreF_node *nd)
{
    const struct acreS_known *k = acreS_known(c->f->schema);

    switch (nd->kind) {
    case ACREF_AND:
    case ACREF_OR:
        for (unsigned i = 0; i < nd->nkids; i++)
            if (narrow(c, nd->kids[i]))
                return 1;
        return 0;
    case ACREF_GE:
    case ACREF_LE: {
        const struct acreS_attr *at = acreS_attr(c->f->schema, nd->want.type);
        return !nd->undef && at->eq == ACREM_GENTIME &&
               at->ord == ACREM_GENTIME_ORD && indexed(c, nd);
    }
    case ACREF_APPROX:
        if (nd->undef || !nd->approx_ok || nd->want.type == k->objectClass ||
            !indexed(c, nd) ||
            !acreF_approx_rule(acreS_attr(c->f->schema, nd->want.type)->eq))
            return 0;
        for (unsigned i = 1; i < nd->ncodes; i++)
            if (!*nd->codes[i])
                return *nd->codes[0] != 0;
        return 0;
    default: /* a NOT's candidates are every entry, its own not read */
        return 0;
    }
}

/* acreF_candidates_narrow -- see filter.h. */
int
acreF_candidates_narrow(const struct acreF_filter *f,
                        const struct acreI_index *idx, unsigned nidx)
{
    struct cctx c = {NULL, f, idx, nidx, NULL, 0};

    return narrow(&c, f->root);
}
