/*
 * entry.c -- reading entry views (see entry.h).
 *
 * A view's attributes come in the host's order, so a lookup by type is a
 * scan; entries hold few attributes, and the scan reads 24-byte records
 * that sit together.  Values are compared in their normalised form: the
 * host's when it gave it, else made here in the caller's buffer.  Nothing
 * here locks; nothing allocates but a buffer outgrowing its storage.
 */
#include "entry.h"

#include "internal.h"
#include "match.h"

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

/* acreE_entry_attr -- see entry.h: a plain type's id is the type. */
const acre_view_attr *
acreE_entry_attr(const acre_entry_view *e, int type)
{
    for (unsigned i = 0; i < e->nattrs; i++)
        if (e->attrs[i].id == type)
            return &e->attrs[i];
    return NULL;
}

/* acreE_norm_stored -- see entry.h. */
int
acreE_norm_stored(const acre_schema *s, int type, const uint8_t *v, size_t n,
                  struct acreE_buf *out)
{
    const struct acreS_known *k = acreS_known(s);
    int eq = acreS_attr(s, type)->eq;

    if (type == k->objectClass || type == k->structuralObjectClass)
        return acreM_normalise(s, eq, v, n, out);
    return acreM_normalise_stored(s, eq, v, n, out);
}

/* acreE_value_norm -- see entry.h. */
const uint8_t *
acreE_value_norm(const acre_schema *s, const acre_view_attr *a, unsigned j,
                 struct acreE_buf *b, size_t *len)
{
    int type, eq;

    if (a->norms) { /* the host's: given only for a type with a rule */
        *len = a->norms[j].len;
        return a->norms[j].val;
    }
    *len = 0;
    if ((type = acreE_attr_type(s, a)) < 0 ||
        (eq = acreS_attr(s, type)->eq) == ACREM_NONE)
        return NULL;
    b->len = 0;
    if (acreE_norm_stored(s, type, a->vals[j].val, a->vals[j].len, b) != 0)
        return NULL;
    *len = b->len;
    return b->p ? b->p : (const uint8_t *)""; /* an empty form, no storage */
}

/* acreE_attr_has_value -- see entry.h. */
int
acreE_attr_has_value(const acre_schema *s, const acre_view_attr *a,
                     const uint8_t *norm, size_t n)
{
    uint8_t local[512];
    struct acreE_buf b;
    int found = 0;

    if (a->norms) { /* the common case: compare in place */
        for (unsigned i = 0; i < a->nvals; i++)
            if (acreE_norm_cmp(a->norms[i].val, a->norms[i].len, norm, n) == 0)
                return 1;
        return 0;
    }
    acreE_buf_init(&b, local, sizeof local);
    for (unsigned i = 0; i < a->nvals && !found; i++) {
        size_t len;
        const uint8_t *v = acreE_value_norm(s, a, i, &b, &len);
        found = v && acreE_norm_cmp(v, len, norm, n) == 0;
    }
    acreE_buf_free(&b);
    return found;
}

/* acreE_entry_has_value -- see entry.h. */
int
acreE_entry_has_value(const acre_schema *s, const acre_entry_view *e, int type,
                      const uint8_t *norm, size_t n)
{
    const acre_view_attr *a = acreE_entry_attr(e, type);

    return a ? acreE_attr_has_value(s, a, norm, n) : 0;
}

/* acreE_view_check -- see entry.h. */
int
acreE_view_check(const acre_schema *s, const acre_entry_view *e)
{
    unsigned limit;

    if (!e || e->schema != s || !e->dn || (e->nattrs && !e->attrs))
        return 0;
    limit = acreS_id_limit(s);
    for (unsigned i = 0; i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        if ((unsigned)a->id >= limit || !a->nvals || !a->vals)
            return 0;
    }
    return 1;
}

/*
 * acre_value_normalise -- see acre.h: the form acreE_value_norm gives a
 * value when the host gave none (the form a view's norms must hold).
 */
ACRE_PUBLIC int
acre_value_normalise(const acre_schema *schema, int id, const void *val,
                     size_t len, void *buf, size_t size, size_t *out_len)
{
    const struct acreS_dinfo *d;
    uint8_t local[256];
    struct acreE_buf b;
    int eq, rc;

    if (out_len)
        *out_len = 0;
    if (acreS_check(schema))
        return ACRE_ERR_BADOBJ;
    if ((!val && len) || (!buf && size) || !out_len ||
        !(d = acreS_dinfo(schema, id)) ||
        (eq = acreS_attr(schema, d->type)->eq) == ACREM_NONE)
        return ACRE_ERR_INVAL;
    acreE_buf_init(&b, local, sizeof local);
    rc = acreE_norm_stored(schema, d->type, val, len, &b);
    if (rc == 0) {
        *out_len = b.len;
        if (b.len > size)
            rc = ACRE_ERR_NOSPACE;
        else if (b.len)
            memcpy(buf, b.p, b.len);
    }
    acreE_buf_free(&b);
    return rc;
}
