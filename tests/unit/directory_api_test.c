/*
 * directory_api_test.c -- unit tests of the public directory and entry API
 * (engine/api_dir.c), through acre.h only: loading from text and from a
 * file, errors with their diagnostics (all-or-nothing, *out untouched),
 * find, count, walks in every scope with their order and early stop, the
 * entry accessors, NULL and out-of-range arguments, and ownership under a
 * talloc parent.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include <unistd.h>

#include "acre.h"

#define TEST006 "/work/shared/conformance/openldap-test006/data.initial.ldif"

/* ------------------------------------------------------------------------
 * Helpers
 */

/* A small tree: two subtrees, siblings in a known load order. */
static const char tree[] =
    "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
    "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\n"
    "ou: people\n\n"
    "dn: uid=a,ou=people,dc=example,dc=com\nobjectClass: account\nuid: a\n"
    "description: first\ndescription: second\n\n"
    "dn: ou=groups,dc=example,dc=com\nobjectClass: organizationalUnit\n"
    "ou: groups\n\n"
    "dn: uid=b,ou=people,dc=example,dc=com\nobjectClass: account\nuid: b\n\n"
    "dn: cn=g,ou=groups,dc=example,dc=com\nobjectClass: groupOfNames\n"
    "cn: g\ncn;lang-en: group\n"
    "member: uid=a,ou=people,dc=example,dc=com\n\n"
    "dn: uid=c,uid=b,ou=people,dc=example,dc=com\nobjectClass: account\n"
    "uid: c\n";

static acre_dn *
dn(void *ctx, const char *s)
{
    acre_dn *d = NULL;

    cr_assert_eq(acre_dn_parse(ctx, NULL, s, strlen(s), 0, &d, NULL), 0,
                 "parse %s", s);
    return d;
}

static acre_directory *
load_ok(void *ctx, const char *text)
{
    acre_directory *d = NULL;
    acre_diag dg;
    int rc;

    memset(&dg, 0, sizeof dg);
    rc = acre_directory_load(ctx, NULL, "t.ldif", text, strlen(text), &d, &dg);
    cr_assert_eq(rc, 0, "load: %s %s:%u:%u %s", acre_strerror(rc), dg.file,
                 dg.line, dg.column, dg.message);
    cr_assert_not_null(d);
    return d;
}

/* Loading must fail with `code` at `line` of "t.ldif", *out untouched. */
static void
load_err(const char *text, int code, unsigned line)
{
    acre_directory *sentinel = (acre_directory *)&sentinel, *d = sentinel;
    acre_diag dg;
    int rc;

    memset(&dg, 0, sizeof dg);
    rc = acre_directory_load(NULL, NULL, "t.ldif", text, strlen(text), &d, &dg);
    cr_expect_eq(rc, code, "want %s got %s (%s) for:\n%s", acre_strerror(code),
                 acre_strerror(rc), dg.message, text);
    cr_expect_eq(dg.code, code);
    cr_expect_eq(dg.line, line, "line %u, want %u (%s)", dg.line, line,
                 dg.message);
    cr_expect_str_eq(dg.file ? dg.file : "(null)", "t.ldif");
    cr_expect_neq(dg.message[0], '\0');
    cr_expect_eq(d, sentinel, "*out changed on error");
}

static const acre_entry *
find(const acre_directory *d, const char *s)
{
    acre_dn *x = dn(NULL, s);
    const acre_entry *e = acre_directory_find(d, x);

    acre_dn_free(x);
    return e;
}

/* A walk visitor collecting pretty DNs separated by ';'. */
struct collect {
    char buf[4096];
    int n;
    int stop_after; /* stop (returning 7) after this many, 0: never */
};

static int
collect(void *arg, const acre_entry *e)
{
    struct collect *c = arg;
    size_t len = strlen(c->buf);

    snprintf(c->buf + len, sizeof c->buf - len, "%s%s", len ? ";" : "",
             acre_dn_pretty(acre_entry_dn(e), NULL));
    c->n++;
    return c->stop_after && c->n == c->stop_after ? 7 : 0;
}

/* walk -- the entries in scope of base, in walk order; *rc the result. */
static const char *
walk(const acre_directory *d, const char *base, int scope, int stop_after,
     int *rc)
{
    static struct collect c;
    acre_dn *b = dn(NULL, base);

    memset(&c, 0, sizeof c);
    c.stop_after = stop_after;
    *rc = acre_directory_walk(d, b, scope, collect, &c);
    acre_dn_free(b);
    return c.buf;
}

/* The index of the attribute written `desc` in e, or -1. */
static int
attr_index(const acre_entry *e, const char *desc)
{
    for (unsigned i = 0; i < acre_entry_nattrs(e); i++) {
        size_t len;
        const char *s = acre_entry_attr(e, i, &len, NULL);

        if (len == strlen(desc) && !memcmp(s, desc, len))
            return (int)i;
    }
    return -1;
}

/* The values of attribute `desc` as "v1|v2|...", or "(none)". */
static const char *
values(const acre_entry *e, const char *desc)
{
    static char out[1024];
    int i = attr_index(e, desc);
    unsigned nvals = 0;
    size_t m = 0;

    out[0] = '\0';
    if (i < 0)
        return "(none)";
    cr_assert_not_null(acre_entry_attr(e, (unsigned)i, NULL, &nvals));
    for (unsigned j = 0; j < nvals; j++) {
        size_t len;
        const char *v = acre_entry_value(e, (unsigned)i, j, &len);

        cr_assert_not_null(v);
        m += (size_t)snprintf(out + m, sizeof out - m, "%s%.*s", j ? "|" : "",
                              (int)len, v);
    }
    return out;
}

/* ------------------------------------------------------------------------
 * Loading
 */
Test(directory_api, load_text)
{
    void *ctx = talloc_new(NULL);
    acre_directory *d = load_ok(ctx, tree);

    cr_expect_eq(acre_directory_count(d), 7);
    cr_expect_not_null(find(d, "dc=example,dc=com"));
    cr_expect_not_null(find(d, "UID=c, uid=B,ou=People,dc=EXAMPLE,dc=com"));
    acre_directory_free(d);
    cr_expect_eq(talloc_total_blocks(ctx), 1, "directory_free left blocks");
    talloc_free(ctx);
}

