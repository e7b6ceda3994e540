/*
 * collective.c -- an entry's collective attributes from the compiled index
 * (collective.h): the node found by the entry's ancestry hashes lists the
 * candidates; each is kept when the entry's depth is in its window and its
 * refinement holds; their values are combined as RFC 3671 and OpenDJ say;
 * slapo-collect's follow.  And the public calls that expose them.
 *
 * Combining, description D by description, subentries in directory order
 * (the reading the reference evaluator states, tests/oracle/
 * collective_oracle.h):
 *   - collectiveExclusions: excludeAllCollectiveAttributes (2.5.18.0)
 *     drops every subentry's values, a type name or OID that type's;
 *   - R, the entry's own values of exactly D: when R is empty or an
 *     earlier subentry replaced it, the values are added; else the
 *     subentry's collectiveConflictBehavior: real-overrides-virtual adds
 *     nothing, merge-real-and-virtual adds the values not in R,
 *     virtual-overrides-real replaces R (it is hidden) and adds them;
 *   - a value equal (by D's equality rule, bytes without one) to one
 *     already added is dropped;
 *   - OpenDJ inheritance: every value of an inherited subentry comes from
 *     the entry the entry names (its inheritFromDNAttribute value, or
 *     inheritFromRDNType=<its inheritFromRDNAttribute value>,
 *     inheritFromBaseRDN, parent), under exactly D;
 *   - slapo-collect (collect.c): for each source in slapd's order, its
 *     values under each listed description that the requester may read
 *     on the source (read on the attribute, then on each value, once per
 *     request), as slapd copies them (normalised), appended with no
 *     deduplication, never excluded, to every entry strictly below it in
 *     its database -- subentries too.
 *
 * Memory and reuse: a node whose candidates depend on nothing of an entry
 * but its depth and a few refinements has its results made once, at
 * attach (acreC_precompute, collective_static.c): such an entry is
 * answered by its node, depth and refinement outcomes.  Otherwise the
 * result is built in the request (struct acreC_result), in buffers that
 * grow to the largest seen; values are not copied when one giver alone
 * makes a description (they point into the attach directory), except
 * inherited ones, which come from the host and are copied into the
 * result (OpenDJ's inheritance: rare).
 * The request keeps its last RESULTS results and reuses one for an
 * entry of the same node and depth when building it consulted nothing of
 * its entry but the refinements, and this entry's refinements go the
 * same way.
 */
#include "collective.h"
#include "collective_int.h"

#include "eval.h"
#include "filter.h"
#include "internal.h"
#include "match.h"
#include "schema.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

/* ------------------------------------------------------------------------
 * Buffers
 */

int
acreC_room(void *ctx, void **v, size_t size, size_t n, size_t *cap)
{
    if (n <= *cap)
        return 0;
    size_t c = *cap ? *cap : 16;
    while (c < n)
        c *= 2;
    void *nv = talloc_realloc_size(ctx, *v, c * size);
    if (!nv)
        return ACRE_ERR_NOMEM;
    *v = nv;
    *cap = c;
    return 0;
}

static int
room32(void *ctx, void **v, size_t size, size_t n, uint32_t *cap)
{
    size_t c = *cap;
    int rc = acreC_room(ctx, v, size, n, &c);
    *cap = (uint32_t)c;
    return rc;
}

static int
push_u32(void *ctx, uint32_t **v, uint32_t *n, uint32_t *cap, uint32_t x)
{
    if (room32(ctx, (void **)v, sizeof(**v), (size_t)*n + 1, cap))
        return ACRE_ERR_NOMEM;
    (*v)[(*n)++] = x;
    return 0;
}

struct acreC_cache *
acreC_cache_of(struct acre_request *rq, const struct acreC_index *x)
{
    struct acreC_cache *c = rq->coll;

    if (c)
        return c;
    c = talloc_zero(rq->mem, struct acreC_cache);
    if (!c)
        return NULL;
    c->x = x;
    c->hooks = acreV_filter_hooks(rq, NULL, NULL);
    c->dslot = talloc_zero_array(c, uint32_t, 2 * (size_t)x->ndescs + 1);
    c->dmark = talloc_zero_array(c, uint32_t, 2 * (size_t)x->ndescs + 1);
    c->ci_state = talloc_zero_array(c, uint8_t, x->ngives + 1);
    c->ci_val = talloc_zero_array(c, const acre_value *, x->ngives + 1);
    c->ci_n = talloc_zero_array(c, uint32_t, x->ngives + 1);
    int ok = c->dslot && c->dmark && c->ci_state && c->ci_val && c->ci_n;
    for (unsigned k = 0; ok && k < RESULTS; k++) {
        if (!(c->res[k] = talloc_zero(c, struct acreC_result)))
            ok = 0;
        else
            c->res[k]->x = x, c->res[k]->sh = c;
    }
    if (!ok) {
        talloc_free(c);
        return NULL;
    }
    return rq->coll = c;
}

/* ------------------------------------------------------------------------
 * The entry's own tests
 */

/* e's objectClass: its first attribute, nearly always. */
static const acre_view_attr *
objectclass(const acre_entry_view *e, int id)
{
    if (e->nattrs && e->attrs[0].id == id)
        return &e->attrs[0];
    return acreE_entry_attr(e, id);
}

/* An entry's objectClass (a: NULL when it has none) and the
 * acreC_name_bit of each of its normalised values, or'ed. */
struct ocls {
    const acre_view_attr *a;
    uint64_t bits;
};

/* A buffer for an objectClass value normalised now (a view without its
 * normalised values): an OID fits. */
struct ocbuf {
    struct acreE_buf b;
    uint8_t local[128];
};

/* The normalised form of value i of objectClass oc (an OID, or the
 * lowercased name of a class the schema does not know): the view's, or
 * made in ob (set up with ocbuf_init, given back with ocbuf_free). */
