/*
 * schema.c -- the schema registry: interning of attribute types and object
 * classes to dense ids, name and OID lookup, loading (check, resolve,
 * commit), inheritance, freezing, the process-wide built-in schema and
 * attribute descriptions.
 *
 * A load runs in three steps.  schema_parse.c reads the whole input into a
 * stage (definitions with references as written).  commit() then builds
 * the next state of the schema beside the current one -- new arrays, new
 * name indexes, resolved references, inherited fields, class bitmaps --
 * allocating everything in a scratch context, and only when all of it
 * succeeded swaps it in (talloc_steal, no allocation, cannot fail).  So a
 * load adds every definition of its input or none.
 *
 * A definition that repeats an existing one exactly (same OID, names,
 * supertype, rules, syntax, flags, usage; same superclasses, kind, MUST and
 * MAY for classes) is accepted and changes nothing, so the standard schema
 * files can be loaded over the built-in schema; any other reuse of a name
 * or OID is ACRE_ERR_SCHEMA_DUP.
 *
 * The checks are RFC 4512's and slapd's: references exist (forward ones
 * within an input too), SUP chains have no cycle and at most
 * ACRES_MAX_DEPTH links, a type has SUP or SYNTAX, its rules exist and
 * have the right use (ORDERING and SUBSTR need an EQUALITY), its syntax
 * is known, a subtype has its supertype's USAGE (and is OBSOLETE when the
 * supertype is), COLLECTIVE means userApplications and not SINGLE-VALUE,
 * NO-USER-MODIFICATION means operational; a class only inherits from
 * classes of its own kind or abstract ones (and is OBSOLETE when they are).
 *
 * The name lookup is the DN parser's hot path: see struct acreS_index in
 * schema_int.h.  A frozen schema is never written again, so lookups take
 * no lock.  acreS_freeze() only sets a flag: everything it promises (class
 * bitmaps, well-known ids) is kept up to date by every load.
 */
#include "prep.h"
#include "schema_int.h"

#include "internal.h"
#include "match.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

/* ------------------------------------------------------------------------
 * Name indexes
 */

static inline uint8_t
lc(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

/* pack -- s[0..n), 1 <= n <= 8, as a word: byte j in bits 8j..8j+7. */
static inline uint64_t
pack(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n >= 4) {
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + n - 4, 4);
        return lo | (uint64_t)hi << (8 * (n - 4));
    }
    return p[0] | (uint64_t)p[n >> 1] << (8 * (n >> 1)) |
           (uint64_t)p[n - 1] << (8 * (n - 1));
#else
    uint64_t k = 0;
    for (size_t j = 0; j < n; j++)
        k |= (uint64_t)p[j] << (8 * j);
    return k;
#endif
}

