/*
 * oom_test.c -- out-of-memory sweeps (SQLite's discipline): each public
 * operation is run again and again with the N-th allocation from its start
 * failing, N = 1, 2, ... until a run meets no failure, through the test
 * binary's allocator (alloc_hook.h); each N twice: with every later
 * allocation failing too (the path that gives up), and with the N-th
 * alone (a failure the code drops shows as a wrong answer).  Every
 * failing run must
 *   - return ACRE_ERR_NOMEM (or deny: a decision may fail closed without
 *     an error; or recover and give exactly the fault-free result), and
 *     grant nothing the fault-free run does not;
 *   - leave no heap block behind (the hook's live-block count, once the
 *     objects the test made itself are freed, is what it was before);
 *   - leave the shared objects it touched (the policy, its spec cache, a
 *     slot) usable: a fault-free request on the same policy afterwards
 *     gives exactly the fault-free answers.
 *
 * Size: in `make check` the long sweeps take every STRIDE-th N (a stride
 * per sweep, chosen so that all of them together stay well under a
 * minute); ACRE_OOM_FULL=1 in the environment takes every N (make
 * oom-full).  Not built under ASan or TSan (alloc_hook.h).
 *
 * The fixtures: OpenLDAP's test006 (its rules, under the five schemas,
 * and its data: groups, sets, regexes, filters, selfwrite; for decisions
 * also one rule per connection string of the requester), a generated
 * 1,000-rule policy, and a small directory with collective-attribute
 * subentries and slapo-collect lines.  ACRE_OOM_AT=N runs that N only,
 * and ALLOC_HOOK_TRACE=FILE (alloc_hook.h) tells where it failed.
 */
#include "acre.h"

#include "alloc_hook.h"
#include "directory.h"

#include <criterion/criterion.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#if ALLOC_HOOK

static void *ctx;
static acre_schema *schema; /* slapd matching, built-in definitions */
static char *rules006;      /* test006's slapd.conf, with its includes */
static char *bare006;       /* the same without the includes */
static char *data006;       /* data.initial.ldif */
static acre_directory *dir006;

#define SUFFIX "dc=example,dc=com"
#define PEOPLE "ou=People," SUFFIX
#define BJORN  "cn=Bjorn Jensen,ou=Information Technology Division," PEOPLE
#define BABS   "cn=Barbara Jensen,ou=Information Technology Division," PEOPLE
#define JAJ    "cn=James A Jones 1,ou=Alumni Association," PEOPLE

/* ------------------------------------------------------------------------
 * The sweep
 */

/* full -- every N (ACRE_OOM_FULL set and not "0"), else the stride. */
static unsigned long
stride(unsigned long fast)
{
    const char *e = getenv("ACRE_OOM_FULL");
    return e && *e && strcmp(e, "0") != 0 ? 1 : fast;
}

/*
 * One operation under test.  run() makes the call (allocations may fail)
 * and keeps what it needs in the struct; judge() then runs fault-free: it
 * checks the outcome (failed: how many allocations were refused), frees
 * whatever the run made, and checks the shared objects.
 */
struct op {
    const char *name;
    int (*run)(struct op *o);
    void (*judge)(struct op *o, int rc, unsigned long failed, unsigned long n);
    void *arg;
};

/*
 * run_at -- one run of o with allocation n failing: only that one (once),
 * or it and every later one; judged, and the live-block count checked.
 * Returns how many allocations were refused.
 */
static unsigned long
run_at(struct op *o, unsigned long n, int once)
{
    const char *base = o->name;
    char name[96];
    long live = alloc_live();

    snprintf(name, sizeof(name), "%s (%s)", base,
             once ? "only this allocation fails" : "and every later one");
    once ? alloc_fail_once(n) : alloc_fail_after(n);
    int rc = o->run(o);
    unsigned long failed = alloc_failed();
    alloc_fail_after(0);
    o->name = name;
    o->judge(o, rc, failed, n);
    cr_expect_eq(alloc_live(), live, "%s: allocation %lu: %ld blocks left",
                 o->name, n, alloc_live() - live);
    o->name = base;
    return failed;
}

/*
 * sweep -- run o with the n-th allocation failing for n = 1, 1+step, ...
 * until a run meets no refusal, each n twice: the n-th allocation and
 * every later one failing (the path that gives up), and the n-th alone
 * (a failure the code drops, which later failures would have masked).
 * ACRE_OOM_AT=n in the environment: the two runs of that n only.
 * Returns the number of failing runs.
 */
static unsigned long
sweep(struct op *o, unsigned long step)
{
    unsigned long failures = 0, n = 1;
    const char *at = getenv("ACRE_OOM_AT");

    if (at && *at)
        n = strtoul(at, NULL, 10);
    for (;; n += step) {
        if (!run_at(o, n, 0))
            break;
        run_at(o, n, 1);
        failures++;
        if (at && *at)
            return failures;
    }
    cr_expect_gt(failures, 0, "%s: no allocation failed", o->name);
    return failures;
}

/* ------------------------------------------------------------------------
 * Fixtures
 */

static char *
slurp(const char *name)
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

static void
setup(void)
{
    ctx = talloc_new(NULL);
    cr_assert_eq(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &schema, NULL), 0);
    char *global = slurp("rules.global.acl"), *db = slurp("rules.db.acl");
    /* JAJ's searches count back-mdb's candidates (search.c unchecked,
     * filter_cand.c): indexed, substrings and all */
    const char *db_head = "database mdb\nsuffix \"" SUFFIX "\"\n"
                          "rootdn \"cn=Manager," SUFFIX "\"\nrootpw secret\n"
                          "index objectClass eq\nindex cn eq,sub\n"
                          "limits dn.exact=\"" JAJ "\" size.unchecked=4\n";
    /* and, first, one rule per connection string (a lost copy of one
     * of the requester's strings must not make "unknown peer" grant) */
    const char *conn = "access to attrs=telephoneNumber\n"
                       "  by peername.ip=127.0.0.1 none by * read\n"
                       "access to attrs=facsimileTelephoneNumber\n"
                       "  by sockname=\"IP=127.0.0.1:389\" none by * read\n"
                       "access to attrs=homePhone\n"
                       "  by sockurl=\"ldap://127.0.0.1/\" none by * read\n"
                       "access to attrs=pager\n"
                       "  by domain=localhost none by * read\n";
    bare006 = talloc_asprintf(ctx, "%s\n%s%s%s", global, db_head, conn, db);
    rules006 = talloc_asprintf(ctx,
                               "include /etc/ldap/schema/core.schema\n"
                               "include /etc/ldap/schema/cosine.schema\n"
                               "include /etc/ldap/schema/inetorgperson.schema\n"
                               "include /etc/ldap/schema/openldap.schema\n"
                               "include /etc/ldap/schema/nis.schema\n%s",
                               bare006);
    data006 = slurp("data.initial.ldif");
    acre_diag d = {0};
    cr_assert_eq(acre_directory_load(ctx, schema, "data.ldif", data006,
                                     strlen(data006), &dir006, &d),
                 0, "%u: %s", d.line, d.message);
}

static void
teardown(void)
{
    talloc_free(ctx);
}

TestSuite(oom, .init = setup, .fini = teardown, .timeout = 600);

/* A policy of conf over the shared schema, compiled fault-free. */
static acre_policy *
compile(const char *conf)
{
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "t.conf", conf, strlen(conf)};
    acre_policy *p = NULL;
    acre_diag d = {0};

    cr_assert_eq(acre_policy_compile(NULL, schema, &src, 1, 0, &p, &d), 0,
                 "%u:%u %s", d.line, d.column, d.message);
    return p;
}

/* The 1,000-rule policy: rules of every kind the compiler indexes
 * differently, over 200 subtrees. */
