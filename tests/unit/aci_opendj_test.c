/*
 * aci_opendj_test.c -- the OpenDJ variant's differences from 389, one
 * test each: the same directory and `aci` values searched as 389
 * (default) and as OpenDJ (ACRE_COMPILE_ACI_OPENDJ), through the engine
 * (acre_policy_compile, acre_search over an acre_directory host) and
 * through the reference evaluator (tests/oracle/aci_oracle*.c), which
 * must agree; each test then states what each server returns, as read
 * off 389-DS 2.3.1's ACL plugin and OpenDJ's dseecompat classes
 * (doc/acre-rules.5, "OpenDJ variant").
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include <time.h>

#include "aci.h"
#include "aci_oracle.h"
#include "acre.h"
#include "directory.h"
#include "ir.h"
#include "schema.h"

#define SFX    "dc=example,dc=com"
#define PEOPLE "ou=people," SFX
#define GROUPS "ou=groups," SFX
#define ALICE  "uid=alice," PEOPLE
#define BOB    "uid=bob," PEOPLE

/* The directory; each test adds its ACIs on the suffix entry. */
static const char data[] =
    "dn: " PEOPLE "\nobjectClass: organizationalUnit\nou: people\n\n"
    "dn: " ALICE "\nobjectClass: inetOrgPerson\nuid: alice\ncn: Alice\n"
    "sn: A\nmail: alice@example.com\ndepartmentNumber: 42\n"
    "manager: " BOB "\n\n"
    "dn: " BOB "\nobjectClass: inetOrgPerson\nuid: bob\ncn: Bob\nsn: B\n"
    "departmentNumber: 42\n\n"
    "dn: " GROUPS "\nobjectClass: organizationalUnit\nou: groups\n\n"
    "dn: cn=g1," GROUPS "\nobjectClass: groupOfNames\ncn: g1\n"
    "member: cn=g2," GROUPS "\n\n"
    "dn: cn=g2," GROUPS
    "\nobjectClass: groupOfNames\ncn: g2\nmember: cn=g3," GROUPS "\n\n"
    "dn: cn=g3," GROUPS
    "\nobjectClass: groupOfNames\ncn: g3\nmember: cn=g4," GROUPS "\n\n"
    "dn: cn=g4," GROUPS
    "\nobjectClass: groupOfNames\ncn: g4\nmember: cn=g5," GROUPS "\n\n"
    "dn: cn=g5," GROUPS
    "\nobjectClass: groupOfNames\ncn: g5\nmember: cn=g6," GROUPS "\n\n"
    "dn: cn=g6," GROUPS
    "\nobjectClass: groupOfNames\ncn: g6\nmember: cn=g7," GROUPS "\n\n"
    "dn: cn=g7," GROUPS "\nobjectClass: groupOfNames\ncn: g7\nmember: " BOB
    "\n\n";

struct who {
    const char *dn; /* NULL: anonymous */
    const char *ip; /* NULL: unknown */
    int64_t time;   /* seconds since the Epoch (UTC), 0: the Epoch */
};

/* The engine's answer, rendered as the oracle's is. */
struct rend {
    const acre_schema *s;
    char *out;
};

static int
render(void *arg, const acre_entry_view *e, const acre_verdict *v)
{
    struct rend *r = arg;

    r->out =
        talloc_asprintf_append(r->out, "%s\t", acre_dn_normalised(e->dn, NULL));
    for (unsigned i = 0; i < v->nattrs; i++)
        if (v->attr[i] != ACRE_ATTR_NONE)
            r->out = talloc_asprintf_append(
                r->out, "%s,",
                acre_schema_attr_desc(r->s, e->attrs[i].id, NULL));
    r->out = talloc_asprintf_append(r->out, "\n");
    return 0;
}

/* ACI lines held by the root DSE, in the rules only (no host directory
 * has that entry); NULL: none. */
static const char *root_acis;

/*
 * run -- the suffix entry with `acis` (newline-separated "aci: ..."
 * lines) and the data, searched by who as the variant (0 389, 1 OpenDJ):
 * engine and oracle must agree; returns "dn\tattr,...\n" lines, or
 * "rc N\n" for a search that ends with LDAP result N.
 */