static inline uint32_t
sh_hash(uint64_t k, unsigned bits)
{
    return (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

/* word -- 8 bytes of s as a word (any byte order: only compared and
 * hashed, never printed). */
static inline uint64_t
word(const char *s)
{
    uint64_t w;

    memcpy(&w, s, 8);
    return w;
}

/*
 * lg_hash -- hash of the lowercase form of s[0..n), n > 8, eight bytes at
 * a time (the last, partial word packed like a short name).
 */
static inline uint32_t
lg_hash(const char *s, size_t n)
{
    uint64_t h = n * 0x9e3779b97f4a7c15ull;
    size_t i = 0;

    for (; i + 8 <= n; i += 8) {
        h = (h ^ acreS_lower8(word(s + i))) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    if (i < n) {
        h = (h ^ acreS_lower8(pack(s + i, n - i))) * 0xc4ceb9fe1a85ec53ull;
        h ^= h >> 32;
    }
    return (uint32_t)h;
}

/* lg_equal -- is s[0..n) the lowercase key[0..n), ignoring case? */
static inline int
lg_equal(const char *key, const char *s, size_t n)
{
    size_t i = 0;

    for (; i + 8 <= n; i += 8)
        if (acreS_lower8(word(s + i)) != word(key + i))
            return 0;
    return i == n || acreS_lower8(pack(s + i, n - i)) == pack(key + i, n - i);
}

/* sh_slot -- the slot holding packed lowercase key k, or NULL. */
static inline const struct acreS_sslot *
sh_slot(const struct acreS_index *ix, uint64_t k)
{
    for (uint32_t i = sh_hash(k, ix->shbits);; i = (i + 1) & ix->shmask) {
        const struct acreS_sslot *e = &ix->sh[i];
        if (e->key == k)
            return e;
        if (!e->key)
            return NULL;
    }
}

static inline int
sh_find(const struct acreS_index *ix, uint64_t k, size_t n)
{
    const struct acreS_sslot *e = sh_slot(ix, k);

    return e && e->len == n ? e->id : -1;
}

static int
lg_find(const struct acreS_index *ix, const char *s, size_t n)
{
    uint32_t h = lg_hash(s, n);

    for (uint32_t i = h & ix->lgmask; ix->lg[i].key; i = (i + 1) & ix->lgmask) {
        const struct acreS_lslot *e = &ix->lg[i];
        if (e->hash == h && e->len == n && lg_equal(e->key, s, n))
            return e->id;
    }
    return -1;
}

/* index_find -- id of s[0..n) (any case), or -1. */
static inline int
index_find(const struct acreS_index *ix, const char *s, size_t n)
{
    if (n - 1 < 8)
        return sh_find(ix, acreS_lower8(pack(s, n)), n);
    if (n > ACRES_MAX_TOKEN)
        return -1;
    return lg_find(ix, s, n);
}

static unsigned
pow2_at_least(unsigned n, unsigned min, unsigned *bits)
{
    unsigned p = min, b = 0;

    while (p < n)
        p <<= 1;
    for (unsigned q = p; q > 1; q >>= 1)
        b++;
    if (bits)
        *bits = b;
    return p;
}

/* index_alloc -- empty tables for nshort short and nlong long keys. */
static int
index_alloc(void *ctx, struct acreS_index *ix, unsigned nshort, unsigned nlong)
{
    unsigned ns = pow2_at_least(4 * nshort, 16, &ix->shbits);
    unsigned nl = pow2_at_least(2 * nlong, 16, NULL);

    ix->sh = talloc_zero_array(ctx, struct acreS_sslot, ns);
    ix->lg = talloc_zero_array(ctx, struct acreS_lslot, nl);
    ix->shmask = ns - 1;
    ix->lgmask = nl - 1;
    return ix->sh && ix->lg ? 0 : ACRE_ERR_NOMEM;
}

/*
 * index_add -- insert the lowercase key[0..n) for id; returns -1, or the
 * id already holding that key (nothing is inserted then).
 */
static int
index_add(struct acreS_index *ix, const char *key, size_t n, int id)
{
    uint32_t i;
    int old = index_find(ix, key, n);

    if (old >= 0)
        return old;
    if (n <= 8) {
        uint64_t k = pack(key, n);
        for (i = sh_hash(k, ix->shbits); ix->sh[i].key;)
            i = (i + 1) & ix->shmask;
        ix->sh[i] = (struct acreS_sslot){k, id, (uint32_t)n};
    } else {
        uint32_t h = lg_hash(key, n);
        for (i = h & ix->lgmask; ix->lg[i].key;)
            i = (i + 1) & ix->lgmask;
        ix->lg[i] = (struct acreS_lslot){key, (uint32_t)n, h, id};
    }
    return -1;
}

static void
count_key(const char *key, unsigned *ns, unsigned *nl)
{
    if (strlen(key) <= 8)
        ++*ns;
    else
        ++*nl;
}

/* ------------------------------------------------------------------------
 * Matching rules and syntaxes
 */

int
acreS_rule_find(const char *s, size_t n)
{
    int r = acreM_find(s, n);

    if (r != ACREM_NONE || n == 0)
        return r;
    for (unsigned i = 0; i < acreS_nextra_rules; i++) {
        const struct acreS_rule_info *x = &acreS_extra_rules[i];
        if ((strlen(x->name) == n && strncasecmp(x->name, s, n) == 0) ||
            (strlen(x->oid) == n && memcmp(x->oid, s, n) == 0))
            return ACREM_COUNT + (int)i;
    }
    return 0;
}

const char *
acreS_rule_name(int rule)
{
    if (rule > ACREM_NONE && rule < ACREM_COUNT)
        return acreM_info(rule)->name;
    if (rule >= ACREM_COUNT &&
        (unsigned)(rule - ACREM_COUNT) < acreS_nextra_rules)
        return acreS_extra_rules[rule - ACREM_COUNT].name;
    return NULL;
}

int
acreS_rule_usage(int rule)
{
    if (rule > ACREM_NONE && rule < ACREM_COUNT)
        return (int)acreM_info(rule)->usage;
    if (rule >= ACREM_COUNT &&
        (unsigned)(rule - ACREM_COUNT) < acreS_nextra_rules)
        return acreS_extra_rules[rule - ACREM_COUNT].usage;
    return 0;
}

/* mr_of -- the DN parser's preparation for equality rule eq. */
static uint8_t
mr_of(int eq)
{
    switch (eq) {
    case ACREM_CASE_IGNORE:
    case ACREM_CASE_IGNORE_LIST:
    case ACREM_OID: /* descriptors compare without case */
        return ACRE_MR_CASE_IGNORE;
    case ACREM_CASE_EXACT:
        return ACRE_MR_CASE_EXACT;
    case ACREM_CASE_IGNORE_IA5:
        return ACRE_MR_CASE_IGNORE_IA5;
    case ACREM_CASE_EXACT_IA5:
        return ACRE_MR_CASE_EXACT_IA5;
    case ACREM_NUMERIC_STRING:
        return ACRE_MR_NUMERIC;
    case ACREM_TELEPHONE:
        return ACRE_MR_TELEPHONE;
    case ACREM_INTEGER:
        return ACRE_MR_INTEGER;
    case ACREM_DN:
        return ACRE_MR_DN;
    case ACREM_UNIQUE_MEMBER:
        return ACRE_MR_NAME_UID;
    default:
        return ACRE_MR_OCTET;
    }
}

/* ------------------------------------------------------------------------
 * The built-in schema and access
 */

static const acre_schema *builtin, *builtin_389;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t builtin_389_lock = PTHREAD_MUTEX_INITIALIZER;
static acre_diag builtin_diag, builtin_389_diag;
static int builtin_failed;

static int load(acre_schema *s, const char *name, const char *text, size_t len,
                acre_diag *diag);

static void
build_builtin(void)
{
    acre_schema *s;

    if (acre_schema_new(NULL, ACRE_SCHEMA_BARE, &s, &builtin_diag)) {
        builtin_failed = 1;
        return;
    }
    for (unsigned i = 0; i < acreS_nbuiltin_parts; i++) {
        const struct acreS_part *p = &acreS_builtin_parts[i];
        if (load(s, p->name, p->text, strlen(p->text), &builtin_diag)) {
            builtin_failed = 1;
            talloc_free(s);
            return;
        }
    }
    s->frozen = 1;
    __atomic_store_n(&builtin, s, __ATOMIC_RELEASE);
}

/* build_389 -- 389 Directory Server's schema alone (ACRE_SCHEMA_389).
 * Under builtin_389_lock; a failure (out of memory) is tried again by the
 * next caller. */
static void
build_389(void)
{
    acre_schema *s;

    if (builtin_389 ||
        acre_schema_new(NULL, ACRE_SCHEMA_BARE, &s, &builtin_389_diag))
        return;
    if (load(s, "builtin:389", acreS_389_part, strlen(acreS_389_part),
             &builtin_389_diag) ||
        load(s, "builtin:389-acre", acreS_389_acre_part,
             strlen(acreS_389_acre_part), &builtin_389_diag)) {
        talloc_free(s);
        return;
    }
    s->frozen = 1;
    __atomic_store_n(&builtin_389, s, __ATOMIC_RELEASE);
}

/* get_389 -- the 389 schema, or NULL with why in *why. */
static const acre_schema *
get_389(acre_diag *why)
{
    const acre_schema *b = __atomic_load_n(&builtin_389, __ATOMIC_ACQUIRE);

    if (acre_likely(b != NULL))
        return b;
    pthread_mutex_lock(&builtin_389_lock);
    build_389();
    b = builtin_389;
    if (!b)
        *why = builtin_389_diag;
    pthread_mutex_unlock(&builtin_389_lock);
    return b;
}

const acre_schema *
acreS_builtin(void)
{
    const acre_schema *b = __atomic_load_n(&builtin, __ATOMIC_ACQUIRE);

    if (acre_likely(b != NULL))
        return b;
    pthread_once(&builtin_once, build_builtin);
    return __atomic_load_n(&builtin, __ATOMIC_ACQUIRE);
}

const acre_diag *
acreS_builtin_error(void)
{
    acreS_builtin();
    return builtin_failed ? &builtin_diag : NULL;
}

/* get -- s, or the built-in schema for NULL (NULL if it cannot be made). */
static inline const acre_schema *
get(const acre_schema *s)
{
    if (acre_likely(s != NULL))
        return s;
    return acreS_builtin();
}

const acre_schema *
acreS_freeze(const acre_schema *s)
{
    s = get(s);
    if (s && !__atomic_load_n(&s->frozen, __ATOMIC_ACQUIRE))
        __atomic_store_n(&((acre_schema *)s)->frozen, 1, __ATOMIC_RELEASE);
    return s;
}

unsigned
acreS_nattrs(const acre_schema *s)
{
    s = get(s);
    return s ? s->nattrs : 0;
}

unsigned
acreS_nclasses(const acre_schema *s)
{
    s = get(s);
    return s ? s->nclasses : 0;
}

const struct acreS_attr *
acreS_attr(const acre_schema *s, int id)
{
    return &get(s)->attrs[id].pub;
}

const struct acreS_class *
acreS_class(const acre_schema *s, int id)
{
    return &get(s)->classes[id].pub;
}

int
acreS_attr_find(const acre_schema *s, const char *name, size_t n)
{
    s = get(s);
    return acre_likely(s != NULL) ? index_find(&s->ai, name, n) : -1;
}

int
acreS_class_find(const acre_schema *s, const char *name, size_t n)
{
    s = get(s);
    return s ? index_find(&s->ci, name, n) : -1;
}

int
acreS_attr_find_packed(const acre_schema *s, uint64_t key)
{
    const struct acreS_sslot *e;

    s = get(s);
    if (acre_unlikely(!s || !key))
        return -1;
    e = sh_slot(&s->ai, key);
    return e ? e->id : -1;
}

const struct acreD_type *
acreS_dn_type(const acre_schema *s, const char *name, size_t n)
{
    int id;

    s = get(s);
    if (acre_unlikely(!s) || (id = index_find(&s->ai, name, n)) < 0)
        return NULL;
    return &s->attrs[id].pub.dn;
}

const struct acreD_type *
acreS_dn_type_packed(const acre_schema *s, uint64_t key)
{
    const struct acreS_sslot *e;

    s = get(s);
    if (acre_unlikely(!s || !key))
        return NULL;
    e = sh_slot(&s->ai, key);
    return e ? &s->attrs[e->id].pub.dn : NULL;
}

const char *
acreS_attr_rule(const acre_schema *s, int id, int which)
{
    s = get(s);
    if (!s || id < 0 || (unsigned)id >= s->nattrs || which < 1 || which > 3)
        return NULL;
    return acreS_rule_name(s->attrs[id].rule[which - 1]);
}

int
acreS_is_subtype(const acre_schema *s, int id, int super)
{
    s = get(s);
    if (!s || super < 0 || (unsigned)super >= s->nattrs)
        return 0;
    for (unsigned step = 0;
         id >= 0 && (unsigned)id < s->nattrs && step <= ACRES_MAX_DEPTH;
         step++) {
        if (id == super)
            return 1;
        id = s->attrs[id].pub.sup;
    }
    return 0;
}

int
acreS_class_is(const acre_schema *s, int id, int super)
{
    s = get(s);
    if (!s || id < 0 || super < 0 || (unsigned)id >= s->nclasses ||
        (unsigned)super >= s->nclasses)
        return 0;
    return (int)((s->classes[id].anc[super / 64] >> (super % 64)) & 1);
}

int
acreS_class_allows(const acre_schema *s, int oc, int type)
{
    const struct acreS_class *c = acreS_class(s, oc);

    for (int a = type; c && a >= 0; a = acreS_attr(s, a)->sup) {
        unsigned w = (unsigned)a >> 6;
        uint64_t bit = (uint64_t)1 << ((unsigned)a & 63);
        if ((c->all_must[w] | c->all_may[w]) & bit)
            return 1;
    }
    return 0;
}

const struct acreS_known *
acreS_known(const acre_schema *s)
{
    static const struct acreS_known none = {-1, -1, -1, -1, -1, -1, -1, -1,
                                            -1, -1, -1, -1, -1, -1, -1, -1,
                                            -1, -1, -1, -1, -1, -1, -1, -1};

    s = get(s);
    return s ? &s->known : &none;
}

/* ------------------------------------------------------------------------
 * Derived data: class bitmaps and well-known ids
 */

static void
or_words(uint64_t *dst, const uint64_t *src, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        dst[i] |= src[i];
}

static void
set_bit(uint64_t *w, int i)
{
    w[i / 64] |= 1ull << (i % 64);
}

/* class_bits -- fill class c's bitmaps from its own lists and from its
 * superclasses (already done: they are shallower). */
static void
class_bits(acre_schema *n, unsigned c, unsigned stride)
{
    struct acreS_classx *x = &n->classes[c];
    uint64_t *m = n->bits + (size_t)c * stride;
    uint64_t *may = m + n->awords, *anc = m + 2 * n->awords;

    for (unsigned i = 0; i < x->pub.nmust; i++)
        set_bit(m, x->pub.must[i]);
    for (unsigned i = 0; i < x->pub.nmay; i++)
        set_bit(may, x->pub.may[i]);
    set_bit(anc, (int)c);
    for (unsigned i = 0; i < x->pub.nsup; i++) {
        const uint64_t *sm = n->bits + (size_t)x->pub.sup[i] * stride;
        or_words(m, sm, 2 * n->awords + n->cwords);
    }
    /* A class without SUP is below top, but it takes none of top's
     * attributes: slapd's required and allowed lists of a class gather
     * its superclasses' (oc_create_required), and top is none of them */
    if (x->pub.nsup == 0 && n->top >= 0 && (unsigned)n->top != c)
        or_words(anc, n->bits + (size_t)n->top * stride + 2 * n->awords,
                 n->cwords);
    x->pub.all_must = m;
    x->pub.all_may = may;
    x->anc = anc;
}

static const struct {
    const char *name;
    size_t off;
} known_names[] = {

#define K(f)                                \
    {                                       \
#f, offsetof(struct acreS_known, f) \
    }
    K(objectClass),
    K(cn),
    K(member),
    K(uniqueMember),
    K(memberURL),
    K(entryDN),
    K(hasSubordinates),
    K(subschemaSubentry),
    K(administrativeRole),
    K(subtreeSpecification),
    K(collectiveExclusions),
    K(collectiveAttributeSubentries),
    K(entryUUID),
    K(createTimestamp),
    K(modifyTimestamp),
    K(creatorsName),
    K(modifiersName),
    K(structuralObjectClass),
    K(isMemberOf),
    K(memberOf),
    K(nsRole),
    K(nsRoleDN),
    K(nsRoleFilter),
    K(nsRoleScopeDN),
#undef K
};

/* nf_name -- is s[0..len) a descr in lowercase (a-z, then a-z, 0-9 and
 * '-'): a spelling the DN parser's path 1 may take as it stands? */
static int
nf_name(const char *s, size_t len)
{
    if (len == 0 || s[0] < 'a' || s[0] > 'z')
        return 0;
    for (size_t i = 1; i < len; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
              s[i] == '-'))
            return 0;
    return 1;
}

/* dn_syntax -- what a DN value of x must fit beyond what its equality
 * rule's preparation checks (struct acreD_type.syn), or 0 */
static uint8_t
dn_syntax(const struct acreS_attrx *x)
{
    int syn = x->pub.syntax
                  ? acreM_syntax_find(x->pub.syntax, strlen(x->pub.syntax))
                  : ACREM_SYN_UNKNOWN;
    int plain = x->pub.dn.mr == ACRE_MR_CASE_IGNORE ||
                x->pub.dn.mr == ACRE_MR_CASE_EXACT;

    if (syn == ACREM_SYN_COUNTRY_STRING ||
        (plain &&
         (syn == ACREM_SYN_PRINTABLE_STRING || syn == ACREM_SYN_IA5_STRING)))
        return (uint8_t)syn;
    return 0;
}

/* dn_fast_table -- n's dnfast and dnnf tables (schema.h: struct acreS_hot), in
 * ctx: every name of 1..8 bytes (lowercase) of the types with a string
 * preparation.  n->attrs is the array the schema keeps. */
static int
dn_fast_table(acre_schema *n, void *ctx)
{
    unsigned count = 0, bits = 4;
    struct acreS_dnslot *t;
    uint64_t *nf;

    int strict = n->profile == ACRE_PROFILE_SLAPD;

    for (unsigned i = 0; i < n->nattrs; i++) {
        struct acreS_attrx *x = &n->attrs[i];
        x->pub.dn.syn = dn_syntax(x);
        if (x->pub.dn.mr <= ACRE_MR_CASE_EXACT_IA5 &&
            !(strict && x->pub.dn.syn))
            count += x->pub.nnames;
    }
    while ((1u << bits) < 2 * count)
        bits++;
    t = talloc_zero_array(ctx, struct acreS_dnslot, 1u << bits);
    nf = talloc_zero_array(ctx, uint64_t, 1u << bits);
    if (!t || !nf)
        return ACRE_ERR_NOMEM;
    n->hot.dnfast = t;
    n->hot.dnnf = nf;
    n->hot.dnbits = bits;
    n->hot.dnmask = (1u << bits) - 1;
    for (unsigned i = 0; i < n->nattrs; i++) {
        const struct acreS_attrx *x = &n->attrs[i];
        /* under slapd's profile a value its syntax checks goes the
         * general way (dn.c: emit_string) */
        if (x->pub.dn.mr > ACRE_MR_CASE_EXACT_IA5 || (strict && x->pub.dn.syn))
            continue;
        for (unsigned j = 0; j < x->pub.nnames; j++) {
            size_t len = strlen(x->lnames[j]);
            uint64_t key;
            uint32_t k;
            if (len - 1 >= 8)
                continue;
            key = pack(x->lnames[j], len);
            k = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - bits));
            while (t[k].key && t[k].key != key)
                k = (k + 1) & n->hot.dnmask;
            t[k].key = key;
            t[k].ty = &x->pub.dn;
            if (j == 0 && x->pub.dn.lower && key == x->pub.dn.lkey &&
                nf_name(x->lnames[j], len)) {
                k = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - bits));
                while (nf[k] && nf[k] != key)
                    k = (k + 1) & n->hot.dnmask;
                nf[k] = key;
            }
        }
    }
    return 0;
}

