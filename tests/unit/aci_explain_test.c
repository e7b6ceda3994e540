/*
 * aci_explain_test.c -- explaining ACI checks (acre_explain,
 * acre_explain_steps) and 389's get-effective-rights
 * (acre_effective_rights), and the two evaluator rules their comparison
 * with 389-DS 2.3.1 brought out: an ACI with targetattr takes the
 * entry-level add, delete and moddn checks, and selfwrite grants no plain
 * write.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acre.h"

#include "alloc_hook.h"

#define SUFFIX "dc=example,dc=com"
#define ANN    "uid=ann,ou=people," SUFFIX
#define BOB    "uid=bob,ou=people," SUFFIX

static const char data[] =
    "dn: " SUFFIX "\n"
    "objectClass: top\n"
    "objectClass: domain\n"
    "dc: example\n"
    "aci: (targetattr=\"cn || sn || objectClass\")(version 3.0; acl \"read "
    "basics\"; allow (read,search,compare) userdn=\"ldap:///all\";)\n"
    "aci: (targetattr=\"userPassword\")(version 3.0; acl \"no passwords\"; "
    "deny (read) userdn=\"ldap:///anyone\" and not "
    "userdn=\"ldap:///self\";)\n"
    "aci: (targetattr=\"description\")(version 3.0; acl \"desc\"; allow "
    "(all) userdn=\"ldap:///" ANN "\";)\n"
    "\n"
    "dn: ou=people," SUFFIX "\n"
    "objectClass: top\n"
    "objectClass: organizationalUnit\n"
    "ou: people\n"
    "\n"
    "dn: cn=club," SUFFIX "\n"
    "objectClass: top\n"
    "objectClass: groupOfNames\n"
    "cn: club\n"
    "member: " ANN "\n"
    "aci: (targetattr=\"member\")(version 3.0; acl \"join\"; allow "
    "(selfwrite) userdn=\"ldap:///all\";)\n"
    "\n"
    "dn: " ANN "\n"
    "objectClass: top\n"
    "objectClass: person\n"
    "cn: Ann\n"
    "sn: Smith\n"
    "userPassword: pw-ann\n"
    "\n"
    "dn: " BOB "\n"
    "objectClass: top\n"
    "objectClass: person\n"
    "cn: Bob\n"
    "sn: Jones\n"
    "userPassword: pw-bob\n";

struct fx {
    acre_policy *p;
    acre_directory *dir;
    acre_request *rq;
};

static void
setup_with(struct fx *f, const char *who, const char *text)
{
    acre_source src = {ACRE_DIALECT_ACI, "t.ldif", text, strlen(text)};
    acre_diag d;
    acre_subject s;

    memset(f, 0, sizeof *f);
    cr_assert_eq(acre_policy_compile(NULL, NULL, &src, 1, 0, &f->p, &d), 0,
                 "%s", d.message);
    cr_assert_eq(acre_directory_load(NULL, acre_policy_schema(f->p), "t.ldif",
                                     text, strlen(text), &f->dir, NULL),
                 0);
    memset(&s, 0, sizeof s);
    s.authz_dn = who;
    cr_assert_eq(
        acre_request_begin(f->p, &s, acre_directory_host(f->dir), &f->rq), 0);
}

static void
setup_as(struct fx *f, const char *who)
{
    setup_with(f, who, data);
}

static void
teardown(struct fx *f)
{
    acre_request_end(f->rq);
    acre_directory_free(f->dir);
    acre_policy_release(f->p);
}

static const acre_entry_view *
view(struct fx *f, const char *dn)
{
    acre_dn *x = NULL;

    cr_assert_eq(acre_dn_parse(NULL, acre_policy_schema(f->p), dn, strlen(dn),
                               0, &x, NULL),
                 0);
    const acre_entry *e = acre_directory_find(f->dir, x);
    acre_dn_free(x);
    cr_assert_not_null(e, "%s", dn);
    return acre_entry_view_of(e);
}

/* ------------------------------------------------------------------------
 * Steps
 */

#define MAXSTEPS 32

struct seen {
    unsigned n;
    int kind[MAXSTEPS], outcome[MAXSTEPS], deny[MAXSTEPS], value[MAXSTEPS];
    char name[MAXSTEPS][32], bind[MAXSTEPS][96], holder[MAXSTEPS][64];
};

static void
record(void *arg, const acre_explain_step *s)
{
    struct seen *w = arg;

