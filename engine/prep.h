/*
 * prep.h -- string preparation for equality matching (RFC 4518), shared by
 * DN normalisation and, later, attribute-value matching.
 *
 * acreE_prep() turns a value into the canonical byte string its equality
 * rule compares: two values match exactly when their prepared forms are
 * equal bytes.  Preparation is idempotent: prep(prep(x)) == prep(x).
 */
#ifndef ACRE_PREP_H
#define ACRE_PREP_H

#include "buf.h"

#include <stddef.h>
#include <stdint.h>

/* Equality matching rules, as the value normalisers know them. */
enum acreE_mr {
    ACRE_MR_CASE_IGNORE,     /* caseIgnoreMatch and its list/ordering kin */
    ACRE_MR_CASE_EXACT,      /* caseExactMatch */
    ACRE_MR_CASE_IGNORE_IA5, /* caseIgnoreIA5Match */
    ACRE_MR_CASE_EXACT_IA5,  /* caseExactIA5Match */
    ACRE_MR_NUMERIC,         /* numericStringMatch */
    ACRE_MR_TELEPHONE,       /* telephoneNumberMatch */
    ACRE_MR_INTEGER,         /* integerMatch */
    ACRE_MR_DN,              /* distinguishedNameMatch */
    ACRE_MR_NAME_UID,        /* uniqueMemberMatch */
    ACRE_MR_OCTET,           /* octetStringMatch: bytes as they are */
};

/* Results of acreE_prep(), mapped by each caller to its own error codes. */
enum acreE_prep_status {
    ACRE_PREP_OK = 0,
    ACRE_PREP_UTF8 = 1,       /* input is not valid UTF-8 */
    ACRE_PREP_PROHIBITED = 2, /* a prohibited code point (RFC 4518 2.4) */
    ACRE_PREP_SYNTAX = 3,     /* not a value of the rule's syntax */
    ACRE_PREP_NOMEM = 4,
};

/*
 * Preparation profiles.  RFC 4518 is the standard; SLAPD reproduces what
 * OpenLDAP's slapd 2.5 does (simple per-character lowercasing then NFKC,
 * no RFC 4518 mapping or prohibition, only the ASCII space is white space,
 * no case folding of telephone numbers),
 * so that a policy written for slapd decides exactly as slapd does.
 * A schema carries its profile (acre_schema_new's ACRE_SCHEMA_SLAPD).
 */
enum acreE_profile {
    ACRE_PROFILE_RFC4518 = 0,
    ACRE_PROFILE_SLAPD = 1,
    /* 389-DS 2.3 (a 389 schema, ACRE_SCHEMA_389): its syntax plugins'
     * value_normalize -- white space (ASCII tab to CR and space) trimmed
     * and each run cut to its first character, one code point at a time
     * lowercased by 389's own table (no NFKC, no RFC 4518 mapping: "ß"
     * stays, a tab stays), a caseIgnoreList value taken whole.  Otherwise
     * as RFC 4518 (a value of printable ASCII prepares the same). */
    ACRE_PROFILE_389 = 2,
};

/*
 * acreE_prep_as -- acreE_prep() under profile `profile`.
 */
int acreE_prep_as(int profile, enum acreE_mr mr, const uint8_t *in, size_t n,
                  struct acreE_buf *out);

/*
 * acreE_prep_slapd_stored -- what slapd 2.5's normaliser of rule mr makes
 * of a stored value, which slapadd does not check against its syntax:
 * acreE_prep_as(ACRE_PROFILE_SLAPD, ...), except that the IA5 rules take
 * bytes past ASCII as they are (IA5StringNormalize folds ASCII only and
 * refuses nothing), and the telephone and numeric rules any byte but the
 * spaces (and hyphens) they drop, and any value but the empty one (slapd
 * checks an assertion's syntax before normalising it, so only stored
 * values get here).
 */
int acreE_prep_slapd_stored(enum acreE_mr mr, const uint8_t *in, size_t n,
                            struct acreE_buf *out);

/*
 * acreE_prep -- prepare `in` (n bytes) for rule `mr`, appending the result
 * to `out`.  For string rules: transcode check, map, case fold (caseIgnore
 * family and telephoneNumber), NFKC, prohibit, insignificant space or
 * character handling.  ACRE_MR_INTEGER gives the canonical decimal;
 * ACRE_MR_OCTET copies.  ACRE_MR_DN and ACRE_MR_NAME_UID are not handled
 * here (the DN parser does them) and give ACRE_PREP_SYNTAX.
 * An empty result is possible (e.g. "-" for telephoneNumber); callers that
 * forbid empty values check out->len.  Any thread; allocates only for
 * values longer than a few hundred characters.
 */
int acreE_prep(enum acreE_mr mr, const uint8_t *in, size_t n,
               struct acreE_buf *out);

/*
 * acreE_prep_unicode_general -- the general Unicode path of caseIgnore
 * (fold = 1) or caseExact (fold = 0) for valid UTF-8 input, without the
 * per-code-point cache; for the tests that compare the two paths.
 */
int acreE_prep_unicode_general(int fold, const uint8_t *in, size_t n,
                               struct acreE_buf *out);

/*
 * acreE_utf8_valid -- 1 when in[0..n) is well-formed UTF-8 (no overlong
 * forms, no surrogates, nothing past U+10FFFF), else 0.
 */
int acreE_utf8_valid(const uint8_t *in, size_t n);

/* acreE_space389 -- 389's white space (its utf8isspace_fast on ASCII):
 * tab to carriage return, and space. */
static inline int
acreE_space389(uint32_t c)
{
    return c == ' ' || (c >= 0x09 && c <= 0x0d);
}

#endif /* ACRE_PREP_H */
