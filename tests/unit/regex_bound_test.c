/*
 * regex_bound_test.c -- regular expressions whose cost slapd leaves
 * unbounded, through the public API: patterns refused when compiled
 * (back-references in '|' patterns whose submatches are substituted,
 * patterns glibc's regcomp would blow up on), checks denied with
 * ACRE_ERR_EVAL_LIMIT (a substituted pattern too costly to compile per
 * check, a subject too long for regexec's budget), and the submatches
 * of '|' patterns, which must stay slapd's (glibc's regexec over the whole
 * subject) while acre runs regexec from PCRE2's match start on a regex_t
 * of the request's own.
 */
#include "acre.h"
#include "eval.h"
#include "openldap_int.h"

#include <criterion/criterion.h>
#include <regex.h>
#include <stdio.h>
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
    talloc_free(ctx);
}

TestSuite(regex_bound, .init = setup, .fini = teardown);

#define SUFFIX "database mdb\nsuffix \"dc=example,dc=com\"\n"

/* Compile slapd.conf text; NULL (and *d filled) when refused. */
static acre_policy *
compile(const char *text, acre_diag *d)
{
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "slapd.conf", text,
                       strlen(text)};
    acre_policy *p = NULL;
    acre_schema *s;

    cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &s, NULL), 0);
    return acre_policy_compile(ctx, s, &src, 1, 0, &p, d) ? NULL : p;
}

/* A directory of the suffix and the entries `dns` (cn=... names), under
 * p's schema. */
static acre_directory *
directory(acre_policy *p, const char *const *dns, size_t n)
{
    char *ldif = talloc_strdup(ctx, "dn: dc=example,dc=com\n"
                                    "objectClass: domain\ndc: example\n\n");
    acre_directory *dir;

    for (size_t i = 0; i < n; i++) {
        const char *v = strchr(dns[i], '=') + 1;
        int vl = (int)(strchr(v, ',') - v);
        ldif = talloc_asprintf_append(ldif,
                                      "dn: %s\nobjectClass: person\n"
                                      "cn: %.*s\nsn: x\n"
                                      "description: d\n\n",
                                      dns[i], vl, v);
    }
    cr_assert_eq(acre_directory_load(ctx, acre_policy_schema(p), "t.ldif", ldif,
                                     strlen(ldif), &dir, NULL),
                 0);
    return dir;
}

static const acre_entry *
entry(acre_policy *p, acre_directory *dir, const char *dn)
{
    acre_dn *d;

    cr_assert_eq(
        acre_dn_parse(ctx, acre_policy_schema(p), dn, strlen(dn), 0, &d, NULL),
        0, "%s", dn);
    const acre_entry *e = acre_directory_find(dir, d);
    cr_assert(e, "%s", dn);
    return e;
}

/* acre_access of "entry" (read) on dn by requester who. */
static int
check(acre_policy *p, acre_directory *dir, const char *who, const char *dn,
      const char *attr)
{
    acre_subject s = {.authz_dn = who};
    acre_request *rq;

    cr_assert_eq(acre_request_begin(p, &s, acre_directory_host(dir), &rq), 0);
    int rc = acre_access(rq, acre_entry_view_of(entry(p, dir, dn)), attr, NULL,
                         0, ACRE_RIGHT_READ, NULL);
    acre_request_end(rq);
    return rc;
}

/* ------------------------------------------------------------------------
 * Refused when compiled
 */

/* issue 12: glibc's regexec overflowed its stack on this pattern for any
 * requester, once a clause substituted its submatches */
Test(regex_bound, backref_with_alternation_crash_refused)
{
    acre_diag d;

    cr_expect_null(compile(SUFFIX "access to dn.regex=\"(|)(\\\\1\\\\1)*\"\n"
                                  "  by dn.exact,expand=\"cn=$1,dc=example,"
                                  "dc=com\" read\n"
                                  "  by * read\n",
                           &d));
    cr_expect_eq(d.code, ACRE_ERR_RULE_LIMIT);
    cr_expect_str_eq(d.file, "slapd.conf");
    cr_expect_eq(d.line, 3);
    cr_expect_eq(d.column, 21);
    cr_expect(strstr(d.message, "back-reference"), "%s", d.message);
}

