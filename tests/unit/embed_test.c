/*
 * embed_test.c -- the embedding interface as a server meets it (acre.h:
 * entry views, acre_host, acre_filter_match): entries of a host of its
 * own (tests/unit/test_host.h), lookups that fail, change or loop,
 * filters that must not probe, policies swapped over the same data,
 * bounded dynamic groups and sets, and the path failing closed when
 * memory runs out.
 */
#include "acre.h"

#include "alloc_hook.h"
#include "eval.h"
#include "test_host.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <talloc.h>

static void *ctx;
static acre_schema *schema;
static acre_directory *dir;
static struct thost *host;

#define SUFFIX "dc=example,dc=com"
#define ALICE  "uid=alice,ou=people," SUFFIX
#define BOB    "uid=bob,ou=people," SUFFIX
#define CAROL  "uid=carol,ou=people," SUFFIX
#define ADMINS "cn=admins,ou=groups," SUFFIX
#define OTHERS "cn=others,ou=groups," SUFFIX
#define DYN    "cn=dyn,ou=groups," SUFFIX

static const char ldif[] =
    "dn: " SUFFIX "\nobjectClass: domain\ndc: example\n\n"
    "dn: ou=people," SUFFIX "\nobjectClass: organizationalUnit\n"
    "ou: people\n\n"
    "dn: " ALICE "\nobjectClass: inetOrgPerson\nuid: alice\ncn: Alice\n"
    "sn: Smith\ntitle: boss\ncn;lang-fr: Alicia\nmail: alice@example.com\n"
    "telephoneNumber: +1 555 0100\n\n"
    "dn: " BOB "\nobjectClass: inetOrgPerson\nuid: bob\ncn: Bob\nsn: Jones\n"
    "title: clerk\nmanager: " ALICE "\ntelephoneNumber: +1 555 0101\n"
    "description: Bob's desk\n\n"
    "dn: " CAROL "\nobjectClass: inetOrgPerson\nuid: carol\ncn: Carol\n"
    "sn: Jones\nmanager: " BOB "\n\n"
    "dn: ou=groups," SUFFIX "\nobjectClass: organizationalUnit\n"
    "ou: groups\n\n"
    "dn: " ADMINS "\nobjectClass: groupOfNames\ncn: admins\n"
    "member: " ALICE "\nmember: " OTHERS "\n\n"
    "dn: " OTHERS "\nobjectClass: groupOfNames\ncn: others\n"
    "member: " ADMINS "\nmember: " BOB "\n\n"
    "dn: " DYN "\nobjectClass: groupOfURLs\ncn: dyn\n"
    "memberURL: ldap:///ou=people," SUFFIX "??one?(title=boss)\n";

static void
setup(void)
{
    ctx = talloc_new(NULL);
    cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &schema, NULL), 0);
    cr_assert_eq(acre_directory_load(ctx, schema, "t.ldif", ldif, strlen(ldif),
                                     &dir, NULL),
                 0);
    host = thost_new(ctx, dir, 42, THOST_COPY | THOST_NO_NORMS);
}

static void
teardown(void)
{
    cr_expect_eq(thost_outstanding(host), 0, "views not released");
    talloc_free(ctx);
}

TestSuite(embed, .init = setup, .fini = teardown);

/* A policy of `rules` for SUFFIX, compiled against the data's schema. */
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
begin(acre_policy *p, const char *who, const acre_host *h)
{
    acre_subject s = {0};
    acre_request *rq;

    s.authz_dn = who;
    cr_assert_eq(acre_request_begin(p, &s, h, &rq), 0);
    return rq;
}

static const acre_dn *
dn(const char *text)
{
    acre_dn *d;

    cr_assert_eq(acre_dn_parse(ctx, schema, text, strlen(text), 0, &d, NULL),
                 0);
    return d;
}

static const acre_entry_view *
view(const char *text)
{
    const acre_entry_view *v = thost_view(host, dn(text));

    cr_assert_not_null(v, "no entry %s", text);
    return v;
}

/* ------------------------------------------------------------------------
 * Views
 */

Test(embed, views_of_another_schema_or_bad_ids_are_refused)
{
    acre_policy *p = policy("access to * by * read\n");
    acre_request *rq = begin(p, NULL, thost_host(host));
    acre_schema *other;
    acre_entry_view v = *view(ALICE);
    acre_view_attr a[1];
    acre_verdict out;
    acre_collective_view cv;
    acre_filter *f;

    cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &other, NULL), 0);
    cr_assert_eq(acre_filter_parse(ctx, schema, "(cn=*)", 6, &f, NULL), 0);
    cr_expect_eq(acre_entry_decide(rq, &v, ACRE_RIGHT_READ, &out), 0);
    cr_expect(out.visible);
    v.schema = other; /* ids of another schema would index the wrong types */
    cr_expect_eq(acre_entry_decide(rq, &v, ACRE_RIGHT_READ, &out),
                 ACRE_ERR_INVAL);
    cr_expect_eq(out.visible, 0);
    cr_expect_eq(out.nattrs, 0);
    cr_expect_eq(acre_access(rq, &v, "cn", NULL, 0, ACRE_RIGHT_READ, NULL),
                 ACRE_ERR_INVAL);
    cr_expect_eq(acre_filter_match(rq, f, &v), ACRE_ERR_INVAL);
    cr_expect_eq(acre_entry_collective(rq, &v, &cv), ACRE_ERR_INVAL);
    v = *view(ALICE);
    a[0] = v.attrs[0];
    a[0].id = 1 << 24; /* never given */
    v.attrs = a;
    v.nattrs = 1;
    cr_expect_eq(acre_entry_decide(rq, &v, ACRE_RIGHT_READ, &out),
                 ACRE_ERR_INVAL);
    a[0].id = acre_schema_attr_id(schema, "cn", 2);
    a[0].nvals = 0; /* an attribute has values */
    cr_expect_eq(acre_entry_decide(rq, &v, ACRE_RIGHT_READ, &out),
                 ACRE_ERR_INVAL);
    cr_expect_eq(acre_entry_decide(rq, NULL, ACRE_RIGHT_READ, &out),
                 ACRE_ERR_INVAL);
    acre_request_end(rq);
    acre_policy_release(p);
}

