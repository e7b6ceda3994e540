/*
 * schema_builtin.c -- the built-in schema definitions, as OpenLDAP .schema
 * text parsed by schema_parse.c on first use, and the matching rules and
 * syntaxes slapd knows that match.h does not.
 *
 * The definitions are written from the RFCs that define them (RFC 4512
 * operational attributes, RFC 4519 user schema, RFC 4524 COSINE, RFC 2798
 * inetOrgPerson, RFC 2307 NIS, RFC 3671 collective attributes, RFC 3672
 * subentries, RFC 3045, RFC 3296, RFC 2589, RFC 2079) and from what slapd
 * 2.5 has built in or ships as core, cosine, inetorgperson, nis, openldap,
 * dyngroup and collective .schema files; and, last, the types of 389
 * Directory Server and OpenDJ that their exported data holds, as their
 * own schema defines them.  The unit tests load Debian's
 * /etc/ldap/schema files and require every definition of the parts named
 * after them to say exactly what the file says (OID, names, supertype,
 * rules, syntax, flags, usage, kind, MUST, MAY).
 *
 * Invariant: each part only refers to parts before it, so the parts load
 * one by one in this order.  DESC texts are left out.
 */
#include "schema_int.h"

#include "match.h"

/* LDAP syntax OIDs of RFC 4517 and friends */
#define S(n)     "1.3.6.1.4.1.1466.115.121.1." #n
#define UUID_SYN "1.3.6.1.1.16.1"
#define CSN_SYN  "1.3.6.1.4.1.4203.666.11.2.1"

/* Matching-rule clauses used over and over */
#define CI    "EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch "
#define CIIA5 "EQUALITY caseIgnoreIA5Match SUBSTR caseIgnoreIA5SubstringsMatch "
#define TEL \
    "EQUALITY telephoneNumberMatch SUBSTR telephoneNumberSubstringsMatch "
#define DNM   "EQUALITY distinguishedNameMatch "
#define INTM  "EQUALITY integerMatch "
#define INTO  "EQUALITY integerMatch ORDERING integerOrderingMatch "
#define OIDM  "EQUALITY objectIdentifierMatch "
#define OIDFC "EQUALITY objectIdentifierFirstComponentMatch "
#define TIME \
    "EQUALITY generalizedTimeMatch ORDERING generalizedTimeOrderingMatch "
#define CILIST \
    "EQUALITY caseIgnoreListMatch SUBSTR caseIgnoreListSubstringsMatch "
#define NUMS  "EQUALITY numericStringMatch SUBSTR numericStringSubstringsMatch "
#define CEIA5 "EQUALITY caseExactIA5Match "

#define OPER  "NO-USER-MODIFICATION USAGE directoryOperation "
#define DSA   "USAGE dSAOperation "
#define AT(x) "attributetype ( " x ")\n"
#define OC(x) "objectclass ( " x ")\n"

/* ------------------------------------------------------------------------
 * What slapd has built in without any schema file: RFC 4512 operational
 * and subschema types, the RFC 4519 types core.schema relies on, RFC 3672
 * subentries, the types of RFC 3671 that slapd handles itself, and the
 * naming types of cn=config.
 */
