/*
 * schema.h -- attribute types, object classes and their lookup
 * (the engine's view of RFC 4512 subschema).
 *
 * A schema is built (built-in definitions, then loaded files), then frozen
 * on first use; a frozen schema is immutable and shared by any number of
 * threads without locks.  Attribute types and object classes are interned
 * to small integers (ids), dense from 0, so attribute sets are bitmaps.
 *
 * Every attribute type exposes `dn`, the view the DN parser needs
 * (canonical name, its lowercase form, the equality preparation): the DN
 * code takes types from here once the schema is in place.
 */
#ifndef ACRE_SCHEMA_H
#define ACRE_SCHEMA_H

#include "acre.h"
#include "dn_types.h"

#include <stddef.h>
#include <stdint.h>

/* Attribute type flags */
#define ACRES_SINGLE_VALUE 0x01
#define ACRES_COLLECTIVE   0x02
#define ACRES_NO_USER_MOD  0x04
#define ACRES_OBSOLETE     0x08

/* USAGE */
enum acreS_usage {
    ACRES_USER = 0,           /* userApplications */
    ACRES_DIRECTORY_OP = 1,   /* directoryOperation */
    ACRES_DISTRIBUTED_OP = 2, /* distributedOperation */
    ACRES_DSA_OP = 3,         /* dSAOperation */
};

/* Object class kinds */
enum acreS_kind {
    ACRES_ABSTRACT = 0,
    ACRES_STRUCTURAL = 1,
    ACRES_AUXILIARY = 2,
};

struct acreS_attr {
    int id;                   /* dense, 0 .. nattrs-1 */
    const char *oid;          /* numeric OID (macros expanded) */
    const char *const *names; /* NAME values; names[0] is canonical */
    unsigned nnames;          /* may be 0: the OID is then the name */
    struct acreD_type dn;     /* name, lname, len, equality preparation */
    int sup;                  /* id of the supertype, or -1 */
    const char *syntax;       /* syntax OID, inherited from sup if absent */
    unsigned syntax_len;      /* {len} bound, 0 when none */
    int eq, ord, sub;         /* matching rules (match.h), inherited from sup;
                                 ACREM_NONE when the type has none */
    unsigned flags;           /* ACRES_* */
    enum acreS_usage usage;
    const char *desc; /* DESC, or NULL */
};

struct acreS_class {
    int id;
    const char *oid;
    const char *const *names;
    unsigned nnames;
    const char *name; /* canonical: names[0], or the OID */
    const int *sup;   /* ids of the superclasses */
    unsigned nsup;
    enum acreS_kind kind;
    const int *must; /* own MUST attribute ids */
    unsigned nmust;
    const int *may; /* own MAY attribute ids */
    unsigned nmay;
    const uint64_t *all_must; /* bitmaps over attribute ids, inherited */
    const uint64_t *all_may;  /* included (set when frozen) */
    unsigned flags;           /* ACRES_OBSOLETE */
};

/*
 * acreS_builtin -- the process-wide frozen schema of built-in definitions
 * (what a NULL acre_schema means everywhere).  Built once on first use.
 * Returns NULL only when memory ran out.  Any thread.
 */
const acre_schema *acreS_builtin(void);

/*
 * acreS_freeze -- mark s in use (idempotent): computes inherited bitmaps and
 * forbids further loads.  Called by every consumer before it reads s.
 * Returns s, or the built-in schema when s is NULL.
 * Not thread-safe with a concurrent load into s.
 */
const acre_schema *acreS_freeze(const acre_schema *s);

/*
 * acreS_check -- for a public function's schema argument, where NULL
 * selects the built-in schema: 0 for NULL or a schema, ACRE_ERR_BADOBJ
 * for anything else (internal.h: Handles).
 */
int acreS_check(const acre_schema *s);

/* Counts, and access by id (id must be in range). */
unsigned acreS_nattrs(const acre_schema *s);
unsigned acreS_nclasses(const acre_schema *s);
const struct acreS_attr *acreS_attr(const acre_schema *s, int id);
const struct acreS_class *acreS_class(const acre_schema *s, int id);

/*
 * acreS_attr_find / acreS_class_find -- id of the type or class named by
 * s[0..n): a NAME (case-insensitive) or numeric OID.  -1 when unknown.
 * No options: "cn;lang-en" is not a name (see acreS_desc_parse).
 */