static char *
run(void *ctx, int dj, const char *acis, struct who w, const char *base,
    int scope, const char *filter, const char *const *attrs, unsigned nattrs)
{
    char *ldif = talloc_asprintf(
        ctx, "dn: " SFX "\nobjectClass: domain\ndc: example\n%s\n\n%s", acis,
        data);
    char *rules = root_acis
                      ? talloc_asprintf(ctx, "dn:\n%s\n\n%s", root_acis, ldif)
                      : ldif;
    acre_diag d;

    /* the engine */
    acre_source src = {ACRE_DIALECT_ACI, "t.ldif", rules, strlen(rules)};
    acre_policy *pol;
    acre_directory *edir;
    cr_assert_eq(acre_policy_compile(ctx, NULL, &src, 1,
                                     dj ? ACRE_COMPILE_ACI_OPENDJ : 0, &pol,
                                     &d),
                 0, "%s", d.message);
    cr_assert_eq(acre_directory_load(ctx, acre_policy_schema(pol), "t.ldif",
                                     ldif, strlen(ldif), &edir, &d),
                 0, "%s", d.message);
    acre_subject sub;
    char peer[64];
    memset(&sub, 0, sizeof sub);
    sub.authz_dn = w.dn;
    sub.auth_method = w.dn ? "simple" : "none";
    sub.time = w.time;
    if (w.ip) {
        snprintf(peer, sizeof peer, "IP=%s:40000", w.ip);
        sub.peername = peer;
    }
    acre_request *rq;
    cr_assert_eq(acre_request_begin(pol, &sub, acre_directory_host(edir), &rq),
                 0);
    struct rend r = {acre_policy_schema(pol), talloc_strdup(ctx, "")};
    int erc = -1;
    cr_assert_eq(acre_search(rq, base, scope, filter, attrs, nattrs, render, &r,
                             &erc, NULL),
                 0);
    acre_request_end(rq);
    if (erc)
        r.out = talloc_asprintf(ctx, "rc %d\n", erc);

    /* the oracle */
    acre_schema *s;
    struct acreE_dir *dir;
    struct acreI_policy *ir;
    cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &s, NULL), 0);
    cr_assert_eq(acreE_dir_new(ctx, s, 0, &dir), 0);
    cr_assert_eq(acreE_dir_load_ldif(dir, NULL, ldif, strlen(ldif), "t.ldif",
                                     NULL, NULL, &d),
                 0, "%s", d.message);
    cr_assert_eq(acreA_parse_ldif(ctx, s, "t.ldif", rules, strlen(rules),
                                  dj ? ACREI_ACI_OPENDJ : ACREI_ACI_389, &ir,
                                  &d),
                 0, "%s", d.message);
    struct acreR_aci_who ow = {w.dn, NULL, 0, w.ip, NULL, w.time, NULL};
    struct acreR_aci *o;
    struct acreR_aci_search *res;
    cr_assert_eq(acreR_aci_new(ctx, ir->aci, dir, &ow, &o), 0);
    cr_assert_eq(
        acreR_aci_search(o, ctx, base, scope, filter, attrs, nattrs, &res), 0);
    char *ora = talloc_strdup(ctx, "");
    if (res->rc)
        ora = talloc_asprintf(ctx, "rc %d\n", res->rc);
    for (unsigned i = 0; !res->rc && i < res->nentries; i++) {
        const struct acreR_aci_sentry *se = &res->entries[i];
        ora = talloc_asprintf_append(ora, "%s\t",
                                     acre_dn_normalised(se->entry->dn, NULL));
        for (unsigned k = 0; k < se->nattrs; k++)
            ora = talloc_asprintf_append(
                ora, "%s,",
                acre_schema_attr_desc(s, se->entry->attrs[se->attrs[k]].id,
                                      NULL));
        ora = talloc_asprintf_append(ora, "\n");
    }
    cr_assert_str_eq(r.out, ora, "%s: engine\n%s\noracle\n%s",
                     dj ? "opendj" : "389", r.out, ora);
    acre_policy_release(pol);
    return r.out;
}

static void *ctx;

static void
setup(void)
{
    ctx = talloc_new(NULL);
    root_acis = NULL;
    setenv("TZ", "UTC", 1); /* the oracle reads times as UTC */
    tzset();
}

static void
teardown(void)
{
    talloc_free(ctx);
}

TestSuite(aci_opendj, .init = setup, .fini = teardown);

#define READ_ALL                                                           \
    "aci: (targetattr=\"*\")(version 3.0; acl \"r\"; allow (read,search) " \
    "userdn=\"ldap:///anyone\";)\n"

static const struct who ALICE_W = {ALICE, NULL, 0};

/* AciHandler.testFilter: search on every filter attribute, an OR
 * included; 389 leaves the OR's refused term out and decides on the
 * other. */
