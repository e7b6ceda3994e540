/*
 * unchecked_test.c -- size.unchecked: acre_search_limits reports it, and
 * acre_search refuses a search as slapd 2.5's back-mdb does, when both
 * its index candidates and the entries in scope are more than the limit
 * (engine/search.c, engine/filter_cand.c).  Each expected answer below is
 * slapd 2.5.13's for the same configuration and data (the cases of
 * tests/golden/search-limits-unchecked*, taken further here).
 */
#include "acre.h"

#include <criterion/criterion.h>
#include <string.h>
#include <talloc.h>

static void *ctx;

static void
setup(void)
{
    ctx = talloc_new(NULL);
}

static void
teardown(void)
{
    cr_expect_eq(talloc_total_blocks(ctx), 1, "blocks left: %zu",
                 talloc_total_blocks(ctx));
    talloc_free(ctx);
}

TestSuite(unchecked, .init = setup, .fini = teardown);

#define TOP    "dc=example,dc=com"
#define PEOPLE "ou=people," TOP
#define L(n)   "cn=lim" #n ",o=users"

/* The users in a database of their own, so that they are no candidates
 * of the searches of dc=example,dc=com. */
static const char conf_head[] =
    "database mdb\nsuffix \"o=users\"\naccess to * by * read\n"
    "database mdb\nsuffix \"" TOP "\"\nrootdn \"cn=admin," TOP "\"\n";
static const char conf_tail[] = "limits dn.exact=\"" L(
    1) "\" size.unchecked=1\n"
       "limits dn.exact=\"" L(
           2) "\" size.unchecked=2\n"
              "limits dn.exact=\"" L(
                  4) "\" size.unchecked=4\n"
                     "limits dn.exact=\"" L(
                         7) "\" size.unchecked=7\n"
                            "limits dn.exact=\"cn=off,o=users\" "
                            "size.unchecked=disabled\n"
                            "access to * by * read\n";

static const char data[] =
    "dn: o=users\nobjectClass: organization\no: users\n\n"
    "dn: " TOP "\nobjectClass: dcObject\nobjectClass: organization\n"
    "o: Example\ndc: example\n\n"
    "dn: " PEOPLE "\nobjectClass: organizationalUnit\nou: people\n\n"
    "dn: uid=u1," PEOPLE "\nobjectClass: inetOrgPerson\nuid: u1\n"
    "cn: U One\nsn: one\nmail: U1@Example.com\n\n"
    "dn: uid=u2," PEOPLE "\nobjectClass: inetOrgPerson\nuid: u2\n"
    "cn: U Two\nsn: two\nmail: u1@example.COM\n\n"
    "dn: uid=u3," PEOPLE "\nobjectClass: inetOrgPerson\nuid: U1\n"
    "cn: U Three\nsn: three\n\n"
    "dn: ou=groups," TOP "\nobjectClass: organizationalUnit\nou: groups\n\n"
    "dn: cn=g1,ou=groups," TOP "\nobjectClass: groupOfNames\ncn: g1\n"
    "member: uid=u1," PEOPLE "\nmember: uid=u2," PEOPLE "\n\n"
    "dn: cn=g2,ou=groups," TOP "\nobjectClass: groupOfNames\ncn: g2\n"
    "member: uid=u2," PEOPLE "\n";

struct world {
    void *mem; /* the schema, the policy and the directory */
    acre_policy *p;
    acre_directory *dir;
};

/* The configuration with indexes over the directory ldif. */
static struct world
world_full(const char *indexes, const char *ldif)
{
    char *text = talloc_asprintf(ctx, "%s%s%s", conf_head, indexes, conf_tail);
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "u.conf", text, strlen(text)};
    struct world w = {talloc_new(ctx), NULL, NULL};
    acre_schema *s;
    acre_diag d = {0};

    cr_assert_eq(acre_schema_new(w.mem, ACRE_SCHEMA_SLAPD, &s, NULL), 0);
    cr_assert_eq(acre_policy_compile(w.mem, s, &src, 1, 0, &w.p, &d), 0, "%s",
                 d.message);
    cr_assert_eq(acre_directory_load(w.mem, acre_policy_schema(w.p), "u.ldif",
                                     ldif, strlen(ldif), &w.dir, &d),
                 0, "%s", d.message);
    talloc_free(text);
    return w;
}