static inline const uint8_t *
oc_norm(const acre_schema *s, const acre_view_attr *oc, uint32_t i,
        struct ocbuf *ob, size_t *len)
{
    if (oc->norms) {
        *len = oc->norms[i].len;
        return oc->norms[i].val;
    }
    return acreE_value_norm(s, oc, i, &ob->b, len);
}

static inline void
ocbuf_init(struct ocbuf *ob)
{
    acreE_buf_init(&ob->b, ob->local, sizeof ob->local);
}

static inline void
ocbuf_free(struct ocbuf *ob)
{
    if (ob->b.heap)
        acreE_buf_free(&ob->b);
}

/* ocls_bits -- o->bits for o->a. */
static void
ocls_bits(const acre_schema *s, struct ocls *o)
{
    struct ocbuf ob;

    o->bits = 0;
    if (!o->a)
        return;
    ocbuf_init(&ob);
    for (uint32_t i = 0; i < o->a->nvals; i++) {
        size_t n;
        const uint8_t *v = oc_norm(s, o->a, i, &ob, &n);
        if (v)
            o->bits |= acreC_name_bit(v, n);
    }
    ocbuf_free(&ob);
}

/* ocls_of -- e's objectClass (type id) and its bits, into o. */
static const struct ocls *
ocls_of(const acre_schema *s, const acre_entry_view *e, int id, struct ocls *o)
{
    o->a = objectclass(e, id);
    ocls_bits(s, o);
    return o;
}

/* Is a value of o (an entry's objectClass) a subentry class?  Their
 * OIDs are few and short: compared as they are, when the bits allow. */
static int
is_subentry_oc(const struct acre_policy *p, const struct ocls *o)
{
    const acre_view_attr *oc = o->a;
    struct ocbuf ob;
    int found = 0;

    if (!(o->bits & p->subentry_oc_bits))
        return 0;
    ocbuf_init(&ob);
    for (uint32_t i = 0; oc && i < oc->nvals && !found; i++) {
        size_t n;
        const uint8_t *v = oc_norm(p->schema, oc, i, &ob, &n);
        for (unsigned k = 0; v && k < p->nsubentry_oc && !found; k++)
            found =
                n == p->subentry_oc_len[k] && !memcmp(v, p->subentry_oc[k], n);
    }
    ocbuf_free(&ob);
    return found;
}

int
acreC_is_subentry(const struct acre_policy *p, const acre_entry_view *e)
{
    struct ocls o;

    if (!p->nsubentry_oc || p->id_objectclass < 0)
        return 0;
    return is_subentry_oc(p, ocls_of(p->schema, e, p->id_objectclass, &o));
}

/* Is v[0..n) among r's normalised class names (sorted by length, then
 * bytes)?  A binary search. */
