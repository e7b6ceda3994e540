/*
 * aci_write_test.c -- write checks of the ACI dialect through acre_access,
 * as a server asks them: 389's selfwrite (a value naming the requester is
 * tried as selfwrite, then as write; selfwrite alone grants no other
 * value) and targattrfilters (a written value, and an added or deleted
 * entry's values, must meet the filter of their attribute).  Read off
 * 389-DS 2.3.1's acl.c (acl_access_allowed, acl__resource_match_aci).
 */
#include "acre.h"

#include <criterion/criterion.h>
#include <string.h>
#include <talloc.h>

#define SFX   "dc=example,dc=com"
#define ALICE "uid=alice,ou=people," SFX
#define BOB   "uid=bob,ou=people," SFX

static const char *const base_ldif =
    "dn: " SFX "\nobjectClass: domain\ndc: example\n"
    "%s\n"
    "dn: ou=people," SFX "\nobjectClass: organizationalUnit\nou: people\n\n"
    "dn: " ALICE "\nobjectClass: inetOrgPerson\nuid: alice\ncn: Alice\n"
    "sn: A\ntitle: engineer\n\n"
    "dn: " BOB "\nobjectClass: inetOrgPerson\nuid: bob\ncn: Bob\nsn: B\n"
    "title: manager\n\n"
    "dn: cn=team," SFX "\nobjectClass: groupOfNames\ncn: team\n"
    "member: " BOB "\n";

struct world {
    void *ctx;
    acre_policy *pol;
    acre_directory *dir;
    acre_request *rq;
};

/* A world of the directory `ldif`, a request as `who`. */
static void
world_ldif(struct world *w, const char *ldif, const char *who)
{
    acre_diag d;

    acre_source src = {ACRE_DIALECT_ACI, "w.ldif", ldif, strlen(ldif)};
    cr_assert_eq(acre_policy_compile(w->ctx, NULL, &src, 1, 0, &w->pol, &d), 0,
                 "%s", d.message);
    cr_assert_eq(acre_directory_load(w->ctx, acre_policy_schema(w->pol),
                                     "w.ldif", ldif, strlen(ldif), &w->dir, &d),
                 0, "%s", d.message);
    acre_subject s;
    memset(&s, 0, sizeof s);
    s.authz_dn = who;
    cr_assert_eq(
        acre_request_begin(w->pol, &s, acre_directory_host(w->dir), &w->rq), 0);
}

/* A world whose suffix holds the aci lines `acis`, a request as `who`. */
static void
world(struct world *w, const char *acis, const char *who)
{
    w->ctx = talloc_new(NULL);
    world_ldif(w, talloc_asprintf(w->ctx, base_ldif, acis), who);
}

static void
world_free(struct world *w)
{
    acre_request_end(w->rq);
    acre_policy_release(w->pol);
    talloc_free(w->ctx);
}

static const acre_entry_view *
view(struct world *w, const char *dn)
{
    acre_dn *d;

    cr_assert_eq(acre_dn_parse(w->ctx, acre_policy_schema(w->pol), dn,
                               strlen(dn), 0, &d, NULL),
                 0);
    const acre_entry *e = acre_directory_find(w->dir, d);
    cr_assert(e, "%s", dn);
    return acre_entry_view_of(e);
}

/* right on attr of entry dn with value v (NULL: none) */
static int
may(struct world *w, const char *dn, const char *attr, const char *v, int right)
{
    return acre_access(w->rq, view(w, dn), attr, v, v ? strlen(v) : 0, right,
                       NULL);
}

Test(aci_write, selfwrite_grants_only_ones_own_dn)
{
    struct world w;

    world(&w,
          "aci: (targetattr=\"member\")(version 3.0; acl \"join\"; allow "
          "(selfwrite) userdn=\"ldap:///all\";)\n",
          ALICE);
    const char *team = "cn=team," SFX;
    cr_assert_eq(may(&w, team, "member", ALICE, ACRE_RIGHT_ADD), 1);
    cr_assert_eq(
        may(&w, team, "member", "UID=Alice, OU=People," SFX, ACRE_RIGHT_DELETE),
        1, "the value is compared as a DN");
    cr_assert_eq(may(&w, team, "member", BOB, ACRE_RIGHT_DELETE), 0,
                 "selfwrite is no write of another value");
    cr_assert_eq(may(&w, team, "member", NULL, ACRE_RIGHT_WRITE), 0);
    cr_assert_eq(may(&w, team, "description", ALICE, ACRE_RIGHT_ADD), 0,
                 "not a DN attribute: no selfwrite test");
    world_free(&w);
}