    cr_assert_lt(w->n, MAXSTEPS);
    w->kind[w->n] = s->kind;
    w->outcome[w->n] = s->outcome;
    w->deny[w->n] = s->aci_deny;
    w->value[w->n] = s->aci_value;
    snprintf(w->name[w->n], sizeof w->name[0], "%s",
             s->aci_name ? s->aci_name : "");
    snprintf(w->holder[w->n], sizeof w->holder[0], "%s",
             s->aci_holder ? s->aci_holder : "");
    snprintf(w->bind[w->n], sizeof w->bind[0], "%s", s->bind ? s->bind : "");
    w->n++;
}

/* find -- the index of the step of kind k naming ACI `name`, or -1 */
static int
find(const struct seen *w, int k, const char *name)
{
    for (unsigned i = 0; i < w->n; i++)
        if (w->kind[i] == k && !strcmp(w->name[i], name))
            return (int)i;
    return -1;
}

Test(aci_explain, deny_names_aci_and_bind_terms)
{
    struct fx f;
    struct seen w = {0};

    setup_as(&f, ANN);
    int g = acre_explain_steps(f.rq, view(&f, BOB), "userPassword", NULL, 0,
                               ACRE_RIGHT_READ, record, &w, NULL);
    cr_assert_eq(g, 0);
    int i = find(&w, ACRE_EXPLAIN_ACI, "no passwords");
    cr_assert_geq(i, 0);
    cr_expect_eq(w.outcome[i], ACRE_OUTCOME_TRUE);
    cr_expect_eq(w.deny[i], 1);
    cr_expect_eq(w.value[i], 1);
    cr_expect_str_eq(w.holder[i], SUFFIX);
    /* its terms follow it: anyone True, self False, not self True */
    cr_assert_eq(w.kind[i + 1], ACRE_EXPLAIN_ACI_BIND);
    cr_expect_str_eq(w.bind[i + 1], "userdn = \"ldap:///anyone\"");
    cr_expect_eq(w.outcome[i + 1], ACRE_OUTCOME_TRUE);
    cr_expect_str_eq(w.bind[i + 2], "userdn = \"ldap:///self\"");
    cr_expect_eq(w.outcome[i + 2], ACRE_OUTCOME_FALSE);
    cr_expect_str_eq(w.bind[i + 3], "not userdn = \"ldap:///self\"");
    cr_expect_eq(w.outcome[i + 3], ACRE_OUTCOME_TRUE);
    /* the last step decides, naming the deny */
    cr_assert_eq(w.kind[w.n - 1], ACRE_EXPLAIN_ACI_DECISION);
    cr_expect_str_eq(w.name[w.n - 1], "no passwords");
    cr_expect_eq(w.deny[w.n - 1], 1);
    teardown(&f);
}

Test(aci_explain, self_escapes_deny_and_nothing_grants)
{
    struct fx f;
    struct seen w = {0};

    setup_as(&f, BOB);
    int g = acre_explain_steps(f.rq, view(&f, BOB), "userPassword", NULL, 0,
                               ACRE_RIGHT_READ, record, &w, NULL);
    cr_assert_eq(g, 0);
    int i = find(&w, ACRE_EXPLAIN_ACI, "no passwords");
    cr_assert_geq(i, 0);
    cr_expect_eq(w.outcome[i], ACRE_OUTCOME_FALSE);
    cr_expect_geq(find(&w, ACRE_EXPLAIN_ACI_SKIPPED, "read basics"), 0);
    cr_assert_eq(w.kind[w.n - 1], ACRE_EXPLAIN_ACI_DECISION);
    cr_expect_str_eq(w.name[w.n - 1], ""); /* no ACI decided */
    cr_expect_eq(w.value[w.n - 1], -1);
    teardown(&f);
}