Test(aci_opendj, filter_needs_search_on_every_attribute)
{
    const char *acis = "aci: (targetattr=\"cn || objectClass\")(version 3.0; "
                       "acl \"s\"; allow (read,search) "
                       "userdn=\"ldap:///anyone\";)";
    const char *f = "(|(cn=Alice)(sn=A))";

    cr_assert_str_eq(
        run(ctx, 0, acis, ALICE_W, PEOPLE, ACRE_SCOPE_SUB, f, NULL, 0),
        ALICE "\tobjectClass,cn,\n");
    cr_assert_str_eq(
        run(ctx, 1, acis, ALICE_W, PEOPLE, ACRE_SCOPE_SUB, f, NULL, 0), "");
    /* every attribute searchable: the same answer */
    cr_assert_str_eq(
        run(ctx, 1, READ_ALL, ALICE_W, PEOPLE, ACRE_SCOPE_SUB, f, NULL, 0),
        ALICE "\tobjectClass,uid,cn,sn,mail,departmentNumber,"
              "manager,\n");
}

/* TargetAttr: "*" takes user attributes only, "+" operational ones; 389's
 * "*" takes `aci` too (and an explicit "*" asks for it). */
Test(aci_opendj, star_is_user_plus_is_operational)
{
    static const char *const plus[] = {"aci"};
    const char *star = READ_ALL;
    const char *both =
        READ_ALL "aci: (targetattr=\"+\")(version 3.0; acl \"o\"; allow (read) "
                 "userdn=\"ldap:///anyone\";)";

    cr_assert_str_eq(run(ctx, 0, star, ALICE_W, SFX, ACRE_SCOPE_BASE,
                         "(objectClass=*)", plus, 1),
                     SFX "\taci,\n");
    cr_assert_str_eq(run(ctx, 1, star, ALICE_W, SFX, ACRE_SCOPE_BASE,
                         "(objectClass=*)", plus, 1),
                     SFX "\t\n");
    cr_assert_str_eq(run(ctx, 1, both, ALICE_W, SFX, ACRE_SCOPE_BASE,
                         "(objectClass=*)", plus, 1),
                     SFX "\taci,\n");
}

/* An unknown targetattr name: refused by 389, a placeholder user type to
 * OpenDJ ("!=" then takes every other user attribute). */
Test(aci_opendj, unknown_targetattr_name)
{
    const char *acis =
        "aci: (targetattr!=\"noSuchAttr\")(version 3.0; acl \"u\"; "
        "allow (read,search) userdn=\"ldap:///anyone\";)";
    char *ldif = talloc_asprintf(ctx, "dn: " SFX "\n%s\n", acis);
    struct acreI_policy *ir;
    acre_diag d;

    cr_assert_neq(acreA_parse_ldif(ctx, NULL, "t.ldif", ldif, strlen(ldif),
                                   ACREI_ACI_389, &ir, &d),
                  0);
    cr_assert_str_eq(
        run(ctx, 1, acis, ALICE_W, BOB, ACRE_SCOPE_BASE, "(uid=bob)", NULL, 0),
        BOB "\tobjectClass,uid,cn,sn,departmentNumber,\n");
}

/* targetscope (OpenDJ only): onelevel excludes the target itself; a "!="
 * target is scoped from the holder. */
Test(aci_opendj, targetscope)
{
    const char *one =
        "aci: (target=\"ldap:///" PEOPLE "\")(targetscope=\"onelevel\")"
        "(targetattr=\"*\")(version 3.0; acl \"t\"; allow (read,search) "
        "userdn=\"ldap:///anyone\";)";
    const char *ne =
        "aci: (target!=\"ldap:///" ALICE "\")(targetscope=\"onelevel\")"
        "(targetattr=\"*\")(version 3.0; acl \"t\"; allow (read,search) "
        "userdn=\"ldap:///anyone\";)";

    cr_assert_str_eq(run(ctx, 1, one, ALICE_W, SFX, ACRE_SCOPE_SUB,
                         "(|(ou=people)(uid=bob))", NULL, 0),
                     BOB "\tobjectClass,uid,cn,sn,departmentNumber,\n");
    /* children of the holder (the suffix), not at or below alice */
    cr_assert_str_eq(run(ctx, 1, ne, ALICE_W, SFX, ACRE_SCOPE_SUB,
                         "(|(ou=people)(uid=bob)(uid=alice))", NULL, 0),
                     PEOPLE "\tobjectClass,ou,\n");
}