Test(directory_api, suffixes_in_load_order)
{
    static const char two[] = "dn: o=second\nobjectClass: organization\n"
                              "o: second\n\n"
                              "dn: dc=first\nobjectClass: domain\ndc: first\n\n"
                              "dn: ou=a,o=second\nobjectClass: "
                              "organizationalUnit\nou: a\n";
    void *ctx = talloc_new(NULL);
    acre_directory *d = load_ok(ctx, two);
    size_t n;

    cr_expect_str_eq(
        acre_dn_pretty(acre_entry_dn(acre_directory_suffix(d, 0)), &n),
        "o=second");
    cr_expect_str_eq(
        acre_dn_pretty(acre_entry_dn(acre_directory_suffix(d, 1)), &n),
        "dc=first");
    cr_expect_null(acre_directory_suffix(d, 2));
    cr_expect_null(acre_directory_suffix(NULL, 0));
    acre_directory_free(d);
    talloc_free(ctx);
}

static int
host_collect(void *arg, const acre_entry_view *v)
{
    char **out = arg;
    size_t n;

    *out = talloc_asprintf_append(*out, "%s;", acre_dn_pretty(v->dn, &n));
    return 0;
}

/* The host's search from the root DN (which no entry has) reaches every
 * naming context (acre.h, acre_host): its one level the suffix entries, a
 * subtree every entry in load order, as back-mdb walks a database whose
 * suffix is "" from its root, ID 0 (checked against slapd 2.5.13). */
Test(directory_api, host_search_from_the_root)
{
    static const char two[] = "dn: o=second\nobjectClass: organization\n"
                              "o: second\n\n"
                              "dn: dc=first\nobjectClass: domain\ndc: first\n\n"
                              "dn: ou=a,o=second\nobjectClass: "
                              "organizationalUnit\nou: a\n";

    static const struct {
        int scope;
        const char *want;
    } c[] = {{ACRE_SCOPE_BASE, ""},
             {ACRE_SCOPE_ONE, "o=second;dc=first;"},
             {ACRE_SCOPE_SUB, "o=second;dc=first;ou=a,o=second;"},
             {ACRE_SCOPE_CHILDREN, "o=second;dc=first;ou=a,o=second;"}};

    void *ctx = talloc_new(NULL);
    acre_directory *d = load_ok(ctx, two);
    const acre_host *h = acre_directory_host(d);
    acre_dn *root = dn(ctx, "");

    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        char *got = talloc_strdup(ctx, "");
        cr_expect_eq(h->search(h->arg, root, c[i].scope, host_collect, &got),
                     0);
        cr_expect_str_eq(got, c[i].want, "scope %d", c[i].scope);
    }
    /* a base that is not there is still an empty answer */
    char *got = talloc_strdup(ctx, "");
    cr_expect_eq(h->search(h->arg, dn(ctx, "o=third"), ACRE_SCOPE_SUB,
                           host_collect, &got),
                 0);
    cr_expect_str_eq(got, "");
    acre_directory_free(d);
    talloc_free(ctx);
}

Test(directory_api, load_empty_text)
{
    acre_directory *d = NULL;

    cr_assert_eq(acre_directory_load(NULL, NULL, NULL, "", 0, &d, NULL), 0);
    cr_expect_eq(acre_directory_count(d), 0);
    acre_directory_free(d);
}

Test(directory_api, load_with_schema)
{
    acre_schema *s = NULL;
    acre_directory *d = NULL;

    cr_assert_eq(acre_schema_new(NULL, ACRE_SCHEMA_SLAPD, &s, NULL), 0);
    cr_assert_eq(
        acre_directory_load(NULL, s, NULL, tree, sizeof tree - 1, &d, NULL), 0);
    cr_expect_eq(acre_directory_count(d), 7);
    acre_directory_free(d);
    acre_schema_free(s);
}

Test(directory_api, load_file)
{
    acre_directory *d = NULL;
    acre_diag dg;
    int rc;

    memset(&dg, 0, sizeof dg);
    rc = acre_directory_load(NULL, NULL, TEST006, NULL, 0, &d, &dg);
    cr_assert_eq(rc, 0, "%s:%u:%u %s", dg.file, dg.line, dg.column, dg.message);
    cr_expect_eq(acre_directory_count(d), 19);
    cr_expect_not_null(find(d, "ou=People,dc=example,dc=com"));
    acre_directory_free(d);
}

Test(directory_api, load_file_bad)
{
    char path[] = "/tmp/acre-dirapi-XXXXXX";
    int fd = mkstemp(path);
    const char text[] = "dn: dc=example,dc=com\nobjectClass: domain\n"
                        "dc: example\n\ndn: ou=x,dc=example,dc=com\n"
                        "objectClass organizationalUnit\n";
    acre_directory *d = NULL;
    acre_diag dg;
    int rc;

    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    memset(&dg, 0, sizeof dg);
    rc = acre_directory_load(NULL, NULL, path, NULL, 0, &d, &dg);
    unlink(path);
    cr_expect_eq(rc, ACRE_ERR_LDIF_SYNTAX, "%s", acre_strerror(rc));
    cr_expect_eq(dg.line, 6, "line %u (%s)", dg.line, dg.message);
    cr_expect_str_eq(dg.file ? dg.file : "(null)", path);
    cr_expect_null(d);
}

Test(directory_api, load_missing_file)
{
    acre_directory *d = NULL;
    acre_diag dg;

    memset(&dg, 0, sizeof dg);
    cr_expect_eq(acre_directory_load(NULL, NULL, "/nonexistent/x.ldif", NULL, 0,
                                     &d, &dg),
                 ACRE_ERR_LDIF_IO);
    cr_expect_eq(dg.code, ACRE_ERR_LDIF_IO);
    cr_expect_null(d);
}

Test(directory_api, load_errors)
{
    /* a line without a colon */
    load_err("dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
             "dn: ou=x,dc=example,dc=com\nobjectClass organizationalUnit\n",
             ACRE_ERR_LDIF_SYNTAX, 6);
    /* an invalid DN */
    load_err("dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
             "dn: ou=x,,dc=example,dc=com\nobjectClass: organizationalUnit\n"
             "ou: x\n",
             ACRE_ERR_LDIF_DN, 5);
    /* the same entry twice */
    load_err("dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
             "dn: DC=Example,dc=com\nobjectClass: domain\ndc: example\n",
             ACRE_ERR_LDIF_DUP_ENTRY, 5);
    /* an attribute the schema does not know (slapadd refuses it) */
    load_err("dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n"
             "frobnicate: 1\n",
             ACRE_ERR_LDIF_UNKNOWN_ATTR, 4);
    /* a value its syntax refuses */
    load_err("dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n"
             "uidNumber: twelve\n",
             ACRE_ERR_LDIF_VALUE, 4);
}

