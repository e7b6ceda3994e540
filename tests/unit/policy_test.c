/*
 * policy_test.c -- the compiled policy through the public API: compiling
 * (and refusing) rule text, the subtree index, checks, verdicts, explain,
 * and that deciding entries allocates nothing.
 */
#include "acre.h"
#include "dn.h"                  /* acreD_set_hash_hook */
#include "eval.h"                /* acreV_set_shape_slots */
#include "openldap_oracle_int.h" /* acreR_slapd_dn */

#include <criterion/criterion.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>
#include <talloc.h>

static void *ctx;
static acre_schema *schema;
static acre_directory *dir;

static const char ldif[] =
    "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
    "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\n"
    "ou: people\n\n"
    "dn: uid=alice,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
    "uid: alice\ncn: Alice\nsn: A\nmail: alice@example.com\n"
    "userPassword: secret\n\n"
    "dn: uid=bob,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
    "uid: bob\ncn: Bob\nsn: B\nmail: bob@example.com\n"
    "manager: uid=alice,ou=people,dc=example,dc=com\n\n"
    "dn: ou=groups,dc=example,dc=com\nobjectClass: organizationalUnit\n"
    "ou: groups\n\n"
    "dn: cn=admins,ou=groups,dc=example,dc=com\nobjectClass: groupOfNames\n"
    "cn: admins\nmember: uid=alice,ou=people,dc=example,dc=com\n";

static const char conf[] =
    "access to attrs=userPassword\n"
    "  by self write\n"
    "  by anonymous auth\n"
    "  by * none\n"
    "database mdb\n"
    "suffix \"dc=example,dc=com\"\n"
    "rootdn \"cn=manager,dc=example,dc=com\"\n"
    "access to dn.subtree=\"ou=groups,dc=example,dc=com\"\n"
    "  by group=\"cn=admins,ou=groups,dc=example,dc=com\" write\n"
    "  by users read\n"
    "access to dn.one=\"ou=people,dc=example,dc=com\" attrs=mail\n"
    "  by dnattr=manager read\n"
    "  by self read\n"
    "  by * break\n"
    "access to dn.regex=\"^uid=([^,]+),ou=people,dc=example,dc=com$\"\n"
    "  by dn.exact,expand=\"uid=$1,ou=people,dc=example,dc=com\" write\n"
    "  by users read\n"
    "  by anonymous search\n"
    "access to * by * read\n";

static void
setup(void)
{
    ctx = talloc_new(NULL);
    cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &schema, NULL), 0);
    cr_assert_eq(acre_directory_load(ctx, schema, "t.ldif", ldif, strlen(ldif),
                                     &dir, NULL),
                 0);
}

static void
teardown(void)
{
    talloc_free(ctx);
}

static acre_policy *
compile(const char *text, acre_diag *d)
{
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "slapd.conf", text,
                       strlen(text)};
    acre_policy *p = NULL;
    acre_schema *s;

    cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &s, NULL), 0);
    int rc = acre_policy_compile(ctx, s, &src, 1, 0, &p, d);
    if (rc)
        return NULL;
    /* the directory must share the policy's schema */
    schema = s;
    cr_assert_eq(
        acre_directory_load(ctx, s, "t.ldif", ldif, strlen(ldif), &dir, NULL),
        0);
    return p;
}

static const acre_entry *
entry(const char *dn)
{
    acre_dn *d;
    cr_assert_eq(acre_dn_parse(ctx, schema, dn, strlen(dn), 0, &d, NULL), 0);
    const acre_entry *e = acre_directory_find(dir, d);
    cr_assert(e, "%s", dn);
    return e;
}

static acre_request *
begin(acre_policy *p, const char *who)
{
    acre_subject s = {.authz_dn = who};
    acre_request *rq;
    cr_assert_eq(acre_request_begin(p, &s, acre_directory_host(dir), &rq), 0);
    return rq;
}

TestSuite(policy, .init = setup, .fini = teardown);

/* dnattr=T takes the values of T and of its subtypes (slapd's attrs_find
 * matches by is_ad_subtype): distinguishedName takes the admins' member
 * value (member's SUP is distinguishedName); member, which no type
 * descends from, takes it by its own type; seeAlso, and manager (no SUP
 * in slapd's cosine.schema), take nothing of the group's. */
Test(policy, dnattr_takes_subtypes_of_its_type)
{
    static const struct {
        const char *type;
        int alice; /* bob, in no value of the group, never reads */
    } cases[] = {
        {"distinguishedName", 1},
        {"member", 1},
        {"seeAlso", 0},
        {"manager", 0},
    };

    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        char text[256];
        snprintf(text, sizeof text,
                 "database mdb\nsuffix \"dc=example,dc=com\"\n"
                 "access to attrs=cn by dnattr=%s read by * none\n"
                 "access to * by * read\n",
                 cases[k].type);
        acre_policy *p = compile(text, NULL);
        cr_assert(p, "%s", cases[k].type);
        const acre_entry *grp = entry("cn=admins,ou=groups,dc=example,dc=com");
        acre_request *a = begin(p, "uid=alice,ou=people,dc=example,dc=com");
        acre_request *b = begin(p, "uid=bob,ou=people,dc=example,dc=com");
        cr_expect_eq(acre_access(a, acre_entry_view_of(grp), "cn", NULL, 0,
                                 ACRE_RIGHT_READ, NULL),
                     cases[k].alice, "dnattr=%s, alice", cases[k].type);
        cr_expect_eq(acre_access(b, acre_entry_view_of(grp), "cn", NULL, 0,
                                 ACRE_RIGHT_READ, NULL),
                     0, "dnattr=%s, bob", cases[k].type);
        acre_verdict v;
        cr_assert_eq(
            acre_entry_decide(a, acre_entry_view_of(grp), ACRE_RIGHT_READ, &v),
            0);
        unsigned seen = 0;
        for (unsigned i = 0; i < v.nattrs; i++)
            if (acre_entry_view_of(grp)->attrs[i].id ==
                acre_schema_attr_id(schema, "cn", 2)) {
                seen++;
                cr_expect_eq(v.attr[i],
                             cases[k].alice ? ACRE_ATTR_ALL : ACRE_ATTR_NONE,
                             "dnattr=%s, alice's verdict", cases[k].type);
            }
        cr_expect_eq(seen, 1);
        acre_request_end(a);
        acre_request_end(b);
        acre_policy_release(p);
    }
}

