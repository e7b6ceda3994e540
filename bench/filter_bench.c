/*
 * filter_bench.c -- search filter evaluation: acre against Samba's libldb,
 * on the same entries and the same filters in the same run.
 *
 * A directory of generated inetOrgPerson entries (10,000, or 500 in a
 * smoke run) is written once as LDIF and loaded twice: into acre's
 * in-memory directory (acreE_dir_load_ldif, values normalised once) and
 * into libldb messages (ldb_ldif_read_string, once per entry).  Each
 * filter is parsed once by each library (acreF_parse, ldb_parse_tree).
 *
 * Row groups, one per filter, each timed in ns per entry:
 *   filter_and_uid      (&(objectClass=inetOrgPerson)(uid=jdoe))
 *   filter_or_substr    (|(cn=*smith*)(mail=j*@example.com))
 *   filter_not_phone    (&(objectClass=person)(!(employeeType=contractor))
 *                         (telephoneNumber=*555*))
 *   filter_ordering     (&(objectClass=posixAccount)(uidNumber>=N)), N
 *                       chosen so that the last fifth of the numbers match
 *
 * What is timed, per entry, over the same entries in the same order:
 *   acre    acreF_eval(f, entry, NULL, NULL) == ACREF_TRUE
 *   libldb  ldb_match_msg_error(ldb, msg, tree, NULL, LDB_SCOPE_SUBTREE,
 *           &matched) -- no base DN, so ldb checks no scope and does the
 *           same work as acre: the filter alone.
 * ldb is given the schema a Samba server would give it for these
 * attributes (ldb_setup): directory strings compare case-insensitively,
 * uidNumber as an integer, objectClass as object classes.  Every entry
 * lists its superclasses, so ldb (which does not know class inheritance)
 * and acre (which does) agree.  Before timing, both must select the same
 * entries, and as many as the generator put in (checked, not timed).
 */
#include "harness.h"

#include <acre.h>
#include <ldb.h>
#include <ldb_module.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "directory.h"
#include "filter.h"

/* Under AddressSanitizer, ldb_init() cannot dlopen its modules with
 * RTLD_DEEPBIND; ldb's own switch turns that off. */
#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif

#define SEED 0x6163726566696c74u /* "acrefilt" */

static const char *const firsts[] = {
    "John", "Jane",  "James",  "Mary",  "Robert", "Linda", "Michael",
    "Ann",  "David", "Joanna", "Peter", "Susan",  "Karl",  "Julia",
};
static const char *const lasts[] = {
    "Smith",  "Johnson", "Goldsmith", "Brown", "Jones",  "Smithers",
    "Garcia", "Miller",  "Davis",     "Lopez", "Wilson", "Anderson",
};
static const char *const types[] = {"staff", "contractor", "intern"};
static const char *const areas[] = {"555", "212", "303"};

struct fcase {
    const char *group, *filter;
    size_t expect; /* entries the generator made to match */
    struct acreF_filter *f;
    struct ldb_parse_tree *tree;
};

struct job {
    const struct acreE_entry **entries;
    struct ldb_message **msgs;
    size_t n;
    struct ldb_context *ldb;
    const struct fcase *c;
};

/* ---- the timed passes ---------------------------------------------------- */

static uint64_t
acre_pass(void *arg)
{
    const struct job *j = arg;
    uint64_t hits = 0;

    for (size_t i = 0; i < j->n; i++)
        hits += acreF_eval(j->c->f, &j->entries[i]->v, NULL) == ACREF_TRUE;
    return hits;
}

static uint64_t
ldb_pass(void *arg)
{
    const struct job *j = arg;
    uint64_t hits = 0;

    for (size_t i = 0; i < j->n; i++) {
        bool matched = false;

        if (ldb_match_msg_error(j->ldb, j->msgs[i], j->c->tree, NULL,
                                LDB_SCOPE_SUBTREE, &matched) == LDB_SUCCESS)
            hits += matched;
    }
    return hits;
}

/* ---- the directory ---------------------------------------------------------
 */

/* Counts of what the generated entries make each filter select. */
struct expect {
    size_t and_uid, or_substr, not_phone, ordering;
};

static int
contains(const char *s, const char *sub)
{
    return strstr(s, sub) != NULL;
}

/* One entry's LDIF, and what it contributes to the expected counts
 * (uidNumber >= min_num for the ordering filter). */
static void
gen_entry(char *out, size_t cap, size_t i, unsigned min_num, bench_rng *rng,
          struct expect *x)
{
    const char *first = firsts[bench_rng_below(rng, 14)];
    const char *last = lasts[bench_rng_below(rng, 12)];
    const char *type = types[bench_rng_below(rng, 3)];
    const char *area = areas[bench_rng_below(rng, 3)];
    int posix = bench_rng_chance(rng, 80);
    unsigned num = 1000 + (unsigned)i;
    char uid[32], cn[64], lfirst[32];
    size_t k;

