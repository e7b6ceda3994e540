/*
 * collective_build.c -- acre_policy_attach_subentries: the subentries of a
 * directory (RFC 3672, RFC 3671, OpenDJ's extensions) and the sources of
 * the rules' collectinfo lines (slapo-collect), compiled into the subtree
 * index of a policy that shares another policy's rules.
 *
 * Steps:
 *   1. scan the directory once: administrative points with a collective
 *      role, and collective subentries (objectClass subentry with
 *      collectiveAttributeSubentry, or OpenDJ's
 *      inheritedCollectiveAttributeSubentry when the schema has it), in
 *      load order;
 *   2. compile each subentry: its subtreeSpecification (compiler/subentry.c)
 *      into a base DN, chop DNs, a depth window and a refinement; what it
 *      gives (its COLLECTIVE attributes, its ";collective" ones, OpenDJ's
 *      inheritAttribute list), its conflict behaviour and inheritance;
 *   3. compile each collectinfo: its source entry and, per description,
 *      the source's values as slapd returns them (normalised);
 *   4. rebuild the index over the shared rules with every administrative
 *      point, base, chop and collectinfo DN as a node (build.c);
 *   5. give each node its candidate list, parents first: the parent's
 *      list less what ends at this node (a depth window above it, a
 *      chopBefore here, the outer area when this node is a specific point
 *      in X.501 mode; a chopAfter here caps the window), merged with the
 *      subentries based here whose area reaches here and the collectinfo
 *      sources here.  A node whose list would equal its parent's shares
 *      the parent's storage.
 *
 * Readings (where the semantics is silent):
 *   - a subentry without subtreeSpecification, or whose specification,
 *     base, chop or filter does not parse, gives nothing: a warning, never
 *     an error (the rules are not at fault);
 *   - roles: autonomousArea (2.5.23.1) and collectiveAttributeSpecificArea
 *     (2.5.23.5) make a specific point, collectiveAttributeInnerArea
 *     (2.5.23.6) an inner one; an entry with both is specific;
 *   - OpenDJ (SubEntry.java): collectiveConflictBehavior values compare as
 *     exact strings and the last one that names a behaviour wins;
 *     inheritFromDNAttribute, inheritFromRDNAttribute and
 *     inheritFromRDNType take their first value as an attribute type;
 *     inheritFromBaseRDN is relative to the subentry's parent (its
 *     administrative point), as OpenDJ's getDN().parent().child(value).
 *
 * Cost: one walk of the directory, one parse per subentry, then the index
 * build, linear in nodes plus list entries.  Invariant: on error nothing is
 * returned and nothing leaks.
 */
#include "build.h"
#include "collective.h"
#include "directory.h"
#include "filter.h"
#include "internal.h"
#include "match.h"
#include "schema.h"
#include "subentry.h"

#include "buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

#define NO_DEPTH 0xffffu

#define ROLE_SPECIFIC 0x1u
#define ROLE_INNER    0x2u

/* What a subentry's specification compiled to. */
struct subspec {
    const acre_dn *base;
    const acre_dn **chop;
    uint8_t *after;
    unsigned nchop;
    uint16_t lo, hi; /* entry depths */
    int ok;          /* parsed: it can apply */
};

struct cb {
    struct acre_policy *q;
    struct acreC_index *idx;
    const acre_schema *s;
    const struct acreE_dir *dir;
    void *tmp; /* scratch, freed at the end */
    acre_diag *diag;
    int warned;
    int x501;
    /* well-known types and classes (-1: the schema lacks them) */
    int at_role, at_spec, at_ccb, at_inh_dn, at_inh_rdn, at_inh_rdn_type,
        at_inh_base, at_inh_attr, at_oc;
    int oc[5]; /* subentry, collectiveAttributeSubentry, and OpenDJ's
                  three inherited classes */
    /* the scan */
    uint8_t *role; /* ROLE_* by entry id */

    struct found {
        const struct acreE_entry *e;
        uint8_t kind; /* ACREC_COLL | ACREC_INH* */
    } * found;

    size_t nfound, cap_found;
    struct subspec *spec; /* [nfound] */
    /* descriptions: an open-addressing table of desc index + 1 */
    uint32_t *dtab;
    uint32_t dmask;
    uint32_t cap_descs, cap_gives;
    /* node DNs */
    const acre_dn **extra;
    size_t nextra, cap_extra;
    /* item:OC values already made, by class id (one copy per class, so
     * that entries tested against many subentries' refinements touch one
     * hot array) */
    struct acreC_refine *items;
};

enum { OC_SUBENTRY, OC_COLL, OC_INH, OC_INH_DN, OC_INH_RDN };

/* ------------------------------------------------------------------------
 * Small helpers
 */

static void warn(struct cb *c, const struct acreE_entry *e, unsigned col,
                 const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The first warning goes to diag (code set, the attach succeeding). */
static void
warn(struct cb *c, const struct acreE_entry *e, unsigned col, const char *fmt,
     ...)
{
    va_list ap;

    if (c->warned++ || !c->diag)
        return;
    memset(c->diag, 0, sizeof(*c->diag));
    c->diag->code = ACRE_ERR_RULE_SYNTAX;
    c->diag->line = e->line;
    c->diag->column = col;
    int n = snprintf(c->diag->message, sizeof(c->diag->message),
                     "%s: ", acre_dn_pretty(e->v.dn, NULL));
    if (n < 0 || (size_t)n >= sizeof(c->diag->message))
        return;
    va_start(ap, fmt);
    vsnprintf(c->diag->message + n, sizeof(c->diag->message) - (size_t)n, fmt,
              ap);
    va_end(ap);
}

/* Append to a growing array under ctx: *v holds *n of *cap elements. */
static int
grow(void *ctx, void **v, size_t size, size_t n, size_t *cap)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 64;
    void *nv = talloc_realloc_size(ctx, *v, ncap * size);
    if (!nv)
        return ACRE_ERR_NOMEM;
    *v = nv;
    *cap = ncap;
    return 0;
}