Test(policy, refuses_bad_rules_whole)
{
    acre_diag d;
    const char *bad = "database mdb\nsuffix \"dc=example,dc=com\"\n"
                      "access to * by * read\n"
                      "access to dn.bogus=x by * read\n";
    cr_expect_null(compile(bad, &d));
    cr_expect_eq(d.code, ACRE_ERR_RULE_SYNTAX);
    cr_expect_eq(d.line, 4);
    cr_expect_gt(d.column, 0);
    cr_expect_str_eq(d.file, "slapd.conf");
    cr_expect_str_eq(acre_strerror(ACRE_ERR_RULE_SYNTAX), "rule syntax error");
}

Test(policy, refuses_input_slapd_refuses)
{
    /* each compiled before, with rules lost: a CR-only file was one
     * comment line (no rule: read for all, userPassword too), the second
     * suffix was dropped (its entries under the default read) */
    static const char *const bad[] = {
        "# policy\rdatabase mdb\rsuffix \"dc=example,dc=com\"\r"
        "access to attrs=userPassword by * none\r",
        "database mdb\nsuffix \"dc=example,dc=com\" \"o=other\"\n"
        "access to * by * none\n",
        "database mdb extra\nsuffix \"dc=example,dc=com\"\n",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
        acre_diag d;
        cr_expect_null(compile(bad[i], &d), "%s", bad[i]);
        cr_expect_eq(d.code, ACRE_ERR_RULE_SYNTAX, "%s", bad[i]);
        cr_expect_gt(d.line, 0);
        cr_expect_gt(d.column, 0);
    }
}

Test(policy, evaluation_limit_denies)
{
    /* a regex that backtracks exponentially on the requester's DN */
    acre_policy *p = compile("database mdb\n"
                             "suffix \"dc=example,dc=com\"\n"
                             "access to * by dn.regex=\"^cn=(a|aa)*c\" none"
                             " by * read\n",
                             NULL);
    cr_assert(p);
    char dn[128] = "cn=";
    memset(dn + 3, 'a', 48);
    strcpy(dn + 51, "b,dc=example,dc=com");
    acre_request *rq = begin(p, dn);
    const acre_entry *bob = entry("uid=bob,ou=people,dc=example,dc=com");
    for (int i = 0; i < 2; i++) /* never cached as an answer */
        cr_expect_eq(acre_access(rq, acre_entry_view_of(bob), "cn", NULL, 0,
                                 ACRE_RIGHT_READ, NULL),
                     ACRE_ERR_EVAL_LIMIT);
    acre_request_end(rq);
    rq = begin(p, dn);
    cr_expect_eq(acre_access(rq, acre_entry_view_of(bob), "cn", NULL, 0,
                             ACRE_RIGHT_READ, NULL),
                 ACRE_ERR_EVAL_LIMIT);
    acre_request_end(rq);
    acre_policy_release(p);
}

/* A run of slots longer than a slot can count (ACREP_RUN_MAX) is passed
 * by in steps, and the walk goes on with the rule after it: a step too far
 * reaches "by * none", one too short only costs time. */
Test(policy, long_runs_passed_by_in_steps)
{
    char *text = talloc_strdup(ctx, "database mdb\n"
                                    "suffix \"dc=example,dc=com\"\n"
                                    "access to attrs=entry by users read\n");
    for (int i = 0; i < 600; i++) /* a run on the filter */
        text = talloc_asprintf_append(
            text, "access to dn.subtree=\"ou=people,dc=example,dc=com\" "
                  "filter=(title=boss) attrs=mail by * write\n");
    for (int i = 0; i < 600; i++) /* a run on the list */
        text = talloc_asprintf_append(
            text, "access to dn.subtree=\"ou=people,dc=example,dc=com\" "
                  "attrs=telephoneNumber by * write\n");
    text = talloc_asprintf_append(
        text, "access to dn.subtree=\"ou=people,dc=example,dc=com\" "
              "attrs=mail,cn by users read\n"
              "access to * by * none\n");
    cr_assert(text);
    acre_policy *p = compile(text, NULL);
    cr_assert(p);
    acre_request *rq = begin(p, "uid=alice,ou=people,dc=example,dc=com");
    const acre_entry *bob = entry("uid=bob,ou=people,dc=example,dc=com");
    static const char *const attrs[] = {"mail", "cn", "sn"};
    static const int granted[] = {1, 1, 0};
    for (int i = 0; i < 3; i++) {
        int g = -1;
        cr_expect_eq(acre_access(rq, acre_entry_view_of(bob), attrs[i], NULL, 0,
                                 ACRE_RIGHT_READ, NULL),
                     granted[i], "%s", attrs[i]);
        cr_expect_eq(acre_access(rq, acre_entry_view_of(bob), attrs[i], NULL, 0,
                                 ACRE_RIGHT_WRITE, NULL),
                     0, "%s", attrs[i]);
        char *ex = acre_explain(rq, acre_entry_view_of(bob), attrs[i], NULL, 0,
                                ACRE_RIGHT_READ, &g);
        cr_assert(ex);
        cr_expect_eq(g, granted[i], "%s: %s", attrs[i], ex);
        free(ex);
    }
    acre_verdict v;
    cr_assert_eq(
        acre_entry_decide(rq, acre_entry_view_of(bob), ACRE_RIGHT_READ, &v), 0);
    cr_expect(v.visible);
    int mail = acre_schema_attr_id(schema, "mail", 4);
    int cn = acre_schema_attr_id(schema, "cn", 2);
    cr_assert_eq(v.nattrs, acre_entry_view_of(bob)->nattrs);
    for (uint32_t k = 0; k < v.nattrs; k++) {
        int id = acre_entry_view_of(bob)->attrs[k].id;
        cr_expect_eq(v.attr[k] == ACRE_ATTR_ALL, id == mail || id == cn,
                     "attribute %u (id %d)", k, id);
    }
    acre_request_end(rq);
    acre_policy_release(p);
}

Test(policy, missing_include_fails_closed)
{
    acre_diag d;
    cr_expect_null(compile("include /nonexistent/rules.acl\n"
                           "access to * by * read\n",
                           &d));
    cr_expect_eq(d.code, ACRE_ERR_RULE_IO);
    cr_expect_eq(d.line, 1);
    /* nor may a schema file be missing: any file may hold rules, and
     * slapd refuses it too */
    cr_expect_null(compile("include /nonexistent/extra.schema\n"
                           "access to * by * read\n",
                           &d));
    cr_expect_eq(d.code, ACRE_ERR_RULE_IO);
    cr_expect_eq(d.line, 1);
}

