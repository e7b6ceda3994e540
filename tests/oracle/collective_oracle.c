/*
 * collective_oracle.c -- the reference evaluator of collective attributes
 * (collective_oracle.h says which rules, and why): for one entry, scan
 * every entry of the directory, keep the collective subentries whose area
 * and subtree specification include it, and add up their values, then
 * slapo-collect's.
 *
 * Written to be read against the header, rule by rule; nothing is
 * indexed or cached.  All memory of a call hangs off one scratch talloc
 * context, freed before returning; the result is copied out of it.
 */
#include "collective_oracle.h"
#include "openldap_oracle.h"

#include "directory.h"
#include "dn.h"
#include "entry.h"
#include "filter.h"
#include "schema.h"
#include "subentry.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

#define ROLE_SPECIFIC 1u
#define ROLE_INNER    2u

/* The schema names this file resolves, once per call (-1: not defined). */
struct names {
    const acre_schema *s;
    const struct acreE_dir *dir;
    struct acreF_hooks hooks; /* hasSubordinates from the directory */
    int oc_subentry, oc_collective, oc_inherited, oc_from_dn, oc_from_rdn;
    int at_objectclass, at_role, at_spec, at_exclusions, at_conflict,
        at_from_dn, at_base_rdn, at_rdn_type, at_rdn_attr, at_inherit;
};

static void
names_init(struct names *n, const struct acreE_dir *dir)
{
    const acre_schema *s = acreE_dir_schema(dir);

#define OC(x) acreS_class_find(s, x, strlen(x))
#define AT(x) acreS_attr_find(s, x, strlen(x))
    n->s = s;
    n->dir = dir;
    n->hooks = acreR_dir_hooks(dir);
    n->oc_subentry = OC("subentry");
    n->oc_collective = OC("collectiveAttributeSubentry");
    n->oc_inherited = OC("inheritedCollectiveAttributeSubentry");
    n->oc_from_dn = OC("inheritedFromDNCollectiveAttributeSubentry");
    n->oc_from_rdn = OC("inheritedFromRDNCollectiveAttributeSubentry");
    n->at_objectclass = AT("objectClass");
    n->at_role = AT("administrativeRole");
    n->at_spec = AT("subtreeSpecification");
    n->at_exclusions = AT("collectiveExclusions");
    n->at_conflict = AT("collectiveConflictBehavior");
    n->at_from_dn = AT("inheritFromDNAttribute");
    n->at_base_rdn = AT("inheritFromBaseRDN");
    n->at_rdn_type = AT("inheritFromRDNType");
    n->at_rdn_attr = AT("inheritFromRDNAttribute");
    n->at_inherit = AT("inheritAttribute");
#undef OC
#undef AT
}

/* ------------------------------------------------------------------------
 * Entries, attributes and classes
 */

/* The type and options of stored attribute a of e. */
static const struct acreS_dinfo *
dinfo_of(const struct acreE_entry *e, const acre_view_attr *a)
{
    return acreS_dinfo(e->v.schema, a->id);
}

/* The attribute of e with type `type` and no options, or NULL. */
static const acre_view_attr *
attr_plain(const struct acreE_entry *e, int type)
{
    if (type < 0)
        return NULL;
    for (uint32_t k = 0; k < e->v.nattrs; k++) {
        const struct acreS_dinfo *d = dinfo_of(e, &e->v.attrs[k]);
        if (d->type == type && d->nopts == 0)
            return &e->v.attrs[k];
    }
    return NULL;
}

/* The attribute of e with exactly this type and these options
 * (lowercased, sorted), or NULL. */
static const acre_view_attr *
attr_exact(const struct acreE_entry *e, int type, unsigned nopts,
           char *const *opts)
{
    for (uint32_t k = 0; k < e->v.nattrs; k++) {
        const struct acreS_dinfo *a = dinfo_of(e, &e->v.attrs[k]);
        unsigned j = 0;

        if (a->type != type || a->nopts != nopts)
            continue;
        while (j < nopts && a->opt_len[j] == strlen(opts[j]) &&
               memcmp(a->opts[j], opts[j], a->opt_len[j]) == 0)
            j++;
        if (j == nopts)
            return &e->v.attrs[k];
    }
    return NULL;
}

/* A value as a NUL-terminated scratch string. */
static char *
val_str(void *ctx, const acre_value *v)
{
    return talloc_strndup(ctx, (const char *)v->val, v->len);
}

/* 1 when e has class `cls` (a value of objectClass names it or a
 * subclass of it). */
static int
has_class(const struct names *n, const struct acreE_entry *e, int cls)
{
    const acre_view_attr *a = attr_plain(e, n->at_objectclass);

    if (cls < 0 || !a)
        return 0;
    for (uint32_t k = 0; k < a->nvals; k++) {
        int id = acreS_class_find(n->s, (const char *)a->vals[k].val,
                                  a->vals[k].len);
        if (id >= 0 && acreS_class_is(n->s, id, cls))
            return 1;
    }
    return 0;
}

static int
is_subentry(const struct names *n, const struct acreE_entry *e)
{
    return has_class(n, e, n->oc_subentry);
}

static int
is_collective_subentry(const struct names *n, const struct acreE_entry *e)
{
    return is_subentry(n, e) && (has_class(n, e, n->oc_collective) ||
                                 has_class(n, e, n->oc_inherited));
}

