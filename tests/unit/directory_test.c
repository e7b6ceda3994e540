/*
 * directory_test.c -- unit tests of the in-memory directory and the entry
 * helpers (engine/directory.c, engine/entry.c): loading LDIF (OpenLDAP's
 * test006 data as a realistic case), order independence, duplicates,
 * missing parents and suffixes, all-or-nothing loads, attribute and value
 * checks against the schema, the naming-attribute rule of slapadd, walks
 * in every scope, matched DNs, forced hash collisions, and leaks.
 */
#include <criterion/criterion.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <talloc.h>
#include <unistd.h>

#include "acre.h"
#include "directory.h"
#include "dn.h"
#include "entry.h"
#include "schema.h"

#define TEST006 "/work/shared/conformance/openldap-test006/data.initial.ldif"

/* ------------------------------------------------------------------------
 * Helpers
 */
static acre_dn *
dn(void *ctx, const char *s)
{
    acre_dn *d = NULL;

    cr_assert_eq(acre_dn_parse(ctx, NULL, s, strlen(s), 0, &d, NULL), 0,
                 "parse %s", s);
    return d;
}

static struct acreE_dir *
new_dir(void *ctx, unsigned flags)
{
    struct acreE_dir *d = NULL;

    cr_assert_eq(acreE_dir_new(ctx, NULL, flags, &d), 0);
    cr_assert_not_null(d);
    return d;
}

/* Load text; returns the code, diag in *dg. */
static int
load(struct acreE_dir *d, const char *text, acre_diag *dg, unsigned *nw)
{
    memset(dg, 0, sizeof *dg);
    return acreE_dir_load_ldif(d, NULL, text, strlen(text), "t.ldif", nw, NULL,
                               dg);
}

static void
load_ok(struct acreE_dir *d, const char *text)
{
    acre_diag dg;
    int rc = load(d, text, &dg, NULL);

    cr_assert_eq(rc, 0, "load: %d %s:%u:%u %s", rc, dg.file, dg.line, dg.column,
                 dg.message);
}

static void
load_err(struct acreE_dir *d, const char *text, int code, unsigned line)
{
    acre_diag dg;
    int rc = load(d, text, &dg, NULL);

    cr_expect_eq(rc, code, "want %d got %d (%s) for:\n%s", code, rc, dg.message,
                 text);
    cr_expect_eq(dg.code, code);
    cr_expect_eq(dg.line, line, "line %u, want %u (%s)", dg.line, line,
                 dg.message);
    cr_expect_str_eq(dg.file ? dg.file : "(null)", "t.ldif");
}

/* A walk visitor collecting pretty DNs separated by ';'. */
struct collect {
    char buf[8192];
    size_t n;
    int stop_after; /* stop (returning 7) after this many, 0: never */
};

static int
collect(void *ctx, const struct acreE_entry *e)
{
    struct collect *c = ctx;
    size_t len = strlen(c->buf);

    snprintf(c->buf + len, sizeof c->buf - len, "%s%s", len ? ";" : "",
             acre_dn_pretty(e->v.dn, NULL));
    c->n++;
    return c->stop_after && (int)c->n == c->stop_after ? 7 : 0;
}

static const char *
walk(struct acreE_dir *d, const char *base, int scope, int *rc)
{
    static struct collect c;
    acre_dn *b = dn(NULL, base);

    memset(&c, 0, sizeof c);
    *rc = acreE_dir_walk(d, b, scope, collect, &c);
    acre_dn_free(b);
    return c.buf;
}

static const struct acreE_entry *
find(struct acreE_dir *d, const char *s)
{
    acre_dn *x = dn(NULL, s);
    const struct acreE_entry *e = acreE_dir_find(d, x);

    acre_dn_free(x);
    return e;
}

static int
attr_id(const char *name)
{
    int id = acreS_attr_find(acreS_builtin(), name, strlen(name));

    cr_assert_geq(id, 0, "attribute %s", name);
    return id;
}

/* The values of attribute `name` (no options) as "v1|v2|..." */
static const char *
values(const struct acreE_entry *e, const char *name)
{
    static char out[1024];
    const acre_view_attr *a = acreE_entry_attr(&e->v, attr_id(name));
    size_t m = 0;

    out[0] = '\0';
    if (!a)
        return "(none)";
    for (uint32_t i = 0; i < a->nvals; i++)
        m +=
            (size_t)snprintf(out + m, sizeof out - m, "%s%.*s", i ? "|" : "",
                             (int)a->vals[i].len, (const char *)a->vals[i].val);
    return out;
}

/* ------------------------------------------------------------------------
 * A small tree used by several tests
 */
static const char tree[] =
    "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
    "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\n"
    "ou: people\n\n"
    "dn: uid=a,ou=people,dc=example,dc=com\nobjectClass: account\nuid: a\n\n"
    "dn: ou=groups,dc=example,dc=com\nobjectClass: organizationalUnit\n"
    "ou: groups\n\n"
    "dn: uid=b,ou=people,dc=example,dc=com\nobjectClass: account\nuid: b\n\n"
    "dn: cn=g,ou=groups,dc=example,dc=com\nobjectClass: groupOfNames\n"
    "cn: g\nmember: uid=a,ou=people,dc=example,dc=com\n\n"
    "dn: uid=c,uid=b,ou=people,dc=example,dc=com\nobjectClass: account\n"
    "uid: c\n";

/* The same entries, children before their parents. */
static const char tree_reversed[] =
    "dn: uid=c,uid=b,ou=people,dc=example,dc=com\nobjectClass: account\n"
    "uid: c\n\n"
    "dn: cn=g,ou=groups,dc=example,dc=com\nobjectClass: groupOfNames\n"
    "cn: g\nmember: uid=a,ou=people,dc=example,dc=com\n\n"
    "dn: uid=b,ou=people,dc=example,dc=com\nobjectClass: account\nuid: b\n\n"
    "dn: ou=groups,dc=example,dc=com\nobjectClass: organizationalUnit\n"
    "ou: groups\n\n"
    "dn: uid=a,ou=people,dc=example,dc=com\nobjectClass: account\nuid: a\n\n"
    "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\n"
    "ou: people\n\n"
    "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n";

