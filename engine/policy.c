/*
 * policy.c -- the compiled policy's lifetime (references, the swap slot)
 * and the subtree index lookup (policy.h).  compiler/policy.c and
 * compiler/build.c make the policy; this file is what the engine needs of
 * it whatever the request.
 */
#include "policy.h"
#include "dn.h"
#include "internal.h"

#include <stdlib.h>
#include <string.h>
#include <talloc.h>

/* ------------------------------------------------------------------------
 * Policies
 */

/* ok -- p is a policy (internal.h: Handles). */
static inline int
ok(const acre_policy *p)
{
    return acreE_is(p, ACREP_POLICY_MAGIC);
}

ACRE_PUBLIC acre_policy *
acre_policy_ref(acre_policy *p)
{
    if (!ok(p))
        return NULL;
    __atomic_add_fetch(&p->refs, 1, __ATOMIC_RELAXED);
    return p;
}

ACRE_PUBLIC void
acre_policy_release(acre_policy *p)
{
    if (ok(p) && __atomic_sub_fetch(&p->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        p->magic = 0;
        talloc_free(p); /* its destructor drops the specs */
    }
}

ACRE_PUBLIC const acre_schema *
acre_policy_schema(const acre_policy *p)
{
    return ok(p) ? p->schema : NULL;
}

ACRE_PUBLIC uint64_t
acre_policy_generation(const acre_policy *p)
{
    return ok(p) ? p->generation : 0;
}

struct acre_slot {
    uint32_t magic; /* ACREE_SLOT_MAGIC */
    pthread_mutex_t lock;
    acre_policy *p;
};

static inline int
slot_ok(const acre_slot *s)
{
    return acreE_is(s, ACREE_SLOT_MAGIC);
}

ACRE_PUBLIC int
acre_slot_new(acre_slot **out)
{
    acre_slot *s;

    if (!out)
        return ACRE_ERR_INVAL;
    if (!(s = calloc(1, sizeof(*s))))
        return ACRE_ERR_NOMEM;
    s->magic = ACREE_SLOT_MAGIC;
    pthread_mutex_init(&s->lock, NULL);
    *out = s;
    return 0;
}

ACRE_PUBLIC void
acre_slot_store(acre_slot *s, acre_policy *p)
{
    acre_policy *old;

    if (!slot_ok(s) || (p && !ok(p)))
        return;
    acre_policy_ref(p);
    pthread_mutex_lock(&s->lock);
    old = s->p;
    s->p = p;
    pthread_mutex_unlock(&s->lock);
    acre_policy_release(old);
}

ACRE_PUBLIC acre_policy *
acre_slot_acquire(acre_slot *s)
{
    acre_policy *p;

    if (!slot_ok(s))
        return NULL;
    pthread_mutex_lock(&s->lock);
    p = acre_policy_ref(s->p);
    pthread_mutex_unlock(&s->lock);
    return p;
}

ACRE_PUBLIC void
acre_slot_free(acre_slot *s)
{
    if (!slot_ok(s))
        return;
    s->magic = 0;
    acre_policy_release(s->p);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

/* ------------------------------------------------------------------------
 * The subtree index
 */

const struct acreP_node *
acreP_node_for(const struct acre_policy *p, const acre_dn *dn)
{
    if (!acreE_is(dn, ACRED_MAGIC))
        return &p->nodes[0]; /* what acre_dn_depth makes of it */
    unsigned d = dn->depth;

    return acreP_node_below(p, dn, d < p->max_depth ? d : p->max_depth);
}

const struct acreP_node *
acreP_node_below(const struct acre_policy *p, const acre_dn *dn, unsigned top)
{
    /* Invariants (policy.h): the node hash is a power of two in size and
     * never full, so every probe sequence ends; node 0 is the root */
    acre_assert(p->hash_mask && ((p->hash_mask + 1) & p->hash_mask) == 0);
    acre_assert(2 * (size_t)p->nnodes <= (size_t)p->hash_mask + 1);
    acre_assert(p->nnodes > 0 && p->nodes[0].depth == 0);
    acre_assert(top <= dn->depth && top <= p->max_depth);
    for (unsigned i = top; i > 0; i--) {
        const struct acreP_node *n = acreP_node_at(p, dn, i);
        if (n)
            return n;
    }
    return &p->nodes[0]; /* the root, always node 0 */
}