static char *
rules_1k(void *mem)
{
    char *s = talloc_strdup(mem, "database mdb\nsuffix \"" SUFFIX "\"\n"
                                 "rootdn \"cn=Manager," SUFFIX "\"\n");
    for (unsigned i = 0; i < 1000 && s; i++) {
        unsigned u = i / 5;
        switch (i % 5) {
        case 0:
            s = talloc_asprintf_append(
                s,
                "access to dn.subtree=\"ou=u%u," SUFFIX "\" attrs=cn,sn\n"
                "  by dn.exact=\"uid=a%u," SUFFIX "\" write\n"
                "  by * read\n",
                u, u);
            break;
        case 1:
            s = talloc_asprintf_append(
                s,
                "access to dn.regex=\"^uid=([^,]+),ou=u%u," SUFFIX "$\"\n"
                "  by dn.exact,expand=\"uid=$1," SUFFIX "\" write\n"
                "  by * break\n",
                u);
            break;
        case 2:
            s = talloc_asprintf_append(
                s,
                "access to filter=\"(&(objectClass=person)(ou=u%u))\" "
                "attrs=userPassword\n"
                "  by self =w\n  by anonymous auth\n",
                u);
            break;
        case 3:
            s = talloc_asprintf_append(s,
                                       "access to dn.onelevel=\"ou=g%u," SUFFIX
                                       "\"\n"
                                       "  by group=\"cn=g%u," SUFFIX "\" read\n"
                                       "  by set=\"user/uid & [x%u]\" search\n"
                                       "  by * none\n",
                                       u, u, u);
            break;
        default:
            s = talloc_asprintf_append(
                s,
                "access to dn.children=\"ou=u%u," SUFFIX "\" attrs=mail "
                "val.regex=\"^a%u.*\"\n"
                "  by peername.ip=10.0.%u.0%%255.255.255.0 read\n"
                "  by * continue\n",
                u, u, u % 256);
            break;
        }
    }
    cr_assert(s);
    return talloc_asprintf_append(s, "access to * by * read\n");
}

/* ------------------------------------------------------------------------
 * acre_policy_compile
 */

struct compile_case {
    acre_schema *schema; /* NULL: the policy makes its own */
    const char *text;
    char *dump; /* the fault-free policy's acre_policy_dump */
    acre_policy *p;
};

static int
compile_run(struct op *o)
{
    struct compile_case *c = o->arg;
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "slapd.conf", c->text,
                       strlen(c->text)};
    acre_diag d = {0};

    c->p = NULL;
    return acre_policy_compile(NULL, c->schema, &src, 1, 0, &c->p, &d);
}

static void
compile_judge(struct op *o, int rc, unsigned long failed, unsigned long n)
{
    struct compile_case *c = o->arg;

    if (failed && rc) { /* else it recovered: the policy must be right */
        cr_expect_eq(rc, ACRE_ERR_NOMEM, "%s: allocation %lu: %s", o->name, n,
                     acre_strerror(rc));
        cr_expect_null(c->p, "%s: allocation %lu: a policy", o->name, n);
    } else {
        cr_expect_eq(rc, 0, "%s: %s", o->name, acre_strerror(rc));
    }
    if (c->p) { /* whatever compiles must be the policy */
        char *dump = acre_policy_dump(c->p);
        cr_expect(dump && strcmp(dump, c->dump) == 0,
                  "%s: allocation %lu: another policy", o->name, n);
        free(dump);
        acre_policy_release(c->p);
    }
}

static void
compile_sweep(const char *name, acre_schema *s, const char *text,
              unsigned long step)
{
    struct compile_case c = {s, text, NULL, NULL};
    struct op o = {name, compile_run, compile_judge, &c};

    cr_assert_eq(compile_run(&o), 0);
    c.dump = acre_policy_dump(c.p);
    cr_assert(c.dump);
    acre_policy_release(c.p);
    sweep(&o, step);
    free(c.dump);
}

Test(oom, compile_test006)
{
    /* with the five schema includes, into a schema of the policy's own */
    compile_sweep("compile test006", NULL, rules006, stride(7));
}

Test(oom, compile_1000_rules)
{
    compile_sweep("compile 1k", schema, rules_1k(ctx), stride(211));
}

/* ------------------------------------------------------------------------
 * acre_directory_load
 */

struct load_case {
    const char *text;
    acre_directory *dir;
};

static int
load_run(struct op *o)
{
    struct load_case *c = o->arg;
    acre_diag d = {0};

    c->dir = NULL;
    return acre_directory_load(NULL, schema, "data.ldif", c->text,
                               strlen(c->text), &c->dir, &d);
}

static void
load_judge(struct op *o, int rc, unsigned long failed, unsigned long n)
{
    struct load_case *c = o->arg;

    if (failed && rc) {
        cr_expect_eq(rc, ACRE_ERR_NOMEM, "%s: allocation %lu: %s", o->name, n,
                     acre_strerror(rc));
        cr_expect_null(c->dir, "%s: allocation %lu: a directory", o->name, n);
    } else {
        cr_expect_eq(rc, 0);
        cr_expect_eq(acre_directory_count(c->dir),
                     acre_directory_count(dir006));
    }
    acre_directory_free(c->dir);
}

Test(oom, directory_load)
{
    struct load_case c = {data006, NULL};
    struct op o = {"load", load_run, load_judge, &c};

    sweep(&o, stride(3));
}

/* ------------------------------------------------------------------------
 * acre_lint
 */

struct lint_case {
    const char *text;
    char *report; /* the fault-free findings as text */
    acre_lint_result *r;
    int dialect; /* 0: slapd.conf */
};

static int
lint_run(struct op *o)
{
    struct lint_case *c = o->arg;
    int aci = c->dialect == ACRE_DIALECT_ACI;
    acre_source src = {aci ? ACRE_DIALECT_ACI : ACRE_DIALECT_SLAPD_CONF,
                       aci ? "acis.ldif" : "slapd.conf", c->text,
                       strlen(c->text)};
    acre_diag d = {0};

    c->r = NULL;
    return acre_lint(NULL, &src, 1, aci ? NULL : dir006, NULL, 0, &c->r, &d);
}

static void
lint_judge(struct op *o, int rc, unsigned long failed, unsigned long n)
{
    struct lint_case *c = o->arg;

    if (failed && rc) {
        cr_expect_eq(rc, ACRE_ERR_NOMEM, "%s: allocation %lu: %s", o->name, n,
                     acre_strerror(rc));
        cr_expect_null(c->r, "%s: allocation %lu: a result", o->name, n);
    } else {
        cr_expect_eq(rc, 0);
    }
    if (c->r) {
        char *t = acre_lint_format(c->r, ACRE_LINT_TEXT);
        cr_expect(t && strcmp(t, c->report) == 0,
                  "%s: allocation %lu: other findings:\n%s", o->name, n, t);
        free(t);
        acre_lint_free(c->r);
    }
}

Test(oom, lint_test006)
{
    struct lint_case c = {rules006, NULL, NULL, 0};
    struct op o = {"lint", lint_run, lint_judge, &c};

    cr_assert_eq(lint_run(&o), 0);
    c.report = acre_lint_format(c.r, ACRE_LINT_TEXT);
    cr_assert(c.report);
    cr_expect_eq(c.r->warnings, 3, "%s", c.report); /* 2 + missing-base */
    acre_lint_free(c.r);
    sweep(&o, stride(7));
    free(c.report);
}

/* ACI sources: one of each warning, a silencing comment; then every
 * error of a file that has several */