/* issue 12: exponential in the entry's DN (34 s at 28 bytes) */
Test(regex_bound, backref_with_alternation_exponential_refused)
{
    acre_diag d;

    cr_expect_null(compile(SUFFIX "access to dn.regex=\"^cn=((a|b)+)\\\\1*,"
                                  "dc=example,dc=com$\"\n"
                                  "  by dn.exact,expand=\"cn=$1,dc=example,"
                                  "dc=com\" read\n"
                                  "  by * read\n",
                           &d));
    cr_expect_eq(d.code, ACRE_ERR_RULE_LIMIT);
    cr_expect_eq(d.line, 3);
    /* a value regex whose ${v1} a clause substitutes, too */
    cr_expect_null(compile(SUFFIX "access to attrs=seeAlso "
                                  "val.regex=\"^(cn|sn)=(.*)\\\\2$\"\n"
                                  "  by dn.exact,expand=\"${v0}\" read\n",
                           &d));
    cr_expect_eq(d.code, ACRE_ERR_RULE_LIMIT);
    cr_expect_eq(d.column, 25);
}

/* Without substitution the same patterns are matched by PCRE2, within its
 * limits: no crash.  The value regex used to take submatches (regexec)
 * whether or not a clause wanted them. */
Test(regex_bound, backref_with_alternation_matched_by_pcre2)
{
    static const char *const dns[] = {"cn=aa,dc=example,dc=com"};
    acre_policy *p = compile(SUFFIX "access to attrs=description "
                                    "val.regex=\"(|)(\\\\1\\\\1)*\"\n"
                                    "  by * read\n"
                                    "access to dn.regex=\"(|)(\\\\1\\\\1)*\"\n"
                                    "  by users read\n",
                             NULL);
    cr_assert(p);
    acre_directory *dir = directory(p, dns, 1);
    const acre_entry_view *e = acre_entry_view_of(entry(p, dir, dns[0]));
    acre_subject who = {.authz_dn = "cn=aa,dc=example,dc=com"};
    acre_request *rq;

    cr_assert_eq(acre_request_begin(p, &who, acre_directory_host(dir), &rq), 0);
    cr_expect_eq(
        acre_access(rq, e, "description", "d", 1, ACRE_RIGHT_READ, NULL), 1);
    cr_expect_eq(acre_access(rq, e, "cn", NULL, 0, ACRE_RIGHT_READ, NULL), 1);
    acre_request_end(rq);
    acre_policy_release(p);
}

/* issue 12: 8 KB of "()*" passed the old estimate; glibc took 47 s and
 * 540 MB to compile it */
Test(regex_bound, costly_regcomp_refused)
{
    char *text = talloc_strdup(ctx, SUFFIX "access to dn.regex=\"");
    acre_diag d;

    for (int i = 0; i < 2730; i++)
        text = talloc_strdup_append(text, "()*");
    text = talloc_strdup_append(text, "\" by * read\n");
    cr_expect_null(compile(text, &d));
    cr_expect_eq(d.code, ACRE_ERR_RULE_LIMIT);
    cr_expect_eq(d.line, 3);
    cr_expect_eq(d.column, 21);
    cr_expect(strstr(d.message, "too costly"), "%s", d.message);
}

/* fuzz_openldap: the estimate read "[[]" as an unterminated bracket and
 * skipped the 50 '+' after it; glibc took 12 s and 2.8 GB to refuse them.
 * A '[' in a bracket opens a class only before ':', '=' or '.'. */
Test(regex_bound, bracket_holding_a_bracket_is_costed)
{
    static const char *const costly[] = {
        "[[]++++++++++*++++++",          "[a[]++++++++++*++++++",
        "[[:alpha:][]++++++++++*++++++", "[[.-.]]++++++++++*++++++",
        "[][]++++++++++*++++++",
    };
    acre_diag d;

    for (size_t k = 0; k < sizeof(costly) / sizeof(costly[0]); k++) {
        char *text = talloc_asprintf(ctx,
                                     SUFFIX "access to * by dn.regex=\"%s\" "
                                            "read\n",
                                     costly[k]);
        cr_expect_null(compile(text, &d), "%s", costly[k]);
        cr_expect_eq(d.code, ACRE_ERR_RULE_LIMIT, "%s", costly[k]);
        cr_expect(strstr(d.message, "too costly"), "%s: %s", costly[k],
                  d.message);
    }
    /* the classes themselves still cost one byte each */
    cr_expect_not_null(compile(SUFFIX "access to * by dn.regex="
                                      "\"^[[:alpha:][]+[[=a=]]*[[.-.]]$\" "
                                      "read\n",
                               NULL));
}

