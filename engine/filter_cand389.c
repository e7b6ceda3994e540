/*
 * filter_cand389.c -- the candidates 389-DS's back-ldbm takes from its
 * indexes for a search filter (ldbm_search.c build_candidate_list,
 * filterindex.c, idl_set.c), in its default index configuration (the
 * "cn=default indexes" entries a new database copies), and how many
 * times it sends each.  The filter test then sees only those candidates,
 * once per time it holds them.  Two things make that differ from the
 * filter alone:
 *   - an index holds stored values only, never those 389's Class of
 *     Service gives: an entry whose telephoneNumber comes from CoS is no
 *     candidate of (telephoneNumber=...), though the filter test would
 *     match it;
 *   - an inequality on an equality-indexed type reads a range of index
 *     keys and keeps the entry's ID once per key in range (one per
 *     distinct normalised value of the type and its subtypes): 389 sends
 *     the entry that many times.
 * So the search asks for them (acreF_candidates_389_matter) only when the
 * filter has such an inequality, or an item on an indexed type CoS gives.
 *
 * What is reproduced, as 389 2.3 does it:
 *   - the optimiser (slapi_filter_optimise): in an AND, nested ANDs
 *     merged and equality items not on a type written "objectclass"
 *     moved to the front, in reverse order; in an OR, nested ORs merged
 *     and approximate, inequality and substring items moved to the front,
 *     reversed; then the first child optimised, and its later siblings
 *     only while none of them before is an AND or an OR;
 *   - the items: equality (its type equality-indexed, options ignored:
 *     the entries with a value of the type or a subtype equal to the
 *     assertion under the equality rule), presence, substrings (the
 *     three-byte keys 389's string syntaxes make of a value, "^ab",
 *     every "abc", "yz$", and of the assertion; none: every entry),
 *     inequalities and an AND of exactly two of them on the same type as
 *     written (a range of equality keys, compared as bytes, each key in
 *     range one more time), extensible items with an equality or
 *     ordering rule of the type's syntax on an equality-indexed type
 *     (the equality key looked up, or the keys from it on, each entry
 *     once); an item on a type the schema does not know is no entry;
 *     anything else, NOT included, every entry (ALLIDS);
 *   - list_candidates: in an AND a NOT of an equality is subtracted (a
 *     first one subtracts from every entry), and once a list of at most
 *     FILTER_TEST_THRESHOLD (10) IDs is in, the rest is not read and that
 *     smallest list is the answer; an OR stops at ALLIDS; two lists
 *     combine by idl_intersection and idl_union, more by the k-way walks
 *     of idl_set.c, simulated step by step (they differ on repeated IDs:
 *     the walks append an ID only when it is not the last one appended);
 *   - the scope: a one-level search ANDs the filter's list with the
 *     base's children (the filter first, its referral OR keeping the
 *     list as it is); a subtree search's intersection with the base's
 *     subtree keeps the list's repeats, and the walk keeps to the scope.
 * Entry IDs are the directory's load order (389 numbers entries as it
 * adds them); the database is every entry of the directory.
 */
#include "filter_impl.h"

#include "buf.h"
#include "entry.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

#define THRESHOLD 10 /* back-ldbm.h FILTER_TEST_THRESHOLD */
#define MAX_KEYS  256

/* An ID list: sorted IDs, repeats kept, or every entry once (all). */
struct idl {
    int all;
    uint64_t *id;
    size_t n;
};

/* How a leaf finds its entries: every entry, none, or from an index. */
enum leaf_how { L_ALL, L_NONE, L_EQ, L_PRES, L_SUB, L_RANGE };

/* A leaf of the plan: an item read from one index. */
struct leaf {
    const struct acreF_node *nd;
    enum leaf_how how;
    int type;
    int eq;                 /* the rule of the values' keys (L_RANGE) */
    int lo_short, hi_short; /* the key ends past its normal form */
    int once;               /* an extensible ordering item: each entry once */
    const uint8_t *lo_key, *hi_key; /* L_EQ: lo_key; L_RANGE: either */
    size_t lo_len, hi_len;
    char (*keys)[3]; /* L_SUB */
    unsigned nkeys;
    struct idl ids; /* filled by the scan */
    size_t cap;
};

/* A node of the optimised filter. */
struct pnode {
    uint8_t kind;       /* enum acreF_kind */
    struct leaf *leaf;  /* items (and a bounded range) */
    struct pnode **kid; /* AND, OR, NOT */
    unsigned nkid;
};

