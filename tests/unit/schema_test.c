/*
 * schema_test.c -- unit tests of the schema module (engine/schema*.c): the
 * RFC 4512 description parser, OpenLDAP .schema files, LDIF subschema and
 * cn=config entries, OID macros, inheritance, error positions for every
 * kind of mistake, all-or-nothing loading, lookups (and the DN parser's
 * view of types), attribute descriptions, class bitmaps, freezing and
 * memory.
 *
 * The built-in definitions are proved against Debian's slapd schema
 * files in /etc/ldap/schema (install the slapd package): those tests fail,
 * they do not skip, when the files are missing.
 */
#include <criterion/criterion.h>
#include <ctype.h>

#include <pthread.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>
#include <time.h>

#include "acre.h"
#include "dn_types.h"
#include "match.h"
#include "schema.h"
#include "schema_int.h"

#define NELEM(a)   (sizeof(a) / sizeof((a)[0]))
#define SCHEMA_DIR "/etc/ldap/schema/"

/* The files whose definitions the built-in parts 1..7 must repeat. */
static const char *const slapd_files[] = {
    "core",     "cosine",   "inetorgperson", "nis",
    "openldap", "dyngroup", "collective",
};

/* ------------------------------------------------------------------------
 * Helpers
 */

static acre_schema *
bare(void)
{
    acre_schema *s = NULL;
    acre_diag d;

    cr_assert_eq(acre_schema_new(NULL, ACRE_SCHEMA_BARE, &s, &d), 0);
    return s;
}

static acre_schema *
full(void)
{
    acre_schema *s = NULL;
    acre_diag d;

    cr_assert_eq(acre_schema_new(NULL, 0, &s, &d), 0);
    return s;
}

/* load -- text into s; returns the code, *d filled on error. */
static int
load(acre_schema *s, const char *text, acre_diag *d)
{
    memset(d, 0, sizeof *d);
    return acre_schema_load_buffer(s, "test", text, strlen(text), d);
}

#define LOAD_OK(s, text)                                               \
    do {                                                               \
        acre_diag d_;                                                  \
        int rc_ = load((s), (text), &d_);                              \
        cr_assert_eq(rc_, 0, "load failed: %d %u:%u %s", rc_, d_.line, \
                     d_.column, d_.message);                           \
    } while (0)

static int
attr(const acre_schema *s, const char *name)
{
    return acreS_attr_find(s, name, strlen(name));
}

static int
cls(const acre_schema *s, const char *name)
{
    return acreS_class_find(s, name, strlen(name));
}

/* the slapd built-in part: what the files need before they load */
static void
load_slapd_part(acre_schema *s)
{
    acre_diag d;
    const char *t = acreS_builtin_parts[0].text;

    cr_assert_str_eq(acreS_builtin_parts[0].name, "builtin:slapd");
    cr_assert_eq(acre_schema_load_buffer(s, "slapd", t, strlen(t), &d), 0, "%s",
                 d.message);
}

static void
load_file(acre_schema *s, const char *name, const char *ext)
{
    char path[256];
    acre_diag d;
    int rc;

    snprintf(path, sizeof path, SCHEMA_DIR "%s.%s", name, ext);
    rc = acre_schema_load_file(s, path, &d);
    cr_assert_eq(rc, 0,
                 "%s:%u:%u: %s (%d) -- is Debian's slapd package installed?",
                 d.file ? d.file : path, d.line, d.column, d.message, rc);
}

static int
same_rule(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcasecmp(a, b) == 0);
}

/* attr_text -- a type as RFC 4512-like text, for failure messages. */
static const char *
attr_text(const acre_schema *s, int id)
{
    static char bufs[2][2048];
    static unsigned k;
    char *o = bufs[k++ % 2];
    const struct acreS_attr *a = acreS_attr(s, id);
    size_t m = (size_t)snprintf(o, 2048, "( %s NAME (", a->oid);

    for (unsigned i = 0; i < a->nnames && m < 1800; i++)
        m += (size_t)snprintf(o + m, 2048 - m, " '%s'", a->names[i]);
    m += (size_t)snprintf(o + m, 2048 - m, " ) SUP %s",
                          a->sup >= 0 ? acreS_attr(s, a->sup)->oid : "-");
    for (int w = 1; w <= 3; w++)
        m += (size_t)snprintf(
            o + m, 2048 - m, " %s",
            acreS_attr_rule(s, id, w) ? acreS_attr_rule(s, id, w) : "-");
    snprintf(o + m, 2048 - m, " SYNTAX %s{%u} flags %#x usage %d )", a->syntax,
             a->syntax_len, a->flags, (int)a->usage);
    return o;
}

static int
attr_same(const acre_schema *x, int i, const acre_schema *y, int j)
{
    const struct acreS_attr *a = acreS_attr(x, i), *b = acreS_attr(y, j);

    if (strcmp(a->oid, b->oid) || a->nnames != b->nnames)
        return 0;
    for (unsigned k = 0; k < a->nnames; k++)
        if (strcmp(a->names[k], b->names[k]))
            return 0;
    if ((a->sup < 0) != (b->sup < 0) ||
        (a->sup >= 0 &&
         strcmp(acreS_attr(x, a->sup)->oid, acreS_attr(y, b->sup)->oid)))
        return 0;
    for (int w = 1; w <= 3; w++)
        if (!same_rule(acreS_attr_rule(x, i, w), acreS_attr_rule(y, j, w)))
            return 0;
    return strcmp(a->syntax, b->syntax) == 0 &&
           a->syntax_len == b->syntax_len && a->flags == b->flags &&
           a->usage == b->usage && a->eq == b->eq && a->ord == b->ord &&
           a->sub == b->sub;
}

static int
oid_sets_same(const acre_schema *x, const int *a, unsigned na,
              const acre_schema *y, const int *b, unsigned nb, int classes)
{
    if (na != nb)
        return 0;
    for (unsigned i = 0; i < na; i++) {
        const char *oa =
            classes ? acreS_class(x, a[i])->oid : acreS_attr(x, a[i])->oid;
        unsigned j = 0;
        while (j < nb && strcmp(oa, classes ? acreS_class(y, b[j])->oid
                                            : acreS_attr(y, b[j])->oid))
            j++;
        if (j == nb)
            return 0;
    }
    return 1;
}

static int
class_same(const acre_schema *x, int i, const acre_schema *y, int j)
{
    const struct acreS_class *a = acreS_class(x, i), *b = acreS_class(y, j);

    if (strcmp(a->oid, b->oid) || a->nnames != b->nnames ||
        a->kind != b->kind || a->flags != b->flags)
        return 0;
    for (unsigned k = 0; k < a->nnames; k++)
        if (strcmp(a->names[k], b->names[k]))
            return 0;
    return oid_sets_same(x, a->sup, a->nsup, y, b->sup, b->nsup, 1) &&
           oid_sets_same(x, a->must, a->nmust, y, b->must, b->nmust, 0) &&
           oid_sets_same(x, a->may, a->nmay, y, b->may, b->nmay, 0);
}

/* ------------------------------------------------------------------------
 * The built-in schema, proved against slapd's files
 */

Test(schema, builtin_builds)
{
    const acre_schema *b = acreS_builtin();
    const acre_diag *e = acreS_builtin_error();

    cr_assert_null(e, "built-in schema: %s:%u:%u: %s", e ? e->file : "",
                   e ? e->line : 0, e ? e->column : 0, e ? e->message : "");
    cr_assert_not_null(b);
    cr_assert_eq(acreS_freeze(NULL), b);
    cr_expect_gt(acreS_nattrs(b), 200);
    cr_expect_gt(acreS_nclasses(b), 60);
}

/*
 * Every attribute type and object class the files core, cosine,
 * inetorgperson, nis, openldap, dyngroup and collective define is built
 * in, identically; and every built-in definition of those parts comes from
 * one of the files.
 */
Test(schema, builtin_matches_slapd_schema_files)
{
    const acre_schema *b = acreS_builtin();
    acre_schema *f = bare(), *p = bare();
    unsigned a0, a1, c0, c1, pa0, pa1, pc0, pc1, bad = 0;

    load_slapd_part(f);
    a0 = acreS_nattrs(f);
    c0 = acreS_nclasses(f);
    for (size_t i = 0; i < NELEM(slapd_files); i++)
        load_file(f, slapd_files[i], "schema");
    a1 = acreS_nattrs(f);
    c1 = acreS_nclasses(f);
    cr_expect_gt(a1 - a0, 140);
    cr_expect_gt(c1 - c0, 55);
    for (unsigned id = a0; id < a1; id++) {
        const char *oid = acreS_attr(f, (int)id)->oid;
        int bid = acreS_attr_find(b, oid, strlen(oid));
        cr_expect(bid >= 0, "not built in: %s", attr_text(f, (int)id));
        if (bid >= 0 && !attr_same(f, (int)id, b, bid)) {
            cr_expect_fail("differs:\n  file    %s\n  builtin %s",
                           attr_text(f, (int)id), attr_text(b, bid));
            bad++;
        }
    }
    for (unsigned id = c0; id < c1; id++) {
        const char *oid = acreS_class(f, (int)id)->oid;
        int bid = acreS_class_find(b, oid, strlen(oid));
        cr_expect(bid >= 0, "class not built in: %s", oid);
        if (bid >= 0 && !class_same(f, (int)id, b, bid)) {
            cr_expect_fail("class %s differs from the file", oid);
            bad++;
        }
    }
    /* the other way round: parts 1..7 hold nothing the files lack */
    load_slapd_part(p);
    pa0 = acreS_nattrs(p);
    pc0 = acreS_nclasses(p);
    for (unsigned k = 1; k <= NELEM(slapd_files); k++) {
        const char *t = acreS_builtin_parts[k].text;
        acre_diag d;
        cr_assert_eq(acre_schema_load_buffer(p, acreS_builtin_parts[k].name, t,
                                             strlen(t), &d),
                     0, "%s", d.message);
        cr_assert(strstr(acreS_builtin_parts[k].name, slapd_files[k - 1]));
    }
    pa1 = acreS_nattrs(p);
    pc1 = acreS_nclasses(p);
    cr_expect_eq(pa1 - pa0, a1 - a0);
    cr_expect_eq(pc1 - pc0, c1 - c0);
    for (unsigned id = pa0; id < pa1; id++)
        cr_expect_geq(attr(f, acreS_attr(p, (int)id)->oid), 0,
                      "built in but in no file: %s",
                      acreS_attr(p, (int)id)->oid);
    for (unsigned id = pc0; id < pc1; id++)
        cr_expect_geq(cls(f, acreS_class(p, (int)id)->oid), 0,
                      "class built in but in no file: %s",
                      acreS_class(p, (int)id)->oid);
    cr_expect_eq(bad, 0);
    acre_schema_free(f);
    acre_schema_free(p);
}

/* The standard files load over the built-in schema: identical
 * redefinitions are accepted and change nothing. */
Test(schema, slapd_files_load_over_builtin)
{
    acre_schema *s = full();
    unsigned na = acreS_nattrs(s), nc = acreS_nclasses(s);

    for (size_t i = 0; i < NELEM(slapd_files); i++)
        load_file(s, slapd_files[i], "schema");
    cr_expect_eq(acreS_nattrs(s), na);
    cr_expect_eq(acreS_nclasses(s), nc);
    acre_schema_free(s);
}

