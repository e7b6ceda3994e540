/*
 * eval_set.c -- "by set=": the value of a set expression for one check,
 * as slapd 2.5's sets.c and acl_set_gather() compute it, and whether it
 * is empty.  The semantics are those of the reference evaluator
 * (tests/oracle/openldap_oracle_set.c), kept quirk for quirk.
 *
 * A set is a list of distinct byte strings (slapd compares with bvmatch:
 * exact bytes).  this = the entry's normalised DN; user = the requester's
 * normalised authorisation DN (authz_dn "": "", still one element, as
 * for an operation slapd runs proxied to anonymous; authz_dn NULL, an
 * anonymous connection, which has no DN at all: the whole expression
 * fails, as sets.c fails it on a null DN);
 * [text] = the text, not normalised; x/attr = for each element (a DN,
 * normalised first; or an ldap:/// URL searched as the rootdn) the
 * normalised values of exactly that attribute description, entryDN being
 * the DN itself; x/attr* repeats that on what it finds until nothing new
 * appears (the start is not included); x/-n = the n-th parents; x/-* =
 * each element and all its ancestors, the root "" included; | & + =
 * union, intersection and pairwise concatenation, both sides always
 * evaluated.  Values read here are not access-checked.
 *
 * Bounds (slapd has none; hitting one sets rq->limit_hit and the set does
 * not match): ACREV_SET_MAX_DNS elements in any one set, SET_MAX_DEPTH
 * levels of the tree (the oracle's own limit), SET_MAX_WORK elementary
 * steps (elements offered to a set, entries gathered or visited, pairs
 * concatenated) and SET_MAX_BYTES bytes of strings made, per evaluation;
 * and ACREV_SET_REQUEST_WORK steps for all the evaluations of a request,
 * so that a search over many entries cannot multiply the per-check bound.
 *
 * Entries other than the one checked come from the host (acre_host: get
 * for x/attr, search for ldap:/// elements); a lookup that fails denies.
 *
 * Memory: everything comes from the request's scratch pool, emptied by
 * the caller per check; a set is an array in insertion order plus an
 * open-addressing hash index.  Strings that live as long as the check
 * (entry values, DNs of entries, the rule's literals, the requester's
 * DN) are referenced, not copied.
 */
#include "eval.h"

#include "filter.h"
#include "schema.h"
#include "url.h"

#include <string.h>
#include <strings.h>
#include <talloc.h>

#define SET_MAX_DEPTH 128                 /* the oracle's 4 * 32 */
#define SET_MAX_WORK  (4u * 1024 * 1024)  /* elementary steps */
#define SET_MAX_BYTES (32u * 1024 * 1024) /* bytes of strings made */

struct elem {
    const char *s;
    size_t n;
    uint32_t h;
};

#define SET_LOCAL 8 /* elements a set holds before it allocates */

struct set {
    struct elem *v; /* loc, or from scratch */
    unsigned n, cap;
    uint32_t *ix; /* element index + 1, 0 empty; ixmask + 1 slots: ixloc,
                     or from scratch */
    uint32_t ixmask;
    struct elem loc[SET_LOCAL];
    uint32_t ixloc[SET_LOCAL * 2];
};

/* An empty set (the arrays are not touched until used). */
#define SET_EMPTY(s) ((s)->v = NULL, (s)->n = (s)->cap = 0, (s)->ix = NULL)

#define DN_LOCAL  4096 /* bytes of the parse buffer tried first */
#define CUR_LOCAL 1024 /* bytes of the parent-walk buffer tried first */

/* One evaluation (on the stack of acreV_set_matches). */
struct ev {
    struct acreV_check *c;
    struct acre_request *rq;
    void *mem;   /* rq->scratch */
    void *dnbuf; /* ACRE_DN_BUF_MAX bytes from scratch, for a DN too big
                    for local; NULL until needed */
    char *cur;   /* the parent walk's text: cur_local, or ACRE_DN_MAX_LEN
                    + 1 bytes from scratch */
    size_t cur_cap;
    size_t work;  /* steps left */
    size_t bytes; /* bytes of strings left */
    int limit;    /* a bound was reached */
    int clo_ok;   /* closures may be remembered (closure_of) */
    int copied;   /* a string was copied into the set (not referenced) */
    int url;      /* an ldap:/// element was gathered */
    uint64_t local[DN_LOCAL / 8]; /* transient parses, one at a time */
    char cur_local[CUR_LOCAL];
};

#define HASH_K 0xbf58476d1ce4e5b9u

static uint64_t
hash_word(uint64_t h, uint64_t w)
{
    h = (h ^ w) * HASH_K;
    return h ^ (h >> 31);
}

/* The 8 bytes at p as a little-endian number. */
static uint64_t
le64(const char *p)
{
    uint64_t w;

    memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    w = __builtin_bswap64(w);
#endif
    return w;
}

/* The hash of the bytes a[0..an) + b[0..bn): eight at a time, the same
 * wherever the bytes are split between a and b. */
static uint32_t
hash2(const char *a, size_t an, const char *b, size_t bn)
{
    uint64_t h = 0x9e3779b97f4a7c15u ^ (an + bn), w;
    size_t n = an + bn;

    if (bn == 0) {
        for (; an >= 8; a += 8, an -= 8)
            h = hash_word(h, le64(a));
        if (an) { /* the last an bytes, zero-padded */
            if (n >= 8) {
                w = le64(a + an - 8) >> (8 * (8 - an)); /* drop the bytes
                                                           before */
            } else {
                w = 0;
                for (size_t j = 0; j < an; j++)
                    w |= (uint64_t)(uint8_t)a[j] << (8 * j);
            }
            h = hash_word(h, w);
        }
    } else {
        for (size_t i = 0; i < n; i += 8) {
            w = 0;
            for (size_t j = 0; j < 8 && i + j < n; j++)
                w |= (uint64_t)(uint8_t)(i + j < an ? a[i + j] : b[i + j - an])
                     << (8 * j);
            h = hash_word(h, w);
        }
    }
    return (uint32_t)(h ^ (h >> 32));
}

static uint32_t
hash1(const char *s, size_t n)
{
    return hash2(s, n, NULL, 0);
}

/* Spend k steps, all or none: 0, or -1 with the budget gone (where a
 * fresh evaluation would have stopped, it stops too). */
static int
spend(struct ev *x, size_t k)
{
    if (k > x->work) {
        x->work = 0;
        x->limit = 1;
        return -1;
    }
    x->work -= k;
    return 0;
}

