/*
 * regex_bound_test.c -- regular expressions whose cost slapd leaves
 * unbounded, through the public API: patterns glibc's regcomp would blow
 * up on, refused when compiled, and a substituted pattern too costly to
 * compile per check, denied with ACRE_ERR_EVAL_LIMIT.
 */
#include "acre.h"

#include <criterion/criterion.h>
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

    cr_assert_eq(acre_request_begin(p, &s, dir, &rq), 0);
    int rc = acre_access(rq, entry(p, dir, dn), attr, NULL, 0, ACRE_RIGHT_READ,
                         NULL);
    acre_request_end(rq);
    return rc;
}

/* ------------------------------------------------------------------------
 * Refused when compiled
 */

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
