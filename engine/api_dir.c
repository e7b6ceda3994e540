/*
 * api_dir.c -- the public directory and entry API of acre.h over the
 * engine's in-memory directory (directory.c) and entries (entry.h), and
 * the check of a search filter's text a search will take.
 *
 * An acre_directory is a struct acreE_dir and an acre_entry a struct
 * acreE_entry (directory.h), whose first member is its view: the public
 * types are never defined, only cast to and from the engine's.  Everything here
 * checks its arguments and then forwards; nothing allocates except
 * acre_directory_load.
 *
 * Threads: as directory.h says, loading runs alone; afterwards any number
 * of threads may call every other function here at once.
 */
#include "directory.h"
#include "dn.h"
#include "entry.h"
#include "filter.h"
#include "internal.h"
#include "ir.h"
#include "policy.h"

#include <stddef.h>
#include <string.h>
#include <talloc.h>

#define DIR(d)   ((const struct acreE_dir *)(d))
#define ENTRY(e) ((const struct acreE_entry *)(e))

/* dir_ok -- d is a directory (internal.h: Handles). */
static inline int
dir_ok(const acre_directory *d)
{
    return acreE_is(d, ACREE_DIR_MAGIC);
}

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

/* The caller's progress function, with the entries of earlier files. */
struct progress {
    acre_load_progress_fn fn;
    void *arg;
    size_t base; /* entries committed by the earlier files */
};

static void
progress(void *arg, const char *name, size_t records, uint64_t offset)
{
    const struct progress *p = arg;

    p->fn(p->arg, name, p->base + records, offset);
}

/* inval -- ACRE_ERR_INVAL with msg, at no position (not in a file). */
static int
inval(acre_diag *diag, const char *msg)
{
    acreE_diag_set(diag, ACRE_ERR_INVAL, 0, "%s", msg);
    if (diag)
        diag->line = diag->column = 0;
    return ACRE_ERR_INVAL;
}

/* check_paths -- every path set, "-" at most once. */
static int
check_paths(const char *const *paths, size_t n, acre_diag *diag)
{
    int stdin_seen = 0;

    for (size_t i = 0; i < n; i++) {
        if (!paths[i])
            return inval(diag, "invalid argument");
        if (strcmp(paths[i], "-") == 0 && stdin_seen++)
            return inval(diag, "standard input named twice");
    }
    return 0;
}

/*
 * acre_directory_load_files -- see acre.h.  Each file is one transaction
 * of acreE_dir_load_ldif, in order, into a directory of our own that is
 * freed when any of them fails: so the set is all-or-nothing.  "-" is
 * named "-" in diagnostics.
 */
ACRE_PUBLIC int
acre_directory_load_files(void *mem_ctx, const acre_schema *schema,
                          const char *const *paths, size_t n,
                          acre_load_progress_fn fn, void *arg,
                          acre_directory **out, acre_diag *diag)
{
    acre_load_options o = {0, fn, arg, NULL, NULL, 0};

    return acre_directory_load_opt(mem_ctx, schema, paths, n, &o, out, diag);
}

/* holds -- the index + 1 of the database of the OpenLDAP policy arg that
 * holds dn, or 0 (none) */
static int
holds(void *arg, const acre_dn *dn)
{
    const struct acreI_policy *ir = arg;
    const struct acreI_section *s = acreI_section_for(ir, dn);

    return s ? (int)(s - ir->dbs) + 1 : 0;
}

