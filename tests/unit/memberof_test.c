/*
 * memberof_test.c -- OpenDJ's virtual isMemberOf (ACRE_REQ_ISMEMBEROF,
 * engine/memberof.c) through the host interface: search filters, filter=
 * rules and specificationFilter refinements see the groups an entry is in
 * (static, nested, cycle-safe, dynamic), only equality and presence
 * work, stored values win, a failed lookup fails closed, and the group
 * index is built once per host generation.  And 389's and slapd's memberOf
 * where the data does not store it (ACRE_REQ_MEMBEROF): the same from
 * static groups only.
 */
#include "acre.h"
#include "alloc_hook.h"
#include "test_host.h"

#include <criterion/criterion.h>
#include <string.h>
#include <talloc.h>

#define SUFFIX "dc=example,dc=com"
#define PEOPLE "ou=people," SUFFIX
#define GROUPS "ou=groups," SUFFIX
#define ALICE  "cn=alice," PEOPLE
#define BOB    "cn=bob," PEOPLE
#define CAROL  "cn=carol," PEOPLE
#define DAVE   "cn=dave," PEOPLE
#define ERIN   "cn=erin," PEOPLE
#define ADMINS "cn=admins," GROUPS
#define STAFF  "cn=staff," GROUPS
#define DYN    "cn=dyn," GROUPS
#define RING   "cn=ring," GROUPS
#define LOOP   "cn=loop," GROUPS
#define VIRT   "cn=virt," GROUPS

static void *ctx;
static acre_schema *schema;
static acre_directory *dir;
static struct thost *host;

#define PERSON(dn, cn, extra)                                                \
    "dn: " dn "\nobjectClass: inetOrgPerson\ncn: " cn "\nsn: " cn "\n" extra \
    "\n"

/* clang-format off */
static const char ldif[] =
    "dn: " SUFFIX "\nobjectClass: dcObject\nobjectClass: organization\n"
    "dc: example\no: Example\n\n"
    "dn: " PEOPLE "\nobjectClass: organizationalUnit\nou: people\n\n"
    PERSON(ALICE, "alice", "")
    PERSON(BOB, "bob", "title: contractor\n")
    PERSON(CAROL, "carol", "")
    PERSON(DAVE, "dave", "isMemberOf: cn=stored," GROUPS "\n")
    PERSON(ERIN, "erin", "memberOf: cn=stored," GROUPS "\n")
    "dn: " GROUPS "\nobjectClass: organizationalUnit\nou: groups\n\n"
    "dn: " ADMINS "\nobjectClass: groupOfNames\ncn: admins\n"
    "member: " ALICE "\n\n"
    "dn: " STAFF "\nobjectClass: groupOfUniqueNames\ncn: staff\n"
    "uniqueMember: " ADMINS "\nuniqueMember: " DYN "\n\n"
    "dn: " DYN "\nobjectClass: groupOfURLs\ncn: dyn\n"
    "memberURL: ldap:///" PEOPLE "??one?(title=contractor)\n\n"
    "dn: " RING "\nobjectClass: groupOfNames\ncn: ring\n"
    "member: " LOOP "\nmember: " CAROL "\n\n"
    "dn: " LOOP "\nobjectClass: groupOfNames\ncn: loop\n"
    "member: " RING "\n\n"
    /* a virtual static group: no group either */
    "dn: " VIRT "\nobjectClass: groupOfNames\n"
    "objectClass: ds-virtual-static-group\ncn: virt\n"
    "member: " ERIN "\n";

/* clang-format on */

static void
setup(void)
{
    static const char ds_virtual[] =
        "objectclass ( 1.3.6.1.4.1.26027.1.2.3 NAME 'ds-virtual-static-group' "
        "SUP top AUXILIARY )\n";
    acre_diag d = {0};

    ctx = talloc_new(NULL);
    cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &schema, NULL), 0);
    cr_assert_eq(acre_schema_load_buffer(schema, "t.schema", ds_virtual,
                                         strlen(ds_virtual), &d),
                 0, "%s", d.message);
    cr_assert_eq(acre_directory_load(ctx, schema, "t.ldif", ldif, strlen(ldif),
                                     &dir, &d),
                 0, "%u:%u %s", d.line, d.column, d.message);
    host = thost_new(ctx, dir, 7, THOST_COPY | THOST_NO_NORMS);
}