/* ------------------------------------------------------------------------
 * Loading
 */
Test(directory, openldap_test006)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, 0);
    acre_diag dg, w;
    unsigned nw = 99;
    size_t n;
    const struct acreE_entry *const *s;
    const struct acreE_entry *e;
    int rc = acreE_dir_load_ldif(d, TEST006, NULL, 0, NULL, &nw, &w, &dg);

    cr_assert_eq(rc, 0, "%s:%u:%u %s", dg.file, dg.line, dg.column, dg.message);
    cr_expect_eq(acreE_dir_count(d), 19);
    cr_expect_eq(nw, 0, "warning: %s:%u %s", w.file, w.line, w.message);
    s = acreE_dir_suffixes(d, &n);
    cr_assert_eq(n, 1);
    cr_expect_str_eq(acre_dn_pretty(s[0]->v.dn, NULL), "dc=example,dc=com");
    cr_expect_eq(s[0]->nchildren, 3);
    /* a folded DN, a base64 value */
    e = find(d, "cn=Barbara Jensen,ou=Information Technology Division,"
                "ou=People,dc=example,dc=com");
    cr_assert_not_null(e);
    cr_expect_eq(e->line, 211);
    cr_expect_str_eq(values(e, "sn"), " Jensen ");
    cr_expect_str_eq(values(e, "cn"), "Barbara Jensen|Babs Jensen");
    e = find(d, "cn=All Staff,ou=Groups,dc=example,dc=com");
    cr_assert_not_null(e);
    cr_expect_eq(acreE_entry_attr(&e->v, attr_id("member"))->nvals, 11);
    cr_expect(acreE_entry_has_value(
        e->v.schema, &e->v, attr_id("member"),
        (const uint8_t *)"cn=manager,dc=example,dc=com", 28));
    talloc_free(ctx);
}

Test(directory, order_independent)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *a = new_dir(ctx, 0), *b = new_dir(ctx, 0);
    int rc;
    char wa[8192];

    load_ok(a, tree);
    load_ok(b, tree_reversed);
    cr_expect_eq(acreE_dir_count(a), 7);
    cr_expect_eq(acreE_dir_count(b), 7);
    /* the same tree, walked in load order, so the orders differ */
    snprintf(wa, sizeof wa, "%s", walk(a, "dc=example,dc=com", 2, &rc));
    cr_expect_str_eq(wa, "dc=example,dc=com;ou=people,dc=example,dc=com;"
                         "uid=a,ou=people,dc=example,dc=com;"
                         "ou=groups,dc=example,dc=com;"
                         "uid=b,ou=people,dc=example,dc=com;"
                         "cn=g,ou=groups,dc=example,dc=com;"
                         "uid=c,uid=b,ou=people,dc=example,dc=com");
    cr_expect_str_eq(walk(b, "dc=example,dc=com", 2, &rc),
                     "dc=example,dc=com;ou=groups,dc=example,dc=com;"
                     "cn=g,ou=groups,dc=example,dc=com;"
                     "ou=people,dc=example,dc=com;"
                     "uid=b,ou=people,dc=example,dc=com;"
                     "uid=c,uid=b,ou=people,dc=example,dc=com;"
                     "uid=a,ou=people,dc=example,dc=com");
    cr_expect_eq(find(b, "uid=c,uid=b,ou=people,dc=example,dc=com")->parent,
                 find(b, "uid=b,ou=people,dc=example,dc=com"));
    cr_expect_eq(find(b, "dc=example,dc=com")->id, 6);
    talloc_free(ctx);
}

Test(directory, several_loads_build_one_tree)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, 0);
    int rc;

    load_ok(d, "dn: dc=com\nobjectClass: domain\ndc: com\n");
    load_ok(d, "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n");
    cr_expect_eq(find(d, "dc=example,dc=com")->parent, find(d, "dc=com"));
    cr_expect_eq(find(d, "dc=example,dc=com")->id, 1);
    cr_expect_str_eq(walk(d, "dc=com", 3, &rc), "dc=example,dc=com");
    talloc_free(ctx);
}

/* visit_rdn -- appends an entry's normalised RDN and "|" to a buffer. */
static int
visit_rdn(void *ctx, const struct acreE_entry *e)
{
    char *out = ctx;
    const char *r = NULL;
    size_t n = 0;

    acre_dn_rdn(e->v.dn, 0, &r, &n, NULL, NULL);
    strncat(out, r, n);
    strcat(out, "|");
    return 0;
}

/* A one-level search returns siblings in back-mdb's dn2id order
 * (acreD_cmp_slapd on slapd's text: its length, then its bytes), RDNs
 * with escapes, '=' in a value or several AVAs sorted with plain ones
 * (the plain ones compare their own bytes), across two loads. */
