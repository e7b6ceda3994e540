/*
 * policy_thread_test.c -- policies shared by threads: a writer swapping
 * policies in an acre_slot while readers run requests under whatever
 * policy they acquired; a policy the slot has dropped staying alive for
 * the request that holds it; and the per-requester cache of one policy
 * filled by many threads at once, for one identity and for many.
 *
 * Every answer (acre_access's result and mask, a digest of
 * acre_entry_decide's verdict) is first computed on one thread for each
 * policy variant and requester; the threads then compare every answer of
 * a request with those of the variant that request holds.  A request
 * must answer as one policy from begin to end, never as a mix.
 *
 * A policy's variant is found by its generation in a table that
 * compile() fills with relaxed atomics, and the readers share no lock or
 * barrier with the writer: the slot is the only thing ordering a policy's
 * compilation before its use, so a missing barrier in it (or a plain
 * reference count) is a ThreadSanitizer report rather than hidden by the
 * test.  Threads never assert; they count, and the test's thread asserts
 * once they are joined.
 *
 * The file is built twice: into the Criterion binary (`make unit`), and
 * alone with -DACRE_THREAD_MAIN for `make tsan`.  Criterion's runner
 * cannot start under ThreadSanitizer: it maps its inheritable arena at a
 * random address between 0x2000'0000'0000 and 0x6000'0000'0000, nearly
 * all of which TSan reserves for its shadow (Criterion issue #274), so
 * there main() below runs the same tests in the main process.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include <time.h>

#include "acre.h"

#ifdef ACRE_THREAD_MAIN
static void fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4), noreturn));
#define THREAD_TEST(name) static void name(void)
#define CHECK(cond, ...)                           \
    do {                                           \
        if (!(cond))                               \
            fail(__FILE__, __LINE__, __VA_ARGS__); \
    } while (0)
#else
#include <criterion/criterion.h>
#define THREAD_TEST(name) Test(policy_thread, name, .timeout = 120)
#define CHECK(cond, ...)  cr_assert(cond, __VA_ARGS__)
#endif

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* ------------------------------------------------------------------------
 * The directory, the policies and the checks
 */
#define SUFFIX "dc=example,dc=com"
#define ALICE  "uid=alice,ou=people," SUFFIX
#define BOB    "uid=bob,ou=people," SUFFIX
#define STAFF  "cn=staff,ou=groups," SUFFIX

static const char ldif[] =
    "dn: " SUFFIX "\nobjectClass: dcObject\nobjectClass: organization\n"
    "dc: example\no: Example\n\n"
    "dn: ou=people," SUFFIX "\nobjectClass: organizationalUnit\nou: people\n\n"
    "dn: " ALICE "\nobjectClass: inetOrgPerson\nuid: alice\ncn: Alice\n"
    "sn: Liddell\nmail: alice@example.com\nmail: al@example.com\n"
    "telephoneNumber: +1 555 0100\nuserPassword: secret\n"
    "description: alice's entry\n\n"
    "dn: " BOB "\nobjectClass: inetOrgPerson\nuid: bob\ncn: Bob\nsn: Smith\n"
    "mail: bob@example.com\ntelephoneNumber: +1 555 0101\n"
    "userPassword: hunter2\ndescription: bob's entry\n\n"
    "dn: ou=groups," SUFFIX "\nobjectClass: organizationalUnit\nou: groups\n\n"
    "dn: " STAFF "\nobjectClass: groupOfNames\ncn: staff\n"
    "member: " ALICE "\ndescription: the staff\n";

/*
 * Three policies with different answers: A lets users read mail, B
 * refuses it to everyone, C gives it to the staff group; B substitutes a
 * regex submatch per check, C has a group, a dnattr and a set clause.
 */
enum { VAR_A, VAR_B, VAR_C, NVAR };

#define DB "database mdb\nsuffix \"" SUFFIX "\"\n"

