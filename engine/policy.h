/*
 * policy.h -- the compiled policy: the intermediate form (ir.h) plus the
 * subtree index and its decision tables, and what the evaluator keeps per
 * requester.  compiler/build.c makes it; engine/ evaluates it.
 *
 * The subtree index
 *   Every DN a rule's scope names (dn.base / one / subtree / children),
 *   every section suffix and the root DN is a node.  A node's table lists,
 *   in evaluation order (the section's rules, then the global ones), every
 *   rule whose base is the node or one of its ancestors and that can apply
 *   at or below it.  The residual rules that no DN indexes (regex scopes,
 *   "*") are kept once per section and merged with the node's table by
 *   rule number during the walk.  Each table entry carries the window of
 *   entry depths its scope allows, so the DN part of a non-regex scope is
 *   decided by two compares.  To decide an entry, the evaluator probes the
 *   node hash with the entry's ancestry hashes, deepest first, confirms a
 *   hit on the normalised suffix bytes, and runs that node's table.
 *
 *   Because every section suffix is a node, the deepest node on an entry's
 *   ancestry also tells its section (database), its rootdn and whether no
 *   rule applies at all (slapd's default read).  A policy attached to a
 *   directory (acre_policy_attach_subentries) shares another's rules and
 *   has its own nodes: its subentries' administrative points, bases and
 *   chops are nodes too, each listing the subentries that can reach
 *   entries at or below it (collective.h).
 *
 * Per requester
 *   Each clause has a requester-only part (DN subjects without
 *   substitutions, connection, ssf) and an entry-dependent part (self,
 *   dnattr, groups, sets, substituted patterns).  A spec (one per requester
 * identity, cached in the policy) holds one state byte per clause, filled
 * lazily: false (the clause can never apply to this requester: skipped), true
 * (applies whatever the entry), or residual (its entry part is evaluated per
 *   check).
 *
 * Invariants: after acreP_build the policy is immutable except for its
 * reference count and the spec cache, both thread-safe; spec state bytes
 * are written with relaxed atomics and only ever from 0 to one fixed value.
 */
#ifndef ACRE_POLICY_H
#define ACRE_POLICY_H

#include "acre.h"
#include "dn.h"
#include "ir.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* How a rule's target names entries, once compiled. */
enum acreP_scope {
    ACREP_SCOPE_ANY = 0, /* every entry: residual, in every table */
    ACREP_SCOPE_REGEX,   /* a regex on slapd's DN text: residual, or
                            indexed under its literal tail (INDEXED) */
    ACREP_SCOPE_DN,      /* a base DN and a depth window: indexed */
    ACREP_SCOPE_NEVER    /* matches nothing (dn.children="") */
};

/* Rule flags */
#define ACREP_R_FILTER  0x01u /* target has a filter */
#define ACREP_R_VAL     0x02u /* target has a value condition */
#define ACREP_R_ATTRS   0x04u /* target has an attribute list */
#define ACREP_R_VALDEP  0x08u /* some clause depends on the value */
#define ACREP_R_MATCHES 0x10u /* some clause substitutes submatches */
/* REGEX: every DN the pattern matches is below (or, with the pattern's
 * ACREI_RE_EXACT, at) the DN of its literal tail, so the rule is in the
 * tables of that node, within lo..hi, and not residual */
#define ACREP_R_INDEXED 0x20u

struct acreP_rule {
    const struct acreI_rule *ir;
    const struct acreI_section *section; /* NULL: global */
    uint8_t scope;                       /* enum acreP_scope */
    uint8_t flags;                       /* ACREP_R_* */
    uint16_t lo, hi;                     /* DN, INDEXED: entry depth window */
    /* (its global evaluation order is its index in policy->rules) */
    uint32_t clause0; /* first clause in policy->clauses */
    uint32_t nclauses;
    int32_t filter_slot;     /* FILTER: its slot in the per-entry test cache */
    int32_t regex_slot;      /* REGEX: its slot in the per-entry test cache */
    const uint64_t *attr_in; /* ATTRS: bit per type id, the list's verdict
                                for a description without options */
};

