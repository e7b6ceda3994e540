/*
 * lint_test.c -- unit tests of acre_lint (compiler/lint*.c): each warning
 * id fires on the mistake it names and stays quiet on the corrected rule;
 * errors, silencing (argument and comment), exit status, the three
 * output formats; the backtracking rule held to PCRE2's own match limit;
 * and OpenLDAP's test006 rules, where exactly the two real mistakes are
 * reported.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include <unistd.h>

#include "acre.h"
#include "lint.h"
#include "openldap_int.h"

TestSuite(lint);

/* ------------------------------------------------------------------------
 * Helpers
 */

static acre_lint_result *
lint_as(int dialect, const char *text, const acre_directory *data,
        const char *disable)
{
    acre_source src = {dialect, "t.conf", text, strlen(text)};
    acre_lint_result *r = NULL;
    acre_diag d = {0};

    if (dialect == ACRE_DIALECT_SLAPD_CNCONFIG)
        src.path = "t.ldif";
    cr_assert_eq(acre_lint(NULL, &src, 1, data, disable, 0, &r, &d), 0, "%s",
                 d.message);
    cr_assert(r);
    return r;
}

static acre_lint_result *
conf(const char *text)
{
    return lint_as(ACRE_DIALECT_SLAPD_CONF, text, NULL, NULL);
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
first(const acre_lint_result *r, const char *id)
{
    for (size_t i = 0; i < r->count; i++)
        if (strcmp(r->findings[i].id, id) == 0)
            return &r->findings[i];
    cr_assert_fail("no %s finding", id);
    return NULL;
}

/* The findings as text, for messages. */
static char *
show(const acre_lint_result *r)
{
    static char buf[8192];
    char *t = acre_lint_format(r, ACRE_LINT_TEXT);

    snprintf(buf, sizeof(buf), "%s", t ? t : "(null)");
    free(t);
    return buf;
}

/* Text fires `id` exactly `n` times, and nothing else is found. */
static void
expect_only(const char *text, const char *id, unsigned n)
{
    acre_lint_result *r = conf(text);

    cr_expect_eq(count(r, id), n, "%s", show(r));
    cr_expect_eq(r->count, n, "%s", show(r));
    acre_lint_free(r);
}

#define DB                                         \
    "database mdb\nsuffix \"dc=example,dc=com\"\n" \
    "rootdn \"cn=Manager,dc=example,dc=com\"\n"

/* ------------------------------------------------------------------------
 * shadowed-rule
 */

Test(lint, shadowed_rule_fires)
{
    acre_lint_result *r =
        conf("access to * by * read\n"
             "access to dn.subtree=\"ou=a,dc=x\" by users write\n");
    const acre_lint_finding *f = first(r, "shadowed-rule");

    cr_expect_eq(r->count, 1, "%s", show(r));
    cr_expect_eq(f->severity, ACRE_LINT_WARNING);
    cr_expect_str_eq(f->file, "t.conf");
    cr_expect_eq(f->line, 2);
    cr_expect_eq(f->column, 8); /* "to" */
    cr_expect_str_eq(f->note, "this rule covers it");
    cr_expect_eq(f->note_line, 1);
    cr_expect_eq(acre_lint_status(r), 1);
    acre_lint_free(r);
}

Test(lint, shadowed_rule_quiet_when_corrected)
{
    /* the specific rule first */
    expect_only("access to dn.subtree=\"ou=a,dc=x\" by users write\n"
                "access to * by * read\n",
                "shadowed-rule", 0);
    /* a catch-all that breaks lets later rules run */
    expect_only("access to * by * read break\n"
                "access to dn.subtree=\"ou=a,dc=x\" by users write\n",
                "shadowed-rule", 0);
    /* an earlier rule that targets fewer attributes */
    expect_only("access to attrs=cn by * read\n"
                "access to attrs=cn,sn by users read\n",
                "shadowed-rule", 0);
    /* a filter narrows the earlier rule */
    expect_only("access to filter=(ou=x) by * read\n"
                "access to * by users read\n",
                "shadowed-rule", 0);
    /* a val= rule never covers */
    expect_only("access to attrs=cn val=a by * read\n"
                "access to attrs=cn by users read\n",
                "shadowed-rule", 0);
}

Test(lint, shadowed_rule_by_several_rules)
{
    acre_lint_result *r = conf("access to attrs=cn by * read\n"
                               "access to attrs=sn by * read\n"
                               "access to attrs=cn,sn by users write\n");
    const acre_lint_finding *f = first(r, "shadowed-rule");

    cr_expect_eq(f->line, 3);
    cr_expect_str_eq(f->note, "the first of the rules that cover it");
    cr_expect_eq(f->note_line, 1);
    acre_lint_free(r);
}

Test(lint, shadowed_rule_scopes_filters_regexes)
{
    /* a subtree covers a deeper base; children covers one level */
    expect_only("access to dn.subtree=\"dc=x\" by * read\n"
                "access to dn.base=\"cn=a,ou=b,dc=x\" by users write\n",
                "shadowed-rule", 1);
    expect_only("access to dn.children=\"dc=x\" by * read\n"
                "access to dn.one=\"dc=x\" by users write\n",
                "shadowed-rule", 1);
    expect_only("access to dn.one=\"dc=x\" by * read\n"
                "access to dn.subtree=\"ou=b,dc=x\" by users write\n",
                "shadowed-rule", 0);
    /* the same filter text */
    expect_only("access to filter=(ou=x) by * read\n"
                "access to filter=(ou=x) attrs=cn by users write\n",
                "shadowed-rule", 1);
    /* a regex that matches the base */
    expect_only("access to dn.regex=\"^cn=[^,]+,dc=x$\" by * read\n"
                "access to dn.base=\"cn=a,dc=x\" by users write\n",
                "shadowed-rule", 1);
    expect_only("access to dn.regex=\"^cn=[^,]+,dc=x$\" by * read\n"
                "access to dn.base=\"cn=a,ou=b,dc=x\" by users write\n",
                "shadowed-rule", 0);
    /* a reachable break anywhere keeps later rules alive; one after a
     * clause that ends the rule is never reached */
    expect_only("access to * by users read break by * none\n"
                "access to attrs=cn by * read\n",
                "shadowed-rule", 0);
}

Test(lint, shadowed_global_rule_follows_database)
{
    /* inside the database, its catch-all decides: the global rule for
     * that subtree is dead ... */
    acre_lint_result *r = conf(
        "access to dn.subtree=\"ou=a,dc=example,dc=com\" by users write\n" DB
        "access to * by * read\n");
    cr_expect_eq(count(r, "shadowed-rule"), 1, "%s", show(r));
    cr_expect_eq(first(r, "shadowed-rule")->line, 1);
    cr_expect_eq(first(r, "shadowed-rule")->note_line, 5);
    acre_lint_free(r);
    /* ... but a global catch-all still serves entries outside it */
    expect_only("access to * by users write\n" DB "access to * by * read\n",
                "shadowed-rule", 0);
    /* and the database's rule comes first: a global rule never shadows
     * it */
    expect_only("access to * by users read\n" DB
                "access to attrs=cn by * read\n",
                "shadowed-rule", 0);
}

/* ------------------------------------------------------------------------
 * outside-suffix
 */

Test(lint, outside_suffix_fires)
{
    acre_lint_result *r =
        conf(DB "access to dn.subtree=\"ou=a,dc=example,dc=org\" by * read\n");
    const acre_lint_finding *f = first(r, "outside-suffix");

    cr_expect_eq(r->count, 1, "%s", show(r));
    cr_expect_eq(f->line, 4);
    cr_expect_eq(f->column, 23);
    cr_expect_eq(f->note_line, 1);
    acre_lint_free(r);
    expect_only(DB "access to dn.base=\"dc=com\" by * read\n", "outside-suffix",
                1);
    expect_only(DB "access to dn.regex=\"ou=a,dc=example,dc=org$\" by * read\n",
                "outside-suffix", 1);
}

Test(lint, outside_suffix_quiet_when_corrected)
{
    expect_only(DB
                "access to dn.subtree=\"ou=a,dc=example,dc=com\" by * read\n",
                "outside-suffix", 0);
    /* a subtree above the suffix holds it */
    expect_only(DB "access to dn.subtree=\"dc=com\" by * read\n",
                "outside-suffix", 0);
    expect_only(DB
                "access to dn.regex=\"^ou=a,dc=example,dc=com$\" by * read\n",
                "outside-suffix", 0);
    /* global rules serve every database */
    expect_only("access to dn.subtree=\"dc=org\" by * read\n" DB,
                "outside-suffix", 0);
}

/* ------------------------------------------------------------------------
 * unreachable-clause, useless-continue
 */

Test(lint, unreachable_clause_fires)
{
    acre_lint_result *r = conf("access to attrs=mobile\n"
                               "    by * read\n"
                               "    by self write\n");
    const acre_lint_finding *f = first(r, "unreachable-clause");

    cr_expect_eq(r->count, 1, "%s", show(r));
    cr_expect_eq(f->line, 3);
    cr_expect_eq(f->column, 5);
    cr_expect_eq(f->note_line, 2);
    cr_expect_str_eq(f->note, "this clause matches every requester and stops");
    acre_lint_free(r);
    expect_only("access to * by read by users write\n", "unreachable-clause",
                1);
}

Test(lint, unreachable_clause_quiet_when_corrected)
{
    expect_only("access to attrs=mobile by self write by * read\n",
                "unreachable-clause", 0);
    expect_only("access to * by * +r continue by users +w\n",
                "unreachable-clause", 0);
    expect_only("access to * by * ssf=128 read by users read\n",
                "unreachable-clause", 0);
}

Test(lint, useless_continue_fires)
{
    acre_lint_result *r = conf("access to attrs=title by users +r continue\n");
    const acre_lint_finding *f = first(r, "useless-continue");

    cr_expect_eq(r->count, 1, "%s", show(r));
    cr_expect_eq(f->line, 1);
    cr_expect_eq(f->column, 23);
    acre_lint_free(r);
}

Test(lint, useless_continue_quiet_when_corrected)
{
    expect_only("access to attrs=title by users +r continue by * break\n",
                "useless-continue", 0);
    expect_only("access to attrs=title by users +r\n", "useless-continue", 0);
}

/* ------------------------------------------------------------------------
 * unanchored-regex
 */

Test(lint, unanchored_regex_fires)
{
    acre_lint_result *r = conf(
        "access to dn.regex=\"ou=people,dc=example,dc=com\" by * read\n" DB);
    const acre_lint_finding *f = first(r, "unanchored-regex");

    cr_expect_eq(r->count, 1, "%s", show(r));
    cr_expect_eq(f->column, 21);
    cr_expect(strstr(f->message, "ou=people,dc=example,dc=com,dc=other"), "%s",
              f->message);
    acre_lint_free(r);
    /* a database with two suffixes: the other one is reached */
    expect_only(
        "database mdb\nsuffix dc=example,dc=com\nsuffix o=other\n"
        "access to dn.regex=\"^cn=[^,]+,dc=example,dc=com\" by * read\n",
        "unanchored-regex", 1);
    /* submatches used, no '^': a deeper entry gives its ancestor's */
    expect_only(DB "access to dn.regex=\"cn=([^,]+),dc=example,dc=com$\"\n"
                   "  by dn.exact,expand=\"uid=$1,dc=example,dc=com\" write\n",
                "unanchored-regex", 1);
    /* no '^', metacharacters or not: the entries below match too */
    expect_only(DB "access to dn.regex=\"ou=admins,dc=example,dc=com\" by * "
                   "read\n",
                "unanchored-regex", 1);
    expect_only(DB "access to dn.regex=\"uid=[^,]+,dc=example,dc=com$\" by * "
                   "read\n",
                "unanchored-regex", 1);
}

Test(lint, unanchored_regex_quiet_when_corrected)
{
    expect_only(
        "access to dn.regex=\"^ou=people,dc=example,dc=com$\" by * read\n" DB,
        "unanchored-regex", 0);
    expect_only(DB "access to dn.regex=\".+,ou=people,dc=example,dc=com$\" by "
                   "* read\n",
                "unanchored-regex", 0);
    /* a database with one suffix sees no other entries */
    expect_only(DB "access to dn.regex=\"^cn=[^,]+,dc=example,dc=com\" by * "
                   "read\n",
                "unanchored-regex", 0);
    expect_only(DB "access to dn.regex=\"^cn=([^,]+),dc=example,dc=com$\"\n"
                   "  by dn.exact,expand=\"uid=$1,dc=example,dc=com\" write\n",
                "unanchored-regex", 0);
    /* a regex that names no suffix */
    expect_only("access to dn.regex=\"^uid=[^,]+\" by * read\n" DB,
                "unanchored-regex", 0);
}

/* ------------------------------------------------------------------------
 * unknown-attribute
 */

Test(lint, unknown_attribute_fires_and_the_rest_is_checked)
{
    acre_lint_result *r = conf("access to attrs=cn,fooBar,@noSuchClass\n"
                               "    by * write\n"
                               "access to attrs=fooBar by * read\n");
    const acre_lint_finding *f = first(r, "unknown-attribute");

    cr_expect_eq(count(r, "unknown-attribute"), 3, "%s", show(r));
    cr_expect_eq(f->line, 1);
    cr_expect_eq(f->column, 17);
    cr_expect(strstr(f->message, "\"fooBar\""), "%s", f->message);
    /* the rules were read: the other mistakes are found */
    cr_expect_eq(count(r, "public-write"), 1, "%s", show(r));
    cr_expect_eq(count(r, "shadowed-rule"), 1, "%s", show(r));
    cr_expect_eq(r->errors, 0);
    cr_expect_eq(acre_lint_status(r), 1);
    acre_lint_free(r);
}

Test(lint, unknown_attribute_quiet_when_corrected)
{
    expect_only("access to attrs=cn,sn,@person by * read\n",
                "unknown-attribute", 0);
    /* a schema the file loads defines it */
    expect_only("attributetype ( 1.3.6.1.4.1.99999.1 NAME 'fooBar' "
                "SYNTAX 1.3.6.1.4.1.1466.115.121.1.15 )\n"
                "access to attrs=fooBar by * read\n",
                "unknown-attribute", 0);
}

Test(lint, unknown_option_stays_an_error)
{
    acre_lint_result *r = conf("access to attrs=cn;x-foo by * read\n");

    cr_expect_eq(r->count, 1, "%s", show(r));
    cr_expect_eq(r->findings[0].severity, ACRE_LINT_ERROR);
    cr_expect_str_eq(r->findings[0].id, "parse-error");
    cr_expect_eq(acre_lint_status(r), 2);
    acre_lint_free(r);
}

/* ------------------------------------------------------------------------
 * rootdn-clause, public-write
 */

Test(lint, rootdn_clause_fires)
{
    acre_lint_result *r =
        conf(DB "access to * by dn.exact=\"cn=Manager,dc=example,dc=com\" "
                "manage by * read\n");
    const acre_lint_finding *f = first(r, "rootdn-clause");

    cr_expect_eq(r->count, 1, "%s", show(r));
    cr_expect_eq(f->line, 4);
    cr_expect_eq(f->column, 16);
    acre_lint_free(r);
    /* a global rule whose target lies in that database */
    expect_only("access to dn.subtree=\"ou=a,dc=example,dc=com\"\n"
                "  by dn=\"cn=Manager,dc=example,dc=com\" write\n" DB,
                "rootdn-clause", 1);
}

Test(lint, rootdn_clause_quiet_when_corrected)
{
    expect_only(DB "access to * by dn.exact=\"cn=Admin,dc=example,dc=com\" "
                   "manage by * read\n",
                "rootdn-clause", 0);
    /* a global catch-all serves other databases too */
    expect_only("access to * by dn=\"cn=Manager,dc=example,dc=com\" write "
                "by * read\n" DB,
                "rootdn-clause", 0);
}

Test(lint, public_write_fires)
{
    acre_lint_result *r = conf("access to attrs=userPassword by * write\n");
    const acre_lint_finding *f = first(r, "public-write");

    cr_expect_eq(r->count, 1, "%s", show(r));
    cr_expect_eq(f->column, 35);
    acre_lint_free(r);
    expect_only("access to * by anonymous add\n", "public-write", 1);
    expect_only("access to * by write\n", "public-write", 1);
    expect_only("access to * by dn.regex=\".*\" +z\n", "public-write", 1);
    expect_only("access to * by * ssf=64 =w\n", "public-write", 1);
}

Test(lint, public_write_quiet_when_corrected)
{
    expect_only("access to attrs=userPassword by self write by anonymous auth "
                "by * none\n",
                "public-write", 0);
    expect_only("access to * by users write\n", "public-write", 0);
    expect_only("access to * by * -w\n", "public-write", 0);
    expect_only("access to attrs=member by * selfwrite\n", "public-write", 0);
    expect_only("access to * by * peername.ip=127.0.0.1 write\n",
                "public-write", 0);
}

/* ------------------------------------------------------------------------
 * catastrophic-regex
 */

Test(lint, catastrophic_regex_fires)
{
    acre_lint_result *r =
        conf("access to dn.regex=\"^(.+,)+ou=groups,dc=example,dc=com$\" "
             "by users read\n");
    const acre_lint_finding *f = first(r, "catastrophic-regex");

    cr_expect_eq(r->count, 1, "%s", show(r));
    cr_expect_eq(f->column, 21);
    cr_expect(strstr(f->message, "exponentially"), "%s", f->message);
    acre_lint_free(r);
    expect_only("access to * by dn.regex=\"^.*,.*,.*,dc=com$\" read\n",
                "catastrophic-regex", 1);
    expect_only("access to attrs=cn val.regex=\"^(a*b*)*c\" by * read\n",
                "catastrophic-regex", 1);
    expect_only("access to * by peername.regex=\"^(.+)+:x\" read\n",
                "catastrophic-regex", 1);
}

Test(lint, catastrophic_regex_quiet_when_corrected)
{
    expect_only("access to dn.regex=\"^([^,]+,)+ou=groups,dc=example,dc=com$\" "
                "by users read\n",
                "catastrophic-regex", 0);
    expect_only("access to * by dn.regex=\"^[^,]*,[^,]*,[^,]*,dc=com$\" read\n",
                "catastrophic-regex", 0);
    expect_only("access to * by dn.regex=\".*,.*,.*\" read\n",
                "catastrophic-regex", 0);
}

/* A '|' pattern whose submatches a clause substitutes: regexec takes
 * them within a budget, which a large pattern spends on short subjects;
 * one with a back-reference too is refused (an error, not a warning). */
Test(lint, regexec_budget)
{
    char *big = talloc_strdup(NULL, "access to dn.regex=\"^cn=(");
    for (int i = 0; i < 250; i++) /* about 240 bytes of budget */
        big = talloc_asprintf_append(big, "%suser%d", i ? "|" : "", i);
    big = talloc_strdup_append(big, "),dc=example,dc=com$\"\n"
                                    "  by dn.exact,expand=\"cn=$1,dc=example,"
                                    "dc=com\" read\n");
    acre_lint_result *r = conf(big);
    const acre_lint_finding *f = first(r, "catastrophic-regex");
    cr_expect_eq(r->count, 1, "%s", show(r));
    cr_expect(strstr(f->message, "within a budget"), "%s", f->message);
    acre_lint_free(r);
    /* without the substitution, or with a small pattern: quiet */
    char *plain = strstr(big, "  by dn.exact");
    strcpy(plain, "  by users read\n");
    expect_only(big, "catastrophic-regex", 0);
    talloc_free(big);
    expect_only("access to dn.regex=\"^|cn=([^,]+),dc=example,dc=com$\"\n"
                "  by dn.exact,expand=\"cn=$1,dc=example,dc=com\" read\n",
                "catastrophic-regex", 0);
    r = conf("access to dn.regex=\"(|)(\\\\1\\\\1)*\"\n"
             "  by dn.exact,expand=\"cn=$1,dc=example,dc=com\" read\n");
    cr_assert_eq(r->count, 1, "%s", show(r));
    cr_expect_eq(r->findings[0].severity, ACRE_LINT_ERROR);
    cr_expect_eq(r->findings[0].line, 1);
    cr_expect_eq(r->findings[0].column, 21);
    cr_expect(strstr(r->findings[0].message, "back-reference"), "%s", show(r));
    acre_lint_free(r);
}

Test(lint, backtrack_degrees)
{
    static const struct {
        const char *p;
        int want;
    } cases[] = {
        {".*,.*,.*", 0}, /* the last run never gives back */
        {".*,.*,.*,x", 3},
        {".*,.*,.*,.*,x", 4},
        {"(.+),(.+),(.+),x", 3},
        {".*,.*,x", 0},
        {"^(a+)+$", -1},
        {"^(a+)+", 0},
        {"^(.*,)*x", -1},
        {"^(a*b*)*c", -1},
        {"(ab*)*c", 0},
        {"[^,]*,[^,]*,[^,]*,x", 0},
        {"^cn=(.+),ou=(.+),dc=(.+)$", 0},
        {"^a**b", -1},
        {"x[0-9]*[a-z]*[0-9]*y", 0},
        {"a.*b.*c.*d", 3},
        {"^[[:alpha:]]+[[:digit:]]*$", 0},
    };

    void *ctx = talloc_new(NULL);

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char why[256];
        struct acreW_rx *rx =
            acreW_rx_parse(ctx, cases[i].p, strlen(cases[i].p), 0);
        cr_assert(rx, "%s", cases[i].p);
        cr_expect_eq(acreW_rx_backtrack(rx, why, sizeof(why)), cases[i].want,
                     "%s: %s", cases[i].p, why);
    }
    talloc_free(ctx);
}

