/*
 * cli_api_test.c -- unit tests of the public calls the acre command's
 * search, explain and compile are built on, through acre.h only:
 * acre_schema_attr_name, acre_directory_load_files (order, all-or-nothing,
 * the file named in errors, progress), acre_filter_check (positions) and
 * acre_explain_steps (the steps of a check agree with acre_access and
 * name the rule and clause that decided, acre_entry_view_of(with where they are
 * written)).
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acre.h"

/* ------------------------------------------------------------------------
 * Helpers
 */

/* The test's temporary directory and the files made in it. */
static char temp_dir[64];
static char temp_names[4][64];
static size_t temp_count;

/* A file in a fresh temporary directory holding text; path in buf.  The
 * tests that make files remove them with remove_temp as their .fini. */
static const char *
temp_file(char *buf, size_t size, const char *name, const char *text)
{
    FILE *f;

    if (!temp_dir[0]) {
        strcpy(temp_dir, "/tmp/acre-cli-api.XXXXXX");
        cr_assert_not_null(mkdtemp(temp_dir));
    }
    cr_assert_lt(temp_count, sizeof temp_names / sizeof temp_names[0]);
    snprintf(temp_names[temp_count++], sizeof temp_names[0], "%s", name);
    snprintf(buf, size, "%s/%s", temp_dir, name);
    cr_assert_not_null(f = fopen(buf, "w"));
    fputs(text, f);
    fclose(f);
    return buf;
}

static void
remove_temp(void)
{
    char path[512];

    for (size_t i = 0; i < temp_count; i++) {
        snprintf(path, sizeof path, "%s/%s", temp_dir, temp_names[i]);
        unlink(path);
    }
    if (temp_dir[0])
        rmdir(temp_dir);
}

static const char top[] =
    "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
    "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\n"
    "ou: people\n";

static const char people[] =
    "dn: uid=a,ou=people,dc=example,dc=com\nobjectClass: account\nuid: a\n\n"
    "dn: uid=b,ou=people,dc=example,dc=com\nobjectClass: account\nuid: b\n";

static acre_dn *
dn(const char *s)
{
    acre_dn *d = NULL;

    cr_assert_eq(acre_dn_parse(NULL, NULL, s, strlen(s), 0, &d, NULL), 0,
                 "parse %s", s);
    return d;
}

/* ------------------------------------------------------------------------
 * acre_schema_attr_name
 */

Test(cli_api, attr_name)
{
    struct {
        const char *desc, *want;
    } t[] = {{"cn", "cn"},
             {"CN", "cn"},
             {"commonName;lang-en", "cn"},
             {"2.5.4.3", "cn"},
             {"facsimiletelephonenumber", "facsimileTelephoneNumber"},
             {"objectclass", "objectClass"},
             {"nosuchattr", NULL},
             {"bad desc", NULL},
             {"cn;", NULL},
             {"", NULL}};

    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        const char *got =
            acre_schema_attr_name(NULL, t[i].desc, strlen(t[i].desc));
        if (t[i].want)
            cr_expect(got && !strcmp(got, t[i].want), "%s: %s, want %s",
                      t[i].desc, got ? got : "NULL", t[i].want);
        else
            cr_expect_null(got, "%s: %s, want NULL", t[i].desc, got);
    }
    cr_expect_null(acre_schema_attr_name(NULL, NULL, 0));
    /* the length counts, not the NUL */
    const char *g = acre_schema_attr_name(NULL, "snx", 2);
    cr_expect(g && !strcmp(g, "sn"));
}

Test(cli_api, attr_name_of_loaded_type)
{
    acre_schema *s;
    const char def[] = "attributetype ( 1.3.6.1.4.1.99999.1 NAME ( 'acreTest'"
                       " 'acreAlias' ) SUP name )\n";

    cr_assert_eq(acre_schema_new(NULL, 0, &s, NULL), 0);
    cr_assert_eq(acre_schema_load_buffer(s, "t.schema", def, strlen(def), NULL),
                 0);
    const char *g = acre_schema_attr_name(s, "ACREALIAS;x-y", 13);
    cr_expect(g && !strcmp(g, "acreTest"), "%s", g ? g : "NULL");
    g = acre_schema_attr_name(s, "1.3.6.1.4.1.99999.1", 19);
    cr_expect(g && !strcmp(g, "acreTest"), "%s", g ? g : "NULL");
    cr_expect_null(acre_schema_attr_name(NULL, "acreTest", 8));
    acre_schema_free(s);
}