/* clang-format off */
static const char slapd_part[] =
    /* RFC 4512 */
    AT("2.5.4.0 NAME 'objectClass' " OIDM "SYNTAX " S(38) " ")
    AT("2.5.21.9 NAME 'structuralObjectClass' " OIDM "SYNTAX " S(38)
       " SINGLE-VALUE " OPER)
    AT("2.5.18.1 NAME 'createTimestamp' " TIME "SYNTAX " S(24)
       " SINGLE-VALUE " OPER)
    AT("2.5.18.2 NAME 'modifyTimestamp' " TIME "SYNTAX " S(24)
       " SINGLE-VALUE " OPER)
    AT("2.5.18.3 NAME 'creatorsName' " DNM "SYNTAX " S(12)
       " SINGLE-VALUE " OPER)
    AT("2.5.18.4 NAME 'modifiersName' " DNM "SYNTAX " S(12)
       " SINGLE-VALUE " OPER)
    AT("2.5.18.9 NAME 'hasSubordinates' EQUALITY booleanMatch SYNTAX " S(7)
       " SINGLE-VALUE " OPER)
    AT("2.5.18.10 NAME 'subschemaSubentry' " DNM "SYNTAX " S(12)
       " SINGLE-VALUE " OPER)
    AT("1.3.6.1.1.20 NAME 'entryDN' " DNM "SYNTAX " S(12)
       " SINGLE-VALUE " OPER)
    AT("1.3.6.1.1.16.4 NAME 'entryUUID' EQUALITY UUIDMatch "
       "ORDERING UUIDOrderingMatch SYNTAX " UUID_SYN " SINGLE-VALUE " OPER)
    AT("1.3.6.1.4.1.4203.666.1.7 NAME 'entryCSN' EQUALITY CSNMatch "
       "ORDERING CSNOrderingMatch SYNTAX " CSN_SYN "{64} SINGLE-VALUE " OPER)
    AT("1.3.6.1.4.1.4203.666.1.25 NAME 'contextCSN' EQUALITY CSNMatch "
       "ORDERING CSNOrderingMatch SYNTAX " CSN_SYN "{64} "
       "NO-USER-MODIFICATION " DSA)
    /* slapd's own operational types that its subschema entry hides
     * (replication, the root DSE's contexts, proxy authorisation) and
     * the few user or password-policy types it defines itself */
    AT("1.3.6.1.4.1.4203.666.1.13 NAME 'namingCSN' EQUALITY CSNMatch "
       "ORDERING CSNOrderingMatch SYNTAX " CSN_SYN "{64} SINGLE-VALUE " OPER)
    AT("1.3.6.1.4.1.4203.666.1.23 NAME 'syncreplCookie' "
       "EQUALITY octetStringMatch ORDERING octetStringOrderingMatch "
       "SYNTAX " S(40) " SINGLE-VALUE NO-USER-MODIFICATION " DSA)
    AT("1.3.6.1.4.1.4203.666.1.10 NAME 'monitorContext' " DNM
       "SYNTAX " S(12) " SINGLE-VALUE NO-USER-MODIFICATION " DSA)
    AT("1.3.6.1.4.1.4203.1.12.2.1 NAME 'configContext' " DNM
       "SYNTAX " S(12) " SINGLE-VALUE NO-USER-MODIFICATION " DSA)
    AT("1.3.6.1.4.1.4203.666.1.8 NAME ( 'authzTo' 'saslAuthzTo' ) "
       "EQUALITY authzMatch SYNTAX 1.3.6.1.4.1.4203.666.2.7 "
       "X-ORDERED 'VALUES' USAGE distributedOperation ")
    AT("1.3.6.1.4.1.4203.666.1.9 NAME ( 'authzFrom' 'saslAuthzFrom' ) "
       "EQUALITY authzMatch SYNTAX 1.3.6.1.4.1.4203.666.2.7 "
       "X-ORDERED 'VALUES' USAGE distributedOperation ")
    AT("1.3.6.1.4.1.4203.666.1.60 NAME 'pKCS8PrivateKey' "
       "EQUALITY privateKeyMatch SYNTAX 1.2.840.113549.1.8.1.1 ")
    AT("1.3.6.1.4.1.42.2.27.8.1.29 NAME 'pwdLastSuccess' " TIME
       "SYNTAX " S(24) " SINGLE-VALUE " OPER)
    AT("1.3.6.1.4.1.1466.101.120.6 NAME 'altServer' SYNTAX " S(26) " " DSA)
    AT("1.3.6.1.4.1.1466.101.120.5 NAME 'namingContexts' " DNM
       "SYNTAX " S(12) " " DSA)
    AT("1.3.6.1.4.1.1466.101.120.13 NAME 'supportedControl' SYNTAX " S(38)
       " " DSA)
    AT("1.3.6.1.4.1.1466.101.120.7 NAME 'supportedExtension' SYNTAX " S(38)
       " " DSA)
    AT("1.3.6.1.4.1.1466.101.120.15 NAME 'supportedLDAPVersion' SYNTAX " S(27)
       " " DSA)
    AT("1.3.6.1.4.1.1466.101.120.14 NAME 'supportedSASLMechanisms' "
       "SYNTAX " S(15) " " DSA)
    AT("1.3.6.1.4.1.4203.1.3.5 NAME 'supportedFeatures' " OIDM
       "SYNTAX " S(38) " " DSA)
    /* RFC 3045 */
    AT("1.3.6.1.1.4 NAME 'vendorName' EQUALITY caseExactMatch SYNTAX " S(15)
       " SINGLE-VALUE NO-USER-MODIFICATION " DSA)
    AT("1.3.6.1.1.5 NAME 'vendorVersion' EQUALITY caseExactMatch SYNTAX "
       S(15) " SINGLE-VALUE NO-USER-MODIFICATION " DSA)
    /* RFC 4512 subschema */
    AT("2.5.21.1 NAME 'dITStructureRules' "
       "EQUALITY integerFirstComponentMatch SYNTAX " S(17)
       " USAGE directoryOperation ")
    AT("2.5.21.2 NAME 'dITContentRules' " OIDFC "SYNTAX " S(16)
       " USAGE directoryOperation ")
    AT("2.5.21.4 NAME 'matchingRules' " OIDFC "SYNTAX " S(30)
       " USAGE directoryOperation ")
    AT("2.5.21.5 NAME 'attributeTypes' " OIDFC "SYNTAX " S(3)
       " USAGE directoryOperation ")
    AT("2.5.21.6 NAME 'objectClasses' " OIDFC "SYNTAX " S(37)
       " USAGE directoryOperation ")
    AT("2.5.21.7 NAME 'nameForms' " OIDFC "SYNTAX " S(35)
       " USAGE directoryOperation ")
    AT("2.5.21.8 NAME 'matchingRuleUse' " OIDFC "SYNTAX " S(31)
       " USAGE directoryOperation ")
    AT("1.3.6.1.4.1.1466.101.120.16 NAME 'ldapSyntaxes' " OIDFC
       "SYNTAX " S(54) " USAGE directoryOperation ")
    /* RFC 4512 aliases, RFC 3296 referrals, RFC 2589 dynamic objects */
    AT("2.5.4.1 NAME ( 'aliasedObjectName' 'aliasedEntryName' ) " DNM
       "SYNTAX " S(12) " SINGLE-VALUE ")
    AT("2.16.840.1.113730.3.1.34 NAME 'ref' EQUALITY caseExactMatch "
       "SYNTAX " S(15) " USAGE distributedOperation ")
    AT("1.3.6.1.4.1.1466.101.119.3 NAME 'entryTtl' SYNTAX " S(27)
       " SINGLE-VALUE NO-USER-MODIFICATION " DSA)
    AT("1.3.6.1.4.1.1466.101.119.4 NAME 'dynamicSubtrees' SYNTAX " S(12)
       " NO-USER-MODIFICATION " DSA)
    /* RFC 4519 types slapd defines itself */
    AT("2.5.4.49 NAME 'distinguishedName' " DNM "SYNTAX " S(12) " ")
    AT("2.5.4.41 NAME 'name' " CI "SYNTAX " S(15) "{32768} ")
    AT("2.5.4.3 NAME ( 'cn' 'commonName' ) SUP name ")
    AT("0.9.2342.19200300.100.1.1 NAME ( 'uid' 'userid' ) " CI
       "SYNTAX " S(15) "{256} ")
    AT("1.3.6.1.1.1.1.0 NAME 'uidNumber' " INTO "SYNTAX " S(27)
       " SINGLE-VALUE ")
    AT("1.3.6.1.1.1.1.1 NAME 'gidNumber' " INTO "SYNTAX " S(27)
       " SINGLE-VALUE ")
    AT("2.5.4.35 NAME 'userPassword' EQUALITY octetStringMatch "
       "SYNTAX " S(40) "{128} ")
    AT("1.3.6.1.4.1.250.1.57 NAME 'labeledURI' EQUALITY caseExactMatch "
       "SYNTAX " S(15) " ")
    AT("2.5.4.13 NAME 'description' " CI "SYNTAX " S(15) "{1024} ")
    AT("2.5.4.34 NAME 'seeAlso' SUP distinguishedName ")
    /* RFC 3672 subentries, RFC 3671 collective attribute control */
    AT("2.5.18.5 NAME 'administrativeRole' " OIDM "SYNTAX " S(38)
       " USAGE directoryOperation ")
    AT("2.5.18.6 NAME 'subtreeSpecification' SYNTAX " S(45)
       " SINGLE-VALUE USAGE directoryOperation ")
    AT("2.5.18.12 NAME 'collectiveAttributeSubentries' " DNM
       "SYNTAX " S(12) " " OPER)
    AT("2.5.18.7 NAME 'collectiveExclusions' " OIDM "SYNTAX " S(38)
       " USAGE directoryOperation ")
    /* the pseudo-attributes of OpenLDAP access control */
    AT("1.3.6.1.4.1.4203.1.3.1 NAME 'entry' "
       "SYNTAX 1.3.6.1.4.1.4203.1.1.1 SINGLE-VALUE NO-USER-MODIFICATION "
       DSA)
    AT("1.3.6.1.4.1.4203.1.3.2 NAME 'children' "
       "SYNTAX 1.3.6.1.4.1.4203.1.1.1 SINGLE-VALUE NO-USER-MODIFICATION "
       DSA)
    /* cn=config naming */
    AT("1.3.6.1.4.1.4203.1.12.2.3.0.9 NAME 'olcBackend' "
       "EQUALITY caseIgnoreMatch SYNTAX " S(15) " SINGLE-VALUE ")
    AT("1.3.6.1.4.1.4203.1.12.2.3.0.13 NAME 'olcDatabase' SUP olcBackend "
       "SINGLE-VALUE ")
    AT("1.3.6.1.4.1.4203.1.12.2.3.0.34 NAME 'olcOverlay' SUP olcDatabase "
       "SINGLE-VALUE ")
    /* classes */
    OC("2.5.6.0 NAME 'top' ABSTRACT MUST objectClass ")
    OC("2.5.6.1 NAME 'alias' SUP top STRUCTURAL MUST aliasedObjectName ")
    OC("1.3.6.1.4.1.1466.101.120.111 NAME 'extensibleObject' SUP top "
       "AUXILIARY ")
    OC("2.16.840.1.113730.3.2.6 NAME 'referral' SUP top STRUCTURAL "
       "MUST ref ")
    OC("1.3.6.1.4.1.4203.1.4.1 NAME ( 'OpenLDAProotDSE' 'LDAProotDSE' ) "
       "SUP top STRUCTURAL MAY cn ")
    OC("2.5.17.0 NAME 'subentry' SUP top STRUCTURAL "
       "MUST ( cn $ subtreeSpecification ) ")
    OC("2.5.17.2 NAME 'collectiveAttributeSubentry' AUXILIARY ")
    OC("2.5.20.1 NAME 'subschema' AUXILIARY MAY ( dITStructureRules $ "
       "nameForms $ dITContentRules $ objectClasses $ attributeTypes $ "
       "matchingRules $ matchingRuleUse ) ")
    OC("1.3.6.1.4.1.1466.101.119.2 NAME 'dynamicObject' SUP top "
       "AUXILIARY ")
    /* glue: the class of back-mdb's root of a database whose suffix is
     * "" (search.c: glue_view) */
    OC("1.3.6.1.4.1.4203.666.3.4 NAME 'glue' SUP top STRUCTURAL ")
    OC("1.3.6.1.4.1.4203.666.3.5 NAME 'syncConsumerSubentry' AUXILIARY "
       "MAY syncreplCookie ")
    OC("1.3.6.1.4.1.4203.666.3.6 NAME 'syncProviderSubentry' AUXILIARY "
       "MAY contextCSN ");