/* 1 when the value v[0..len) is `name` or `oid`, case-insensitively. */
static int
is_word(const uint8_t *v, size_t len, const char *name, const char *oid)
{
    return (len == strlen(name) &&
            strncasecmp((const char *)v, name, len) == 0) ||
           (len == strlen(oid) && memcmp(v, oid, len) == 0);
}

/* The collective-attribute roles of e (ROLE_* bits). */
static unsigned
roles(const struct names *n, const struct acreE_entry *e)
{
    const acre_view_attr *a = attr_plain(e, n->at_role);
    unsigned r = 0;

    for (uint32_t k = 0; a && k < a->nvals; k++) {
        const uint8_t *v = a->vals[k].val;
        size_t len = a->vals[k].len;

        if (is_word(v, len, "autonomousArea", "2.5.23.1") ||
            is_word(v, len, "collectiveAttributeSpecificArea", "2.5.23.5"))
            r |= ROLE_SPECIFIC;
        if (is_word(v, len, "collectiveAttributeInnerArea", "2.5.23.6"))
            r |= ROLE_INNER;
    }
    return r;
}

/* 1 when e is a or below it. */
static int
at_or_below(const struct acreE_entry *e, const struct acreE_entry *a)
{
    return acre_dn_in_scope(e->v.dn, a->v.dn, ACRE_SCOPE_SUB) == 1;
}

/* ------------------------------------------------------------------------
 * Areas: does the administrative point of s apply to e?
 */

static int
area_applies(const struct names *n, const struct acreE_entry *s,
             const struct acreE_entry *e, unsigned flags)
{
    const struct acreE_entry *a = s->parent, *p;

    if (!a || !at_or_below(e, a))
        return 0;
    if (flags & ACRER_COLL_STACK)
        return 1;
    if (!roles(n, a))
        return 0;
    for (p = e; p && !(roles(n, p) & ROLE_SPECIFIC); p = p->parent)
        ;
    if (!p)
        return 0; /* no specific area above e: inner areas alone are void */
    if (a == p)
        return 1;
    /* a is at or above e; it must be an inner point strictly below p */
    return (roles(n, a) & ROLE_INNER) && at_or_below(a, p) && a != p;
}

/* ------------------------------------------------------------------------
 * Subtree specifications, literally
 */

/* A spec ready to test: the parsed value, its names made DNs, its
 * filters parsed.  valid is 0 when any of that failed. */
struct spec {
    int valid;
    struct acreU_spec *u;
    acre_dn *base;
    acre_dn **chop;
};

/* name,parent as a DN under ctx, or NULL when it is not one. */
static acre_dn *
relative_dn(void *ctx, const struct names *n, const char *name,
            const acre_dn *parent)
{
    const char *p = acre_dn_normalised(parent, NULL);
    char *t =
        *name ? talloc_asprintf(ctx, "%s,%s", name, p) : talloc_strdup(ctx, p);
    acre_dn *dn = NULL;

    if (t && acre_dn_parse(ctx, n->s, t, strlen(t), 0, &dn, NULL) != 0)
        dn = NULL;
    return dn;
}

/* 1 when every filter of r parses. */
static int
filters_parse(void *ctx, const struct names *n, const struct acreU_refine *r)
{
    struct acreF_filter *f;

    if (r->kind == ACREU_FILTER)
        return acreF_parse(ctx, n->s, r->text, strlen(r->text), &f, NULL) == 0;
    for (unsigned k = 0; k < r->nsub; k++)
        if (!filters_parse(ctx, n, r->sub[k]))
            return 0;
    return 1;
}

static void
spec_load(void *ctx, const struct names *n, const struct acreE_entry *s,
          struct spec *sp)
{
    const acre_view_attr *a = attr_plain(s, n->at_spec);

    memset(sp, 0, sizeof(*sp));
    if (!a || !a->nvals || !s->parent ||
        acreU_spec_parse(ctx, (const char *)a->vals[0].val, a->vals[0].len,
                         &sp->u, NULL, NULL) != 0)
        return;
    sp->base = relative_dn(ctx, n, sp->u->base, s->parent->v.dn);
    if (!sp->base)
        return;
    sp->chop = talloc_zero_array(ctx, acre_dn *, sp->u->nchops + 1);
    for (unsigned k = 0; sp->chop && k < sp->u->nchops; k++)
        if (!(sp->chop[k] =
                  relative_dn(ctx, n, sp->u->chops[k].local, sp->base)))
            return;
    if (!sp->chop || (sp->u->refine && !filters_parse(ctx, n, sp->u->refine)))
        return;
    sp->valid = 1;
}

/* The refinement r for e: TRUE or FALSE (a filter's UNDEFINED is FALSE). */
static int
refine(void *ctx, const struct names *n, const struct acreU_refine *r,
       const struct acreE_entry *e)
{
    struct acreF_filter *f;
    unsigned k;

    switch (r->kind) {
    case ACREU_ITEM:
        return has_class(n, e,
                         acreS_class_find(n->s, r->text, strlen(r->text)));
    case ACREU_AND:
        for (k = 0; k < r->nsub; k++)
            if (!refine(ctx, n, r->sub[k], e))
                return 0;
        return 1;
    case ACREU_OR:
        for (k = 0; k < r->nsub; k++)
            if (refine(ctx, n, r->sub[k], e))
                return 1;
        return 0;
    case ACREU_NOT:
        return !refine(ctx, n, r->sub[0], e);
    case ACREU_FILTER:
        if (acreF_parse(ctx, n->s, r->text, strlen(r->text), &f, NULL))
            return 0; /* not reached: spec_load checked it */
        return acreF_eval(f, &e->v, &n->hooks) == ACREF_TRUE;
    }
    return 0;
}

