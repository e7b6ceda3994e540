/*
 * fuzz_filter.c -- libFuzzer target for RFC 4515 filters (engine/filter*.c).
 *
 * Beyond "never crash, never leak, never read out of bounds" (ASan/UBSan)
 * and bounded time, it checks on every input:
 *   - a rejected input has a filter error code, a diagnostic whose code is
 *     that code, an offset within the input and a message;
 *   - an accepted input prints to a canonical form that parses again and
 *     prints the same (round trip);
 *   - evaluation on fixed entries gives TRUE, FALSE or UNDEFINED, the same
 *     with no hook and with a hook that allows everything, and NOT of the
 *     filter gives the three-valued negation;
 *   - a hook that denies one type can only turn TRUE/FALSE answers into
 *     other answers through UNDEFINED items, never crash;
 *   - strict parsing accepts the same inputs or fails with
 *     ACRE_ERR_FILTER_RULE;
 *   - under 389's schema, parsed as a 389 search filter (its rewrite of
 *     numSubordinates and hasSubordinates items, its ~=), an accepted
 *     input evaluates to TRUE, FALSE or UNDEFINED on an entry with
 *     non-ASCII values.
 * Any violation aborts, which libFuzzer reports with the input.
 */
#include <acre.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "buf.h"
#include "directory.h"
#include "filter.h"

static const char ldif[] =
    "dn: dc=example,dc=com\n"
    "objectClass: dcObject\nobjectClass: organization\n"
    "dc: example\no: Example\n\n"
    "dn: ou=people,dc=example,dc=com\n"
    "objectClass: organizationalUnit\nou: people\n\n"
    "dn: uid=jdoe+cn=John Doe,ou=people,dc=example,dc=com\n"
    "objectClass: inetOrgPerson\nobjectClass: posixAccount\n"
    "uid: jdoe\ncn: John Doe\ncn;lang-fr: Jean Dupont\nsn: Doe\n"
    "givenName: John\nmail: jdoe@example.com\n"
    "telephoneNumber: +1 555-123 4567\nemployeeType: staff\n"
    "uidNumber: 1000\ngidNumber: 100\nhomeDirectory: /home/jdoe\n"
    "description: A  test   user\ncreateTimestamp: 20240115103000Z\n"
    "member: cn=admins,dc=example,dc=com\n";

/* 389: values in Latin-1 and beyond, for its ~= (filter_approx389.c) */
static const char ldif389[] =
    "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
    "dn: uid=bea,dc=example,dc=com\nobjectClass: inetOrgPerson\nuid: bea\n"
    "cn:: QsOpYXRyaWNlIMOGdnVtIMWCw7NkxbogU2NobWl0dC1LbmlnaHQ=\n"
    "cn: Bea\nsn: X\ndescription: --\nemployeeNumber: 12\n"
    "userPassword: pw\nseeAlso: cn=x,dc=example,dc=com\n";

static struct acreE_dir *dir, *dir389;
static const struct acreE_entry *entries[3], *entry389;

static void
check(int cond)
{
    if (!cond)
        abort();
}

static int
deny_one(void *ctx, const acre_entry_view *e, const struct acreF_desc *d,
         const uint8_t *v, size_t n)
{
    (void)e;
    (void)v;
    (void)n;
    return d->type == *(const int *)ctx ? 0 : 1;
}

static int
allow_all(void *ctx, const acre_entry_view *e, const struct acreF_desc *d,
          const uint8_t *v, size_t n)
{
    (void)ctx;
    (void)e;
    (void)d;
    (void)v;
    (void)n;
    return 1;
}

static const struct acreE_entry *
find(const char *s)
{
    acre_dn *dn = NULL;
    const struct acreE_entry *e;

    check(acre_dn_parse(NULL, NULL, s, strlen(s), 0, &dn, NULL) == 0);
    e = acreE_dir_find(dir, dn);
    acre_dn_free(dn);
    check(e != NULL);
    return e;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    check(acreE_dir_new(NULL, NULL, 0, &dir) == 0);
    check(acreE_dir_load_ldif(dir, NULL, ldif, strlen(ldif), "fuzz", NULL, NULL,
                              NULL) == 0);
    entries[0] = find("dc=example,dc=com");
    entries[1] = find("ou=people,dc=example,dc=com");
    entries[2] = find("uid=jdoe+cn=john doe,ou=people,dc=example,dc=com");

    acre_schema *s389 = NULL;
    acre_dn *dn = NULL;
    check(acre_schema_new(NULL, ACRE_SCHEMA_389 | ACRE_SCHEMA_SYNTAX_MATCH,
                          &s389, NULL) == 0);
    check(acreE_dir_new(NULL, s389, 0, &dir389) == 0);
    check(acreE_dir_load_ldif(dir389, NULL, ldif389, strlen(ldif389), "fuzz",
                              NULL, NULL, NULL) == 0);
    check(acre_dn_parse(NULL, s389, "uid=bea,dc=example,dc=com", 25, 0, &dn,
                        NULL) == 0);
    check((entry389 = acreE_dir_find(dir389, dn)) != NULL);
    acre_dn_free(dn);
    return 0;
}

