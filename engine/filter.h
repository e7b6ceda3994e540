/*
 * filter.h -- RFC 4515 search filters: parse once, evaluate many times.
 *
 * Evaluation uses three-valued logic (RFC 4511 4.5.1.7): TRUE, FALSE or
 * UNDEFINED; AND is FALSE if any part is FALSE, else UNDEFINED if any is,
 * else TRUE; OR dually; NOT swaps TRUE and FALSE and keeps UNDEFINED.
 * An item on an unknown attribute type, or whose matching rule does not
 * apply, is UNDEFINED.  An optional access hook lets the access layer say
 * whether the requester may use an attribute (and value) in a filter: a
 * denied item is UNDEFINED.
 */
#ifndef ACRE_FILTER_H
#define ACRE_FILTER_H

#include "acre.h"
#include "entry.h"
#include "schema.h"

#include <stddef.h>
#include <stdint.h>

#define ACREF_MAX_LEN   65536 /* bytes of filter text */
#define ACREF_MAX_DEPTH 64    /* nesting of & | ! */

enum acreF_result { ACREF_FALSE = 0, ACREF_TRUE = 1, ACREF_UNDEFINED = 2 };

enum acreF_kind {
    ACREF_AND,
    ACREF_OR,
    ACREF_NOT,
    ACREF_EQUALITY,
    ACREF_SUBSTRINGS,
    ACREF_GE,
    ACREF_LE,
    ACREF_PRESENT,
    ACREF_APPROX,
    ACREF_EXTENSIBLE,
    ACREF_ABSOLUTE_TRUE,  /* (&) -- RFC 4526 */
    ACREF_ABSOLUTE_FALSE, /* (|) */
};

struct acreF_filter; /* opaque: the parsed tree */

/*
 * acreF_parse -- parse str[0..len) against schema (NULL: built-in).
 * Returns 0 with *out (talloc child of mem_ctx), or an ACRE_ERR_FILTER_*
 * code with diag giving the byte offset (column = offset + 1).
 * The filter refers to the schema, which must outlive it.  Any thread.
 */
int acreF_parse(void *mem_ctx, const acre_schema *schema, const char *str,
                size_t len, struct acreF_filter **out, acre_diag *diag);

/*
 * acreF_parse_flags -- acreF_parse() with flags:
 *   ACREF_STRICT_RULES: an extensible match whose matching rule is unknown
 *   or not usable with its attribute type is the error
 *   ACRE_ERR_FILTER_RULE (at the rule's offset) instead of an UNDEFINED
 *   item, as slapd makes it.  For linting rule text.
 */
#define ACREF_STRICT_RULES 0x1u
/*
 *   ACREF_389_SEARCH: the filter of a search 389 answers: an extensible
 *   item that names no type, or a rule 389 does not know, is the error
 *   ACRE_ERR_FILTER_RULE (389 refuses the search: unavailableCritical-
 *   Extension, 12) instead of an UNDEFINED item.
 */
#define ACREF_389_SEARCH   0x2u
/*
 *   (ACREF_389_SEARCH also rewrites the items on numSubordinates and
 *   hasSubordinates as 389's back end does: filter.c, sub_rewrite; a
 *   filter that is one item it cannot rewrite is parsed, and
 *   acreF_unwilling() says 389 refuses it.)
 */
/*
 *   ACREF_389_NAMES: a filter 389 evaluates on its own entries, whose
 *   types it names by their first name: an item whose type is written
 *   otherwise (an alias, an OID) finds no attribute: it is FALSE (made
 *   an absolute false, so TRUE under a NOT); so is an item on
 *   hasSubordinates, which 389 computes only for the entries it sends.
 *   For a 389 targetfilter (389's search front end maps a search
 *   filter's names first, and so does acre's search).
 */
#define ACREF_389_NAMES    0x4u
/*
 *   ACREF_389_RAWSUBS: a filter 389 tests with a search operation's
 *   parameters, after the search set SLAPI_PLUGIN_SYNTAX_FILTER_NORMALIZED
 *   for its own filter (acllas__client_match_URL: a userdn URL, a
 *   memberURL, an #LDAPURL value): string_filter_sub then takes each
 *   substrings component as written (unescaped, never normalised) and
 *   matches it, bytes as they are, against the value as 389 normalises
 *   it (lowercased for case-ignoring types, spaces squeezed and trimmed):
 *   "(cn=Sam*)" or "(cn=sam  c*)" takes no value of cn.  Other items
 *   are as usual (389 normalises their assertions itself).
 */