struct c389 {
    void *mem;
    const acre_schema *s;
    const struct acreF_cand_host *h;
    int mo_type; /* memberOf, which h->memberof may give */
    struct leaf **leaf;
    unsigned nleaf;
    uint64_t maxid;
    struct acreE_buf b;
    struct acreE_buf seen; /* leaf_count's range keys */
    int rc;
};

/* ------------------------------------------------------------------------
 * The plan: slapi_filter_optimise, then the leaves
 */

/* the normalised form of v[0..n) under t's equality rule (into c->b), or
 * NULL */
static const uint8_t *
norm(struct c389 *c, int t, const uint8_t *v, size_t n, size_t *len)
{
    c->b.len = 0;
    if (acreE_norm_stored(c->s, t, v, n, &c->b))
        return NULL;
    *len = c->b.len;
    return c->b.len ? c->b.p : (const uint8_t *)"";
}

static const uint8_t *
keep(struct c389 *c, void *ctx, const uint8_t *v, size_t n)
{
    uint8_t *k = talloc_memdup(ctx, n ? v : (const uint8_t *)"", n + 1);
    if (!k)
        c->rc = ACRE_ERR_NOMEM;
    return k;
}

static void
add_key(struct leaf *l, const uint8_t *k)
{
    if (l->nkeys < MAX_KEYS)
        memcpy(l->keys[l->nkeys++], k, 3);
}

/* 389's substring keys of the assertion (string_assertion2keys_sub with
 * three-byte keys): "^" and the initial's first two bytes, then every
 * three bytes of the initial, of each any, of the final, and the final's
 * last two with "$". */
static void
sub_keys(struct c389 *c, struct leaf *l, const struct acreF_node *nd)
{
    for (unsigned i = 0; i < nd->nparts; i++) {
        size_t n;
        const uint8_t *v = norm(c, l->type, nd->parts[i], nd->part_len[i], &n);
        int ini = i == 0 && nd->has_initial,
            fin = i + 1 == nd->nparts && nd->has_final;
        uint8_t k[3];
        if (!v)
            continue;
        if (ini && n > 1) {
            k[0] = '^', k[1] = v[0], k[2] = v[1];
            add_key(l, k);
        }
        for (size_t j = 0; j + 3 <= n; j++)
            add_key(l, v + j);
        if (fin && n > 1) {
            k[0] = v[n - 2], k[1] = v[n - 1], k[2] = '$';
            add_key(l, k);
        }
    }
}

/* an extensible item's rule as 389 looks it up in an index: ACREM_EQ or
 * ACREM_ORD for a rule of a type's syntax, else 0 (collation, bitwise,
 * DN rules, substrings, an item without a type or under :dn:: every
 * entry) */
static int
ext_usage(const struct acreF_node *nd)
{
    if (!nd->desc || nd->dnattrs || nd->coll || nd->undef ||
        nd->rule <= ACREM_NONE || nd->rule >= ACREM_COUNT)
        return 0;
    int u = (int)acreM_info(nd->rule)->usage;
    return u == ACREM_EQ || u == ACREM_ORD ? u : 0;
}