    if (i == 42)
        snprintf(uid, sizeof uid, "jdoe");
    else
        snprintf(uid, sizeof uid, "user%05zu", i);
    snprintf(cn, sizeof cn, "%s %s", first, last);
    for (k = 0; first[k] && k + 1 < sizeof lfirst; k++)
        lfirst[k] = (char)(first[k] | 0x20);
    lfirst[k] = '\0';
    snprintf(out, cap,
             "dn: uid=%s,ou=people,dc=example,dc=com\n"
             "objectClass: top\nobjectClass: person\n"
             "objectClass: organizationalPerson\nobjectClass: inetOrgPerson\n"
             "%s"
             "uid: %s\ncn: %s\nsn: %s\ngivenName: %s\n"
             "mail: %s.%s%zu@example.com\n"
             "telephoneNumber: +1 %s %u%u%u%u\n"
             "employeeType: %s\n"
             "%s%u%s\n",
             uid, posix ? "objectClass: posixAccount\n" : "", uid, cn, last,
             first, lfirst, last, i, area, bench_rng_below(rng, 5),
             bench_rng_below(rng, 5), bench_rng_below(rng, 5),
             bench_rng_below(rng, 5), type,
             posix ? "uidNumber: " : "description: number ", num,
             posix ? "\ngidNumber: 100\nhomeDirectory: /home/x" : "");
    x->and_uid += i == 42;
    x->or_substr += contains(cn, "mith") || lfirst[0] == 'j';
    x->not_phone += strcmp(type, "contractor") != 0 && !strcmp(area, "555");
    x->ordering += posix && num >= min_num;
}

/* The whole LDIF: the two containers, then n people. */
static char *
gen_ldif(void *ctx, size_t n, unsigned min_num, struct expect *x)
{
    bench_rng rng = {SEED};
    char *text = talloc_strdup(ctx, "dn: dc=example,dc=com\n"
                                    "objectClass: top\nobjectClass: dcObject\n"
                                    "objectClass: organization\n"
                                    "dc: example\no: Example\n\n"
                                    "dn: ou=people,dc=example,dc=com\n"
                                    "objectClass: top\n"
                                    "objectClass: organizationalUnit\n"
                                    "ou: people\n\n");
    char one[2048];

    memset(x, 0, sizeof *x);
    for (size_t i = 0; text && i < n; i++) {
        gen_entry(one, sizeof one, i, min_num, &rng, x);
        text = talloc_asprintf_append_buffer(text, "%s\n", one);
    }
    return text;
}

static int
collect(void *ctx, const struct acreE_entry *e)
{
    struct job *j = ctx;

    j->entries[j->n++] = e;
    return 0;
}

/* Load text into acre's directory and list its entries in order. */
static int
load_acre(bench_run *run, void *mem, const char *text, struct job *j,
          size_t total)
{
    struct acreE_dir *dir;
    acre_dn *base = NULL;
    acre_diag d;
    int rc;

    memset(&d, 0, sizeof d);
    if (acreE_dir_new(mem, NULL, 0, &dir) != 0)
        return -1;
    rc = acreE_dir_load_ldif(dir, NULL, text, strlen(text), "filter_bench",
                             NULL, NULL, &d);
    if (rc != 0) {
        bench_fail(run, "filter: acre cannot load the LDIF: %s line %u: %s",
                   acre_strerror(rc), d.line, d.message);
        return -1;
    }
    j->entries = talloc_array(mem, const struct acreE_entry *, total);
    if (!j->entries ||
        acre_dn_parse(mem, NULL, "dc=example,dc=com", 17, 0, &base, NULL))
        return -1;
    j->n = 0;
    rc = acreE_dir_walk(dir, base, ACRE_SCOPE_SUB, collect, j);
    return rc == 0 && j->n == total ? 0 : -1;
}

/* Read text into ldb messages, one per entry, in the same order. */
static int
load_ldb(bench_run *run, void *mem, const char *text, struct job *j,
         size_t total)
{
    const char *s = text;
    size_t n = 0;

    j->msgs = talloc_array(mem, struct ldb_message *, total);
    if (!j->msgs)
        return -1;
    while (n < total) {
        struct ldb_ldif *l = ldb_ldif_read_string(j->ldb, &s);

        if (l == NULL)
            break;
        j->msgs[n++] = talloc_steal(j->msgs, l->msg);
        talloc_free(l);
    }
    if (n != total) {
        bench_fail(run, "filter: ldb read %zu of %zu entries", n, total);
        return -1;
    }
    return 0;
}