Test(oom, lint_aci)
{
    static const char *const texts[2] = {
        "dn: dc=example,dc=com\n"
        "aci: (targetattr=\"cn || nosuch\")(targetfilter=\"(bogus=1)\")"
        "(version 3.0; acl \"u\"; allow (read) userdn=\"ldap:///all\";)\n"
        "aci: (targetattr=\"*\")(version 3.0; acl \"w\"; allow (write) "
        "userdn=\"ldap:///anyone\";)\n"
        "# acre-lint: disable=public-write\n"
        "aci: (targetattr=\"*\")(version 3.0; acl \"q\"; allow (add) "
        "userdn=\"ldap:///anyone\";)\n"
        "aci: (targetattr=\"userPassword\")(version 3.0; acl \"d\"; deny "
        "(read) userdn=\"ldap:///anyone\";)\n"
        "\ndn: ou=People,dc=example,dc=com\n"
        "aci: (target=\"ldap:///uid=*,ou=Groups,dc=example,dc=com\")"
        "(version 3.0; acl \"o\"; allow (read) userdn=\"ldap:///all\";)\n"
        "aci: (targetattr=\"userPassword\")(version 3.0; acl \"s\"; allow "
        "(read) userdn=\"ldap:///uid=a,dc=example,dc=com\";)\n",
        "dn: dc=example,dc=com\n"
        "aci: (version 3.0; acl \"a\"; allow (reed) "
        "userdn=\"ldap:///all\";)\n"
        "aci: (target=\"ldap:///dc=org\")(version 3.0; acl \"b\"; allow "
        "(read) userdn=\"ldap:///all\";)\n",
    };
    static const unsigned found[2] = {5, 2};

    for (int k = 0; k < 2; k++) {
        struct lint_case c = {texts[k], NULL, NULL, ACRE_DIALECT_ACI};
        struct op o = {"lint_aci", lint_run, lint_judge, &c};

        cr_assert_eq(lint_run(&o), 0);
        c.report = acre_lint_format(c.r, ACRE_LINT_TEXT);
        cr_assert(c.report);
        cr_expect_eq(c.r->count, found[k], "%s", c.report);
        acre_lint_free(c.r);
        sweep(&o, stride(3));
        free(c.report);
    }
}

/* ------------------------------------------------------------------------
 * Decisions: acre_request_begin, acre_entry_decide, acre_access,
 * acre_search on test006, each run with a fresh policy (empty spec cache)
 * and fresh requests, so the sweep meets every first-use growth.
 */

#define MAX_ENTRIES 32
#define VBYTES      160 /* visible, attributes, values, collective ones */
#define NATTRS      10
#define NRIGHTS     4
#define NFILTERS    4

/* What a run saw, recorded without allocating, in a fixed layout where a
 * byte's bits are grants: a run that grants nothing the fault-free run
 * does not has no bit the fault-free record lacks. */
struct answers {
    uint8_t decide[3][MAX_ENTRIES][VBYTES];
    uint8_t access[3][MAX_ENTRIES][NATTRS][NRIGHTS][2];
    uint8_t search[3][NFILTERS][MAX_ENTRIES][VBYTES]; /* [0]: returned */
    int rc[3];                                        /* first error */
    int ldap_rc[3][NFILTERS];
};

struct decide_case {
    const acre_directory *dir;
    const char *const *requesters; /* [3] */
    acre_policy *(*make)(void);    /* a fresh policy, fault-free */
    const acre_entry *entries[MAX_ENTRIES];
    unsigned nentries;
    acre_policy *p;
    struct answers ref, got;
};

static const char *const attrs[NATTRS] = {"entry",
                                          "children",
                                          "cn",
                                          "member",
                                          "uniqueMember",
                                          "userPassword",
                                          "telephoneNumber",
                                          "facsimileTelephoneNumber",
                                          "homePhone",
                                          "pager"};
static const int rights[NRIGHTS] = {ACRE_RIGHT_READ, ACRE_RIGHT_WRITE,
                                    ACRE_RIGHT_AUTH, ACRE_RIGHT_SEARCH};
static const char *const filters[NFILTERS] = {
    "(objectClass=*)", "(cn=*Jensen)", "(|(cn=Mark*)(uid=jaj))", "(member=*)"};

static int
collect(void *arg, const acre_entry *e)
{
    struct decide_case *c = arg;
    cr_assert_lt(c->nentries, MAX_ENTRIES);
    c->entries[c->nentries++] = e;
    return 0;
}

/* What a run saw that it cannot record (no assertion may run while
 * allocations fail: Criterion's reporting allocates); judged after. */
static const char *oddity;

/* An attribute verdict as grant bits: NONE 0, SOME 1, ALL 3. */
static uint8_t
attr_bits(uint8_t v)
{
    return v == ACRE_ATTR_ALL ? 3 : v == ACRE_ATTR_SOME ? 1 : 0;
}

/* put_verdict -- v (on entry e) as bytes into b[VBYTES]: 1 + visible,
 * then each attribute's bits and its values, then the collective ones. */
static void
put_verdict(uint8_t *b, const acre_entry *e, const acre_verdict *v)
{
    size_t k = 0;

    b[k++] = 1;
    b[k++] = (uint8_t)v->visible;
    for (unsigned a = 0; a < v->nattrs && k < VBYTES; a++) {
        unsigned nv = 0;
        acre_entry_attr(e, a, NULL, &nv);
        b[k++] = attr_bits(v->attr[a]);
        for (unsigned j = 0; j < nv && k < VBYTES; j++)
            b[k++] = v->value[v->first[a] + j];
    }
    for (unsigned a = 0; a < v->coll.nattrs && k < VBYTES; a++) {
        unsigned nv = 0;
        acre_collective_attr(&v->coll, a, NULL, &nv, NULL);
        b[k++] = attr_bits(v->coll_attr[a]);
        for (unsigned j = 0; j < nv && k < VBYTES; j++)
            b[k++] = v->coll_value[v->coll_first[a] + j];
    }
    if (k >= VBYTES)
        oddity = "an entry too large for the record";
}

struct search_arg {
    struct decide_case *c;
    uint8_t (*rec)[VBYTES];
};

static int
on_found(void *arg, const acre_entry_view *e, const acre_verdict *v)
{
    struct search_arg *s = arg;
    for (unsigned k = 0; k < s->c->nentries; k++)
        if (acre_entry_view_of(s->c->entries[k]) == e) {
            put_verdict(s->rec[k], s->c->entries[k], v);
            return 0;
        }
    oddity = "a search returned an entry of no directory";
    return 0;
}

/* note -- keep a requester's first error. */
static void
note(struct answers *a, int i, int rc)
{
    if (rc < 0 && !a->rc[i])
        a->rc[i] = rc;
}

/* The checks of requester i's request, recorded in a. */
static void
decide_all(struct decide_case *c, acre_request *rq, struct answers *a, int i)
{
    acre_verdict v;

    for (unsigned k = 0; k < c->nentries; k++) {
        const acre_entry_view *e = acre_entry_view_of(c->entries[k]);
        note(a, i, acre_entry_decide(rq, e, ACRE_RIGHT_READ, &v));
        put_verdict(a->decide[i][k], c->entries[k], &v);
        for (unsigned t = 0; t < NATTRS; t++)
            for (unsigned r = 0; r < NRIGHTS; r++) {
                uint32_t mask = 0;
                int g = acre_access(rq, e, attrs[t], NULL, 0, rights[r], &mask);
                note(a, i, g);
                /* the privileges, without "none" and the level mark */
                mask = g >= 0 ? mask & 0x3feu : 0;
                a->access[i][k][t][r][0] = (uint8_t)(g == 1) | (uint8_t)mask;
                a->access[i][k][t][r][1] = (uint8_t)(mask >> 8);
            }
    }
    for (unsigned f = 0; f < NFILTERS; f++) {
        struct search_arg s = {c, a->search[i][f]};
        a->ldap_rc[i][f] = -1;
        note(a, i,
             acre_search(rq, SUFFIX, ACRE_SCOPE_SUB, filters[f], NULL, 0,
                         on_found, &s, &a->ldap_rc[i][f], NULL));
    }
}

/* One pass: every requester's request on c->p, recorded in a. */
static int
decide_pass(struct decide_case *c, struct answers *a)
{
    acre_request *rq[3] = {NULL, NULL, NULL};
    int rc = 0;

    memset(a, 0, sizeof(*a));
    for (int i = 0; i < 3; i++) {
        acre_subject who = {.authz_dn = c->requesters[i],
                            .peername = "IP=127.0.0.1:40000",
                            .sockname = "IP=127.0.0.1:389",
                            .sockurl = "ldap://127.0.0.1/",
                            .domain = "localhost"};
        int r =
            acre_request_begin(c->p, &who, acre_directory_host(c->dir), &rq[i]);
        if (r)
            a->rc[i] = r;
        else
            decide_all(c, rq[i], a, i);
        rc = rc ? rc : a->rc[i];
    }
    for (int i = 0; i < 3; i++)
        acre_request_end(rq[i]);
    return rc;
}