/* The entry test rule: a deny without targetattr whose bind rule names
 * nobody hides every entry in 389 when no allow takes the entry itself
 * (acl__TestRights denies at once); OpenDJ evaluates it (False), finds no
 * allow, and grants the entry implicitly (accessAllowedEntry). */
Test(aci_opendj, entry_test_rule)
{
    const char *acis =
        "aci: (targetattr=\"cn || uid || objectClass\")(version 3.0; acl "
        "\"a\"; allow (read,search) userdn=\"ldap:///anyone\";)\n"
        "aci: (version 3.0; acl \"d\"; deny (read) "
        "userdn=\"ldap:///uid=nobody," PEOPLE "\";)";

    cr_assert_str_eq(
        run(ctx, 0, acis, ALICE_W, BOB, ACRE_SCOPE_BASE, "(uid=bob)", NULL, 0),
        "");
    cr_assert_str_eq(
        run(ctx, 1, acis, ALICE_W, BOB, ACRE_SCOPE_BASE, "(uid=bob)", NULL, 0),
        BOB "\tobjectClass,uid,cn,\n");
}

/* 389's anonymous profile answers an anonymous read from the plain
 * "anyone" allows alone, whatever denies say; OpenDJ has none. */
Test(aci_opendj, no_anonymous_profile)
{
    const char *acis = READ_ALL
        "aci: (targetattr=\"mail\")(version 3.0; acl \"d\"; deny (read) "
        "ip=\"127.0.0.1\";)";
    const struct who anon = {NULL, "127.0.0.1", 0};

    cr_assert_str_eq(
        run(ctx, 0, acis, anon, ALICE, ACRE_SCOPE_BASE, "(uid=alice)", NULL, 0),
        ALICE "\tobjectClass,uid,cn,sn,mail,departmentNumber,"
              "manager,\n");
    cr_assert_str_eq(
        run(ctx, 1, acis, anon, ALICE, ACRE_SCOPE_BASE, "(uid=alice)", NULL, 0),
        ALICE "\tobjectClass,uid,cn,sn,departmentNumber,"
              "manager,\n");
}

/* Groups: 389 looks 5 levels below the named group (bob, 7 deep, is
 * Undefined); OpenDJ's group manager follows nesting at any depth. */
Test(aci_opendj, nested_groups_any_depth)
{
    const char *acis =
        "aci: (targetattr=\"*\")(version 3.0; acl \"g\"; "
        "allow (read,search) groupdn=\"ldap:///cn=g1," GROUPS "\";)";
    const struct who bob = {BOB, NULL, 0};

    cr_assert_str_eq(
        run(ctx, 0, acis, bob, BOB, ACRE_SCOPE_BASE, "(uid=bob)", NULL, 0), "");
    cr_assert_str_eq(
        run(ctx, 1, acis, bob, BOB, ACRE_SCOPE_BASE, "(uid=bob)", NULL, 0),
        BOB "\tobjectClass,uid,cn,sn,departmentNumber,\n");
}

/* userattr "!=": 389 2.3.1 negates the typed forms twice ("!=" answers as
 * "="); OpenDJ once. */
Test(aci_opendj, userattr_ne_negates_once)
{
    const char *acis =
        READ_ALL "aci: (targetattr=\"mail\")(version 3.0; acl \"d\"; "
                 "deny (read) userattr!=\"manager#USERDN\";)";
    const struct who bob = {BOB, NULL, 0};

    /* bob is alice's manager: 389 denies him mail, OpenDJ does not */
    cr_assert_str_eq(
        run(ctx, 0, acis, bob, ALICE, ACRE_SCOPE_BASE, "(uid=alice)", NULL, 0),
        ALICE "\tobjectClass,uid,cn,sn,departmentNumber,"
              "manager,\n");
    cr_assert_str_eq(
        run(ctx, 1, acis, bob, ALICE, ACRE_SCOPE_BASE, "(uid=alice)", NULL, 0),
        ALICE "\tobjectClass,uid,cn,sn,mail,departmentNumber,"
              "manager,\n");
}

/* Undefined: 389 stops a bind rule at the first keyword it cannot
 * evaluate and an Undefined deny denies; OpenDJ's "and" is False unless
 * both sides are True, so the same deny does not apply. */
