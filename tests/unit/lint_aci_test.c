/*
 * lint_aci_test.c -- unit tests of acre_lint on ACI sources
 * (compiler/lint_aci.c and the parser's lint mode, compiler/aci.h): every
 * refused value is reported with its place, entry and value index, and
 * the reading goes on; each warning fires on its mistake and stays quiet
 * on the corrected ACI (shadowing only when provable); silencing; several
 * sources as one policy; the variant flag.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "aci.h"
#include "acre.h"
#include "lint.h"

TestSuite(lint_aci);

/* ------------------------------------------------------------------------
 * Helpers
 */

#define TOP "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n"
#define PEOPLE                                                             \
    "\ndn: ou=People,dc=example,dc=com\nobjectClass: organizationalUnit\n" \
    "ou: People\n"
#define GROUPS                                                             \
    "\ndn: ou=Groups,dc=example,dc=com\nobjectClass: organizationalUnit\n" \
    "ou: Groups\n"
#define ACI(targets, name, perm) \
    "aci: " targets "(version 3.0; acl \"" name "\"; " perm ";)\n"

static acre_lint_result *
lint_flags(const char *text, const char *disable, unsigned flags)
{
    acre_source src = {ACRE_DIALECT_ACI, "t.ldif", text, strlen(text)};
    acre_lint_result *r = NULL;
    acre_diag d = {0};

    cr_assert_eq(acre_lint(NULL, &src, 1, NULL, disable, flags, &r, &d), 0,
                 "%s", d.message);
    cr_assert(r);
    return r;
}

static acre_lint_result *
lint(const char *text)
{
    return lint_flags(text, NULL, 0);
}

static unsigned
count(const acre_lint_result *r, const char *id)
{
    unsigned n = 0;

    for (size_t i = 0; i < r->count; i++)
        n += strcmp(r->findings[i].id, id) == 0;
    return n;
}

static const acre_lint_finding *
nth(const acre_lint_result *r, const char *id, unsigned k)
{
    for (size_t i = 0; i < r->count; i++)
        if (strcmp(r->findings[i].id, id) == 0 && k-- == 0)
            return &r->findings[i];
    cr_assert_fail("no %s finding", id);
    return NULL;
}

static char *
show(const acre_lint_result *r)
{
    static char buf[16384];
    char *t = acre_lint_format(r, ACRE_LINT_TEXT);

    snprintf(buf, sizeof(buf), "%s", t ? t : "(null)");
    free(t);
    return buf;
}

/* text gives `id` exactly n times and nothing else */
static void
expect_only(const char *text, const char *id, unsigned n)
{
    acre_lint_result *r = lint(text);

    cr_expect_eq(count(r, id), n, "%s", show(r));
    cr_expect_eq(r->count, n, "%s", show(r));
    acre_lint_free(r);
}

/* ------------------------------------------------------------------------
 * Errors: every refused value, the reading going on
 */

Test(lint_aci, every_syntax_error_is_reported)
{
    const char *t = TOP ACI("(targetattr=\"cn\")", "ok",
                            "allow (read) "
                            "userdn=\"ldap:///all\"")
        /* line 5 */
        "aci: (targetattr=\"cn\")(version 3.0; acl \"r\"; allow (reed) "
        "userdn=\"ldap:///all\";)\n"
        /* line 6: outside the holder */
        "aci: (target=\"ldap:///dc=other\")(version 3.0; acl \"o\"; allow "
        "(read) userdn=\"ldap:///all\";)\n"
        /* lines 7-8: folded, the error on the continuation line */
        "aci: (targetattr=\"cn\")(version 3.0; acl \"f\"; allow (read) "
        "userdn=\"ldap:/\n //all\" andd ip=\"1.2.3.4\";)\n" PEOPLE
        /* line 13 */
        "aci: (version 2.0; acl \"v\"; allow (read) "
        "userdn=\"ldap:///all\";)\n"
        /* a good value after the bad ones: no warning is given */
        ACI("(targetattr=\"*\")", "w",
            "allow (write) "
            "userdn=\"ldap:///anyone\"");
    acre_lint_result *r = lint(t);

    cr_assert_eq(r->errors, 4, "%s", show(r));
    cr_expect_eq(r->warnings, 0, "%s", show(r));
    cr_expect_eq(acre_lint_status(r), 2);

    static const struct {
        unsigned line, col;
        const char *msg;
    } want[] = {
        {5, 53, "entry 'dc=example,dc=com', aci value 2: unknown right"},
        {6, 15,
         "entry 'dc=example,dc=com', aci value 3: the target is outside"},
        {8, 9,
         "entry 'dc=example,dc=com', aci value 4: expected ';' after the "
         "bind rule"},
        {13, 15,
         "entry 'ou=People,dc=example,dc=com', aci value 1: the aci "
         "version must be 3.0"},
    };

    for (unsigned i = 0; i < 4; i++) {
        const acre_lint_finding *f = nth(r, "parse-error", i);
        cr_expect_eq(f->severity, ACRE_LINT_ERROR);
        cr_expect_str_eq(f->file, "t.ldif");
        cr_expect_eq(f->line, want[i].line, "%u: %s", i, show(r));
        cr_expect_eq(f->column, want[i].col, "%u: %s", i, show(r));
        cr_expect(!strncmp(f->message, want[i].msg, strlen(want[i].msg)), "%s",
                  f->message);
    }
    acre_lint_free(r);
}