static int
decide_run(struct op *o)
{
    struct decide_case *c = o->arg;
    return decide_pass(c, &c->got);
}

/* Nothing in got grants what ref does not. */
static void
expect_no_more(const struct answers *got, const struct answers *ref,
               const char *name, unsigned long n)
{
    const uint8_t *g = (const uint8_t *)got, *r = (const uint8_t *)ref;
    size_t len = offsetof(struct answers, rc);

    for (size_t k = 0; k < len; k++)
        if (g[k] & ~r[k]) {
            cr_expect_fail("%s: allocation %lu: byte %zu of the record is %#x "
                           "where the fault-free run gave %#x",
                           name, n, k, g[k], r[k]);
            return;
        }
}

static void
decide_judge(struct op *o, int rc, unsigned long failed, unsigned long n)
{
    struct decide_case *c = o->arg;

    cr_expect_null(oddity, "%s: allocation %lu: %s", o->name, n, oddity);
    oddity = NULL;
    if (failed) { /* errors are NOMEM; answers grant no more */
        for (int i = 0; i < 3; i++)
            cr_expect(c->got.rc[i] == 0 || c->got.rc[i] == ACRE_ERR_NOMEM,
                      "%s: allocation %lu: requester %d: %s", o->name, n, i,
                      acre_strerror(c->got.rc[i]));
        expect_no_more(&c->got, &c->ref, o->name, n);
    } else {
        cr_expect_eq(rc, 0, "%s: %s", o->name, acre_strerror(rc));
        cr_expect(memcmp(&c->got, &c->ref, sizeof(c->got)) == 0,
                  "%s: the fault-free run differs", o->name);
    }
    /* the policy (its spec cache) answers as if nothing had happened */
    decide_pass(c, &c->got);
    cr_expect(memcmp(&c->got, &c->ref, sizeof(c->got)) == 0,
              "%s: allocation %lu: the policy answers differently after",
              o->name, n);
    /* a fresh policy for the next run (as many blocks as this one) */
    acre_policy_release(c->p);
    c->p = c->make();
}

/* decide_sweep -- the decisions of c's requesters on fresh policies. */
static void
decide_sweep(struct decide_case *c, const char *name, unsigned long step)
{
    struct op o = {name, decide_run, decide_judge, c};
    acre_dn *top;

    cr_assert_eq(
        acre_dn_parse(ctx, schema, SUFFIX, strlen(SUFFIX), 0, &top, NULL), 0);
    cr_assert_eq(acre_directory_walk(c->dir, top, ACRE_SCOPE_SUB, collect, c),
                 0);
    c->p = c->make(); /* (its first use also warms the shared schema) */
    cr_assert_eq(decide_pass(c, &c->ref), 0);
    acre_policy_release(c->p);
    c->p = c->make();
    sweep(&o, step);
    acre_policy_release(c->p);
}

static acre_policy *
make006(void)
{
    return compile(bare006);
}

Test(oom, decisions_test006)
{
    static const char *const who[3] = {NULL, BJORN, JAJ};
    static struct decide_case c = {.requesters = who, .make = make006};

    c.dir = dir006;
    decide_sweep(&c, "decide test006", stride(5));
}

/* A set's ldap:/// search in a database without a rootdn runs as no one:
 * an anonymous companion request, made during the check, decides the
 * search on the base entry and on the filter's attributes. */
static acre_policy *
make_set_url(void)
{
    return compile("database mdb\nsuffix \"" SUFFIX "\"\n"
                   "access to dn.subtree=\"ou=Groups," SUFFIX
                   "\" attrs=entry,cn\n"
                   "  by * search\n"
                   "access to dn.subtree=\"ou=Groups," SUFFIX "\"\n"
                   "  by users read by * none\n"
                   "access to *\n"
                   "  by set=\"[ldap:///ou=Groups," SUFFIX "??sub?(cn=*Staff)]"
                   "/uniqueMember & user\" read\n"
                   "  by users search by * none\n");
}

Test(oom, decisions_set_url_anonymous)
{
    static const char *const who[3] = {NULL, BJORN, JAJ};
    static struct decide_case c = {.requesters = who, .make = make_set_url};

    c.dir = dir006;
    decide_sweep(&c, "decide set url", stride(3));
}

/* ------------------------------------------------------------------------
 * Collective attributes: acre_policy_attach_subentries, and decisions on
 * the attached policy (collective values, slapo-collect reading its
 * sources as the requester)
 */

#define STAFF "ou=staff,ou=people," SUFFIX
#define ANN   "uid=ann," STAFF
#define BOB   "uid=bob,ou=people," SUFFIX

static const char coll_ldif[] =
    "dn: " SUFFIX "\nobjectClass: domain\ndc: example\n"
    "administrativeRole: collectiveAttributeSpecificArea\n\n"
    "dn: ou=people," SUFFIX "\nobjectClass: organizationalUnit\n"
    "ou: people\ndescription: People Dept\n\n"
    "dn: " STAFF "\nobjectClass: organizationalUnit\nou: staff\n"
    "administrativeRole: collectiveAttributeInnerArea\n\n"
    "dn: " ANN "\nobjectClass: inetOrgPerson\nuid: ann\ncn: Ann\nsn: A\n"
    "telephoneNumber: +1 555 0101\n\n"
    "dn: " BOB "\nobjectClass: inetOrgPerson\nuid: bob\ncn: Bob\nsn: B\n"
    "manager: " ANN "\ncollectiveExclusions: c-st\n\n"
    "dn: cn=s1," SUFFIX "\nobjectClass: subentry\n"
    "objectClass: collectiveAttributeSubentry\ncn: s1\n"
    "subtreeSpecification: {base \"ou=people\", minimum 1}\n"
    "c-l: Paris\nc-st: IDF\n\n"
    "dn: cn=s2," SUFFIX "\nobjectClass: subentry\n"
    "objectClass: collectiveAttributeSubentry\ncn: s2\n"
    "subtreeSpecification: {specificationFilter or:{item:person, "
    "item:device}}\nc-l: Lyon\nc-o: Example\n\n"
    "dn: cn=s3," STAFF "\nobjectClass: subentry\n"
    "objectClass: collectiveAttributeSubentry\ncn: s3\n"
    "subtreeSpecification: {specificExclusions {chopAfter:\"uid=ann\"}}\n"
    "c-ou: Staff\n\n"
    "dn: cn=bad," SUFFIX "\nobjectClass: subentry\n"
    "objectClass: collectiveAttributeSubentry\ncn: bad\n"
    "subtreeSpecification: {nonsense}\nc-l: Nowhere\n\n";

static const char coll_conf[] =
    "database mdb\nsuffix \"" SUFFIX "\"\noverlay collect\n"
    "collectinfo ou=people," SUFFIX " description\n"
    "access to attrs=c-l by users read by * none\n"
    "access to dn.base=\"ou=people," SUFFIX "\" attrs=description\n"
    "  by dn.exact=\"" ANN "\" read by * none\n"
    "access to * by * read\n";

static acre_directory *coll_dir;

static void
coll_setup(void)
{
    setup();
    acre_diag d = {0};
    cr_assert_eq(acre_directory_load(ctx, schema, "coll.ldif", coll_ldif,
                                     strlen(coll_ldif), &coll_dir, &d),
                 0, "%u: %s", d.line, d.message);
}

struct attach_case {
    acre_policy *rules;
    acre_policy *q;
    acre_diag d;
    struct decide_case *dc; /* the fault-free attached policy's answers */
};

static int
attach_run(struct op *o)
{
    struct attach_case *c = o->arg;

    c->q = NULL;
    memset(&c->d, 0, sizeof(c->d));
    return acre_policy_attach_subentries(NULL, c->rules, coll_dir, 0, &c->q,
                                         &c->d);
}

