/*
 * api_dir.c -- the public directory and entry API of acre.h over the
 * engine's in-memory directory (directory.c) and entries (entry.h).
 *
 * An acre_directory is a struct acreE_dir and an acre_entry a struct
 * acreE_entry: the public types are never defined, only cast to and from
 * the engine's.  Everything here checks its arguments and then forwards;
 * nothing allocates except acre_directory_load.
 *
 * Threads: as directory.h says, loading runs alone; afterwards any number
 * of threads may call every other function here at once.
 */
#include "directory.h"
#include "entry.h"
#include "internal.h"

#include <stddef.h>
#include <talloc.h>

#define DIR(d)   ((const struct acreE_dir *)(d))
#define ENTRY(e) ((const struct acreE_entry *)(e))

/*
 * acre_directory_load -- see acre.h.  The directory is strict (an unknown
 * attribute type is ACRE_ERR_LDIF_UNKNOWN_ATTR, as slapadd makes it) and
 * is freed again on any error, so *out is only set on success.
 */
ACRE_PUBLIC int
acre_directory_load(void *mem_ctx, const acre_schema *schema, const char *path,
                    const char *text, size_t len, acre_directory **out,
                    acre_diag *diag)
{
    struct acreE_dir *d;
    int rc;

    if (!out || (!path && !text))
        return acreE_diag_set(diag, ACRE_ERR_INVAL, 0, "invalid argument");
    rc = acreE_dir_new(mem_ctx, schema, ACRED_DIR_STRICT, &d);
    if (rc)
        return acreE_diag_set(diag, rc, 0, "%s", acre_strerror(rc));
    if (text)
        rc = acreE_dir_load_ldif(d, NULL, text, len, path, NULL, NULL, diag);
    else
        rc = acreE_dir_load_ldif(d, path, NULL, 0, NULL, NULL, NULL, diag);
    if (rc) {
        talloc_free(d);
        return rc;
    }
    *out = (acre_directory *)d;
    return 0;
}

/* acre_directory_free -- see acre.h.  NULL is ignored. */
ACRE_PUBLIC void
acre_directory_free(acre_directory *dir)
{
    talloc_free(dir);
}

/* acre_directory_find -- see acre.h.  NULL when either argument is. */
ACRE_PUBLIC const acre_entry *
acre_directory_find(const acre_directory *dir, const acre_dn *dn)
{
    if (!dir || !dn)
        return NULL;
    return (const acre_entry *)acreE_dir_find(DIR(dir), dn);
}

/* acre_directory_count -- see acre.h.  0 for NULL. */
ACRE_PUBLIC size_t
acre_directory_count(const acre_directory *dir)
{
    return dir ? acreE_dir_count(DIR(dir)) : 0;
}

/* The caller's callback, called through the engine's visitor type. */
struct visit {
    int (*fn)(void *arg, const acre_entry *e);
    void *arg;
};

static int
visit(void *ctx, const struct acreE_entry *e)
{
    const struct visit *v = ctx;

    return v->fn(v->arg, (const acre_entry *)e);
}

/*
 * acre_directory_walk -- see acre.h: the base first, then depth-first with
 * siblings in load order.  Returns 0, fn's non-zero value,
 * ACRE_ERR_NO_SUCH_OBJECT when base is not in dir, or ACRE_ERR_INVAL (a
 * NULL argument or a bad scope).
 */
ACRE_PUBLIC int
acre_directory_walk(const acre_directory *dir, const acre_dn *base, int scope,
                    int (*fn)(void *arg, const acre_entry *e), void *arg)
{
    struct visit v = {fn, arg};

    if (!dir || !base || !fn)
        return ACRE_ERR_INVAL;
    return acreE_dir_walk(DIR(dir), base, scope, visit, &v);
}

/* acre_entry_dn -- see acre.h.  NULL for NULL. */
ACRE_PUBLIC const acre_dn *
acre_entry_dn(const acre_entry *e)
{
    return e ? ENTRY(e)->dn : NULL;
}

/* acre_entry_nattrs -- see acre.h.  0 for NULL. */
ACRE_PUBLIC unsigned
acre_entry_nattrs(const acre_entry *e)
{
    return e ? ENTRY(e)->nattrs : 0;
}

/*
 * acre_entry_attr -- see acre.h.  The description of attribute i as first
 * written in the LDIF (NUL-terminated there; its length in *len), or NULL
 * (with *len and *nvals 0) when e is NULL or i is out of range.
 */
ACRE_PUBLIC const char *
acre_entry_attr(const acre_entry *e, unsigned i, size_t *len, unsigned *nvals)
{
    const struct acreE_attr *a;

    if (len)
        *len = 0;
    if (nvals)
        *nvals = 0;
    if (!e || i >= ENTRY(e)->nattrs)
        return NULL;
    a = &ENTRY(e)->attrs[i];
    if (len)
        *len = a->desc_len;
    if (nvals)
        *nvals = a->nvals;
    return a->desc;
}

/*
 * acre_entry_value -- see acre.h.  Value j of attribute i as stored, or
 * NULL (with *len 0) when e is NULL or i or j is out of range.
 */
ACRE_PUBLIC const void *
acre_entry_value(const acre_entry *e, unsigned i, unsigned j, size_t *len)
{
    const struct acreE_attr *a;

    if (len)
        *len = 0;
    if (!e || i >= ENTRY(e)->nattrs)
        return NULL;
    a = &ENTRY(e)->attrs[i];
    if (j >= a->nvals)
        return NULL;
    if (len)
        *len = a->vals[j].len;
    return a->vals[j].val;
}
