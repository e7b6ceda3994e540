/*
 * aci_gen_test.c -- the ACI case generator (tests/oracle/aci_gen.h): the
 * same seed gives the same case, every case's LDIF loads into the
 * in-memory directory with the built-in schema, and over a run of seeds
 * the ACIs use every part of the dialect the generator promises (each
 * target kind, each bind-rule keyword, "!=", "||", URLs, macros, and,
 * for OpenDJ only, targetscope).
 */
#include <criterion/criterion.h>

#include <string.h>
#include <talloc.h>

#include "aci_gen.h"
#include "acre.h"
#include "directory.h"

#define SEEDS 100

Test(aci_gen, deterministic)
{
    void *ctx = talloc_new(NULL);
    struct acreG_aci_case *a, *b;

    for (uint64_t seed = 1; seed <= 5; seed++) {
        cr_assert_eq(acreG_aci_case_new(ctx, seed, ACREG_ACI_389, &a), 0);
        cr_assert_eq(acreG_aci_case_new(ctx, seed, ACREG_ACI_389, &b), 0);
        cr_assert_str_eq(acreG_aci_ldif(ctx, a), acreG_aci_ldif(ctx, b));
        cr_assert_eq(a->nsearches, b->nsearches);
        for (unsigned i = 0; i < a->nsearches; i++)
            cr_assert_str_eq(acreG_aci_search_text(ctx, &a->searches[i]),
                             acreG_aci_search_text(ctx, &b->searches[i]));
    }
    cr_assert_eq(acreG_aci_case_new(ctx, 6, ACREG_ACI_389, &b), 0);
    cr_assert_str_neq(acreG_aci_ldif(ctx, a), acreG_aci_ldif(ctx, b));
    talloc_free(ctx);
}

/* Load the LDIF of c; fails the test when the directory refuses it. */
static void
load(void *ctx, const struct acreG_aci_case *c)
{
    acre_schema *s;
    struct acreE_dir *d;
    acre_diag diag;
    unsigned nwarn = 0;
    char *ldif = acreG_aci_ldif(ctx, c);

    cr_assert(ldif);
    cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &s, NULL), 0);
    cr_assert_eq(acreE_dir_new(ctx, s, ACRED_DIR_STRICT, &d), 0);
    cr_assert_eq(acreE_dir_load_ldif(d, NULL, ldif, strlen(ldif), "gen.ldif",
                                     &nwarn, NULL, &diag),
                 0, "seed %llu: %s\n%s", (unsigned long long)c->seed,
                 diag.message, ldif);
    cr_assert_eq(acreE_dir_count(d), c->nentries);
}

Test(aci_gen, loads_and_covers_the_dialect)
{
    static const char *const want[] = {"(target=\"",
                                       "(target!=\"",
                                       "uid=*,",
                                       "($dn)",
                                       "(targetattr=\"*\")",
                                       "(targetattr!=\"",
                                       " || ",
                                       "(targetfilter=\"",
                                       "(targetfilter!=\"",
                                       "allow (",
                                       "deny (",
                                       "userdn=\"ldap:///anyone\"",
                                       "ldap:///all",
                                       "ldap:///self",
                                       "ldap:///parent",
                                       "??sub?",
                                       "userdn!=\"",
                                       "groupdn=\"",
                                       "groupdn!=\"",
                                       "roledn=\"",
                                       "userattr=\"",
                                       "#USERDN",
                                       "#GROUPDN",
                                       "#ROLEDN",
                                       "#LDAPURL",
                                       "parent[0,1]",
                                       "authmethod",
                                       "ssf",
                                       "ip=\"",
                                       "dns",
                                       "dayofweek",
                                       "timeofday",
                                       " and ",
                                       " or ",
                                       "not ",
                                       "[$dn]",
                                       "($attr.uid)",
                                       "read,search",
                                       "??tree?",
                                       "(version 3.0; acl \""};
    void *ctx = talloc_new(NULL);
    char *all = talloc_strdup(ctx, "");
    unsigned acis = 0, searches = 0;

    for (uint64_t seed = 1; seed <= SEEDS; seed++) {
        struct acreG_aci_case *c;
        cr_assert_eq(acreG_aci_case_new(ctx, seed, ACREG_ACI_389, &c), 0);
        load(ctx, c);
        acis += acreG_aci_count(c);
        searches += c->nsearches;
        cr_assert_geq(c->nrq, 7);
        all = talloc_strdup_append(all, acreG_aci_ldif(ctx, c));
    }
    cr_assert_geq(acis, 3 * SEEDS);
    cr_assert_geq(searches, 6 * SEEDS);
    for (unsigned i = 0; i < sizeof(want) / sizeof(*want); i++)
        cr_assert(strstr(all, want[i]), "no %s in %d seeds", want[i], SEEDS);
    cr_assert_null(strstr(all, "targetscope"), "389 has no targetscope");
    cr_assert_null(strstr(all, "ldap:///*,"), "389 refuses a bare * RDN");
    talloc_free(ctx);
}

Test(aci_gen, opendj_adds_targetscope)
{
    void *ctx = talloc_new(NULL);
    int seen = 0;

    for (uint64_t seed = 1; seed <= SEEDS && !seen; seed++) {
        struct acreG_aci_case *c;
        cr_assert_eq(acreG_aci_case_new(ctx, seed, ACREG_ACI_OPENDJ, &c), 0);
        load(ctx, c);
        seen = strstr(acreG_aci_ldif(ctx, c), "(targetscope=\"") != NULL;
    }
    cr_assert(seen);
    talloc_free(ctx);
}