/* ... over the data above and more. */
static struct world
world_with(const char *indexes, const char *more)
{
    char *ldif = talloc_asprintf(ctx, "%s\n%s", data, more);
    struct world w = world_full(indexes, ldif);

    talloc_free(ldif);
    return w;
}

/* ... over the users' database and the LDIF ldif_in alone. */
static struct world
world_ldif(const char *indexes, const char *ldif_in)
{
    char *ldif = talloc_asprintf(
        ctx, "dn: o=users\nobjectClass: organization\no: users\n\n%s", ldif_in);
    struct world w = world_full(indexes, ldif);

    talloc_free(ldif);
    return w;
}

static struct world
world(const char *indexes)
{
    return world_with(indexes, "");
}

static void
world_free(struct world *w)
{
    acre_directory_free(w->dir);
    acre_policy_release(w->p);
    talloc_free(w->mem);
}

static int
drop(void *arg, const acre_entry_view *e, const acre_verdict *v)
{
    (void)e, (void)v;
    ++*(int *)arg;
    return 0;
}

/* The search's LDAP result as `who`, or the negative error of
 * acre_search. */
static int
search(struct world *w, const char *who, const char *base, int scope,
       const char *filter)
{
    acre_subject subj = {.authz_dn = who};
    acre_request *rq;
    int ldap_rc = -1, n = 0;

    cr_assert_eq(
        acre_request_begin(w->p, &subj, acre_directory_host(w->dir), &rq), 0);
    int rc =
        acre_search(rq, base, scope, filter, NULL, 0, drop, &n, &ldap_rc, NULL);
    acre_request_end(rq);
    if (rc)
        return rc;
    if (ldap_rc == 11)
        cr_expect_eq(n, 0, "an entry before adminLimitExceeded");
    return ldap_rc;
}

/* The smallest of the limits 1, 2, 4 and 7 that lets the search through
 * (8: none does), as the tables below give slapd's. */
static int
passes_from(struct world *w, const char *base, int scope, const char *filter)
{
    static const char *const who[] = {L(1), L(2), L(4), L(7)};
    static const int lim[] = {1, 2, 4, 7};
    int from = 8;

    for (int i = 0; i < 4; i++) {
        int rc = search(w, who[i], base, scope, filter);
        cr_assert(rc == 0 || rc == 11, "%s as %s: %d (%s)", filter, who[i], rc,
                  rc < 0 ? acre_strerror(rc) : "");
        if (rc == 0 && from == 8)
            from = lim[i];
        else if (rc)
            cr_expect_eq(from, 8, "%s: %s refused, a smaller limit not", filter,
                         who[i]);
    }
    return from;
}

Test(unchecked, search_limits_reports_it)
{
    struct world w = world("");
    acre_limits asked = {0, 0, 0}, out;
    acre_request *rq;
    acre_dn *top;

    static const struct {
        const char *who;
        int rc;
        long unchecked;
    } cases[] = {
        {L(4), 0, 4},
        {"cn=admin," TOP, 0, ACRE_LIMIT_NONE}, /* the rootdn */
        {"cn=other,o=users", 0, ACRE_LIMIT_NONE},
        {"cn=off,o=users", ACRE_ERR_ADMIN_LIMIT, 0},
    };

    cr_assert_eq(acre_dn_parse(w.mem, acre_policy_schema(w.p), TOP, strlen(TOP),
                               0, &top, NULL),
                 0);
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        acre_subject subj = {.authz_dn = cases[i].who};
        cr_assert_eq(
            acre_request_begin(w.p, &subj, acre_directory_host(w.dir), &rq), 0);
        int rc = acre_search_limits(rq, top, &asked, &out);
        cr_expect_eq(rc, cases[i].rc, "%s: %s", cases[i].who,
                     acre_strerror(rc));
        if (!rc)
            cr_expect_eq(out.unchecked, cases[i].unchecked, "%s: %ld",
                         cases[i].who, out.unchecked);
        acre_request_end(rq);
    }
    acre_dn_free(top);
    world_free(&w);
}

