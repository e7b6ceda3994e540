/*
 * dn_types.c -- the built-in table of naming attribute types (core,
 * cosine, inetorgperson, nis, and the cn=config names) and its lookup.
 *
 * The lookup index is an open-addressing hash of every lowercased name,
 * alias and OID, built once per process (pthread_once) and read-only
 * afterwards, so lookups take no lock.
 */
#include "dn_types.h"

#include "internal.h"

#include <pthread.h>
#include <string.h>

#define CI    ACRE_MR_CASE_IGNORE
#define CE    ACRE_MR_CASE_EXACT
#define CIIA5 ACRE_MR_CASE_IGNORE_IA5
#define CEIA5 ACRE_MR_CASE_EXACT_IA5
#define NUM   ACRE_MR_NUMERIC
#define TEL   ACRE_MR_TELEPHONE
#define INT   ACRE_MR_INTEGER
#define DNM   ACRE_MR_DN
#define UID   ACRE_MR_NAME_UID
#define OCT   ACRE_MR_OCTET

static const struct entry {
    const char *name;
    const char *oid;   /* NULL when the type is known by name only */
    const char *alias; /* NULL or a second name */
    uint8_t mr;
} entries[] = {
    /* core (RFC 4519) */
    {"objectClass", "2.5.4.0", NULL, CI},
    {"aliasedObjectName", "2.5.4.1", "aliasedEntryName", DNM},
    {"cn", "2.5.4.3", "commonName", CI},
    {"sn", "2.5.4.4", "surname", CI},
    {"serialNumber", "2.5.4.5", NULL, CI},
    {"c", "2.5.4.6", "countryName", CI},
    {"l", "2.5.4.7", "localityName", CI},
    {"st", "2.5.4.8", "stateOrProvinceName", CI},
    {"street", "2.5.4.9", "streetAddress", CI},
    {"o", "2.5.4.10", "organizationName", CI},
    {"ou", "2.5.4.11", "organizationalUnitName", CI},
    {"title", "2.5.4.12", NULL, CI},
    {"description", "2.5.4.13", NULL, CI},
    {"businessCategory", "2.5.4.15", NULL, CI},
    {"postalAddress", "2.5.4.16", NULL, CI},
    {"postalCode", "2.5.4.17", NULL, CI},
    {"postOfficeBox", "2.5.4.18", NULL, CI},
    {"physicalDeliveryOfficeName", "2.5.4.19", NULL, CI},
    {"telephoneNumber", "2.5.4.20", NULL, TEL},
    {"x121Address", "2.5.4.24", NULL, NUM},
    {"internationaliSDNNumber", "2.5.4.25", NULL, NUM},
    {"registeredAddress", "2.5.4.26", NULL, CI},
    {"destinationIndicator", "2.5.4.27", NULL, CI},
    {"member", "2.5.4.31", NULL, DNM},
    {"owner", "2.5.4.32", NULL, DNM},
    {"roleOccupant", "2.5.4.33", NULL, DNM},
    {"seeAlso", "2.5.4.34", NULL, DNM},
    {"userPassword", "2.5.4.35", NULL, OCT},
    {"name", "2.5.4.41", NULL, CI},
    {"givenName", "2.5.4.42", "gn", CI},
    {"initials", "2.5.4.43", NULL, CI},
    {"generationQualifier", "2.5.4.44", NULL, CI},
    {"dnQualifier", "2.5.4.46", NULL, CI},
    {"distinguishedName", "2.5.4.49", NULL, DNM},
    {"uniqueMember", "2.5.4.50", NULL, UID},
    {"houseIdentifier", "2.5.4.51", NULL, CI},
    {"pseudonym", "2.5.4.65", NULL, CI},
    /* cosine (RFC 4524) */
    {"uid", "0.9.2342.19200300.100.1.1", "userid", CI},
    {"textEncodedORAddress", "0.9.2342.19200300.100.1.2", NULL, CI},
    {"mail", "0.9.2342.19200300.100.1.3", "rfc822Mailbox", CIIA5},
    {"info", "0.9.2342.19200300.100.1.4", NULL, CI},
    {"drink", "0.9.2342.19200300.100.1.5", "favouriteDrink", CI},
    {"roomNumber", "0.9.2342.19200300.100.1.6", NULL, CI},
    {"userClass", "0.9.2342.19200300.100.1.8", NULL, CI},
    {"host", "0.9.2342.19200300.100.1.9", NULL, CI},
    {"manager", "0.9.2342.19200300.100.1.10", NULL, DNM},
    {"documentIdentifier", "0.9.2342.19200300.100.1.11", NULL, CI},
    {"documentTitle", "0.9.2342.19200300.100.1.12", NULL, CI},
    {"documentVersion", "0.9.2342.19200300.100.1.13", NULL, CI},
    {"documentAuthor", "0.9.2342.19200300.100.1.14", NULL, DNM},
    {"documentLocation", "0.9.2342.19200300.100.1.15", NULL, CI},
    {"homePhone", "0.9.2342.19200300.100.1.20", "homeTelephoneNumber", TEL},
    {"secretary", "0.9.2342.19200300.100.1.21", NULL, DNM},
    {"dc", "0.9.2342.19200300.100.1.25", "domainComponent", CIIA5},
    {"associatedDomain", "0.9.2342.19200300.100.1.37", NULL, CIIA5},
    {"associatedName", "0.9.2342.19200300.100.1.38", NULL, DNM},
    {"homePostalAddress", "0.9.2342.19200300.100.1.39", NULL, CI},
    {"personalTitle", "0.9.2342.19200300.100.1.40", NULL, CI},
    {"mobile", "0.9.2342.19200300.100.1.41", "mobileTelephoneNumber", TEL},
    {"pager", "0.9.2342.19200300.100.1.42", "pagerTelephoneNumber", TEL},
    {"co", "0.9.2342.19200300.100.1.43", "friendlyCountryName", CI},
    {"uniqueIdentifier", "0.9.2342.19200300.100.1.44", NULL, CI},
    {"organizationalStatus", "0.9.2342.19200300.100.1.45", NULL, CI},
    {"buildingName", "0.9.2342.19200300.100.1.48", NULL, CI},
    /* inetorgperson (RFC 2798) */
    {"carLicense", "2.16.840.1.113730.3.1.1", NULL, CI},
    {"departmentNumber", "2.16.840.1.113730.3.1.2", NULL, CI},
    {"employeeNumber", "2.16.840.1.113730.3.1.3", NULL, CI},
    {"employeeType", "2.16.840.1.113730.3.1.4", NULL, CI},
    {"preferredLanguage", "2.16.840.1.113730.3.1.39", NULL, CI},
    {"displayName", "2.16.840.1.113730.3.1.241", NULL, CI},
    /* nis (RFC 2307) */
    {"uidNumber", "1.3.6.1.1.1.1.0", NULL, INT},
    {"gidNumber", "1.3.6.1.1.1.1.1", NULL, INT},
    {"gecos", "1.3.6.1.1.1.1.2", NULL, CIIA5},
    {"homeDirectory", "1.3.6.1.1.1.1.3", NULL, CEIA5},
    {"loginShell", "1.3.6.1.1.1.1.4", NULL, CEIA5},
    {"memberUid", "1.3.6.1.1.1.1.12", NULL, CEIA5},
    {"memberNisNetgroup", "1.3.6.1.1.1.1.13", NULL, CEIA5},
    {"ipServicePort", "1.3.6.1.1.1.1.15", NULL, INT},
    {"ipServiceProtocol", "1.3.6.1.1.1.1.16", NULL, CI},
    {"ipProtocolNumber", "1.3.6.1.1.1.1.17", NULL, INT},
    {"oncRpcNumber", "1.3.6.1.1.1.1.18", NULL, INT},
    {"ipHostNumber", "1.3.6.1.1.1.1.19", NULL, CIIA5},
    {"ipNetworkNumber", "1.3.6.1.1.1.1.20", NULL, CIIA5},
    {"macAddress", "1.3.6.1.1.1.1.22", NULL, CIIA5},
    {"nisMapName", "1.3.6.1.1.1.1.26", NULL, CI},
    /* RFC 2079 */
    {"labeledURI", "1.3.6.1.4.1.250.1.57", NULL, CE},
    /* OpenLDAP cn=config naming attributes */
    {"olcDatabase", NULL, NULL, CI},
    {"olcOverlay", NULL, NULL, CI},
    {"olcBackend", NULL, NULL, CI},
};

