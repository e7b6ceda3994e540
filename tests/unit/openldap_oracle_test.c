/*
 * openldap_oracle_test.c -- unit tests of the OpenLDAP reference evaluator
 * (tests/oracle/openldap_oracle*.c): one small case for each rule of
 * "The decision for one check" and "What a search checks" in
 * shared/spec/openldap-acl.md, and for each <what> and <who> form, over a
 * small directory.  Expected masks are printed as slapacl prints them;
 * cases where slapd 2.5 differs from the spec page (break past the last
 * rule, dn.regex=".+") follow slapd, which was run on the same rules.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>
#include <talloc.h>

#include "acre.h"
#include "directory.h"
#include "openldap.h"
#include "openldap_oracle.h"
#include "schema.h"

static const char ldif[] =
    "dn: dc=x\nobjectClass: dcObject\nobjectClass: organization\ndc: x\n"
    "o: X\n\n"
    "dn: ou=people,dc=x\nobjectClass: organizationalUnit\nou: people\n\n"
    "dn: cn=alice,ou=people,dc=x\nobjectClass: inetOrgPerson\ncn: alice\n"
    "cn;lang-fr: alicia\nsn: A\nuid: alice\ntitle: boss\n"
    "userPassword: secret\nseeAlso: cn=bob,ou=people,dc=x\n"
    "mail: alice@x\n\n"
    "dn: cn=bob,ou=people,dc=x\nobjectClass: inetOrgPerson\ncn: bob\nsn: B\n"
    "uid: bob\nmanager: cn=alice,ou=people,dc=x\ndescription: bobs\n\n"
    "dn: cn=carol,cn=bob,ou=people,dc=x\nobjectClass: inetOrgPerson\n"
    "cn: carol\nsn: C\n\n"
    "dn: ou=groups,dc=x\nobjectClass: organizationalUnit\nou: groups\n\n"
    "dn: cn=staff,ou=groups,dc=x\nobjectClass: groupOfNames\ncn: staff\n"
    "member: cn=alice,ou=people,dc=x\nmember: cn=admins,ou=groups,dc=x\n\n"
    "dn: cn=admins,ou=groups,dc=x\nobjectClass: groupOfNames\ncn: admins\n"
    "member: cn=bob,ou=people,dc=x\n\n"
    "dn: cn=dyn,ou=groups,dc=x\nobjectClass: groupOfURLs\ncn: dyn\n"
    "memberURL: ldap:///ou=people,dc=x??one?(sn=B)\n\n"
    "dn: cn=nofilter,ou=groups,dc=x\nobjectClass: groupOfURLs\n"
    "cn: nofilter\nmemberURL: ldap:///ou=people,dc=x??sub\n";

#define ALICE "cn=alice,ou=people,dc=x"
#define BOB   "cn=bob,ou=people,dc=x"
#define CAROL "cn=carol,cn=bob,ou=people,dc=x"
#define ROOT  "cn=root,dc=x"

static void *ctx;
static acre_schema *schema;
static struct acreI_policy *cfg;
static struct acreE_dir *dir;

static void
setup(void)
{
    acre_diag d = {0};

    ctx = talloc_new(NULL);
    cr_assert_eq(acre_schema_new(ctx, 0, &schema, NULL), 0);
    /* the directory freezes the schema; rules are read afterwards */
    cr_assert_eq(acreE_dir_new(ctx, schema, 0, &dir), 0);
    cr_assert_eq(acreE_dir_load_ldif(dir, NULL, ldif, strlen(ldif), "t.ldif",
                                     NULL, NULL, &d),
                 0, "%s", d.message);
}

static void
teardown(void)
{
    talloc_free(ctx);
}

TestSuite(openldap_oracle, .init = setup, .fini = teardown);

/* The rules: global lines, then a database for dc=x with rootdn ROOT. */
static void
rules(const char *global, const char *db)
{
    acre_diag d = {0};
    char *text = talloc_asprintf(ctx,
                                 "%s\ndatabase mdb\nsuffix dc=x\n"
                                 "rootdn " ROOT "\n%s\n",
                                 global ? global : "", db ? db : "");
    cr_assert_eq(
        acreO_parse_conf(ctx, schema, "t.conf", text, strlen(text), &cfg, &d),
        0, "%s:%u:%u %s\n%s", d.file, d.line, d.column, d.message, text);
}

static const acre_entry_view *
entry(const char *dn)
{
    acre_dn *d;
    cr_assert_eq(acre_dn_parse(ctx, schema, dn, strlen(dn), 0, &d, NULL), 0);
    const struct acreE_entry *e = acreE_dir_find(dir, d);
    cr_assert(e, "no entry %s", dn);
    return &e->v;
}

/* Fill t for attribute description `attr` ("entry", "children", "cn",
 * "cn;lang-fr") of e, and its stored value `val` (NULL: attribute). */
