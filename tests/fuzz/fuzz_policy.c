/*
 * fuzz_policy.c -- libFuzzer target for the whole policy path: rule text
 * compiled into tables, then evaluated, and every answer compared with the
 * reference evaluator (tests/oracle/).
 *
 * The first byte picks the requester (anonymous, a user, another user, the
 * rootdn) and its connection's ssf; the rest is slapd.conf text.  On every
 * input:
 *   - a rejected policy has a rule, schema or memory error code and a
 *     diagnostic with a message;
 *   - an accepted one is evaluated on a small fixed directory: the verdict
 *     of every entry (read on "entry", then each value), and "entry" /
 *     "children" checks for several privileges with their masks, must be
 *     the oracle's exactly -- except where the engine reports a bound
 *     reached (ACRE_ERR_EVAL_LIMIT), which denies (in a verdict, where
 *     the same check asked alone reports it);
 *   - nothing crashes, leaks or reads out of bounds (ASan/UBSan).
 * Any violation aborts.
 */
#include <acre.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "directory.h"
#include "entry.h"
#include "openldap.h"
#include "openldap_oracle.h"
#include "schema.h"

static const char ldif[] =
    "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
    "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\n"
    "ou: people\n\n"
    "dn: uid=alice,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
    "uid: alice\ncn: Alice\ncn;lang-en: Alice A\nsn: A\n"
    "mail: alice@example.com\nuserPassword: secret\n"
    "seeAlso: uid=bob,ou=people,dc=example,dc=com\n\n"
    "dn: uid=bob,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
    "uid: bob\ncn: Bob\nsn: B\nmail: bob@example.com\n"
    "manager: uid=alice,ou=people,dc=example,dc=com\n\n"
    "dn: ou=groups,dc=example,dc=com\nobjectClass: organizationalUnit\n"
    "ou: groups\n\n"
    "dn: cn=admins,ou=groups,dc=example,dc=com\nobjectClass: groupOfNames\n"
    "cn: admins\nmember: uid=alice,ou=people,dc=example,dc=com\n";

static const char *const requesters[] = {
    NULL, "uid=alice,ou=people,dc=example,dc=com",
    "uid=bob,ou=people,dc=example,dc=com", "cn=manager,dc=example,dc=com"};

/* Abort on a failed condition, naming it (the crash report then says
 * which comparison failed). */
#define check(cond) check_at((cond), __LINE__, #cond)

static void
check_at(int cond, int line, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz_policy.c:%d: check failed: %s\n", line, what);
        abort();
    }
}

struct world {
    void *ctx;
    acre_policy *p;
    acre_directory *dir;
    struct acreI_policy *cfg;
    struct acreE_dir *odir;
};

static int
walk_entry(void *arg, const acre_entry *e)
{
    const acre_entry **v = arg;
    for (int i = 0; i < 16; i++)
        if (!v[i]) {
            v[i] = e;
            break;
        }
    return 0;
}