int acreS_attr_find(const acre_schema *s, const char *name, size_t n);
int acreS_class_find(const acre_schema *s, const char *name, size_t n);

/*
 * acreS_is_subtype -- 1 when attribute `id` is `super` or descends from it
 * through SUP, else 0.
 */
int acreS_is_subtype(const acre_schema *s, int id, int super);

/*
 * acreS_class_is -- 1 when class `id` is `super` or inherits from it.
 */
int acreS_class_is(const acre_schema *s, int id, int super);

/*
 * acreS_class_allows -- 1 when class `oc` (with its superclasses) requires
 * or allows attribute `type` or one of its supertypes (what slapd's
 * is_at_allowed / "@oc" attribute lists test).  The schema is frozen.
 */
int acreS_class_allows(const acre_schema *s, int oc, int type);

/*
 * Attribute descriptions (RFC 4512 2.5): a type plus options, e.g.
 * "cn;lang-en;binary".  Options are lowercased and sorted; `binary` is an
 * option like any other here.
 */
#define ACRES_MAX_OPTIONS 8
/* bytes that always hold a description's text (type, options, ';') */
#define ACRES_DESC_TEXT   4096

struct acreS_desc {
    int type;         /* attribute id, or -1 when unknown */
    const char *name; /* the type as written (not NUL-terminated) */
    unsigned name_len;
    unsigned nopts;
    const char *opts[ACRES_MAX_OPTIONS]; /* point into the input */
    unsigned opt_len[ACRES_MAX_OPTIONS];
};

/*
 * acreS_desc_parse -- parse s[0..n) as an attribute description.
 * Returns 0 (d->type may be -1 for an unknown type), or -1 when s is not
 * syntactically a description.  Allocates nothing; d points into s.
 */
int acreS_desc_parse(const acre_schema *s, const char *str, size_t n,
                     struct acreS_desc *d);

/*
 * acreS_slapd_desc_ok -- does slapd take description d, whose type at is
 * known (ad.c slap_bv2ad)?  No option on an operational type; "binary"
 * once, and only on a type whose syntax slapd transfers in binary
 * (X-BINARY-TRANSFER-REQUIRED); any other option one that s's
 * attributeoptions define (none: slapd's default, the language tags and
 * ranges "lang-...").  Otherwise slapd knows no such description.
 */
int acreS_slapd_desc_ok(const acre_schema *s, const struct acreS_attr *at,
                        const struct acreS_desc *d);

/*
 * An attribute description interned in a schema (acre_schema_attr_id): its
 * type and its options, lowercased and sorted, and its canonical text
 * ("cn;lang-en": the type's first name, then the options).  A description
 * without options has its type's id; one with options an id from
 * acreS_nattrs() up, given the first time it is seen.  Records never move
 * or change once given, so they are read without a lock.
 */
struct acreS_dinfo {
    int type;
    unsigned nopts;
    const char *const *opts;
    const uint32_t *opt_len;
    const char *text; /* NUL-terminated */
    uint32_t text_len;
    /* for a type alone (an id below acreS_ntypes): 1 when some type
     * names it as its supertype, so acreS_is_subtype(s, x, type) can be
     * true for an x other than type; 0 for descriptions with options */
    uint32_t has_sub;
};

/*
 * acreS_dinfo -- the description with id `id` in frozen schema s, or NULL
 * when s never gave that id.  Any thread.
 */
const struct acreS_dinfo *acreS_dinfo(const acre_schema *s, int id);

/*
 * What the hot paths read of a schema without a call: the first member of
 * every acre_schema (schema_int.h), so that the description of a type
 * alone, by far the most common id, is one bounds check and one index.
 */
struct acreS_dnslot {
    uint64_t key; /* acreD_type.lkey; 0: empty */
    const struct acreD_type *ty;
};