/* The cn=config LDIF versions say exactly what the .schema files say. */
Test(schema, slapd_ldif_files_match_schema_files)
{
    acre_schema *s = bare(), *l = bare();

    load_slapd_part(s);
    load_slapd_part(l);
    for (size_t i = 0; i < NELEM(slapd_files); i++) {
        unsigned na, nc;
        load_file(s, slapd_files[i], "schema");
        na = acreS_nattrs(s);
        nc = acreS_nclasses(s);
        load_file(s, slapd_files[i], "ldif"); /* identical: no change */
        cr_expect_eq(acreS_nattrs(s), na, "%s.ldif", slapd_files[i]);
        cr_expect_eq(acreS_nclasses(s), nc, "%s.ldif", slapd_files[i]);
        load_file(l, slapd_files[i], "ldif"); /* and alone */
    }
    cr_expect_eq(acreS_nattrs(l), acreS_nattrs(s));
    cr_expect_eq(acreS_nclasses(l), acreS_nclasses(s));
    for (unsigned id = 0; id < acreS_nattrs(l); id++)
        cr_expect(attr_same(l, (int)id, s, (int)id), "%s vs %s",
                  attr_text(l, (int)id), attr_text(s, (int)id));
    for (unsigned id = 0; id < acreS_nclasses(l); id++)
        cr_expect(class_same(l, (int)id, s, (int)id), "class %s",
                  acreS_class(l, (int)id)->oid);
    acre_schema_free(s);
    acre_schema_free(l);
}

/* The other schema files Debian ships load too (macros, quoted OIDs,
 * ldapsyntax, X- extensions); dsee.schema has a typo slapd rejects. */
Test(schema, other_slapd_schema_files)
{
    static const char *const more[] = {
        "misc", "duaconf", "namedobject", "corba", "java", "pmi", "msuser"};
    acre_schema *s = full();
    acre_diag d;
    unsigned na = acreS_nattrs(s);
    int rc;

    for (size_t i = 0; i < NELEM(more); i++) {
        load_file(s, more[i], "schema");
        load_file(s, more[i], "ldif");
    }
    cr_expect_gt(acreS_nattrs(s), na + 100);
    cr_expect_geq(attr(s, "msDS-Cached-Membership-Time-Stamp"), 0);
    cr_expect_str_eq(acreS_attr(s, attr(s, "lastLogonTimestamp"))->syntax,
                     "1.3.6.1.4.1.1466.115.121.1.27");
    na = acreS_nattrs(s);
    rc = acre_schema_load_file(s, SCHEMA_DIR "dsee.schema", &d);
    cr_expect_eq(rc, ACRE_ERR_SCHEMA_SYNTAX);
    cr_expect_eq(d.line, 96);
    cr_expect_eq(d.column, 1);
    cr_expect(strstr(d.message, "attributeype"), "%s", d.message);
    cr_expect_str_eq(d.file, SCHEMA_DIR "dsee.schema");
    cr_expect_eq(acreS_nattrs(s), na, "a failed load adds nothing");
    acre_schema_free(s);
}

/* The types the brief names are built in, with their flags. */
Test(schema, builtin_operational_and_collective_types)
{
    static const char *const names[] = {"objectClass",
                                        "structuralObjectClass",
                                        "createTimestamp",
                                        "modifyTimestamp",
                                        "creatorsName",
                                        "modifiersName",
                                        "entryDN",
                                        "entryUUID",
                                        "entryCSN",
                                        "hasSubordinates",
                                        "subschemaSubentry",
                                        "namingContexts",
                                        "supportedControl",
                                        "supportedExtension",
                                        "supportedFeatures",
                                        "supportedLDAPVersion",
                                        "supportedSASLMechanisms",
                                        "ref",
                                        "aliasedObjectName",
                                        "attributeTypes",
                                        "objectClasses",
                                        "ldapSyntaxes",
                                        "matchingRules",
                                        "matchingRuleUse",
                                        "contextCSN",
                                        "pwdChangedTime",
                                        "olcDatabase",
                                        "olcOverlay",
                                        "olcBackend",
                                        "subtreeSpecification",
                                        "administrativeRole",
                                        "collectiveExclusions",
                                        "collectiveAttributeSubentries",
                                        "memberURL",
                                        "aci",
                                        "isMemberOf",
                                        "prescriptiveACI",
                                        "entry",
                                        "children"};
    static const char *const coll[] = {"c-l",
                                       "c-st",
                                       "c-street",
                                       "c-o",
                                       "c-ou",
                                       "c-PostalAddress",
                                       "c-PostalCode",
                                       "c-PostOfficeBox",
                                       "c-PhysicalDeliveryOfficeName",
                                       "c-TelephoneNumber",
                                       "c-TelexNumber",
                                       "c-FacsimileTelephoneNumber",
                                       "c-InternationalISDNNumber"};
    static const char *const classes[] = {"top",
                                          "alias",
                                          "extensibleObject",
                                          "subschema",
                                          "subentry",
                                          "referral",
                                          "collectiveAttributeSubentry",
                                          "accessControlSubentry",
                                          "inetOrgPerson",
                                          "posixAccount",
                                          "groupOfURLs",
                                          "dcObject"};

    for (size_t i = 0; i < NELEM(names); i++)
        cr_expect_geq(attr(NULL, names[i]), 0, "%s", names[i]);
    for (size_t i = 0; i < NELEM(coll); i++) {
        int id = attr(NULL, coll[i]);
        cr_assert_geq(id, 0, "%s", coll[i]);
        cr_expect(acreS_attr(NULL, id)->flags & ACRES_COLLECTIVE, "%s",
                  coll[i]);
        cr_expect_str_eq(acreS_attr(NULL, id)->dn.name, coll[i]);
    }
    for (size_t i = 0; i < NELEM(classes); i++)
        cr_expect_geq(cls(NULL, classes[i]), 0, "%s", classes[i]);
    cr_expect_eq(acreS_attr(NULL, attr(NULL, "createTimestamp"))->usage,
                 ACRES_DIRECTORY_OP);
    cr_expect_eq(acreS_attr(NULL, attr(NULL, "namingContexts"))->usage,
                 ACRES_DSA_OP);
    cr_expect_eq(acreS_attr(NULL, attr(NULL, "ref"))->usage,
                 ACRES_DISTRIBUTED_OP);
    cr_expect(acreS_attr(NULL, attr(NULL, "entryUUID"))->flags &
              ACRES_NO_USER_MOD);
    cr_expect_eq(acreS_attr(NULL, attr(NULL, "entryUUID"))->eq, ACREM_UUID);
    cr_expect_eq(acreS_attr(NULL, attr(NULL, "olcDatabase"))->dn.mr,
                 ACRE_MR_CASE_IGNORE);
}

/* The first use may come from many threads at once: one schema is built
 * and all of them see it. */
static void *
first_use(void *arg)
{
    const acre_schema **out = arg;

    *out = acreS_freeze(NULL);
    return (void *)(intptr_t)acreS_attr_find(NULL, "cn", 2);
}

Test(schema, builtin_first_use_from_threads)
{
    pthread_t t[8];
    const acre_schema *seen[8];
    void *cn[8];

    for (int i = 0; i < 8; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, first_use, &seen[i]), 0);
    for (int i = 0; i < 8; i++)
        pthread_join(t[i], &cn[i]);
    for (int i = 0; i < 8; i++) {
        cr_expect_not_null(seen[i]);
        cr_expect_eq(seen[i], seen[0]);
        cr_expect_eq((intptr_t)cn[i], attr(NULL, "cn"));
    }
}

/* ------------------------------------------------------------------------
 * Lookups and the DN parser's view
 */

Test(schema, lookup_names_aliases_oids_any_case)
{
    int cn = attr(NULL, "cn");

    cr_assert_geq(cn, 0);
    cr_expect_eq(attr(NULL, "CN"), cn);
    cr_expect_eq(attr(NULL, "commonName"), cn);
    cr_expect_eq(attr(NULL, "COMMONNAME"), cn);
    cr_expect_eq(attr(NULL, "2.5.4.3"), cn);
    cr_expect_eq(attr(NULL, "street"), attr(NULL, "streetAddress"));
    cr_expect_eq(attr(NULL, "0.9.2342.19200300.100.1.25"), attr(NULL, "dc"));
    cr_expect_eq(attr(NULL, "pKCS9email"), attr(NULL, "email"));
    cr_expect_eq(attr(NULL, "c-physicaldeliveryofficename"),
                 attr(NULL, "C-PhysicalDeliveryOfficeName"));
    /* near misses */
    cr_expect_eq(attr(NULL, "c n"), -1);
    cr_expect_eq(attr(NULL, "cnn"), -1);
    cr_expect_eq(attr(NULL, "2.5.4.3.0"), -1);
    cr_expect_eq(attr(NULL, "cn;x"), -1);
    cr_expect_eq(attr(NULL, ""), -1);
    cr_expect_eq(acreS_attr_find(NULL, "cn\0", 3), -1);
    cr_expect_eq(acreS_attr_find(NULL, "cn\0\0\0\0\0\0", 8), -1);
    cr_expect_eq(acreS_attr_find(NULL, "commonName\0", 11), -1);
    cr_expect_eq(acreS_attr_find(NULL, "C\x0e", 2), -1); /* 'c' | '.' */
    cr_expect_eq(acreS_attr_find(NULL, "\xc3\x8e", 2), -1);
    /* every length from 1 to 9 and beyond */
    cr_expect_geq(attr(NULL, "o"), 0);
    cr_expect_geq(attr(NULL, "mail"), 0);
    cr_expect_geq(attr(NULL, "gecos"), 0);
    cr_expect_geq(attr(NULL, "member"), 0);
    cr_expect_geq(attr(NULL, "surname"), 0);
    cr_expect_geq(attr(NULL, "shadowMin"), 0);
    cr_expect_geq(attr(NULL, "uidNumber"), 0);
    cr_expect_geq(attr(NULL, "uniqueMember"), 0);
    /* classes have their own names */
    cr_expect_geq(cls(NULL, "PERSON"), 0);
    cr_expect_eq(cls(NULL, "2.5.6.6"), cls(NULL, "person"));
    cr_expect_eq(cls(NULL, "cn"), -1);
    cr_expect_eq(attr(NULL, "person"), -1);
    cr_expect_eq(cls(NULL, "newPilotPerson"), cls(NULL, "pilotPerson"));
}

/* Every name and OID of every built-in type finds that type, in any case,
 * and the packed lookup agrees for names of up to 8 bytes. */
Test(schema, lookup_every_key)
{
    const acre_schema *b = acreS_builtin();

    for (unsigned id = 0; id < acreS_nattrs(b); id++) {
        const struct acreS_attr *a = acreS_attr(b, (int)id);
        cr_assert_eq(a->id, (int)id);
        cr_expect_eq(attr(b, a->oid), (int)id, "%s", a->oid);
        for (unsigned i = 0; i < a->nnames; i++) {
            char up[300];
            size_t n = strlen(a->names[i]);
            uint64_t key = 0;
            for (size_t j = 0; j <= n; j++)
                up[j] = (char)((a->names[i][j] >= 'a' && a->names[i][j] <= 'z')
                                   ? a->names[i][j] - 32
                                   : a->names[i][j]);
            cr_expect_eq(attr(b, a->names[i]), (int)id, "%s", a->names[i]);
            cr_expect_eq(attr(b, up), (int)id, "%s", up);
            if (n > 8)
                continue;
            for (size_t j = 0; j < n; j++)
                key |= (uint64_t)((uint8_t)up[j] | 0x20) << (8 * j);
            cr_expect_eq(acreS_attr_find_packed(b, key), (int)id, "%s", up);
            cr_expect_eq(acreS_dn_type_packed(b, key), &a->dn);
        }
    }
    for (unsigned id = 0; id < acreS_nclasses(b); id++) {
        const struct acreS_class *c = acreS_class(b, (int)id);
        cr_expect_eq(cls(b, c->oid), (int)id);
        for (unsigned i = 0; i < c->nnames; i++)
            cr_expect_eq(cls(b, c->names[i]), (int)id, "%s", c->names[i]);
    }
    cr_expect_eq(acreS_attr_find_packed(b, 0), -1);
    cr_expect_eq(acreS_attr_find_packed(b, 0x7a7a7a7a), -1); /* "zzzz" */
}

