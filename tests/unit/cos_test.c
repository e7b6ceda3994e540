/*
 * cos_test.c -- 389's Class of Service (ACRE_REQ_COS, engine/cos.c)
 * through the host interface: what pointer, classic and indirect
 * definitions give an entry (acre_entry_cos), with templates' priorities
 * and default templates, the override, operational and merge-schemes
 * qualifiers, target trees and 389's schema check, and what search
 * filters see; a host whose search fails fails closed.  The expectations
 * follow 389-ds-base's cos plugin (cos_cache.c: cos_cache_query_attr) as
 * the aci-suite's recorded case-av_cos_* cases hold it to 389-DS 2.3.1.
 */
#include "acre.h"
#include "test_host.h"

#include <criterion/criterion.h>
#include <string.h>
#include <talloc.h>

#define SUFFIX "dc=example,dc=com"
#define PEOPLE "ou=people," SUFFIX
#define OTHER  "ou=other," SUFFIX
#define TMPLS  "cn=tmpls," PEOPLE
#define ANN    "uid=ann," PEOPLE
#define BOB    "uid=bob," PEOPLE
#define CARL   "uid=carl," PEOPLE
#define DAN    "uid=dan," OTHER
#define EVE    "uid=eve," PEOPLE

#define DEF(dn, kind, extra)                                    \
    "dn: " dn "\nobjectClass: top\nobjectClass: LDAPsubentry\n" \
    "objectClass: cosSuperDefinition\nobjectClass: " kind "\n" extra "\n"
#define TMPL(dn, extra)                                        \
    "dn: " dn "\nobjectClass: top\nobjectClass: cosTemplate\n" \
    "objectClass: extensibleObject\n" extra "\n"
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
    "dn: " TMPLS "\nobjectClass: nsContainer\ncn: tmpls\n\n"
    /* pointer: every entry below ou=people gets street (default: not
     * where it stores one) and postalCode (override) */
    TMPL("cn=ptr," PEOPLE, "street: Main 1\npostalCode: 0150\n")
    DEF("cn=ptrdef," PEOPLE, "cosPointerDefinition",
        "cosTemplateDn: cn=ptr," PEOPLE "\ncosAttribute: street\n"
        "cosAttribute: postalCode override\n")
    /* classic on employeeType: the grade is the template's RDN value;
     * a default template; two templates of one grade by priority */
    TMPL("cn=staff," TMPLS, "roomNumber: 101\ncosPriority: 5\n")
    TMPL("cn=Staff2," TMPLS, "roomNumber: 102\ncosPriority: 1\n")
    TMPL("cn=employeeType-default," TMPLS, "roomNumber: 999\n")
    TMPL("cn=temp," TMPLS, "roomNumber: 300\n")
    DEF("cn=classic," PEOPLE, "cosClassicDefinition",
        "cosTemplateDn: " TMPLS "\ncosSpecifier: employeeType\n"
        "cosAttribute: roomNumber\n")
    /* (the Staff2 template's grade is Staff2: eve's STAFF2 takes it) */
    /* indirect through manager: carLicense of the manager, operational */
    DEF("cn=ind," PEOPLE, "cosIndirectDefinition",
        "cosIndirectSpecifier: manager\ncosAttribute: carlicense operational\n")
    /* a definition at ou=other: its tree is ou=other only */
    TMPL("cn=optr," OTHER, "businessCategory: other\n")
    DEF("cn=odef," OTHER, "cosPointerDefinition",
        "cosTemplateDn: cn=optr," OTHER "\ncosAttribute: businessCategory\n")
    /* a cosTargetTree written with spaces: 389 compares it as written
     * with the entries' normalised DNs, so it takes no entry */
    TMPL("cn=sptr," OTHER, "title: spaced\n")
    DEF("cn=sdef," OTHER, "cosPointerDefinition\nobjectClass: extensibleObject",
        "cosTemplateDn: cn=sptr," OTHER "\ncosTargetTree: ou=people, "
        "dc=example, dc=com\ncosAttribute: title\n")
    /* a definition supplying its own specifier is dropped */
    DEF("cn=self," PEOPLE, "cosClassicDefinition",
        "cosTemplateDn: " TMPLS "\ncosSpecifier: roomNumber\n"
        "cosAttribute: roomNumber\n")
    PERSON(ANN, "ann", "employeeType: staff\nmanager: " BOB "\n"
           "postalCode: 9999\n")
    PERSON(BOB, "bob", "employeeType: temp\nstreet: Own 7\n"
           "carLicense: BOB-1\ncarLicense: BOB-2\n")
    PERSON(CARL, "carl", "employeeType: intern\nmanager: cn=nobody," SUFFIX
           "\n")
    PERSON(DAN, "dan", "employeeType: staff\n")
    /* an organizationalUnit allows street and postalCode, not roomNumber
     * (389's schema check), which its default template would give */
    "dn: ou=unit," PEOPLE "\nobjectClass: organizationalUnit\nou: unit\n\n"
    PERSON(EVE, "eve", "employeeType: STAFF2\nmanager: " ANN "\n");
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
    host = thost_new(ctx, dir, 7, THOST_COPY | THOST_NO_NORMS);
}

static void
teardown(void)
{
    cr_expect_eq(thost_outstanding(host), 0, "views not released");
    acre_policy_release(pol);
    talloc_free(ctx);
}

TestSuite(cos, .init = setup, .fini = teardown);

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

/* What CoS gives dn for attribute name: "-" for nothing, else the values
 * joined by "|", with " (op)" when operational. */