/* 1 when e is in the reach of the specification sp. */
static int
spec_has(void *ctx, const struct names *n, const struct spec *sp,
         const struct acreE_entry *e)
{
    unsigned d;

    if (!sp->valid || acre_dn_in_scope(e->v.dn, sp->base, ACRE_SCOPE_SUB) != 1)
        return 0;
    d = acre_dn_depth(e->v.dn) - acre_dn_depth(sp->base);
    if (d < sp->u->minimum || d > sp->u->maximum)
        return 0;
    for (unsigned k = 0; k < sp->u->nchops; k++) {
        int scope =
            sp->u->chops[k].after ? ACRE_SCOPE_CHILDREN : ACRE_SCOPE_SUB;
        if (acre_dn_in_scope(e->v.dn, sp->chop[k], scope) == 1)
            return 0;
    }
    return !sp->u->refine || refine(ctx, n, sp->u->refine, e);
}

/* Does collective subentry s apply to e?  (scratch under ctx) */
static int
applies(void *ctx, const struct names *n, const struct acreE_entry *s,
        const struct acreE_entry *e, unsigned flags)
{
    struct spec sp;

    if (s == e || is_subentry(n, e) || !is_collective_subentry(n, s) ||
        !area_applies(n, s, e, flags))
        return 0;
    spec_load(ctx, n, s, &sp);
    return spec_has(ctx, n, &sp, e);
}

/* ------------------------------------------------------------------------
 * The directory in load order
 */

struct list {
    const struct acreE_entry **v;
    size_t n;
};

static int
collect_entry(void *arg, const struct acreE_entry *e)
{
    struct list *l = arg;

    l->v[l->n++] = e;
    return 0;
}

static int
by_id(const void *x, const void *y)
{
    const struct acreE_entry *a = *(const struct acreE_entry *const *)x;
    const struct acreE_entry *b = *(const struct acreE_entry *const *)y;

    return (a->id > b->id) - (a->id < b->id);
}

static int
all_entries(void *ctx, const struct acreE_dir *dir, struct list *l)
{
    size_t nsuf;
    const struct acreE_entry *const *suf = acreE_dir_suffixes(dir, &nsuf);

    l->n = 0;
    l->v =
        talloc_array(ctx, const struct acreE_entry *, acreE_dir_count(dir) + 1);
    if (!l->v)
        return ACRE_ERR_NOMEM;
    for (size_t k = 0; k < nsuf; k++)
        acreE_dir_walk(dir, suf[k]->v.dn, ACRE_SCOPE_SUB, collect_entry, l);
    qsort(l->v, l->n, sizeof(l->v[0]), by_id);
    return 0;
}

/* ------------------------------------------------------------------------
 * The result being built: descriptions with their values
 */

struct val {
    const uint8_t *v, *norm; /* norm NULL: compare v */
    size_t len, nlen;
};

struct acc {
    char *desc; /* "type;opt..." */
    int type;
    struct val *vals;
    unsigned nvals;
    int replaced;
};

struct build {
    void *ctx;
    const struct names *n;
    struct acc *acc;
    unsigned nacc;
    int nomem;
};

/* The description of type with options opts[0..nopts) (lowercased,
 * sorted). */
static char *
desc_text(void *ctx, const struct names *n, int type, unsigned nopts,
          char *const *opts)
{
    const struct acreS_attr *at = acreS_attr(n->s, type);
    char *t = talloc_strdup(ctx, at->nnames ? at->names[0] : at->oid);

    for (unsigned k = 0; t && k < nopts; k++)
        t = talloc_asprintf_append(t, ";%s", opts[k]);
    return t;
}

static struct acc *
acc_get(struct build *B, const char *desc, int type)
{
    struct acc *v;

    for (unsigned k = 0; k < B->nacc; k++)
        if (strcmp(B->acc[k].desc, desc) == 0)
            return &B->acc[k];
    v = talloc_realloc(B->ctx, B->acc, struct acc, B->nacc + 1);
    if (!v) {
        B->nomem = 1;
        return NULL;
    }
    B->acc = v;
    v = &B->acc[B->nacc++];
    memset(v, 0, sizeof(*v));
    v->desc = talloc_strdup(B->ctx, desc);
    v->type = type;
    return v;
}

static int
val_eq(const struct val *a, const struct val *b)
{
    if (a->norm && b->norm)
        return acreE_norm_cmp(a->norm, a->nlen, b->norm, b->nlen) == 0;
    return a->len == b->len && memcmp(a->v, b->v, a->len) == 0;
}

/* Value k of a, with its normalised form (none without an equality
 * rule). */
static struct val
val_of(const acre_view_attr *a, uint32_t k)
{
    const acre_value *ev = &a->vals[k], *en = a->norms ? &a->norms[k] : NULL;
    struct val x = {ev->val, en ? en->val : NULL, ev->len, en ? en->len : 0};

    return x;
}

static void
acc_push(struct build *B, struct acc *a, struct val x)
{
    struct val *v = talloc_realloc(B->ctx, a->vals, struct val, a->nvals + 1);

    if (!v) {
        B->nomem = 1;
        return;
    }
    a->vals = v;
    a->vals[a->nvals++] = x;
}