/* Spend one step; 0 ok, -1 when the budget is gone. */
static int
step(struct ev *x)
{
    return spend(x, 1);
}

/* Is a[0..an) + b[0..bn) (hash h) in s? */
static int
set_has2(const struct set *s, const char *a, size_t an, const char *b,
         size_t bn, uint32_t h)
{
    if (!s->ix)
        return 0;
    for (uint32_t k = h & s->ixmask;; k = (k + 1) & s->ixmask) {
        uint32_t i = s->ix[k];
        if (!i)
            return 0;
        const struct elem *e = &s->v[i - 1];
        if (e->h == h && e->n == an + bn && memcmp(e->s, a, an) == 0 &&
            (bn == 0 || memcmp(e->s + an, b, bn) == 0))
            return 1;
    }
}

static int
set_has(const struct set *s, const char *v, size_t n)
{
    return set_has2(s, v, n, NULL, 0, hash1(v, n));
}

/* Room for one more element: the arrays and the index (load <= 1/2). */
static int
set_grow(struct ev *x, struct set *s)
{
    if (s->n == ACREV_SET_MAX_DNS) {
        x->limit = 1;
        return -1;
    }
    if (s->n < s->cap)
        return 0;
    if (!s->cap) {
        s->v = s->loc;
        s->cap = SET_LOCAL;
        s->ix = s->ixloc;
        s->ixmask = SET_LOCAL * 2 - 1;
        memset(s->ixloc, 0, sizeof(s->ixloc));
        return 0;
    }
    unsigned cap = s->cap * 2;
    struct elem *v = s->v == s->loc
                         ? talloc_array(x->mem, struct elem, cap)
                         : talloc_realloc(x->mem, s->v, struct elem, cap);
    if (!v)
        return -1;
    if (s->v == s->loc)
        memcpy(v, s->loc, sizeof(s->loc));
    s->v = v;
    s->cap = cap;
    uint32_t slots = (uint32_t)cap * 2;
    uint32_t *ix = talloc_zero_array(x->mem, uint32_t, slots);
    if (!ix)
        return -1;
    if (s->ix != s->ixloc)
        talloc_free(s->ix);
    s->ix = ix;
    s->ixmask = slots - 1;
    for (unsigned i = 0; i < s->n; i++) {
        uint32_t k = s->v[i].h & s->ixmask;
        while (ix[k])
            k = (k + 1) & s->ixmask;
        ix[k] = i + 1;
    }
    return 0;
}

/*
 * Add a[0..an) + b[0..bn) to s unless present.  stable: a outlives the
 * check and bn is 0, so it is referenced instead of copied.
 * 0, or -1 (out of memory, or a bound reached with x->limit set).
 */
static int
set_add2(struct ev *x, struct set *s, const char *a, size_t an, const char *b,
         size_t bn, int stable)
{
    uint32_t h = hash2(a, an, b, bn);

    if (step(x))
        return -1;
    if (set_has2(s, a, an, b, bn, h))
        return 0;
    if (set_grow(x, s))
        return -1;
    const char *str = a;
    if (!stable || bn) {
        x->copied = 1;
        if (an + bn > x->bytes) {
            x->limit = 1;
            return -1;
        }
        char *cp = talloc_size(x->mem, an + bn + 1);
        if (!cp)
            return -1;
        memcpy(cp, a, an);
        if (bn)
            memcpy(cp + an, b, bn);
        cp[an + bn] = '\0';
        x->bytes -= an + bn;
        str = cp;
    }
    uint32_t k = h & s->ixmask;
    while (s->ix[k])
        k = (k + 1) & s->ixmask;
    s->ix[k] = s->n + 1;
    s->v[s->n++] = (struct elem){str, an + bn, h};
    return 0;
}

static int
set_add(struct ev *x, struct set *s, const char *v, size_t n, int stable)
{
    return set_add2(x, s, v, n, NULL, 0, stable);
}

static int
set_union(struct ev *x, struct set *into, const struct set *from)
{
    for (unsigned i = 0; i < from->n; i++)
        if (set_add(x, into, from->v[i].s, from->v[i].n, 1))
            return -1;
    return 0;
}

/* Release an intermediate set's arrays (its strings stay). */
static void
set_drop(struct set *s)
{
    if (s->v && s->v != s->loc)
        talloc_free(s->v);
    if (s->ix && s->ix != s->ixloc)
        talloc_free(s->ix);
    SET_EMPTY(s);
}

/* slapd's strict dnNormalize of s[0..n) into the shared parse buffer;
 * NULL when it is not a DN (blanks only are refused).  The result lives
 * until the next parse. */
static const acre_dn *
parse_dn(struct ev *x, const char *s, size_t n)
{
    return acreV_dn_parse(x->rq->schema, x->local, sizeof(x->local), x->mem,
                          &x->dnbuf, s, n);
}

/* ------------------------------------------------------------------------
 * Gathering attribute values
 */

/* The normalised values of a (NULL: none) into out: referenced when
 * they are the view's own and the host keeps its views for the request
 * (no release function), else copied.  A class (objectClass,
 * structuralObjectClass) has no normaliser in slapd, whose a_nvals are
 * then its values as the entry spells them: they are taken so, not as
 * the class's OID. */
static int
add_attr_values(struct ev *x, struct set *out, const acre_view_attr *a)
{
    const acre_schema *s = x->rq->schema;
    const struct acreS_known *k = acreS_known(s);
    int keep = !x->rq->host.release;
    int type = a ? acreE_attr_type(s, a) : -1;
    int stored = type >= 0 &&
                 (type == k->objectClass || type == k->structuralObjectClass);
    uint8_t local[256];
    struct acreE_buf b;
    int rc = 0;

    acreE_buf_init(&b, local, sizeof local);
    for (uint32_t i = 0; a && i < a->nvals && !rc; i++) {
        size_t n = 0;
        const uint8_t *v = stored ? NULL : acreE_value_norm(s, a, i, &b, &n);
        int stable = keep && (a->norms || !v);
        if (!v) { /* no equality rule: the value as stored */
            v = a->vals[i].val;
            n = a->vals[i].len;
        }
        rc = set_add(x, out, (const char *)v, n, stable);
    }
    acreE_buf_free(&b);
    return rc;
}