Test(aci_opendj, undefined_inside_and)
{
    const char *acis =
        READ_ALL "aci: (targetattr=\"mail\")(version 3.0; acl \"d\"; "
                 "deny (read) ip=\"10.0.0.1\" and userdn=\"ldap:///anyone\";)";

    cr_assert_str_eq(run(ctx, 0, acis, ALICE_W, ALICE, ACRE_SCOPE_BASE,
                         "(uid=alice)", NULL, 0),
                     ALICE "\tobjectClass,uid,cn,sn,departmentNumber,"
                           "manager,\n");
    cr_assert_str_eq(run(ctx, 1, acis, ALICE_W, ALICE, ACRE_SCOPE_BASE,
                         "(uid=alice)", NULL, 0),
                     ALICE "\tobjectClass,uid,cn,sn,mail,departmentNumber,"
                           "manager,\n");
}

/* userdn lists: 389 stops at a self or parent term; OpenDJ tries every
 * term.  (No space before "||": 389's DN normaliser refuses "self ||".) */
Test(aci_opendj, userdn_list_goes_on_after_self)
{
    const char *acis = "aci: (targetattr=\"*\")(version 3.0; acl \"l\"; "
                       "allow (read,search) userdn=\"ldap:///self||"
                       "ldap:///anyone\";)";

    cr_assert_str_eq(
        run(ctx, 0, acis, ALICE_W, BOB, ACRE_SCOPE_BASE, "(uid=bob)", NULL, 0),
        "");
    cr_assert_str_eq(
        run(ctx, 1, acis, ALICE_W, BOB, ACRE_SCOPE_BASE, "(uid=bob)", NULL, 0),
        BOB "\tobjectClass,uid,cn,sn,departmentNumber,\n");
}

/* OpenDJ's parser refuses roledn, userdnattr, groupdnattr and
 * userattr #ROLEDN. */
Test(aci_opendj, roles_refused)
{
    static const char *const bad[] = {
        "roledn=\"ldap:///cn=r," SFX "\"", "userdnattr=\"manager\"",
        "groupdnattr=\"seeAlso\"", "userattr=\"nsRoleDN#ROLEDN\""};

    for (unsigned i = 0; i < 4; i++) {
        char *ldif = talloc_asprintf(
            ctx,
            "dn: " SFX "\naci: (targetattr=\"*\")(version 3.0; acl \"x\"; "
            "allow (read) %s;)\n",
            bad[i]);
        struct acreI_policy *ir;
        acre_diag d;
        cr_assert_eq(acreA_parse_ldif(ctx, NULL, "t.ldif", ldif, strlen(ldif),
                                      ACREI_ACI_389, &ir, &d),
                     0, "%s", bad[i]);
        cr_assert_neq(acreA_parse_ldif(ctx, NULL, "t.ldif", ldif, strlen(ldif),
                                       ACREI_ACI_OPENDJ, &ir, &d),
                      0, "%s", bad[i]);
        cr_assert(strstr(d.message, "OpenDJ does not support"), "%s",
                  d.message);
    }
}

/* The subordinate (children) scope: 389 refuses it, OpenDJ searches. */
Test(aci_opendj, children_scope)
{
    cr_assert_str_eq(run(ctx, 0, READ_ALL, ALICE_W, PEOPLE, ACRE_SCOPE_CHILDREN,
                         "(uid=bob)", NULL, 0),
                     "rc 2\n");
    cr_assert_str_eq(run(ctx, 1, READ_ALL, ALICE_W, PEOPLE, ACRE_SCOPE_CHILDREN,
                         "(uid=bob)", NULL, 0),
                     BOB "\tobjectClass,uid,cn,sn,departmentNumber,\n");
}

/* targetfilter "!=": a filter OpenDJ cannot decide is a non-match,
 * which "!=" turns into a match; 389 never matches Undefined. */
Test(aci_opendj, targetfilter_ne_undefined)
{
    const char *acis =
        "aci: (targetfilter!=\"(departmentNumber:1.2.3.4:=42)\")"
        "(targetattr=\"*\")(version 3.0; acl \"f\"; allow (read,search) "
        "userdn=\"ldap:///anyone\";)";

    cr_assert_str_eq(
        run(ctx, 0, acis, ALICE_W, BOB, ACRE_SCOPE_BASE, "(uid=bob)", NULL, 0),
        "");
    cr_assert_str_eq(
        run(ctx, 1, acis, ALICE_W, BOB, ACRE_SCOPE_BASE, "(uid=bob)", NULL, 0),
        BOB "\tobjectClass,uid,cn,sn,departmentNumber,\n");
}

/* groupdn URLs: 389 searches base, scope and filter for groups; OpenDJ's
 * GroupDN.decode keeps the base DN as the group. */