/* One requester: every entry through both evaluators. */
static void
compare(struct world *w, const acre_subject *who)
{
    const struct acreR_requester orq = {
        who->authz_dn, who->authc_dn, who->peername, who->sockname,
        who->sockurl,  who->domain,   who->ssf,      who->transport_ssf,
        who->tls_ssf,  who->sasl_ssf};
    struct acreR_oracle *o;
    acre_request *rq;
    const acre_entry *ents[16] = {0};
    acre_dn *root;

    check(acre_request_begin(w->p, who, acre_directory_host(w->dir), &rq) == 0);
    check(acreR_oracle_new(w->ctx, w->cfg, w->odir, &orq, &o) == 0);
    check(acre_dn_parse(w->ctx, acre_policy_schema(w->p), "dc=example,dc=com",
                        17, 0, &root, NULL) == 0);
    acre_directory_walk(w->dir, root, ACRE_SCOPE_SUB, walk_entry, ents);
    for (int i = 0; ents[i]; i++) {
        const struct acreE_entry *e = (const struct acreE_entry *)ents[i];
        const struct acreE_entry *oe = acreE_dir_find(w->odir, e->v.dn);
        struct acreR_target t;
        acre_verdict v;
        check(oe != NULL);
        for (int right = ACRE_RIGHT_DISCLOSE; right <= ACRE_RIGHT_MANAGE;
             right += 2) {
            static const char *const what[] = {"entry", "children"};
            for (int k = 0; k < 2; k++) {
                uint32_t m1 = 0, m2 = 0;
                int g1 = acre_access(rq, acre_entry_view_of(ents[i]), what[k],
                                     NULL, 0, right, &m1);
                acreR_target_type(o, &t, &oe->v, what[k]);
                int g2 = acreR_oracle_check(o, &t, (enum acreI_access)right,
                                            &m2, NULL);
                if (g1 == ACRE_ERR_EVAL_LIMIT)
                    continue;
                if (g1 != g2 || m1 != m2)
                    fprintf(stderr,
                            "requester %s, entry %s, %s, right %d: acre %d "
                            "mask %#x, oracle %d mask %#x\n",
                            who && who->authz_dn ? who->authz_dn : "-",
                            acre_dn_normalised(acre_entry_dn(ents[i]), NULL),
                            what[k], right, g1, (unsigned)m1, g2, (unsigned)m2);
                check(g1 == g2 && m1 == m2);
            }
        }
        const acre_entry_view *ev = acre_entry_view_of(ents[i]);
        check(acre_entry_decide(rq, ev, ACRE_RIGHT_READ, &v) == 0);
        /* a verdict shows a bound reached as a denial: asked alone, the
         * same check says ACRE_ERR_EVAL_LIMIT, and is not compared */
        if (acre_access(rq, ev, "entry", NULL, 0, ACRE_RIGHT_READ, NULL) ==
            ACRE_ERR_EVAL_LIMIT)
            continue;
        acreR_target_type(o, &t, &oe->v, "entry");
        int vis = acreR_oracle_check(o, &t, ACREI_ACCESS_READ, NULL, NULL);
        check(v.visible == vis);
        if (!vis)
            continue;
        for (uint32_t a = 0; a < oe->v.nattrs; a++)
            for (uint32_t j = 0; j < oe->v.attrs[a].nvals; j++) {
                const acre_view_attr *at = &oe->v.attrs[a];
                const struct acreS_dinfo *d = acreS_dinfo(oe->v.schema, at->id);
                if (acre_access(rq, ev, d->text, at->vals[j].val,
                                at->vals[j].len, ACRE_RIGHT_READ,
                                NULL) == ACRE_ERR_EVAL_LIMIT)
                    continue;
                acreR_target_attr(&t, oe->v.schema, &oe->v, at, (int)j);
                int g =
                    acreR_oracle_check(o, &t, ACREI_ACCESS_READ, NULL, NULL);
                check(v.value[v.first[a] + j] == g);
            }
    }
    acre_request_end(rq);
    talloc_free(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct world w = {NULL, NULL, NULL, NULL, NULL};
    acre_schema *s1, *s2;
    acre_diag d;

    if (size < 1)
        return 0;
    w.ctx = talloc_new(NULL);
    unsigned pick = data[0];
    const char *text = (const char *)data + 1;
    size_t len = size - 1;
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "fuzz.conf", text, len};

    check(acre_schema_new(w.ctx, ACRE_SCHEMA_SLAPD, &s1, NULL) == 0);
    int rc = acre_policy_compile(NULL, s1, &src, 1, 0, &w.p, &d);
    if (rc) {
        check(d.code == rc && d.message[0] != '\0');
        check(rc == ACRE_ERR_RULE_SYNTAX || rc == ACRE_ERR_RULE_IO ||
              rc == ACRE_ERR_RULE_LIMIT || rc == ACRE_ERR_NOMEM ||
              (rc <= ACRE_ERR_SCHEMA_SYNTAX && rc >= ACRE_ERR_NO_SUCH_OBJECT));
        talloc_free(w.ctx);
        return 0;
    }
    /* the oracle reads the same text with its own schema and directory */
    check(acre_schema_new(w.ctx, ACRE_SCHEMA_SLAPD, &s2, NULL) == 0);
    check(acreO_parse_conf(w.ctx, s2, "fuzz.conf", text, len, &w.cfg, &d) == 0);
    check(acre_directory_load(w.ctx, s1, "fuzz.ldif", ldif, strlen(ldif),
                              &w.dir, NULL) == 0);
    check(acreE_dir_new(w.ctx, s2, 0, &w.odir) == 0);
    check(acreE_dir_load_ldif(w.odir, NULL, ldif, strlen(ldif), "fuzz.ldif",
                              NULL, NULL, NULL) == 0);
    acre_subject who = {
        .authz_dn = requesters[pick & 3],
        .peername = "IP=127.0.0.1:40000",
        .sockurl = "ldap:///",
        .domain = "localhost",
        .ssf = (pick >> 2) & 1 ? 128 : 0,
        .tls_ssf = (pick >> 3) & 1 ? 256 : 0,
    };
    compare(&w, &who);
    acre_policy_release(w.p);
    talloc_free(w.ctx);
    return 0;
}