/* clang-format on */

/* ------------------------------------------------------------------------
 * core: RFC 4519 (and RFC 4523 certificates, RFC 2079, RFC 2247,
 * RFC 4524 mail/dc, PKCS #9 email) as OpenLDAP's core.schema has them.
 */
/* clang-format off */
static const char core_part[] =
    AT("2.5.4.2 NAME 'knowledgeInformation' EQUALITY caseIgnoreMatch "
       "SYNTAX " S(15) "{32768} ")
    AT("2.5.4.4 NAME ( 'sn' 'surname' ) SUP name ")
    AT("2.5.4.5 NAME 'serialNumber' " CI "SYNTAX " S(44) "{64} ")
    AT("2.5.4.6 NAME ( 'c' 'countryName' ) SUP name SYNTAX " S(11)
       " SINGLE-VALUE ")
    AT("2.5.4.7 NAME ( 'l' 'localityName' ) SUP name ")
    AT("2.5.4.8 NAME ( 'st' 'stateOrProvinceName' ) SUP name ")
    AT("2.5.4.9 NAME ( 'street' 'streetAddress' ) " CI "SYNTAX " S(15)
       "{128} ")
    AT("2.5.4.10 NAME ( 'o' 'organizationName' ) SUP name ")
    AT("2.5.4.11 NAME ( 'ou' 'organizationalUnitName' ) SUP name ")
    AT("2.5.4.12 NAME 'title' SUP name ")
    AT("2.5.4.14 NAME 'searchGuide' SYNTAX " S(25) " ")
    AT("2.5.4.15 NAME 'businessCategory' " CI "SYNTAX " S(15) "{128} ")
    AT("2.5.4.16 NAME 'postalAddress' " CILIST "SYNTAX " S(41) " ")
    AT("2.5.4.17 NAME 'postalCode' " CI "SYNTAX " S(15) "{40} ")
    AT("2.5.4.18 NAME 'postOfficeBox' " CI "SYNTAX " S(15) "{40} ")
    AT("2.5.4.19 NAME 'physicalDeliveryOfficeName' " CI "SYNTAX " S(15)
       "{128} ")
    AT("2.5.4.20 NAME 'telephoneNumber' " TEL "SYNTAX " S(50) "{32} ")
    AT("2.5.4.21 NAME 'telexNumber' SYNTAX " S(52) " ")
    AT("2.5.4.22 NAME 'teletexTerminalIdentifier' SYNTAX " S(51) " ")
    AT("2.5.4.23 NAME ( 'facsimileTelephoneNumber' 'fax' ) SYNTAX " S(22)
       " ")
    AT("2.5.4.24 NAME 'x121Address' " NUMS "SYNTAX " S(36) "{15} ")
    AT("2.5.4.25 NAME 'internationaliSDNNumber' " NUMS "SYNTAX " S(36)
       "{16} ")
    AT("2.5.4.26 NAME 'registeredAddress' SUP postalAddress SYNTAX " S(41)
       " ")
    AT("2.5.4.27 NAME 'destinationIndicator' " CI "SYNTAX " S(44) "{128} ")
    AT("2.5.4.28 NAME 'preferredDeliveryMethod' SYNTAX " S(14)
       " SINGLE-VALUE ")
    AT("2.5.4.29 NAME 'presentationAddress' "
       "EQUALITY presentationAddressMatch SYNTAX " S(43) " SINGLE-VALUE ")
    AT("2.5.4.30 NAME 'supportedApplicationContext' " OIDM "SYNTAX " S(38)
       " ")
    AT("2.5.4.31 NAME 'member' SUP distinguishedName ")
    AT("2.5.4.32 NAME 'owner' SUP distinguishedName ")
    AT("2.5.4.33 NAME 'roleOccupant' SUP distinguishedName ")
    AT("2.5.4.36 NAME 'userCertificate' EQUALITY certificateExactMatch "
       "SYNTAX " S(8) " ")
    AT("2.5.4.37 NAME 'cACertificate' EQUALITY certificateExactMatch "
       "SYNTAX " S(8) " ")
    AT("2.5.4.38 NAME 'authorityRevocationList' SYNTAX " S(9) " ")
    AT("2.5.4.39 NAME 'certificateRevocationList' SYNTAX " S(9) " ")
    AT("2.5.4.40 NAME 'crossCertificatePair' SYNTAX " S(10) " ")
    AT("2.5.4.42 NAME ( 'givenName' 'gn' ) SUP name ")
    AT("2.5.4.43 NAME 'initials' SUP name ")
    AT("2.5.4.44 NAME 'generationQualifier' SUP name ")
    AT("2.5.4.45 NAME 'x500UniqueIdentifier' EQUALITY bitStringMatch "
       "SYNTAX " S(6) " ")
    AT("2.5.4.46 NAME 'dnQualifier' EQUALITY caseIgnoreMatch "
       "ORDERING caseIgnoreOrderingMatch SUBSTR caseIgnoreSubstringsMatch "
       "SYNTAX " S(44) " ")
    AT("2.5.4.47 NAME 'enhancedSearchGuide' SYNTAX " S(21) " ")
    AT("2.5.4.48 NAME 'protocolInformation' "
       "EQUALITY protocolInformationMatch SYNTAX " S(42) " ")
    AT("2.5.4.50 NAME 'uniqueMember' EQUALITY uniqueMemberMatch "
       "SYNTAX " S(34) " ")
    AT("2.5.4.51 NAME 'houseIdentifier' " CI "SYNTAX " S(15) "{32768} ")
    AT("2.5.4.52 NAME 'supportedAlgorithms' SYNTAX " S(49) " ")
    AT("2.5.4.53 NAME 'deltaRevocationList' SYNTAX " S(9) " ")
    AT("2.5.4.54 NAME 'dmdName' SUP name ")
    AT("2.5.4.65 NAME 'pseudonym' SUP name ")
    AT("0.9.2342.19200300.100.1.3 NAME ( 'mail' 'rfc822Mailbox' ) " CIIA5
       "SYNTAX " S(26) "{256} ")
    AT("0.9.2342.19200300.100.1.25 NAME ( 'dc' 'domainComponent' ) " CIIA5
       "SYNTAX " S(26) " SINGLE-VALUE ")
    AT("0.9.2342.19200300.100.1.37 NAME 'associatedDomain' " CIIA5
       "SYNTAX " S(26) " ")
    AT("1.2.840.113549.1.9.1 NAME ( 'email' 'emailAddress' 'pkcs9email' ) "
       CIIA5 "SYNTAX " S(26) "{128} ")
    OC("2.5.6.2 NAME 'country' SUP top STRUCTURAL MUST c "
       "MAY ( searchGuide $ description ) ")
    OC("2.5.6.3 NAME 'locality' SUP top STRUCTURAL MAY ( street $ seeAlso $ "
       "searchGuide $ st $ l $ description ) ")
    OC("2.5.6.4 NAME 'organization' SUP top STRUCTURAL MUST o "
       "MAY ( userPassword $ searchGuide $ seeAlso $ businessCategory $ "
       "x121Address $ registeredAddress $ destinationIndicator $ "
       "preferredDeliveryMethod $ telexNumber $ teletexTerminalIdentifier $ "
       "telephoneNumber $ internationaliSDNNumber $ "
       "facsimileTelephoneNumber $ street $ postOfficeBox $ postalCode $ "
       "postalAddress $ physicalDeliveryOfficeName $ st $ l $ "
       "description ) ")
    OC("2.5.6.5 NAME 'organizationalUnit' SUP top STRUCTURAL MUST ou "
       "MAY ( userPassword $ searchGuide $ seeAlso $ businessCategory $ "
       "x121Address $ registeredAddress $ destinationIndicator $ "
       "preferredDeliveryMethod $ telexNumber $ teletexTerminalIdentifier $ "
       "telephoneNumber $ internationaliSDNNumber $ "
       "facsimileTelephoneNumber $ street $ postOfficeBox $ postalCode $ "
       "postalAddress $ physicalDeliveryOfficeName $ st $ l $ "
       "description ) ")
    OC("2.5.6.6 NAME 'person' SUP top STRUCTURAL MUST ( sn $ cn ) "
       "MAY ( userPassword $ telephoneNumber $ seeAlso $ description ) ")
    OC("2.5.6.7 NAME 'organizationalPerson' SUP person STRUCTURAL "
       "MAY ( title $ x121Address $ registeredAddress $ "
       "destinationIndicator $ preferredDeliveryMethod $ telexNumber $ "
       "teletexTerminalIdentifier $ telephoneNumber $ "
       "internationaliSDNNumber $ facsimileTelephoneNumber $ street $ "
       "postOfficeBox $ postalCode $ postalAddress $ "
       "physicalDeliveryOfficeName $ ou $ st $ l ) ")
    OC("2.5.6.8 NAME 'organizationalRole' SUP top STRUCTURAL MUST cn "
       "MAY ( x121Address $ registeredAddress $ destinationIndicator $ "
       "preferredDeliveryMethod $ telexNumber $ teletexTerminalIdentifier $ "
       "telephoneNumber $ internationaliSDNNumber $ "
       "facsimileTelephoneNumber $ seeAlso $ roleOccupant $ "
       "preferredDeliveryMethod $ street $ postOfficeBox $ postalCode $ "
       "postalAddress $ physicalDeliveryOfficeName $ ou $ st $ l $ "
       "description ) ")
    OC("2.5.6.9 NAME 'groupOfNames' SUP top STRUCTURAL "
       "MUST ( member $ cn ) MAY ( businessCategory $ seeAlso $ owner $ "
       "ou $ o $ description ) ")
    OC("2.5.6.10 NAME 'residentialPerson' SUP person STRUCTURAL MUST l "
       "MAY ( businessCategory $ x121Address $ registeredAddress $ "
       "destinationIndicator $ preferredDeliveryMethod $ telexNumber $ "
       "teletexTerminalIdentifier $ telephoneNumber $ "
       "internationaliSDNNumber $ facsimileTelephoneNumber $ "
       "preferredDeliveryMethod $ street $ postOfficeBox $ postalCode $ "
       "postalAddress $ physicalDeliveryOfficeName $ st $ l ) ")
    OC("2.5.6.11 NAME 'applicationProcess' SUP top STRUCTURAL MUST cn "
       "MAY ( seeAlso $ ou $ l $ description ) ")
    OC("2.5.6.12 NAME 'applicationEntity' SUP top STRUCTURAL "
       "MUST ( presentationAddress $ cn ) MAY ( supportedApplicationContext "
       "$ seeAlso $ ou $ o $ l $ description ) ")
    OC("2.5.6.13 NAME 'dSA' SUP applicationEntity STRUCTURAL "
       "MAY knowledgeInformation ")
    OC("2.5.6.14 NAME 'device' SUP top STRUCTURAL MUST cn "
       "MAY ( serialNumber $ seeAlso $ owner $ ou $ o $ l $ description ) ")
    OC("2.5.6.15 NAME 'strongAuthenticationUser' SUP top AUXILIARY "
       "MUST userCertificate ")
    OC("2.5.6.16 NAME 'certificationAuthority' SUP top AUXILIARY "
       "MUST ( authorityRevocationList $ certificateRevocationList $ "
       "cACertificate ) MAY crossCertificatePair ")
    OC("2.5.6.17 NAME 'groupOfUniqueNames' SUP top STRUCTURAL "
       "MUST ( uniqueMember $ cn ) MAY ( businessCategory $ seeAlso $ "
       "owner $ ou $ o $ description ) ")
    OC("2.5.6.18 NAME 'userSecurityInformation' SUP top AUXILIARY "
       "MAY ( supportedAlgorithms ) ")
    OC("2.5.6.16.2 NAME 'certificationAuthority-V2' "
       "SUP certificationAuthority AUXILIARY MAY ( deltaRevocationList ) ")
    OC("2.5.6.19 NAME 'cRLDistributionPoint' SUP top STRUCTURAL "
       "MUST ( cn ) MAY ( certificateRevocationList $ "
       "authorityRevocationList $ deltaRevocationList ) ")
    OC("2.5.6.20 NAME 'dmd' SUP top STRUCTURAL MUST ( dmdName ) "
       "MAY ( userPassword $ searchGuide $ seeAlso $ businessCategory $ "
       "x121Address $ registeredAddress $ destinationIndicator $ "
       "preferredDeliveryMethod $ telexNumber $ teletexTerminalIdentifier $ "
       "telephoneNumber $ internationaliSDNNumber $ "
       "facsimileTelephoneNumber $ street $ postOfficeBox $ postalCode $ "
       "postalAddress $ physicalDeliveryOfficeName $ st $ l $ "
       "description ) ")
    OC("2.5.6.21 NAME 'pkiUser' SUP top AUXILIARY MAY userCertificate ")
    OC("2.5.6.22 NAME 'pkiCA' SUP top AUXILIARY "
       "MAY ( authorityRevocationList $ certificateRevocationList $ "
       "cACertificate $ crossCertificatePair ) ")
    OC("2.5.6.23 NAME 'deltaCRL' SUP top AUXILIARY "
       "MAY deltaRevocationList ")
    OC("1.3.6.1.4.1.250.3.15 NAME 'labeledURIObject' SUP top AUXILIARY "
       "MAY labeledURI ")
    OC("0.9.2342.19200300.100.4.19 NAME 'simpleSecurityObject' SUP top "
       "AUXILIARY MUST userPassword ")
    OC("1.3.6.1.4.1.1466.344 NAME 'dcObject' SUP top AUXILIARY MUST dc ")
    OC("1.3.6.1.1.3.1 NAME 'uidObject' SUP top AUXILIARY MUST uid ");
