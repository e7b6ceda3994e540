/*
 * badobj_test.c -- every public function that takes a handle refuses one
 * of the wrong kind (acre.h, Conventions: handles): another kind of
 * handle cast to it, or zeroed memory.  A function that returns an error
 * code returns ACRE_ERR_BADOBJ; one that returns a pointer, a count or a
 * bool gives its neutral answer (NULL, 0); one that returns nothing does
 * nothing: the object passed in is still whole afterwards and zeroed
 * memory is still zero.  NULL keeps its own answer (ACRE_ERR_INVAL).
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <string.h>
#include <talloc.h>

#include "acre.h"

static const char rules[] = "access to * by * read\n";
static const char ldif[] = "dn: dc=example,dc=com\nobjectClass: domain\n"
                           "dc: example\n";

/* One object of each kind, and zeroed memory (large enough for every
 * handle's magic). */
static struct {
    void *ctx;
    acre_schema *schema;
    acre_dn *dn;
    acre_directory *dir;
    acre_policy *policy;
    acre_request *rq;
    acre_filter *filter;
    acre_slot *slot;
    acre_lint_result *lint;
} o;

static uint64_t zero[64];

static void
setup(void)
{
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "slapd.conf", rules,
                       strlen(rules)};
    const char *top = "dc=example,dc=com";

    o.ctx = talloc_new(NULL);
    cr_assert_eq(acre_schema_new(o.ctx, ACRE_SCHEMA_SLAPD, &o.schema, NULL), 0);
    cr_assert_eq(
        acre_dn_parse(o.ctx, o.schema, top, strlen(top), 0, &o.dn, NULL), 0);
    cr_assert_eq(acre_directory_load(o.ctx, o.schema, "t.ldif", ldif,
                                     strlen(ldif), &o.dir, NULL),
                 0);
    cr_assert_eq(
        acre_policy_compile(NULL, o.schema, &src, 1, 0, &o.policy, NULL), 0);
    cr_assert_eq(
        acre_request_begin(o.policy, NULL, acre_directory_host(o.dir), &o.rq),
        0);
    cr_assert_eq(
        acre_filter_parse(o.ctx, o.schema, "(dc=*)", 6, &o.filter, NULL), 0);
    cr_assert_eq(acre_slot_new(&o.slot), 0);
    cr_assert_eq(acre_lint(o.ctx, &src, 1, NULL, NULL, 0, &o.lint, NULL), 0);
    memset(zero, 0, sizeof zero);
}

static void
teardown(void)
{
    acre_request_end(o.rq);
    acre_policy_release(o.policy);
    acre_slot_free(o.slot);
    talloc_free(o.ctx);
}

TestSuite(badobj, .init = setup, .fini = teardown);

/* Every object but the one of kind `self`, then zeroed memory. */
enum kind { K_SCHEMA, K_DN, K_DIR, K_POLICY, K_RQ, K_FILTER, K_SLOT, K_LINT };

static size_t
others(enum kind self, void **out)
{
    void *all[] = {o.schema, o.dn,     o.dir,  o.policy,
                   o.rq,     o.filter, o.slot, o.lint};
    size_t n = 0;

    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++) {
        /* a lint result's magic follows its public struct: only objects
         * larger than that stand in for one (an acre_filter is not) */
        if (k == self || (self == K_LINT && k == K_FILTER))
            continue;
        out[n++] = all[k];
    }
    out[n++] = zero;
    return n;
}

/* The objects still work, and the zeroed memory is still zero. */
static void
all_whole(void)
{
    static const uint64_t zeros[64];
    acre_policy *p;

    cr_expect_eq(memcmp(zero, zeros, sizeof zero), 0, "zeroed memory written");
    cr_expect_geq(acre_schema_attr_id(o.schema, "cn", 2), 0);
    cr_expect_eq(acre_dn_depth(o.dn), 2);
    cr_expect_eq(acre_directory_count(o.dir), 1);
    cr_expect_neq(acre_policy_generation(o.policy), 0);
    cr_expect_eq(
        acre_access(o.rq, acre_entry_view_of(acre_directory_find(o.dir, o.dn)),
                    "dc", NULL, 0, ACRE_RIGHT_READ, NULL),
        1);
    acre_slot_store(o.slot, o.policy);
    p = acre_slot_acquire(o.slot);
    cr_expect_eq(p, o.policy);
    acre_policy_release(p);
    cr_expect_eq(acre_lint_status(o.lint), 0);
}

