/*
 * collective.h -- subentries and collective attributes (RFC 3671, RFC
 * 3672, OpenDJ's extensions, OpenLDAP's slapo-collect) in the compiled
 * policy, and what a request keeps to compute them per entry.
 *
 * compiler/collective_build.c reads the subentries of a directory once
 * (acre_policy_attach_subentries) and puts what they need into the same
 * subtree index as the access rules: every administrative point, every
 * subtree specification's base and every chop becomes an index node, and
 * each node lists the candidates -- subentries and collectinfo sources --
 * whose reach can include an entry at or below it, with the window of
 * entry depths they allow there:
 *
 *   acreC_slot { sub, lo, hi }    sub < nsubs: idx->subs[sub], else
 *                                 idx->collect[sub - nsubs]
 *
 * Why the node decides: for an entry E let N be the deepest node on its
 * ancestry.  The administrative points, bases and chops at or above E are
 * nodes, hence at or above N, so E and N see the same areas.  A chopBefore
 * at or above N removes the subentry from N's list; a chopAfter at N caps
 * the window at N's depth (above N it removes it).  What is left per entry
 * is the depth window (two compares) and the refinement (only where the
 * specification has one).
 *
 * engine/collective.c turns a node's list into an entry's values: the
 * applicable subentries in directory order, each one's values by
 * description, unioned, less the entry's exclusions, with OpenDJ's
 * conflict behaviour and inheritance, then the slapo-collect values.  A
 * node whose results depend on nothing of an entry but its depth and a
 * few refinements has them made once, at attach (acreC_static); an
 * entry of it needs only its node, depth and a byte of flags, which an
 * entry of the attach directory finds in its acreC_ent.  Any other
 * result lives in the request and is reused for the next entry of the
 * same node and depth when nothing of the entry itself was consulted.
 *
 * Invariants: the index is immutable once attached; the directory it was
 * read from outlives it (values point into it); results point into the
 * request or the policy, and into the directory, and are valid until the
 * request's next collective, decide or search call.
 */
#ifndef ACRE_COLLECTIVE_H
#define ACRE_COLLECTIVE_H

#include "acre.h"
#include "directory.h"
#include "entry.h"
#include "policy.h"

#include <stddef.h>
#include <stdint.h>

struct acreF_filter;
struct acre_request;

/* OpenDJ's collectiveConflictBehavior */
enum acreC_conflict {
    ACREC_REAL_OVERRIDES = 0, /* real-overrides-virtual (the default) */
    ACREC_VIRTUAL_OVERRIDES,  /* virtual-overrides-real */
    ACREC_MERGE               /* merge-real-and-virtual */
};

/* OpenDJ's inherited collective attribute subentries */
#define ACREC_INH     0x1u /* inheritedCollectiveAttributeSubentry */
#define ACREC_INH_DN  0x2u /* ...FromDN...: inheritFromDNAttribute */
#define ACREC_INH_RDN 0x4u /* ...FromRDN...: inheritFromRDNAttribute */
#define ACREC_COLL    0x8u /* collectiveAttributeSubentry */

/* A specificationFilter, compiled. */
enum acreC_ref_kind {
    ACREC_REF_ITEM,  /* item:OC -- oc < 0 (unknown class) is FALSE */
    ACREC_REF_AND,   /* none: TRUE */
    ACREC_REF_OR,    /* none: FALSE */
    ACREC_REF_NOT,   /* sub[0] */
    ACREC_REF_FILTER /* an RFC 4515 filter on the stored attributes */
};

/*
 * acreC_name_bit -- a bit chosen by a normalised class name's length and
 * last byte: a name is in a set only when its bit is in the set's bits
 * (the OR of its members'), so most misses cost one AND.
 */
static inline uint64_t
acreC_name_bit(const uint8_t *v, size_t n)
{
    return (uint64_t)1 << ((n * 7 + (n ? v[n - 1] : 0)) & 63);
}

