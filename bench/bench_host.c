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

/* Bytes of v[0..n) and their text, each NUL-terminated, 8-aligned. */
static size_t
values_size(const acre_value *v, unsigned n)
{
    size_t z = n * sizeof(acre_value);

    for (unsigned j = 0; j < n; j++)
        z += (v[j].len + 1 + 7) & ~(size_t)7;
    return z;
}

/* Copy v[0..n) to *at (arrays, then their text); the copy. */
static acre_value *
values_copy(const acre_value *v, unsigned n, char **at)
{
    acre_value *to = (acre_value *)(void *)*at;
    char *p = *at + n * sizeof(acre_value);

    for (unsigned j = 0; j < n; j++) {
        memcpy(p, v[j].val, v[j].len);
        p[v[j].len] = '\0';
        to[j].len = v[j].len;
        to[j].val = p;
        p += (v[j].len + 1 + 7) & ~(size_t)7;
    }
    *at = p;
    return to;
}

/*
 * A copy of src in one block, as a server decodes an entry (slapd's
 * back-mdb: attributes, value arrays and value bytes together): the
 * attributes in the reverse of the directory's order, their values and,
 * when kept, their normalised forms.
 */
static int
add(void *arg, const acre_entry *src)
{
    struct bhost *h = arg;
    const acre_entry_view *from = acre_entry_view_of(src);
    size_t z = sizeof(struct hentry) + from->nattrs * sizeof(acre_view_attr);

    for (unsigned i = 0; i < from->nattrs; i++) {
        const acre_view_attr *a = &from->attrs[i];
        z += values_size(a->vals, a->nvals);
        if (h->with_norms && a->norms)
            z += values_size(a->norms, a->nvals);
    }
    struct hentry *e = talloc_size(h, z);
    if (!e)
        return -1;
    memset(e, 0, sizeof(*e));
    acre_view_attr *a = (acre_view_attr *)(e + 1);
    char *at = (char *)(a + from->nattrs);
    if (acre_dn_copy(e, from->dn, &e->dn))
        return -1;
    for (unsigned i = 0; i < from->nattrs; i++) { /* the host's own order */
        const acre_view_attr *f = &from->attrs[i];
        acre_view_attr *to = &a[from->nattrs - 1 - i];
        to->id = f->id;
        to->nvals = f->nvals;
        to->vals = values_copy(f->vals, f->nvals, &at);
        to->norms = h->with_norms && f->norms
                        ? values_copy(f->norms, f->nvals, &at)
                        : NULL;
    }
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