/* Add x unless a value equal to it is already there (or, with real not
 * NULL, stored in real). */
static void
acc_add_new(struct build *B, struct acc *a, struct val x,
            const acre_view_attr *real)
{
    for (unsigned k = 0; k < a->nvals; k++)
        if (val_eq(&a->vals[k], &x))
            return;
    for (uint32_t k = 0; real && k < real->nvals; k++) {
        struct val r = val_of(real, k);
        if (val_eq(&r, &x))
            return;
    }
    acc_push(B, a, x);
}

enum conflict { REAL_OVERRIDES, VIRTUAL_OVERRIDES, MERGE };

/* S's collectiveConflictBehavior: compared exactly, as OpenDJ does. */
static enum conflict
conflict_of(const struct names *n, const struct acreE_entry *s)
{
    const acre_view_attr *a = attr_plain(s, n->at_conflict);
    enum conflict c = REAL_OVERRIDES;

    for (uint32_t k = 0; a && k < a->nvals; k++) {
        const char *v = (const char *)a->vals[k].val;
        size_t len = a->vals[k].len;
#define IS(w) (len == strlen(w) && memcmp(v, w, len) == 0)
        if (IS("real-overrides-virtual"))
            c = REAL_OVERRIDES;
        else if (IS("virtual-overrides-real"))
            c = VIRTUAL_OVERRIDES;
        else if (IS("merge-real-and-virtual"))
            c = MERGE;
#undef IS
    }
    return c;
}

/* One contribution: values w[0..nw) of description (type, opts) from a
 * subentry with conflict behaviour c, to entry e. */
static void
contribute(struct build *B, const struct acreE_entry *e, int type,
           unsigned nopts, char *const *opts, const acre_view_attr *w,
           enum conflict c)
{
    char *desc = desc_text(B->ctx, B->n, type, nopts, opts);
    const acre_view_attr *real = attr_exact(e, type, nopts, opts);
    struct acc *a = desc ? acc_get(B, desc, type) : NULL;
    int has_real = real && real->nvals;

    if (!a) {
        B->nomem = 1;
        return;
    }
    if (has_real && !a->replaced) {
        if (c == REAL_OVERRIDES)
            return;
        if (c == VIRTUAL_OVERRIDES)
            a->replaced = 1;
    }
    for (uint32_t k = 0; k < w->nvals; k++)
        acc_add_new(B, a, val_of(w, k),
                    has_real && !a->replaced && c == MERGE ? real : NULL);
}

/* ------------------------------------------------------------------------
 * What one subentry gives
 */

/* A contribution: a description, and the attribute of s it comes from
 * (NULL for an inheritAttribute value). */
struct contrib {
    int type;
    unsigned nopts;
    char **opts;
    const acre_view_attr *from;
};

static int
opt_cmp(const void *x, const void *y)
{
    return strcmp(*(char *const *)x, *(char *const *)y);
}

/* Lowercased, sorted copies of n options, `drop` ("collective" or NULL)
 * left out; *nout set. */
static char **
opts_copy(void *ctx, const char *const *o, const uint32_t *ol, unsigned n,
          const char *drop, unsigned *nout)
{
    char **v = talloc_zero_array(ctx, char *, n + 1);
    unsigned m = 0;

    for (unsigned k = 0; v && k < n; k++) {
        char *t = talloc_strndup(v, o[k], ol[k]);
        if (!t)
            return NULL;
        for (char *p = t; *p; p++)
            if (*p >= 'A' && *p <= 'Z')
                *p = (char)(*p - 'A' + 'a');
        if (!drop || strcmp(t, drop) != 0)
            v[m++] = t;
    }
    if (v)
        qsort(v, m, sizeof(v[0]), opt_cmp);
    *nout = m;
    return v;
}

/* The contributions of subentry s, in OpenDJ's order: its collective
 * attributes (class collectiveAttributeSubentry), then one per value of
 * inheritAttribute (class inheritedCollectiveAttributeSubentry). */
static unsigned
contributions(void *ctx, const struct names *n, const struct acreE_entry *s,
              struct contrib **out)
{
    struct contrib *v = talloc_zero_array(ctx, struct contrib, s->v.nattrs + 1);
    unsigned m = 0;
    const acre_view_attr *ia;

    *out = NULL;

    if (has_class(n, s, n->oc_collective))
        for (uint32_t k = 0; v && k < s->v.nattrs; k++) {
            const struct acreS_dinfo *a = dinfo_of(s, &s->v.attrs[k]);
            int coll = acreS_attr(n->s, a->type)->flags & ACRES_COLLECTIVE;
            unsigned j = 0;
            while (j < a->nopts && !(a->opt_len[j] == 10 &&
                                     memcmp(a->opts[j], "collective", 10) == 0))
                j++;
            if (!coll && j == a->nopts)
                continue;
            v[m].type = a->type;
            v[m].opts = opts_copy(ctx, a->opts, a->opt_len, a->nopts,
                                  "collective", &v[m].nopts);
            v[m++].from = &s->v.attrs[k];
        }
    ia = has_class(n, s, n->oc_inherited) ? attr_plain(s, n->at_inherit) : NULL;
    for (uint32_t k = 0; v && ia && k < ia->nvals; k++) {
        struct acreS_desc d;
        const char *o[ACRES_MAX_OPTIONS];
        uint32_t ol[ACRES_MAX_OPTIONS];
        if (acreS_desc_parse(n->s, (const char *)ia->vals[k].val,
                             ia->vals[k].len, &d) ||
            d.type < 0)
            continue;
        for (unsigned j = 0; j < d.nopts; j++) {
            o[j] = d.opts[j];
            ol[j] = d.opt_len[j];
        }
        struct contrib *nv = talloc_realloc(ctx, v, struct contrib, m + 2);
        if (!nv)
            return 0; /* *out NULL: out of memory */
        v = nv;
        memset(&v[m], 0, sizeof(v[m]));
        v[m].type = d.type;
        v[m].opts = opts_copy(ctx, o, ol, d.nopts, NULL, &v[m].nopts);
        v[m++].from = NULL;
    }
    *out = v;
    return v ? m : 0;
}