Test(aci_explain, same_answer_as_access)
{
    static const char *const attrs[] = {"cn", "sn", "userPassword",
                                        "description", "entry"};
    static const int rights[] = {ACRE_RIGHT_READ,   ACRE_RIGHT_SEARCH,
                                 ACRE_RIGHT_WRITE,  ACRE_RIGHT_ADD,
                                 ACRE_RIGHT_DELETE, ACRE_RIGHT_COMPARE};
    static const char *const who[] = {ANN, BOB, NULL};

    for (unsigned k = 0; k < 3; k++) {
        struct fx f;
        setup_as(&f, who[k]);
        for (unsigned a = 0; a < 5; a++)
            for (unsigned r = 0; r < 6; r++) {
                struct seen w = {0};
                int want = acre_access(f.rq, view(&f, ANN), attrs[a], NULL, 0,
                                       rights[r], NULL);
                int got =
                    acre_explain_steps(f.rq, view(&f, ANN), attrs[a], NULL, 0,
                                       rights[r], record, &w, NULL);
                cr_expect_eq(got, want, "%s %s right %d", who[k], attrs[a],
                             rights[r]);
                cr_expect_eq(w.kind[w.n - 1], ACRE_EXPLAIN_ACI_DECISION);
                int t = 0;
                char *text = acre_explain(f.rq, view(&f, ANN), attrs[a], NULL,
                                          0, rights[r], &t);
                cr_assert_not_null(text);
                cr_expect_eq(t, want == 1);
                cr_expect(strstr(text, want == 1 ? "granted\n" : "denied\n"),
                          "%s", text);
                free(text);
            }
        teardown(&f);
    }
}

Test(aci_explain, rights_without_aci_meaning_are_denied_and_said)
{
    struct fx f;
    struct seen w = {0};

    setup_as(&f, ANN);
    cr_expect_eq(acre_explain_steps(f.rq, view(&f, ANN), "cn", NULL, 0,
                                    ACRE_RIGHT_AUTH, record, &w, NULL),
                 0);
    cr_assert_eq(w.n, 1);
    cr_expect_eq(w.kind[0], ACRE_EXPLAIN_ACI_DECISION);
    teardown(&f);
}

Test(aci_explain, root_dn)
{
    struct fx f;
    struct seen w = {0};

    setup_as(&f, "cn=Directory Manager");
    cr_expect_eq(acre_explain_steps(f.rq, view(&f, ANN), "userPassword", NULL,
                                    0, ACRE_RIGHT_WRITE, record, &w, NULL),
                 1);
    cr_assert_eq(w.n, 2);
    cr_expect_eq(w.kind[0], ACRE_EXPLAIN_ROOTDN);
    cr_expect_eq(w.kind[1], ACRE_EXPLAIN_ACI_DECISION);
    teardown(&f);
}

/* ------------------------------------------------------------------------
 * The rules 389 showed
 */

Test(aci_explain, targetattr_aci_takes_entry_level_add_and_delete)
{
    struct fx f;

    /* "desc" names description only, with all rights: 389 applies it to
     * adding and deleting entries too (rights that need no attribute) */
    setup_as(&f, ANN);
    cr_expect_eq(acre_access(f.rq, view(&f, BOB), "entry", NULL, 0,
                             ACRE_RIGHT_ADD, NULL),
                 1);
    cr_expect_eq(acre_access(f.rq, view(&f, BOB), "entry", NULL, 0,
                             ACRE_RIGHT_DELETE, NULL),
                 1);
    teardown(&f);
    setup_as(&f, BOB);
    cr_expect_eq(acre_access(f.rq, view(&f, BOB), "entry", NULL, 0,
                             ACRE_RIGHT_ADD, NULL),
                 0);
    teardown(&f);
}

Test(aci_explain, selfwrite_grants_no_plain_write)
{
    struct fx f;

    setup_as(&f, BOB);
    cr_expect_eq(acre_access(f.rq, view(&f, "cn=club," SUFFIX), "member", NULL,
                             0, ACRE_RIGHT_WRITE, NULL),
                 0);
    teardown(&f);
}

/* ------------------------------------------------------------------------
 * Get-effective-rights
 */

static char *
ger(struct fx *f, const char *dn, const char *const *attrs, size_t n)
{
    char *out = NULL;

    cr_assert_eq(acre_effective_rights(f->rq, view(f, dn), attrs, n, &out), 0);
    cr_assert_not_null(out);
    return out;
}

