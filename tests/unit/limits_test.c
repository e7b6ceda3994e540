/*
 * limits_test.c -- each documented bound of acre-rules(5) LIMITS that no
 * other suite held on both sides: the input just past it is refused with
 * the documented error (ACRE_ERR_RULE_LIMIT naming file:line:col when
 * rules are compiled, ACRE_ERR_EVAL_LIMIT when a check is denied), and
 * the input just within it works.
 *
 * Held elsewhere: DN bytes, RDNs, AVAs and nesting (dn_test.c); filter
 * nesting and length (filter_test.c); LDIF line length (ldif_test.c);
 * rule tokens, set parentheses, regcomp cost estimates (openldap_parse_
 * test.c, regex_bound_test.c); the regexec budget (regex_bound_test.c);
 * a set's request-wide budget and memberURL bytes past the limit
 * (embed_test.c); subtreeSpecification bounds (subentry_spec_test.c).
 *
 * Where PCRE2 counts its own units (match and depth limits), the pair is
 * chosen well on each side of the point where the count crosses the limit
 * on PCRE2 10.42, so that a later PCRE2 that counts a little differently
 * does not fail the test.
 */
#include "acre.h"
#include "eval.h"
#include "openldap.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include <unistd.h>

static void *ctx;

static void
setup(void)
{
    ctx = talloc_new(NULL);
}

static void
teardown(void)
{
    talloc_free(ctx);
}

TestSuite(limits, .init = setup, .fini = teardown, .timeout = 120);

#define SUFFIX "database mdb\nsuffix \"dc=example,dc=com\"\n"
#define TOP    "dc=example,dc=com"
#define X      "cn=x," TOP

/* Compile slapd.conf text named "limits.conf"; NULL (*d filled) when
 * refused. */
static acre_policy *
compile(const char *text, acre_diag *d)
{
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "limits.conf", text,
                       strlen(text)};
    acre_policy *p = NULL;
    acre_schema *s;
    acre_diag dd;

    cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &s, NULL), 0);
    return acre_policy_compile(ctx, s, &src, 1, 0, &p, d ? d : &dd) ? NULL : p;
}

/* The suffix, cn=x and `more` (LDIF records), under p's schema. */
static acre_directory *
directory(acre_policy *p, const char *more)
{
    char *ldif = talloc_asprintf(ctx,
                                 "dn: " TOP "\nobjectClass: domain\n"
                                 "dc: example\n\n"
                                 "dn: " X "\nobjectClass: person\ncn: x\n"
                                 "sn: x\n\n%s",
                                 more ? more : "");
    acre_directory *dir;
    acre_diag d;

    cr_assert_eq(acre_directory_load(ctx, acre_policy_schema(p), "t.ldif", ldif,
                                     strlen(ldif), &dir, &d),
                 0, "line %u: %s", d.line, d.message);
    return dir;
}

/* acre_access for reading cn of entry dn by requester who. */
static int
check(acre_policy *p, acre_directory *dir, const char *who, const char *dn)
{
    acre_subject s = {.authz_dn = who};
    acre_request *rq;
    acre_dn *d;

    cr_assert_eq(acre_request_begin(p, &s, acre_directory_host(dir), &rq), 0);
    cr_assert_eq(
        acre_dn_parse(ctx, acre_policy_schema(p), dn, strlen(dn), 0, &d, NULL),
        0);
    const acre_entry *e = acre_directory_find(dir, d);
    cr_assert(e, "%s", dn);
    int rc = acre_access(rq, acre_entry_view_of(e), "cn", NULL, 0,
                         ACRE_RIGHT_READ, NULL);
    acre_request_end(rq);
    return rc;
}

/* The answer for rules `rules` (after SUFFIX) to reader `who` on cn=x. */
static int
decide(const char *rules, const char *who)
{
    char *text = talloc_asprintf(ctx, SUFFIX "%s", rules);
    acre_diag d;
    acre_policy *p = compile(text, &d);

    cr_assert(p, "%s: %u:%u: %s", acre_strerror(d.code), d.line, d.column,
              d.message);
    int rc = check(p, directory(p, NULL), who, X);
    acre_policy_release(p);
    return rc;
}