Test(directory_api, load_no_parent)
{
    acre_directory *d = NULL;
    acre_diag dg;
    const char text[] =
        "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
        "dn: uid=a,ou=missing,dc=example,dc=com\nobjectClass: account\n"
        "uid: a\n";

    memset(&dg, 0, sizeof dg);
    cr_expect_eq(acre_directory_load(NULL, NULL, "t.ldif", text,
                                     sizeof text - 1, &d, &dg),
                 ACRE_ERR_LDIF_NO_PARENT);
    cr_expect_eq(dg.line, 5, "line %u (%s)", dg.line, dg.message);
    cr_expect_null(d);
}

/* An error frees everything: nothing is left under the parent. */
Test(directory_api, load_error_leaves_nothing)
{
    void *ctx = talloc_new(NULL);
    acre_directory *d = NULL;
    const char text[] = "dn: dc=example,dc=com\nobjectClass: domain\n"
                        "dc: example\nbogusAttr: 1\n";

    cr_expect_eq(
        acre_directory_load(ctx, NULL, NULL, text, sizeof text - 1, &d, NULL),
        ACRE_ERR_LDIF_UNKNOWN_ATTR);
    cr_expect_null(d);
    cr_expect_eq(talloc_total_blocks(ctx), 1);
    talloc_free(ctx);
}

/* A directory is a talloc child of mem_ctx and goes with it. */
Test(directory_api, freed_with_parent)
{
    void *ctx = talloc_new(NULL);

    load_ok(ctx, tree);
    cr_expect_gt(talloc_total_blocks(ctx), 1);
    talloc_free(ctx);
}

/* ------------------------------------------------------------------------
 * Find and count
 */
Test(directory_api, find)
{
    acre_directory *d = load_ok(NULL, tree);
    const acre_entry *e = find(d, "cn=G,ou=groups,dc=example,dc=com");

    cr_assert_not_null(e);
    cr_expect_str_eq(acre_dn_pretty(acre_entry_dn(e), NULL),
                     "cn=g,ou=groups,dc=example,dc=com");
    cr_expect_null(find(d, "cn=h,ou=groups,dc=example,dc=com"));
    cr_expect_null(find(d, "dc=com"));
    cr_expect_null(find(d, ""));
    cr_expect_null(find(d, "uid=a,ou=groups,dc=example,dc=com"));
    /* an entry returned twice is the same object */
    cr_expect_eq(e, find(d, "cn=g,ou=groups,dc=example,dc=com"));
    acre_directory_free(d);
}

/* ------------------------------------------------------------------------
 * Walks
 */
Test(directory_api, walk_scopes)
{
    acre_directory *d = load_ok(NULL, tree);
    int rc;

    cr_expect_str_eq(walk(d, "dc=example,dc=com", ACRE_SCOPE_SUB, 0, &rc),
                     "dc=example,dc=com;ou=people,dc=example,dc=com;"
                     "uid=a,ou=people,dc=example,dc=com;"
                     "ou=groups,dc=example,dc=com;"
                     "uid=b,ou=people,dc=example,dc=com;"
                     "cn=g,ou=groups,dc=example,dc=com;"
                     "uid=c,uid=b,ou=people,dc=example,dc=com");
    cr_expect_eq(rc, 0);
    cr_expect_str_eq(walk(d, "dc=example,dc=com", ACRE_SCOPE_ONE, 0, &rc),
                     "ou=people,dc=example,dc=com;ou=groups,dc=example,dc=com");
    cr_expect_eq(rc, 0);
    cr_expect_str_eq(
        walk(d, "ou=people,dc=example,dc=com", ACRE_SCOPE_CHILDREN, 0, &rc),
        "uid=a,ou=people,dc=example,dc=com;uid=b,ou=people,dc=example,dc=com;"
        "uid=c,uid=b,ou=people,dc=example,dc=com");
    cr_expect_eq(rc, 0);
    cr_expect_str_eq(
        walk(d, "uid=b,ou=people,dc=example,dc=com", ACRE_SCOPE_BASE, 0, &rc),
        "uid=b,ou=people,dc=example,dc=com");
    cr_expect_eq(rc, 0);
    /* a leaf: nothing below it */
    cr_expect_str_eq(walk(d, "uid=a,ou=people,dc=example,dc=com",
                          ACRE_SCOPE_CHILDREN, 0, &rc),
                     "");
    cr_expect_eq(rc, 0);
    acre_directory_free(d);
}

Test(directory_api, walk_parents_first)
{
    /* children written before their parents are still walked after them */
    acre_directory *d = load_ok(
        NULL, "dn: uid=a,ou=p,dc=x\nobjectClass: account\nuid: a\n\n"
              "dn: ou=p,dc=x\nobjectClass: organizationalUnit\nou: p\n\n"
              "dn: dc=x\nobjectClass: domain\ndc: x\n");
    int rc;

    cr_expect_str_eq(walk(d, "dc=x", ACRE_SCOPE_SUB, 0, &rc),
                     "dc=x;ou=p,dc=x;uid=a,ou=p,dc=x");
    cr_expect_eq(rc, 0);
    acre_directory_free(d);
}

Test(directory_api, walk_early_stop)
{
    acre_directory *d = load_ok(NULL, tree);
    int rc;

    cr_expect_str_eq(walk(d, "dc=example,dc=com", ACRE_SCOPE_SUB, 3, &rc),
                     "dc=example,dc=com;ou=people,dc=example,dc=com;"
                     "uid=a,ou=people,dc=example,dc=com");
    cr_expect_eq(rc, 7);
    cr_expect_str_eq(walk(d, "dc=example,dc=com", ACRE_SCOPE_SUB, 1, &rc),
                     "dc=example,dc=com");
    cr_expect_eq(rc, 7);
    cr_expect_str_eq(walk(d, "dc=example,dc=com", ACRE_SCOPE_BASE, 1, &rc),
                     "dc=example,dc=com");
    cr_expect_eq(rc, 7);
    acre_directory_free(d);
}