static int
add_extra(struct cb *c, const acre_dn *dn)
{
    if (grow(c->tmp, (void **)&c->extra, sizeof(*c->extra), c->nextra,
             &c->cap_extra))
        return ACRE_ERR_NOMEM;
    c->extra[c->nextra++] = dn;
    return 0;
}

/* Does a value of e's objectClass name class `which` or a subclass? */
static int
has_class(const struct cb *c, const struct acreE_entry *e, int which)
{
    const acre_view_attr *a = acreE_entry_attr(&e->v, c->at_oc);

    for (uint32_t i = 0; c->oc[which] >= 0 && a && i < a->nvals; i++) {
        int id = acreS_class_find(c->s, (const char *)a->vals[i].val,
                                  a->vals[i].len);
        if (id >= 0 && acreS_class_is(c->s, id, c->oc[which]))
            return 1;
    }
    return 0;
}

/* The first value of e's attribute `type` without options, or NULL. */
static const acre_value *
first_value(const struct acreE_entry *e, int type)
{
    const acre_view_attr *a = type >= 0 ? acreE_entry_attr(&e->v, type) : NULL;
    return a && a->nvals ? &a->vals[0] : NULL;
}

/* A DN made of local (as written) below parent: "local,parent". */
static int
below(struct cb *c, const char *local, size_t n, const acre_dn *parent,
      const acre_dn **out)
{
    size_t plen;
    const char *p = acre_dn_normalised(parent, &plen);
    char *text = plen ? talloc_asprintf(c->tmp, "%.*s,%s", (int)n, local, p)
                      : talloc_strndup(c->tmp, local, n);
    acre_dn *dn;

    if (!text)
        return ACRE_ERR_NOMEM;
    int rc = acre_dn_parse(c->q->mem, c->s, text, strlen(text), 0, &dn, NULL);
    if (rc)
        return rc == ACRE_ERR_NOMEM ? rc : 1;
    *out = dn;
    return 0;
}

/* ------------------------------------------------------------------------
 * 1. The scan
 */

/* The collective roles administrativeRole gives e. */
static uint8_t
roles(const struct cb *c, const struct acreE_entry *e)
{
    const acre_view_attr *a =
        c->at_role >= 0 ? acreE_entry_attr(&e->v, c->at_role) : NULL;
    uint8_t r = 0;

    for (uint32_t i = 0; a && i < a->nvals; i++) {
        const char *v = (const char *)a->vals[i].val;
        size_t n = a->vals[i].len;
#define IS(s) (n == strlen(s) && !strncasecmp(v, s, n))
        if (IS("autonomousArea") || IS("2.5.23.1") ||
            IS("collectiveAttributeSpecificArea") || IS("2.5.23.5"))
            r |= ROLE_SPECIFIC;
        else if (IS("collectiveAttributeInnerArea") || IS("2.5.23.6"))
            r |= ROLE_INNER;
#undef IS
    }
    return r;
}

static int
scan_one(struct cb *c, const struct acreE_entry *e)
{
    uint8_t r = roles(c, e);

    if (r) {
        c->role[e->id] = r;
        if (add_extra(c, e->v.dn))
            return ACRE_ERR_NOMEM;
    }
    if (!e->parent || !has_class(c, e, OC_SUBENTRY))
        return 0;
    uint8_t kind = (uint8_t)((has_class(c, e, OC_COLL) ? ACREC_COLL : 0) |
                             (has_class(c, e, OC_INH) ? ACREC_INH : 0));
    if (!kind)
        return 0;
    if (kind & ACREC_INH)
        kind |= (uint8_t)((has_class(c, e, OC_INH_DN) ? ACREC_INH_DN : 0) |
                          (has_class(c, e, OC_INH_RDN) ? ACREC_INH_RDN : 0));
    if (grow(c->tmp, (void **)&c->found, sizeof(*c->found), c->nfound,
             &c->cap_found))
        return ACRE_ERR_NOMEM;
    c->found[c->nfound].e = e;
    c->found[c->nfound++].kind = kind;
    return 0;
}

static int
scan_tree(struct cb *c, const struct acreE_entry *top)
{
    const struct acreE_entry *e = top;

    while (e) { /* depth first, without recursion */
        int rc = scan_one(c, e);
        if (rc)
            return rc;
        if (e->first_child) {
            e = e->first_child;
            continue;
        }
        while (e != top && !e->next_sibling)
            e = e->parent;
        e = e != top ? e->next_sibling : NULL;
    }
    return 0;
}

static int
by_load_order(const void *a, const void *b)
{
    const struct found *x = a, *y = b;
    return x->e->id < y->e->id ? -1 : x->e->id > y->e->id;
}

/* Points (by entry id) and collective subentries (in load order). */
static int
scan(struct cb *c)
{
    size_t n;
    const struct acreE_entry *const *top = acreE_dir_suffixes(c->dir, &n);

    c->role = talloc_zero_array(c->tmp, uint8_t, acreE_dir_count(c->dir) + 1);
    if (!c->role)
        return ACRE_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        int rc = scan_tree(c, top[i]);
        if (rc)
            return rc;
    }
    if (c->nfound)
        qsort(c->found, c->nfound, sizeof(*c->found), by_load_order);
    return 0;
}

/* ------------------------------------------------------------------------
 * Descriptions and gives
 */

/* A description's index in the index's descs, keyed by its schema id
 * (schema.h: acreS_desc_intern), once per policy. */
static int
desc_table_grow(struct cb *c)
{
    uint32_t cap = (c->dmask + 1) * 2;
    uint32_t *t = talloc_zero_array(c->tmp, uint32_t, cap);

    if (!t)
        return ACRE_ERR_NOMEM;
    for (uint32_t d = 0; d < c->idx->ndescs; d++) {
        uint32_t i = (uint32_t)c->idx->descs[d].id * 2654435761u;
        while (t[i & (cap - 1)])
            i++;
        t[i & (cap - 1)] = d + 1;
    }
    talloc_free(c->dtab);
    c->dtab = t;
    c->dmask = cap - 1;
    return 0;
}