Test(policy, index_and_stats)
{
    acre_policy *p = compile(conf, NULL);
    cr_assert(p);
    acre_policy_stats st;
    acre_policy_stats_get(p, &st);
    cr_expect_eq(st.rules, 5);
    /* the global rule and "*"; the regex is below ou=people */
    cr_expect_eq(st.residual, 2);
    /* root, suffix, ou=groups, ou=people */
    cr_expect_eq(st.nodes, 4);
    cr_expect_gt(st.bytes, 0);
    char *dump = acre_policy_dump(p);
    cr_assert(dump);
    cr_expect(strstr(dump, "node 2 \"ou=groups,dc=example,dc=com\""), "%s",
              dump);
    free(dump);
    cr_expect_eq(acre_policy_ref(p), p);
    acre_policy_release(p);
    acre_policy_release(p);
}

/* Where a dn.regex target goes: under the DN its literal tail names
 * (the part after a ',' is whole RDNs of slapd's text), or residual when
 * the tail may be spelled otherwise or the pattern may end elsewhere. */
Test(policy, regex_targets_indexed_under_their_tail)
{
    static const struct {
        const char *re, *want; /* want: the dump's scope text */
    } t[] = {
        {"^uid=p[0-9]*7,ou=unit3,ou=people,dc=example,dc=com$",
         "regex indexed depth >= 5"},
        {"^ou=People,DC=Example,dc=com$", "regex indexed depth 3"},
        {"uid=[^,]+,ou=people,dc=example,dc=com$", "regex indexed depth >= 4"},
        {",dc=example,dc=com$", "regex indexed depth >= 3"},
        {"(a|b),dc=example,dc=com$", "regex indexed depth >= 3"},
        {"x*,dc=example,dc=com$", "regex indexed depth >= 3"},
        /* no tail, or not whole RDNs of a DN that folds case */
        {"ou=people,dc=example,dc=com", "regex\n"},
        {"a|b,dc=example,dc=com$", "regex\n"},
        {"^uid=([^,]+),(ou=people,dc=example,dc=com)$", "regex\n"},
        {"dc=example,dc=com$", "regex indexed depth >= 2"},
        {"uid=a,dc=example,dc=co[m]$", "regex\n"},
        {"uid=a,dc=example,dc=co.$", "regex\n"},
        {"uid=a,dc=example,dc=comm*$", "regex\n"},
        {"uid=a,dc=example,dc=com{1}$", "regex\n"},
        {"uid=a,dc=example,dc=com\\\\$", "regex\n"}, /* \$ in the ERE */
        {"uid=a,dc=ex  ample,dc=com$", "regex\n"},
        {"uid=a,labeledURI=x,dc=com$", "regex\n"}, /* caseExact */
        {"uid=a,ou=a=b,dc=com$", "regex\n"},
        {"uid=a,dc=example,dc=com$$", "regex\n"},
        {"uid=a,dc=example,dc=c^om$", "regex\n"},
        {"uid=a,dc=example,dc=com)$", "regex\n"},
    };

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        char *text =
            talloc_asprintf(ctx,
                            "database mdb\nsuffix \"dc=example,dc=com\"\n"
                            "access to dn.regex=\"%s\" by users read\n",
                            t[i].re);
        acre_diag d = {0};
        acre_policy *p = compile(text, &d);
        cr_assert(p, "%s: %s", t[i].re, d.message);
        char *dump = acre_policy_dump(p);
        cr_assert(dump);
        char *line = strstr(dump, "# rule 0:");
        cr_assert(line, "%s", dump);
        cr_expect(strstr(line, t[i].want) &&
                      strstr(line, t[i].want) < strchr(line, '\n') + 1,
                  "%s: %.*s", t[i].re, (int)(strchr(line, '\n') - line), line);
        acre_policy_stats st;
        acre_policy_stats_get(p, &st);
        cr_expect_eq(st.residual, strstr(t[i].want, "indexed") ? 0 : 1, "%s",
                     t[i].re);
        free(dump);
        acre_policy_release(p);
    }
}

Test(policy, checks)
{
    acre_policy *p = compile(conf, NULL);
    cr_assert(p);
    const acre_entry *alice = entry("uid=alice,ou=people,dc=example,dc=com");
    const acre_entry *bob = entry("uid=bob,ou=people,dc=example,dc=com");
    const acre_entry *grp = entry("cn=admins,ou=groups,dc=example,dc=com");
    acre_request *a = begin(p, "uid=alice,ou=people,dc=example,dc=com");
    acre_request *b = begin(p, "uid=bob,ou=people,dc=example,dc=com");
    acre_request *anon = begin(p, NULL);
    acre_request *root = begin(p, "cn=manager,dc=example,dc=com");
    uint32_t mask;
    char buf[ACRE_MASK_BUF];

    /* the database's rules decide first; the global ones after */
    cr_expect_eq(acre_access(a, acre_entry_view_of(alice), "userPassword", NULL,
                             0, ACRE_RIGHT_WRITE, NULL),
                 1);
    cr_expect_eq(acre_access(b, acre_entry_view_of(grp), "member", NULL, 0,
                             ACRE_RIGHT_WRITE, &mask),
                 0);
    cr_expect_str_eq(acre_mask_format(mask, buf), "read(=rscxd)");
    cr_expect_eq(acre_access(a, acre_entry_view_of(grp), "member", NULL, 0,
                             ACRE_RIGHT_WRITE, NULL),
                 1);
    /* dnattr: alice manages bob; "break" falls through to the regex */
    cr_expect_eq(acre_access(a, acre_entry_view_of(bob), "mail", NULL, 0,
                             ACRE_RIGHT_READ, NULL),
                 1);
    cr_expect_eq(acre_access(b, acre_entry_view_of(bob), "mail", NULL, 0,
                             ACRE_RIGHT_READ, NULL),
                 1); /* by self read: stops before the regex rule */
    cr_expect_eq(acre_access(b, acre_entry_view_of(bob), "mail", NULL, 0,
                             ACRE_RIGHT_WRITE, NULL),
                 0);
    cr_expect_eq(acre_access(anon, acre_entry_view_of(bob), "mail", NULL, 0,
                             ACRE_RIGHT_SEARCH, NULL),
                 1); /* by * break, then the regex rule */
    cr_expect_eq(acre_access(b, acre_entry_view_of(bob), "cn", NULL, 0,
                             ACRE_RIGHT_WRITE, NULL),
                 1); /* the $1 substitution */
    cr_expect_eq(acre_access(anon, acre_entry_view_of(bob), "cn", NULL, 0,
                             ACRE_RIGHT_SEARCH, NULL),
                 1);
    cr_expect_eq(acre_access(anon, acre_entry_view_of(bob), "cn", NULL, 0,
                             ACRE_RIGHT_READ, NULL),
                 0);
    cr_expect_eq(acre_access(root, acre_entry_view_of(bob), "cn", NULL, 0,
                             ACRE_RIGHT_MANAGE, NULL),
                 1);
    cr_expect_eq(acre_access(a, acre_entry_view_of(bob), "nosuchattribute",
                             NULL, 0, ACRE_RIGHT_READ, NULL),
                 ACRE_ERR_INVAL);
    /* a value check: the value is normalised like stored ones */
    cr_expect_eq(acre_access(b, acre_entry_view_of(bob), "cn", "  BOB ", 6,
                             ACRE_RIGHT_WRITE, NULL),
                 1);

    int granted = -1;
    char *ex = acre_explain(b, acre_entry_view_of(grp), "member", NULL, 0,
                            ACRE_RIGHT_WRITE, &granted);
    cr_assert(ex);
    cr_expect_eq(granted, 0);
    cr_expect(strstr(ex, "index node \"ou=groups,dc=example,dc=com\""), "%s",
              ex);
    cr_expect(strstr(ex, "denied"), "%s", ex);
    free(ex);
    acre_request_end(a);
    acre_request_end(b);
    acre_request_end(anon);
    acre_request_end(root);
    acre_policy_release(p);
}