Test(aci_write, write_covers_ones_own_dn)
{
    struct world w;

    world(&w,
          "aci: (targetattr=\"member\")(version 3.0; acl \"w\"; allow "
          "(write) userdn=\"ldap:///all\";)\n"
          "aci: (targetattr=\"member\")(version 3.0; acl \"ns\"; deny "
          "(selfwrite) userdn=\"ldap:///all\";)\n",
          ALICE);
    const char *team = "cn=team," SFX;
    /* the selfwrite test is denied, then the write test allows */
    cr_assert_eq(may(&w, team, "member", ALICE, ACRE_RIGHT_ADD), 1);
    cr_assert_eq(may(&w, team, "member", BOB, ACRE_RIGHT_ADD), 1);
    world_free(&w);
}

Test(aci_write, all_includes_selfwrite)
{
    struct world w;

    world(&w,
          "aci: (targetattr=\"member\")(version 3.0; acl \"a\"; allow "
          "(all) userdn=\"ldap:///" ALICE "\";)\n",
          ALICE);
    cr_assert_eq(may(&w, "cn=team," SFX, "member", ALICE, ACRE_RIGHT_ADD), 1);
    cr_assert_eq(may(&w, "cn=team," SFX, "member", BOB, ACRE_RIGHT_ADD), 1);
    world_free(&w);
}

Test(aci_write, selfwrite_compares_normalised_dns_as_strings)
{
    struct world w;

    /* 389 normalises the value as a DN and compares it with the
     * requester's normalised DN as a string, whatever the attribute's
     * equality rule: nsRoleDN has none */
    world(&w,
          "aci: (targetattr=\"nsRoleDN\")(version 3.0; acl \"r\"; allow "
          "(selfwrite) userdn=\"ldap:///all\";)\n",
          ALICE);
    cr_assert_eq(may(&w, BOB, "nsRoleDN", ALICE, ACRE_RIGHT_ADD), 1);
    cr_assert_eq(
        may(&w, BOB, "nsRoleDN", "UID=Alice, OU=People," SFX, ACRE_RIGHT_ADD),
        1);
    cr_assert_eq(may(&w, BOB, "nsRoleDN", BOB, ACRE_RIGHT_ADD), 0);
    world_free(&w);
}

Test(aci_write, targattrfilters_constrain_written_values)
{
    struct world w;

    world(&w,
          "aci: (targetattr=\"title || description\")"
          "(targattrfilters=\"add=title:(title=*eng*), "
          "del=title:(title=manager)\")(version 3.0; acl \"t\"; allow "
          "(write) userdn=\"ldap:///all\";)\n",
          ALICE);
    cr_assert_eq(may(&w, BOB, "title", "senior engineer", ACRE_RIGHT_ADD), 1);
    cr_assert_eq(may(&w, BOB, "title", "director", ACRE_RIGHT_ADD), 0);
    cr_assert_eq(may(&w, BOB, "title", "manager", ACRE_RIGHT_DELETE), 1);
    cr_assert_eq(may(&w, BOB, "title", "engineer", ACRE_RIGHT_DELETE), 0);
    /* a replace both deletes and adds: both filters must hold */
    cr_assert_eq(may(&w, BOB, "title", "engineer", ACRE_RIGHT_WRITE), 0);
    /* an attribute without a filter goes by the targetattr */
    cr_assert_eq(may(&w, BOB, "description", "anything", ACRE_RIGHT_ADD), 1);
    cr_assert_eq(may(&w, BOB, "sn", "C", ACRE_RIGHT_ADD), 0);
    world_free(&w);
}