/*
 * derive -- (re)compute n's class bitmaps (allocated in ctx), `top` and
 * the well-known ids.  Classes are done shallowest first.
 */
static int
derive(acre_schema *n, void *ctx)
{
    unsigned stride;

    struct acreS_dinfo *t =
        talloc_zero_array(ctx, struct acreS_dinfo, n->nattrs + 1);
    if (!t)
        return ACRE_ERR_NOMEM;
    for (unsigned i = 0; i < n->nattrs; i++) {
        t[i].type = (int)i;
        t[i].text = n->attrs[i].pub.dn.name;
        t[i].text_len = (uint32_t)strlen(t[i].text);
    }
    for (unsigned i = 0; i < n->nattrs; i++)
        if (n->attrs[i].pub.sup >= 0 &&
            (unsigned)n->attrs[i].pub.sup < n->nattrs)
            t[n->attrs[i].pub.sup].has_sub = 1;
    n->hot.types = t;
    n->hot.ntypes = n->nattrs;
    if (dn_fast_table(n, ctx))
        return ACRE_ERR_NOMEM;
    n->awords = (n->nattrs + 63) / 64;
    n->cwords = (n->nclasses + 63) / 64;
    stride = 2 * n->awords + n->cwords;
    n->top = index_find(&n->ci, "2.5.6.0", 7);
    n->bits = NULL;
    if (n->nclasses) {
        n->bits =
            talloc_zero_array(ctx, uint64_t, (size_t)n->nclasses * stride);
        if (!n->bits)
            return ACRE_ERR_NOMEM;
    }
    if (n->top >= 0)
        class_bits(n, (unsigned)n->top, stride);
    for (unsigned d = 0; d <= ACRES_MAX_DEPTH; d++)
        for (unsigned c = 0; c < n->nclasses; c++)
            if (n->classes[c].depth == d && (int)c != n->top)
                class_bits(n, c, stride);
    for (size_t i = 0; i < sizeof known_names / sizeof known_names[0]; i++)
        *(int *)((char *)&n->known + known_names[i].off) = index_find(
            &n->ai, known_names[i].name, strlen(known_names[i].name));
    return 0;
}

/* ------------------------------------------------------------------------
 * Loading: the next state
 */

enum { UNSEEN = 0, ACTIVE = 1, DONE = 2 };

struct load {
    acre_schema *s;             /* the current state */
    acre_schema n;              /* the next state (a value, not an object) */
    struct acreS_stage *st;     /* what is being added */
    void *mem;                  /* scratch */
    int *at_id, *oc_id;         /* per staged definition: its id */
    uint8_t *at_same, *oc_same; /* 1: repeats the existing at_id/oc_id */
    uint8_t *at_state, *oc_state;
    unsigned *at_stage, *oc_stage; /* new id - old count -> staged index */
    struct acreS_attrx *at_tmp;    /* resolved copies of repeated types */
    struct acreS_classx *oc_tmp;
    int dry; /* checking a load on a frozen schema */
};

#define FAILW(L, w, pos, code, ...) \
    acreS_fail((L)->st, (w), (pos), (code), __VA_ARGS__)

static int
nomem(struct load *L)
{
    static const struct acreS_where nowhere;
    return FAILW(L, &nowhere, 0, ACRE_ERR_NOMEM, "out of memory");
}

static char *
lower_dup(void *ctx, const char *s)
{
    size_t n = strlen(s);
    char *r = talloc_size(ctx, n + 1);

    if (r)
        for (size_t i = 0; i <= n; i++)
            r[i] = (char)lc((uint8_t)s[i]);
    return r;
}

static const char **
lower_names(void *ctx, const char *const *names, unsigned n)
{
    const char **r = talloc_array(ctx, const char *, n ? n : 1);

    for (unsigned i = 0; r && i < n; i++)
        if (!(r[i] = lower_dup(r, names[i])))
            return NULL;
    return r;
}

/* same_names -- do all of `names` name existing id, and as many? */
static int
same_names(const struct acreS_index *ix, const char *const *names, unsigned n,
           unsigned have, int id)
{
    if (n != have)
        return 0;
    for (unsigned i = 0; i < n; i++)
        if (index_find(ix, names[i], strlen(names[i])) != id)
            return 0;
    return 1;
}

/*
 * assign_ids -- decide, for every staged definition, whether it repeats an
 * existing one (same OID) or is new (next free id).
 */
static int
assign_ids(struct load *L)
{
    struct acreS_stage *st = L->st;
    acre_schema *s = L->s;
    unsigned na = s->nattrs, nc = s->nclasses;

    for (unsigned k = 0; k < st->nat; k++) {
        struct acreS_atdef *a = &st->at[k];
        int old = index_find(&s->ai, a->oid, strlen(a->oid));
        L->at_same[k] = old >= 0;
        L->at_id[k] = old >= 0 ? old : (int)na++;
        if (old >= 0 && !same_names(&s->ai, a->names, a->nnames,
                                    s->attrs[old].pub.nnames, old))
            return FAILW(L, &a->where, a->oid_pos, ACRE_ERR_SCHEMA_DUP,
                         "attribute type %s is already defined with other "
                         "names",
                         a->oid);
    }
    for (unsigned k = 0; k < st->noc; k++) {
        struct acreS_ocdef *o = &st->oc[k];
        int old = index_find(&s->ci, o->oid, strlen(o->oid));
        L->oc_same[k] = old >= 0;
        L->oc_id[k] = old >= 0 ? old : (int)nc++;
        if (old >= 0 && !same_names(&s->ci, o->names, o->nnames,
                                    s->classes[old].pub.nnames, old))
            return FAILW(L, &o->where, o->oid_pos, ACRE_ERR_SCHEMA_DUP,
                         "object class %s is already defined with other "
                         "names",
                         o->oid);
    }
    if (na > ACRES_MAX_ATTRS || nc > ACRES_MAX_CLASSES) {
        static const struct acreS_where nowhere;
        return FAILW(L, &nowhere, 0, ACRE_ERR_SCHEMA_SYNTAX,
                     "more than %u attribute types or %u object classes",
                     ACRES_MAX_ATTRS, ACRES_MAX_CLASSES);
    }
    L->n.nattrs = na;
    L->n.nclasses = nc;
    L->at_stage = talloc_array(L->mem, unsigned, na - s->nattrs + 1);
    L->oc_stage = talloc_array(L->mem, unsigned, nc - s->nclasses + 1);
    if (!L->at_stage || !L->oc_stage)
        return nomem(L);
    for (unsigned k = 0; k < st->nat; k++)
        if (!L->at_same[k])
            L->at_stage[L->at_id[k] - (int)s->nattrs] = k;
    for (unsigned k = 0; k < st->noc; k++)
        if (!L->oc_same[k])
            L->oc_stage[L->oc_id[k] - (int)s->nclasses] = k;
    return 0;
}

/* fill_dn -- the DN parser's view of a type whose names are set. */
static void
fill_dn(struct acreS_attrx *x)
{
    const char *name = x->pub.nnames ? x->pub.names[0] : x->pub.oid;
    const char *lname = x->pub.nnames ? x->lnames[0] : x->pub.oid;

    x->pub.dn.name = name;
    x->pub.dn.lname = lname;
    x->pub.dn.len = (uint8_t)strlen(name);
    x->pub.dn.lower = strcmp(name, lname) == 0;
    x->pub.dn.lkey = x->pub.dn.len - 1u < 8 ? pack(lname, x->pub.dn.len) : 0;
    x->pub.dn.nkey = x->pub.dn.len - 1u < 8 ? pack(name, x->pub.dn.len) : 0;
    x->pub.dn.mr = ACRE_MR_OCTET;
}

/* new_attr -- the unresolved record of staged attribute type a. */
static int
new_attr(struct load *L, const struct acreS_atdef *a, int id,
         struct acreS_attrx *x)
{
    memset(x, 0, sizeof *x);
    x->pub.id = id;
    x->pub.oid = a->oid;
    x->pub.names = a->names;
    x->pub.nnames = a->nnames;
    x->pub.sup = -1;
    x->pub.flags = a->flags;
    x->pub.usage = a->usage;
    x->pub.desc = a->desc;
    if (!(x->lnames = lower_names(L->st->keep, a->names, a->nnames)))
        return nomem(L);
    fill_dn(x);
    return 0;
}

static int
new_class(struct load *L, const struct acreS_ocdef *o, int id,
          struct acreS_classx *x)
{
    memset(x, 0, sizeof *x);
    x->pub.id = id;
    x->pub.oid = o->oid;
    x->pub.names = o->names;
    x->pub.nnames = o->nnames;
    x->pub.name = o->nnames ? o->names[0] : o->oid;
    x->pub.kind = o->kind;
    x->pub.flags = o->flags;
    if (!(x->lnames = lower_names(L->st->keep, o->names, o->nnames)))
        return nomem(L);
    return 0;
}

/* grow -- the next arrays: the current records, then the new ones. */
static int
grow(struct load *L)
{
    struct acreS_stage *st = L->st;
    acre_schema *s = L->s, *n = &L->n;
    int rc;

    n->attrs =
        talloc_array(L->mem, struct acreS_attrx, n->nattrs ? n->nattrs : 1);
    n->classes = talloc_array(L->mem, struct acreS_classx,
                              n->nclasses ? n->nclasses : 1);
    L->at_tmp = talloc_array(L->mem, struct acreS_attrx, st->nat ? st->nat : 1);
    L->oc_tmp =
        talloc_array(L->mem, struct acreS_classx, st->noc ? st->noc : 1);
    if (!n->attrs || !n->classes || !L->at_tmp || !L->oc_tmp)
        return nomem(L);
    if (s->nattrs)
        memcpy(n->attrs, s->attrs, s->nattrs * sizeof *n->attrs);
    if (s->nclasses)
        memcpy(n->classes, s->classes, s->nclasses * sizeof *n->classes);
    for (unsigned k = 0; k < st->nat; k++) {
        struct acreS_attrx *x =
            L->at_same[k] ? &L->at_tmp[k] : &n->attrs[L->at_id[k]];
        if ((rc = new_attr(L, &st->at[k], L->at_id[k], x)))
            return rc;
    }
    for (unsigned k = 0; k < st->noc; k++) {
        struct acreS_classx *x =
            L->oc_same[k] ? &L->oc_tmp[k] : &n->classes[L->oc_id[k]];
        if ((rc = new_class(L, &st->oc[k], L->oc_id[k], x)))
            return rc;
    }
    return 0;
}

/* keys_of -- the keys of an attribute or class record: lnames + OID. */
static const char *
key_of(const char *const *lnames, unsigned nnames, const char *oid, unsigned i)
{
    return i < nnames ? lnames[i] : oid;
}

/*
 * build_attr_index -- the next attribute index; a new name or OID that is
 * already taken is ACRE_ERR_SCHEMA_DUP at that name.
 */
