/*
 * fuzz_subentry_ldif.c -- libFuzzer target for subentries as written in
 * LDIF: the input is LDIF appended to a small fixed tree (an
 * administrative point dc=example,dc=com and a few entries below it),
 * loaded into a directory (engine/directory.c), attached to a compiled
 * policy (acre_policy_attach_subentries: subtreeSpecification parsing,
 * the collective index of compiler/collective_build.c) and asked for the
 * collective attributes of its entries (engine/collective.c).
 *
 * The last input byte chooses the setting: bit 0 ACRE_COLL_STACK, bit 1
 * the OpenDJ schema (inherited collective attributes), bit 2 a policy
 * with slapo-collect lines.  Beyond "never crash, never leak, never read
 * out of bounds" (ASan/UBSan) and bounded time, it checks:
 *   - attach either succeeds or fails with ACRE_ERR_NOMEM and no policy;
 *     a warning it gives has a line within the loaded text;
 *   - every view is well formed: each attribute has a description, each
 *     value is readable, the subentries listed are entries;
 *   - for directories of at most MAX_ORACLE entries, each entry's view
 *     equals the one of the literal reference evaluator
 *     (tests/oracle/collective_oracle.h), in the oracle's text form;
 *   - asking for the same entry again gives the same answer.
 * Any violation aborts, which libFuzzer reports with the input.
 */
#include "acre.h"
#include "collective_gen.h"
#include "collective_oracle.h"
#include "directory.h"
#include "schema.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <talloc.h>

#define MAX_ORACLE 48 /* the oracle is quadratic: compare small trees */

static void
check(int cond)
{
    if (!cond)
        abort();
}

static const char base_ldif[] =
    "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n"
    "administrativeRole: collectiveAttributeSpecificArea\n\n"
    "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\n"
    "ou: people\nl: Paris\ndescription: the people\n\n"
    "dn: uid=a,ou=people,dc=example,dc=com\nobjectClass: account\nuid: a\n"
    "\n"
    "dn: cn=b,ou=people,dc=example,dc=com\nobjectClass: person\n"
    "objectClass: organizationalPerson\ncn: b\nsn: b\n"
    "collectiveExclusions: c-l\n\n";

static const char collect_conf[] =
    "overlay collect\n"
    "collectinfo \"ou=people,dc=example,dc=com\" l,description\n";

static const char *const ci_attrs[] = {"l", "description"};
static const struct acreR_collectinfo ci = {"ou=people,dc=example,dc=com",
                                            ci_attrs, 2};

/* One schema and policy per setting (bit 1: OpenDJ, bit 2: collect). */
struct setting {
    acre_schema *schema;
    acre_policy *policy;
};
static struct setting settings[4];

static struct setting *
setting_of(unsigned k)
{
    struct setting *s = &settings[k];
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "fuzz.conf",
                       k & 2 ? collect_conf : "",
                       k & 2 ? strlen(collect_conf) : 0};
    acre_diag d;

    if (s->policy)
        return s;
    check(acre_schema_new(NULL, ACRE_SCHEMA_SLAPD, &s->schema, &d) == 0);
    if (k & 1)
        check(acre_schema_load_buffer(
                  s->schema, "opendj.schema", acreG_coll_opendj_schema,
                  strlen(acreG_coll_opendj_schema), &d) == 0);
    check(acre_policy_compile(NULL, s->schema, &src, 1, 0, &s->policy, &d) ==
          0);
    return s;
}

/* The engine's view of e in the oracle's form; NULL when it cannot be
 * put in that form (an option too long to compare). */
static struct acreR_coll *
engine_view(void *ctx, const acre_schema *s, acre_request *rq,
            const acre_entry *e)
{
    acre_collective_view v;
    struct acreR_coll *c = NULL;
    int rc = acre_entry_collective(rq, acre_entry_view_of(e), &v);

    check(rc == 0 || rc == ACRE_ERR_EVAL_LIMIT);
    if (rc)
        return NULL;
    rc = acreR_coll_of_view(ctx, s, &v, &c);
    check(rc == 0 || rc == 1);
    return c;
}

struct run {
    const acre_directory *dir;
    const acre_schema *schema;
    acre_request *rq;
    unsigned flags; /* ACRER_COLL_* */
    const struct acreR_collectinfo *ci;
    unsigned nci;
    int oracle; /* compare with the reference evaluator */
};

static int
visit(void *arg, const acre_entry *e)
{
    struct run *R = arg;
    void *tmp = talloc_new(NULL);
    struct acreR_coll *got = engine_view(tmp, R->schema, R->rq, e), *want;
    char *a, *b, *again;

    if (got && R->oracle) {
        check(acreR_coll_entry(tmp, R->dir, e, R->flags, R->ci, R->nci,
                               &want) == 0);
        a = acreR_coll_text(want);
        b = acreR_coll_text(got);
        check(a && b);
        if (strcmp(a, b) != 0) {
            fprintf(stderr, "%s\n--- oracle\n%s--- engine\n%s",
                    acre_dn_normalised(acre_entry_dn(e), NULL), a, b);
            abort();
        }
        again = acreR_coll_text(engine_view(tmp, R->schema, R->rq, e));
        check(again && strcmp(again, b) == 0);
        free(a);
        free(b);
        free(again);
    }
    talloc_free(tmp);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned k = size ? data[size - 1] : 0;
    struct setting *st = setting_of((k >> 1) & 3);
    void *ctx = talloc_new(NULL);
    size_t nb = sizeof base_ldif - 1, n = nb + size;
    char *text = talloc_size(ctx, n + 1);
    acre_directory *dir;
    acre_policy *ap = NULL;
    const struct acreE_entry *const *sfx;
    size_t nsfx;
    acre_diag d;
    struct run R;
    int rc;

    check(text != NULL);
    memcpy(text, base_ldif, nb);
    memcpy(text + nb, data, size);
    text[n] = '\0';
    if (size > 65536 || acre_directory_load(ctx, st->schema, "fuzz.ldif", text,
                                            n, &dir, &d) != 0) {
        talloc_free(ctx);
        return 0;
    }
    memset(&d, 0, sizeof d);
    rc = acre_policy_attach_subentries(ctx, st->policy, dir,
                                       k & 1 ? ACRE_COLL_STACK : 0, &ap, &d);
    check(rc == 0 || rc == ACRE_ERR_NOMEM);
    if (rc) {
        check(ap == NULL);
        talloc_free(ctx);
        return 0;
    }
    if (d.code)
        check(d.line >= 1 && d.message[0]);
    memset(&R, 0, sizeof R);
    R.dir = dir;
    R.schema = st->schema;
    R.flags = k & 1 ? ACRER_COLL_STACK : 0;
    R.ci = k & 4 ? &ci : NULL;
    R.nci = k & 4 ? 1 : 0;
    R.oracle = acre_directory_count(dir) <= MAX_ORACLE;
    check(acre_request_begin(ap, NULL, acre_directory_host(dir), &R.rq) == 0);
    /* every entry, from each suffix (an acre_directory is an acreE_dir) */
    sfx = acreE_dir_suffixes((const struct acreE_dir *)dir, &nsfx);
    for (size_t i = 0; i < nsfx; i++)
        check(acre_directory_walk(dir, sfx[i]->v.dn, ACRE_SCOPE_SUB, visit,
                                  &R) == 0);
    acre_request_end(R.rq);
    acre_policy_release(ap);
    talloc_free(ctx);
    return 0;
}