/* The input as 389 reads a search filter: parsed or refused, and then
 * evaluated to one of the three answers. */
static void
check_389(const uint8_t *data, size_t size)
{
    struct acreF_filter *f = NULL;
    const acre_schema *s = acreE_dir_schema(dir389);
    int rc = acreF_parse_flags(NULL, s, (const char *)data, size,
                               ACREF_389_SEARCH, &f, NULL);

    if (rc) {
        check(f == NULL);
        return;
    }
    enum acreF_result r = acreF_eval(f, &entry389->v, NULL);
    check(r == ACREF_TRUE || r == ACREF_FALSE || r == ACREF_UNDEFINED);
    talloc_free(f);
}

/* The printed form of f, heap-allocated (free with acreE_buf_free). */
static void
print(const struct acreF_filter *f, struct acreE_buf *b)
{
    acreE_buf_init(b, NULL, 0);
    check(acreF_to_string(f, b) == 0);
}

static int
is_filter_error(int rc)
{
    return rc == ACRE_ERR_FILTER_SYNTAX || rc == ACRE_ERR_FILTER_NESTING ||
           rc == ACRE_ERR_FILTER_ESCAPE || rc == ACRE_ERR_FILTER_TOO_LONG;
}

static enum acreF_result
negate(enum acreF_result r)
{
    return r == ACREF_TRUE    ? ACREF_FALSE
           : r == ACREF_FALSE ? ACREF_TRUE
                              : ACREF_UNDEFINED;
}

/* (!f) evaluates to the negation of f, when it is not nested too deep. */
static void
check_not(const struct acreE_buf *b, const enum acreF_result *r)
{
    struct acreF_filter *g = NULL;
    struct acreE_buf nb;
    int rc;

    acreE_buf_init(&nb, NULL, 0);
    check(acreE_buf_put(&nb, "(!", 2) == 0);
    check(acreE_buf_put(&nb, b->p, b->len) == 0);
    check(acreE_buf_putc(&nb, ')') == 0);
    rc = acreF_parse(NULL, NULL, (const char *)nb.p, nb.len, &g, NULL);
    check(rc == 0 || rc == ACRE_ERR_FILTER_NESTING ||
          rc == ACRE_ERR_FILTER_TOO_LONG);
    for (int k = 0; rc == 0 && k < 3; k++)
        check(acreF_eval(g, &entries[k]->v, NULL) == negate(r[k]));
    talloc_free(g);
    acreE_buf_free(&nb);
}

static void
check_eval(const struct acreF_filter *f, const struct acreE_buf *b, size_t size)
{
    enum acreF_result r[3];
    int deny = (int)(size % 64);

    for (int k = 0; k < 3; k++) {
        r[k] = acreF_eval(f, &entries[k]->v, NULL);
        check(r[k] == ACREF_TRUE || r[k] == ACREF_FALSE ||
              r[k] == ACREF_UNDEFINED);
        struct acreF_hooks all = {allow_all, NULL, NULL, NULL, NULL,
                                  NULL,      NULL, 0,    NULL};
        struct acreF_hooks one = {deny_one, &deny, NULL, NULL, NULL,
                                  NULL,     NULL,  0,    NULL};
        check(acreF_eval(f, &entries[k]->v, &all) == r[k]);
        check(acreF_eval(f, &entries[k]->v, &one) <= ACREF_UNDEFINED);
    }
    check_not(b, r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct acreF_filter *f = NULL, *g = NULL, *s = NULL;
    struct acreE_buf b1, b2;
    acre_diag d;
    int rc, rs;

    memset(&d, 0, sizeof d);
    check_389(data, size);
    rc = acreF_parse(NULL, NULL, (const char *)data, size, &f, &d);
    rs = acreF_parse_flags(NULL, NULL, (const char *)data, size,
                           ACREF_STRICT_RULES, &s, NULL);
    talloc_free(s);
    if (rc) {
        check(is_filter_error(rc) && d.code == rc && d.offset <= size &&
              d.column == d.offset + 1 && d.message[0] && f == NULL);
        check(rs == rc || rs == ACRE_ERR_FILTER_RULE);
        return 0;
    }
    check(rs == 0 || rs == ACRE_ERR_FILTER_RULE);
    print(f, &b1);
    rc = acreF_parse(NULL, NULL, (const char *)b1.p, b1.len, &g, &d);
    check(rc == 0);
    print(g, &b2);
    check(b1.len == b2.len && memcmp(b1.p, b2.p, b1.len) == 0);
    check_eval(f, &b1, size);
    for (int k = 0; k < 3; k++)
        check(acreF_eval(f, &entries[k]->v, NULL) ==
              acreF_eval(g, &entries[k]->v, NULL));
    acreE_buf_free(&b1);
    acreE_buf_free(&b2);
    talloc_free(f);
    talloc_free(g);
    return 0;
}