Test(directory_api, walk_errors)
{
    acre_directory *d = load_ok(NULL, tree);
    int rc;

    cr_expect_str_eq(
        walk(d, "ou=nobody,dc=example,dc=com", ACRE_SCOPE_SUB, 0, &rc), "");
    cr_expect_eq(rc, ACRE_ERR_NO_SUCH_OBJECT);
    cr_expect_str_eq(walk(d, "dc=example,dc=com", 4, 0, &rc), "");
    cr_expect_eq(rc, ACRE_ERR_INVAL);
    cr_expect_str_eq(walk(d, "dc=example,dc=com", -1, 0, &rc), "");
    cr_expect_eq(rc, ACRE_ERR_INVAL);
    acre_directory_free(d);
}

/* ------------------------------------------------------------------------
 * Entries
 */
Test(directory_api, entry_accessors)
{
    acre_directory *d = load_ok(NULL, tree);
    const acre_entry *e = find(d, "uid=a,ou=people,dc=example,dc=com");
    unsigned n, nvals;
    size_t len;
    const char *s;

    cr_assert_not_null(e);
    n = acre_entry_nattrs(e);
    cr_expect_eq(n, 4, "nattrs %u", n);
    cr_expect_str_eq(values(e, "objectClass"), "account");
    cr_expect_str_eq(values(e, "structuralObjectClass"), "account");
    cr_expect_str_eq(values(e, "uid"), "a");
    /* values as stored, in LDIF order */
    cr_expect_str_eq(values(e, "description"), "first|second");
    cr_expect_str_eq(values(e, "cn"), "(none)");
    for (unsigned i = 0; i < n; i++) {
        s = acre_entry_attr(e, i, &len, &nvals);
        cr_assert_not_null(s);
        cr_expect_eq(strlen(s), len, "NUL-terminated description");
        cr_expect_gt(nvals, 0);
        /* the lengths are optional */
        cr_expect_eq(acre_entry_attr(e, i, NULL, NULL), s);
        cr_expect_not_null(acre_entry_value(e, i, 0, NULL));
    }
    /* the order is fixed: the same for every call */
    s = acre_entry_attr(e, 0, NULL, NULL);
    cr_expect_eq(acre_entry_attr(e, 0, NULL, NULL), s);
    acre_directory_free(d);
}

Test(directory_api, entry_options_and_naming)
{
    acre_directory *d = load_ok(NULL, tree);
    const acre_entry *g = find(d, "cn=g,ou=groups,dc=example,dc=com");
    const acre_entry *b = find(d, "uid=b,ou=people,dc=example,dc=com");

    cr_assert_not_null(g);
    cr_assert_not_null(b);
    /* a description with options keeps them, as written */
    cr_expect_str_eq(values(g, "cn"), "g");
    cr_expect_str_eq(values(g, "cn;lang-en"), "group");
    cr_expect_str_eq(values(g, "member"), "uid=a,ou=people,dc=example,dc=com");
    cr_expect_str_eq(acre_dn_pretty(acre_entry_dn(b), NULL),
                     "uid=b,ou=people,dc=example,dc=com");
    acre_directory_free(d);
}

Test(directory_api, entry_out_of_range)
{
    acre_directory *d = load_ok(NULL, tree);
    const acre_entry *e = find(d, "uid=a,ou=people,dc=example,dc=com");
    unsigned n = acre_entry_nattrs(e), nvals = 99;
    size_t len = 99;

    cr_expect_null(acre_entry_attr(e, n, &len, &nvals));
    cr_expect_eq(len, 0);
    cr_expect_eq(nvals, 0);
    cr_expect_null(acre_entry_attr(e, UINT32_MAX, NULL, NULL));
    len = 99;
    cr_expect_null(acre_entry_value(e, n, 0, &len));
    cr_expect_eq(len, 0);
    acre_entry_attr(e, 0, NULL, &nvals);
    len = 99;
    cr_expect_null(acre_entry_value(e, 0, nvals, &len));
    cr_expect_eq(len, 0);
    acre_directory_free(d);
}

/* ------------------------------------------------------------------------
 * NULL arguments
 */
static int nnull;

static int
count_null(void *arg, const acre_entry *e)
{
    nnull += arg == NULL && e != NULL;
    return 0;
}

Test(directory_api, null_arguments)
{
    acre_directory *d = load_ok(NULL, tree), *x = NULL;
    acre_dn *b = dn(NULL, "dc=example,dc=com");
    struct collect c;
    acre_diag dg;
    size_t len = 99;
    unsigned nvals = 99;

    memset(&c, 0, sizeof c);
    memset(&dg, 0, sizeof dg);
    /* load: no output, or neither a file nor text */
    cr_expect_eq(
        acre_directory_load(NULL, NULL, NULL, tree, sizeof tree - 1, NULL, &dg),
        ACRE_ERR_INVAL);
    cr_expect_eq(dg.code, ACRE_ERR_INVAL);
    cr_expect_eq(acre_directory_load(NULL, NULL, NULL, NULL, 0, &x, NULL),
                 ACRE_ERR_INVAL);
    cr_expect_null(x);
    acre_directory_free(NULL);
    cr_expect_null(acre_directory_find(NULL, b));
    cr_expect_null(acre_directory_find(d, NULL));
    cr_expect_eq(acre_directory_count(NULL), 0);
    cr_expect_eq(acre_directory_walk(NULL, b, ACRE_SCOPE_SUB, collect, &c),
                 ACRE_ERR_INVAL);
    cr_expect_eq(acre_directory_walk(d, NULL, ACRE_SCOPE_SUB, collect, &c),
                 ACRE_ERR_INVAL);
    cr_expect_eq(acre_directory_walk(d, b, ACRE_SCOPE_SUB, NULL, &c),
                 ACRE_ERR_INVAL);
    cr_expect_eq(c.n, 0);
    /* arg may be NULL: it is only handed to fn */
    cr_expect_eq(acre_directory_walk(d, b, ACRE_SCOPE_SUB, count_null, NULL),
                 0);
    cr_expect_eq(nnull, 7);
    cr_expect_null(acre_entry_dn(NULL));
    cr_expect_eq(acre_entry_nattrs(NULL), 0);
    cr_expect_null(acre_entry_attr(NULL, 0, &len, &nvals));
    cr_expect_eq(len, 0);
    cr_expect_eq(nvals, 0);
    len = 99;
    cr_expect_null(acre_entry_value(NULL, 0, 0, &len));
    cr_expect_eq(len, 0);
    acre_dn_free(b);
    acre_directory_free(d);
}

