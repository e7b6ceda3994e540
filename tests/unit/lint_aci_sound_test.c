/*
 * lint_aci_sound_test.c -- the ACI lint's shadowed-rule claims held to
 * the engine: on the ACI generator's cases (tests/oracle/aci_gen.h), each
 * allow the lint calls shadowed, when it is its value's only permission,
 * is taken out of the case, and the engine must then decide every check
 * (each requester, entry, attribute and the entry itself, for compare,
 * search, read, add, delete and write) and every search of the case
 * exactly as before.  The lint says "never grants anything"; this is
 * what that means.  Likewise each ACI the lint says never applies
 * (outside-holder) is taken out whole.  Besides the cases as generated,
 * each is run with a deny copy of a lone allow (on its holder, then on
 * the suffix entry) and with a value whose target is a pattern copied to
 * another entry, so that both checks have claims to prove.  A case is
 * used only when the compiler accepts it; the test fails when too few
 * claims are checked to mean anything.
 *
 * Environment: ACRE_LINT_SOUND_SEED=s (first seed), ACRE_LINT_SOUND_N=n.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "aci.h"
#include "aci_gen.h"
#include "acre.h"

#define DEFAULT_SEEDS 400
#define MIN_CHECKED   10 /* shadowed allows taken out and compared */

TestSuite(lint_aci_sound);

static unsigned long
env_num(const char *name, unsigned long dflt)
{
    const char *s = getenv(name);

    return s && *s ? strtoul(s, NULL, 10) : dflt;
}

static acre_policy *
compile(void *ctx, acre_schema *schema, const char *ldif)
{
    acre_source src = {ACRE_DIALECT_ACI, "gen.ldif", ldif, strlen(ldif)};
    acre_policy *p = NULL;
    acre_diag d;

    if (acre_policy_compile(ctx, schema, &src, 1, 0, &p, &d))
        return NULL;
    return p;
}

struct walk {
    acre_request *rq;
    const acre_schema *schema;
    char *out;
};

static const int rights[] = {ACRE_RIGHT_COMPARE, ACRE_RIGHT_SEARCH,
                             ACRE_RIGHT_READ,    ACRE_RIGHT_ADD,
                             ACRE_RIGHT_DELETE,  ACRE_RIGHT_WRITE};

static int
decide_entry(void *arg, const acre_entry *en)
{
    struct walk *w = arg;
    const acre_entry_view *e = acre_entry_view_of(en);
    const acre_schema *s = w->schema;

    for (unsigned i = 0; i <= e->nattrs; i++) {
        const char *a = i < e->nattrs
                            ? acre_schema_attr_desc(s, e->attrs[i].id, NULL)
                            : "entry";
        for (size_t k = 0; k < sizeof(rights) / sizeof(rights[0]); k++) {
            int g = acre_access(w->rq, e, a, NULL, 0, rights[k], NULL);
            w->out = talloc_asprintf_append(w->out, "%d", g);
        }
    }
    w->out = talloc_asprintf_append(w->out, "\n");
    return 0;
}

static int
found(void *arg, const acre_entry_view *e, const acre_verdict *v)
{
    struct walk *w = arg;

    w->out =
        talloc_asprintf_append(w->out, "%s:", acre_dn_normalised(e->dn, NULL));
    for (unsigned i = 0; i < v->nattrs; i++)
        w->out = talloc_asprintf_append(w->out, "%d", v->attr[i]);
    w->out = talloc_asprintf_append(w->out, "\n");
    return 0;
}

/* Everything policy p decides on the case, as text. */
static char *
decisions(void *ctx, const struct acreG_aci_case *c, acre_policy *p,
          const acre_directory *dir, const acre_dn *root)
{
    char *out = talloc_strdup(ctx, "");

    for (unsigned r = 0; r < c->nrq; r++) {
        const struct acreG_aci_who *g = &c->rq[r];
        acre_subject who;
        char peer[80];
        acre_request *rq;

        memset(&who, 0, sizeof(who));
        who.authz_dn = g->proxied_dn ? g->proxied_dn : g->bind_dn;
        who.authc_dn = g->proxied_dn ? g->bind_dn : NULL;
        who.auth_method = g->auth_method;
        who.ssf = g->ssf;
        who.domain = g->dns;
        who.time = g->time;
        if (g->ip) {
            snprintf(peer, sizeof(peer),
                     strchr(g->ip, ':') ? "IP=[%s]:40000" : "IP=%s:40000",
                     g->ip);
            who.peername = peer;
        }
        cr_assert_eq(acre_request_begin(p, &who, acre_directory_host(dir), &rq),
                     0);
        struct walk w = {rq, acre_policy_schema(p), out};
        acre_directory_walk(dir, root, ACRE_SCOPE_SUB, decide_entry, &w);
        for (unsigned s = 0; s < c->nsearches; s++) {
            const struct acreG_aci_search *se = &c->searches[s];
            int lrc = -1;
            acre_search(rq, se->base, se->scope, se->filter, se->attrs,
                        se->nattrs, found, &w, &lrc, NULL);
            w.out = talloc_asprintf_append(w.out, "rc %d\n", lrc);
        }
        acre_request_end(rq);
        out = w.out;
        cr_assert(out);
    }
    return out;
}