Test(badobj, schema)
{
    void *bad[16];
    size_t n = others(K_SCHEMA, bad);
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "slapd.conf", rules,
                       strlen(rules)};

    for (size_t i = 0; i < n; i++) {
        acre_schema *s = bad[i];
        acre_dn *d = NULL;
        acre_directory *dir = NULL;
        acre_filter *f = NULL;
        acre_policy *p = NULL;
        char buf[ACRE_DN_BUF_MAX] __attribute__((aligned(8)));
        size_t len = 1;

        cr_expect_eq(acre_schema_load_buffer(s, "x", "", 0, NULL),
                     ACRE_ERR_BADOBJ, "%zu", i);
        cr_expect_eq(acre_schema_load_file(s, "/dev/null", NULL),
                     ACRE_ERR_BADOBJ);
        cr_expect_null(acre_schema_attr_name(s, "cn", 2));
        cr_expect_eq(acre_schema_attr_id(s, "cn", 2), ACRE_ERR_BADOBJ);
        cr_expect_null(acre_schema_attr_desc(s, 0, &len));
        cr_expect_eq(len, 0);
        cr_expect_eq(acre_value_normalise(s, 0, "a", 1, buf, 8, &len),
                     ACRE_ERR_BADOBJ);
        cr_expect_eq(acre_dn_parse(o.ctx, s, "cn=a", 4, 0, &d, NULL),
                     ACRE_ERR_BADOBJ);
        cr_expect_eq(
            acre_dn_parse_buf(buf, sizeof buf, s, "cn=a", 4, 0, &d, NULL),
            ACRE_ERR_BADOBJ);
        cr_expect_null(d);
        cr_expect_eq(
            acre_directory_load(o.ctx, s, "t", ldif, strlen(ldif), &dir, NULL),
            ACRE_ERR_BADOBJ);
        cr_expect_null(dir);
        cr_expect_eq(acre_filter_check(s, "(cn=a)", 6, NULL), ACRE_ERR_BADOBJ);
        cr_expect_eq(acre_filter_parse(o.ctx, s, "(cn=a)", 6, &f, NULL),
                     ACRE_ERR_BADOBJ);
        cr_expect_null(f);
        cr_expect_eq(acre_policy_compile(o.ctx, s, &src, 1, 0, &p, NULL),
                     ACRE_ERR_BADOBJ);
        cr_expect_null(p);
        acre_schema_free(s);
    }
    all_whole();
}

Test(badobj, directory_load_files)
{
    void *bad[16];
    size_t n = others(K_SCHEMA, bad);
    const char *paths[] = {"/dev/null"};

    for (size_t i = 0; i < n; i++) {
        acre_directory *dir = NULL;
        cr_expect_eq(acre_directory_load_files(o.ctx, bad[i], paths, 1, NULL,
                                               NULL, &dir, NULL),
                     ACRE_ERR_BADOBJ);
        cr_expect_null(dir);
    }
    all_whole();
}

Test(badobj, dn)
{
    void *bad[16];
    size_t n = others(K_DN, bad);

    for (size_t i = 0; i < n; i++) {
        const acre_dn *d = bad[i];
        acre_dn *copy = NULL;
        const char *s = "x";
        size_t len = 1;

        cr_expect_eq(acre_dn_copy(o.ctx, d, &copy), ACRE_ERR_BADOBJ, "%zu", i);
        cr_expect_null(copy);
        cr_expect_eq(acre_dn_size(d), 0);
        cr_expect_null(acre_dn_normalised(d, &len));
        cr_expect_eq(len, 0);
        len = 1;
        cr_expect_null(acre_dn_pretty(d, &len));
        cr_expect_eq(len, 0);
        cr_expect_eq(acre_dn_depth(d), 0);
        cr_expect_eq(acre_dn_ancestor_hash(d, 0), 0);
        cr_expect_eq(acre_dn_rdn(d, 0, &s, NULL, NULL, NULL), ACRE_ERR_BADOBJ);
        cr_expect_str_eq(s, "x");
        cr_expect_null(acre_dn_ancestor(d, 0, NULL));
        cr_expect_eq(acre_dn_equal(d, d), 0);
        cr_expect_eq(acre_dn_equal(o.dn, d), 0);
        cr_expect_eq(acre_dn_in_scope(d, o.dn, ACRE_SCOPE_SUB),
                     ACRE_ERR_BADOBJ);
        cr_expect_eq(acre_dn_in_scope(o.dn, d, ACRE_SCOPE_SUB),
                     ACRE_ERR_BADOBJ);
        cr_expect_null(acre_directory_find(o.dir, d));
        cr_expect_eq(acre_directory_walk(o.dir, d, ACRE_SCOPE_SUB, NULL, NULL),
                     ACRE_ERR_BADOBJ);
        acre_dn_free((acre_dn *)d);
    }
    all_whole();
}