Test(embed, attribute_ids)
{
    int cn = acre_schema_attr_id(schema, "cn", 2);
    int fr = acre_schema_attr_id(schema, "commonName;LANG-FR", 18);
    size_t n;

    cr_expect_geq(cn, 0);
    cr_expect_eq(acre_schema_attr_id(schema, "2.5.4.3", 7), cn);
    cr_expect_gt(fr, cn);
    cr_expect_eq(acre_schema_attr_id(schema, "cn;lang-fr", 10), fr);
    cr_expect_str_eq(acre_schema_attr_desc(schema, fr, &n), "cn;lang-fr");
    cr_expect_eq(n, 10);
    cr_expect_str_eq(acre_schema_attr_desc(schema, cn, NULL), "cn");
    cr_expect_eq(acre_schema_attr_id(schema, "cn;b;a", 6),
                 acre_schema_attr_id(schema, "CN;A;B", 6));
    cr_expect_eq(acre_schema_attr_id(schema, "noSuchType", 10),
                 ACRE_ERR_SCHEMA_UNKNOWN);
    cr_expect_eq(acre_schema_attr_id(schema, "cn;", 3), ACRE_ERR_INVAL);
    cr_expect_eq(acre_schema_attr_id(schema, NULL, 0), ACRE_ERR_INVAL);
    cr_expect_null(acre_schema_attr_desc(schema, 1 << 24, NULL));
}

Test(embed, normalise_as_views_want)
{
    int cn = acre_schema_attr_id(schema, "cn", 2);
    int member = acre_schema_attr_id(schema, "member", 6);
    char buf[64];
    size_t n;

    cr_assert_eq(
        acre_value_normalise(schema, cn, "  Alice  SMITH ", 15, buf, 64, &n),
        0);
    cr_expect_eq(n, 11);
    cr_expect_eq(memcmp(buf, "alice smith", 11), 0);
    cr_expect_eq(
        acre_value_normalise(schema, member, "UID=Alice,DC=X", 14, buf, 64, &n),
        0);
    cr_expect_eq(memcmp(buf, "uid=alice,dc=x", n), 0);
    cr_expect_eq(acre_value_normalise(schema, cn, "abcdef", 6, buf, 3, &n),
                 ACRE_ERR_NOSPACE);
    cr_expect_eq(n, 6);
    cr_expect_eq(
        acre_value_normalise(schema, member, "not a dn", 8, buf, 64, &n),
        ACRE_ERR_LDIF_VALUE);
    cr_expect_eq(acre_value_normalise(schema, -5, "x", 1, buf, 64, &n),
                 ACRE_ERR_INVAL);
}

/* ------------------------------------------------------------------------
 * Host lookups
 */

Test(embed, a_failed_lookup_denies)
{
    /* a group, a set and a dnattr-free rule: only the lookups can fail */
    acre_policy *p = policy("access to attrs=title\n"
                            "  by group=\"" ADMINS "\" none\n"
                            "  by * read\n"
                            "access to attrs=description\n"
                            "  by set=\"this/manager/uid & [alice]\" none\n"
                            "  by * read\n"
                            "access to * by * read\n");
    acre_request *rq = begin(p, ALICE, thost_host(host));
    uint32_t m;

    /* alice is in admins: no title; not bob's manager's manager */
    cr_expect_eq(
        acre_access(rq, view(BOB), "title", NULL, 0, ACRE_RIGHT_READ, &m), 0);
    cr_expect_eq(
        acre_access(rq, view(BOB), "description", NULL, 0, ACRE_RIGHT_READ, &m),
        0); /* bob's manager is alice (read from her entry): none */
    acre_request_end(rq);
    /* every lookup fails from now: the same checks are denied, not
     * granted by the "by * read" a failed lookup would otherwise reach */
    rq = begin(p, CAROL, thost_host(host));
    thost_fail_after(host, 1);
    cr_expect_eq(
        acre_access(rq, view(BOB), "title", NULL, 0, ACRE_RIGHT_READ, &m),
        ACRE_ERR_LOOKUP);
    cr_expect_eq(
        acre_access(rq, view(BOB), "description", NULL, 0, ACRE_RIGHT_READ, &m),
        ACRE_ERR_LOOKUP);
    acre_verdict v;
    cr_expect_eq(acre_entry_decide(rq, view(BOB), ACRE_RIGHT_READ, &v),
                 ACRE_ERR_LOOKUP);
    cr_expect_eq(v.visible, 0);
    cr_expect_eq(v.nattrs, 0);
    thost_fail_after(host, 0);
    acre_request_end(rq);
    /* no host at all: the same */
    rq = begin(p, CAROL, NULL);
    cr_expect_eq(
        acre_access(rq, view(BOB), "title", NULL, 0, ACRE_RIGHT_READ, &m),
        ACRE_ERR_LOOKUP);
    cr_expect_eq(acre_access(rq, view(BOB), "cn", NULL, 0, ACRE_RIGHT_READ, &m),
                 1); /* what needs no lookup is decided */
    acre_request_end(rq);
    acre_policy_release(p);
}

Test(embed, a_failed_verdict_shows_nothing)
{
    acre_policy *p = policy("access to attrs=title\n"
                            "  by group=\"" ADMINS "\" none\n"
                            "  by * read\n"
                            "access to * by * read\n");
    acre_request *rq = begin(p, BOB, thost_host(host));
    acre_verdict v;

    cr_assert_eq(acre_entry_decide(rq, view(ALICE), ACRE_RIGHT_READ, &v), 0);
    cr_assert(v.visible);
    cr_assert_gt(v.nattrs, 0);
    thost_fail_after(host, 1);
    /* bob's group answer is remembered in the request: a new one asks */
    acre_request_end(rq);
    rq = begin(p, CAROL, thost_host(host));
    cr_expect_eq(acre_entry_decide(rq, view(ALICE), ACRE_RIGHT_READ, &v),
                 ACRE_ERR_LOOKUP);
    cr_expect_eq(v.visible, 0);
    cr_expect_eq(v.nattrs, 0);
    cr_expect_eq(v.coll.nattrs, 0);
    thost_fail_after(host, 0);
    acre_request_end(rq);
    acre_policy_release(p);
}

Test(embed, groups_that_contain_each_other_end)
{
    /* admins holds others, which holds admins: slapd does not nest
     * groupOfNames (backend_group reads the group's own values), and a
     * cycle must not loop */
    acre_policy *p = policy("access to attrs=title\n"
                            "  by group=\"" OTHERS "\" read\n"
                            "  by * none\n"
                            "access to * by * read\n");
    acre_request *rq;

    rq = begin(p, BOB, thost_host(host));
    cr_expect_eq(
        acre_access(rq, view(CAROL), "title", NULL, 0, ACRE_RIGHT_READ, NULL),
        1);
    acre_request_end(rq);
    rq = begin(p, ALICE, thost_host(host)); /* in admins only */
    cr_expect_eq(
        acre_access(rq, view(CAROL), "title", NULL, 0, ACRE_RIGHT_READ, NULL),
        0);
    acre_request_end(rq);
    rq = begin(p, ADMINS, thost_host(host)); /* the group as requester */
    cr_expect_eq(
        acre_access(rq, view(CAROL), "title", NULL, 0, ACRE_RIGHT_READ, NULL),
        1);
    acre_request_end(rq);
    acre_policy_release(p);
}