/* Does pattern p reach PCRE2's match limit (as the engine compiles and
 * runs it) on prefix + unit repeated + tail, about n bytes long? */
static int
hits_limit(const char *p, const char *prefix, const char *unit,
           const char *tail, size_t n)
{
    void *ctx = talloc_new(NULL);
    struct acreI_regex re;
    const char *why = NULL;
    char *s = talloc_strdup(ctx, prefix);

    cr_assert_eq(acreO_regex_compile(ctx, p, strlen(p), &re, &why), 0, "%s",
                 why);
    while (strlen(s) + strlen(unit) + strlen(tail) <= n)
        s = talloc_strdup_append(s, unit);
    s = talloc_strdup_append(s, tail);
    int rc = acreW_re_match(&re, s, strlen(s), NULL);
    talloc_free(ctx);
    cr_assert(rc != 1, "%s matched its failing subject", p);
    return rc < 0;
}

Test(lint, backtracking_rule_holds_on_pcre2)
{
    /* reported: the limit is reached on DNs of a few hundred bytes */
    cr_expect(hits_limit(".*,.*,.*,x", "x", ",", "y", 600));
    cr_expect(hits_limit("(.+),(.+),(.+),x", "x", ",", "y", 600));
    cr_expect(hits_limit("^(a+)+$", "", "a", "b", 600));
    cr_expect(hits_limit("^(.*,)*x", "yx", ",", "z", 600));
    cr_expect(hits_limit("^(a*b*)*c", "", "ab", "dc", 600));
    cr_expect(hits_limit("^(.+,)+ou=groups,dc=example,dc=com$", "", "a,",
                         "ou=groups,dc=example,dc=co", 600));
    /* not reported: degree 2 and linear patterns survive 300 bytes */
    cr_expect(!hits_limit(".*,.*,x", "x", ",", "y", 300));
    cr_expect(!hits_limit("^cn=(.+),ou=(.+),dc=(.+)$", "cn=", ",ou=", "", 300));
    cr_expect(!hits_limit("[^,]*,[^,]*,[^,]*,x", "x", ",", "y", 300));
    cr_expect(!hits_limit("^([^,]+,)+ou=groups,dc=example,dc=com$", "", "a,",
                          "ou=groups,dc=example,dc=co", 300));
}