/* Values of nd's attribute (or the DN, for entryDN) of entry e. */
static int
entry_values(struct ev *x, struct set *out, const acre_entry_view *e,
             const struct acreI_setnode *nd)
{
    if (nd->entrydn) {
        size_t n;
        const char *dn = acre_dn_normalised(e->dn, &n);
        return set_add(x, out, dn, n, !x->rq->host.release);
    }
    return add_attr_values(x, out, acreV_find_desc(x->rq->schema, e, nd->ad));
}

struct url_walk {
    struct ev *x;
    struct set *out;
    const struct acreI_setnode *nd;
    const struct acreI_attrspec *extra; /* the URL's attributes */
    unsigned nextra;
    const struct acreF_filter *filter;
    const struct acreI_section *db; /* the database searched */
    struct acre_request *as;        /* its identity: NULL the rootdn, else
                                       the anonymous companion */
    int failed;
};

static int
url_visit(void *ctx, const acre_entry_view *e)
{
    struct url_walk *w = ctx;
    struct acreF_hooks h = acreV_filter_hooks(w->x->rq, NULL, NULL);

    if (step(w->x))
        return w->failed = 1;
    if (!acreE_view_check(w->x->rq->schema, e)) {
        acreV_fail(w->x->rq, ACRE_ERR_LOOKUP);
        return w->failed = 1;
    }
    /* back-mdb searches its own entries, glue those of the databases
     * glued below it */
    const struct acreI_policy *ir = w->x->rq->p->ir;
    if (!acreI_in_glue(ir, acreI_section_for(ir, e->dn), w->db))
        return 0;
    if (w->as) { /* each item needs search */
        int r = acreV_search_match(w->as, w->filter, e);
        if (r < 0 || w->as->fail_code) {
            acreV_fail(w->x->rq, r < 0 ? r : w->as->fail_code);
            return w->failed = 1;
        }
        if (!r)
            return 0;
    } else if (w->filter &&
               acreV_filter_eval(w->x->rq, w->filter, e, &h) != ACREF_TRUE) {
        return 0;
    }
    for (unsigned i = 0; i < w->nextra; i++)
        if (add_attr_values(w->x, w->out,
                            acreV_find_desc(w->x->rq->schema, e, &w->extra[i])))
            return w->failed = 1;
    if (entry_values(w->x, w->out, e, w->nd))
        return w->failed = 1;
    return 0;
}

/* The URL's attribute list, resolved (unknown names and descriptions
 * with options skipped). */
static struct acreI_attrspec *
url_attrs(struct ev *x, const struct acreE_url *u, unsigned *n)
{
    struct acreI_attrspec *v =
        talloc_zero_array(x->mem, struct acreI_attrspec, u->nattrs + 1);

    *n = 0;
    for (unsigned i = 0; v && i < u->nattrs; i++) {
        struct acreS_desc d;
        if (acreS_desc_parse(x->rq->schema, u->attrs[i], strlen(u->attrs[i]),
                             &d) ||
            d.type < 0 || d.nopts)
            continue;
        v[*n].kind = ACREI_ATTR_EXACT;
        v[(*n)++].type = d.type;
    }
    return v;
}

/* An ldap:/// element: search the directory as the rootdn and collect. */
static int
gather_url(struct ev *x, struct set *out, const char *s, size_t n,
           const struct acreI_setnode *nd)
{
    struct acre_request *rq = x->rq;
    struct acreE_url u;
    struct acreF_filter *f = NULL;
    struct url_walk w = {x, out, nd, NULL, 0, NULL, NULL, NULL, 0};
    const acre_dn *base;

    if (acreE_url_parse(x->mem, s, n, &u) || u.host[0] || u.nexts)
        return 0;
    /* the search goes to the database slapd selects (acl_set_gather:
     * select_backend with noSubs), none: nothing */
    if (!(base = parse_dn(x, u.dn, strlen(u.dn))) ||
        !(w.db = acreI_select_db(rq->p->ir, base)))
        return 0;
    if (u.filter &&
        acreF_parse(x->mem, rq->schema, u.filter, strlen(u.filter), &f, NULL))
        return 0;
    w.filter = f;
    if (!(w.extra = url_attrs(x, &u, &w.nextra)))
        return -1;
    if (!rq->host.search) { /* a lookup that cannot be made: deny */
        acreV_fail(rq, ACRE_ERR_LOOKUP);
        return -1;
    }
    if (!w.db->rootdn) {
        /* slapd searches as the database's rootdn: with none, as no one
         * (anonymous, on the requester's connection), so back-mdb checks
         * search on the base entry and on each item of the filter, by
         * default (objectClass=*).  The policy's databases say which:
         * a host's search is a walk (acre.h) */
        const acre_entry_view *be;
        int got, ok;
        if (!(w.as = acreV_anon_request(rq)))
            return -1;
        w.as->err = 0; /* what failed before is the outer check's */
        w.as->fail_code = 0;
        if (!f &&
            acreF_parse(x->mem, rq->schema, "(objectClass=*)", 15, &f, NULL)) {
            acreV_fail(rq, ACRE_ERR_NOMEM);
            return -1;
        }
        w.filter = f;
        if ((got = acreV_host_get(w.as, base, &be)) != 1) {
            if (!w.as->err && !w.as->fail_code)
                return 0; /* no base: nothing */
            acreV_fail(rq, w.as->err ? w.as->err : w.as->fail_code);
            return -1;
        }
        ok = acreV_search_base(w.as, be);
        acreV_host_release(w.as, be);
        if (ok < 0 || w.as->fail_code) {
            acreV_fail(rq, ok < 0 ? ok : w.as->fail_code);
            return -1;
        }
        if (!ok)
            return 0;
    }
    /* base lives in dnbuf: nothing below parses */
    if (rq->host.search(rq->host.arg, base, u.scope, url_visit, &w) < 0 &&
        !w.failed) {
        acreV_fail(rq, ACRE_ERR_LOOKUP);
        return -1;
    }
    return w.failed ? -1 : 0;
}

/* ------------------------------------------------------------------------
 * The entries elements name, remembered per request
 *
 * x/attr and x/attr* read the entry each element names: parsing the DN
 * and asking the host cost more than the rest of the set (a walk up
 * `manager` repeats the same few DNs for every entry).  When the host
 * keeps its views for the request (no release function), the request
 * remembers, per element text (exact bytes), what it names: not a DN, no
 * entry, or the entry's view.  The work counted, the values gathered and
 * their order are those of a fresh lookup; a lookup that failed is never
 * remembered.  At most ACREV_SET_DN_MEMO texts; a full table, or no
 * memory for it, only means asking again.
 */