/* The index of description d (a known type) in the index's descs, made
 * when new.  -1 out of memory (or no room for descriptions). */
static long
desc_intern(struct cb *c, const struct acreS_desc *d)
{
    struct acreC_index *x = c->idx;
    int id = acreS_desc_intern(c->s, d);
    uint32_t i;

    if (id < 0 ||
        (2 * ((size_t)x->ndescs + 1) > c->dmask && desc_table_grow(c)))
        return -1;
    for (i = ((uint32_t)id * 2654435761u) & c->dmask; c->dtab[i];
         i = (i + 1) & c->dmask)
        if (x->descs[c->dtab[i] - 1].id == id)
            return (long)c->dtab[i] - 1;
    size_t cap = c->cap_descs;
    if (grow(c->q->mem, (void **)&x->descs, sizeof(*x->descs), x->ndescs, &cap))
        return -1;
    c->cap_descs = (uint32_t)cap;
    struct acreC_desc *nd = &x->descs[x->ndescs];
    nd->id = id;
    nd->type = d->type;
    nd->collective = (acreS_attr(c->s, d->type)->flags & ACRES_COLLECTIVE) != 0;
    c->dtab[i] = x->ndescs + 1;
    return (long)x->ndescs++;
}

static int
give_add(struct cb *c, long desc, const acre_view_attr *src,
         const acre_value *val, uint32_t nval)
{
    struct acreC_index *x = c->idx;
    size_t cap = c->cap_gives;

    if (desc < 0 ||
        grow(c->q->mem, (void **)&x->gives, sizeof(*x->gives), x->ngives, &cap))
        return ACRE_ERR_NOMEM;
    c->cap_gives = (uint32_t)cap;
    x->gives[x->ngives++] = (struct acreC_give){(uint32_t)desc, src, val, nval};
    return 0;
}

/* What a collectiveAttributeSubentry gives: its COLLECTIVE attributes,
 * and (OpenDJ) its attributes with the option "collective", which give
 * the description without it. */
static int
gives_collective(struct cb *c, const struct acreE_entry *e)
{
    for (uint32_t i = 0; i < e->v.nattrs; i++) {
        const acre_view_attr *a = &e->v.attrs[i];
        const struct acreS_dinfo *di = acreS_dinfo(c->s, a->id);
        struct acreS_desc d = {di->type, di->text, 0, 0, {0}, {0}};
        unsigned coll = 0;

        for (uint32_t k = 0; k < di->nopts && d.nopts < ACRES_MAX_OPTIONS;
             k++) {
            if (di->opt_len[k] == 10 &&
                !memcmp(di->opts[k], "collective", 10)) {
                coll = 1;
                continue;
            }
            d.opts[d.nopts] = di->opts[k];
            d.opt_len[d.nopts++] = di->opt_len[k];
        }
        if ((coll || (acreS_attr(c->s, di->type)->flags & ACRES_COLLECTIVE)) &&
            give_add(c, desc_intern(c, &d), a, NULL, 0))
            return ACRE_ERR_NOMEM;
    }
    return 0;
}

/* What an inherited collective attribute subentry gives: the
 * descriptions its inheritAttribute values name (unknown ones give
 * nothing, as no entry holds them). */