/* acre_directory_load_opt: slapadd keeps values equal under their
 * equality rule; ACRE_LOAD_STRICT refuses them as an LDAP add does. */
Test(directory_api, load_opt_strict)
{
    char path[] = "/tmp/acre-dupXXXXXX";
    int fd = mkstemp(path);
    const char text[] = "dn: dc=example,dc=com\nobjectClass: domain\n"
                        "dc: example\nl: Berlin\nl: berlin\n";
    const char *paths[] = {path};
    acre_load_options strict = {ACRE_LOAD_STRICT, NULL, NULL, NULL, NULL, 0};
    acre_load_options bad = {0x80u, NULL, NULL, NULL, NULL, 0};
    acre_directory *d = NULL;
    acre_diag dg;

    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    cr_expect_eq(acre_directory_load_opt(NULL, NULL, paths, 1, NULL, &d, &dg),
                 0, "%s", dg.message);
    cr_expect_eq(acre_directory_count(d), 1);
    acre_directory_free(d);
    d = NULL;
    memset(&dg, 0, sizeof dg);
    cr_expect_eq(
        acre_directory_load_opt(NULL, NULL, paths, 1, &strict, &d, &dg),
        ACRE_ERR_LDIF_VALUE);
    cr_expect_eq(dg.line, 5, "line %u (%s)", dg.line, dg.message);
    cr_expect_null(d);
    cr_expect_eq(acre_directory_load_opt(NULL, NULL, paths, 1, &bad, &d, NULL),
                 ACRE_ERR_INVAL);
    unlink(path);
}

/* attr_text -- "desc: v1 v2" for attribute i of e, into buf. */
static const char *
attr_text(const acre_entry *e, unsigned i, char *buf, size_t size)
{
    unsigned nvals;
    size_t len, off;
    const char *desc = acre_entry_attr(e, i, &len, &nvals);

    off = (size_t)snprintf(buf, size, "%.*s:", (int)len, desc);
    for (unsigned j = 0; j < nvals && off < size; j++) {
        const char *v = acre_entry_value(e, i, j, &len);
        off += (size_t)snprintf(buf + off, size - off, " %.*s", (int)len, v);
    }
    return buf;
}

/* find_uid -- the entry named dn, which must be in d. */
static const acre_entry *
find_uid(const acre_directory *d, const char *text)
{
    acre_dn *dn;
    const acre_entry *e;

    cr_assert_eq(acre_dn_parse(NULL, NULL, text, strlen(text), 0, &dn, NULL),
                 0);
    cr_assert_not_null(e = acre_directory_find(d, dn));
    acre_dn_free(dn);
    return e;
}

/* ACRE_LOAD_389: entries as 389-DS stores an added entry (checked on
 * 389-ds-base 2.3.1): the superclasses of each class appended after the
 * classes written, in the order met (top after person, unless written
 * in any case); userPassword moved after the other attributes; without
 * the flag, both as written. */
Test(directory_api, load_opt_389_classes_and_password)
{
    char path[] = "/tmp/acre-389XXXXXX";
    int fd = mkstemp(path);
    const char text[] =
        "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
        "dn: uid=a,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
        "userPassword: pw\nuid: a\ncn: A\nsn: S\n\n"
        "dn: uid=b,dc=example,dc=com\nobjectClass: TOP\n"
        "objectClass: inetOrgPerson\nobjectClass: organizationalperson\n"
        "uid: b\ncn: B\nsn: S\n";
    const char *paths[] = {path};
    acre_load_options as389 = {ACRE_LOAD_389, NULL, NULL, NULL, NULL, 0};
    const acre_entry *e;
    acre_directory *d = NULL;
    acre_diag dg;
    char buf[256];

    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
    close(fd);
    cr_assert_eq(acre_directory_load_opt(NULL, NULL, paths, 1, &as389, &d, &dg),
                 0, "%s", dg.message);
    e = find_uid(d, "uid=a,dc=example,dc=com");
    cr_expect_str_eq(attr_text(e, 0, buf, sizeof buf),
                     "objectClass: inetOrgPerson organizationalPerson "
                     "person top");
    cr_expect_str_eq(attr_text(e, acre_entry_nattrs(e) - 1, buf, sizeof buf),
                     "userPassword: pw");
    cr_expect_str_eq(attr_text(e, 1, buf, sizeof buf), "uid: a");
    e = find_uid(d, "uid=b,dc=example,dc=com");
    cr_expect_str_eq(attr_text(e, 0, buf, sizeof buf),
                     "objectClass: TOP inetOrgPerson organizationalperson "
                     "person");
    acre_directory_free(d);
    d = NULL;
    cr_assert_eq(acre_directory_load_opt(NULL, NULL, paths, 1, NULL, &d, &dg),
                 0, "%s", dg.message);
    e = find_uid(d, "uid=a,dc=example,dc=com");
    cr_expect_str_eq(attr_text(e, 0, buf, sizeof buf),
                     "objectClass: inetOrgPerson");
    cr_expect_str_eq(attr_text(e, 1, buf, sizeof buf), "userPassword: pw");
    acre_directory_free(d);
    unlink(path);
}

/* Data exported from OpenDJ and 389 loads over the built-in schema alone:
 * an inherited collective attribute subentry, isMemberOf, memberOf,
 * nsRole and nsRoleDN values, a role definition. */