Test(directory, siblings_in_dn2id_order)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, 0);
    char got[1024] = "";
    acre_dn *base = dn(ctx, "ou=x,dc=example");
    static const char *const kids[] = {
        "cn=kim\\<garcia 40",
        "cn=kim lee+uid=x17",
        "cn=a=b",
        "cn=ab\\,c",
        "cn=abc",
        "cn=b",
        "cn=aa",
        "cn=a\\2bb",
        "cn=zz+sn=y",
        "cn=ac",
    };

    load_ok(d, "dn: dc=example\nobjectClass: domain\ndc: example\n\n"
               "dn: ou=x,dc=example\nobjectClass: organizationalUnit\nou: x\n");
    for (size_t k = 0; k < sizeof kids / sizeof *kids; k++) {
        char text[256];
        const char *v = strchr(kids[k], '=') + 1;

        snprintf(text, sizeof text,
                 "dn: %s,ou=x,dc=example\nobjectClass: device\ncn: %.*s\n%s",
                 kids[k], (int)strcspn(v, "+"), v,
                 strchr(kids[k], '+') ? "objectClass: extensibleObject\n" : "");
        if (strstr(kids[k], "uid="))
            strcat(text, "uid: x17\n");
        if (strstr(kids[k], "sn="))
            strcat(text, "sn: y\n");
        load_ok(d, text);
    }
    cr_assert_eq(acreE_dir_search(d, base, ACRE_SCOPE_ONE, visit_rdn, got), 0);
    /* slapd's texts: cn=b (4), cn=aa, cn=ac (5), cn=abc (6), cn=a\2Bb,
     * cn=a\3Db (8), cn=ab\2Cc (9), cn=zz+sn=y (10), cn=kim lee+uid=x17
     * (18), cn=kim\3Cgarcia 40 (19) */
    cr_expect_str_eq(got, "cn=b|cn=aa|cn=ac|cn=abc|cn=a\\+b|cn=a=b|cn=ab\\,c|"
                          "cn=zz+sn=y|cn=kim lee+uid=x17|cn=kim\\<garcia 40|");
    talloc_free(ctx);
}

Test(directory, duplicate_entries)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, 0);

    /* the same DN spelled differently */
    load_err(d,
             "dn: dc=com\nobjectClass: domain\ndc: com\n\n"
             "dn: DC=Com\nobjectClass: domain\ndc: com\n",
             ACRE_ERR_LDIF_DUP_ENTRY, 5);
    cr_expect_eq(acreE_dir_count(d), 0);
    load_ok(d, "dn: dc=com\nobjectClass: domain\ndc: com\n");
    load_err(d, "\ndn: dc=com\nobjectClass: domain\ndc: com\n",
             ACRE_ERR_LDIF_DUP_ENTRY, 2);
    cr_expect_eq(acreE_dir_count(d), 1);
    talloc_free(ctx);
}

Test(directory, missing_parent_and_suffixes)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, 0);
    size_t n;
    const struct acreE_entry *const *s;

    load_ok(d, tree);
    /* an ancestor exists, the parent does not */
    load_err(d,
             "dn: o=other\nobjectClass: organization\no: other\n\n"
             "dn: cn=x,ou=nowhere,dc=example,dc=com\nobjectClass: person\n"
             "cn: x\nsn: x\n",
             ACRE_ERR_LDIF_NO_PARENT, 5);
    cr_expect_eq(acreE_dir_count(d), 7);
    /* no ancestor at all: a new tree */
    load_ok(d, "dn: cn=y,ou=z,o=elsewhere\nobjectClass: person\ncn: y\nsn: y\n"
               "\ndn: o=other\nobjectClass: organization\no: other\n");
    s = acreE_dir_suffixes(d, &n);
    cr_assert_eq(n, 3);
    cr_expect_str_eq(acre_dn_pretty(s[0]->v.dn, NULL), "dc=example,dc=com");
    cr_expect_str_eq(acre_dn_pretty(s[1]->v.dn, NULL), "cn=y,ou=z,o=elsewhere");
    cr_expect_str_eq(acre_dn_pretty(s[2]->v.dn, NULL), "o=other");
    cr_expect_null(s[1]->parent);
    /* once ou=z,o=elsewhere's ancestor exists, new entries need parents */
    load_err(d, "dn: cn=w,ou=v,o=other\nobjectClass: person\ncn: w\nsn: w\n",
             ACRE_ERR_LDIF_NO_PARENT, 1);
    talloc_free(ctx);
}

Test(directory, later_parent_adopts_earlier_suffix)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, 0);
    size_t n;
    const struct acreE_entry *const *s;
    int rc;

    load_ok(d, "dn: cn=y,ou=z,o=e\nobjectClass: person\ncn: y\nsn: y\n\n"
               "dn: o=f\nobjectClass: organization\no: f\n");
    load_ok(d, "dn: ou=z,o=e\nobjectClass: organizationalUnit\nou: z\n\n"
               "dn: cn=x,ou=z,o=e\nobjectClass: person\ncn: x\nsn: x\n");
    s = acreE_dir_suffixes(d, &n);
    cr_assert_eq(n, 2);
    cr_expect_str_eq(acre_dn_pretty(s[0]->v.dn, NULL), "o=f");
    cr_expect_str_eq(acre_dn_pretty(s[1]->v.dn, NULL), "ou=z,o=e");
    cr_expect_eq(find(d, "cn=y,ou=z,o=e")->parent, find(d, "ou=z,o=e"));
    /* the earlier entry first among the children */
    cr_expect_str_eq(walk(d, "ou=z,o=e", 1, &rc),
                     "cn=y,ou=z,o=e;cn=x,ou=z,o=e");
    cr_expect_eq(find(d, "ou=z,o=e")->nchildren, 2);
    /* an ancestor above a missing parent of an existing suffix */
    load_err(d,
             "dn: o=e\nobjectClass: organization\no: e\n\n"
             "dn: c=de\nobjectClass: country\nc: de\n\n"
             "dn: cn=q,ou=r,c=de\nobjectClass: person\ncn: q\nsn: q\n",
             ACRE_ERR_LDIF_NO_PARENT, 9);
    load_ok(d, "dn: cn=q,ou=r,c=de\nobjectClass: person\ncn: q\nsn: q\n");
    load_err(d, "dn: c=de\nobjectClass: country\nc: de\n",
             ACRE_ERR_LDIF_NO_PARENT, 1);
    cr_expect_eq(acreE_dir_count(d), 5);
    /* o=e adopts ou=z,o=e */
    load_ok(d, "dn: o=e\nobjectClass: organization\no: e\n");
    cr_expect_str_eq(walk(d, "o=e", 2, &rc),
                     "o=e;ou=z,o=e;cn=y,ou=z,o=e;cn=x,ou=z,o=e");
    acreE_dir_suffixes(d, &n);
    cr_expect_eq(n, 3);
    talloc_free(ctx);
}