/* Clause flags: which parts exist */
#define ACREP_C_REQ       0x01u /* has requester-only conditions */
#define ACREP_C_ENTRY     0x02u /* has entry-dependent conditions */
#define ACREP_C_VALDEP    0x04u /* depends on the value checked */
#define ACREP_C_MATCHES   0x08u /* substitutes submatches of the target */
/* the entry part is only "self" (level 0): it depends on whether the
 * entry is the requester, and nothing else */
#define ACREP_C_SELFONLY  0x20u
/* the entry part is only a fixed static group: it depends on the entry
 * only when the entry is the group */
#define ACREP_C_GROUPONLY 0x40u

struct acreP_clause {
    const struct acreI_clause *ir;
    uint32_t rule; /* index in policy->rules */
    uint8_t flags; /* ACREP_C_* */
};

/* One entry of a node table.  The runs let a walk pass by the rules
 * after this one that its target's failure shows to fail too, with
 * nothing to note (eval.c: decide): run_attrs, how many slots right after
 * this one hold rules with the same attribute list (a list that refuses
 * notes nothing); run_test, how many hold rules whose targets need the
 * same test and get to it the same way (build.c: run_sig), for when
 * this rule's target failed on that test.  Each at most ACREP_RUN_MAX. */
struct acreP_slot {
    uint32_t rule;  /* index in policy->rules */
    uint8_t lo, hi; /* entry depths the rule's DN scope allows (hi
                       ACREP_SLOT_NO_DEPTH: no bound) */
    uint8_t run_attrs, run_test;
};

#define ACREP_SLOT_NO_DEPTH 0xffu
#define ACREP_RUN_MAX       0xffu

/* The rules no DN indexes, for the entries of one section. */
struct acreP_residual {
    const struct acreP_slot *table;
    uint32_t ntable;
};

struct acreP_node {
    const acre_dn *dn;
    const char *ndn; /* normalised */
    size_t ndn_len;
    uint64_t hash; /* acre_dn_ancestor_hash(dn, depth) */
    unsigned depth;
    int parent;                          /* node index, -1 for the root */
    const struct acreI_section *section; /* for entries at or below */
    int default_read;                    /* no rule at all applies */
    const struct acreP_slot *table;      /* DN-indexed rules only */
    uint32_t ntable;
    const struct acreP_residual *residual; /* merged in by rule number */
    /* subentries and collectinfo sources whose reach can include entries
     * at or below (collective.h); attached policies only */
    const struct acreC_slot *coll;
    uint32_t ncoll;
};

#define ACREP_POLICY_MAGIC 0x61637270u /* "acrp" */

struct acreP_spec;
struct acreC_slot;
struct acreC_index;
struct acreV_moidx;
struct acreP_aci;