/* ------------------------------------------------------------------------
 * Denied when checked
 */

/* issue 12: a <who> pattern substituted from the entry's DN is compiled
 * per check; an RDN of 1 KB of "()*" cost 0.18 s a check */
Test(regex_bound, substituted_costly_pattern_denies)
{
    char *big = talloc_strdup(ctx, "cn=");
    for (int i = 0; i < 333; i++)
        big = talloc_strdup_append(big, "()*");
    big = talloc_strdup_append(big, ",dc=example,dc=com");
    const char *dns[] = {big, "cn=plain,dc=example,dc=com"};
    acre_policy *p = compile(SUFFIX "access to dn.regex=\"^cn=([^,]+),"
                                    "dc=example,dc=com$\"\n"
                                    "  by dn.regex=\"^cn=x,|^cn=$1,\" read\n"
                                    "  by * none\n",
                             NULL);
    cr_assert(p);
    acre_directory *dir = directory(p, dns, 2);

    /* the first alternative matches at once: slapd grants, after compiling
     * the pattern */
    cr_expect_eq(check(p, dir, "cn=x,dc=example,dc=com", big, "cn"),
                 ACRE_ERR_EVAL_LIMIT);
    /* a plain RDN substitutes as slapd does */
    cr_expect_eq(check(p, dir, "cn=x,dc=example,dc=com", dns[1], "cn"), 1);
    cr_expect_eq(check(p, dir, "cn=plain,dc=example,dc=com", dns[1], "cn"), 1);
    cr_expect_eq(check(p, dir, "cn=other,dc=example,dc=com", dns[1], "cn"), 0);
    acre_policy_release(p);
}

/* The submatches of a '|' pattern come from regexec within a budget: past
 * it, denied; below, slapd's answer ($1 set by the second alternative,
 * which PCRE2 would leave unset). */
Test(regex_bound, regexec_budget_denies)
{
    char *lng = talloc_strdup(ctx, "cn=");
    for (int i = 0; i < 4000; i++)
        lng = talloc_strdup_append(lng, "a");
    lng = talloc_strdup_append(lng, ",dc=example,dc=com");
    const char *dns[] = {lng, "cn=aaaa,dc=example,dc=com"};
    acre_policy *p = compile(SUFFIX "access to dn.regex=\"^|cn=([^,]+),"
                                    "dc=example,dc=com$\"\n"
                                    "  by dn.exact,expand=\"cn=$1,dc=example,"
                                    "dc=com\" read\n"
                                    "  by * none\n",
                             NULL);
    cr_assert(p);
    acre_directory *dir = directory(p, dns, 2);

    cr_expect_eq(check(p, dir, lng, lng, "cn"), ACRE_ERR_EVAL_LIMIT);
    cr_expect_eq(check(p, dir, dns[1], dns[1], "cn"), 1);
    cr_expect_eq(check(p, dir, lng, dns[1], "cn"), 0);
    acre_policy_release(p);
}

/* ------------------------------------------------------------------------
 * slapd's submatches
 */

/* A request of p for acreV_regex_match. */
static struct acre_request *
request(void)
{
    acre_policy *p = compile(SUFFIX "access to * by * read\n", NULL);
    acre_request *rq;

    cr_assert(p);
    cr_assert_eq(acre_request_begin(p, NULL, NULL, &rq), 0);
    acre_policy_release(p); /* the request holds a reference */
    return rq;
}

/* A '|' pattern compiled as the front end does. */
static struct acreI_regex
posix_pattern(const char *pat)
{
    struct acreI_regex re;
    const char *why = NULL;

    cr_assert_eq(acreO_regex_compile(ctx, pat, strlen(pat), &re, &why), 0,
                 "%s: %s", pat, why);
    cr_assert(re.flags & ACREI_RE_POSIX, "%s", pat);
    return re;
}

/* acreV_regex_match's submatches of re on s against glibc's regexec on
 * the whole of s, as slapd runs it. */