static void
target(const acre_entry_view *e, const char *attr, const char *val,
       struct acreR_target *t)
{
    struct acreS_desc want;
    cr_assert_eq(acreS_desc_parse(schema, attr, strlen(attr), &want), 0);
    memset(t, 0, sizeof(*t));
    t->entry = e;
    t->type = want.type;
    for (uint32_t i = 0; i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        const struct acreS_dinfo *d = acreS_dinfo(schema, a->id);
        if (d->type != want.type || d->nopts != want.nopts)
            continue;
        if (!val) {
            acreR_target_attr(t, schema, e, a, -1);
            return;
        }
        for (uint32_t j = 0; j < a->nvals; j++)
            if (a->vals[j].len == strlen(val) &&
                !memcmp(a->vals[j].val, val, a->vals[j].len)) {
                acreR_target_attr(t, schema, e, a, (int)j);
                return;
            }
    }
    cr_assert(!val, "%s has no %s: %s", acre_dn_normalised(e->dn, NULL), attr,
              val);
}

/* One check as requester rq; expect `granted` and the mask's text. */
static void
check_rq(const struct acreR_requester *rq, const char *dn, const char *attr,
         const char *val, enum acreI_access want, int granted, const char *mask)
{
    struct acreR_oracle *o;
    struct acreR_target t;
    uint32_t m = 0;
    char buf[ACRE_MASK_BUF], *trace = NULL;

    cr_assert_eq(acreR_oracle_new(ctx, cfg, dir, rq, &o), 0);
    target(entry(dn), attr, val, &t);
    int got = acreR_oracle_check(o, &t, want, &m, &trace);
    cr_expect_eq(got, granted, "%s %s=%s by %s: granted %d\n%s", dn, attr,
                 val ? val : "", rq->authz_dn ? rq->authz_dn : "anonymous", got,
                 trace);
    if (mask)
        cr_expect_str_eq(acreI_mask_format(m, buf), mask, "%s %s=%s by %s", dn,
                         attr, val ? val : "",
                         rq->authz_dn ? rq->authz_dn : "anonymous");
    talloc_free(o);
}

static void
check(const char *who, const char *dn, const char *attr, const char *val,
      enum acreI_access want, int granted, const char *mask)
{
    struct acreR_requester rq = {0};
    rq.authz_dn = who;
    check_rq(&rq, dn, attr, val, want, granted, mask);
}

#define R ACREI_ACCESS_READ
#define W ACREI_ACCESS_WRITE
#define S ACREI_ACCESS_SEARCH

/* ------------------------------------------------------------------------
 * The decision for one check
 */

Test(openldap_oracle, rootdn_bypass)
{
    rules(NULL, "access to * by * none");
    check(ROOT, ALICE, "cn", NULL, ACREI_ACCESS_MANAGE, 1, "manage(=mwrscxd)");
    check(ALICE, ALICE, "cn", NULL, R, 0, "none(=0)");
    /* proxied: the rootdn authenticated, acting as alice: not root */
    struct acreR_requester rq = {.authz_dn = ALICE, .authc_dn = ROOT};
    check_rq(&rq, ALICE, "cn", NULL, R, 0, "none(=0)");
}

Test(openldap_oracle, no_rules_default_read)
{
    rules(NULL, NULL);
    check(NULL, ALICE, "userPassword", "secret", R, 1, "read(=rscxd)");
    check(NULL, ALICE, "entry", NULL, W, 0, "read(=rscxd)");
    check(BOB, ALICE, "cn", NULL, ACREI_ACCESS_COMPARE, 1, NULL);
}

Test(openldap_oracle, database_then_global)
{
    rules("access to attrs=sn by * search\naccess to * by * compare",
          "access to attrs=cn by * read");
    check(NULL, ALICE, "cn", NULL, R, 1, "read(=rscxd)");
    check(NULL, ALICE, "sn", NULL, R, 0, "search(=scxd)");
    check(NULL, ALICE, "title", NULL, R, 0, "compare(=cxd)");
    /* a database without rules uses the global ones */
    rules("access to * by * search", NULL);
    check(NULL, ALICE, "cn", NULL, S, 1, "search(=scxd)");
}

Test(openldap_oracle, first_matching_what)
{
    rules(NULL, "access to attrs=cn by * read\naccess to * by * write");
    check(BOB, ALICE, "cn", NULL, W, 0, "read(=rscxd)");
    check(BOB, ALICE, "sn", NULL, W, 1, "write(=wrscxd)");
}

Test(openldap_oracle, controls)
{
    /* stop is the default; continue goes on in the same rule */
    rules(NULL, "access to * by users =r continue by * +s by * write");
    check(BOB, ALICE, "cn", NULL, S, 1, "=rs");
    check(NULL, ALICE, "cn", NULL, S, 1, "=s");
    /* break goes on to the next matching rule with the mask */
    rules(NULL, "access to * by * +r break\n"
                "access to attrs=cn by * +c\n"
                "access to * by * +s");
    check(BOB, ALICE, "cn", NULL, R, 1, "=rc");
    check(BOB, ALICE, "sn", NULL, R, 1, "=rs");
    /* continue with nothing after it: the implicit "by * none" */
    rules(NULL, "access to * by users +r continue");
    check(BOB, ALICE, "cn", NULL, R, 0, "=0");
    /* break past the last rule: denied, the mask as accumulated (slapd) */
    rules(NULL, "access to * by * read break");
    check(BOB, ALICE, "cn", NULL, R, 0, "read(=rscxd)");
    /* no rule matches at all: denied */
    rules(NULL, "access to attrs=sn by * read");
    check(BOB, ALICE, "cn", NULL, R, 0, "=0");
}