enum { NAMED_NOT_DN = 1, NAMED_NONE, NAMED_ENTRY };

struct setdn_slot {
    const char *s; /* NULL: empty; a copy owned by the table */
    size_t n;
    uint32_t h;
    int kind; /* NAMED_* */
    const acre_entry_view *e;
};

struct acreV_setdn {
    struct setdn_slot *slot;
    uint32_t mask; /* slots - 1 */
    uint32_t used;
};

/* Re-place t's entries into `slots` fresh slots. */
static int
setdn_grow(struct acreV_setdn *t, uint32_t slots)
{
    struct setdn_slot *v = talloc_zero_array(t, struct setdn_slot, slots);

    if (!v)
        return -1;
    for (uint32_t i = 0; t->slot && i <= t->mask; i++) {
        uint32_t k = t->slot[i].h & (slots - 1);

        if (!t->slot[i].s)
            continue;
        while (v[k].s)
            k = (k + 1) & (slots - 1);
        v[k] = t->slot[i];
    }
    talloc_free(t->slot);
    t->slot = v;
    t->mask = slots - 1;
    return 0;
}

/* The slot of s[0..n) (hash h): its own, or the empty one to fill; NULL
 * when the host releases views, the table is full or out of memory. */
static struct setdn_slot *
setdn_slot(struct acre_request *rq, const char *s, size_t n, uint32_t h)
{
    struct acreV_setdn *t = rq->set_dns;

    if (rq->host.release)
        return NULL;
    if (!t && !(t = rq->set_dns = talloc_zero(rq, struct acreV_setdn)))
        return NULL;
    if (2 * (t->used + 1) > (t->slot ? t->mask + 1 : 0)) {
        uint32_t slots = t->slot ? 2 * (t->mask + 1) : 64;

        if (!t->slot || t->used < ACREV_SET_DN_MEMO) {
            if (setdn_grow(t, slots) != 0)
                return NULL;
        }
    }
    for (uint32_t k = h & t->mask;; k = (k + 1) & t->mask) {
        struct setdn_slot *sl = &t->slot[k];

        if (!sl->s)
            return t->used < ACREV_SET_DN_MEMO ? sl : NULL;
        if (sl->h == h && sl->n == n && memcmp(sl->s, s, n) == 0)
            return sl;
    }
}

/* Remember in the empty slot sl that s[0..n) names (kind, e). */
static void
setdn_put(struct acre_request *rq, struct setdn_slot *sl, const char *s,
          size_t n, uint32_t h, int kind, const acre_entry_view *e)
{
    char *key = talloc_memdup(rq->set_dns, s, n + 1);

    if (!key)
        return;
    key[n] = '\0';
    *sl = (struct setdn_slot){key, n, h, kind, e};
    rq->set_dns->used++;
}

/* The entry element s[0..n) names: NAMED_ENTRY with *e (release it with
 * acreV_host_release), NAMED_NOT_DN, NAMED_NONE, or -1 when a lookup
 * failed or a bound was reached (rq->limit_hit). */
static int
entry_named(struct ev *x, const char *s, size_t n, const acre_entry_view **e)
{
    struct acre_request *rq = x->rq;
    uint32_t h = hash1(s, n);
    struct setdn_slot *sl = setdn_slot(rq, s, n, h);
    int kind;

    *e = NULL;
    if (sl && sl->s) {
        *e = sl->e;
        kind = sl->kind;
    } else {
        const acre_dn *dn = parse_dn(x, s, n);

        kind = !dn                              ? NAMED_NOT_DN
               : acreV_host_get(rq, dn, e) == 1 ? NAMED_ENTRY
                                                : NAMED_NONE;
        if (sl && !(kind == NAMED_NONE && rq->limit_hit))
            setdn_put(rq, sl, s, n, h, kind, *e);
    }
    return kind == NAMED_NONE && rq->limit_hit ? -1 : kind;
}

/* is_url -- does s[0..n) start with "ldap:///" (case aside)? */
static inline int
is_url(const char *s, size_t n)
{
    return n >= 8 && (s[0] | 0x20) == 'l' && !strncasecmp(s, "ldap:///", 8);
}

/* slapd's acl_set_gather for one element. */
static int
gather(struct ev *x, struct set *out, const char *s, size_t n,
       const struct acreI_setnode *nd)
{
    const acre_entry_view *e;

    if (step(x))
        return -1;
    if (is_url(s, n)) {
        x->url = 1;
        return gather_url(x, out, s, n, nd);
    }
    if (nd->entrydn) {
        const acre_dn *dn = parse_dn(x, s, n);
        size_t k;
        const char *t = dn ? acre_dn_normalised(dn, &k) : NULL;
        return t ? set_add(x, out, t, k, 0) : 0;
    }
    /* the entry checked is read as it is, not looked up (slapd's
     * backend_attribute takes its target when the DN is the target's) */
    if (n == x->c->endn_len && (s == x->c->endn || !memcmp(s, x->c->endn, n)))
        return entry_values(x, out, x->c->e, nd);
    int kind = entry_named(x, s, n, &e);
    if (kind != NAMED_ENTRY)
        return kind < 0 ? -1 : 0;
    int rc = entry_values(x, out, e, nd);
    acreV_host_release(x->rq, e);
    return rc;
}

/* ------------------------------------------------------------------------
 * Evaluation
 */

/* The parent of s[0..n) (slapd's dnParent on the normalised DN, or the
 * text after the first comma when it is not a DN); the result is in
 * x->cur or inside s. */
static int
parent_of(struct ev *x, const char **s, size_t *n)
{
    const acre_dn *dn = parse_dn(x, *s, *n);

    if (dn) {
        unsigned d = acre_dn_depth(dn);
        size_t pn = 0;
        const char *p = d ? acre_dn_ancestor(dn, d - 1, &pn) : "";
        if (pn >= x->cur_cap) {
            if (pn > ACRE_DN_MAX_LEN ||
                !(x->cur = talloc_size(x->mem, ACRE_DN_MAX_LEN + 1)))
                return -1;
            x->cur_cap = ACRE_DN_MAX_LEN + 1;
        }
        memcpy(x->cur, p, pn);
        *s = x->cur;
        *n = pn;
        return 0;
    }
    const char *comma = memchr(*s, ',', *n);
    *n = comma ? *n - (size_t)(comma + 1 - *s) : 0;
    *s = comma ? comma + 1 : "";
    return 0;
}