static const char *const policy_text[NVAR] = {
    DB "access to attrs=mail\n"
       "    by users read\n"
       "    by * none\n"
       "access to * by * read\n",

    DB "access to attrs=mail by * none\n"
       "access to dn.regex=\"^uid=([^,]+),ou=people," SUFFIX "$\"\n"
       "        attrs=telephoneNumber\n"
       "    by dn.exact,expand=\"uid=$1,ou=people," SUFFIX "\" read\n"
       "    by * none\n"
       "access to * by users read by * search\n",

    DB "access to attrs=mail by group.exact=\"" STAFF "\" read by * none\n"
       "access to attrs=userPassword\n"
       "    by self write\n"
       "    by anonymous auth\n"
       "    by * none\n"
       "access to dn.base=\"" STAFF "\" by dnattr=member read by * none\n"
       "access to *\n"
       "    by set=\"[" STAFF "]/member & user\" read\n"
       "    by users search\n"
       "    by * none\n",
};

enum { E_BASE, E_ALICE, E_BOB, E_STAFF, NENT };

static const char *const entry_dn[NENT] = {SUFFIX, ALICE, BOB, STAFF};

struct check {
    int entry;
    const char *attr;
    const char *val; /* NULL: the attribute as a whole */
    int right;
};

static const struct check checks[] = {
    {E_ALICE, "mail", NULL, ACRE_RIGHT_READ},
    {E_ALICE, "mail", "alice@example.com", ACRE_RIGHT_READ},
    {E_BOB, "mail", NULL, ACRE_RIGHT_READ},
    {E_ALICE, "telephoneNumber", NULL, ACRE_RIGHT_READ},
    {E_BOB, "telephoneNumber", "+1 555 0101", ACRE_RIGHT_READ},
    {E_ALICE, "userPassword", NULL, ACRE_RIGHT_AUTH},
    {E_ALICE, "userPassword", NULL, ACRE_RIGHT_WRITE},
    {E_BOB, "cn", NULL, ACRE_RIGHT_READ},
    {E_BOB, "entry", NULL, ACRE_RIGHT_READ},
    {E_STAFF, "member", NULL, ACRE_RIGHT_READ},
    {E_STAFF, "description", NULL, ACRE_RIGHT_COMPARE},
    {E_BASE, "o", NULL, ACRE_RIGHT_SEARCH},
};

#define NCHECKS NELEM(checks)
#define NANS    (NCHECKS + NENT) /* the checks, then a verdict per entry */

/* Requesters: two users with entries, anonymous, and users without an
 * entry ("uid=u<n>"), who all answer alike. */
enum { ID_ALICE, ID_BOB, ID_ANON, ID_OTHER, NIDS };

/* ------------------------------------------------------------------------
 * Fixture: read-only once set up, so every thread may read it
 */
static void *ctx;
static acre_schema *schema;
static acre_directory *dir;
static const acre_entry *entries[NENT];
static uint64_t ref[NVAR][NIDS][NANS]; /* each variant's answers */

/* The variant of each policy compiled, by generation: generation << 8 |
 * variant at [generation % NGEN].  Relaxed atomics: they order nothing. */
#define NGEN 8192
static uint64_t gen_variant[NGEN];

static uint64_t
now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Compile variant v under mem (NULL: a talloc root); NULL on error, with
 * the reason in *d.  Any thread. */
static acre_policy *
compile(void *mem, int v, acre_diag *d)
{
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "policy.conf", policy_text[v],
                       strlen(policy_text[v])};
    acre_policy *p = NULL;

    memset(d, 0, sizeof(*d));
    if (acre_policy_compile(mem, schema, &src, 1, 0, &p, d) != 0)
        return NULL;
    uint64_t g = acre_policy_generation(p);
    __atomic_store_n(&gen_variant[g % NGEN], g << 8 | (unsigned)v,
                     __ATOMIC_RELAXED);
    return p;
}

static acre_policy *
compile_ok(void *mem, int v)
{
    acre_diag d;
    acre_policy *p = compile(mem, v, &d);

    CHECK(p, "policy %c refused: %s:%u:%u: %s (%s)", 'A' + v,
          d.file ? d.file : "?", d.line, d.column, d.message,
          acre_strerror(d.code));
    return p;
}

/* The variant p was compiled from; -1 when not known. */
static int
variant_of(const acre_policy *p)
{
    uint64_t g = acre_policy_generation(p);
    uint64_t x = __atomic_load_n(&gen_variant[g % NGEN], __ATOMIC_RELAXED);

    return g && x >> 8 == g ? (int)(x & 0xff) : -1;
}