/* The DN view: canonical name, lowercase name, preparation. */
Test(schema, dn_view_of_types)
{
    static const struct {
        const char *asked, *name;
        int mr;
    } cases[] = {
        {"commonName", "cn", ACRE_MR_CASE_IGNORE},
        {"2.5.4.3", "cn", ACRE_MR_CASE_IGNORE},
        {"surname", "sn", ACRE_MR_CASE_IGNORE},
        {"mail", "mail", ACRE_MR_CASE_IGNORE_IA5},
        {"DC", "dc", ACRE_MR_CASE_IGNORE_IA5},
        {"member", "member", ACRE_MR_DN},
        {"seeAlso", "seeAlso", ACRE_MR_DN},
        {"uniqueMember", "uniqueMember", ACRE_MR_NAME_UID},
        {"telephoneNumber", "telephoneNumber", ACRE_MR_TELEPHONE},
        {"mobile", "mobile", ACRE_MR_TELEPHONE},
        {"uidNumber", "uidNumber", ACRE_MR_INTEGER},
        {"x121Address", "x121Address", ACRE_MR_NUMERIC},
        {"labeledURI", "labeledURI", ACRE_MR_CASE_EXACT},
        {"homeDirectory", "homeDirectory", ACRE_MR_CASE_EXACT_IA5},
        {"userPassword", "userPassword", ACRE_MR_OCTET},
        {"userCertificate", "userCertificate", ACRE_MR_OCTET},
        {"jpegPhoto", "jpegPhoto", ACRE_MR_OCTET},
        {"postalAddress", "postalAddress", ACRE_MR_CASE_IGNORE},
        {"objectClass", "objectClass", ACRE_MR_CASE_IGNORE},
        {"createTimestamp", "createTimestamp", ACRE_MR_OCTET},
        {"c-o", "c-o", ACRE_MR_CASE_IGNORE},
    };

    for (size_t i = 0; i < NELEM(cases); i++) {
        const struct acreD_type *t =
            acreS_dn_type(NULL, cases[i].asked, strlen(cases[i].asked));
        cr_assert_not_null(t, "%s", cases[i].asked);
        cr_expect_str_eq(t->name, cases[i].name);
        cr_expect_eq(t->len, strlen(cases[i].name));
        cr_expect_eq(t->mr, cases[i].mr, "%s: mr %d, want %d", cases[i].asked,
                     t->mr, cases[i].mr);
        for (size_t j = 0; j < t->len; j++)
            cr_expect_eq(t->lname[j], (t->name[j] >= 'A' && t->name[j] <= 'Z')
                                          ? t->name[j] + 32
                                          : t->name[j]);
        cr_expect_eq(t->lower, strcmp(t->name, t->lname) == 0);
    }
    cr_expect_null(acreS_dn_type(NULL, "nosuchtype", 10));
}

/* ------------------------------------------------------------------------
 * Parser features
 */

Test(schema, attribute_type_description_fields)
{
    acre_schema *s = full();
    int id;
    const struct acreS_attr *a;

    LOAD_OK(s, "attributetype ( 1.2.3.4 NAME ( 'fooA' 'fooAlias' )\n"
               "  DESC 'it\\27s a \\5C test'\n"
               "  OBSOLETE SUP name EQUALITY caseExactMatch\n"
               "  ORDERING caseExactOrderingMatch\n"
               "  SUBSTR caseExactSubstringsMatch\n"
               "  SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{64}\n"
               "  SINGLE-VALUE X-ORIGIN 'test' X-LIST ( 'a' 'b' ) )\n"
               "attributetype ( 1.2.3.5 NAME 'barOp' "
               "SYNTAX 1.3.6.1.4.1.1466.115.121.1.27 "
               "NO-USER-MODIFICATION USAGE dSAOperation )\n"
               "attributetype ( 1.2.3.6 NAME 'c-bar' SUP cn COLLECTIVE )\n");
    id = attr(s, "fooalias");
    cr_assert_geq(id, 0);
    a = acreS_attr(s, id);
    cr_expect_str_eq(a->oid, "1.2.3.4");
    cr_expect_eq(a->nnames, 2);
    cr_expect_str_eq(a->names[0], "fooA");
    cr_expect_str_eq(a->names[1], "fooAlias");
    cr_expect_str_eq(a->desc, "it's a \\ test");
    cr_expect_eq(a->sup, attr(s, "name"));
    cr_expect_eq(a->eq, ACREM_CASE_EXACT);
    cr_expect_eq(a->ord, ACREM_CASE_EXACT_ORD);
    cr_expect_eq(a->sub, ACREM_CASE_EXACT_SUB);
    cr_expect_str_eq(a->syntax, "1.3.6.1.4.1.1466.115.121.1.15");
    cr_expect_eq(a->syntax_len, 64);
    cr_expect_eq(a->flags, ACRES_OBSOLETE | ACRES_SINGLE_VALUE);
    cr_expect_eq(a->usage, ACRES_USER);
    cr_expect_eq(a->dn.mr, ACRE_MR_CASE_EXACT);
    cr_expect_str_eq(a->dn.name, "fooA");
    cr_expect_str_eq(a->dn.lname, "fooa");
    cr_expect_eq(a->dn.lower, 0);
    a = acreS_attr(s, attr(s, "barop"));
    cr_expect_eq(a->flags, ACRES_NO_USER_MOD);
    cr_expect_eq(a->usage, ACRES_DSA_OP);
    cr_expect_eq(a->eq, ACREM_NONE);
    cr_expect_eq(a->dn.mr, ACRE_MR_OCTET);
    cr_expect_null(a->desc);
    a = acreS_attr(s, attr(s, "c-bar"));
    cr_expect_eq(a->flags, ACRES_COLLECTIVE);
    cr_expect_eq(a->eq, ACREM_CASE_IGNORE);
    acre_schema_free(s);
}

Test(schema, any_order_any_case_quoted_oids)
{
    acre_schema *s = full();
    const struct acreS_attr *a;

    LOAD_OK(s, "AttributeTypes ( '1.2.3.4' single-value "
               "syntax '1.3.6.1.4.1.1466.115.121.1.26{32}' "
               "name 'x' equality 'caseIgnoreIA5Match' desc 'd' )\n"
               "OBJECTCLASS ('1.2.3.5'NAME'y'MAY('x'$cn)SUP'top'auxiliary)\n");
    a = acreS_attr(s, attr(s, "x"));
    cr_expect_eq(a->syntax_len, 32);
    cr_expect_eq(a->eq, ACREM_CASE_IGNORE_IA5);
    cr_expect_eq(a->flags, ACRES_SINGLE_VALUE);
    cr_expect_eq(acreS_class(s, cls(s, "y"))->kind, ACRES_AUXILIARY);
    cr_expect_eq(acreS_class(s, cls(s, "y"))->nmay, 2);
    acre_schema_free(s);
}

Test(schema, rules_by_oid_and_nameless_types)
{
    acre_schema *s = full();
    int id;

    LOAD_OK(s, "attributetype ( 1.9.9 EQUALITY 2.5.13.2 SUBSTR 2.5.13.4 "
               "SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n");
    id = attr(s, "1.9.9");
    cr_assert_geq(id, 0);
    cr_expect_eq(acreS_attr(s, id)->nnames, 0);
    cr_expect_str_eq(acreS_attr(s, id)->dn.name, "1.9.9");
    cr_expect_eq(acreS_attr(s, id)->dn.lower, 1);
    cr_expect_eq(acreS_attr(s, id)->eq, ACREM_CASE_IGNORE);
    cr_expect_eq(acreS_attr(s, id)->sub, ACREM_CASE_IGNORE_SUB);
    acre_schema_free(s);
}

Test(schema, object_class_description_fields)
{
    acre_schema *s = full();
    const struct acreS_class *c;
    int id;

    LOAD_OK(s, "objectclass ( 1.2.3.7 NAME 'myPerson' DESC 'x' OBSOLETE "
               "SUP ( inetOrgPerson $ pilotPerson ) STRUCTURAL "
               "MUST ( uid $ 2.5.4.3 ) MAY ( mail $ gecos ) X-O 'y' )\n"
               "objectclass ( 1.2.3.8 NAME 'myAbstract' ABSTRACT MAY cn )\n"
               "objectclass ( 1.2.3.9 NAME 'myDefault' MUST cn )\n");
    id = cls(s, "MYPERSON");
    cr_assert_geq(id, 0);
    c = acreS_class(s, id);
    cr_expect_str_eq(c->name, "myPerson");
    cr_expect_eq(c->kind, ACRES_STRUCTURAL);
    cr_expect_eq(c->flags, ACRES_OBSOLETE);
    cr_expect_eq(c->nsup, 2);
    cr_expect_eq(c->sup[0], cls(s, "inetOrgPerson"));
    cr_expect_eq(c->sup[1], cls(s, "pilotPerson"));
    cr_expect_eq(c->nmust, 2);
    cr_expect_eq(c->must[1], attr(s, "cn"));
    cr_expect_eq(c->nmay, 2);
    cr_expect_eq(acreS_class(s, cls(s, "myAbstract"))->kind, ACRES_ABSTRACT);
    cr_expect_eq(acreS_class(s, cls(s, "myDefault"))->kind, ACRES_STRUCTURAL);
    acre_schema_free(s);
}

Test(schema, schema_file_layout_comments_continuations)
{
    acre_schema *s = full();

    LOAD_OK(s, "# a comment\n"
               "#  continued comment\n"
               "   still part of the comment ( not a definition\n"
               "\n"
               "\r\n"
               "attributetype ( 1.2.3.10\r\n"
               "\tNAME 'cont'\r\n"
               "\tDESC 'one\r\n"
               "   two'\n"
               "\tSUP name )\n"
               "objectIdentifier   Base 1.2.3.11\n"
               "attributetype ( Base:1 NAME 'last' SUP name )");
    cr_expect_geq(attr(s, "cont"), 0);
    cr_expect_str_eq(acreS_attr(s, attr(s, "cont"))->desc, "one   two");
    cr_expect_str_eq(acreS_attr(s, attr(s, "last"))->oid, "1.2.3.11.1");
    acre_schema_free(s);
}

Test(schema, oid_macros)
{
    acre_schema *s = full();
    acre_diag d;

    LOAD_OK(s, "objectidentifier Root 1.3.6.1.4.1.99999\n"
               "objectidentifier RootAT Root:1\n"
               "objectidentifier RootOC Root:2.1\n"
               "objectidentifier DirStr 1.3.6.1.4.1.1466.115.121.1.15\n"
               "objectidentifier Root 1.3.6.1.4.1.99999\n" /* same: ok */
               "attributetype ( RootAT:7 NAME 'm1' SYNTAX DirStr{12} )\n"
               "attributetype ( RootAT NAME 'm0' SYNTAX 'DirStr' )\n"
               "objectclass ( rootoc:3.4 NAME 'm2' SUP top MAY m1 )\n");
    cr_expect_str_eq(acreS_attr(s, attr(s, "m1"))->oid,
                     "1.3.6.1.4.1.99999.1.7");
    cr_expect_str_eq(acreS_attr(s, attr(s, "m1"))->syntax,
                     "1.3.6.1.4.1.1466.115.121.1.15");
    cr_expect_eq(acreS_attr(s, attr(s, "m1"))->syntax_len, 12);
    cr_expect_str_eq(acreS_attr(s, attr(s, "m0"))->oid, "1.3.6.1.4.1.99999.1");
    cr_expect_str_eq(acreS_class(s, cls(s, "m2"))->oid,
                     "1.3.6.1.4.1.99999.2.1.3.4");
    /* macros stay defined for later loads into the same schema */
    LOAD_OK(s, "attributetype ( RootAT:8 NAME 'm3' SUP m1 )\n");
    cr_expect_str_eq(acreS_attr(s, attr(s, "m3"))->oid,
                     "1.3.6.1.4.1.99999.1.8");
    /* redefining a macro differently is an error */
    cr_expect_eq(load(s, "objectidentifier Root 1.2.3\n", &d),
                 ACRE_ERR_SCHEMA_DUP);
    cr_expect_eq(d.line, 1);
    cr_expect_eq(d.column, 18);
    acre_schema_free(s);
}

/* ok -- does slapd take description text (acreS_slapd_desc_ok)? */
static int
desc_ok(const acre_schema *s, const char *text)
{
    struct acreS_desc x;

    cr_assert_eq(acreS_desc_parse(s, text, strlen(text), &x), 0, "%s", text);
    cr_assert_geq(x.type, 0, "%s", text);
    return acreS_slapd_desc_ok(s, acreS_attr(s, x.type), &x);
}