Test(directory, all_or_nothing)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, 0);
    size_t blocks, size, n;
    char *text;
    int rc;
    char before[8192];

    load_ok(d, tree);
    blocks = talloc_total_blocks(d);
    size = talloc_total_size(d);
    snprintf(before, sizeof before, "%s", walk(d, "dc=example,dc=com", 2, &rc));
    /* 300 good entries, then a bad one */
    text = talloc_strdup(ctx, "");
    for (int i = 0; i < 300; i++)
        text =
            talloc_asprintf_append(text,
                                   "dn: uid=n%d,ou=people,dc=example,dc=com\n"
                                   "objectClass: account\nuid: n%d\n\n",
                                   i, i);
    text = talloc_asprintf_append(text, "dn: uid=bad,ou=people,dc=example,"
                                        "dc=com\nuidNumber: not-a-number\n");
    load_err(d, text, ACRE_ERR_LDIF_VALUE, 1202);
    cr_expect_eq(acreE_dir_count(d), 7);
    cr_expect_null(find(d, "uid=n0,ou=people,dc=example,dc=com"));
    cr_expect_eq(find(d, "ou=people,dc=example,dc=com")->nchildren, 2);
    cr_expect_eq(talloc_total_blocks(d), blocks);
    cr_expect_eq(talloc_total_size(d), size);
    cr_expect_str_eq(walk(d, "dc=example,dc=com", 2, &rc), before);
    acreE_dir_suffixes(d, &n);
    cr_expect_eq(n, 1);
    talloc_free(ctx);
}

Test(directory, ldif_errors_pass_through)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, 0);

    load_err(d,
             "dn: dc=com\nobjectClass: domain\ndc: com\n\n"
             "dn: dc=x,dc=com\nbad line\n",
             ACRE_ERR_LDIF_SYNTAX, 6);
    load_err(d, "dn: dc=com\nchangetype: add\n", ACRE_ERR_LDIF_UNSUPPORTED, 2);
    cr_expect_eq(acreE_dir_count(d), 0);
    talloc_free(ctx);
}

/* slapadd 2.5.13 refuses an entry without objectClass, with or without
 * -s ("no objectClass attribute"); an objectClass with an option is
 * another attribute description. */
Test(directory, needs_object_class)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, 0);

    load_err(d,
             "dn: dc=com\nobjectClass: domain\ndc: com\n\n"
             "dn: cn=alice,dc=com\ncn: alice\nsn: A\n",
             ACRE_ERR_LDIF_SYNTAX, 5);
    load_err(d, "dn: cn=bob\n", ACRE_ERR_LDIF_SYNTAX, 1);
    cr_expect_eq(acreE_dir_count(d), 0); /* nothing of the input kept */
    load_ok(d, "dn: cn=bob\nobjectclass: person\ncn: bob\nsn: b\n");
    load_ok(d, "dn: cn=carol\n2.5.4.0: person\ncn: carol\nsn: c\n");
    cr_expect_eq(acreE_dir_count(d), 2);
    talloc_free(ctx);
}

Test(directory, bad_dn)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, 0);
    acre_diag dg;

    cr_expect_eq(
        load(d,
             "dn: dc=com\nobjectClass: domain\ndc: com\n\ndn: cn=a,,dc=com\n",
             &dg, NULL),
        ACRE_ERR_LDIF_DN);
    cr_expect_eq(dg.line, 5);
    cr_expect_eq(dg.column, 10, "column %u (%s)", dg.column, dg.message);
    load_err(d, "dn:\ncn: root\n", ACRE_ERR_LDIF_DN, 1);
    /* base64 DN: the line is known, the column is not */
    cr_expect_eq(load(d, "dn:: Y249YSwsZGM9Y29t\n", &dg, NULL),
                 ACRE_ERR_LDIF_DN);
    cr_expect_eq(dg.line, 1);
    talloc_free(ctx);
}

Test(directory, file_errors)
{
    struct acreE_dir *d = new_dir(NULL, 0);
    acre_diag dg;

    cr_expect_eq(acreE_dir_load_ldif(d, "/nonexistent/x.ldif", NULL, 0, NULL,
                                     NULL, NULL, &dg),
                 ACRE_ERR_LDIF_IO);
    cr_expect_str_eq(dg.file, "/nonexistent/x.ldif");
    cr_expect_eq(acreE_dir_load_ldif(NULL, NULL, "", 0, "x", NULL, NULL, &dg),
                 ACRE_ERR_INVAL);
    /* a FIFO is refused at once: no writer would ever come */
    char dir[] = "/tmp/acre-fifo.XXXXXX", path[64];
    cr_assert_not_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/data.ldif", dir);
    cr_assert_eq(mkfifo(path, 0600), 0);
    cr_expect_eq(acreE_dir_load_ldif(d, path, NULL, 0, NULL, NULL, NULL, &dg),
                 ACRE_ERR_LDIF_IO);
    cr_expect_not_null(strstr(dg.message, "not a regular file"), "%s",
                       dg.message);
    unlink(path);
    rmdir(dir);
    talloc_free(d);
}

/* ------------------------------------------------------------------------
 * Attributes and values
 */
/* The view attribute of e whose description is desc as written. */
static unsigned
attr_at(const struct acreE_entry *e, const char *desc)
{
    for (unsigned i = 0; i < e->v.nattrs; i++)
        if (e->desc_len[i] == strlen(desc) &&
            !memcmp(e->desc[i], desc, e->desc_len[i]))
            return i;
    cr_assert_fail("no attribute %s", desc);
    return 0;
}