/* RFC 4514: value v[0..len) escaped for an AVA, under ctx. */
static char *
escape_value(void *ctx, const uint8_t *v, size_t len)
{
    char *t = talloc_strdup(ctx, "");

    for (size_t k = 0; t && k < len; k++) {
        unsigned c = v[k];
        int special = strchr(",+\"\\<>;=", (int)c) && c;
        if ((k == 0 && (c == ' ' || c == '#')) || (k == len - 1 && c == ' ') ||
            special)
            t = talloc_asprintf_append(t, "\\%c", (char)c);
        else if (c < 0x20 || c == 0x7f)
            t = talloc_asprintf_append(t, "\\%02x", c);
        else
            t = talloc_asprintf_append(t, "%c", (char)c);
    }
    return t;
}

/* The name of the type the first value of s's attribute `at` names, as
 * a schema id (-1: none or unknown). */
static int
named_type(const struct names *n, const struct acreE_entry *s, int at)
{
    const acre_view_attr *a = attr_plain(s, at);

    if (!a || !a->nvals)
        return -1;
    return acreS_attr_find(n->s, (const char *)a->vals[0].val, a->vals[0].len);
}

/*
 * The inherit-from entry of subentry s for e.  Returns 0 with *from set
 * (NULL: none), or -1 when s gives nothing to e at all.
 */
static int
inherit_from(void *ctx, const struct names *n, const struct acreE_entry *s,
             const struct acreE_entry *e, const struct acreE_entry **from)
{
    int dn_type = named_type(n, s, n->at_from_dn);
    int rdn_attr = named_type(n, s, n->at_rdn_attr);
    const acre_view_attr *a;
    acre_dn *dn = NULL;

    *from = NULL;
    if (has_class(n, s, n->oc_from_dn) && (a = attr_plain(e, dn_type)) &&
        a->nvals) {
        if (acre_dn_parse(ctx, n->s, (const char *)a->vals[0].val,
                          a->vals[0].len, 0, &dn, NULL) ||
            acre_dn_in_scope(dn, s->parent->v.dn, ACRE_SCOPE_SUB) != 1)
            return -1;
        *from = acreE_dir_find(n->dir, dn);
        return 0;
    }
    if (has_class(n, s, n->oc_from_rdn) && (a = attr_plain(e, rdn_attr)) &&
        a->nvals) {
        const acre_view_attr *base = attr_plain(s, n->at_base_rdn);
        int rdn_type = named_type(n, s, n->at_rdn_type);
        if (!base || !base->nvals || rdn_type < 0)
            return -1;
        char *rv = escape_value(ctx, a->vals[0].val, a->vals[0].len);
        char *b = val_str(ctx, &base->vals[0]);
        const char *t = acreS_attr(n->s, rdn_type)->dn.name;
        char *rdn = !rv || !b ? NULL
                    : *b      ? talloc_asprintf(ctx, "%s=%s,%s", t, rv, b)
                              : talloc_asprintf(ctx, "%s=%s", t, rv);
        acre_dn *full = rdn ? relative_dn(ctx, n, rdn, s->parent->v.dn) : NULL;
        *from = full ? acreE_dir_find(n->dir, full) : NULL;
    }
    return 0;
}

/* Exclusions of e: *all set for excludeAllCollectiveAttributes; the
 * excluded type ids in a talloc array (count in *nex). */
static int *
exclusions(void *ctx, const struct names *n, const struct acreE_entry *e,
           int *all, unsigned *nex)
{
    const acre_view_attr *a = attr_plain(e, n->at_exclusions);
    int *v = talloc_array(ctx, int, a ? a->nvals + 1 : 1);

    *all = 0;
    *nex = 0;
    for (uint32_t k = 0; v && a && k < a->nvals; k++) {
        const uint8_t *x = a->vals[k].val;
        size_t len = a->vals[k].len;
        int id;
        if (is_word(x, len, "excludeAllCollectiveAttributes", "2.5.18.0"))
            *all = 1;
        else if ((id = acreS_attr_find(n->s, (const char *)x, len)) >= 0)
            v[(*nex)++] = id;
    }
    return v;
}