/* Rules spelling one pattern share its answer on the entry (one match per
 * verdict), and a rule whose clauses need the submatches still gets them
 * when a rule that needs none matched first. */
Test(policy, a_shared_pattern_still_gives_each_rule_its_submatches)
{
    static const char shared[] =
        "access to dn.regex=\"^uid=([^,]+),ou=people,dc=example,dc=com$\"\n"
        "  attrs=entry,objectClass,uid by users read\n"
        "access to dn.regex=\"^uid=([^,]+),ou=people,dc=example,dc=com$\"\n"
        "  by dn.exact,expand=\"uid=$1,ou=people,dc=example,dc=com\" write\n"
        "  by * none\n";
    acre_policy *p = compile(shared, NULL);
    cr_assert(p);
    cr_assert_eq(p->nrules, 2);
    cr_expect_eq(p->rules[0].regex_slot, p->rules[1].regex_slot);
    const acre_entry *bob = entry("uid=bob,ou=people,dc=example,dc=com");
    const acre_entry_view *v = acre_entry_view_of(bob);
    acre_request *b = begin(p, "uid=bob,ou=people,dc=example,dc=com");
    acre_request *a = begin(p, "uid=alice,ou=people,dc=example,dc=com");
    acre_verdict vb, va;
    cr_assert_eq(acre_entry_decide(b, v, ACRE_RIGHT_READ, &vb), 0);
    cr_assert_eq(acre_entry_decide(a, v, ACRE_RIGHT_READ, &va), 0);
    int cn = -1, uid = -1;
    for (unsigned i = 0; i < v->nattrs; i++) {
        const char *name =
            acre_schema_attr_desc(v->schema, v->attrs[i].id, NULL);
        if (name && !strcmp(name, "cn"))
            cn = (int)i;
        if (name && !strcmp(name, "uid"))
            uid = (int)i;
    }
    cr_assert(cn > uid && uid >= 0, "uid before cn in bob's entry");
    cr_expect_eq(vb.attr[uid], ACRE_ATTR_ALL);
    cr_expect_eq(vb.attr[cn], ACRE_ATTR_ALL, "$1 substituted for bob");
    cr_assert(va.visible && vb.visible);
    cr_expect_eq(va.attr[uid], ACRE_ATTR_ALL);
    cr_expect_eq(va.attr[cn], ACRE_ATTR_NONE, "alice is not uid=bob");
    acre_request_end(a);
    acre_request_end(b);
    acre_policy_release(p);
}

Test(policy, verdict_allocates_nothing)
{
    acre_policy *p = compile(conf, NULL);
    cr_assert(p);
    acre_request *b = begin(p, "uid=bob,ou=people,dc=example,dc=com");
    const acre_entry *bob = entry("uid=bob,ou=people,dc=example,dc=com");
    acre_verdict v;

    cr_assert_eq(
        acre_entry_decide(b, acre_entry_view_of(bob), ACRE_RIGHT_READ, &v), 0);
    cr_expect(v.visible);
    /* a request is a talloc tree (white box): it must not grow */
    size_t blocks = talloc_total_blocks(b);
    size_t bytes = talloc_total_size(b);
    for (int i = 0; i < 1000; i++)
        cr_assert_eq(
            acre_entry_decide(b, acre_entry_view_of(bob), ACRE_RIGHT_READ, &v),
            0);
    cr_expect_eq(talloc_total_blocks(b), blocks);
    cr_expect_eq(talloc_total_size(b), bytes);
    unsigned readable = 0;
    for (unsigned i = 0; i < v.nattrs; i++)
        readable += v.attr[i] != ACRE_ATTR_NONE;
    cr_expect_eq(readable, v.nattrs);
    acre_request_end(b);
    acre_policy_release(p);
}

/* An indexed dn.regex target decides as the pattern does: every pattern
 * made of a prefix and a literal tail, on entries whose DNs end in that
 * tail as text but not as RDNs (an escaped ',' or '=' in a value), in
 * other cases and other subtrees, against POSIX regexec (slapd's
 * REG_EXTENDED | REG_ICASE) on slapd's text of each DN. */