Test(directory, attributes_in_ldif_order_with_options)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, 0);
    const acre_schema *s = acreE_dir_schema(d);
    const struct acreE_entry *e;
    int cn = attr_id("cn");

    load_ok(d, "dn: cn=Ann,dc=com\nsn: S\ncn;X-B;lang-EN: ann-b\n"
               "objectClass: person\ncn: Ann\ncn: Annie\ndescription: d\n"
               "cn;lang-en;x-b: other\nCN;lang-de: Anna\n");
    e = find(d, "cn=ann,dc=com");
    cr_assert_not_null(e);
    /* one attribute per description, in the order of its first line, as
     * slapadd stores them; its description as first written; then the
     * structuralObjectClass slapadd adds */
    cr_assert_eq(e->v.nattrs, 7);
    static const char *const order[] = {
        "sn",          "cn;X-B;lang-EN", "objectClass",          "cn",
        "description", "CN;lang-de",     "structuralObjectClass"};
    for (unsigned i = 0; i < 7; i++)
        cr_expect_eq(attr_at(e, order[i]), i, "%s", order[i]);
    /* ids: the type alone, or the interned description (options
     * lowercased and sorted, whatever their spelling) */
    const acre_view_attr *a = &e->v.attrs[1];
    cr_expect_eq(e->v.attrs[3].id, cn);
    cr_expect_eq(a->id, acre_schema_attr_id(s, "commonName;x-b;LANG-en", 22));
    cr_expect_str_eq(acre_schema_attr_desc(s, a->id, NULL), "cn;lang-en;x-b");
    cr_expect_str_eq(acre_schema_attr_desc(s, e->v.attrs[5].id, NULL),
                     "cn;lang-de");
    cr_expect_eq(a->nvals, 2);
    cr_expect_str_eq(values(e, "cn"), "Ann|Annie");
    /* normalised beside the original */
    const acre_view_attr *c = &e->v.attrs[3];
    cr_assert_not_null(c->norms);
    cr_expect_eq(c->norms[1].len, 5);
    cr_expect_eq(memcmp(c->norms[1].val, "annie", 5), 0);
    cr_expect(acreE_entry_has_value(s, &e->v, cn, (const uint8_t *)"annie", 5));
    cr_expect_not(
        acreE_entry_has_value(s, &e->v, cn, (const uint8_t *)"anna", 4));
    cr_expect_not(acreE_entry_has_value(s, &e->v, attr_id("uid"),
                                        (const uint8_t *)"x", 1));
    cr_expect_null(acreE_entry_attr(&e->v, attr_id("uid")));
    /* the view is the public one, of this schema */
    cr_expect_eq(acre_entry_view_of((const acre_entry *)e), &e->v);
    cr_expect_eq(e->v.schema, s);
    cr_expect_eq(e->v.host_data, e);
    talloc_free(ctx);
}

Test(directory, many_values)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, 0);
    char *text = talloc_strdup(ctx, "dn: cn=big\nobjectClass: groupOfNames\n"
                                    "cn: big\n");
    const struct acreE_entry *e;
    const acre_view_attr *a;
    const acre_schema *s = acreE_dir_schema(d);
    int member = attr_id("member");

    for (int i = 999; i >= 0; i--)
        text = talloc_asprintf_append(text, "member: CN=User %d,DC=X\n", i);
    load_ok(d, text);
    e = find(d, "cn=big");
    a = acreE_entry_attr(&e->v, member);
    cr_assert_not_null(a);
    cr_assert_eq(a->nvals, 1000);
    for (int i = 0; i < 1000; i += 37) {
        char v[64];
        int n = snprintf(v, sizeof v, "cn=user %d,dc=x", i);
        cr_expect(acreE_entry_has_value(s, &e->v, member, (const uint8_t *)v,
                                        (size_t)n),
                  "%s", v);
    }
    cr_expect_not(acreE_entry_has_value(s, &e->v, member,
                                        (const uint8_t *)"cn=user 1000,dc=x",
                                        strlen("cn=user 1000,dc=x")));
    /* stored order is LDIF order */
    cr_expect_eq(memcmp(a->vals[0].val, "CN=User 999,DC=X", 16), 0);
    talloc_free(ctx);
}

/* slapadd 2.5 (with and without -q) keeps values equal under their
 * equality rule, byte-identical ones too, in LDIF order. */
Test(directory, duplicate_values_kept)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, 0);
    acre_dn *n = dn(ctx, "cn=a");
    const struct acreE_entry *e;
    const acre_view_attr *sn = NULL, *desc = NULL;

    load_ok(d, "dn: cn=a\nobjectClass: person\ncn: a\nsn: Smith\n"
               "sn:  SMITH \ndescription: x\ndescription: x\n");
    cr_assert_not_null(e = acreE_dir_find(d, n));
    for (unsigned i = 0; i < e->v.nattrs; i++) {
        const char *name = e->desc[i];
        if (!strcmp(name, "sn"))
            sn = &e->v.attrs[i];
        if (!strcmp(name, "description"))
            desc = &e->v.attrs[i];
    }
    cr_assert(sn && desc);
    cr_assert_eq(sn->nvals, 2);
    cr_expect_str_eq(sn->vals[0].val, "Smith");
    cr_expect_str_eq(sn->vals[1].val, "SMITH ");
    cr_expect_str_eq(sn->norms[0].val, sn->norms[1].val);
    cr_expect_eq(desc->nvals, 2);
    talloc_free(ctx);
}

