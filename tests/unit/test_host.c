/*
 * test_host.c -- a host of the embedding interface with storage of its
 * own (see test_host.h).
 *
 * Each entry is a struct hentry: a copy of the DN (acre_dn_copy), the
 * view, and arrays of attributes and values the host allocated; the
 * values' bytes are copied too, so nothing points into the directory the
 * host was filled from.  An index maps normalised DN text to entries;
 * entries are kept in the directory's order (load order, a parent before
 * its children), and a search walks them in the order the directory's
 * own search gives.
 */
#include "test_host.h"

#include "directory.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

struct hentry {
    acre_dn *dn;
    acre_entry_view v;
    acre_view_attr *attrs;
    const acre_entry *src;
    struct hentry *parent, *first_child, *last_child, *next_sibling;
};

struct thost {
    void *mem;
    const acre_schema *schema;
    unsigned flags;
    const struct acreE_dir *dir; /* filled from; its search order is ours */
    struct hentry **ents;        /* in the directory's walk order */
    size_t n, cap;
    struct hentry **ix; /* open addressing on the normalised DN */
    size_t ixmask;
    acre_host host;
    unsigned calls, fail_at;
    long outstanding;
};

/* ------------------------------------------------------------------------
 * The index
 */

static uint64_t
text_hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
    return h;
}

static struct hentry *
find_text(const struct thost *h, const char *s, size_t n)
{
    for (size_t k = text_hash(s, n) & h->ixmask;; k = (k + 1) & h->ixmask) {
        struct hentry *e = h->ix[k];
        size_t len;
        const char *t;
        if (!e)
            return NULL;
        t = acre_dn_normalised(e->dn, &len);
        if (len == n && !memcmp(t, s, n))
            return e;
    }
}

static struct hentry *
find(const struct thost *h, const acre_dn *dn)
{
    size_t n;
    const char *s = acre_dn_normalised(dn, &n);

    return find_text(h, s, n);
}

static void
index_all(struct thost *h)
{
    size_t cap = 16;

    while (cap < 2 * h->n + 2)
        cap *= 2;
    h->ix = talloc_zero_array(h->mem, struct hentry *, cap);
    cr_assert(h->ix);
    h->ixmask = cap - 1;
    for (size_t i = 0; i < h->n; i++) {
        size_t n;
        const char *s = acre_dn_normalised(h->ents[i]->dn, &n);
        size_t k = text_hash(s, n) & h->ixmask;
        while (h->ix[k])
            k = (k + 1) & h->ixmask;
        h->ix[k] = h->ents[i];
    }
}

/* ------------------------------------------------------------------------
 * Filling
 */

/* A 64-bit PRNG (splitmix64) for the shuffles. */
static uint64_t
next_rand(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Copy attribute i of directory entry src into a. */
static void
copy_attr(struct thost *h, void *ctx, const acre_entry *src, unsigned i,
          acre_view_attr *a)
{
    const acre_view_attr *from = &acre_entry_view_of(src)->attrs[i];
    size_t dl;
    const char *desc = acre_entry_attr(src, i, &dl, NULL);
    acre_value *vals = talloc_array(ctx, acre_value, from->nvals);
    acre_value *norms = NULL;

    cr_assert(vals);
    a->id = acre_schema_attr_id(h->schema, desc, dl);
    cr_assert_geq(a->id, 0, "host: cannot resolve %.*s", (int)dl, desc);
    cr_assert_eq(a->id, from->id, "host: %.*s resolved to another id", (int)dl,
                 desc);
    if (from->norms && !(h->flags & THOST_NO_NORMS)) {
        norms = talloc_array(ctx, acre_value, from->nvals);
        cr_assert(norms);
    }
    for (unsigned j = 0; j < from->nvals; j++) {
        vals[j].len = from->vals[j].len;
        vals[j].val =
            talloc_memdup(ctx, from->vals[j].val, from->vals[j].len + 1);
        cr_assert(vals[j].val);
        if (norms) {
            norms[j].len = from->norms[j].len;
            norms[j].val =
                talloc_memdup(ctx, from->norms[j].val, from->norms[j].len + 1);
            cr_assert(norms[j].val);
        }
    }
    a->nvals = from->nvals;
    a->vals = vals;
    a->norms = norms;
}

static struct hentry *
copy_entry(struct thost *h, const acre_entry *src, uint64_t *rng)
{
    struct hentry *e = talloc_zero(h->mem, struct hentry);
    unsigned n = acre_entry_nattrs(src);

    cr_assert(e);
    cr_assert_eq(acre_dn_copy(e, acre_entry_dn(src), &e->dn), 0);
    e->attrs = talloc_array(e, acre_view_attr, n + 1);
    cr_assert(e->attrs);
    for (unsigned i = 0; i < n; i++)
        copy_attr(h, e, src, i, &e->attrs[i]);
    for (unsigned i = n; rng && i > 1; i--) { /* the host's own order */
        unsigned j = (unsigned)(next_rand(rng) % i);
        acre_view_attr t = e->attrs[i - 1];
        e->attrs[i - 1] = e->attrs[j];
        e->attrs[j] = t;
    }
    e->src = src;
    e->v.schema = h->schema;
    e->v.dn = e->dn;
    e->v.nattrs = n;
    e->v.attrs = e->attrs;
    e->v.host_data = e;
    return e;
}

struct fill {
    struct thost *h;
    uint64_t rng, *prng;
};

static int
fill_one(void *arg, const acre_entry *src)
{
    struct fill *f = arg;
    struct thost *h = f->h;

    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 64;
        h->ents = talloc_realloc(h->mem, h->ents, struct hentry *, h->cap);
        cr_assert(h->ents);
    }
    h->ents[h->n++] = copy_entry(h, src, f->prng);
    return 0;
}