static struct leaf *
new_leaf(struct c389 *c, const struct acreF_node *nd)
{
    struct leaf *l = talloc_zero(c->mem, struct leaf);
    struct leaf **all =
        l ? talloc_realloc(c->mem, c->leaf, struct leaf *, c->nleaf + 1) : NULL;

    if (!all) {
        c->rc = ACRE_ERR_NOMEM;
        return NULL;
    }
    c->leaf = all;
    c->leaf[c->nleaf++] = l;
    l->nd = nd;
    l->type = nd->want.type;
    if (nd->kind == ACREF_NOT || nd->kind == ACREF_APPROX ||
        (nd->kind == ACREF_EXTENSIBLE && !ext_usage(nd))) {
        l->how = L_ALL;
        return l;
    }
    if (l->type < 0) { /* a type 389's schema does not know: no entry */
        l->how = L_NONE;
        return l;
    }
    unsigned ix = acreF_index389(c->s, l->type);
    /* numSubordinates, which 389 stores and indexes, is computed here */
    if (nd->special == ACREF_SP_HASSUBORDINATES ||
        l->type == acreS_attr_find(c->s, "numSubordinates", 15))
        ix = 0;
    switch (nd->kind) {
    case ACREF_EQUALITY:
    case ACREF_GE:
    case ACREF_LE:
        l->how = ix & ACREF_IX389_EQ
                     ? (nd->kind == ACREF_EQUALITY ? L_EQ : L_RANGE)
                     : L_ALL;
        if (l->how == L_ALL)
            break;
        /* the assertion's key is the filter's normal form of it (a value
         * the rule refuses as filter.c keeps it); an inequality's keeps
         * the length sent, so a form shorter than that sorts after the
         * values equal to it (filter_eval.c, range_cmp) */
        l->eq = nd->int389 ? ACREM_INTEGER : nd->rule_eq;
        if (nd->kind == ACREF_EQUALITY) {
            /* equality: the stored values' normal form of it, a value the
             * rule refuses being its own key (objectClass included) */
            size_t n;
            const uint8_t *v = norm(c, l->type, nd->raw, nd->raw_len, &n);
            if (!v)
                v = nd->raw, n = nd->raw_len;
            l->lo_key = keep(c, c->mem, v, n), l->lo_len = n;
            break;
        }
        if (nd->kind == ACREF_LE) {
            l->hi_key = nd->norm, l->hi_len = nd->norm_len;
            l->hi_short = nd->norm_len < nd->raw_len;
        } else {
            l->lo_key = nd->norm, l->lo_len = nd->norm_len;
            l->lo_short = nd->kind == ACREF_GE && nd->norm_len < nd->raw_len;
        }
        if (!nd->norm)
            l->how = L_NONE;
        break;
    case ACREF_PRESENT:
        l->how = ix & ACREF_IX389_PRES ? L_PRES : L_ALL;
        break;
    case ACREF_SUBSTRINGS:
        l->how = L_ALL;
        if (!(ix & ACREF_IX389_SUB))
            break;
        if (!(l->keys = talloc_size(c->mem, MAX_KEYS * sizeof *l->keys))) {
            c->rc = ACRE_ERR_NOMEM;
            break;
        }
        sub_keys(c, l, nd);
        if (l->nkeys)
            l->how = L_SUB;
        break;
    case ACREF_EXTENSIBLE: {
        /* extensible_candidates: an equality rule looks the assertion's
         * key up in the type's equality index, an ordering rule reads
         * the keys from it on, each entry once */
        size_t n;
        const uint8_t *v;
        if (!(ix & ACREF_IX389_EQ)) {
            l->how = L_ALL;
            break;
        }
        if (!(v = norm(c, l->type, nd->raw, nd->raw_len, &n)))
            v = nd->raw, n = nd->raw_len;
        l->lo_key = keep(c, c->mem, v, n), l->lo_len = n;
        l->eq = acreS_attr(c->s, l->type)->eq;
        l->how = ext_usage(nd) == ACREM_EQ ? L_EQ : L_RANGE;
        l->once = 1;
        break;
    }
    default:
        l->how = L_ALL;
    }
    return l;
}

static struct pnode *
pnew(struct c389 *c, uint8_t kind, unsigned nkid)
{
    struct pnode *p = talloc_zero(c->mem, struct pnode);

    if (p && nkid && !(p->kid = talloc_array(p, struct pnode *, nkid)))
        p = NULL;
    if (!p)
        c->rc = ACRE_ERR_NOMEM;
    else
        p->kind = kind;
    return p;
}

/* the filter as 389 reads it, before the optimiser */
static struct pnode *
plain(struct c389 *c, const struct acreF_node *nd)
{
    struct pnode *p;

    if (nd->kind != ACREF_AND && nd->kind != ACREF_OR &&
        nd->kind != ACREF_NOT) {
        if ((p = pnew(c, nd->kind, 0)))
            p->leaf = new_leaf(c, nd);
        return p;
    }
    if (!(p = pnew(c, nd->kind, nd->nkids)))
        return NULL;
    p->leaf = nd->kind == ACREF_NOT ? new_leaf(c, nd) : NULL;
    for (unsigned i = 0; i < nd->nkids; i++)
        if (!(p->kid[p->nkid++] = plain(c, nd->kids[i])))
            return NULL;
    return p;
}

/* does the optimiser move kid k of p (an AND or OR) to the front? */
static int
moved(const struct pnode *p, const struct pnode *k)
{
    if (p->kind == ACREF_AND) {
        const struct acreF_node *nd = k->leaf ? k->leaf->nd : NULL;
        return k->kind == ACREF_EQUALITY && nd &&
               !(nd->desc_len == 11 &&
                 !strncasecmp(nd->desc, "objectclass", 11));
    }
    return k->kind == ACREF_APPROX || k->kind == ACREF_GE ||
           k->kind == ACREF_LE || k->kind == ACREF_SUBSTRINGS;
}

/* slapi_filter_optimise_inner on p's list: merge the nested lists of the
 * same kind in place, move the items moved() says to the front in
 * reverse order; then the children, in the order the optimiser's walk
 * reaches them. */