static int
count_entry(void *arg, const acre_entry *e)
{
    (void)e;
    ++*(int *)arg;
    return 0;
}

Test(badobj, directory)
{
    void *bad[16];
    size_t n = others(K_DIR, bad);
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "slapd.conf", rules,
                       strlen(rules)};

    for (size_t i = 0; i < n; i++) {
        acre_directory *d = bad[i];
        acre_policy *p = NULL;
        acre_lint_result *r = NULL;
        int seen = 0;

        cr_expect_null(acre_directory_find(d, o.dn), "%zu", i);
        cr_expect_eq(acre_directory_count(d), 0);
        cr_expect_eq(
            acre_directory_walk(d, o.dn, ACRE_SCOPE_SUB, count_entry, &seen),
            ACRE_ERR_BADOBJ);
        cr_expect_eq(seen, 0);
        cr_expect_null(acre_directory_host(d));
        cr_expect_eq(
            acre_policy_attach_subentries(o.ctx, o.policy, d, 0, &p, NULL),
            ACRE_ERR_BADOBJ);
        cr_expect_null(p);
        cr_expect_eq(acre_lint(o.ctx, &src, 1, d, NULL, 0, &r, NULL),
                     ACRE_ERR_BADOBJ);
        cr_expect_null(r);
        acre_directory_free(d);
    }
    all_whole();
}

static acre_policy *stored;

Test(badobj, policy)
{
    void *bad[16];
    size_t n = others(K_POLICY, bad);

    for (size_t i = 0; i < n; i++) {
        acre_policy *p = bad[i], *q = NULL;
        acre_request *rq = NULL;
        acre_policy_stats st;

        cr_expect_null(acre_policy_ref(p), "%zu", i);
        cr_expect_null(acre_policy_schema(p));
        cr_expect_eq(acre_policy_generation(p), 0);
        memset(&st, 0xff, sizeof st);
        acre_policy_stats_get(p, &st);
        cr_expect_eq(st.rules, 0);
        cr_expect_eq(st.bytes, 0);
        cr_expect_null(acre_policy_dump(p));
        cr_expect_eq(
            acre_policy_attach_subentries(o.ctx, p, o.dir, 0, &q, NULL),
            ACRE_ERR_BADOBJ);
        cr_expect_null(q);
        cr_expect_eq(acre_request_begin(p, NULL, NULL, &rq), ACRE_ERR_BADOBJ);
        cr_expect_null(rq);
        /* a slot keeps what it held when offered something else */
        acre_slot_store(o.slot, o.policy);
        acre_slot_store(o.slot, p);
        stored = acre_slot_acquire(o.slot);
        cr_expect_eq(stored, o.policy);
        acre_policy_release(stored);
        acre_policy_release(p);
    }
    all_whole();
}

static int
no_entry(void *arg, const acre_entry_view *e, const acre_verdict *v)
{
    (void)e, (void)v;
    ++*(int *)arg;
    return 0;
}

static void
no_step(void *arg, const acre_explain_step *s)
{
    (void)s;
    ++*(int *)arg;
}