Test(directory_api, load_server_export)
{
    static const char text[] =
        "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n"
        "aci: (targetattr=\"*\")(version 3.0; acl \"a\"; allow (read) "
        "userdn=\"ldap:///anyone\";)\n\n"
        "dn: cn=inherit,dc=example,dc=com\nobjectClass: top\n"
        "objectClass: subentry\n"
        "objectClass: inheritedCollectiveAttributeSubentry\n"
        "objectClass: inheritedFromDNCollectiveAttributeSubentry\n"
        "cn: inherit\nsubtreeSpecification: {}\n"
        "inheritFromDNAttribute: manager\ninheritAttribute: postalAddress\n"
        "collectiveConflictBehavior: virtual-overrides-real\n\n"
        "dn: cn=role,dc=example,dc=com\nobjectClass: ldapSubEntry\n"
        "objectClass: nsRoleDefinition\nobjectClass: nsSimpleRoleDefinition\n"
        "objectClass: nsManagedRoleDefinition\ncn: role\n\n"
        "dn: uid=a,dc=example,dc=com\nobjectClass: account\nuid: a\n"
        "isMemberOf: cn=g,dc=example,dc=com\n"
        "memberOf: cn=g,dc=example,dc=com\n"
        "nsRoleDN: cn=role,dc=example,dc=com\n"
        "nsRole: cn=role,dc=example,dc=com\n";
    acre_directory *d = NULL;
    acre_diag dg;

    memset(&dg, 0, sizeof dg);
    cr_assert_eq(
        acre_directory_load(NULL, NULL, "x.ldif", text, strlen(text), &d, &dg),
        0, "%u:%u %s", dg.line, dg.column, dg.message);
    cr_expect_eq(acre_directory_count(d), 4);
    acre_directory_free(d);
}

/* write_tmp -- text into a new temporary file, its name into path. */
static void
write_tmp(char *path, const char *text)
{
    int fd = mkstemp(path);
    size_t n = strlen(text);

    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, n), (ssize_t)n);
    close(fd);
}

/* load_with -- rc of loading text under the schema of policy p (with p
 * in the options when hold), the directory freed. */
static int
load_with(acre_policy *p, int hold, const char *text, acre_diag *dg)
{
    char path[] = "/tmp/acre-holdXXXXXX";
    const char *paths[] = {path};
    acre_load_options o = {0, NULL, NULL, hold ? p : NULL, NULL, 0};
    acre_directory *d = NULL;
    int rc;

    write_tmp(path, text);
    memset(dg, 0, sizeof *dg);
    rc = acre_directory_load_opt(NULL, acre_policy_schema(p), paths, 1, &o, &d,
                                 dg);
    unlink(path);
    acre_directory_free(d);
    return rc;
}

static acre_policy *
slapd_policy(const char *conf)
{
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "slapd.conf", conf,
                       strlen(conf)};
    acre_policy *p = NULL;
    acre_diag dg;

    cr_assert_eq(acre_policy_compile(NULL, NULL, &src, 1, 0, &p, &dg), 0, "%s",
                 dg.message);
    return p;
}

/* With a policy in the options, an entry no database holds is refused, as
 * slapadd refuses it ("not configured to hold"); a policy without
 * databases checks nothing. */
Test(directory_api, load_opt_policy_databases_hold_entries)
{
    static const char inside[] = "dn: dc=example,dc=com\nobjectClass: domain\n"
                                 "dc: example\n\n"
                                 "dn: ou=x,dc=example,dc=com\n"
                                 "objectClass: organizationalUnit\nou: x\n";
    static const char outside[] = "dn: dc=example,dc=com\nobjectClass: domain\n"
                                  "dc: example\n\n"
                                  "dn: dc=org\nobjectClass: domain\ndc: org\n";
    acre_policy *db = slapd_policy("database mdb\nsuffix dc=example,dc=com\n"
                                   "access to * by * read\n");
    acre_policy *none = slapd_policy("access to * by * read\n");
    acre_load_options bad = {0,    NULL, NULL, (const acre_policy *)"junk",
                             NULL, 0};
    acre_directory *d = NULL;
    acre_diag dg;
    char path[] = "/tmp/acre-holdXXXXXX";
    const char *paths[] = {path};

    cr_expect_eq(load_with(db, 1, inside, &dg), 0, "%s", dg.message);
    cr_expect_eq(load_with(db, 1, outside, &dg), ACRE_ERR_LDIF_DN);
    cr_expect_eq(dg.line, 5, "line %u (%s)", dg.line, dg.message);
    cr_expect(strstr(dg.message, "no database") != NULL, "%s", dg.message);
    cr_expect_eq(load_with(db, 0, outside, &dg), 0, "%s", dg.message);
    cr_expect_eq(load_with(none, 1, outside, &dg), 0, "%s", dg.message);
    write_tmp(path, inside);
    cr_expect_eq(acre_directory_load_opt(NULL, NULL, paths, 1, &bad, &d, &dg),
                 ACRE_ERR_BADOBJ);
    cr_expect_null(d);
    unlink(path);
    acre_policy_release(db);
    acre_policy_release(none);
}

/* collect_dn -- a host search's visitor: each entry's RDN value, after
 * a space, into the string arg. */
static int
collect_dn(void *arg, const acre_entry_view *e)
{
    char *out = arg;
    size_t n;
    const char *s = acre_dn_normalised(e->dn, &n);
    const char *eq = memchr(s, '=', n), *comma = memchr(s, ',', n);

    cr_assert_not_null(eq);
    snprintf(out + strlen(out), 256 - strlen(out), " %.*s",
             (int)((comma ? comma : s + n) - eq - 1), eq + 1);
    return 0;
}

/* order_of -- the RDN values a subtree (or one-level) search of base
 * returns, in order, through the directory's host. */
static const char *
order_of(const acre_directory *d, const char *base, int scope, char *out)
{
    const acre_host *h = acre_directory_host(d);
    acre_dn *dn = NULL;

    out[0] = '\0';
    cr_assert_eq(acre_dn_parse(NULL, NULL, base, strlen(base), 0, &dn, NULL),
                 0);
    cr_assert_eq(h->search(h->arg, dn, scope, collect_dn, out), 0);
    acre_dn_free(dn);
    return out;
}

/* Loaded with a policy, the directory's host stands for its databases as
 * back-mdb keeps them: a subtree search from a database's suffix (ou=sub,
 * a database of its own below dc=example,dc=com) returns that subtree by
 * entry ID (load order), as from a tree's root, where a search from an
 * entry of the same tree without the policy walks dn2id (shorter RDNs
 * first); an entry whose only child is another database's suffix has no
 * subordinates.  The LDIF comes as text (acre_load_options.text). */