Test(policy, regex_index_keeps_what_the_pattern_matches)
{
    static const char tree[] =
        "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
        "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\n"
        "ou: people\n\n"
        "dn: ou=unit3,ou=people,dc=example,dc=com\n"
        "objectClass: organizationalUnit\nou: unit3\n\n"
        "dn: uid=p17,ou=unit3,ou=people,dc=example,dc=com\n"
        "objectClass: account\nuid: p17\n\n"
        "dn: uid=p2,ou=unit3,ou=people,dc=example,dc=com\n"
        "objectClass: account\nuid: p2\n\n"
        "dn: cn=x\\2Cou=unit3,ou=people,dc=example,dc=com\n"
        "objectClass: device\ncn: x,ou=unit3\n\n"
        "dn: cn=A B,ou=people,dc=example,dc=com\nobjectClass: device\n"
        "cn: A B\n\n"
        "dn: ou=other,dc=example,dc=com\nobjectClass: organizationalUnit\n"
        "ou: other\n\n"
        "dn: uid=p17,ou=other,dc=example,dc=com\nobjectClass: account\n"
        "uid: p17\n\n"
        "dn: cn=ou\\3Dpeople,ou=other,dc=example,dc=com\n"
        "objectClass: device\ncn: ou=people\n";
    static const char *const dns[] = {
        "dc=example,dc=com",
        "ou=people,dc=example,dc=com",
        "ou=unit3,ou=people,dc=example,dc=com",
        "uid=p17,ou=unit3,ou=people,dc=example,dc=com",
        "uid=p2,ou=unit3,ou=people,dc=example,dc=com",
        "cn=x\\2Cou=unit3,ou=people,dc=example,dc=com",
        "cn=A B,ou=people,dc=example,dc=com",
        "ou=other,dc=example,dc=com",
        "uid=p17,ou=other,dc=example,dc=com",
        "cn=ou\\3Dpeople,ou=other,dc=example,dc=com",
    };
    static const char *const heads[] = {
        "",       "^",      "^uid=",      "^uid=[^,]+,", ".*,", "(a|b)?",
        "x*",     "^cn=.*", "[0-9]7,",    "p1",          "^.*", "u",
        "[a-z]+", "^ou=",   "^(cn|uid)=", ",",           "7,",  "people,"};
    static const char *const tails[] = {
        "ou=unit3,ou=people,dc=example,dc=com",
        "OU=Unit3,ou=People,DC=example,dc=COM",
        ",ou=people,dc=example,dc=com",
        "people,dc=example,dc=com",
        "dc=com",
        ",dc=com",
        "ou=people,dc=example,dc=com",
        "3,ou=people,dc=example,dc=com",
        "x,ou=unit3,ou=people,dc=example,dc=com",
        "people,ou=other,dc=example,dc=com",
        "example,dc=com",
        "ou=other,dc=example,dc=com"};
    static const char *const ends[] = {"$", "", "$", "x$"};
    acre_schema *s;
    acre_directory *d;
    unsigned indexed = 0, matched = 0, n = 0;

    cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &s, NULL), 0);
    cr_assert_eq(
        acre_directory_load(ctx, s, "t.ldif", tree, strlen(tree), &d, NULL), 0);
    for (size_t h = 0; h < sizeof(heads) / sizeof(heads[0]); h++)
        for (size_t t = 0; t < sizeof(tails) / sizeof(tails[0]); t++)
            for (size_t x = 0; x < sizeof(ends) / sizeof(ends[0]); x++) {
                char *pat =
                    talloc_asprintf(ctx, "%s%s%s", heads[h], tails[t], ends[x]);
                char *text = talloc_asprintf(
                    ctx,
                    "database mdb\nsuffix \"dc=example,dc=com\"\n"
                    "access to dn.regex=\"%s\" by * read\n"
                    "access to * by * none\n",
                    pat);
                acre_source src = {ACRE_DIALECT_SLAPD_CONF, "slapd.conf", text,
                                   strlen(text)};
                acre_policy *p;
                acre_diag dg = {0};
                cr_assert_eq(acre_policy_compile(ctx, s, &src, 1, 0, &p, &dg),
                             0, "%s: %s", pat, dg.message);
                acre_policy_stats st;
                acre_policy_stats_get(p, &st);
                indexed += st.residual == 1;
                regex_t re;
                cr_assert_eq(regcomp(&re, pat, REG_EXTENDED | REG_ICASE), 0);
                acre_subject who = {0};
                acre_request *rq;
                cr_assert_eq(
                    acre_request_begin(p, &who, acre_directory_host(d), &rq),
                    0);
                for (size_t k = 0; k < sizeof(dns) / sizeof(dns[0]); k++) {
                    acre_dn *dn;
                    cr_assert_eq(acre_dn_parse(ctx, s, dns[k], strlen(dns[k]),
                                               0, &dn, NULL),
                                 0);
                    const acre_entry *e = acre_directory_find(d, dn);
                    cr_assert(e, "%s", dns[k]);
                    char *sd =
                        acreR_slapd_dn(ctx, acre_dn_normalised(dn, NULL));
                    int want = regexec(&re, sd, 0, NULL, 0) == 0;
                    acre_verdict v;
                    cr_assert_eq(acre_entry_decide(rq, acre_entry_view_of(e),
                                                   ACRE_RIGHT_READ, &v),
                                 0);
                    cr_expect_eq(v.visible, want, "%s on %s (%s): acre %d", pat,
                                 dns[k], sd, v.visible);
                    matched += want;
                    n++;
                }
                acre_request_end(rq);
                regfree(&re);
                acre_policy_release(p);
            }
    /* the pairs cover both answers, and most patterns were indexed */
    cr_expect_gt(matched, n / 10, "%u of %u", matched, n);
    cr_expect_lt(matched, n - n / 10, "%u of %u", matched, n);
    cr_expect_gt(indexed * 3,
                 sizeof(heads) / sizeof(heads[0]) * sizeof(tails) /
                     sizeof(tails[0]),
                 "%u indexed", indexed);
}

/* ---- whole verdicts kept by entry shape (eval.c: struct acreV_shape) --- */

static const char shapes_ldif[] =
    "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
    "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\n"
    "ou: people\n\n"
    "dn: ou=deep,ou=people,dc=example,dc=com\n"
    "objectClass: organizationalUnit\nou: deep\n\n"
    /* a1 (the requester) and a2: one shape, mail readable by self only */
    "dn: uid=a1,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
    "uid: a1\ncn: A1\nsn: A\nmail: a1@example.com\n\n"
    "dn: uid=a2,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
    "uid: a2\ncn: A2\nsn: A\nmail: a2@example.com\n\n"
    /* a3: a2's shape but for its fifth attribute (readable), which the
     * slot's hash does not read: the same slot */
    "dn: uid=a3,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
    "uid: a3\ncn: A3\nsn: A\ndescription: three\n\n"
    /* a4 and d1: one shape, telephoneNumber hidden one level below
     * ou=people only (the same node, another depth) */
    "dn: uid=a4,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
    "uid: a4\ncn: A4\nsn: A\ntelephoneNumber: 4\n\n"
    "dn: uid=d1,ou=deep,ou=people,dc=example,dc=com\n"
    "objectClass: inetOrgPerson\nuid: d1\ncn: D1\nsn: D\n"
    "telephoneNumber: 1\n\n"
    /* a5, a6: a2's and a3's ids with two values */
    "dn: uid=a5,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
    "uid: a5\ncn: A5\nsn: A\nmail: a5@example.com\nmail: five@example.com\n\n"
    "dn: uid=a6,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
    "uid: a6\ncn: A6\nsn: A\ndescription: six\ndescription: 6\n\n"
    /* a8: a3's shape, but cn hidden by a filter on a3 only */
    "dn: uid=a8,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
    "uid: a8\ncn: A8\nsn: A\ndescription: eight\n\n"
    /* a7: title is compare-level: hidden for read, shown for compare */
    "dn: uid=a7,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
    "uid: a7\ncn: A7\nsn: A\ntitle: seven\n";