/* attributeoptions (ad.c ad_define_option, checked with slaptest 2.5.13):
 * the first replaces slapd's default "lang-", a name ending in '-' or '='
 * is a prefix, "binary", a defined or covered name and a prefix covering
 * one defined are refused, where they were written; olcAttributeOptions
 * the same; a frozen schema takes only what it has. */
Test(schema, attribute_options)
{
    acre_schema *s = full();
    acre_diag d;

    cr_expect(desc_ok(s, "cn;lang-en"));
    cr_expect(desc_ok(s, "cn;LANG-EN-us"));
    cr_expect_not(desc_ok(s, "description;x-hidden"));
    LOAD_OK(s, "attributeoptions x-hidden phase=\n");
    cr_expect(desc_ok(s, "description;x-hidden"));
    cr_expect(desc_ok(s, "description;X-Hidden"));
    cr_expect_not(desc_ok(s, "cn;lang-en"));
    cr_expect_not(desc_ok(s, "description;x-hidden2"));
    LOAD_OK(s, "attributeoptions lang-\n");
    cr_expect(desc_ok(s, "cn;lang-en;x-hidden"));
    cr_expect_eq(load(s, "attributeoptions lang-en\n", &d),
                 ACRE_ERR_SCHEMA_DUP);
    cr_expect_eq(d.column, 18);
    cr_expect_neq(strstr(d.message, "already defined"), NULL, "%s", d.message);
    cr_expect_eq(load(s, "attributeoptions y-a y-\n", &d), ACRE_ERR_SCHEMA_DUP);
    cr_expect_eq(d.column, 22);
    cr_expect_neq(strstr(d.message, "overrides"), NULL, "%s", d.message);
    cr_expect_eq(load(s, "attributeoptions binary\n", &d), ACRE_ERR_SCHEMA_DUP);
    cr_expect_eq(load(s, "attributeoptions x_y\n", &d), ACRE_ERR_SCHEMA_SYNTAX);
    cr_expect_neq(strstr(d.message, "illegal option name"), NULL, "%s",
                  d.message);
    /* failed loads defined nothing */
    cr_expect_not(desc_ok(s, "cn;y-a"));
    cr_expect_eq(acreS_freeze(s), s);
    LOAD_OK(s, "attributeoptions x-hidden\n");
    cr_expect_eq(load(s, "attributeoptions x-new\n", &d),
                 ACRE_ERR_SCHEMA_FROZEN);
    acre_schema_free(s);

    s = full();
    LOAD_OK(s, "dn: cn=config\n"
               "objectClass: olcGlobal\n"
               "cn: config\n"
               "olcAttributeOptions: x-hidden\n"
               "olcAttributeOptions: lang-\n");
    cr_expect(desc_ok(s, "description;x-hidden"));
    cr_expect(desc_ok(s, "cn;lang-fr"));
    acre_schema_free(s);
}

Test(schema, ldapsyntax_definitions)
{
    acre_schema *s = full();
    acre_diag d;

    cr_expect_eq(load(s,
                      "attributetype ( 1.2.3.20 NAME 'ls' "
                      "SYNTAX 1.2.3.21 )\n",
                      &d),
                 ACRE_ERR_SCHEMA_UNKNOWN);
    cr_expect_eq(d.column, 43);
    LOAD_OK(s, "ldapsyntax ( 1.2.3.21 DESC 'mine' X-SUBST '1.3.6.1.4.1.1466."
               "115.121.1.15' )\n"
               "ldapSyntaxes ( 1.2.3.22 NAME 'Named' DESC 'OpenLDAP style' )\n"
               "attributetype ( 1.2.3.20 NAME 'ls' SYNTAX 1.2.3.21 )\n"
               "ditcontentrule ( 2.5.6.6 NAME 'dcr' AUX ( a $ b ) )\n");
    cr_expect_geq(attr(s, "ls"), 0);
    LOAD_OK(s, "attributetype ( 1.2.3.23 NAME 'ls2' SYNTAX 1.2.3.22 )\n");
    acre_schema_free(s);
}

Test(schema, inheritance)
{
    acre_schema *s = full();
    const struct acreS_attr *a;

    /* forward references inside one input are fine */
    LOAD_OK(s, "attributetype ( 1.5.3 NAME 'grandChild' SUP child "
               "ORDERING caseIgnoreOrderingMatch )\n"
               "attributetype ( 1.5.2 NAME 'child' SUP parentType )\n"
               "attributetype ( 1.5.1 NAME 'parentType' "
               "EQUALITY caseIgnoreMatch SUBSTR caseIgnoreSubstringsMatch "
               "SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{99} )\n");
    a = acreS_attr(s, attr(s, "grandChild"));
    cr_expect_eq(a->sup, attr(s, "child"));
    cr_expect_eq(a->eq, ACREM_CASE_IGNORE);
    cr_expect_eq(a->ord, ACREM_CASE_IGNORE_ORD);
    cr_expect_eq(a->sub, ACREM_CASE_IGNORE_SUB);
    cr_expect_str_eq(a->syntax, "1.3.6.1.4.1.1466.115.121.1.15");
    cr_expect_eq(a->syntax_len, 99);
    cr_expect_eq(a->dn.mr, ACRE_MR_CASE_IGNORE);
    a = acreS_attr(s, attr(s, "child"));
    cr_expect_eq(a->ord, ACREM_NONE);
    cr_expect(
        acreS_is_subtype(s, attr(s, "grandChild"), attr(s, "parentType")));
    cr_expect(acreS_is_subtype(s, attr(s, "child"), attr(s, "child")));
    cr_expect_not(acreS_is_subtype(s, attr(s, "parentType"), attr(s, "child")));
    /* built in: cn, sn are names; c has its own syntax */
    cr_expect(acreS_is_subtype(NULL, attr(NULL, "cn"), attr(NULL, "name")));
    cr_expect(acreS_is_subtype(NULL, attr(NULL, "c-o"), attr(NULL, "name")));
    cr_expect_not(acreS_is_subtype(NULL, attr(NULL, "name"), attr(NULL, "cn")));
    cr_expect_not(
        acreS_is_subtype(NULL, attr(NULL, "mail"), attr(NULL, "name")));
    cr_expect_not(acreS_is_subtype(NULL, -1, attr(NULL, "name")));
    cr_expect_not(acreS_is_subtype(NULL, attr(NULL, "cn"), 1 << 20));
    cr_expect_str_eq(acreS_attr(NULL, attr(NULL, "c"))->syntax,
                     "1.3.6.1.4.1.1466.115.121.1.11");
    cr_expect_eq(acreS_attr(NULL, attr(NULL, "c"))->eq, ACREM_CASE_IGNORE);
    cr_expect_eq(acreS_attr(NULL, attr(NULL, "cn"))->syntax_len, 32768);
    acre_schema_free(s);
}

Test(schema, classes_bitmaps_and_ancestry)
{
    const acre_schema *b = acreS_freeze(NULL);
    const struct acreS_class *c = acreS_class(b, cls(b, "inetOrgPerson"));
    int top = cls(b, "top"), person = cls(b, "person");

#define HAS(bits, name) \
    (((bits)[attr(b, name) / 64] >> (attr(b, name) % 64)) & 1)
    cr_expect(HAS(c->all_must, "cn"));
    cr_expect(HAS(c->all_must, "sn"));
    cr_expect(HAS(c->all_must, "objectClass"));
    cr_expect_not(HAS(c->all_must, "mail"));
    cr_expect(HAS(c->all_may, "mail"));
    cr_expect(HAS(c->all_may, "telephoneNumber")); /* from person */
    cr_expect(HAS(c->all_may, "title"));           /* organizationalPerson */
    cr_expect_not(HAS(c->all_may, "uidNumber"));
    /* a class with no SUP is below top but takes none of its
     * attributes (slapd: attrs=subschema covers no objectClass) */
    c = acreS_class(b, cls(b, "subschema"));
    cr_expect_not(HAS(c->all_must, "objectClass"));
    cr_expect(HAS(c->all_may, "attributeTypes"));
#undef HAS
    cr_expect(acreS_class_is(b, cls(b, "inetOrgPerson"), person));
    cr_expect(acreS_class_is(b, cls(b, "inetOrgPerson"), top));
    cr_expect(acreS_class_is(b, cls(b, "subschema"), top));
    cr_expect(acreS_class_is(b, person, person));
    cr_expect_not(acreS_class_is(b, person, cls(b, "inetOrgPerson")));
    cr_expect(
        acreS_class_is(b, cls(b, "OpenLDAPperson"), cls(b, "pilotPerson")));
    cr_expect(acreS_class_is(b, cls(b, "OpenLDAPperson"), person));
    cr_expect_not(acreS_class_is(b, cls(b, "posixGroup"), person));
    cr_expect_not(acreS_class_is(b, -1, top));
    cr_expect_not(acreS_class_is(b, top, 1 << 20));
}

Test(schema, bitmaps_of_a_schema_loaded_in_steps)
{
    acre_schema *s = full();
    const struct acreS_class *c;
    int x;

    LOAD_OK(s, "attributetype ( 1.6.1 NAME 'stepA' SUP name )\n"
               "objectclass ( 1.6.2 NAME 'stepC' SUP person MUST stepA )\n");
    LOAD_OK(s, "attributetype ( 1.6.3 NAME 'stepB' SUP name )\n"
               "objectclass ( 1.6.4 NAME 'stepD' SUP stepC STRUCTURAL "
               "MAY stepB )\n");
    acreS_freeze(s);
    c = acreS_class(s, cls(s, "stepD"));
    x = attr(s, "stepB");
    cr_expect((c->all_may[x / 64] >> (x % 64)) & 1);
    x = attr(s, "stepA");
    cr_expect((c->all_must[x / 64] >> (x % 64)) & 1);
    x = attr(s, "sn");
    cr_expect((c->all_must[x / 64] >> (x % 64)) & 1);
    cr_expect(acreS_class_is(s, cls(s, "stepD"), cls(s, "person")));
    acre_schema_free(s);
}

Test(schema, known_ids)
{
    const struct acreS_known *k = acreS_known(NULL);
    acre_schema *s = bare();

    cr_expect_eq(k->objectClass, attr(NULL, "objectClass"));
    cr_expect_eq(k->cn, attr(NULL, "cn"));
    cr_expect_eq(k->memberURL, attr(NULL, "memberURL"));
    cr_expect_eq(k->collectiveExclusions, attr(NULL, "collectiveExclusions"));
    cr_expect_eq(k->structuralObjectClass, attr(NULL, "structuralObjectClass"));
    cr_expect_geq(k->subtreeSpecification, 0);
    cr_expect_geq(k->administrativeRole, 0);
    cr_expect_geq(k->entryUUID, 0);
    cr_expect_eq(acreS_known(s)->cn, -1);
    LOAD_OK(s, "attributetype ( 2.5.4.3 NAME 'cn' "
               "SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n");
    cr_expect_eq(acreS_known(s)->cn, 0);
    cr_expect_eq(acreS_known(s)->member, -1);
    acre_schema_free(s);
}

/* ------------------------------------------------------------------------
 * LDIF: subschema entries and cn=config entries
 */

Test(schema, ldif_subschema_entry)
{
    acre_schema *s = full();

    LOAD_OK(s, "version: 1\n"
               "# the subschema entry\n"
               "dn: cn=Subschema\n"
               "objectClass: top\n"
               "objectClass: subschema\n"
               "cn: Subschema\n"
               "attributeTypes: ( 1.7.1 NAME 'ldifA' DESC 'folded\n"
               "  over two lines' SUP name )\n"
               "attributeTypes;x-opt: ( 1.7.2 NAME 'ldifB' SUP ldifA )\n"
               "objectClasses: ( 1.7.3 NAME 'ldifC' SUP top MAY ( ldifA $ "
               "ldifB ) )\n"
               "matchingRules: ( 2.5.13.2 NAME 'caseIgnoreMatch' SYNTAX "
               "1.3.6.1.4.1.1466.115.121.1.15 )\n"
               "attributeTypes:: KCAxLjcuNCBOQU1FICdsZGlmNjQnIFNVUCBuYW1lICk="
               "\n");
    cr_expect_geq(attr(s, "ldifA"), 0);
    cr_expect_str_eq(acreS_attr(s, attr(s, "ldifA"))->desc,
                     "folded over two lines");
    cr_expect_eq(acreS_attr(s, attr(s, "ldifB"))->sup, attr(s, "ldifA"));
    cr_expect_geq(cls(s, "ldifC"), 0);
    cr_expect_geq(attr(s, "ldif64"), 0);
    acre_schema_free(s);
}