static int
optimise(struct c389 *c, struct pnode *p)
{
    unsigned n = 0;

    for (unsigned i = 0; i < p->nkid; i++)
        n += p->kid[i]->kind == p->kind ? p->kid[i]->nkid : 1;
    struct pnode **flat = talloc_array(p, struct pnode *, n ? n : 1),
                 **out = talloc_array(p, struct pnode *, n ? n : 1);
    if (!flat || !out)
        return c->rc = ACRE_ERR_NOMEM;
    unsigned k = 0;
    for (unsigned i = 0; i < p->nkid; i++) {
        /* a merged list's items are read in their turn, so a nested list
         * of the same kind in it is merged too */
        if (p->kid[i]->kind == p->kind) {
            struct pnode *q = p->kid[i];
            for (unsigned j = 0; j < q->nkid; j++)
                flat[k++] = q->kid[j];
        } else {
            flat[k++] = p->kid[i];
        }
    }
    /* nested lists of a merged list: merge again until none is left */
    for (unsigned i = 0; i < k; i++)
        if (flat[i]->kind == p->kind) {
            p->kid = flat;
            p->nkid = k;
            return optimise(c, p);
        }
    unsigned m = 0;
    for (unsigned i = k; i-- > 0;)
        if (moved(p, flat[i]))
            out[m++] = flat[i];
    for (unsigned i = 0; i < k; i++)
        if (!moved(p, flat[i]))
            out[m++] = flat[i];
    p->kid = out;
    p->nkid = m;
    /* the children: the first, then its siblings while each is not an
     * AND or OR (whose case does not go on to its next sibling) */
    for (unsigned i = 0; i < m; i++) {
        struct pnode *q = out[i];
        if (q->kind == ACREF_AND || q->kind == ACREF_OR) {
            if (optimise(c, q))
                return c->rc;
            break;
        }
    }
    return 0;
}

/* list_candidates' bounded range: an AND of exactly a GE and an LE on
 * the same type as written (case aside, as filter_eval.c's bounded389)
 * becomes one range leaf. */
static void
bounded(struct c389 *c, struct pnode *p)
{
    if (p->kind != ACREF_AND || p->nkid != 2)
        goto kids;
    struct pnode *a = p->kid[0], *b = p->kid[1];
    if (a->kind == ACREF_LE && b->kind == ACREF_GE) {
        struct pnode *t = a;
        a = b;
        b = t;
    }
    if (a->kind != ACREF_GE || b->kind != ACREF_LE ||
        a->leaf->nd->desc_len != b->leaf->nd->desc_len ||
        strncasecmp(a->leaf->nd->desc, b->leaf->nd->desc,
                    a->leaf->nd->desc_len))
        goto kids;
    if (a->leaf->how != L_RANGE || b->leaf->how != L_RANGE)
        goto kids;
    struct leaf *l = new_leaf(c, a->leaf->nd);
    if (!l)
        return;
    l->hi_key = b->leaf->hi_key;
    l->hi_len = b->leaf->hi_len;
    l->hi_short = b->leaf->hi_short;
    p->kind = ACREF_GE; /* a leaf now */
    p->nkid = 0;
    p->leaf = l;
    return;
kids:
    for (unsigned i = 0; i < p->nkid; i++)
        bounded(c, p->kid[i]);
}

/* ------------------------------------------------------------------------
 * The scan: each leaf's list from the database's entries
 */

/* is key k one of the substring keys 389 makes of value v[0..n)? */
static int
has_key(const uint8_t *v, size_t n, const char *k)
{
    if (n > 1 && k[0] == '^' && (uint8_t)k[1] == v[0] && (uint8_t)k[2] == v[1])
        return 1;
    if (n > 1 && k[2] == '$' && (uint8_t)k[0] == v[n - 2] &&
        (uint8_t)k[1] == v[n - 1])
        return 1;
    for (size_t j = 0; j + 3 <= n; j++)
        if (!memcmp(v + j, k, 3))
            return 1;
    return 0;
}

/* memcmp order of index keys: value key v against an assertion's key k
 * (short_: k has bytes past its form) */
static int
key_cmp(const uint8_t *v, size_t vn, const uint8_t *k, size_t kn, int short_)
{
    int r = memcmp(v, k, vn < kn ? vn : kn);

    r = r ? r : (vn > kn) - (vn < kn);
    return r == 0 && short_ ? -1 : r;
}

/* value j of a in rule eq's normal form (the stored one when eq is its
 * type's rule), into c->b; NULL when it has none */
