/*
 * collective_static.c -- acreC_precompute: at attach, the results of the
 * index nodes whose candidates depend on nothing of an entry but its depth
 * and a few refinements, made once by the per-entry path (collective.c)
 * for every depth window and refinement outcome, so that such an entry is
 * answered by its node, depth and refinement outcomes (collective.h,
 * "Precomputed results").  It evaluates, so it is engine code; it runs
 * once per attached policy, never per entry.
 */
#include "collective.h"
#include "collective_int.h"

#include "internal.h"

#include <string.h>
#include <talloc.h>

/* Can node n's results be made once for all its entries? */
static int
static_node(const struct acreC_index *x, const struct acreP_node *n)
{
    if (!n->ncoll || n->ncoll > ACREC_STATIC_SLOTS)
        return 0;
    for (uint32_t i = 0; i < n->ncoll; i++) {
        uint32_t k = n->coll[i].sub & ACREC_SLOT_SUB;
        if (k >= x->nsubs || (x->subs[k].kind & ACREC_INH))
            return 0;
        for (uint32_t g = 0; g < x->subs[k].ngive; g++)
            if (!x->descs[x->gives[x->subs[k].give0 + g].desc].collective)
                return 0;
    }
    return 1;
}

/* A copy of result r under ctx that needs nothing of the request. */
static struct acreC_result *
keep_result(void *ctx, const struct acreC_result *r)
{
    struct acreC_result *k = talloc_zero(ctx, struct acreC_result);
    acre_value *v = k ? talloc_array(k, acre_value, r->nvals + 1) : NULL;
    acre_value *vn = v ? talloc_array(k, acre_value, r->nvals + 1) : NULL;
    struct acreC_out *o =
        vn ? talloc_array(k, struct acreC_out, r->nout + 1) : NULL;
    uint32_t *s = o ? talloc_array(k, uint32_t, r->nsubs + 1) : NULL;

    if (!s)
        return NULL;
    if (r->nvals) {
        memcpy(v, r->vals, r->nvals * sizeof(*v));
        memcpy(vn, r->norms, r->nvals * sizeof(*vn));
    }
    if (r->nout)
        memcpy(o, r->out, r->nout * sizeof(*o));
    if (r->nsubs)
        memcpy(s, r->subs, r->nsubs * sizeof(*s));
    for (uint32_t i = 0; i < r->nout; i++) {
        if (o[i].a.vals < r->vals || o[i].a.vals >= r->vals + r->nvals)
            continue; /* a giver's own values: they outlive the policy */
        if (o[i].a.norms)
            o[i].a.norms = vn + (o[i].a.vals - r->vals);
        o[i].a.vals = v + (o[i].a.vals - r->vals);
    }
    k->x = r->x;
    k->out = o;
    k->nout = r->nout;
    k->vals = v;
    k->norms = vn;
    k->nvals = r->nvals;
    k->subs = s;
    k->nsubs = r->nsubs;
    k->subslots = r->subslots;
    k->nref = r->nref;
    return k;
}

/* The depths at which n's candidate set changes: n's depth, then each
 * window's start and end + 1 below it, sorted, unique; returns how many. */
static unsigned
boundaries(const struct acreP_node *n, uint32_t *b)
{
    unsigned m = 0, u = 0;

    b[m++] = n->depth;
    for (uint32_t i = 0; i < n->ncoll; i++) {
        uint32_t e[2] = {n->coll[i].lo, (uint32_t)n->coll[i].hi + 1};
        for (int j = 0; j < 2; j++)
            if (e[j] > n->depth && e[j] <= 0xffffu)
                b[m++] = e[j];
    }
    for (unsigned i = 1; i < m; i++) /* few: an insertion sort */
        for (unsigned j = i; j > 0 && b[j - 1] > b[j]; j--) {
            uint32_t t = b[j];
            b[j] = b[j - 1];
            b[j - 1] = t;
        }
    for (unsigned i = 0; i < m; i++)
        if (!u || b[u - 1] != b[i])
            b[u++] = b[i];
    return u;
}

/* The precomputed results as they are made. */
struct statics {
    struct acreC_static *v;
    size_t nv, cap_v;
    struct acreC_refine *refs;
    size_t nrefs, cap_refs;
    const struct acreC_result **res;
    size_t nres, cap_res;
    size_t values; /* values and attributes held, against the cap */
};