/* Without an equality index on objectClass every filter has all the
 * database's 8 entries as candidates: the entries in scope decide. */
Test(unchecked, no_index_counts_the_scope)
{
    struct world w = world("index cn,uid eq,sub\n");

    cr_expect_eq(passes_from(&w, TOP, ACRE_SCOPE_SUB, "(objectClass=*)"), 8);
    cr_expect_eq(passes_from(&w, TOP, ACRE_SCOPE_SUB, "(uid=u1)"), 8);
    cr_expect_eq(passes_from(&w, PEOPLE, ACRE_SCOPE_SUB, "(uid=u1)"), 4);
    cr_expect_eq(passes_from(&w, PEOPLE, ACRE_SCOPE_ONE, "(uid=u1)"), 4);
    cr_expect_eq(passes_from(&w, PEOPLE, ACRE_SCOPE_CHILDREN, "(uid=u1)"), 4);
    cr_expect_eq(passes_from(&w, "uid=u1," PEOPLE, ACRE_SCOPE_SUB, "(cn=*)"),
                 1);
    /* a base search has one candidate: never refused */
    cr_expect_eq(passes_from(&w, TOP, ACRE_SCOPE_BASE, "(objectClass=*)"), 1);
    /* "disabled" refuses every search, before the base is looked at */
    cr_expect_eq(search(&w, "cn=off,o=users", "cn=nosuch," TOP, ACRE_SCOPE_BASE,
                        "(objectClass=*)"),
                 11);
    /* the rootdn has no limit */
    cr_expect_eq(
        search(&w, "cn=admin," TOP, TOP, ACRE_SCOPE_SUB, "(objectClass=*)"), 0);
    world_free(&w);
}

/* With objectClass indexed for equality, the filter's own index
 * candidates count (slapd's answers on this data). */
Test(unchecked, index_candidates_count)
{
    struct world w = world("index objectClass eq\nindex uid eq,sub,approx\n"
                           "index mail eq,sub\nindex member pres,eq\n"
                           "index cn subinitial,approx\nindex uidNumber eq\n");

    static const struct {
        const char *filter;
        int from;
    } cases[] = {
        {"(objectClass=*)", 8},
        {"(uid=u1)", 2},              /* u1 and u3 (uid U1) */
        {"(mail=u1@example.com)", 2}, /* both mails, case ignored */
        {"(member=*)", 2},            /* the two groups */
        {"(&(objectClass=groupOfNames)(member=uid=u2," PEOPLE "))", 2},
        {"(mail=*example*)", 2}, /* the substrings keys */
        {"(cn=u*)", 8},          /* too short for a key: all */
        {"(|(objectClass=organizationalUnit)(uid=u2))", 4},
        {"(!(uid=u1))", 8}, /* NOT: all */
        {"(entryDN=ou=groups," TOP ")", 1},
        {"(sn=one)", 8},             /* not indexed: all */
        {"(objectClass=person)", 4}, /* inetOrgPerson's superclass */
        {"(|)", 1},                  /* none: never refused */
        {"(nosuchattr=1)", 1},
        {"(!(nosuchattr=1))", 8},
        {"(!(&))", 1},
        {"(uid~=u1)", 4},      /* u1 u2 u3: the code of "u" */
        {"(cn~=U Three)", 1},  /* one entry has both words */
        {"(cn~=three 12)", 1}, /* the walk fails at a word without
                                  letters: the referrals, none */
        {"(cn~=12 three)", 8}, /* ... at the first key: all */
    };

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        cr_expect_eq(passes_from(&w, TOP, ACRE_SCOPE_SUB, cases[i].filter),
                     cases[i].from, "%s", cases[i].filter);
    /* an indexed integer type with no value: no key, no candidate */
    cr_expect_eq(search(&w, L(2), TOP, ACRE_SCOPE_SUB, "(uidNumber>=5)"), 0);
    cr_expect_eq(
        search(&w, L(2), TOP, ACRE_SCOPE_SUB, "(uidNumber>=123456789)"), 0);
    cr_expect_eq(search(&w, L(2), "uid=u1," PEOPLE, ACRE_SCOPE_BASE,
                        "(uidNumber>=123456789)"),
                 0);
    world_free(&w);
}