static void
teardown(void)
{
    cr_expect_eq(thost_outstanding(host), 0, "views not released");
    talloc_free(ctx);
}

TestSuite(memberof, .init = setup, .fini = teardown);

static acre_policy *
policy(const char *rules)
{
    char *text = talloc_asprintf(ctx,
                                 "database mdb\nsuffix \"" SUFFIX "\"\n"
                                 "rootdn \"cn=manager," SUFFIX "\"\n%s",
                                 rules);
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "t.conf", text, strlen(text)};
    acre_policy *p = NULL;
    acre_diag d = {0};

    cr_assert_eq(acre_policy_compile(NULL, schema, &src, 1, 0, &p, &d), 0,
                 "%s:%u:%u %s", d.file, d.line, d.column, d.message);
    return p;
}

static acre_request *
begin(acre_policy *p, unsigned flags)
{
    acre_request *rq;

    cr_assert_eq(acre_request_begin(p, NULL, thost_host(host), &rq), 0);
    acre_request_set_flags(rq, flags);
    return rq;
}

static const acre_entry_view *
view(const char *text)
{
    acre_dn *d;

    cr_assert_eq(acre_dn_parse(ctx, schema, text, strlen(text), 0, &d, NULL),
                 0);
    const acre_entry_view *v = thost_view(host, d);
    cr_assert_not_null(v, "no entry %s", text);
    return v;
}

/* acre_filter_match of filter text on entry dn. */
static int
match(acre_request *rq, const char *filter, const char *dn)
{
    acre_filter *f;

    cr_assert_eq(
        acre_filter_parse(ctx, schema, filter, strlen(filter), &f, NULL), 0,
        "%s", filter);
    int r = acre_filter_match(rq, f, view(dn));
    acre_filter_free(f);
    return r;
}

/* The entries of PEOPLE the filter matches, as initials ("abc"). */
static char *
who(acre_request *rq, const char *filter)
{
    static const char *const dns[] = {ALICE, BOB, CAROL, DAVE, ERIN};
    char *out = talloc_strdup(ctx, "");

    for (unsigned i = 0; i < 5; i++) {
        int r = match(rq, filter, dns[i]);
        cr_assert_geq(r, 0, "%s on %s: %d", filter, dns[i], r);
        if (r)
            out = talloc_asprintf_append(out, "%c", "abcde"[i]);
    }
    return out;
}

/* Each filter of cases[] with the entries of PEOPLE it must match
 * (who), under request flags. */
struct who_case {
    const char *filter, *want;
};

static void
expect_who(unsigned flags, const struct who_case *cases, size_t n)
{
    acre_policy *p = policy("access to * by * read\n");
    acre_request *rq = begin(p, flags);

    for (size_t i = 0; i < n; i++)
        cr_expect_str_eq(who(rq, cases[i].filter), cases[i].want, "%s",
                         cases[i].filter);
    acre_request_end(rq);
    acre_policy_release(p);
}

Test(memberof, filters_see_static_nested_and_dynamic_groups)
{
    static const struct who_case cases[] = {
        {"(isMemberOf=" ADMINS ")", "a"},
        {"(isMemberOf=" DYN ")", "b"},
        /* staff lists admins (static) and dyn (dynamic): nesting */
        {"(isMemberOf=" STAFF ")", "ab"},
        /* ring and loop list each other: carol is in both, the walk ends */
        {"(isMemberOf=" RING ")", "c"},
        {"(isMemberOf=" LOOP ")", "c"},
        {"(isMemberOf=cn=Loop,OU=Groups," SUFFIX ")", "c"}, /* DN equality */
        /* erin is only in entries that are no groups */
        {"(isMemberOf=" VIRT ")", ""},
        {"(isMemberOf=*)", "abcd"},
        {"(!(isMemberOf=" STAFF "))", "cde"},
        /* dave stores isMemberOf: his stored values decide */
        {"(isMemberOf=cn=stored," GROUPS ")", "d"},
    };

    expect_who(ACRE_REQ_ISMEMBEROF, cases, sizeof cases / sizeof *cases);
}

/* acre_entry_ismemberof's (or acre_entry_memberof's) values of dn,
 * joined by "|". */