/* Requester `id` (n numbers an ID_OTHER user) in *who, its DN in buf. */
static void
subject(int id, unsigned n, char *buf, size_t size, acre_subject *who)
{
    memset(who, 0, sizeof(*who));
    who->peername = "IP=127.0.0.1:40000";
    who->sockurl = "ldap:///";
    switch (id) {
    case ID_ALICE:
        who->authz_dn = ALICE;
        break;
    case ID_BOB:
        who->authz_dn = BOB;
        break;
    case ID_ANON:
        break;
    default:
        snprintf(buf, size, "uid=u%u,ou=people," SUFFIX, n);
        who->authz_dn = buf;
        break;
    }
}

static uint64_t
pack(int rc, uint32_t mask)
{
    return (uint64_t)(uint32_t)rc << 32 | mask;
}

/* FNV-1a of everything a verdict says about e. */
static uint64_t
digest(const acre_entry *e, const acre_verdict *vd)
{
    uint64_t h = 0xcbf29ce484222325u;
    size_t nvalues = 0;

#define MIX(x) (h = (h ^ (uint64_t)(x)) * 0x100000001b3u)
    MIX(vd->visible);
    MIX(vd->nattrs);
    for (unsigned i = 0; i < vd->nattrs; i++) {
        unsigned nv = 0;
        acre_entry_attr(e, i, NULL, &nv);
        MIX(vd->attr[i]);
        MIX(vd->first[i]);
        nvalues += nv;
    }
    for (size_t j = 0; j < nvalues; j++)
        MIX(vd->value[j]);
#undef MIX
    return h;
}

/* Every answer of the request, in out[NANS]. */
static void
answers(acre_request *rq, uint64_t *out)
{
    for (size_t i = 0; i < NCHECKS; i++) {
        const struct check *c = &checks[i];
        uint32_t mask = 0;
        int rc =
            acre_access(rq, acre_entry_view_of(entries[c->entry]), c->attr,
                        c->val, c->val ? strlen(c->val) : 0, c->right, &mask);
        out[i] = pack(rc, mask);
    }
    for (size_t j = 0; j < NENT; j++) {
        acre_verdict vd;
        int rc = acre_entry_decide(rq, acre_entry_view_of(entries[j]),
                                   ACRE_RIGHT_READ, &vd);
        out[NCHECKS + j] = rc ? pack(rc, 0) : digest(entries[j], &vd);
    }
}

/* The first answer that differs from want, or -1. */
static int
first_diff(const uint64_t *got, const uint64_t *want)
{
    for (size_t i = 0; i < NANS; i++)
        if (got[i] != want[i])
            return (int)i;
    return -1;
}

/* Variant v's answers for each requester, on this thread. */
static void
reference(acre_policy *p, int v)
{
    for (int id = 0; id < NIDS; id++) {
        char buf[128];
        acre_subject who;
        acre_request *rq = NULL;

        subject(id, 0, buf, sizeof(buf), &who);
        CHECK(acre_request_begin(p, &who, acre_directory_host(dir), &rq) == 0,
              "begin %d", id);
        answers(rq, ref[v][id]);
        acre_request_end(rq);
    }
}

static void
setup(void)
{
    acre_diag d = {0};
    acre_policy *p[NVAR];

    ctx = talloc_new(NULL);
    CHECK(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &schema, &d) == 0, "%s",
          d.message);
    CHECK(acre_directory_load(ctx, schema, "t.ldif", ldif, strlen(ldif), &dir,
                              &d) == 0,
          "ldif: line %u: %s", d.line, d.message);
    for (int i = 0; i < NENT; i++) {
        acre_dn *dn = NULL;
        CHECK(acre_dn_parse(ctx, schema, entry_dn[i], strlen(entry_dn[i]), 0,
                            &dn, NULL) == 0,
              "%s", entry_dn[i]);
        entries[i] = acre_directory_find(dir, dn);
        CHECK(entries[i], "no entry %s", entry_dn[i]);
    }
    for (int v = 0; v < NVAR; v++) {
        p[v] = compile_ok(NULL, v);
        reference(p[v], v);
        acre_policy_release(p[v]);
    }
}