static char *
times(const char *s, unsigned n, const char *sep)
{
    char *t = talloc_strdup(ctx, "");

    for (unsigned i = 0; i < n; i++)
        t = talloc_asprintf_append(t, "%s%s", i ? sep : "", s);
    cr_assert(t);
    return t;
}

/* ------------------------------------------------------------------------
 * Regular expressions at evaluation: PCRE2's match and depth limits
 */

/* (a|aa)*c on a^n b: the match limit (100,000) is reached past n = 22 */
Test(limits, regex_match_limit_denies)
{
    const char *rules = "access to * by dn.regex=\"^cn=(a|aa)*c\" none\n"
                        "  by * read\n";
    char *under = talloc_asprintf(ctx, "cn=%sb," TOP, times("a", 18, ""));
    char *over = talloc_asprintf(ctx, "cn=%sb," TOP, times("a", 28, ""));

    cr_expect_eq(decide(rules, under), 1);
    cr_expect_eq(decide(rules, over), ACRE_ERR_EVAL_LIMIT);
}

/* (a)* keeps a backtracking frame per repetition: the depth limit (1000)
 * is reached past 1364 repetitions */
Test(limits, regex_depth_limit_denies)
{
    const char *rules = "access to * by dn.regex=\"^cn=(a)*," TOP "$\" read\n"
                        "  by * none\n";
    char *under = talloc_asprintf(ctx, "cn=%s," TOP, times("a", 1000, ""));
    char *over = talloc_asprintf(ctx, "cn=%s," TOP, times("a", 2000, ""));

    cr_expect_eq(decide(rules, under), 1);
    cr_expect_eq(decide(rules, over), ACRE_ERR_EVAL_LIMIT);
}

/* A <what> pattern of 8192 bytes compiles, 8193 are refused at their
 * place; a <who> pattern of 254 bytes compiles, 255 are refused. */
Test(limits, regex_pattern_length)
{
    for (int who = 0; who < 2; who++) {
        size_t max = who ? ACREO_MAX_WHO_REGEX : ACREO_MAX_REGEX;
        for (size_t n = max; n <= max + 1; n++) {
            char *re = talloc_array(ctx, char, n + 1);
            memset(re, 'a', n);
            re[0] = '^';
            re[n] = '\0';
            char *text =
                who ? talloc_asprintf(ctx,
                                      SUFFIX "access to * by dn.regex=\"%s\" "
                                             "read\n",
                                      re)
                    : talloc_asprintf(ctx,
                                      SUFFIX "access to dn.regex=\"%s\" by * "
                                             "read\n",
                                      re);
            acre_diag d;
            acre_policy *p = compile(text, &d);
            if (n == max) {
                cr_expect(p, "%zu bytes: %s", n, d.message);
                acre_policy_release(p);
                continue;
            }
            cr_expect_null(p, "%zu bytes", n);
            cr_expect_eq(d.code, ACRE_ERR_RULE_LIMIT);
            cr_expect_eq(d.line, 3);
            cr_expect_gt(d.column, 0);
            cr_expect_str_eq(d.file, "limits.conf");
        }
    }
}

/* ------------------------------------------------------------------------
 * Sets
 */

/* A balanced union of n literals PFX0..PFXn-1 (a chain would be deep). */
static char *
literals(const char *pfx, unsigned lo, unsigned hi)
{
    if (hi - lo == 1)
        return talloc_asprintf(ctx, "[%s%u]", pfx, lo);
    unsigned mid = lo + (hi - lo) / 2;
    return talloc_asprintf(ctx, "(%s|%s)", literals(pfx, lo, mid),
                           literals(pfx, mid, hi));
}

static int
set_decide(const char *expr)
{
    return decide(talloc_asprintf(ctx,
                                  "access to * by set=\"%s\" read\n"
                                  "  by * none\n",
                                  expr),
                  X);
}