Test(aci_explain, ger_entry_and_attributes)
{
    struct fx f;

    setup_as(&f, BOB);
    /* the entry's attributes in its order (uid, from the RDN, last) */
    char *s = ger(&f, BOB, NULL, 0);
    cr_expect_str_eq(s, "entryLevelRights: none\n"
                        "attributeLevelRights: objectClass:rsc, cn:rsc, "
                        "sn:rsc, userPassword:none, uid:none\n");
    free(s);
    s = ger(&f, "cn=club," SUFFIX, NULL, 0);
    cr_expect_str_eq(s, "entryLevelRights: none\n"
                        "attributeLevelRights: objectClass:rsc, cn:rsc, "
                        "member:WO\n");
    free(s);
    teardown(&f);

    setup_as(&f, ANN);
    s = ger(&f, BOB, NULL, 0);
    cr_expect_str_eq(s, "entryLevelRights: adn\n"
                        "attributeLevelRights: objectClass:rsc, cn:rsc, "
                        "sn:rsc, userPassword:none, uid:none\n");
    free(s);
    static const char *const asked[] = {"CN", "description", "nosuch", "dn"};
    s = ger(&f, BOB, asked, 4);
    cr_expect_str_eq(s, "entryLevelRights: adn\n"
                        "attributeLevelRights: cn:rsc, description:rscwo, "
                        "nosuch:none, distinguishedName:none\n");
    free(s);
    teardown(&f);

    setup_as(&f, "cn=Directory Manager");
    s = ger(&f, BOB, NULL, 0);
    cr_expect_str_eq(s, "entryLevelRights: vadn\n"
                        "attributeLevelRights: objectClass:rscwo, cn:rscwo, "
                        "sn:rscwo, userPassword:rscwo, uid:rscwo\n");
    free(s);
    teardown(&f);
}

Test(aci_explain, ger_anonymous_has_no_selfwrite)
{
    struct fx f;

    setup_as(&f, NULL);
    char *s = ger(&f, "cn=club," SUFFIX, NULL, 0);
    cr_expect_str_eq(s, "entryLevelRights: none\n"
                        "attributeLevelRights: objectClass:none, cn:none, "
                        "member:none\n");
    free(s);
    teardown(&f);
}

/* 389's search tests a URL filter's substrings as written (its
 * FILTER_NORMALIZED flag): "(cn=An*)" takes no one there; its GER has a
 * pblock of its own, where the filter matches as usual */
Test(aci_explain, ger_url_substrings_as_usual)
{
    static const char text[] =
        "dn: " SUFFIX "\n"
        "objectClass: top\n"
        "objectClass: domain\n"
        "dc: example\n"
        "aci: (targetattr=\"sn\")(version 3.0; acl \"url\"; allow (read) "
        "userdn=\"ldap:///ou=people," SUFFIX "??sub?(cn=An*)\";)\n"
        "\n"
        "dn: ou=people," SUFFIX "\n"
        "objectClass: top\n"
        "objectClass: organizationalUnit\n"
        "ou: people\n"
        "\n"
        "dn: " ANN "\n"
        "objectClass: top\n"
        "objectClass: person\n"
        "cn: Ann\n"
        "sn: Smith\n";
    static const char *const sn[] = {"sn"};
    struct fx f;

    setup_with(&f, ANN, text);
    cr_expect_eq(
        acre_access(f.rq, view(&f, ANN), "sn", NULL, 0, ACRE_RIGHT_READ, NULL),
        0);
    char *s = ger(&f, ANN, sn, 1);
    cr_expect_str_eq(s, "entryLevelRights: none\n"
                        "attributeLevelRights: sn:r\n");
    free(s);
    /* and the search's answer again after it */
    cr_expect_eq(
        acre_access(f.rq, view(&f, ANN), "sn", NULL, 0, ACRE_RIGHT_READ, NULL),
        0);
    teardown(&f);
}

Test(aci_explain, ger_unsupported)
{
    static const char conf[] = "access to * by * read\n";
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "t.conf", conf,
                       sizeof conf - 1};
    acre_source aci = {ACRE_DIALECT_ACI, "t.ldif", data, sizeof data - 1};
    const char *const kinds[] = {"openldap", "opendj"};

    for (int k = 0; k < 2; k++) {
        acre_policy *p = NULL;
        acre_directory *dir = NULL;
        acre_request *rq = NULL;
        acre_subject s;
        char *out = (char *)&out;
        cr_assert_eq(k ? acre_policy_compile(NULL, NULL, &aci, 1,
                                             ACRE_COMPILE_ACI_OPENDJ, &p, NULL)
                       : acre_policy_compile(NULL, NULL, &src, 1, 0, &p, NULL),
                     0, "%s", kinds[k]);
        cr_assert_eq(acre_directory_load(NULL, acre_policy_schema(p), "t.ldif",
                                         data, sizeof data - 1, &dir, NULL),
                     0);
        memset(&s, 0, sizeof s);
        s.authz_dn = ANN;
        cr_assert_eq(acre_request_begin(p, &s, acre_directory_host(dir), &rq),
                     0);
        acre_dn *x = NULL;
        cr_assert_eq(acre_dn_parse(NULL, acre_policy_schema(p), BOB,
                                   strlen(BOB), 0, &x, NULL),
                     0);
        const acre_entry *e = acre_directory_find(dir, x);
        acre_dn_free(x);
        cr_assert_not_null(e);
        cr_expect_eq(
            acre_effective_rights(rq, acre_entry_view_of(e), NULL, 0, &out),
            ACRE_ERR_UNSUPPORTED, "%s", kinds[k]);
        cr_expect_null(out);
        acre_request_end(rq);
        acre_directory_free(dir);
        acre_policy_release(p);
    }
}