static int eval(struct ev *x, const struct acreI_setnode *nd, struct set *out,
                int depth);

/* ------------------------------------------------------------------------
 * Closures from one element, remembered per request
 *
 * x/attr* gathers from every element it has found until nothing new
 * appears: for this/manager*, each entry walks its whole management
 * chain, which its colleagues share.  The set it ends with is the
 * elements its first gathering found, each with the closure from it.
 * When the host keeps its views for the request and the set has no
 * substitution (its tree is the policy's), the request remembers, per
 * attribute node and element text, the closure from that element (the
 * elements, in their own copies, each with the steps gathering from it
 * takes) and the steps of its own gathering.  The steps a fresh walk
 * would spend are the sum over its final set of each element's steps,
 * whatever the order: that is what a remembered walk spends, and it is
 * used only when that sum and the set's size are within the bounds left,
 * so every answer and bound is a fresh walk's.  Closures that copied a
 * string, met an ldap:/// element, failed or reached a bound are not
 * remembered.
 */

struct clo_elem {
    const char *s;
    size_t n;
    uint32_t h;
    uint32_t w; /* steps of gathering from it */
};

struct clo {
    const struct acreI_setnode *nd;
    const char *s; /* the start element (a copy) */
    size_t n;
    uint32_t h;
    uint32_t w;   /* steps of gathering from the start */
    size_t total; /* w + the w of every element */
    unsigned nv;  /* elements of the closure */
    int self_in;  /* the start is among them (a cycle) */
    struct clo_elem v[];
};

struct acreV_setclo {
    struct clo **slot; /* NULL: empty; a record does not move */
    uint32_t mask;     /* slots - 1 */
    unsigned used;
    size_t elems, bytes; /* in all the records */
};

/* Room for one more closure (load <= 1/2); -1 when there is none. */
static int
clo_room(struct acreV_setclo *t)
{
    uint32_t slots = t->slot ? 2 * (t->mask + 1) : 64;

    if (t->used >= ACREV_SET_CLO_MEMO || t->elems >= ACREV_SET_CLO_ELEMS ||
        t->bytes >= ACREV_SET_CLO_BYTES)
        return -1;
    if (t->slot && 2 * (t->used + 1) <= t->mask + 1)
        return 0;
    struct clo **v = talloc_zero_array(t, struct clo *, slots);
    if (!v)
        return -1;
    for (uint32_t i = 0; t->slot && i <= t->mask; i++) {
        if (!t->slot[i])
            continue;
        uint32_t k = t->slot[i]->h & (slots - 1);
        while (v[k])
            k = (k + 1) & (slots - 1);
        v[k] = t->slot[i];
    }
    talloc_free(t->slot);
    t->slot = v;
    t->mask = slots - 1;
    return 0;
}

/* Gather from each of out's elements until nothing new appears (the
 * fresh walk).  w: when not NULL, the steps each element's gathering
 * took, by index (room for ACREV_SET_MAX_DNS). */
static int
walk(struct ev *x, const struct acreI_setnode *nd, struct set *out, uint32_t *w)
{
    int rc = 0;

    for (unsigned i = 0; !rc && i < out->n; i++) {
        size_t before = x->work;
        rc = gather(x, out, out->v[i].s, out->v[i].n, nd);
        if (w)
            w[i] = (uint32_t)(before - x->work);
    }
    return rc;
}

/* The closure from element f under nd: remembered, or computed on the
 * side (its own budget; x's is untouched) and remembered; NULL when it
 * cannot be. */
static const struct clo *
closure_of(struct ev *x, const struct acreI_setnode *nd, const struct elem *f)
{
    struct acre_request *rq = x->rq;
    struct acreV_setclo *t = rq->set_clo;
    struct clo **sl = NULL, *r = NULL;
    uint32_t h = f->h ^ (uint32_t)((uintptr_t)nd >> 4) * 2654435761u;

    if (!t && !(t = rq->set_clo = talloc_zero(rq, struct acreV_setclo)))
        return NULL;
    for (uint32_t k = h & t->mask; t->slot; k = (k + 1) & t->mask) {
        const struct clo *c = t->slot[k];
        if (!c)
            break;
        if (c->nd == nd && c->h == h && c->n == f->n &&
            memcmp(c->s, f->s, f->n) == 0)
            return c;
    }
    if (clo_room(t))
        return NULL;
    for (uint32_t k = h & t->mask;; k = (k + 1) & t->mask)
        if (!*(sl = &t->slot[k]))
            break;

    /* a walk from f alone, on the side */
    size_t work = x->work, bytes = x->bytes;
    struct set sub;

    SET_EMPTY(&sub);
    uint32_t *w = talloc_array(x->mem, uint32_t, ACREV_SET_MAX_DNS);

    x->work = SET_MAX_WORK;
    x->bytes = SET_MAX_BYTES;
    x->limit = x->copied = x->url = 0;
    if (w && gather(x, &sub, f->s, f->n, nd) == 0) {
        size_t own = SET_MAX_WORK - x->work, bytes_in = f->n + 1;
        int walked = walk(x, nd, &sub, w) == 0;
        for (unsigned i = 0; walked && i < sub.n; i++)
            bytes_in += sub.v[i].n + 1;
        if (walked && !x->limit && !x->copied && !x->url &&
            t->elems + sub.n <= ACREV_SET_CLO_ELEMS &&
            t->bytes + bytes_in <= ACREV_SET_CLO_BYTES &&
            (r = talloc_size(t, sizeof(*r) + sub.n * sizeof(r->v[0])))) {
            char *key = talloc_memdup(r, f->s, f->n + 1);
            *r = (struct clo){nd,
                              key,
                              f->n,
                              h,
                              (uint32_t)own,
                              own,
                              sub.n,
                              set_has2(&sub, f->s, f->n, NULL, 0, f->h)};
            for (unsigned i = 0; key && i < sub.n; i++) {
                char *cp = talloc_memdup(r, sub.v[i].s, sub.v[i].n + 1);
                if (!cp) {
                    key = NULL;
                    break;
                }
                cp[sub.v[i].n] = '\0';
                r->v[i] = (struct clo_elem){cp, sub.v[i].n, sub.v[i].h, w[i]};
                r->total += w[i];
            }
            if (key) {
                key[f->n] = '\0';
                *sl = r;
                t->used++;
                t->elems += sub.n;
                t->bytes += bytes_in;
            } else {
                talloc_free(r);
                r = NULL;
            }
        }
    }
    x->work = work;
    x->bytes = bytes;
    x->limit = x->copied = x->url = 0;
    talloc_free(w);
    set_drop(&sub);
    return r;
}