Test(openldap_oracle, mask_arithmetic)
{
    rules(NULL, "access to * by * read continue by * -rs continue "
                "by * +w continue by * -a");
    /* read, minus r s, plus w, minus a (which takes the shared w bit) */
    check(BOB, ALICE, "cn", NULL, ACREI_ACCESS_COMPARE, 1, "=cxd");
    check(BOB, ALICE, "cn", NULL, ACREI_ACCESS_WDEL, 0, NULL);
    rules(NULL, "access to * by * =az");
    check(BOB, ALICE, "cn", NULL, W, 1, "=w");
    check(BOB, ALICE, "cn", NULL, R, 0, NULL);
}

Test(openldap_oracle, no_user_mod_write)
{
    rules(NULL, "access to * by * none");
    /* write to an attribute users cannot modify is not the rules' to
     * decide (slapd grants it); entry and children are not such */
    struct acreR_oracle *o;
    struct acreR_target t = {
        .entry = entry(ALICE),
        .type = acreS_attr_find(schema, "createTimestamp", 15)};
    struct acreR_requester rq = {.authz_dn = BOB};
    uint32_t m;
    cr_assert_eq(acreR_oracle_new(ctx, cfg, dir, &rq, &o), 0);
    cr_expect(acreR_oracle_check(o, &t, W, &m, NULL));
    cr_expect(!acreR_oracle_check(o, &t, R, &m, NULL));
    check(BOB, ALICE, "entry", NULL, W, 0, "none(=0)");
}

/* ------------------------------------------------------------------------
 * <what>
 */

Test(openldap_oracle, what_dn_styles)
{
    rules(NULL, "access to dn.base=" BOB " by * read\n"
                "access to dn.one=ou=people,dc=x by * search\n"
                "access to dn.children=" BOB " by * compare\n"
                "access to dn.subtree=ou=groups,dc=x by * auth\n"
                "access to dn.regex=^ou=([^,]+),dc=x$ by * disclose\n"
                "access to dn.one=\"\" by * =w");
    check(NULL, BOB, "cn", NULL, R, 1, "read(=rscxd)");
    check(NULL, ALICE, "cn", NULL, R, 0, "search(=scxd)");
    check(NULL, CAROL, "cn", NULL, R, 0, "compare(=cxd)");
    check(NULL, "ou=groups,dc=x", "ou", NULL, R, 0, "auth(=xd)");
    check(NULL, "ou=people,dc=x", "ou", NULL, R, 0, "disclose(=d)");
    check(NULL, "dc=x", "dc", NULL, W, 1, "=w"); /* one level below "" */
    rules(NULL, "access to dn.children=\"\" by * read\naccess to * by * auth");
    check(NULL, "dc=x", "dc", NULL, R, 0, "auth(=xd)"); /* slapd: never */
}

Test(openldap_oracle, what_filter_attrs)
{
    rules(NULL, "access to filter=(uid=alice) attrs=name by * read\n"
                "access to attrs=-name,@organizationalUnit by * search\n"
                "access to attrs=cn;lang-fr by * compare\n"
                "access to attrs=!inetOrgPerson by * auth\n"
                "access to * by * none");
    check(NULL, ALICE, "cn", NULL, R, 1, "read(=rscxd)"); /* subtype */
    check(NULL, ALICE, "cn;lang-fr", NULL, R, 1, NULL);   /* ditto */
    check(NULL, BOB, "cn", NULL, R, 0, "none(=0)");       /* filter */
    /* @oc: what the class allows, whatever the entry's classes */
    check(NULL, BOB, "ou", NULL, S, 1, "search(=scxd)");
    check(NULL, "ou=people,dc=x", "ou", NULL, S, 1, NULL);
    check(NULL, BOB, "entry", NULL, R, 0, "auth(=xd)"); /* !oc */
    check(NULL, BOB, "children", NULL, R, 0, "auth(=xd)");
    check(NULL, BOB, "manager", NULL, R, 0, "none(=0)");
    rules(NULL, "access to attrs=entry by * read\naccess to * by * none");
    check(NULL, BOB, "entry", NULL, R, 1, NULL);
    check(NULL, BOB, "children", NULL, R, 0, NULL);
}

Test(openldap_oracle, what_val)
{
    rules(NULL, "access to attrs=cn val=Alice by * read\n"
                "access to attrs=sn val.regex=^b$ by * search\n"
                "access to attrs=seeAlso val.one=ou=people,dc=x by * compare\n"
                "access to attrs=manager val.subtree=dc=x by * auth\n"
                "access to * by * none");
    check(NULL, ALICE, "cn", "alice", R, 1, "read(=rscxd)");
    check(NULL, ALICE, "cn", NULL, R, 0, "none(=0)"); /* no value: no */
    check(NULL, BOB, "sn", "B", R, 0, "search(=scxd)");
    check(NULL, ALICE, "seeAlso", "cn=bob,ou=people,dc=x", R, 0,
          "compare(=cxd)");
    check(NULL, BOB, "manager", "cn=alice,ou=people,dc=x", R, 0, "auth(=xd)");
}

/* ------------------------------------------------------------------------
 * <who>
 */