/* acre_directory_load_opt -- see acre.h. */
ACRE_PUBLIC int
acre_directory_load_opt(void *mem_ctx, const acre_schema *schema,
                        const char *const *paths, size_t n,
                        const acre_load_options *opt, acre_directory **out,
                        acre_diag *diag)
{
    acre_load_options none = {0, NULL, NULL, NULL, NULL, 0};
    const acre_load_options *o = opt ? opt : &none;
    struct progress pr = {o->progress, o->progress_arg, 0};
    unsigned flags = ACRED_DIR_STRICT;
    struct acreE_dir *d;
    int rc;

    if (!out || !paths || n == 0 || (o->text && n != 1) ||
        (o->flags & ~(ACRE_LOAD_STRICT | ACRE_LOAD_389)))
        return inval(diag, "invalid argument");
    if (o->policy && !acreE_is(o->policy, ACREP_POLICY_MAGIC))
        return acreE_diag_set(diag, ACRE_ERR_BADOBJ, 0, "%s",
                              acre_strerror(ACRE_ERR_BADOBJ));
    if ((rc = check_paths(paths, n, diag)))
        return rc;
    if (o->flags & ACRE_LOAD_STRICT)
        flags |= ACRED_DIR_STRICT_VALUES;
    if (o->flags & ACRE_LOAD_389)
        flags |= ACRED_DIR_389;
    rc = acreE_dir_new(mem_ctx, schema, flags, &d);
    if (rc)
        return acreE_diag_set(diag, rc, 0, "%s", acre_strerror(rc));
    if (pr.fn)
        acreE_dir_set_progress(d, progress, &pr);
    if (o->policy && o->policy->ir->model != ACREI_MODEL_ACI &&
        o->policy->ir->sfx.n)
        acreE_dir_set_holder(d, holds, (void *)o->policy->ir);
    for (size_t i = 0; !rc && i < n; i++) {
        pr.base = acreE_dir_count(d);
        rc = o->text ? acreE_dir_load_ldif(d, NULL, o->text, o->len, paths[i],
                                           NULL, NULL, diag)
                     : acreE_dir_load_ldif(d, paths[i], NULL, 0, paths[i], NULL,
                                           NULL, diag);
    }
    if (rc) {
        talloc_free(d);
        return rc;
    }
    acreE_dir_set_progress(d, NULL, NULL); /* pr dies with this frame */
    acreE_dir_set_holder(d, NULL, NULL);
    *out = (acre_directory *)d;
    return 0;
}

/*
 * acre_filter_check -- see acre.h: the filter is parsed as acre_search
 * parses it, into a context freed before returning.
 */
ACRE_PUBLIC int
acre_filter_check(const acre_schema *schema, const char *filter, size_t len,
                  acre_diag *diag)
{
    struct acreF_filter *f;
    void *tmp;
    int rc;

    if (acreS_check(schema))
        return acreE_diag_set(diag, ACRE_ERR_BADOBJ, 0, "not a schema");
    if (!filter)
        return acreE_diag_set(diag, ACRE_ERR_INVAL, 0, "invalid argument");
    if (!(tmp = talloc_new(NULL)))
        return acreE_diag_set(diag, ACRE_ERR_NOMEM, 0, "out of memory");
    rc = acreF_parse(tmp, schema, filter, len, &f, diag);
    talloc_free(tmp);
    return rc;
}

/* acre_directory_free -- see acre.h.  NULL, and what is not a directory,
 * are ignored. */
ACRE_PUBLIC void
acre_directory_free(acre_directory *dir)
{
    if (dir_ok(dir)) {
        *(uint32_t *)dir = 0; /* the magic */
        talloc_free(dir);
    }
}

/* acre_directory_find -- see acre.h.  NULL when either argument is NULL
 * or not of its kind. */
ACRE_PUBLIC const acre_entry *
acre_directory_find(const acre_directory *dir, const acre_dn *dn)
{
    if (!dir_ok(dir) || !acreE_is(dn, ACRED_MAGIC))
        return NULL;
    return (const acre_entry *)acreE_dir_find(DIR(dir), dn);
}

