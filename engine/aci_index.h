/*
 * aci_index.h -- the ACI dialect compiled for evaluation (built by
 * compiler/aci_build.c from the IR of engine/ir_aci.h, read by
 * engine/eval_aci.c).
 *
 *   acreP_aci
 *     holders[0..nholders)     each entry holding ACIs: its DN, and its
 *                              perms[first..first+n)
 *     hash[hash_mask + 1]      open addressing on the holder DN's own
 *                              ancestry hash h[depth]: holder index + 1
 *     perms[0..nperms)         one per "allow|deny (rights) bind-rule" of
 *                              every ACI, grouped by holder
 *
 * The candidates of entry E are the perms of the holders among E's
 * ancestors (E included): one probe per level of E's ancestry hashes,
 * each hit confirmed by comparing normalised bytes, whatever the number
 * of ACIs.  Each perm carries what evaluation needs without the IR walk:
 * its rights, allow/deny, the ACI's targetattr as a bitmap over attribute
 * types, and whether its bind rule depends on the entry (else it is
 * decided once per request).
 *
 * Invariants: built once at compile time, immutable after; any number of
 * threads read it.
 */
#ifndef ACRE_ACI_INDEX_H
#define ACRE_ACI_INDEX_H

#include "acre.h"
#include "ir_aci.h"

#include <stddef.h>
#include <stdint.h>

struct acre_policy;
struct acre_request;
struct acreF_desc;
struct acreF_filter;

/* acreP_aci_perm.flags */
#define ACREP_ACI_ENTRYDEP 0x1u /* the bind rule reads the entry */
#define ACREP_ACI_HASATTR  0x2u /* the ACI has a targetattr */
/* 389 evaluates the bind rules of this ACI again for each entry of an
 * operation: it has userattr, userdnattr, groupdnattr, a macro subject
 * or a userdn whose first URL is ldap:///self (its ACI_ATTR_RULES).
 * Other ACIs' read and search answers are kept for the whole operation
 * from the first entry that asked (acl.c: acl__TestRights's cache), so
 * an entry-dependent rule such as ldap:///parent answers for every entry
 * as it did for the first. */
#define ACREP_ACI_PERENTRY 0x4u
/* The bind rule reads the entry, but 389 keeps its answer from the first
 * entry that asked (ENTRYDEP without PERENTRY: a userdn list naming
 * ldap:///self after another URL, ldap:///parent): which entry asks first
 * then depends on the order 389 evaluates ACIs in (ACREP_ACI_LEVELS). */
#define ACREP_ACI_FIRST    0x8u
/* 389 answers Invalid (LAS_EVAL_INVALID) where the value or operator is
 * one it cannot evaluate, Undefined (LAS_EVAL_FAIL) where the evaluation
 * fails; libaccess walks an ACI's rules for the right in text order, and
 * for an ACI with a deny rule the order then decides (a deny Invalid, or
 * any deny after an allow Invalid, ends the walk without a deny): set on
 * each perm of an ACI with a deny rule and a bind rule that may answer
 * Invalid, whose checks eval_aci.c decides by that walk (aci_walk). */
#define ACREP_ACI_ORDERED  0x10u
/* 389 keeps one answer per ACI and operation for read and for search
 * (acl.c acl__TestRights: aclpb_cache_result), not one per rule; for an
 * ACI with a deny rule the two differ where a rule reads the entry: a
 * read ALLOW kept is evaluated again by the next entry's deny phase, and
 * an evaluation that fails is not kept.  Set on each perm of an ACI with
 * a deny rule and a rule that reads the entry, not PERENTRY: eval_aci.c
 * keeps such an ACI's answers as 389 does (acache). */
#define ACREP_ACI_STATE    0x20u

/* 389's evaluation levels of an ACI (acl.h ACI_ELEVEL_*, set by
 * aclparse.c from its bind rules' keywords in text order): for one check
 * it evaluates the first ACI of each level that takes the check, in level
 * order, then the others in list order (acl__scan_for_acis). */
#define ACREP_ACI_LEVELS 8u /* 0 anyone .. 6 groupdn, 7 the rest */

struct acreP_aci_perm {
    const struct acreI_aci *aci;
    const struct acreI_aci_perm *perm;
    uint32_t aci_no;     /* index of aci in the set: per-entry target memo */
    uint32_t rights;     /* ACREI_ACI_*, as the perm names them */
    uint32_t aci_rights; /* of all the ACI's perms, selfwrite counting as
                            SELFWRITE|WRITE (389's aci_access) */
    uint8_t aci_deny, aci_allow; /* the ACI has a deny / an allow perm */
    uint8_t deny;
    uint8_t flags;           /* ACREP_ACI_* */
    uint8_t level;           /* the ACI's, < ACREP_ACI_LEVELS */
    uint32_t aci_first;      /* perms[aci_first ..]: the ACI's perms */
    const uint64_t *attr_in; /* HASATTR: bit per type id, 1 when the list
                                (before "!=") names the type or "*";
                                NULL without targetattr */
};