Test(openldap_oracle, who_basic)
{
    rules(NULL, "access to * by anonymous auth by self write "
                "by users read");
    check(NULL, ALICE, "cn", NULL, R, 0, "auth(=xd)");
    check(ALICE, ALICE, "cn", NULL, W, 1, "write(=wrscxd)");
    check(BOB, ALICE, "cn", NULL, R, 1, "read(=rscxd)");
    rules(NULL, "access to * by self.level{1} write by self.level{-1} read "
                "by * none");
    check(CAROL, BOB, "cn", NULL, W, 1, NULL); /* bob is carol's parent */
    check(BOB, CAROL, "cn", NULL, R, 1, "read(=rscxd)");
    check(ALICE, BOB, "cn", NULL, R, 0, "none(=0)");
}

Test(openldap_oracle, who_dn_styles)
{
    rules(NULL, "access to * by dn.exact=" ALICE " manage "
                "by dn.one=" BOB " write by dn.children=ou=people,dc=x read "
                "by dn.level{2}=dc=x search by dn.subtree=dc=y compare "
                "by * none");
    check(ALICE, BOB, "cn", NULL, ACREI_ACCESS_MANAGE, 1, NULL);
    check(CAROL, BOB, "cn", NULL, W, 1, NULL);
    check(BOB, ALICE, "cn", NULL, R, 1, "read(=rscxd)");
    check("cn=x,ou=groups,dc=x", ALICE, "cn", NULL, S, 1, "search(=scxd)");
    check("cn=x,dc=x", ALICE, "cn", NULL, S, 0, "none(=0)");
}

Test(openldap_oracle, who_regex_substitution)
{
    /* $1 of the <what> regex in a <who> regex; $$ a literal $ */
    rules(NULL, "access to dn.regex=^cn=([^,]+),ou=people,dc=x$ "
                "by dn.regex=^uid=$1,dc=x$$ write by * none\n"
                "access to dn.subtree=ou=people,dc=x by dn.exact,expand=$0 "
                "read by dn.subtree,expand=$1 search by * none");
    check("uid=alice,dc=x", ALICE, "cn", NULL, W, 1, NULL);
    check("uid=bob,dc=x", ALICE, "cn", NULL, W, 0, "none(=0)");
    /* non-regex styles: $0 is the entry, $1 the part matching the base */
    check("ou=people,dc=x", "ou=people,dc=x", "ou", NULL, R, 1, "read(=rscxd)");
    check(CAROL, "ou=people,dc=x", "ou", NULL, S, 1, "search(=scxd)");
    /* a val.regex gives ${vN} */
    rules(NULL, "access to attrs=mail val.regex=^([^@]+)@ "
                "by set.expand=\"[cn=${v1},ou=people,dc=x] & user\" read "
                "by * none");
    check(ALICE, ALICE, "mail", "alice@x", R, 1, NULL);
    check(BOB, ALICE, "mail", "alice@x", R, 0, NULL);
}

/* slapd 2.5: dn.regex=".+" is the regex "users", dn.regex="" "anonymous" */
Test(openldap_oracle, who_regex_quirks)
{
    rules(NULL, "access to * by dn.regex=.+ read by dn.regex=\"\" search "
                "by * none");
    check(ALICE, ALICE, "cn", NULL, R, 0, "none(=0)");
    check("cn=users,dc=x", ALICE, "cn", NULL, R, 1, NULL);
    check("cn=anonymous,dc=x", ALICE, "cn", NULL, S, 1, "search(=scxd)");
    check(NULL, ALICE, "cn", NULL, S, 0, "none(=0)");
}

Test(openldap_oracle, who_real)
{
    rules(NULL, "access to * by realdn.exact=" ROOT " write "
                "by realanonymous auth by realusers read by * none");
    struct acreR_requester proxied = {.authz_dn = ALICE, .authc_dn = ROOT};
    check_rq(&proxied, BOB, "cn", NULL, W, 1, "write(=wrscxd)");
    struct acreR_requester plain = {.authz_dn = ALICE};
    check_rq(&plain, BOB, "cn", NULL, R, 1, "read(=rscxd)");
    check(NULL, BOB, "cn", NULL, R, 0, "auth(=xd)");
}

Test(openldap_oracle, who_dnattr_and_self_access)
{
    rules(NULL, "access to attrs=manager by dnattr=manager write "
                "by * read\n"
                "access to attrs=member by dnattr=member selfwrite "
                "by * read\n"
                "access to * by * read");
    check(ALICE, BOB, "manager", NULL, W, 1, NULL);
    check(BOB, BOB, "manager", NULL, W, 0, "read(=rscxd)");
    check(NULL, BOB, "manager", NULL, W, 0, NULL); /* anonymous: never */
    /* selfwrite: only a value naming the requester */
    check(ALICE, "cn=staff,ou=groups,dc=x", "member", "cn=alice,ou=people,dc=x",
          W, 1, "write(=wrscxd)");
    check(ALICE, "cn=staff,ou=groups,dc=x", "member",
          "cn=admins,ou=groups,dc=x", W, 0, "read(=rscxd)");
    check(ALICE, "cn=staff,ou=groups,dc=x", "member", NULL, W, 0,
          "read(=rscxd)");
}