/* mdb_idl_intersection answers two lists whose ID ranges meet in one ID
 * with that ID, before it looks at the lists: (uid=u1) is u1 and u3 (IDs
 * 3 and 5 of the database, slapadd's load order), and its AND with the
 * entryDN item of u2 (ID 4) gives u2, with that of ou=people (2) nothing.
 * slapd 2.5.13 answers each of these so. */
Test(unchecked, one_id_ranges_intersect_in_it)
{
    struct world w = world("index objectClass eq\nindex uid eq\n");

    static const struct {
        const char *filter;
        int from;
    } cases[] = {
        {"(|(entryDN=ou=groups," TOP ")(&(uid=u1)(entryDN=uid=u2," PEOPLE ")))",
         2},
        {"(|(entryDN=ou=groups," TOP ")(&(entryDN=uid=u2," PEOPLE ")(uid=u1)))",
         2},
        {"(|(entryDN=ou=groups," TOP ")(&(uid=u1)(entryDN=" PEOPLE ")))", 1},
        {"(&(uid=u1)(entryDN=uid=u2," PEOPLE "))", 1},
    };

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        cr_expect_eq(passes_from(&w, TOP, ACRE_SCOPE_SUB, cases[i].filter),
                     cases[i].from, "%s", cases[i].filter);
    world_free(&w);
}

/* >= and <= on an indexed integer walk the keys in order and stop once
 * the entries reach the limit, so the refusal is not monotonic in it
 * (slapd 2.5.13 answers each of these the same on the same data); <=
 * walks the presence key first. */
Test(unchecked, ordered_keys_stop_at_the_limit)
{
    static const char more[] =
        "dn: cn=n1," PEOPLE "\nobjectClass: person\n"
        "objectClass: extensibleObject\ncn: n1\nsn: n\nuidNumber: -3\n\n"
        "dn: cn=n2," PEOPLE "\nobjectClass: person\n"
        "objectClass: extensibleObject\ncn: n2\nsn: n\nuidNumber: 0\n\n"
        "dn: cn=n3," PEOPLE "\nobjectClass: person\n"
        "objectClass: extensibleObject\ncn: n3\nsn: n\nuidNumber: 5\n\n"
        "dn: cn=n4," PEOPLE "\nobjectClass: person\n"
        "objectClass: extensibleObject\ncn: n4\nsn: n\nuidNumber: 5\n\n"
        "dn: cn=n5," PEOPLE "\nobjectClass: person\n"
        "objectClass: extensibleObject\ncn: n5\nsn: n\nuidNumber: 5\n";
    struct world w =
        world_with("index objectClass eq\nindex uidNumber eq\n", more);

    /* keys -3 (1 entry), 0 (1), 5 (3): the walk stops once it has as
     * many entries as the limit, then compares what it has */
    static const char *const f[] = {"(uidNumber>=-5)", "(uidNumber<=5)"};
    for (int i = 0; i < 2; i++) {
        cr_expect_eq(search(&w, L(1), TOP, ACRE_SCOPE_SUB, f[i]), 0);
        cr_expect_eq(search(&w, L(2), TOP, ACRE_SCOPE_SUB, f[i]), 0);
        cr_expect_eq(search(&w, L(4), TOP, ACRE_SCOPE_SUB, f[i]), 11);
        cr_expect_eq(search(&w, L(7), TOP, ACRE_SCOPE_SUB, f[i]), 0);
    }
    cr_expect_eq(search(&w, L(1), TOP, ACRE_SCOPE_SUB, "(uidNumber>=1)"), 11);
    world_free(&w);

    /* with a presence index, <= starts with every entry of the type */
    w = world_with("index objectClass eq\nindex uidNumber pres,eq\n", more);
    cr_expect_eq(search(&w, L(2), TOP, ACRE_SCOPE_SUB, "(uidNumber<=-5)"), 11);
    cr_expect_eq(search(&w, L(4), TOP, ACRE_SCOPE_SUB, "(uidNumber<=-5)"), 11);
    cr_expect_eq(search(&w, L(7), TOP, ACRE_SCOPE_SUB, "(uidNumber<=-5)"), 0);
    cr_expect_eq(search(&w, L(1), TOP, ACRE_SCOPE_SUB, "(uidNumber>=0)"), 0);
    world_free(&w);
}