Test(schema, ldif_cn_config_entry)
{
    acre_schema *s = full();

    LOAD_OK(s, "dn: cn=test,cn=schema,cn=config\n"
               "objectClass: olcSchemaConfig\n"
               "cn: test\n"
               "olcAttributeTypes: {0}( TestAT:1 NAME 'cfgA' SUP name )\n"
               "olcAttributeTypes: {1}( TestAT:2 NAME 'cfgB' SUP cfgA )\n"
               "olcObjectClasses: {0}( 1.8.2.1 NAME 'cfgC' SUP top "
               "AUXILIARY MAY cfgB )\n"
               "olcObjectIdentifier: {0}TestRoot 1.8\n"
               "olcObjectIdentifier: {1}TestAT TestRoot:1\n"
               "olcLdapSyntaxes: {0}( 1.8.3 DESC 'syn' )\n"
               "\n"
               "dn: cn=test2,cn=schema,cn=config\n"
               "olcAttributeTypes: ( TestAT:3 NAME 'cfgD' SYNTAX 1.8.3 )\n");
    cr_expect_str_eq(acreS_attr(s, attr(s, "cfgA"))->oid, "1.8.1.1");
    cr_expect_eq(acreS_attr(s, attr(s, "cfgB"))->sup, attr(s, "cfgA"));
    cr_expect_str_eq(acreS_attr(s, attr(s, "cfgD"))->oid, "1.8.1.3");
    cr_expect_geq(cls(s, "cfgC"), 0);
    acre_schema_free(s);
}

/* ------------------------------------------------------------------------
 * Errors: code, line and column (of the offending token) for each kind
 */

static const struct err_case {
    const char *text;
    int code;
    unsigned line, column;
    const char *what; /* a word of the message */
} err_cases[] = {
    /* lexical and structural */
    {"attributetype ( 1.2.3 NAME 'x SUP name )", ACRE_ERR_SCHEMA_SYNTAX, 1, 28,
     "unterminated"},
    {"attributetype ( 1.2.3 NAME 'x' SUP name", ACRE_ERR_SCHEMA_SYNTAX, 1, 40,
     "missing"},
    {"attributetype ( 1.2.3 NAME 'x' SUP name ) junk", ACRE_ERR_SCHEMA_SYNTAX,
     1, 43, "after"},
    {"attributetype 1.2.3 NAME 'x' SUP name )", ACRE_ERR_SCHEMA_SYNTAX, 1, 15,
     "expected"},
    {"attributetype ( 1.2.3 NAME 'x' FOO name )", ACRE_ERR_SCHEMA_SYNTAX, 1, 32,
     "FOO"},
    {"attributetype ( 1.2.3 NAME 'x' SUP name\n  SUP cn )",
     ACRE_ERR_SCHEMA_SYNTAX, 2, 3, "twice"},
    {"attributetype ( 1.2.3 NAME 'x' MUST cn SUP name )",
     ACRE_ERR_SCHEMA_SYNTAX, 1, 32, "MUST"},
    {"objectclass ( 1.2.3 NAME 'x' STRUCTURAL AUXILIARY )",
     ACRE_ERR_SCHEMA_SYNTAX, 1, 41, "twice"},
    {"attributetype ( 1.2.3 NAME '9x' SUP name )", ACRE_ERR_SCHEMA_SYNTAX, 1,
     28, "name"},
    {"attributetype ( 1.2.3 NAME x SUP name )", ACRE_ERR_SCHEMA_SYNTAX, 1, 28,
     "quoted"},
    {"attributetype ( 1.2.3 NAME ( ) SUP name )", ACRE_ERR_SCHEMA_SYNTAX, 1, 30,
     "quoted"},
    {"attributetype ( 1.02.3 NAME 'x' SUP name )", ACRE_ERR_SCHEMA_SYNTAX, 1,
     17, "OID"},
    {"attributetype ( 1 NAME 'x' SUP name )", ACRE_ERR_SCHEMA_SYNTAX, 1, 17,
     "OID"},
    {"attributetype ( 1.2.3 NAME 'x' DESC 'a\\41' SUP name )",
     ACRE_ERR_SCHEMA_SYNTAX, 1, 39, "escape"},
    {"attributetype ( 1.2.3 NAME 'x' DESC 'a\\2' SUP name )",
     ACRE_ERR_SCHEMA_SYNTAX, 1, 39, "escape"},
    {"attributetype ( 1.2.3 NAME 'x' DESC '\xff' SUP name )",
     ACRE_ERR_SCHEMA_SYNTAX, 1, 37, "UTF-8"},
    {"attributetype ( 1.2.3 NAME 'x' SUP 'a b' )", ACRE_ERR_SCHEMA_SYNTAX, 1,
     36, "malformed"},
    {"attributetype ( 1.2.3 NAME 'x' SYNTAX 1.3.6.1.4.1.1466.115.121.1.15{x} )",
     ACRE_ERR_SCHEMA_SYNTAX, 1, 69, "length"},
    {"attributetype ( 1.2.3 NAME 'x' SUP name USAGE sometimes )",
     ACRE_ERR_SCHEMA_SYNTAX, 1, 47, "USAGE"},
    {"attributetype ( 1.2.3 NAME 'x' X-BAD name )", ACRE_ERR_SCHEMA_SYNTAX, 1,
     38, "quoted"},
    {"attributetype ( 1.2.3 NAME 'x' )", ACRE_ERR_SCHEMA_SYNTAX, 1, 15,
     "neither"},
    {"objectclass ( 1.2.3 NAME 'x' MAY ( cn sn ) )", ACRE_ERR_SCHEMA_SYNTAX, 1,
     39, "'$'"},
    {"objectclass ( 1.2.3 NAME 'x' MAY ( cn $ ) )", ACRE_ERR_SCHEMA_SYNTAX, 1,
     41, "name or OID"},
    {"attributetypo ( 1.2.3 NAME 'x' SUP name )", ACRE_ERR_SCHEMA_SYNTAX, 1, 1,
     "directive"},
    {"\n\n   attributetype ( 1.2.3 NAME 'x' SUP name )\nbogus",
     ACRE_ERR_SCHEMA_SYNTAX, 4, 1, "bogus"},
    {"objectidentifier Foo", ACRE_ERR_SCHEMA_SYNTAX, 1, 21, "OID"},
    {"objectidentifier Foo 1.2 extra", ACRE_ERR_SCHEMA_SYNTAX, 1, 26,
     "objectidentifier"},
    {"objectidentifier 9oo 1.2", ACRE_ERR_SCHEMA_SYNTAX, 1, 18, "macro"},
    {"ditcontentrule ( 2.5.6.6 NAME 'x' AUX ( a $ b )", ACRE_ERR_SCHEMA_SYNTAX,
     1, 48, "missing"},
    /* unknown references */
    {"attributetype ( Nope:1 NAME 'x' SUP name )", ACRE_ERR_SCHEMA_UNKNOWN, 1,
     17, "macro"},
    {"attributetype ( 1.2.3 NAME 'x' SYNTAX Nope{3} )", ACRE_ERR_SCHEMA_UNKNOWN,
     1, 39, "macro"},
    {"attributetype ( 1.2.3 NAME 'x' SUP nosuchtype )", ACRE_ERR_SCHEMA_UNKNOWN,
     1, 36, "supertype"},
    {"attributetype ( 1.2.3 NAME 'x'\n\tEQUALITY fuzzyMatch SUP name )",
     ACRE_ERR_SCHEMA_UNKNOWN, 2, 11, "matching rule"},
    {"attributetype ( 1.2.3 NAME 'x' SYNTAX 1.2.3.4.5.6 )",
     ACRE_ERR_SCHEMA_UNKNOWN, 1, 39, "syntax"},
    {"objectclass ( 1.2.3 NAME 'x' SUP nosuchclass )", ACRE_ERR_SCHEMA_UNKNOWN,
     1, 34, "superclass"},
    {"objectclass ( 1.2.3 NAME 'x' SUP top MUST ( cn $ nosuch ) )",
     ACRE_ERR_SCHEMA_UNKNOWN, 1, 50, "attribute type"},
    /* semantics */
    {"attributetype ( 1.2.3 NAME 'x' EQUALITY caseIgnoreSubstringsMatch "
     "SUP name )",
     ACRE_ERR_SCHEMA_SYNTAX, 1, 41, "equality"},
    {"attributetype ( 1.2.3 NAME 'x' ORDERING caseIgnoreMatch SUP name )",
     ACRE_ERR_SCHEMA_SYNTAX, 1, 41, "ordering"},
    {"attributetype ( 1.2.3 NAME 'x' SUP name USAGE directoryOperation )",
     ACRE_ERR_SCHEMA_SYNTAX, 1, 36, "USAGE"},
    {"attributetype ( 1.2.3 NAME 'x' SUP name COLLECTIVE "
     "USAGE dSAOperation )",
     ACRE_ERR_SCHEMA_SYNTAX, 1, 36, "USAGE"},
    {"attributetype ( 1.2.3 NAME 'x' SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 "
     "COLLECTIVE USAGE dSAOperation )",
     ACRE_ERR_SCHEMA_SYNTAX, 1, 17, "collective"},
    {"attributetype ( 1.2.3 NAME 'x' SUP name NO-USER-MODIFICATION )",
     ACRE_ERR_SCHEMA_SYNTAX, 1, 17, "operational"},
    {"attributetype ( 1.2.3 NAME 'x' SUP y )\n"
     "attributetype ( 1.2.4 NAME 'y' SUP x )",
     ACRE_ERR_SCHEMA_SYNTAX, 2, 36, "cycle"},
    {"attributetype ( 1.2.3 NAME 'x' SUP x )", ACRE_ERR_SCHEMA_SYNTAX, 1, 36,
     "cycle"},
    {"objectclass ( 1.2.3 NAME 'x' SUP y )\nobjectclass ( 1.2.4 NAME 'y' "
     "SUP x )",
     ACRE_ERR_SCHEMA_SYNTAX, 2, 34, "cycle"},
    {"objectclass ( 1.2.3 NAME 'x' SUP person AUXILIARY )",
     ACRE_ERR_SCHEMA_SYNTAX, 1, 34, "auxiliary"},
    {"objectclass ( 1.2.3 NAME 'x' SUP extensibleObject STRUCTURAL )",
     ACRE_ERR_SCHEMA_SYNTAX, 1, 34, "structural"},
    {"objectclass ( 1.2.3 NAME 'x' SUP person ABSTRACT )",
     ACRE_ERR_SCHEMA_SYNTAX, 1, 34, "abstract"},
    {"attributetype ( 1.2.3 NAME 'x' SUP name COLLECTIVE SINGLE-VALUE )",
     ACRE_ERR_SCHEMA_SYNTAX, 1, 17, "SINGLE-VALUE"},
    {"attributetype ( 1.2.3 NAME 'x' ORDERING caseIgnoreOrderingMatch "
     "SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )",
     ACRE_ERR_SCHEMA_SYNTAX, 1, 41, "without an equality"},
    {"attributetype ( 1.2.3 NAME 'x' SUBSTR caseIgnoreSubstringsMatch "
     "SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )",
     ACRE_ERR_SCHEMA_SYNTAX, 1, 39, "without an equality"},
    {"attributetype ( 1.2.3 NAME 'x' OBSOLETE SUP name )\n"
     "attributetype ( 1.2.4 NAME 'y' SUP x )",
     ACRE_ERR_SCHEMA_SYNTAX, 2, 36, "OBSOLETE"},
    {"attributetype ( 1.2.3 NAME 'x' OBSOLETE SUP y )\n"
     "attributetype ( 1.2.4 NAME 'y' SUP name )\n"
     "objectclass ( 1.2.5 NAME 'z' OBSOLETE AUXILIARY )\n"
     "objectclass ( 1.2.6 NAME 'w' SUP z AUXILIARY )",
     ACRE_ERR_SCHEMA_SYNTAX, 4, 34, "OBSOLETE"},
    /* duplicates */
    {"attributetype ( 1.2.3 NAME 'cn' SUP name )", ACRE_ERR_SCHEMA_DUP, 1, 28,
     "cn"},
    {"attributetype ( 1.2.3 NAME ( 'x' 'SURNAME' ) SUP name )",
     ACRE_ERR_SCHEMA_DUP, 1, 34, "surname"},
    {"attributetype ( 2.5.4.3 NAME 'x' SUP name )", ACRE_ERR_SCHEMA_DUP, 1, 17,
     "names"},
    {"attributetype ( 2.5.4.3 NAME ( 'cn' 'commonName' ) SUP name "
     "SINGLE-VALUE )",
     ACRE_ERR_SCHEMA_DUP, 1, 17, "differently"},
    {"attributetype ( 1.2.3 NAME 'x' SUP name )\n"
     "attributetype ( 1.2.4 NAME 'X' SUP name )",
     ACRE_ERR_SCHEMA_DUP, 2, 28, "this input"},
    {"attributetype ( 1.2.3 NAME 'x' SUP name )\n"
     "attributetype ( 1.2.3 NAME 'y' SUP name )",
     ACRE_ERR_SCHEMA_DUP, 2, 17, "this input"},
    {"objectclass ( 2.5.6.6 NAME 'person' SUP top STRUCTURAL MUST cn )",
     ACRE_ERR_SCHEMA_DUP, 1, 15, "differently"},
    {"objectclass ( 1.2.3 NAME 'Person' SUP top )", ACRE_ERR_SCHEMA_DUP, 1, 26,
     "person"},
};