#define ACREF_389_RAWSUBS  0x8u
/*
 *   ACREF_NO_OPERATION: a filter slapd tests without an operation
 *   (test_filter(NULL, ...)): an OpenLDAP access rule's filter=.  Its
 *   back end computes hasSubordinates only for an operation, so there
 *   the type is an ordinary one that no entry stores: its items are
 *   FALSE, not the entry's children.
 */
#define ACREF_NO_OPERATION 0x10u
/*
 *   ACREF_389_PARENS: a filter 389 reads as text (slapi_str2filter: an
 *   ACI's targetfilter, its macro expansions): an item ends at the
 *   parenthesis matching its opening one (slapi_find_matching_paren), so
 *   a value may hold balanced parentheses unescaped ("(cn=a(b)c)" is the
 *   value "a(b)c").
 */
#define ACREF_389_PARENS   0x20u

/*
 * acreF_paren_end -- how much of s[0..n) 389's slapi_str2filter reads: a
 * text that starts with '(' up to the parenthesis closing it
 * (slapi_find_matching_paren; a backslash escapes the next byte), what
 * follows ignored; any other text whole.
 */
size_t acreF_paren_end(const char *s, size_t n);

/*
 * acreF_parse_389_text -- s[0..n) read as 389's slapi_str2filter reads a
 * filter text (a targetfilter, its macro expansions): one that starts
 * with '(' up to the parenthesis closing it (acreF_paren_end), any other
 * as one item in parentheses; flags as acreF_parse_flags's (389's reading
 * of values: ACREF_389_PARENS).  Returns acreF_parse_flags's code
 * (ACRE_ERR_NOMEM when the copy it reads fails); the filter is allocated under
 * mem_ctx.
 */
int acreF_parse_389_text(void *mem_ctx, const acre_schema *schema,
                         const char *s, size_t n, unsigned flags,
                         struct acreF_filter **out);

int acreF_parse_flags(void *mem_ctx, const acre_schema *schema, const char *str,
                      size_t len, unsigned flags, struct acreF_filter **out,
                      acre_diag *diag);

/*
 * What the access hook is asked about: an attribute description, its
 * type and its options (lowercase, sorted), exactly as slapd's
 * access_allowed() receives an AttributeDescription.
 */
struct acreF_desc {
    int type;
    unsigned nopts;
    const char *const *opts;
    const uint32_t *opt_len;
};

/*
 * The access hook: may the requester use the attribute described by d
 * (type and options) of entry e in a filter, for this asserted value (the
 * assertion as prepared for its rule; NULL for presence and substrings,
 * as slapd passes none)?  Return 1 to allow; anything else denies, and
 * the item becomes UNDEFINED (or, for an attribute of an item that covers
 * several, is skipped).  It is called where slapd calls
 * access_allowed(ACL_SEARCH), with the description slapd passes: see the
 * banner of filter_eval.c.
 */
typedef int (*acreF_access_fn)(void *ctx, const acre_entry_view *e,
                               const struct acreF_desc *d, const uint8_t *value,
                               size_t len);

/*
 * What an evaluation may ask of its caller: the access hook above (NULL:
 * all allowed), and whether the entry has subordinates (for
 * hasSubordinates: 1 yes, 0 no, negative unknown; NULL: unknown, and such
 * = and ~= items are UNDEFINED), and the virtual isMemberOf, memberOf or
 * nsRole of an entry that stores none (kind ACRE_REQ_ISMEMBEROF,
 * ACRE_REQ_MEMBEROF or ACRE_REQ_NSROLE: is e a member of the group, or
 * holder of the role, normalised DN gdn names, or of any when gdn is
 * NULL: 1 yes, 0 no, 2 no virtual attribute
 * of that kind (the stored values decide), negative unknown; NULL: none).
 */
struct acreF_hooks {
    acreF_access_fn access;
    void *ctx;
    int (*children)(void *arg, const acre_entry_view *e);
    void *children_arg;
    int (*memberof)(void *arg, unsigned kind, const acre_entry_view *e,
                    const uint8_t *gdn, size_t len);
    void *memberof_arg;
    /* the same kind's values of e, for the items that compare them
     * (substrings, ~=, >= and <=; memberof_arg; NULL: such items are
     * UNDEFINED): 0 with *vals[0..*n) until the next call, else an error */
    int (*values)(void *arg, unsigned kind, const acre_entry_view *e,
                  const acre_value **vals, uint32_t *n);
    /* 1: substrings parsed with ACREF_389_RAWSUBS matched as any others
     * (389 outside a search operation's filter test) */
    int normal_subs;
    /* 389's Class of Service (cos.h: acreV_cos_hook; memberof_arg): 1
     * with the values CoS gives e for plain type t, which then decide an
     * item on t alone, 0 when the stored values decide, else an error
     * (the item is UNDEFINED); NULL: none */
    int (*cos)(void *arg, const acre_entry_view *e, int t,
               const acre_value **vals, uint32_t *n);
};