/* Everything subentry s gives e, added to B. */
static void
give(struct build *B, const struct acreE_entry *s, const struct acreE_entry *e,
     const int *ex, unsigned nex)
{
    const struct names *n = B->n;
    const struct acreE_entry *from = NULL;
    int inherited = has_class(n, s, n->oc_inherited);
    enum conflict c = conflict_of(n, s);
    struct contrib *v;
    unsigned m = contributions(B->ctx, n, s, &v);

    if (!v) {
        B->nomem = 1;
        return;
    }
    if (inherited && inherit_from(B->ctx, n, s, e, &from))
        return;
    for (unsigned k = 0; k < m; k++) {
        const acre_view_attr *w = v[k].from;
        unsigned j = 0;
        if (!v[k].opts) {
            B->nomem = 1;
            return;
        }
        while (j < nex && ex[j] != v[k].type)
            j++;
        if (j < nex)
            continue;
        if (inherited)
            w = from ? attr_exact(from, v[k].type, v[k].nopts, v[k].opts)
                     : NULL;
        if (w && w->nvals)
            contribute(B, e, v[k].type, v[k].nopts, v[k].opts, w, c);
    }
}

/* ------------------------------------------------------------------------
 * slapo-collect
 */

struct ci {
    acre_dn *dn;
    unsigned pos;
    unsigned nattrs;
    int *type;
    unsigned *nopts;
    char ***opts;
};

static int
ci_cmp(const void *x, const void *y)
{
    const struct ci *a = x, *b = y;
    size_t al, bl;

    acre_dn_normalised(a->dn, &al);
    acre_dn_normalised(b->dn, &bl);
    if (al != bl)
        return al > bl ? -1 : 1; /* longest first, as insert_ordered */
    return (a->pos > b->pos) - (a->pos < b->pos);
}

/* The ci settings resolved and in slapd's order. */
static int
ci_load(void *ctx, const struct names *n, const struct acreR_collectinfo *in,
        unsigned nci, struct ci **out)
{
    struct ci *v = talloc_zero_array(ctx, struct ci, nci + 1);
    int rc;

    if (!v)
        return ACRE_ERR_NOMEM;
    for (unsigned k = 0; k < nci; k++) {
        struct ci *c = &v[k];
        if (!in[k].dn || (nci && !in[k].attrs && in[k].nattrs))
            return ACRE_ERR_INVAL;
        if ((rc = acre_dn_parse(ctx, n->s, in[k].dn, strlen(in[k].dn), 0,
                                &c->dn, NULL)))
            return rc;
        for (unsigned j = 0; j < k; j++)
            if (acre_dn_equal(v[j].dn, c->dn))
                return ACRE_ERR_INVAL; /* "DN already configured" */
        c->pos = k;
        c->nattrs = in[k].nattrs;
        c->type = talloc_array(ctx, int, c->nattrs + 1);
        c->nopts = talloc_array(ctx, unsigned, c->nattrs + 1);
        c->opts = talloc_array(ctx, char **, c->nattrs + 1);
        if (!c->type || !c->nopts || !c->opts)
            return ACRE_ERR_NOMEM;
        for (unsigned j = 0; j < c->nattrs; j++) {
            struct acreS_desc d;
            const char *o[ACRES_MAX_OPTIONS];
            uint32_t ol[ACRES_MAX_OPTIONS];
            const char *t = in[k].attrs[j];
            if (!t || acreS_desc_parse(n->s, t, strlen(t), &d) || d.type < 0)
                return ACRE_ERR_INVAL;
            for (unsigned q = 0; q < d.nopts; q++) {
                o[q] = d.opts[q];
                ol[q] = d.opt_len[q];
            }
            c->type[j] = d.type;
            c->opts[j] = opts_copy(ctx, o, ol, d.nopts, NULL, &c->nopts[j]);
            if (!c->opts[j])
                return ACRE_ERR_NOMEM;
        }
    }
    qsort(v, nci, sizeof(v[0]), ci_cmp);
    *out = v;
    return 0;
}

/* slapd's collect_response for e: append, no deduplication. */
static void
ci_give(struct build *B, const struct ci *v, unsigned nci,
        const struct acreE_entry *e)
{
    for (unsigned k = 0; k < nci; k++) {
        const struct acreE_entry *src;
        if (acre_dn_in_scope(e->v.dn, v[k].dn, ACRE_SCOPE_CHILDREN) != 1 ||
            !(src = acreE_dir_find(B->n->dir, v[k].dn)))
            continue;
        for (unsigned j = 0; j < v[k].nattrs; j++) {
            const acre_view_attr *a =
                attr_exact(src, v[k].type[j], v[k].nopts[j], v[k].opts[j]);
            char *desc;
            struct acc *acc;
            if (!a || !a->nvals)
                continue;
            desc = desc_text(B->ctx, B->n, v[k].type[j], v[k].nopts[j],
                             v[k].opts[j]);
            acc = desc ? acc_get(B, desc, v[k].type[j]) : NULL;
            for (uint32_t q = 0; acc && q < a->nvals; q++) {
                struct val x = val_of(a, q);
                struct val y = {x.norm ? x.norm : x.v, NULL,
                                x.norm ? x.nlen : x.len, 0};
                acc_push(B, acc, y);
            }
            if (!acc)
                B->nomem = 1;
        }
    }
}

/* ------------------------------------------------------------------------
 * The result
 */

static int
acc_cmp(const void *x, const void *y)
{
    return strcasecmp(((const struct acc *)x)->desc,
                      ((const struct acc *)y)->desc);
}

