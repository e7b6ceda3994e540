/*
 * entry.c -- lookups in an entry's attributes (see entry.h).
 *
 * An entry's attributes are sorted by (type id, options), an attribute
 * without options first among those of its type, so every lookup here is
 * a binary search; values are found through the attribute's `order` index
 * when it has one, else by a scan.  Nothing here allocates or locks.
 */
#include "entry.h"

#include <string.h>

/*
 * acreE_norm_cmp -- see entry.h.  Length first makes the common "not
 * equal" answer cheap and keeps the order total.
 */
int
acreE_norm_cmp(const uint8_t *a, size_t an, const uint8_t *b, size_t bn)
{
    if (an != bn)
        return an < bn ? -1 : 1;
    return an ? memcmp(a, b, an) : 0;
}

/* acreE_entry_find_first -- see entry.h: the lower bound of `type`. */
uint32_t
acreE_entry_find_first(const struct acreE_entry *e, int type)
{
    uint32_t lo = 0, hi = e->nattrs;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;

        if (e->attrs[mid].type < type)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < e->nattrs && e->attrs[lo].type == type ? lo : e->nattrs;
}

/* acreE_entry_attr -- see entry.h. */
const struct acreE_attr *
acreE_entry_attr(const struct acreE_entry *e, int type)
{
    uint32_t i = acreE_entry_find_first(e, type);

    if (i == e->nattrs || e->attrs[i].nopts)
        return NULL;
    return &e->attrs[i];
}

/* in_order -- binary search through the attribute's order index. */
static int
in_order(const struct acreE_attr *a, const uint8_t *norm, size_t n)
{
    uint32_t lo = 0, hi = a->nvals;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        const struct acreE_value *v = &a->vals[a->order[mid]];
        int c = acreE_norm_cmp(v->norm, v->nlen, norm, n);

        if (c == 0)
            return 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* acreE_attr_has_value -- see entry.h. */
int
acreE_attr_has_value(const struct acreE_attr *a, const uint8_t *norm, size_t n)
{
    if (a->order && a->nvals > 4) /* else a scan touches less memory */
        return in_order(a, norm, n);
    for (uint32_t i = 0; i < a->nvals; i++) {
        const struct acreE_value *v = &a->vals[i];

        if (v->norm && acreE_norm_cmp(v->norm, v->nlen, norm, n) == 0)
            return 1;
    }
    return 0;
}

/* acreE_entry_has_value -- see entry.h. */
int
acreE_entry_has_value(const struct acreE_entry *e, int type,
                      const uint8_t *norm, size_t n)
{
    const struct acreE_attr *a = acreE_entry_attr(e, type);

    return a ? acreE_attr_has_value(a, norm, n) : 0;
}
