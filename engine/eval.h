/*
 * eval.h -- the evaluator's internals: a request (one requester, one
 * operation), a check (one entry, attribute, value and privilege), and the
 * clause evaluation shared by eval.c (tables), eval_who.c (clauses),
 * eval_regex.c (regular expressions) and eval_set.c (set expressions).
 *
 * Memory: nothing on the per-entry path allocates from the system, but
 * for the C library's regexec (eval_regex.c), which takes slapd's
 * submatches of patterns with '|' within a budget.  What a check needs
 * beyond its stack comes from the request's scratch pool (rq->scratch, a
 * talloc pool made at acre_request_begin), emptied at the start of every
 * check; the pool only grows when a set expression or a dynamic group is
 * bigger than any seen before in this request.
 */
#ifndef ACRE_EVAL_H
#define ACRE_EVAL_H

#include "buf.h"
#include "entry.h"
#include "filter.h"
#include "policy.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define ACREV_GROUP_MEMO          16
#define ACREV_MEMO                1024 /* decisions remembered per request */
/* entry contexts whose attribute verdicts a request keeps as bitmaps */
#define ACREV_VCTX                64
#define ACREV_CMEMO               16 /* classes remembered per entry */
/* decisions that depended on the entry through clauses alone, kept with
 * those clauses' answers (eval.c: decide_memo), and the most clauses one
 * keeps */
#define ACREV_PMEMO               64
#define ACREV_PATH_MAX            4
/* entry shapes whose whole verdicts a request keeps: slots at first,
 * the shapes replaced in them after which they grow, at most once, and
 * the slots then (eval.c: shape_keep); the most attributes and values a
 * kept shape has (eval.c: struct acreV_shape) */
#define ACREV_SHAPES              32
#define ACREV_SHAPES_GROW         8
#define ACREV_SHAPES_MAX          256
#define ACREV_SHAPE_MAX           24 /* at most 32: acreV_shape.walk */
#define ACREV_SHAPE_VALUES        48
/* the longest parent DN (normalised bytes) whose index node a request
 * remembers (eval.c: node_of) */
#define ACREV_PARENT_MAX          256
/* memberURL text read for one dynamic group: past it the check denies */
#define ACREV_GROUP_MAX_URL_BYTES (1u << 20)
/* group answers a spec keeps across requests (acreV_group_memo_*) */
#define ACREV_SPEC_GROUPS         256

/* regexec of ACREI_RE_POSIX patterns (eval_regex.c): one call reads at
 * most ACREV_POSIX_BUDGET units, (bytes from the match's start + 1) x
 * acreI_regex.cost -- some 1,700 bytes for a plain 40-node pattern, and
 * at worst (glibc building a DFA state per byte) some 50 ms and 16 MB;
 * a request keeps its own regex_t of up to ACREV_POSIX_SLOTS patterns,
 * each compiled again after ACREV_POSIX_REFRESH units. */
#define ACREV_POSIX_BUDGET  (1u << 19)
#define ACREV_POSIX_REFRESH (1u << 20)
#define ACREV_POSIX_SLOTS   4u

/* A decision that depended on nothing of the entry but its index node
 * and depth: (node, depth, self, type, privilege) -> granted, mask.
 * Every field of the key has bits of its own (acreV_memo_key), so two
 * decisions never share one. */
struct acreV_memo {
    uint64_t key;  /* the node's index << 32 | the type */
    uint32_t mask; /* then the rest of the key: */
    uint16_t ctx;  /* the entry's depth << 5 | self << 4 | privilege */
    uint8_t granted;
};

/* The key of a memo slot for a decision of type at node index node for
 * an entry of this depth (at most ACRE_DN_MAX_RDNS), whether it is the
 * requester, and privilege want. */
struct acreV_memo_key {
    uint64_t key;
    uint16_t ctx;
};

static inline struct acreV_memo_key
acreV_memo_key(uint32_t node, unsigned depth, int is_self, int type,
               unsigned want)
{
    /* depth <= ACRE_DN_MAX_RDNS < 2^11, want <= ACREI_ACCESS_MANAGE < 16
     * (asserted in eval.c) */
    struct acreV_memo_key k;

    k.key = (uint64_t)node << 32 | (uint32_t)type;
    k.ctx = (uint16_t)(depth << 5 | (unsigned)(is_self != 0) << 4 | want);
    return k;
}