/* The entry and value a finding names: "entry 'DN', aci value N (". */
static int
named(const struct acreG_aci_case *c, const char *msg, unsigned *ek,
      unsigned *vk)
{
    const char *a = strstr(msg, "entry '"), *b;
    unsigned n;

    if (!a || !(b = strstr(a + 7, "', aci value ")) ||
        sscanf(b + 13, "%u", &n) != 1 || n == 0)
        return 0;
    for (unsigned k = 0; k < c->nentries; k++)
        if (strlen(c->entries[k].dn) == (size_t)(b - a - 7) &&
            !strncasecmp(c->entries[k].dn, a + 7, (size_t)(b - a - 7)) &&
            n <= c->entries[k].nacis) {
            *ek = k;
            *vk = n - 1;
            return 1;
        }
    return 0;
}

/* Is the value one allow and nothing else (no earlier ACL text either,
 * whose deny kind would send the allow through 389's deny phase)? */
static int
lone_allow(void *ctx, const char *value)
{
    struct acreI_aci a;
    acre_diag d;

    if (acreA_parse_value(ctx, NULL, NULL, 0, value, strlen(value),
                          ACREI_ACI_389, NULL, &a, &d))
        return 0;
    return a.nperms == 1 && !a.perms[0].deny && !a.nxperms;
}

struct tally {
    unsigned claims, checked, outside;
};

/* Lint case c and hold each shadowed-rule claim on a lone allow to the
 * engine. */
static void
check_case(const struct acreG_aci_case *cc, struct tally *t)
{
    struct acreG_aci_case *c = (struct acreG_aci_case *)cc;
    void *ctx = talloc_new(NULL);
    acre_schema *schema;
    acre_directory *dir;
    acre_lint_result *r;
    acre_dn *root;
    acre_diag d;
    char *ldif = acreG_aci_ldif(ctx, c);

    cr_assert(ldif);
    cr_assert_eq(acre_schema_new(ctx, 0, &schema, &d), 0);
    acre_policy *p1 = compile(ctx, schema, ldif);
    if (!p1) { /* refused: the agreement test counts those */
        talloc_free(ctx);
        return;
    }
    cr_assert_eq(acre_directory_load(ctx, acre_policy_schema(p1), "gen.ldif",
                                     ldif, strlen(ldif), &dir, &d),
                 0, "%s", d.message);
    cr_assert_eq(acre_dn_parse(ctx, acre_policy_schema(p1), ACREG_ACI_SUFFIX,
                               strlen(ACREG_ACI_SUFFIX), 0, &root, NULL),
                 0);
    acre_source src = {ACRE_DIALECT_ACI, "gen.ldif", ldif, strlen(ldif)};
    cr_assert_eq(acre_lint(ctx, &src, 1, NULL, NULL, 0, &r, &d), 0);
    cr_assert_eq(r->errors, 0, "seed %llu", (unsigned long long)c->seed);
    char *before = NULL;
    for (size_t i = 0; i < r->count; i++) {
        const acre_lint_finding *f = &r->findings[i];
        unsigned ek, vk;
        int outside = !strcmp(f->id, "outside-holder");
        if (strcmp(f->id, "shadowed-rule") && !outside)
            continue;
        t->claims++;
        t->outside += outside;
        cr_assert(named(c, f->message, &ek, &vk), "seed %llu: %s",
                  (unsigned long long)c->seed, f->message);
        /* an ACI that never applies goes whole */
        if (!outside && !lone_allow(ctx, c->entries[ek].acis[vk]))
            continue;
        if (!before)
            before = decisions(ctx, c, p1, dir, root);
        c->entries[ek].omit_aci[vk] = 1;
        char *less = acreG_aci_ldif(ctx, c);
        c->entries[ek].omit_aci[vk] = 0;
        acre_policy *p2 = compile(ctx, schema, less);
        cr_assert(p2, "seed %llu", (unsigned long long)c->seed);
        char *after = decisions(ctx, c, p2, dir, root);
        cr_assert_str_eq(before, after,
                         "seed %llu: taking out the allow the lint calls "
                         "shadowed (or the aci it says never applies) "
                         "changed a decision: %s\n%s",
                         (unsigned long long)c->seed, f->message, ldif);
        acre_policy_release(p2);
        t->checked++;
    }
    acre_lint_free(r);
    acre_policy_release(p1);
    talloc_free(ctx);
}