Test(openldap_oracle, who_groups)
{
    rules(NULL, "access to * by group=cn=staff,ou=groups,dc=x write "
                "by group/groupOfURLs/memberURL=cn=dyn,ou=groups,dc=x read "
                "by group/groupOfURLs/memberURL=cn=nofilter,ou=groups,dc=x "
                "search by * none");
    check(ALICE, BOB, "cn", NULL, W, 1, NULL);
    /* not nested: bob is in admins, admins is in staff */
    check(BOB, ALICE, "cn", NULL, W, 0, "read(=rscxd)"); /* dyn: sn=B */
    check(CAROL, ALICE, "cn", NULL, R, 0, "none(=0)");   /* not one level */
    check(NULL, ALICE, "cn", NULL, R, 0, "none(=0)");
    /* the group entry must have the class (unless it is the target) */
    rules(NULL, "access to * by group/groupOfUniqueNames/uniqueMember="
                "cn=staff,ou=groups,dc=x read by * none");
    check(ALICE, BOB, "cn", NULL, R, 0, NULL);
}

Test(openldap_oracle, who_sets)
{
    rules(NULL, "access to dn.base=cn=staff,ou=groups,dc=x "
                "by set=\"[cn=staff,ou=groups,dc=x]/member* & user\" write "
                "by * none\n"
                "access to dn.subtree=ou=people,dc=x "
                "by set=\"this/manager & user\" write "
                "by set=\"user/-1 & [ou=people,dc=x]\" read "
                "by set=\"[ldap:///ou=people,dc=x??one?(sn=A)]/uid + [@x] & "
                "this/mail\" search by * none");
    check(BOB, "cn=staff,ou=groups,dc=x", "cn", NULL, W, 1, NULL);
    check(CAROL, "cn=staff,ou=groups,dc=x", "cn", NULL, W, 0, NULL);
    check(ALICE, BOB, "sn", NULL, W, 1, NULL);
    check(BOB, ALICE, "sn", NULL, R, 1, "read(=rscxd)");
    check(CAROL, ALICE, "sn", NULL, S, 1, "search(=scxd)");
    check(CAROL, BOB, "sn", NULL, S, 0, "none(=0)");
}

Test(openldap_oracle, who_connection)
{
    rules(NULL, "access to * by peername.ip=10.0.0.0%255.0.0.0{389} manage "
                "by peername.path=/run/ldapi write "
                "by domain.subtree=example.com read "
                "by sockurl.regex=^ldaps: search "
                "by sockname=IP=1.2.3.4:636 compare "
                "by ssf=128 auth by * none");
    struct acreR_requester rq = {.authz_dn = ALICE};
    rq.peername = "IP=10.1.2.3:389";
    check_rq(&rq, BOB, "cn", NULL, ACREI_ACCESS_MANAGE, 1, NULL);
    rq.peername = "IP=10.1.2.3:390";
    check_rq(&rq, BOB, "cn", NULL, ACREI_ACCESS_MANAGE, 0, "none(=0)");
    rq.peername = "PATH=/run/ldapi";
    check_rq(&rq, BOB, "cn", NULL, W, 1, NULL);
    rq.peername = NULL;
    rq.domain = "host.example.com";
    check_rq(&rq, BOB, "cn", NULL, R, 1, "read(=rscxd)");
    rq.domain = "badexample.com";
    check_rq(&rq, BOB, "cn", NULL, R, 0, "none(=0)");
    rq.domain = NULL;
    rq.sockurl = "LDAPS://x/";
    check_rq(&rq, BOB, "cn", NULL, S, 1, "search(=scxd)");
    rq.sockurl = NULL;
    rq.sockname = "ip=1.2.3.4:636";
    check_rq(&rq, BOB, "cn", NULL, S, 0, "compare(=cxd)");
    rq.sockname = NULL;
    rq.ssf = 256;
    check_rq(&rq, BOB, "cn", NULL, S, 0, "auth(=xd)");
    rq.ssf = 127;
    check_rq(&rq, BOB, "cn", NULL, S, 0, "none(=0)");
}

/* ------------------------------------------------------------------------
 * What a search checks
 */

static struct acreR_search *
search(const char *who, const char *base, int scope, const char *filter,
       const char *const *attrs, unsigned nattrs)
{
    struct acreR_requester rq = {.authz_dn = who};
    struct acreR_oracle *o;
    struct acreR_search *res;
    cr_assert_eq(acreR_oracle_new(ctx, cfg, dir, &rq, &o), 0);
    cr_assert_eq(
        acreR_oracle_search(o, ctx, base, scope, filter, attrs, nattrs, &res),
        0);
    return res;
}

Test(openldap_oracle, search_base)
{
    rules(NULL, "access to dn.base=" BOB " by * disclose\n"
                "access to dn.base=" ALICE " by * none\n"
                "access to dn.base=ou=people,dc=x by * disclose\n"
                "access to * by * read");
    cr_expect_eq(search(NULL, BOB, ACRE_SCOPE_BASE, "(cn=*)", NULL, 0)->rc, 50);
    cr_expect_eq(search(NULL, ALICE, ACRE_SCOPE_BASE, "(cn=*)", NULL, 0)->rc,
                 32);
    struct acreR_search *r = search(NULL, "cn=nobody,ou=people,dc=x",
                                    ACRE_SCOPE_BASE, "(cn=*)", NULL, 0);
    cr_expect_eq(r->rc, 32);
    cr_expect_str_eq(r->matched ? r->matched : "", "ou=people,dc=x");
    r = search(NULL, "cn=nobody,cn=alice,ou=people,dc=x", ACRE_SCOPE_BASE,
               "(cn=*)", NULL, 0);
    cr_expect(r->matched == NULL); /* no disclose on alice */
    cr_expect_eq(
        search(NULL, "dc=nowhere", ACRE_SCOPE_BASE, "(cn=*)", NULL, 0)->rc, 32);
}