static int
str_cmp(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* Copy B's descriptions (those with values) and the subentry DNs sub[0..ns)
 * into a new acreR_coll under mem_ctx. */
static int
result(void *mem_ctx, struct build *B, const char **sub, unsigned ns,
       struct acreR_coll **out)
{
    struct acreR_coll *c = talloc_zero(mem_ctx, struct acreR_coll);
    unsigned m = 0;

    if (!c)
        return ACRE_ERR_NOMEM;
    if (B->nacc) /* B->acc is NULL when empty */
        qsort(B->acc, B->nacc, sizeof(B->acc[0]), acc_cmp);
    qsort(sub, ns, sizeof(sub[0]), str_cmp);
    c->attrs = talloc_zero_array(c, struct acreR_coll_attr, B->nacc + 1);
    c->subentries = talloc_zero_array(c, const char *, ns + 1);
    if (!c->attrs || !c->subentries)
        goto nomem;
    for (unsigned k = 0; k < B->nacc; k++) {
        const struct acc *a = &B->acc[k];
        struct acreR_coll_attr *o = &c->attrs[m];
        if (!a->nvals && !a->replaced)
            continue;
        o->type = talloc_strdup(c, a->desc);
        o->vals = talloc_zero_array(c, const char *, a->nvals + 1);
        o->lens = talloc_zero_array(c, size_t, a->nvals + 1);
        if (!o->type || !o->vals || !o->lens)
            goto nomem;
        for (unsigned j = 0; j < a->nvals; j++) {
            char *t = talloc_size(c, a->vals[j].len + 1);
            if (!t)
                goto nomem;
            memcpy(t, a->vals[j].v, a->vals[j].len);
            t[a->vals[j].len] = '\0';
            o->vals[j] = t;
            o->lens[j] = a->vals[j].len;
        }
        o->nvals = a->nvals;
        o->replaces_real = a->replaced;
        m++;
    }
    c->nattrs = m;
    for (unsigned k = 0; k < ns; k++)
        if (!(c->subentries[k] = talloc_strdup(c, sub[k])))
            goto nomem;
    c->nsub = ns;
    *out = c;
    return 0;
nomem:
    talloc_free(c);
    return ACRE_ERR_NOMEM;
}

int
acreR_coll_entry(void *mem_ctx, const acre_directory *dir,
                 const acre_entry *ent, unsigned flags,
                 const struct acreR_collectinfo *ci, unsigned nci,
                 struct acreR_coll **out)
{
    const struct acreE_dir *d = (const struct acreE_dir *)dir;
    const struct acreE_entry *e = (const struct acreE_entry *)ent;
    void *ctx;
    struct names n;
    struct build B = {0};
    struct list all;
    struct ci *cv = NULL;
    const char **sub;
    unsigned ns = 0, nex;
    int rc, excl_all, *ex;

    if (!dir || !ent || !out || (nci && !ci))
        return ACRE_ERR_INVAL;
    if (!(ctx = talloc_new(NULL)))
        return ACRE_ERR_NOMEM;
    names_init(&n, d);
    B.ctx = ctx;
    B.n = &n;
    if ((rc = ci_load(ctx, &n, ci, nci, &cv)) ||
        (rc = all_entries(ctx, d, &all)))
        goto done;
    sub = talloc_array(ctx, const char *, all.n + 1);
    ex = exclusions(ctx, &n, e, &excl_all, &nex);
    if (!sub || !ex) {
        rc = ACRE_ERR_NOMEM;
        goto done;
    }
    for (size_t k = 0; k < all.n; k++) {
        const struct acreE_entry *s = all.v[k];
        if (!applies(ctx, &n, s, e, flags))
            continue;
        sub[ns++] = acre_dn_normalised(s->v.dn, NULL);
        if (!excl_all)
            give(&B, s, e, ex, nex);
    }
    ci_give(&B, cv, nci, e);
    rc = B.nomem ? ACRE_ERR_NOMEM : result(mem_ctx, &B, sub, ns, out);
done:
    talloc_free(ctx);
    return rc;
}

int
acreR_coll_in_reach(const acre_directory *dir, const acre_entry *s,
                    const acre_entry *e, unsigned flags)
{
    struct names n;
    void *ctx;
    int r;

    if (!dir || !s || !e)
        return ACRE_ERR_INVAL;
    if (!(ctx = talloc_new(NULL)))
        return ACRE_ERR_NOMEM;
    names_init(&n, (const struct acreE_dir *)dir);
    r = applies(ctx, &n, (const struct acreE_entry *)s,
                (const struct acreE_entry *)e, flags);
    talloc_free(ctx);
    return r;
}

/* ------------------------------------------------------------------------
 * Text for failure messages
 */

static void
put_bytes(FILE *f, const char *v, size_t len)
{
    for (size_t k = 0; k < len; k++) {
        unsigned char c = (unsigned char)v[k];
        if (c >= 0x20 && c < 0x7f && c != '\\')
            fputc(c, f);
        else
            fprintf(f, "\\%02x", c);
    }
}

char *
acreR_coll_text(const struct acreR_coll *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);

    if (!f)
        return NULL;
    for (unsigned k = 0; c && k < c->nattrs; k++) {
        const struct acreR_coll_attr *a = &c->attrs[k];
        for (unsigned j = 0; j < a->nvals; j++) {
            fprintf(f, "%s%s: ", a->type,
                    a->replaces_real ? " (replaces real)" : "");
            put_bytes(f, a->vals[j], a->lens[j]);
            fputc('\n', f);
        }
        if (!a->nvals)
            fprintf(f, "%s (replaces real): no value\n", a->type);
    }
    for (unsigned k = 0; c && k < c->nsub; k++)
        fprintf(f, "subentry: %s\n", c->subentries[k]);
    if (fclose(f))
        return NULL;
    return buf;
}