Test(schema, errors_name_line_and_column)
{
    acre_schema *s = full();
    unsigned na = acreS_nattrs(s), nc = acreS_nclasses(s);

    for (size_t i = 0; i < NELEM(err_cases); i++) {
        const struct err_case *e = &err_cases[i];
        acre_diag d;
        int rc = load(s, e->text, &d);
        cr_expect_eq(rc, e->code, "[%zu] %s: rc %d want %d (%s)", i, e->text,
                     rc, e->code, d.message);
        cr_expect_eq(d.code, rc);
        cr_expect_eq(d.line, e->line, "[%zu] %s: line %u want %u (%s)", i,
                     e->text, d.line, e->line, d.message);
        cr_expect_eq(d.column, e->column, "[%zu] %s: column %u want %u (%s)", i,
                     e->text, d.column, e->column, d.message);
        cr_expect(strcasestr(d.message, e->what),
                  "[%zu] message '%s' lacks "
                  "'%s'",
                  i, d.message, e->what);
        cr_expect_str_eq(d.file, "test");
        cr_expect_eq(acreS_nattrs(s), na, "[%zu] added types", i);
        cr_expect_eq(acreS_nclasses(s), nc, "[%zu] added classes", i);
    }
    acre_schema_free(s);
}

/* Errors inside LDIF values are reported where the byte was written,
 * folded lines and {n} prefixes included. */
Test(schema, ldif_error_positions)
{
    static const struct err_case cases[] = {
        {"dn: cn=s\nattributeTypes: ( 1.9.1 NAME 'a' SUP nosuch )\n",
         ACRE_ERR_SCHEMA_UNKNOWN, 2, 38, "supertype"},
        {"dn: cn=s\nattributeTypes: ( 1.9.1 NAME 'a'\n  SUP nosuch )\n",
         ACRE_ERR_SCHEMA_UNKNOWN, 3, 7, "supertype"},
        {"dn: cn=s\nattributeTypes: ( 1.9.1 NAME 'a' SU\n P nos\n uch )\n",
         ACRE_ERR_SCHEMA_UNKNOWN, 3, 4, "nosuch"},
        {"dn: cn=s\r\nolcAttributeTypes: {12}( 1.9.1 NAME 'a'\r\n  SUP nosuch "
         ")\r\n",
         ACRE_ERR_SCHEMA_UNKNOWN, 3, 7, "supertype"},
        {"dn: cn=s\r\nattributeTypes: ( 1.9.1 NAME 'a' SUP name\r\n",
         ACRE_ERR_SCHEMA_SYNTAX, 2, 42, "missing"},
        {"dn: cn=s\nolcAttributeTypes: {1( 1.9.1 NAME 'a' SUP name )\n",
         ACRE_ERR_SCHEMA_SYNTAX, 2, 22, "prefix"},
        {"dn: cn=s\nattributeTypes:: "
         "KCAxLjkuMSBOQU1FICdhJyBTVVAgbm9zdWNoICk=\n",
         ACRE_ERR_SCHEMA_UNKNOWN, 2, 18, "supertype"},
        {"dn: cn=s\nattributeTypes:: !!!\n", ACRE_ERR_SCHEMA_SYNTAX, 2, 0,
         "base64"},
        {"dn: cn=s\nobjectClasses: ( 1.9.2 NAME 'b' MUST nosuch )\n",
         ACRE_ERR_SCHEMA_UNKNOWN, 2, 38, "attribute type"},
        {"dn: cn=s\nolcObjectIdentifier: Foo\n", ACRE_ERR_SCHEMA_SYNTAX, 2, 25,
         "OID"},
    };
    acre_schema *s = full();

    for (size_t i = 0; i < NELEM(cases); i++) {
        const struct err_case *e = &cases[i];
        acre_diag d;
        int rc = load(s, e->text, &d);
        cr_expect_eq(rc, e->code, "[%zu] rc %d want %d (%s)", i, rc, e->code,
                     d.message);
        cr_expect_eq(d.line, e->line, "[%zu] line %u want %u (%s)", i, d.line,
                     e->line, d.message);
        if (e->column)
            cr_expect_eq(d.column, e->column, "[%zu] column %u want %u (%s)", i,
                         d.column, e->column, d.message);
        cr_expect(strcasestr(d.message, e->what),
                  "[%zu] message '%s' lacks "
                  "'%s'",
                  i, d.message, e->what);
    }
    acre_schema_free(s);
}

/* ------------------------------------------------------------------------
 * All or nothing, freezing, limits, API contract, memory
 */

Test(schema, failed_load_adds_nothing)
{
    acre_schema *s = full();
    acre_diag d;
    unsigned na = acreS_nattrs(s), nc = acreS_nclasses(s);

    cr_assert_eq(load(s,
                      "objectidentifier Keep 1.11\n"
                      "ldapsyntax ( 1.11.9 )\n"
                      "attributetype ( 1.11.1 NAME 'good1' SUP name )\n"
                      "objectclass ( 1.11.2 NAME 'good2' MAY good1 )\n"
                      "attributetype ( 1.11.3 NAME 'bad' SUP nosuch )\n",
                      &d),
                 ACRE_ERR_SCHEMA_UNKNOWN);
    cr_expect_eq(d.line, 5);
    cr_expect_eq(acreS_nattrs(s), na);
    cr_expect_eq(acreS_nclasses(s), nc);
    cr_expect_eq(attr(s, "good1"), -1);
    cr_expect_eq(cls(s, "good2"), -1);
    cr_expect_eq(attr(s, "1.11.1"), -1);
    /* nor the macro, nor the syntax */
    cr_expect_eq(load(s, "attributetype ( Keep:4 NAME 'k' SUP name )", &d),
                 ACRE_ERR_SCHEMA_UNKNOWN);
    cr_expect_eq(load(s, "attributetype ( 1.11.5 NAME 'k' SYNTAX 1.11.9 )", &d),
                 ACRE_ERR_SCHEMA_UNKNOWN);
    /* and the schema still works */
    LOAD_OK(s, "attributetype ( 1.11.1 NAME 'good1' SUP name )\n");
    cr_expect_eq(attr(s, "good1"), (int)na);
    acre_schema_free(s);
}

Test(schema, freeze_forbids_new_definitions)
{
    acre_schema *s = full();
    acre_diag d;
    unsigned n;

    LOAD_OK(s, "attributetype ( 1.12.1 NAME 'before' SUP name )\n"
               "objectidentifier myOID 1.12.9\n"
               "objectclass ( myOID:1 NAME 'beforeClass' SUP top AUXILIARY "
               "MAY before )\n");
    cr_expect_eq(acreS_freeze(s), s);
    cr_expect_eq(acreS_freeze(s), s);
    n = acreS_nattrs(s);
    /* a new definition: refused, nothing added */
    cr_expect_eq(
        load(s, "attributetype ( 1.12.2 NAME 'after' SUP name )\n", &d),
        ACRE_ERR_SCHEMA_FROZEN);
    cr_expect_eq(d.code, ACRE_ERR_SCHEMA_FROZEN);
    cr_expect_neq(strstr(d.message, "1.12.2"), NULL, "%s", d.message);
    cr_expect_eq(load(s, "objectidentifier otherOID 1.12.8\n", &d),
                 ACRE_ERR_SCHEMA_FROZEN);
    /* one that repeats a definition differently: refused */
    cr_expect_eq(
        load(s, "attributetype ( 1.12.1 NAME 'before' SUP description )\n", &d),
        ACRE_ERR_SCHEMA_DUP);
    /* what the schema holds already, repeated exactly (a new policy
     * including the schema files its predecessor did): accepted, nothing
     * changes */
    cr_expect_eq(acre_schema_load_file(s, SCHEMA_DIR "core.schema", &d), 0,
                 "%s", d.message);
    cr_expect_eq(load(s,
                      "attributetype ( 1.12.1 NAME 'before' SUP name )\n"
                      "objectidentifier myOID 1.12.9\n"
                      "objectclass ( myOID:1 NAME 'beforeClass' SUP top "
                      "AUXILIARY MAY before )\n",
                      &d),
                 0, "%s", d.message);
    cr_expect_eq(acreS_nattrs(s), n);
    cr_expect_eq(attr(s, "after"), -1);
    cr_expect_geq(attr(s, "before"), 0);
    acre_schema_free(s);
}

Test(schema, copies_are_independent)
{
    acre_schema *a = full(), *b = full();
    unsigned n = acreS_nattrs(NULL);

    LOAD_OK(a, "attributetype ( 1.13.1 NAME 'onlyInA' SUP name )\n");
    cr_expect_geq(attr(a, "onlyInA"), 0);
    cr_expect_eq(attr(b, "onlyInA"), -1);
    cr_expect_eq(attr(NULL, "onlyInA"), -1);
    cr_expect_eq(acreS_nattrs(NULL), n);
    cr_expect_eq(acreS_nattrs(b), n);
    LOAD_OK(b, "attributetype ( 1.13.1 NAME 'onlyInB' SUP cn )\n");
    cr_expect_eq(attr(b, "onlyInB"), attr(a, "onlyInA"));
    acre_schema_free(a);
    cr_expect_geq(attr(b, "onlyInB"), 0);
    cr_expect_eq(acreS_attr(b, attr(b, "cn"))->sup, attr(b, "name"));
    acre_schema_free(b);
}

