/*
 * nsrole_test.c -- 389's virtual nsRole (ACRE_REQ_NSROLE,
 * engine/memberof.c) through the host interface: the roles an entry holds
 * (managed, filtered, nested; only below the role's parent), as values
 * and as search filters see them.  The expectations are what
 * 389-ds-base 2.3.1 answered on the same entries (anonymous, everything
 * readable): values are the roles' normalised DNs in their order; =
 * compares as DNs; substrings and ~= compare the values; an entry that
 * stores nsRole keeps its own; nested definitions that cycle end; a host
 * without search fails closed.
 */
#include "acre.h"
#include "test_host.h"

#include <criterion/criterion.h>
#include <string.h>
#include <talloc.h>

#define SUFFIX "dc=example,dc=com"
#define PEOPLE "ou=people," SUFFIX
#define OTHER  "ou=other," SUFFIX
#define ANN    "uid=ann," PEOPLE
#define BOB    "uid=bob," PEOPLE
#define CARL   "uid=carl," OTHER
#define DAN    "uid=dan," OTHER
#define EVE    "uid=eve," OTHER
#define MGR    "cn=mgr," SUFFIX
#define NEST   "cn=nest," SUFFIX
#define OSLO   "cn=oslo," PEOPLE

#define ROLE(dn, cn, kind, extra)                                              \
    "dn: " dn "\nobjectClass: top\nobjectClass: LDAPsubentry\n"                \
    "objectClass: nsRoleDefinition\nobjectClass: " kind "\ncn: " cn "\n" extra \
    "\n"
#define PERSON(dn, uid, extra)                                            \
    "dn: " dn "\nobjectClass: inetOrgPerson\nuid: " uid "\ncn: " uid "\n" \
    "sn: " uid "\n" extra "\n"

/* clang-format off */
static const char ldif[] =
    "dn: " SUFFIX "\nobjectClass: domain\ndc: example\n"
    "aci: (targetattr=\"*\")(version 3.0; acl \"all\"; allow "
    "(read,search,compare) userdn=\"ldap:///anyone\";)\n\n"
    "dn: " PEOPLE "\nobjectClass: organizationalUnit\nou: people\n\n"
    "dn: " OTHER "\nobjectClass: organizationalUnit\nou: other\n\n"
    ROLE("cn=Mgr,dc=Example,dc=com", "Mgr", "nsManagedRoleDefinition", "")
    ROLE("cn=Oslo," PEOPLE, "Oslo", "nsFilteredRoleDefinition",
         "nsRoleFilter: (l=Oslo)\n")
    ROLE("cn=Nest," SUFFIX, "Nest", "nsNestedRoleDefinition",
         "nsRoleDN: " MGR "\nnsRoleDN: " OSLO "\n")
    /* nested under ou=people, reaching through nsRoleScopeDN: the
     * parent of cn=x,ou=other (ou=other), the parent of ou=other (the
     * suffix), or nothing of another suffix (ou=people, its own) */
    ROLE("cn=N2," PEOPLE, "N2", "nsNestedRoleDefinition",
         "nsRoleDN: " MGR "\nnsRoleScopeDN: cn=x," OTHER "\n")
    ROLE("cn=N3," PEOPLE, "N3", "nsNestedRoleDefinition",
         "nsRoleDN: " MGR "\nnsRoleScopeDN: " OTHER "\n")
    ROLE("cn=N4," PEOPLE, "N4", "nsNestedRoleDefinition",
         "nsRoleDN: " MGR "\nnsRoleScopeDN: dc=other,dc=org\n")
    /* nsRoleDN with an option is not nsRoleDN to a role (nor to roledn):
     * nobody holds Multi */
    ROLE("cn=Multi," OTHER, "Multi", "nsNestedRoleDefinition",
         "nsRoleDN: cn=nobody," SUFFIX "\nnsRoleDN: cn=ping," SUFFIX
         "\nnsRoleDN: cn=pong," SUFFIX "\nnsRoleDN;lang-en: " MGR "\n")
    /* two nested roles naming each other */
    ROLE("cn=ping," SUFFIX, "ping", "nsNestedRoleDefinition",
         "nsRoleDN: cn=pong," SUFFIX "\n")
    ROLE("cn=pong," SUFFIX, "pong", "nsNestedRoleDefinition",
         "nsRoleDN: cn=ping," SUFFIX "\n")
    PERSON(ANN, "ann", "l: Oslo\nnsRoleDN: CN=MGR, dc=example,dc=com\n")
    PERSON(BOB, "bob", "l: Oslo\n")
    /* below the suffix but not ou=people: Oslo does not reach him */
    PERSON(CARL, "carl", "l: Oslo\nnsRoleDN: " MGR "\n")
    PERSON(DAN, "dan", "")
    /* stores nsRole: his own values are the ones */
    PERSON(EVE, "eve", "nsRoleDN: " MGR "\nnsRole: cn=stored," SUFFIX "\n");