/*
 * A decision that depended on the entry only through the answers of some
 * clauses (sets, dnattr, groups that are the entry...), none of which
 * looked at the value or a rule's submatches: the key of struct
 * acreV_memo, those clauses (index << 1 | answer) in the order the walk
 * asked them, and what it decided.  Another entry with the same key whose
 * clauses answer the same is decided the same: the walk in between
 * depended on nothing else.
 */
struct acreV_pmemo {
    uint64_t key;
    uint16_t ctx;
    uint8_t npath;
    uint8_t granted;
    uint32_t mask;
    int32_t decided;
    uint32_t path[ACREV_PATH_MAX];
};

/*
 * A whole entry verdict whose entry decision depended on nothing but the
 * entry context (node, depth, self, privilege: the key of the verdict
 * bitmaps), kept for the entry's shape: its attributes' ids and value
 * counts, in order.  Each attribute's answer came from the memo's kind of
 * decision (so it is ACRE_ATTR_NONE or _ALL, the same for all of the
 * attribute's values), or is marked to be walked again (walk).  Checked
 * in full (context, count, every id and value count) before it answers;
 * the verdict's arrays point here when nothing is walked, else they are
 * copied to the request's and the walks fill in their attributes.
 */
struct acreV_shape {
    uint64_t ctx; /* the context's key, as vctx_key */
    uint32_t nattrs;
    uint8_t visible;
    uint8_t nvalues; /* the values of all the attributes */
    /* bit i: attribute i's answer depended on the entry (a filter, a
     * set, dnattr, a value...): walked again for each entry, the others
     * answered from here */
    uint32_t walk;
    /* an attribute's id and nvals, the first 8 bytes of its
     * acre_view_attr, as they are stored there */
    uint64_t idn[ACREV_SHAPE_MAX];
    uint32_t first[ACREV_SHAPE_MAX]; /* the verdict's arrays */
    uint8_t ans[ACREV_SHAPE_MAX];
    uint8_t value[ACREV_SHAPE_VALUES];
};

struct acreC_result; /* collective.c */
struct acreV_posix;  /* eval_regex.c */
struct acreC_cache;

/* Clause states in a spec (per requester identity) */
enum acreV_state {
    ACREV_UNKNOWN = 0,
    ACREV_FALSE,   /* never applies for this requester */
    ACREV_TRUE,    /* applies to every entry */
    ACREV_RESIDUAL /* requester part holds; entry part checked per check */
};

/* A fixed group's membership for a spec's requester, valid while the
 * host it was read from (its arg) has this generation. */
struct acreV_gmemo {
    const struct acreI_group *g;
    const void *host;
    uint64_t gen;
    int member;
};

struct acreP_spec {
    int refs; /* atomic; the cache holds one */
    uint64_t key;
    char *id; /* the identity, for exact comparison */
    size_t id_len;
    uint64_t last_use;
    uint8_t *state; /* [policy->nclauses], enum acreV_state */
    /* group answers across requests (under lock; ring of
     * ACREV_SPEC_GROUPS, next slot to replace at gnext) */
    pthread_mutex_t lock;
    struct acreV_gmemo *groups;
    unsigned ngroups, gnext;
};