static char *
given(acre_request *rq, const char *dn, const char *name)
{
    const acre_value *v;
    uint32_t n;
    int op = -1;
    int rc = acre_entry_cos(rq, view(dn), name, &v, &n, &op);

    cr_assert_geq(rc, 0, "%s %s: %d", dn, name, rc);
    if (!rc)
        return talloc_strdup(ctx, "-");
    char *out = talloc_strdup(ctx, "");
    for (uint32_t j = 0; j < n; j++)
        out = talloc_asprintf_append(out, "%s%.*s", j ? "|" : "", (int)v[j].len,
                                     (const char *)v[j].val);
    return op ? talloc_asprintf_append(out, " (op)") : out;
}

Test(cos, pointer_definitions_default_and_override)
{
    acre_request *rq = begin(ACRE_REQ_COS);

    cr_expect_str_eq(given(rq, ANN, "street"), "Main 1");
    /* bob stores a street: a default definition gives none */
    cr_expect_str_eq(given(rq, BOB, "street"), "-");
    /* override: ann's own postalCode is replaced */
    cr_expect_str_eq(given(rq, ANN, "postalCode"), "0150");
    cr_expect_str_eq(given(rq, BOB, "postalCode"), "0150");
    /* outside the definition's parent's subtree */
    cr_expect_str_eq(given(rq, DAN, "street"), "-");
    cr_expect_str_eq(given(rq, DAN, "businessCategory"), "other");
    cr_expect_str_eq(given(rq, ANN, "businessCategory"), "-");
    /* the spaced cosTargetTree takes nobody */
    cr_expect_str_eq(given(rq, ANN, "title"), "-");
    cr_expect_str_eq(given(rq, DAN, "title"), "-");
    acre_request_end(rq);
}

Test(cos, classic_grades_priorities_and_default_template)
{
    acre_request *rq = begin(ACRE_REQ_COS);

    cr_expect_str_eq(given(rq, ANN, "roomNumber"), "101");
    cr_expect_str_eq(given(rq, BOB, "roomNumber"), "300");
    /* the grade is compared without case */
    cr_expect_str_eq(given(rq, EVE, "roomNumber"), "102");
    /* no template of grade intern: the default template */
    cr_expect_str_eq(given(rq, CARL, "roomNumber"), "999");
    /* organizationalUnit allows no roomNumber */
    cr_expect_str_eq(given(rq, "ou=unit," PEOPLE, "roomNumber"), "-");
    cr_expect_str_eq(given(rq, "ou=unit," PEOPLE, "street"), "Main 1");
    acre_request_end(rq);
}

Test(cos, indirect_follows_the_pointer)
{
    acre_request *rq = begin(ACRE_REQ_COS);

    /* the pointed entry's values as it stores them */
    cr_expect_str_eq(given(rq, ANN, "carLicense"), "BOB-1|BOB-2 (op)");
    /* eve's manager ann stores no carLicense: CoS gives ann bob's, and
     * the pointer reads ann's as 389's virtual attribute service does */
    cr_expect_str_eq(given(rq, EVE, "carLicense"), "BOB-1|BOB-2 (op)");
    /* a manager that does not exist, no manager */
    cr_expect_str_eq(given(rq, CARL, "carLicense"), "-");
    cr_expect_str_eq(given(rq, BOB, "carLicense"), "-");
    acre_request_end(rq);
}

Test(cos, none_without_the_flag)
{
    acre_request *rq = begin(0);
    const char *const *names;
    uint32_t n;

    cr_expect_str_eq(given(rq, ANN, "street"), "-");
    cr_expect_eq(acre_entry_cos_names(rq, &names, &n), 0);
    cr_expect_eq(n, 0);
    acre_request_end(rq);
}

Test(cos, names_in_389s_order)
{
    acre_request *rq = begin(ACRE_REQ_COS);
    const char *const *names;
    uint32_t n;
    char *all = talloc_strdup(ctx, "");

    cr_assert_eq(acre_entry_cos_names(rq, &names, &n), 0);
    for (uint32_t i = 0; i < n; i++)
        all = talloc_asprintf_append(all, "%s%s", i ? " " : "", names[i]);
    /* an indirect definition's type as its cosAttribute spells it */
    cr_expect_str_eq(all, "businessCategory carlicense postalCode roomNumber "
                          "street title");
    acre_request_end(rq);
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

Test(cos, filters_see_the_values_it_gives)
{
    static const struct {
        const char *filter, *want, *without;
    } c[] = {
        {"(street=main 1)", "ace", ""},
        {"(street=*)", "abce", "b"},
        {"(street=Own*)", "b", "b"},
        /* override: ann's own 9999 is not seen */
        {"(postalCode=9999)", "", "a"},
        {"(postalCode=0150)", "abce", ""},
        {"(roomNumber=999)", "c", ""},
        {"(carLicense=bob-2)", "abe", "b"},
        {"(businessCategory=other)", "d", ""},
        {"(!(roomNumber=*))", "d", "abcde"},
    };

    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        acre_request *rq = begin(ACRE_REQ_COS);
        cr_expect_str_eq(who(rq, c[i].filter), c[i].want, "%s", c[i].filter);
        acre_request_end(rq);
        rq = begin(0);
        cr_expect_str_eq(who(rq, c[i].filter), c[i].without, "%s without",
                         c[i].filter);
        acre_request_end(rq);
    }
}

Test(cos, a_failed_search_fails_closed)
{
    acre_request *rq = begin(ACRE_REQ_COS);
    const acre_value *v;
    uint32_t n;

    thost_fail_after(host, 1);
    cr_expect_lt(acre_entry_cos(rq, view(ANN), "street", &v, &n, NULL), 0);
    thost_fail_after(host, 0);
    acre_request_end(rq);
}