struct acreP_aci_holder {
    const acre_dn *dn;
    uint64_t hash; /* acreD_h(dn)[depth] */
    unsigned depth;
    uint32_t first, n; /* perms[first .. first + n) */
};

/*
 * 389's anonymous profile (aclanom.c): when every ACI that lets anyone
 * read or search is a plain allow (userdn only, a DN target or none,
 * a targetfilter, a targetattr list of names), an anonymous read or
 * search check is answered from those ACIs alone whenever one of them
 * takes the entry: an entry-level check is granted by any of them, an
 * attribute check by one whose targetattr names it.  Deny rules and
 * targetscope play no part then.  valid 0: no profile (the ACIs above
 * do not qualify, or there are more than ACREP_ACI_ANON_MAX).
 */
#define ACREP_ACI_ANON_MAX 40 /* 389's ACL_ANOM_MAX_ACL */

struct acreP_aci_anon {
    const struct acreI_aci *aci;
    uint32_t aci_no;
    const acre_dn *target; /* the target DN, else the holder; NULL: a
                              target no entry is under (takes none) */
    uint32_t rights;       /* of all its perms */
    /* a macro targetfilter read as 389's profile reads it, unexpanded
     * ("($dn)" a value's text): the filter the profile tests, else NULL
     * (the ACI's own, if any) */
    const struct acreF_filter *raw_filter;
};

struct acreP_aci {
    const struct acreI_aci_set *set;
    int anon_valid;
    struct acreP_aci_anon *anon;
    unsigned nanon;
    struct acreP_aci_holder *holders;
    uint32_t nholders;
    uint32_t *hash; /* holder index + 1; 0 empty */
    uint32_t hash_mask;
    struct acreP_aci_perm *perms;
    uint32_t nperms;
    uint32_t *fid; /* [set->n]: the number of the ACI's targetfilter
                      among the distinct filter texts (ACIs with the same
                      text share it: one evaluation per entry) */
    uint32_t nfids;
    unsigned attr_words; /* uint64_t words of an attr_in bitmap */
    unsigned max_depth;  /* deepest holder */
    const acre_dn *rootdn;
};

/*
 * acreP_aci_build (compiler/aci_build.c) -- p->aci from p->ir->aci.
 * Returns 0 or ACRE_ERR_NOMEM.  Compile time only.
 */
int acreP_aci_build(struct acre_policy *p);

/*
 * acreV_aci_check (eval_aci.c) -- may the request's requester have
 * `rights` (one ACREI_ACI_* bit) on entry e: on attribute description
 * `attr` (type and options), or on the entry itself when attr is NULL?  1
 * allowed, 0 denied (a failed lookup or allocation denies and is left in
 * rq->err).  Allocation-free once the request has sized its scratch.
 */
int acreV_aci_check(struct acre_request *rq, const acre_entry_view *e,
                    const struct acreF_desc *attr, unsigned rights);

/*
 * acreV_aci_verdict (eval_aci.c) -- e's verdict for a search's read
 * (389's acl_read_access_allowed_on_entry, then each attribute selected
 * by select(arg, a), NULL: all): fills the request's verdict buffers, as
 * acreV_entry_verdict does for other models (verdict_init made room).
 * 0, or ACRE_ERR_NOMEM / ACRE_ERR_LOOKUP.
 */
int acreV_aci_verdict(struct acre_request *rq, const acre_entry_view *e,
                      int (*select)(void *arg, const acre_view_attr *a),
                      void *arg, acre_verdict *out);

/*
 * acreV_aci_filter (eval_aci.c) -- f on e as the requester may search it
 * in a search of `scope` (389: an item on an attribute without search is
 * Undefined; acreF_eval_389): 1 True, 0
 * False or Undefined, or ACRE_ERR_NOMEM / ACRE_ERR_LOOKUP.
 */
int acreV_aci_filter(struct acre_request *rq, const struct acreF_filter *f,
                     const acre_entry_view *e, int scope);

/*
 * acreV_aci_access (eval_aci.c) -- acre_access for an ACI policy: `right`
 * (ACRE_RIGHT_*) on attribute attr of e (NULL: the entry itself), for the
 * value val[0..val_len) when val is not NULL: a write of a value that
 * names the requester is tried as selfwrite, then as write; a write's
 * value, and an added or deleted entry's values, meet the ACIs'
 * targattrfilters.  1 allowed, 0 denied (rq->err as acreV_aci_check).
 */
int acreV_aci_access(struct acre_request *rq, const acre_entry_view *e,
                     const struct acreF_desc *attr, int right, const void *val,
                     size_t val_len);