Test(embed, a_new_generation_makes_a_changed_group_count)
{
    acre_policy *p = policy("access to attrs=title\n"
                            "  by group=\"" ADMINS "\" read\n"
                            "  by * none\n"
                            "access to * by * read\n");
    static const char *const only_bob[] = {BOB};
    acre_request *rq;
    unsigned calls;

    thost_set_generation(host, 1);
    rq = begin(p, ALICE, thost_host(host));
    cr_expect_eq(
        acre_access(rq, view(CAROL), "title", NULL, 0, ACRE_RIGHT_READ, NULL),
        1);
    acre_request_end(rq);
    /* the answer is kept with alice's identity: no lookup next time */
    calls = thost_calls(host);
    rq = begin(p, ALICE, thost_host(host));
    cr_expect_eq(
        acre_access(rq, view(CAROL), "title", NULL, 0, ACRE_RIGHT_READ, NULL),
        1);
    cr_expect_eq(thost_calls(host), calls);
    acre_request_end(rq);
    /* the server removes alice from admins and says so */
    cr_assert_eq(thost_replace_values(host, dn(ADMINS), "member", only_bob, 1),
                 0);
    thost_set_generation(host, 2);
    rq = begin(p, ALICE, thost_host(host));
    cr_expect_eq(
        acre_access(rq, view(CAROL), "title", NULL, 0, ACRE_RIGHT_READ, NULL),
        0);
    acre_request_end(rq);
    rq = begin(p, BOB, thost_host(host));
    cr_expect_eq(
        acre_access(rq, view(CAROL), "title", NULL, 0, ACRE_RIGHT_READ, NULL),
        1);
    acre_request_end(rq);
    /* generation 0: nothing is kept across requests */
    thost_set_generation(host, 0);
    calls = thost_calls(host);
    rq = begin(p, BOB, thost_host(host));
    acre_access(rq, view(CAROL), "title", NULL, 0, ACRE_RIGHT_READ, NULL);
    cr_expect_gt(thost_calls(host), calls);
    acre_request_end(rq);
    acre_policy_release(p);
}

/* The directory's own host (views kept for the request: no release),
 * its get() calls counted. */
struct counting {
    acre_host host;
    const acre_host *dir;
    unsigned gets;
};

static int
counting_get(void *arg, const acre_dn *d, const acre_entry_view **out)
{
    struct counting *c = arg;

    c->gets++;
    return c->dir->get(c->dir->arg, d, out);
}

static int
counting_search(void *arg, const acre_dn *base, int scope, acre_view_fn fn,
                void *fn_arg)
{
    struct counting *c = arg;

    return c->dir->search(c->dir->arg, base, scope, fn, fn_arg);
}

static int
counting_has_children(void *arg, const acre_entry_view *e)
{
    struct counting *c = arg;

    return c->dir->has_children(c->dir->arg, e);
}

/* May the requester of rq read `desc` of the directory's entry e? */
static int
reads(acre_request *rq, const char *e, const char *desc)
{
    const acre_entry *d = acre_directory_find(dir, dn(e));

    cr_assert_not_null(d, "no entry %s", e);
    return acre_access(rq, acre_entry_view_of(d), desc, NULL, 0,
                       ACRE_RIGHT_READ, NULL);
}

/* `user` in a set: an anonymous connection (authz_dn NULL) has no DN at
 * all, and slapd's sets.c fails the whole expression on it (checked on
 * slapd 2.5.13: set="user", "user/-1" and "this/-1 & user/-1" deny an
 * anonymous search on a suffix, "this/-1" grants it); an operation
 * proxied to anonymous (authz_dn "") has the empty DN, one element. */
Test(embed, user_of_an_anonymous_connection_fails_the_set)
{
    acre_policy *p = policy("access to attrs=title by set=\"user\" read "
                            "by * none\n"
                            "access to attrs=sn by set=\"this | user\" read "
                            "by * none\n"
                            "access to attrs=cn by set=\"user/-1\" read "
                            "by * none\n"
                            "access to * by * read\n");
    const char *who[3] = {NULL, "", BOB};
    /* title, sn, cn of ou=people: anonymous, proxied anonymous, bob */
    static const int want[3][3] = {{0, 0, 0}, {1, 1, 1}, {1, 1, 1}};

    for (int w = 0; w < 3; w++) {
        acre_request *rq = begin(p, who[w], thost_host(host));
        cr_expect_eq(reads(rq, "ou=people," SUFFIX, "title"), want[w][0],
                     "title, requester %d", w);
        cr_expect_eq(reads(rq, "ou=people," SUFFIX, "sn"), want[w][1],
                     "sn, requester %d", w);
        cr_expect_eq(reads(rq, "ou=people," SUFFIX, "cn"), want[w][2],
                     "cn, requester %d", w);
        acre_request_end(rq);
    }
    acre_policy_release(p);
}

Test(embed, a_set_reads_each_entry_it_names_once_per_request)
{
    struct counting c = {.dir = acre_directory_host(dir)};
    acre_policy *p = policy("access to attrs=title,description,"
                            "telephoneNumber\n"
                            "  by set=\"this/manager* & user\" read\n"
                            "  by * none\n"
                            "access to * by * read\n");
    acre_request *rq;

    cr_assert_null(c.dir->release);
    c.host = *c.dir;
    c.host.arg = &c;
    c.host.get = counting_get;
    c.host.search = counting_search;
    c.host.has_children = counting_has_children;
    rq = begin(p, ALICE, &c.host);
    /* bob is read as the entry checked (as slapd takes its target);
     * his manager alice is looked up once for all three */
    cr_expect_eq(reads(rq, BOB, "title"), 1);
    cr_expect_eq(reads(rq, BOB, "description"), 1);
    cr_expect_eq(reads(rq, BOB, "telephoneNumber"), 1);
    cr_expect_eq(c.gets, 1, "%u", c.gets);
    /* carol, then bob and alice: only bob is new */
    cr_expect_eq(reads(rq, CAROL, "title"), 1);
    cr_expect_eq(c.gets, 2, "%u", c.gets);
    for (int i = 0; i < 20; i++)
        cr_expect_eq(reads(rq, i & 1 ? BOB : CAROL, "description"), 1);
    cr_expect_eq(c.gets, 2, "%u", c.gets);
    acre_request_end(rq);
    /* bob manages carol, not alice: the answers stay each entry's own */
    rq = begin(p, BOB, &c.host);
    for (int i = 0; i < 6; i++) {
        cr_expect_eq(reads(rq, CAROL, "title"), 1);
        cr_expect_eq(reads(rq, ALICE, "title"), 0);
        cr_expect_eq(reads(rq, BOB, "title"), 0);
    }
    acre_request_end(rq);
    acre_policy_release(p);
}