/* Databases whose suffixes nest (tests/golden/search-nested-databases,
 * whose answers slapd 2.5.13 gave): a search returns its base's
 * database's entries; glued ("subordinate"), a one-level or subtree
 * search of the superior goes on in each subordinate database, in
 * configuration order. */
static void
nested_search(struct acreR_oracle *o, const char *base, int scope,
              const char *want)
{
    struct acreR_search *res;
    char *got = talloc_strdup(ctx, "");

    cr_assert_eq(acreR_oracle_search(o, ctx, base, scope, "(objectClass=*)",
                                     NULL, 0, &res),
                 0);
    for (unsigned i = 0; i < res->nentries; i++)
        got = talloc_asprintf_append(
            got, "%s%s", i ? " " : "",
            acre_dn_normalised(res->entries[i].entry->dn, NULL));
    cr_expect_str_eq(got, want, "%s scope %d", base, scope);
}

Test(openldap_oracle, search_nested_databases)
{
    static const char data[] =
        "dn: dc=y\nobjectClass: domain\ndc: y\n\n"
        "dn: ou=sub,dc=y\nobjectClass: organizationalUnit\nou: sub\n\n"
        "dn: ou=people,dc=y\nobjectClass: organizationalUnit\nou: people\n\n"
        "dn: cn=x,ou=sub,dc=y\nobjectClass: device\ncn: x\n\n"
        "dn: ou=two,dc=y\nobjectClass: organizationalUnit\nou: two\n\n"
        "dn: cn=y,ou=two,dc=y\nobjectClass: device\ncn: y\n\n"
        "dn: cn=z,ou=people,dc=y\nobjectClass: device\ncn: z\n";
    acre_diag d = {0};
    struct acreR_requester rq = {0};
    struct acreR_oracle *o;

    cr_assert_eq(acreE_dir_load_ldif(dir, NULL, data, strlen(data), "n.ldif",
                                     NULL, NULL, &d),
                 0, "%s", d.message);
    for (int glued = 0; glued < 2; glued++) {
        char *text = talloc_asprintf(
            ctx,
            "database mdb\nsuffix ou=two,dc=y\n%s"
            "access to * by * read\n"
            "database mdb\nsuffix ou=sub,dc=y\n%s"
            "access to * by * read\n"
            "database mdb\nsuffix dc=y\naccess to * by * read\n"
            "database mdb\nsuffix dc=x\naccess to * by * read\n",
            glued ? "subordinate\n" : "",
            glued ? "subordinate advertise\n" : "");
        cr_assert_eq(acreO_parse_conf(ctx, schema, "n.conf", text, strlen(text),
                                      &cfg, &d),
                     0, "%s", d.message);
        cr_assert_eq(acreR_oracle_new(ctx, cfg, dir, &rq, &o), 0);
        nested_search(o, "dc=y", ACRE_SCOPE_SUB,
                      glued ? "dc=y ou=people,dc=y cn=z,ou=people,dc=y "
                              "ou=two,dc=y cn=y,ou=two,dc=y ou=sub,dc=y "
                              "cn=x,ou=sub,dc=y"
                            : "dc=y ou=people,dc=y cn=z,ou=people,dc=y");
        nested_search(o, "dc=y", ACRE_SCOPE_ONE,
                      glued ? "ou=people,dc=y ou=two,dc=y ou=sub,dc=y"
                            : "ou=people,dc=y");
        nested_search(o, "dc=y", ACRE_SCOPE_CHILDREN,
                      "ou=people,dc=y cn=z,ou=people,dc=y");
        nested_search(o, "ou=two,dc=y", ACRE_SCOPE_SUB,
                      "ou=two,dc=y cn=y,ou=two,dc=y");
    }
}

/* Glue over two levels (tests/golden/search-glue-levels, whose answers
 * slapd 2.5.13 gave): both subordinates hang from the topmost superior,
 * and a search based in the upper subordinate returns the lower one's
 * entries first, as it is configured before. */