/* clang-format on */

/* ------------------------------------------------------------------------
 * cosine: RFC 4524 and the older COSINE/Internet X.500 types (RFC 1274)
 * that OpenLDAP's cosine.schema keeps.
 */
#define P1 "0.9.2342.19200300.100.1."
#define P4 "0.9.2342.19200300.100.4."

/* clang-format off */
static const char cosine_part[] =
    AT(P1 "2 NAME 'textEncodedORAddress' " CI "SYNTAX " S(15) "{256} ")
    AT(P1 "4 NAME 'info' " CI "SYNTAX " S(15) "{2048} ")
    AT(P1 "5 NAME ( 'drink' 'favouriteDrink' ) " CI "SYNTAX " S(15)
       "{256} ")
    AT(P1 "6 NAME 'roomNumber' " CI "SYNTAX " S(15) "{256} ")
    AT(P1 "7 NAME 'photo' SYNTAX " S(23) "{25000} ")
    AT(P1 "8 NAME 'userClass' " CI "SYNTAX " S(15) "{256} ")
    AT(P1 "9 NAME 'host' " CI "SYNTAX " S(15) "{256} ")
    AT(P1 "10 NAME 'manager' " DNM "SYNTAX " S(12) " ")
    AT(P1 "11 NAME 'documentIdentifier' " CI "SYNTAX " S(15) "{256} ")
    AT(P1 "12 NAME 'documentTitle' " CI "SYNTAX " S(15) "{256} ")
    AT(P1 "13 NAME 'documentVersion' " CI "SYNTAX " S(15) "{256} ")
    AT(P1 "14 NAME 'documentAuthor' " DNM "SYNTAX " S(12) " ")
    AT(P1 "15 NAME 'documentLocation' " CI "SYNTAX " S(15) "{256} ")
    AT(P1 "20 NAME ( 'homePhone' 'homeTelephoneNumber' ) " TEL
       "SYNTAX " S(50) " ")
    AT(P1 "21 NAME 'secretary' " DNM "SYNTAX " S(12) " ")
    AT(P1 "22 NAME 'otherMailbox' SYNTAX " S(39) " ")
    AT(P1 "26 NAME 'aRecord' EQUALITY caseIgnoreIA5Match SYNTAX " S(26) " ")
    AT(P1 "27 NAME 'mDRecord' EQUALITY caseIgnoreIA5Match SYNTAX " S(26)
       " ")
    AT(P1 "28 NAME 'mXRecord' EQUALITY caseIgnoreIA5Match SYNTAX " S(26)
       " ")
    AT(P1 "29 NAME 'nSRecord' EQUALITY caseIgnoreIA5Match SYNTAX " S(26)
       " ")
    AT(P1 "30 NAME 'sOARecord' EQUALITY caseIgnoreIA5Match SYNTAX " S(26)
       " ")
    AT(P1 "31 NAME 'cNAMERecord' EQUALITY caseIgnoreIA5Match SYNTAX " S(26)
       " ")
    AT(P1 "38 NAME 'associatedName' " DNM "SYNTAX " S(12) " ")
    AT(P1 "39 NAME 'homePostalAddress' " CILIST "SYNTAX " S(41) " ")
    AT(P1 "40 NAME 'personalTitle' " CI "SYNTAX " S(15) "{256} ")
    AT(P1 "41 NAME ( 'mobile' 'mobileTelephoneNumber' ) " TEL
       "SYNTAX " S(50) " ")
    AT(P1 "42 NAME ( 'pager' 'pagerTelephoneNumber' ) " TEL
       "SYNTAX " S(50) " ")
    AT(P1 "43 NAME ( 'co' 'friendlyCountryName' ) " CI "SYNTAX " S(15) " ")
    AT(P1 "44 NAME 'uniqueIdentifier' EQUALITY caseIgnoreMatch "
       "SYNTAX " S(15) "{256} ")
    AT(P1 "45 NAME 'organizationalStatus' " CI "SYNTAX " S(15) "{256} ")
    AT(P1 "46 NAME 'janetMailbox' " CIIA5 "SYNTAX " S(26) "{256} ")
    AT(P1 "47 NAME 'mailPreferenceOption' SYNTAX " S(27) " ")
    AT(P1 "48 NAME 'buildingName' " CI "SYNTAX " S(15) "{256} ")
    AT(P1 "49 NAME 'dSAQuality' SYNTAX " S(19) " SINGLE-VALUE ")
    AT(P1 "50 NAME 'singleLevelQuality' SYNTAX " S(13) " SINGLE-VALUE ")
    AT(P1 "51 NAME 'subtreeMinimumQuality' SYNTAX " S(13) " SINGLE-VALUE ")
    AT(P1 "52 NAME 'subtreeMaximumQuality' SYNTAX " S(13) " SINGLE-VALUE ")
    AT(P1 "53 NAME 'personalSignature' SYNTAX " S(23) " ")
    AT(P1 "54 NAME 'dITRedirect' " DNM "SYNTAX " S(12) " ")
    AT(P1 "55 NAME 'audio' SYNTAX " S(4) "{25000} ")
    AT(P1 "56 NAME 'documentPublisher' " CI "SYNTAX " S(15) " ")
    OC(P4 "4 NAME ( 'pilotPerson' 'newPilotPerson' ) SUP person STRUCTURAL "
       "MAY ( userid $ textEncodedORAddress $ rfc822Mailbox $ "
       "favouriteDrink $ roomNumber $ userClass $ homeTelephoneNumber $ "
       "homePostalAddress $ secretary $ personalTitle $ "
       "preferredDeliveryMethod $ businessCategory $ janetMailbox $ "
       "otherMailbox $ mobileTelephoneNumber $ pagerTelephoneNumber $ "
       "organizationalStatus $ mailPreferenceOption $ personalSignature ) ")
    OC(P4 "5 NAME 'account' SUP top STRUCTURAL MUST userid "
       "MAY ( description $ seeAlso $ localityName $ organizationName $ "
       "organizationalUnitName $ host ) ")
    OC(P4 "6 NAME 'document' SUP top STRUCTURAL MUST documentIdentifier "
       "MAY ( commonName $ description $ seeAlso $ localityName $ "
       "organizationName $ organizationalUnitName $ documentTitle $ "
       "documentVersion $ documentAuthor $ documentLocation $ "
       "documentPublisher ) ")
    OC(P4 "7 NAME 'room' SUP top STRUCTURAL MUST commonName "
       "MAY ( roomNumber $ description $ seeAlso $ telephoneNumber ) ")
    OC(P4 "9 NAME 'documentSeries' SUP top STRUCTURAL MUST commonName "
       "MAY ( description $ seeAlso $ telephonenumber $ localityName $ "
       "organizationName $ organizationalUnitName ) ")
    OC(P4 "13 NAME 'domain' SUP top STRUCTURAL MUST domainComponent "
       "MAY ( associatedName $ organizationName $ description $ "
       "businessCategory $ seeAlso $ searchGuide $ userPassword $ "
       "localityName $ stateOrProvinceName $ streetAddress $ "
       "physicalDeliveryOfficeName $ postalAddress $ postalCode $ "
       "postOfficeBox $ streetAddress $ facsimileTelephoneNumber $ "
       "internationalISDNNumber $ telephoneNumber $ "
       "teletexTerminalIdentifier $ telexNumber $ preferredDeliveryMethod $ "
       "destinationIndicator $ registeredAddress $ x121Address ) ")
    OC(P4 "14 NAME 'RFC822localPart' SUP domain STRUCTURAL "
       "MAY ( commonName $ surname $ description $ seeAlso $ "
       "telephoneNumber $ physicalDeliveryOfficeName $ postalAddress $ "
       "postalCode $ postOfficeBox $ streetAddress $ "
       "facsimileTelephoneNumber $ internationalISDNNumber $ "
       "telephoneNumber $ teletexTerminalIdentifier $ telexNumber $ "
       "preferredDeliveryMethod $ destinationIndicator $ registeredAddress "
       "$ x121Address ) ")
    OC(P4 "15 NAME 'dNSDomain' SUP domain STRUCTURAL MAY ( ARecord $ "
       "MDRecord $ MXRecord $ NSRecord $ SOARecord $ CNAMERecord ) ")
    OC(P4 "17 NAME 'domainRelatedObject' SUP top AUXILIARY "
       "MUST associatedDomain ")
    OC(P4 "18 NAME 'friendlyCountry' SUP country STRUCTURAL "
       "MUST friendlyCountryName ")
    OC(P4 "20 NAME 'pilotOrganization' SUP ( organization $ "
       "organizationalUnit ) STRUCTURAL MAY buildingName ")
    OC(P4 "21 NAME 'pilotDSA' SUP dsa STRUCTURAL MAY dSAQuality ")
    OC(P4 "22 NAME 'qualityLabelledData' SUP top AUXILIARY "
       "MUST dsaQuality MAY ( subtreeMinimumQuality $ "
       "subtreeMaximumQuality ) ");