struct acre_request {
    uint32_t magic; /* ACREE_REQUEST_MAGIC (internal.h: Handles) */
    struct acre_policy *p;
    struct acreP_spec *spec;
    acre_host host; /* the host's lookups (all NULL: none) */
    const acre_schema *schema;
    /* the requester */
    acre_subject who;                    /* strings copied */
    const acre_dn *authz, *authc;        /* NULL: anonymous */
    const char *authz_norm, *authc_norm; /* "" when anonymous */
    size_t authz_len, authc_len;
    /* the requester's entry through host.get, fetched at first use:
     * authz_state 0 not yet, 1 fetched (authz_entry NULL: none), -1 the
     * lookup failed (every check that needs it denies) */
    const acre_entry_view *authz_entry;
    int authz_state;
    int *is_root; /* per section index: authz is its rootdn */
    /* scratch */
    void *mem;     /* talloc parent of everything below */
    void *scratch; /* talloc pool, emptied per check */
    void *md;      /* pcre2_match_data_8 *, ACREI_MAX_MATCHES pairs */
    /* the last attribute name acre_access parsed to a type without
     * options (hosts check an entry's attributes one after another, and
     * a search's filter attribute on every candidate) */
    char last_name[32];
    uint32_t last_len; /* 0: none */
    int32_t last_type;
    /* the per-entry test cache, [p->ntests]: a rule filter's answer, a
     * REGEX target's match; valid while test_epoch[i] is epoch */
    uint8_t *test_state; /* 1 true, 2 false */
    uint32_t *test_epoch;
    uint32_t epoch;
    /* the verdict buffers of acre_entry_decide */
    uint8_t *v_attr, *v_value;
    uint32_t *v_first;
    size_t v_attr_cap, v_value_cap;
    char *matched; /* acre_search's matched DN */
    /* collective attributes: the verdict buffers, the result (made at
     * first use, collective.c) and the request's ACRE_REQ_* flags */
    uint8_t *vc_attr, *vc_value;
    uint32_t *vc_first;
    size_t vc_attr_cap, vc_value_cap;
    /* ACRE_REQ_ATTRSONLY: the attributes' answers (search.c) */
    uint8_t *ao_attr;
    size_t ao_cap;
    struct acreC_cache *coll;
    unsigned flags;
    struct acreV_posix *posix; /* regex_t copies (eval_regex.c), or NULL */
    /* the virtual isMemberOf, memberOf and nsRole (memberof.c): the group
     * and role index held, its visited set and stack, and whether a
     * memberURL or nsRoleFilter filter is being evaluated (it sees no
     * virtual attribute) */
    struct acreV_moidx *mo;
    uint8_t *mo_seen;
    uint32_t *mo_stack;
    acre_value *mo_vals;  /* the values acreV_memberof_values gives */
    acre_value *mo_rvals; /* ... and acreV_nsrole_values */
    int mo_busy;
    /* 389's Class of Service (cos.c): the memory of the last query's
     * values, and whether a query is running */
    void *cos_mem;
    const char **cos_names; /* acre_entry_cos_names */
    int cos_busy;
    /* the running query's state and lookup depth, for a nested one (a
     * role filter testing a CoS type while CoS reads nsRole) */
    void *cos_q;
    unsigned cos_depth;
    /* acre_effective_rights is answering (389 evaluates its GER in a
     * pblock of its own), or a search's missing base is being judged
     * (find_entry, before the search sets FILTER_NORMALIZED): URL filters
     * take substrings as usual (ACREF_389_RAWSUBS ignored) */
    int ger;

    /* fixed-DN groups this request has looked at: membership when the
     * group is not the entry checked (requester and directory only) */
    struct {
        const struct acreI_group *g;
        int member;
    } groups[ACREV_GROUP_MEMO];

    unsigned ngroups;
    int limit_hit;  /* a bound was reached or a lookup failed during the
                       current check: it denies */
    int limit_code; /* which: ACRE_ERR_EVAL_LIMIT (0 too), ACRE_ERR_LOOKUP,
                       ACRE_ERR_NOMEM */
    struct acreE_buf vbuf;     /* values normalised for checks (heap, kept
                                  for the request's life) */
    size_t set_work;           /* steps left for set expressions in this request
                                  (ACREV_SET_REQUEST_WORK at the start) */
    struct acre_request *anon; /* NULL, or the anonymous companion of a
                                  set's ldap:/// search in a database
                                  without a rootdn (acreV_anon_request) */
    unsigned anon_depth;       /* companions above this request */
    int fail_code; /* the first acreV_fail code since cleared (zero): a
                      companion's failures fail the check it serves, a
                      bound hit included (an empty set may grant) */
    int err;       /* a lookup or allocation failed since the current verdict
                      or search began (ACRE_ERR_LOOKUP, ACRE_ERR_NOMEM): what
                      it returns */
    struct acreV_memo *memo;              /* [ACREV_MEMO], not zeroed: */
    uint64_t memo_valid[ACREV_MEMO / 64]; /* which slots hold a decision */
    /* the memo again, for entry verdicts: per entry context (node, depth,
     * self, privilege) a bit per attribute type without options whose
     * verdict it keeps, then a bit per type granted; NULL: none */
    uint64_t vctx_key[ACREV_VCTX]; /* 0: free */
    uint64_t *vctx_bits;           /* [ACREV_VCTX][2][attr_words], not zeroed */
    /* whole verdicts by entry shape (struct acreV_shape), direct-mapped;
     * NULL: none (ACI policies) */
    struct acreV_shape *shapes; /* [shape_mask + 1], not zeroed: */
    uint64_t shapes_valid[ACREV_SHAPES_MAX / 64]; /* which slots hold one */
    unsigned shape_mask;  /* the slots, less one: a power of two less one */
    unsigned shape_evict; /* shapes replaced since the table was made */
    int shape_grow;       /* whether the table may grow (not fixed) */