/* ACRED_DIR_STRICT_VALUES: the LDAP add rule refuses them. */
Test(directory, duplicate_values)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, ACRED_DIR_STRICT_VALUES);

    /* equal under caseIgnoreMatch */
    load_err(d,
             "dn: cn=a\nobjectClass: person\ncn: a\nsn: Smith\n"
             "sn:  SMITH \n",
             ACRE_ERR_LDIF_VALUE, 5);
    /* equal DNs spelled differently */
    load_err(d,
             "dn: cn=a\nobjectClass: groupOfNames\ncn: a\n"
             "member: cn=x,dc=y\nmember: CN=X, DC=Y\n",
             ACRE_ERR_LDIF_VALUE, 5);
    /* the same value under different options is fine */
    load_ok(d, "dn: cn=a\nobjectClass: person\ncn: a\nsn: x\nsn;lang-en: x\n");
    talloc_free(ctx);
}

Test(directory, value_syntax_and_single_value)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, 0);
    acre_diag dg;

    cr_expect_eq(load(d, "dn: cn=a\ncn: a\nuidNumber:  12x\n", &dg, NULL),
                 ACRE_ERR_LDIF_VALUE);
    cr_expect_eq(dg.line, 3);
    cr_expect_eq(dg.column, 13, "column %u", dg.column);
    load_err(d, "dn: cn=a\ncn: a\nuidNumber: 1\nuidNumber: 2\n",
             ACRE_ERR_LDIF_VALUE, 4);
    load_err(d, "dn: cn=a\ncn: a\nmember: not a dn\n", ACRE_ERR_LDIF_VALUE, 3);
    load_ok(d, "dn: cn=a\nobjectClass: top\ncn: a\nuidNumber: 1\n"
               "member: cn=x\n");
    talloc_free(ctx);
}

Test(directory, unknown_attributes)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, 0), *s = new_dir(ctx, ACRED_DIR_STRICT);
    acre_diag dg, w;
    unsigned nw = 0;
    const char *t = "dn: cn=a\nobjectClass: top\ncn: a\nnoSuchAttr: 1\n"
                    "noSuchAttr;x: 2\ndescription: d\n";

    cr_expect_eq(
        acreE_dir_load_ldif(d, NULL, t, strlen(t), "t.ldif", &nw, &w, &dg), 0);
    cr_expect_eq(nw, 2);
    cr_expect_eq(w.line, 4);
    cr_expect_str_eq(w.file, "t.ldif");
    cr_expect_not_null(strstr(w.message, "noSuchAttr"), "%s", w.message);
    cr_expect_eq(find(d, "cn=a")->v.nattrs, 3);
    load_err(s, t, ACRE_ERR_LDIF_UNKNOWN_ATTR, 4);
    cr_expect_eq(acreE_dir_count(s), 0);
    /* an unknown naming attribute: a warning, or an error when strict */
    t = "dn: xyzzy=1\nobjectClass: top\ncn: a\n";
    cr_expect_eq(
        acreE_dir_load_ldif(d, NULL, t, strlen(t), "t.ldif", &nw, &w, &dg), 0);
    cr_expect_eq(nw, 1);
    cr_expect_not_null(strstr(w.message, "naming attribute"), "%s", w.message);
    cr_expect_lt(
        acreE_dir_load_ldif(s, NULL, t, strlen(t), "t.ldif", &nw, &w, &dg), 0);
    cr_expect_eq(acreE_dir_count(s), 0);
    talloc_free(ctx);
}

Test(directory, naming_values_as_slapadd)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, 0);
    const struct acreE_entry *e;

    /* a missing naming value is added, as slapadd does */
    load_ok(d, "dn: cn=Ann Smith+uid=as,dc=com\nobjectClass: person\n"
               "sn: Smith\ncn: Ann\n");
    e = find(d, "uid=as+cn=ann smith,dc=com");
    cr_assert_not_null(e);
    cr_expect_str_eq(values(e, "cn"), "Ann|Ann Smith");
    cr_expect_str_eq(values(e, "uid"), "as");
    /* present in another spelling: nothing added */
    load_ok(d, "dn: cn=BOB,dc=com\nobjectClass: person\nsn: b\ncn: bob\n");
    cr_expect_str_eq(values(find(d, "cn=bob,dc=com"), "cn"), "bob");
    /* escaped values */
    load_ok(d, "dn: cn=a\\2Cb\\+c,dc=com\nobjectClass: person\nsn: b\n");
    cr_expect_str_eq(values(find(d, "cn=a\\,b\\+c,dc=com"), "cn"), "a,b+c");
    /* a single-valued naming attribute holding another value */
    load_err(d, "dn: uidNumber=5,dc=com\ncn: x\nuidNumber: 6\n",
             ACRE_ERR_LDIF_VALUE, 1);
    talloc_free(ctx);
}

/* ------------------------------------------------------------------------
 * Queries
 */
Test(directory, walks_in_every_scope)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, 0);
    struct collect c;
    acre_dn *base;
    int rc;

    load_ok(d, tree);
    cr_expect_str_eq(walk(d, "ou=People,dc=example,dc=com", 0, &rc),
                     "ou=people,dc=example,dc=com");
    cr_expect_eq(rc, 0);
    cr_expect_str_eq(walk(d, "ou=people,dc=example,dc=com", 1, &rc),
                     "uid=a,ou=people,dc=example,dc=com;"
                     "uid=b,ou=people,dc=example,dc=com");
    cr_expect_str_eq(walk(d, "ou=people,dc=example,dc=com", 2, &rc),
                     "ou=people,dc=example,dc=com;"
                     "uid=a,ou=people,dc=example,dc=com;"
                     "uid=b,ou=people,dc=example,dc=com;"
                     "uid=c,uid=b,ou=people,dc=example,dc=com");
    cr_expect_str_eq(walk(d, "ou=people,dc=example,dc=com", 3, &rc),
                     "uid=a,ou=people,dc=example,dc=com;"
                     "uid=b,ou=people,dc=example,dc=com;"
                     "uid=c,uid=b,ou=people,dc=example,dc=com");
    cr_expect_str_eq(walk(d, "dc=example,dc=com", 1, &rc),
                     "ou=people,dc=example,dc=com;"
                     "ou=groups,dc=example,dc=com");
    /* leaves */
    cr_expect_str_eq(walk(d, "cn=g,ou=groups,dc=example,dc=com", 3, &rc), "");
    cr_expect_eq(rc, 0);
    cr_expect_str_eq(walk(d, "cn=g,ou=groups,dc=example,dc=com", 2, &rc),
                     "cn=g,ou=groups,dc=example,dc=com");
    /* missing base, bad scope */
    walk(d, "ou=nope,dc=example,dc=com", 2, &rc);
    cr_expect_eq(rc, ACRE_ERR_NO_SUCH_OBJECT);
    walk(d, "dc=example,dc=com", 4, &rc);
    cr_expect_eq(rc, ACRE_ERR_INVAL);
    /* the visitor stops the walk */
    memset(&c, 0, sizeof c);
    c.stop_after = 3;
    base = dn(ctx, "dc=example,dc=com");
    cr_expect_eq(acreE_dir_walk(d, base, 2, collect, &c), 7);
    cr_expect_eq(c.n, 3);
    talloc_free(ctx);
}

