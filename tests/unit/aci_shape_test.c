/*
 * aci_shape_test.c -- the memos of ACI entry verdicts (eval_aci.c: the
 * walk memo and the shape memo, which answer from a request's second
 * entry): each verdict of a request that decides many entries, twice
 * over, is the verdict of the same entry decided first in a request of
 * its own (where no memo answers), for requesters that meet targets,
 * targetfilters, per-entry bind rules (userattr, self) and 389's
 * anonymous profile; and with each allocation refused in turn, a
 * verdict is an error or that same verdict, and nothing is left
 * allocated.  The policy has no rule whose answer 389 keeps from the
 * first entry that asks (ldap:///parent), so that a verdict does not
 * depend on the entries decided before it.  Then a policy that has
 * such rules in ACIs with deny rules, whose answers change as 389's
 * per-ACI cache changes (eval_aci.c: acache): each verdict is the one
 * 389's cache gives, after the memos have seen other entries.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acre.h"

#include "alloc_hook.h"

#define SUFFIX "dc=example,dc=com"
#define PEOPLE "ou=people," SUFFIX
#define ANN    "uid=ann,ou=a," PEOPLE
#define BOB    "uid=bob,ou=b," PEOPLE

static const char data[] =
    "dn: " SUFFIX "\n"
    "objectClass: top\nobjectClass: domain\ndc: example\n"
    "aci: (targetattr=\"cn || sn || objectClass || uid\")(version 3.0; acl "
    "\"basics\"; allow (read,search) userdn=\"ldap:///anyone\";)\n"
    "aci: (targetfilter=\"(employeeType=contractor)\")(version 3.0; acl "
    "\"contractors\"; deny (read,search) userdn=\"ldap:///anyone\" and not "
    "userdn=\"ldap:///all\";)\n"
    "aci: (targetattr=\"userPassword\")(version 3.0; acl \"passwords\"; "
    "deny (read) userdn=\"ldap:///anyone\" and not userdn=\"ldap:///self\";)\n"
    "\n"
    "dn: " PEOPLE "\n"
    "objectClass: top\nobjectClass: organizationalUnit\nou: people\n"
    "aci: (targetattr=\"telephoneNumber || mail\")(version 3.0; acl "
    "\"manager\"; allow (read) userattr=\"manager#USERDN\";)\n"
    "aci: (targetattr=\"*\")(version 3.0; acl \"self\"; allow (read) "
    "userdn=\"ldap:///self\";)\n"
    "aci: (targetattr=\"description\")(targetfilter=\"(title=director)\")"
    "(version 3.0; acl \"directors\"; allow (read) userdn=\"ldap:///all\";)\n"
    "aci: (target=\"ldap:///uid=b*," PEOPLE "\")(targetattr=\"mail\")"
    "(version 3.0; acl \"b mail\"; deny (read) userdn=\"ldap:///" ANN "\";)\n"
    "\n"
    "dn: ou=a," PEOPLE "\n"
    "objectClass: top\nobjectClass: organizationalUnit\nou: a\n"
    "aci: (targetattr!=\"userPassword\")(targetfilter=\"(l=Paris)\")"
    "(version 3.0; acl \"paris\"; allow (read) userdn=\"ldap:///" BOB "\";)\n"
    "\n"
    "dn: ou=b," PEOPLE "\n"
    "objectClass: top\nobjectClass: organizationalUnit\nou: b\n"
    "\n"
    "dn: " ANN "\n"
    "objectClass: top\nobjectClass: person\nobjectClass: inetOrgPerson\n"
    "uid: ann\ncn: Ann\nsn: Smith\ntitle: director\nl: Paris\n"
    "description: ann's notes\nmail: ann@example.com\nuserPassword: pw\n"
    "\n"
    "dn: uid=carl,ou=a," PEOPLE "\n"
    "objectClass: top\nobjectClass: person\nobjectClass: inetOrgPerson\n"
    "uid: carl\ncn: Carl\nsn: Brown\nl: Lyon\nmanager: " ANN "\n"
    "telephoneNumber: 1\nemployeeType: contractor\ndescription: c\n"
    "\n"
    "dn: uid=dora,ou=a," PEOPLE "\n"
    "objectClass: top\nobjectClass: person\nobjectClass: inetOrgPerson\n"
    "uid: dora\ncn: Dora\nsn: White\nl: Paris\nmanager: " ANN "\n"
    "mail: dora@example.com\ntitle: director\ndescription: d\n"
    "aci: (targetattr=\"l\")(version 3.0; acl \"own\"; allow (read) "
    "userdn=\"ldap:///" BOB "\";)\n"
    "\n"
    "dn: uid=eve,ou=a," PEOPLE "\n"
    "objectClass: top\nobjectClass: person\nobjectClass: inetOrgPerson\n"
    "uid: eve\ncn: Eve\nsn: Black\nl: Paris\nmanager: " BOB "\n"
    "telephoneNumber: 2\nmail: eve@example.com\n"
    "\n"
    "dn: " BOB "\n"
    "objectClass: top\nobjectClass: person\nobjectClass: inetOrgPerson\n"
    "uid: bob\ncn: Bob\nsn: Jones\nmanager: " ANN "\nmail: bob@example.com\n"
    "telephoneNumber: 3\nuserPassword: pw\n"
    "\n"
    "dn: uid=bert,ou=b," PEOPLE "\n"
    "objectClass: top\nobjectClass: person\nobjectClass: inetOrgPerson\n"
    "uid: bert\ncn: Bert\nsn: Green\nmanager: " ANN "\ntitle: director\n"
    "mail: bert@example.com\ndescription: b\nemployeeType: contractor\n";

static const char *const dns[] = {SUFFIX,
                                  PEOPLE,
                                  "ou=a," PEOPLE,
                                  ANN,
                                  "uid=carl,ou=a," PEOPLE,
                                  "uid=dora,ou=a," PEOPLE,
                                  "uid=eve,ou=a," PEOPLE,
                                  "ou=b," PEOPLE,
                                  BOB,
                                  "uid=bert,ou=b," PEOPLE};
#define NDNS   (sizeof dns / sizeof *dns)
#define PASSES 2

static const char *const who[] = {NULL, ANN, BOB};

struct fx {
    acre_policy *p;
    acre_directory *dir;
    const acre_entry_view *v[NDNS];
};

/* the policy and directory of text, with the views of names[0..n) */
static void
load(struct fx *f, const char *text, size_t len, const char *const *names,
     unsigned n)
{
    acre_source src = {ACRE_DIALECT_ACI, "t.ldif", text, len};
    acre_diag d;

    memset(f, 0, sizeof *f);
    cr_assert_eq(acre_policy_compile(NULL, NULL, &src, 1, 0, &f->p, &d), 0,
                 "%s", d.message);
    cr_assert_eq(acre_directory_load(NULL, acre_policy_schema(f->p), "t.ldif",
                                     text, len, &f->dir, NULL),
                 0);
    for (unsigned i = 0; i < n; i++) {
        acre_dn *x = NULL;
        cr_assert_eq(acre_dn_parse(NULL, acre_policy_schema(f->p), names[i],
                                   strlen(names[i]), 0, &x, NULL),
                     0);
        const acre_entry *e = acre_directory_find(f->dir, x);
        acre_dn_free(x);
        cr_assert_not_null(e, "%s", names[i]);
        f->v[i] = acre_entry_view_of(e);
    }
}