static int
names_class(const struct acreC_refine *r, const uint8_t *v, size_t n)
{
    uint32_t lo = 0, hi = r->noid;

    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = acreE_norm_cmp(r->oid[mid], r->oid_len[mid], v, n);
        if (c == 0)
            return 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* item:OC -- a value of e's objectClass (o) names OC or a subclass of
 * it. */
static int
has_class(const acre_schema *s, const struct ocls *o,
          const struct acreC_refine *r)
{
    const acre_view_attr *oc = o->a;
    struct ocbuf ob;
    int found = 0;

    if (!(o->bits & r->oid_bits))
        return 0;
    ocbuf_init(&ob);
    for (uint32_t i = 0; oc && i < oc->nvals && !found; i++) {
        size_t n;
        const uint8_t *v = oc_norm(s, oc, i, &ob, &n);
        found = v && names_class(r, v, n);
    }
    ocbuf_free(&ob);
    return found;
}

static int
refine(const acre_schema *s, const struct ocls *oc,
       const struct acreC_refine *r, const acre_entry_view *e,
       const struct acreF_hooks *h)
{
    switch (r->kind) {
    case ACREC_REF_ITEM:
        return has_class(s, oc, r);
    case ACREC_REF_AND:
        for (uint32_t i = 0; i < r->nsub; i++)
            if (!refine(s, oc, &r->sub[i], e, h))
                return 0;
        return 1;
    case ACREC_REF_OR:
        for (uint32_t i = 0; i < r->nsub; i++)
            if (refine(s, oc, &r->sub[i], e, h))
                return 1;
        return 0;
    case ACREC_REF_NOT:
        return !refine(s, oc, &r->sub[0], e, h);
    case ACREC_REF_FILTER:
        return acreF_eval(r->filter, e, h) == ACREF_TRUE;
    }
    return 0;
}

static int
name_is(const acre_value *v, const char *s)
{
    size_t n = strlen(s);
    return v->len == n && !strncasecmp((const char *)v->val, s, n);
}

/* e's collectiveExclusions into r (types by name or OID). */
static int
exclusions(struct acreC_result *r, const acre_schema *s,
           const struct acreC_index *x, const acre_entry_view *e)
{
    const acre_view_attr *a =
        x->id_exclusions >= 0 ? acreE_entry_attr(e, x->id_exclusions) : NULL;

    r->sh->nexcl = 0;
    r->sh->excl_all = 0;
    for (uint32_t i = 0; a && i < a->nvals; i++) {
        const acre_value *v = &a->vals[i];
        if (name_is(v, "excludeAllCollectiveAttributes") ||
            name_is(v, "2.5.18.0")) {
            r->sh->excl_all = 1;
            continue;
        }
        int t = acreS_attr_find(s, (const char *)v->val, v->len);
        if (t < 0)
            continue;
        if (room32(r, (void **)&r->sh->excl, sizeof(*r->sh->excl),
                   r->sh->nexcl + 1, &r->sh->cap_excl))
            return ACRE_ERR_NOMEM;
        r->sh->excl[r->sh->nexcl++] = t;
    }
    if (r->sh->nexcl || r->sh->excl_all)
        r->reusable = 0;
    return 0;
}

static int
excluded(const struct acreC_result *r, int type)
{
    if (r->sh->excl_all)
        return 1;
    for (uint32_t i = 0; i < r->sh->nexcl; i++)
        if (r->sh->excl[i] == type)
            return 1;
    return 0;
}

/* e's attribute with exactly description id, or NULL. */
static const acre_view_attr *
own_attr(const acre_entry_view *e, int id)
{
    for (uint32_t i = 0; i < e->nattrs; i++)
        if (e->attrs[i].id == id)
            return &e->attrs[i];
    return NULL;
}

/* ------------------------------------------------------------------------
 * Values
 *
 * An output attribute's values are a pair of arrays: the values as
 * returned and their normalised forms (compared to drop duplicates).
 * While a result is built, an attribute that one giver alone makes
 * points at that giver's arrays; one that several make, or that a merge
 * filters, has its pairs in the result's buffers (vals, norms: parallel)
 * and an offset into them until finish() turns it into pointers.
 */

/* Are values a (normalised an) and b (bn) the same?  By their normalised
 * forms, the bytes when a type has no equality rule (an, bn NULL). */
static int
same_value(const acre_value *a, const acre_value *an, const acre_value *b,
           const acre_value *bn)
{
    if (an && bn)
        return an->len == bn->len && !memcmp(an->val, bn->val, an->len);
    return a->len == b->len && !memcmp(a->val, b->val, a->len);
}

/* Attribute k's values and normalised forms, wherever they are. */
static const acre_value *
out_vals(const struct acreC_result *r, uint32_t k)
{
    const struct acreC_out *o = &r->out[k];
    return r->in_buf[k] ? r->vals + (uintptr_t)o->a.vals : o->a.vals;
}

static const acre_value *
out_norms(const struct acreC_result *r, uint32_t k)
{
    const struct acreC_out *o = &r->out[k];
    if (!o->a.norms)
        return NULL;
    return r->in_buf[k] ? r->norms + (uintptr_t)o->a.vals : o->a.norms;
}

/* Room for n pairs in the value buffers. */
static int
val_room(struct acreC_result *r, size_t n)
{
    if (acreC_room(r, (void **)&r->vals, sizeof(*r->vals), n, &r->cap_vals) ||
        acreC_room(r, (void **)&r->norms, sizeof(*r->norms), n, &r->cap_norms))
        return ACRE_ERR_NOMEM;
    return 0;
}

/* Move attribute k's values into the value buffers (to add to them). */
static int
to_buffer(struct acreC_result *r, uint32_t k, uint32_t more)
{
    struct acreC_out *o = &r->out[k];

    if (r->in_buf[k]) { /* only the last attribute ever grows in place */
        size_t off = (size_t)(uintptr_t)o->a.vals;
        if (off + o->a.nvals == r->nvals)
            return val_room(r, r->nvals + more);
    }
    size_t off = r->nvals;
    if (val_room(r, r->nvals + o->a.nvals + more))
        return ACRE_ERR_NOMEM;
    const acre_value *sv = out_vals(r, k), *sn = out_norms(r, k);
    if (o->a.nvals) { /* src may be in the (moved) buffers: memmove */
        memmove(r->vals + off, sv, o->a.nvals * sizeof(*r->vals));
        if (sn)
            memmove(r->norms + off, sn, o->a.nvals * sizeof(*r->norms));
    }
    r->nvals = off + o->a.nvals;
    o->a.vals = (const acre_value *)(uintptr_t)off;
    r->in_buf[k] = 1;
    return 0;
}

/* Room for one more output attribute (and its two flag bytes). */
static int
out_room(struct acreC_result *r)
{
    uint32_t cap = r->cap_out;

    if (room32(r, (void **)&r->out, sizeof(*r->out), (size_t)r->nout + 1,
               &r->cap_out))
        return ACRE_ERR_NOMEM;
    if (cap == r->cap_out && r->in_buf)
        return 0;
    uint8_t *b = talloc_realloc(r, r->in_buf, uint8_t, r->cap_out);
    uint8_t *p = b ? talloc_realloc(r, r->replaced, uint8_t, r->cap_out) : NULL;
    if (b)
        r->in_buf = b;
    if (!p) { /* a flag array kept its old size: grow them all next time */
        r->cap_out = cap;
        return ACRE_ERR_NOMEM;
    }
    r->replaced = p;
    return 0;
}

/* An output attribute of description id (type `type`), with no value:
 * norms is non-NULL (a marker until values come) when the type has an
 * equality rule. */
static void
out_init(struct acreC_out *o, const acre_schema *s, int id, int type,
         uint32_t flags)
{
    static const acre_value marker;

    o->a.id = id;
    o->a.nvals = 0;
    o->a.vals = NULL;
    o->a.norms = acreS_attr(s, type)->eq != ACREM_NONE ? &marker : NULL;
    o->type = type;
    o->flags = flags;
}

/* The output attribute for description d (collect: its own group). */
static long
out_for(struct acreC_result *r, const acre_schema *s,
        const struct acreC_index *x, uint32_t d, int collect)
{
    uint32_t key = d + (collect ? x->ndescs : 0);

    if (r->sh->dmark[key] == r->sh->mark)
        return (long)r->sh->dslot[key] - 1;
    if (out_room(r))
        return -1;
    out_init(&r->out[r->nout], s, x->descs[d].id, x->descs[d].type,
             collect ? ACREC_OUT_COLLECT : 0);
    r->in_buf[r->nout] = 0;
    r->replaced[r->nout] = 0;
    r->sh->dmark[key] = r->sh->mark;
    r->sh->dslot[key] = r->nout + 1;
    return (long)r->nout++;
}

/*
 * Add the values w[0..n) (normalised wn, NULL when the type has no
 * equality rule) to attribute k: all of them (dedup 0, slapo-collect), or
 * those equal to none already there nor in `not` (may be NULL).
 */
static int
add_values(struct acreC_result *r, uint32_t k, const acre_value *w,
           const acre_value *wn, uint32_t n, int dedup,
           const acre_view_attr * not )
{
    struct acreC_out *o = &r->out[k];

    if (!n)
        return 0;
    /* first giver: point at its values -- unless two of them are equal
     * (an entry may hold a value twice, as slapadd keeps it) */
    int twice = 0;
    for (uint32_t i = 1; dedup && !twice && i < n; i++)
        for (uint32_t j = 0; !twice && j < i; j++)
            twice = same_value(&w[j], wn ? &wn[j] : NULL, &w[i],
                               wn ? &wn[i] : NULL);
    if (!o->a.nvals && !not &&!twice) {
        o->a.vals = w;
        o->a.norms = o->a.norms ? wn : NULL;
        o->a.nvals = n;
        r->in_buf[k] = 0;
        return 0;
    }
    if (to_buffer(r, k, n))
        return ACRE_ERR_NOMEM;
    acre_value *v = r->vals + (uintptr_t)o->a.vals;
    acre_value *vn = o->a.norms ? r->norms + (uintptr_t)o->a.vals : NULL;
    for (uint32_t i = 0; i < n; i++) {
        const acre_value *in = wn ? &wn[i] : NULL;
        int dup = 0;
        for (uint32_t j = 0; dedup && !dup && j < o->a.nvals; j++)
            dup = same_value(&v[j], vn ? &vn[j] : NULL, &w[i], in);
        for (uint32_t j = 0; !dup && not &&j < not ->nvals; j++)
            dup = same_value(&not ->vals[j],
                             not ->norms ? &not ->norms[j] : NULL, &w[i], in);
        if (dup)
            continue;
        if (vn)
            vn[o->a.nvals] = in ? *in : w[i];
        v[o->a.nvals++] = w[i];
    }
    r->nvals = (size_t)(uintptr_t)o->a.vals + o->a.nvals;
    return 0;
}

/* ------------------------------------------------------------------------
 * Inheritance (OpenDJ)
 */

/* RFC 4514 escaping of v into r->sh->text at *at. */
static int
put_escaped(struct acreC_result *r, size_t *at, const uint8_t *v, size_t n)
{
    static const char hex[] = "0123456789abcdef";

    if (acreC_room(r, (void **)&r->sh->text, 1, *at + 3 * n + 1,
                   &r->sh->cap_text))
        return ACRE_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        uint8_t ch = v[i];
        if (ch < 0x20 || ch == 0x7f) {
            r->sh->text[(*at)++] = '\\';
            r->sh->text[(*at)++] = hex[ch >> 4];
            r->sh->text[(*at)++] = hex[ch & 15];
            continue;
        }
        if (strchr(",+\"\\<>;=", ch) || (i == 0 && (ch == '#' || ch == ' ')) ||
            (i == n - 1 && ch == ' '))
            r->sh->text[(*at)++] = '\\';
        r->sh->text[(*at)++] = (char)ch;
    }
    return 0;
}