Test(embed, a_dynamic_group_is_looked_up_once_per_request)
{
    acre_policy *p =
        policy("access to attrs=title\n"
               "  by group/groupOfURLs/memberURL=\"" DYN "\" read\n"
               "  by * none\n"
               "access to * by * read\n");
    acre_request *rq = begin(p, ALICE, thost_host(host));
    unsigned calls;

    /* alice (title boss) is in it: the group, then her own entry */
    cr_expect_eq(
        acre_access(rq, view(BOB), "title", NULL, 0, ACRE_RIGHT_READ, NULL), 1);
    calls = thost_calls(host);
    for (int i = 0; i < 50; i++) /* (carol stores no title: a check of
                                      the attribute is the same) */
        cr_expect_eq(acre_access(rq, view(i & 1 ? BOB : CAROL), "title", NULL,
                                 0, ACRE_RIGHT_READ, NULL),
                     1);
    cr_expect_eq(thost_calls(host), calls);
    acre_request_end(rq);
    rq = begin(p, BOB, thost_host(host)); /* a clerk: not a member */
    cr_expect_eq(
        acre_access(rq, view(ALICE), "title", NULL, 0, ACRE_RIGHT_READ, NULL),
        0);
    acre_request_end(rq);
    acre_policy_release(p);
}

Test(embed, a_dynamic_group_of_too_much_text_denies_in_bounded_memory)
{
    /* many large URLs whose filters are parsed in turn: memory stays that
     * of one, and past ACREV_GROUP_MAX_URL_BYTES the check is denied */
    char *big = talloc_asprintf(ctx, "dn: cn=huge,ou=groups," SUFFIX "\n"
                                     "objectClass: groupOfURLs\ncn: huge\n");
    char *filter = talloc_strdup(ctx, "(|");
    for (int i = 0; i < 600; i++)
        filter = talloc_asprintf_append(filter, "(title=nobody%04d)", i);
    filter = talloc_strdup_append(filter, ")");
    for (int i = 0; i < 120; i++)
        big = talloc_asprintf_append(
            big, "memberURL: ldap:///" SUFFIX "??sub?(&(uid=x%d)%s)\n", i,
            filter);
    char *all = talloc_asprintf(ctx, "%s\n%s", ldif, big);
    acre_directory *d;
    cr_assert_eq(acre_directory_load(ctx, schema, "big.ldif", all, strlen(all),
                                     &d, NULL),
                 0);
    acre_policy *p = policy("access to attrs=title\n"
                            "  by group/groupOfURLs/memberURL=\"cn=huge,"
                            "ou=groups," SUFFIX "\" none\n"
                            "  by * read\n"
                            "access to * by * read\n");
    acre_request *rq = begin(p, ALICE, acre_directory_host(d));
    const acre_entry *bob = acre_directory_find(d, dn(BOB));
    size_t before = talloc_total_size(rq);

    cr_assert_gt(strlen(big), ACREV_GROUP_MAX_URL_BYTES);
    cr_expect_eq(acre_access(rq, acre_entry_view_of(bob), "title", NULL, 0,
                             ACRE_RIGHT_READ, NULL),
                 ACRE_ERR_EVAL_LIMIT);
    /* what the check used is given back: no parse is kept */
    cr_expect_leq(talloc_total_size(rq), before + 4096);
    acre_request_end(rq);
    acre_policy_release(p);
}

Test(embed, sets_have_a_budget_per_request)
{
    acre_policy *p = policy("access to attrs=title\n"
                            "  by set=\"this/manager* & user\" read\n"
                            "  by * none\n"
                            "access to * by * read\n");
    acre_request *rq = begin(p, ALICE, thost_host(host));

    /* carol -> bob -> alice: alice is in carol's management chain */
    cr_expect_eq(
        acre_access(rq, view(CAROL), "title", NULL, 0, ACRE_RIGHT_READ, NULL),
        1);
    rq->set_work = 3; /* the request's budget nearly spent */
    cr_expect_eq(
        acre_access(rq, view(CAROL), "title", NULL, 0, ACRE_RIGHT_READ, NULL),
        ACRE_ERR_EVAL_LIMIT);
    cr_expect_eq(
        acre_access(rq, view(BOB), "title", NULL, 0, ACRE_RIGHT_READ, NULL),
        ACRE_ERR_EVAL_LIMIT); /* and it stays spent */
    acre_request_end(rq);
    rq = begin(p, ALICE, thost_host(host)); /* a new request: a new one */
    cr_expect_eq(
        acre_access(rq, view(CAROL), "title", NULL, 0, ACRE_RIGHT_READ, NULL),
        1);
    acre_request_end(rq);
    acre_policy_release(p);
}

static void
release_nothing(void *arg, const acre_entry_view *e)
{
    (void)arg, (void)e;
}

/* people_links -- the lines naming other people person i gets (under
 * ctx, appended to text), for people_dir. */
typedef char *(*people_links)(char *text, int i, const char *const *name, int n,
                              unsigned *seed);

/* people_dir -- a directory of n people uid=<tag>I,ou=people (name[i],
 * ent[i]), each with uid, cn, sn, title and description, then the lines
 * links gives it from the running seed. */
static acre_directory *
people_dir(int n, char tag, const char **name, const acre_entry **ent,
           people_links links, unsigned seed)
{
    char *text = talloc_strdup(ctx, "dn: " SUFFIX "\nobjectClass: domain\n"
                                    "dc: example\n\n"
                                    "dn: ou=people," SUFFIX "\n"
                                    "objectClass: organizationalUnit\n"
                                    "ou: people\n\n");
    acre_directory *d;
    acre_diag dg = {0};

    for (int i = 0; i < n; i++)
        name[i] = talloc_asprintf(ctx, "uid=%c%d,ou=people," SUFFIX, tag, i);
    for (int i = 0; i < n; i++) {
        text = talloc_asprintf_append(text,
                                      "dn: %s\nobjectClass: inetOrgPerson\n"
                                      "uid: %c%d\ncn: %c%d\nsn: %c\n"
                                      "title: t\ndescription: d\n",
                                      name[i], tag, i, tag, i, tag);
        text = talloc_asprintf_append(links(text, i, name, n, &seed), "\n");
    }
    cr_assert_eq(
        acre_directory_load(ctx, schema, "p.ldif", text, strlen(text), &d, &dg),
        0, "%u: %s", dg.line, dg.message);
    for (int i = 0; i < n; i++)
        cr_assert_not_null(ent[i] = acre_directory_find(d, dn(name[i])));
    return d;
}

/* managers -- one to three managers (none for the first person): mostly
 * earlier people, cycles too, and values that name nothing, are no
 * person's or differ in case. */