    /* the last entry's parent (eval.c: node_of): its normalised text,
     * depth (0: none kept) and hash h[depth], and the deepest index node
     * at or above it */
    struct acreV_parent {
        uint64_t h;
        const struct acreP_node *node;
        uint32_t depth, len;
        char text[ACREV_PARENT_MAX];
    } parent;

    /* decisions that depended on the entry, kept for the other types of
     * their attribute class among the same entry's checks (eval.c:
     * decide_memo); valid while epoch is the check's */
    struct acreV_cmemo {
        uint32_t epoch, cls; /* the class */
        uint32_t want;       /* the access */
        const struct acreP_node *node;
        uint32_t mask;
        int granted;
        size_t steps; /* of set expressions: charged again */
    } cmemo[ACREV_CMEMO];
    struct acreV_pmemo pmemo[ACREV_PMEMO]; /* not zeroed: */
    uint64_t pmemo_valid;                  /* which slots hold a decision */
    struct acreV_setdn *set_dns;    /* eval_set.c: the entries set elements
                                       named in this request, or NULL */
    struct acreV_setlast *set_last; /* eval_set.c: the last set value
                                       decided, or NULL */
    struct acreV_setclo *set_clo;   /* eval_set.c: x/attr* closures from one
                                       element, or NULL */
    uint32_t set_user_h;      /* eval_set.c: the hash of user (authz_norm) */
    int set_user_hok;         /* ... once computed */
    struct acreV_aci_rq *aci; /* eval_aci.c: ACI state, made at first use */
};

/* Submatches for $-substitution (slapd's AclRegexMatches). */
struct acreV_matches {
    const char *dn_src; /* the entry's normalised DN, or NULL */
    int dn_count;
    int dn[ACREI_MAX_MATCHES][2];
    const char *val_src; /* the normalised value (NUL-terminated), or NULL */
    int val_count;
    int val[ACREI_MAX_MATCHES][2];
};

/* One check */
struct acreV_check {
    struct acre_request *rq;
    const acre_entry_view *e;
    const acre_entry_view *fe; /* what a rule's filter= sees: e, or e with
                                  its collective values (acreC_merged) */
    const char *endn;          /* the entry's normalised DN */
    size_t endn_len;
    /* endn is slapd's text too: 0 not known yet, 1 yes, 2 no (then
     * acreV_slapd_dn makes slapd's at each use) */
    int endn_slapd;
    int type; /* attribute type id */
    unsigned nopts;
    const char *const *opts; /* lowercased, sorted */
    const uint32_t *opt_len;
    const uint8_t *val; /* normalised value, NULL: none (or not made yet:
                           acreV_check_val) */
    size_t val_len;
    const acre_view_attr *va; /* the stored value checked, normalised at
                                 first use: va->vals[vi]; NULL: val is
                                 given */
    unsigned vi;
    const char *val_str; /* val NUL-terminated (scratch), or NULL */
    int asis;            /* val is compared as given, never parsed or
                            rewritten (ACRE_ACCESS_PREPARED, _AFTER_ATTR):
                            slapd compares such values byte for byte */
    int valdep;          /* OUT of a decision: something it used depended on
                            the value (a value condition was tested, or a
                            value-dependent clause evaluated) */
    int is_self;         /* the entry is the requester (authz DN) */
    unsigned depth;      /* the entry's */
    uint64_t key_base;   /* an entry context's key's part fixed by the
                            entry (eval.c: key_base) */
    int entrydep;        /* OUT of a decision: something it used depended on
                            the entry beyond its index node and depth (a
                            filter, a regex scope, the value, an entry part
                            of a clause) */
    char **trace;        /* explain: append here when not NULL */
    const struct acreV_steps *steps; /* explain: structured steps (eval.c),
                                        or NULL */
    /* OUT of a decision, for the values that follow (slapd's value state,
     * eval.c: value_state): the rule where a value condition or a clause
     * with "self" access was first reached (-1: none), whether it was
     * the clause, and then the last rule that matched and broke before
     * it (-1: none); the rule that decided (-1: none, -2: not known) */
    int32_t vd_rule, vd_prev, decided, broke;
    int vd_self;
    /* OUT of a decision (struct acreV_pmemo): the clauses whose answers
     * made it depend on the entry, index << 1 | answer, while path_ok:
     * nothing else did */
    int path_ok;
    unsigned npath;
    uint32_t path[ACREV_PATH_MAX];
    /* IN: value conditions of rules up to this one (their index) never
     * hold: a value's check resuming after a check without one
     * (ACRE_ACCESS_AFTER_ATTR); -1 none */
    int32_t val_skip;
    int walked; /* the walks of a kept shape (eval.c: shape_walk): their
                   answers are never the memo's, which is not probed */
};