/* ------------------------------------------------------------------------
 * acre_directory_load_files
 */

static int
count(void *arg, const acre_entry *e)
{
    (void)e;
    ++*(unsigned *)arg;
    return 0;
}

Test(cli_api, load_files_in_order, .fini = remove_temp)
{
    char p1[256], p2[256];
    const char *paths[2];
    acre_directory *d = NULL;
    acre_diag dg;

    paths[0] = temp_file(p1, sizeof p1, "top.ldif", top);
    paths[1] = temp_file(p2, sizeof p2, "people.ldif", people);
    cr_assert_eq(
        acre_directory_load_files(NULL, NULL, paths, 2, NULL, NULL, &d, &dg), 0,
        "%s", dg.message);
    cr_expect_eq(acre_directory_count(d), 4);
    acre_dn *b = dn("uid=b,ou=people,dc=example,dc=com");
    cr_expect_not_null(acre_directory_find(d, b));
    acre_dn_free(b);
    acre_directory_free(d);

    /* the other order: the people hang below ou=people once it comes */
    paths[0] = p2;
    paths[1] = p1;
    d = NULL;
    cr_assert_eq(
        acre_directory_load_files(NULL, NULL, paths, 2, NULL, NULL, &d, &dg), 0,
        "%s", dg.message);
    cr_expect_eq(acre_directory_count(d), 4);
    acre_dn *base = dn("ou=people,dc=example,dc=com");
    unsigned n = 0;
    cr_expect_eq(acre_directory_walk(d, base, ACRE_SCOPE_ONE, count, &n), 0);
    cr_expect_eq(n, 2, "%u children below ou=people", n);
    acre_dn_free(base);
    acre_directory_free(d);
}

Test(cli_api, load_files_all_or_nothing, .fini = remove_temp)
{
    char p1[256], p2[256];
    const char *paths[2];
    acre_directory *sentinel = (acre_directory *)&sentinel, *d = sentinel;
    acre_diag dg;
    const char bad[] = "dn: uid=c,ou=people,dc=example,dc=com\n"
                       "objectClass: account\nuid: c\nnosuchattr: x\n";

    paths[0] = temp_file(p1, sizeof p1, "top.ldif", top);
    paths[1] = temp_file(p2, sizeof p2, "bad.ldif", bad);
    memset(&dg, 0, sizeof dg);
    int rc =
        acre_directory_load_files(NULL, NULL, paths, 2, NULL, NULL, &d, &dg);
    cr_expect_eq(rc, ACRE_ERR_LDIF_UNKNOWN_ATTR, "%s", acre_strerror(rc));
    cr_expect_eq(d, sentinel, "*out written on error");
    cr_expect(dg.file && !strcmp(dg.file, p2), "file %s", dg.file);
    cr_expect_eq(dg.line, 4);

    const char *twice[] = {"-", "-"};
    rc = acre_directory_load_files(NULL, NULL, twice, 2, NULL, NULL, &d, &dg);
    cr_expect_eq(rc, ACRE_ERR_INVAL);
    cr_expect_eq(
        acre_directory_load_files(NULL, NULL, paths, 0, NULL, NULL, &d, &dg),
        ACRE_ERR_INVAL);
    const char *missing[] = {p1, "/nonexistent/acre.ldif"};
    rc = acre_directory_load_files(NULL, NULL, missing, 2, NULL, NULL, &d, &dg);
    cr_expect_eq(rc, ACRE_ERR_LDIF_IO, "%s", acre_strerror(rc));
    cr_expect_eq(d, sentinel);
}

struct progress_log {
    unsigned calls;
    size_t last_entries;
    uint64_t last_offset;
    int monotonic;
    char path[256];
};

static void
on_progress(void *arg, const char *path, size_t entries, uint64_t offset)
{
    struct progress_log *l = arg;

    if (entries < l->last_entries)
        l->monotonic = 0;
    l->calls++;
    l->last_entries = entries;
    l->last_offset = offset;
    snprintf(l->path, sizeof l->path, "%s", path);
}