/* ------------------------------------------------------------------------
 * missing-base
 */

static const char data_ldif[] = "dn: dc=example,dc=com\n"
                                "objectClass: dcObject\n"
                                "objectClass: organization\n"
                                "dc: example\n"
                                "o: Example\n"
                                "\n"
                                "dn: ou=People,dc=example,dc=com\n"
                                "objectClass: organizationalUnit\n"
                                "ou: People\n";

static acre_directory *
data(void)
{
    acre_schema *s;
    acre_directory *dir;
    acre_diag d = {0};

    cr_assert_eq(acre_schema_new(NULL, ACRE_SCHEMA_SLAPD, &s, &d), 0);
    cr_assert_eq(acre_directory_load(s, s, "d.ldif", data_ldif,
                                     strlen(data_ldif), &dir, &d),
                 0, "%s", d.message);
    return dir;
}

static void
free_data(acre_directory *dir)
{
    acre_schema *s = talloc_parent(dir);

    acre_directory_free(dir);
    acre_schema_free(s);
}

Test(lint, missing_base_fires)
{
    acre_directory *dir = data();
    acre_lint_result *r = lint_as(
        ACRE_DIALECT_SLAPD_CONF,
        DB "access to dn.subtree=\"ou=Peple,dc=example,dc=com\" by * read\n"
           "access to dn.subtree=\"ou=People,dc=example,dc=com\"\n"
           "  by group=\"cn=staff,ou=People,dc=example,dc=com\" write\n"
           "  by dn.exact=\"cn=nobody,dc=example,dc=com\" read\n",
        dir, NULL);

    cr_expect_eq(count(r, "missing-base"), 3, "%s", show(r));
    cr_expect_eq(r->count, 3, "%s", show(r));
    cr_expect_eq(first(r, "missing-base")->line, 4);
    cr_expect_eq(first(r, "missing-base")->column, 23);
    cr_expect(
        strstr(first(r, "missing-base")->message, "\"dc=example,dc=com\""),
        "%s", first(r, "missing-base")->message);
    acre_lint_free(r);
    free_data(dir);
}