/* clang-format on */

static void *ctx;
static acre_directory *dir;
static acre_policy *pol;
static struct thost *host;

static void
setup(void)
{
    acre_source src = {ACRE_DIALECT_ACI, "t.ldif", ldif, strlen(ldif)};
    acre_diag d = {0};

    ctx = talloc_new(NULL);
    cr_assert_eq(acre_policy_compile(NULL, NULL, &src, 1, 0, &pol, &d), 0,
                 "%s:%u:%u %s", d.file, d.line, d.column, d.message);
    cr_assert_eq(acre_directory_load(ctx, acre_policy_schema(pol), "t.ldif",
                                     ldif, strlen(ldif), &dir, &d),
                 0, "%u:%u %s", d.line, d.column, d.message);
    host = thost_new(ctx, dir, 11, THOST_COPY | THOST_NO_NORMS);
}

static void
teardown(void)
{
    cr_expect_eq(thost_outstanding(host), 0, "views not released");
    acre_policy_release(pol);
    talloc_free(ctx);
}

TestSuite(nsrole, .init = setup, .fini = teardown);

static acre_request *
begin(unsigned flags)
{
    acre_request *rq;

    cr_assert_eq(acre_request_begin(pol, NULL, thost_host(host), &rq), 0);
    acre_request_set_flags(rq, flags);
    return rq;
}

static const acre_entry_view *
view(const char *text)
{
    acre_dn *d;

    cr_assert_eq(acre_dn_parse(ctx, acre_policy_schema(pol), text, strlen(text),
                               0, &d, NULL),
                 0);
    const acre_entry_view *v = thost_view(host, d);
    cr_assert_not_null(v, "no entry %s", text);
    return v;
}

/* acre_entry_nsrole's values of dn, joined by "|". */
static char *
roles(acre_request *rq, const char *dn)
{
    const acre_value *v;
    uint32_t n;
    char *out = talloc_strdup(ctx, "");

    cr_assert_eq(acre_entry_nsrole(rq, view(dn), &v, &n), 0, "%s", dn);
    for (uint32_t j = 0; j < n; j++)
        out = talloc_asprintf_append(out, "%s%.*s", j ? "|" : "", (int)v[j].len,
                                     (const char *)v[j].val);
    return out;
}

/* The people the filter matches, as initials ("abc"). */
static char *
who(acre_request *rq, const char *filter)
{
    static const char *const dns[] = {ANN, BOB, CARL, DAN, EVE};
    const acre_schema *s = acre_policy_schema(pol);
    char *out = talloc_strdup(ctx, "");
    acre_filter *f;

    cr_assert_eq(acre_filter_parse(ctx, s, filter, strlen(filter), &f, NULL), 0,
                 "%s", filter);
    for (unsigned i = 0; i < 5; i++) {
        int r = acre_filter_match(rq, f, view(dns[i]));
        cr_assert_geq(r, 0, "%s on %s: %d", filter, dns[i], r);
        if (r)
            out = talloc_asprintf_append(out, "%c", "abcde"[i]);
    }
    acre_filter_free(f);
    return out;
}