/* Parse text[0..n) as a DN into the result's buffer; NULL when it is
 * not one (or out of memory). */
static const acre_dn *
parse_dn(struct acreC_result *r, const acre_schema *s, const char *text,
         size_t n)
{
    acre_dn *dn;

    if (!r->sh->dnbuf && !(r->sh->dnbuf = talloc_size(r, ACRE_DN_BUF_MAX)))
        return NULL;
    if (acre_dn_parse_buf(r->sh->dnbuf, ACRE_DN_BUF_MAX, s, text, n, 0, &dn,
                          NULL))
        return NULL;
    return dn;
}

/* The DN an inherited subentry S names for e (parsed into the result's
 * buffer), or NULL: e names none, or not a DN within S's reach. */
static const acre_dn *
inherit_dn(struct acreC_result *r, const acre_schema *s,
           const struct acreC_sub *S, const acre_entry_view *e)
{
    const acre_view_attr *a;
    const acre_dn *dn;

    if ((S->kind & ACREC_INH_DN) && S->inh_dn_attr >= 0 &&
        (a = acreE_entry_attr(e, S->inh_dn_attr))) {
        const acre_value *v = &a->vals[0];
        dn = parse_dn(r, s, (const char *)v->val, v->len);
        if (!dn || acre_dn_in_scope(dn, S->admin, ACRE_SCOPE_SUB) != 1)
            return NULL;
        return dn;
    }
    if ((S->kind & ACREC_INH_RDN) && S->inh_rdn_attr >= 0 &&
        (a = acreE_entry_attr(e, S->inh_rdn_attr))) {
        if (!S->inh_base || S->inh_rdn_type < 0)
            return NULL;
        const struct acreS_attr *t = acreS_attr(s, S->inh_rdn_type);
        size_t at = 0, bl, tl = strlen(t->dn.name);
        const char *base = acre_dn_normalised(S->inh_base, &bl);
        if (acreC_room(r, (void **)&r->sh->text, 1, tl + 2, &r->sh->cap_text))
            return NULL;
        memcpy(r->sh->text, t->dn.name, tl);
        at = tl;
        r->sh->text[at++] = '=';
        if (put_escaped(r, &at, a->vals[0].val, a->vals[0].len) ||
            acreC_room(r, (void **)&r->sh->text, 1, at + bl + 2,
                       &r->sh->cap_text))
            return NULL;
        if (bl) {
            r->sh->text[at++] = ',';
            memcpy(r->sh->text + at, base, bl);
            at += bl;
        }
        return parse_dn(r, s, r->sh->text, at);
    }
    return NULL;
}

/*
 * The values of `from`'s attribute w the requester may read there (read
 * on the attribute, then on each value, as slapo-collect reads its
 * sources), copied with their normalised forms into the result (the
 * host may take its view back); *n how many, *wn their normalised forms
 * (NULL without an equality rule).  NULL with *n 0 when none; a failed
 * check or copy sets rq->err.
 */