struct acreC_refine {
    enum acreC_ref_kind kind;
    int oc; /* ITEM */
    /* ITEM: the objectClass values (normalised) naming oc or a subclass,
     * sorted as acreE_norm_cmp orders them: an entry has the class when
     * one of its values is among them */
    const uint8_t *const *oid;
    const uint32_t *oid_len;
    uint32_t noid;
    uint64_t oid_bits; /* acreC_name_bit of each of them, or'ed */
    const struct acreF_filter *filter; /* FILTER */
    const struct acreC_refine *sub;    /* AND OR NOT: sub[0..nsub) */
    uint32_t nsub;
};

/* A description collective values are given under, once per policy:
 * its interned id (schema.h: type and options) and type. */
struct acreC_desc {
    int id;
    int type;
    int collective; /* the type is COLLECTIVE: no entry stores it */
};

/* What one subentry or collectinfo source gives one description. */
struct acreC_give {
    uint32_t desc;             /* index in idx->descs */
    const acre_view_attr *src; /* subentry: its attribute; NULL when
                                  inherited (from the entry an entry
                                  names, per entry) */
    const acre_value *val;     /* collectinfo: the source's values as
                                  slapd returns them (normalised) */
    uint32_t nval;
};

struct acreC_sub {
    const struct acreE_entry *e; /* the subentry, in the attach directory */
    const acre_dn *admin;        /* its administrative point */
    const struct acreC_refine *refine; /* NULL: none */
    acre_value dnval, dnnorm;          /* its DN, as a value of
                                          collectiveAttributeSubentries
                                          and its normalised form */
    uint32_t give0, ngive;             /* in idx->gives */
    uint8_t conflict;                  /* enum acreC_conflict */
    uint8_t kind;                      /* ACREC_COLL | ACREC_INH* */
    int inh_dn_attr;                   /* inheritFromDNAttribute's type */
    int inh_rdn_attr, inh_rdn_type;    /* inheritFromRDN{Attribute,Type} */
    const acre_dn *inh_base;           /* inheritFromBaseRDN,admin */
};

struct acreC_collect {
    const struct acreI_collect *ir;
    const acre_entry_view *src;          /* NULL: absent, nothing to give */
    const struct acreI_section *section; /* its database; NULL: global */
    uint32_t give0, ngive;               /* in idx->gives, ir's order */
};

/* A node's candidate: an index and a depth window, as acreP_slot. */
struct acreC_slot {
    uint32_t sub;    /* < nsubs: a subentry, else collect[sub - nsubs];
                        ACREC_SLOT_REFINED: the subentry has a refinement */
    uint16_t lo, hi; /* entry depths its reach allows below this node */
};

#define ACREC_SLOT_REFINED 0x80000000u
#define ACREC_SLOT_SUB     0x7fffffffu

/* A node's precomputed results for entries of depths lo..hi whose
 * refinements give signature s: idx->st_res[res + s] (s < 1 << nref).
 * The records of a node, their refinements and their result pointers
 * are contiguous, so that an entry's answer costs few cache lines:
 *
 *   statics[st_first[i] .. st_first[i + 1])   node i's windows
 *   st_refs[refs .. refs + nref)              copies of the refinements,
 *                                             signature bit order
 *   st_res[res .. res + (1 << nref))          the results
 */
#define ACREC_STATIC_REFS 4 /* refined subentries a window may hold */

struct acreC_static {
    uint16_t lo, hi;
    uint8_t nref;
    uint8_t subs;  /* the window holds subentries: an entry that is a
                      subentry or has exclusions is computed instead */
    uint32_t refs; /* in idx->st_refs */
    uint32_t res;  /* in idx->st_res */
};

#define ACREC_STATIC_SLOTS  64 /* candidates a precomputed node may have */
/* values and attributes all precomputed results may hold together (a
 * cap on their memory): beyond it, entries are computed */
#define ACREC_STATIC_VALUES (1u << 22)

struct acreC_index {
    unsigned flags; /* ACRE_COLL_* of the attach */
    const struct acreE_dir *dir;
    struct acreC_sub *subs;
    uint32_t nsubs;
    struct acreC_collect *collect;
    uint32_t ncollect;
    struct acreC_give *gives;
    uint32_t ngives;
    struct acreC_desc *descs;
    uint32_t ndescs;
    int id_cas; /* collectiveAttributeSubentries */
    int id_objectclass, id_exclusions;
    /* precomputed results: node i's are statics[st_first[i] ..
     * st_first[i + 1]); NULL when none were made */
    const uint32_t *st_first;
    const struct acreC_static *statics;
    const struct acreC_refine *st_refs;
    const struct acreC_result *const *st_res;
};