struct acre_policy {
    uint32_t magic;
    int refs; /* atomic */
    uint64_t generation;
    void *mem; /* talloc root of everything below */
    const acre_schema *schema;
    const struct acreI_policy *ir;
    struct acreP_rule *rules;
    uint32_t nrules;
    struct acreP_clause *clauses;
    uint32_t nclauses;
    struct acreP_node *nodes;
    uint32_t nnodes;
    struct acreP_residual *residual; /* [ir->ndbs + 1]; the last: no
                                        section */
    /* open addressing: a node's index + 1 in the low half, the high half
     * of its hash in the high half (acreP_node_slot); 0 empty */
    uint64_t *hash;
    uint32_t hash_mask;
    unsigned max_depth; /* deepest node */
    size_t ntable_entries;
    size_t bytes;        /* talloc_total_size when compiled */
    uint32_t nfilters;   /* distinct rule filters */
    uint32_t ntests;     /* slots of the per-entry test cache: one per
                            distinct filter, one per REGEX rule */
    unsigned attr_words; /* uint64_t words of an attr_in bitmap */
    /* per type id (< attr_nclass): its class; types of one class are in
     * the same attrs= lists of every rule.  NULL: no lists, one class */
    const uint32_t *attr_class;
    unsigned attr_nclass;
    int id_entry, id_children, id_objectclass, id_entrydn, id_userpassword;
    /* objectClass values (normalised) that make an entry a subentry:
     * the class subentry and its subclasses; none when the schema has no
     * such class */
    const char *const *subentry_oc;
    const uint32_t *subentry_oc_len;
    unsigned nsubentry_oc;
    uint64_t subentry_oc_bits; /* acreC_name_bit of each, or'ed */
    /* acre_policy_attach_subentries: the policy whose rules, clauses and
     * IR this one shares (a reference), and the collective index */
    struct acre_policy *base;
    const struct acreC_index *coll;
    /* the spec cache */
    pthread_mutex_t lock;
    struct acreP_spec **specs;
    unsigned nspecs, spec_cap;
    uint64_t spec_clock;
    /* the virtual isMemberOf's group index of the last host seen with a
     * generation (memberof.c), under lock */
    struct acreV_moidx *memberof;
    /* ACREI_MODEL_ACI: the ACIs compiled (aci_index.h); NULL otherwise */
    const struct acreP_aci *aci;
};

/* acreV_memberof_drop (memberof.c) -- drop the policy's isMemberOf group
 * index (from its destructor). */
void acreV_memberof_drop(struct acre_policy *p);

/* acreP_specs_drop -- release the spec cache's references (the policy's
 * talloc destructor calls it, however the policy is freed). */
void acreP_specs_drop(struct acre_policy *p);

/* acreP_node_for -- the deepest node at or above dn (never NULL: the root
 * is a node). */
const struct acreP_node *acreP_node_for(const struct acre_policy *p,
                                        const acre_dn *dn);

/* acreP_node_below -- the deepest node among the ancestors of dn (a DN)
 * of depths top down to 1 (top <= min(dn's depth, p->max_depth)), else
 * the root: acreP_node_for with the probes below top skipped. */
const struct acreP_node *acreP_node_below(const struct acre_policy *p,
                                          const acre_dn *dn, unsigned top);

/* acreP_node_slot -- the node hash's slot for node index idx of hash h. */
static inline uint64_t
acreP_node_slot(uint32_t idx, uint64_t h)
{
    return (h >> 32) << 32 | ((uint64_t)idx + 1);
}

/*
 * acreP_node_at -- the node whose DN is the suffix of the last i RDNs of
 * dn (a DN; 1 <= i <= its depth), or NULL: one probe sequence of the node
 * hash, a hit confirmed by its depth and bytes (acre_dn_ancestor's).
 * Invariants: the hash is a power of two in size and never full, so the
 * sequence ends at an empty slot.
 */
static inline const struct acreP_node *
acreP_node_at(const struct acre_policy *p, const acre_dn *dn, unsigned i)
{
    uint64_t h = acreD_h(dn)[i];

    /* a slot whose hash half differs is passed by without reading its
     * node (a large policy's nodes are megabytes: a cache miss each) */
    for (uint32_t k = (uint32_t)h & p->hash_mask;; k = (k + 1) & p->hash_mask) {
        uint64_t v = p->hash[k];
        if (!v)
            return NULL;
        if ((v ^ h) >> 32)
            continue;
        const struct acreP_node *n = &p->nodes[(uint32_t)v - 1];
        if (n->hash != h || n->depth != i)
            continue;
        size_t off = acreD_nrdn(dn)[dn->depth - i];
        size_t len = dn->norm_len - off;
        if (len == n->ndn_len && memcmp(acreD_norm(dn) + off, n->ndn, len) == 0)
            return n;
    }
}

#endif /* ACRE_POLICY_H */