struct acreS_hot {
    uint32_t magic; /* ACRES_MAGIC (internal.h: Handles) */
    unsigned ntypes;
    const struct acreS_dinfo *types; /* [ntypes]: each type alone */
    /* the DN parser's fast paths (every schema has one: derive): the
     * types with a string equality
     * preparation (ACRE_MR_CASE_EXACT_IA5 or below) by each of their names
     * of 1..8 bytes, lowercase and packed (dn_types.h: lkey); open
     * addressing, at most half full, 2^dnbits slots */
    const struct acreS_dnslot *dnfast;
    uint32_t dnmask, dnbits;
    /* path 1's type check: the packed key of every type name of 1..8
     * bytes that is its type's normalised spelling (the canonical name,
     * all lowercase, of a type in dnfast) and a well-formed descr (a
     * letter, then letters, digits and '-'); open addressing, 2^dnbits
     * slots, 0 empty */
    const uint64_t *dnnf;
};

/* acreS_lower8 -- the eight bytes of w with A-Z lowercased (the others,
 * bytes >= 0x80 too, kept): how the short-name keys are made. */
static inline uint64_t
acreS_lower8(uint64_t w)
{
    const uint64_t ones = 0x0101010101010101ull;
    uint64_t h = w & (0x7f * ones);
    uint64_t ge_a = h + (0x80 - 'A') * ones;
    uint64_t gt_z = h + (0x80 - 'Z' - 1) * ones;

    return w | (((ge_a & ~gt_z & ~w) & (0x80 * ones)) >> 2);
}

/* acreS_dn_fast -- the string type with the packed lowercase name key
 * (a non-NULL s, key != 0), or NULL: one multiplicative hash, one probe. */
static inline const struct acreD_type *
acreS_dn_fast(const acre_schema *s, uint64_t key)
{
    const struct acreS_hot *h = (const struct acreS_hot *)(const void *)s;
    uint32_t i = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - h->dnbits));

    for (;; i = (i + 1) & h->dnmask) {
        const struct acreS_dnslot *e = &h->dnfast[i];
        if (e->key == key)
            return e->ty;
        if (!e->key)
            return NULL;
    }
}

/* acreS_dn_nf -- is key (!= 0) the packed normalised spelling of a
 * string type's name in s (non-NULL)?  One multiplicative hash, one
 * probe, no pointer to follow. */
static inline int
acreS_dn_nf(const acre_schema *s, uint64_t key)
{
    const struct acreS_hot *h = (const struct acreS_hot *)(const void *)s;
    uint32_t i = (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - h->dnbits));

    for (;; i = (i + 1) & h->dnmask) {
        uint64_t k = h->dnnf[i];
        if (k == key)
            return 1;
        if (!k)
            return 0;
    }
}

/* acreS_desc_of -- acreS_dinfo(s, id) for a non-NULL s, inline for the
 * ids of types. */
static inline const struct acreS_dinfo *
acreS_desc_of(const acre_schema *s, int id)
{
    const struct acreS_hot *h = (const struct acreS_hot *)(const void *)s;

    if ((unsigned)id < h->ntypes)
        return &h->types[id];
    return acreS_dinfo(s, id);
}

/* acreS_ntypes -- ids below this name a type alone, without options
 * (acreS_desc_of(s, id)->type == id); a non-NULL s. */
static inline unsigned
acreS_ntypes(const acre_schema *s)
{
    return ((const struct acreS_hot *)(const void *)s)->ntypes;
}

/* acreS_id_limit -- every id s has given is below this (a non-NULL s). */
unsigned acreS_id_limit(const acre_schema *s);

/*
 * acreS_desc_intern -- the id of description d (a known type) in frozen
 * schema s, recording it when new.  Returns the id, ACRE_ERR_NOSPACE
 * (ACRE_SCHEMA_MAX_DESCS reached) or ACRE_ERR_NOMEM.  Any thread: new
 * descriptions are added under the schema's lock.
 */
int acreS_desc_intern(const acre_schema *s, const struct acreS_desc *d);

/*
 * acreS_opt_covers -- does option h[0..hn) of an attribute satisfy option
 * w[0..wn) of a request (a filter item, an attribute list, an attrs=
 * item)?  Compared without case.  An option ending in '-' is a language
 * range (slapd ad.c is_ad_subtags): "lang-en-" is satisfied by lang-en
 * itself and by every option that starts with "lang-en-"; any other
 * option only by itself.
 */
int acreS_opt_covers(const char *w, size_t wn, const char *h, size_t hn);