static char *
managers(char *text, int i, const char *const *name, int n, unsigned *seed)
{
    int nm = i == 0
                 ? 0
                 : 1 + (int)((*seed = *seed * 1103515245u + 12345u) >> 16) % 3;

    for (int k = 0; k < nm; k++) {
        unsigned r = (*seed = *seed * 1103515245u + 12345u) >> 16;
        int to = (int)(r % (unsigned)n); /* upward mostly, cycles too */
        if (r % 7 == 0)
            text = talloc_asprintf_append(
                text, "manager: uid=gone,ou=people," SUFFIX "\n");
        else if (r % 11 == 0)
            text = talloc_asprintf_append(
                text, "manager: UID=P%d,OU=People," SUFFIX "\n", to);
        else if (r % 13 == 0)
            text =
                talloc_asprintf_append(text, "manager: ou=people," SUFFIX "\n");
        else
            text = talloc_asprintf_append(
                text, "manager: %s\n",
                name[(r & 1) && i ? (int)(r % (unsigned)i) : to]);
    }
    return text;
}

/* links3 -- manager, seeAlso and owner, each two times in three, naming
 * anyone. */
static char *
links3(char *text, int i, const char *const *name, int n, unsigned *seed)
{
    static const char *const link[] = {"manager", "seeAlso", "owner"};

    (void)i;
    for (int k = 0; k < 3; k++) {
        unsigned r = (*seed = *seed * 1103515245u + 12345u) >> 16;
        if (r % 3)
            text = talloc_asprintf_append(text, "%s: %s\n", link[k],
                                          name[r % (unsigned)n]);
    }
    return text;
}

/* A request remembers x/attr* closures from one element (eval_set.c):
 * over a random graph of managers (cycles, several managers, values that
 * name nothing or are not DNs, DNs in other case), every check of a
 * request that has walked the graph before answers and spends steps as
 * a fresh request does. */
Test(embed, remembered_closures_answer_and_spend_as_fresh_walks)
{
    enum { PEOPLE = 24 };

    const char *name[PEOPLE];
    const acre_entry *ent[PEOPLE];
    acre_directory *d = people_dir(PEOPLE, 'p', name, ent, managers, 7);

    acre_policy *p =
        policy("access to attrs=title by set=\"this/manager* & user\" read "
               "by * none\n"
               "access to attrs=description by set=\"user/manager* & this\" "
               "read by * none\n"
               "access to attrs=cn by set=\"this/manager*/uid & [p3]\" read "
               "by * none\n"
               "access to attrs=sn by set=\"user & this/manager*\" read "
               "by * none\n"
               "access to * by * read\n");
    const acre_host *h = acre_directory_host(d);
    acre_host fresh = *h; /* a host that releases views: nothing is kept */
    static const char *const attr[] = {"title", "description", "cn", "sn"};
    unsigned checks = 0, granted = 0;

    cr_assert_null(h->release); /* the host keeps views: closures are kept */
    fresh.release = release_nothing;
    for (int who = -1; who < PEOPLE; who++) {
        acre_request *warm = begin(p, who < 0 ? NULL : name[who], h);
        for (int pass = 0; pass < 2; pass++)
            for (int j = 0; j < PEOPLE * 4; j++) {
                int e = (j * 7 + pass * 5) % PEOPLE, a = (j + pass) % 4;
                acre_request *cold =
                    begin(p, who < 0 ? NULL : name[who], &fresh);
                size_t before = warm->set_work;
                int want = acre_access(cold, acre_entry_view_of(ent[e]),
                                       attr[a], NULL, 0, ACRE_RIGHT_READ, NULL);
                int got = acre_access(warm, acre_entry_view_of(ent[e]), attr[a],
                                      NULL, 0, ACRE_RIGHT_READ, NULL);
                cr_expect_eq(got, want, "%s reads %s of %s",
                             name[who < 0 ? 0 : who], attr[a], name[e]);
                cr_expect_eq(before - warm->set_work,
                             ACREV_SET_REQUEST_WORK - cold->set_work,
                             "steps of %s of %s", attr[a], name[e]);
                cr_assert_geq(want, 0);
                checks++;
                granted += want == 1;
                acre_request_end(cold);
            }
        cr_expect_not_null(warm->set_clo);
        acre_request_end(warm);
    }
    cr_expect_gt(granted, checks / 8, "%u of %u", granted, checks);
    cr_expect_lt(granted, checks - checks / 8, "%u of %u", granted, checks);
    acre_policy_release(p);
}

/* An entry verdict decides an entry-dependent rule once for the types
 * the same attrs= lists take (eval.c: decide_memo's classes): each type
 * gets what its own check gives, and the set's steps are spent for each
 * as its own check spends them. */
/* A decision that depended on the entry through clauses alone (dnattr,
 * sets) is kept with their answers and replayed for the next entry of
 * its kind when they answer the same (eval.c: struct acreV_pmemo): over
 * people whose manager, seeAlso and owner values name one another at
 * random, a request that decides every entry in turn, twice, answers
 * each attribute and mask as a fresh request does. */
Test(embed, kept_decisions_replay_their_clauses)
{
    enum { PEOPLE = 12 };

    const char *name[PEOPLE];
    const acre_entry *ent[PEOPLE];
    static const char *const attr[] = {"title", "description", "cn", "sn"};
    unsigned kept = 0, granted = 0, checks = 0;
    acre_directory *d = people_dir(PEOPLE, 'q', name, ent, links3, 11);

    acre_policy *p = policy(
        "access to attrs=title,description\n"
        "  by dnattr=manager read\n"
        "  by set=\"this/seeAlso & user\" compare\n"
        "  by * none\n"
        "access to attrs=cn by dnattr=owner +s break by * +0 break\n"
        "access to attrs=cn by dnattr=manager +r by set=\"this/owner/manager "
        "& user\" +c by * +d\n"
        "access to * by * read\n");
    const acre_host *h = acre_directory_host(d);

    for (int who = 0; who < PEOPLE; who++) {
        acre_request *warm = begin(p, name[who], h);
        for (int pass = 0; pass < 2; pass++)
            for (int j = 0; j < PEOPLE; j++) {
                int e = (j * 5 + pass * 7) % PEOPLE;
                const acre_entry_view *v = acre_entry_view_of(ent[e]);
                acre_request *cold = begin(p, name[who], h);
                acre_verdict vd;

                cr_assert_eq(acre_entry_decide(warm, v, ACRE_RIGHT_READ, &vd),
                             0);
                for (uint32_t k = 0; k < v->nattrs; k++) {
                    const char *an =
                        acre_schema_attr_desc(schema, v->attrs[k].id, NULL);
                    int g = acre_access(cold, v, an, NULL, 0, ACRE_RIGHT_READ,
                                        NULL);
                    cr_expect_eq(vd.attr[k] == ACRE_ATTR_ALL, g == 1,
                                 "%s reads %s of %s", name[who], an, name[e]);
                }
                for (unsigned a = 0; a < 4; a++) {
                    uint32_t mw = 0, mc = 0;
                    int gw = acre_access(warm, v, attr[a], NULL, 0,
                                         ACRE_RIGHT_COMPARE, &mw);
                    int gc = acre_access(cold, v, attr[a], NULL, 0,
                                         ACRE_RIGHT_COMPARE, &mc);
                    cr_expect_eq(gw, gc, "%s compares %s of %s", name[who],
                                 attr[a], name[e]);
                    cr_expect_eq(mw, mc, "mask of %s of %s", attr[a], name[e]);
                    checks++;
                    granted += gc == 1;
                }
                acre_request_end(cold);
            }
        kept += warm->pmemo_valid != 0;
        acre_request_end(warm);
    }
    cr_expect_gt(kept, 0, "no decision was kept with its clauses");
    cr_expect_gt(granted, checks / 8, "%u of %u", granted, checks);
    cr_expect_lt(granted, checks - checks / 8, "%u of %u", granted, checks);
    acre_policy_release(p);
}

