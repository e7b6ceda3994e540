/*
 * fuzz_cos.c -- libFuzzer target for 389's Class of Service
 * (engine/cos.c): the input is LDIF appended to a small tree (a suffix
 * with people, a pointer definition and its template), loaded into a
 * directory and asked, under an ACI policy, what CoS gives each entry
 * (acre_entry_cos_names, acre_entry_cos) and what a presence filter on
 * each of those types sees (acre_filter_match), with nsRole computed too.
 *
 * Beyond "never crash, never leak, never read out of bounds" (ASan/UBSan)
 * and bounded time (nested lookups stop 50 deep, a query fails past 4096
 * lookups), it checks:
 *   - a query gives 1 with at least one readable value, 0, or an error
 *     of the lookups' kinds (nothing else);
 *   - asking again gives the same values;
 *   - when CoS gives an entry a type the requester may search, a presence
 *     filter on that type matches the entry (filters see the values CoS
 *     gives).
 * Any violation aborts, which libFuzzer reports with the input.
 */
#include "acre.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

/* Abort, naming the check, when cond is false. */
#define check(cond) check_at((cond), __LINE__)

static void
check_at(int cond, int line)
{
    if (!cond) {
        fprintf(stderr, "fuzz_cos.c:%d: check failed\n", line);
        abort();
    }
}

static const char base_ldif[] =
    "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n"
    "aci: (targetattr=\"*\")(version 3.0; acl \"all\"; allow "
    "(read,search,compare) userdn=\"ldap:///anyone\";)\n\n"
    "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\n"
    "ou: people\n\n"
    "dn: cn=t,ou=people,dc=example,dc=com\nobjectClass: top\n"
    "objectClass: cosTemplate\nobjectClass: extensibleObject\ncn: t\n"
    "street: Main 1\n\n"
    "dn: cn=d,ou=people,dc=example,dc=com\nobjectClass: top\n"
    "objectClass: LDAPsubentry\nobjectClass: cosSuperDefinition\n"
    "objectClass: cosPointerDefinition\ncn: d\n"
    "cosTemplateDn: cn=t,ou=people,dc=example,dc=com\n"
    "cosAttribute: street\n\n"
    "dn: uid=a,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
    "uid: a\ncn: a\nsn: a\nemployeeType: staff\n"
    "manager: uid=b,ou=people,dc=example,dc=com\n\n"
    "dn: uid=b,ou=people,dc=example,dc=com\nobjectClass: inetOrgPerson\n"
    "uid: b\ncn: b\nsn: b\ncarLicense: B-1\n\n";

static acre_policy *policy;

struct run {
    acre_request *rq;
    void *mem;
};

/* The values of a query, copied (they live until the next call). */
static char *
joined(void *mem, const acre_value *v, uint32_t n)
{
    char *s = talloc_strdup(mem, "");

    for (uint32_t j = 0; s && j < n; j++) {
        check(v[j].val != NULL || v[j].len == 0);
        s = talloc_asprintf_append(s, "%.*s|", (int)v[j].len,
                                   v[j].len ? (const char *)v[j].val : "");
    }
    return s;
}

static int
ok_error(int rc)
{
    return rc == ACRE_ERR_NOMEM || rc == ACRE_ERR_LOOKUP ||
           rc == ACRE_ERR_EVAL_LIMIT;
}

static int
visit(void *arg, const acre_entry *e)
{
    struct run *r = arg;
    const acre_entry_view *view = acre_entry_view_of(e);
    const char *const *names;
    uint32_t k;
    int rc = acre_entry_cos_names(r->rq, &names, &k);

    if (rc) {
        check(ok_error(rc));
        return 0;
    }
    for (uint32_t i = 0; i < k; i++) {
        const acre_value *v;
        uint32_t n;
        int op;
        rc = acre_entry_cos(r->rq, view, names[i], &v, &n, &op);
        if (rc < 0) {
            check(ok_error(rc));
            continue;
        }
        check(rc == 0 || rc == 1);
        check(rc == 0 ? n == 0 : n > 0);
        char *first = joined(r->mem, v, n);
        int again = acre_entry_cos(r->rq, view, names[i], &v, &n, &op);
        if (again >= 0) {
            check(again == rc);
            char *second = joined(r->mem, v, n);
            check(first && second && !strcmp(first, second));
        }
        if (rc == 1) {
            char text[128];
            acre_filter *f = NULL;
            int len = snprintf(text, sizeof text, "(%s=*)", names[i]);
            if (len > 0 && (size_t)len < sizeof text &&
                !acre_filter_parse(r->mem, acre_policy_schema(policy), text,
                                   (size_t)len, &f, NULL)) {
                int m = acre_filter_match(r->rq, f, view);
                int may = acre_access(r->rq, view, names[i], NULL, 0,
                                      ACRE_RIGHT_SEARCH, NULL);
                check(m == 1 || ok_error(m) || may != 1);
                acre_filter_free(f);
            }
        }
    }
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!policy) {
        acre_source src = {ACRE_DIALECT_ACI, "base.ldif", base_ldif,
                           sizeof base_ldif - 1};
        acre_diag d;
        check(acre_policy_compile(NULL, NULL, &src, 1, 0, &policy, &d) == 0);
    }
    void *mem = talloc_new(NULL);
    char *text = talloc_asprintf(mem, "%s%.*s", base_ldif, (int)size,
                                 (const char *)data);
    acre_directory *dir = NULL;
    acre_diag d;

    if (text && !acre_directory_load(mem, acre_policy_schema(policy), "f", text,
                                     strlen(text), &dir, &d)) {
        struct run r = {NULL, mem};
        if (!acre_request_begin(policy, NULL, acre_directory_host(dir),
                                &r.rq)) {
            acre_request_set_flags(r.rq, ACRE_REQ_COS | ACRE_REQ_NSROLE);
            for (size_t i = 0; acre_directory_suffix(dir, i); i++)
                acre_directory_walk(
                    dir, acre_entry_dn(acre_directory_suffix(dir, i)),
                    ACRE_SCOPE_SUB, visit, &r);
            acre_request_end(r.rq);
        }
        acre_directory_free(dir);
    }
    talloc_free(mem);
    return 0;
}