Test(lint_aci, bad_dn_skips_its_entry_only)
{
    const char *t = "dn: not a dn\n"
                    "aci: (version 3.0; acl \"a\"; allow (reed) "
                    "userdn=\"ldap:///all\";)\n"
                    "\ndn: dc=example,dc=com\n"
                    "aci: (version 3.0; acl \"b\"; allow (read) "
                    "userdn=\"ldap:///al l\";)\n";
    acre_lint_result *r = lint(t);

    cr_assert_eq(r->errors, 2, "%s", show(r));
    cr_expect_eq(nth(r, "parse-error", 0)->line, 1);
    cr_expect_eq(nth(r, "parse-error", 0)->column, 9, "%s", show(r));
    cr_expect_eq(nth(r, "parse-error", 1)->line, 5);
    cr_expect_eq(nth(r, "parse-error", 1)->column, 61, "%s", show(r));
    acre_lint_free(r);
}

Test(lint_aci, ldif_error_ends_the_file)
{
    const char *t = TOP "aci: (version 3.0; acl \"a\"; allow (reed) "
                        "userdn=\"ldap:///all\";)\n"
                        "\ndn: ou=x,dc=example,dc=com\nchangetype: add\n";
    acre_lint_result *r = lint(t);

    cr_expect_eq(r->errors, 2, "%s", show(r));
    cr_expect_eq(nth(r, "parse-error", 0)->line, 4);
    cr_expect_eq(nth(r, "parse-error", 1)->line, 7);
    acre_lint_free(r);
}

Test(lint_aci, errors_are_capped)
{
    char *t = talloc_strdup(NULL, TOP);

    for (int i = 0; i < 150; i++)
        t = talloc_asprintf_append(t,
                                   "aci: (version 3.0; acl \"a%d\"; allow "
                                   "(reed) userdn=\"ldap:///all\";)\n",
                                   i);
    acre_lint_result *r = lint(t);
    cr_expect_eq(r->errors, ACREA_LINT_MAX_ERRORS);
    acre_lint_free(r);
    talloc_free(t);
}

Test(lint_aci, unreadable_file)
{
    acre_source src = {ACRE_DIALECT_ACI, "/nonexistent/acre/t.ldif", NULL, 0};
    acre_lint_result *r = NULL;
    acre_diag d = {0};

    cr_assert_eq(acre_lint(NULL, &src, 1, NULL, NULL, 0, &r, &d), 0);
    cr_expect_eq(r->errors, 1);
    cr_expect_str_eq(r->findings[0].id, "read-error");
    cr_expect_eq(acre_lint_status(r), 2);
    acre_lint_free(r);
}

Test(lint_aci, clean_policy_says_nothing)
{
    expect_only(TOP ACI("(targetattr=\"cn || sn\")", "read",
                        "allow (read, search) userdn=\"ldap:///all\"")
                    PEOPLE ACI("(targetattr=\"userPassword\")", "self",
                               "allow (write) userdn=\"ldap:///self\""),
                "", 0);
}

