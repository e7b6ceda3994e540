/*
 * openldap_memo.c -- what one parse of a configuration shares between its
 * rules: parts of rules that the same text always turns into the same
 * immutable object (normalised DNs, filters, attribute lists, compiled
 * regexes, attribute names) are made once and pointed to by every rule
 * that spells them that way.  A policy of 100,000 rules over a few
 * thousand DNs then holds a few thousand DNs, and one compiled
 * "(objectClass=person)".
 *
 * The memo is a hash table from (kind, text) to the object, its records
 * (keys inline) in a bump arena; both live in the build's scratch context
 * and go when the parse ends, while the objects belong to the
 * configuration.
 *
 * Invariants: a memoised object is never changed or freed on its own
 * after it is remembered (callers that would extend one copy it first);
 * only successes are remembered, so every error is found, and reported,
 * exactly as without the memo; what a text yields never depends on the
 * rule it is in (positions are kept outside the shared objects); the
 * memo is best effort: failing to remember (out of memory) only costs
 * sharing, never the parse.
 */
#include "openldap_int.h"

#include <stdint.h>
#include <string.h>
#include <talloc.h>

#define ARENA_CHUNK 65536 /* bytes of records allocated at a time */

/* One remembered text: its kind and value, then the key bytes, in the
 * arena (a lookup touches the slot, and this record when the hashes
 * agree). */
struct rec {
    struct acreO_memo v;
    uint32_t len;
    int kind;
    char key[];
};

/* A slot: the record and its hash, so that a probe reads the record only
 * when the hashes agree (records are spread over the arena: each read is
 * likely a cache miss). */
struct slot {
    uint64_t hash;
    struct rec *rec; /* NULL: empty */
};

/* An open-addressing table, at most half full. */
struct acreO_memo_table {
    struct slot *slots;
    size_t mask, used;
    char *arena; /* the current chunk of records */
    size_t arena_left;
};

/* A hash of kind and s[0..n). */
static uint64_t
hash_of(int kind, const char *s, size_t n)
{
    uint64_t h = (n + 1) * 0x9e3779b97f4a7c15u ^ (uint64_t)kind, w;
    size_t i = 0;

    for (; i + 8 <= n; i += 8) {
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdu;
        h ^= h >> 32;
    }
    w = 0;
    memcpy(&w, s + i, n - i);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53u;
    return h ^ (h >> 29);
}

#define ALLOC_FIRST 1024u  /* bytes of acreO_alloc's first chunk */
#define ALLOC_MAX   65536u /* and of its largest */

void *
acreO_alloc(struct acreO_build *b, size_t size)
{
    char *p;

    size = (size + 7) & ~(size_t)7;
    if (size > b->arena_left) {
        size_t chunk = b->arena_chunk ? b->arena_chunk : ALLOC_FIRST;
        if (size > chunk / 4) /* large: a block of its own */
            return talloc_zero_size(b->ctx, size);
        if (!(p = talloc_zero_size(b->ctx, chunk)))
            return NULL;
        talloc_set_name_const(p, "acreO_alloc chunk");
        b->arena = p;
        b->arena_left = chunk;
        b->arena_chunk = chunk < ALLOC_MAX ? 2 * chunk : chunk;
    }
    p = b->arena;
    b->arena += size;
    b->arena_left -= size;
    return p;
}

void *
acreO_build_scratch(struct acreO_build *b)
{
    if (!b->scratch)
        b->scratch = talloc_new(b->cfg);
    return b->scratch;
}

static struct acreO_memo_table *
table(struct acreO_build *b)
{
    if (!b->memo && acreO_build_scratch(b))
        b->memo = talloc_zero(b->scratch, struct acreO_memo_table);
    return b->memo;
}

/* The slot of (kind, s[0..n)) with hash h: its record's, or the empty
 * slot where it would go. */
static struct slot *
find_slot(const struct acreO_memo_table *t, uint64_t h, int kind, const char *s,
          size_t n)
{
    for (size_t i = h & t->mask;; i = (i + 1) & t->mask) {
        struct slot *sl = &t->slots[i];
        if (!sl->rec)
            return sl;
        if (sl->hash == h && sl->rec->kind == kind && sl->rec->len == n &&
            memcmp(sl->rec->key, s, n) == 0)
            return sl;
    }
}