/* 65,536 elements in one set: 256 x 256 pairs work, 257 x 256 deny */
Test(limits, set_elements_per_set)
{
    char *a256 = literals("a", 0, 256), *a257 = literals("a", 0, 257);
    char *b256 = literals("b", 0, 256);

    cr_expect_eq(
        set_decide(talloc_asprintf(ctx, "%s+%s & [a255b255]", a256, b256)), 1);
    cr_expect_eq(
        set_decide(talloc_asprintf(ctx, "%s+%s & [a255b255]", a257, b256)),
        ACRE_ERR_EVAL_LIMIT);
}

/* A string made by + is the same element as that string written whole,
 * wherever it is split (the sets' hash reads 8 bytes at a time) */
Test(limits, set_elements_made_by_concatenation)
{
    const char *w = "abcdefghijklmnopq";

    for (int i = 1; i < 17; i++) {
        cr_expect_eq(set_decide(talloc_asprintf(ctx, "[%.*s]+[%s] & [%s]", i, w,
                                                w + i, w)),
                     1, "split at %d", i);
        cr_expect_eq(set_decide(talloc_asprintf(ctx, "[%s] & ([%.*s]+[%s])", w,
                                                i, w, w + i)),
                     1, "split at %d", i);
        cr_expect_eq(set_decide(talloc_asprintf(ctx, "[%.*s]+[%s] & [%.16sx]",
                                                i, w, w + i, w)),
                     0, "split at %d", i);
    }
}

/* 128 levels of operators: a chain of 128 unions works, 129 deny */
Test(limits, set_operator_depth)
{
    cr_expect_eq(set_decide(times("[x]", 129, "|")), 1);
    cr_expect_eq(set_decide(times("[x]", 130, "|")), ACRE_ERR_EVAL_LIMIT);
}

/* S8 is 4^8 = 65,536 strings made by about 87,000 concatenations; a union
 * of k copies costs about k x 150,000 steps of the 4 Mi of one check */
Test(limits, set_work_per_check)
{
    const char *s = "(([a]|[b])|([c]|[d]))";
    char *s8 = talloc_asprintf(ctx, "(%s)", times(s, 8, "+"));

    cr_expect_eq(
        set_decide(talloc_asprintf(ctx, "%s & [abcdabcd]", times(s8, 10, "|"))),
        1);
    cr_expect_eq(
        set_decide(talloc_asprintf(ctx, "%s & [abcdabcd]", times(s8, 40, "|"))),
        ACRE_ERR_EVAL_LIMIT);
}

/* 32 MiB of strings made in one check: S8 + [n bytes] makes 65,536 x
 * (8 + n) bytes */
Test(limits, set_bytes_per_check)
{
    const char *s = "(([a]|[b])|([c]|[d]))";
    char *s8 = talloc_asprintf(ctx, "(%s)", times(s, 8, "+"));
    char *x300 = times("x", 300, ""), *x600 = times("x", 600, "");

    cr_expect_eq(set_decide(talloc_asprintf(ctx, "%s+[%s] & [abcdabcd%s]", s8,
                                            x300, x300)),
                 1);
    cr_expect_eq(set_decide(talloc_asprintf(ctx, "%s+[%s] & [abcdabcd%s]", s8,
                                            x600, x600)),
                 ACRE_ERR_EVAL_LIMIT);
}

/* An expression of 8192 bytes works; 8193 bytes never match (slapd only
 * parses sets per check, so the rule loads, with a note) */
Test(limits, set_expression_length)
{
    char *ok = talloc_asprintf(ctx, "[%s]", times("x", ACREO_MAX_SET - 2, ""));
    char *big = talloc_asprintf(ctx, "[%s]", times("x", ACREO_MAX_SET - 1, ""));

    cr_assert_eq(strlen(ok), ACREO_MAX_SET);
    cr_expect_eq(set_decide(ok), 1);
    cr_expect_eq(set_decide(big), 0);
}

/* ------------------------------------------------------------------------
 * Reading rules: logical lines, includes
 */

/* A logical line of 1 MiB compiles; one byte more is refused at its
 * line. */