Test(cli_api, load_files_progress, .fini = remove_temp)
{
    char p1[256], p2[256];
    const char *paths[2];
    size_t cap = 10000 * 80, n = 0;
    char *text = malloc(cap);
    struct progress_log log = {0, 0, 0, 1, ""};
    acre_directory *d = NULL;
    acre_diag dg;

    cr_assert_not_null(text);
    for (int i = 0; i < 10000; i++)
        n += (size_t)snprintf(text + n, cap - n,
                              "dn: uid=u%d,ou=people,dc=example,dc=com\n"
                              "objectClass: account\nuid: u%d\n\n",
                              i, i);
    paths[0] = temp_file(p1, sizeof p1, "top.ldif", top);
    paths[1] = temp_file(p2, sizeof p2, "many.ldif", text);
    cr_assert_eq(acre_directory_load_files(NULL, NULL, paths, 2, on_progress,
                                           &log, &d, &dg),
                 0, "%s", dg.message);
    cr_expect_eq(acre_directory_count(d), 10002);
    cr_expect_eq(log.calls, 2, "%u calls", log.calls); /* 4096, 8192 */
    cr_expect(log.monotonic);
    /* counts include the entries of the earlier file */
    cr_expect_eq(log.last_entries, 2 + 8192, "%zu", log.last_entries);
    cr_expect(!strcmp(log.path, p2), "%s", log.path);
    cr_expect(log.last_offset > 0 && log.last_offset <= n, "offset %llu",
              (unsigned long long)log.last_offset);
    acre_directory_free(d);
    free(text);
}

/* ------------------------------------------------------------------------
 * acre_filter_check
 */

Test(cli_api, filter_check)
{
    acre_diag dg;

    cr_expect_eq(acre_filter_check(NULL, "(cn=a)", 6, &dg), 0);
    cr_expect_eq(acre_filter_check(NULL, "(&(cn=a)(!(sn=*)))", 18, &dg), 0);
    memset(&dg, 0, sizeof dg);
    cr_expect_eq(acre_filter_check(NULL, "(cn=a", 5, &dg),
                 ACRE_ERR_FILTER_SYNTAX);
    cr_expect_eq(dg.column, 6, "column %u (%s)", dg.column, dg.message);
    memset(&dg, 0, sizeof dg);
    cr_expect_eq(acre_filter_check(NULL, "(cn=a\\zz)", 9, &dg),
                 ACRE_ERR_FILTER_ESCAPE);
    cr_expect_eq(dg.column, 6, "column %u (%s)", dg.column, dg.message);
    /* only len bytes count */
    cr_expect_eq(acre_filter_check(NULL, "(cn=a)garbage", 6, &dg), 0);
    cr_expect_eq(acre_filter_check(NULL, NULL, 0, &dg), ACRE_ERR_INVAL);
}

/* ------------------------------------------------------------------------
 * acre_explain_steps
 */

static const char rules[] =
    "database mdb\n"
    "suffix \"dc=example,dc=com\"\n"
    "rootdn \"cn=admin,dc=example,dc=com\"\n"
    "access to attrs=userPassword\n"
    "  by self write\n"
    "  by anonymous auth\n"
    "  by * none\n"
    "access to dn.subtree=\"ou=people,dc=example,dc=com\" attrs=uid\n"
    "  by users read continue\n"
    "  by dn.exact=\"uid=a,ou=people,dc=example,dc=com\" +w\n"
    "access to *\n"
    "  by * read\n";

static const char data[] =
    "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
    "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\n"
    "ou: people\n\n"
    "dn: uid=a,ou=people,dc=example,dc=com\nobjectClass: account\n"
    "objectClass: simpleSecurityObject\nuid: a\nuserPassword: x\n\n"
    "dn: uid=b,ou=people,dc=example,dc=com\nobjectClass: account\n"
    "objectClass: simpleSecurityObject\nuid: b\nuserPassword: y\n";

struct world {
    acre_policy *p;
    acre_directory *d;
};