static const char shapes_conf[] =
    "access to filter=(description=three) attrs=cn by * none\n"
    "access to dn.one=\"ou=people,dc=example,dc=com\" attrs=telephoneNumber\n"
    "  by * none\n"
    "access to attrs=mail by self read by * none\n"
    "access to attrs=title by * compare\n"
    "access to * by * read\n";

/* Every field of two verdicts alike (what the caller sees). */
static void
expect_same_verdict(const acre_verdict *x, const acre_verdict *y,
                    const char *what)
{
    cr_expect_eq(x->visible, y->visible, "%s: visible", what);
    cr_assert_eq(x->nattrs, y->nattrs, "%s: nattrs", what);
    for (unsigned i = 0; i < x->nattrs; i++) {
        cr_expect_eq(x->attr[i], y->attr[i], "%s: attribute %u", what, i);
        cr_assert_eq(x->first[i], y->first[i], "%s: first %u", what, i);
    }
}

/* e's verdict for `right` is want: one letter per attribute, A all its
 * values, N none, with first[] and the value bytes to match. */
static void
expect_verdict(acre_request *rq, const char *dn, int right, const char *want)
{
    const acre_entry *e = entry(dn);
    const acre_entry_view *v = acre_entry_view_of(e);
    acre_verdict vd;

    cr_assert_eq(acre_entry_decide(rq, v, right, &vd), 0, "%s", dn);
    cr_expect(vd.visible, "%s", dn);
    cr_assert_eq(vd.nattrs, strlen(want), "%s", dn);
    uint32_t f = 0;
    for (unsigned i = 0; i < vd.nattrs; i++) {
        int all = want[i] == 'A';
        cr_expect_eq(vd.attr[i], all ? ACRE_ATTR_ALL : ACRE_ATTR_NONE,
                     "%s right %d: attribute %u is not %c", dn, right, i,
                     want[i]);
        cr_assert_eq(vd.first[i], f, "%s: first[%u]", dn, i);
        for (unsigned j = 0; j < v->attrs[i].nvals; j++)
            cr_expect_eq(vd.value[f + j], all, "%s: attribute %u value %u", dn,
                         i, j);
        f += v->attrs[i].nvals;
    }
}

/* Entries that share a shape in different contexts (self or not, depth,
 * privilege), and different shapes in one context that land in one
 * slot, decided in turn many times over one request: each keeps its own
 * answer; again with every shape in one slot, and in two. */
static void
shapes_kept_apart(unsigned slots)
{
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "slapd.conf", shapes_conf,
                       strlen(shapes_conf)};
    acre_policy *p;

    cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &schema, NULL), 0);
    cr_assert_eq(acre_directory_load(ctx, schema, "s.ldif", shapes_ldif,
                                     strlen(shapes_ldif), &dir, NULL),
                 0);
    cr_assert_eq(acre_policy_compile(ctx, schema, &src, 1, 0, &p, NULL), 0);
    acreV_set_shape_slots(slots);
    acre_request *rq = begin(p, "uid=a1,ou=people,dc=example,dc=com");
    const char *const people = ",ou=people,dc=example,dc=com";
    char dn[80];
    /* objectClass, uid, cn, sn, the fifth, structuralObjectClass */
    for (int pass = 0; pass < 6; pass++) {
        const char *const order[] = {"a1", "a2", "a3", "a4",
                                     "d1", "a5", "a6", "a7"};
        for (int k = 0; k < 8; k++) {
            const char *u = order[(k + pass * 3) % 8];
            snprintf(dn, sizeof dn, "uid=%s%s%s", u,
                     u[0] == 'd' ? ",ou=deep" : "", people);
            const char *want = strcmp(u, "a2") == 0   ? "AAAANA"
                               : strcmp(u, "a4") == 0 ? "AAAANA"
                               : strcmp(u, "a5") == 0 ? "AAAANA"
                               : strcmp(u, "a7") == 0 ? "AAAANA"
                               : strcmp(u, "a3") == 0 ? "AANAAA"
                                                      : "AAAAAA";
            expect_verdict(rq, dn, ACRE_RIGHT_READ, want);
            if (strcmp(u, "a7") == 0) /* the same entry, another right */
                expect_verdict(rq, dn, ACRE_RIGHT_COMPARE, "AAAAAA");
        }
    }
    acre_request_end(rq);
    acre_policy_release(p);
    acreV_set_shape_slots(0);
}

Test(policy, verdict_shapes_and_contexts_kept_apart)
{
    shapes_kept_apart(0);
    shapes_kept_apart(1);
    shapes_kept_apart(2);
}

/* 80 people of 80 shapes (1 to 20 telephone numbers, with or without a
 * description and a mail): more than a request's first slots hold, so
 * that they keep evicting each other.  The requester is p0. */
static char *
many_shapes_ldif(void)
{
    char *t = talloc_strdup(ctx, "dn: dc=example,dc=com\nobjectClass: domain\n"
                                 "dc: example\n\n"
                                 "dn: ou=people,dc=example,dc=com\n"
                                 "objectClass: organizationalUnit\n"
                                 "ou: people\n\n");
    for (unsigned k = 0; k < 80; k++) {
        t = talloc_asprintf_append(
            t,
            "dn: uid=p%u,ou=people,dc=example,dc=com\n"
            "objectClass: inetOrgPerson\nuid: p%u\ncn: P\nsn: P\n",
            k, k);
        for (unsigned j = 0; j <= k % 20; j++)
            t = talloc_asprintf_append(t, "telephoneNumber: +1 555 %04u\n", j);
        if (k / 20 & 1)
            t = talloc_asprintf_append(t, "description: d\n");
        if (k / 40)
            t = talloc_asprintf_append(t, "mail: p%u@example.com\n", k);
        t = talloc_asprintf_append(t, "\n");
    }
    return t;
}

/* A request whose entries have more shapes than its first slots grows
 * its table once, to ACREV_SHAPES_MAX, and answers as a fresh request
 * does before, while and after; with its slots fixed it never grows. */