/*
 * acreV_aci_may_send (eval_aci.c) -- OpenDJ's AciHandler.maySend for
 * entry e in a search with filter f: search on every attribute of f,
 * then e's visibility (1 yes, 0 no, or ACRE_ERR_NOMEM / ACRE_ERR_LOOKUP).
 * The OpenDJ variant only.
 */
int acreV_aci_may_send(struct acre_request *rq, const struct acreF_filter *f,
                       const acre_entry_view *e);

/* acreV_aci_rights -- the ACI right acre_access's `right` on attribute
 * `attr` (entry: "entry" or "children") means; 0 when none. */
unsigned acreV_aci_rights(int right, int entry);

/* acreV_aci_ldapsubentry -- does e have objectClass ldapSubEntry (which
 * 389 returns to one-level and subtree searches only when their filter
 * asks for it)? */
int acreV_aci_ldapsubentry(const acre_schema *s, const acre_entry_view *e);

/*
 * Explaining ACI checks (engine/explain_aci.c tells them): an explained
 * check hands each thing it does to a tracer; ordinary checks have none
 * (one NULL test per candidate and per bind-rule node is all they pay).
 */
enum acreV_aci_evkind {
    ACREV_ACI_EV_ROOT = 1, /* the requester is the directory manager */
    ACREV_ACI_EV_ANON,     /* 389's anonymous profile decided: r 1 granted
                              (by aci, or NULL) or 0 */
    ACREV_ACI_EV_SKIP,     /* perm p does not apply: why */
    ACREV_ACI_EV_TERM,     /* a keyword test or a "not" b of the bind
                              rule being evaluated: r (T 1, F 2, U 3,
                              Invalid 4) */
    ACREV_ACI_EV_PERM,     /* perm p applies, its bind rule gave r (its
                              terms came before this event); kept: r is
                              the answer an earlier check of the request
                              kept (as 389 keeps it), which the walk done
                              again now contradicts; why: for an
                              ACREP_ACI_ORDERED perm, 1 + the ACI's
                              ACREV_ACI_WALK_* answer, else 0 */
    ACREV_ACI_EV_END,      /* the decision: r 1 granted, 0 denied; by p
                              (NULL: nothing decided); limit: a lookup or
                              allocation failed */
    ACREV_ACI_EV_PROXY     /* proxied authorization: the DN bound has no
                              proxy right on the entry, the check is
                              denied (the last event); limit as END */
};

/* 389's libaccess answer for an ACI's rules walked in order (eval_aci.c
 * aci_walk): nothing, ALLOW, DENY, and the two errors, FAIL (an
 * Undefined rule) and INVALID */
#define ACREV_ACI_WALK_NONE    0
#define ACREV_ACI_WALK_ALLOW   1
#define ACREV_ACI_WALK_DENY    2
#define ACREV_ACI_WALK_FAIL    3
#define ACREV_ACI_WALK_INVALID 4

/* ACREV_ACI_EV_SKIP: why */
#define ACREV_ACI_WHY_RIGHTS 1 /* the perm's rights do not cover the check */
#define ACREV_ACI_WHY_ATTR   2 /* targetattr does not take the attribute */
#define ACREV_ACI_WHY_TARGET 3 /* target, targetscope or targetfilter */

struct acreV_aci_event {
    int kind; /* enum acreV_aci_evkind */
    const struct acreP_aci_perm *p;
    const struct acreI_aci *aci; /* ANON: the granting ACI */
    const struct acreI_bind *b;
    int r, why, kept, limit;
};

struct acreV_aci_tracer {
    void (*fn)(void *arg, const struct acreV_aci_event *ev);
    void *arg;
};

/*
 * acreV_aci_explain -- acreV_aci_check with each step handed to t (the
 * same decision: bind answers kept by the request are used, and walked
 * again for their terms).
 */
int acreV_aci_explain(struct acre_request *rq, const acre_entry_view *e,
                      const struct acreF_desc *attr, unsigned rights,
                      const struct acreV_aci_tracer *t);

/*
 * acreV_aci_explain_check (explain_aci.c) -- `rights` on attr (NULL: the
 * entry itself; name: what was asked for, in words) of e, explained:
 * each step to fn(arg) (fn may be NULL) and, when trace is not NULL, a
 * line per step appended to *trace (talloc).  rights 0: `right` (enum
 * acre_right) means nothing under ACIs: denied, and said so.  Returns as
 * acreV_aci_check.
 */
int acreV_aci_explain_check(struct acre_request *rq, const acre_entry_view *e,
                            const struct acreF_desc *attr, const char *name,
                            unsigned rights, int right, char **trace,
                            acre_explain_fn fn, void *arg);

/* acreV_aci_end -- free the request's ACI state (request end). */
void acreV_aci_end(struct acre_request *rq);

/* acreV_aci_operation -- a new operation (a search) begins: no entry has
 * had its proxy right granted in it yet (proxied authorization). */
void acreV_aci_operation(struct acre_request *rq);

#endif /* ACRE_ACI_INDEX_H */