static void
world(struct world *w)
{
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "t.conf", rules,
                       sizeof rules - 1};
    acre_diag dg;

    cr_assert_eq(acre_policy_compile(NULL, NULL, &src, 1, 0, &w->p, &dg), 0,
                 "%s:%u:%u %s", dg.file, dg.line, dg.column, dg.message);
    cr_assert_eq(acre_directory_load(NULL, acre_policy_schema(w->p), "t.ldif",
                                     data, sizeof data - 1, &w->d, &dg),
                 0, "%s", dg.message);
}

static void
world_free(struct world *w)
{
    acre_directory_free(w->d);
    acre_policy_release(w->p);
}

static acre_request *
request(struct world *w, const char *who)
{
    acre_subject s;
    acre_request *rq;

    memset(&s, 0, sizeof s);
    s.authz_dn = who;
    cr_assert_eq(acre_request_begin(w->p, &s, acre_directory_host(w->d), &rq),
                 0);
    return rq;
}

static const acre_entry *
entry(struct world *w, const char *s)
{
    acre_dn *d = dn(s);
    const acre_entry *e = acre_directory_find(w->d, d);

    acre_dn_free(d);
    cr_assert_not_null(e, "%s", s);
    return e;
}

#define MAX_STEPS 32

struct steps {
    unsigned n;
    acre_explain_step s[MAX_STEPS];
    char text[MAX_STEPS][160];
    char detail[MAX_STEPS][160];
};

static void
record(void *arg, const acre_explain_step *s)
{
    struct steps *l = arg;

    cr_assert_lt(l->n, MAX_STEPS);
    cr_assert_not_null(s->text);
    cr_assert_not_null(s->detail);
    l->s[l->n] = *s;
    snprintf(l->text[l->n], sizeof l->text[0], "%s", s->text);
    snprintf(l->detail[l->n], sizeof l->detail[0], "%s", s->detail);
    l->n++;
}

/* Run one check both ways: the same answer and mask, the steps logged. */
static void
both(acre_request *rq, const acre_entry *e, const char *attr, const char *val,
     int right, struct steps *l, int *granted, uint32_t *mask)
{
    uint32_t m1 = 0, m2 = 0;
    size_t vl = val ? strlen(val) : 0;
    int g1 = acre_access(rq, acre_entry_view_of(e), attr, val, vl, right, &m1);

    memset(l, 0, sizeof *l);
    int g2 = acre_explain_steps(rq, acre_entry_view_of(e), attr, val, vl, right,
                                record, l, &m2);
    cr_expect_eq(g1, g2, "%s: access %d, explain_steps %d", attr, g1, g2);
    cr_expect_eq(m1, m2, "%s: mask %#x vs %#x", attr, m1, m2);
    cr_assert_gt(l->n, 0);
    cr_expect_eq(l->s[0].kind, ACRE_EXPLAIN_NODE, "first step %d",
                 l->s[0].kind);
    *granted = g2;
    *mask = m2;
}

Test(cli_api, explain_steps_clause_decides)
{
    struct world w;
    struct steps l;
    int g;
    uint32_t mask;

    world(&w);
    acre_request *rq = request(&w, "uid=b,ou=people,dc=example,dc=com");
    const acre_entry *a = entry(&w, "uid=a,ou=people,dc=example,dc=com");

    /* userPassword of another user: rule 0, its third clause, none */
    both(rq, a, "userPassword", NULL, ACRE_RIGHT_AUTH, &l, &g, &mask);
    cr_expect_eq(g, 0);
    const acre_explain_step *last = &l.s[l.n - 1];
    cr_expect_eq(last->kind, ACRE_EXPLAIN_CLAUSE, "%s", l.text[l.n - 1]);
    cr_expect_eq(last->rule, 0);
    cr_expect_eq(last->clause, 3);
    cr_expect_eq(last->control, ACRE_CONTROL_STOP);
    cr_expect(last->file && !strcmp(last->file, "t.conf"));
    cr_expect_eq(last->line, 7);
    cr_expect(!strcmp(last->section, "mdb"));
    cr_expect_eq(last->index, 0);
    /* "by self": the requester part holds, the entry part does not, and
     * the note says why */
    int self_seen = 0;
    for (unsigned i = 0; i < l.n; i++)
        if (l.s[i].kind == ACRE_EXPLAIN_CLAUSE_SKIPPED && l.s[i].clause == 1) {
            self_seen = 1;
            cr_expect_eq(l.s[i].line, 5);
            cr_expect(strstr(l.text[i], "does not apply to this entry"), "%s",
                      l.text[i]);
            cr_expect(l.detail[i][0] != '\0', "no detail for by self");
        }
    cr_expect(self_seen);
    acre_request_end(rq);
    world_free(&w);
}

