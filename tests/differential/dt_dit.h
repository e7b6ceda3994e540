/*
 * dt_dit.h -- a seeded generator of test directories (DITs) for the slapd
 * differential suites, and the attribute-type table the filter generator
 * draws from.
 *
 * The DIT is built only from the schemas slapd loads in the harness (core,
 * cosine, inetorgperson, nis), and every entry is valid for them: object
 * classes carry their MUST attributes, single-valued types get one value,
 * and no attribute holds two values equal under its equality rule (slapadd
 * would reject the file otherwise).  Values deliberately differ across
 * entries only in case, spaces, dashes or Unicode compatibility forms.
 *
 * Invariants: the same seed gives the same DIT; entries are stored (and
 * written as LDIF) parents first; every RDN value is also an attribute
 * value of its entry.
 */
#ifndef DT_DIT_H
#define DT_DIT_H

#include "dt_util.h"

#include <stdint.h>

/* How a type's values compare: the family of its equality rule. */
enum dt_kind {
    DT_CI,      /* directoryString, caseIgnoreMatch */
    DT_CE,      /* directoryString, caseExactMatch */
    DT_IA5CI,   /* IA5String, caseIgnoreIA5Match */
    DT_IA5CE,   /* IA5String, caseExactIA5Match */
    DT_TEL,     /* telephoneNumberMatch */
    DT_NUMSTR,  /* numericStringMatch */
    DT_INT,     /* integerMatch */
    DT_DN,      /* distinguishedNameMatch */
    DT_NAMEUID, /* uniqueMemberMatch */
    DT_OID,     /* objectIdentifierMatch (objectClass) */
    DT_LIST,    /* caseIgnoreListMatch (postal addresses) */
    DT_OCTET,   /* octetStringMatch */
    DT_PRINT    /* printableString, caseIgnoreMatch */
};

struct dt_type {
    const char *name;  /* canonical NAME */
    const char *alias; /* a second NAME, or NULL */
    const char *oid;
    enum dt_kind kind;
    const char *sup; /* supertype (name, distinguishedName), or NULL */
};

extern const struct dt_type dt_types[];
extern const unsigned dt_ntypes;

/* dt_type_find -- the type named (case-insensitively) by s[0..n), an
 * attribute description's type part; NULL when not in the table. */
const struct dt_type *dt_type_find(const char *s, size_t n);

struct dt_attr {
    char *desc; /* "cn" or "cn;lang-de" */
    const struct dt_type *type;
    char **vals;
    unsigned nvals, cap;
};

enum dt_class {
    DT_C_ROOT,
    DT_C_OU,
    DT_C_PERSON,
    DT_C_GROUP,
    DT_C_UGROUP,
    DT_C_PGROUP,
    DT_C_DEVICE,
    DT_C_ROLE
};

struct dt_entry {
    char *dn;   /* as written in the LDIF */
    int parent; /* index, -1 for the suffix */
    unsigned depth;
    enum dt_class cls;
    struct dt_attr *attrs;
    unsigned nattrs, cap;
};

struct dt_dit {
    struct dt_entry *v;
    unsigned n, cap;
    const char *suffix;
};

/*
 * dt_dit_generate -- fill d (zeroed by the caller) with a DIT of about
 * `want` entries (0: a number in [100, 300] chosen by the seed).
 */
void dt_dit_generate(struct dt_dit *d, uint64_t seed, unsigned want);
void dt_dit_free(struct dt_dit *d);

/* dt_entry_ldif / dt_dit_ldif -- the LDIF text, appended to out. */
void dt_entry_ldif(const struct dt_entry *e, struct dt_str *out);
void dt_dit_ldif(const struct dt_dit *d, struct dt_str *out);

/*
 * dt_dn_variant -- append to out another spelling of `dn` (one of ours):
 * types by alias or OID, letters of types and values in other cases,
 * spaces after commas.  It names the same entry.
 */
void dt_dn_variant(struct dt_rng *r, const char *dn, struct dt_str *out);

/*
 * dt_case_variant -- append s with letters (ASCII and a few accented
 * Latin ones) put in another case: mode 0 lower, 1 upper, 2 random.
 */
void dt_case_variant(struct dt_rng *r, const char *s, int mode,
                     struct dt_str *out);

#endif /* DT_DIT_H */