static void
teardown(void)
{
    talloc_free(ctx); /* leaks elsewhere: LeakSanitizer in sanitizer builds */
}

#ifndef ACRE_THREAD_MAIN
TestSuite(policy_thread, .init = setup, .fini = teardown);
#endif

/* The variants are told apart by a known check, for every requester. */
THREAD_TEST(variants_differ)
{
    /* bob reading alice's mail: A grants it to users, B to nobody */
    CHECK(ref[VAR_A][ID_BOB][0] >> 32 == 1, "A: bob reads alice's mail");
    CHECK(ref[VAR_B][ID_BOB][0] >> 32 == 0, "B: bob does not");
    CHECK(ref[VAR_C][ID_BOB][0] >> 32 == 0, "C: bob is not staff");
    CHECK(ref[VAR_C][ID_ALICE][0] >> 32 == 1, "C: alice is staff");
    CHECK(ref[VAR_A][ID_ANON][0] >> 32 == 0, "A: anonymous does not");
    for (int id = 0; id < NIDS; id++)
        for (int v = 0; v < NVAR; v++)
            for (int w = 0; w < v; w++)
                CHECK(first_diff(ref[v][id], ref[w][id]) >= 0,
                      "requester %d: %c and %c answer alike", id, 'A' + w,
                      'A' + v);
}

/* ------------------------------------------------------------------------
 * Hot swap: one writer, NREADERS readers, for SWAP_NS and MIN_SWAPS
 */
#define NREADERS    6
#define SWAP_NS     1200000000u  /* how long the writer swaps at least */
#define MIN_SWAPS   90           /* and how often, on a slow machine */
#define MAX_NS      30000000000u /* but no longer than this */
#define FRESH_EVERY 3            /* every 3rd swap stores a new policy */
#define ROUNDS      3            /* passes over the checks per request */

struct mismatch {
    int variant, check;
    uint64_t got, want;
};

struct swap_run {
    acre_slot *slot;
    acre_policy *pre[NVAR]; /* compiled before the threads start */
    int stop;               /* relaxed atomic: orders nothing */
    /* the writer's results */
    unsigned long swaps, fresh, errors;
    acre_diag diag;
};

struct reader {
    pthread_t tid;
    struct swap_run *run;
    int id;     /* requester */
    unsigned n; /* its number when ID_OTHER */
    unsigned long requests, answers, wrong, errors, unknown, empty;
    unsigned policies; /* policy changes seen, counting the first */
    unsigned seen;     /* bit per variant */
    struct mismatch first;
};

static void
pause_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

static void *
writer_main(void *arg)
{
    struct swap_run *run = arg;
    uint64_t start = now_ns(), t = start;

    for (unsigned long n = 0;
         (t - start < SWAP_NS || n < MIN_SWAPS) && t - start < MAX_NS;
         n++, t = now_ns()) {
        int v = (int)(n % NVAR);
        if (n % FRESH_EVERY == FRESH_EVERY - 1) {
            /* the slot holds its only reference: the next swap frees it
             * unless a reader still holds it */
            acre_policy *p = compile(NULL, v, &run->diag);
            if (!p) {
                run->errors++;
                break;
            }
            acre_slot_store(run->slot, p);
            acre_policy_release(p);
            run->fresh++;
        } else {
            acre_slot_store(run->slot, run->pre[v]);
        }
        run->swaps++;
        pause_us(100);
    }
    __atomic_store_n(&run->stop, 1, __ATOMIC_RELAXED);
    return NULL;
}

/* One request under p (variant v) as r's requester: ROUNDS passes over
 * the checks, each compared with v's answers. */