Test(schema, limits)
{
    acre_schema *s = full();
    acre_diag d;
    char *buf = malloc(1 << 20);
    size_t m;

    /* a name of 256 bytes */
    m = (size_t)sprintf(buf, "attributetype ( 1.14.1 NAME '");
    memset(buf + m, 'a', 256);
    m += 256;
    sprintf(buf + m, "' SUP name )");
    cr_expect_eq(load(s, buf, &d), ACRE_ERR_SCHEMA_SYNTAX);
    /* 255 is fine */
    memmove(buf + m - 1, buf + m, strlen(buf + m) + 1);
    LOAD_OK(s, buf);
    /* 33 names */
    m = (size_t)sprintf(buf, "attributetype ( 1.14.2 NAME (");
    for (int i = 0; i < 33; i++)
        m += (size_t)sprintf(buf + m, " 'n%d'", i);
    sprintf(buf + m, " ) SUP name )");
    cr_expect_eq(load(s, buf, &d), ACRE_ERR_SCHEMA_SYNTAX);
    cr_expect(strstr(d.message, "names"), "%s", d.message);
    /* a chain of 40 supertypes */
    m = 0;
    for (int i = 0; i < 40; i++)
        m += (size_t)sprintf(buf + m,
                             "attributetype ( 1.14.3.%d NAME 'ch%d' SUP %s%d )"
                             "\n",
                             i + 1, i, i ? "ch" : "cn", i ? i - 1 : 0);
    buf[m] = 0;
    memcpy(strstr(buf, "SUP cn0"), "SUP cn ", 7);
    cr_expect_eq(load(s, buf, &d), ACRE_ERR_SCHEMA_SYNTAX);
    cr_expect(strstr(d.message, "longer"), "%s", d.message);
    /* a MAY list of 1025 entries */
    m = (size_t)sprintf(buf, "objectclass ( 1.14.4 NAME 'big' MAY ( cn");
    for (int i = 0; i < 1024; i++)
        m += (size_t)sprintf(buf + m, " $ cn");
    sprintf(buf + m, " ) )");
    cr_expect_eq(load(s, buf, &d), ACRE_ERR_SCHEMA_SYNTAX);
    cr_expect(strstr(d.message, "list"), "%s", d.message);
    free(buf);
    acre_schema_free(s);
}

Test(schema, api_arguments)
{
    acre_schema *s = NULL;
    acre_diag d;

    cr_expect_eq(acre_schema_new(NULL, 0x80, &s, &d), ACRE_ERR_INVAL);
    cr_expect_null(s);
    cr_expect_eq(acre_schema_new(NULL, 0, NULL, &d), ACRE_ERR_INVAL);
    cr_expect_eq(acre_schema_load_buffer(NULL, "x", "", 0, &d), ACRE_ERR_INVAL);
    cr_expect_eq(acre_schema_load_file(NULL, "/dev/null", &d), ACRE_ERR_INVAL);
    s = bare();
    cr_expect_eq(acre_schema_load_buffer(s, "x", NULL, 3, &d), ACRE_ERR_INVAL);
    cr_expect_eq(acre_schema_load_buffer(s, "x", NULL, 0, NULL), 0);
    cr_expect_eq(acre_schema_load_buffer(s, "x", "", 0, NULL), 0);
    cr_expect_eq(acre_schema_load_buffer(s, "x", "\n# only\n\n", 9, NULL), 0);
    cr_expect_eq(acre_schema_load_file(s, "/nonexistent/x.schema", &d),
                 ACRE_ERR_SCHEMA_IO);
    cr_expect_str_eq(d.file, "/nonexistent/x.schema");
    cr_expect(strstr(d.message, "No such file"), "%s", d.message);
    cr_expect_eq(acre_schema_load_file(s, "/", &d), ACRE_ERR_SCHEMA_IO);
    cr_expect_eq(acreS_nattrs(s), 0);
    cr_expect_eq(acreS_nclasses(s), 0);
    cr_expect_eq(attr(s, "cn"), -1);
    /* an error without a diag */
    cr_expect_eq(acre_schema_load_buffer(s, NULL, "bogus", 5, NULL),
                 ACRE_ERR_SCHEMA_SYNTAX);
    acre_schema_free(s);
    acre_schema_free(NULL);
}

Test(schema, memory_is_released)
{
    void *ctx = talloc_new(NULL);
    acre_schema *s;
    acre_diag d;
    size_t before;

    acreS_builtin(); /* built once; not counted */
    before = talloc_total_blocks(ctx);
    cr_assert_eq(acre_schema_new(ctx, 0, &s, &d), 0);
    LOAD_OK(s, "attributetype ( 1.15.1 NAME 'mem' SUP name )\n");
    cr_expect_eq(load(s, "attributetype ( 1.15.2 NAME 'bad' SUP x )", &d),
                 ACRE_ERR_SCHEMA_UNKNOWN);
    acre_schema_free(s);
    cr_expect_eq(talloc_total_blocks(ctx), before);
    /* a schema freed with its parent */
    cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_BARE, &s, &d), 0);
    cr_expect_gt(talloc_total_blocks(ctx), before);
    talloc_free(ctx);
}

/* A failed load costs nothing: the schema holds the same blocks. */
Test(schema, failed_load_leaks_nothing)
{
    acre_schema *s = full();
    acre_diag d;
    size_t before = talloc_total_blocks(s);

    for (size_t i = 0; i < NELEM(err_cases); i++)
        load(s, err_cases[i].text, &d);
    cr_expect_eq(talloc_total_blocks(s), before);
    LOAD_OK(s, "attributetype ( 1.16.1 NAME 'one' SUP name )\n");
    cr_expect_gt(talloc_total_blocks(s), before);
    acre_schema_free(s);
}

/* ------------------------------------------------------------------------
 * Attribute descriptions
 */

Test(schema, desc_parse)
{
    struct acreS_desc d;
    const char *s = "cn;Lang-EN;binary;lang-en;x-a";

    cr_assert_eq(acreS_desc_parse(NULL, s, strlen(s), &d), 0);
    cr_expect_eq(d.type, attr(NULL, "cn"));
    cr_expect_eq(d.name_len, 2);
    cr_expect_eq(d.nopts, 3); /* duplicates dropped, sorted */
    cr_expect_eq(strncmp(d.opts[0], "binary", d.opt_len[0]), 0);
    cr_expect_eq(strncasecmp(d.opts[1], "lang-en", d.opt_len[1]), 0);
    cr_expect_eq(strncmp(d.opts[2], "x-a", d.opt_len[2]), 0);
    cr_assert_eq(acreS_desc_parse(NULL, "2.5.4.3", 7, &d), 0);
    cr_expect_eq(d.type, attr(NULL, "cn"));
    cr_expect_eq(d.nopts, 0);
    cr_assert_eq(acreS_desc_parse(NULL, "unknownType;x", 13, &d), 0);
    cr_expect_eq(d.type, -1);
    cr_expect_eq(d.nopts, 1);
    cr_expect_eq(acreS_desc_parse(NULL, "", 0, &d), -1);
    cr_expect_eq(acreS_desc_parse(NULL, "cn;", 3, &d), -1);
    cr_expect_eq(acreS_desc_parse(NULL, ";x", 2, &d), -1);
    cr_expect_eq(acreS_desc_parse(NULL, "cn;;x", 5, &d), -1);
    cr_expect_eq(acreS_desc_parse(NULL, "cn;a b", 6, &d), -1);
    cr_expect_eq(acreS_desc_parse(NULL, "c n", 3, &d), -1);
    cr_expect_eq(acreS_desc_parse(NULL, "1cn", 3, &d), -1);
    cr_expect_eq(acreS_desc_parse(NULL, "1.", 2, &d), -1);
    cr_expect_eq(acreS_desc_parse(NULL, "cn;a;b;c;d;e;f;g;h", 18, &d), 0);
    cr_expect_eq(acreS_desc_parse(NULL, "cn;a;b;c;d;e;f;g;h;i", 20, &d), -1);
}

static int
matches(const char *have, const char *want)
{
    struct acreS_desc h, w;

    cr_assert_eq(acreS_desc_parse(NULL, have, strlen(have), &h), 0);
    cr_assert_eq(acreS_desc_parse(NULL, want, strlen(want), &w), 0);
    return acreS_desc_matches(NULL, &h, &w);
}

Test(schema, desc_matches_subtypes_and_options)
{
    cr_expect(matches("cn", "cn"));
    cr_expect(matches("commonName", "2.5.4.3"));
    cr_expect(matches("cn", "name"));
    cr_expect(matches("sn", "name"));
    cr_expect(matches("c-o", "name"));
    cr_expect_not(matches("name", "cn"));
    cr_expect_not(matches("mail", "name"));
    cr_expect(matches("cn;lang-en", "cn"));
    cr_expect(matches("cn;lang-en", "name"));
    cr_expect(matches("cn;lang-en;x", "name;LANG-EN"));
    cr_expect_not(matches("cn", "cn;lang-en"));
    cr_expect_not(matches("cn;lang-de", "cn;lang-en"));
    cr_expect(matches("cn;binary", "cn;binary"));
    cr_expect_not(matches("cn;lang-en", "cn;lang-en;binary"));
    cr_expect(matches("fooBar", "FOOBAR"));
    cr_expect(matches("fooBar;x", "foobar"));
    cr_expect_not(matches("fooBar", "fooBaz"));
    cr_expect_not(matches("fooBar", "cn"));
    cr_expect_not(matches("cn", "fooBar"));
}

/* slapd's language ranges (ad.c is_ad_subtags), checked against slapd
 * 2.5 (golden search-attrs-lang-range): "lang-en-" covers lang-en itself
 * and every tag that starts with "lang-en-", in any case. */
Test(schema, desc_matches_language_ranges)
{
    cr_expect(matches("cn;lang-en", "cn;lang-en-"));
    cr_expect(matches("cn;lang-en-us", "cn;lang-en-"));
    cr_expect(matches("cn;LANG-EN-GB;lang-de", "cn;lang-de;lang-en-"));
    cr_expect(matches("cn;lang-fr", "cn;lang-"));
    cr_expect(matches("cn;lang-fr", "name;lang-"));
    cr_expect(matches("cn;lang-en-us", "cn;lang-en-us-"));
    cr_expect(matches("cn;lang-en-", "cn;lang-en-"));
    cr_expect_not(matches("cn", "cn;lang-"));
    cr_expect_not(matches("cn;lang-english", "cn;lang-en-"));
    cr_expect_not(matches("cn;lang-en", "cn;lang-e-"));
    cr_expect_not(matches("cn;lang-e", "cn;lang-en-"));
    cr_expect_not(matches("cn;lang-fr", "cn;lang-de;lang-"));
    cr_expect(acreS_opt_covers("lang-en-", 8, "LANG-EN", 7));
    cr_expect_not(acreS_opt_covers("lang-en", 7, "lang-en-us", 10));
    cr_expect_not(acreS_opt_covers("lang-en-", 8, "lang-e", 6));
}

/* ------------------------------------------------------------------------
 * Speed of the DN parser's lookup: not a benchmark, a guard against a
 * lookup that became linear.
 */
Test(schema, lookup_any_case)
{
    /* names, aliases and OIDs find the same type whatever their case
     * (speed is for bench/, never for a pass/fail test) */
    static const char *const names[][3] = {
        {"cn", "CommonName", "2.5.4.3"},
        {"ou", "organizationalUnitName", "2.5.4.11"},
        {"dc", "DomainComponent", "0.9.2342.19200300.100.1.25"},
        {"uid", "userid", "0.9.2342.19200300.100.1.1"},
        {"mail", "RFC822Mailbox", "0.9.2342.19200300.100.1.3"},
        {"sn", "SURNAME", "2.5.4.4"}};
    const acre_schema *b = acreS_builtin();

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        int id = acreS_attr_find(b, names[i][0], strlen(names[i][0]));
        cr_assert_geq(id, 0, "%s", names[i][0]);
        for (int k = 1; k < 3; k++)
            cr_expect_eq(acreS_attr_find(b, names[i][k], strlen(names[i][k])),
                         id, "%s", names[i][k]);
        char up[32];
        size_t n = strlen(names[i][0]);
        for (size_t j = 0; j <= n; j++)
            up[j] = (char)toupper((unsigned char)names[i][0][j]);
        cr_expect_eq(acreS_attr_find(b, up, n), id, "%s", up);
    }
    cr_expect_lt(acreS_attr_find(b, "nosuchtype", 10), 0);
}