Test(lint, missing_base_quiet_when_corrected)
{
    acre_directory *dir = data();
    acre_lint_result *r =
        lint_as(ACRE_DIALECT_SLAPD_CONF,
                DB "access to dn.subtree=\"ou=People,dc=example,dc=com\"\n"
                   "  by dn.exact=\"cn=Manager,dc=example,dc=com\" read\n"
                   "  by dn.subtree=\"ou=People,dc=example,dc=com\" read\n"
                   /* a naming context the data does not hold */
                   "access to dn.subtree=\"ou=x,dc=example,dc=org\" by * read\n"
                   "access to dn.base=\"\" by * read\n",
                dir, NULL);

    cr_expect_eq(count(r, "missing-base"), 0, "%s", show(r));
    acre_lint_free(r);
    /* without data there is nothing to check */
    expect_only(DB "access to dn.subtree=\"ou=Peple,dc=example,dc=com\" by * "
                   "read\n",
                "missing-base", 0);
    free_data(dir);
}

/* ------------------------------------------------------------------------
 * Errors, several sources, silencing, status
 */

Test(lint, syntax_error_is_an_error_finding)
{
    acre_lint_result *r = conf("access to * by * write\n"
                               "access to * by * frobnicate\n");

    cr_assert_eq(r->count, 1, "%s", show(r));
    cr_expect_eq(r->errors, 1);
    cr_expect_eq(r->warnings, 0); /* nothing else of a source that fails */
    cr_expect_str_eq(r->findings[0].id, "parse-error");
    cr_expect_eq(r->findings[0].line, 2);
    cr_expect_eq(r->findings[0].column, 18);
    cr_expect(strstr(r->findings[0].message, "frobnicate"));
    cr_expect_eq(acre_lint_status(r), 2);
    acre_lint_free(r);
}