static acre_policy *
attached(void)
{
    acre_policy *rules = compile(coll_conf), *q = NULL;
    acre_diag d = {0};

    cr_assert_eq(
        acre_policy_attach_subentries(NULL, rules, coll_dir, 0, &q, &d), 0);
    acre_policy_release(rules);
    return q;
}

static const char *const coll_who[3] = {NULL, ANN, BOB};

static void
attach_judge(struct op *o, int rc, unsigned long failed, unsigned long n)
{
    struct attach_case *c = o->arg;

    if (failed && rc) {
        cr_expect_eq(rc, ACRE_ERR_NOMEM, "%s: allocation %lu: %s", o->name, n,
                     acre_strerror(rc));
        cr_expect_null(c->q, "%s: allocation %lu: a policy", o->name, n);
    } else {
        cr_expect_eq(rc, 0);
        cr_expect(c->d.code && strstr(c->d.message, "cn=bad"),
                  "the bad specification's warning: %s", c->d.message);
    }
    if (c->q) { /* it decides as the fault-free attached policy */
        c->dc->p = c->q;
        decide_pass(c->dc, &c->dc->got);
        cr_expect(memcmp(&c->dc->got, &c->dc->ref, sizeof(c->dc->got)) == 0,
                  "%s: allocation %lu: another policy", o->name, n);
        acre_policy_release(c->q);
    }
    /* the rules are whole, and freed with their last reference (the
     * live-block count sees one the failed attach kept) */
    acre_policy_release(c->rules);
    c->rules = compile(coll_conf);
}

TestSuite(oom_coll, .init = coll_setup, .fini = teardown, .timeout = 600);

/* coll_walk -- c's entries: coll_dir's, in its order. */
static void
coll_walk(struct decide_case *c)
{
    acre_dn *top;

    c->dir = coll_dir;
    cr_assert_eq(
        acre_dn_parse(ctx, schema, SUFFIX, strlen(SUFFIX), 0, &top, NULL), 0);
    cr_assert_eq(acre_directory_walk(coll_dir, top, ACRE_SCOPE_SUB, collect, c),
                 0);
}

Test(oom_coll, attach_subentries)
{
    static struct decide_case dc = {.requesters = coll_who};
    struct attach_case c = {compile(coll_conf), NULL, {0}, &dc};
    struct op o = {"attach", attach_run, attach_judge, &c};

    coll_walk(&dc);
    dc.p = attached();
    cr_assert_eq(decide_pass(&dc, &dc.ref), 0);
    acre_policy_release(dc.p);

    sweep(&o, stride(1));
    acre_policy_release(c.rules);
}

Test(oom_coll, decisions_attached)
{
    static struct decide_case c = {.requesters = coll_who, .make = attached};

    c.dir = coll_dir;
    decide_sweep(&c, "decide attached", stride(1));
    /* the fixture shows what it is meant to */
    cr_expect_neq(memchr(c.ref.decide, 3, sizeof(c.ref.decide)), NULL);
}

/* ------------------------------------------------------------------------
 * Files: acre_directory_load from a path, acre_schema_load_file, a slot
 */

static int
load_file_run(struct op *o)
{
    struct load_case *c = o->arg;
    acre_diag d = {0};
    const char *slash = strrchr(__FILE__, '/');
    static char path[4096];

    if (!path[0])
        snprintf(path, sizeof(path),
                 "%.*s/../oracle/data/openldap-test006/data.initial.ldif",
                 slash ? (int)(slash - __FILE__) : 1, slash ? __FILE__ : ".");
    c->dir = NULL;
    return acre_directory_load(NULL, schema, path, NULL, 0, &c->dir, &d);
}

Test(oom, directory_load_file)
{
    struct load_case c = {data006, NULL};
    struct op o = {"load file", load_file_run, load_judge, &c};

    sweep(&o, stride(3));
}

struct schema_case {
    acre_schema *s;
};

static int
schema_run(struct op *o)
{
    struct schema_case *c = o->arg;
    acre_diag d = {0};

    c->s = NULL;
    int rc = acre_schema_new(NULL, 0, &c->s, &d);
    if (rc == 0)
        rc = acre_schema_load_file(c->s, "/etc/ldap/schema/nis.schema", &d);
    return rc;
}

static void
schema_judge(struct op *o, int rc, unsigned long failed, unsigned long n)
{
    struct schema_case *c = o->arg;

    if (failed && rc)
        cr_expect_eq(rc, ACRE_ERR_NOMEM, "%s: allocation %lu: %s", o->name, n,
                     acre_strerror(rc));
    else
        cr_expect_eq(rc, 0);
    if (c->s && !rc)
        cr_expect_geq(acre_schema_attr_id(c->s, "cn", 2), 0);
    acre_schema_free(c->s);
}

Test(oom, schema_load_file)
{
    struct schema_case c = {NULL};
    struct op o = {"schema", schema_run, schema_judge, &c};

    sweep(&o, stride(3));
}

/* The 389 schema is built on first use, once per process: a build that
 * runs out of memory fails the call, leaves nothing behind and is tried
 * again by the next call (this test's process has not built it yet). */
Test(oom, schema_389_first_build)
{
    unsigned long n, step = stride(41), runs = 0;
    long kept = 0;
    acre_schema *s = NULL;
    acre_diag d;
    int rc;

    for (n = 1;; n += step) {
        long live = alloc_live();
        alloc_fail_after(n);
        rc = acre_schema_new(NULL, ACRE_SCHEMA_389, &s, &d);
        unsigned long failed = alloc_failed();
        alloc_fail_after(0);
        if (!failed)
            break;
        runs++;
        cr_expect_eq(rc, ACRE_ERR_NOMEM, "allocation %lu: %d", n, rc);
        /* the one run that built the shared schema and then failed to
         * copy it keeps that schema; every other run keeps nothing */
        if (alloc_live() != live && !kept)
            kept = alloc_live() - live;
        else
            cr_expect_eq(alloc_live(), live, "allocation %lu: %ld blocks left",
                         n, alloc_live() - live);
    }
    cr_expect_gt(runs, 0);
    cr_expect(kept == 0 || kept > 1000, "the shared schema: %ld blocks", kept);
    cr_assert_eq(rc, 0, "%s", d.message);
    cr_expect_geq(acre_schema_attr_id(s, "nsAccountLock", 13), 0);
    acre_schema_free(s);
}

struct slot_case {
    acre_slot *s;
};

static int
slot_run(struct op *o)
{
    struct slot_case *c = o->arg;

    c->s = NULL;
    return acre_slot_new(&c->s);
}

static void
slot_judge(struct op *o, int rc, unsigned long failed, unsigned long n)
{
    struct slot_case *c = o->arg;

    cr_expect(rc == 0 || (failed && rc == ACRE_ERR_NOMEM && !c->s));
    if (c->s) { /* a slot holds and hands out a policy */
        acre_policy *p = compile("access to * by * read\n");
        acre_slot_store(c->s, p);
        acre_policy *q = acre_slot_acquire(c->s);
        cr_expect_eq(q, p);
        acre_policy_release(q);
        acre_policy_release(p);
        acre_slot_free(c->s);
    }
}

Test(oom, slot_new)
{
    struct slot_case c = {NULL};
    struct op o = {"slot", slot_run, slot_judge, &c};

    acre_policy_release(compile("access to * by * read\n")); /* warm */
    sweep(&o, 1);
}

/* ------------------------------------------------------------------------
 * A value the filter evaluator cannot normalise for want of memory is no
 * mismatch: an ACI whose targetfilter denies must still deny (the value
 * is longer than every stack buffer, and the view gives no normal forms,
 * as a server's may not)
 */