Test(policy, many_shapes_grow_the_table)
{
    static const char grow_conf[] =
        "access to attrs=telephoneNumber by self read by * none\n"
        "access to attrs=mail by * none\n"
        "access to * by * read\n";
    const char *const me = "uid=p0,ou=people,dc=example,dc=com";
    char *text = many_shapes_ldif();

    cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &schema, NULL), 0);
    cr_assert_eq(acre_directory_load(ctx, schema, "s.ldif", text, strlen(text),
                                     &dir, NULL),
                 0);
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "slapd.conf", grow_conf,
                       strlen(grow_conf)};
    acre_policy *p;
    cr_assert_eq(acre_policy_compile(ctx, schema, &src, 1, 0, &p, NULL), 0);
    for (unsigned fixed = 0; fixed <= ACREV_SHAPES; fixed += ACREV_SHAPES) {
        acreV_set_shape_slots(fixed);
        acre_request *rq = begin(p, me);
        cr_assert_eq(acreV_shape_slots(rq), ACREV_SHAPES);
        for (unsigned pass = 0; pass < 4; pass++)
            for (unsigned k = 0; k < 80; k++) {
                char dn[64];
                acre_verdict vw, vc;
                snprintf(dn, sizeof dn, "uid=p%u,ou=people,dc=example,dc=com",
                         (k * 37 + pass) % 80);
                const acre_entry_view *v = acre_entry_view_of(entry(dn));
                acre_request *cold = begin(p, me);
                cr_assert_eq(acre_entry_decide(rq, v, ACRE_RIGHT_READ, &vw), 0);
                cr_assert_eq(acre_entry_decide(cold, v, ACRE_RIGHT_READ, &vc),
                             0);
                expect_same_verdict(&vw, &vc, dn);
                /* telephoneNumber is the fifth attribute: the requester's own
                 */
                cr_expect_eq(vw.attr[4],
                             strcmp(dn, me) == 0 ? ACRE_ATTR_ALL
                                                 : ACRE_ATTR_NONE,
                             "%s", dn);
                acre_request_end(cold);
            }
        cr_expect_eq(acreV_shape_slots(rq),
                     fixed ? ACREV_SHAPES : ACREV_SHAPES_MAX);
        acre_request_end(rq);
    }
    acreV_set_shape_slots(0);
    acre_policy_release(p);
}

struct all_entries {
    const acre_entry *e[64];
    unsigned n;
};

static int
collect_entry(void *arg, const acre_entry *e)
{
    struct all_entries *a = arg;

    if (a->n < 64)
        a->e[a->n++] = e;
    return 0;
}

/* Over every entry, right and requester, in a scrambled order many times
 * over: one request's verdicts under p (its memo and shapes warm) are a
 * fresh request's under fresh_p. */
static void
agree_between(acre_policy *p, acre_policy *fresh_p, const char *const *who,
              unsigned nwho)
{
    static const int rights[] = {ACRE_RIGHT_READ, ACRE_RIGHT_SEARCH,
                                 ACRE_RIGHT_COMPARE, ACRE_RIGHT_WRITE};
    struct all_entries all = {.n = 0};
    acre_dn *base;

    cr_assert_eq(
        acre_dn_parse(ctx, schema, "dc=example,dc=com", 17, 0, &base, NULL), 0);
    cr_assert_eq(
        acre_directory_walk(dir, base, ACRE_SCOPE_SUB, collect_entry, &all), 0);
    cr_assert_gt(all.n, 5);
    for (unsigned w = 0; w < nwho; w++) {
        acre_request *warm = begin(p, who[w]);
        unsigned x = 12345;
        for (unsigned k = 0; k < 40 * all.n; k++) {
            x = x * 1103515245u + 12345u;
            const acre_entry *e = all.e[(x >> 8) % all.n];
            int right = rights[(x >> 20) % 4];
            acre_request *cold = begin(fresh_p, who[w]);
            acre_verdict vw, vc;
            int rw = acre_entry_decide(warm, acre_entry_view_of(e), right, &vw);
            int rc = acre_entry_decide(cold, acre_entry_view_of(e), right, &vc);
            cr_assert_eq(rw, rc);
            char what[160];
            snprintf(what, sizeof what, "%s on %s, right %d",
                     who[w] ? who[w] : "anonymous",
                     acre_dn_normalised(acre_entry_view_of(e)->dn, NULL),
                     right);
            expect_same_verdict(&vw, &vc, what);
            uint32_t nv = 0;
            for (unsigned i = 0; i < vw.nattrs; i++)
                nv += acre_entry_view_of(e)->attrs[i].nvals;
            cr_expect(nv == 0 || memcmp(vw.value, vc.value, nv) == 0, "%s",
                      what);
            acre_request_end(cold);
        }
        acre_request_end(warm);
    }
}

static void
agree_with_fresh(acre_policy *p, const char *const *who, unsigned nwho)
{
    agree_between(p, p, who, nwho);
}

/* Every RDN hashes alike (acreD_set_hash_hook): entries at one depth,
 * and their parents, all collide. */
static uint64_t
same_hash(const void *p, size_t n, uint64_t key)
{
    return 42;
}

static const char twins_ldif[] =
    "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
    "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\n"
    "ou: people\n\n"
    "dn: ou=aa,ou=people,dc=example,dc=com\n"
    "objectClass: organizationalUnit\nou: aa\n\n"
    "dn: ou=bb,ou=people,dc=example,dc=com\n"
    "objectClass: organizationalUnit\nou: bb\n\n"
    "dn: uid=x,ou=aa,ou=people,dc=example,dc=com\nobjectClass: person\n"
    "uid: x\ncn: X\nsn: X\n\n"
    "dn: uid=y,ou=aa,ou=people,dc=example,dc=com\nobjectClass: person\n"
    "uid: y\ncn: Y\nsn: Y\n\n"
    "dn: uid=x,ou=bb,ou=people,dc=example,dc=com\nobjectClass: person\n"
    "uid: x\ncn: X\nsn: X\n\n"
    "dn: uid=y,ou=bb,ou=people,dc=example,dc=com\nobjectClass: person\n"
    "uid: y\ncn: Y\nsn: Y\n\n"
    "dn: uid=aa,ou=people,dc=example,dc=com\nobjectClass: person\n"
    "uid: aa\ncn: AA\nsn: AA\n\n";

/* ou=aa is an index node, ou=bb (the same length, depth and, under the
 * hook, hash) is not; uid=aa is a node of its own below a remembered
 * parent. */
static const char twins_conf[] =
    "access to dn.subtree=\"ou=aa,ou=people,dc=example,dc=com\" attrs=cn\n"
    "  by * none\n"
    "access to dn.base=\"uid=aa,ou=people,dc=example,dc=com\" attrs=sn\n"
    "  by * none\n"
    "access to * by * read\n";

/* The request remembers the last entry's parent and its index node
 * (eval.c: node_of): siblings under parents whose hashes collide are
 * told apart by their bytes, and an entry that is a node itself is its
 * own node, whatever its parent; every verdict is a fresh request's. */