/* names -- acre_search's callback: the entry's first RDN value, after a
 * space, appended to the buffer arg (256 bytes). */
static int
names(void *arg, const acre_entry_view *e, const acre_verdict *v)
{
    char *buf = arg;
    size_t n;
    const char *dn = acre_dn_normalised(e->dn, &n);
    const char *eq = memchr(dn, '=', n), *end = memchr(dn, ',', n);

    (void)v;
    if (eq && end && eq < end && strlen(buf) + (size_t)(end - eq) + 1 < 256) {
        strcat(buf, " ");
        strncat(buf, eq + 1, (size_t)(end - eq - 1));
    }
    return 0;
}

/* The entries the search returns as who, with request flags: their
 * names, or "refused". */
static const char *
found_flags(struct world *w, const char *who, unsigned flags,
            const char *filter, char buf[256])
{
    acre_subject subj = {.authz_dn = who};
    acre_request *rq;
    int ldap_rc = -1;

    buf[0] = 0;
    cr_assert_eq(
        acre_request_begin(w->p, &subj, acre_directory_host(w->dir), &rq), 0);
    acre_request_set_flags(rq, flags);
    int rc = acre_search(rq, TOP, ACRE_SCOPE_SUB, filter, NULL, 0, names, buf,
                         &ldap_rc, NULL);
    acre_request_end(rq);
    cr_assert_eq(rc, 0, "%s: %s", filter, acre_strerror(rc));
    return ldap_rc == 11 ? "refused" : buf;
}

static const char *
found(struct world *w, const char *who, const char *filter, char buf[256])
{
    return found_flags(w, who, 0, filter, buf);
}

/* A search as who and the entries it should return (found's form). */
struct fcase {
    const char *who, *filter, *found;
};

/* Each search of cases[0..n) returns what it says. */
static void
expect_found(struct world *w, const struct fcase *cases, size_t n)
{
    char buf[256];

    for (size_t i = 0; i < n; i++)
        cr_expect_str_eq(found(w, cases[i].who, cases[i].filter, buf),
                         cases[i].found, "%s as %s", cases[i].filter,
                         cases[i].who);
}

/* back-mdb searches its candidates alone, and they can leave out entries
 * the filter matches: an ordered walk stops at the limit, and an
 * approximate item whose word without letters (an empty code: a key
 * LMDB will not read) comes after one with letters fails the walk, which
 * leaves an AND as if the item were not there (but an AND that failed
 * at its first member keeps nothing), an OR with nothing after the
 * members before it, and the search with the referrals.  Each answer is
 * slapd 2.5.13's for the same configuration and data. */