Test(directory_api, load_opt_policy_databases_order_and_children)
{
    static const char text[] =
        "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
        "dn: ou=mid,dc=example,dc=com\nobjectClass: organizationalUnit\n"
        "ou: mid\n\n"
        "dn: ou=sub,ou=mid,dc=example,dc=com\n"
        "objectClass: organizationalUnit\nou: sub\n\n"
        "dn: ou=bbbb,ou=sub,ou=mid,dc=example,dc=com\n"
        "objectClass: organizationalUnit\nou: bbbb\n\n"
        "dn: ou=a,ou=sub,ou=mid,dc=example,dc=com\n"
        "objectClass: organizationalUnit\nou: a\n\n"
        "dn: ou=cc,ou=sub,ou=mid,dc=example,dc=com\n"
        "objectClass: organizationalUnit\nou: cc\n";
    acre_policy *p = slapd_policy(
        "database mdb\nsuffix ou=sub,ou=mid,dc=example,dc=com\n"
        "subordinate\naccess to * by * read\n"
        "database mdb\nsuffix dc=example,dc=com\naccess to * by * read\n");
    const char *name = "text.ldif", *two[] = {"a", "b"};
    acre_load_options with = {0, NULL, NULL, p, text, strlen(text)};
    acre_load_options without = {0, NULL, NULL, NULL, text, strlen(text)};
    acre_directory *d = NULL, *plain = NULL;
    const acre_entry *mid;
    acre_dn *dn = NULL;
    acre_diag dg;
    char out[256];

    memset(&dg, 0, sizeof dg);
    cr_assert_eq(acre_directory_load_opt(NULL, acre_policy_schema(p), &name, 1,
                                         &with, &d, &dg),
                 0, "%s", dg.message);
    cr_assert_eq(acre_directory_load_opt(NULL, acre_policy_schema(p), &name, 1,
                                         &without, &plain, &dg),
                 0, "%s", dg.message);
    cr_expect_str_eq(
        order_of(d, "ou=sub,ou=mid,dc=example,dc=com", ACRE_SCOPE_SUB, out),
        " sub bbbb a cc");
    cr_expect_str_eq(
        order_of(plain, "ou=sub,ou=mid,dc=example,dc=com", ACRE_SCOPE_SUB, out),
        " sub a cc bbbb");
    /* from the upper database's root: by entry ID either way */
    cr_expect_str_eq(order_of(d, "dc=example,dc=com", ACRE_SCOPE_SUB, out),
                     " example mid sub bbbb a cc");
    cr_assert_eq(
        acre_dn_parse(NULL, NULL, "ou=mid,dc=example,dc=com", 24, 0, &dn, NULL),
        0);
    mid = acre_directory_find(d, dn);
    cr_assert_not_null(mid);
    const acre_host *h = acre_directory_host(d);
    cr_expect_eq(h->has_children(h->arg, acre_entry_view_of(mid)), 0);
    mid = acre_directory_find(plain, dn);
    h = acre_directory_host(plain);
    cr_expect_eq(h->has_children(h->arg, acre_entry_view_of(mid)), 1);
    /* text names one input */
    cr_expect_eq(
        acre_directory_load_opt(NULL, NULL, two, 2, &without, &plain, &dg),
        ACRE_ERR_INVAL);
    acre_dn_free(dn);
    acre_directory_free(d);
    acre_directory_free(plain);
    acre_policy_release(p);
}

/* Under slapd's schema, a description slapd does not define is refused
 * (ad.c slap_bv2ad: ";binary" on a type not transferred in binary, an
 * option other than a language tag, options on an operational type; a
 * language tag may hold '.', as its ad_keystring takes it),
 * and so is a DN value slapd's dnNormalize refuses (a type twice in an
 * RDN); the RFC 4512/4514 profile takes them. */
Test(directory_api, load_slapd_descriptions_and_dn_values)
{
    static const char *const refused[] = {
        "description;binary: x\n", "description;x-y: x\n",
        "description;lang-en;binary: x\n", "description;x.y: x\n",
        "seeAlso: cn=a+cn=b,dc=example,dc=com\n"};
    static const char *const taken[] = {
        "description;lang-en: x\n", "description;LANG-EN-us: x\n",
        "description;Lang-E.n: x\n", /* ad_keystring takes '.' */
        "seeAlso: cn=a+sn=b,dc=example,dc=com\n"};
    acre_policy *p = slapd_policy("database mdb\nsuffix dc=example,dc=com\n"
                                  "access to * by * read\n");
    acre_diag dg;
    char text[256];

    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        snprintf(text, sizeof text,
                 "dn: dc=example,dc=com\nobjectClass: domain\n"
                 "objectClass: extensibleObject\ndc: example\n%s",
                 refused[i]);
        cr_expect_neq(load_with(p, 1, text, &dg), 0, "%s", refused[i]);
        cr_expect_eq(dg.line, 5, "%s: line %u (%s)", refused[i], dg.line,
                     dg.message);
    }
    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
        snprintf(text, sizeof text,
                 "dn: dc=example,dc=com\nobjectClass: domain\n"
                 "objectClass: extensibleObject\ndc: example\n%s",
                 taken[i]);
        cr_expect_eq(load_with(p, 1, text, &dg), 0, "%s: %s", taken[i],
                     dg.message);
    }
    acre_policy_release(p);
}

/* slapadd does not check a value's syntax, only that its equality rule
 * normalises it: under caseIgnoreMatch and caseExactMatch any UTF-8
 * text, the empty string and a three-letter countryName too, under the
 * IA5 rules any bytes, under telephoneNumberMatch any non-empty value,
 * under UUIDMatch a UUID and more (checked on slapadd 2.5.13; slapd then
 * returns "description:", matches (c=USA) and (mail=*x@a*) on
 * "\xc3\x9cX@a.COM").  The LDAP add rule (ACRE_LOAD_STRICT) and the RFC
 * profile keep the syntax check, as do the other rules (where acre stays
 * stricter than slapadd: acre(1)). */