/* ------------------------------------------------------------------------
 * eval.c
 */

/*
 * acreV_check_init -- a check of entry e for the attribute description d
 * (type and options; NULL: type `type` alone) and normalised value
 * val[0..len) (NULL: the attribute as a whole).
 */
void acreV_check_init(struct acreV_check *c, struct acre_request *rq,
                      const acre_entry_view *e, int type,
                      const struct acreS_dinfo *d, const uint8_t *val,
                      size_t len);

/*
 * acreV_check_stored -- make c a check of value j of e's attribute a (its
 * description and that value, normalised when a rule first looks at it).
 */
static inline void
acreV_check_stored(struct acreV_check *c, const acre_view_attr *a, unsigned j)
{
    const struct acreS_dinfo *d = acreS_desc_of(c->rq->schema, a->id);

    c->type = d->type;
    c->nopts = d->nopts;
    c->opts = d->opts;
    c->opt_len = d->opt_len;
    c->va = a;
    c->vi = j;
    c->val = NULL;
    c->val_len = 0;
    c->val_str = NULL;
}

/*
 * acreV_check_val -- the check's value, normalised (the host's form, or
 * made now in the request's buffer), or NULL when the check has none.  A
 * value that cannot be normalised sets rq->limit_hit (the check denies).
 */
const uint8_t *acreV_check_val(struct acreV_check *c, size_t *len);

/*
 * acreV_fail -- record that the current check cannot be decided (code:
 * ACRE_ERR_EVAL_LIMIT, ACRE_ERR_LOOKUP, ACRE_ERR_NOMEM): it denies.
 */
void acreV_fail(struct acre_request *rq, int code);

/* slapd's access-control state over the checks of one attribute's values
 * (eval.c: value_state_start, value_state_next) */
struct acreV_value_state {
    int on;           /* a resume point is recorded */
    int in_db;        /* ... among the database's rules, or before */
    long at;          /* its position there, -1 before the first */
    unsigned long fe; /* as_fe_done */
    uint32_t s0, ns;  /* the database's rules in policy->rules */
    uint32_t g0, ng;  /* the frontend's */
};

/*
 * slapd's checks of an attribute without a value, then of its values with
 * the state the first left (backend_attribute, and so slapo-collect's
 * sources): acreV_values_begin decides c, the attribute's check, and
 * returns its answer (0: no value is read); then, for each value in
 * order, point c at it (acreV_check_stored, or c's val fields) and
 * acreV_values_next answers it.
 */
struct acreV_values {
    struct acreV_value_state vs;
    int all; /* every value has the attribute's answer g */
    int g;
    int32_t skip; /* the values' walks resume after this rule */
};

int acreV_values_begin(struct acreV_values *it, struct acreV_check *c,
                       enum acreI_access want, uint32_t *mask);
int acreV_values_next(struct acreV_values *it, struct acreV_check *c,
                      enum acreI_access want, uint32_t *mask);

/*
 * acreV_decide -- slapd's access_allowed for check c: 1 granted, 0 denied;
 * *mask (may be NULL) the mask it reports.  Allocation-free.
 */
int acreV_decide(struct acreV_check *c, enum acreI_access want, uint32_t *mask);

/*
 * acreV_entry_verdict -- fill the request's verdict buffers for e:
 * `want` on "entry", then on each value of each attribute for which
 * select(arg, attr) is non-zero (NULL: all), the collective ones too (cr:
 * e's collective result when the caller has it, else NULL: computed here
 * under an attached policy; collectiveAttributeSubentries only when
 * select asks for it).  0, ACRE_ERR_NOMEM or ACRE_ERR_LOOKUP; on an error
 * *out shows nothing.
 */
int acreV_entry_verdict(struct acre_request *rq, const acre_entry_view *e,
                        enum acreI_access want,
                        int (*select)(void *arg, const acre_view_attr *a),
                        void *arg, const struct acreC_result *cr,
                        acre_verdict *out);