Test(unchecked, candidates_bound_the_entries)
{
    static const char more[] =
        "dn: cn=d1," PEOPLE "\nobjectClass: person\ncn: d1\nsn: d\n"
        "description: x y\n\n"
        "dn: cn=d2," PEOPLE "\nobjectClass: person\ncn: d2\nsn: d\n"
        "description: x y z\n\n"
        "dn: cn=d3," PEOPLE "\nobjectClass: person\ncn: d3\nsn: d\n"
        "description: x\n\n"
        "dn: cn=n1," PEOPLE "\nobjectClass: person\n"
        "objectClass: extensibleObject\ncn: n1\nsn: n\nuidNumber: -3\n\n"
        "dn: cn=n2," PEOPLE "\nobjectClass: person\n"
        "objectClass: extensibleObject\ncn: n2\nsn: n\nuidNumber: 0\n\n"
        "dn: cn=n3," PEOPLE "\nobjectClass: person\n"
        "objectClass: extensibleObject\ncn: n3\nsn: n\nuidNumber: 5\n";
    struct world w = world_with("index objectClass eq\nindex uidNumber eq\n"
                                "index description approx\nindex sn eq\n",
                                more);

    static const struct fcase cases[] = {
        {"cn=admin," TOP, "(description~=x)", " d1 d2 d3"},
        {"cn=admin," TOP, "(description~=x y)", ""},
        {"cn=admin," TOP, "(description~=x y z)", ""},
        {"cn=admin," TOP, "(&(sn=d)(description~=x y))", " d1 d2"},
        {"cn=admin," TOP, "(&(description~=x y)(sn=d))", ""},
        {"cn=admin," TOP, "(|(sn=d)(description~=x y))", ""},
        {"cn=admin," TOP, "(&(sn=d)(|(description~=x y)(cn=d3)))", " d1 d2 d3"},
        {"cn=admin," TOP, "(!(description~=x y))",
         " example people u1 u2 u3 groups g1 g2 d3 n1 n2 n3"},
        {L(2), "(description~=x y)", ""},
        {L(2), "(description~=x)", "refused"},
        {"cn=admin," TOP, "(uidNumber>=-5)", " n1 n2 n3"},
        {L(1), "(uidNumber>=-5)", " n1"},
        {L(2), "(uidNumber>=-5)", " n1 n2"},
        {L(2), "(uidNumber<=5)", " n1 n2"},
        {L(4), "(uidNumber>=-5)", " n1 n2 n3"},
    };

    expect_found(&w, cases, sizeof cases / sizeof *cases);
    world_free(&w);
}

/* With the subentries control back-mdb ANDs the filter with
 * (objectClass=subentry), first, and asks no referrals: the candidates
 * are the subentries the filter's own candidates have (slapd 2.5.13
 * answers so on data of the same shape: a subentry beside entries with
 * uid indexed). */
Test(unchecked, the_subentries_control_ands_the_subentries)
{
    static const char more[] = "dn: cn=sub1," TOP "\nobjectClass: subentry\n"
                               "cn: sub1\nsubtreeSpecification: {}\n";
    struct world w = world_with("index objectClass eq\nindex uid eq\n", more);

    static const struct {
        const char *who, *filter;
        unsigned flags;
        const char *found;
    } cases[] = {
        {L(1), "(objectClass=*)", 0, "refused"},
        {L(1), "(objectClass=*)", ACRE_REQ_SUBENTRIES, " sub1"},
        {L(1), "(cn=*)", ACRE_REQ_SUBENTRIES, " sub1"},
        {L(1), "(uid=u1)", ACRE_REQ_SUBENTRIES, ""},
        {L(1), "(|(uid=u1)(uid=u2))", 0, "refused"},
        {L(1), "(|(uid=u1)(uid=u2))", ACRE_REQ_SUBENTRIES, ""},
        {L(1), "(objectClass=subentry)", 0, ""},
        {L(1), "(objectClass=subentry)", ACRE_REQ_SUBENTRIES, " sub1"},
    };

    char buf[256];

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        cr_expect_str_eq(
            found_flags(&w, cases[i].who, cases[i].flags, cases[i].filter, buf),
            cases[i].found, "%s (flags %u)", cases[i].filter, cases[i].flags);
    world_free(&w);
}