static const uint8_t *
vform(struct c389 *c, int eq, const acre_view_attr *a, unsigned j, size_t *len)
{
    if (eq == acreS_attr(c->s, acreE_attr_type(c->s, a))->eq)
        return acreE_value_norm(c->s, a, j, &c->b, len);
    c->b.len = 0;
    if (eq == ACREM_NONE ||
        acreM_normalise(c->s, eq, a->vals[j].val, a->vals[j].len, &c->b))
        return NULL;
    *len = c->b.len;
    return c->b.p;
}

/* how many times leaf l's index lists entry e */
static unsigned
leaf_count(struct c389 *c, struct leaf *l, const acre_entry_view *e)
{
    /* L_RANGE: the distinct keys in range (at most MAX_KEYS told apart),
     * copied one after another into c->seen, reused entry to entry */
    size_t seen_at[MAX_KEYS], seen_len[MAX_KEYS];
    unsigned nseen = 0, found = 0;
    uint8_t sub_found[MAX_KEYS] = {0};
    /* a memberOf computed for the request, on an entry that stores none,
     * stands for the one 389's memberOf plugin stores (and indexes) */
    acre_view_attr virt = {l->type, 0, NULL, NULL};
    int stored = 0;
    for (unsigned i = 0; i < e->nattrs && !stored; i++)
        stored = acreE_attr_type(c->s, &e->attrs[i]) == l->type;
    c->seen.len = 0;
    if (l->type == c->mo_type && c->h->memberof && !stored) {
        int rc = c->h->memberof(c->h->arg, e, &virt.vals, &virt.nvals);
        if (rc < 0) {
            c->rc = rc;
            return 0;
        }
    }

    for (unsigned i = 0; i <= e->nattrs; i++) {
        const acre_view_attr *a = i < e->nattrs ? &e->attrs[i] : &virt;
        if (!a->nvals || acreE_attr_type(c->s, a) != l->type)
            continue;
        if (l->how == L_PRES)
            return 1;
        for (unsigned j = 0; j < a->nvals; j++) {
            size_t n;
            const uint8_t *v = l->how != L_RANGE
                                   ? acreE_value_norm(c->s, a, j, &c->b, &n)
                                   : vform(c, l->eq, a, j, &n);
            if (!v)
                continue;
            if (l->how == L_EQ) {
                if (!key_cmp(v, n, l->lo_key, l->lo_len, 0))
                    return 1;
            } else if (l->how == L_SUB) {
                for (unsigned k = 0; k < l->nkeys; k++)
                    if (!sub_found[k] && has_key(v, n, l->keys[k])) {
                        sub_found[k] = 1;
                        found++;
                    }
                if (found == l->nkeys)
                    return 1;
            } else if (l->how == L_RANGE &&
                       (!l->lo_key || key_cmp(v, n, l->lo_key, l->lo_len,
                                              l->lo_short) >= 0) &&
                       (!l->hi_key || key_cmp(v, n, l->hi_key, l->hi_len,
                                              l->hi_short) <= 0)) {
                unsigned s = 0;
                while (s < nseen &&
                       key_cmp(v, n, c->seen.p + seen_at[s], seen_len[s], 0))
                    s++;
                if (s == nseen && nseen < MAX_KEYS) {
                    seen_at[nseen] = c->seen.len;
                    if (acreE_buf_put(&c->seen, v, n)) {
                        c->rc = ACRE_ERR_NOMEM;
                        return 0;
                    }
                    seen_len[nseen++] = n;
                }
            }
        }
    }
    return l->how != L_RANGE ? 0 : l->once && nseen ? 1 : nseen;
}

static int
push(struct c389 *c, struct idl *l, size_t *cap, uint64_t id)
{
    if (l->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        uint64_t *v = talloc_realloc(c->mem, l->id, uint64_t, nc);
        if (!v)
            return c->rc = ACRE_ERR_NOMEM;
        l->id = v;
        *cap = nc;
    }
    l->id[l->n++] = id;
    return 0;
}

struct scan {
    struct c389 *c;
    const struct acreF_cand_host *h;
    const acre_dn *base; /* one-level: the base's children, into kids */
    struct idl kids;
    size_t kids_cap;
};