static char *
values_of(acre_request *rq, const char *dn, int memberof)
{
    const acre_value *v;
    uint32_t n;
    char *out = talloc_strdup(ctx, "");

    cr_assert_eq(memberof ? acre_entry_memberof(rq, view(dn), &v, &n)
                          : acre_entry_ismemberof(rq, view(dn), &v, &n),
                 0, "%s", dn);
    for (uint32_t j = 0; j < n; j++)
        out = talloc_asprintf_append(out, "%s%.*s", j ? "|" : "", (int)v[j].len,
                                     (const char *)v[j].val);
    return out;
}

#define values(rq, dn)  values_of(rq, dn, 0)
#define mvalues(rq, dn) values_of(rq, dn, 1)

Test(memberof, values_are_returned_as_the_groups_have_their_dns)
{
    acre_policy *p = policy("access to * by * read\n");
    acre_request *rq = begin(p, ACRE_REQ_ISMEMBEROF);

    /* in the order of the normalised DNs, as written in the groups */
    cr_expect_str_eq(values(rq, ALICE), ADMINS "|" STAFF);
    cr_expect_str_eq(values(rq, BOB), DYN "|" STAFF);
    cr_expect_str_eq(values(rq, CAROL), LOOP "|" RING);
    cr_expect_str_eq(values(rq, ERIN), "");
    /* dave stores isMemberOf: nothing computed, his own are returned */
    cr_expect_str_eq(values(rq, DAVE), "");
    acre_request_end(rq);
    rq = begin(p, 0);
    unsigned calls = thost_calls(host);
    cr_expect_str_eq(values(rq, ALICE), "");
    cr_expect_eq(thost_calls(host), calls, "no lookup without the flag");
    acre_request_end(rq);
    acre_policy_release(p);
}

/* An ACI policy has no database suffixes: the groups are found under
 * the topmost entries that hold its ACIs (a holder below another one,
 * and one holding no group, add nothing twice) */
Test(memberof, aci_policies_find_groups_under_the_entries_holding_acis)
{
    char *data = talloc_asprintf(
        ctx, "dn: " SUFFIX "\naci: (targetattr=\"*\")(version 3.0; acl \"r\"; "
             "allow (read, search) userdn=\"ldap:///anyone\";)\n\n"
             "dn: " PEOPLE "\naci: (targetattr=\"cn\")(version 3.0; acl \"c\"; "
             "allow (read) userdn=\"ldap:///anyone\";)\n\n"
             "dn: " GROUPS "\naci: (targetattr=\"cn\")(version 3.0; acl \"g\"; "
             "allow (read) userdn=\"ldap:///anyone\";)\n");
    acre_source src = {ACRE_DIALECT_ACI, "t.ldif", data, strlen(data)};
    acre_policy *p = NULL;
    acre_diag d = {0};

    cr_assert_eq(acre_policy_compile(NULL, schema, &src, 1, 0, &p, &d), 0,
                 "%s:%u:%u %s", d.file, d.line, d.column, d.message);
    acre_request *rq = begin(p, ACRE_REQ_ISMEMBEROF | ACRE_REQ_MEMBEROF);
    cr_expect_str_eq(values(rq, ALICE), ADMINS "|" STAFF);
    cr_expect_str_eq(values(rq, BOB), DYN "|" STAFF);
    cr_expect_str_eq(mvalues(rq, ALICE), ADMINS "|" STAFF);
    cr_expect_eq(match(rq, "(isMemberOf=" STAFF ")", BOB), 1);
    acre_request_end(rq);
    acre_policy_release(p);
}

Test(memberof, only_equality_and_presence_work)
{
    acre_policy *p = policy("access to * by * read\n");
    acre_request *rq = begin(p, ACRE_REQ_ISMEMBEROF);

    /* Undefined: neither the item nor its negation matches, but on
     * dave, whose stored value is compared */
    cr_expect_str_eq(who(rq, "(isMemberOf~=" ADMINS ")"), "");
    cr_expect_str_eq(who(rq, "(!(isMemberOf~=" ADMINS "))"), "d");
    cr_expect_str_eq(who(rq, "(isMemberOf:distinguishedNameMatch:=" ADMINS ")"),
                     "");
    cr_expect_str_eq(who(rq, "(|(isMemberOf~=" ADMINS ")(cn=alice))"), "a");
    acre_request_end(rq);
    acre_policy_release(p);
}