/* Add to entry e a deny copy of allow value v ("acl \"N\"; allow (" made
 * "acl \"N-deny\"; deny ("); 0 when v has no such text. */
static int
add_deny_copy(struct acreG_aci_case *c, struct acreG_aci_entry *e,
              const char *v)
{
    const char *at = strstr(v, "\"; allow (");

    if (!at)
        return 0;
    char *copy =
        talloc_asprintf(c, "%.*s-deny\"; deny (%s", (int)(at - v), v, at + 10);
    char **a = talloc_realloc(c, e->acis, char *, e->nacis + 1);
    uint8_t *o =
        a ? talloc_realloc(c, e->omit_aci, uint8_t, e->nacis + 1) : NULL;
    cr_assert(copy && a && o);
    e->acis = a;
    e->omit_aci = o;
    a[e->nacis] = copy;
    o[e->nacis++] = 0;
    return 1;
}

Test(lint_aci_sound, shadowed_allows_grant_nothing, .timeout = 600)
{
    unsigned long first = env_num("ACRE_LINT_SOUND_SEED", 1);
    unsigned long n = env_num("ACRE_LINT_SOUND_N", DEFAULT_SEEDS);
    struct tally t = {0, 0, 0};

    for (unsigned long seed = first; seed < first + n; seed++) {
        void *ctx = talloc_new(NULL);
        struct acreG_aci_case *c;

        cr_assert_eq(acreG_aci_case_new(ctx, seed, ACREG_ACI_389, &c), 0);
        check_case(c, &t);
        /* the case again with a deny copy of one lone allow, held by the
         * same entry, then by the suffix entry (the lint must find the
         * allow shadowed where it can prove it, and be right) */
        unsigned tried = 0;
        for (unsigned k = 0; k < c->nentries && tried < 2; k++)
            for (unsigned j = 0; j < c->entries[k].nacis && tried < 2; j++) {
                const char *v = c->entries[k].acis[j];
                if (!lone_allow(ctx, v))
                    continue;
                struct acreG_aci_entry *h =
                    tried++ % 2 ? &c->entries[0] : &c->entries[k];
                if (!add_deny_copy(c, h, v))
                    continue;
                check_case(c, &t);
                h->nacis--;
            }
        /* and with a target pattern's value copied to another entry,
         * where it may lie outside (outside-holder) */
        tried = 0;
        for (unsigned k = 0; k < c->nentries && tried < 2; k++)
            for (unsigned j = 0; j < c->entries[k].nacis && tried < 2; j++) {
                const char *v = c->entries[k].acis[j];
                if (!strstr(v, "(target=\"ldap:///") ||
                    !strpbrk(strstr(v, "(target="), "*$"))
                    continue;
                struct acreG_aci_entry *h =
                    &c->entries[(k + 1 + tried++) % c->nentries];
                char **a = talloc_realloc(c, h->acis, char *, h->nacis + 1);
                uint8_t *o =
                    a ? talloc_realloc(c, h->omit_aci, uint8_t, h->nacis + 1)
                      : NULL;
                cr_assert(a && o);
                h->acis = a;
                h->omit_aci = o;
                a[h->nacis] = talloc_strdup(c, v);
                o[h->nacis++] = 0;
                check_case(c, &t);
                h->nacis--;
            }
        talloc_free(ctx);
    }
    if (getenv("ACRE_LINT_SOUND_VERBOSE"))
        fprintf(stderr,
                "lint sound: %u claims (%u outside-holder), %u "
                "checked\n",
                t.claims, t.outside, t.checked);
    cr_expect_geq(t.checked, MIN_CHECKED,
                  "only %u shadowed allows checked (%u claims)", t.checked,
                  t.claims);
    cr_expect_geq(t.outside, MIN_CHECKED, "only %u outside-holder claims",
                  t.outside);
}