static void
setup(struct fx *f)
{
    load(f, data, sizeof data - 1, dns, NDNS);
}

static void
teardown(struct fx *f)
{
    acre_directory_free(f->dir);
    acre_policy_release(f->p);
}

/* a verdict as bits: bit 0 visible, bit i+1 attribute i readable (every
 * value) */
static unsigned long
bits(const acre_verdict *v)
{
    unsigned long b = (unsigned long)(v->visible != 0);

    for (unsigned i = 0; i < v->nattrs && i < 60; i++)
        if (v->attr[i] == ACRE_ATTR_ALL)
            b |= 1ul << (i + 1);
    return b;
}

/* entries[0..n) decided in one request of `as`, PASSES times over:
 * out[pass * NDNS + k] their verdicts; 0 or the first error (the
 * verdicts after it are not made) */
static int
run(struct fx *f, const char *as, const unsigned *entries, unsigned n,
    unsigned long *out)
{
    acre_subject s;
    acre_request *rq = NULL;
    int rc = 0;

    memset(&s, 0, sizeof s);
    s.authz_dn = as;
    s.auth_method = as ? "simple" : "none";
    if ((rc = acre_request_begin(f->p, &s, acre_directory_host(f->dir), &rq)))
        return rc;
    for (unsigned pass = 0; !rc && pass < PASSES; pass++)
        for (unsigned k = 0; !rc && k < n; k++) {
            acre_verdict v;
            rc = acre_entry_decide(rq, f->v[entries[k]], ACRE_RIGHT_READ, &v);
            if (!rc)
                out[pass * NDNS + k] = bits(&v);
        }
    acre_request_end(rq);
    return rc;
}