Test(directory_api, load_slapd_trusts_utf8_string_values)
{
    static const char base[] = "dn: dc=example,dc=com\nobjectClass: domain\n"
                               "objectClass: extensibleObject\ndc: example\n";
    static const char *const taken[] = {
        "description:\n", "c: USA\n", "description:\ncn: \n",
        "mail:: w5xYQGEuQ09N\n", "telephoneNumber: x x98@example.com\n",
        "entryUUID: 2d3b8a36-8c5d-103f-8a53-"
        "5f2b2b2b2b2b description: x\n",
        /* rules without a normaliser */
        "uidNumber: 01\n", "gidNumber: x\n", "uidNumber: -\n",
        "x500UniqueIdentifier: junk\n", "supportedApplicationContext: a b\n",
        /* no equality rule */
        "facsimileTelephoneNumber: $$\n"};
    /* slapd's normalisers refuse these too */
    static const char *const refused[] = {"telephoneNumber:\n", "seeAlso: x\n",
                                          "objectClass: a b\n"};
    acre_policy *p = slapd_policy("database mdb\nsuffix dc=example,dc=com\n"
                                  "access to * by * read\n");
    acre_load_options strict = {ACRE_LOAD_STRICT, NULL, NULL, NULL, NULL, 0};
    acre_directory *d = NULL;
    char text[256], path[] = "/tmp/acre-trustXXXXXX";
    const char *paths[] = {path};
    acre_diag dg;

    for (size_t i = 0; i < sizeof taken / sizeof taken[0]; i++) {
        snprintf(text, sizeof text, "%s%s", base, taken[i]);
        cr_expect_eq(load_with(p, 1, text, &dg), 0, "%s: %s", taken[i],
                     dg.message);
        cr_expect_neq(load_with(NULL, 0, text, &dg), 0, "%s (RFC profile)",
                      taken[i]);
        memcpy(path, "/tmp/acre-trustXXXXXX", sizeof path);
        write_tmp(path, text);
        cr_expect_eq(acre_directory_load_opt(NULL, acre_policy_schema(p), paths,
                                             1, &strict, &d, &dg),
                     ACRE_ERR_LDIF_VALUE, "%s (strict)", taken[i]);
        unlink(path);
    }
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        snprintf(text, sizeof text, "%s%s", base, refused[i]);
        cr_expect_eq(load_with(p, 1, text, &dg), ACRE_ERR_LDIF_VALUE, "%s",
                     refused[i]);
    }
    acre_policy_release(p);
}

/* A base64 value that stops at a byte outside the alphabet is what
 * libldap decoded before it, its text not ended there: slapadd keeps it,
 * except that dnNormalize then asserts on a DN value that is not empty
 * (slapadd aborts).  Each checked with slapadd 2.5.13. */
Test(directory_api, load_slapd_cut_base64_values)
{
    static const char base[] = "dn: dc=example,dc=com\nobjectClass: domain\n"
                               "objectClass: extensibleObject\ndc: example\n";

    static const struct {
        const char *line;
        int rc;
    } c[] = {
        {"seeAlso:: Y249YSxkYz1i x\n", ACRE_ERR_LDIF_BASE64},
        {"owner:: Y249YSxkYz1i!\n", ACRE_ERR_LDIF_BASE64},
        {"seeAlso:: Y2 4=\n", 0}, /* nothing decoded: the empty DN */
        {"seeAlso:: Y249YSxkYz1jb20= x\n", 0},  /* padded: ends cleanly */
        {"uniqueMember:: Y249YSxkYz1i x\n", 0}, /* normalised on a copy */
        {"description:: Y249YSxk YzFjb20=\n", 0},
    };

    acre_policy *p = slapd_policy("database mdb\nsuffix dc=example,dc=com\n"
                                  "access to * by * read\n");
    char text[256];
    acre_diag dg;

    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        snprintf(text, sizeof text, "%s%s", base, c[i].line);
        cr_expect_eq(load_with(p, 1, text, &dg), c[i].rc, "%s: %s", c[i].line,
                     dg.message);
    }
    acre_policy_release(p);
}

/* slapadd reports an entry without objectClass before its schema checks
 * (naming, allowed attributes): so does acre. */
Test(directory_api, load_slapd_no_objectclass_first)
{
    acre_policy *p = slapd_policy("database mdb\nsuffix dc=example,dc=com\n"
                                  "access to * by * read\n");
    acre_diag dg;

    cr_expect_eq(load_with(p, 1,
                           "dn: dc=example,dc=com\nobjectClass: domain\n"
                           "dc: example\n\n"
                           "dn: cn=alice,dc=example,dc=com\nsn: A\n",
                           &dg),
                 ACRE_ERR_LDIF_SYNTAX);
    cr_expect(strstr(dg.message, "no objectClass attribute") != NULL, "%s",
              dg.message);
    acre_policy_release(p);
}

/* Under an OpenLDAP policy's databases, as slapadd (oc_check_allowed):
 * an attribute no class of the entry allows is refused, unless the entry
 * is extensibleObject; operational types always pass; without a policy
 * the data is not checked so (exports of OpenDJ and 389-DS carry such
 * attributes). */
Test(directory_api, load_opt_policy_attribute_allowed)
{
    static const char top[] = "dn: dc=example,dc=com\nobjectClass: domain\n"
                              "dc: example\n\n";

    static const struct {
        const char *entry;
        int ok;
    } cases[] = {
        {"dn: ou=x,dc=example,dc=com\nobjectClass: organizationalUnit\n"
         "ou: x\ncn: y\n",
         0},
        {"dn: ou=x,dc=example,dc=com\nobjectClass: organizationalUnit\n"
         "objectClass: extensibleObject\nou: x\ncn: y\n",
         1},
        {"dn: ou=x,dc=example,dc=com\nobjectClass: organizationalUnit\n"
         "ou: x\ndescription;lang-en: y\ncreatorsName: cn=a\n",
         1},
        {"dn: uid=a,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
         "uid: a\ncn: A\nsn: B\ntelephoneNumber: 1\nmail: a@b\n",
         1},
        {"dn: uid=a,dc=example,dc=com\nobjectClass: person\n"
         "objectClass: uidObject\nuid: a\ncn: A\nsn: B\nmail: a@b\n",
         0},
    };

    acre_policy *p = slapd_policy("database mdb\nsuffix dc=example,dc=com\n"
                                  "access to * by * read\n");
    acre_diag dg;
    char text[512];

    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(text, sizeof text, "%s%s", top, cases[i].entry);
        if (cases[i].ok) {
            cr_expect_eq(load_with(p, 1, text, &dg), 0, "%s: %s",
                         cases[i].entry, dg.message);
        } else {
            cr_expect_eq(load_with(p, 1, text, &dg), ACRE_ERR_LDIF_VALUE, "%s",
                         cases[i].entry);
            cr_expect(strstr(dg.message, "not allowed") != NULL, "%s",
                      dg.message);
            cr_expect_eq(load_with(p, 0, text, &dg), 0, "%s (no policy): %s",
                         cases[i].entry, dg.message);
        }
    }
    acre_policy_release(p);
}