#define NENTRIES (sizeof(entries) / sizeof(entries[0]))
#define SLOTS    512 /* power of two, > 3 * NENTRIES */

static struct acreD_type types[NENTRIES];
static char lnames[NENTRIES][ACRED_TYPE_NAME_MAX];

static struct slot {
    const char *key; /* lowercased name or alias, or an OID */
    uint8_t len;
    int16_t type;
} slots[SLOTS];

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int built; /* set (release) once build() has run */

/*
 * Names of up to 8 bytes -- nearly every type in a real DN -- are also
 * found by one 64-bit compare: the name packed into a word, lowercased by
 * OR-ing 0x20 into each byte (exact for letters, a no-op for the digits,
 * '-' and '.' a type may contain).
 */
#define SHORT_SLOTS 256

static struct short_slot {
    uint64_t key;
    int16_t type;
} short_slots[SHORT_SLOTS];

static inline uint8_t
lower(uint8_t c)
{
    return (c >= 'A' && c <= 'Z') ? c + 32 : c;
}

static uint32_t
key_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ lower((uint8_t)s[i])) * 16777619u;
    return h;
}

static inline uint64_t
pack(const char *s, size_t n)
{
    uint64_t k = 0;
    for (size_t j = 0; j < n; j++)
        k |= (uint64_t)((uint8_t)s[j] | 0x20) << (8 * j);
    return k;
}