Test(aci_shape, memo_verdicts_are_fresh_verdicts)
{
    struct fx f;
    unsigned order[NDNS], one;
    unsigned long got[PASSES * NDNS], alone[PASSES * NDNS];

    setup(&f);
    for (unsigned w = 0; w < sizeof who / sizeof *who; w++)
        for (unsigned rot = 0; rot < NDNS; rot++) {
            /* every order's first entry differs: each entry is decided
             * after every other at least once */
            for (unsigned k = 0; k < NDNS; k++)
                order[k] = (k + rot) % NDNS;
            cr_assert_eq(run(&f, who[w], order, NDNS, got), 0);
            for (unsigned k = 0; k < NDNS; k++) {
                one = order[k];
                cr_assert_eq(run(&f, who[w], &one, 1, alone), 0);
                for (unsigned pass = 0; pass < PASSES; pass++)
                    cr_expect_eq(got[pass * NDNS + k], alone[0],
                                 "%s on %s (pass %u, order %u): %#lx, "
                                 "alone %#lx",
                                 who[w] ? who[w] : "anonymous", dns[one], pass,
                                 rot, got[pass * NDNS + k], alone[0]);
            }
        }
    teardown(&f);
}

#if ALLOC_HOOK

Test(aci_shape, out_of_memory)
{
    struct fx f;
    unsigned order[NDNS];
    unsigned long want[PASSES * NDNS], got[PASSES * NDNS];

    setup(&f);
    for (unsigned k = 0; k < NDNS; k++)
        order[k] = k;
    for (unsigned w = 0; w < sizeof who / sizeof *who; w++) {
        unsigned long n, failures = 0;
        cr_assert_eq(run(&f, who[w], order, NDNS, want), 0);
        for (n = 1;; n++) {
            int stop = 0;
            for (int once = 0; once < 2; once++) {
                long live = alloc_live();
                memset(got, 0xff, sizeof got);
                once ? alloc_fail_once(n) : alloc_fail_after(n);
                int rc = run(&f, who[w], order, NDNS, got);
                unsigned long failed = alloc_failed();
                alloc_fail_after(0);
                if (!once && !failed)
                    stop = 1;
                cr_expect(rc == 0 || rc == ACRE_ERR_NOMEM ||
                              rc == ACRE_ERR_LOOKUP,
                          "allocation %lu: %s", n, acre_strerror(rc));
                /* the verdicts made are the fault-free ones */
                for (unsigned i = 0; i < PASSES * NDNS; i++)
                    if (got[i] != ~0ul)
                        cr_expect_eq(got[i], want[i],
                                     "allocation %lu (%s), verdict %u: "
                                     "%#lx, want %#lx",
                                     n, once ? "alone" : "and later", i, got[i],
                                     want[i]);
                cr_expect_eq(alloc_live(), live,
                             "allocation %lu: %ld blocks left", n,
                             alloc_live() - live);
                if (stop)
                    break;
            }
            if (stop)
                break;
            failures++;
        }
        cr_expect_gt(failures, 0);
    }
    teardown(&f);
}

#endif

/* 389's per-ACI cache: a requester (boss) with entries below it; on
 * description an ACI allows anyone and denies the parent, on mail it
 * allows the parent (its deny rule is for write) */