static const acre_value *
readable_copy(struct acre_request *rq, struct acreC_result *r,
              const acre_entry_view *from, const acre_view_attr *w,
              const acre_value **wn, uint32_t *n)
{
    struct acreV_check c;
    acre_value *v, *vn;
    int eq = acreS_attr(rq->schema, acreE_attr_type(rq->schema, w))->eq;

    *n = 0;
    *wn = NULL;
    acreV_check_init(&c, rq, from, -1, acreS_dinfo(rq->schema, w->id), NULL, 0);
    if (!acreV_decide(&c, ACREI_ACCESS_READ, NULL))
        return NULL;
    v = talloc_array(r->copies, acre_value, w->nvals);
    vn =
        eq != ACREM_NONE ? talloc_array(r->copies, acre_value, w->nvals) : NULL;
    if (!v || (eq != ACREM_NONE && !vn)) {
        acreV_fail(rq, ACRE_ERR_NOMEM);
        return NULL;
    }
    for (uint32_t j = 0; j < w->nvals; j++) {
        size_t len = 0;
        acreV_check_stored(&c, w, j);
        if (!acreV_decide(&c, ACREI_ACCESS_READ, NULL))
            continue;
        const uint8_t *nv = vn ? acreV_check_val(&c, &len) : NULL;
        v[*n].val = talloc_memdup(r->copies, w->vals[j].val, w->vals[j].len);
        v[*n].len = w->vals[j].len;
        if (vn) {
            vn[*n].val = nv ? talloc_memdup(r->copies, nv, len) : NULL;
            vn[*n].len = len;
        }
        if (!v[*n].val || (vn && !vn[*n].val)) {
            acreV_fail(rq, ACRE_ERR_NOMEM);
            return NULL;
        }
        ++*n;
    }
    *wn = vn;
    return v;
}

/* ------------------------------------------------------------------------
 * Subentries
 */

/* One contribution of subentry S: description d, values w[0..n) with
 * their normalised forms wn (NULL: the type has no equality rule). */
static int
contribute(struct acreC_result *r, const acre_schema *s,
           const struct acreC_index *x, const struct acreC_sub *S, uint32_t d,
           const acre_value *w, const acre_value *wn, uint32_t n,
           const acre_entry_view *e)
{
    const struct acreC_desc *desc = &x->descs[d];
    const acre_view_attr *R = NULL;

    if (!n || excluded(r, desc->type))
        return 0;
    if (!desc->collective) { /* an entry may store it: R matters */
        r->reusable = 0;
        R = own_attr(e, desc->id);
    }
    long k = out_for(r, s, x, d, 0);
    if (k < 0)
        return ACRE_ERR_NOMEM;
    if (!R || r->replaced[k])
        return add_values(r, (uint32_t)k, w, wn, n, 1, NULL);
    switch (S->conflict) {
    case ACREC_MERGE:
        return add_values(r, (uint32_t)k, w, wn, n, 1, R);
    case ACREC_VIRTUAL_OVERRIDES:
        r->replaced[k] = 1;
        r->out[k].flags |= ACREC_OUT_REPLACES;
        return add_values(r, (uint32_t)k, w, wn, n, 1, NULL);
    default: /* real-overrides-virtual */
        return 0;
    }
}

/* The values inherited subentry S gives e: from the entry e names,
 * through the host, what the requester may read there. */
static int
inherited_values(struct acre_request *rq, struct acreC_result *r,
                 const struct acreC_index *x, const struct acreC_sub *S,
                 const acre_entry_view *e)
{
    const acre_dn *dn = inherit_dn(r, rq->schema, S, e);
    const acre_entry_view *from;
    int rc = 0;

    if (!dn || acreV_host_get(rq, dn, &from) != 1)
        return rq->err;
    for (uint32_t g = S->give0; !rc && !rq->err && g < S->give0 + S->ngive;
         g++) {
        const struct acreC_give *gv = &x->gives[g];
        const acre_view_attr *w = own_attr(from, x->descs[gv->desc].id);
        const acre_value *v, *vn;
        uint32_t n;
        if (w && (v = readable_copy(rq, r, from, w, &vn, &n)))
            rc = contribute(r, rq->schema, x, S, gv->desc, v, vn, n, e);
    }
    acreV_host_release(rq, from);
    return rc ? rc : rq->err;
}