static inline uint32_t
short_hash(uint64_t k)
{
    return (uint32_t)((k * 0x9e3779b97f4a7c15ull) >> 56) & (SHORT_SLOTS - 1);
}

static void
add_short(const char *key, size_t n, int type)
{
    uint64_t k = pack(key, n);
    uint32_t i = short_hash(k);

    while (short_slots[i].key)
        i = (i + 1) & (SHORT_SLOTS - 1);
    short_slots[i].key = k;
    short_slots[i].type = (int16_t)type;
}

static void
add_key(const char *key, int type)
{
    size_t n = strlen(key);
    uint32_t i = key_hash(key, n) & (SLOTS - 1);

    while (slots[i].key)
        i = (i + 1) & (SLOTS - 1);
    slots[i].key = key;
    slots[i].len = (uint8_t)n;
    slots[i].type = (int16_t)type;
    if (n >= 1 && n <= 8)
        add_short(key, n, type);
}

static void
build(void)
{
    for (size_t t = 0; t < NENTRIES; t++) {
        const struct entry *e = &entries[t];
        size_t n = strlen(e->name);
        for (size_t i = 0; i <= n; i++)
            lnames[t][i] = (char)lower((uint8_t)e->name[i]);
        types[t].name = e->name;
        types[t].lname = lnames[t];
        types[t].len = (uint8_t)n;
        types[t].mr = e->mr;
        types[t].lower = strcmp(e->name, lnames[t]) == 0;
        add_key(e->name, (int)t);
        if (e->alias)
            add_key(e->alias, (int)t);
        if (e->oid)
            add_key(e->oid, (int)t);
    }
    __atomic_store_n(&built, 1, __ATOMIC_RELEASE);
}

const struct acreD_type *
acreD_type_packed(uint64_t key)
{
    if (acre_unlikely(!__atomic_load_n(&built, __ATOMIC_ACQUIRE)))
        pthread_once(&once, build);
    for (uint32_t i = short_hash(key); short_slots[i].key;
         i = (i + 1) & (SHORT_SLOTS - 1))
        if (short_slots[i].key == key)
            return &types[short_slots[i].type];
    return NULL;
}

const struct acreD_type *
acreD_type_find(const char *s, size_t n)
{
    uint32_t i;

    if (acre_unlikely(!__atomic_load_n(&built, __ATOMIC_ACQUIRE)))
        pthread_once(&once, build);
    if (n >= 1 && n <= 8) {
        uint64_t k = pack(s, n);
        for (i = short_hash(k); short_slots[i].key;
             i = (i + 1) & (SHORT_SLOTS - 1))
            if (short_slots[i].key == k)
                return &types[short_slots[i].type];
        return NULL;
    }
    i = key_hash(s, n) & (SLOTS - 1);
    for (; slots[i].key; i = (i + 1) & (SLOTS - 1)) {
        const char *k = slots[i].key;
        size_t j = 0;
        if (slots[i].len != n)
            continue;
        while (j < n && lower((uint8_t)k[j]) == lower((uint8_t)s[j]))
            j++;
        if (j == n)
            return &types[slots[i].type];
    }
    return NULL;
}