/* An integer's index key is exact from -2^30 to 2^30 - 1; past that it
 * keeps the value's leading bytes after a count of those dropped, so
 * neighbours share a key and are each other's candidates, for equality
 * and in an ordered walk (slapd 2.5.13's answers on the same values). */
Test(unchecked, long_integers_share_index_keys)
{
    static const char *const vals[] = {
        "99999999999",  "99999999998", "1073741823",  "1073741824",
        "1073741825",   "-1073741825", "-1073741826", "123456789012",
        "123456789999", "5",
    };
    char *more = talloc_strdup(ctx, "");
    for (size_t i = 0; i < sizeof vals / sizeof *vals; i++)
        more = talloc_asprintf_append(
            more,
            "dn: cn=n%zu," TOP "\nobjectClass: person\n"
            "objectClass: extensibleObject\ncn: n%zu\nsn: n\n"
            "uidNumber: %s\n\n",
            i + 1, i + 1, vals[i]);
    struct world w =
        world_with("index objectClass eq\nindex uidNumber eq\n", more);

    static const struct fcase cases[] = {
        {L(1), "(uidNumber=99999999999)", "refused"},
        {L(1), "(uidNumber=1073741824)", "refused"},
        {L(1), "(uidNumber=1073741823)", " n3"},
        {L(1), "(uidNumber=123456789012)", "refused"},
        {L(1), "(uidNumber>=99999999999)", "refused"},
        {L(1), "(uidNumber<=-1073741825)", "refused"},
        {L(1), "(uidNumber=-1073741826)", "refused"},
        {L(2), "(uidNumber=99999999999)", " n1"},
        {L(2), "(uidNumber=1073741824)", " n4"},
        {L(2), "(uidNumber=123456789012)", " n8"},
        {L(2), "(uidNumber>=99999999999)", " n1"},
        {L(2), "(uidNumber<=-1073741825)", " n6 n7"},
        {L(2), "(uidNumber>=1073741824)", " n4 n5"},
        {L(2), "(uidNumber=-1073741826)", " n7"},
    };

    expect_found(&w, cases, sizeof cases / sizeof *cases);
    world_free(&w);
    talloc_free(more);
}

/* A generalizedTime's index key is 40 bits of the seconds since the year
 * 0000 as slapd's lutil_tm2gtime lays them out, and its last 32 bits
 * wrap on the last seconds of the days before each 2^25 of its first
 * part (after 18:35:43 on 1905-06-06, 01:03:59 on 2041-07-13), which
 * then sort first: an ordered walk goes by the keys (slapd 2.5.13's
 * answers on the same values). */