Test(aci_write, targattrfilters_test_no_value_on_an_empty_entry)
{
    struct world w;

    /* a write asked with no value (as 389's get-effective-rights asks w
     * and o): 389 tests the filter on an entry holding nothing, so a
     * filter needing a value refuses it and one without lets it through
     * (acl__make_filter_test_entry of no value) */
    world(&w,
          "aci: (targattrfilters=\"add=cn:(cn=a*), del=cn:(!(cn=*))\")"
          "(version 3.0; acl \"t\"; allow (write) userdn=\"ldap:///all\";)\n",
          ALICE);
    cr_assert_eq(may(&w, BOB, "cn", NULL, ACRE_RIGHT_ADD), 0);
    cr_assert_eq(may(&w, BOB, "cn", NULL, ACRE_RIGHT_DELETE), 1);
    cr_assert_eq(may(&w, BOB, "cn", "anne", ACRE_RIGHT_ADD), 1);
    cr_assert_eq(may(&w, BOB, "cn", "anne", ACRE_RIGHT_DELETE), 0);
    world_free(&w);
}

Test(aci_write, targattrfilters_govern_a_type_without_options)
{
    struct world w;

    /* 389 matches the filter's type to the written one with
     * SLAPI_TYPE_CMP_SUBTYPE: a filter on cn does not govern cn;lang-fr,
     * which goes by the targetattr */
    world(&w,
          "aci: (targetattr=\"cn\")(targattrfilters=\"add=cn:(cn=a*)\")"
          "(version 3.0; acl \"t\"; allow (write) userdn=\"ldap:///all\";)\n",
          ALICE);
    cr_assert_eq(may(&w, BOB, "cn", "bobby", ACRE_RIGHT_ADD), 0);
    cr_assert_eq(may(&w, BOB, "cn;lang-fr", "bobby", ACRE_RIGHT_ADD), 1);
    world_free(&w);
}

Test(aci_write, targattrfilters_named_by_an_alias_govern_nothing)
{
    struct world w;

    /* 389 compares the filter's attribute name with the written one (its
     * first name) as strings: commonName is not cn, SN is sn */
    world(&w,
          "aci: (targattrfilters=\"add=commonName:(!(commonName=*)), "
          "del=SN:(!(sn=*))\")(version 3.0; acl \"t\"; allow (write) "
          "userdn=\"ldap:///all\";)\n",
          ALICE);
    cr_assert_eq(may(&w, BOB, "cn", NULL, ACRE_RIGHT_ADD), 0);
    cr_assert_eq(may(&w, BOB, "sn", NULL, ACRE_RIGHT_DELETE), 1);
    world_free(&w);
}

Test(aci_write, targattrfilters_alone_take_their_attributes)
{
    struct world w;

    /* no targetattr: the filters' attributes are taken when their value
     * passes; any other attribute is not (389 gives the ACI the type of
     * a targetattr that names nothing) */
    world(&w,
          "aci: (targattrfilters=\"add=title:(title=*eng*)\")"
          "(version 3.0; acl \"t\"; allow (write) userdn=\"ldap:///all\";)\n",
          ALICE);
    cr_assert_eq(may(&w, BOB, "title", "engineer", ACRE_RIGHT_ADD), 1);
    cr_assert_eq(may(&w, BOB, "title", "director", ACRE_RIGHT_ADD), 0);
    cr_assert_eq(may(&w, BOB, "sn", "C", ACRE_RIGHT_ADD), 0);
    cr_assert_eq(may(&w, BOB, "title", NULL, ACRE_RIGHT_READ), 0);
    world_free(&w);
}

Test(aci_write, targattrfilters_on_added_and_deleted_entries)
{
    struct world w;

    world(&w,
          "aci: (targattrfilters=\"add=title:(title=engineer), "
          "del=title:(title=manager)\")(version 3.0; acl \"t\"; allow "
          "(add,delete) userdn=\"ldap:///all\";)\n",
          ALICE);
    /* alice's title passes the add filter, bob's does not */
    cr_assert_eq(may(&w, ALICE, "entry", NULL, ACRE_RIGHT_ADD), 1);
    cr_assert_eq(may(&w, BOB, "entry", NULL, ACRE_RIGHT_ADD), 0);
    cr_assert_eq(may(&w, BOB, "entry", NULL, ACRE_RIGHT_DELETE), 1);
    cr_assert_eq(may(&w, ALICE, "entry", NULL, ACRE_RIGHT_DELETE), 0);
    /* an entry without the attribute meets every filter */
    cr_assert_eq(may(&w, "cn=team," SFX, "entry", NULL, ACRE_RIGHT_ADD), 1);
    world_free(&w);
}