/* acre_directory_count -- see acre.h.  0 for NULL. */
ACRE_PUBLIC size_t
acre_directory_count(const acre_directory *dir)
{
    return dir_ok(dir) ? acreE_dir_count(DIR(dir)) : 0;
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
 * ACRE_ERR_NO_SUCH_OBJECT when base is not in dir, ACRE_ERR_INVAL (a
 * NULL argument or a bad scope) or ACRE_ERR_BADOBJ (dir or base not of its
 * kind).
 */
ACRE_PUBLIC int
acre_directory_walk(const acre_directory *dir, const acre_dn *base, int scope,
                    int (*fn)(void *arg, const acre_entry *e), void *arg)
{
    struct visit v = {fn, arg};
    int rc;

    if ((rc = acreE_handle(dir, ACREE_DIR_MAGIC)) ||
        (rc = acreE_handle(base, ACRED_MAGIC)))
        return rc;
    if (!fn)
        return ACRE_ERR_INVAL;
    return acreE_dir_walk(DIR(dir), base, scope, visit, &v);
}

/* acre_directory_suffix -- see acre.h. */
ACRE_PUBLIC const acre_entry *
acre_directory_suffix(const acre_directory *dir, size_t i)
{
    size_t n = 0;
    const struct acreE_entry *const *v =
        dir_ok(dir) ? acreE_dir_suffixes(DIR(dir), &n) : NULL;

    return v && i < n ? (const acre_entry *)v[i] : NULL;
}

/* acre_directory_host -- see acre.h.  NULL for NULL. */
ACRE_PUBLIC const acre_host *
acre_directory_host(const acre_directory *dir)
{
    return dir_ok(dir) ? acreE_dir_host(DIR(dir)) : NULL;
}

/* acre_entry_view_of -- see acre.h.  NULL for NULL. */
ACRE_PUBLIC const acre_entry_view *
acre_entry_view_of(const acre_entry *e)
{
    return e ? &ENTRY(e)->v : NULL;
}

/* acre_entry_dn -- see acre.h.  NULL for NULL. */
ACRE_PUBLIC const acre_dn *
acre_entry_dn(const acre_entry *e)
{
    return e ? ENTRY(e)->v.dn : NULL;
}

/* acre_entry_dn_stored -- see acre.h. */
ACRE_PUBLIC const char *
acre_entry_dn_stored(const acre_entry *e, size_t *len)
{
    const char *s = e ? ENTRY(e)->dn_stored : NULL;

    if (len)
        *len = s ? ENTRY(e)->dn_stored_len : 0;
    return s;
}

/* acre_entry_nattrs -- see acre.h.  0 for NULL. */
ACRE_PUBLIC unsigned
acre_entry_nattrs(const acre_entry *e)
{
    return e ? ENTRY(e)->v.nattrs : 0;
}

/*
 * acre_entry_attr -- see acre.h.  The description of attribute i as first
 * written in the LDIF (NUL-terminated there; its length in *len), or NULL
 * (with *len and *nvals 0) when e is NULL or i is out of range.
 */
ACRE_PUBLIC const char *
acre_entry_attr(const acre_entry *e, unsigned i, size_t *len, unsigned *nvals)
{
    if (len)
        *len = 0;
    if (nvals)
        *nvals = 0;
    if (!e || i >= ENTRY(e)->v.nattrs)
        return NULL;
    if (len)
        *len = ENTRY(e)->desc_len[i];
    if (nvals)
        *nvals = ENTRY(e)->v.attrs[i].nvals;
    return ENTRY(e)->desc[i];
}

/*
 * acre_entry_value -- see acre.h.  Value j of attribute i as stored, or
 * NULL (with *len 0) when e is NULL or i or j is out of range.
 */
ACRE_PUBLIC const void *
acre_entry_value(const acre_entry *e, unsigned i, unsigned j, size_t *len)
{
    const acre_view_attr *a;

    if (len)
        *len = 0;
    if (!e || i >= ENTRY(e)->v.nattrs)
        return NULL;
    a = &ENTRY(e)->v.attrs[i];
    if (j >= a->nvals)
        return NULL;
    if (len)
        *len = a->vals[j].len;
    return a->vals[j].val;
}
