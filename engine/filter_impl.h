/*
 * filter_impl.h -- the layout of a parsed filter, shared by the files of
 * the filter module only (filter.c parses and prints, filter_eval.c
 * evaluates, filter_approx.c does approximate matching).  Not a contract
 * for other modules: they use filter.h.
 *
 * A parsed filter is a tree of nodes, every one a talloc child of the
 * acreF_filter that owns it:
 *
 *   acreF_filter { magic, schema, nattrs, root }
 *        |
 *        v
 *   node AND/OR { kids[0..nkids) }      node NOT { kids[0] }
 *   node EQUALITY/GE/LE/APPROX/PRESENT/SUBSTRINGS/EXTENSIBLE
 *        { desc (as written), want (type id + lowercased sorted options),
 *          types (bitmap of the type and its subtypes, or NULL),
 *          raw value (unescaped), norm (prepared for the rule), ... }
 *
 * Invariants: everything a node points to lives in the filter's talloc
 * tree and never changes after acreF_parse() returns; `undef` nodes are
 * UNDEFINED for every entry and are never given to the access hook (but
 * a `vdn` memberOf item on an entry whose memberOf is computed);
 * every other attribute item has a known type (want.type >= 0) and a
 * prepared assertion; bitmaps have acreS_nattrs() (types) or
 * acreS_nclasses() (classes) bits.
 */
#ifndef ACRE_FILTER_IMPL_H
#define ACRE_FILTER_IMPL_H

#include "filter.h"
#include "match.h"
#include "schema.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define ACREF_MAGIC 0x61637266u /* "acrf" */

/*
 * Extensible-match rules slapd has that match.h does not, numbered past
 * the match.h rules: Active Directory's bitwise rules on INTEGER values
 * (the assertion prepared as an integer), and slapd's rules relating two
 * DNs (schema_init.c, dn.c dnRelativeMatch; the assertion prepared as a
 * DN; slapd's alone: a 389 schema does not know them).
 */
#define ACREF_RULE_BITAND        (ACREM_COUNT + 1) /* integerBitAndMatch */
#define ACREF_RULE_BITOR         (ACREM_COUNT + 2) /* integerBitOrMatch */
#define ACREF_RULE_DNSUBTREE     (ACREM_COUNT + 3) /* dnSubtreeMatch */
#define ACREF_RULE_DNONELEVEL    (ACREM_COUNT + 4) /* dnOneLevelMatch */
#define ACREF_RULE_DNSUBORDINATE (ACREM_COUNT + 5) /* dnSubordinateMatch */
#define ACREF_RULE_DNSUPERIOR    (ACREM_COUNT + 6) /* dnSuperiorMatch */
#define ACREF_RULE_LAST          ACREF_RULE_DNSUPERIOR
#define ACREF_RULE_IS_DN(r) \
    ((r) >= ACREF_RULE_DNSUBTREE && (r) <= ACREF_RULE_DNSUPERIOR)

/* Attributes slapd treats specially in filters (filterentry.c). */
enum acreF_special {
    ACREF_SP_NONE = 0,
    ACREF_SP_OBJECTCLASS,     /* objectClass, structuralObjectClass */
    ACREF_SP_ENTRYDN,         /* entryDN: the entry's own DN */
    ACREF_SP_HASSUBORDINATES, /* hasSubordinates: from the tree links */
    ACREF_SP_SUBSCHEMA,       /* subschemaSubentry: always present */
    /* the virtual ones last (filter_eval.c tests special >= ISMEMBEROF) */
    ACREF_SP_ISMEMBEROF, /* isMemberOf: virtual when not stored */
    ACREF_SP_MEMBEROF,   /* memberOf: virtual when not stored */
    ACREF_SP_NSROLE,     /* nsRole: virtual when not stored */
};

/* acreF_node.approx389: how a ~= item matches under a 389 schema */
enum {
    A389_WORDS = 1, /* 389's phonetic words (acreF_approx389) */
    A389_NEVER      /* an octet-string type: nothing matches */
};

/* acreF_node.undef: an item on a type 389 does not know (a 389 schema):
 * it finds no attribute, so it is FALSE on every entry (filterentry.c
 * test_ava_filter and the others look the type up in the entry alone),
 * once the requester's search access to the name is checked. */
#define ACREF_UNDEF_ABSENT 3