Test(lint, every_refused_rule_is_an_error)
{
    const char *text = DB "access to * by * frob\n"
                          "access to * by * read\n"
                          "access to dn.bogus=x by * read\n"
                          "access to attrs=cn\n by users write\n by * zap\n";
    acre_lint_result *r = conf(text);
    const unsigned lines[] = {4, 6, 9};

    cr_assert_eq(r->count, 3, "%s", show(r));
    cr_expect_eq(r->errors, 3);
    cr_expect_eq(r->warnings, 0);
    for (unsigned i = 0; i < 3; i++) {
        cr_expect_str_eq(r->findings[i].id, "parse-error");
        cr_expect_eq(r->findings[i].line, lines[i], "%s", show(r));
    }
    acre_lint_free(r);

    /* compiling still fails at the first error and keeps nothing */
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "t.conf", text, strlen(text)};
    acre_policy *p = NULL;
    acre_diag d = {0};
    cr_expect_eq(acre_policy_compile(NULL, NULL, &src, 1, 0, &p, &d),
                 ACRE_ERR_RULE_SYNTAX);
    cr_expect_null(p);
    cr_expect_eq(d.line, 4);
}

Test(lint, every_refused_olcaccess_value_is_an_error)
{
    acre_lint_result *r = lint_as(
        ACRE_DIALECT_SLAPD_CNCONFIG,
        "dn: cn=config\nobjectClass: olcGlobal\ncn: config\n\n"
        "dn: olcDatabase={1}mdb,cn=config\nobjectClass: olcDatabaseConfig\n"
        "olcDatabase: {1}mdb\nolcSuffix: dc=example,dc=com\n"
        "olcAccess: {0}to * by * frob\n"
        "olcAccess: {1}to * by * read\n"
        "olcAccess: {2}to * by * zap\n",
        NULL, NULL);

    cr_assert_eq(r->count, 2, "%s", show(r));
    cr_expect_eq(r->findings[0].line, 9);
    cr_expect_eq(r->findings[1].line, 11);
    acre_lint_free(r);
}