static int
scan_visit(void *arg, const acre_entry_view *e)
{
    struct scan *s = arg;
    struct c389 *c = s->c;
    uint64_t id = s->h->id(s->h->arg, e);

    if (id > c->maxid)
        c->maxid = id;
    if (s->base && acre_dn_in_scope(e->dn, s->base, ACRE_SCOPE_ONE) == 1 &&
        push(c, &s->kids, &s->kids_cap, id))
        return 1;
    for (unsigned i = 0; i < c->nleaf; i++) {
        struct leaf *l = c->leaf[i];
        if (l->how == L_ALL || l->how == L_NONE)
            continue;
        unsigned k = leaf_count(c, l, e);
        while (k--)
            if (push(c, &l->ids, &l->cap, id))
                return 1;
    }
    return c->rc ? 1 : 0;
}

static int
id_cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/* ------------------------------------------------------------------------
 * The lists combined as idl_common.c and idl_set.c combine them
 */

static struct idl
idl_new(struct c389 *c, size_t cap)
{
    struct idl r = {0, talloc_array(c->mem, uint64_t, cap ? cap : 1), 0};

    if (!r.id)
        c->rc = ACRE_ERR_NOMEM;
    return r;
}

/* idl_intersection: a's IDs that b has, a's repeats kept */
static struct idl
inter2(struct c389 *c, struct idl a, struct idl b)
{
    if (!a.all && !a.n)
        return a;
    if (!b.all && !b.n)
        return b;
    if (a.all)
        return b;
    if (b.all)
        return a;
    struct idl r = idl_new(c, a.n);
    size_t bi = 0;
    for (size_t ai = 0; r.id && ai < a.n; ai++) {
        while (bi < b.n && b.id[bi] < a.id[ai])
            bi++;
        if (bi == b.n)
            break;
        if (b.id[bi] == a.id[ai])
            r.id[r.n++] = a.id[ai];
    }
    return r;
}

/* idl_union: a merge in which equal heads are taken once */
static struct idl
union2(struct c389 *c, struct idl a, struct idl b)
{
    if (!a.all && !a.n)
        return b;
    if (!b.all && !b.n)
        return a;
    if (a.all || b.all)
        return (struct idl){1, NULL, 0};
    if (b.n < a.n) {
        struct idl t = a;
        a = b;
        b = t;
    }
    struct idl r = idl_new(c, a.n + b.n);
    size_t ai = 0, bi = 0;
    while (r.id && ai < a.n && bi < b.n) {
        if (a.id[ai] < b.id[bi])
            r.id[r.n++] = a.id[ai++];
        else if (b.id[bi] < a.id[ai])
            r.id[r.n++] = b.id[bi++];
        else
            r.id[r.n++] = a.id[ai], ai++, bi++;
    }
    while (r.id && ai < a.n)
        r.id[r.n++] = a.id[ai++];
    while (r.id && bi < b.n)
        r.id[r.n++] = b.id[bi++];
    return r;
}

/* idl_notin: a without b's IDs (a's IDs past b's last kept) */
static struct idl
notin(struct c389 *c, struct idl a, struct idl b)
{
    if (!a.all && !a.n)
        return a;
    if (b.all || !b.n)
        return a;
    if (a.all) {
        struct idl r = idl_new(c, c->maxid);
        size_t bi = 0;
        for (uint64_t id = 1; r.id && id <= c->maxid; id++) {
            if (bi < b.n && b.id[bi] == id)
                bi++;
            else
                r.id[r.n++] = id;
        }
        return r;
    }
    if (a.id[a.n - 1] < b.id[0] || a.id[0] > b.id[b.n - 1])
        return a;
    struct idl r = idl_new(c, a.n);
    size_t ai = 0, bi = 0;
    for (; r.id && ai < a.n; ai++) {
        while (bi < b.n && b.id[bi] < a.id[ai])
            bi++;
        if (bi == b.n)
            break;
        if (b.id[bi] != a.id[ai])
            r.id[r.n++] = a.id[ai];
    }
    for (; r.id && ai < a.n; ai++)
        r.id[r.n++] = a.id[ai];
    return r;
}

/* An idl_set: the lists of one AND or OR, the last inserted first. */
struct set {
    struct idl *l; /* l[0] inserted first */
    size_t *itr;
    unsigned count, min; /* min: index + 1 of the smallest, or 0 */
    int all;
    struct idl *comp;
    unsigned ncomp;
};

static void
set_insert(struct set *s, struct idl l)
{
    if (l.all) {
        s->all = 1;
        return;
    }
    if (!s->min || l.n < s->l[s->min - 1].n)
        s->min = s->count + 1;
    s->l[s->count++] = l;
}