/*
 * acreF_eval -- evaluate f against the entry view e, with the caller's
 * hooks (NULL: none).  The view must be of f's schema.  Allocates nothing
 * but a buffer for a value normalised now that outgrows the stack (freed
 * before returning).  Any thread (f and e are read-only).
 */
enum acreF_result acreF_eval(const struct acreF_filter *f,
                             const acre_entry_view *e,
                             const struct acreF_hooks *h);

/*
 * A map of an entry's attributes by type, for acreF_eval_typed: the
 * caller vouches that each attribute of the entry is a type alone (no
 * options), no two of the same type, each below ntypes; the entry has
 * type t when stamp[t] == ep, as its attribute at[t].
 */
struct acreF_typemap {
    const uint32_t *stamp; /* [ntypes] */
    const uint32_t *at;    /* [ntypes] */
    uint32_t ep;
    unsigned ntypes;
};

/*
 * acreF_plain -- can acreF_eval_typed evaluate f: every item of f an
 * =, ~=, >=, <=, presence or substrings item on one type alone (no
 * subtypes, no options), with no evaluation of its own but objectClass's
 * (no entryDN, hasSubordinates, subschemaSubentry, isMemberOf, memberOf),
 * or Undefined whatever the entry; under AND, OR and NOT.  1 or 0.  Any
 * thread.
 */
int acreF_plain(const struct acreF_filter *f);

/*
 * acreF_eval_typed -- acreF_eval(f, e, h) for a filter acreF_plain takes,
 * whatever hooks h without an access hook: the same result, each item
 * finding its attribute through m instead of scanning e.  Same costs
 * otherwise (allocates as acreF_eval does).  Any thread.
 */
enum acreF_result acreF_eval_typed(const struct acreF_filter *f,
                                   const acre_entry_view *e,
                                   const struct acreF_typemap *m);

/*
 * acreF_eval_389 -- f on e as 389-DS evaluates a search filter under
 * access control (slapi_vattr_filter_test with access checks): an item
 * whose attribute the access hook refuses is Undefined; an OR leaves out
 * the children with any refused item and decides on the others (False
 * when all of those are False; Undefined only when none is left); AND
 * and NOT as three-valued logic.  optimise: the search is one-level or
 * subtree, for which 389 first merges nested ORs into their OR parent
 * (and ANDs into ANDs) the way its filter optimiser reaches them, which
 * changes what an OR asks access for.  Same hooks and costs as
 * acreF_eval.
 */
enum acreF_result acreF_eval_389(const struct acreF_filter *f,
                                 const acre_entry_view *e,
                                 const struct acreF_hooks *h, int optimise);

/*
 * acreF_unwilling -- 1 when f, parsed with ACREF_389_SEARCH, is a filter
 * 389 refuses to search with (unwillingToPerform, 53): a lone item on
 * numSubordinates or hasSubordinates that it cannot rewrite.
 */
int acreF_unwilling(const struct acreF_filter *f);

/*
 * acreF_names_value -- does f hold, anywhere, an equality item whose
 * attribute is written `type` and whose value is written `value` (both
 * compared without case)?  389 returns ldapSubEntry entries to filters
 * naming objectclass=ldapsubentry so.
 */
int acreF_names_value(const struct acreF_filter *f, const char *type,
                      const char *value);

/*
 * acreF_every_item -- item(arg, d) for each item of f in turn, depth
 * first and left to right, whatever the operators above it (d NULL for
 * a rule-only extensible item, which names no attribute; d->type -1 for
 * an attribute the schema does not know), stopping at the first that
 * returns 0.  1 when every item returned 1.  OpenDJ's
 * AciHandler.testFilter: every attribute of a search filter needs the
 * search right.
 */
int acreF_every_item(const struct acreF_filter *f,
                     int (*item)(void *arg, const struct acreF_desc *d),
                     void *arg);