Test(lint, errors_of_one_source_are_bounded)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);

    for (int i = 0; i < 150; i++)
        fputs("access to * by * frob\n", f);
    fclose(f);
    acre_lint_result *r = conf(text);
    cr_expect_eq(r->count, 101, "%zu", r->count);
    cr_expect_eq(r->findings[100].line, 101);
    acre_lint_free(r);
    free(text);
}

Test(lint, comment_continuation_fires)
{
    acre_lint_result *r = conf(DB "access to attrs=cn\n by self write\n"
                                  "# the others read\n by * read\n"
                                  "# one more \\\naccess to * by * read\n");
    const acre_lint_finding *f = first(r, "comment-continuation");

    cr_assert_eq(r->count, 2, "%s", show(r));
    cr_expect_eq(f->line, 7);
    cr_expect_eq(f->column, 2);
    cr_expect_eq(f->note_line, 6);
    cr_expect(strstr(f->message, "rule at line 4"), "%s", f->message);
    cr_expect_eq(r->findings[1].line, 9, "%s", show(r));
    acre_lint_free(r);
    /* silenced above the rule the clause was cut off */
    expect_only(DB "# acre-lint: disable=comment-continuation\n"
                   "access to attrs=cn\n by self write\n# c\n by * read\n",
                "comment-continuation", 0);
    expect_only(DB "access to * by * read\n# c\n   \n# d\n",
                "comment-continuation", 0);
}

Test(lint, unreadable_file_is_a_read_error)
{
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "/nonexistent/acre.conf", NULL,
                       0};
    acre_lint_result *r;

    cr_assert_eq(acre_lint(NULL, &src, 1, NULL, NULL, 0, &r, NULL), 0);
    cr_assert_eq(r->count, 1);
    cr_expect_str_eq(r->findings[0].id, "read-error");
    cr_expect_eq(acre_lint_status(r), 2);
    acre_lint_free(r);
}

Test(lint, each_source_on_its_own)
{
    const char *a = "access to * by * frob\n";
    const char *b = "access to * by * read\naccess to * by * write\n";
    acre_source src[2] = {{ACRE_DIALECT_SLAPD_CONF, "a.conf", a, strlen(a)},
                          {ACRE_DIALECT_SLAPD_CONF, "b.conf", b, strlen(b)}};
    acre_lint_result *r;

    cr_assert_eq(acre_lint(NULL, src, 2, NULL, NULL, 0, &r, NULL), 0);
    cr_assert_eq(r->count, 3, "%s", show(r));
    cr_expect_str_eq(r->findings[0].file, "a.conf");
    cr_expect_str_eq(r->findings[0].id, "parse-error");
    cr_expect_str_eq(r->findings[1].file, "b.conf");
    cr_expect_eq(r->errors, 1);
    cr_expect_eq(r->warnings, 2);
    cr_expect_eq(acre_lint_status(r), 2);
    acre_lint_free(r);
}

Test(lint, clean_input_status_zero)
{
    acre_lint_result *r =
        conf(DB "access to attrs=userPassword by self write by anonymous auth "
                "by * none\naccess to * by self write by users read\n");

    cr_expect_eq(r->count, 0, "%s", show(r));
    cr_expect_eq(acre_lint_status(r), 0);
    char *t = acre_lint_format(r, ACRE_LINT_TEXT);
    cr_expect_str_eq(t, "");
    free(t);
    acre_lint_free(r);
}

Test(lint, disable_argument)
{
    const char *text = "access to * by * write\naccess to * by * read\n";
    acre_lint_result *r =
        lint_as(ACRE_DIALECT_SLAPD_CONF, text, NULL, "public-write");

    cr_expect_eq(r->count, 1, "%s", show(r));
    cr_expect_eq(count(r, "shadowed-rule"), 1);
    cr_expect_eq(r->suppressed, 1);
    acre_lint_free(r);
    r = lint_as(ACRE_DIALECT_SLAPD_CONF, text, NULL,
                "shadowed-rule,public-write");
    cr_expect_eq(r->count, 0, "%s", show(r));
    cr_expect_eq(acre_lint_status(r), 0);
    acre_lint_free(r);
    r = lint_as(ACRE_DIALECT_SLAPD_CONF, text, NULL, "all");
    cr_expect_eq(r->count, 0, "%s", show(r));
    acre_lint_free(r);
}

Test(lint, disable_unknown_id_is_invalid)
{
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "t.conf", "x", 1};
    acre_lint_result *r = NULL;
    acre_diag d = {0};

    cr_expect_eq(acre_lint(NULL, &src, 1, NULL, "public-write,nope", 0, &r, &d),
                 ACRE_ERR_INVAL);
    cr_expect(strstr(d.message, "\"nope\""), "%s", d.message);
    cr_expect_null(r);
    cr_expect_eq(acre_lint(NULL, &src, 1, NULL, NULL, 1, &r, NULL),
                 ACRE_ERR_INVAL);
    cr_expect_eq(acre_lint(NULL, &src, 1, NULL, NULL, 0, NULL, NULL),
                 ACRE_ERR_INVAL);
}

Test(lint, disable_comment)
{
    /* the comment block right above the rule, one id or several */
    expect_only("# a rule for guests\n"
                "# acre-lint: disable=public-write\n"
                "access to * by * write\n",
                "public-write", 0);
    expect_only("# acre-lint: disable=shadowed-rule,public-write\n"
                "access to attrs=cn by * write\n",
                "public-write", 0);
    expect_only("# acre-lint: disable=all\naccess to * by * write\n",
                "public-write", 0);
    /* not another id, not across a blank line, not for the next rule */
    expect_only("# acre-lint: disable=shadowed-rule\n"
                "access to * by * write\n",
                "public-write", 1);
    expect_only("# acre-lint: disable=public-write\n\n"
                "access to * by * write\n",
                "public-write", 1);
    acre_lint_result *r = conf("# acre-lint: disable=public-write\n"
                               "access to attrs=cn by * write\n"
                               "access to attrs=sn by * write\n");
    cr_expect_eq(count(r, "public-write"), 1, "%s", show(r));
    cr_expect_eq(first(r, "public-write")->line, 3);
    cr_expect_eq(r->suppressed, 1);
    acre_lint_free(r);
}