static int
build_attr_index(struct load *L)
{
    acre_schema *n = &L->n;
    unsigned ns = 0, nl = 0, old = L->s->nattrs;

    for (unsigned id = 0; id < n->nattrs; id++)
        for (unsigned i = 0; i <= n->attrs[id].pub.nnames; i++)
            count_key(key_of(n->attrs[id].lnames, n->attrs[id].pub.nnames,
                             n->attrs[id].pub.oid, i),
                      &ns, &nl);
    if (index_alloc(L->mem, &n->ai, ns, nl))
        return nomem(L);
    for (unsigned id = 0; id < n->nattrs; id++) {
        const struct acreS_attrx *x = &n->attrs[id];
        for (unsigned i = 0; i <= x->pub.nnames; i++) {
            const char *key = key_of(x->lnames, x->pub.nnames, x->pub.oid, i);
            int clash = index_add(&n->ai, key, strlen(key), (int)id);
            unsigned k;
            if (clash < 0)
                continue;
            k = L->at_stage[id - old];
            return FAILW(L, &L->st->at[k].where,
                         i < x->pub.nnames ? L->st->at[k].name_pos[i]
                                           : L->st->at[k].oid_pos,
                         ACRE_ERR_SCHEMA_DUP,
                         "attribute type %s '%s' is already defined%s",
                         i < x->pub.nnames ? "name" : "OID", key,
                         (unsigned)clash >= old ? " in this input" : "");
        }
    }
    return 0;
}