/* ------------------------------------------------------------------------
 * unknown-attribute
 */

Test(lint_aci, unknown_attribute_everywhere)
{
    const char *t = TOP
        /* line 4 */
        "aci: (targetattr=\"cn || emplyeeType\")(version 3.0; acl \"a\"; "
        "allow (read) userdn=\"ldap:///all\";)\n"
        /* line 5 */
        "aci: (targetfilter=\"(&(objectClass=person)(bogus=1))\")"
        "(version 3.0; acl \"b\"; allow (read) userdn=\"ldap:///all\";)\n"
        /* line 6 */
        "aci: (version 3.0; acl \"c\"; allow (read) "
        "userattr=\"nosuch#USERDN\";)\n"
        /* line 7 */
        "aci: (target=\"ldap:///($dn),dc=example,dc=com\")(version 3.0; "
        "acl \"d\"; allow (read) "
        "userdn=\"ldap:///cn=($attr.nomacro),dc=example,dc=com\";)\n"
        /* line 8 */
        "aci: (targattrfilters=\"add=nofilt:(nofilt=x)\")(version 3.0; "
        "acl \"e\"; allow (write) userdn=\"ldap:///all\";)\n"
        /* line 9 */
        "aci: (version 3.0; acl \"f\"; allow (read) "
        "userdnattr=\"nodn\";)\n";
    acre_lint_result *r = lint(t);

    static const struct {
        unsigned line, col;
        const char *name, *where;
    } want[] = {
        {4, 25, "emplyeeType", "targetattr"},
        {5, 44, "bogus", "targetfilter"},
        {6, 52, "nosuch", "userattr"},
        {7, 110, "nomacro", "an ($attr.NAME) macro"},
        {8, 28, "nofilt", "targattrfilters"},
        {9, 54, "nodn", "userdnattr"},
    };

    cr_assert_eq(count(r, "unknown-attribute"), 6, "%s", show(r));
    cr_expect_eq(r->errors, 0, "%s", show(r));
    for (unsigned i = 0; i < 6; i++) {
        const acre_lint_finding *f = nth(r, "unknown-attribute", i);
        char need[200];
        snprintf(need, sizeof(need), "%s names \"%s\"", want[i].where,
                 want[i].name);
        cr_expect_eq(f->line, want[i].line, "%u: %s", i, show(r));
        cr_expect_eq(f->column, want[i].col, "%u: %s", i, show(r));
        cr_expect(strstr(f->message, need), "%s", f->message);
        cr_expect(strstr(f->message, "entry 'dc=example,dc=com', aci value "),
                  "%s", f->message);
    }
    cr_expect(
        strstr(nth(r, "unknown-attribute", 0)->message, "aci value 1 (\"a\")"));
    acre_lint_free(r);
}

Test(lint_aci, unknown_attribute_is_an_error_to_compile)
{
    /* the compiler refuses what the lint reads as a warning */
    const char *t = TOP "aci: (targetattr=\"emplyeeType\")(version 3.0; "
                        "acl \"a\"; allow (read) userdn=\"ldap:///all\";)\n";
    acre_source src = {ACRE_DIALECT_ACI, "t.ldif", t, strlen(t)};
    acre_policy *p = NULL;
    acre_diag d = {0};

    cr_expect_eq(acre_policy_compile(NULL, NULL, &src, 1, 0, &p, &d),
                 ACRE_ERR_RULE_SYNTAX);
    expect_only(t, "unknown-attribute", 1);
}

Test(lint_aci, known_attributes_are_quiet)
{
    expect_only(TOP
                "aci: (targetattr=\"cn;lang-en || sn\")(targetfilter=\"(|(cn=a)"
                "(sn;lang-en=b)(cn:dn:=c))\")(version 3.0; acl \"a\"; allow "
                "(read) userattr=\"manager#USERDN\";)\n",
                "", 0);
}

/* ------------------------------------------------------------------------
 * odd-value
 */