Test(lint, cnconfig_input_and_comment)
{
    const char *ldif = "dn: cn=config\nobjectClass: olcGlobal\ncn: config\n\n"
                       "dn: olcDatabase={1}mdb,cn=config\n"
                       "objectClass: olcDatabaseConfig\n"
                       "olcDatabase: {1}mdb\n"
                       "olcSuffix: dc=example,dc=com\n"
                       "# acre-lint: disable=public-write\n"
                       "olcAccess: {0}to * by * write\n"
                       "olcAccess: {1}to * by users\n"
                       "  read\n";
    acre_lint_result *r =
        lint_as(ACRE_DIALECT_SLAPD_CNCONFIG, ldif, NULL, NULL);

    cr_assert_eq(r->count, 1, "%s", show(r));
    cr_expect_str_eq(r->findings[0].id, "shadowed-rule");
    cr_expect_str_eq(r->findings[0].file, "t.ldif");
    cr_expect_eq(r->findings[0].line, 11);
    cr_expect_eq(r->findings[0].note_line, 10);
    acre_lint_free(r);
}

/* Lint one text without a path: no file exists to be read again. */
static acre_lint_result *
lint_pathless(int dialect, const char *text)
{
    acre_source src = {dialect, NULL, text, strlen(text)};
    acre_lint_result *r = NULL;
    acre_diag d = {0};

    cr_assert_eq(acre_lint(NULL, &src, 1, NULL, NULL, 0, &r, &d), 0, "%s",
                 d.message);
    cr_assert(r);
    return r;
}

Test(lint, disable_comment_without_file)
{
    /* the comments come from the lexer: a text with no file behind it is
     * silenced too (re-reading a file, lint could not) */
    acre_lint_result *r = lint_pathless(ACRE_DIALECT_SLAPD_CONF,
                                        "# acre-lint: disable=public-write\n"
                                        "access to attrs=cn by * write\n"
                                        "access to attrs=sn by * write\n");
    cr_expect_eq(count(r, "public-write"), 1, "%s", show(r));
    cr_expect_eq(first(r, "public-write")->line, 3);
    cr_expect_eq(r->suppressed, 1);
    acre_lint_free(r);
    r = lint_pathless(ACRE_DIALECT_SLAPD_CNCONFIG,
                      "dn: olcDatabase={1}mdb,cn=config\n"
                      "objectClass: olcDatabaseConfig\n"
                      "olcSuffix: dc=example,dc=com\n"
                      "# acre-lint: disable=public-write\n"
                      "olcAccess: {0}to attrs=cn by * write\n"
                      "olcAccess: {1}to attrs=sn by * write\n");
    cr_expect_eq(count(r, "public-write"), 1, "%s", show(r));
    cr_expect_eq(first(r, "public-write")->line, 6);
    cr_expect_eq(r->suppressed, 1);
    acre_lint_free(r);
}

Test(lint, disable_comment_runs)
{
    /* physical lines: a continuation line breaks the run of '#' lines, in
     * slapd.conf and in LDIF (where a comment is continued too) */
    expect_only("# acre-lint: disable=public-write\n"
                "# more words\n"
                "access to * by * write\n",
                "public-write", 0);
    acre_lint_result *c = conf("# acre-lint: disable=public-write\n"
                               " continued\n"
                               "access to * by * write\n");
    cr_expect_eq(count(c, "public-write"), 1, "%s", show(c));
    cr_expect_eq(count(c, "comment-continuation"), 1, "%s", show(c));
    acre_lint_free(c);
    expect_only("# acre-lint: disable=public-write \\\n"
                "#\n"
                "access to * by * write\n",
                "public-write", 0);
    const char *head = "dn: olcDatabase={1}mdb,cn=config\n"
                       "objectClass: olcDatabaseConfig\n"
                       "olcSuffix: dc=example,dc=com\n";
    char text[512];
    snprintf(text, sizeof(text),
             "%s# acre-lint: disable=public-write\n# a note\n"
             "olcAccess: {0}to * by * write\n",
             head);
    acre_lint_result *r =
        lint_as(ACRE_DIALECT_SLAPD_CNCONFIG, text, NULL, NULL);
    cr_expect_eq(count(r, "public-write"), 0, "%s", show(r));
    cr_expect_eq(r->suppressed, 1);
    acre_lint_free(r);
    snprintf(text, sizeof(text),
             "%s# acre-lint: disable=public-write\n  folded\n"
             "olcAccess: {0}to * by * write\n",
             head);
    r = lint_as(ACRE_DIALECT_SLAPD_CNCONFIG, text, NULL, NULL);
    cr_expect_eq(count(r, "public-write"), 1, "%s", show(r));
    cr_expect_eq(r->suppressed, 0);
    acre_lint_free(r);
}

Test(lint, disable_comment_in_include)
{
    char dir[] = "/tmp/acre-lint-XXXXXX", inc[64], text[128];

    cr_assert(mkdtemp(dir));
    snprintf(inc, sizeof(inc), "%s/inc.conf", dir);
    FILE *f = fopen(inc, "w");
    cr_assert(f);
    fputs("# acre-lint: disable=public-write\n"
          "access to attrs=cn by * write\n"
          "access to attrs=sn by * write\n",
          f);
    fclose(f);
    snprintf(text, sizeof(text), "include %s\n", inc);
    acre_lint_result *r = conf(text);
    unlink(inc);
    rmdir(dir);
    cr_expect_eq(count(r, "public-write"), 1, "%s", show(r));
    cr_expect_str_eq(first(r, "public-write")->file, inc);
    cr_expect_eq(first(r, "public-write")->line, 3);
    cr_expect_eq(r->suppressed, 1);
    acre_lint_free(r);
}