static void
same_as_regexec(struct acre_request *rq, const struct acreI_regex *re,
                const char *s)
{
    int off[ACREI_MAX_MATCHES][2];
    regmatch_t m[ACREI_MAX_MATCHES];
    regex_t px;

    cr_assert_eq(regcomp(&px, re->pattern, REG_EXTENDED | REG_ICASE), 0);
    int want = regexec(&px, s, ACREI_MAX_MATCHES, m, 0) == 0;
    regfree(&px);
    int got = acreV_regex_match(rq, re, s, strlen(s), off, ACREI_MAX_MATCHES);
    cr_assert_eq(got, want, "%s on %s", re->pattern, s);
    cr_assert_eq(rq->limit_hit, 0);
    for (unsigned i = 0; got && i <= re->ncapture; i++) {
        cr_expect_eq(off[i][0], (int)m[i].rm_so, "%s on %s: $%u", re->pattern,
                     s, i);
        cr_expect_eq(off[i][1], (int)m[i].rm_eo, "%s on %s: $%u", re->pattern,
                     s, i);
    }
}

Test(regex_bound, posix_submatches)
{
    static const char *const t[][2] = {
        {"^|uid=([^,]+),ou=people,dc=example,dc=com$",
         "uid=alice,ou=people,dc=example,dc=com"},
        {"x(a|ab)(c|bcd)(d*)", "zzxabcd"}, /* glibc: $1 "a", $2 "bcd" */
        {"(a|ab)(bc|c)", "qqabc"},
        {"(^|,)ou=([^,]+)", "uid=a,ou=people,dc=x"},
        {"\\<(a|b)+\\>", "ccc ab ba"}, /* the start needs the byte before */
        {"\\b(ab|a)(b|)\\b", "xab ab"},
        {"(a|b)*c(d|$)", "ababcabc"},
        {"^(.*),(ou|o)=([^,]*)", "cn=a,ou=b,o=c"},
        {"([0-9]+|x)(\\.[0-9]+)?$", "v=1.25"},
        {"(u|ui|uid)=(.*)", "CN=x,UID=Bob"}, /* case-insensitive */
        {"()|(a)", "a"},
        {"((a)|b)+", "ab"},
    };
    struct acre_request *rq = request();

    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct acreI_regex re = posix_pattern(t[i][0]);
        same_as_regexec(rq, &re, t[i][1]);
    }
    acre_request_end(rq);
}

/* More patterns than the request keeps regex_t copies of, and more reading
 * than a copy is kept for: the answers stay slapd's. */
Test(regex_bound, posix_copies_recycled)
{
    enum { NPAT = ACREV_POSIX_SLOTS + 2 };
    struct acre_request *rq = request();
    struct acreI_regex re[NPAT];
    char subject[256];

    for (int k = 0; k < NPAT; k++) {
        char pat[64];
        snprintf(pat, sizeof(pat), "^(x|cn)=([^,]*%d[^,]*),(.*)$", k);
        re[k] = posix_pattern(pat);
    }
    for (int i = 0; i < 400; i++) {
        /* the first patterns the most: their copies are kept, and
         * compiled again after ACREV_POSIX_REFRESH */
        int k = i % 3 ? i % 2 : i % NPAT;
        snprintf(subject, sizeof(subject), "cn=user%d,ou=people%0180d", i, 0);
        same_as_regexec(rq, &re[k], subject);
    }
    acre_request_end(rq);
}

/* slapd_dn_differs's byte loop: an escape, or an '=' inside a value. */
static int
differs_bytewise(const char *s, size_t n)
{
    int in_value = 0;

    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\' || (s[i] == '=' && in_value))
            return 1;
        if (s[i] == '=')
            in_value = 1;
        else if (s[i] == ',' || s[i] == '+')
            in_value = 0;
    }
    return 0;
}

/* acreV_slapd_dn keeps a text slapd writes the same (its block-wise test,
 * the last block overlapping) exactly when the byte loop says so: random
 * texts of every length to 80 over the bytes that matter. */
Test(regex_bound, slapd_text_test_blockwise)
{
    static const char alpha[] = "=,+\\a";
    struct acre_request *rq = request();
    char s[81];
    unsigned x = 12345;

    for (int t = 0; t < 20000; t++) {
        size_t n = (size_t)t % 81, len;
        for (size_t i = 0; i < n; i++) {
            x = x * 1103515245u + 12345u;
            unsigned r = x >> 16;
            s[i] = r % 4 ? 'a' : alpha[(r >> 4) % (t % 7 ? 3 : 5)];
        }
        s[n] = '\0';
        const char *o = acreV_slapd_dn(rq, s, n, &len);
        cr_assert(o, "%s", s);
        cr_assert_eq(o != s, differs_bytewise(s, n), "%.*s", (int)n, s);
    }
    acre_request_end(rq);
}