Test(lint_aci, odd_value_fires)
{
    static const struct {
        const char *rule, *says;
    } c[] = {
        {"ip=\"*.0.0.1\"", "prefixes 0.0.0.1/32"},
        {"ip=\"10.*, 10.1.2.3\"", "10.0.0.0/8, 10.1.2.3/32"},
        {"ip=\"1.2.3.4+255.x\"", "1.0.0.0/8"},
        {"ip=\"localhost\"", "never evaluates"},
        {"ssf=\"high\"", "ssf 0"},
        {"dayofweek=\"sunday\"", "as sun"},
        {"dayofweek=\"xyz\"", "no day at all"},
        {"dayofweek=\"sun,sun\"", "as sun"},
        {"userattr=\"manager\"", "without '#'"},
        {"userattr=\"parent[0, 1].manager#USERDN\"", "levels 0"},
        {"userattr=\"parent[12].manager#USERDN\"", "levels 12"},
        {"userattr=\"parent[].manager#USERDN\"", "on no attribute"},
        {"groupdn>=\"ldap:///cn=g,dc=example,dc=com\"", "groupdn >="},
        {"userdn=\"ldap:///dc=example,dc=com??tree?(cn=a)\"", "cannot read"},
    };

    char buf[512];

    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        snprintf(buf, sizeof buf,
                 TOP "aci: (targetattr=\"cn\")(version 3.0; acl \"o\"; allow "
                     "(read) userdn=\"ldap:///all\" and %s;)\n",
                 c[i].rule);
        acre_lint_result *r = lint(buf);
        cr_expect_eq(count(r, "odd-value"), 1, "%s: %s", c[i].rule, show(r));
        const acre_lint_finding *f = nth(r, "odd-value", 0);
        if (f) {
            cr_expect(strstr(f->message, c[i].says), "%s: %s", c[i].rule,
                      f->message);
            cr_expect_eq(f->line, 4);
            /* at the keyword: after "... and " */
            cr_expect_eq(f->column,
                         6 + strlen("(targetattr=\"cn\")(version "
                                    "3.0; acl \"o\"; allow (read) "
                                    "userdn=\"ldap:///all\" and "),
                         "%s: column %u", c[i].rule, f->column);
        }
        acre_lint_free(r);
    }
}

Test(lint_aci, odd_value_quiet)
{
    /* plain values, and OpenDJ, which reads its own way and refuses these */
    const char *t =
        TOP "aci: (targetattr=\"cn\")(version 3.0; acl \"p\"; allow (read) "
            "ip=\"10.1.*, 192.168.1.0+255.255.255.0, ::1, fe80::/10\" or "
            "ip=\"10.1.2.3, 10.*\" or ssf>=\"128\" or dayofweek=\"Sun, mon\" "
            "or userattr=\"parent[0,1].manager#USERDN\" or "
            "userattr=\"manager#USERDN\" or userdn=\"ldap:///dc=example,"
            "dc=com??sub?(cn=a)\" or timeofday>=\"0800\";)\n";

    expect_only(t, "", 0);
}

/* ------------------------------------------------------------------------
 * outside-holder
 */

Test(lint_aci, outside_holder_fires)
{
    acre_lint_result *r =
        lint(TOP PEOPLE ACI("(target=\"ldap:///uid=*,ou=Groups,dc=example,"
                            "dc=com\")",
                            "groups", "allow (read) userdn=\"ldap:///all\"")
                 ACI("(target=\"ldap:///($dn),ou=Groups,dc=example,dc=com\")",
                     "macro", "allow (read) userdn=\"ldap:///all\""));

    cr_assert_eq(count(r, "outside-holder"), 2, "%s", show(r));
    const acre_lint_finding *f = nth(r, "outside-holder", 0);
    cr_expect_eq(f->line, 8);
    cr_expect_eq(f->column, 6);
    cr_expect(strstr(f->message, "entry 'ou=People,dc=example,dc=com', aci "
                                 "value 1 (\"groups\")"),
              "%s", f->message);
    cr_expect(strstr(f->message, "\"ou=groups,dc=example,dc=com\""), "%s",
              f->message);
    acre_lint_free(r);
}