Test(embed, a_verdict_answers_each_type_as_its_own_check)
{
    acre_policy *p =
        policy("access to attrs=title,description,"
               "telephoneNumber\n"
               "  by set=\"this/manager* & user\" read\n"
               "  by * none\n"
               "access to attrs=cn,sn by dn.subtree=\"ou=people," SUFFIX
               "\" read by * none\n"
               "access to * by * read\n");
    static const char *const who[] = {ALICE, BOB, CAROL, NULL};
    static const char *const ent[] = {ALICE, BOB, CAROL};

    for (unsigned i = 0; i < 4; i++)
        for (unsigned j = 0; j < 3; j++) {
            const acre_entry *d = acre_directory_find(dir, dn(ent[j]));
            const acre_entry_view *e = acre_entry_view_of(d);
            acre_request *rq = begin(p, who[i], acre_directory_host(dir));
            acre_request *one = begin(p, who[i], acre_directory_host(dir));
            acre_verdict v;
            size_t before = rq->set_work;

            cr_assert_eq(acre_entry_decide(rq, e, ACRE_RIGHT_READ, &v), 0);
            cr_assert_eq(v.visible, 1);
            for (uint32_t k = 0; k < e->nattrs; k++) {
                const char *name =
                    acre_schema_attr_desc(schema, e->attrs[k].id, NULL);
                int g =
                    acre_access(one, e, name, NULL, 0, ACRE_RIGHT_READ, NULL);
                cr_expect_eq(v.attr[k] == ACRE_ATTR_ALL, g == 1, "%s of %s",
                             name, ent[j]);
            }
            cr_expect_eq(before - rq->set_work,
                         ACREV_SET_REQUEST_WORK - one->set_work, "steps for %s",
                         ent[j]);
            acre_request_end(one);
            acre_request_end(rq);
        }
    acre_policy_release(p);
}

/* ------------------------------------------------------------------------
 * Filters under access control
 */

struct selected {
    char *dns;
};

static int
note_dn(void *arg, const acre_entry_view *e, const acre_verdict *v)
{
    struct selected *s = arg;

    (void)v;
    s->dns =
        talloc_asprintf_append(s->dns, "%s;", acre_dn_normalised(e->dn, NULL));
    return 0;
}

/* The DNs filter f selects, through acre_search and, entry by entry,
 * through acre_filter_match (asserted equal). */
static char *
selection(acre_request *rq, const char *filter)
{
    struct selected s = {talloc_strdup(ctx, "")};
    int ldap_rc;
    char *by_match = talloc_strdup(ctx, "");
    acre_filter *f;
    static const char *const people[] = {ALICE, BOB, CAROL};

    cr_assert_eq(acre_search(rq, "ou=people," SUFFIX, ACRE_SCOPE_ONE, filter,
                             NULL, 0, note_dn, &s, &ldap_rc, NULL),
                 0);
    cr_assert_eq(ldap_rc, 0, "%s", filter);
    cr_assert_eq(
        acre_filter_parse(ctx, schema, filter, strlen(filter), &f, NULL), 0);
    for (int i = 0; i < 3; i++) {
        int r = acre_filter_match(rq, f, view(people[i]));
        cr_assert_geq(r, 0);
        if (r)
            by_match = talloc_asprintf_append(
                by_match, "%s;", acre_dn_normalised(dn(people[i]), NULL));
    }
    cr_expect_str_eq(s.dns, by_match, "%s", filter);
    acre_filter_free(f);
    return s.dns;
}

/* The verdicts of a search for types only (ACRE_REQ_ATTRSONLY) answer
 * each selected attribute by read on the attribute alone: a val= rule
 * never applies, an unselected attribute stays out. */
struct types_seen {
    char *text;
};

static int
note_types(void *arg, const acre_entry_view *e, const acre_verdict *v)
{
    struct types_seen *t = arg;

    for (unsigned i = 0; i < v->nattrs; i++)
        if (v->attr[i] != ACRE_ATTR_NONE)
            t->text = talloc_asprintf_append(
                t->text, "%s %s%s;", acre_dn_normalised(e->dn, NULL),
                acre_schema_attr_desc(schema, e->attrs[i].id, NULL),
                v->attr[i] == ACRE_ATTR_ALL ? "" : "(some)");
    return 0;
}

Test(embed, a_search_for_types_checks_each_attribute_alone)
{
    acre_policy *p = policy("access to attrs=title val=boss by * none\n"
                            "access to attrs=sn val=Jones by * none\n"
                            "access to * by * read\n");
    static const char *const attrs[] = {"title", "sn", "uid"};
    /* the host's order, each entry's attributes in its order */
    const char *want[2] = {"uid=bob,ou=people," SUFFIX " uid;"
                           "uid=bob,ou=people," SUFFIX " sn;"
                           "uid=bob,ou=people," SUFFIX " title;"
                           "uid=alice,ou=people," SUFFIX " uid;"
                           "uid=alice,ou=people," SUFFIX " sn;"
                           "uid=alice,ou=people," SUFFIX " title;"
                           "uid=carol,ou=people," SUFFIX " uid;"
                           "uid=carol,ou=people," SUFFIX " sn;",
                           "uid=bob,ou=people," SUFFIX " uid;"
                           "uid=bob,ou=people," SUFFIX " title;"
                           "uid=alice,ou=people," SUFFIX " uid;"
                           "uid=alice,ou=people," SUFFIX " sn;"
                           "uid=carol,ou=people," SUFFIX " uid;"};
    for (int only = 1; only >= 0; only--) {
        acre_request *rq = begin(p, BOB, acre_directory_host(dir));
        struct types_seen t = {talloc_strdup(ctx, "")};
        int ldap_rc;

        acre_request_set_flags(rq, only ? ACRE_REQ_ATTRSONLY : 0);
        cr_assert_eq(acre_search(rq, "ou=people," SUFFIX, ACRE_SCOPE_ONE,
                                 "(objectClass=*)", attrs, 3, note_types, &t,
                                 &ldap_rc, NULL),
                     0);
        cr_assert_eq(ldap_rc, 0);
        cr_expect_str_eq(t.text, want[!only], "attrsonly %d", only);
        acre_request_end(rq);
    }
    acre_policy_release(p);
}