/* acreC_gives_nothing -- 1 when x gives no entry anything: no subentry
 * and no collectinfo source (every give belongs to one), so a verdict
 * under x is the bare rules' (slapo-acre attaches its database's
 * subentries always, often none). */
static inline int
acreC_gives_nothing(const struct acreC_index *x)
{
    return !x->nsubs && !x->ncollect;
}

/* ------------------------------------------------------------------------
 * Per request (engine/collective.c)
 */

/* Flags of an output attribute */
#define ACREC_OUT_REPLACES                       \
    0x1u /* hides the entry's real values of the \
            type (virtual-overrides-real) */
#define ACREC_OUT_COLLECT                                         \
    0x2u                   /* slapo-collect: not seen by filters, \
                              not excluded */
#define ACREC_OUT_CAS 0x4u /* collectiveAttributeSubentries */

struct acreC_out {
    acre_view_attr a; /* description id, values (norms: NULL when the
                         type has no equality rule) */
    int type;         /* a's type */
    uint32_t flags;   /* ACREC_OUT_* */
};

/*
 * acreC_compute -- the collective attributes of e under rq's policy (the
 * result of the request's previous call when e is that entry, or has the
 * same node and depth and nothing of either entry was consulted).  n: e's
 * index node when the caller has it, else NULL.  Returns 0 with *out
 * pointing into the request (NULL when the policy has no collective
 * index), or ACRE_ERR_NOMEM.  Allocation-free once the request has seen a
 * result of this size.
 */
struct acreC_result;
int acreC_compute(struct acre_request *rq, const acre_entry_view *e,
                  const struct acreP_node *n, const struct acreC_result **out);

/* The parts of a result. */
uint32_t acreC_nout(const struct acreC_result *r);
const struct acreC_out *acreC_outs(const struct acreC_result *r);

/*
 * acreC_hidden -- does the result hide e's stored attribute a
 * (virtual-overrides-real on its type)?
 */
int acreC_hidden(const struct acreC_result *r, const acre_view_attr *a);

/* What acreC_merged adds to an entry */
#define ACREC_MERGE_SUBENTRY                                      \
    0x1u                         /* the values of subentries (and \
                                    inherited ones) */
#define ACREC_MERGE_COLLECT 0x2u /* the slapo-collect values */

/*
 * acreC_merged -- e with the result's attributes of the kinds in `what`
 * (ACREC_MERGE_*; hidden real attributes left out) after its own; e itself
 * when that adds nothing.  A search filter sees the subentries' values;
 * slapd checks a result entry for read (and a rule's filter= then) with
 * the slapo-collect values as well, which its overlay adds before.  Lives
 * in the request until its next collective call.  NULL out of memory.
 */
const acre_entry_view *acreC_merged(struct acre_request *rq,
                                    const acre_entry_view *e,
                                    const struct acreC_result *r,
                                    unsigned what);

/*
 * acreC_precompute (collective_static.c) -- give attached policy p
 * (complete but for this) the results of the nodes whose candidates
 * depend on nothing of an entry but its depth and a few refinements:
 * subentries only (no slapo-collect, no inheritance), COLLECTIVE types
 * only (no entry stores them), at most ACREC_STATIC_SLOTS candidates and
 * ACREC_STATIC_REFS refinements in any depth window, until the results
 * hold ACREC_STATIC_VALUES values.
 * dir: the attach directory.  0 or ACRE_ERR_NOMEM.
 */
int acreC_precompute(struct acre_policy *p, const acre_directory *dir);

/* acreC_view -- the public view of result r (NULL: nothing). */
void acreC_view(const struct acreC_result *r, acre_collective_view *v);

/* acreC_is_subentry -- does e have objectClass subentry (or a subclass)? */
int acreC_is_subentry(const struct acre_policy *p, const acre_entry_view *e);

#endif /* ACRE_COLLECTIVE_H */