Test(lint_aci, outside_holder_quiet)
{
    /* inside, above (a tail the holder ends with), negated, open-ended */
    expect_only(
        TOP PEOPLE ACI("(target=\"ldap:///uid=*,ou=People,dc=example,"
                       "dc=com\")",
                       "in", "allow (read) userdn=\"ldap:///all\"")
            ACI("(target=\"ldap:///uid=*,dc=com\")", "up",
                "allow (read) userdn=\"ldap:///all\"")
                ACI("(target!=\"ldap:///uid=*,ou=Groups,dc=example,dc=com\")",
                    "neg", "allow (read) userdn=\"ldap:///all\"")
                    ACI("(target=\"ldap:///uid=*\")", "open",
                        "allow (read) userdn=\"ldap:///all\""),
        "", 0);
}

/* ------------------------------------------------------------------------
 * public-write
 */

Test(lint_aci, public_write_fires)
{
    acre_lint_result *r = lint(
        TOP ACI("(targetattr=\"*\")", "anyone",
                "allow (write, add) userdn=\"ldap:///anyone\"")
            ACI("(targetattr=\"cn\")", "all",
                "allow (selfwrite) userdn=\"ldap:///all\"")
                ACI("", "everything",
                    "allow (all) userdn=\"ldap:///uid=a,dc=example,dc=com || "
                    "ldap:///anyone\"")
                    ACI("", "or",
                        "allow (delete) (userdn=\"ldap:///anyone\") "
                        "or (ip=\"10.0.0.1\")"));

    cr_assert_eq(count(r, "public-write"), 4, "%s", show(r));
    cr_expect(strstr(nth(r, "public-write", 0)->message,
                     "grants write, add to every requester, anonymous ones "
                     "included"),
              "%s", nth(r, "public-write", 0)->message);
    cr_expect(strstr(nth(r, "public-write", 1)->message,
                     "grants selfwrite to every bound requester"),
              "%s", nth(r, "public-write", 1)->message);
    cr_expect(strstr(nth(r, "public-write", 2)->message, "all rights"), "%s",
              nth(r, "public-write", 2)->message);
    acre_lint_free(r);
}

Test(lint_aci, public_write_quiet)
{
    expect_only(TOP ACI("(targetattr=\"*\")", "read",
                        "allow (read, search) userdn=\"ldap:///anyone\"")
                    ACI("(targetattr=\"*\")", "deny",
                        "deny (write) userdn=\"ldap:///anyone\"")
                        ACI("(targetattr=\"*\")", "narrow",
                            "allow (write) userdn=\"ldap:///anyone\" and "
                            "ip=\"10.0.0.1\"")
                            ACI("(targetattr=\"*\")", "self",
                                "allow (write) userdn=\"ldap:///self\""),
                "", 0);
}

/* ------------------------------------------------------------------------
 * shadowed-rule
 */

#define A_UID "userdn=\"ldap:///uid=a,dc=example,dc=com\""

Test(lint_aci, shadowed_by_deny_anyone)
{
    acre_lint_result *r =
        lint(TOP ACI("(targetattr=\"userPassword || cn\")", "deny",
                     "deny (read, search) userdn=\"ldap:///anyone\"")
                 PEOPLE ACI("(targetattr=\"userPassword\")", "allow",
                            "allow (read) " A_UID));

    cr_assert_eq(count(r, "shadowed-rule"), 1, "%s", show(r));
    const acre_lint_finding *f = nth(r, "shadowed-rule", 0);
    cr_expect_eq(f->line, 9);
    cr_expect(strstr(f->message, "entry 'ou=People,dc=example,dc=com', aci "
                                 "value 1 (\"allow\"): this allow (read)"),
              "%s", f->message);
    cr_expect_eq(f->note_line, 4);
    cr_expect(strstr(f->note, "entry 'dc=example,dc=com', aci value 1 "
                              "(\"deny\")"),
              "%s", f->note);
    acre_lint_free(r);
}