/* An approximate-match word code: metaphone, at most 4 letters, NUL. */
typedef char acreF_code[5];

struct acreF_node {
    uint8_t kind;      /* enum acreF_kind */
    uint8_t undef;     /* UNDEFINED for every entry (see banner), or
                          ACREF_UNDEF_ABSENT */
    uint8_t special;   /* enum acreF_special, only when want.nopts == 0 */
    uint8_t dnattrs;   /* extensible :dn: */
    uint8_t ext_below; /* AND, OR, NOT: an extensible item is among the
                          descendants (filter_eval.c: 389's
                          access_check_done); set by the parser */

    /* children of AND, OR (nkids may be 0 only for the absolute forms)
     * and NOT (exactly one) */
    struct acreF_node **kids;
    unsigned nkids;

    /* attribute description, as written and as resolved */
    const char *desc; /* NULL for a rule-only extensible item */
    size_t desc_len;
    struct acreS_desc want; /* type -1 when unknown or absent */

    struct acreF_rules {
        int eq, ord, sub;
    } trules; /* want.type's rules (ACREM_NONE when none) */

    const uint64_t *types; /* want.type and its subtypes; NULL: only it */

    /* the assertion value as unescaped from the text, and prepared */
    const uint8_t *raw;
    size_t raw_len;
    const uint8_t *norm; /* eq/ord: normalised; approx: by equality */
    size_t norm_len;
    int rule;    /* the rule the assertion was prepared for, or NONE */
    int rule_eq; /* the equality rule whose normal form `rule` uses */

    /* substrings: raw parts for printing, and the prepared pattern */
    const uint8_t *const *parts; /* initial?, any..., final? as raw */
    const size_t *part_len;
    unsigned nparts;
    uint8_t has_initial, has_final;
    uint8_t raw389; /* ACREF_389_RAWSUBS: the raw parts are matched */
    struct acreM_substr pat;

    /* extensible */
    const char *rule_text;         /* as written, NULL when absent */
    const struct acreF_coll *coll; /* 389's collation rule, or NULL */
    size_t rule_len;
    const uint64_t *usable; /* rule-only form: types the rule applies to */
    int64_t bits;           /* bitwise rules: the asserted integer */
    uint8_t bits_range;     /* ... which does not fit in 64 bits */
    uint8_t ord_ge;         /* an ordering rule matches value >= assertion (389)
                               instead of value < assertion (slapd) */

    /* approximate match on string types: the words' codes */
    const acreF_code *codes;
    unsigned ncodes;
    uint8_t approx_ok; /* the assertion could be reduced for approx */
    uint8_t approx389; /* under a 389 schema: A389_WORDS, A389_NEVER */

    /* objectClass: the asserted class id; bitmap of its subclasses;
     * their names and OIDs when there are few (else NULL: stored values
     * are looked up in the schema's class index) */
    int cls;
    const uint64_t *subclasses;
    const struct acreF_class_name *subnames;
    unsigned nsubnames;
    uint8_t hs_true; /* hasSubordinates: the assertion is TRUE */
    /* memberOf =: the stored values are UNDEFINED (`undef` set: the type
     * has no EQUALITY rule) but a virtual memberOf compares the assertion
     * as a DN, norm its distinguishedNameMatch form */
    uint8_t vdn;
    /* under a 389 schema, an assertion value its rule refuses: 389
     * compares it all the same (filter.c, invalid389) -- never equal
     * (`never`), or for >= and <= on integers as 389's value_cmp orders
     * integer text, norm then being that text as 389 normalises it
     * (`int389`) */
    uint8_t never;
    uint8_t int389;
};

/* A class name or OID as the schema spells it, and the class it names. */
/*
 * acreF_index389 -- the indexes of 389's default configuration
 * (template-dse.ldif.in, cn=default indexes) on type t of schema s:
 * ACREF_IX389_* bits, 0 for none or t < 0 (filter_eval.c; the index
 * candidates of filter_eval.c's cand389 and filter_cand389.c).
 */
#define ACREF_IX389_EQ   1u
#define ACREF_IX389_PRES 2u
#define ACREF_IX389_SUB  4u
unsigned acreF_index389(const acre_schema *s, int t);

struct acreF_class_name {
    const uint8_t *norm;
    size_t len;
    int id;
};

#define ACREF_SUBNAMES_MAX 16 /* names compared directly, not hashed */