#define BOSS "uid=boss," PEOPLE
#define PERSON(dn, name)                                                 \
    "dn: " dn "\nobjectClass: top\nobjectClass: person\n"                \
    "objectClass: inetOrgPerson\nuid: " name "\ncn: " name "\nsn: " name \
    "\nmail: " name "@example.com\ndescription: " name "\n\n"

static const char kept[] =
    "dn: " SUFFIX "\n"
    "objectClass: top\nobjectClass: domain\ndc: example\n"
    "aci: (targetattr=\"objectClass || uid || cn\")(version 3.0; acl "
    "\"basics\"; allow (read,search) userdn=\"ldap:///anyone\";)\n"
    "\n"
    "dn: " PEOPLE "\n"
    "objectClass: top\nobjectClass: organizationalUnit\nou: people\n"
    "aci: (targetattr=\"description\")(version 3.0; acl \"parent-deny\"; "
    "allow (read) userdn=\"ldap:///anyone\"; deny (read) "
    "userdn=\"ldap:///parent\";)\n"
    "aci: (targetattr=\"mail\")(version 3.0; acl \"parent-allow\"; allow "
    "(read) userdn=\"ldap:///parent\"; deny (write) "
    "userdn=\"ldap:///anyone\";)\n"
    "\n" PERSON(BOSS, "boss") PERSON("uid=a1," PEOPLE, "a1")
        PERSON("uid=a2," PEOPLE, "a2") PERSON("uid=b1," BOSS, "b1")
            PERSON("uid=b2," BOSS, "b2");

static const char *const kept_dns[] = {"uid=a1," PEOPLE, "uid=a2," PEOPLE,
                                       "uid=b1," BOSS, "uid=b2," BOSS};

/* (mail, description) readable on each entry of `order`, decided in one
 * request of boss, as 389's cache makes them */
static void
kept_run(struct fx *f, const char *order, const char *want)
{
    acre_subject s;
    acre_request *rq = NULL;

    const acre_schema *sc = acre_policy_schema(f->p);
    int mail = acre_schema_attr_id(sc, "mail", 4);
    int desc = acre_schema_attr_id(sc, "description", 11);

    memset(&s, 0, sizeof s);
    s.authz_dn = BOSS;
    s.auth_method = "simple";
    cr_assert_eq(acre_request_begin(f->p, &s, acre_directory_host(f->dir), &rq),
                 0);
    for (unsigned k = 0; order[k]; k++) {
        unsigned i = (unsigned)(order[k] - '0');
        const acre_entry_view *e = f->v[i];
        acre_verdict v;
        char got[3] = "--";
        cr_assert_eq(acre_entry_decide(rq, e, ACRE_RIGHT_READ, &v), 0);
        cr_assert(v.visible);
        for (unsigned j = 0; j < v.nattrs; j++) {
            if (v.attr[j] == ACRE_ATTR_ALL && e->attrs[j].id == mail)
                got[0] = 'm';
            if (v.attr[j] == ACRE_ATTR_ALL && e->attrs[j].id == desc)
                got[1] = 'd';
        }
        cr_expect(!strncmp(got, want + 3 * k, 2),
                  "order %s, entry %u (%s): %s, want %.2s", order, k,
                  kept_dns[i], got, want + 3 * k);
    }
    acre_request_end(rq);
}

Test(aci_shape, verdicts_follow_389s_aci_cache)
{
    struct fx f;

    load(&f, kept, sizeof kept - 1, kept_dns, 4);
    /* description: ALLOW kept at a1 and a2 (the deny phase walks it again
     * at each), then DENY at b1, kept: every later entry denied, those
     * the memos saw allowed too; mail: SKIP at a1, kept for all */
    kept_run(&f, "0101230123", "-d -d -d -d -- -- -- -- -- --");
    /* mail: ALLOW at b1, SKIP at a1: afresh from then on (b2 and b1 by
     * their parent again); description: DENY at b1 */
    kept_run(&f, "2322012302", "m- m- m- m- -- -- m- m- -- m-");
    teardown(&f);
}