Test(memberof, off_by_default)
{
    acre_policy *p = policy("access to * by * read\n");
    acre_request *rq = begin(p, 0);

    cr_expect_str_eq(who(rq, "(isMemberOf=" ADMINS ")"), "");
    cr_expect_str_eq(who(rq, "(isMemberOf=*)"), "d");
    cr_expect_eq(thost_calls(host), 0, "no lookup without the flag");
    acre_request_end(rq);
    acre_policy_release(p);
}

/* A rule `access to filter=FILTER attrs=sn by * none`: of alice, bob
 * and carol, those whose sn it hides under request flags (as "abc"). */
static void
filter_rule(const char *filter, unsigned flags, const char *want)
{
    static const char *const dns[] = {ALICE, BOB, CAROL};
    char *rules = talloc_asprintf(ctx,
                                  "access to filter=%s attrs=sn\n"
                                  "  by * none\n"
                                  "access to * by * read\n",
                                  filter);
    acre_policy *p = policy(rules);
    acre_request *rq = begin(p, flags);
    char *got = talloc_strdup(ctx, "");

    for (unsigned i = 0; i < 3; i++) {
        int r =
            acre_access(rq, view(dns[i]), "sn", NULL, 0, ACRE_RIGHT_READ, NULL);
        cr_assert_geq(r, 0, "%s", dns[i]);
        if (!r)
            got = talloc_asprintf_append(got, "%c", "abc"[i]);
    }
    cr_expect_str_eq(got, want, "%s, flags %u", filter, flags);
    acre_request_end(rq);
    acre_policy_release(p);
}

Test(memberof, filter_rules_see_it)
{
    filter_rule("(isMemberOf=" STAFF ")", ACRE_REQ_ISMEMBEROF, "ab");
    filter_rule("(isMemberOf=" STAFF ")", 0, "");
}

/* A collective subentry whose specificationFilter is filter: which of
 * alice, bob and carol it reaches under request flags (want, as "abc"). */
static void
spec_filter(const char *filter, unsigned flags, const char *want)
{
    char *sub =
        talloc_asprintf(ctx,
                        "dn: cn=c," SUFFIX "\nobjectClass: subentry\n"
                        "objectClass: collectiveAttributeSubentry\ncn: c\n"
                        "subtreeSpecification: { specificationFilter \"%s\" }\n"
                        "c-l: Staffville\n",
                        filter);
    acre_directory *d2;
    acre_diag d = {0};
    char *all = talloc_asprintf(ctx, "%s\n%s", ldif, sub);
    /* the suffix needs its administrativeRole */
    char *p1 = strstr(all, "o: Example\n");
    cr_assert_not_null(p1);
    all = talloc_asprintf(
        ctx, "%.*sadministrativeRole: collectiveAttributeSpecificArea\n%s",
        (int)(p1 - all + strlen("o: Example\n")), all,
        p1 + strlen("o: Example\n"));
    cr_assert_eq(
        acre_directory_load(ctx, schema, "s.ldif", all, strlen(all), &d2, &d),
        0, "%u:%u %s", d.line, d.column, d.message);
    struct thost *h2 = thost_new(ctx, d2, 0, 0);
    acre_policy *p = policy("access to * by * read\n"), *q;
    cr_assert_eq(acre_policy_attach_subentries(NULL, p, d2, 0, &q, NULL), 0);
    acre_request *rq;
    cr_assert_eq(acre_request_begin(q, NULL, thost_host(h2), &rq), 0);
    acre_request_set_flags(rq, flags);
    static const char *const dns[] = {ALICE, BOB, CAROL};
    char *got = talloc_strdup(ctx, "");
    for (unsigned i = 0; i < 3; i++) {
        acre_dn *dn;
        acre_collective_view v;
        cr_assert_eq(
            acre_dn_parse(ctx, schema, dns[i], strlen(dns[i]), 0, &dn, NULL),
            0);
        cr_assert_eq(acre_entry_collective(rq, thost_view(h2, dn), &v), 0);
        if (v.nattrs > 0)
            got = talloc_asprintf_append(got, "%c", "abc"[i]);
    }
    cr_expect_str_eq(got, want, "%s, flags %u", filter, flags);
    acre_request_end(rq);
    acre_policy_release(q);
    acre_policy_release(p);
}

Test(memberof, specification_filters_see_it)
{
    spec_filter("(isMemberOf=" STAFF ")", ACRE_REQ_ISMEMBEROF, "ab");
}