Test(directory, matched_dn)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, 0);
    const struct acreE_entry *m;

    load_ok(d, tree);
    m = acreE_dir_matched(d, dn(ctx, "cn=x,cn=y,uid=b,ou=people,dc=example,"
                                     "dc=com"));
    cr_assert_not_null(m);
    cr_expect_str_eq(acre_dn_pretty(m->v.dn, NULL),
                     "uid=b,ou=people,dc=example,dc=com");
    m = acreE_dir_matched(d, dn(ctx, "ou=groups,dc=example,dc=com"));
    cr_expect_eq(m, find(d, "ou=groups,dc=example,dc=com"));
    cr_expect_null(acreE_dir_matched(d, dn(ctx, "dc=example,dc=org")));
    cr_expect_null(acreE_dir_matched(d, dn(ctx, "")));
    cr_expect_null(acreE_dir_find(d, dn(ctx, "dc=com")));
    talloc_free(ctx);
}

/* Every RDN hashes alike: entries at one depth all collide. */
static uint64_t
same_hash(const void *p, size_t n, uint64_t key)
{
    return 42;
}

Test(directory, hash_collisions_never_confuse_entries)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, 0);
    int rc;

    acreD_set_hash_hook(same_hash);
    load_ok(d, tree);
    cr_expect_eq(acreE_dir_count(d), 7);
    cr_expect_str_eq(
        acre_dn_pretty(find(d, "uid=b,ou=people,dc=example,dc=com")->v.dn,
                       NULL),
        "uid=b,ou=people,dc=example,dc=com");
    cr_expect_null(find(d, "uid=z,ou=people,dc=example,dc=com"));
    cr_expect_null(find(d, "uid=a,ou=groups,dc=example,dc=com"));
    cr_expect_str_eq(walk(d, "ou=groups,dc=example,dc=com", 2, &rc),
                     "ou=groups,dc=example,dc=com;"
                     "cn=g,ou=groups,dc=example,dc=com");
    cr_expect_eq(find(d, "uid=c,uid=b,ou=people,dc=example,dc=com")->parent,
                 find(d, "uid=b,ou=people,dc=example,dc=com"));
    cr_expect_str_eq(
        acre_dn_pretty(
            acreE_dir_matched(d, dn(ctx, "cn=q,ou=groups,dc=example,dc=com"))
                ->v.dn,
            NULL),
        "ou=groups,dc=example,dc=com");
    acreD_set_hash_hook(NULL);
    talloc_free(ctx);
}

/* ------------------------------------------------------------------------
 * Memory
 */
Test(directory, no_leaks)
{
    void *parent = talloc_new(NULL);
    size_t blocks = talloc_total_blocks(parent);
    struct acreE_dir *d;
    acre_diag dg;

    cr_assert_eq(acreE_dir_new(parent, NULL, 0, &d), 0);
    cr_expect_eq(
        acreE_dir_load_ldif(d, TEST006, NULL, 0, NULL, NULL, NULL, &dg), 0);
    /* one chunk per entry, plus a handful for the directory itself */
    cr_expect_leq(talloc_total_blocks(d), 19 + 6, "%zu blocks",
                  talloc_total_blocks(d));
    load_err(d, "dn: dc=x\ndc: x\ndc: X\n", ACRE_ERR_LDIF_VALUE, 3);
    talloc_free(d);
    cr_expect_eq(talloc_total_blocks(parent), blocks);
    talloc_free(parent);
}

/* What slapadd 2.5.13 refuses in a DN although RFC 4514 allows it: one
 * type twice in an RDN, however it is named, and #-BER values. */
Test(directory, rdns_slapd_refuses)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, ACRED_DIR_STRICT);

    load_err(d, "dn: cn=b+cn=a\nobjectClass: person\ncn: a\ncn: b\nsn: x\n",
             ACRE_ERR_LDIF_DN, 1);
    load_err(d, "dn: cn=a+CN=A\nobjectClass: person\ncn: a\nsn: x\n",
             ACRE_ERR_LDIF_DN, 1);
    load_err(d,
             "dn: cn=a+2.5.4.3=b\nobjectClass: person\ncn: a\ncn: b\nsn: x\n",
             ACRE_ERR_LDIF_DN, 1);
    load_err(d, "dn: cn=a+sn=x+sn=y\nobjectClass: person\ncn: a\nsn: x\n",
             ACRE_ERR_LDIF_DN, 1);
    load_err(d, "dn: cn=#0c03616263\nobjectClass: person\ncn: abc\nsn: x\n",
             ACRE_ERR_LDIF_DN, 1);
    load_err(d, "dn: cn=#0403616263\nobjectClass: person\ncn: abc\nsn: x\n",
             ACRE_ERR_LDIF_DN, 1);
    load_err(d,
             "dn: dc=x\nobjectClass: domain\ndc: x\n\n"
             "dn: cn=a,dc=#160178\nobjectClass: person\ncn: a\nsn: x\n",
             ACRE_ERR_LDIF_DN, 5);
    /* two types, and an escaped '#', are fine */
    load_ok(d, "dn: cn=a+sn=x\nobjectClass: person\ncn: a\nsn: x\n\n"
               "dn: cn=\\#1\nobjectClass: person\ncn: #1\nsn: x\n");
    talloc_free(ctx);
}