Test(nsrole, values_are_the_roles_held_in_their_order)
{
    acre_request *rq = begin(ACRE_REQ_NSROLE);

    /* managed (nsRoleDN compared as a DN), filtered, nested in both */
    cr_expect_str_eq(roles(rq, ANN),
                     MGR "|cn=n3," PEOPLE "|cn=n4," PEOPLE "|" NEST "|" OSLO);
    cr_expect_str_eq(roles(rq, BOB), NEST "|" OSLO);
    /* Oslo's parent is ou=people: carl is out of its reach, but not of
     * N2's and N3's scopes */
    cr_expect_str_eq(roles(rq, CARL),
                     MGR "|cn=n2," PEOPLE "|cn=n3," PEOPLE "|" NEST);
    cr_expect_str_eq(roles(rq, DAN), "");
    /* eve stores nsRole: nothing computed */
    cr_expect_str_eq(roles(rq, EVE), "");
    /* a nested definition names Mgr in its nsRoleDN: it holds Mgr, and
     * the roles nesting Mgr whose scope reaches it */
    cr_expect_str_eq(roles(rq, "cn=Nest," SUFFIX),
                     MGR "|cn=n3," PEOPLE "|" NEST);
    acre_request_end(rq);
}

Test(nsrole, filters_see_it_as_389_does)
{
    static const struct {
        const char *filter, *want;
    } c[] = {
        {"(nsRole=" MGR ")", "ac"},
        {"(nsRole=CN=Nest,DC=example,DC=com)", "abc"},
        {"(nsRole=" OSLO ")", "ab"},
        {"(nsRole=cn=nobody," SUFFIX ")", ""},
        {"(nsRole=*)", "abce"},
        {"(!(nsRole=*))", "d"},
        {"(nsRole=*nest*)", "abc"},
        {"(nsRole~=" MGR ")", "ac"},
        /* no order for DNs: UNDEFINED where there are values */
        {"(nsRole>=a)", ""},
        {"(!(nsRole>=a))", "d"},
        /* eve's stored value decides */
        {"(nsRole=cn=stored," SUFFIX ")", "e"},
        /* the cycle ends: nobody holds ping or pong */
        {"(|(nsRole=cn=ping," SUFFIX ")(nsRole=cn=pong," SUFFIX "))", ""},
    };

    acre_request *rq = begin(ACRE_REQ_NSROLE);

    for (size_t i = 0; i < sizeof c / sizeof *c; i++)
        cr_expect_str_eq(who(rq, c[i].filter), c[i].want, "%s", c[i].filter);
    acre_request_end(rq);
}

Test(nsrole, off_without_the_flag)
{
    acre_request *rq = begin(0);

    cr_expect_str_eq(roles(rq, ANN), "");
    cr_expect_str_eq(who(rq, "(nsRole=*)"), "e");
    cr_expect_str_eq(who(rq, "(nsRole=" MGR ")"), "");
    acre_request_end(rq);
}

Test(nsrole, a_failed_lookup_fails_closed)
{
    acre_request *rq = begin(ACRE_REQ_NSROLE);
    const acre_value *v;
    uint32_t n = 7;

    thost_fail_after(host, 1);
    cr_expect_eq(acre_entry_nsrole(rq, view(ANN), &v, &n), ACRE_ERR_LOOKUP);
    cr_expect_eq(n, 0);
    acre_request_end(rq);
}

/* The roles come from every naming context of the host (389's roles
 * plugin reads every suffix), not only from where the policy's ACIs sit:
 * a policy with none, or with one below the role definitions, sees the
 * same roles. */
Test(nsrole, found_wherever_the_acis_sit)
{
    static const char *const texts[] = {
        "dn: " SUFFIX "\nobjectClass: domain\ndc: example\n",
        "dn: " OTHER "\naci: (targetattr=\"*\")(version 3.0; acl \"o\"; allow "
        "(read) userdn=\"ldap:///anyone\";)\n",
    };

    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++) {
        acre_source src = {ACRE_DIALECT_ACI, "p.ldif", texts[i],
                           strlen(texts[i])};
        acre_policy *p;
        acre_request *rq;
        acre_diag d = {0};

        cr_assert_eq(acre_policy_compile(NULL,
                                         (acre_schema *)acre_policy_schema(pol),
                                         &src, 1, 0, &p, &d),
                     0, "%s", d.message);
        cr_assert_eq(acre_request_begin(p, NULL, thost_host(host), &rq), 0);
        acre_request_set_flags(rq, ACRE_REQ_NSROLE);
        cr_expect_str_eq(roles(rq, ANN),
                         MGR "|cn=n3," PEOPLE "|cn=n4," PEOPLE "|" NEST
                             "|" OSLO,
                         "policy %zu", i);
        cr_expect_str_eq(roles(rq, DAN), "", "policy %zu", i);
        acre_request_end(rq);
        acre_policy_release(p);
    }
}