Test(aci_opendj, groupdn_url_is_its_base_dn)
{
    const char *acis = "aci: (targetattr=\"*\")(version 3.0; acl \"g\"; "
                       "allow (read,search) groupdn=\"ldap:///cn=g7," GROUPS
                       "??base?(cn=nothing)\";)";
    const struct who bob = {BOB, NULL, 0};

    cr_assert_str_eq(
        run(ctx, 0, acis, bob, BOB, ACRE_SCOPE_BASE, "(uid=bob)", NULL, 0), "");
    cr_assert_str_eq(
        run(ctx, 1, acis, bob, BOB, ACRE_SCOPE_BASE, "(uid=bob)", NULL, 0),
        BOB "\tobjectClass,uid,cn,sn,departmentNumber,\n");
}

/* timeofday: OpenDJ's TimeOfDay tests "=" and "!=" alike with "!=" and
 * then negates "!=": "=" holds at every other minute, "!=" at that one
 * only -- the reverse of 389. */
Test(aci_opendj, timeofday_equality_inverted)
{
    const char *eq = "aci: (targetattr=\"*\")(version 3.0; acl \"t\"; "
                     "allow (read,search) timeofday=\"1200\";)";
    const char *ne = "aci: (targetattr=\"*\")(version 3.0; acl \"t\"; "
                     "allow (read,search) timeofday!=\"1200\";)";
    const struct who noon = {BOB, NULL, 12 * 3600};
    const struct who later = {BOB, NULL, 12 * 3600 + 60};
    const char *seen = BOB "\tobjectClass,uid,cn,sn,departmentNumber,\n";

    cr_assert_str_eq(
        run(ctx, 0, eq, noon, BOB, ACRE_SCOPE_BASE, "(uid=bob)", NULL, 0),
        seen);
    cr_assert_str_eq(
        run(ctx, 1, eq, noon, BOB, ACRE_SCOPE_BASE, "(uid=bob)", NULL, 0), "");
    cr_assert_str_eq(
        run(ctx, 1, eq, later, BOB, ACRE_SCOPE_BASE, "(uid=bob)", NULL, 0),
        seen);
    cr_assert_str_eq(
        run(ctx, 0, ne, noon, BOB, ACRE_SCOPE_BASE, "(uid=bob)", NULL, 0), "");
    cr_assert_str_eq(
        run(ctx, 1, ne, noon, BOB, ACRE_SCOPE_BASE, "(uid=bob)", NULL, 0),
        seen);
    cr_assert_str_eq(
        run(ctx, 1, ne, later, BOB, ACRE_SCOPE_BASE, "(uid=bob)", NULL, 0), "");
}

/* ACIs held by the root DSE: 389 applies them to the root DSE only;
 * OpenDJ's global ACIs (held at the root DN: AciList) govern every
 * entry. */
Test(aci_opendj, root_dse_acis_are_global)
{
    const char *acis = "";

    root_acis = "aci: (targetattr=\"*\")(version 3.0; acl \"global\"; allow "
                "(read,search) userdn=\"ldap:///anyone\";)";

    cr_assert_str_eq(
        run(ctx, 0, acis, ALICE_W, BOB, ACRE_SCOPE_BASE, "(uid=bob)", NULL, 0),
        "");
    cr_assert_str_eq(
        run(ctx, 1, acis, ALICE_W, BOB, ACRE_SCOPE_BASE, "(uid=bob)", NULL, 0),
        BOB "\tobjectClass,uid,cn,sn,departmentNumber,\n");
}

/* A missing base: 389 answers success, no entry, when the nearest
 * existing ancestor may not be read; OpenDJ always noSuchObject (only
 * its matched DN is withheld: filterNonDisclosableMatchedDN). */
Test(aci_opendj, missing_base_is_no_such_object)
{
    const char *acis =
        "aci: (targetattr=\"cn\")(version 3.0; acl \"x\"; "
        "allow (read) userdn=\"ldap:///uid=nobody," PEOPLE "\";)";

    cr_assert_str_eq(run(ctx, 0, acis, ALICE_W, "uid=nobody," PEOPLE,
                         ACRE_SCOPE_BASE, "(objectClass=*)", NULL, 0),
                     "");
    cr_assert_str_eq(run(ctx, 1, acis, ALICE_W, "uid=nobody," PEOPLE,
                         ACRE_SCOPE_BASE, "(objectClass=*)", NULL, 0),
                     "rc 32\n");
}