Test(oom_aci, targetfilter_deny_fails_closed)
{
    void *mem = talloc_new(NULL);
    char *big = talloc_array(mem, char, 3001);
    acre_diag d = {0};
    acre_policy *p;
    acre_dn *dn;

    memset(big, 'x', 3000);
    big[3000] = 0;
    char *ldif = talloc_asprintf(
        mem,
        "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n"
        "aci: (targetattr=\"*\")(version 3.0; acl \"read\"; allow "
        "(read,search) userdn=\"ldap:///anyone\";)\n"
        "aci: (targetattr=\"description\")(targetfilter=\"(description=%s)"
        "\")(version 3.0; acl \"long\"; deny (read) "
        "userdn=\"ldap:///anyone\";)\n",
        big);
    acre_source src = {ACRE_DIALECT_ACI, "acis.ldif", ldif, strlen(ldif)};
    cr_assert_eq(acre_policy_compile(mem, NULL, &src, 1, 0, &p, &d), 0, "%s",
                 d.message);
    const acre_schema *s = acre_policy_schema(p);
    const char *e = "cn=long,dc=example,dc=com";
    cr_assert_eq(acre_dn_parse(mem, s, e, strlen(e), 0, &dn, NULL), 0);
    acre_value cn = {4, "long"}, oc = {6, "person"}, sn = {1, "L"};
    acre_value desc = {3000, big};
    acre_view_attr va[4] = {
        {acre_schema_attr_id(s, "objectClass", 11), 1, &oc, NULL},
        {acre_schema_attr_id(s, "cn", 2), 1, &cn, NULL},
        {acre_schema_attr_id(s, "sn", 2), 1, &sn, NULL},
        {acre_schema_attr_id(s, "description", 11), 1, &desc, NULL}};
    acre_entry_view v = {s, dn, 4, va, NULL};
    acre_subject who = {0};
    unsigned long n, failures = 0;

    for (n = 0;; n++) { /* n 0: no failure, the answer to keep */
        acre_request *rq;
        acre_verdict out;
        alloc_fail_once(n);
        int rc = acre_request_begin(p, &who, NULL, &rq);
        if (rc == 0) {
            rc = acre_entry_decide(rq, &v, ACRE_RIGHT_READ, &out);
            cr_assert(rc == 0 || rc == ACRE_ERR_NOMEM, "n %lu: %d", n, rc);
            cr_assert(rc != 0 || !out.visible || out.attr[3] == ACRE_ATTR_NONE,
                      "n %lu: the failed allocation showed the value", n);
            if (n == 0)
                cr_assert(rc == 0 && out.visible &&
                          out.attr[1] != ACRE_ATTR_NONE &&
                          out.attr[3] == ACRE_ATTR_NONE);
            acre_request_end(rq);
        }
        unsigned long f = alloc_failed();
        alloc_fail_after(0);
        if (n && !f)
            break; /* the n-th allocation came after the last one */
        failures += f;
    }
    cr_assert_gt(failures, 2, "the sweep refused allocations on the way");
    acre_policy_release(p);
    talloc_free(mem);
}

/* Proxied authorization: the request of the DN bound (made when the ACI
 * state is) and each entry's proxy check fail closed.  Carol may read
 * everything; alice, bound, may proxy on dc=example,dc=com's subtree but
 * not below ou=secret: with every allocation failed in turn, the entry
 * below ou=secret is never visible, the other is visible or the verdict
 * is NOMEM. */
Test(oom_aci, proxied_fails_closed)
{
    void *mem = talloc_new(NULL);
    static const char ldif[] =
        "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n"
        "aci: (targetattr=\"*\")(version 3.0; acl \"read\"; allow "
        "(read,search) userdn=\"ldap:///uid=carol,dc=example,dc=com\";)\n"
        "aci: (version 3.0; acl \"proxy\"; allow (proxy) "
        "userdn=\"ldap:///uid=alice,dc=example,dc=com\";)\n\n"
        "dn: ou=secret,dc=example,dc=com\nobjectClass: organizationalUnit\n"
        "ou: secret\n"
        "aci: (version 3.0; acl \"no proxy\"; deny (proxy) "
        "userdn=\"ldap:///all\";)\n";
    acre_source src = {ACRE_DIALECT_ACI, "acis.ldif", ldif, sizeof ldif - 1};
    acre_diag d = {0};
    acre_policy *p;
    cr_assert_eq(acre_policy_compile(mem, NULL, &src, 1, 0, &p, &d), 0, "%s",
                 d.message);
    const acre_schema *s = acre_policy_schema(p);
    const char *dns[2] = {"cn=open,dc=example,dc=com",
                          "cn=hid,ou=secret,dc=example,dc=com"};
    acre_dn *dn[2];
    acre_value cn = {4, "name"}, oc = {6, "device"};
    acre_view_attr va[2] = {
        {acre_schema_attr_id(s, "objectClass", 11), 1, &oc, NULL},
        {acre_schema_attr_id(s, "cn", 2), 1, &cn, NULL}};
    acre_entry_view v[2];
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(
            acre_dn_parse(mem, s, dns[i], strlen(dns[i]), 0, &dn[i], NULL), 0);
        v[i] = (acre_entry_view){s, dn[i], 2, va, NULL};
    }
    acre_subject who = {0};
    who.authz_dn = "uid=carol,dc=example,dc=com";
    who.authc_dn = "uid=alice,dc=example,dc=com";
    unsigned long n, failures = 0;

    for (n = 0;; n++) { /* n 0: no failure */
        acre_request *rq;
        acre_verdict out;
        alloc_fail_once(n);
        int rc = acre_request_begin(p, &who, NULL, &rq);
        for (int i = 0; rc == 0 && i < 2; i++) {
            int r = acre_entry_decide(rq, &v[i], ACRE_RIGHT_READ, &out);
            cr_assert(r == 0 || r == ACRE_ERR_NOMEM, "n %lu: %d", n, r);
            cr_assert(r != 0 || i == 0 || !out.visible,
                      "n %lu: a failed allocation let alice proxy", n);
            if (n == 0)
                cr_assert(r == 0 && out.visible == (i == 0), "entry %d", i);
            cr_assert(i == 1 || acre_access(rq, &v[1], "cn", NULL, 0,
                                            ACRE_RIGHT_READ, NULL) != 1,
                      "n %lu: cn below ou=secret readable", n);
        }
        if (rc == 0)
            acre_request_end(rq);
        unsigned long f = alloc_failed();
        alloc_fail_after(0);
        if (n && !f)
            break;
        failures += f;
    }
    cr_assert_gt(failures, 2, "the sweep refused allocations on the way");
    acre_policy_release(p);
    talloc_free(mem);
}

/* ------------------------------------------------------------------------
 * A second load into a 389 directory: numSubordinates on the parents it
 * gives children to.  A failed load leaves every entry's numSubordinates
 * as it was (its count of children, on the entries that have some), and
 * the same load then succeeds with the right counts.
 */

static const char ldif389_a[] =
    "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
    "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\n"
    "ou: people\n\n"
    "dn: uid=a,ou=people,dc=example,dc=com\nobjectClass: account\nuid: a\n";
static const char ldif389_b[] =
    "dn: uid=b,ou=people,dc=example,dc=com\nobjectClass: account\nuid: b\n\n"
    "dn: ou=groups,dc=example,dc=com\nobjectClass: organizationalUnit\n"
    "ou: groups\nnumSubordinates: 7\n\n"
    "dn: cn=g,ou=groups,dc=example,dc=com\nobjectClass: device\ncn: g\n";

struct subs_case {
    acre_schema *s;
    struct acreE_dir *d;
};

static int
subs_run(struct op *o)
{
    struct subs_case *c = o->arg;
    acre_diag d;
    int rc;

    c->d = NULL;
    if ((rc = acreE_dir_new(NULL, c->s, ACRED_DIR_389, &c->d)))
        return rc;
    if ((rc = acreE_dir_load_ldif(c->d, NULL, ldif389_a, strlen(ldif389_a),
                                  "a.ldif", NULL, NULL, &d)))
        return rc;
    return acreE_dir_load_ldif(c->d, NULL, ldif389_b, strlen(ldif389_b),
                               "b.ldif", NULL, NULL, &d);
}

/* subs_check -- every entry holds numSubordinates exactly when it has
 * children, with their number. */