/*
 * acreV_authz_entry -- the requester's entry through the host (fetched
 * once per request), or NULL: anonymous, no such entry, or the lookup
 * failed (then rq->limit_hit is set: the check denies).
 */
const acre_entry_view *acreV_authz_entry(struct acre_request *rq);

/*
 * acreV_attr_lists -- does attribute a hold the DN whose normalised text
 * is ndn[0..n) as one of its values (compared by a's equality rule)?
 * 1 or 0.  Allocation-free for DNs of ordinary length.
 */
int acreV_attr_lists(const acre_schema *s, const acre_view_attr *a,
                     const char *ndn, size_t n);

/*
 * acreV_unchecked -- the size.unchecked limit slapd puts on rq's search
 * under base (limits.c): ACRE_LIMIT_NONE, 0 ("disabled": every search is
 * refused), or the most candidates back-mdb may take.  Returns 0, or a
 * negative ACRE_ERR_* (a limits selector's lookup or regex failed).
 */
int acreV_unchecked(struct acre_request *rq, const acre_dn *base, long *out);

/*
 * acreV_host_get -- the entry named dn through the host: 1 with *out (to
 * hand back with acreV_host_release), 0 none; a failed or missing lookup
 * sets rq->limit_hit (ACRE_ERR_LOOKUP) and gives 0.
 */
int acreV_host_get(struct acre_request *rq, const acre_dn *dn,
                   const acre_entry_view **out);
void acreV_host_release(struct acre_request *rq, const acre_entry_view *e);

/*
 * acreV_set_shape_slots -- tests only: the requests begun after it keep
 * their entry shapes in n slots (a power of two, at most
 * ACREV_SHAPES_MAX) and never grow them, so that shapes and contexts
 * collide; 0 restores the default (ACREV_SHAPES, grown as shape_keep
 * grows them).  Not thread-safe: call with no request beginning.
 */
void acreV_set_shape_slots(unsigned n);
/* acreV_shape_slots -- the slots rq keeps shapes in now (0: none). */
unsigned acreV_shape_slots(const struct acre_request *rq);
/* acreV_shape_table -- rq's first table of shapes (request begin):
 * ACRE_ERR_NOMEM if it cannot be made. */
int acreV_shape_table(struct acre_request *rq);

/*
 * acreV_group_memo_get / _put -- the membership of fixed group g kept in
 * the request's spec for its host and generation: get gives 1 with
 * *member when known; put keeps it (nothing when the host's generation
 * is 0).  Any thread: the spec's lock is held briefly.
 */
int acreV_group_memo_get(struct acre_request *rq, const struct acreI_group *g,
                         int *member);
void acreV_group_memo_put(struct acre_request *rq, const struct acreI_group *g,
                          int member);

/* acreV_filter_hooks -- hooks for acreF_eval that read the host (its
 * has_children, and its groups for the virtual isMemberOf), with the
 * given access hook. */
struct acreF_hooks acreV_filter_hooks(struct acre_request *rq,
                                      acreF_access_fn access, void *ctx);

/*
 * acreV_anon_request -- rq's anonymous companion: the identity slapd gives
 * a set's ldap:/// search in a database without a rootdn (acl_set_gather:
 * the database's empty rootdn, on the requester's connection, so the real
 * DN stays the requester's), begun at its first use and ended with rq;
 * NULL (rq failed: ACRE_ERR_NOMEM, or ACRE_ERR_EVAL_LIMIT past
 * ACREV_ANON_DEPTH companions, where slapd would recurse without end).
 */
#define ACREV_ANON_DEPTH 4
struct acre_request *acreV_anon_request(struct acre_request *rq);

/*
 * acreV_search_base -- may rq search base entry e (back-mdb's check of a
 * search's base: search on the entry)?  acreV_search_match -- does f
 * take e as rq may search it (each item's attribute needs search)?  1
 * yes, 0 no, or a negative ACRE_ERR_* (engine/search.c).
 */
int acreV_search_base(struct acre_request *rq, const acre_entry_view *e);
int acreV_search_match(struct acre_request *rq, const struct acreF_filter *f,
                       const acre_entry_view *e);

/* acreV_filter_eval -- acreF_eval, and an allocation refused on the way
 * (acreE_nomem) fails the check (acreV_fail: ACRE_ERR_NOMEM) and gives
 * Undefined: a value the evaluator could not normalise is no proof of a
 * mismatch.  acreV_filter_eval_389 the same for acreF_eval_389. */