/* The closure step of x/attr*: out holds what the first gathering found;
 * add the closure from each of them, from memory when it can. */
#define CLO_FIRST 16 /* first elements a remembered walk takes at most */

static int
closure(struct ev *x, const struct acreI_setnode *nd, struct set *out)
{
    const struct clo *m[CLO_FIRST];
    unsigned k = out->n;
    size_t bound = 0, size = k, w = 0;

    if (!x->clo_ok || nd->entrydn || k > CLO_FIRST || x->rq->limit_hit)
        return walk(x, nd, out, NULL);
    for (unsigned j = 0; j < k; j++) {
        if (!(m[j] = closure_of(x, nd, &out->v[j])))
            return walk(x, nd, out, NULL);
        bound += m[j]->total;
        size += m[j]->nv;
    }
    if (bound > x->work || size > ACREV_SET_MAX_DNS)
        return walk(x, nd, out, NULL);
    for (unsigned j = 0; j < k; j++)
        w += m[j]->w;
    for (unsigned j = 0; j < k; j++)
        for (unsigned i = 0; i < m[j]->nv; i++) {
            const struct clo_elem *e = &m[j]->v[i];
            if (set_has2(out, e->s, e->n, NULL, 0, e->h))
                continue;
            if (set_grow(x, out))
                return -1;
            uint32_t s = e->h & out->ixmask;
            while (out->ix[s])
                s = (s + 1) & out->ixmask;
            out->ix[s] = out->n + 1;
            out->v[out->n++] = (struct elem){e->s, e->n, e->h};
            w += e->w;
        }
    x->work -= w;
    return 0;
}

static int
eval_attr(struct ev *x, const struct acreI_setnode *nd, struct set *out,
          int depth)
{
    struct set in;

    SET_EMPTY(&in);
    int rc = eval(x, nd->kid[0], &in, depth + 1);

    for (unsigned i = 0; !rc && i < in.n; i++)
        rc = gather(x, out, in.v[i].s, in.v[i].n, nd);
    set_drop(&in);
    if (!rc && nd->closure)
        rc = closure(x, nd, out);
    return rc ? -1 : 0;
}

/* x/-n (n > 0) and x/-* for one element. */
static int
parents(struct ev *x, const struct acreI_setnode *nd, struct set *out,
        const char *s, size_t n)
{
    int anc = nd->op == ACREI_SET_ANCESTORS;
    long up = anc ? ACRE_DN_MAX_RDNS + 1 : nd->level;

    if (anc && set_add(x, out, s, n, 1))
        return -1;
    for (long k = 0; k < up && k <= ACRE_DN_MAX_RDNS && n > 0; k++) {
        if (parent_of(x, &s, &n) || (anc && set_add(x, out, s, n, 0)))
            return -1;
    }
    return !anc && set_add(x, out, s, n, 0) ? -1 : 0;
}

static int
eval_parent(struct ev *x, const struct acreI_setnode *nd, struct set *out,
            int depth)
{
    struct set in;

    SET_EMPTY(&in);
    int rc = eval(x, nd->kid[0], &in, depth + 1);

    for (unsigned i = 0; !rc && i < in.n; i++)
        rc = parents(x, nd, out, in.v[i].s, in.v[i].n);
    set_drop(&in);
    return rc;
}

static int
eval_binary(struct ev *x, const struct acreI_setnode *nd, struct set *out,
            int depth)
{
    struct set l, r;

    SET_EMPTY(&l);
    SET_EMPTY(&r);
    int rc =
        eval(x, nd->kid[0], &l, depth + 1) || eval(x, nd->kid[1], &r, depth + 1)
            ? -1
            : 0;

    if (!rc && nd->op == ACREI_SET_UNION)
        rc = set_union(x, out, &l) || set_union(x, out, &r) ? -1 : 0;
    for (unsigned i = 0; !rc && nd->op != ACREI_SET_UNION && i < l.n; i++) {
        const struct elem *a = &l.v[i];
        if (nd->op == ACREI_SET_INTERSECT) {
            if (step(x) ||
                (set_has(&r, a->s, a->n) && set_add(x, out, a->s, a->n, 1)))
                rc = -1;
            continue;
        }
        for (unsigned j = 0; !rc && j < r.n; j++)
            rc = set_add2(x, out, a->s, a->n, r.v[j].s, r.v[j].n, 0);
    }
    set_drop(&l);
    set_drop(&r);
    return rc;
}

static int
eval(struct ev *x, const struct acreI_setnode *nd, struct set *out, int depth)
{
    struct acre_request *rq = x->rq;

    if (depth > SET_MAX_DEPTH) {
        x->limit = 1;
        return -1;
    }
    switch (nd->op) {
    case ACREI_SET_THIS:
        return set_add(x, out, x->c->endn, x->c->endn_len, 1);
    case ACREI_SET_USER:
        return set_add(x, out, rq->authz_norm ? rq->authz_norm : "",
                       rq->authz_norm ? rq->authz_len : 0, 1);
    case ACREI_SET_LITERAL:
        return set_add(x, out, nd->lit, nd->lit_len, 1);
    case ACREI_SET_ATTR:
        return eval_attr(x, nd, out, depth);
    case ACREI_SET_PARENT:
        if (nd->level == 0)
            return eval(x, nd->kid[0], out, depth + 1);
        return eval_parent(x, nd, out, depth);
    case ACREI_SET_ANCESTORS:
        return eval_parent(x, nd, out, depth);
    default:
        return eval_binary(x, nd, out, depth);
    }
}

/* ------------------------------------------------------------------------
 * Membership: `x/attr* & user` and the like
 *
 * An intersection of one element (user, this or a literal) with x/attr or
 * x/attr* is non-empty when the element is in the other side.  With the
 * closure of a single first element remembered, that side need not be
 * built: its size is the closure's (and the first element, unless it is
 * in it), its steps are the remembered ones, and membership is a scan of
 * the closure.  The steps spent are those of eval_binary over the built
 * sets; when they do not fit in the budget left, or anything else does
 * not hold, the side is built as usual.  Only where closures may be
 * remembered (x->clo_ok), so a host that keeps nothing sees eval alone.
 */

/* When nd is a set of one element (user, this or a literal): 1, its text
 * in *e, *n; else 0. */
