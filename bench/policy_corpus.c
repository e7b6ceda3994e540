/*
 * policy_corpus.c -- the seeded generator of the policy benchmarks'
 * directory and rule sets (see policy_corpus.h).
 *
 * Text is built in a doubling buffer (appending to a talloc string would
 * copy the whole text on every line: quadratic at 100,000 rules).
 *
 * Invariants: every entry's parent comes before it; every attribute is in
 * the built-in schema; every rule is one line that slapd 2.5 accepts; the
 * rule count is exactly what was asked for.
 */
#include "policy_corpus.h"

#include "harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <talloc.h>

#define SEED_DIT   0x6163726564697431u /* "acredit1" */
#define SEED_RULES 0x6163726572756c31u /* "acrerul1" */
#define N_OF(a)    (sizeof(a) / sizeof *(a))

#define ORG    "ou=org," POLICY_SUFFIX
#define PEOPLE "ou=people," POLICY_SUFFIX
#define GROUPS "ou=groups," POLICY_SUFFIX

static const char *const firsts[] = {
    "John",  "Mary",  "Robert", "Patricia", "Michael", "Jennifer", "David",
    "Linda", "Ahmed", "Priya",  "Wei",      "Carlos",  "Fatima",   "Olga",
};
static const char *const lasts[] = {
    "Smith",  "Johnson", "Williams", "Brown",  "Jones",  "Garcia",
    "Miller", "Davis",   "Patel",    "Nguyen", "Taylor", "Anderson",
};
static const char *const types[] = {"staff", "contractor", "intern"};
static const char *const titles[] = {"Engineer", "Manager", "Analyst",
                                     "Director", "Technician"};

/* ---- a growing text buffer ------------------------------------------------
 */

struct sbuf {
    void *ctx;
    char *p;
    size_t len, cap;
    int failed;
};

