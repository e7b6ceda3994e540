/*
 * match.h -- matching rules (RFC 4517) and attribute syntaxes: value
 * validation, normalisation, equality, ordering and substrings.
 *
 * The contract every user relies on: a value is normalised once, by its
 * attribute's EQUALITY rule, when it is stored (acreM_normalise), and two
 * values are equal under that rule exactly when their normalised forms are
 * equal bytes.  Ordering compares normalised forms with acreM_compare;
 * substring matching works on the same normalised form.  An assertion
 * value is prepared by acreM_assertion (or, for substrings,
 * acreM_substr_prep) and compared with acreM_equal.
 *
 * Every function that takes a schema follows its preparation profile
 * (acreS_profile): RFC 4517/4518, or exactly what slapd 2.5 does.
 */
#ifndef ACRE_MATCH_H
#define ACRE_MATCH_H

#include "acre.h"
#include "buf.h"

#include <stddef.h>
#include <stdint.h>

enum acreM_rule {
    ACREM_NONE = 0,
    /* equality */
    ACREM_CASE_IGNORE,      /* caseIgnoreMatch 2.5.13.2 */
    ACREM_CASE_EXACT,       /* caseExactMatch 2.5.13.5 */
    ACREM_CASE_IGNORE_IA5,  /* caseIgnoreIA5Match 1.3.6.1.4.1.1466.109.114.2 */
    ACREM_CASE_EXACT_IA5,   /* caseExactIA5Match 1.3.6.1.4.1.1466.109.114.1 */
    ACREM_NUMERIC_STRING,   /* numericStringMatch 2.5.13.8 */
    ACREM_TELEPHONE,        /* telephoneNumberMatch 2.5.13.20 */
    ACREM_DN,               /* distinguishedNameMatch 2.5.13.1 */
    ACREM_UNIQUE_MEMBER,    /* uniqueMemberMatch 2.5.13.23 */
    ACREM_OID,              /* objectIdentifierMatch 2.5.13.0 */
    ACREM_INTEGER,          /* integerMatch 2.5.13.14 */
    ACREM_BOOLEAN,          /* booleanMatch 2.5.13.13 */
    ACREM_GENTIME,          /* generalizedTimeMatch 2.5.13.27 */
    ACREM_OCTET,            /* octetStringMatch 2.5.13.17 */
    ACREM_BIT_STRING,       /* bitStringMatch 2.5.13.16 */
    ACREM_CASE_IGNORE_LIST, /* caseIgnoreListMatch 2.5.13.11 */
    ACREM_OID_FIRST,        /* objectIdentifierFirstComponentMatch 2.5.13.30 */
    ACREM_INTEGER_FIRST,    /* integerFirstComponentMatch 2.5.13.29 */
    ACREM_UUID,             /* UUIDMatch 1.3.6.1.1.16.2 */
    /* ordering */
    ACREM_CASE_IGNORE_ORD, /* caseIgnoreOrderingMatch 2.5.13.3 */
    ACREM_CASE_EXACT_ORD,  /* caseExactOrderingMatch 2.5.13.6 */
    ACREM_NUMERIC_ORD,     /* numericStringOrderingMatch 2.5.13.9 */
    ACREM_INTEGER_ORD,     /* integerOrderingMatch 2.5.13.15 */
    ACREM_GENTIME_ORD,     /* generalizedTimeOrderingMatch 2.5.13.28 */
    ACREM_OCTET_ORD,       /* octetStringOrderingMatch 2.5.13.18 */
    ACREM_UUID_ORD,        /* UUIDOrderingMatch 1.3.6.1.1.16.3 */
    ACREM_TELEPHONE_ORD,   /* telephone numbers by their telephoneNumberMatch
                              normal form (spaces and hyphens gone, case
                              folded): 389-DS's tel.c, which has no LDAP
                              name (acreM_find never returns it) */
    /* substrings */
    ACREM_CASE_IGNORE_SUB,      /* caseIgnoreSubstringsMatch 2.5.13.4 */
    ACREM_CASE_EXACT_SUB,       /* caseExactSubstringsMatch 2.5.13.7 */
    ACREM_CASE_IGNORE_IA5_SUB,  /* caseIgnoreIA5SubstringsMatch ...109.114.3 */
    ACREM_CASE_EXACT_IA5_SUB,   /* caseExactIA5SubstringsMatch (OpenLDAP) */
    ACREM_NUMERIC_SUB,          /* numericStringSubstringsMatch 2.5.13.10 */
    ACREM_TELEPHONE_SUB,        /* telephoneNumberSubstringsMatch 2.5.13.21 */
    ACREM_CASE_IGNORE_LIST_SUB, /* caseIgnoreListSubstringsMatch 2.5.13.12 */
    ACREM_OCTET_SUB,            /* octetStringSubstringsMatch 2.5.13.19 */
    ACREM_DN_SUB, /* substrings of a DN value's normal form, components
                     case-folded: 389-DS's DN syntax (dn.c), which has no
                     LDAP name (acreM_find never returns it) */
    ACREM_COUNT
};