/* the k-way union of idl_set_union, step by step */
static struct idl
union_k(struct c389 *c, struct set *s)
{
    size_t total = 0;
    unsigned live = s->count;
    uint8_t *gone = talloc_zero_array(c->mem, uint8_t, s->count);

    for (unsigned i = 0; i < s->count; i++)
        total += s->l[i].n, s->itr[i] = 0;
    struct idl r = idl_new(c, total);
    uint64_t last = 0;
    while (r.id && gone && live) {
        uint64_t next = 0;
        /* head first: the last inserted */
        for (unsigned k = s->count; k-- > 0;) {
            struct idl *l = &s->l[k];
            if (gone[k])
                continue;
            if (s->itr[k] < l->n && l->id[s->itr[k]] == last && last)
                s->itr[k]++;
            if (s->itr[k] >= l->n) {
                gone[k] = 1;
                live--;
                continue;
            }
            if (l->id[s->itr[k]] < next || !next)
                next = l->id[s->itr[k]];
        }
        if (next && r.n < total && (!r.n || r.id[r.n - 1] != next))
            r.id[r.n++] = next; /* idl_append: not twice in a row */
        last = next;
    }
    return r;
}

/* the k-way intersection of idl_set_intersect, step by step */
static struct idl
inter_k(struct c389 *c, struct set *s)
{
    struct idl r = idl_new(c, s->l[s->min - 1].n);
    uint64_t last = 0, next = 0;
    unsigned quorum = 0;
    int finished = 0;

    for (unsigned i = 0; i < s->count; i++)
        s->itr[i] = 0;
    while (r.id && !finished) {
        for (unsigned k = s->count; k-- > 0 && !finished;) {
            struct idl *l = &s->l[k];
            size_t *it = &s->itr[k];
            if (*it < l->n && l->id[*it] == last && last)
                (*it)++;
            if (*it >= l->n) {
                finished = 1;
                break;
            }
            if (!next) {
                next = l->id[*it];
            } else if (next < l->id[*it]) {
                quorum = 1;
                next = l->id[*it];
            } else if (next > l->id[*it]) {
                while (*it < l->n && next > l->id[*it])
                    (*it)++;
                if (*it >= l->n) {
                    finished = 1;
                    break;
                }
                if (next < l->id[*it]) {
                    next = l->id[*it];
                    quorum = 1;
                } else {
                    quorum++;
                }
            } else {
                quorum++;
            }
            if (next && quorum == s->count) {
                if (r.n < s->l[s->min - 1].n && (!r.n || r.id[r.n - 1] != next))
                    r.id[r.n++] = next;
                last = next;
                next = 0;
                quorum = 0;
            }
        }
    }
    return r;
}

static struct idl eval(struct c389 *c, const struct pnode *p);

/* list_candidates for an AND or OR */
static struct idl
list(struct c389 *c, const struct pnode *p)
{
    int and = p->kind == ACREF_AND;
    struct set s = {0};
    struct idl r = {1, NULL, 0};

    s.l = talloc_array(c->mem, struct idl, p->nkid + 1);
    s.itr = talloc_array(c->mem, size_t, p->nkid + 1);
    s.comp = talloc_array(c->mem, struct idl, p->nkid + 1);
    if (!s.l || !s.itr || !s.comp) {
        c->rc = ACRE_ERR_NOMEM;
        return r;
    }
    for (unsigned i = 0; i < p->nkid && !c->rc; i++) {
        const struct pnode *k = p->kid[i];
        if (and&&k->kind == ACREF_NOT && k->kid[0]->kind == ACREF_EQUALITY) {
            const struct acreF_node *nd = k->kid[0]->leaf->nd;
            if (i == 0)
                s.all = 1;
            /* a subtype is not in the index: every entry (nothing out) */
            if (!nd->want.nopts)
                s.comp[s.ncomp++] = eval(c, k->kid[0]);
        } else {
            set_insert(&s, eval(c, k));
        }
        if (!and&&s.all)
            break;
        if (and&&s.min && s.l[s.min - 1].n <= THRESHOLD)
            break;
    }
    if (c->rc)
        return r;
    if (!and) {
        if (s.all)
            return r;
        if (!s.count)
            return (struct idl){0, NULL, 0};
        if (s.count == 1)
            return s.l[0];
        if (s.count == 2)
            return union2(c, s.l[1], s.l[0]);
        return union_k(c, &s);
    }
    if (s.all && !s.count)
        r = (struct idl){1, NULL, 0};
    else if (!s.count)
        r = (struct idl){0, NULL, 0};
    else if (s.count == 1)
        r = s.l[0];
    else if (s.l[s.min - 1].n <= THRESHOLD)
        r = s.l[s.min - 1];
    else if (s.count == 2)
        r = inter2(c, s.l[1], s.l[0]);
    else
        r = inter_k(c, &s);
    /* the complements, the last inserted first */
    for (unsigned i = s.ncomp; i-- > 0 && !c->rc;)
        r = notin(c, r, s.comp[i]);
    return r;
}