static void put(struct sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
put(struct sbuf *b, const char *fmt, ...)
{
    va_list ap;
    int n;

    for (;;) {
        if (b->failed)
            return;
        va_start(ap, fmt);
        n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = 1;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        b->cap = 2 * b->cap + (size_t)n;
        b->p = talloc_realloc(b->ctx, b->p, char, b->cap);
        b->failed = b->p == NULL;
    }
}

static int
sbuf_init(struct sbuf *b, void *ctx, size_t cap)
{
    b->ctx = ctx;
    b->len = 0;
    b->cap = cap;
    b->failed = 0;
    b->p = talloc_array(ctx, char, cap);
    if (b->p)
        b->p[0] = '\0';
    return b->p ? 0 : -1;
}

static char *
sbuf_finish(struct sbuf *b, size_t *len)
{
    if (b->failed) {
        talloc_free(b->p);
        return NULL;
    }
    *len = b->len;
    return b->p;
}

/* ---- the directory ----------------------------------------------------------
 */

/* The attributes every user has: 10 attributes, 15 values. */
static void
put_person(struct sbuf *b, bench_rng *rng, const char *uid, unsigned n)
{
    const char *first = firsts[bench_rng_below(rng, N_OF(firsts))];
    const char *last = lasts[bench_rng_below(rng, N_OF(lasts))];

    put(b,
        "objectClass: top\nobjectClass: person\n"
        "objectClass: organizationalPerson\nobjectClass: inetOrgPerson\n"
        "uid: %s\ncn: %s %s\nsn: %s\ngivenName: %s\n"
        "mail: %s.%s%u@example.com\nmail: %s@mail.example.com\n"
        "telephoneNumber: +1 555 %04u\ntelephoneNumber: +1 212 %04u\n"
        "employeeType: %s\ntitle: %s\n"
        "userPassword: {SSHA}%08x%08x\n",
        uid, first, last, last, first, first, last, n, uid, n % 10000,
        (n * 7) % 10000, types[bench_rng_below(rng, N_OF(types))],
        titles[bench_rng_below(rng, N_OF(titles))],
        (unsigned)bench_rng_next(rng), (unsigned)bench_rng_next(rng));
}

static void
put_ou(struct sbuf *b, const char *ou, const char *parent)
{
    put(b,
        "dn: ou=%s,%s\nobjectClass: top\nobjectClass: organizationalUnit\n"
        "ou: %s\n\n",
        ou, parent, ou);
}

/* A department user: a person plus departmentNumber and manager (the
 * requester in every third department). */
static void
put_dept_user(struct sbuf *b, bench_rng *rng, const char *rdn_prefix,
              const char *parent, unsigned d, unsigned k, unsigned n)
{
    char uid[32];

    snprintf(uid, sizeof uid, "%s%ux%u", rdn_prefix, d, k);
    put(b, "dn: uid=%s,%s\n", uid, parent);
    put_person(b, rng, uid, n);
    put(b, "departmentNumber: %u\nmanager: %s\n\n", d,
        d % 3 == 0 ? POLICY_REQUESTER : "uid=user00007," PEOPLE);
}

static void
put_dept(struct sbuf *b, bench_rng *rng, const policy_shape *s, unsigned d,
         unsigned *n)
{
    char dept[96], team[128], ou[16];

    snprintf(ou, sizeof ou, "dept%u", d);
    snprintf(dept, sizeof dept, "ou=dept%u," ORG, d);
    snprintf(team, sizeof team, "ou=team0,%s", dept);
    put_ou(b, ou, ORG);
    for (unsigned k = 0; k < s->dept_users; k++)
        put_dept_user(b, rng, "u", dept, d, k, (*n)++);
    put_ou(b, "team0", dept);
    for (unsigned k = 0; k < s->team_users; k++)
        put_dept_user(b, rng, "t", team, d, k, (*n)++);
}

/* cn=hr (without the requester), and cn=grpD for each department (the
 * requester is a member of every other one). */
static void
put_groups(struct sbuf *b, const policy_shape *s)
{
    put(b, "dn: cn=hr," GROUPS "\nobjectClass: groupOfNames\ncn: hr\n"
           "member: uid=user00007," PEOPLE "\nmember: uid=user00008," PEOPLE
           "\n\n");
    for (unsigned d = 0; d < s->depts; d++) {
        put(b,
            "dn: cn=grp%u," GROUPS "\nobjectClass: groupOfNames\ncn: grp%u\n"
            "member: uid=u%ux0,ou=dept%u," ORG "\n",
            d, d, d, d);
        if (d % 2 == 0)
            put(b, "member: " POLICY_REQUESTER "\n");
        put(b, "\n");
    }
}

char *
policy_corpus_ldif(void *ctx, const policy_shape *s, size_t *len)
{
    bench_rng rng = {SEED_DIT};
    struct sbuf b;
    unsigned n = 0;
    char uid[32];

    if (sbuf_init(&b, ctx, 1u << 16) != 0)
        return NULL;
    put(&b, "dn: " POLICY_SUFFIX "\nobjectClass: top\nobjectClass: dcObject\n"
            "objectClass: organization\ndc: example\no: Example\n\n");
    put_ou(&b, "people", POLICY_SUFFIX);
    put_ou(&b, "org", POLICY_SUFFIX);
    put_ou(&b, "groups", POLICY_SUFFIX);
    for (unsigned i = 0; i < s->people; i++) {
        snprintf(uid, sizeof uid, "user%05u", i);
        put(&b, "dn: uid=%s," PEOPLE "\n", uid);
        put_person(&b, &rng, uid, n++);
        put(&b, "\n");
    }
    for (unsigned d = 0; d < s->depts; d++)
        put_dept(&b, &rng, s, d, &n);
    put_groups(&b, s);
    return sbuf_finish(&b, len);
}

/* ---- the rules
 * ----------------------------------------------------------------
 */

/* The administrator of department d: the requester for every fifth. */
static const char *
admin_of(char *buf, size_t cap, unsigned d)
{
    if (d % 5 == 0)
        return POLICY_REQUESTER;
    snprintf(buf, cap, "uid=admin%u," PEOPLE, d);
    return buf;
}

/* One department rule on department d, of kind k (0..9). */
static void
put_dept_rule(struct sbuf *b, unsigned k, unsigned d)
{
    char adm[96];
    const char *admin = admin_of(adm, sizeof adm, d);

    switch (k) {
    case 0:
    case 1:
    case 2:
        put(b,
            "access to dn.subtree=\"ou=dept%u," ORG "\" "
            "attrs=telephoneNumber,mail,title by dn.exact=\"%s\" write "
            "by users read by * none\n",
            d, admin);
        break;
    case 3:
        put(b,
            "access to dn.base=\"ou=dept%u," ORG "\" by dn.exact=\"%s\" write "
            "by users read by * none\n",
            d, admin);
        break;
    case 4:
        put(b,
            "access to dn.one=\"ou=dept%u," ORG "\" "
            "attrs=employeeType,departmentNumber "
            "by group.exact=\"cn=grp%u," GROUPS "\" write by self read "
            "by * none\n",
            d, d);
        break;
    case 5:
        put(b,
            "access to dn.children=\"ou=team0,ou=dept%u," ORG "\" "
            "by dn.subtree=\"ou=dept%u," ORG "\" write by users search "
            "by * none\n",
            d, d);
        break;
    case 6:
        put(b,
            "access to dn.subtree=\"ou=dept%u," ORG "\" "
            "filter=(employeeType=contractor) attrs=mail,telephoneNumber "
            "by users search by * none\n",
            d);
        break;
    case 7:
        put(b,
            "access to dn.subtree=\"ou=dept%u," ORG "\" "
            "attrs=description,seeAlso,title by self write by users read "
            "by * none\n",
            d);
        break;
    case 8:
        put(b,
            "access to dn.subtree=\"ou=dept%u," ORG "\" attrs=title,manager "
            "by dnattr=manager write by self read by users search "
            "by * none\n",
            d);
        break;
    default:
        put(b,
            "access to dn.one=\"ou=dept%u," ORG
            "\" filter=(objectClass=person) "
            "attrs=cn,sn,givenName by users read by anonymous auth "
            "by * none\n",
            d);
        break;
    }
}

char *
policy_corpus_rules(void *ctx, size_t nrules, size_t *len)
{
    bench_rng rng = {SEED_RULES};
    size_t ndept = nrules - POLICY_FIXED_RULES;
    unsigned span = ndept / 4 > 1 ? (unsigned)(ndept / 4) : 1;
    struct sbuf b;

    if (nrules <= POLICY_FIXED_RULES || sbuf_init(&b, ctx, 256 * nrules) != 0)
        return NULL;
    put(&b, "access to dn.base=\"\" by * read\n"
            "access to dn.base=\"cn=Subschema\" by * read\n\n"
            "database mdb\nsuffix \"" POLICY_SUFFIX "\"\n"
            "rootdn \"cn=manager," POLICY_SUFFIX "\"\n"
            "access to attrs=userPassword by self write by anonymous auth "
            "by * none\n"
            "access to dn.one=\"" PEOPLE "\" attrs=employeeType,title "
            "by self read by group.exact=\"cn=hr," GROUPS "\" write "
            "by users search by * none\n");
    for (size_t i = 0; i < ndept; i++)
        put_dept_rule(&b, bench_rng_below(&rng, 10),
                      bench_rng_below(&rng, span));
    put(&b, "access to * by users read by * none\n");
    return sbuf_finish(&b, len);
}
