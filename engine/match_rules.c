/*
 * match_rules.c -- the registry of matching rules and syntaxes acre knows:
 * names, OIDs, usage, and which equality rule's normalised form each rule
 * works on.  Lookups are by name (case-insensitive) or numeric OID.
 *
 * The ORDER of `rules` is the ORDER of enum acreM_rule (grep "ORDER MR").
 */
#include "match.h"

#include <string.h>
#include <strings.h>

/* ORDER MR */
static const struct acreM_info rules[ACREM_COUNT] = {
    [ACREM_NONE] = {"", "", 0, ACREM_NONE},
    [ACREM_CASE_IGNORE] = {"caseIgnoreMatch", "2.5.13.2", ACREM_EQ,
                           ACREM_CASE_IGNORE},
    [ACREM_CASE_EXACT] = {"caseExactMatch", "2.5.13.5", ACREM_EQ,
                          ACREM_CASE_EXACT},
    [ACREM_CASE_IGNORE_IA5] = {"caseIgnoreIA5Match",
                               "1.3.6.1.4.1.1466.109.114.2", ACREM_EQ,
                               ACREM_CASE_IGNORE_IA5},
    [ACREM_CASE_EXACT_IA5] = {"caseExactIA5Match", "1.3.6.1.4.1.1466.109.114.1",
                              ACREM_EQ, ACREM_CASE_EXACT_IA5},
    [ACREM_NUMERIC_STRING] = {"numericStringMatch", "2.5.13.8", ACREM_EQ,
                              ACREM_NUMERIC_STRING},
    [ACREM_TELEPHONE] = {"telephoneNumberMatch", "2.5.13.20", ACREM_EQ,
                         ACREM_TELEPHONE},
    [ACREM_DN] = {"distinguishedNameMatch", "2.5.13.1", ACREM_EQ, ACREM_DN},
    [ACREM_UNIQUE_MEMBER] = {"uniqueMemberMatch", "2.5.13.23", ACREM_EQ,
                             ACREM_UNIQUE_MEMBER},
    [ACREM_OID] = {"objectIdentifierMatch", "2.5.13.0", ACREM_EQ, ACREM_OID},
    [ACREM_INTEGER] = {"integerMatch", "2.5.13.14", ACREM_EQ, ACREM_INTEGER},
    [ACREM_BOOLEAN] = {"booleanMatch", "2.5.13.13", ACREM_EQ, ACREM_BOOLEAN},
    [ACREM_GENTIME] = {"generalizedTimeMatch", "2.5.13.27", ACREM_EQ,
                       ACREM_GENTIME},
    [ACREM_OCTET] = {"octetStringMatch", "2.5.13.17", ACREM_EQ, ACREM_OCTET},
    [ACREM_BIT_STRING] = {"bitStringMatch", "2.5.13.16", ACREM_EQ,
                          ACREM_BIT_STRING},
    [ACREM_CASE_IGNORE_LIST] = {"caseIgnoreListMatch", "2.5.13.11", ACREM_EQ,
                                ACREM_CASE_IGNORE_LIST},
    [ACREM_OID_FIRST] = {"objectIdentifierFirstComponentMatch", "2.5.13.30",
                         ACREM_EQ, ACREM_OID_FIRST},
    [ACREM_INTEGER_FIRST] = {"integerFirstComponentMatch", "2.5.13.29",
                             ACREM_EQ, ACREM_INTEGER_FIRST},
    [ACREM_UUID] = {"UUIDMatch", "1.3.6.1.1.16.2", ACREM_EQ, ACREM_UUID},
    [ACREM_CASE_IGNORE_ORD] = {"caseIgnoreOrderingMatch", "2.5.13.3", ACREM_ORD,
                               ACREM_CASE_IGNORE},
    [ACREM_CASE_EXACT_ORD] = {"caseExactOrderingMatch", "2.5.13.6", ACREM_ORD,
                              ACREM_CASE_EXACT},
    [ACREM_NUMERIC_ORD] = {"numericStringOrderingMatch", "2.5.13.9", ACREM_ORD,
                           ACREM_NUMERIC_STRING},
    [ACREM_INTEGER_ORD] = {"integerOrderingMatch", "2.5.13.15", ACREM_ORD,
                           ACREM_INTEGER},
    [ACREM_GENTIME_ORD] = {"generalizedTimeOrderingMatch", "2.5.13.28",
                           ACREM_ORD, ACREM_GENTIME},
    [ACREM_OCTET_ORD] = {"octetStringOrderingMatch", "2.5.13.18", ACREM_ORD,
                         ACREM_OCTET},
    [ACREM_UUID_ORD] = {"UUIDOrderingMatch", "1.3.6.1.1.16.3", ACREM_ORD,
                        ACREM_UUID},
    [ACREM_TELEPHONE_ORD] = {"", "", ACREM_ORD, ACREM_TELEPHONE},
    [ACREM_CASE_IGNORE_SUB] = {"caseIgnoreSubstringsMatch", "2.5.13.4",
                               ACREM_SUB, ACREM_CASE_IGNORE},
    [ACREM_CASE_EXACT_SUB] = {"caseExactSubstringsMatch", "2.5.13.7", ACREM_SUB,
                              ACREM_CASE_EXACT},
    [ACREM_CASE_IGNORE_IA5_SUB] = {"caseIgnoreIA5SubstringsMatch",
                                   "1.3.6.1.4.1.1466.109.114.3", ACREM_SUB,
                                   ACREM_CASE_IGNORE_IA5},
    [ACREM_CASE_EXACT_IA5_SUB] = {"caseExactIA5SubstringsMatch",
                                  "1.3.6.1.4.1.4203.1.2.1", ACREM_SUB,
                                  ACREM_CASE_EXACT_IA5},
    [ACREM_NUMERIC_SUB] = {"numericStringSubstringsMatch", "2.5.13.10",
                           ACREM_SUB, ACREM_NUMERIC_STRING},
    [ACREM_TELEPHONE_SUB] = {"telephoneNumberSubstringsMatch", "2.5.13.21",
                             ACREM_SUB, ACREM_TELEPHONE},
    [ACREM_CASE_IGNORE_LIST_SUB] = {"caseIgnoreListSubstringsMatch",
                                    "2.5.13.12", ACREM_SUB,
                                    ACREM_CASE_IGNORE_LIST},
    [ACREM_OCTET_SUB] = {"octetStringSubstringsMatch", "2.5.13.19", ACREM_SUB,
                         ACREM_OCTET},
    [ACREM_DN_SUB] = {"", "", ACREM_SUB, ACREM_DN},
};