/* ------------------------------------------------------------------------
 * memberOf (ACRE_REQ_MEMBEROF)
 */

Test(memberof, memberof_filters_see_static_nested_groups_only)
{
    static const struct who_case cases[] = {
        {"(memberOf=" ADMINS ")", "a"},
        /* staff (groupOfUniqueNames) lists admins: nesting; it lists dyn
         * too, but a dynamic group is no group for memberOf: bob is in
         * neither */
        {"(memberOf=" STAFF ")", "a"},
        {"(memberOf=" DYN ")", ""},
        {"(memberOf=" RING ")", "c"},
        {"(memberOf=" LOOP ")", "c"},
        {"(memberOf=cn=Loop,OU=Groups," SUFFIX ")", "c"},
        {"(memberOf=" VIRT ")", ""},
        /* erin stores memberOf: present; her value has no EQUALITY rule
         * to compare with (as in slapd): Undefined, so neither it nor its
         * negation matches her */
        {"(memberOf=*)", "ace"},
        {"(memberOf=cn=stored," GROUPS ")", ""},
        {"(!(memberOf=cn=stored," GROUPS "))", "abcd"},
        {"(!(memberOf=" STAFF "))", "bcd"},
        /* only = and presence, as for isMemberOf */
        {"(!(memberOf~=" ADMINS "))", ""},
        {"(!(memberOf=*admins*))", ""},
        /* isMemberOf is another option */
        {"(isMemberOf=" ADMINS ")", ""},
    };

    expect_who(ACRE_REQ_MEMBEROF, cases, sizeof cases / sizeof *cases);
    /* the groupOfURLs entry itself is listed in staff */
    acre_policy *p = policy("access to * by * read\n");
    acre_request *rq = begin(p, ACRE_REQ_MEMBEROF);
    cr_expect_eq(match(rq, "(memberOf=" STAFF ")", DYN), 1);
    acre_request_end(rq);
    acre_policy_release(p);
}

Test(memberof, memberof_off_by_default)
{
    acre_policy *p = policy("access to * by * read\n");
    acre_request *rq = begin(p, ACRE_REQ_ISMEMBEROF);

    cr_expect_str_eq(who(rq, "(memberOf=" ADMINS ")"), "");
    cr_expect_str_eq(who(rq, "(memberOf=*)"), "e");
    cr_expect_str_eq(mvalues(rq, ALICE), "");
    acre_request_end(rq);
    rq = begin(p, 0);
    cr_expect_str_eq(who(rq, "(memberOf=*)"), "e");
    cr_expect_str_eq(who(rq, "(!(memberOf=" ADMINS "))"), "");
    cr_expect_eq(thost_calls(host), 0, "no lookup without the flag");
    acre_request_end(rq);
    acre_policy_release(p);
}

Test(memberof, memberof_values_leave_dynamic_groups_out)
{
    acre_policy *p = policy("access to * by * read\n");
    acre_request *rq = begin(p, ACRE_REQ_MEMBEROF | ACRE_REQ_ISMEMBEROF);

    cr_expect_str_eq(mvalues(rq, ALICE), ADMINS "|" STAFF);
    cr_expect_str_eq(values(rq, BOB), DYN "|" STAFF);
    cr_expect_str_eq(mvalues(rq, BOB), "");
    cr_expect_str_eq(mvalues(rq, CAROL), LOOP "|" RING);
    cr_expect_str_eq(mvalues(rq, ADMINS), STAFF); /* a nested group */
    cr_expect_str_eq(mvalues(rq, DYN), STAFF);
    cr_expect_str_eq(mvalues(rq, RING), LOOP "|" RING); /* its own cycle */
    /* erin stores memberOf: nothing computed, her own are returned */
    cr_expect_str_eq(mvalues(rq, ERIN), "");
    /* dave stores isMemberOf only: his memberOf is computed (none) */
    cr_expect_str_eq(mvalues(rq, DAVE), "");
    /* both options at once, in one filter */
    cr_expect_str_eq(
        who(rq, "(&(isMemberOf=" STAFF ")(!(memberOf=" STAFF ")))"), "b");
    acre_request_end(rq);
    acre_policy_release(p);
}