/* clang-format on */

/* ------------------------------------------------------------------------
 * inetorgperson: RFC 2798
 */
#define NS1 "2.16.840.1.113730.3.1."

/* clang-format off */
static const char inetorgperson_part[] =
    AT(NS1 "1 NAME 'carLicense' " CI "SYNTAX " S(15) " ")
    AT(NS1 "2 NAME 'departmentNumber' " CI "SYNTAX " S(15) " ")
    AT(NS1 "241 NAME 'displayName' " CI "SYNTAX " S(15) " SINGLE-VALUE ")
    AT(NS1 "3 NAME 'employeeNumber' " CI "SYNTAX " S(15) " SINGLE-VALUE ")
    AT(NS1 "4 NAME 'employeeType' " CI "SYNTAX " S(15) " ")
    AT(P1 "60 NAME 'jpegPhoto' SYNTAX " S(28) " ")
    AT(NS1 "39 NAME 'preferredLanguage' " CI "SYNTAX " S(15)
       " SINGLE-VALUE ")
    AT(NS1 "40 NAME 'userSMIMECertificate' SYNTAX " S(5) " ")
    AT(NS1 "216 NAME 'userPKCS12' SYNTAX " S(5) " ")
    OC("2.16.840.1.113730.3.2.2 NAME 'inetOrgPerson' "
       "SUP organizationalPerson STRUCTURAL MAY ( audio $ businessCategory $ "
       "carLicense $ departmentNumber $ displayName $ employeeNumber $ "
       "employeeType $ givenName $ homePhone $ homePostalAddress $ "
       "initials $ jpegPhoto $ labeledURI $ mail $ manager $ mobile $ o $ "
       "pager $ photo $ roomNumber $ secretary $ uid $ userCertificate $ "
       "x500uniqueIdentifier $ preferredLanguage $ userSMIMECertificate $ "
       "userPKCS12 ) ");