static const struct {
    const char *oid;
    int syntax;
} syntaxes[] = {
    {"1.3.6.1.4.1.1466.115.121.1.15", ACREM_SYN_DIRECTORY_STRING},
    {"1.3.6.1.4.1.1466.115.121.1.26", ACREM_SYN_IA5_STRING},
    {"1.3.6.1.4.1.1466.115.121.1.44", ACREM_SYN_PRINTABLE_STRING},
    {"1.3.6.1.4.1.1466.115.121.1.36", ACREM_SYN_NUMERIC_STRING},
    {"1.3.6.1.4.1.1466.115.121.1.50", ACREM_SYN_TELEPHONE},
    {"1.3.6.1.4.1.1466.115.121.1.12", ACREM_SYN_DN},
    {"1.3.6.1.4.1.1466.115.121.1.34", ACREM_SYN_NAME_UID},
    {"1.3.6.1.4.1.1466.115.121.1.38", ACREM_SYN_OID},
    {"1.3.6.1.4.1.1466.115.121.1.27", ACREM_SYN_INTEGER},
    {"1.3.6.1.4.1.1466.115.121.1.7", ACREM_SYN_BOOLEAN},
    {"1.3.6.1.4.1.1466.115.121.1.24", ACREM_SYN_GENTIME},
    {"1.3.6.1.4.1.1466.115.121.1.40", ACREM_SYN_OCTET_STRING},
    {"1.3.6.1.4.1.1466.115.121.1.6", ACREM_SYN_BIT_STRING},
    {"1.3.6.1.4.1.1466.115.121.1.41", ACREM_SYN_POSTAL_ADDRESS},
    {"1.3.6.1.4.1.1466.115.121.1.11", ACREM_SYN_COUNTRY_STRING},
    {"1.3.6.1.1.16.1", ACREM_SYN_UUID},
    {"1.3.6.1.4.1.1466.115.121.1.5", ACREM_SYN_BINARY},
    /* syntaxes with no validation of their own, accepted as octets */
    {"1.3.6.1.4.1.1466.115.121.1.8", ACREM_SYN_BINARY},  /* Certificate */
    {"1.3.6.1.4.1.1466.115.121.1.9", ACREM_SYN_BINARY},  /* Cert. List */
    {"1.3.6.1.4.1.1466.115.121.1.10", ACREM_SYN_BINARY}, /* Cert. Pair */
    {"1.3.6.1.4.1.1466.115.121.1.28", ACREM_SYN_BINARY}, /* JPEG */
    {"1.3.6.1.4.1.1466.115.121.1.49", ACREM_SYN_BINARY}, /* Supported Algo */
    {"1.3.6.1.4.1.1466.115.121.1.22", ACREM_SYN_PRINTABLE_STRING}, /* Fax# */
    {"1.3.6.1.4.1.1466.115.121.1.23", ACREM_SYN_BINARY},           /* G3 Fax */
    {"1.3.6.1.4.1.1466.115.121.1.52", ACREM_SYN_DIRECTORY_STRING}, /* Telex */
    {"1.3.6.1.4.1.1466.115.121.1.14", ACREM_SYN_DIRECTORY_STRING}, /* Deliv. */
    {"1.3.6.1.4.1.1466.115.121.1.39", ACREM_SYN_DIRECTORY_STRING}, /* Other
                                                                     mailbox */
    {"1.3.6.1.4.1.1466.115.121.1.3", ACREM_SYN_DIRECTORY_STRING},  /* AT desc */
    {"1.3.6.1.4.1.1466.115.121.1.37", ACREM_SYN_DIRECTORY_STRING}, /* OC desc */
    {"1.3.6.1.4.1.1466.115.121.1.16", ACREM_SYN_DIRECTORY_STRING}, /* DIT CR */
    {"1.3.6.1.4.1.1466.115.121.1.17", ACREM_SYN_DIRECTORY_STRING}, /* DIT SR */
    {"1.3.6.1.4.1.1466.115.121.1.30", ACREM_SYN_DIRECTORY_STRING}, /* MR desc */
    {"1.3.6.1.4.1.1466.115.121.1.31", ACREM_SYN_DIRECTORY_STRING}, /* MRU */
    {"1.3.6.1.4.1.1466.115.121.1.35", ACREM_SYN_DIRECTORY_STRING}, /* NF */
    {"1.3.6.1.4.1.1466.115.121.1.54",
     ACREM_SYN_DIRECTORY_STRING}, /* LDAP syn */
    {"1.3.6.1.4.1.1466.115.121.1.58", ACREM_SYN_DIRECTORY_STRING}, /* Sub. A. */
    {"1.3.6.1.4.1.1466.115.121.1.25", ACREM_SYN_DIRECTORY_STRING}, /* Guide */
    {"1.3.6.1.4.1.1466.115.121.1.21", ACREM_SYN_DIRECTORY_STRING}, /* Enh G. */
    {"1.3.6.1.4.1.1466.115.121.1.13", ACREM_SYN_BINARY}, /* Data Quality */
    {"1.3.6.1.4.1.1466.115.121.1.19", ACREM_SYN_DIRECTORY_STRING}, /* DSA Q */
    {"1.3.6.1.4.1.1466.115.121.1.4", ACREM_SYN_BINARY},            /* Audio */
    {"1.3.6.1.4.1.1466.115.121.1.53", ACREM_SYN_GENTIME}, /* UTC Time */
    {"1.3.6.1.4.1.1466.115.121.1.45", ACREM_SYN_DIRECTORY_STRING}, /* Subtree
                                                                     Spec */
    {"1.3.6.1.4.1.4203.1.1.1", ACREM_SYN_OCTET_STRING},      /* OpenLDAP CSN */
    {"1.3.6.1.4.1.4203.666.11.2.1", ACREM_SYN_OCTET_STRING}, /* CSN */
    {"1.3.6.1.4.1.4203.666.11.2.4", ACREM_SYN_OCTET_STRING}, /* CSN SID */
    {"1.3.6.1.4.1.4203.1.1.2", ACREM_SYN_DIRECTORY_STRING},  /* authPassword */
    {"1.2.840.113556.1.4.906", ACREM_SYN_INTEGER},      /* Large Integer (AD) */
    {"1.3.6.1.4.1.1466.115.121.1.1", ACREM_SYN_BINARY}, /* ACI Item */
};

const struct acreM_info *
acreM_info(int r)
{
    return (r > ACREM_NONE && r < ACREM_COUNT) ? &rules[r] : NULL;
}

static int
is_numeric(const char *s, size_t n)
{
    return n && s[0] >= '0' && s[0] <= '9';
}

int
acreM_find(const char *name, size_t n)
{
    int oid = is_numeric(name, n);

    for (int r = ACREM_NONE + 1; r < ACREM_COUNT; r++) {
        const char *k = oid ? rules[r].oid : rules[r].name;
        if (*k && strlen(k) == n &&
            (oid ? memcmp(k, name, n) : strncasecmp(k, name, n)) == 0)
            return r;
    }
    return ACREM_NONE;
}

int
acreM_syntax_find(const char *oid, size_t n)
{
    for (size_t i = 0; i < sizeof(syntaxes) / sizeof(syntaxes[0]); i++)
        if (strlen(syntaxes[i].oid) == n &&
            memcmp(syntaxes[i].oid, oid, n) == 0)
            return syntaxes[i].syntax;
    return ACREM_SYN_UNKNOWN;
}