static void
reader_request(struct reader *r, acre_policy *p, int v, int drop_early)
{
    char buf[128];
    acre_subject who;
    acre_request *rq = NULL;
    uint64_t got[NANS];

    subject(r->id, r->n, buf, sizeof(buf), &who);
    if (acre_request_begin(p, &who, acre_directory_host(dir), &rq) != 0) {
        r->errors++;
        acre_policy_release(p);
        return;
    }
    if (drop_early) /* the request's own reference keeps p */
        acre_policy_release(p);
    for (int k = 0; k < ROUNDS; k++) {
        answers(rq, got);
        r->answers += NANS;
        int i = first_diff(got, ref[v][r->id]);
        if (i >= 0 && r->wrong++ == 0)
            r->first = (struct mismatch){v, i, got[i], ref[v][r->id][i]};
    }
    acre_request_end(rq);
    if (!drop_early)
        acre_policy_release(p);
    r->requests++;
}

static void *
reader_main(void *arg)
{
    struct reader *r = arg;
    uint64_t last = 0;
    int v = -1;

    while (!__atomic_load_n(&r->run->stop, __ATOMIC_RELAXED)) {
        acre_policy *p = acre_slot_acquire(r->run->slot);
        if (!p) {
            r->empty++;
            continue;
        }
        uint64_t gen = acre_policy_generation(p);
        if (r->policies == 0 || gen != last) {
            v = variant_of(p);
            last = gen;
            r->policies++;
        }
        if (v < 0) {
            r->unknown++;
            acre_policy_release(p);
            continue;
        }
        r->seen |= 1u << v;
        reader_request(r, p, v, (int)(r->requests & 1));
    }
    return NULL;
}

static void
check_reader(const struct reader *r, int i)
{
    CHECK(r->errors == 0, "reader %d: %lu requests refused", i, r->errors);
    CHECK(r->unknown == 0, "reader %d: %lu policies of no variant", i,
          r->unknown);
    CHECK(r->empty == 0, "reader %d: the slot was empty", i);
    CHECK(r->wrong == 0,
          "reader %d (requester %d): %lu of %lu passes answered unlike "
          "their policy; first: policy %c, answer %d: %#llx, want %#llx",
          i, r->id, r->wrong, r->answers / NANS, 'A' + r->first.variant,
          r->first.check, (unsigned long long)r->first.got,
          (unsigned long long)r->first.want);
    CHECK(r->requests > 0, "reader %d made no request", i);
}

THREAD_TEST(hot_swap)
{
    struct swap_run run = {0};
    struct reader rd[NREADERS];
    pthread_t w;
    unsigned seen = 0, most = 0;
    unsigned long requests = 0;

    for (int v = 0; v < NVAR; v++)
        run.pre[v] = compile_ok(NULL, v);
    CHECK(acre_slot_new(&run.slot) == 0, "slot");
    acre_slot_store(run.slot, run.pre[VAR_A]);

    memset(rd, 0, sizeof(rd));
    for (int i = 0; i < NREADERS; i++) {
        rd[i].run = &run;
        rd[i].id = i % NIDS;
        rd[i].n = (unsigned)i;
        CHECK(pthread_create(&rd[i].tid, NULL, reader_main, &rd[i]) == 0,
              "reader %d", i);
    }
    CHECK(pthread_create(&w, NULL, writer_main, &run) == 0, "writer");
    pthread_join(w, NULL);
    for (int i = 0; i < NREADERS; i++)
        pthread_join(rd[i].tid, NULL);

    acre_slot_free(run.slot);
    for (int v = 0; v < NVAR; v++)
        acre_policy_release(run.pre[v]);

    CHECK(run.errors == 0, "writer: compile failed: %s", run.diag.message);
    for (int i = 0; i < NREADERS; i++) {
        check_reader(&rd[i], i);
        seen |= rd[i].seen;
        requests += rd[i].requests;
        if (rd[i].policies > most)
            most = rd[i].policies;
    }
    CHECK(run.swaps >= MIN_SWAPS, "only %lu swaps (%lu fresh policies)",
          run.swaps, run.fresh);
    CHECK(seen == (1u << NVAR) - 1, "readers saw variants %#x only", seen);
    CHECK(most >= 3, "no reader saw more than %u policies", most);
#ifdef ACRE_THREAD_MAIN
    printf("  %lu swaps (%lu fresh), %lu requests, up to %u policies seen "
           "by one reader\n",
           run.swaps, run.fresh, requests, most);
#endif
}

/* ------------------------------------------------------------------------
 * A policy the slot dropped lives on in the request that holds it
 */
