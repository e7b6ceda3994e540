/*
 * filter_acre.c -- acre's answers to searches (see filter_acre.h).
 *
 * A search parses the base DN, then the filter (slapd checks them in that
 * order too), walks the scope with acreE_dir_walk and keeps the entries
 * for which acreF_eval is TRUE (FALSE and UNDEFINED both leave an entry
 * out, as in LDAP).
 */
#include "filter_acre.h"

#include "acre.h"
#include "filter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

/*
 * The schema of both sides' values: the built-in definitions under the
 * SLAPD profile, so that acre prepares values as slapd does.  Made once,
 * never freed (the drivers are short-lived).
 */
const acre_schema *
fa_schema(void)
{
    static acre_schema *schema;
    int rc;

    if (!schema &&
        (rc = acre_schema_new(NULL, ACRE_SCHEMA_SLAPD, &schema, NULL)))
        dt_die("acre_schema_new: %s", acre_strerror(rc));
    return schema;
}

struct acreE_dir *
fa_load_dir(void *ctx, const char *ldif, const char *suite)
{
    struct acreE_dir *dir;
    acre_diag diag, warn;
    unsigned nwarn = 0;
    int rc;

    if ((rc = acreE_dir_new(ctx, fa_schema(), 0, &dir)))
        dt_die("acreE_dir_new: %s", acre_strerror(rc));
    rc = acreE_dir_load_ldif(dir, ldif, NULL, 0, NULL, &nwarn, &warn, &diag);
    if (rc) {
        printf("%s: acre cannot load %s: %s: line %u column %u: %s\n", suite,
               ldif, acre_strerror(rc), diag.line, diag.column, diag.message);
        return NULL;
    }
    if (nwarn)
        printf("%s: %u warnings loading %s, first: line %u: %s\n", suite, nwarn,
               ldif, warn.line, warn.message);
    return dir;
}

static int
scope_code(const char *s)
{
    static const char *const names[] = {"base", "one", "sub", "children"};

    for (int i = 0; i < 4; i++)
        if (!strcmp(s, names[i]))
            return i;
    dt_die("unknown scope %s", s);
}

struct walk {
    const struct acreF_filter *f;
    struct dt_result *out;
    const struct acreE_dir *dir;
};

/* hasSubordinates from the directory's tree, as its host answers it. */
static int
children(void *arg, const acre_entry_view *v)
{
    const struct acreE_entry *e = acreE_dir_find(arg, v->dn);

    return e && e->first_child != NULL;
}

static int
visit(void *ctx, const struct acreE_entry *e)
{
    struct walk *w = ctx;
    struct acreF_hooks h = {NULL, NULL, children, (void *)w->dir, NULL, NULL,
                            NULL, 0,    NULL};
    size_t n;
    const char *dn;

    if (acreF_eval(w->f, &e->v, &h) == ACREF_TRUE) {
        dn = acre_dn_normalised(e->v.dn, &n);
        dt_result_add(w->out, dn, n);
    }
    return 0;
}

void
fa_search(const struct acreE_dir *dir, const char *scope, const char *base,
          const char *filter, struct dt_result *out, struct dt_str *why)
{
    void *tmp = talloc_new(NULL);
    struct acreF_filter *f;
    acre_dn *bdn;
    acre_diag diag;
    int rc;

    memset(out, 0, sizeof *out);
    rc = acre_dn_parse(tmp, fa_schema(), base, strlen(base), 0, &bdn, &diag);
    if (rc) {
        out->rc = 34;
        dt_str_printf(why, "base: %s (%s)", acre_strerror(rc), diag.message);
    } else if ((rc = acreF_parse(tmp, fa_schema(), filter, strlen(filter), &f,
                                 &diag))) {
        out->rc = FA_RC_FILTER_ERROR;
        dt_str_printf(why, "acreF_parse: %s at offset %zu: %s",
                      acre_strerror(rc), diag.offset, diag.message);
    } else {
        struct walk w = {f, out, dir};
        rc = acreE_dir_walk(dir, bdn, scope_code(scope), visit, &w);
        out->rc = rc == ACRE_ERR_NO_SUCH_OBJECT ? 32 : rc;
    }
    talloc_free(tmp);
    fa_sort(out);
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void
fa_sort(struct dt_result *r)
{
    if (r->ndns)
        qsort(r->dns, r->ndns, sizeof *r->dns, cmp_str);
}

char *
fa_norm_dn(const char *dn)
{
    acre_dn *x;
    char *s;

    if (acre_dn_parse(NULL, fa_schema(), dn, strlen(dn), 0, &x, NULL))
        return NULL;
    s = dt_strdup(acre_dn_normalised(x, NULL));
    acre_dn_free(x);
    return s;
}

void
fa_normalise(struct dt_result *r)
{
    for (unsigned i = 0; i < r->ndns; i++) {
        char *n = fa_norm_dn(r->dns[i]);
        if (!n) {
            n = dt_alloc(strlen(r->dns[i]) + 2);
            n[0] = '!';
            strcpy(n + 1, r->dns[i]);
        }
        free(r->dns[i]);
        r->dns[i] = n;
    }
    fa_sort(r);
}

int
fa_same(const struct dt_result *a, const struct dt_result *b)
{
    if (a->rc != b->rc || a->ndns != b->ndns)
        return 0;
    for (unsigned i = 0; i < a->ndns; i++)
        if (strcmp(a->dns[i], b->dns[i]))
            return 0;
    return 1;
}

int
fa_contains(const struct dt_result *r, const char *dn)
{
    return r->ndns &&
           bsearch(&dn, r->dns, r->ndns, sizeof *r->dns, cmp_str) != NULL;
}