/*
 * acreS_desc_matches -- does an attribute described by `have` (a stored
 * attribute) satisfy the request `want` (a filter or attribute list item)?
 * True when have's type is want's type or a subtype of it and every
 * option of want is covered by one of have's (acreS_opt_covers: RFC 4512
 * 2.5.1-2.5.2, with slapd's language ranges).
 */
int acreS_desc_matches(const acre_schema *s, const struct acreS_desc *have,
                       const struct acreS_desc *want);

/*
 * Well-known attribute ids, resolved when a schema is frozen (-1 when a
 * bare schema lacks them).
 */
struct acreS_known {
    int objectClass, cn, member, uniqueMember, memberURL, entryDN,
        hasSubordinates, subschemaSubentry, administrativeRole,
        subtreeSpecification, collectiveExclusions,
        collectiveAttributeSubentries, entryUUID, createTimestamp,
        modifyTimestamp, creatorsName, modifiersName, structuralObjectClass,
        isMemberOf, memberOf, nsRole, nsRoleDN, nsRoleFilter, nsRoleScopeDN;
};
const struct acreS_known *acreS_known(const acre_schema *s);

/*
 * acreS_load_dupok -- load text, the definition of attribute type `oid`
 * that a slapd module registers (register_at with dupok): when the type
 * is defined already, and its definition is not a replaceable built-in
 * one (acre_schema_new: memberOf until a loaded file defines it), that
 * definition stays and nothing is loaded.  0 or an
 * acre_schema_load_buffer error.
 */
int acreS_load_dupok(acre_schema *s, const char *name, const char *oid,
                     const char *text, acre_diag *diag);

/* ------------------------------------------------------------------------
 * Additions by the schema module (not in the original contract).
 */

/*
 * acreS_dn_type -- the DN parser's view of the type named s[0..n) (as
 * acreS_attr_find), or NULL when unknown: a drop-in for acreD_type_find().
 * The result lives as long as the schema.  Any thread.
 */
const struct acreD_type *acreS_dn_type(const acre_schema *s, const char *name,
                                       size_t n);

/*
 * acreS_attr_find_packed / acreS_dn_type_packed -- the same lookups for a
 * name of 1 to 8 bytes made only of letters, digits, '-' and '.', given as
 * its packed key (byte j of the name OR 0x20 in bits 8j..8j+7), the key
 * acreD_type_packed() takes: one multiplicative hash, one probe (rarely
 * more) and one 64-bit compare.  -1 / NULL when unknown.  Any thread.
 */
int acreS_attr_find_packed(const acre_schema *s, uint64_t key);
const struct acreD_type *acreS_dn_type_packed(const acre_schema *s,
                                              uint64_t key);

/*
 * acreS_attr_rule -- the name of attribute `id`'s EQUALITY (which = 1),
 * ORDERING (2) or SUBSTR (3) rule, inherited ones included, or NULL when it
 * has none.  Unlike the eq/ord/sub fields this also names the rules slapd
 * knows that acre cannot evaluate (certificateExactMatch, CSNMatch, ...),
 * for which those fields are ACREM_NONE.
 */
const char *acreS_attr_rule(const acre_schema *s, int id, int which);

/*
 * acreS_rules -- the equality, ordering and substrings rules filters use
 * for type `at` of schema s: its own (inherited ones included), and under
 * a schema made with ACRE_SCHEMA_SYNTAX_MATCH, for each it lacks, its
 * syntax's as 389-DS's syntax plugins match (ACREM_NONE when the syntax
 * has none either).  Any thread.
 */
struct acreS_rules {
    int eq, ord, sub;
};
struct acreS_rules acreS_rules(const acre_schema *s,
                               const struct acreS_attr *at);

/* acreS_syntax_match -- was s made with ACRE_SCHEMA_SYNTAX_MATCH? */
int acreS_syntax_match(const acre_schema *s);

/* acreS_is389 -- was s made with ACRE_SCHEMA_389 (389's ~=: filter.c)? */
int acreS_is389(const acre_schema *s);

/*
 * acreS_profile -- how values are prepared under s: an enum acreE_profile
 * (engine/prep.h).  The built-in schema (s NULL) is RFC 4518.
 */
int acreS_profile(const acre_schema *s);

#endif /* ACRE_SCHEMA_H */