/* The same checks a real 389-DS 2.3.1 answered with ldapmodify as alice
 * (rc 0 or 50) on this directory, the entries to add included here. */
Test(aci_write, as_389_answered)
{
    static const char *const ldif =
        "dn: " SFX "\nobjectClass: domain\ndc: example\n"
        "aci: (targetattr=\"member\")(version 3.0; acl \"join\"; allow "
        "(selfwrite) userdn=\"ldap:///all\";)\n"
        "aci: (targetattr=\"title || description\")(targattrfilters=\"add="
        "title:(title=*eng*), del=title:(title=manager)\")(version 3.0; acl "
        "\"t\"; allow (write) userdn=\"ldap:///all\";)\n\n"
        "dn: ou=people," SFX "\nobjectClass: organizationalUnit\nou: people\n"
        "aci: (targattrfilters=\"add=title:(title=engineer)\")(version 3.0; "
        "acl \"e\"; allow (add) userdn=\"ldap:///all\";)\n\n"
        "dn: " ALICE "\nobjectClass: inetOrgPerson\nuid: alice\ncn: Alice\n"
        "sn: A\ntitle: engineer\n\n"
        "dn: " BOB "\nobjectClass: inetOrgPerson\nuid: bob\ncn: Bob\nsn: B\n"
        "title: manager\n\n"
        "dn: cn=team," SFX "\nobjectClass: groupOfNames\ncn: team\n"
        "member: " BOB "\n\n"
        "dn: uid=carol,ou=people," SFX "\nobjectClass: inetOrgPerson\n"
        "uid: carol\ncn: Carol\nsn: C\ntitle: engineer\n\n"
        "dn: uid=dave,ou=people," SFX "\nobjectClass: inetOrgPerson\n"
        "uid: dave\ncn: Dave\nsn: D\ntitle: director\n\n"
        "dn: uid=erin,ou=people," SFX "\nobjectClass: inetOrgPerson\n"
        "uid: erin\ncn: Erin\nsn: E\n";
    struct world w;
    const char *team = "cn=team," SFX;

    w.ctx = talloc_new(NULL);
    world_ldif(&w, ldif, ALICE);
    cr_assert_eq(may(&w, team, "member", ALICE, ACRE_RIGHT_ADD), 1);
    cr_assert_eq(
        may(&w, team, "member", "UID=Alice, OU=People," SFX, ACRE_RIGHT_DELETE),
        1);
    cr_assert_eq(may(&w, team, "member", BOB, ACRE_RIGHT_DELETE), 0);
    cr_assert_eq(may(&w, team, "description", ALICE, ACRE_RIGHT_ADD), 1);
    cr_assert_eq(may(&w, BOB, "title", "senior engineer", ACRE_RIGHT_ADD), 1);
    cr_assert_eq(may(&w, BOB, "title", "director", ACRE_RIGHT_ADD), 0);
    cr_assert_eq(may(&w, ALICE, "title", "engineer", ACRE_RIGHT_DELETE), 0);
    cr_assert_eq(may(&w, BOB, "title", "manager", ACRE_RIGHT_DELETE), 1);
    cr_assert_eq(may(&w, BOB, "description", "anything", ACRE_RIGHT_ADD), 1);
    cr_assert_eq(may(&w, BOB, "sn", "C", ACRE_RIGHT_ADD), 0);
    cr_assert_eq(
        may(&w, "uid=carol,ou=people," SFX, "entry", NULL, ACRE_RIGHT_ADD), 1);
    cr_assert_eq(
        may(&w, "uid=dave,ou=people," SFX, "entry", NULL, ACRE_RIGHT_ADD), 0);
    cr_assert_eq(
        may(&w, "uid=erin,ou=people," SFX, "entry", NULL, ACRE_RIGHT_ADD), 1);
    world_free(&w);
}