/* Data exported from 389 and OpenDJ loads without their schema files:
 * OpenDJ's inherited collective attribute subentries, 389's roles, the
 * servers' memberOf and isMemberOf are built in, as those servers define
 * them, so that their own definitions load over them as exact repeats --
 * but isMemberOf, which has distinguishedNameMatch here (the rule OpenDJ
 * takes from its DN syntax) so that equality filters on it work. */
Test(schema, server_types_built_in)
{
    static const char *const user[] = {"collectiveConflictBehavior",
                                       "inheritFromDNAttribute",
                                       "inheritFromBaseRDN",
                                       "inheritFromRDNAttribute",
                                       "inheritFromRDNType",
                                       "inheritAttribute",
                                       "memberOf",
                                       "nsRoleFilter",
                                       "nsRoleScopeDN"};
    static const char *const oper[] = {"isMemberOf", "nsRole", "nsRoleDN",
                                       "aci"};
    static const char *const classes[] = {
        "inheritedCollectiveAttributeSubentry",
        "inheritedFromDNCollectiveAttributeSubentry",
        "inheritedFromRDNCollectiveAttributeSubentry",
        "ldapSubEntry",
        "nsRoleDefinition",
        "nsManagedRoleDefinition",
        "nsFilteredRoleDefinition",
        "nsNestedRoleDefinition"};
    /* as OpenDJ's 00-core and 389's 02common write them (isMemberOf with
     * the equality rule acre gives it) */
    static const char repeat[] =
        "attributetype ( 1.3.6.1.4.1.42.2.27.9.1.792 NAME 'isMemberOf'\n"
        "  DESC 'Sun-defined attribute type'\n"
        "  EQUALITY distinguishedNameMatch\n"
        "  SYNTAX 1.3.6.1.4.1.1466.115.121.1.12\n"
        "  NO-USER-MODIFICATION USAGE directoryOperation\n"
        "  X-ORIGIN 'Sun Java System Directory Server' )\n"
        "attributetype ( 1.3.6.1.4.1.26027.1.1.606\n"
        "  NAME 'collectiveConflictBehavior' "
        "SYNTAX 1.3.6.1.4.1.26027.1.3.6\n"
        "  SINGLE-VALUE X-ORIGIN 'OpenDS Directory Server' )\n"
        "attributetype ( 2.16.840.1.113730.3.1.574 NAME 'nsRole' "
        "DESC 'Netscape defined attribute type' "
        "SYNTAX 1.3.6.1.4.1.1466.115.121.1.12 NO-USER-MODIFICATION "
        "USAGE directoryOperation X-ORIGIN 'Netscape Directory Server' )\n"
        "objectclass ( 1.3.6.1.4.1.26027.1.2.239 NAME\n"
        "  'inheritedFromDNCollectiveAttributeSubentry'\n"
        "  SUP inheritedCollectiveAttributeSubentry STRUCTURAL\n"
        "  MUST ( inheritFromDNAttribute ) )\n";
    acre_schema *s = full();
    unsigned na = acreS_nattrs(s), nc = acreS_nclasses(s);

    for (size_t i = 0; i < NELEM(user); i++) {
        int id = attr(s, user[i]);
        cr_assert_geq(id, 0, "%s", user[i]);
        cr_expect_eq(acreS_attr(s, id)->usage, ACRES_USER, "%s", user[i]);
    }
    for (size_t i = 0; i < NELEM(oper); i++) {
        int id = attr(s, oper[i]);
        cr_assert_geq(id, 0, "%s", oper[i]);
        cr_expect_neq(acreS_attr(s, id)->usage, ACRES_USER, "%s", oper[i]);
    }
    for (size_t i = 0; i < NELEM(classes); i++)
        cr_expect_geq(cls(s, classes[i]), 0, "%s", classes[i]);
    cr_expect(
        acreS_class_is(s, cls(s, "inheritedFromRDNCollectiveAttributeSubentry"),
                       cls(s, "subentry")));
    LOAD_OK(s, repeat);
    cr_expect_eq(acreS_nattrs(s), na, "a repeat adds nothing");
    cr_expect_eq(acreS_nclasses(s), nc);
    acre_schema_free(s);
}

/* ------------------------------------------------------------------------
 * 389 Directory Server's schema (ACRE_SCHEMA_389, schema_389.c): what the
 * real 389 2.3 says about a few types and classes its data and ACIs name
 * (the ACI differential suite compares the whole of it with the server).
 */

static const struct acreS_attr *
at389(const acre_schema *s, const char *name)
{
    int id = acreS_attr_find(s, name, strlen(name));
    cr_assert_geq(id, 0, "389 schema lacks %s", name);
    return acreS_attr(s, id);
}

Test(schema, schema_389_is_389s)
{
    acre_schema *s;
    acre_diag d;

    cr_assert_eq(acre_schema_new(NULL, ACRE_SCHEMA_389, &s, &d), 0, "%s",
                 d.message);
    cr_expect_gt(acreS_nattrs(s), 1000);
    /* operational in 389, absent from slapd's schemas */
    cr_expect_eq(at389(s, "nsAccountLock")->usage, ACRES_DIRECTORY_OP);
    cr_expect_eq(at389(s, "numSubordinates")->usage, ACRES_DIRECTORY_OP);
    cr_expect_eq(at389(s, "passwordRetryCount")->usage, ACRES_DIRECTORY_OP);
    cr_expect_str_eq(at389(s, "numSubordinates")->oid,
                     "1.3.1.1.4.1.453.16.2.103");
    /* 389's own definitions of types slapd defines otherwise */
    cr_expect_str_eq(at389(s, "aci")->syntax, "1.3.6.1.4.1.1466.115.121.1.15");
    cr_expect_str_eq(at389(s, "entryDN")->oid, "2.16.840.1.113730.3.1.602");
    cr_expect_eq(at389(s, "memberOf")->eq, ACREM_NONE);
    /* a "name-oid" OID of 389's, made a 2.25 OID */
    cr_expect_eq(strncmp(at389(s, "nsBindDN")->oid, "2.25.", 5), 0);
    /* acre's pseudo-attributes of entry-level rights */
    cr_expect_eq(at389(s, "entry")->usage, ACRES_DSA_OP);
    cr_expect_geq(acreS_attr_find(s, "children", 8), 0);
    /* 389's classes: its groupOfNames has cn alone as MUST */
    int gon = acreS_class_find(s, "groupOfNames", 12);
    cr_assert_geq(gon, 0);
    cr_expect_eq(acreS_class(s, gon)->nmust, 1);
    cr_expect_geq(acreS_class_find(s, "nsPerson", 8), 0);
    cr_expect_geq(acreS_class_find(s, "nsAccount", 9), 0);
    /* and nothing of slapd's own */
    cr_expect_lt(acreS_attr_find(s, "olcAccess", 9), 0);
    cr_expect_lt(acreS_attr_find(s, "collectiveAttributeSubentries", 29), 0);
    acre_schema_free(s);
    cr_expect_eq(
        acre_schema_new(NULL, ACRE_SCHEMA_389 | ACRE_SCHEMA_BARE, &s, &d),
        ACRE_ERR_INVAL);
}

/* An ACI policy makes 389's schema for itself: 389's data and ACIs naming
 * its types compile; OpenDJ's variant keeps the built-in schema. */
Test(schema, aci_policy_takes_389s_schema)
{
    static const char data[] =
        "dn: dc=example,dc=com\n"
        "objectClass: domain\n"
        "dc: example\n"
        "aci: (targetattr=\"nsAccountLock || numSubordinates\")(version "
        "3.0; acl \"ops\"; allow (read) userdn=\"ldap:///all\";)\n";
    acre_source src = {ACRE_DIALECT_ACI, "t.ldif", data, sizeof data - 1};
    acre_policy *p = NULL;
    acre_diag d;

    cr_assert_eq(acre_policy_compile(NULL, NULL, &src, 1, 0, &p, &d), 0, "%s",
                 d.message);
    const acre_schema *s = acre_policy_schema(p);
    cr_expect_geq(acreS_attr_find(s, "nsAccountLock", 13), 0);
    cr_expect_lt(acreS_attr_find(s, "olcAccess", 9), 0);
    acre_policy_release(p);
    p = NULL;
    cr_assert_eq(acre_policy_compile(NULL, NULL, &src, 1,
                                     ACRE_COMPILE_ACI_OPENDJ, &p, &d),
                 0, "%s", d.message);
    s = acre_policy_schema(p);
    cr_expect_lt(acreS_attr_find(s, "nsAccountLock", 13), 0);
    cr_expect_geq(acreS_attr_find(s, "entryCSN", 8), 0);
    acre_policy_release(p);
}

/* memberOf is defined by whichever of slapd's msuser.schema and its
 * memberof overlay a configuration loads first: the built-in one gives
 * way to the first definition loaded, once; the overlay's (dupok) keeps
 * what a file defined; a frozen schema replaces nothing. */
Test(schema, memberof_first_definition_wins)
{
    static const char overlay[] =
        "attributetype ( 1.2.840.113556.1.2.102 NAME 'memberOf' SYNTAX "
        "'1.3.6.1.4.1.1466.115.121.1.12' EQUALITY distinguishedNameMatch "
        "USAGE dSAOperation NO-USER-MODIFICATION )\n";
    static const char msuser[] =
        "attributetype ( 1.2.840.113556.1.2.102 NAME 'memberOf' SYNTAX "
        "'1.3.6.1.4.1.1466.115.121.1.12' )\n";
    const char *oid = "1.2.840.113556.1.2.102";
    acre_schema *s;
    acre_diag d;
    int id;

    /* the overlay first: its definition; msuser's after it refused */
    cr_assert_eq(acre_schema_new(NULL, 0, &s, &d), 0);
    id = acreS_attr_find(s, "memberOf", 8);
    cr_assert_geq(id, 0);
    cr_expect_eq(acreS_attr(s, id)->eq, ACREM_NONE);
    cr_assert_eq(acreS_load_dupok(s, "overlay", oid, overlay, &d), 0, "%s",
                 d.message);
    cr_expect_neq(acreS_attr(s, id)->eq, ACREM_NONE);
    cr_expect_eq(acreS_attr(s, id)->usage, ACRES_DSA_OP);
    cr_expect_eq(acreS_attr_find(s, "memberOf", 8), id);
    cr_expect_eq(
        acre_schema_load_buffer(s, "msuser", msuser, sizeof msuser - 1, &d),
        ACRE_ERR_SCHEMA_DUP);
    cr_expect_eq(acreS_load_dupok(s, "overlay", oid, overlay, &d), 0);
    acre_schema_free(s);

    /* msuser's first (a repeat of the built-in): the overlay's is ignored,
     * a different definition refused */
    cr_assert_eq(acre_schema_new(NULL, 0, &s, &d), 0);
    cr_assert_eq(
        acre_schema_load_buffer(s, "msuser", msuser, sizeof msuser - 1, &d), 0);
    cr_assert_eq(acreS_load_dupok(s, "overlay", oid, overlay, &d), 0);
    cr_expect_eq(acreS_attr(s, id)->eq, ACREM_NONE);
    cr_expect_eq(acreS_attr(s, id)->usage, ACRES_USER);
    cr_expect_eq(
        acre_schema_load_buffer(s, "overlay", overlay, sizeof overlay - 1, &d),
        ACRE_ERR_SCHEMA_DUP);
    acre_schema_free(s);

    /* frozen: nothing is replaced */
    cr_assert_eq(acre_schema_new(NULL, 0, &s, &d), 0);
    acreS_freeze(s);
    cr_expect_neq(acreS_load_dupok(s, "overlay", oid, overlay, &d), 0);
    cr_expect_eq(acreS_attr(s, id)->eq, ACREM_NONE);
    acre_schema_free(s);

    /* 389's schema has its own memberOf, never replaced */
    cr_assert_eq(acre_schema_new(NULL, ACRE_SCHEMA_389, &s, &d), 0);
    cr_expect_eq(
        acre_schema_load_buffer(s, "overlay", overlay, sizeof overlay - 1, &d),
        ACRE_ERR_SCHEMA_DUP);
    acre_schema_free(s);
}