/* clang-format on */

/* ------------------------------------------------------------------------
 * nis: RFC 2307 (uidNumber and gidNumber are in slapd_part)
 */
#define NIS1 "1.3.6.1.1.1.1."
#define NIS2 "1.3.6.1.1.1.2."
#define SHADOW(n, name) \
    AT(NIS1 n " NAME '" name "' " INTM "SYNTAX " S(27) " SINGLE-VALUE ")

/* clang-format off */
static const char nis_part[] =
    AT(NIS1 "2 NAME 'gecos' " CIIA5 "SYNTAX " S(26) " SINGLE-VALUE ")
    AT(NIS1 "3 NAME 'homeDirectory' " CEIA5 "SYNTAX " S(26) " SINGLE-VALUE ")
    AT(NIS1 "4 NAME 'loginShell' " CEIA5 "SYNTAX " S(26) " SINGLE-VALUE ")
    SHADOW("5", "shadowLastChange")
    SHADOW("6", "shadowMin")
    SHADOW("7", "shadowMax")
    SHADOW("8", "shadowWarning")
    SHADOW("9", "shadowInactive")
    SHADOW("10", "shadowExpire")
    SHADOW("11", "shadowFlag")
    AT(NIS1 "12 NAME 'memberUid' " CEIA5
       "SUBSTR caseExactIA5SubstringsMatch SYNTAX " S(26) " ")
    AT(NIS1 "13 NAME 'memberNisNetgroup' " CEIA5
       "SUBSTR caseExactIA5SubstringsMatch SYNTAX " S(26) " ")
    AT(NIS1 "14 NAME 'nisNetgroupTriple' SYNTAX 1.3.6.1.1.1.0.0 ")
    AT(NIS1 "15 NAME 'ipServicePort' " INTM "SYNTAX " S(27) " SINGLE-VALUE ")
    AT(NIS1 "16 NAME 'ipServiceProtocol' SUP name ")
    AT(NIS1 "17 NAME 'ipProtocolNumber' " INTM "SYNTAX " S(27)
       " SINGLE-VALUE ")
    AT(NIS1 "18 NAME 'oncRpcNumber' " INTM "SYNTAX " S(27) " SINGLE-VALUE ")
    AT(NIS1 "19 NAME 'ipHostNumber' EQUALITY caseIgnoreIA5Match "
       "SYNTAX " S(26) "{128} ")
    AT(NIS1 "20 NAME 'ipNetworkNumber' EQUALITY caseIgnoreIA5Match "
       "SYNTAX " S(26) "{128} SINGLE-VALUE ")
    AT(NIS1 "21 NAME 'ipNetmaskNumber' EQUALITY caseIgnoreIA5Match "
       "SYNTAX " S(26) "{128} SINGLE-VALUE ")
    AT(NIS1 "22 NAME 'macAddress' EQUALITY caseIgnoreIA5Match "
       "SYNTAX " S(26) "{128} ")
    AT(NIS1 "23 NAME 'bootParameter' SYNTAX 1.3.6.1.1.1.0.1 ")
    AT(NIS1 "24 NAME 'bootFile' " CEIA5 "SYNTAX " S(26) " ")
    AT(NIS1 "26 NAME 'nisMapName' SUP name ")
    AT(NIS1 "27 NAME 'nisMapEntry' " CEIA5
       "SUBSTR caseExactIA5SubstringsMatch SYNTAX " S(26)
       "{1024} SINGLE-VALUE ")
    OC(NIS2 "0 NAME 'posixAccount' SUP top AUXILIARY "
       "MUST ( cn $ uid $ uidNumber $ gidNumber $ homeDirectory ) "
       "MAY ( userPassword $ loginShell $ gecos $ description ) ")
    OC(NIS2 "1 NAME 'shadowAccount' SUP top AUXILIARY MUST uid "
       "MAY ( userPassword $ shadowLastChange $ shadowMin $ shadowMax $ "
       "shadowWarning $ shadowInactive $ shadowExpire $ shadowFlag $ "
       "description ) ")
    OC(NIS2 "2 NAME 'posixGroup' SUP top STRUCTURAL MUST ( cn $ gidNumber ) "
       "MAY ( userPassword $ memberUid $ description ) ")
    OC(NIS2 "3 NAME 'ipService' SUP top STRUCTURAL "
       "MUST ( cn $ ipServicePort $ ipServiceProtocol ) MAY ( description ) ")
    OC(NIS2 "4 NAME 'ipProtocol' SUP top STRUCTURAL "
       "MUST ( cn $ ipProtocolNumber $ description ) MAY description ")
    OC(NIS2 "5 NAME 'oncRpc' SUP top STRUCTURAL "
       "MUST ( cn $ oncRpcNumber $ description ) MAY description ")
    OC(NIS2 "6 NAME 'ipHost' SUP top AUXILIARY MUST ( cn $ ipHostNumber ) "
       "MAY ( l $ description $ manager ) ")
    OC(NIS2 "7 NAME 'ipNetwork' SUP top STRUCTURAL "
       "MUST ( cn $ ipNetworkNumber ) MAY ( ipNetmaskNumber $ l $ "
       "description $ manager ) ")
    OC(NIS2 "8 NAME 'nisNetgroup' SUP top STRUCTURAL MUST cn "
       "MAY ( nisNetgroupTriple $ memberNisNetgroup $ description ) ")
    OC(NIS2 "9 NAME 'nisMap' SUP top STRUCTURAL MUST nisMapName "
       "MAY description ")
    OC(NIS2 "10 NAME 'nisObject' SUP top STRUCTURAL "
       "MUST ( cn $ nisMapEntry $ nisMapName ) MAY description ")
    OC(NIS2 "11 NAME 'ieee802Device' SUP top AUXILIARY MAY macAddress ")
    OC(NIS2 "12 NAME 'bootableDevice' SUP top AUXILIARY "
       "MAY ( bootFile $ bootParameter ) ");
/* clang-format on */

/* ------------------------------------------------------------------------
 * openldap: OpenLDAP's own classes
 */
/* clang-format off */
static const char openldap_part[] =
    OC("1.3.6.1.4.1.4203.1.4.3 NAME 'OpenLDAPorg' SUP organization "
       "STRUCTURAL MAY ( buildingName $ displayName $ labeledURI ) ")
    OC("1.3.6.1.4.1.4203.1.4.4 NAME 'OpenLDAPou' SUP organizationalUnit "
       "STRUCTURAL MAY ( buildingName $ displayName $ labeledURI $ o ) ")
    OC("1.3.6.1.4.1.4203.1.4.5 NAME 'OpenLDAPperson' "
       "SUP ( pilotPerson $ inetOrgPerson ) STRUCTURAL MUST ( uid $ cn ) "
       "MAY ( givenName $ labeledURI $ o ) ")
    OC("1.3.6.1.4.1.4203.1.4.6 NAME 'OpenLDAPdisplayableObject' "
       "AUXILIARY MAY displayName ");