/* An ldb context with the syntaxes a Samba schema gives these types. */
static struct ldb_context *
ldb_setup(void *mem)
{
    static const char *const strings[] = {
        "uid", "sn", "givenName", "mail", "employeeType", "telephoneNumber"};
    struct ldb_context *ldb;

#ifdef ASAN
    setenv("LDB_MODULES_DISABLE_DEEPBIND", "1", 0);
#endif
    if ((ldb = ldb_init(mem, NULL)) == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof strings / sizeof *strings; i++)
        if (ldb_schema_attribute_add(ldb, strings[i], 0,
                                     LDB_SYNTAX_DIRECTORY_STRING) != 0)
            return NULL;
    if (ldb_schema_attribute_add(ldb, "uidNumber", 0, LDB_SYNTAX_INTEGER) ||
        ldb_schema_attribute_add(ldb, "objectClass", 0, LDB_SYNTAX_OBJECTCLASS))
        return NULL;
    return ldb;
}

/* ---- checks and rows -------------------------------------------------------
 */

static int
prepare_case(bench_run *run, void *mem, struct fcase *c)
{
    acre_diag d;
    int rc;

    memset(&d, 0, sizeof d);
    rc = acreF_parse(mem, NULL, c->filter, strlen(c->filter), &c->f, &d);
    if (rc != 0) {
        bench_fail(run, "%s: acre rejects %s: %s", c->group, c->filter,
                   d.message);
        return -1;
    }
    c->tree = ldb_parse_tree(mem, c->filter);
    if (c->tree == NULL) {
        bench_fail(run, "%s: ldb rejects %s", c->group, c->filter);
        return -1;
    }
    return 0;
}

static void
run_case(bench_run *run, struct job *j, struct fcase *c)
{
    bench_impl impl[2] = {{"acreF_eval", acre_pass, j},
                          {"ldb_match_msg_error", ldb_pass, j}};
    uint64_t got_acre, got_ldb;
    double med[2];
    char name[64];

    j->c = c;
    got_acre = acre_pass(j);
    got_ldb = ldb_pass(j);
    if (got_acre != c->expect || got_ldb != c->expect) {
        bench_fail(run,
                   "%s: %s selects %llu entries with acre, %llu with "
                   "ldb; the generator made %zu",
                   c->group, c->filter, (unsigned long long)got_acre,
                   (unsigned long long)got_ldb, c->expect);
        return;
    }
    bench_note(run, "%s: %s selects %zu of %zu entries", c->group, c->filter,
               c->expect, j->n);
    bench_measure(run, impl, 2, j->n, med);
    snprintf(name, sizeof name, "%s/libldb", c->group);
    bench_row(run, name, "ns/entry", med[0], impl[1].name, med[1]);
}

static int
bench_filter(bench_run *run)
{
    void *mem = talloc_new(NULL);
    size_t n = bench_size(run, 10000, 500), total = n + 2;
    unsigned min_num = 1000 + (unsigned)(n - n / 5);
    char ordering[80];
    struct expect x;
    struct fcase cases[] = {
        {"filter_and_uid", "(&(objectClass=inetOrgPerson)(uid=jdoe))", 0, NULL,
         NULL},
        {"filter_or_substr", "(|(cn=*smith*)(mail=j*@example.com))", 0, NULL,
         NULL},
        {"filter_not_phone",
         "(&(objectClass=person)(!(employeeType=contractor))"
         "(telephoneNumber=*555*))",
         0, NULL, NULL},
        {"filter_ordering", ordering, 0, NULL, NULL},
    };
    struct job j = {0};
    char *text;
    int rc = -1;

    snprintf(ordering, sizeof ordering,
             "(&(objectClass=posixAccount)(uidNumber>=%u))", min_num);
    if (!mem || !(j.ldb = ldb_setup(mem)) ||
        !(text = gen_ldif(mem, n, min_num, &x)))
        goto out;
    cases[0].expect = x.and_uid;
    cases[1].expect = x.or_substr;
    cases[2].expect = x.not_phone;
    cases[3].expect = x.ordering;
    if (load_acre(run, mem, text, &j, total) ||
        load_ldb(run, mem, text, &j, total))
        goto out;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        if (bench_want(run, cases[i].group)) {
            if (prepare_case(run, mem, &cases[i]) != 0)
                goto out;
            run_case(run, &j, &cases[i]);
        }
    rc = 0;
out:
    talloc_free(mem);
    return rc;
}

static const char *const filter_groups[] = {
    "filter_and_uid",
    "filter_or_substr",
    "filter_not_phone",
    "filter_ordering",
    NULL,
};

const bench_def bench_filter_def = {"filter", filter_groups, bench_filter};