static int
build_class_index(struct load *L)
{
    acre_schema *n = &L->n;
    unsigned ns = 0, nl = 0, old = L->s->nclasses;

    for (unsigned id = 0; id < n->nclasses; id++)
        for (unsigned i = 0; i <= n->classes[id].pub.nnames; i++)
            count_key(key_of(n->classes[id].lnames, n->classes[id].pub.nnames,
                             n->classes[id].pub.oid, i),
                      &ns, &nl);
    if (index_alloc(L->mem, &n->ci, ns, nl))
        return nomem(L);
    for (unsigned id = 0; id < n->nclasses; id++) {
        const struct acreS_classx *x = &n->classes[id];
        for (unsigned i = 0; i <= x->pub.nnames; i++) {
            const char *key = key_of(x->lnames, x->pub.nnames, x->pub.oid, i);
            int clash = index_add(&n->ci, key, strlen(key), (int)id);
            unsigned k;
            if (clash < 0)
                continue;
            k = L->oc_stage[id - old];
            return FAILW(L, &L->st->oc[k].where,
                         i < x->pub.nnames ? L->st->oc[k].name_pos[i]
                                           : L->st->oc[k].oid_pos,
                         ACRE_ERR_SCHEMA_DUP,
                         "object class %s '%s' is already defined%s",
                         i < x->pub.nnames ? "name" : "OID", key,
                         (unsigned)clash >= old ? " in this input" : "");
        }
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Resolving attribute types
 */

static int
syntax_known(const struct load *L, const char *oid)
{
    if (acreM_syntax_find(oid, strlen(oid)) != ACREM_SYN_UNKNOWN)
        return 1;
    for (unsigned i = 0; i < acreS_nextra_syntaxes; i++)
        if (strcmp(acreS_extra_syntaxes[i], oid) == 0)
            return 1;
    for (unsigned i = 0; i < L->s->nsyntaxes; i++)
        if (strcmp(L->s->syntaxes[i], oid) == 0)
            return 1;
    for (unsigned i = 0; i < L->st->nsyn; i++)
        if (strcmp(L->st->syn[i], oid) == 0)
            return 1;
    return 0;
}

static struct acreS_attrx *
at_target(struct load *L, unsigned k)
{
    return L->at_same[k] ? &L->at_tmp[k] : &L->n.attrs[L->at_id[k]];
}

/* stage_of_attr -- the staged definition of new attribute id. */
static unsigned
stage_of_attr(const struct load *L, int id)
{
    return L->at_stage[id - (int)L->s->nattrs];
}

static int resolve_at(struct load *L, unsigned k, unsigned level);

/* at_sup -- resolve SUP of staged type k into x (inheritance included). */
static int
at_sup(struct load *L, unsigned k, unsigned level, struct acreS_attrx *x)
{
    const struct acreS_atdef *a = &L->st->at[k];
    const struct acreS_attrx *sup;
    int id = index_find(&L->n.ai, a->sup.s, a->sup.n), rc;

    if (id < 0)
        return FAILW(L, &a->where, a->sup.pos, ACRE_ERR_SCHEMA_UNKNOWN,
                     "unknown supertype '%.*s'", (int)a->sup.n, a->sup.s);
    if ((unsigned)id >= L->s->nattrs) {
        unsigned k2 = stage_of_attr(L, id);
        if (L->at_state[k2] == ACTIVE)
            return FAILW(L, &a->where, a->sup.pos, ACRE_ERR_SCHEMA_SYNTAX,
                         "supertype cycle through '%.*s'", (int)a->sup.n,
                         a->sup.s);
        if ((rc = resolve_at(L, k2, level + 1)))
            return rc;
    }
    sup = &L->n.attrs[id];
    if (sup->depth >= ACRES_MAX_DEPTH)
        return FAILW(L, &a->where, a->sup.pos, ACRE_ERR_SCHEMA_SYNTAX,
                     "supertype chain longer than %u", ACRES_MAX_DEPTH);
    if (sup->pub.usage != x->pub.usage)
        return FAILW(L, &a->where, a->sup.pos, ACRE_ERR_SCHEMA_SYNTAX,
                     "USAGE differs from that of supertype '%.*s'",
                     (int)a->sup.n, a->sup.s);
    if ((sup->pub.flags & ACRES_OBSOLETE) && !(x->pub.flags & ACRES_OBSOLETE))
        return FAILW(L, &a->where, a->sup.pos, ACRE_ERR_SCHEMA_SYNTAX,
                     "supertype '%.*s' is OBSOLETE: so must its subtypes be",
                     (int)a->sup.n, a->sup.s);
    x->pub.sup = id;
    x->depth = sup->depth + 1;
    for (int r = 0; r < 3; r++)
        x->rule[r] = sup->rule[r];
    x->pub.syntax = sup->pub.syntax;
    x->pub.syntax_len = sup->pub.syntax_len;
    return 0;
}

static int
at_rules(struct load *L, unsigned k, struct acreS_attrx *x)
{
    static const char *const what[] = {"an equality", "an ordering",
                                       "a substrings"};
    const struct acreS_atdef *a = &L->st->at[k];

    for (int r = 0; r < 3; r++) {
        const struct acreS_ref *ref = &a->rule[r];
        int id;
        if (!ref->s)
            continue;
        if (!(id = acreS_rule_find(ref->s, ref->n)))
            return FAILW(L, &a->where, ref->pos, ACRE_ERR_SCHEMA_UNKNOWN,
                         "unknown matching rule '%.*s'", (int)ref->n, ref->s);
        if (acreS_rule_usage(id) != r + 1)
            return FAILW(L, &a->where, ref->pos, ACRE_ERR_SCHEMA_SYNTAX,
                         "'%.*s' is not %s rule", (int)ref->n, ref->s, what[r]);
        x->rule[r] = id;
        if (r != ACRES_EQ && !x->rule[ACRES_EQ])
            return FAILW(L, &a->where, ref->pos, ACRE_ERR_SCHEMA_SYNTAX,
                         "%s rule without an equality rule", what[r]);
    }
    x->pub.eq = x->rule[ACRES_EQ] < ACREM_COUNT ? x->rule[ACRES_EQ] : 0;
    x->pub.ord = x->rule[ACRES_ORD] < ACREM_COUNT ? x->rule[ACRES_ORD] : 0;
    x->pub.sub = x->rule[ACRES_SUB] < ACREM_COUNT ? x->rule[ACRES_SUB] : 0;
    x->pub.dn.mr = mr_of(x->pub.eq);
    return 0;
}

/* at_checks -- the syntax and the RFC 4512 / 3671 rules on flags. */
static int
at_checks(struct load *L, unsigned k, struct acreS_attrx *x)
{
    const struct acreS_atdef *a = &L->st->at[k];

    if (a->syntax) {
        if (!syntax_known(L, a->syntax))
            return FAILW(L, &a->where, a->syntax_pos, ACRE_ERR_SCHEMA_UNKNOWN,
                         "unknown syntax %s", a->syntax);
        x->pub.syntax = a->syntax;
        x->pub.syntax_len = a->syntax_len;
    }
    if ((x->pub.flags & ACRES_COLLECTIVE) && x->pub.usage != ACRES_USER)
        return FAILW(L, &a->where, a->oid_pos, ACRE_ERR_SCHEMA_SYNTAX,
                     "collective attribute type %s must have USAGE "
                     "userApplications",
                     a->oid);
    if ((x->pub.flags & ACRES_COLLECTIVE) &&
        (x->pub.flags & ACRES_SINGLE_VALUE))
        return FAILW(L, &a->where, a->oid_pos, ACRE_ERR_SCHEMA_SYNTAX,
                     "collective attribute type %s cannot be SINGLE-VALUE",
                     a->oid);
    if ((x->pub.flags & ACRES_NO_USER_MOD) && x->pub.usage == ACRES_USER)
        return FAILW(L, &a->where, a->oid_pos, ACRE_ERR_SCHEMA_SYNTAX,
                     "NO-USER-MODIFICATION attribute type %s must be "
                     "operational",
                     a->oid);
    return 0;
}

/*
 * resolve_at -- resolve staged attribute type k: its supertype first
 * (recursively, `level` deep), then what it inherits and states.
 */
static int
resolve_at(struct load *L, unsigned k, unsigned level)
{
    struct acreS_attrx *x = at_target(L, k);
    const struct acreS_atdef *a = &L->st->at[k];
    int rc;

    if (L->at_state[k] == DONE)
        return 0;
    if (level > ACRES_MAX_DEPTH)
        return FAILW(L, &a->where, a->sup.pos, ACRE_ERR_SCHEMA_SYNTAX,
                     "supertype chain longer than %u", ACRES_MAX_DEPTH);
    L->at_state[k] = ACTIVE;
    if (a->sup.s && (rc = at_sup(L, k, level, x)))
        return rc;
    if ((rc = at_rules(L, k, x)) || (rc = at_checks(L, k, x)))
        return rc;
    L->at_state[k] = DONE;
    return 0;
}

/* same_attr -- does resolved x say what existing e says? */
static int
same_attr(const struct acreS_attrx *x, const struct acreS_attrx *e)
{
    return x->pub.sup == e->pub.sup && x->rule[0] == e->rule[0] &&
           x->rule[1] == e->rule[1] && x->rule[2] == e->rule[2] &&
           strcmp(x->pub.syntax, e->pub.syntax) == 0 &&
           x->pub.syntax_len == e->pub.syntax_len &&
           x->pub.flags == e->pub.flags && x->pub.usage == e->pub.usage;
}

static int
resolve_attrs(struct load *L)
{
    int rc;

    for (unsigned k = 0; k < L->st->nat; k++)
        if ((rc = resolve_at(L, k, 0)))
            return rc;
    for (unsigned k = 0; k < L->st->nat; k++) {
        struct acreS_attrx *e = &L->n.attrs[L->at_id[k]];
        if (!L->at_same[k])
            continue;
        if (!same_attr(&L->at_tmp[k], e)) {
            if (!e->replaceable || L->dry)
                return FAILW(L, &L->st->at[k].where, L->st->at[k].oid_pos,
                             ACRE_ERR_SCHEMA_DUP,
                             "attribute type %s is already defined "
                             "differently",
                             L->st->at[k].oid);
            *e = L->at_tmp[k]; /* what slapd would have had first */
        }
        e->replaceable = 0;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Resolving object classes
 */

static struct acreS_classx *
oc_target(struct load *L, unsigned k)
{
    return L->oc_same[k] ? &L->oc_tmp[k] : &L->n.classes[L->oc_id[k]];
}

static unsigned
stage_of_class(const struct load *L, int id)
{
    return L->oc_stage[id - (int)L->s->nclasses];
}

static int resolve_oc(struct load *L, unsigned k, unsigned level);

/* kind_ok -- may a class of kind `kind` have a superclass of kind `sup`
 * (RFC 4512 2.4.1-2.4.3)? */
static int
kind_ok(enum acreS_kind kind, enum acreS_kind sup)
{
    if (kind == ACRES_ABSTRACT)
        return sup == ACRES_ABSTRACT;
    if (kind == ACRES_AUXILIARY)
        return sup != ACRES_STRUCTURAL;
    return sup != ACRES_AUXILIARY;
}

static int
oc_sup(struct load *L, unsigned k, unsigned level, struct acreS_classx *x)
{
    static const char *const kinds[] = {"abstract", "structural", "auxiliary"};
    const struct acreS_ocdef *o = &L->st->oc[k];
    int *ids = talloc_array(L->st->keep, int, o->nsup ? o->nsup : 1), rc;

    if (!ids)
        return nomem(L);
    for (unsigned i = 0; i < o->nsup; i++) {
        const struct acreS_ref *r = &o->sup[i];
        const struct acreS_classx *sup;
        int id = index_find(&L->n.ci, r->s, r->n);
        if (id < 0)
            return FAILW(L, &o->where, r->pos, ACRE_ERR_SCHEMA_UNKNOWN,
                         "unknown superclass '%.*s'", (int)r->n, r->s);
        if ((unsigned)id >= L->s->nclasses) {
            unsigned k2 = stage_of_class(L, id);
            if (L->oc_state[k2] == ACTIVE)
                return FAILW(L, &o->where, r->pos, ACRE_ERR_SCHEMA_SYNTAX,
                             "superclass cycle through '%.*s'", (int)r->n,
                             r->s);
            if ((rc = resolve_oc(L, k2, level + 1)))
                return rc;
        }
        sup = &L->n.classes[id];
        if (!kind_ok(x->pub.kind, sup->pub.kind))
            return FAILW(L, &o->where, r->pos, ACRE_ERR_SCHEMA_SYNTAX,
                         "%s class cannot inherit from %s class '%.*s'",
                         kinds[x->pub.kind], kinds[sup->pub.kind], (int)r->n,
                         r->s);
        if ((sup->pub.flags & ACRES_OBSOLETE) &&
            !(x->pub.flags & ACRES_OBSOLETE))
            return FAILW(L, &o->where, r->pos, ACRE_ERR_SCHEMA_SYNTAX,
                         "superclass '%.*s' is OBSOLETE: so must its "
                         "subclasses be",
                         (int)r->n, r->s);
        if (sup->depth >= ACRES_MAX_DEPTH)
            return FAILW(L, &o->where, r->pos, ACRE_ERR_SCHEMA_SYNTAX,
                         "superclass chain longer than %u", ACRES_MAX_DEPTH);
        if (sup->depth + 1 > x->depth)
            x->depth = sup->depth + 1;
        ids[i] = id;
    }
    x->pub.sup = ids;
    x->pub.nsup = o->nsup;
    return 0;
}

/* oc_attrs -- MUST or MAY: attribute type ids. */
static int
oc_attrs(struct load *L, const struct acreS_ocdef *o,
         const struct acreS_ref *refs, unsigned n, const int **out)
{
    int *ids = talloc_array(L->st->keep, int, n ? n : 1);

    if (!ids)
        return nomem(L);
    for (unsigned i = 0; i < n; i++)
        if ((ids[i] = index_find(&L->n.ai, refs[i].s, refs[i].n)) < 0)
            return FAILW(L, &o->where, refs[i].pos, ACRE_ERR_SCHEMA_UNKNOWN,
                         "unknown attribute type '%.*s'", (int)refs[i].n,
                         refs[i].s);
    *out = ids;
    return 0;
}

static int
resolve_oc(struct load *L, unsigned k, unsigned level)
{
    struct acreS_classx *x = oc_target(L, k);
    const struct acreS_ocdef *o = &L->st->oc[k];
    int rc;

    if (L->oc_state[k] == DONE)
        return 0;
    if (level > ACRES_MAX_DEPTH)
        return FAILW(L, &o->where, o->oid_pos, ACRE_ERR_SCHEMA_SYNTAX,
                     "superclass chain longer than %u", ACRES_MAX_DEPTH);
    L->oc_state[k] = ACTIVE;
    if ((rc = oc_sup(L, k, level, x)) ||
        (rc = oc_attrs(L, o, o->must, o->nmust, &x->pub.must)) ||
        (rc = oc_attrs(L, o, o->may, o->nmay, &x->pub.may)))
        return rc;
    x->pub.nmust = o->nmust;
    x->pub.nmay = o->nmay;
    L->oc_state[k] = DONE;
    return 0;
}

/* same_set -- do a[0..na) and b[0..nb) hold the same ids? */
static int
same_set(const int *a, unsigned na, const int *b, unsigned nb)
{
    for (unsigned pass = 0; pass < 2; pass++) {
        for (unsigned i = 0; i < na; i++) {
            unsigned j = 0;
            while (j < nb && b[j] != a[i])
                j++;
            if (j == nb)
                return 0;
        }
        const int *t = a;
        unsigned nt = na;
        a = b, na = nb, b = t, nb = nt;
    }
    return 1;
}

static int
same_class(const struct acreS_classx *x, const struct acreS_classx *e)
{
    return x->pub.kind == e->pub.kind && x->pub.flags == e->pub.flags &&
           same_set(x->pub.sup, x->pub.nsup, e->pub.sup, e->pub.nsup) &&
           same_set(x->pub.must, x->pub.nmust, e->pub.must, e->pub.nmust) &&
           same_set(x->pub.may, x->pub.nmay, e->pub.may, e->pub.nmay);
}

static int
resolve_classes(struct load *L)
{
    int rc;

    for (unsigned k = 0; k < L->st->noc; k++)
        if ((rc = resolve_oc(L, k, 0)))
            return rc;
    for (unsigned k = 0; k < L->st->noc; k++)
        if (L->oc_same[k] &&
            !same_class(&L->oc_tmp[k], &L->n.classes[L->oc_id[k]]))
            return FAILW(L, &L->st->oc[k].where, L->st->oc[k].oid_pos,
                         ACRE_ERR_SCHEMA_DUP,
                         "object class %s is already defined differently",
                         L->st->oc[k].oid);
    return 0;
}

/* ------------------------------------------------------------------------
 * Commit
 */

/* opt_defined -- slapd's ad_find_option_definition over defs[0..n):
 * the definition of option o[0..len) (its name, or a prefix ending in
 * '-' or '=' that starts it), or NULL */
static const struct acreS_optdef *
opt_defined(const struct acreS_optdef *defs, unsigned n, const char *o,
            unsigned len)
{
    for (unsigned i = 0; i < n; i++) {
        unsigned dl = defs[i].len;
        int prefix =
            dl && (defs[i].name[dl - 1] == '-' || defs[i].name[dl - 1] == '=');
        if ((dl == len || (prefix && dl < len)) &&
            !strncasecmp(defs[i].name, o, dl))
            return &defs[i];
    }
    return NULL;
}

/* The options defined when none was: slapd's default. */
static const struct acreS_optdef lang_only[] = {{"lang-", 5}};

static const struct acreS_optdef *
optdefs_of(const acre_schema *s, unsigned *n)
{
    if (!s || !s->optdefs_set) {
        *n = 1;
        return lang_only;
    }
    *n = s->noptdefs;
    return s->optdefs;
}

/* merge_opts -- the next option definitions: the stage's after those
 * defined (the first replaces slapd's default), each refused as
 * ad_define_option refuses it: "binary", one already defined (or
 * covered by a prefix), a prefix that would cover one defined. */
static int
merge_opts(struct load *L)
{
    acre_schema *s = L->s, *n = &L->n;
    const struct acreS_stage *st = L->st;
    unsigned have = s->optdefs_set ? s->noptdefs : 0;

    n->optdefs = talloc_array(L->mem, struct acreS_optdef, have + st->nopt + 1);
    if (!n->optdefs)
        return nomem(L);
    if (have)
        memcpy(n->optdefs, s->optdefs, have * sizeof *s->optdefs);
    n->noptdefs = have;
    for (unsigned k = 0; k < st->nopt; k++) {
        const struct acreS_optdef *o = &st->opt[k].def;
        const struct acreS_where *w = &st->opt[k].where;
        size_t pos = st->opt[k].pos;
        int prefix = o->name[o->len - 1] == '-' || o->name[o->len - 1] == '=';
        if ((o->len == 6 && !strncasecmp(o->name, "binary", 6)) ||
            opt_defined(n->optdefs, n->noptdefs, o->name, o->len))
            return FAILW(L, w, pos, ACRE_ERR_SCHEMA_DUP,
                         "option \"%s\" is already defined", o->name);
        for (unsigned i = 0; prefix && i < n->noptdefs; i++)
            if (n->optdefs[i].len > o->len &&
                !strncasecmp(n->optdefs[i].name, o->name, o->len))
                return FAILW(L, w, pos, ACRE_ERR_SCHEMA_DUP,
                             "option \"%s\" overrides previous option",
                             o->name);
        n->optdefs[n->noptdefs++] = *o;
    }
    n->optdefs_set = s->optdefs_set || st->nopt;
    return 0;
}

/* merge_lists -- the next macro, syntax and option arrays. */
static int
merge_lists(struct load *L)
{
    acre_schema *s = L->s, *n = &L->n;
    struct acreS_stage *st = L->st;

    n->nmacros = s->nmacros + st->nmac;
    n->nsyntaxes = s->nsyntaxes + st->nsyn;
    if (n->nmacros > ACRES_MAX_MACROS || n->nsyntaxes > ACRES_MAX_SYNTAX) {
        static const struct acreS_where nowhere;
        return FAILW(L, &nowhere, 0, ACRE_ERR_SCHEMA_SYNTAX,
                     "too many OID macros or syntaxes");
    }
    n->macros = talloc_array(L->mem, struct acreS_macro, n->nmacros + 1);
    n->syntaxes = talloc_array(L->mem, const char *, n->nsyntaxes + 1);
    if (!n->macros || !n->syntaxes)
        return nomem(L);
    if (s->nmacros)
        memcpy(n->macros, s->macros, s->nmacros * sizeof *s->macros);
    if (st->nmac)
        memcpy(n->macros + s->nmacros, st->mac, st->nmac * sizeof *st->mac);
    if (s->nsyntaxes)
        memcpy(n->syntaxes, s->syntaxes, s->nsyntaxes * sizeof *s->syntaxes);
    if (st->nsyn)
        memcpy(n->syntaxes + s->nsyntaxes, st->syn, st->nsyn * sizeof *st->syn);
    return merge_opts(L);
}

/* install -- make n the state of s (steals, frees: cannot fail). */
static void
install(acre_schema *s, acre_schema *n, void *keep)
{
/* the arrays a state owns, as install moves them */
#define STATE_ARRAYS(x)                                                      \
    x->attrs, x->classes, x->ai.sh, x->ai.lg, x->ci.sh, x->ci.lg, x->macros, \
        x->syntaxes, x->optdefs, x->bits, (void *)x->hot.types,              \
        (void *)x->hot.dnfast, (void *)x->hot.dnnf
    void *old[] = {STATE_ARRAYS(s)};
    void *next[] = {STATE_ARRAYS(n)};
#undef STATE_ARRAYS

    for (size_t i = 0; i < sizeof next / sizeof next[0]; i++)
        talloc_steal(s, next[i]);
    if (keep)
        talloc_steal(s, keep);
    n->hot.magic = s->hot.magic;
    n->frozen = s->frozen;
    *s = *n;
    for (size_t i = 0; i < sizeof old / sizeof old[0]; i++)
        talloc_free(old[i]);
}

/*
 * first_new -- for a schema in use: 0 when the stage only repeats what s
 * already holds (every type and class by OID, every macro and syntax),
 * else an ACRE_ERR_SCHEMA_FROZEN error naming the first new definition.
 */
static int
first_new(struct load *L)
{
    static const struct acreS_where nowhere;
    const struct acreS_stage *st = L->st;
    const acre_schema *s = L->s;

    for (unsigned k = 0; k < st->nat; k++)
        if (!L->at_same[k])
            return FAILW(L, &st->at[k].where, st->at[k].oid_pos,
                         ACRE_ERR_SCHEMA_FROZEN,
                         "attribute type %s is not in the schema in use, "
                         "which can no longer change",
                         st->at[k].oid);
    for (unsigned k = 0; k < st->noc; k++)
        if (!L->oc_same[k])
            return FAILW(L, &st->oc[k].where, st->oc[k].oid_pos,
                         ACRE_ERR_SCHEMA_FROZEN,
                         "object class %s is not in the schema in use, "
                         "which can no longer change",
                         st->oc[k].oid);
    for (unsigned k = 0; k < st->nmac; k++) {
        unsigned i = 0;
        while (i < s->nmacros &&
               (strcasecmp(s->macros[i].name, st->mac[k].name) ||
                strcmp(s->macros[i].oid, st->mac[k].oid)))
            i++;
        if (i == s->nmacros)
            return FAILW(L, &nowhere, 0, ACRE_ERR_SCHEMA_FROZEN,
                         "OID macro %s is not in the schema in use, which "
                         "can no longer change",
                         st->mac[k].name);
    }
    for (unsigned k = 0; k < st->nopt; k++) {
        const struct acreS_optdef *o = &st->opt[k].def;
        unsigned i = 0;
        while (s->optdefs_set && i < s->noptdefs &&
               (s->optdefs[i].len != o->len ||
                strncasecmp(s->optdefs[i].name, o->name, o->len)))
            i++;
        if (!s->optdefs_set || i == s->noptdefs)
            return FAILW(L, &st->opt[k].where, st->opt[k].pos,
                         ACRE_ERR_SCHEMA_FROZEN,
                         "attribute option %s is not in the schema in use, "
                         "which can no longer change",
                         o->name);
    }
    for (unsigned k = 0; k < st->nsyn; k++) {
        unsigned i = 0;
        while (i < s->nsyntaxes && strcmp(s->syntaxes[i], st->syn[k]))
            i++;
        if (i == s->nsyntaxes)
            return FAILW(L, &nowhere, 0, ACRE_ERR_SCHEMA_FROZEN,
                         "syntax %s is not in the schema in use, which can "
                         "no longer change",
                         st->syn[k]);
    }
    return 0;
}

/* Invariant (schema_int.h): ids are dense and every reference is an id
 * below the count; SUP chains are bounded. */
static int
consistent(const acre_schema *s)
{
    for (unsigned i = 0; i < s->nattrs; i++) {
        const struct acreS_attrx *a = &s->attrs[i];
        if (a->pub.id != (int)i || a->pub.sup < -1 ||
            a->pub.sup >= (int)s->nattrs || a->depth > ACRES_MAX_DEPTH)
            return 0;
    }
    for (unsigned i = 0; i < s->nclasses; i++) {
        const struct acreS_class *c = &s->classes[i].pub;
        if (c->id != (int)i || s->classes[i].depth > ACRES_MAX_DEPTH)
            return 0;
        for (unsigned k = 0; k < c->nsup; k++)
            if (c->sup[k] < 0 || c->sup[k] >= (int)s->nclasses)
                return 0;
        for (unsigned k = 0; k < c->nmust + c->nmay; k++) {
            int t = k < c->nmust ? c->must[k] : c->may[k - c->nmust];
            if (t < 0 || t >= (int)s->nattrs)
                return 0;
        }
    }
    return 1;
}

/*
 * commit -- check the stage against s and make it s's next state; for a
 * frozen schema (dry), only check that it repeats s exactly.
 */
static int
commit(acre_schema *s, struct acreS_stage *st, int dry)
{
    struct load L = {.s = s, .n = *s, .st = st, .mem = st->mem, .dry = dry};
    unsigned na = st->nat ? st->nat : 1, nc = st->noc ? st->noc : 1;
    int rc;

    L.at_id = talloc_array(L.mem, int, na);
    L.oc_id = talloc_array(L.mem, int, nc);
    L.at_same = talloc_zero_array(L.mem, uint8_t, na);
    L.oc_same = talloc_zero_array(L.mem, uint8_t, nc);
    L.at_state = talloc_zero_array(L.mem, uint8_t, na);
    L.oc_state = talloc_zero_array(L.mem, uint8_t, nc);
    if (!L.at_id || !L.oc_id || !L.at_same || !L.oc_same || !L.at_state ||
        !L.oc_state)
        return nomem(&L);
    if ((rc = assign_ids(&L)) || (dry && (rc = first_new(&L))) ||
        (rc = grow(&L)) || (rc = build_attr_index(&L)) ||
        (rc = build_class_index(&L)) || (rc = resolve_attrs(&L)) ||
        (rc = resolve_classes(&L)))
        return rc;
    if (dry)
        return 0;
    if ((rc = merge_lists(&L)))
        return rc;
    if (derive(&L.n, L.mem))
        return nomem(&L);
    install(s, &L.n, st->keep);
    acre_assert(consistent(s));
    return 0;
}

static int
load(acre_schema *s, const char *name, const char *text, size_t len,
     acre_diag *diag)
{
    struct acreS_stage st = {
        .s = s, .file = name, .text = text, .len = len, .diag = diag};
    int frozen = __atomic_load_n(&s->frozen, __ATOMIC_ACQUIRE), rc;

    if (len > ACRES_MAX_INPUT) {
        rc = acreE_diag_set(diag, ACRE_ERR_SCHEMA_SYNTAX, 0,
                            "input larger than %u bytes", ACRES_MAX_INPUT);
        if (diag)
            diag->file = name;
        return rc;
    }
    if (!(st.mem = talloc_new(NULL)) || !(st.keep = talloc_new(st.mem))) {
        talloc_free(st.mem);
        return acreE_diag_set(diag, ACRE_ERR_NOMEM, 0, "out of memory");
    }
    rc = acreS_parse(&st);
    if (!rc)
        rc = commit(s, &st, frozen);
    talloc_free(st.mem);
    return rc;
}

/* ------------------------------------------------------------------------
 * The public API
 */

static int
valid(const acre_schema *s)
{
    return acreE_is(s, ACRES_MAGIC);
}

int
acreS_check(const acre_schema *s)
{
    return !s || valid(s) ? 0 : ACRE_ERR_BADOBJ;
}

/* flags_profile -- the profile acre_schema_new's flags ask for. */
static int
flags_profile(unsigned flags)
{
    if (flags & ACRE_SCHEMA_SLAPD)
        return ACRE_PROFILE_SLAPD;
    return (flags & ACRE_SCHEMA_389) ? ACRE_PROFILE_389 : ACRE_PROFILE_RFC4518;
}

/* b_profile -- the profile of b (NULL: a bare schema's, RFC 4518). */
static int
b_profile(const acre_schema *b)
{
    return b ? b->profile : ACRE_PROFILE_RFC4518;
}

/* copy_state -- n := a copy of b's arrays (strings stay shared: b is the
 * built-in schema, which lives as long as the process). */
static int
copy_state(acre_schema *n, const acre_schema *b, void *ctx)
{
    *n = *b;
    n->attrs = talloc_memdup(ctx, b->attrs,
                             (b->nattrs ? b->nattrs : 1) * sizeof *b->attrs);
    n->classes = talloc_memdup(
        ctx, b->classes, (b->nclasses ? b->nclasses : 1) * sizeof *b->classes);
    n->ai.sh =
        talloc_memdup(ctx, b->ai.sh, (b->ai.shmask + 1) * sizeof *b->ai.sh);
    n->ai.lg =
        talloc_memdup(ctx, b->ai.lg, (b->ai.lgmask + 1) * sizeof *b->ai.lg);
    n->ci.sh =
        talloc_memdup(ctx, b->ci.sh, (b->ci.shmask + 1) * sizeof *b->ci.sh);
    n->ci.lg =
        talloc_memdup(ctx, b->ci.lg, (b->ci.lgmask + 1) * sizeof *b->ci.lg);
    n->macros =
        talloc_memdup(ctx, b->macros, (b->nmacros + 1) * sizeof *b->macros);
    n->syntaxes = talloc_memdup(ctx, b->syntaxes,
                                (b->nsyntaxes + 1) * sizeof *b->syntaxes);
    n->optdefs =
        talloc_memdup(ctx, b->optdefs, (b->noptdefs + 1) * sizeof *b->optdefs);
    if (!n->attrs || !n->classes || !n->ai.sh || !n->ai.lg || !n->ci.sh ||
        !n->ci.lg || !n->macros || !n->syntaxes || !n->optdefs)
        return ACRE_ERR_NOMEM;
    return derive(n, ctx);
}

/* empty_state -- a bare schema's arrays. */
static int
empty_state(acre_schema *n, void *ctx)
{
    memset(n, 0, sizeof *n);
    n->attrs = talloc_array(ctx, struct acreS_attrx, 1);
    n->classes = talloc_array(ctx, struct acreS_classx, 1);
    n->macros = talloc_array(ctx, struct acreS_macro, 1);
    n->syntaxes = talloc_array(ctx, const char *, 1);
    n->optdefs = talloc_array(ctx, struct acreS_optdef, 1);
    if (!n->attrs || !n->classes || !n->macros || !n->syntaxes || !n->optdefs ||
        index_alloc(ctx, &n->ai, 0, 0) || index_alloc(ctx, &n->ci, 0, 0))
        return ACRE_ERR_NOMEM;
    return derive(n, ctx);
}

ACRE_PUBLIC int
acre_schema_new(void *mem_ctx, unsigned flags, acre_schema **out,
                acre_diag *diag)
{
    const acre_schema *b = NULL;
    acre_schema *s, n;
    void *tmp;
    int rc;

    if (!out ||
        (flags & ~(ACRE_SCHEMA_BARE | ACRE_SCHEMA_SLAPD |
                   ACRE_SCHEMA_SYNTAX_MATCH | ACRE_SCHEMA_389)) ||
        ((flags & ACRE_SCHEMA_BARE) && (flags & ACRE_SCHEMA_389)))
        return acreE_diag_set(diag, ACRE_ERR_INVAL, 0, "invalid argument");
    if (flags & ACRE_SCHEMA_389) {
        acre_diag why = {.code = ACRE_ERR_NOMEM};
        if (!(b = get_389(&why))) { /* out of memory: it is tested to load */
            if (diag)
                *diag = why;
            return why.code ? why.code : ACRE_ERR_NOMEM;
        }
    } else if (!(flags & ACRE_SCHEMA_BARE) && !(b = acreS_builtin()))
        return acreE_diag_set(diag, ACRE_ERR_NOMEM, 0,
                              "cannot build the built-in schema");
    if (!(tmp = talloc_new(NULL)))
        return acreE_diag_set(diag, ACRE_ERR_NOMEM, 0, "out of memory");
    rc = b ? copy_state(&n, b, tmp) : empty_state(&n, tmp);
    /* the DN parser's tables depend on the profile (dn_fast_table) */
    n.profile = flags_profile(flags);
    if (!rc && n.profile != b_profile(b))
        rc = derive(&n, tmp);
    if (rc || !(s = talloc_zero(mem_ctx, acre_schema))) {
        talloc_free(tmp);
        return acreE_diag_set(diag, ACRE_ERR_NOMEM, 0, "out of memory");
    }
    s->hot.magic = ACRES_MAGIC;
    n.frozen = 0;
    /* slapd's schema files (msuser) and its memberof overlay define
     * memberOf differently: whichever a policy loads first is it */
    if (b && !(flags & ACRE_SCHEMA_389) && n.known.memberOf >= 0)
        n.attrs[n.known.memberOf].replaceable = 1;
    install(s, &n, NULL);
    talloc_free(tmp);
    s->frozen = 0;
    if (!(s->descs = talloc_zero(s, struct acreS_descs))) {
        talloc_free(s);
        return acreE_diag_set(diag, ACRE_ERR_NOMEM, 0, "out of memory");
    }
    pthread_mutex_init(&s->descs->lock, NULL);
    s->profile = flags_profile(flags);
    s->syntax_match = (flags & ACRE_SCHEMA_SYNTAX_MATCH) != 0;
    s->is389 = (flags & ACRE_SCHEMA_389) != 0;
    *out = s;
    return 0;
}

struct acreS_rules
acreS_rules(const acre_schema *s, const struct acreS_attr *at)
{
    struct acreS_rules r = {at->eq, at->ord, at->sub};

    if (!s || !s->syntax_match || !at->syntax)
        return r;
    switch (acreM_syntax_find(at->syntax, strlen(at->syntax))) {
    case ACREM_SYN_DN: /* 389's dn.c: case-insensitive, DN-normalised */
        r.eq = r.eq ? r.eq : ACREM_DN;
        r.sub = r.sub ? r.sub : ACREM_DN_SUB;
        break;
    case ACREM_SYN_NAME_UID: /* nameoptuid.c: substrings as dn.c, and
                                an order, case-insensitive */
        r.ord = r.ord ? r.ord : ACREM_CASE_IGNORE_ORD;
        r.sub = r.sub ? r.sub : ACREM_DN_SUB;
        break;
    case ACREM_SYN_DIRECTORY_STRING: /* cis.c */
    case ACREM_SYN_PRINTABLE_STRING:
    case ACREM_SYN_COUNTRY_STRING:
    case ACREM_SYN_OID: /* cis.c too: objectClass >=, <=, substrings */
        r.eq = r.eq ? r.eq : ACREM_CASE_IGNORE;
        r.ord = r.ord ? r.ord : ACREM_CASE_IGNORE_ORD;
        r.sub = r.sub ? r.sub : ACREM_CASE_IGNORE_SUB;
        break;
    case ACREM_SYN_TELEPHONE: /* tel.c orders values as its equality
                                 prepares them (value_cmp, SYNTAX_TEL |
                                 SYNTAX_CIS): spaces and hyphens dropped,
                                 case folded, the rest kept */
        r.ord = r.ord ? r.ord : ACREM_TELEPHONE_ORD;
        break;
    case ACREM_SYN_INTEGER: /* int.c: an order of its own */
        r.eq = r.eq ? r.eq : ACREM_INTEGER;
        r.ord = r.ord ? r.ord : ACREM_INTEGER_ORD;
        break;
    case ACREM_SYN_IA5_STRING: /* ces.c */
        r.eq = r.eq ? r.eq : ACREM_CASE_EXACT_IA5;
        r.ord = r.ord ? r.ord : ACREM_CASE_EXACT_ORD;
        r.sub = r.sub ? r.sub : ACREM_CASE_EXACT_IA5_SUB;
        break;
    default:
        break;
    }
    return r;
}

int
acreS_syntax_match(const acre_schema *s)
{
    return s && s->syntax_match;
}

int
acreS_is389(const acre_schema *s)
{
    return s && s->is389;
}

int
acreS_profile(const acre_schema *s)
{
    return s ? s->profile : ACRE_PROFILE_RFC4518;
}

ACRE_PUBLIC int
acre_schema_load_buffer(acre_schema *schema, const char *name, const char *text,
                        size_t len, acre_diag *diag)
{
    int rc = acreE_handle(schema, ACRES_MAGIC);

    if (rc || (!text && len))
        return acreE_diag_set(diag, rc ? rc : ACRE_ERR_INVAL, 0, "%s",
                              rc == ACRE_ERR_BADOBJ ? "not a schema"
                                                    : "invalid argument");
    return load(schema, name, text ? text : "", len, diag);
}

/* acreS_load_dupok -- see schema.h. */
int
acreS_load_dupok(acre_schema *s, const char *name, const char *oid,
                 const char *text, acre_diag *diag)
{
    int id = acreE_handle(s, ACRES_MAGIC)
                 ? -1
                 : index_find(&s->ai, oid, strlen(oid));

    if (id >= 0 && !s->attrs[id].replaceable)
        return 0;
    return acre_schema_load_buffer(s, name, text, strlen(text), diag);
}

/* read_file -- the whole of f, at most ACRES_MAX_INPUT bytes, in ctx. */
static int
read_file(void *ctx, FILE *f, char **out, size_t *len)
{
    size_t cap = 65536, n = 0, got;
    char *buf = talloc_size(ctx, cap);

    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n > ACRES_MAX_INPUT)
            return ACRE_ERR_SCHEMA_SYNTAX;
        if (n == cap) {
            cap *= 2;
            buf = talloc_realloc_size(ctx, buf, cap);
        }
    }
    if (!buf)
        return ACRE_ERR_NOMEM;
    if (ferror(f))
        return ACRE_ERR_SCHEMA_IO;
    *out = buf;
    *len = n;
    return 0;
}

ACRE_PUBLIC int
acre_schema_load_file(acre_schema *schema, const char *path, acre_diag *diag)
{
    void *tmp;
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    int rc;

    if ((rc = acreE_handle(schema, ACRES_MAGIC)) || !path)
        return acreE_diag_set(diag, rc ? rc : ACRE_ERR_INVAL, 0, "%s",
                              rc == ACRE_ERR_BADOBJ ? "not a schema"
                                                    : "invalid argument");
    const char *kind;
    if (!(f = acreE_fopen_regular(path, &kind))) {
        int nomem = !kind && errno == ENOMEM; /* fdopen's buffer */
        rc =
            acreE_diag_set(diag, nomem ? ACRE_ERR_NOMEM : ACRE_ERR_SCHEMA_IO, 0,
                           "cannot open: %s", kind ? kind : strerror(errno));
        if (diag)
            diag->file = path, diag->line = 0, diag->column = 0;
        return rc;
    }
    if (!(tmp = talloc_new(NULL))) {
        fclose(f);
        return acreE_diag_set(diag, ACRE_ERR_NOMEM, 0, "out of memory");
    }
    rc = read_file(tmp, f, &text, &len);
    fclose(f);
    if (rc) {
        const char *why = rc == ACRE_ERR_SCHEMA_IO ? strerror(errno)
                          : rc == ACRE_ERR_NOMEM   ? "out of memory"
                                                   : "file larger than 16 MiB";
        rc = rc == ACRE_ERR_NOMEM ? rc : ACRE_ERR_SCHEMA_IO;
        rc = acreE_diag_set(diag, rc, 0, "cannot read: %s", why);
        if (diag)
            diag->file = path, diag->line = 0, diag->column = 0;
    } else {
        rc = load(schema, path, text, len, diag);
    }
    talloc_free(tmp);
    return rc;
}

ACRE_PUBLIC void
acre_schema_free(acre_schema *schema)
{
    if (valid(schema) && schema != builtin) {
        schema->hot.magic = 0;
        talloc_free(schema);
    }
}

/*
 * acre_schema_attr_name -- see acre.h: the canonical name (first NAME, or
 * the OID when the type has none) of the type of description
 * desc[0..len); the options are not part of the answer.  Freezes the
 * schema as every reader does.
 */
ACRE_PUBLIC const char *
acre_schema_attr_name(const acre_schema *schema, const char *desc, size_t len)
{
    struct acreS_desc d;
    const acre_schema *s;

    if ((schema && !valid(schema)) || !desc || !(s = acreS_freeze(schema)) ||
        acreS_desc_parse(s, desc, len, &d) || d.type < 0)
        return NULL;
    return acreS_attr(s, d.type)->dn.name;
}

/* ------------------------------------------------------------------------
 * Attribute descriptions
 */

static int
is_keychar(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '-';
}

/* opt_cmp -- order of two options, without case. */
static int
opt_cmp(const char *a, unsigned an, const char *b, unsigned bn)
{
    for (unsigned i = 0; i < an && i < bn; i++) {
        int d = lc((uint8_t)a[i]) - lc((uint8_t)b[i]);
        if (d)
            return d;
    }
    return (an > bn) - (an < bn);
}

/* add_opt -- insert an option in order; duplicates are dropped. */
static int
add_opt(struct acreS_desc *d, const char *o, unsigned n)
{
    unsigned i = 0;

    while (i < d->nopts && opt_cmp(d->opts[i], d->opt_len[i], o, n) < 0)
        i++;
    if (i < d->nopts && opt_cmp(d->opts[i], d->opt_len[i], o, n) == 0)
        return 0;
    if (d->nopts == ACRES_MAX_OPTIONS)
        return -1;
    memmove(&d->opts[i + 1], &d->opts[i], (d->nopts - i) * sizeof d->opts[0]);
    memmove(&d->opt_len[i + 1], &d->opt_len[i],
            (d->nopts - i) * sizeof d->opt_len[0]);
    d->opts[i] = o;
    d->opt_len[i] = n;
    d->nopts++;
    return 0;
}

int
acreS_desc_parse(const acre_schema *s, const char *str, size_t n,
                 struct acreS_desc *d)
{
    const char *semi = str ? memchr(str, ';', n) : NULL;
    size_t tn = semi ? (size_t)(semi - str) : n, p;

    if (!str || !d ||
        (!acreS_is_descr(str, tn) && !acreS_is_numericoid(str, tn)))
        return -1;
    d->name = str;
    d->name_len = (unsigned)tn;
    d->nopts = 0;
    d->type = acreS_attr_find(s, str, tn);
    /* slapd (ad_keystring) also takes '.' in options: "lang-e.n" is a
     * language tag to it */
    int dot = s && s->profile == ACRE_PROFILE_SLAPD;
    for (p = tn; p < n;) {
        size_t start = ++p;
        while (p < n && str[p] != ';') {
            if (!is_keychar((uint8_t)str[p]) && !(dot && str[p] == '.'))
                return -1;
            p++;
        }
        if (p == start || p - start > ACRES_MAX_TOKEN ||
            add_opt(d, str + start, (unsigned)(p - start)))
            return -1;
    }
    return 0;
}

/* The syntaxes slapd 2.5 flags SLAP_SYNTAX_BINARY (schema_init.c). */
static int
slapd_binary_syntax(const char *oid)
{
    static const char *const bin[] = {
        "1.3.6.1.4.1.1466.115.121.1.1",  "1.3.6.1.4.1.1466.115.121.1.8",
        "1.3.6.1.4.1.1466.115.121.1.9",  "1.3.6.1.4.1.1466.115.121.1.10",
        "1.3.6.1.4.1.1466.115.121.1.49", "1.3.6.1.4.1.4203.666.11.10.2.1",
        "1.2.840.113549.1.8.1.1"};

    for (size_t i = 0; oid && i < sizeof bin / sizeof bin[0]; i++)
        if (strcmp(oid, bin[i]) == 0)
            return 1;
    return 0;
}

/* acreS_slapd_desc_ok -- see schema.h. */
int
acreS_slapd_desc_ok(const acre_schema *s, const struct acreS_attr *at,
                    const struct acreS_desc *d)
{
    int binary = 0;
    unsigned ndefs;
    const struct acreS_optdef *defs = optdefs_of(s, &ndefs);

    if (d->nopts && at->usage != ACRES_USER)
        return 0;
    for (unsigned i = 0; i < d->nopts; i++) {
        const char *o = d->opts[i];
        unsigned n = d->opt_len[i];

        if (n == 6 && strncasecmp(o, "binary", 6) == 0) {
            if (binary++ || !slapd_binary_syntax(at->syntax))
                return 0;
        } else if (!opt_defined(defs, ndefs, o, n)) {
            return 0;
        }
    }
    return 1;
}

int
acreS_opt_covers(const char *w, size_t wn, const char *h, size_t hn)
{
    if (wn == 0 || w[wn - 1] != '-')
        return hn == wn && !opt_cmp(w, (unsigned)wn, h, (unsigned)hn);
    if (hn + 1 == wn) /* "lang-en-" covers lang-en */
        return !opt_cmp(w, (unsigned)hn, h, (unsigned)hn);
    return hn >= wn && !opt_cmp(w, (unsigned)wn, h, (unsigned)wn);
}

int
acreS_desc_matches(const acre_schema *s, const struct acreS_desc *have,
                   const struct acreS_desc *want)
{
    if (have->type < 0 || want->type < 0) {
        if (have->type != want->type ||
            opt_cmp(have->name, have->name_len, want->name, want->name_len))
            return 0;
    } else if (!acreS_is_subtype(s, have->type, want->type)) {
        return 0;
    }
    for (unsigned i = 0; i < want->nopts; i++) {
        unsigned j = 0;
        while (j < have->nopts &&
               !acreS_opt_covers(want->opts[i], want->opt_len[i], have->opts[j],
                                 have->opt_len[j]))
            j++;
        if (j == have->nopts)
            return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------------
 * Interned descriptions (acre_schema_attr_id)
 */

const struct acreS_dinfo *
acreS_dinfo(const acre_schema *s, int id)
{
    const struct acreS_dinfo *c;
    unsigned k;

    s = get(s);
    if (acre_likely(id >= 0 && (unsigned)id < s->nattrs))
        return &s->hot.types[id];
    if (id < 0 || !s->descs)
        return NULL;
    k = (unsigned)id - s->nattrs;
    if (k >= __atomic_load_n(&s->descs->n, __ATOMIC_ACQUIRE))
        return NULL;
    c = __atomic_load_n(&s->descs->chunk[k / ACRES_DESC_CHUNK],
                        __ATOMIC_ACQUIRE);
    return &c[k % ACRES_DESC_CHUNK];
}

unsigned
acreS_id_limit(const acre_schema *s)
{
    s = get(s);
    return s->nattrs +
           (s->descs ? __atomic_load_n(&s->descs->n, __ATOMIC_ACQUIRE) : 0);
}

/* desc_hash -- FNV-1a over the type and the lowercased options. */
static uint32_t
desc_hash(int type, unsigned nopts, const char *const *opts,
          const unsigned *len)
{
    uint32_t h = 2166136261u ^ (uint32_t)type;

    for (unsigned i = 0; i < nopts; i++) {
        h = (h ^ ';') * 16777619u;
        for (unsigned j = 0; j < len[i]; j++)
            h = (h ^ lc((uint8_t)opts[i][j])) * 16777619u;
    }
    return h;
}

/* same_desc -- does record r describe d (options already in order)? */
static int
same_desc(const struct acreS_dinfo *r, const struct acreS_desc *d)
{
    if (r->type != d->type || r->nopts != d->nopts)
        return 0;
    for (unsigned i = 0; i < d->nopts; i++) {
        if (r->opt_len[i] != d->opt_len[i])
            return 0;
        for (unsigned j = 0; j < d->opt_len[i]; j++)
            if (r->opts[i][j] != lc((uint8_t)d->opts[i][j]))
                return 0;
    }
    return 1;
}

/* desc_find -- the slot of d in the index (holding its id + 1, or 0). */
static uint32_t *
desc_find(const acre_schema *s, const struct acreS_desc *d, uint32_t h)
{
    struct acreS_descs *D = s->descs;

    for (uint32_t k = h & D->ixmask;; k = (k + 1) & D->ixmask) {
        uint32_t v = D->ix[k];
        if (!v || same_desc(acreS_dinfo(s, (int)(s->nattrs + v - 1)), d))
            return &D->ix[k];
    }
}

/* desc_grow -- room in the index for one more (load factor <= 1/2). */
static int
desc_grow(const acre_schema *s)
{
    struct acreS_descs *D = s->descs;
    uint32_t cap = D->ixmask ? (D->ixmask + 1) * 2 : 64;
    uint32_t *ix;

    if (D->ixmask && 2 * (D->n + 1) <= D->ixmask + 1)
        return 0;
    if (!(ix = talloc_zero_array(D, uint32_t, cap)))
        return ACRE_ERR_NOMEM;
    for (uint32_t k = 0; k <= D->ixmask && D->ixmask; k++) {
        uint32_t v = D->ix[k];
        if (!v)
            continue;
        const struct acreS_dinfo *r = acreS_dinfo(s, (int)(s->nattrs + v - 1));
        uint32_t h = desc_hash(r->type, r->nopts, r->opts, r->opt_len);
        uint32_t p = h & (cap - 1);
        while (ix[p])
            p = (p + 1) & (cap - 1);
        ix[p] = v;
    }
    talloc_free(D->ix);
    D->ix = ix;
    D->ixmask = cap - 1;
    return 0;
}

/* desc_record -- fill record r for d in D's memory: lowercased options
 * and the canonical text. */
static int
desc_record(const acre_schema *s, struct acreS_dinfo *r,
            const struct acreS_desc *d)
{
    const struct acreS_dinfo *at = &s->hot.types[d->type];
    size_t n = at->text_len;
    char **o = talloc_array(s->descs, char *, d->nopts);
    uint32_t *ol = talloc_array(s->descs, uint32_t, d->nopts);
    char *t;

    for (unsigned i = 0; i < d->nopts; i++)
        n += 1 + d->opt_len[i];
    if (!o || !ol || !(t = talloc_size(s->descs, n + 1)))
        return ACRE_ERR_NOMEM;
    memcpy(t, at->text, at->text_len);
    n = at->text_len;
    for (unsigned i = 0; i < d->nopts; i++) {
        t[n++] = ';';
        o[i] = t + n;
        ol[i] = d->opt_len[i];
        for (unsigned j = 0; j < d->opt_len[i]; j++)
            t[n++] = (char)lc((uint8_t)d->opts[i][j]);
    }
    t[n] = '\0';
    r->type = d->type;
    r->nopts = d->nopts;
    r->opts = (const char *const *)o;
    r->opt_len = ol;
    r->text = t;
    r->text_len = (uint32_t)n;
    return 0;
}

/* desc_add -- record d as the next id; D->lock held, room in ix made. */
static int
desc_add(const acre_schema *s, const struct acreS_desc *d, uint32_t *slot)
{
    struct acreS_descs *D = s->descs;
    unsigned k = D->n, c = k / ACRES_DESC_CHUNK;
    struct acreS_dinfo *chunk = D->chunk[c];

    if (k >= ACRE_SCHEMA_MAX_DESCS)
        return ACRE_ERR_NOSPACE;
    if (!chunk &&
        !(chunk = talloc_zero_array(D, struct acreS_dinfo, ACRES_DESC_CHUNK)))
        return ACRE_ERR_NOMEM;
    if (desc_record(s, &chunk[k % ACRES_DESC_CHUNK], d))
        return ACRE_ERR_NOMEM;
    __atomic_store_n(&D->chunk[c], chunk, __ATOMIC_RELEASE);
    __atomic_store_n(&D->n, k + 1, __ATOMIC_RELEASE);
    *slot = k + 1;
    return (int)(s->nattrs + k);
}

int
acreS_desc_intern(const acre_schema *s, const struct acreS_desc *d)
{
    uint32_t *slot;
    int rc;

    s = get(s);
    if (!d || d->type < 0 || (unsigned)d->type >= s->nattrs)
        return ACRE_ERR_INVAL;
    if (d->nopts == 0)
        return d->type;
    if (!s->descs)
        return ACRE_ERR_INVAL;
    uint32_t h = desc_hash(d->type, d->nopts, d->opts, d->opt_len);
    pthread_mutex_lock(&s->descs->lock);
    if ((rc = desc_grow(s)) == 0) {
        slot = desc_find(s, d, h);
        rc = *slot ? (int)(s->nattrs + *slot - 1) : desc_add(s, d, slot);
    }
    pthread_mutex_unlock(&s->descs->lock);
    return rc;
}

/*
 * acre_schema_attr_id -- see acre.h.  Descriptions without options are
 * their type's id (no lock); others are interned.
 */
ACRE_PUBLIC int
acre_schema_attr_id(const acre_schema *schema, const char *desc, size_t len)
{
    struct acreS_desc d;
    const acre_schema *s;

    if (schema && !valid(schema))
        return ACRE_ERR_BADOBJ;
    if (!desc)
        return ACRE_ERR_INVAL;
    if (!(s = acreS_freeze(schema)))
        return ACRE_ERR_NOMEM;
    if (acreS_desc_parse(s, desc, len, &d))
        return ACRE_ERR_INVAL;
    if (d.type < 0)
        return ACRE_ERR_SCHEMA_UNKNOWN;
    return acreS_desc_intern(s, &d);
}

/* acre_schema_attr_desc -- see acre.h. */
ACRE_PUBLIC const char *
acre_schema_attr_desc(const acre_schema *schema, int id, size_t *len)
{
    const struct acreS_dinfo *r;

    if (len)
        *len = 0;
    if ((schema && !valid(schema)) || !(r = acreS_dinfo(schema, id)))
        return NULL;
    if (len)
        *len = r->text_len;
    return r->text;
}