static int
subs_visit(void *arg, const struct acreE_entry *e)
{
    int t = *(const int *)arg;
    unsigned found = 0;

    for (unsigned i = 0; i < e->v.nattrs; i++) {
        const acre_view_attr *a = &e->v.attrs[i];
        char num[16];
        if (a->id != t)
            continue;
        found++;
        snprintf(num, sizeof num, "%u", e->nchildren);
        cr_expect(a->nvals == 1 && a->vals[0].len == strlen(num) &&
                      !memcmp(a->vals[0].val, num, strlen(num)),
                  "%s: numSubordinates not %s", acre_dn_pretty(e->v.dn, NULL),
                  num);
    }
    cr_expect_eq(found, e->nchildren ? 1u : 0u, "%s: %u numSubordinates",
                 acre_dn_pretty(e->v.dn, NULL), found);
    return 0;
}

static void
subs_check(const struct subs_case *c)
{
    int t = acre_schema_attr_id(c->s, "numSubordinates", 15);
    size_t n;
    const struct acreE_entry *const *roots = acreE_dir_suffixes(c->d, &n);

    for (size_t k = 0; k < n; k++)
        acreE_dir_walk(c->d, roots[k]->v.dn, ACRE_SCOPE_SUB, subs_visit, &t);
}

static void
subs_judge(struct op *o, int rc, unsigned long failed, unsigned long n)
{
    struct subs_case *c = o->arg;
    acre_diag d;

    if (failed && rc)
        cr_expect_eq(rc, ACRE_ERR_NOMEM, "%s: allocation %lu: %s", o->name, n,
                     acre_strerror(rc));
    else
        cr_expect_eq(rc, 0);
    if (!c->d)
        return;
    subs_check(c);
    if (acreE_dir_count(c->d) == 3) { /* the second load failed: again */
        cr_expect_eq(acreE_dir_load_ldif(c->d, NULL, ldif389_b,
                                         strlen(ldif389_b), "b.ldif", NULL,
                                         NULL, &d),
                     0, "%s: allocation %lu: %s", o->name, n, d.message);
        subs_check(c);
    }
    if (acreE_dir_count(c->d)) /* (none when the first load failed) */
        cr_expect_eq(acreE_dir_count(c->d), 6u);
    talloc_free(c->d);
}

Test(oom, directory_load_389_numsubordinates)
{
    struct subs_case c = {NULL, NULL};
    struct op o = {"389 second load", subs_run, subs_judge, &c};
    acre_diag d;

    cr_assert_eq(acre_schema_new(NULL, ACRE_SCHEMA_389, &c.s, &d), 0);
    sweep(&o, stride(1));
    acre_schema_free(c.s);
}

/* A filtered role's nsRoleFilter is read when a check asks for the role
 * (389's slapi_str2filter: "(cn=a(b)c)" holds a value with parentheses):
 * memory that runs out while reading it fails the check, never leaves the
 * requester outside the role.  Anyone may read; the role's holders may
 * not: uid=p holds it, so with every allocation failed in turn cn=open
 * is never visible to p. */
Test(oom_aci, filtered_role_deny_fails_closed)
{
    void *mem = talloc_new(NULL);
    static const char ldif[] =
        "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n"
        "aci: (targetattr=\"*\")(version 3.0; acl \"read\"; allow "
        "(read,search) userdn=\"ldap:///anyone\";)\n"
        "aci: (targetattr=\"*\")(version 3.0; acl \"not the role\"; deny "
        "(read,search) roledn=\"ldap:///cn=frole,dc=example,dc=com\";)\n\n"
        "dn: cn=frole,dc=example,dc=com\nobjectClass: top\n"
        "objectClass: ldapSubEntry\nobjectClass: nsRoleDefinition\n"
        "objectClass: nsComplexRoleDefinition\n"
        "objectClass: nsFilteredRoleDefinition\ncn: frole\n"
        "nsRoleFilter: (cn=a(b)c)\n\n"
        "dn: uid=p,dc=example,dc=com\nobjectClass: person\nuid: p\n"
        "cn: a(b)c\nsn: p\n\n"
        "dn: uid=q,dc=example,dc=com\nobjectClass: person\nuid: q\n"
        "cn: abc\nsn: q\n\n"
        "dn: cn=open,dc=example,dc=com\nobjectClass: device\ncn: open\n";
    acre_source src = {ACRE_DIALECT_ACI, "acis.ldif", ldif, sizeof ldif - 1};
    acre_diag d = {0};
    acre_policy *p;
    acre_directory *dir;
    cr_assert_eq(acre_policy_compile(mem, NULL, &src, 1, 0, &p, &d), 0, "%s",
                 d.message);
    cr_assert_eq(acre_directory_load(mem, acre_policy_schema(p), "data.ldif",
                                     ldif, sizeof ldif - 1, &dir, &d),
                 0, "%s", d.message);
    const acre_schema *s = acre_policy_schema(p);
    acre_dn *dn;
    const char *open = "cn=open,dc=example,dc=com";
    cr_assert_eq(acre_dn_parse(mem, s, open, strlen(open), 0, &dn, NULL), 0);
    const acre_entry *e = acre_directory_find(dir, dn);
    cr_assert(e);
    acre_subject who = {0};
    who.authz_dn = "uid=p,dc=example,dc=com";
    unsigned long n, failures = 0;

    for (n = 0;; n++) { /* n 0: no failure */
        acre_request *rq;
        acre_verdict out;
        alloc_fail_once(n);
        int rc = acre_request_begin(p, &who, acre_directory_host(dir), &rq);
        if (rc == 0) {
            int r = acre_entry_decide(rq, acre_entry_view_of(e),
                                      ACRE_RIGHT_READ, &out);
            cr_assert(r == 0 || r == ACRE_ERR_NOMEM, "n %lu: %d", n, r);
            cr_assert(r != 0 || !out.visible,
                      "n %lu: a failed allocation left p outside the role", n);
            acre_request_end(rq);
        }
        unsigned long f = alloc_failed();
        alloc_fail_after(0);
        if (n && !f)
            break;
        failures += f;
    }
    cr_assert_gt(failures, 2, "the sweep refused allocations on the way");
    /* not vacuous: q, outside the role, reads the entry */
    acre_request *rq;
    acre_verdict out;
    who.authz_dn = "uid=q,dc=example,dc=com";
    cr_assert_eq(acre_request_begin(p, &who, acre_directory_host(dir), &rq), 0);
    cr_assert_eq(
        acre_entry_decide(rq, acre_entry_view_of(e), ACRE_RIGHT_READ, &out), 0);
    cr_assert(out.visible, "q is outside the role");
    acre_request_end(rq);
    acre_policy_release(p);
    talloc_free(mem);
}