/* Twice the slots (64 at first), every record moved. */
static int
grow(void *ctx, struct acreO_memo_table *t)
{
    size_t cap = t->slots ? 2 * (t->mask + 1) : 64;
    struct slot *old = t->slots, *v = talloc_zero_array(ctx, struct slot, cap);

    if (!v)
        return ACRE_ERR_NOMEM;
    for (size_t i = 0; old && i <= t->mask; i++)
        if (old[i].rec) {
            size_t k = old[i].hash & (cap - 1);
            while (v[k].rec)
                k = (k + 1) & (cap - 1);
            v[k] = old[i];
        }
    t->slots = v;
    t->mask = cap - 1;
    talloc_free(old);
    return 0;
}

/* A new record for a key of n bytes, in the arena. */
static struct rec *
rec_new(void *ctx, struct acreO_memo_table *t, size_t n)
{
    size_t size = (sizeof(struct rec) + n + 7) & ~(size_t)7;
    struct rec *e;

    if (size > ARENA_CHUNK / 4)
        return talloc_size(ctx, size);
    if (size > t->arena_left) {
        if (!(t->arena = talloc_size(ctx, ARENA_CHUNK)))
            return NULL;
        t->arena_left = ARENA_CHUNK;
    }
    e = (struct rec *)t->arena;
    t->arena += size;
    t->arena_left -= size;
    return e;
}

uint64_t
acreO_memo_hash(int kind, const char *s, size_t n)
{
    return hash_of(kind, s, n);
}

void
acreO_memo_prefetch(const struct acreO_build *b, uint64_t h, int stage)
{
    const struct acreO_memo_table *t = b->memo;

    if (!t || !t->used)
        return;
    const struct slot *sl = &t->slots[h & t->mask];
    if (stage == 0)
        __builtin_prefetch(sl);
    else if (sl->rec && sl->hash == h)
        __builtin_prefetch(sl->rec);
}

const struct acreO_memo *
acreO_memo_find(struct acreO_build *b, int kind, const char *s, size_t n)
{
    const struct acreO_memo_table *t = b->memo;

    if (!t || !t->used)
        return NULL;
    struct rec *e = find_slot(t, hash_of(kind, s, n), kind, s, n)->rec;
    return e ? &e->v : NULL;
}

int
acreO_memo_put(struct acreO_build *b, int kind, const char *s, size_t n,
               const struct acreO_memo *v)
{
    struct acreO_memo_table *t = table(b);
    uint64_t h = hash_of(kind, s, n);
    struct slot *slot;
    struct rec *e;

    if (!t || n > UINT32_MAX ||
        (2 * (t->used + 1) > (t->slots ? t->mask + 1 : 0) &&
         grow(b->scratch, t)))
        return ACRE_ERR_NOMEM;
    slot = find_slot(t, h, kind, s, n);
    if (slot->rec) /* already there: keep the first */
        return 0;
    if (!(e = rec_new(b->scratch, t, n)))
        return ACRE_ERR_NOMEM;
    e->v = *v;
    e->len = (uint32_t)n;
    e->kind = kind;
    memcpy(e->key, s, n);
    slot->hash = h;
    slot->rec = e;
    t->used++;
    return 0;
}

const char *
acreO_intern(struct acreO_build *b, const char *s, size_t n)
{
    const struct acreO_memo *m = acreO_memo_find(b, ACREO_MEMO_STR, s, n);
    char *copy;

    if (m)
        return m->p;
    if (!(copy = talloc_strndup(b->ctx, s, n)))
        return NULL;
    struct acreO_memo v = {copy, NULL, 0};
    (void)acreO_memo_put(b, ACREO_MEMO_STR, s, n, &v); /* best effort */
    return copy;
}

int
acreO_build_regex(struct acreO_build *b, const char *p, size_t n,
                  struct acreI_regex *re, const char **why)
{
    const struct acreO_memo *m = acreO_memo_find(b, ACREO_MEMO_REGEX, p, n);
    struct acreI_regex *copy;
    int rc;

    if (m) {
        *re = *(const struct acreI_regex *)m->p;
        return 0;
    }
    if ((rc = acreO_regex_compile(b->ctx, p, n, re, why)))
        return rc;
    if (acreO_build_scratch(b) &&
        (copy = talloc_memdup(b->scratch, re, sizeof(*re)))) {
        struct acreO_memo v = {copy, NULL, 0};
        (void)acreO_memo_put(b, ACREO_MEMO_REGEX, p, n, &v); /* best effort */
    }
    return 0;
}