Test(lint, checks_list)
{
    size_t n;
    const acre_lint_check *c = acre_lint_checks(&n);

    cr_assert_eq(n, ACREW_NCHECKS);
    for (size_t i = 0; i < n; i++) {
        cr_expect_str_eq(c[i].id, acreW_check_id((int)i));
        cr_expect(c[i].summary && c[i].summary[0]);
    }
}

/* ------------------------------------------------------------------------
 * Formats
 */

static acre_lint_result *
two_findings(void)
{
    return conf("access to * by * read\naccess to * by \"*\" write\n");
}

Test(lint, text_format)
{
    acre_lint_result *r = two_findings();
    char *t = acre_lint_format(r, ACRE_LINT_TEXT);

    cr_expect_str_eq(
        t, "t.conf:2:8: warning: this rule never applies: rules before it "
           "that always stop match every entry and attribute it targets "
           "[shadowed-rule]\n"
           "t.conf:1:8: note: this rule covers it\n"
           "t.conf:2:20: warning: this clause grants write(=wrscxd) to every "
           "requester, anonymous ones included [public-write]\n");
    free(t);
    cr_expect_null(acre_lint_format(r, 99));
    acre_lint_free(r);
    r = conf("access to * by * bad\n");
    t = acre_lint_format(r, ACRE_LINT_TEXT);
    cr_expect_str_eq(t, "t.conf:1:18: error: expecting <access> got \"bad\"\n");
    free(t);
    acre_lint_free(r);
}

Test(lint, json_format)
{
    acre_lint_result *r = two_findings();
    char *t = acre_lint_format(r, ACRE_LINT_JSON);

    cr_expect_str_eq(
        t,
        "[\n"
        "{\"id\":\"shadowed-rule\",\"severity\":\"warning\",\"file\":\"t."
        "conf\","
        "\"line\":2,\"column\":8,\"message\":\"this rule never applies: rules "
        "before it that always stop match every entry and attribute it "
        "targets\",\"related\":{\"file\":\"t.conf\",\"line\":1,\"column\":8,"
        "\"message\":\"this rule covers it\"}},\n"
        "{\"id\":\"public-write\",\"severity\":\"warning\",\"file\":\"t.conf\","
        "\"line\":2,\"column\":20,\"message\":\"this clause grants "
        "write(=wrscxd) to every requester, anonymous ones included\"}\n"
        "]\n");
    free(t);
    acre_lint_free(r);
    r = conf("");
    t = acre_lint_format(r, ACRE_LINT_JSON);
    cr_expect_str_eq(t, "[]\n");
    free(t);
    acre_lint_free(r);
}

Test(lint, json_escapes_and_invalid_utf8)
{
    acre_lint_result *r =
        conf("access to * by dn.regex=\"^\\\"\xff.*,.*,.*,x\" read\n");
    char *t = acre_lint_format(r, ACRE_LINT_JSON);

    cr_assert(t);
    cr_expect(strstr(t, "\\\"\\ufffd.*,.*,.*,x"), "%s", t);
    free(t);
    acre_lint_free(r);
}

Test(lint, sarif_format)
{
    acre_lint_result *r = two_findings();
    char *t = acre_lint_format(r, ACRE_LINT_SARIF);

    cr_assert(t);
    cr_expect(strstr(t, "\"version\": \"2.1.0\""));
    cr_expect(strstr(t, "\"name\": \"acre\""));
    cr_expect(strstr(t, "{\"id\": \"shadowed-rule\", \"shortDescription\""));
    cr_expect(strstr(t, "{\"id\": \"parse-error\""));
    cr_expect(strstr(t, "\"ruleId\": \"public-write\",\n"
                        "          \"ruleIndex\": 7,\n"
                        "          \"level\": \"warning\""),
              "%s", t);
    cr_expect(strstr(t, "\"artifactLocation\": {\"uri\": \"t.conf\"},\n"
                        "              \"region\": {\"startLine\": 2, "
                        "\"startColumn\": 20}"),
              "%s", t);
    cr_expect(strstr(t, "\"relatedLocations\": [{\n            \"id\": 0,"),
              "%s", t);
    free(t);
    acre_lint_free(r);
}

/* ------------------------------------------------------------------------
 * OpenLDAP's test006: its two real mistakes and nothing else
 */

static char *
slurp(void *ctx, const char *name)
{
    const char *slash = strrchr(__FILE__, '/');
    char *path = talloc_asprintf(ctx, "%.*s/../oracle/data/openldap-test006/%s",
                                 slash ? (int)(slash - __FILE__) : 1,
                                 slash ? __FILE__ : ".", name);
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    char *buf = talloc_array(ctx, char, 1 << 20);
    size_t n = fread(buf, 1, (1 << 20) - 1, f);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

Test(lint, test006_only_real_mistakes)
{
    void *ctx = talloc_new(NULL);
    char *text = talloc_asprintf(
        ctx,
        "%s\ndatabase mdb\nsuffix \"dc=example,dc=com\"\n"
        "rootdn \"cn=Manager,dc=example,dc=com\"\nrootpw secret\n%s",
        slurp(ctx, "rules.global.acl"), slurp(ctx, "rules.db.acl"));
    acre_lint_result *r = conf(text);

    /* "to attrs=member,uniquemember filter=(mail=*com)" follows "to
     * attrs=member,uniquemember", which always stops: slapd never
     * reaches it.  "to filter=(name=X*Y*Z) by * continue" grants nothing
     * (the test checks exactly that). */
    cr_assert_eq(r->count, 2, "%s", show(r));
    cr_expect_str_eq(r->findings[0].id, "shadowed-rule");
    cr_expect(strstr(text, "access\t\tto attrs=member,uniquemember "
                           "filter=\"(mail=*com)\""));
    cr_expect_str_eq(r->findings[1].id, "useless-continue");
    acre_lint_free(r);
    talloc_free(ctx);
}