Test(memberof, memberof_filter_rules_see_it)
{
    filter_rule("(memberOf=" STAFF ")", ACRE_REQ_MEMBEROF, "a");
    filter_rule("(memberOf=" STAFF ")", 0, "");
    filter_rule("(memberOf=" STAFF ")", ACRE_REQ_ISMEMBEROF, "");
    filter_rule("(&(memberOf=" ADMINS ")(isMemberOf=" STAFF "))",
                ACRE_REQ_MEMBEROF | ACRE_REQ_ISMEMBEROF, "a");
}

Test(memberof, memberof_specification_filters_see_it)
{
    spec_filter("(memberOf=" STAFF ")", ACRE_REQ_MEMBEROF, "a");
    spec_filter("(memberOf=" STAFF ")", 0, "");
    spec_filter("(|(memberOf=" RING ")(isMemberOf=" DYN "))",
                ACRE_REQ_MEMBEROF | ACRE_REQ_ISMEMBEROF, "bc");
}

Test(memberof, memberof_fails_closed)
{
    acre_policy *p = policy("access to * by * read\n");
    acre_request *rq = begin(p, ACRE_REQ_MEMBEROF);

    thost_fail_after(host, 1);
    cr_expect_eq(match(rq, "(memberOf=" ADMINS ")", ALICE), ACRE_ERR_LOOKUP);
    thost_fail_after(host, 0);
    acre_request_end(rq);
    acre_policy_release(p);
}

Test(memberof, a_failed_lookup_fails_closed)
{
    acre_policy *p = policy("access to * by * read\n");
    acre_request *rq = begin(p, ACRE_REQ_ISMEMBEROF);

    thost_fail_after(host, 1);
    cr_expect_eq(match(rq, "(isMemberOf=" ADMINS ")", ALICE), ACRE_ERR_LOOKUP);
    cr_expect_eq(match(rq, "(!(isMemberOf=" ADMINS "))", BOB), ACRE_ERR_LOOKUP);
    thost_fail_after(host, 0);
    acre_request_end(rq);
    acre_request *r2;
    cr_assert_eq(acre_request_begin(p, NULL, NULL, &r2), 0); /* no host */
    acre_request_set_flags(r2, ACRE_REQ_ISMEMBEROF);
    cr_expect_eq(match(r2, "(isMemberOf=*)", ALICE), ACRE_ERR_LOOKUP);
    acre_request_end(r2);
    acre_policy_release(p);
}

Test(memberof, the_index_is_built_once_per_generation)
{
    acre_policy *p = policy("access to * by * read\n");

    thost_set_generation(host, 5);
    acre_request *rq = begin(p, ACRE_REQ_ISMEMBEROF);
    cr_expect_str_eq(who(rq, "(isMemberOf=" STAFF ")"), "ab");
    unsigned calls = thost_calls(host);
    cr_expect_gt(calls, 0);
    acre_request_end(rq);
    rq = begin(p, ACRE_REQ_ISMEMBEROF);
    cr_expect_str_eq(who(rq, "(isMemberOf=" STAFF ")"), "ab");
    cr_expect_eq(thost_calls(host), calls, "the index is reused");
    acre_request_end(rq);
    /* a modify, then a new generation: seen */
    const char *none[] = {"cn=nobody," PEOPLE};
    acre_dn *admins;
    cr_assert_eq(
        acre_dn_parse(ctx, schema, ADMINS, strlen(ADMINS), 0, &admins, NULL),
        0);
    cr_assert_eq(thost_replace_values(host, admins, "member", none, 1), 0);
    thost_set_generation(host, 6);
    rq = begin(p, ACRE_REQ_ISMEMBEROF);
    cr_expect_str_eq(who(rq, "(isMemberOf=" STAFF ")"), "b");
    cr_expect_gt(thost_calls(host), calls);
    acre_request_end(rq);
    acre_policy_release(p);
}

