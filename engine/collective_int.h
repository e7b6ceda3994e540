/*
 * collective_int.h -- what collective.c (the per-entry path) shares with
 * collective_static.c (the results precomputed at attach): the request's
 * result cache and a result.  Never installed; nothing else includes it.
 */
#ifndef ACRE_COLLECTIVE_INT_H
#define ACRE_COLLECTIVE_INT_H

#include "collective.h"
#include "eval.h"
#include "filter.h"

#include <stddef.h>
#include <stdint.h>

#define RESULTS 4 /* results a request keeps for reuse */

/* What every result of a request shares. */
struct acreC_cache {
    const struct acreC_index *x;
    /* per description: out index + 1 for the result being built
     * (mark-stamped); [0, ndescs) subentries, [ndescs, 2 ndescs) collect */
    uint32_t *dslot, *dmark, mark;
    /* the entry's exclusions */
    int *excl;
    uint32_t nexcl, cap_excl;
    int excl_all;
    /* slapo-collect values the requester may read, per give (once per
     * request): state 0 unknown, 1 known */
    uint8_t *ci_state;
    const acre_value **ci_val;
    uint32_t *ci_n;
    /* inheritance */
    void *dnbuf; /* ACRE_DN_BUF_MAX */
    char *text;  /* an RDN-built DN */
    size_t cap_text;
    /* the entry a filter sees */
    acre_entry_view merged;
    acre_view_attr *mattrs;
    uint32_t cap_mattrs;
    /* the results, the next one to replace */
    struct acreC_result *res[RESULTS];
    unsigned next;
    /* the hooks a refinement's filter is evaluated with (the host's) */
    struct acreF_hooks hooks;
    /* acreC_precompute: refinement outcomes imposed, not evaluated */
    int forced;
    uint64_t forced_sig;
};

struct acreC_result {
    /* first, what a view reads (one cache line for a precomputed result) */
    uint32_t nout, nsubs;
    struct acreC_out *out;
    uint32_t *subs; /* applicable subentries */
    const struct acreC_index *x;
    struct acreC_cache *sh;
    /* the reuse key: the last entry, its node and depth; the subentries
     * in the window and the outcomes of their refinements */
    const acre_entry_view *e;
    const struct acreP_node *node;
    unsigned depth;
    int reusable;
    uint32_t subslots, nref;
    uint64_t sig;
    /* the attributes (out, above): vals of those in the value buffer are
     * offsets until the result is complete */
    uint32_t cap_out;
    uint8_t *in_buf;          /* [cap_out] 1: vals is an offset into vals[] */
    uint8_t *replaced;        /* [cap_out] D's own values replaced */
    acre_value *vals, *norms; /* parallel: a value, its normalised form */
    size_t nvals, cap_vals, cap_norms;
    void *copies; /* inherited values copied from the host: per build */
    /* applicable subentries (above) and collect sources */
    uint32_t cap_subs;
    uint32_t *cis, ncis, cap_cis;
};

/* acreC_room -- make room for n elements of `size` in *v (capacity *cap),
 * growing under ctx.  0 or ACRE_ERR_NOMEM. */
int acreC_room(void *ctx, void **v, size_t size, size_t n, size_t *cap);

/* acreC_cache_of -- the request's cache of results, made at its first
 * use; NULL when memory ran out. */
struct acreC_cache *acreC_cache_of(struct acre_request *rq,
                                   const struct acreC_index *x);

/* acreC_build -- build result r for an entry e at depth d under node n
 * (e may store nothing: the cache's forced outcomes then decide the
 * refinements).  0 or ACRE_ERR_NOMEM. */
int acreC_build(struct acre_request *rq, struct acreC_result *r,
                const struct acreP_node *n, const acre_entry_view *e,
                unsigned d);

#endif /* ACRE_COLLECTIVE_INT_H */