Test(limits, rule_line_length)
{
    const char *head = "access to *", *tail = " by * read\n";
    for (size_t n = ACREO_MAX_LINE; n <= ACREO_MAX_LINE + 1; n++) {
        size_t pad = n - strlen(head) - strlen(tail) + 1; /* \n not in it */
        char *text =
            talloc_asprintf(ctx, SUFFIX "%s%*s%s", head, (int)pad, "", tail);
        acre_diag d;
        acre_policy *p = compile(text, &d);
        if (n == ACREO_MAX_LINE) {
            cr_expect(p, "%s", d.message);
            acre_policy_release(p);
            continue;
        }
        cr_expect_null(p);
        cr_expect_eq(d.code, ACRE_ERR_RULE_LIMIT);
        cr_expect_eq(d.line, 3);
        cr_expect_str_eq(d.file, "limits.conf");
    }
}

/* Includes nested 16 deep compile; a 17th is refused at its line. */
Test(limits, include_nesting)
{
    char dir[] = "/tmp/acre-limits-XXXXXX";
    cr_assert(mkdtemp(dir));
    for (int depth = ACREO_MAX_INCLUDE; depth <= ACREO_MAX_INCLUDE + 1;
         depth++) {
        /* f0 includes f1 ... f(depth-1) includes f(depth), which has the
         * rule */
        for (int i = 0; i <= depth; i++) {
            char *path = talloc_asprintf(ctx, "%s/f%d.conf", dir, i);
            FILE *f = fopen(path, "w");
            cr_assert(f);
            if (i == 0)
                fputs(SUFFIX, f);
            if (i < depth)
                fprintf(f, "# file %d\ninclude %s/f%d.conf\n", i, dir, i + 1);
            else
                fputs("access to * by * read\n", f);
            fclose(f);
        }
        char *top = talloc_asprintf(ctx, "%s/f0.conf", dir);
        acre_source src = {ACRE_DIALECT_SLAPD_CONF, top, NULL, 0};
        acre_schema *s;
        acre_policy *p = NULL;
        acre_diag d;
        cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &s, NULL), 0);
        int rc = acre_policy_compile(ctx, s, &src, 1, 0, &p, &d);
        if (depth == ACREO_MAX_INCLUDE) {
            cr_expect_eq(rc, 0, "%s", d.message);
            acre_policy_release(p);
        } else {
            char *last = talloc_asprintf(ctx, "%s/f%d.conf", dir, depth - 1);
            cr_expect_eq(rc, ACRE_ERR_RULE_LIMIT);
            cr_expect_str_eq(d.file, last);
            cr_expect_eq(d.line, 2);
            cr_expect_eq(d.column, 9);
        }
        for (int i = 0; i <= depth; i++)
            unlink(talloc_asprintf(ctx, "%s/f%d.conf", dir, i));
    }
    rmdir(dir);
}

/* ------------------------------------------------------------------------
 * Dynamic groups
 */

/* At most 1 MiB of memberURL text for one group: 15 URLs of 64 KiB deny
 * nothing (the requester is no member), 17 deny the check. */
Test(limits, group_url_bytes)
{
    const char *rules = "access to * by group/groupOfURLs/memberURL="
                        "\"cn=g," TOP "\" none\n"
                        "  by * read\n";
    char *text = talloc_asprintf(ctx, SUFFIX "%s", rules);
    acre_policy *p = compile(text, NULL);
    cr_assert(p);
    char *value = times("v", 65536 - 64, "");

    for (int n = 15; n <= 17; n += 2) {
        char *g = talloc_strdup(ctx, "dn: cn=g," TOP "\n"
                                     "objectClass: groupOfURLs\ncn: g\n");
        for (int i = 0; i < n; i++)
            g = talloc_asprintf_append(
                g, "memberURL: ldap:///" TOP "??sub?(cn=%d%s)\n", i, value);
        acre_directory *dir = directory(p, g);
        cr_expect_eq(check(p, dir, X, X),
                     (unsigned)n * 65536 < ACREV_GROUP_MAX_URL_BYTES
                         ? 1
                         : ACRE_ERR_EVAL_LIMIT,
                     "%d URLs", n);
    }
    acre_policy_release(p);
}