static int
one_elem(const struct ev *x, const struct acreI_setnode *nd, const char **e,
         size_t *n)
{
    switch (nd->op) {
    case ACREI_SET_USER:
        *e = x->rq->authz_norm ? x->rq->authz_norm : "";
        *n = x->rq->authz_norm ? x->rq->authz_len : 0;
        return 1;
    case ACREI_SET_THIS:
        *e = x->c->endn;
        *n = x->c->endn_len;
        return 1;
    case ACREI_SET_LITERAL:
        *e = nd->lit;
        *n = nd->lit_len;
        return 1;
    default:
        return 0;
    }
}

/* clo_answer -- answer attr_has from m, the remembered closure of the
 * one element f gathered: its steps (with `extra` before them) spent, *size
 * and *has (is e[0..n), hash h, f or in m?).  0, nothing spent, when the
 * work left or the bound on DNs would not allow it (the general path then
 * finds the same closure and fails the same way). */
static int
clo_answer(struct ev *x, const struct clo *m, const struct elem *f,
           size_t extra, const char *e, size_t n, uint32_t h, size_t *size,
           int *has)
{
    size_t steps = extra + m->total - (m->self_in ? m->w : 0);

    if (steps > x->work || m->nv + 1u > ACREV_SET_MAX_DNS)
        return 0;
    x->work -= steps;
    *size = m->nv + (m->self_in ? 0u : 1u);
    *has = f->h == h && f->n == n && memcmp(f->s, e, n) == 0;
    for (unsigned i = 0; !*has && i < m->nv; i++)
        *has = m->v[i].h == h && m->v[i].n == n && memcmp(m->v[i].s, e, n) == 0;
    return 1;
}

/*
 * attr_has for this/attr* when the entry checked has one value of attr,
 * the host's normalised form, and the closure from it is remembered:
 * answered without building a set.  The steps are the general path's:
 * one for `this`, one for gathering from it, one for adding the value,
 * then the remembered closure's.  1 when answered; 0 when not, with
 * nothing spent (the general path then finds the same closure).
 */
static int
this_closure_has(struct ev *x, const struct acreI_setnode *nd, const char *e,
                 size_t n, uint32_t h, size_t *size, int *has)
{
    const struct acreV_check *c = x->c;
    const acre_schema *s = x->rq->schema;
    const struct acreS_known *k;
    const acre_view_attr *a;

    if (!x->clo_ok || nd->entrydn || x->rq->limit_hit ||
        is_url(c->endn, c->endn_len))
        return 0;
    k = acreS_known(s);
    if (nd->ad->type == k->objectClass ||
        nd->ad->type == k->structuralObjectClass)
        return 0; /* taken as stored: add_attr_values */
    a = acreV_find_desc(s, c->e, nd->ad);
    if (!a || a->nvals != 1 || !a->norms)
        return 0;
    struct elem f = {(const char *)a->norms[0].val, a->norms[0].len, 0};
    f.h = hash1(f.s, f.n);
    const struct clo *m = closure_of(x, nd, &f);
    return m && clo_answer(x, m, &f, 3, e, n, h, size, has);
}

/* Evaluate nd (an ATTR node) fresh: *size its elements, *has whether
 * e[0..n) (hash h) is one of them; 0, or -1 as eval. */
static int
attr_has(struct ev *x, const struct acreI_setnode *nd, const char *e, size_t n,
         uint32_t h, size_t *size, int *has)
{
    struct set in, out;
    const char *e1;
    size_t n1;
    int rc;

    if (nd->kid[0]->op == ACREI_SET_THIS && nd->closure &&
        this_closure_has(x, nd, e, n, h, size, has))
        return 0;
    SET_EMPTY(&in);
    SET_EMPTY(&out);
    if (one_elem(x, nd->kid[0], &e1, &n1)) {
        /* a set of one element, not built: the step adding it took */
        rc = spend(x, 1) ? -1 : gather(x, &out, e1, n1, nd);
    } else {
        rc = eval(x, nd->kid[0], &in, 2);
        for (unsigned i = 0; !rc && i < in.n; i++)
            rc = gather(x, &out, in.v[i].s, in.v[i].n, nd);
        set_drop(&in);
    }
    if (!rc && nd->closure) {
        const struct clo *m = NULL;
        if (x->clo_ok && !nd->entrydn && out.n == 1 && !x->rq->limit_hit &&
            (m = closure_of(x, nd, &out.v[0])) != NULL &&
            clo_answer(x, m, &out.v[0], 0, e, n, h, size, has)) {
            set_drop(&out);
            return 0;
        }
        rc = closure(x, nd, &out);
    }
    *size = out.n;
    *has = !rc && set_has2(&out, e, n, NULL, 0, h);
    set_drop(&out);
    return rc ? -1 : 0;
}

/* root's value is non-empty (*ok) when root is such an intersection:
 * 1 when answered, 0 when root is not one, -1 as eval. */
static int
member_of(struct ev *x, const struct acreI_setnode *root, int *ok)
{
    const struct acreI_setnode *a, *b;
    const char *e;
    size_t n, size;
    int has;

    if (root->op != ACREI_SET_INTERSECT || !x->clo_ok)
        return 0;
    a = root->kid[0];
    b = root->kid[1];
    int one_left = one_elem(x, a, &e, &n);
    const struct acreI_setnode *attr = one_left ? b : a;
    if (attr->op != ACREI_SET_ATTR || (!one_left && !one_elem(x, b, &e, &n)))
        return 0;
    /* the requester's hash, once per request */
    uint32_t h;
    if ((one_left ? a : b)->op == ACREI_SET_USER) {
        if (!x->rq->set_user_hok) {
            x->rq->set_user_h = hash1(e, n);
            x->rq->set_user_hok = 1;
        }
        h = x->rq->set_user_h;
    } else {
        h = hash1(e, n);
    }
    /* the left side first, as eval_binary: one element is one step */
    if (one_left && spend(x, 1))
        return -1;
    if (attr_has(x, attr, e, n, h, &size, &has))
        return -1;
    if (!one_left && spend(x, 1))
        return -1;
    /* the intersection: a step per element of the left side, and one
     * for the element it keeps */
    if (spend(x, (one_left ? 1 : size) + (has ? 1 : 0)))
        return -1;
    *ok = has;
    return 1;
}

/* The tree of set for this check: parsed, or substituted then parsed
 * (buf holds the text); NULL when it never matches. */