Test(aci_explain, ger_errors)
{
    struct fx f;
    char *out = (char *)&out;
    static const char *const bad[] = {"cn", NULL};

    setup_as(&f, ANN);
    cr_expect_eq(acre_effective_rights(f.rq, NULL, NULL, 0, &out),
                 ACRE_ERR_INVAL);
    cr_expect_null(out);
    cr_expect_eq(acre_effective_rights(f.rq, view(&f, ANN), bad, 2, &out),
                 ACRE_ERR_INVAL);
    cr_expect_eq(acre_effective_rights(NULL, view(&f, ANN), NULL, 0, &out),
                 ACRE_ERR_INVAL);
    teardown(&f);
}

/* ------------------------------------------------------------------------
 * Out of memory: each allocation of a request's get-effective-rights and
 * of an explained check refused in turn (with every later one, then
 * alone): an error or the fault-free answer, never more rights, nothing
 * left allocated.
 */
#if ALLOC_HOOK

/* one run as `who` on v: its GER text (or NULL) in *ger_out, and the
 * outcomes of two explained checks in *granted; the request is made and
 * ended inside the run (nothing in it may assert: the test framework
 * itself cannot report while allocations fail) */
static int
oom_run(struct fx *f, const acre_entry_view *v, const char *who, char **ger_out,
        int *granted)
{
    acre_subject s;
    acre_request *rq = NULL;
    char *out = NULL;
    int rc;

    memset(&s, 0, sizeof s);
    s.authz_dn = who;
    *ger_out = NULL;
    *granted = 0;
    if ((rc = acre_request_begin(f->p, &s, acre_directory_host(f->dir), &rq)))
        return rc;
    rc = acre_effective_rights(rq, v, NULL, 0, &out);
    if (!rc) {
        struct seen w = {0};
        int g = acre_explain_steps(rq, v, "userPassword", NULL, 0,
                                   ACRE_RIGHT_READ, record, &w, NULL);
        char *t =
            acre_explain(rq, v, "description", NULL, 0, ACRE_RIGHT_WRITE, NULL);
        if (g < 0 || !t)
            rc = g < 0 ? g : ACRE_ERR_NOMEM;
        *granted = (g == 1) | ((t && strstr(t, "granted\n")) ? 2 : 0);
        free(t);
    }
    acre_request_end(rq);
    *ger_out = out;
    return rc;
}

Test(aci_explain, out_of_memory)
{
    static const char *const who[] = {ANN, BOB};

    for (unsigned k = 0; k < 2; k++) {
        struct fx f;
        char *want, *got;
        int want_g, got_g;

        setup_as(&f, who[k]);
        acre_request_end(f.rq);
        f.rq = NULL;
        const acre_entry_view *v = view(&f, BOB); /* fault-free */
        cr_assert_eq(oom_run(&f, v, who[k], &want, &want_g), 0);
        unsigned long n, failures = 0;
        for (n = 1;; n++) {
            int stop = 0;
            for (int once = 0; once < 2; once++) {
                long live = alloc_live();
                once ? alloc_fail_once(n) : alloc_fail_after(n);
                int rc = oom_run(&f, v, who[k], &got, &got_g);
                unsigned long failed = alloc_failed();
                alloc_fail_after(0);
                if (!once && !failed)
                    stop = 1;
                if (rc == 0) {
                    cr_expect_str_eq(got, want, "allocation %lu (%s)", n,
                                     once ? "alone" : "and later");
                    cr_expect_eq(got_g, want_g, "allocation %lu", n);
                } else {
                    cr_expect(rc == ACRE_ERR_NOMEM || rc == ACRE_ERR_LOOKUP,
                              "allocation %lu: %s", n, acre_strerror(rc));
                    /* get-effective-rights may have succeeded before an
                     * explained check failed: then exactly */
                    if (got)
                        cr_expect_str_eq(got, want, "allocation %lu", n);
                    cr_expect_eq(got_g & ~want_g, 0, "allocation %lu", n);
                }
                free(got);
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
        free(want);
        acre_directory_free(f.dir);
        acre_policy_release(f.p);
    }
}

#endif
