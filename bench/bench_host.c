/*
 * bench_host.c -- the benchmarks' host (see bench_host.h).  Entries are
 * found by an open-addressing table on their normalised DN; a search walks
 * the entries in load order and keeps those in scope.
 */
#include "bench_host.h"

#include "directory.h"

#include <stdint.h>
#include <string.h>
#include <talloc.h>

struct hentry {
    acre_dn *dn;
    acre_entry_view v;
};

struct bhost {
    const acre_schema *schema;
    struct hentry **ents;
    size_t n, cap;
    struct hentry **ix;
    size_t mask;
    acre_host host;
    int with_norms;
};

static uint64_t
hash(const char *s, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;

    for (size_t i = 0; i < n; i++)
        h = (h ^ (uint8_t)s[i]) * 0x100000001b3ull;
    return h;
}

static struct hentry *
find(const struct bhost *h, const acre_dn *dn)
{
    size_t n, m;
    const char *s = acre_dn_normalised(dn, &n);

    for (size_t k = hash(s, n) & h->mask;; k = (k + 1) & h->mask) {
        struct hentry *e = h->ix[k];
        if (!e)
            return NULL;
        const char *t = acre_dn_normalised(e->dn, &m);
        if (m == n && !memcmp(s, t, n))
            return e;
    }
}

/* A copy of src's attribute i, in the host's storage. */
static int
copy_attr(struct bhost *h, void *ctx, const acre_view_attr *from,
          acre_view_attr *to)
{
    acre_value *v = talloc_array(ctx, acre_value, from->nvals);
    acre_value *nv = h->with_norms && from->norms
                         ? talloc_array(ctx, acre_value, from->nvals)
                         : NULL;

    if (!v || (h->with_norms && from->norms && !nv))
        return -1;
    for (unsigned j = 0; j < from->nvals; j++) {
        v[j].len = from->vals[j].len;
        if (!(v[j].val = talloc_memdup(ctx, from->vals[j].val, v[j].len + 1)))
            return -1;
        if (nv) {
            nv[j].len = from->norms[j].len;
            if (!(nv[j].val =
                      talloc_memdup(ctx, from->norms[j].val, nv[j].len + 1)))
                return -1;
        }
    }
    to->id = from->id;
    to->nvals = from->nvals;
    to->vals = v;
    to->norms = nv;
    return 0;
}

static int
add(void *arg, const acre_entry *src)
{
    struct bhost *h = arg;
    const acre_entry_view *from = acre_entry_view_of(src);
    struct hentry *e = talloc_zero(h, struct hentry);
    acre_view_attr *a =
        e ? talloc_array(e, acre_view_attr, from->nattrs + 1) : NULL;

    if (!a || acre_dn_copy(e, from->dn, &e->dn))
        return -1;
    for (unsigned i = 0; i < from->nattrs; i++) /* the host's own order */
        if (copy_attr(h, e, &from->attrs[i], &a[from->nattrs - 1 - i]))
            return -1;
    e->v = (acre_entry_view){h->schema, e->dn, from->nattrs, a, e};
    if (h->n == h->cap) {
        h->cap = h->cap ? 2 * h->cap : 1024;
        h->ents = talloc_realloc(h, h->ents, struct hentry *, h->cap);
        if (!h->ents)
            return -1;
    }
    h->ents[h->n++] = e;
    return 0;
}

static int
host_get(void *arg, const acre_dn *dn, const acre_entry_view **out)
{
    struct hentry *e = find(arg, dn);

    if (!e)
        return 0;
    *out = &e->v;
    return 1;
}

static int
host_search(void *arg, const acre_dn *base, int scope, acre_view_fn fn,
            void *fn_arg)
{
    const struct bhost *h = arg;

    for (size_t i = 0; i < h->n; i++) {
        int rc = acre_dn_in_scope(h->ents[i]->dn, base, scope) == 1
                     ? fn(fn_arg, &h->ents[i]->v)
                     : 0;
        if (rc)
            return rc;
    }
    return 0;
}

struct bhost *
bhost_new(void *ctx, const acre_directory *dir, int with_norms)
{
    const struct acreE_dir *d = (const struct acreE_dir *)dir;
    struct bhost *h = talloc_zero(ctx, struct bhost);
    size_t nroots, cap = 16;
    const struct acreE_entry *const *roots = acreE_dir_suffixes(d, &nroots);

    if (!h)
        return NULL;
    h->with_norms = with_norms;
    h->schema = acreE_dir_schema(d);
    for (size_t i = 0; i < nroots; i++)
        if (acre_directory_walk(dir, roots[i]->v.dn, ACRE_SCOPE_SUB, add, h))
            return NULL;
    while (cap < 2 * h->n + 2)
        cap *= 2;
    if (!(h->ix = talloc_zero_array(h, struct hentry *, cap)))
        return NULL;
    h->mask = cap - 1;
    for (size_t i = 0; i < h->n; i++) {
        size_t n;
        const char *s = acre_dn_normalised(h->ents[i]->dn, &n);
        size_t k = hash(s, n) & h->mask;
        while (h->ix[k])
            k = (k + 1) & h->mask;
        h->ix[k] = h->ents[i];
    }
    h->host = (acre_host){h, host_get, NULL, host_search, NULL, 1};
    return h;
}

const acre_host *
bhost_host(const struct bhost *h)
{
    return &h->host;
}

const acre_entry_view *
bhost_view(const struct bhost *h, const acre_dn *dn)
{
    struct hentry *e = find(h, dn);

    return e ? &e->v : NULL;
}