Test(embed, filters_cannot_probe_what_may_not_be_searched)
{
    static const char *const hidden[] = {"title", "telephoneNumber",
                                         "cn;lang-fr", "description"};
    static const char *const forms[] = {"(%s=%s)",
                                        "(%s=%s*)",
                                        "(!(%s=%s))",
                                        "(|(%s=%s)(uid=nobody))",
                                        "(&(objectClass=*)(%s=%s))",
                                        "(%s>=%s)",
                                        "(%s~=%s)"};
    acre_policy *p = policy("access to attrs=title,telephoneNumber\n"
                            "  by * =r\n" /* read, not search */
                            "access to attrs=cn;lang-fr,description\n"
                            "  by * none\n"
                            "access to * by * read\n");
    acre_request *rq = begin(p, CAROL, thost_host(host));

    for (size_t h = 0; h < sizeof hidden / sizeof hidden[0]; h++) {
        /* the values stored, and one that is nowhere */
        static const char *const values[] = {"boss",        "clerk",
                                             "+1 555 0100", "Alicia",
                                             "Bob's desk",  "nothing-like-it"};
        for (size_t f = 0; f < sizeof forms / sizeof forms[0]; f++) {
            char *first = NULL;
            for (size_t v = 0; v < sizeof values / sizeof values[0]; v++) {
                char *flt =
                    talloc_asprintf(ctx, forms[f], hidden[h], values[v]);
                char *got = selection(rq, flt);
                if (!first)
                    first = got;
                cr_expect_str_eq(got, first,
                                 "%s selects differently from the first "
                                 "value: it probes %s",
                                 flt, hidden[h]);
            }
        }
        char *flt = talloc_asprintf(ctx, "(%s=*)", hidden[h]);
        cr_expect_str_eq(selection(rq, flt), "", "%s", flt);
    }
    /* what may be searched still selects */
    cr_expect_str_eq(selection(rq, "(sn=jones)"),
                     "uid=bob,ou=people,dc=example,dc=com;"
                     "uid=carol,ou=people,dc=example,dc=com;");
    acre_request_end(rq);
    acre_policy_release(p);
}

/* ------------------------------------------------------------------------
 * Policies swapped over the same data
 */

Test(embed, a_new_policy_needs_no_new_data)
{
    static const char *const rules[] = {"access to * by * read\n",
                                        "access to attrs=title by * none\n"
                                        "access to * by * read\n"};
    acre_slot *slot;

    cr_assert_eq(acre_slot_new(&slot), 0);
    for (int i = 0; i < 2; i++) {
        /* the schema is frozen (the data uses it): the schema files a
         * policy includes are already in it, and that is accepted */
        char *text =
            talloc_asprintf(ctx,
                            "include /etc/ldap/schema/core.schema\n"
                            "include /etc/ldap/schema/cosine.schema\n"
                            "include /etc/ldap/schema/inetorgperson.schema\n"
                            "database mdb\nsuffix \"" SUFFIX "\"\n%s",
                            rules[i]);
        acre_source src = {ACRE_DIALECT_SLAPD_CONF, "swap.conf", text,
                           strlen(text)};
        acre_policy *p;
        acre_diag d = {0};
        cr_assert_eq(acre_policy_compile(NULL, schema, &src, 1, 0, &p, &d), 0,
                     "%s", d.message);
        cr_expect_eq(acre_policy_schema(p), schema);
        acre_slot_store(slot, p);
        acre_policy_release(p);
        acre_policy *cur = acre_slot_acquire(slot);
        acre_request *rq = begin(cur, NULL, thost_host(host));
        cr_expect_eq(acre_access(rq, view(ALICE), "title", NULL, 0,
                                 ACRE_RIGHT_READ, NULL),
                     i == 0);
        acre_request_end(rq);
        acre_policy_release(cur);
    }
    /* a policy that would change the schema is refused, with its place */
    const char *bad = "attributetype ( 1.3.6.1.4.1.99999.1 NAME 'fresh' "
                      "SUP name )\ndatabase mdb\nsuffix \"" SUFFIX "\"\n";
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "bad.conf", bad, strlen(bad)};
    acre_policy *p = NULL;
    acre_diag d = {0};
    cr_expect_eq(acre_policy_compile(NULL, schema, &src, 1, 0, &p, &d),
                 ACRE_ERR_SCHEMA_FROZEN);
    cr_expect_eq(d.line, 1);
    cr_expect_null(p);
    acre_slot_free(slot);
}

/* ------------------------------------------------------------------------
 * Out of memory (the test binary's allocator, alloc_hook.h)
 */

#if ALLOC_HOOK
Test(embed, request_begin_fails_closed_when_memory_runs_out)
{
    /* by peername / sockname: a lost copy of the connection's strings must
     * not make "unknown peer" grant read */
    acre_policy *p = policy("access to *\n"
                            "  by peername.ip=127.0.0.1 none\n"
                            "  by sockname=\"IP=127.0.0.1:389\" none\n"
                            "  by * read\n");
    acre_subject who = {.authz_dn = BOB,
                        .peername = "IP=127.0.0.1:40000",
                        .sockname = "IP=127.0.0.1:389",
                        .sockurl = "ldap://127.0.0.1/"};
    unsigned failures = 0;

    for (unsigned long n = 1;; n++) {
        acre_request *rq = NULL;
        long blocks = alloc_live();
        alloc_fail_after(n);
        int rc = acre_request_begin(p, &who, thost_host(host), &rq);
        alloc_fail_after(0);
        if (rc == 0) {
            cr_expect_eq(acre_access(rq, view(ALICE), "cn", NULL, 0,
                                     ACRE_RIGHT_READ, NULL),
                         0, "allocation %lu", n);
            acre_request_end(rq);
            break;
        }
        failures++;
        cr_expect_eq(rc, ACRE_ERR_NOMEM, "allocation %lu: %s", n,
                     acre_strerror(rc));
        cr_expect_null(rq);
        cr_expect_eq(alloc_live(), blocks, "allocation %lu leaks", n);
    }
    cr_expect_gt(failures, 6); /* the sweep met every string copy */
    acre_policy_release(p);
}