/* clang-format on */

/* ------------------------------------------------------------------------
 * dyngroup: dynamic groups (Netscape memberURL) and OpenLDAP's dynamic
 * group identities
 */
/* clang-format off */
static const char dyngroup_part[] =
    AT(NS1 "198 NAME 'memberURL' SUP labeledURI ")
    AT("1.3.6.1.4.1.4203.666.11.8.1.1 NAME 'dgIdentity' "
       "SUP distinguishedName SINGLE-VALUE ")
    AT("1.3.6.1.4.1.4203.666.11.8.1.2 NAME 'dgAuthz' EQUALITY authzMatch "
       "SYNTAX 1.3.6.1.4.1.4203.666.2.7 ")
    AT("1.3.6.1.4.1.4203.666.11.8.1.3 NAME 'dgMemberOf' " DNM
       "SYNTAX " S(12) " ")
    OC("2.16.840.1.113730.3.2.33 NAME 'groupOfURLs' SUP top STRUCTURAL "
       "MUST cn MAY ( memberURL $ businessCategory $ description $ o $ ou $ "
       "owner $ seeAlso ) ")
    OC("1.3.6.1.4.1.4203.666.11.8.2.1 NAME 'dgIdentityAux' SUP top "
       "AUXILIARY MAY ( dgIdentity $ dgAuthz ) ");
/* clang-format on */

/* ------------------------------------------------------------------------
 * collective: RFC 3671 section 4
 */
#define COLL(oid, name, sup) AT(oid " NAME '" name "' SUP " sup " COLLECTIVE ")

/* clang-format off */
static const char collective_part[] =
    COLL("2.5.4.7.1", "c-l", "l")
    COLL("2.5.4.8.1", "c-st", "st")
    COLL("2.5.4.9.1", "c-street", "street")
    COLL("2.5.4.10.1", "c-o", "o")
    COLL("2.5.4.11.1", "c-ou", "ou")
    COLL("2.5.4.16.1", "c-PostalAddress", "postalAddress")
    COLL("2.5.4.17.1", "c-PostalCode", "postalCode")
    COLL("2.5.4.18.1", "c-PostOfficeBox", "postOfficeBox")
    COLL("2.5.4.19.1", "c-PhysicalDeliveryOfficeName",
         "physicalDeliveryOfficeName")
    COLL("2.5.4.20.1", "c-TelephoneNumber", "telephoneNumber")
    COLL("2.5.4.21.1", "c-TelexNumber", "telexNumber")
    COLL("2.5.4.23.1", "c-FacsimileTelephoneNumber",
         "facsimileTelephoneNumber")
    COLL("2.5.4.25.1", "c-InternationalISDNNumber",
         "internationalISDNNumber");
/* clang-format on */

/* ------------------------------------------------------------------------
 * acre: what the rule languages read that slapd does not define -- the
 * X.500 basic access control attributes (X.501, RFC 3672 subentries), the
 * 389 Directory Server `aci` attribute, pwdChangedTime of the password
 * policy draft, entryExpireTimestamp of slapd's dds overlay (what a
 * slapcat of a dds database holds).  (OpenDJ's isMemberOf is in the servers
 * part below: stored, or computed on request, see acre_request_set_flags.)
 */
/* clang-format off */
static const char acre_part[] =
    AT("2.5.24.1 NAME 'accessControlScheme' " OIDM "SYNTAX " S(38)
       " SINGLE-VALUE USAGE directoryOperation ")
    AT("2.5.24.4 NAME 'prescriptiveACI' SYNTAX " S(1)
       " USAGE directoryOperation ")
    AT("2.5.24.5 NAME 'entryACI' SYNTAX " S(1) " USAGE directoryOperation ")
    AT("2.5.24.6 NAME 'subentryACI' SYNTAX " S(1)
       " USAGE directoryOperation ")
    AT(NS1 "55 NAME 'aci' SYNTAX " S(26) " USAGE directoryOperation ")
    AT("1.3.6.1.4.1.42.2.27.8.1.16 NAME 'pwdChangedTime' " TIME
       "SYNTAX " S(24) " SINGLE-VALUE " OPER)
    AT("1.3.6.1.4.1.4203.666.1.57 NAME 'entryExpireTimestamp' " TIME
       "SYNTAX " S(24) " SINGLE-VALUE NO-USER-MODIFICATION " DSA)
    OC("2.5.17.1 NAME 'accessControlSubentry' AUXILIARY ");
/* clang-format on */

/* ------------------------------------------------------------------------
 * servers: what data exported from 389 Directory Server and OpenDJ holds,
 * so that it loads without their schema files -- OpenDJ's inherited
 * collective attribute subentries (its 00-core schema), 389's roles and
 * memberOf, OpenDJ's (and Sun DSEE's) isMemberOf, and the draft LDAP
 * subentry class both servers use.  Each definition says what those
 * servers' own schema says (OID, names, supertype, rules, syntax, flags,
 * usage; kind, MUST, MAY), so that their schema files, or a schema that
 * repeats them (Debian's msuser.schema defines memberOf so), load over
 * it as any exact repeat does.  These servers define memberOf, isMemberOf,
 * nsRole and nsRoleDN without an EQUALITY rule; isMemberOf here has
 * distinguishedNameMatch, the rule OpenDJ takes from its DN syntax, so
 * that equality filters on it (stored or computed) work as in OpenDJ.
 */
#define OPENDJ_AT "1.3.6.1.4.1.26027.1.1."
#define OPENDJ_OC "1.3.6.1.4.1.26027.1.2."
#define CCB_SYN   "1.3.6.1.4.1.26027.1.3.6" /* Collective Conflict Behavior */

/* clang-format off */
static const char servers_part[] =
    /* OpenDJ: collective attributes inherited from another entry */
    AT(OPENDJ_AT "606 NAME 'collectiveConflictBehavior' SYNTAX " CCB_SYN
       " SINGLE-VALUE ")
    AT(OPENDJ_AT "621 NAME 'inheritFromDNAttribute' " OIDM "SYNTAX " S(38)
       " SINGLE-VALUE ")
    AT(OPENDJ_AT "622 NAME 'inheritFromBaseRDN' " DNM "SYNTAX " S(12)
       " SINGLE-VALUE ")
    AT(OPENDJ_AT "623 NAME 'inheritFromRDNType' " OIDM "SYNTAX " S(38)
       " SINGLE-VALUE ")
    AT(OPENDJ_AT "624 NAME 'inheritFromRDNAttribute' " OIDM "SYNTAX " S(38)
       " SINGLE-VALUE ")
    AT(OPENDJ_AT "625 NAME 'inheritAttribute' " OIDM "SYNTAX " S(38) " ")
    /* group membership computed by the servers */
    AT("1.3.6.1.4.1.42.2.27.9.1.792 NAME 'isMemberOf' " DNM "SYNTAX " S(12)
       " NO-USER-MODIFICATION USAGE directoryOperation ")
    AT("1.2.840.113556.1.2.102 NAME 'memberOf' SYNTAX " S(12) " ")
    /* 389 roles */
    AT(NS1 "574 NAME 'nsRole' SYNTAX " S(12)
       " NO-USER-MODIFICATION USAGE directoryOperation ")
    AT(NS1 "575 NAME 'nsRoleDN' SYNTAX " S(12) " USAGE directoryOperation ")
    AT(NS1 "576 NAME 'nsRoleFilter' SYNTAX " S(26) " SINGLE-VALUE ")
    AT(NS1 "1101 NAME 'nsRoleScopeDN' SYNTAX " S(12) " SINGLE-VALUE ")
    OC("2.16.840.1.113719.2.142.6.1.1 NAME 'ldapSubEntry' SUP top "
       "STRUCTURAL MAY cn ")
    OC(OPENDJ_OC "238 NAME 'inheritedCollectiveAttributeSubentry' "
       "SUP subentry STRUCTURAL MUST inheritAttribute "
       "MAY collectiveConflictBehavior ")
    OC(OPENDJ_OC "239 NAME 'inheritedFromDNCollectiveAttributeSubentry' "
       "SUP inheritedCollectiveAttributeSubentry STRUCTURAL "
       "MUST inheritFromDNAttribute ")
    OC(OPENDJ_OC "240 NAME 'inheritedFromRDNCollectiveAttributeSubentry' "
       "SUP inheritedCollectiveAttributeSubentry STRUCTURAL "
       "MUST ( inheritFromRDNAttribute $ inheritFromRDNType $ "
       "inheritFromBaseRDN ) ")
    OC("2.16.840.1.113730.3.2.93 NAME 'nsRoleDefinition' SUP ldapSubEntry "
       "STRUCTURAL MAY ( description $ nsRoleScopeDN ) ")
    OC("2.16.840.1.113730.3.2.94 NAME 'nsSimpleRoleDefinition' "
       "SUP nsRoleDefinition STRUCTURAL ")
    OC("2.16.840.1.113730.3.2.95 NAME 'nsComplexRoleDefinition' "
       "SUP nsRoleDefinition STRUCTURAL ")
    OC("2.16.840.1.113730.3.2.96 NAME 'nsManagedRoleDefinition' "
       "SUP nsSimpleRoleDefinition STRUCTURAL ")
    OC("2.16.840.1.113730.3.2.97 NAME 'nsFilteredRoleDefinition' "
       "SUP nsComplexRoleDefinition STRUCTURAL MUST nsRoleFilter ")
    OC("2.16.840.1.113730.3.2.98 NAME 'nsNestedRoleDefinition' "
       "SUP nsComplexRoleDefinition STRUCTURAL MUST nsRoleDN ");