Test(policy, parents_told_apart_by_their_bytes)
{
    static const char *const who[] = {
        NULL, "uid=x,ou=bb,ou=people,dc=example,dc=com"};
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "slapd.conf", twins_conf,
                       strlen(twins_conf)};
    acre_policy *p;

    acreD_set_hash_hook(same_hash);
    cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &schema, NULL), 0);
    cr_assert_eq(acre_directory_load(ctx, schema, "twins.ldif", twins_ldif,
                                     strlen(twins_ldif), &dir, NULL),
                 0);
    cr_assert_eq(acre_policy_compile(ctx, schema, &src, 1, 0, &p, NULL), 0);
    acre_request *rq = begin(p, NULL);
    for (int pass = 0; pass < 3; pass++) {
        /* objectClass, uid, cn, sn, structuralObjectClass */
        expect_verdict(rq, "uid=x,ou=aa,ou=people,dc=example,dc=com",
                       ACRE_RIGHT_READ, "AANAA");
        expect_verdict(rq, "uid=x,ou=bb,ou=people,dc=example,dc=com",
                       ACRE_RIGHT_READ, "AAAAA");
        expect_verdict(rq, "uid=y,ou=bb,ou=people,dc=example,dc=com",
                       ACRE_RIGHT_READ, "AAAAA");
        expect_verdict(rq, "uid=y,ou=aa,ou=people,dc=example,dc=com",
                       ACRE_RIGHT_READ, "AANAA");
        expect_verdict(rq, "uid=aa,ou=people,dc=example,dc=com",
                       ACRE_RIGHT_READ, "AAANA");
        expect_verdict(rq, "ou=bb,ou=people,dc=example,dc=com", ACRE_RIGHT_READ,
                       "AAA");
        expect_verdict(rq, "ou=aa,ou=people,dc=example,dc=com", ACRE_RIGHT_READ,
                       "AAA");
    }
    acre_request_end(rq);
    agree_with_fresh(p, who, 2);
    acre_policy_release(p);
    acreD_set_hash_hook(NULL);
}

/* The memo's key (acreV_memo_key) gives each field bits of its own:
 * decisions that differ in any field never share a key, whatever the
 * type id.  (The key was once one word with the type << 5 and the depth
 * << 24: a type id of 2^19 or more met the depth's bits, and depth 2 with
 * type 2^19 + t was depth 3 with type t.) */
Test(policy, memo_keys_never_collide)
{
    static const unsigned depths[] = {0, 1, 2, 3, 127, ACRE_DN_MAX_RDNS};
    static const int types[] = {
        0, 3, 1 << 19, (1 << 19) + 3, 1 << 27, (1 << 27) + 3, INT_MAX};
    static const uint32_t nodes[] = {0, 1, 255, UINT32_MAX - 1};

    enum { N = 6 * 7 * 4 * 2 * 9 };
    static struct acreV_memo_key k[N];
    size_t n = 0;

    for (unsigned d = 0; d < 6; d++)
        for (unsigned t = 0; t < 7; t++)
            for (unsigned x = 0; x < 4; x++)
                for (int self = 0; self < 2; self++)
                    for (unsigned w = ACREI_ACCESS_DISCLOSE;
                         w <= ACREI_ACCESS_MANAGE; w++)
                        k[n++] = acreV_memo_key(nodes[x], depths[d], self,
                                                types[t], w);
    cr_assert_eq(n, N);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            cr_assert(k[i].key != k[j].key || k[i].ctx != k[j].ctx,
                      "decisions %zu and %zu share a key", i, j);
}

Test(policy, warm_verdicts_are_fresh_verdicts)
{
    static const char *const who[] = {
        NULL, "uid=a1,ou=people,dc=example,dc=com",
        "uid=d1,ou=deep,ou=people,dc=example,dc=com"};
    static const char *const who2[] = {
        NULL, "uid=alice,ou=people,dc=example,dc=com",
        "uid=bob,ou=people,dc=example,dc=com", "cn=manager,dc=example,dc=com"};
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "slapd.conf", shapes_conf,
                       strlen(shapes_conf)};
    acre_policy *p;

    cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &schema, NULL), 0);
    cr_assert_eq(acre_directory_load(ctx, schema, "s.ldif", shapes_ldif,
                                     strlen(shapes_ldif), &dir, NULL),
                 0);
    cr_assert_eq(acre_policy_compile(ctx, schema, &src, 1, 0, &p, NULL), 0);
    agree_with_fresh(p, who, 3);
    acre_policy_release(p);
    /* the rules above: groups, dnattr, self, a regex with substitution */
    p = compile(conf, NULL);
    cr_assert(p);
    agree_with_fresh(p, who2, 4);
    acreV_set_shape_slots(1); /* every shape in one slot */
    agree_with_fresh(p, who2, 4);
    acreV_set_shape_slots(0);
    /* attached to a directory that holds no subentry (as slapo-acre
     * attaches its database's always), the rules decide as they do
     * alone */
    acre_policy *pa;
    cr_assert_eq(acre_policy_attach_subentries(ctx, p, dir, 0, &pa, NULL), 0);
    agree_between(pa, p, who2, 4);
    agree_between(p, pa, who2, 4);
    acre_policy_release(pa);
    acre_policy_release(p);
}

/* ACRE_ACCESS_PREPARED: a filter's assertion as slapd prepared it is
 * compared as it is.  slapd hands the value of (:caseExactMatch:=Bob)
 * normalised by caseExactMatch ("Bob") to its search check, and its
 * val="bob" clause compares normalised bytes: no match (found by the
 * module differential, seed 926968462) */
Test(policy, prepared_assertions_compare_as_they_are)
{
    acre_policy *p = compile("database mdb\nsuffix \"dc=example,dc=com\"\n"
                             "access to attrs=cn val=\"bob\" by * read\n"
                             "access to * by * none\n",
                             NULL);
    cr_assert(p);
    const acre_entry *bob = entry("uid=bob,ou=people,dc=example,dc=com");
    acre_request *rq = begin(p, NULL);
    const acre_entry_view *v = acre_entry_view_of(bob);

    cr_expect_eq(acre_access(rq, v, "cn", "Bob", 3, ACRE_RIGHT_SEARCH, NULL),
                 1);
    cr_expect_eq(acre_access(rq, v, "cn", "Bob", 3,
                             ACRE_RIGHT_SEARCH | ACRE_ACCESS_PREPARED, NULL),
                 0);
    cr_expect_eq(acre_access(rq, v, "cn", "bob", 3,
                             ACRE_RIGHT_SEARCH | ACRE_ACCESS_PREPARED, NULL),
                 1);
    acre_request_end(rq);
    acre_policy_release(p);
}