enum acreF_result acreV_filter_eval(struct acre_request *rq,
                                    const struct acreF_filter *f,
                                    const acre_entry_view *e,
                                    const struct acreF_hooks *h);
enum acreF_result acreV_filter_eval_389(struct acre_request *rq,
                                        const struct acreF_filter *f,
                                        const acre_entry_view *e,
                                        const struct acreF_hooks *h,
                                        int may_ldapsubentry);

/* ------------------------------------------------------------------------
 * eval_who.c
 */

/*
 * acreV_clause_requester -- the requester-only part of clause b: 1 holds
 * (or b has none), 0 not.  Deterministic for a requester identity and a
 * directory; called once per clause per spec.
 */
int acreV_clause_requester(struct acre_request *rq,
                           const struct acreI_clause *b, uint8_t flags);

/*
 * acreV_clause_entry -- the entry-dependent part of clause b for check c:
 * 1 holds, 0 not.  m: the submatches of the rule's target (regex scope or
 * value); tm: the ones its DN style gives ($0 the DN, $1 the pattern's
 * part) -- as the oracle's by_matches takes them.  A limit reached sets
 * rq->limit_hit and returns 0.
 */
int acreV_clause_entry(struct acreV_check *c, const struct acreI_clause *b,
                       uint8_t flags, const struct acreV_matches *m,
                       const struct acreV_matches *tm);

/*
 * acreV_clause_flags -- classify clause b (compile time): ACREP_C_* bits.
 */
uint8_t acreV_clause_flags(const struct acreI_clause *b);

/*
 * acreV_dn_parse -- slapd's strict dnNormalize of s[0..n) (eval_who.c),
 * NULL when it is not a DN (blanks only are refused, as slapd does) or
 * memory ran out.  The DN is built in local (size bytes; NULL: none) when
 * it fits, else in *big: ACRE_DN_BUF_MAX bytes taken from ctx the first
 * time one is needed (*big NULL) and reused after.  The DN lives as long
 * as the buffer it was built in.
 */
const acre_dn *acreV_dn_parse(const acre_schema *schema, void *local,
                              size_t size, void *ctx, void **big, const char *s,
                              size_t n);

/*
 * acreV_slapd_dn -- normalised DN text s[0..n) as slapd writes its
 * normalised DNs: where acre escapes a special character of a value as
 * "\c", slapd writes "\XX" (uppercase hex), and it writes an '=' inside
 * a value as "\3D".  slapd's DN regexes and the substitutions they feed
 * see that text.  Returns s itself when the two agree (no escape and no
 * '=' in a value: nearly every DN), else a NUL-terminated copy in the
 * request's scratch pool (NULL when out of memory); *len gets its length.
 */
const char *acreV_slapd_dn(struct acre_request *rq, const char *s, size_t n,
                           size_t *len);

/* acreV_find_desc -- the first attribute of e with exactly description d
 * (slapd's attr_find), or NULL. */
const acre_view_attr *acreV_find_desc(const acre_schema *s,
                                      const acre_entry_view *e,
                                      const struct acreI_attrspec *d);

/* acreV_limits_group -- is the requester a member of fixed group g
 * (a "limits group=" selector: slapd's backend_group with no entry at
 * hand), through the request's group memo and host lookups?  1 yes, 0
 * no or anonymous, and 0 with rq->limit_hit set when a lookup failed or
 * a bound was reached. */
int acreV_limits_group(struct acre_request *rq, const struct acreI_group *g);

/* ------------------------------------------------------------------------
 * eval_regex.c
 */

/* acreV_regex_match -- run a compiled IR regex on s[0..n) with the
 * request's match data; fills off[0..noff) (unset: -1) when noff > 0,
 * as slapd's regexec would (ACREI_RE_POSIX patterns within
 * ACREV_POSIX_BUDGET).  1 match, 0 none, and 0 with rq->limit_hit set
 * when a limit is reached or memory ran out. */
int acreV_regex_match(struct acre_request *rq, const struct acreI_regex *re,
                      const char *s, size_t n, int (*off)[2], int noff);

/* acreV_regex_match_text -- compile pattern (an expanded template) with
 * the dialect's hook into scratch and match it on s; 1, 0 (also for a
 * pattern slapd's regcomp refuses), and 0 with rq->limit_hit set when
 * the pattern is too costly to compile per check or a limit is
 * reached. */
int acreV_regex_match_text(struct acre_request *rq, const char *pattern,
                           const char *s, size_t n);