/* Parents and children, in walk order (a parent comes before its
 * children). */
static void
link_all(struct thost *h)
{
    for (size_t i = 0; i < h->n; i++) {
        struct hentry *e = h->ents[i];
        unsigned d = acre_dn_depth(e->dn);
        size_t n;
        const char *up = d > 1 ? acre_dn_ancestor(e->dn, d - 1, &n) : NULL;
        struct hentry *p = up ? find_text(h, up, n) : NULL;
        if (!p)
            continue;
        e->parent = p;
        if (p->last_child)
            p->last_child->next_sibling = e;
        else
            p->first_child = e;
        p->last_child = e;
    }
}

/* ------------------------------------------------------------------------
 * The lookups
 */

static int
failing(struct thost *h)
{
    h->calls++;
    return h->fail_at && h->calls >= h->fail_at;
}

static int
host_get(void *arg, const acre_dn *dn, const acre_entry_view **out)
{
    struct thost *h = arg;
    struct hentry *e;

    if (failing(h))
        return -1;
    if (!(e = find(h, dn)))
        return 0;
    if (!(h->flags & THOST_COPY)) {
        *out = &e->v;
        return 1;
    }
    acre_entry_view *v = malloc(sizeof *v);
    acre_view_attr *a = malloc(sizeof *a * (e->v.nattrs + 1));
    if (!v || !a) {
        free(v);
        free(a);
        return -1;
    }
    memcpy(a, e->attrs, sizeof *a * e->v.nattrs);
    *v = e->v;
    v->attrs = a;
    h->outstanding++;
    *out = v;
    return 1;
}

static void
host_release(void *arg, const acre_entry_view *v)
{
    struct thost *h = arg;

    if (!(h->flags & THOST_COPY))
        return;
    h->outstanding--;
    free((void *)v->attrs);
    free((void *)v);
}

/* A search walks the host's own entries in the order the directory's
 * search gives (acreE_dir_search: the server's order). */
struct hwalk {
    struct thost *h;
    acre_view_fn fn;
    void *arg;
};

static int
hvisit(void *ctx, const struct acreE_entry *e)
{
    const struct hwalk *w = ctx;
    struct hentry *he = find(w->h, e->v.dn);

    return he ? w->fn(w->arg, &he->v) : 0;
}

static int
host_search(void *arg, const acre_dn *base, int scope, acre_view_fn fn,
            void *fn_arg)
{
    struct thost *h = arg;
    struct hwalk w = {h, fn, fn_arg};
    int rc;

    if (failing(h))
        return -1;
    /* the root DN too: every naming context (acre.h, acre_host) */
    if (find(h, base) || !acre_dn_depth(base)) {
        rc = acreE_dir_search(h->dir, base, scope, hvisit, &w);
        return rc == ACRE_ERR_NO_SUCH_OBJECT ? 0 : rc;
    }
    return 0;
}

static int
host_children(void *arg, const acre_entry_view *v)
{
    struct hentry *e = find(arg, v->dn);

    return e && e->first_child;
}

/* ------------------------------------------------------------------------
 * API
 */

struct thost *
thost_new(void *ctx, const acre_directory *dir, uint64_t seed, unsigned flags)
{
    struct thost *h = talloc_zero(ctx, struct thost);
    struct fill f = {h, seed, seed ? &f.rng : NULL};
    size_t nroots;
    const struct acreE_entry *const *roots =
        acreE_dir_suffixes((const struct acreE_dir *)dir, &nroots);

    cr_assert(h);
    h->mem = h;
    h->schema = acreE_dir_schema((const struct acreE_dir *)dir);
    h->dir = (const struct acreE_dir *)dir;
    h->flags = flags;
    for (size_t i = 0; i < nroots; i++)
        acre_directory_walk(dir, roots[i]->v.dn, ACRE_SCOPE_SUB, fill_one, &f);
    cr_assert_eq(h->n, acre_directory_count(dir));
    index_all(h);
    link_all(h);
    h->host.arg = h;
    h->host.get = host_get;
    h->host.release = host_release;
    h->host.search = host_search;
    h->host.has_children = host_children;
    return h;
}

const acre_host *
thost_host(struct thost *h)
{
    return &h->host;
}

const acre_entry_view *
thost_view(const struct thost *h, const acre_dn *dn)
{
    struct hentry *e = find(h, dn);

    return e ? &e->v : NULL;
}

const acre_entry *
thost_entry(const acre_entry_view *v)
{
    return ((const struct hentry *)v->host_data)->src;
}

size_t
thost_count(const struct thost *h)
{
    return h->n;
}

void
thost_fail_after(struct thost *h, unsigned n)
{
    h->fail_at = n ? h->calls + n : 0;
}

unsigned
thost_calls(const struct thost *h)
{
    return h->calls;
}

long
thost_outstanding(const struct thost *h)
{
    return h->outstanding;
}

void
thost_set_generation(struct thost *h, uint64_t gen)
{
    h->host.generation = gen;
}

int
thost_replace_values(struct thost *h, const acre_dn *dn, const char *desc,
                     const char *const *vals, unsigned n)
{
    struct hentry *e = find(h, dn);
    int id = acre_schema_attr_id(h->schema, desc, strlen(desc));

    for (unsigned i = 0; e && id >= 0 && i < e->v.nattrs; i++) {
        acre_view_attr *a = &e->attrs[i];
        acre_value *v;
        if (a->id != id)
            continue;
        v = talloc_array(e, acre_value, n);
        cr_assert(v);
        for (unsigned j = 0; j < n; j++) {
            v[j].val = talloc_strdup(v, vals[j]);
            v[j].len = strlen(vals[j]);
        }
        a->vals = v;
        a->nvals = n;
        a->norms = NULL;
        return 0;
    }
    return -1;
}