struct holder {
    acre_slot *slot;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int begun, swapped; /* under lock */
    int rc, variant;
    unsigned long wrong;
};

static void
holder_signal(struct holder *h, int *flag)
{
    pthread_mutex_lock(&h->lock);
    *flag = 1;
    pthread_cond_broadcast(&h->cond);
    pthread_mutex_unlock(&h->lock);
}

static void
holder_wait(struct holder *h, int *flag)
{
    pthread_mutex_lock(&h->lock);
    while (!*flag)
        pthread_cond_wait(&h->cond, &h->lock);
    pthread_mutex_unlock(&h->lock);
}

static void *
holder_main(void *arg)
{
    struct holder *h = arg;
    acre_subject who;
    acre_request *rq = NULL;
    uint64_t got[NANS];
    char buf[128];

    subject(ID_ALICE, 0, buf, sizeof(buf), &who);
    acre_policy *p = acre_slot_acquire(h->slot);
    h->variant = p ? variant_of(p) : -1;
    h->rc = p ? acre_request_begin(p, &who, acre_directory_host(dir), &rq)
              : ACRE_ERR_INVAL;
    if (p)
        acre_policy_release(p); /* from now on only rq holds it */
    holder_signal(h, &h->begun);
    if (h->rc != 0)
        return NULL;
    holder_wait(h, &h->swapped);
    for (int k = 0; k < 50; k++) {
        answers(rq, got);
        if (h->variant < 0 || first_diff(got, ref[h->variant][ID_ALICE]) >= 0)
            h->wrong++;
    }
    acre_request_end(rq); /* frees the policy */
    return NULL;
}

THREAD_TEST(held_after_swap)
{
    struct holder h = {.lock = PTHREAD_MUTEX_INITIALIZER,
                       .cond = PTHREAD_COND_INITIALIZER};
    void *pctx = talloc_new(NULL);
    pthread_t t;

    CHECK(acre_slot_new(&h.slot) == 0, "slot");
    CHECK(acre_slot_acquire(h.slot) == NULL, "a new slot is empty");
    acre_policy *a = compile_ok(pctx, VAR_A);
    acre_slot_store(h.slot, a);
    acre_policy_release(a); /* the slot holds the only reference */

    CHECK(pthread_create(&t, NULL, holder_main, &h) == 0, "thread");
    holder_wait(&h, &h.begun);
    /* the slot drops A: the request is all that keeps it */
    acre_policy *b = compile_ok(NULL, VAR_B);
    acre_slot_store(h.slot, b);
    acre_policy_release(b);
    CHECK(talloc_total_blocks(pctx) > 1, "A freed under a running request");
    for (int i = 0; i < 3; i++) { /* churn the heap A's memory came from */
        acre_policy *c = compile_ok(NULL, VAR_C);
        acre_policy_release(c);
    }
    holder_signal(&h, &h.swapped);
    pthread_join(t, NULL);

    CHECK(h.rc == 0, "begin: %s", acre_strerror(h.rc));
    CHECK(h.variant == VAR_A, "the request got variant %d", h.variant);
    CHECK(h.wrong == 0, "%lu passes answered unlike A", h.wrong);
    CHECK(talloc_total_blocks(pctx) == 1,
          "A outlived acre_request_end (%zu blocks)",
          talloc_total_blocks(pctx));

    acre_policy *cur = acre_slot_acquire(h.slot);
    CHECK(cur && variant_of(cur) == VAR_B, "the slot holds B");
    acre_policy_release(cur);
    acre_slot_store(h.slot, NULL);
    CHECK(acre_slot_acquire(h.slot) == NULL, "an emptied slot is empty");
    acre_slot_free(h.slot);
    talloc_free(pctx);
}

/* ------------------------------------------------------------------------
 * The per-requester cache, filled by many threads at once
 */
#define NCACHE 6 /* threads */

/* Many fresh policies, each with an empty cache that all threads fill at
 * once; or a few, each asked by 285 users, more than the 256 a policy's
 * cache holds (ACREP_SPEC_CACHE), so that specs are dropped while
 * requests hold them. */
#define SAME_RUNS 9
#define SAME_REQS 20
#define MANY_RUNS 3
#define MANY_REQS 60