enum acreM_usage { ACREM_EQ = 1, ACREM_ORD = 2, ACREM_SUB = 3 };

struct acreM_info {
    const char *name; /* e.g. "caseIgnoreMatch" */
    const char *oid;  /* e.g. "2.5.13.2" */
    enum acreM_usage usage;
    int eq; /* the equality rule whose normalised form this rule
               works on (itself for equality rules) */
};

/* acreM_info -- facts about rule r (ACREM_NONE < r < ACREM_COUNT). */
const struct acreM_info *acreM_info(int r);

/* acreM_find -- rule named by a name (case-insensitive) or OID; ACREM_NONE
 * when unknown. */
int acreM_find(const char *name, size_t n);

/* Syntaxes (RFC 4517 section 3.3 and the OpenLDAP ones the built-in
 * schemas use), by OID. */
enum acreM_syntax {
    ACREM_SYN_UNKNOWN = 0, /* accepted as octets */
    ACREM_SYN_DIRECTORY_STRING,
    ACREM_SYN_IA5_STRING,
    ACREM_SYN_PRINTABLE_STRING,
    ACREM_SYN_NUMERIC_STRING,
    ACREM_SYN_TELEPHONE,
    ACREM_SYN_DN,
    ACREM_SYN_NAME_UID,
    ACREM_SYN_OID,
    ACREM_SYN_INTEGER,
    ACREM_SYN_BOOLEAN,
    ACREM_SYN_GENTIME,
    ACREM_SYN_OCTET_STRING,
    ACREM_SYN_BIT_STRING,
    ACREM_SYN_POSTAL_ADDRESS,
    ACREM_SYN_COUNTRY_STRING,
    ACREM_SYN_UUID,
    ACREM_SYN_BINARY,
    ACREM_SYN_COUNT
};

/* acreM_syntax_find -- syntax of an OID; ACREM_SYN_UNKNOWN when unknown. */
int acreM_syntax_find(const char *oid, size_t n);

/*
 * acreM_validate -- 1 when v[0..n) is a valid value of syntax `syn`.
 * DN-valued syntaxes are checked by parsing with `schema`.
 */
int acreM_validate(const acre_schema *schema, int syn, const uint8_t *v,
                   size_t n);

/*
 * acreM_normalise -- append to out the normalised form of v[0..n) under
 * equality rule `eq` (ACREM_DN and ACREM_UNIQUE_MEMBER parse a DN with
 * `schema` and use its normalised text).  Returns 0, ACRE_ERR_NOMEM, or
 * ACRE_ERR_LDIF_VALUE when v is not a value the rule can compare.
 * Idempotent: normalise(normalise(v)) == normalise(v).
 */
int acreM_normalise(const acre_schema *schema, int eq, const uint8_t *v,
                    size_t n, struct acreE_buf *out);

/*
 * acreM_normalise_stored -- acreM_normalise for a value as slapadd
 * stores it, which it checks only by normalising it: under slapd's
 * schema the IA5 rules take any bytes, the telephone and numeric rules
 * any non-empty value (acreE_prep_slapd_stored), UUIDMatch reads the
 * first 36 characters only; the rules slapd has no normaliser for keep
 * the value as written (integerMatch, bitStringMatch, octetStringMatch,
 * objectIdentifierMatch: a descriptor is no OID there, save on
 * objectClass, which the caller leaves to acreM_normalise; booleanMatch
 * compares lengths alone, so a 4-byte value is "TRUE", a 5-byte one
 * "FALSE");
 * the other rules are acreM_normalise's.
 */
int acreM_normalise_stored(const acre_schema *schema, int eq, const uint8_t *v,
                           size_t n, struct acreE_buf *out);

/*
 * How an assertion value is used: for equality, ordering and extensible
 * match (EQ), or for ~= (APPROX), which slapd normalises differently.
 */
enum acreM_use { ACREM_USE_EQ = 0, ACREM_USE_APPROX = 1 };