Test(openldap_oracle, search_glue_levels)
{
    static const char data[] =
        "dn: dc=y\nobjectClass: domain\ndc: y\n\n"
        "dn: ou=top1,dc=y\nobjectClass: organizationalUnit\nou: top1\n\n"
        "dn: ou=mid,dc=y\nobjectClass: organizationalUnit\nou: mid\n\n"
        "dn: ou=m1,ou=mid,dc=y\nobjectClass: organizationalUnit\nou: m1\n\n"
        "dn: ou=sub,ou=mid,dc=y\nobjectClass: organizationalUnit\nou: sub\n\n"
        "dn: ou=s1,ou=sub,ou=mid,dc=y\nobjectClass: organizationalUnit\n"
        "ou: s1\n";
    static const char text[] =
        "database mdb\nsuffix ou=sub,ou=mid,dc=y\nsubordinate\n"
        "access to * by * read\n"
        "database mdb\nsuffix ou=mid,dc=y\nsubordinate\n"
        "access to * by * read\n"
        "database mdb\nsuffix dc=y\naccess to * by * read\n"
        "database mdb\nsuffix dc=x\naccess to * by * read\n";
    acre_diag d = {0};
    struct acreR_requester rq = {0};
    struct acreR_oracle *o;

    cr_assert_eq(acreE_dir_load_ldif(dir, NULL, data, strlen(data), "g.ldif",
                                     NULL, NULL, &d),
                 0, "%s", d.message);
    cr_assert_eq(
        acreO_parse_conf(ctx, schema, "g.conf", text, strlen(text), &cfg, &d),
        0, "%s", d.message);
    cr_assert_eq(acreR_oracle_new(ctx, cfg, dir, &rq, &o), 0);
    nested_search(
        o, "dc=y", ACRE_SCOPE_SUB,
        "dc=y ou=top1,dc=y ou=sub,ou=mid,dc=y ou=s1,ou=sub,ou=mid,dc=y "
        "ou=mid,dc=y ou=m1,ou=mid,dc=y");
    nested_search(o, "dc=y", ACRE_SCOPE_ONE, "ou=top1,dc=y ou=mid,dc=y");
    nested_search(o, "ou=mid,dc=y", ACRE_SCOPE_SUB,
                  "ou=sub,ou=mid,dc=y ou=s1,ou=sub,ou=mid,dc=y ou=mid,dc=y "
                  "ou=m1,ou=mid,dc=y");
    nested_search(o, "ou=mid,dc=y", ACRE_SCOPE_ONE,
                  "ou=sub,ou=mid,dc=y ou=m1,ou=mid,dc=y");
    nested_search(o, "ou=mid,dc=y", ACRE_SCOPE_CHILDREN, "ou=m1,ou=mid,dc=y");
    nested_search(o, "ou=sub,ou=mid,dc=y", ACRE_SCOPE_SUB,
                  "ou=sub,ou=mid,dc=y ou=s1,ou=sub,ou=mid,dc=y");
}

Test(openldap_oracle, search_filter_and_values)
{
    rules(NULL, "access to attrs=title by * none\n"
                "access to dn.base=" BOB " attrs=entry by * search\n"
                "access to attrs=sn val=A by * search\n"
                "access to * by * read");
    /* an item without search access is Undefined, and NOT keeps it */
    struct acreR_search *r =
        search(NULL, "ou=people,dc=x", ACRE_SCOPE_SUB, "(!(title=x))", NULL, 0);
    cr_expect_eq(r->rc, 0);
    cr_expect_eq(r->nentries, 0);
    r = search(NULL, "ou=people,dc=x", ACRE_SCOPE_SUB, "(|(title=boss)(cn=b*))",
               NULL, 0);
    cr_assert_eq(r->nentries, 0); /* bob: no read on entry; alice: no title */
    r = search(NULL, "ou=people,dc=x", ACRE_SCOPE_ONE, "(sn=*)", NULL, 0);
    cr_assert_eq(r->nentries, 1); /* bob's entry is not readable */
    const struct acreR_sentry *a = &r->entries[0];
    cr_expect_str_eq(acre_dn_normalised(a->entry->dn, NULL), ALICE);
    for (unsigned i = 0; i < a->nattrs; i++) {
        const char *name =
            acreS_attr(schema, acreS_dinfo(schema, a->attrs[i].attr->id)->type)
                ->dn.name;
        cr_expect(strcmp(name, "title") != 0, "title returned");
        cr_expect(strcmp(name, "sn") != 0, "sn returned"); /* search only */
    }
}

Test(openldap_oracle, search_attribute_lists)
{
    rules(NULL, "access to * by * read");
    static const char *const star[] = {"*"}, *const plus[] = {"+"},
                             *const name[] = {"name"}, *const none[] = {"1.1"},
                             *const lang[] = {"cn;lang-fr"};
    struct acreR_search *r =
        search(NULL, ALICE, ACRE_SCOPE_BASE, "(objectClass=*)", star, 1);
    /* all but the structuralObjectClass the load added */
    cr_expect_eq(r->entries[0].nattrs, entry(ALICE)->nattrs - 1);
    r = search(NULL, ALICE, ACRE_SCOPE_BASE, "(objectClass=*)", plus, 1);
    cr_expect_eq(r->entries[0].nattrs, 1);
    r = search(NULL, ALICE, ACRE_SCOPE_BASE, "(objectClass=*)", name, 1);
    cr_expect_eq(r->entries[0].nattrs, 4); /* cn, cn;lang-fr, sn, title */
    r = search(NULL, ALICE, ACRE_SCOPE_BASE, "(objectClass=*)", lang, 1);
    cr_expect_eq(r->entries[0].nattrs, 1);
    r = search(NULL, ALICE, ACRE_SCOPE_BASE, "(objectClass=*)", none, 1);
    cr_expect_eq(r->nentries, 1);
    cr_expect_eq(r->entries[0].nattrs, 0); /* the DN alone */
}

/* slapd's language ranges (is_ad_subtags): "lang-fr-" covers lang-fr
 * itself, "lang-" every tag; in attrs= lists and in requested attributes
 * (goldens acl-attrs-lang-range, search-attrs-lang-range). */