/* ------------------------------------------------------------------------
 * eval_set.c
 */

/* acreV_set_matches -- is set's value non-empty for check c?  tm: the
 * submatches set.expand substitutes.  Bounded: past the limits
 * (ACREV_SET_MAX_DNS DNs in one intermediate set, ACREI set depth) the
 * check denies with rq->limit_hit set. */
#define ACREV_SET_MAX_DNS      65536
#define ACREV_SET_REQUEST_WORK ((size_t)1 << 26)
/* Elements (DN texts) whose entry a request remembers for set gathering
 * when its host keeps views for the request (no release function). */
#define ACREV_SET_DN_MEMO      8192
/* Closures (x/attr* from one element) a request remembers, and the
 * elements and bytes of element text they may hold in all. */
#define ACREV_SET_CLO_MEMO     4096
#define ACREV_SET_CLO_ELEMS    65536
#define ACREV_SET_CLO_BYTES    ((size_t)4 << 20)
int acreV_set_matches(struct acreV_check *c, const struct acreI_set *set,
                      const struct acreV_matches *tm);

/* ------------------------------------------------------------------------
 * memberof.c
 */

/*
 * acreV_memberof -- the virtual isMemberOf (kind ACRE_REQ_ISMEMBEROF) or
 * memberOf (ACRE_REQ_MEMBEROF) of e for request arg: is e a member
 * (directly, nested, or for isMemberOf dynamically) of the group named by
 * the normalised DN gdn[0..len), or of any group when gdn is NULL?  1 yes,
 * 0 no, 2 when the request does not compute that kind (its flag unset),
 * -1 unknown: the group index could not be built (the request is failed:
 * ACRE_ERR_LOOKUP, ACRE_ERR_NOMEM) or a memberURL filter asked.  The index
 * is built at the first need per host and generation.
 */
int acreV_memberof(void *arg, unsigned kind, const acre_entry_view *e,
                   const uint8_t *gdn, size_t len);

/*
 * acreV_memberof_values -- the virtual isMemberOf or memberOf (kind as
 * above) of e: the DNs of every group e is in (directly, nested, or for
 * isMemberOf dynamically) as the group entries have them, in the order of
 * their normalised DNs; *n 0 when the request does not compute that kind.
 * The values live in the request's scratch until its next call here.  0,
 * or the request's error (ACRE_ERR_LOOKUP, ACRE_ERR_NOMEM) with no values.
 */
int acreV_memberof_values(struct acre_request *rq, unsigned kind,
                          const acre_entry_view *e, const acre_value **vals,
                          uint32_t *n);

/*
 * acreV_nsrole_values -- the virtual nsRole of e (389's roles, under
 * ACRE_REQ_NSROLE): the normalised DNs of the roles e holds, in their
 * order; *n 0 without the flag.  Lifetime and errors as
 * acreV_memberof_values.  A role whose nested definitions take more than
 * ACREV_ROLE_STEPS steps to decide for the entry is left out (a filter
 * item asking for it is UNDEFINED).
 */
#define ACREV_ROLE_NEST  8    /* nested roles followed this deep (389) */
#define ACREV_ROLE_STEPS 4096 /* role definitions looked at per entry */
int acreV_nsrole_values(struct acre_request *rq, const acre_entry_view *e,
                        const acre_value **vals, uint32_t *n);

/*
 * acreV_role_scope -- the DN whose parent's subtree holds role entry
 * role's members (389's roles_is_inscope): its nsRoleScopeDN (first value)
 * when that is a DN of the role's suffix (the topmost entry the host holds
 * above each is the same), else the role's own DN.  *out lives under ctx
 * or with role.  0, or ACRE_ERR_NOMEM.
 */
int acreV_role_scope(struct acre_request *rq, void *ctx,
                     const acre_entry_view *role, const acre_dn **out);

/*
 * acreV_virtual_values -- the filter hook's values (filter.h): kind
 * ACRE_REQ_ISMEMBEROF or ACRE_REQ_MEMBEROF as acreV_memberof_values,
 * ACRE_REQ_NSROLE as acreV_nsrole_values, for request arg.
 */
int acreV_virtual_values(void *arg, unsigned kind, const acre_entry_view *e,
                         const acre_value **vals, uint32_t *n);

/* acreV_memberof_end -- drop the request's reference on its index. */
void acreV_memberof_end(struct acre_request *rq);

#endif /* ACRE_EVAL_H */