static struct idl
eval(struct c389 *c, const struct pnode *p)
{
    if (p->kind == ACREF_AND || p->kind == ACREF_OR)
        return list(c, p);
    if (!p->leaf || p->leaf->how == L_ALL)
        return (struct idl){1, NULL, 0};
    if (p->leaf->how == L_NONE)
        return (struct idl){0, NULL, 0};
    return p->leaf->ids;
}

/* ------------------------------------------------------------------------
 * API
 */

static int
matters(const struct acreF_node *nd, const acre_schema *s, const int *cos,
        uint32_t ncos)
{
    if (nd->kind == ACREF_AND || nd->kind == ACREF_OR ||
        nd->kind == ACREF_NOT) {
        for (unsigned i = 0; i < nd->nkids; i++)
            if (matters(nd->kids[i], s, cos, ncos))
                return 1;
        return 0;
    }
    int t = nd->want.type;
    unsigned ix = acreF_index389(s, t);
    if ((nd->kind == ACREF_GE || nd->kind == ACREF_LE) && (ix & ACREF_IX389_EQ))
        return 1;
    if (!ix || nd->kind == ACREF_APPROX ||
        (nd->kind == ACREF_EXTENSIBLE &&
         (!(ix & ACREF_IX389_EQ) || !ext_usage(nd))))
        return 0;
    for (uint32_t i = 0; i < ncos; i++)
        if (cos[i] == t)
            return 1;
    return 0;
}

/* acreF_candidates_389_matter -- see filter.h. */
int
acreF_candidates_389_matter(const struct acreF_filter *f, const int *cos_types,
                            uint32_t ncos)
{
    return matters(f->root, f->schema, cos_types, ncos);
}

/* acreF_candidates_389 -- see filter.h. */
int
acreF_candidates_389(void *ctx, const struct acreF_filter *f, int scope,
                     const acre_dn *base, const struct acreF_cand_host *h,
                     struct acreF_ids389 *out)
{
    struct c389 c = {0};
    struct scan s = {
        &c, h, scope == ACRE_SCOPE_ONE ? base : NULL, {0, NULL, 0}, 0};
    struct pnode *p;
    int rc;

    *out = (struct acreF_ids389){1, NULL, 0};
    if (scope == ACRE_SCOPE_BASE)
        return 0;
    if (!(c.mem = talloc_new(ctx)))
        return ACRE_ERR_NOMEM;
    c.s = f->schema;
    c.h = h;
    c.mo_type = acreS_attr_find(c.s, "memberOf", 8);
    acreE_buf_init(&c.b, NULL, 0);
    acreE_buf_init(&c.seen, NULL, 0);
    /* slapi_filter_optimise(root): an AND or OR root's list */
    if ((p = plain(&c, f->root)) && !c.rc &&
        (p->kind != ACREF_AND && p->kind != ACREF_OR ? 0 : optimise(&c, p)) ==
            0)
        bounded(&c, p);
    rc = c.rc;
    if (!rc && (rc = h->each(h->arg, scan_visit, &s)) > 0)
        rc = c.rc ? c.rc : 0;
    for (unsigned i = 0; !rc && i < c.nleaf; i++)
        if (c.leaf[i]->ids.n)
            qsort(c.leaf[i]->ids.id, c.leaf[i]->ids.n, sizeof(uint64_t),
                  id_cmp);
    if (s.kids.n)
        qsort(s.kids.id, s.kids.n, sizeof(uint64_t), id_cmp);
    struct idl r = rc ? (struct idl){1, NULL, 0} : eval(&c, p);
    rc = rc ? rc : c.rc;
    if (!rc && scope == ACRE_SCOPE_ONE && (r.all || r.n > THRESHOLD)) {
        /* (&(|(F)(objectClass=referral))(parentid=base)): F, then the
         * children, the smaller first when one has at most 10 */
        if (r.all || s.kids.n <= THRESHOLD)
            r = s.kids;
        else
            r = inter2(&c, s.kids, r);
        rc = c.rc;
    }
    acreE_buf_free(&c.b);
    acreE_buf_free(&c.seen);
    if (rc) {
        talloc_free(c.mem);
        return rc < 0 ? rc : ACRE_ERR_LOOKUP;
    }
    out->all = r.all;
    out->n = r.n;
    out->id = r.n ? talloc_steal(ctx, r.id) : NULL;
    talloc_free(c.mem);
    return 0;
}