static int
subentry_values(struct acre_request *rq, struct acreC_result *r,
                const struct acreC_index *x, uint32_t k,
                const acre_entry_view *e)
{
    const struct acreC_sub *S = &x->subs[k];

    if (S->kind & ACREC_INH) {
        r->reusable = 0;
        return inherited_values(rq, r, x, S, e);
    }
    for (uint32_t g = S->give0; g < S->give0 + S->ngive; g++) {
        const struct acreC_give *gv = &x->gives[g];
        const acre_view_attr *w = gv->src;
        int rc = w ? contribute(r, rq->schema, x, S, gv->desc, w->vals,
                                w->norms, w->nvals, e)
                   : 0;
        if (rc)
            return rc;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * slapo-collect
 */

/* Give g's values the requester may read on the source (slapd's
 * backend_attribute with ACL_READ: the attribute, then each value with
 * the state the attribute's check left, acreV_values_begin), decided once
 * per request. */
static int
readable_source(struct acre_request *rq, struct acreC_result *r,
                const struct acreC_index *x, const struct acreC_collect *ci,
                uint32_t g)
{
    const struct acreC_give *gv = &x->gives[g];
    const struct acreC_desc *d = &x->descs[gv->desc];
    struct acreV_check c;
    struct acreV_values it;

    if (r->sh->ci_state[g])
        return 0;
    r->sh->ci_val[g] = NULL;
    r->sh->ci_n[g] = 0;
    if (!gv->nval) {
        r->sh->ci_state[g] = 1;
        return 0;
    }
    acreV_check_init(&c, rq, ci->src, d->type, acreS_dinfo(rq->schema, d->id),
                     NULL, 0);
    if (acreV_values_begin(&it, &c, ACREI_ACCESS_READ, NULL)) {
        acre_value *v = talloc_array(r, acre_value, gv->nval + 1);
        uint32_t n = 0;
        if (!v)
            return ACRE_ERR_NOMEM;
        for (uint32_t j = 0; j < gv->nval; j++) {
            c.va = NULL;
            c.val = gv->val[j].val;
            c.val_len = gv->val[j].len;
            c.val_str = NULL;
            if (acreV_values_next(&it, &c, ACREI_ACCESS_READ, NULL))
                v[n++] = gv->val[j];
        }
        r->sh->ci_val[g] = v;
        r->sh->ci_n[g] = n;
    }
    r->sh->ci_state[g] = 1;
    return 0;
}

static int
collect_values(struct acre_request *rq, struct acreC_result *r,
               const struct acreC_index *x, uint32_t k)
{
    const struct acreC_collect *ci = &x->collect[k];

    if (!ci->src)
        return 0;
    for (uint32_t g = ci->give0; g < ci->give0 + ci->ngive; g++) {
        if (readable_source(rq, r, x, ci, g))
            return ACRE_ERR_NOMEM;
        if (!r->sh->ci_n[g])
            continue;
        long o = out_for(r, rq->schema, x, x->gives[g].desc, 1);
        /* slapd copies the normalised values: they are both forms */
        if (o < 0 || add_values(r, (uint32_t)o, r->sh->ci_val[g],
                                r->sh->ci_val[g], r->sh->ci_n[g], 0, NULL))
            return ACRE_ERR_NOMEM;
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * The result
 */

/*
 * Which candidates of node n apply to e (depth d): r->subs, r->cis.  The
 * outcomes of the refinements tested are recorded in r->sig (a bit per
 * refined subentry in the window, in order) and r->nref, so that the next
 * entry of the node and depth reuses the result when its outcomes are the
 * same; r->subslots counts the subentries in the window.
 */
static int
candidates(struct acreC_result *r, const struct acre_policy *p,
           const struct acreP_node *n, const acre_entry_view *e, unsigned d)
{
    const struct acreC_index *x = p->coll;
    struct ocls ocs;
    const struct ocls *oc = NULL;
    int sub = -1; /* is e a subentry? asked when it matters */

#define OC() (oc ? oc : (oc = ocls_of(p->schema, e, x->id_objectclass, &ocs)))
    r->nsubs = r->ncis = r->nref = r->subslots = 0;
    r->sig = 0;
    for (uint32_t i = 0; i < n->ncoll; i++) {
        const struct acreC_slot *sl = &n->coll[i];
        uint32_t k = sl->sub & ACREC_SLOT_SUB;
        if (d < sl->lo || d > sl->hi)
            continue;
        if (k >= x->nsubs) {
            /* the overlay of e's database only (n's: see acreP_node) */
            const struct acreI_section *s = x->collect[k - x->nsubs].section;
            if (s && s != n->section)
                continue;
            if (push_u32(r, &r->cis, &r->ncis, &r->cap_cis, k - x->nsubs))
                return ACRE_ERR_NOMEM;
            continue;
        }
        r->subslots++;
        if (sub < 0)
            sub = is_subentry_oc(p, OC());
        if (sub) { /* subentries take no subentry's values */
            r->reusable = 0;
            continue;
        }
        const struct acreC_sub *S = &x->subs[k];
        if (sl->sub & ACREC_SLOT_REFINED) {
            int ok = r->sh->forced
                         ? (int)(r->sh->forced_sig >> r->nref & 1)
                         : refine(p->schema, OC(), S->refine, e, &r->sh->hooks);
            if (r->nref < 64)
                r->sig |= (uint64_t)ok << r->nref;
            else
                r->reusable = 0;
            r->nref++;
            if (!ok)
                continue;
        }
        if (push_u32(r, &r->subs, &r->nsubs, &r->cap_subs, k))
            return ACRE_ERR_NOMEM;
    }
    return 0;
#undef OC
}

/* The refinement outcomes of e at node n and depth d, as candidates()
 * records them. */
static uint64_t
signature(const struct acre_policy *p, const struct acreP_node *n,
          const acre_entry_view *e, const struct ocls *oc, unsigned d,
          const struct acreF_hooks *h)
{
    const struct acreC_index *x = p->coll;
    uint64_t sig = 0;
    unsigned k = 0;

    for (uint32_t i = 0; i < n->ncoll && k < 64; i++) {
        const struct acreC_slot *sl = &n->coll[i];
        if (!(sl->sub & ACREC_SLOT_REFINED) || d < sl->lo || d > sl->hi)
            continue;
        sig |= (uint64_t)refine(p->schema, oc,
                                x->subs[sl->sub & ACREC_SLOT_SUB].refine, e, h)
               << k++;
    }
    return sig;
}

/* collectiveAttributeSubentries: the DNs of the applicable subentries. */
static int
cas_attr(struct acreC_result *r, const acre_schema *s,
         const struct acreC_index *x)
{
    if (!r->nsubs || x->id_cas < 0)
        return 0;
    if (out_room(r) || val_room(r, r->nvals + r->nsubs))
        return ACRE_ERR_NOMEM;
    struct acreC_out *o = &r->out[r->nout];
    out_init(o, s, x->id_cas, x->id_cas, ACREC_OUT_CAS);
    o->a.vals = (const acre_value *)(uintptr_t)r->nvals;
    o->a.nvals = r->nsubs;
    for (uint32_t i = 0; i < r->nsubs; i++) {
        r->norms[r->nvals] = x->subs[r->subs[i]].dnnorm;
        r->vals[r->nvals++] = x->subs[r->subs[i]].dnval;
    }
    r->in_buf[r->nout] = 1;
    r->replaced[r->nout++] = 0;
    return 0;
}

/* Offsets into the value buffer become pointers; attributes that got no
 * value (real-overrides-virtual, a merge adding nothing) go. */
static void
finish(struct acreC_result *r)
{
    uint32_t n = 0;

    for (uint32_t k = 0; k < r->nout; k++) {
        struct acreC_out *o = &r->out[k];
        if (r->in_buf[k]) {
            if (o->a.norms)
                o->a.norms = r->norms + (uintptr_t)o->a.vals;
            o->a.vals = r->vals + (uintptr_t)o->a.vals;
        }
        if (!o->a.nvals && !(o->flags & ACREC_OUT_REPLACES))
            continue;
        r->out[n] = *o;
        r->replaced[n++] = r->replaced[k];
    }
    r->nout = n;
    if (n)
        memset(r->in_buf, 0, n);
}

int
acreC_build(struct acre_request *rq, struct acreC_result *r,
            const struct acreP_node *n, const acre_entry_view *e, unsigned d)
{
    const struct acre_policy *p = rq->p;
    const struct acreC_index *x = p->coll;
    int rc;

    r->nout = 0;
    r->nvals = 0;
    r->reusable = 1;
    if (r->copies)
        talloc_free_children(r->copies);
    else if (!(r->copies = talloc_new(r)))
        return ACRE_ERR_NOMEM;
    if (++r->sh->mark == 0) { /* wrapped: forget every stamp */
        memset(r->sh->dmark, 0, 2 * (size_t)x->ndescs * sizeof(*r->sh->dmark));
        r->sh->mark = 1;
    }
    if ((rc = candidates(r, p, n, e, d)))
        return rc;
    if (r->nsubs && (rc = exclusions(r, p->schema, x, e)))
        return rc;
    for (uint32_t i = 0; i < r->nsubs; i++)
        if ((rc = subentry_values(rq, r, x, r->subs[i], e)))
            return rc;
    for (uint32_t i = 0; i < r->ncis; i++)
        if ((rc = collect_values(rq, r, x, r->cis[i])))
            return rc;
    if ((rc = cas_attr(r, p->schema, x)))
        return rc;
    finish(r);
    return 0;
}

/* e's answers to what decides whether a result stands for it, computed
 * at the first need (-1 until then). */
struct asked {
    int sub, excl, have_sig, have_oc;
    uint64_t sig;
    struct ocls oc;              /* e's objectClass */
    const struct acreF_hooks *h; /* for refinements' filters */
};

/* e's objectClass and whether it holds collectiveExclusions, in one
 * pass over its attributes. */
static void
asked_scan(const struct acre_policy *p, const acre_entry_view *e,
           struct asked *q)
{
    int oc = p->coll->id_objectclass, ex = p->coll->id_exclusions;

    q->oc.a = NULL;
    q->excl = 0;
    for (uint32_t i = 0; i < e->nattrs; i++) {
        if (e->attrs[i].id == oc && !q->oc.a)
            q->oc.a = &e->attrs[i];
        else if (e->attrs[i].id == ex)
            q->excl = 1;
    }
    ocls_bits(p->schema, &q->oc);
    q->have_oc = 1;
}

static const struct ocls *
asked_oc(const struct acre_policy *p, const acre_entry_view *e, struct asked *q)
{
    if (!q->have_oc)
        asked_scan(p, e, q);
    return &q->oc;
}

/* Is e a subentry, or does it hold exclusions (either computes its
 * result instead of taking another's)? */
static int
aside(const struct acre_policy *p, const acre_entry_view *e, struct asked *q)
{
    if (q->sub < 0)
        q->sub = is_subentry_oc(p, asked_oc(p, e, q));
    return q->sub || q->excl;
}

/* Does result r stand for e (node n, depth d)? */
static int
reusable(const struct acre_policy *p, const struct acreC_result *r,
         const struct acreP_node *n, const acre_entry_view *e, unsigned d,
         struct asked *q)
{
    if (!r->e || !r->reusable || r->node != n || r->depth != d)
        return 0;
    if (r->subslots && aside(p, e, q))
        return 0;
    if (r->nref && !q->have_sig) {
        q->sig = signature(p, n, e, asked_oc(p, e, q), d, q->h);
        q->have_sig = 1;
    }
    return !r->nref || q->sig == r->sig;
}

/* The node's precomputed result for e, or NULL (none, or e is a
 * subentry or has exclusions). */
static const struct acreC_result *
precomputed(const struct acre_policy *p, const struct acreP_node *n,
            const acre_entry_view *e, unsigned d, struct asked *q)
{
    const struct acreC_index *x = p->coll;
    uint32_t ni = (uint32_t)(n - p->nodes);
    const struct acreC_static *st, *end;

    if (!x->statics) /* no node has one (and NULL + 0 is undefined) */
        return NULL;
    st = x->statics + x->st_first[ni];
    end = x->statics + x->st_first[ni + 1];
    for (; st < end; st++) {
        if (d < st->lo || d > st->hi)
            continue;
        if (st->subs && aside(p, e, q))
            return NULL;
        unsigned sig = 0;
        for (unsigned i = 0; i < st->nref; i++)
            sig |= (unsigned)refine(p->schema, asked_oc(p, e, q),
                                    &x->st_refs[st->refs + i], e, q->h)
                   << i;
        return x->st_res[st->res + sig];
    }
    return NULL;
}

int
acreC_compute(struct acre_request *rq, const acre_entry_view *e,
              const struct acreP_node *n, const struct acreC_result **out)
{
    const struct acreC_index *x = rq->p->coll;
    struct acreC_cache *c;
    struct asked q = {-1, -1, 0, 0, 0, {NULL, 0}, NULL};
    int rc;

    *out = NULL;
    if (!x)
        return 0;
    if (!(c = acreC_cache_of(rq, x)))
        return ACRE_ERR_NOMEM;
    q.h = &c->hooks;
    unsigned d = acre_dn_depth(e->dn);
    if (!n)
        n = acreP_node_for(rq->p, e->dn);
    if (x->st_first && (*out = precomputed(rq->p, n, e, d, &q)))
        return 0;
    /* a result of the same node and depth that consulted nothing of its
     * entry but its refinements stands for e unless e is a subentry,
     * excludes something, or its refinements go another way */
    for (unsigned k = 0; k < RESULTS; k++)
        if (reusable(rq->p, c->res[k], n, e, d, &q)) {
            c->res[k]->e = e;
            *out = c->res[k];
            return 0;
        }
    struct acreC_result *r = c->res[c->next++ % RESULTS];
    r->e = NULL;
    if ((rc = acreC_build(rq, r, n, e, d)))
        return rc;
    r->e = e;
    r->node = n;
    r->depth = d;
    *out = r;
    return 0;
}

/* ------------------------------------------------------------------------
 * The result's parts
 */

uint32_t
acreC_nout(const struct acreC_result *r)
{
    return r ? r->nout : 0;
}

const struct acreC_out *
acreC_outs(const struct acreC_result *r)
{
    return r ? r->out : NULL;
}

int
acreC_hidden(const struct acreC_result *r, const acre_view_attr *a)
{
    for (uint32_t k = 0; r && k < r->nout; k++)
        if ((r->out[k].flags & ACREC_OUT_REPLACES) && r->out[k].a.id == a->id)
            return 1;
    return 0;
}

const acre_entry_view *
acreC_merged(struct acre_request *rq, const acre_entry_view *e,
             const struct acreC_result *r, unsigned what)
{
    struct acreC_cache *w = rq->coll;
    uint32_t nadd = 0, out = 0;

#define MERGED(o)                                                  \
    ((o)->a.nvals &&                                               \
     (what & ((o)->flags & ACREC_OUT_COLLECT ? ACREC_MERGE_COLLECT \
                                             : ACREC_MERGE_SUBENTRY)))
    for (uint32_t k = 0; r && k < r->nout; k++)
        nadd += MERGED(&r->out[k]);
    if (!nadd)
        return e;
    if (room32(w, (void **)&w->mattrs, sizeof(*w->mattrs),
               (size_t)e->nattrs + nadd, &w->cap_mattrs))
        return NULL;
    for (uint32_t i = 0; i < e->nattrs; i++) /* the entry's own first */
        if (!(what & ACREC_MERGE_SUBENTRY) || !acreC_hidden(r, &e->attrs[i]))
            w->mattrs[out++] = e->attrs[i];
    for (uint32_t k = 0; k < r->nout; k++)
        if (MERGED(&r->out[k]))
            w->mattrs[out++] = r->out[k].a;
#undef MERGED
    w->merged = *e;
    w->merged.attrs = w->mattrs;
    w->merged.nattrs = out;
    return &w->merged;
}

/* ------------------------------------------------------------------------
 * Public calls
 */

void
acreC_view(const struct acreC_result *r, acre_collective_view *v)
{
    v->nattrs = r ? r->nout : 0;
    v->nsubentries = r ? r->nsubs : 0;
    v->impl = r;
}

ACRE_PUBLIC int
acre_entry_collective(acre_request *rq, const acre_entry_view *e,
                      acre_collective_view *out)
{
    const struct acreC_result *r;

    if (out)
        memset(out, 0, sizeof(*out));
    if (!acreE_is(rq, ACREE_REQUEST_MAGIC))
        return rq ? ACRE_ERR_BADOBJ : ACRE_ERR_INVAL;
    if (!out || !acreE_view_check(rq->schema, e))
        return ACRE_ERR_INVAL;
    rq->err = 0;
    int rc = acreC_compute(rq, e, NULL, &r);
    if (!rc)
        rc = rq->err;
    if (!rc)
        acreC_view(r, out);
    return rc;
}

/* The schema of a view's result: its attach directory's. */
static const acre_schema *
view_schema(const acre_collective_view *v)
{
    const struct acreC_result *r = v->impl;
    return acreE_dir_schema(r->x->dir);
}

static const struct acreC_out *
view_attr(const acre_collective_view *v, unsigned i)
{
    const struct acreC_result *r = v ? v->impl : NULL;
    return r && i < r->nout && i < v->nattrs ? &r->out[i] : NULL;
}

ACRE_PUBLIC const char *
acre_collective_attr(const acre_collective_view *v, unsigned i, size_t *len,
                     unsigned *nvals, unsigned *flags)
{
    const struct acreC_out *o = view_attr(v, i);

    const struct acreS_dinfo *d;

    if (!o || !(d = acreS_dinfo(view_schema(v), o->a.id)))
        return NULL;
    if (len)
        *len = d->text_len;
    if (nvals)
        *nvals = o->a.nvals;
    if (flags)
        *flags = (o->flags & ACREC_OUT_REPLACES ? ACRE_COLLATTR_REPLACES : 0) |
                 (o->flags & ACREC_OUT_COLLECT ? ACRE_COLLATTR_COLLECT : 0) |
                 (o->flags & ACREC_OUT_CAS ? ACRE_COLLATTR_OPER : 0);
    return d->text;
}

ACRE_PUBLIC const void *
acre_collective_value(const acre_collective_view *v, unsigned i, unsigned j,
                      size_t *len)
{
    const struct acreC_out *o = view_attr(v, i);

    if (!o || j >= o->a.nvals)
        return NULL;
    if (len)
        *len = o->a.vals[j].len;
    return o->a.vals[j].val;
}

ACRE_PUBLIC const acre_entry *
acre_collective_subentry(const acre_collective_view *v, unsigned k)
{
    const struct acreC_result *r = v ? v->impl : NULL;

    if (!r || k >= r->nsubs || k >= v->nsubentries)
        return NULL;
    return (const acre_entry *)r->x->subs[r->subs[k]].e;
}