static const struct acreI_setnode *
set_root(struct acreV_check *c, const struct acreI_set *set,
         const struct acreV_matches *tm, char buf[ACREI_EXPAND_MAX + 1])
{
    struct acre_request *rq = c->rq;
    const struct acreI_hooks *h = rq->p->ir->hooks;
    const struct acreI_setnode *root = NULL;
    size_t n, off;

    if (set->invalid)
        return NULL;
    if (!set->expand)
        return set->root;
    if (acreI_expand(set->text.tmpl, set->text.len, tm ? tm->dn_src : NULL,
                     tm ? tm->dn : NULL, tm ? tm->dn_count : 0,
                     tm ? tm->val_src : NULL, tm ? tm->val : NULL,
                     tm ? tm->val_count : 0, buf, &n) ||
        !h || !h->set_parse ||
        h->set_parse(rq->scratch, rq->schema, buf, n, &root, &off))
        return NULL;
    return root;
}

static int set_evaluate(struct acreV_check *c, const struct acreI_set *set,
                        const struct acreV_matches *tm, int *clean);

/* Does nd name `user`? */
static int
names_user(const struct acreI_setnode *nd)
{
    if (nd->op == ACREI_SET_USER)
        return 1;
    return (nd->kid[0] && names_user(nd->kid[0])) ||
           (nd->kid[1] && names_user(nd->kid[1]));
}

/* ------------------------------------------------------------------------
 * The last set decided, remembered per request
 *
 * A set without substitutions depends on the entry only through `this`,
 * its normalised DN: the checks of one entry's attributes (homePhone,
 * employeeType, ... under one rule) evaluate it again and again with the
 * same answer.  The request keeps the last one: the set, the DN, the
 * answer and the steps it took.  It is reused only when the evaluation
 * reached no bound and saw no failure, and the request's budget still
 * holds those steps, which are spent again: every answer, bound and
 * budget is what a fresh evaluation gives.  Not when explaining (the
 * trace tells each evaluation).
 */
struct acreV_setlast {
    const struct acreI_set *set; /* NULL: nothing remembered */
    size_t steps;
    int ok;
    size_t n;
    char dn[ACRE_DN_MAX_LEN + 1];
};

/* The remembered answer for set on c's entry: 0 or 1, or -1 when none. */
static int
set_last_get(struct acreV_check *c, const struct acreI_set *set)
{
    struct acreV_setlast *l = c->rq->set_last;

    if (!l || l->set != set || set->expand || c->trace || c->steps ||
        c->rq->limit_hit || l->n != c->endn_len || c->rq->set_work < l->steps ||
        memcmp(l->dn, c->endn, l->n) != 0)
        return -1;
    c->rq->set_work -= l->steps;
    return l->ok;
}

/* Remember the answer of a fresh evaluation that took `steps`. */
static void
set_last_put(struct acreV_check *c, const struct acreI_set *set, size_t steps,
             int ok)
{
    struct acre_request *rq = c->rq;

    if (set->expand || c->trace || c->steps || rq->limit_hit ||
        c->endn_len > ACRE_DN_MAX_LEN)
        return;
    if (!rq->set_last &&
        !(rq->set_last = talloc_zero(rq, struct acreV_setlast)))
        return;
    rq->set_last->set = set;
    rq->set_last->steps = steps;
    rq->set_last->ok = ok;
    rq->set_last->n = c->endn_len;
    memcpy(rq->set_last->dn, c->endn, c->endn_len);
}

int
acreV_set_matches(struct acreV_check *c, const struct acreI_set *set,
                  const struct acreV_matches *tm)
{
    int last = set_last_get(c, set);
    int fresh_ok = c->rq->limit_hit == 0;

    if (last >= 0)
        return last;
    size_t before = c->rq->set_work;
    int clean = 0, ok = set_evaluate(c, set, tm, &clean);
    if (fresh_ok && clean)
        set_last_put(c, set, before - c->rq->set_work, ok);
    return ok;
}

/* acreV_set_matches without the memory of the last answer.  clean: OUT,
 * 1 when the evaluation ran to its end (no bound, failure or lack of
 * memory). */
static int
set_evaluate(struct acreV_check *c, const struct acreI_set *set,
             const struct acreV_matches *tm, int *clean)
{
    struct acre_request *rq = c->rq;
    char buf[ACREI_EXPAND_MAX + 1];
    const struct acreI_setnode *root = set_root(c, set, tm, buf);
    struct ev x; /* set field by field: its buffers need no zeroing */
    struct set out;

    SET_EMPTY(&out);

    if (!root) {
        if (c->trace && *c->trace)
            *c->trace = talloc_asprintf_append_buffer(
                *c->trace, "    set: invalid expression, no match\n");
        return 0;
    }
    if (!rq->who.authz_dn && names_user(root)) {
        if (c->trace && *c->trace)
            *c->trace = talloc_asprintf_append_buffer(
                *c->trace, "    set: user of an anonymous connection (no "
                           "DN), no match\n");
        *clean = 1;
        return 0;
    }
    x.c = c;
    x.rq = rq;
    x.mem = rq->scratch;
    x.dnbuf = NULL;
    x.cur = x.cur_local;
    x.cur_cap = sizeof(x.cur_local);
    x.work = SET_MAX_WORK < rq->set_work ? SET_MAX_WORK : rq->set_work;
    x.bytes = SET_MAX_BYTES;
    x.limit = x.copied = x.url = 0;
    x.clo_ok = !set->expand && !c->trace && !c->steps && !rq->host.release;
    size_t budget = x.work;
    int ok = 0, rc = member_of(&x, root, &ok);
    if (rc == 0)
        rc = eval(&x, root, &out, 0);
    else if (rc > 0)
        rc = 0;
    rq->set_work -= budget - x.work; /* the request's budget too */
    if (x.limit)
        acreV_fail(rq, ACRE_ERR_EVAL_LIMIT);
    ok = rc == 0 && (ok || out.n > 0);
    *clean = rc == 0 && !x.limit;
    if (c->trace && *c->trace)
        *c->trace = talloc_asprintf_append_buffer(
            *c->trace, "    set: %s\n",
            x.limit ? "a limit was reached, no match"
            : rc    ? "evaluation failed, no match"
            : ok    ? "non-empty"
                    : "empty");
    set_drop(&out);
    if (x.dnbuf)
        talloc_free(x.dnbuf);
    if (x.cur != x.cur_local)
        talloc_free(x.cur);
    return ok;
}