/* ------------------------------------------------------------------------
 * The engine's answer in the oracle's form
 */

/* A description in the oracle's form: the type's first name, then each
 * option lowercased, sorted; NULL (with *rc) when it cannot be. */
static char *
view_desc(void *ctx, const acre_schema *s, const char *d, size_t n, int *rc)
{
    struct acreS_desc p;
    char opts[ACRES_MAX_OPTIONS][64];
    char *t;

    *rc = ACRE_ERR_INVAL;
    if (acreS_desc_parse(s, d, n, &p) != 0 || p.type < 0)
        return NULL;
    const struct acreS_attr *at = acreS_attr(s, p.type);
    for (unsigned k = 0; k < p.nopts; k++) {
        *rc = 1;
        if (p.opt_len[k] >= sizeof(opts[k]))
            return NULL;
        for (unsigned j = 0; j < p.opt_len[k]; j++) {
            char ch = p.opts[k][j];
            opts[k][j] = ch >= 'A' && ch <= 'Z' ? (char)(ch + 32) : ch;
        }
        opts[k][p.opt_len[k]] = '\0';
    }
    qsort(opts, p.nopts, sizeof(opts[0]),
          (int (*)(const void *, const void *))strcmp);
    t = talloc_strdup(ctx, at->nnames ? at->names[0] : at->oid);
    for (unsigned k = 0; t && k < p.nopts; k++)
        t = talloc_asprintf_append(t, ";%s", opts[k]);
    *rc = t ? 0 : ACRE_ERR_NOMEM;
    return t;
}

/* Append value v (NULL: none) to c's attribute desc. */
static int
view_put(void *ctx, struct acreR_coll *c, const char *desc, const void *v,
         size_t len, int replaces)
{
    struct acreR_coll_attr *a = NULL;

    for (unsigned k = 0; k < c->nattrs && !a; k++)
        if (!strcmp(c->attrs[k].type, desc))
            a = &c->attrs[k];
    if (!a) {
        struct acreR_coll_attr *at = talloc_realloc(
            ctx, c->attrs, struct acreR_coll_attr, c->nattrs + 1);
        if (!at)
            return ACRE_ERR_NOMEM;
        c->attrs = at;
        a = &c->attrs[c->nattrs++];
        memset(a, 0, sizeof(*a));
        a->type = desc;
    }
    a->replaces_real |= replaces;
    if (!v)
        return 0;
    const char **vals =
        talloc_realloc(ctx, a->vals, const char *, a->nvals + 1);
    if (vals)
        a->vals = vals;
    size_t *lens = talloc_realloc(ctx, a->lens, size_t, a->nvals + 1);
    if (lens)
        a->lens = lens;
    char *t = talloc_size(ctx, len + 1); /* v is not NUL-terminated */
    if (!vals || !lens || !t)
        return ACRE_ERR_NOMEM;
    memcpy(t, v, len);
    t[len] = '\0';
    a->vals[a->nvals] = t;
    a->lens[a->nvals++] = len;
    return 0;
}

static int
view_attr_cmp(const void *a, const void *b)
{
    return strcasecmp(((const struct acreR_coll_attr *)a)->type,
                      ((const struct acreR_coll_attr *)b)->type);
}

static int
view_str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int
acreR_coll_of_view(void *ctx, const acre_schema *s,
                   const acre_collective_view *v, struct acreR_coll **out)
{
    struct acreR_coll *c = talloc_zero(ctx, struct acreR_coll);
    int rc = 0;

    if (!c)
        return ACRE_ERR_NOMEM;
    for (unsigned i = 0; !rc && i < v->nattrs; i++) {
        size_t dl, len;
        unsigned nv, fl;
        const char *d = acre_collective_attr(v, i, &dl, &nv, &fl);
        if (!d)
            return ACRE_ERR_INVAL;
        if (fl & ACRE_COLLATTR_OPER)
            continue; /* collectiveAttributeSubentries: below */
        char *od = view_desc(ctx, s, d, dl, &rc);
        int repl = (fl & ACRE_COLLATTR_REPLACES) != 0;
        if (od && !nv)
            rc = view_put(ctx, c, od, NULL, 0, repl);
        for (unsigned j = 0; od && !rc && j < nv; j++) {
            const void *val = acre_collective_value(v, i, j, &len);
            rc = val ? view_put(ctx, c, od, val, len, repl) : ACRE_ERR_INVAL;
        }
    }
    if (rc)
        return rc;
    if (!(c->subentries = talloc_array(ctx, const char *, v->nsubentries + 1)))
        return ACRE_ERR_NOMEM;
    for (unsigned k = 0; k < v->nsubentries; k++) {
        const acre_entry *sub = acre_collective_subentry(v, k);
        if (!sub)
            return ACRE_ERR_INVAL;
        c->subentries[c->nsub++] = acre_dn_normalised(acre_entry_dn(sub), NULL);
    }
    if (acre_collective_subentry(v, v->nsubentries))
        return ACRE_ERR_INVAL;
    if (c->nattrs)
        qsort(c->attrs, c->nattrs, sizeof(c->attrs[0]), view_attr_cmp);
    if (c->nsub)
        qsort(c->subentries, c->nsub, sizeof(c->subentries[0]), view_str_cmp);
    *out = c;
    return 0;
}