Test(unchecked, time_keys_as_slapd_makes_them)
{
    static const char *const vals[] = {
        "20410712120000Z", "20410713010000Z", "20410713020000Z",
        "20410713230000Z", "20410714000000Z", "19050606180000Z",
        "19050606190000Z", "19050607000000Z", "20200101000000Z",
    };
    char *more = talloc_strdup(ctx, "");
    for (size_t i = 0; i < sizeof vals / sizeof *vals; i++)
        more = talloc_asprintf_append(more,
                                      "dn: cn=t%zu," TOP
                                      "\nobjectClass: person\ncn: t%zu\n"
                                      "sn: t\ncreateTimestamp: %s\n\n",
                                      i + 1, i + 1, vals[i]);
    struct world w =
        world_with("index objectClass eq\nindex createTimestamp eq\n", more);

    static const struct fcase cases[] = {
        {L(1), "(createTimestamp>=20410713000000Z)", " t2"},
        {L(1), "(createTimestamp>=20410713013000Z)", " t3"},
        {L(1), "(createTimestamp<=20410713013000Z)", " t7"},
        {L(1), "(createTimestamp>=20410713030000Z)", ""},
        {L(1), "(createTimestamp>=19050606183000Z)", " t3"},
        {L(1), "(createTimestamp<=19050606183000Z)", ""},
        {L(1), "(createTimestamp>=19050606185000Z)", " t7"},
        {L(1), "(createTimestamp=20410713020000Z)", " t3"},
        {L(2), "(createTimestamp>=20410713000000Z)", " t2 t5"},
        {L(2), "(createTimestamp>=20410713013000Z)", " t3"},
        {L(2), "(createTimestamp<=20410713013000Z)", " t6 t7"},
        {L(2), "(createTimestamp>=20410713030000Z)", " t4"},
        {L(2), "(createTimestamp>=19050606183000Z)", " t3 t8"},
        {L(2), "(createTimestamp<=19050606183000Z)", " t6"},
        {L(2), "(createTimestamp>=19050606185000Z)", " t7"},
    };

    expect_found(&w, cases, sizeof cases / sizeof *cases);
    world_free(&w);
    talloc_free(more);
}

/* With a presence index, a time <= walk's first key that holds a single
 * entry reads the presence key's entries instead (LMDB's cursor keeps
 * the duplicates of the presence key it passed over): every entry with
 * a time becomes a candidate.  Nothing when the first key is past the
 * assertion (18:50 on the wrapping day sorts before 19:00's key).
 * slapd 2.5.13's answers on this data, every entry holding its
 * createTimestamp (slapadd would add one). */
Test(unchecked, time_walk_reads_the_presence_key)
{
    static const char ldif[] =
        "dn: " TOP "\nobjectClass: dcObject\nobjectClass: organization\n"
        "o: Example\ndc: example\ncreateTimestamp: 20200101000000Z\n\n"
        "dn: cn=t1," TOP "\nobjectClass: person\ncn: t1\nsn: t\n"
        "createTimestamp: 19050606190000Z\n\n"
        "dn: cn=t2," TOP "\nobjectClass: person\ncn: t2\nsn: t\n"
        "createTimestamp: 19050606180000Z\n\n"
        "dn: cn=t3," TOP "\nobjectClass: person\ncn: t3\nsn: t\n"
        "createTimestamp: 19050606180000Z\n\n"
        "dn: cn=t4," TOP "\nobjectClass: person\ncn: t4\nsn: t\n"
        "createTimestamp: 20000101000000Z\n";
    struct world w = world_ldif(
        "index objectClass eq\nindex createTimestamp pres,eq\n", ldif);

    static const struct fcase cases[] = {
        {L(4), "(createTimestamp<=19050606180000Z)", "refused"},
        {L(7), "(createTimestamp<=19050606180000Z)", " t2 t3"},
        {L(4), "(createTimestamp<=19050606190000Z)", "refused"},
        {L(7), "(createTimestamp<=19050606190000Z)", " t1 t2 t3"},
        {L(1), "(createTimestamp<=19050606185000Z)", ""},
        {L(7), "(createTimestamp<=19050606185000Z)", ""},
        {L(4), "(createTimestamp<=20000101000000Z)", "refused"},
        {L(7), "(createTimestamp<=20000101000000Z)", " t1 t2 t3 t4"},
        {L(1), "(createTimestamp>=19050606180000Z)", "refused"},
        {L(2), "(createTimestamp>=19050606180000Z)", " t2 t3"},
        {L(4), "(createTimestamp>=19050606180000Z)", " example t2 t3 t4"},
    };

    expect_found(&w, cases, sizeof cases / sizeof *cases);
    world_free(&w);
}