/*
 * acreM_assertion -- append to out the form of assertion value v[0..n)
 * for rule `rule` (any rule id; the form is that of its equality rule,
 * comparable with what acreM_normalise gives stored values) in an item on
 * attribute type `type` (an id of schema, or -1 when the item has none,
 * as an extensible match without a type), used as `use`.
 * Under the RFC 4518 profile this is acreM_normalise(schema, rule, ...).
 * Under the SLAPD profile it is what slapd's
 * asserted_value_validate_normalize gives: the value is checked by the
 * rule's syntax, so an objectIdentifierMatch (or ...FirstComponentMatch)
 * assertion must be a numeric OID and an integerFirstComponentMatch one
 * an INTEGER, except that objectClass and structuralObjectClass with their
 * own equality rule take the name or OID of a class the schema knows, and
 * nothing else; with ACREM_USE_APPROX a caseIgnore, caseExact or
 * caseIgnoreList value gets slapd's approximate form (lowercased where the
 * rule folds case, decomposed, only ASCII kept: "Straße" -> "strae").
 * Returns 0, ACRE_ERR_NOMEM, ACRE_ERR_INVAL (bad arguments) or
 * ACRE_ERR_LDIF_VALUE (not a valid assertion: the item is Undefined); out
 * is unchanged on error.  Any thread.
 */
int acreM_assertion(const acre_schema *schema, int type, int rule,
                    enum acreM_use use, const uint8_t *v, size_t n,
                    struct acreE_buf *out);

/*
 * acreM_equal -- 1 when stored form value[0..vn) matches assertion form
 * asserted[0..an) (from acreM_normalise / acreM_assertion) under equality
 * rule `eq` used as `use`, else 0.  Equal bytes, except under the SLAPD
 * profile for uniqueMemberMatch used by ~=, where slapd ignores a UID
 * ("#'0101'B") that only one of the two has.  Any thread; allocates
 * nothing.
 */
int acreM_equal(const acre_schema *schema, int eq, enum acreM_use use,
                const uint8_t *value, size_t vn, const uint8_t *asserted,
                size_t an);

/*
 * acreM_compare -- order of two normalised values under ordering rule
 * `ord`: <0, 0 or >0.  The same under both profiles.
 */
int acreM_compare(int ord, const uint8_t *a, size_t an, const uint8_t *b,
                  size_t bn);

/*
 * Substring assertions.  A pattern is initial? any* final?, each
 * component prepared by acreM_substr_prep for the rule and its position;
 * acreM_substr_match tests a value normalised by the rule's equality rule.
 * Both take the profile from `schema` (NULL: built-in, RFC 4518), and a
 * pattern must be matched under the schema it was prepared under.
 */
enum acreM_substr_pos { ACREM_INITIAL, ACREM_ANY, ACREM_FINAL };

/*
 * acreM_substr_prep -- append to out component v[0..n) prepared for
 * substrings rule `sub` at position `pos`.  String rules keep the equality
 * normal form plus one leading (any, final) or trailing (initial, any)
 * space where the component had spaces there.  RFC 4518 profile (2.6.1):
 * such a space matches a space or the start/end of the value, and a
 * component of spaces only prepares to "" and matches anywhere.  SLAPD
 * profile (UTF8StringNormalize with SLAP_MR_SUBSTR_*): the space is a
 * plain space; a component of spaces only is " " (initial, any) or ""
 * (final); the IA5 rules trim both edges whatever the position, and
 * caseIgnoreList keeps the edge spaces of every line by the position.
 * Returns 0, ACRE_ERR_NOMEM, ACRE_ERR_LDIF_VALUE (not a valid component
 * for the rule), ACRE_ERR_FILTER_RULE (the rule has no substrings
 * semantics) or ACRE_ERR_INVAL; out is unchanged on error.  Any thread.
 */
int acreM_substr_prep(const acre_schema *schema, int sub,
                      enum acreM_substr_pos pos, const uint8_t *v, size_t n,
                      struct acreE_buf *out);

struct acreM_substr {
    const uint8_t *initial;
    size_t initial_len; /* NULL when absent */
    const uint8_t *const *any;
    const size_t *any_len;
    unsigned nany;
    const uint8_t *final;
    size_t final_len; /* NULL when absent */
};

/*
 * acreM_substr_match -- 1 when value[0..n) (normalised by the equality
 * rule of `sub`) matches pattern, 0 when not, ACRE_ERR_FILTER_RULE or
 * ACRE_ERR_INVAL.  initial/final are NULL when absent.  Under the SLAPD
 * profile the components are plain byte strings, found left to right
 * without overlapping (slapd's directoryStringSubstringsMatch).
 * Allocates nothing.  Any thread.
 */
int acreM_substr_match(const acre_schema *schema, int sub,
                       const struct acreM_substr *pattern, const uint8_t *value,
                       size_t n);

#endif /* ACRE_MATCH_H */