Test(badobj, request)
{
    void *bad[16];
    size_t n = others(K_RQ, bad);
    const acre_entry_view *e =
        acre_entry_view_of(acre_directory_find(o.dir, o.dn));

    for (size_t i = 0; i < n; i++) {
        acre_request *rq = bad[i];
        acre_collective_view cv;
        acre_verdict v;
        uint32_t mask = 7;
        int calls = 0, rc = 7, granted = 7;

        cr_expect_eq(acre_entry_collective(rq, e, &cv), ACRE_ERR_BADOBJ, "%zu",
                     i);
        cr_expect_eq(cv.nattrs, 0);
        cr_expect_eq(acre_access(rq, e, "dc", NULL, 0, ACRE_RIGHT_READ, &mask),
                     ACRE_ERR_BADOBJ);
        cr_expect_eq(mask, 0);
        cr_expect_eq(acre_entry_decide(rq, e, ACRE_RIGHT_READ, &v),
                     ACRE_ERR_BADOBJ);
        cr_expect_eq(v.visible, 0);
        cr_expect_eq(acre_search(rq, "", ACRE_SCOPE_SUB, "(dc=*)", NULL, 0,
                                 no_entry, &calls, &rc, NULL),
                     ACRE_ERR_BADOBJ);
        cr_expect_eq(acre_filter_match(rq, o.filter, e), ACRE_ERR_BADOBJ);
        cr_expect_null(
            acre_explain(rq, e, "dc", NULL, 0, ACRE_RIGHT_READ, &granted));
        cr_expect_eq(granted, 0);
        cr_expect_eq(acre_explain_steps(rq, e, "dc", NULL, 0, ACRE_RIGHT_READ,
                                        no_step, &calls, NULL),
                     ACRE_ERR_BADOBJ);
        cr_expect_eq(calls, 0);
        acre_request_set_flags(rq, ACRE_REQ_SUBENTRIES);
        acre_request_end(rq);
    }
    all_whole();
}

Test(badobj, filter)
{
    void *bad[16];
    size_t n = others(K_FILTER, bad);
    const acre_entry_view *e =
        acre_entry_view_of(acre_directory_find(o.dir, o.dn));

    for (size_t i = 0; i < n; i++) {
        acre_filter *f = bad[i];

        cr_expect_eq(acre_filter_match(o.rq, f, e), ACRE_ERR_BADOBJ, "%zu", i);
        acre_filter_free(f);
    }
    cr_expect_eq(acre_filter_match(o.rq, o.filter, e), 1);
    all_whole();
}

Test(badobj, slot)
{
    void *bad[16];
    size_t n = others(K_SLOT, bad);

    for (size_t i = 0; i < n; i++) {
        acre_slot *s = bad[i];

        acre_slot_store(s, o.policy);
        cr_expect_null(acre_slot_acquire(s), "%zu", i);
        acre_slot_free(s);
    }
    all_whole();
}

Test(badobj, lint_result)
{
    void *bad[16];
    size_t n = others(K_LINT, bad);

    for (size_t i = 0; i < n; i++) {
        acre_lint_result *r = bad[i];

        cr_expect_eq(acre_lint_status(r), ACRE_ERR_BADOBJ, "%zu", i);
        cr_expect_null(acre_lint_format(r, ACRE_LINT_TEXT));
        acre_lint_free(r);
    }
    all_whole();
}

/* NULL keeps its answers: ACRE_ERR_INVAL where an error code is returned. */
Test(badobj, null_is_inval)
{
    acre_request *rq = NULL;
    const acre_entry_view *e =
        acre_entry_view_of(acre_directory_find(o.dir, o.dn));

    cr_expect_eq(acre_request_begin(NULL, NULL, NULL, &rq), ACRE_ERR_INVAL);
    cr_expect_eq(acre_access(NULL, e, "dc", NULL, 0, ACRE_RIGHT_READ, NULL),
                 ACRE_ERR_INVAL);
    cr_expect_eq(acre_filter_match(o.rq, NULL, e), ACRE_ERR_INVAL);
    cr_expect_eq(acre_dn_in_scope(NULL, o.dn, ACRE_SCOPE_SUB), ACRE_ERR_INVAL);
    cr_expect_eq(acre_schema_load_buffer(NULL, "x", "", 0, NULL),
                 ACRE_ERR_INVAL);
    cr_expect_eq(acre_lint_status(NULL), 2);
    all_whole();
}