Test(lint_aci, shadowed_by_same_bind_rule)
{
    expect_only(
        TOP ACI("(target=\"ldap:///ou=People,dc=example,dc=com\")"
                "(targetattr=\"*\")",
                "deny", "deny (all) " A_UID " and ssf>=\"128\"")
            PEOPLE ACI("(targetattr=\"cn\")(targetfilter=\"(cn=x)\")", "allow",
                       "allow (read, compare) " A_UID " and ssf>=\"128\";"
                       " allow (search) userdn=\"ldap:///all\""),
        "shadowed-rule", 1);
    /* the same ACI's deny; the negated lists */
    expect_only(TOP ACI("(targetattr!=\"cn\")", "both",
                        "allow (read) " A_UID "; deny (read, search) " A_UID),
                "shadowed-rule", 1);
    expect_only(
        TOP ACI("(targetattr!=\"cn\")", "deny",
                "deny (read) userdn=\"ldap:///anyone\"")
            ACI("(targetattr!=\"cn || sn\")", "allow", "allow (read) " A_UID)
                ACI("(targetattr=\"sn\")", "allow2", "allow (read) " A_UID),
        "shadowed-rule", 2);
    /* no targetattr on either side */
    expect_only(TOP ACI("", "deny",
                        "deny (add, delete) userdn=\"ldap:///"
                        "anyone\"") ACI("", "allow", "allow (add) " A_UID),
                "shadowed-rule", 1);
}

Test(lint_aci, not_shadowed)
{
    /* a deny with a targetfilter, another bind rule, a sibling holder,
     * fewer rights, fewer attributes, anyone not first, other targets */
    expect_only(TOP ACI("(targetattr=\"cn\")(targetfilter=\"(sn=x)\")", "d",
                        "deny (read) userdn=\"ldap:///anyone\"")
                    ACI("(targetattr=\"cn\")", "a", "allow (read) " A_UID),
                "", 0);
    expect_only(TOP ACI("(targetattr=\"cn\")", "d",
                        "deny (read) userdn=\"ldap:///uid=b,dc=example,"
                        "dc=com\"")
                    ACI("(targetattr=\"cn\")", "a", "allow (read) " A_UID),
                "", 0);
    expect_only(
        TOP GROUPS ACI("(targetattr=\"cn\")", "d",
                       "deny (read) userdn=\"ldap:///anyone\"")
            PEOPLE ACI("(targetattr=\"cn\")", "a", "allow (read) " A_UID),
        "", 0);
    expect_only(
        TOP ACI("(targetattr=\"cn\")", "d",
                "deny (read) userdn=\"ldap:///anyone\"")
            ACI("(targetattr=\"cn\")", "a", "allow (read, search) " A_UID),
        "", 0);
    expect_only(
        TOP ACI("(targetattr=\"cn\")", "d",
                "deny (read) userdn=\"ldap:///anyone\"")
            ACI("(targetattr=\"cn || sn\")", "a", "allow (read) " A_UID),
        "", 0);
    expect_only(TOP ACI("(targetattr=\"cn\")", "d",
                        "deny (read) userdn=\"ldap:///uid=b,dc=example,dc=com"
                        " || ldap:///anyone\"")
                    ACI("(targetattr=\"cn\")", "a", "allow (read) " A_UID),
                "", 0);
    expect_only(
        TOP ACI("(target=\"ldap:///ou=People,dc=example,dc=com\")"
                "(targetattr=\"cn\")",
                "d", "deny (read) userdn=\"ldap:///anyone\"")
            GROUPS ACI("(targetattr=\"cn\")", "a", "allow (read) " A_UID),
        "", 0);
    /* targetattr on one side only */
    expect_only(TOP ACI("(targetattr=\"*\")", "d",
                        "deny (read) userdn=\"ldap:///anyone\"")
                    ACI("", "a", "allow (read) " A_UID),
                "", 0);
    /* write: an ACI with targetattr takes the entry level only when it
     * also allows, which this deny does not */
    expect_only(TOP ACI("(targetattr=\"*\")", "d",
                        "deny (write) userdn=\"ldap:///anyone\"")
                    ACI("(targetattr=\"cn\")", "a", "allow (write) " A_UID),
                "", 0);
    /* an unknown name makes the allow uncertain */
    expect_only(
        TOP ACI("(targetattr=\"*\")", "d",
                "deny (read) userdn=\"ldap:///anyone\"")
            ACI("(targetattr=\"cn || nosuch\")", "a", "allow (read) " A_UID),
        "unknown-attribute", 1);
    /* the root DSE's ACIs do not apply below it */
    expect_only("dn:\naci: (targetattr=\"*\")(version 3.0; acl \"d\"; deny "
                "(read) userdn=\"ldap:///anyone\";)\n\n" TOP ACI(
                    "(targetattr=\"cn\")", "a", "allow (read) " A_UID),
                "", 0);
}