/* clang-format on */

/* ------------------------------------------------------------------------
 * 389: what ACRE_SCHEMA_389 adds to 389's own schema (schema_389.c) -- the
 * two pseudo-attributes through which acre_access asks for rights on the
 * entry itself and on its children, as in every other schema.
 */
/* clang-format off */
const char acreS_389_acre_part[] =
    AT("1.3.6.1.4.1.4203.1.3.1 NAME 'entry' "
       "SYNTAX 1.3.6.1.4.1.4203.1.1.1 SINGLE-VALUE NO-USER-MODIFICATION "
       DSA)
    AT("1.3.6.1.4.1.4203.1.3.2 NAME 'children' "
       "SYNTAX 1.3.6.1.4.1.4203.1.1.1 SINGLE-VALUE NO-USER-MODIFICATION "
       DSA);
/* clang-format on */

const struct acreS_part acreS_builtin_parts[] = {
    {"builtin:slapd", slapd_part},
    {"builtin:core", core_part},
    {"builtin:cosine", cosine_part},
    {"builtin:inetorgperson", inetorgperson_part},
    {"builtin:nis", nis_part},
    {"builtin:openldap", openldap_part},
    {"builtin:dyngroup", dyngroup_part},
    {"builtin:collective", collective_part},
    {"builtin:acre", acre_part},
    {"builtin:servers", servers_part},
};

const unsigned acreS_nbuiltin_parts =
    sizeof acreS_builtin_parts / sizeof acreS_builtin_parts[0];

/* ------------------------------------------------------------------------
 * Matching rules slapd knows that match.h does not: a type may name them
 * (and loads), but its eq/ord/sub field is ACREM_NONE.
 */
const struct acreS_rule_info acreS_extra_rules[] = {
    {"presentationAddressMatch", "2.5.13.22", ACREM_EQ},
    {"protocolInformationMatch", "2.5.13.24", ACREM_EQ},
    {"directoryStringFirstComponentMatch", "2.5.13.31", ACREM_EQ},
    {"wordMatch", "2.5.13.32", ACREM_EQ},
    {"keywordMatch", "2.5.13.33", ACREM_EQ},
    {"certificateExactMatch", "2.5.13.34", ACREM_EQ},
    {"certificateMatch", "2.5.13.35", ACREM_EQ},
    {"certificatePairExactMatch", "2.5.13.36", ACREM_EQ},
    {"certificatePairMatch", "2.5.13.37", ACREM_EQ},
    {"certificateListExactMatch", "2.5.13.38", ACREM_EQ},
    {"certificateListMatch", "2.5.13.39", ACREM_EQ},
    {"algorithmIdentifierMatch", "2.5.13.40", ACREM_EQ},
    {"attributeCertificateMatch", "2.5.13.42", ACREM_EQ},
    {"attributeCertificateExactMatch", "2.5.13.45", ACREM_EQ},
    {"CSNMatch", "1.3.6.1.4.1.4203.666.11.2.2", ACREM_EQ},
    {"CSNOrderingMatch", "1.3.6.1.4.1.4203.666.11.2.3", ACREM_ORD},
    {"CSNSIDMatch", "1.3.6.1.4.1.4203.666.11.2.5", ACREM_EQ},
    {"rdnMatch", "1.2.36.79672281.1.13.3", ACREM_EQ},
    {"authzMatch", "1.3.6.1.4.1.4203.666.4.12", ACREM_EQ},
    {"authPasswordExactMatch", "1.3.6.1.4.1.4203.1.2.2", ACREM_EQ},
    {"authPasswordMatch", "1.3.6.1.4.1.4203.1.2.3", ACREM_EQ},
    {"privateKeyMatch", "1.3.6.1.4.1.4203.666.4.13", ACREM_EQ},
    {"OpenLDAPaciMatch", "1.3.6.1.4.1.4203.666.4.2", ACREM_EQ},
};

const unsigned acreS_nextra_rules =
    sizeof acreS_extra_rules / sizeof acreS_extra_rules[0];

/* Syntaxes slapd knows that match.h does not list. */
const char *const acreS_extra_syntaxes[] = {
    S(2),                             /* Access Point */
    S(20),                            /* DSE Type */
    S(29),                            /* Master And Shadow Access Points */
    S(32),                            /* Mail Preference */
    S(33),                            /* MHS OR Address */
    S(42),                            /* Protocol Information */
    S(43),                            /* Presentation Address */
    S(46),                            /* Supplier Information */
    S(47),                            /* Supplier Or Consumer */
    S(48),                            /* Supplier And Consumer */
    S(51),                            /* Teletex Terminal Identifier */
    S(55),                            /* Modify Rights */
    S(56),                            /* LDAP Schema Definition */
    S(57),                            /* LDAP Schema Description */
    "1.3.6.1.1.1.0.0",                /* RFC 2307 NIS Netgroup Triple */
    "1.3.6.1.1.1.0.1",                /* RFC 2307 Boot Parameter */
    "1.2.36.79672281.1.5.0",          /* RDN */
    "1.3.6.1.1.15.1",                 /* Certificate Exact Assertion */
    "1.3.6.1.1.15.2",                 /* Certificate Assertion */
    "1.3.6.1.1.15.3",                 /* Certificate Pair Exact Assertion */
    "1.3.6.1.1.15.4",                 /* Certificate Pair Assertion */
    "1.3.6.1.1.15.5",                 /* Certificate List Exact Assertion */
    "1.3.6.1.1.15.6",                 /* Certificate List Assertion */
    "1.3.6.1.1.15.7",                 /* Algorithm Identifier */
    "1.3.6.1.4.1.4203.666.11.10.2.1", /* X.509 AttributeCertificate */
    "1.2.840.113549.1.8.1.1",         /* PKCS#8 PrivateKeyInfo */
    "1.3.6.1.4.1.4203.666.2.7",       /* OpenLDAP authz */
    "1.3.6.1.4.1.4203.666.2.1",       /* OpenLDAP experimental ACI */
    CCB_SYN,                          /* OpenDJ Collective Conflict Behavior */
};

const unsigned acreS_nextra_syntaxes =
    sizeof acreS_extra_syntaxes / sizeof acreS_extra_syntaxes[0];