/*
 * The candidates slapd's back-mdb takes for a search filter from its
 * indexes (filter_cand.c): every entry of the database, or the entries
 * named (normalised DNs, pointing into the filter or the host's memory).
 * partial: back-mdb's walk of the indexes failed on a key read (an
 * approximate item's word without a code, after one with a code) and the
 * search goes on with these candidates alone, which may leave out
 * entries the filter matches.
 */
struct acreF_cands {
    int all;
    int partial;
    unsigned n;
    const char **dn;
    size_t *len;
    uint64_t *id; /* each entry's back-mdb ID (acreF_cand_host), 0 unknown */
};

/* What acreF_candidates asks of the database's host. */
struct acreF_cand_host {
    void *arg;
    /* fn(fn_arg, e) for each entry of the database, stopping when fn
     * returns non-zero: 0, fn's value, or a negative ACRE_ERR_* */
    int (*each)(void *arg, int (*fn)(void *fn_arg, const acre_entry_view *e),
                void *fn_arg);
    /* e's ID in back-mdb, its place in slapadd's load order (> 0), or 0
     * when unknown; NULL: every ID unknown, so sets intersect exactly */
    uint64_t (*id)(void *arg, const acre_entry_view *e);
    /* 389 (acreF_candidates_389): the memberOf the request computes for
     * e, asked only when e stores none; 0 or an error; NULL: none */
    int (*memberof)(void *arg, const acre_entry_view *e,
                    const acre_value **vals, uint32_t *n);
};

/*
 * acreF_candidates -- the candidates back-mdb takes for a search with
 * filter f in a database indexed as idx[0..nidx) says, for a requester
 * whose size.unchecked is limit (> 0: an ordered walk stops there), with
 * the subentries control when subentries is 1, into *out (allocated under
 * ctx).  Returns 0, ACRE_ERR_NOMEM, ACRE_ERR_LOOKUP (a host call failed),
 * or ACRE_ERR_UNSUPPORTED when an item's candidates come from index keys
 * acre does not reproduce (filter_cand.c).
 */
struct acreI_index;
int acreF_candidates(void *ctx, const struct acreF_filter *f,
                     const struct acreI_index *idx, unsigned nidx, long limit,
                     int subentries, const struct acreF_cand_host *h,
                     struct acreF_cands *out);

/*
 * acreF_candidates_narrow -- 1 when back-mdb's candidates for f from the
 * indexes idx[0..nidx) can leave out entries f matches even without a
 * size.unchecked limit: f has, outside any NOT, an approximate item
 * answered from an approx index whose assertion has a word without a
 * code after one with a code (the walk fails on it: acreF_cands'
 * partial), or an inequality on an indexed generalizedTime (its keys
 * wrap: filter_cand.c, time_key).  Else 0.
 */
int acreF_candidates_narrow(const struct acreF_filter *f,
                            const struct acreI_index *idx, unsigned nidx);

/*
 * 389-DS's candidates (filter_cand389.c): the IDs its back-ldbm takes
 * from its default indexes for a search of filter f at scope under base,
 * sorted, an ID repeated as often as 389 sends its entry (an inequality
 * reads one index key per value in range), or every entry once (all).
 */
struct acreF_ids389 {
    int all;
    uint64_t *id;
    size_t n;
};

/*
 * acreF_candidates_389 -- the candidates of f into *out (allocated under
 * ctx), the database being the entries h->each gives, numbered by h->id
 * (> 0; required).  A base search takes every entry.  Returns 0,
 * ACRE_ERR_NOMEM, or ACRE_ERR_LOOKUP (a host call failed).
 */
int acreF_candidates_389(void *ctx, const struct acreF_filter *f, int scope,
                         const acre_dn *base, const struct acreF_cand_host *h,
                         struct acreF_ids389 *out);

/*
 * acreF_candidates_389_matter -- 1 when 389's candidates for f can differ
 * from every entry once for what f matches: f has an inequality on an
 * equality-indexed type, or an item on an indexed type that Class of
 * Service may give (one of cos_types[0..ncos)).  Else 0.
 */
int acreF_candidates_389_matter(const struct acreF_filter *f,
                                const int *cos_types, uint32_t ncos);

/* acreF_schema -- the schema f was parsed against (never NULL). */
const acre_schema *acreF_schema(const struct acreF_filter *f);

/*
 * acreF_to_string -- the filter in canonical RFC 4515 form (attribute
 * names as written, values escaped), appended to out; for messages and
 * golden tests.  Returns 0 or ACRE_ERR_NOMEM.
 */
struct acreE_buf;
int acreF_to_string(const struct acreF_filter *f, struct acreE_buf *out);

#endif /* ACRE_FILTER_H */