Test(openldap_oracle, language_ranges)
{
    rules(NULL, "access to attrs=cn;lang-fr- by * compare\n"
                "access to attrs=name;lang- by * search\n"
                "access to * by * read");
    check(NULL, ALICE, "cn;lang-fr", NULL, R, 0, "compare(=cxd)");
    check(NULL, ALICE, "cn", NULL, R, 1, "read(=rscxd)");
    rules(NULL, "access to attrs=cn;lang-f- by * none\n"
                "access to attrs=-cn;lang-fr by * search\n"
                "access to * by * read");
    check(NULL, ALICE, "cn;lang-fr", NULL, R, 0, "search(=scxd)");
    rules(NULL, "access to * by * read");
    static const char *const any[] = {"cn;lang-"},
                             *const fr[] = {"name;LANG-FR-"},
                             *const de[] = {"cn;lang-de-"};
    struct acreR_search *r =
        search(NULL, ALICE, ACRE_SCOPE_BASE, "(objectClass=*)", any, 1);
    cr_expect_eq(r->entries[0].nattrs, 1);
    r = search(NULL, ALICE, ACRE_SCOPE_BASE, "(objectClass=*)", fr, 1);
    cr_expect_eq(r->entries[0].nattrs, 1);
    r = search(NULL, ALICE, ACRE_SCOPE_BASE, "(objectClass=*)", de, 1);
    cr_expect_eq(r->entries[0].nattrs, 0);
}

Test(openldap_oracle, slapacl_output)
{
    rules(NULL, "access to attrs=userPassword by self =wx by anonymous auth\n"
                "access to * by * =rsc");
    struct acreR_requester rq = {0};
    struct acreR_oracle *o;
    cr_assert_eq(acreR_oracle_new(ctx, cfg, dir, &rq, &o), 0);
    char *out = acreR_oracle_slapacl(o, ctx, entry(BOB));
    /* attributes come in the entry's order (LDIF order, as slapd's) */
    cr_expect_str_eq(out, "entry: =rsc\n"
                          "children: =rsc\n"
                          "objectClass=inetOrgPerson: =rsc\n"
                          "cn=bob: =rsc\n"
                          "sn=B: =rsc\n"
                          "uid=bob: =rsc\n"
                          "manager=cn=alice,ou=people,dc=x: =rsc\n"
                          "description=bobs: =rsc\n"
                          "structuralObjectClass=inetOrgPerson: =rsc\n");
    out = acreR_oracle_slapacl(o, ctx, entry(ALICE));
    cr_expect(strstr(out, "userPassword=****: auth(=xd)\n"), "%s", out);
    cr_expect(strstr(out, "cn;lang-fr=alicia: =rsc\n"), "%s", out);
}

/* ------------------------------------------------------------------------
 * The state slapd carries over the values of one attribute
 */

/* Each value of staff's `attr` in order, with one state: the answers as
 * a string of 0/1. */
static const char *
seq(const char *who, const char *attr)
{
    struct acreR_requester rq = {0};
    struct acreR_oracle *o;
    struct acreR_astate st = {0};
    struct acreS_desc want;
    const acre_entry_view *e = entry("cn=staff,ou=groups,dc=x");
    char *out = talloc_strdup(ctx, "");

    rq.authz_dn = who;
    cr_assert_eq(acreR_oracle_new(ctx, cfg, dir, &rq, &o), 0);
    cr_assert_eq(acreS_desc_parse(schema, attr, strlen(attr), &want), 0);
    for (uint32_t i = 0; i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        if (acreS_dinfo(schema, a->id)->type != want.type)
            continue;
        for (uint32_t j = 0; j < a->nvals; j++) {
            struct acreR_target t;
            acreR_target_attr(&t, schema, e, a, (int)j);
            out = talloc_asprintf_append(
                out, "%d", acreR_oracle_check_seq(o, &t, R, NULL, NULL, &st));
        }
    }
    talloc_free(o);
    return out;
}

/* Checked by hand on slapd 2.5.13 (tests/golden/search-value-state): a
 * database rule with a value condition, or a clause with "self" access,
 * reached while a value goes on past the frontend's first rule, keeps the
 * later values from the frontend's rules; at the frontend's first rule
 * they are not kept from it. */
Test(openldap_oracle, value_state_keeps_later_values_from_the_frontend)
{
    rules("access to attrs=objectClass by * read\n"
          "access to * by users read",
          "access to attrs=member val=\"cn=nobody,dc=x\" by * none\n"
          "access to attrs=objectClass val=\"nobody\" by * none");
    cr_expect_str_eq(seq(ALICE, "member"), "10");
    cr_expect_str_eq(seq(ALICE, "objectClass"), "1");
    /* each value alone, as a compare would ask: granted */
    check(ALICE, "cn=staff,ou=groups,dc=x", "member",
          "cn=admins,ou=groups,dc=x", R, 1, NULL);
    rules("access to attrs=objectClass by * read\n"
          "access to * by users read",
          "access to attrs=member by users selfwrite by * break");
    cr_expect_str_eq(seq(BOB, "member"), "10");
    /* Alice's own DN, the first value, is hers to write: decided there */
    cr_expect_str_eq(seq(ALICE, "member"), "11");
    /* decided by the frontend's first rule: every value */
    rules("access to * by users read",
          "access to attrs=member val=\"cn=nobody,dc=x\" by * none");
    cr_expect_str_eq(seq(ALICE, "member"), "11");
    /* decided by the database's rules: every value */
    rules(NULL, "access to attrs=member val=\"cn=nobody,dc=x\" by * none\n"
                "access to * by users read");
    cr_expect_str_eq(seq(ALICE, "member"), "11");
}