static int
gives_inherited(struct cb *c, const struct acreE_entry *e)
{
    const acre_view_attr *a =
        c->at_inh_attr >= 0 ? acreE_entry_attr(&e->v, c->at_inh_attr) : NULL;

    for (uint32_t i = 0; a && i < a->nvals; i++) {
        struct acreS_desc d;

        if (acreS_desc_parse(c->s, a->vals[i].val, a->vals[i].len, &d) ||
            d.type < 0)
            continue;
        if (give_add(c, desc_intern(c, &d), NULL, NULL, 0))
            return ACRE_ERR_NOMEM;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * 2. Subentries
 */

struct oidv {
    const uint8_t *p;
    uint32_t n;
};

static int
oid_cmp(const void *a, const void *b)
{
    const struct oidv *x = a, *y = b;
    return acreE_norm_cmp(x->p, x->n, y->p, y->n);
}

/* item:OC -- the objectClass values (normalised) of OC and its
 * subclasses, sorted for a binary search per entry. */
static int
item_values(struct cb *c, struct acreC_refine *out)
{
    unsigned n = acreS_nclasses(c->s), k = 0;
    int eq = acreS_attr(c->s, c->at_oc)->eq;

    if (out->oc >= 0 && !c->items &&
        !(c->items = talloc_zero_array(c->tmp, struct acreC_refine, n + 1)))
        return ACRE_ERR_NOMEM;
    if (out->oc >= 0 && c->items[out->oc].oid) { /* made already */
        *out = c->items[out->oc];
        return 0;
    }
    struct oidv *v = talloc_array(c->tmp, struct oidv, n + 1);
    const uint8_t **oid = talloc_array(c->q->mem, const uint8_t *, n + 1);
    uint32_t *len = talloc_array(c->q->mem, uint32_t, n + 1);

    if (!v || !oid || !len)
        return ACRE_ERR_NOMEM;
    for (unsigned id = 0; out->oc >= 0 && id < n; id++) {
        const char *o = acreS_class(c->s, (int)id)->oid;
        uint8_t local[64];
        struct acreE_buf b;
        if (!acreS_class_is(c->s, (int)id, out->oc))
            continue;
        acreE_buf_init(&b, local, sizeof(local));
        int rc = acreM_normalise(c->s, eq, (const uint8_t *)o, strlen(o), &b);
        v[k].p = rc ? NULL : talloc_memdup(c->q->mem, b.p, b.len + 1);
        v[k].n = (uint32_t)b.len;
        acreE_buf_free(&b);
        if (rc == ACRE_ERR_NOMEM || (!rc && !v[k].p))
            return ACRE_ERR_NOMEM;
        k += !rc;
    }
    qsort(v, k, sizeof(*v), oid_cmp);
    out->oid_bits = 0;
    for (unsigned i = 0; i < k; i++) {
        oid[i] = v[i].p;
        len[i] = v[i].n;
        out->oid_bits |= acreC_name_bit(v[i].p, v[i].n);
    }
    out->oid = oid;
    out->oid_len = len;
    out->noid = k;
    if (out->oc >= 0)
        c->items[out->oc] = *out;
    return 0;
}

/* The refinement r compiled into *out under the policy; 1 when a filter
 * in it does not parse. */
static int
compile_refine(struct cb *c, const struct acreU_refine *r,
               struct acreC_refine *out)
{
    memset(out, 0, sizeof(*out));
    out->oc = -1;
    switch (r->kind) {
    case ACREU_ITEM:
        out->kind = ACREC_REF_ITEM;
        out->oc = acreS_class_find(c->s, r->text, strlen(r->text));
        return item_values(c, out);
    case ACREU_FILTER: {
        struct acreF_filter *f;
        int rc =
            acreF_parse(c->q->mem, c->s, r->text, strlen(r->text), &f, NULL);
        if (rc)
            return rc == ACRE_ERR_NOMEM ? rc : 1;
        out->kind = ACREC_REF_FILTER;
        out->filter = f;
        return 0;
    }
    case ACREU_AND:
        out->kind = ACREC_REF_AND;
        break;
    case ACREU_OR:
        out->kind = ACREC_REF_OR;
        break;
    case ACREU_NOT:
        out->kind = ACREC_REF_NOT;
        break;
    }
    struct acreC_refine *sub =
        talloc_array(c->q->mem, struct acreC_refine, r->nsub + 1);
    if (!sub)
        return ACRE_ERR_NOMEM;
    for (unsigned i = 0; i < r->nsub; i++) {
        int rc = compile_refine(c, r->sub[i], &sub[i]);
        if (rc)
            return rc;
    }
    out->sub = sub;
    out->nsub = r->nsub;
    return 0;
}

static uint16_t
depth_add(unsigned d, unsigned n)
{
    return n >= NO_DEPTH || d + n >= NO_DEPTH ? NO_DEPTH : (uint16_t)(d + n);
}

/* Base, chops and window of subentry k's specification; 0 also when it
 * does not parse (then it gives nothing, with a warning). */
static int
compile_spec(struct cb *c, size_t k)
{
    const struct acreE_entry *e = c->found[k].e;
    struct acreC_sub *sub = &c->idx->subs[k];
    struct subspec *sp = &c->spec[k];
    const acre_value *v = first_value(e, c->at_spec);
    struct acreU_spec *spec;
    const char *msg;
    unsigned col = 0;
    int rc;

    if (!v) {
        warn(c, e, 0, "no subtreeSpecification: it applies to nothing");
        return 0;
    }
    rc = acreU_spec_parse(c->tmp, (const char *)v->val, v->len, &spec, &col,
                          &msg);
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc) {
        warn(c, e, col, "subtreeSpecification: %s: it applies to nothing", msg);
        return 0;
    }
    sp->base = sub->admin;
    if (spec->base[0] &&
        (rc = below(c, spec->base, strlen(spec->base), sub->admin, &sp->base)))
        goto bad_dn;
    sp->chop = talloc_array(c->tmp, const acre_dn *, spec->nchops + 1);
    sp->after = talloc_array(c->tmp, uint8_t, spec->nchops + 1);
    if (!sp->chop || !sp->after)
        return ACRE_ERR_NOMEM;
    for (unsigned i = 0; i < spec->nchops; i++) {
        const char *l = spec->chops[i].local;
        if ((rc = below(c, l, strlen(l), sp->base, &sp->chop[i])))
            goto bad_dn;
        sp->after[i] = (uint8_t)spec->chops[i].after;
    }
    sp->nchop = spec->nchops;
    if (spec->refine) {
        struct acreC_refine *r = talloc(c->q->mem, struct acreC_refine);
        if (!r)
            return ACRE_ERR_NOMEM;
        if ((rc = compile_refine(c, spec->refine, r)) == ACRE_ERR_NOMEM)
            return rc;
        if (rc) {
            warn(c, e, 0,
                 "specificationFilter: a filter does not parse: it applies "
                 "to nothing");
            return 0;
        }
        sub->refine = r;
    }
    unsigned d = acre_dn_depth(sp->base);
    sp->lo = depth_add(d, spec->minimum);
    sp->hi =
        spec->maximum == ACREU_NO_MAX ? NO_DEPTH : depth_add(d, spec->maximum);
    sp->ok = sp->lo <= sp->hi;
    if (add_extra(c, sp->base))
        return ACRE_ERR_NOMEM;
    for (unsigned i = 0; i < sp->nchop; i++)
        if (add_extra(c, sp->chop[i]))
            return ACRE_ERR_NOMEM;
    return 0;
bad_dn:
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    warn(c, e, 0,
         "subtreeSpecification names an invalid DN: it applies to "
         "nothing");
    return 0;
}

/* An attribute type named by e's first value of `at`, or -1. */
static int
type_value(const struct cb *c, const struct acreE_entry *e, int at)
{
    const acre_value *v = first_value(e, at);
    return v ? acreS_attr_find(c->s, (const char *)v->val, v->len) : -1;
}

/* OpenDJ's conflict behaviour and inheritance of subentry k. */
static int
compile_opendj(struct cb *c, size_t k)
{
    const struct acreE_entry *e = c->found[k].e;
    struct acreC_sub *sub = &c->idx->subs[k];
    const acre_view_attr *a =
        c->at_ccb >= 0 ? acreE_entry_attr(&e->v, c->at_ccb) : NULL;
    static const char *const names[] = {"real-overrides-virtual",
                                        "virtual-overrides-real",
                                        "merge-real-and-virtual"};

    for (uint32_t i = 0; a && i < a->nvals; i++)
        for (unsigned b = 0; b < 3; b++)
            if (a->vals[i].len == strlen(names[b]) &&
                !memcmp(a->vals[i].val, names[b], a->vals[i].len))
                sub->conflict = (uint8_t)b;
    if (sub->kind & ACREC_INH_DN)
        sub->inh_dn_attr = type_value(c, e, c->at_inh_dn);
    if (sub->kind & ACREC_INH_RDN) {
        const acre_value *v = first_value(e, c->at_inh_base);
        sub->inh_rdn_attr = type_value(c, e, c->at_inh_rdn);
        sub->inh_rdn_type = type_value(c, e, c->at_inh_rdn_type);
        int rc = v ? below(c, (const char *)v->val, v->len, sub->admin,
                           &sub->inh_base)
                   : 0;
        if (rc == ACRE_ERR_NOMEM)
            return rc;
        if (rc)
            sub->inh_base = NULL;
    }
    return 0;
}

static int
compile_sub(struct cb *c, size_t k)
{
    const struct acreE_entry *e = c->found[k].e;
    struct acreC_sub *sub = &c->idx->subs[k];
    int rc;

    sub->e = e;
    sub->admin = e->parent->v.dn;
    sub->kind = c->found[k].kind;
    sub->inh_dn_attr = sub->inh_rdn_attr = sub->inh_rdn_type = -1;
    sub->dnval.val = acre_dn_pretty(e->v.dn, &sub->dnval.len);
    sub->dnnorm.val = acre_dn_normalised(e->v.dn, &sub->dnnorm.len);
    sub->give0 = c->idx->ngives;
    /* X.501: a subentry of an entry that is no collective point is none */
    if (c->x501 && !c->role[e->parent->id])
        return 0;
    if ((rc = compile_spec(c, k)) || !c->spec[k].ok)
        return rc;
    if ((sub->kind & ACREC_COLL) && (rc = gives_collective(c, e)))
        return rc;
    if ((sub->kind & ACREC_INH) && (rc = gives_inherited(c, e)))
        return rc;
    sub->ngive = c->idx->ngives - sub->give0;
    return compile_opendj(c, k);
}

/* ------------------------------------------------------------------------
 * 3. slapo-collect
 */

/* The values of src's attribute with exactly description id, as slapd's
 * backend_attribute hands them over: the normalised forms. */
static int
collect_values(struct cb *c, const acre_entry_view *src, int id,
               const acre_value **out, uint32_t *n)
{
    *out = NULL;
    *n = 0;
    for (uint32_t i = 0; src && i < src->nattrs; i++) {
        const acre_view_attr *at = &src->attrs[i];
        if (at->id != id)
            continue;
        *out = at->norms ? at->norms : at->vals;
        *n = at->nvals;
        return 0;
    }
    return 0;
}

static int
compile_collect(struct cb *c, uint32_t k)
{
    const struct acreI_policy *ir = c->q->ir;
    const struct acreI_collect *ci = &ir->collect[k];
    struct acreC_collect *x = &c->idx->collect[k];
    const struct acreE_entry *src = acreE_dir_find(c->dir, ci->dn);

    x->ir = ci;
    x->src = src ? &src->v : NULL;
    x->section = ci->db >= 0 ? &ir->dbs[ci->db] : NULL;
    x->give0 = c->idx->ngives;
    for (unsigned i = 0; i < ci->nattrs; i++) {
        const struct acreI_attrspec *a = &ci->attrs[i];
        struct acreS_desc d = {a->type, a->text, 0, a->nopts, {0}, {0}};
        const acre_value *v;
        uint32_t n;
        for (unsigned j = 0; j < a->nopts; j++) {
            d.opts[j] = a->opts[j];
            d.opt_len[j] = (unsigned)strlen(a->opts[j]);
        }
        long di = desc_intern(c, &d);
        if (di < 0 || collect_values(c, x->src, c->idx->descs[di].id, &v, &n) ||
            give_add(c, di, NULL, v, n))
            return ACRE_ERR_NOMEM;
    }
    x->ngive = c->idx->ngives - x->give0;
    return 0;
}

/* ------------------------------------------------------------------------
 * 5. Node lists
 */

struct lists {
    uint32_t nn;             /* nodes */
    uint32_t *own_start;     /* [nn + 1]: items based at each node */
    uint32_t *own;           /* item numbers (subentry k, or nsubs + ci) */
    uint32_t *chop_start;    /* [nn + 1] */
    uint32_t *chop;          /* subentry << 1 | after */
    uint8_t *role;           /* [nn] ROLE_* of the node's entry */
    int *spec_point;         /* [nn] nearest specific point at or above */
    int *admin;              /* [nsubs] node of each subentry's point */
    uint8_t *mark;           /* [nsubs] chop at the current node: 1 before,
                                2 after */
    uint32_t *start, *count; /* [nn] each node's list in slots[] */
    struct acreC_slot *slots;
    size_t nslots, cap_slots;
};

/* Group items (with node item_node[i], -1 for none) by node. */
static int
group(void *ctx, uint32_t nn, const int *item_node, uint32_t n,
      uint32_t **start, uint32_t **items)
{
    uint32_t *s = talloc_zero_array(ctx, uint32_t, nn + 2);
    uint32_t *v = talloc_array(ctx, uint32_t, n + 1);

    if (!s || !v)
        return ACRE_ERR_NOMEM;
    for (uint32_t i = 0; i < n; i++)
        if (item_node[i] >= 0)
            s[item_node[i] + 2]++;
    for (uint32_t k = 2; k < nn + 2; k++)
        s[k] += s[k - 1];
    for (uint32_t i = 0; i < n; i++) /* in item order */
        if (item_node[i] >= 0)
            v[s[item_node[i] + 1]++] = i;
    *start = s; /* node k's items: [s[k], s[k + 1]) */
    *items = v;
    return 0;
}

static int
slot_push(struct cb *c, struct lists *L, uint32_t sub, uint16_t lo, uint16_t hi)
{
    if (grow(c->tmp, (void **)&L->slots, sizeof(*L->slots), L->nslots,
             &L->cap_slots))
        return ACRE_ERR_NOMEM;
    L->slots[L->nslots++] = (struct acreC_slot){sub, lo, hi};
    return 0;
}

/* Does subentry k's area reach node ni (its base at ni)? */
static int
area_reaches(const struct cb *c, const struct lists *L, uint32_t k, uint32_t ni)
{
    const struct acre_policy *q = c->q;
    int a = L->admin[k], p = L->spec_point[ni];

    if (!c->x501)
        return 1;
    if (a < 0)
        return 0;
    if (a == p)
        return 1;
    return !(L->role[a] & ROLE_SPECIFIC) && (L->role[a] & ROLE_INNER) &&
           p >= 0 && q->nodes[a].depth > q->nodes[p].depth;
}

/* An inherited slot at node ni: kept (1, *sl possibly capped) or not. */
static int
keep(const struct cb *c, const struct lists *L, uint32_t ni,
     struct acreC_slot *sl)
{
    const struct acreP_node *n = &c->q->nodes[ni];
    uint32_t nsubs = c->idx->nsubs;

    if (sl->sub >= nsubs) /* its database is the entry's: acreC_build */
        return 1;
    if (sl->hi < n->depth)
        return 0;
    if (c->x501 && (L->role[ni] & ROLE_SPECIFIC))
        return 0; /* a nested specific area ends the outer one */
    if (L->mark[sl->sub] == 1)
        return 0;
    if (L->mark[sl->sub] == 2 && sl->hi > n->depth)
        sl->hi = (uint16_t)n->depth;
    return 1;
}

/* An item based at node ni, as a slot; 0 when it reaches nothing here. */
static int
own_slot(const struct cb *c, const struct lists *L, uint32_t ni, uint32_t item,
         struct acreC_slot *sl)
{
    const struct acreP_node *n = &c->q->nodes[ni];
    uint32_t nsubs = c->idx->nsubs;

    if (item >= nsubs) {
        /* every node below, whatever its database: slapd's overlay in
         * one database may collect from an entry of another
         * (backend_attribute finds the database holding it) */
        *sl = (struct acreC_slot){item, depth_add(n->depth, 1), NO_DEPTH};
        return 1;
    }
    *sl = (struct acreC_slot){item, c->spec[item].lo, c->spec[item].hi};
    return area_reaches(c, L, item, ni);
}

/* Node ni's list: the parent's, filtered, merged with its own items. */
static int
node_list(struct cb *c, struct lists *L, uint32_t ni)
{
    const struct acreP_node *n = &c->q->nodes[ni];
    int par = n->parent;
    size_t ps = par >= 0 ? L->start[par] : 0,
           pe = ps + (par >= 0 ? L->count[par] : 0);
    uint32_t os = L->own_start[ni], oe = L->own_start[ni + 1];
    size_t start = L->nslots;
    int changed = os < oe;

    L->spec_point[ni] = c->x501 && (L->role[ni] & ROLE_SPECIFIC) ? (int)ni
                        : par >= 0 ? L->spec_point[par]
                                   : -1;
    for (uint32_t k = L->chop_start[ni]; k < L->chop_start[ni + 1]; k++)
        if (L->mark[L->chop[k] >> 1] != 1) /* chopBefore wins */
            L->mark[L->chop[k] >> 1] = (uint8_t)(1 + (L->chop[k] & 1));
    while (ps < pe || os < oe) {
        struct acreC_slot sl;
        if (os == oe || (ps < pe && L->slots[ps].sub < L->own[os])) {
            sl = L->slots[ps++];
            uint16_t hi = sl.hi;
            if (!keep(c, L, ni, &sl)) {
                changed = 1;
                continue;
            }
            changed |= sl.hi != hi;
            if (slot_push(c, L, sl.sub, sl.lo, sl.hi))
                return ACRE_ERR_NOMEM;
        } else if (own_slot(c, L, ni, L->own[os++], &sl) &&
                   slot_push(c, L, sl.sub, sl.lo, sl.hi)) {
            return ACRE_ERR_NOMEM;
        }
    }
    for (uint32_t k = L->chop_start[ni]; k < L->chop_start[ni + 1]; k++)
        L->mark[L->chop[k] >> 1] = 0;
    if (!changed && par >= 0) { /* the parent's list as it is: share it */
        L->nslots = start;
        L->start[ni] = L->start[par];
        L->count[ni] = L->count[par];
        return 0;
    }
    L->start[ni] = (uint32_t)start;
    L->count[ni] = (uint32_t)(L->nslots - start);
    return 0;
}

/* Where each item and chop is, the roles of the nodes. */
static int
lists_prepare(struct cb *c, struct lists *L)
{
    struct acre_policy *q = c->q;
    const struct acreC_index *x = c->idx;
    uint32_t nitems = x->nsubs + x->ncollect, nchop = 0;

    L->nn = q->nnodes;
    for (uint32_t k = 0; k < x->nsubs; k++)
        nchop += c->spec[k].ok ? c->spec[k].nchop : 0;
    int *item_node = talloc_array(c->tmp, int, nitems + 1);
    int *chop_node = talloc_array(c->tmp, int, nchop + 1);
    uint32_t *chop_val = talloc_array(c->tmp, uint32_t, nchop + 1);
    L->role = talloc_zero_array(c->tmp, uint8_t, L->nn + 1);
    L->spec_point = talloc_array(c->tmp, int, L->nn + 1);
    L->admin = talloc_array(c->tmp, int, x->nsubs + 1);
    L->mark = talloc_zero_array(c->tmp, uint8_t, x->nsubs + 1);
    L->start = talloc_zero_array(c->tmp, uint32_t, L->nn + 1);
    L->count = talloc_zero_array(c->tmp, uint32_t, L->nn + 1);
    if (!item_node || !chop_node || !chop_val || !L->role || !L->spec_point ||
        !L->admin || !L->mark || !L->start || !L->count)
        return ACRE_ERR_NOMEM;
    nchop = 0;
    for (uint32_t k = 0; k < x->nsubs; k++) {
        const struct subspec *sp = &c->spec[k];
        item_node[k] = sp->ok ? acreP_node_index(q, sp->base) : -1;
        L->admin[k] = acreP_node_index(q, x->subs[k].admin);
        for (unsigned i = 0; sp->ok && i < sp->nchop; i++) {
            chop_node[nchop] = acreP_node_index(q, sp->chop[i]);
            chop_val[nchop++] = k << 1 | sp->after[i];
        }
    }
    for (uint32_t k = 0; k < x->ncollect; k++)
        item_node[x->nsubs + k] = acreP_node_index(q, x->collect[k].ir->dn);
    for (uint32_t i = 0; i < L->nn; i++) {
        const struct acreE_entry *e = acreE_dir_find(c->dir, q->nodes[i].dn);
        L->role[i] = e ? c->role[e->id] : 0;
    }
    uint32_t *chop_items;
    if (group(c->tmp, L->nn, item_node, nitems, &L->own_start, &L->own) ||
        group(c->tmp, L->nn, chop_node, nchop, &L->chop_start, &chop_items))
        return ACRE_ERR_NOMEM;
    L->chop = chop_items;
    for (uint32_t i = 0; i < nchop; i++) /* item numbers to their values */
        L->chop[i] = chop_val[L->chop[i]];
    return 0;
}

static int
node_lists(struct cb *c)
{
    struct acre_policy *q = c->q;
    struct lists L;
    uint32_t *order;
    int rc;

    memset(&L, 0, sizeof(L));
    if ((rc = lists_prepare(c, &L)))
        return rc;
    if (!(order = talloc_array(c->tmp, uint32_t, L.nn + 1)))
        return ACRE_ERR_NOMEM;
    for (uint32_t i = 0; i < L.nn; i++)
        order[i] = i;
    qsort_r(order, L.nn, sizeof(*order), acreP_node_cmp_depth, q->nodes);
    for (uint32_t k = 0; k < L.nn; k++)
        if ((rc = node_list(c, &L, order[k])))
            return rc;
    struct acreC_slot *all =
        talloc_array(q->mem, struct acreC_slot, L.nslots + 1);
    if (!all)
        return ACRE_ERR_NOMEM;
    if (L.nslots)
        memcpy(all, L.slots, L.nslots * sizeof(*all));
    for (size_t i = 0; i < L.nslots; i++) /* the evaluator's shortcut */
        if (all[i].sub < c->idx->nsubs && c->idx->subs[all[i].sub].refine)
            all[i].sub |= ACREC_SLOT_REFINED;
    for (uint32_t i = 0; i < L.nn; i++) {
        q->nodes[i].coll = all + L.start[i];
        q->nodes[i].ncoll = L.count[i];
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * The attach
 */

static int
attached_destructor(struct acre_policy *p)
{
    acreP_specs_drop(p);
    acreV_memberof_drop(p);
    pthread_mutex_destroy(&p->lock);
    acre_policy_release(p->base);
    return 0;
}

/* A new policy sharing base's rules, with no index yet. */
static struct acre_policy *
share(void *mem_ctx, struct acre_policy *base)
{
    struct acre_policy *q = talloc_zero(mem_ctx, struct acre_policy);

    if (!q)
        return NULL;
    q->mem = q;
    pthread_mutex_init(&q->lock, NULL);
    q->base = acre_policy_ref(base);
    talloc_set_destructor(q, attached_destructor);
    q->schema = base->schema;
    q->ir = base->ir;
    q->rules = base->rules;
    q->nrules = base->nrules;
    q->clauses = base->clauses;
    q->nclauses = base->nclauses;
    q->nfilters = base->nfilters;
    q->ntests = base->ntests;
    q->attr_words = base->attr_words;
    q->attr_class = base->attr_class;
    q->attr_nclass = base->attr_nclass;
    q->id_entry = base->id_entry;
    q->id_children = base->id_children;
    q->id_objectclass = base->id_objectclass;
    q->id_entrydn = base->id_entrydn;
    q->id_userpassword = base->id_userpassword;
    q->subentry_oc = base->subentry_oc;
    q->subentry_oc_len = base->subentry_oc_len;
    q->nsubentry_oc = base->nsubentry_oc;
    q->subentry_oc_bits = base->subentry_oc_bits;
    q->aci = base->aci;
    return q;
}

static int
find_attr(const struct cb *c, const char *name)
{
    return acreS_attr_find(c->s, name, strlen(name));
}

static void
setup_ids(struct cb *c)
{
    static const char *const classes[] = {
        "subentry", "collectiveAttributeSubentry",
        "inheritedCollectiveAttributeSubentry",
        "inheritedFromDNCollectiveAttributeSubentry",
        "inheritedFromRDNCollectiveAttributeSubentry"};

    c->at_oc = find_attr(c, "objectClass");
    c->at_role = find_attr(c, "administrativeRole");
    c->at_spec = find_attr(c, "subtreeSpecification");
    c->at_ccb = find_attr(c, "collectiveConflictBehavior");
    c->at_inh_dn = find_attr(c, "inheritFromDNAttribute");
    c->at_inh_rdn = find_attr(c, "inheritFromRDNAttribute");
    c->at_inh_rdn_type = find_attr(c, "inheritFromRDNType");
    c->at_inh_base = find_attr(c, "inheritFromBaseRDN");
    c->at_inh_attr = find_attr(c, "inheritAttribute");
    for (int i = 0; i < 5; i++)
        c->oc[i] = acreS_class_find(c->s, classes[i], strlen(classes[i]));
    c->idx->id_objectclass = c->at_oc;
    c->idx->id_exclusions = find_attr(c, "collectiveExclusions");
}

/* collectiveAttributeSubentries, as an attribute of the results. */
static void
setup_cas(struct cb *c)
{
    c->idx->id_cas = find_attr(c, "collectiveAttributeSubentries");
}

static int
attach(struct cb *c)
{
    struct acreC_index *x = c->idx;
    int rc;

    setup_ids(c);
    setup_cas(c);
    /* a bare schema: nothing to read with (a schema without the RFC 3672
     * and 3671 types, as 389's, finds no subentry and lists none) */
    if (c->at_oc < 0)
        return ACRE_ERR_INVAL;
    if ((rc = scan(c)))
        return rc;
    x->nsubs = (uint32_t)c->nfound;
    x->subs = talloc_zero_array(c->q->mem, struct acreC_sub, x->nsubs + 1);
    c->spec = talloc_zero_array(c->tmp, struct subspec, x->nsubs + 1);
    x->ncollect = c->q->ir->ncollect;
    x->collect =
        talloc_zero_array(c->q->mem, struct acreC_collect, x->ncollect + 1);
    c->dmask = 63;
    c->dtab = talloc_zero_array(c->tmp, uint32_t, c->dmask + 1);
    if (!x->subs || !c->spec || !x->collect || !c->dtab)
        return ACRE_ERR_NOMEM;
    for (uint32_t k = 0; k < x->nsubs; k++)
        if ((rc = compile_sub(c, k)))
            return rc;
    for (uint32_t k = 0; k < x->ncollect; k++)
        if ((rc = compile_collect(c, k)) ||
            (rc = add_extra(c, c->q->ir->collect[k].dn)))
            return rc;
    if ((rc = acreP_build_index(c->q, c->extra, c->nextra)))
        return rc;
    return node_lists(c);
}

ACRE_PUBLIC int
acre_policy_attach_subentries(void *mem_ctx, acre_policy *rules,
                              const acre_directory *dir, unsigned flags,
                              acre_policy **out, acre_diag *diag)
{
    struct cb c;
    int rc;

    if (diag)
        memset(diag, 0, sizeof(*diag));
    if ((rc = acreE_handle(rules, ACREP_POLICY_MAGIC)) ||
        (rc = acreE_handle(dir, ACREE_DIR_MAGIC)))
        return acreE_diag_set(diag, rc, 0, "%s",
                              rc == ACRE_ERR_INVAL ? "invalid argument"
                              : acreE_is(rules, ACREP_POLICY_MAGIC)
                                  ? "not a directory"
                                  : "not a policy");
    if (!out || (flags & ~(ACRE_COLL_STACK | ACRE_COLL_NO_FILTER)) ||
        acreE_dir_schema((const struct acreE_dir *)dir) != rules->schema)
        return acreE_diag_set(diag, ACRE_ERR_INVAL, 0,
                              "invalid argument (a directory of another "
                              "schema, or unknown flags)");
    struct acre_policy *base = rules->base ? rules->base : rules;
    memset(&c, 0, sizeof(c));
    c.s = base->schema;
    c.dir = (const struct acreE_dir *)dir;
    c.diag = diag;
    c.x501 = !(flags & ACRE_COLL_STACK);
    c.tmp = talloc_new(NULL);
    c.q = share(mem_ctx, base);
    if (c.q)
        c.idx = talloc_zero(c.q, struct acreC_index);
    if (!c.tmp || !c.q || !c.idx) {
        rc = ACRE_ERR_NOMEM;
        goto done;
    }
    c.idx->flags = flags;
    c.idx->dir = c.dir;
    if ((rc = attach(&c)))
        goto done;
    c.q->coll = c.idx;
    c.q->magic = ACREP_POLICY_MAGIC;
    c.q->refs = 1;
    c.q->generation = acreP_generation_next();
    if ((rc = acreC_precompute(c.q, dir)))
        goto done;
    c.q->bytes = talloc_total_size(c.q);
    *out = c.q;
    c.q = NULL;
done:
    if (rc)
        acreE_diag_set(diag, rc, 0, "%s",
                       rc == ACRE_ERR_NOMEM ? "out of memory"
                                            : "the schema lacks objectClass");
    talloc_free(c.q);
    talloc_free(c.tmp);
    return rc;
}

/* ------------------------------------------------------------------------
 * Shared with policy.c
 */

void
acreP_subentry_class(struct acre_policy *p)
{
    const acre_schema *s = p->schema;
    int at = acreS_attr_find(s, "objectClass", 11);
    int sub = acreS_class_find(s, "subentry", 8);
    unsigned n = acreS_nclasses(s), k = 0;
    const char **v;
    uint32_t *len;

    p->nsubentry_oc = 0;
    p->subentry_oc_bits = 0;
    if (at < 0 || sub < 0 || !(v = talloc_array(p->mem, const char *, n)) ||
        !(len = talloc_array(p->mem, uint32_t, n)))
        return;
    for (unsigned id = 0; id < n; id++) {
        const char *oid = acreS_class(s, (int)id)->oid;
        uint8_t local[64];
        struct acreE_buf b;
        if (!acreS_class_is(s, (int)id, sub))
            continue;
        acreE_buf_init(&b, local, sizeof(local));
        if (acreM_normalise(s, acreS_attr(s, at)->eq, (const uint8_t *)oid,
                            strlen(oid), &b) == 0 &&
            (v[k] = talloc_strndup(v, (const char *)b.p, b.len))) {
            p->subentry_oc_bits |= acreC_name_bit(b.p, b.len);
            len[k++] = (uint32_t)b.len;
        }
        acreE_buf_free(&b);
    }
    p->subentry_oc = v;
    p->subentry_oc_len = len;
    p->nsubentry_oc = k;
}