#if ALLOC_HOOK
Test(memberof, matching_allocates_nothing_once_the_index_is_built)
{
    static const char *const people[] = {ALICE, BOB, CAROL, DAVE, ERIN};
    static const char *const filters[] = {
        "(isMemberOf=" STAFF ")", "(isMemberOf=" LOOP ")", "(isMemberOf=*)",
        "(memberOf=" STAFF ")"};
    acre_policy *p = policy("access to * by * read\n");
    struct thost *h = thost_new(ctx, dir, 7, 0);
    acre_request *rq;
    const acre_entry_view *views[5];
    acre_filter *f[4];

    thost_set_generation(h, 1);
    cr_assert_eq(acre_request_begin(p, NULL, thost_host(h), &rq), 0);
    acre_request_set_flags(rq, ACRE_REQ_ISMEMBEROF | ACRE_REQ_MEMBEROF);
    for (int i = 0; i < 4; i++)
        cr_assert_eq(acre_filter_parse(ctx, schema, filters[i],
                                       strlen(filters[i]), &f[i], NULL),
                     0);
    for (int i = 0; i < 5; i++) {
        acre_dn *d;
        cr_assert_eq(acre_dn_parse(ctx, schema, people[i], strlen(people[i]), 0,
                                   &d, NULL),
                     0);
        views[i] = thost_view(h, d);
        for (int k = 0; k < 4; k++) /* the first use builds the index */
            cr_assert_geq(acre_filter_match(rq, f[k], views[i]), 0);
    }
    unsigned long n = alloc_count();
    for (int i = 0; i < 3000; i++)
        acre_filter_match(rq, f[i % 4], views[i % 5]);
    cr_expect_eq(alloc_count(), n, "%lu allocations in 3000 matches",
                 alloc_count() - n);
    for (int i = 0; i < 5; i++) { /* the values' scratch is the request's */
        const acre_value *v;
        uint32_t nv;
        cr_assert_eq(acre_entry_ismemberof(rq, views[i], &v, &nv), 0);
        cr_assert_eq(acre_entry_memberof(rq, views[i], &v, &nv), 0);
    }
    n = alloc_count();
    for (int i = 0; i < 3000; i++) {
        const acre_value *v;
        uint32_t nv;
        acre_entry_ismemberof(rq, views[i % 5], &v, &nv);
        acre_entry_memberof(rq, views[i % 5], &v, &nv);
    }
    cr_expect_eq(alloc_count(), n, "%lu allocations in 3000 value lists",
                 alloc_count() - n);
    acre_request_end(rq);
    acre_policy_release(p);
}

/* Out of memory while the index is built and the values are collected
 * (both kinds): each run fails with ACRE_ERR_NOMEM (or recovers with the
 * right values), leaves no block behind, and the policy stays usable. */
Test(memberof, memberof_out_of_memory_fails_closed)
{
    acre_policy *p = policy("access to * by * read\n");
    struct thost *h = thost_new(ctx, dir, 7, 0);
    acre_dn *d;
    unsigned long n, failures = 0;

    cr_assert_eq(acre_dn_parse(ctx, schema, CAROL, strlen(CAROL), 0, &d, NULL),
                 0);
    const acre_entry_view *carol = thost_view(h, d);
    thost_set_generation(h, 0); /* an index per request: every run builds */
    acre_request *warm = begin(p, 0); /* the policy's caches, once */
    acre_request_end(warm);
    for (n = 1;; n++) {
        long live = alloc_live();
        acre_request *rq;
        cr_assert_eq(acre_request_begin(p, NULL, thost_host(h), &rq), 0);
        acre_request_set_flags(rq, ACRE_REQ_ISMEMBEROF | ACRE_REQ_MEMBEROF);
        const acre_value *v;
        uint32_t nv = 0;
        alloc_fail_after(n);
        int rc = acre_entry_memberof(rq, carol, &v, &nv);
        int rc2 = rc ? rc : acre_entry_ismemberof(rq, carol, &v, &nv);
        unsigned long failed = alloc_failed();
        alloc_fail_after(0);
        if (failed && (rc || rc2)) {
            cr_expect_eq(rc ? rc : rc2, ACRE_ERR_NOMEM, "allocation %lu: %s", n,
                         acre_strerror(rc ? rc : rc2));
            cr_expect_eq(nv, 0, "allocation %lu: values", n);
        } else {
            cr_expect_eq(rc, 0);
            cr_expect_eq(rc2, 0);
            cr_expect_eq(nv, 2, "allocation %lu: %u values", n, nv);
        }
        acre_request_end(rq);
        cr_expect_eq(alloc_live(), live, "allocation %lu: %ld blocks left", n,
                     alloc_live() - live);
        if (!failed)
            break;
        failures++;
    }
    cr_expect_gt(failures, 0, "no allocation failed");
    acre_request *rq = begin(p, ACRE_REQ_MEMBEROF);
    cr_expect_str_eq(mvalues(rq, CAROL), LOOP "|" RING);
    acre_request_end(rq);
    acre_policy_release(p);
}
#endif