/* structuralObjectClass as slapadd 2.5.13 computes and stores it. */
Test(directory, structural_object_class)
{
    void *ctx = talloc_new(NULL);
    struct acreE_dir *d = new_dir(ctx, ACRED_DIR_STRICT);
    const struct acreE_entry *e;
    const acre_view_attr *a;

    load_ok(d, "dn: cn=a\nobjectClass: top\nobjectClass: person\n"
               "objectClass: INETORGPERSON\nobjectClass: uidObject\n"
               "cn: a\nsn: x\nuid: a\n\n"
               "dn: cn=b\nobjectClass: 2.5.6.6\ncn: b\nsn: x\n"
               "structuralObjectClass: Person\n");
    cr_assert_not_null(e = find(d, "cn=a"));
    a = &e->v.attrs[e->v.nattrs - 1];
    cr_expect_str_eq(e->desc[e->v.nattrs - 1], "structuralObjectClass");
    cr_assert_eq(a->nvals, 1);
    cr_expect_str_eq(a->vals[0].val, "inetOrgPerson");
    cr_assert_not_null(e = find(d, "cn=b"));
    a = &e->v.attrs[e->v.nattrs - 1];
    cr_expect_str_eq(a->vals[0].val, "Person", "kept as written");
    /* two chains; a value naming another class */
    load_err(d,
             "dn: cn=c\nobjectClass: person\nobjectClass: organizationalUnit\n"
             "cn: c\nsn: x\nou: c\n",
             ACRE_ERR_LDIF_VALUE, 3);
    load_err(d,
             "dn: cn=c\nobjectClass: inetOrgPerson\ncn: c\nsn: x\n"
             "structuralObjectClass: person\n",
             ACRE_ERR_LDIF_VALUE, 5);
    talloc_free(ctx);
}

/* slapadd's schema check (slapd 2.5.13's entry_schema_check messages)
 * under a slapd schema: unknown classes, no structural class, a missing
 * MUST; not under another schema, nor for a 389 load. */
static void
slapd_load_err(const char *ldif, unsigned line, const char *msg)
{
    acre_schema *s = NULL;
    acre_directory *dir = NULL;
    acre_diag d;

    memset(&d, 0, sizeof d);
    cr_assert_eq(acre_schema_new(NULL, ACRE_SCHEMA_SLAPD, &s, NULL), 0);
    cr_expect_eq(
        acre_directory_load(NULL, s, "t.ldif", ldif, strlen(ldif), &dir, &d),
        ACRE_ERR_LDIF_VALUE, "%s", ldif);
    cr_expect_eq(d.line, line, "line %u (%s)", d.line, d.message);
    cr_expect_str_eq(d.message, msg);
    cr_expect_null(dir);
    acre_schema_free(s);
}

Test(directory, schema_check_as_slapadd)
{
    static const char sfx[] = "dn: dc=x\nobjectClass: domain\ndc: x\n\n";
    char buf[512];

    snprintf(buf, sizeof buf,
             "%sdn: cn=a,dc=x\nobjectClass: person\nobjectClass: nosuch\n"
             "objectClass: person\nobjectClass: organizationalUnit\n"
             "cn: a\nsn: a\nou: a\n",
             sfx);
    /* before the structural chain, as slapd's structural_class */
    slapd_load_err(buf, 7, "unrecognized objectClass 'nosuch'");
    snprintf(buf, sizeof buf,
             "%sdn: cn=a,dc=x\nobjectClass: top\nobjectClass: uidObject\n"
             "cn: a\nuid: a\n",
             sfx);
    slapd_load_err(buf, 5, "no structural object class provided");
    snprintf(buf, sizeof buf,
             "%sdn: cn=a,dc=x\nobjectClass: inetOrgPerson\ncn: a\n", sfx);
    slapd_load_err(buf, 6,
                   "object class 'inetOrgPerson' requires attribute "
                   "'sn'");
    snprintf(buf, sizeof buf,
             "%sdn: cn=a,dc=x\nobjectClass: person\nobjectClass: uidObject\n"
             "cn: a\nsn: a\n",
             sfx);
    slapd_load_err(buf, 7,
                   "object class 'uidObject' requires attribute "
                   "'uid'");

    /* the same data under the built-in schema, or as 389 loads it */
    acre_schema *s = NULL;
    acre_directory *dir = NULL;
    cr_assert_eq(acre_schema_new(NULL, 0, &s, NULL), 0);
    cr_expect_eq(
        acre_directory_load(NULL, s, "t.ldif", buf, strlen(buf), &dir, NULL),
        0);
    acre_directory_free(dir);
    acre_schema_free(s);
    char path[64];
    snprintf(path, sizeof path, "/tmp/acre-dirtest-%ld.ldif", (long)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, buf, strlen(buf)), (ssize_t)strlen(buf));
    close(fd);
    const char *paths[] = {path};
    acre_load_options o = {.flags = ACRE_LOAD_389};
    cr_assert_eq(acre_schema_new(NULL, ACRE_SCHEMA_SLAPD, &s, NULL), 0);
    dir = NULL;
    cr_expect_eq(acre_directory_load_opt(NULL, s, paths, 1, &o, &dir, NULL), 0);
    unlink(path);
    acre_directory_free(dir);
    acre_schema_free(s);
}