Test(oom_aci, cos_targetfilter_deny_fails_closed)
{
    void *mem = talloc_new(NULL);
    /* a deny whose targetfilter names street, which a pointer Class of
     * Service gives the people: every failed allocation on the way (the
     * definitions' index, the query's values) must leave p unreadable */
    static const char ldif[] =
        "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n"
        "aci: (targetattr=\"*\")(version 3.0; acl \"read\"; allow "
        "(read,search) userdn=\"ldap:///anyone\";)\n"
        "aci: (targetattr=\"*\")(targetfilter=\"(street=main 1)\")"
        "(version 3.0; acl \"not on main street\"; deny (read,search) "
        "userdn=\"ldap:///anyone\";)\n\n"
        "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\n"
        "ou: people\n\n"
        "dn: cn=ptr,ou=people,dc=example,dc=com\nobjectClass: top\n"
        "objectClass: cosTemplate\nobjectClass: extensibleObject\n"
        "cn: ptr\nstreet: Main 1\n\n"
        "dn: cn=def,ou=people,dc=example,dc=com\nobjectClass: top\n"
        "objectClass: ldapSubEntry\nobjectClass: cosSuperDefinition\n"
        "objectClass: cosPointerDefinition\ncn: def\n"
        "cosTemplateDn: cn=ptr,ou=people,dc=example,dc=com\n"
        "cosAttribute: street\n\n"
        "dn: uid=p,ou=people,dc=example,dc=com\n"
        "objectClass: organizationalPerson\nobjectClass: uidObject\n"
        "uid: p\ncn: p\nsn: p\n\n"
        "dn: uid=q,dc=example,dc=com\nobjectClass: organizationalPerson\n"
        "objectClass: uidObject\nuid: q\ncn: q\nsn: q\n";
    acre_source src = {ACRE_DIALECT_ACI, "acis.ldif", ldif, sizeof ldif - 1};
    acre_diag d = {0};
    acre_policy *p;
    acre_directory *dir;
    cr_assert_eq(acre_policy_compile(mem, NULL, &src, 1, 0, &p, &d), 0, "%s",
                 d.message);
    cr_assert_eq(acre_directory_load(mem, acre_policy_schema(p), "data.ldif",
                                     ldif, sizeof ldif - 1, &dir, &d),
                 0, "%s", d.message);
    const acre_schema *s = acre_policy_schema(p);
    const char *pdn = "uid=p,ou=people,dc=example,dc=com",
               *qdn = "uid=q,dc=example,dc=com";
    acre_dn *dn;
    cr_assert_eq(acre_dn_parse(mem, s, pdn, strlen(pdn), 0, &dn, NULL), 0);
    const acre_entry *e = acre_directory_find(dir, dn);
    cr_assert_eq(acre_dn_parse(mem, s, qdn, strlen(qdn), 0, &dn, NULL), 0);
    const acre_entry *q = acre_directory_find(dir, dn);
    cr_assert(e && q);
    unsigned long n, failures = 0;

    for (n = 0;; n++) { /* n 0: no failure */
        acre_request *rq;
        acre_verdict out;
        alloc_fail_once(n);
        int rc = acre_request_begin(p, NULL, acre_directory_host(dir), &rq);
        if (rc == 0) {
            acre_request_set_flags(rq, ACRE_REQ_COS);
            int r = acre_entry_decide(rq, acre_entry_view_of(e),
                                      ACRE_RIGHT_READ, &out);
            cr_assert(r == 0 || r == ACRE_ERR_NOMEM, "n %lu: %d", n, r);
            cr_assert(r != 0 || !out.visible,
                      "n %lu: a failed allocation hid p's CoS street", n);
            acre_request_end(rq);
        }
        unsigned long f = alloc_failed();
        alloc_fail_after(0);
        if (n && !f)
            break;
        failures += f;
    }
    cr_assert_gt(failures, 2, "the sweep refused allocations on the way");
    /* not vacuous: q, outside the definition's reach, is readable, and p
     * is without the flag */
    acre_request *rq;
    acre_verdict out;
    cr_assert_eq(acre_request_begin(p, NULL, acre_directory_host(dir), &rq), 0);
    acre_request_set_flags(rq, ACRE_REQ_COS);
    cr_assert_eq(
        acre_entry_decide(rq, acre_entry_view_of(q), ACRE_RIGHT_READ, &out), 0);
    cr_assert(out.visible, "q has no street");
    acre_request_set_flags(rq, 0);
    cr_assert_eq(
        acre_entry_decide(rq, acre_entry_view_of(e), ACRE_RIGHT_READ, &out), 0);
    cr_assert(out.visible, "p stores no street");
    acre_request_end(rq);
    acre_policy_release(p);
    talloc_free(mem);
}

/* found_389 -- acre_search's callback: the first letter of each entry's
 * RDN value, once per time the entry is sent. */
static int
found_389(void *arg, const acre_entry_view *e, const acre_verdict *v)
{
    char *out = arg;
    size_t n;
    const char *dn = acre_dn_pretty(e->dn, &n);
    size_t k = strlen(out);

    (void)v;
    const char *eq = memchr(dn, '=', n);
    if (k + 1 < 64 && eq && eq + 1 < dn + n)
        out[k] = eq[1];
    return 0;
}

/* subseq -- is a what b is with some letters left out? */
static int
subseq(const char *a, const char *b)
{
    for (; *a && *b; b++)
        a += *a == *b;
    return !*a;
}

Test(oom_aci, candidates_389_fail_or_agree)
{
    void *mem = talloc_new(NULL);
    /* 389's candidates (filter_cand389.c): an inequality on cn sends an
     * entry once per value in range, and mail, which Class of Service
     * gives, is found only where stored; every failed allocation on the
     * way must fail the search or send the fault-free entries, less
     * some (an entry whose check failed is not sent: fail closed) */
    static const char ldif[] =
        "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n"
        "aci: (targetattr=\"*\")(version 3.0; acl \"read\"; allow "
        "(read,search) userdn=\"ldap:///anyone\";)\n\n"
        "dn: cn=ptr,dc=example,dc=com\nobjectClass: top\n"
        "objectClass: cosTemplate\nobjectClass: extensibleObject\n"
        "cn: ptr\nmail: cos@example.com\n\n"
        "dn: cn=def,dc=example,dc=com\nobjectClass: top\n"
        "objectClass: ldapSubEntry\nobjectClass: cosSuperDefinition\n"
        "objectClass: cosPointerDefinition\ncn: def\n"
        "cosTemplateDn: cn=ptr,dc=example,dc=com\ncosAttribute: mail\n\n"
        "dn: uid=a,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
        "uid: a\ncn: a1\ncn: a2\nsn: a\n\n"
        "dn: uid=b,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
        "uid: b\ncn: b1\nsn: b\nmail: cos@example.com\n";
    static const char *const flt[] = {
        "(cn>=a)", "(mail=cos@example.com)",
        "(&(objectClass=inetOrgPerson)(mail=cos@example.com))"};
    /* the template (cn=ptr) is an entry too; a's mail is CoS's alone */
    static const char *const want[] = {"paab", "pb", "b"};
    acre_source src = {ACRE_DIALECT_ACI, "acis.ldif", ldif, sizeof ldif - 1};
    acre_diag d = {0};
    acre_policy *p;
    acre_directory *dir;
    cr_assert_eq(acre_policy_compile(mem, NULL, &src, 1, 0, &p, &d), 0, "%s",
                 d.message);
    cr_assert_eq(acre_directory_load(mem, acre_policy_schema(p), "data.ldif",
                                     ldif, sizeof ldif - 1, &dir, &d),
                 0, "%s", d.message);
    for (unsigned f = 0; f < sizeof flt / sizeof *flt; f++) {
        unsigned long n, failures = 0;
        long live = 0;      /* after the fault-free run, which fills caches */
        for (n = 0;; n++) { /* n 0: no failure */
            acre_request *rq;
            char got[64] = "";
            int ldap_rc = -1;
            alloc_fail_once(n);
            int rc = acre_request_begin(p, NULL, acre_directory_host(dir), &rq);
            if (rc == 0) {
                acre_request_set_flags(rq, ACRE_REQ_COS);
                rc =
                    acre_search(rq, "dc=example,dc=com", ACRE_SCOPE_SUB, flt[f],
                                NULL, 0, found_389, got, &ldap_rc, NULL);
                acre_request_end(rq);
            }
            unsigned long failed = alloc_failed();
            alloc_fail_after(0);
            cr_assert(rc == 0 || (failed && rc == ACRE_ERR_NOMEM),
                      "%s, allocation %lu: %d", flt[f], n, rc);
            cr_assert(
                rc || (failed ? subseq(got, want[f]) : !strcmp(got, want[f])),
                "%s, allocation %lu: sent %s where 389 sends %s", flt[f], n,
                got, want[f]);
            if (!n)
                live = alloc_live();
            cr_assert_eq(alloc_live(), live, "%s, allocation %lu: a leak",
                         flt[f], n);
            if (n && !failed)
                break;
            failures += failed;
        }
        cr_assert_gt(failures, 2, "%s: the sweep refused allocations", flt[f]);
    }
    acre_policy_release(p);
    talloc_free(mem);
}

#endif /* ALLOC_HOOK */