Test(lint_aci, shadowed_across_sources)
{
    const char *deny = TOP ACI("(targetattr=\"*\")", "d",
                               "deny (read) userdn=\"ldap:///anyone\"");
    const char *allow = PEOPLE + 1; /* without the blank line */
    char *t = talloc_asprintf(
        NULL, "%s" ACI("(targetattr=\"cn\")", "a", "allow (read) " A_UID),
        allow);
    acre_source src[2] = {{ACRE_DIALECT_ACI, "deny.ldif", deny, strlen(deny)},
                          {ACRE_DIALECT_ACI, "allow.ldif", t, strlen(t)}};
    acre_lint_result *r = NULL;
    acre_diag d = {0};

    cr_assert_eq(acre_lint(NULL, src, 2, NULL, NULL, 0, &r, &d), 0);
    cr_assert_eq(count(r, "shadowed-rule"), 1, "%s", show(r));
    cr_expect_str_eq(nth(r, "shadowed-rule", 0)->file, "allow.ldif");
    cr_expect_str_eq(nth(r, "shadowed-rule", 0)->note_file, "deny.ldif");
    acre_lint_free(r);
    talloc_free(t);
}

/* ------------------------------------------------------------------------
 * Silencing, variant, arguments, formats
 */

Test(lint_aci, silenced_by_comment_and_argument)
{
    const char *t = TOP "# a comment\n# acre-lint: disable=public-write\n" ACI(
        "(targetattr=\"*\")", "quiet",
        "allow (write) userdn=\"ldap:///anyone\"") "# acre-lint: "
                                                   "disable=shadowed-"
                                                   "rule\n" ACI(
                                                       "(targetattr=\"*\")",
                                                       "loud",
                                                       "allow (write) "
                                                       "userdn=\"ldap:///"
                                                       "anyone\"");
    acre_lint_result *r = lint(t);

    cr_expect_eq(count(r, "public-write"), 1, "%s", show(r));
    cr_expect_eq(nth(r, "public-write", 0)->line, 8);
    cr_expect_eq(r->suppressed, 1);
    acre_lint_free(r);
    r = lint_flags(t, "public-write", 0);
    cr_expect_eq(r->count, 0, "%s", show(r));
    cr_expect_eq(r->suppressed, 2);
    acre_lint_free(r);
}

Test(lint_aci, variant_flag)
{
    const char *t = TOP ACI("(targetscope=\"base\")(targetattr=\"cn\")", "s",
                            "allow (read) userdn=\"ldap:///all\"");
    acre_lint_result *r = lint(t);

    cr_expect_eq(r->errors, 1, "%s", show(r));
    cr_expect(strstr(r->findings[0].message, "not supported by 389-DS"));
    acre_lint_free(r);
    r = lint_flags(t, NULL, ACRE_COMPILE_ACI_OPENDJ);
    cr_expect_eq(r->count, 0, "%s", show(r));
    acre_lint_free(r);
}

Test(lint_aci, bad_arguments)
{
    acre_source src = {ACRE_DIALECT_ACI, "t.ldif", TOP, strlen(TOP)};
    acre_lint_result *r = NULL;
    acre_diag d = {0};

    cr_expect_eq(acre_lint(NULL, &src, 1, NULL, NULL, 0x80, &r, &d),
                 ACRE_ERR_INVAL);
    cr_expect_null(r);
}

Test(lint_aci, json_names_the_check)
{
    acre_lint_result *r = lint(TOP ACI(
        "(targetattr=\"*\")", "w", "allow (write) userdn=\"ldap:///anyone\""));
    char *j = acre_lint_format(r, ACRE_LINT_JSON);

    cr_assert(j);
    cr_expect(strstr(j, "\"id\":\"public-write\",\"severity\":\"warning\","
                        "\"file\":\"t.ldif\",\"line\":4,\"column\":6"),
              "%s", j);
    free(j);
    acre_lint_free(r);
}