/* Class names met in stored objectClass values are looked up in the
 * schema's own index of every name and OID (acreS_class_find: ASCII case
 * ignored, as slapd's oc_bvfind), which a frozen schema never changes:
 * a filter keeps no table of its own. */
struct acreF_filter {
    uint32_t magic;
    const acre_schema *schema; /* frozen */
    unsigned nattrs; /* acreS_nattrs(schema): bits of the type bitmaps */
    struct acreF_node *root;
    uint8_t unwilling; /* ACREF_389_SEARCH: 389 refuses the search */
};

/*
 * acreF_int64 -- the integer in canonical decimal p[0..n) (as integerMatch
 * normalises it): 0, or -1 when it does not fit (slapd's strtol ERANGE).
 */
int acreF_int64(const uint8_t *p, size_t n, int64_t *out);

/*
 * 389's collation matching rules (filter_collate.c).  acreF_coll_prepare:
 * the collation item of rule rule[0..rule_len) with assertion v[0..n)
 * under ctx into *out (NULL when 389 has no such rule or operator: the
 * item is Undefined); 0 or ACRE_ERR_NOMEM.  acreF_coll_match: does one of
 * attribute a's values match (0), none (-1), or did memory run out (-2)?
 */
struct acreF_coll;
int acreF_coll_prepare(void *ctx, const char *rule, size_t rule_len,
                       const uint8_t *v, size_t n, struct acreF_coll **out);
int acreF_coll_match(const struct acreF_coll *c, const acre_view_attr *a);

static inline int
acreF_bit(const uint64_t *map, int i)
{
    return (int)((map[(unsigned)i >> 6] >> ((unsigned)i & 63)) & 1u);
}

/*
 * acreF_approx_rule -- 1 when equality rule `eq` has an approximate rule
 * in slapd (directoryStringApproxMatch, IA5StringApproxMatch), so ~= on it
 * is a word-by-word phonetic match; else ~= is equality.
 */
int acreF_approx_rule(int eq);

/*
 * acreF_approx_codes -- the codes of the words of an assertion s[0..n) as
 * written (empty words skipped), as a talloc array under ctx.
 *   out, nout: OUT.  Returns 0, ACRE_ERR_NOMEM, or 1 when s cannot be
 *   reduced (invalid UTF-8): *out is then NULL and nothing matches.
 */
int acreF_approx_codes(void *ctx, const uint8_t *s, size_t n,
                       const acreF_code **out, unsigned *nout);

/*
 * acreF_approx_match -- does value v[0..n), as stored, approximately match
 * the assertion whose word codes are codes[0..ncodes)?  Every asserted
 * word must equal, in order, the code of some word of v (runs of spaces
 * count as one, as in the value's normal form).  Allocates nothing.
 */
int acreF_approx_match(const acreF_code *codes, unsigned ncodes,
                       const uint8_t *v, size_t n);

/*
 * acreF_approx_keys -- the approximate index keys slapd's approxIndexer
 * makes of value v[0..n) (the code of each non-empty word that has one):
 * sets bit k of *found for each codes[k] (k < 64) among them.  0, or -1
 * when v is not valid UTF-8 (no keys).  Allocates nothing.
 */
int acreF_approx_keys(const uint8_t *v, size_t n, const acreF_code *codes,
                      unsigned ncodes, uint64_t *found);

/*
 * acreF_approx389 -- does assertion as[0..an) approximately match one of
 * vals[0..nvals) (the values of one attribute) as 389-DS 2.3 matches ~=
 * on a string syntax (filter_approx389.c: phonetic words, each value and
 * the assertion up to its first NUL)?  Allocates nothing.
 */
int acreF_approx389(const uint8_t *as, size_t an, const acre_value *vals,
                    uint32_t nvals);

/*
 * acreF_metaphone -- the code of one word: its ASCII letters w[0..n)
 * (any case, n <= 31 are used).  For tests.
 */
void acreF_metaphone(const char *w, size_t n, acreF_code out);

/*
 * acreF_class_lookup -- the class id of an objectClass value v[0..n) as
 * stored (a name or OID, any case) in f's schema, or -1.
 */
int acreF_class_lookup(const struct acreF_filter *f, const uint8_t *v,
                       size_t n);

#endif /* ACRE_FILTER_IMPL_H */