struct filler {
    pthread_t tid;
    acre_policy *p;
    int variant;
    int same;      /* 1: all threads as alice; 0: a new user each request */
    unsigned t;    /* thread number */
    unsigned reqs; /* requests to make */
    pthread_barrier_t *go;
    unsigned long errors, wrong;
};

static void *
filler_main(void *arg)
{
    struct filler *f = arg;
    uint64_t got[NANS];
    char buf[128];

    pthread_barrier_wait(f->go);
    for (unsigned k = 0; k < f->reqs; k++) {
        int id = f->same ? ID_ALICE : ID_OTHER;
        acre_subject who;
        acre_request *rq = NULL;

        /* other users: some shared by all threads, most new */
        subject(id, k % 4 == 0 ? k : f->t * 1000 + k, buf, sizeof(buf), &who);
        if (acre_request_begin(f->p, &who, acre_directory_host(dir), &rq) !=
            0) {
            f->errors++;
            continue;
        }
        answers(rq, got);
        if (first_diff(got, ref[f->variant][id]) >= 0)
            f->wrong++;
        acre_request_end(rq);
    }
    return NULL;
}

static void
fill_cache(int same, int runs, unsigned reqs)
{
    for (int run = 0; run < runs; run++) {
        struct filler f[NCACHE];
        pthread_barrier_t go;
        int v = run % NVAR;
        acre_policy *p = compile_ok(NULL, v);

        pthread_barrier_init(&go, NULL, NCACHE);
        memset(f, 0, sizeof(f));
        for (unsigned t = 0; t < NCACHE; t++) {
            f[t] = (struct filler){.p = p,
                                   .variant = v,
                                   .same = same,
                                   .t = t,
                                   .reqs = reqs,
                                   .go = &go};
            CHECK(pthread_create(&f[t].tid, NULL, filler_main, &f[t]) == 0,
                  "thread %u", t);
        }
        for (unsigned t = 0; t < NCACHE; t++)
            pthread_join(f[t].tid, NULL);
        pthread_barrier_destroy(&go);
        acre_policy_release(p);
        for (unsigned t = 0; t < NCACHE; t++) {
            CHECK(f[t].errors == 0, "policy %c, thread %u: %lu refused",
                  'A' + v, t, f[t].errors);
            CHECK(f[t].wrong == 0,
                  "policy %c, thread %u: %lu of %u requests answered "
                  "unlike it",
                  'A' + v, t, f[t].wrong, reqs);
        }
    }
}

THREAD_TEST(same_requester)
{
    fill_cache(1, SAME_RUNS, SAME_REQS);
}

THREAD_TEST(many_requesters)
{
    fill_cache(0, MANY_RUNS, MANY_REQS);
}

/* ------------------------------------------------------------------------
 * Without Criterion (make tsan): run the tests above in this process
 */
#ifdef ACRE_THREAD_MAIN
static void
fail(const char *file, int line, const char *fmt, ...)
{
    va_list ap;

    fprintf(stderr, "%s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static const struct {
    const char *name;
    void (*fn)(void);
} tests[] = {
    {"variants_differ", variants_differ}, {"hot_swap", hot_swap},
    {"held_after_swap", held_after_swap}, {"same_requester", same_requester},
    {"many_requesters", many_requesters},
};

/* Usage: policy-thread-test [NAME...]: the tests named, else all. */
int
main(int argc, char **argv)
{
    int ran = 0;

    for (size_t i = 0; i < NELEM(tests); i++) {
        int want = argc < 2;
        for (int a = 1; a < argc; a++)
            want |= !strcmp(argv[a], tests[i].name);
        if (!want)
            continue;
        uint64_t t0 = now_ns();
        printf("policy_thread/%s\n", tests[i].name);
        fflush(stdout);
        setup();
        tests[i].fn();
        teardown();
        printf("policy_thread/%s: ok (%.2f s)\n", tests[i].name,
               (double)(now_ns() - t0) / 1e9);
        ran++;
    }
    if (ran == 0) {
        fprintf(stderr, "no such test\n");
        return 2;
    }
    printf("policy_thread: %d tests passed\n", ran);
    return 0;
}
#endif