Test(cli_api, explain_steps_skips_and_continue)
{
    struct world w;
    struct steps l;
    int g;
    uint32_t mask;

    world(&w);
    acre_request *rq = request(&w, "uid=a,ou=people,dc=example,dc=com");
    const acre_entry *b = entry(&w, "uid=b,ou=people,dc=example,dc=com");

    /* uid: rule 0 skipped (attribute), rule 1 matches, read continue,
     * then +w for uid=a: write granted by rule 1's second clause */
    both(rq, b, "uid", "b", ACRE_RIGHT_WRITE, &l, &g, &mask);
    cr_expect_eq(g, 1);
    cr_expect(mask & ACRE_PRIV_WRITE);
    unsigned skipped = 0, continued = 0;
    for (unsigned i = 0; i < l.n; i++) {
        if (l.s[i].kind == ACRE_EXPLAIN_RULE_SKIPPED && l.s[i].rule == 0) {
            skipped = 1;
            cr_expect(strstr(l.text[i], "not in its list"), "%s", l.text[i]);
        }
        if (l.s[i].kind == ACRE_EXPLAIN_CLAUSE &&
            l.s[i].control == ACRE_CONTROL_CONTINUE)
            continued = 1;
    }
    cr_expect(skipped && continued);
    cr_expect_eq(l.s[l.n - 1].kind, ACRE_EXPLAIN_CLAUSE);
    cr_expect_eq(l.s[l.n - 1].rule, 1);
    cr_expect_eq(l.s[l.n - 1].clause, 2);

    /* the entry outside rule 1's subtree: skipped for its DN scope or not
     * in the node's table at all, decided by rule 2 */
    const acre_entry *top_e = entry(&w, "dc=example,dc=com");
    both(rq, top_e, "dc", NULL, ACRE_RIGHT_READ, &l, &g, &mask);
    cr_expect_eq(g, 1);
    cr_expect_eq(l.s[l.n - 1].rule, 2);
    for (unsigned i = 0; i < l.n; i++)
        cr_expect(!(l.s[i].kind == ACRE_EXPLAIN_RULE && l.s[i].rule == 1),
                  "rule 1 matched above its subtree");
    acre_request_end(rq);
    world_free(&w);
}

Test(cli_api, explain_steps_rootdn_and_errors)
{
    struct world w;
    struct steps l;
    int g;
    uint32_t mask;

    world(&w);
    acre_request *rq = request(&w, "cn=admin,dc=example,dc=com");
    const acre_entry *a = entry(&w, "uid=a,ou=people,dc=example,dc=com");

    both(rq, a, "userPassword", NULL, ACRE_RIGHT_MANAGE, &l, &g, &mask);
    cr_expect_eq(g, 1);
    cr_expect_eq(l.n, 2);
    cr_expect_eq(l.s[1].kind, ACRE_EXPLAIN_ROOTDN);
    cr_expect_eq(l.s[1].rule, -1);
    cr_expect_null(l.s[1].file);

    memset(&l, 0, sizeof l);
    cr_expect_eq(acre_explain_steps(rq, acre_entry_view_of(a), "nosuchattr",
                                    NULL, 0, ACRE_RIGHT_READ, record, &l,
                                    &mask),
                 ACRE_ERR_INVAL);
    cr_expect_eq(l.n, 0);
    cr_expect_eq(acre_explain_steps(rq, acre_entry_view_of(a), "cn", NULL, 0,
                                    ACRE_RIGHT_READ, NULL, NULL, &mask),
                 ACRE_ERR_INVAL);
    /* the text form still tells the same walk */
    int granted = -1;
    char *t = acre_explain(rq, acre_entry_view_of(a), "userPassword", NULL, 0,
                           ACRE_RIGHT_MANAGE, &granted);
    cr_assert_not_null(t);
    cr_expect(strstr(t, "rootdn"), "%s", t);
    cr_expect_eq(granted, 1);
    free(t);
    acre_request_end(rq);
    world_free(&w);
}