/* Node n's results for depths lo..hi, one per refinement outcome,
 * appended to t (none when the window holds too many refinements or the
 * cap is reached). */
static int
static_window(struct acre_request *rq, const struct acreP_node *n, unsigned lo,
              unsigned hi, struct statics *t)
{
    struct acreC_cache *c = rq->coll;
    acre_entry_view none; /* stores nothing: no class, no exclusion */
    void *mem = rq->p->mem;
    unsigned nref = 0, subs = 0;

    const struct acreC_refine *refs[ACREC_STATIC_REFS];

    for (uint32_t i = 0; i < n->ncoll; i++) {
        const struct acreC_slot *sl = &n->coll[i];
        if (lo < sl->lo || lo > sl->hi)
            continue;
        subs = 1;
        if (!(sl->sub & ACREC_SLOT_REFINED))
            continue;
        if (nref == ACREC_STATIC_REFS)
            return 0; /* too many outcomes to make them all */
        refs[nref++] = rq->p->coll->subs[sl->sub & ACREC_SLOT_SUB].refine;
    }
    if (t->values >= ACREC_STATIC_VALUES)
        return 0;
    if (acreC_room(mem, (void **)&t->v, sizeof(*t->v), t->nv + 1, &t->cap_v) ||
        acreC_room(mem, (void **)&t->refs, sizeof(*t->refs),
                   t->nrefs + nref + 1, &t->cap_refs) ||
        acreC_room(mem, (void **)&t->res, sizeof(*t->res),
                   t->nres + (1u << nref), &t->cap_res))
        return ACRE_ERR_NOMEM;
    memset(&none, 0, sizeof(none));
    for (uint64_t s = 0; s < (1u << nref); s++) {
        struct acreC_result *k;
        c->forced = 1;
        c->forced_sig = s;
        int rc = acreC_build(rq, c->res[0], n, &none, lo);
        c->forced = 0;
        if (rc || !(k = keep_result(mem, c->res[0])))
            return ACRE_ERR_NOMEM;
        t->res[t->nres + s] = k;
        t->values += k->nvals + k->nout;
    }
    for (unsigned i = 0; i < nref; i++)
        t->refs[t->nrefs + i] = *refs[i];
    struct acreC_static *st = &t->v[t->nv++];
    memset(st, 0, sizeof(*st));
    st->lo = (uint16_t)lo;
    st->hi = (uint16_t)hi;
    st->nref = (uint8_t)nref;
    st->subs = (uint8_t)subs;
    st->refs = (uint32_t)t->nrefs;
    st->res = (uint32_t)t->nres;
    t->nrefs += nref;
    t->nres += 1u << nref;
    return 0;
}

int
acreC_precompute(struct acre_policy *p, const acre_directory *dir)
{
    struct acreC_index *x = (struct acreC_index *)p->coll;
    struct statics t = {0};
    uint32_t *first = talloc_array(p->mem, uint32_t, p->nnodes + 1);
    uint32_t b[2 * ACREC_STATIC_SLOTS + 1];
    acre_request *rq;
    int rc = 0;

    if (!first || acre_request_begin(p, NULL, acre_directory_host(dir), &rq))
        return ACRE_ERR_NOMEM;
    if (!acreC_cache_of(rq, x))
        rc = ACRE_ERR_NOMEM;
    for (uint32_t ni = 0; !rc && ni < p->nnodes; ni++) {
        const struct acreP_node *n = &p->nodes[ni];
        first[ni] = (uint32_t)t.nv;
        if (!static_node(x, n))
            continue;
        unsigned m = boundaries(n, b);
        for (unsigned j = 0; !rc && j < m; j++)
            rc = static_window(rq, n, b[j], j + 1 < m ? b[j + 1] - 1 : 0xffffu,
                               &t);
    }
    first[p->nnodes] = (uint32_t)t.nv;
    acre_request_end(rq);
    if (rc)
        return rc;
    x->st_first = first;
    x->statics = t.v;
    x->st_refs = t.refs;
    x->st_res = t.res;
    return 0;
}