Test(embed, deciding_host_entries_allocates_nothing)
{
    acre_policy *p = policy("access to attrs=title\n"
                            "  by group=\"" ADMINS "\" read\n"
                            "  by * none\n"
                            "access to attrs=telephoneNumber\n"
                            "  by dnattr=manager read\n"
                            "  by self read\n"
                            "  by * none\n"
                            "access to * by * read\n");
    static const char *const people[] = {ALICE, BOB, CAROL};
    struct thost *h = thost_new(ctx, dir, 7, 0); /* with normalised values */
    acre_request *rq = begin(p, ALICE, thost_host(h));
    acre_verdict v;

    for (int i = 0; i < 3; i++) /* first use grows the buffers */
        cr_assert_eq(acre_entry_decide(rq, thost_view(h, dn(people[i])),
                                       ACRE_RIGHT_READ, &v),
                     0);
    const acre_entry_view *views[3];
    for (int i = 0; i < 3; i++)
        views[i] = thost_view(h, dn(people[i]));
    unsigned long n = alloc_count();
    for (int i = 0; i < 3000; i++)
        acre_entry_decide(rq, views[i % 3], ACRE_RIGHT_READ, &v);
    cr_expect_eq(alloc_count(), n, "%lu allocations in 3000 verdicts",
                 alloc_count() - n);
    acre_request_end(rq);
    acre_policy_release(p);
}
#endif

/* Values slapd stores without normalising them (uidNumber: 01, x, -;
 * an OID-syntax descriptor) are compared as slapd compares them whether
 * acre loaded them or a host hands them over without normalised forms:
 * both go through one normaliser of stored values (acreE_norm_stored),
 * and acre_value_normalise gives what a host's norms must hold. */
Test(embed, stored_values_without_a_normaliser_through_views)
{
    static const char data[] =
        "dn: " SUFFIX "\nobjectClass: domain\ndc: example\n\n"
        "dn: cn=a," SUFFIX "\nobjectClass: device\n"
        "objectClass: extensibleObject\ncn: a\nuidNumber: 01\n"
        "supportedApplicationContext: person\n\n"
        "dn: cn=b," SUFFIX "\nobjectClass: device\n"
        "objectClass: extensibleObject\ncn: b\nuidNumber: x\n"
        "supportedApplicationContext: 2.5.6.6\n\n"
        "dn: cn=c," SUFFIX "\nobjectClass: device\n"
        "objectClass: extensibleObject\ncn: c\nuidNumber: -\n";

    static const struct {
        const char *filter, *want; /* the entries selected, of a b c */
    } c[] = {
        {"(uidNumber>=3)", "ab"},
        {"(uidNumber<=3)", "c"},
        {"(uidNumber=01)", ""}, /* no valid assertion */
        {"(supportedApplicationContext=2.5.6.6)", "b"},
    };

    acre_directory *d;
    struct thost *h;
    acre_request *rq;
    char buf[16];
    size_t n;
    int uid = acre_schema_attr_id(schema, "uidNumber", 9);

    cr_assert_eq(acre_directory_load(ctx, schema, "s.ldif", data, strlen(data),
                                     &d, NULL),
                 0);
    h = thost_new(ctx, d, 7, THOST_NO_NORMS);
    rq = begin(policy("access to * by * read\n"), NULL, thost_host(h));
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        acre_filter *f;
        char got[2][4] = {"", ""};

        cr_assert_eq(acre_filter_parse(ctx, schema, c[i].filter,
                                       strlen(c[i].filter), &f, NULL),
                     0);
        for (int e = 0; e < 3; e++) {
            char rdn[32];
            acre_dn *x;

            snprintf(rdn, sizeof rdn, "cn=%c," SUFFIX, 'a' + e);
            cr_assert_eq(
                acre_dn_parse(ctx, schema, rdn, strlen(rdn), 0, &x, NULL), 0);
            /* the host's view (no norms), then the directory's own */
            const acre_entry_view *v[2] = {
                thost_view(h, x),
                acre_entry_view_of(acre_directory_find(d, x))};
            for (int k = 0; k < 2; k++) {
                cr_assert_not_null(v[k]);
                size_t l = strlen(got[k]);
                if (acre_filter_match(rq, f, v[k]) == 1)
                    got[k][l] = (char)('a' + e), got[k][l + 1] = '\0';
            }
        }
        cr_expect_str_eq(got[0], c[i].want, "%s (host)", c[i].filter);
        cr_expect_str_eq(got[1], c[i].want, "%s (directory)", c[i].filter);
        acre_filter_free(f);
    }
    acre_request_end(rq);
    cr_expect_eq(
        acre_value_normalise(schema, uid, "01", 2, buf, sizeof buf, &n), 0);
    cr_expect(n == 2 && memcmp(buf, "01", 2) == 0);
    cr_expect_eq(acre_value_normalise(schema, uid, "x", 1, buf, sizeof buf, &n),
                 0);
}

/* ------------------------------------------------------------------------
 * A database whose suffix is "" (checked against slapd 2.5.13)
 */

/* The DNs a search of "" at `scope` returns to `who` (the test host), and
 * its result code. */
static char *
from_root(acre_policy *p, const char *who, int scope, int *ldap_rc)
{
    acre_request *rq = begin(p, who, thost_host(host));
    struct selected s = {talloc_strdup(ctx, "")};

    cr_assert_eq(acre_search(rq, "", scope, "(objectClass=*)", NULL, 0, note_dn,
                             &s, ldap_rc, NULL),
                 0);
    acre_request_end(rq);
    return s.dns;
}

/* back-mdb makes up the root of such a database (ID 0: the empty DN,
 * objectClass and structuralObjectClass glue): a search of "" at any scope
 * but base (the frontend's root DSE) has it as base, checked as any base,
 * and returns the database's entries, never the root itself. */
Test(embed, a_search_from_an_empty_suffix_has_the_glue_root_as_base)
{
    static const char text[] =
        "database mdb\nsuffix \"\"\n"
        "access to dn.base=\"\" filter=(structuralObjectClass=glue) "
        "by users search by * none\n"
        "access to * by * read\n";
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "t.conf", text, strlen(text)};
    acre_policy *p = NULL;
    int rc;

    cr_assert_eq(acre_policy_compile(NULL, schema, &src, 1, 0, &p, NULL), 0);
    cr_expect_str_eq(from_root(p, NULL, ACRE_SCOPE_SUB, &rc), "");
    cr_expect_eq(rc, 32);
    cr_expect_str_eq(from_root(p, ALICE, ACRE_SCOPE_ONE, &rc),
                     "dc=example,dc=com;");
    cr_expect_eq(rc, 0);
    char *all = from_root(p, ALICE, ACRE_SCOPE_SUB, &rc);
    cr_expect_eq(rc, 0);
    cr_expect_str_eq(all, from_root(p, ALICE, ACRE_SCOPE_CHILDREN, &rc));
    cr_expect(!strncmp(all, "dc=example,dc=com;ou=people,", 28), "%s", all);
    cr_expect_str_eq(from_root(p, ALICE, ACRE_SCOPE_BASE, &rc), "");
    cr_expect_eq(rc, 32);
    acre_policy_release(p);
}
