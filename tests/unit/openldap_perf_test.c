/*
 * openldap_perf_test.c -- correctness of what makes the OpenLDAP front end
 * fast and small on large rule sets (compiler/openldap_lex.c,
 * openldap_memo.c): lexer buffers reused from line to line, parts of
 * rules shared through the parse's memo (DNs, filters, attribute lists,
 * dnattr types, regexes), arrays allocated at their exact size.  Only
 * results are checked here, never timings (bench/policy_bench.c times
 * them).
 */
#include <criterion/criterion.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <talloc.h>

#include "acre.h"
#include "openldap.h"
#include "openldap_int.h"

static void *ctx;

static void
setup(void)
{
    ctx = talloc_new(NULL);
}

static void
teardown(void)
{
    talloc_free(ctx);
}

TestSuite(openldap_perf, .init = setup, .fini = teardown);

/* A text of megabytes built by appending: its storage doubles as it grows
 * (talloc_asprintf_append_buffer reallocates at every call, and under
 * ASan, whose realloc always moves, that copies the whole text each
 * time). */
struct text {
    char *s;
    size_t len, cap;
};

static void __attribute__((format(printf, 2, 3)))
text_add(struct text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    cr_assert(n >= 0);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->s = talloc_realloc(ctx, t->s, char, t->cap);
        cr_assert(t->s);
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

static struct acreI_policy *
conf(const char *text, acre_diag *d)
{
    struct acreI_policy *cfg = NULL;

    memset(d, 0, sizeof(*d));
    int rc = acreO_parse_conf(ctx, NULL, "p.conf", text, strlen(text), &cfg, d);
    return rc ? NULL : cfg;
}

static struct acreI_policy *
conf_ok(const char *text)
{
    acre_diag d;
    struct acreI_policy *cfg = conf(text, &d);

    cr_assert(cfg, "refused: %u:%u: %s", d.line, d.column, d.message);
    return cfg;
}

static const char *
norm(const acre_dn *dn)
{
    size_t n;

    return acre_dn_normalised(dn, &n);
}

/* ------------------------------------------------------------------------
 * Shared parts
 */

Test(openldap_perf, same_text_same_object)
{
    struct acreI_policy *cfg = conf_ok(
        "access to dn.subtree=\"ou=a,dc=x\" filter=(objectClass=person) "
        "attrs=cn,sn by dn.exact=\"cn=admin,dc=x\" write by dnattr=manager "
        "read\n"
        "access to dn.subtree=\"ou=a,dc=x\" filter=(objectClass=person) "
        "attrs=cn,sn by dn.exact=\"cn=admin,dc=x\" write by dnattr=manager "
        "read\n"
        "access to dn.subtree=\"OU=A, DC=X\" by * none\n");
    const struct acreI_rule *r = cfg->frontend.rules;

    cr_assert_eq(cfg->frontend.nrules, 3);
    cr_expect_eq(r[0].what.dn, r[1].what.dn);
    cr_expect_eq(r[0].what.filter, r[1].what.filter);
    cr_expect_eq(r[0].what.filter_text, r[1].what.filter_text);
    cr_expect_eq(r[0].what.attrs, r[1].what.attrs);
    cr_expect_eq(r[0].by[0].dn.dn, r[1].by[0].dn.dn);
    cr_expect_eq(r[0].by[1].dn.dnattr, r[1].by[1].dn.dnattr);
    /* another spelling: its own object, the same DN */
    cr_expect_neq(r[2].what.dn, r[0].what.dn);
    cr_expect(acre_dn_equal(r[2].what.dn, r[0].what.dn));
    /* what is not shared keeps each rule's own position */
    cr_expect_eq(r[0].pos.line, 1);
    cr_expect_eq(r[1].pos.line, 2);
    cr_expect_eq(r[1].by[0].pos.line, 2);
    cr_expect_eq(r[1].by[1].pos.line, 2);
    cr_expect_str_eq(r[1].what.filter_text, "(objectClass=person)");
    cr_expect_str_eq(norm(r[1].by[0].dn.dn), "cn=admin,dc=x");
}

Test(openldap_perf, shared_attrs_copied_before_adding)
{
    /* a list met before is shared; adding to it (a second attrs=) must
     * leave the shared one as it was */
    struct acreI_policy *cfg = conf_ok("access to attrs=cn by * read\n"
                                       "access to attrs=cn attrs=sn,mail "
                                       "by * read\n"
                                       "access to attrs=cn by * read\n"
                                       "access to attrs=sn,mail by * read\n");
    const struct acreI_rule *r = cfg->frontend.rules;

    cr_assert_eq(cfg->frontend.nrules, 4);
    cr_expect_eq(r[0].what.nattrs, 1);
    cr_expect_eq(r[1].what.nattrs, 3);
    cr_expect_eq(r[2].what.nattrs, 1);
    cr_expect_eq(r[3].what.nattrs, 2);
    cr_expect_eq(r[0].what.attrs, r[2].what.attrs);
    cr_expect_neq(r[1].what.attrs, r[0].what.attrs);
    cr_expect_str_eq(r[0].what.attrs[0].text, "cn");
    cr_expect_str_eq(r[1].what.attrs[0].text, "cn");
    cr_expect_str_eq(r[1].what.attrs[1].text, "sn");
    cr_expect_str_eq(r[1].what.attrs[2].text, "mail");
    cr_expect_str_eq(r[3].what.attrs[0].text, "sn");
    cr_expect_str_eq(r[3].what.attrs[1].text, "mail");
    /* val= reads the single attribute of a shared list */
    cfg = conf_ok("access to attrs=cn by * read\n"
                  "access to attrs=cn val=Foo by * read\n");
    cr_expect_eq(acreI_val(&cfg->frontend.rules[1].what)->style,
                 ACREI_VAL_EXACT);
    cr_expect_eq(acreI_val(&cfg->frontend.rules[0].what)->style,
                 ACREI_VAL_NONE);
}

Test(openldap_perf, shared_regex_and_errors_after_it)
{
    acre_diag d;
    struct acreI_policy *cfg =
        conf_ok("access to dn.regex=\"^uid=([^,]+),dc=x$\" by * read\n"
                "access to dn.regex=\"^uid=([^,]+),dc=x$\" by * read\n");
    const struct acreI_rule *r = cfg->frontend.rules;

    cr_expect_eq(acreI_dn_re(&r[0].what)->code, acreI_dn_re(&r[1].what)->code);
    cr_expect_eq(acreI_dn_re(&r[1].what)->ncapture, 1);
    cr_expect_str_eq(acreI_dn_re(&r[1].what)->pattern, "^uid=([^,]+),dc=x$");
    /* a DN, a filter, a list met before do not hide a later error */
    cr_expect(!conf("access to dn=\"cn=a\" attrs=cn by * read\n"
                    "access to dn=\"cn=a\" attrs=cn,nosuchattr by * read\n",
                    &d));
    cr_expect_eq(d.line, 2);
    cr_expect(strstr(d.message, "nosuchattr"), "%s", d.message);
    cr_expect(!conf("access to dn.regex=\"a(\" by * read\n", &d));
    cr_expect_eq(d.code, ACRE_ERR_RULE_SYNTAX);
}

/* ------------------------------------------------------------------------
 * Sizes and many rules
 */

Test(openldap_perf, many_rules_exact_arrays)
{
    enum { N = 3000 };

    char *text = talloc_strdup(ctx, "database mdb\nsuffix \"dc=x\"\n");

    for (unsigned i = 0; i < N; i++) {
        text = talloc_asprintf_append_buffer(
            text, "access to dn.one=\"ou=d%u,dc=x\"", i % 97);
        for (unsigned k = 0; k <= i % 5; k++)
            text = talloc_asprintf_append_buffer(
                text, " by dn.exact=\"uid=u%u,dc=x\" %s", (i + k) % 13,
                k % 2 ? "read" : "write");
        text = talloc_strdup_append_buffer(text, "\n");
    }
    struct acreI_policy *cfg = conf_ok(text);
    const struct acreI_section *db = &cfg->dbs[0];

    cr_assert_eq(db->nrules, N);
    cr_expect_eq(talloc_get_size(db->rules), N * sizeof(*db->rules));
    for (unsigned i = 0; i < N; i++) {
        const struct acreI_rule *r = &db->rules[i];
        char want[64];
        cr_assert_eq(r->index, i);
        cr_assert_eq(r->pos.line, i + 3);
        cr_assert_eq(r->nby, i % 5 + 1);
        snprintf(want, sizeof(want), "ou=d%u,dc=x", i % 97);
        cr_assert_str_eq(norm(r->what.dn), want);
        snprintf(want, sizeof(want), "uid=u%u,dc=x", (i + r->nby - 1) % 13);
        cr_assert_str_eq(norm(r->by[r->nby - 1].dn.dn), want);
        cr_assert_eq(r->by[r->nby - 1].mask,
                     (r->nby - 1) % 2 ? ACREI_LVL_READ : ACREI_LVL_WRITE);
    }
}

Test(openldap_perf, long_line_many_clauses)
{
    enum { N = 2000 };

    char *text = talloc_strdup(ctx, "access to *");

    for (unsigned i = 0; i < N; i++)
        text = talloc_asprintf_append_buffer(
            text, "%s by dn.exact=\"uid=u%u,dc=x\" read", i % 100 ? "" : "\n",
            i);
    text = talloc_strdup_append_buffer(text, "\n");
    struct acreI_policy *cfg = conf_ok(text);
    const struct acreI_rule *r = &cfg->frontend.rules[0];

    cr_assert_eq(r->nby, N);
    /* continued lines: positions of the physical lines */
    cr_expect_eq(r->by[0].pos.line, 2);
    cr_expect_eq(r->by[0].pos.column, 2);
    cr_expect_eq(r->by[N - 1].pos.line, N / 100 + 1);
    cr_expect_str_eq(norm(r->by[N - 1].dn.dn), "uid=u1999,dc=x");
}

/* ------------------------------------------------------------------------
 * Lexing with reused buffers
 */

Test(openldap_perf, pass_one_errors_first)
{
    acre_diag d;
    char *big = talloc_zero_size(ctx, ACREO_MAX_TOKEN + 64);

    /* slapd reads every line before acting on any: a quote left open and
     * a token too long are found even after a rule that is wrong */
    cr_expect(
        !conf("access to dn=bad by * read\nindex \"objectClass eq\n", &d));
    cr_expect_eq(d.line, 2);
    cr_expect(strstr(d.message, "unterminated"), "%s", d.message);
    memcpy(big, "index objectClass ", 18);
    memset(big + 18, 'x', ACREO_MAX_TOKEN + 1);
    char *text = talloc_asprintf(ctx, "access to dn=bad by * read\n%s\n", big);
    cr_expect(!conf(text, &d));
    cr_expect_eq(d.code, ACRE_ERR_RULE_LIMIT);
    cr_expect_eq(d.line, 2);
    cr_expect_eq(d.column, 19);
}

Test(openldap_perf, tokens_across_buffers)
{
    /* lines of every size in turn, quotes and escapes: the reused
     * buffers never leak one line's bytes into the next */
    char *text = talloc_strdup(ctx, "");

    for (unsigned i = 0; i < 200; i++) {
        unsigned pad = (i * 37) % 300;
        text = talloc_asprintf_append_buffer(
            text, "access to dn.exact=\"cn=%0*u\\\\,x,dc=x\" by \"users\" %s\n",
            (int)pad + 1, i, i % 2 ? "read" : "search");
    }
    struct acreI_policy *cfg = conf_ok(text);

    cr_assert_eq(cfg->frontend.nrules, 200);
    for (unsigned i = 0; i < 200; i++) {
        char want[400];
        const struct acreI_rule *r = &cfg->frontend.rules[i];
        snprintf(want, sizeof(want), "cn=%0*u\\,x,dc=x",
                 (int)((i * 37) % 300) + 1, i);
        cr_assert_str_eq(norm(r->what.dn), want);
        cr_assert_eq(r->by[0].dn.kind, ACREI_SUBJ_USERS);
        cr_assert_eq(r->by[0].mask, i % 2 ? ACREI_LVL_READ : ACREI_LVL_SEARCH);
    }
}

Test(openldap_perf, cnconfig_many_values)
{
    enum { N = 1500 };

    char *text = talloc_strdup(ctx, "dn: olcDatabase={1}mdb,cn=config\n"
                                    "objectClass: olcDatabaseConfig\n"
                                    "olcDatabase: {1}mdb\n"
                                    "olcSuffix: dc=x\n");
    for (unsigned i = 0; i < N; i++) /* given in reverse order */
        text = talloc_asprintf_append_buffer(
            text, "olcAccess: {%u}to dn.base=\"cn=c%u,dc=x\" by * read\n",
            N - 1 - i, N - 1 - i);
    struct acreI_policy *cfg = NULL;
    acre_diag d = {0};
    int rc =
        acreO_parse_cnconfig(ctx, NULL, "c.ldif", text, strlen(text), &cfg, &d);

    cr_assert_eq(rc, 0, "%s", d.message);
    cr_assert_eq(cfg->ndbs, 1);
    cr_assert_eq(cfg->dbs[0].nrules, N);
    for (unsigned i = 0; i < N; i++) {
        char want[32];
        snprintf(want, sizeof(want), "cn=c%u,dc=x", i);
        cr_assert_str_eq(norm(cfg->dbs[0].rules[i].what.dn), want);
    }
}

/* ------------------------------------------------------------------------
 * Many databases: the suffix index (engine/ir.c)
 */

/* The database holding dn as slapd's select_backend finds it: the first in
 * order one of whose suffixes is dn or an ancestor (a plain scan). */
static const struct acreI_section *
section_scan(const struct acreI_policy *cfg, const acre_dn *dn)
{
    for (unsigned d = 0; d < cfg->ndbs; d++)
        for (unsigned i = 0; i < cfg->dbs[d].nsuffix; i++)
            if (acre_dn_in_scope(dn, cfg->dbs[d].suffix[i], ACRE_SCOPE_SUB) ==
                1)
                return &cfg->dbs[d];
    return NULL;
}

static const struct acreI_section *
section_of(const struct acreI_policy *cfg, const char *s)
{
    acre_dn *dn;

    cr_assert_eq(acre_dn_parse(ctx, NULL, s, strlen(s), 0, &dn, NULL), 0, "%s",
                 s);
    const struct acreI_section *got = acreI_section_for(cfg, dn);
    cr_assert_eq(got, section_scan(cfg, dn), "%s", s);
    return got;
}

/* 40,000 databases (compiling them took 15 s when each DN's database was
 * found by scanning them all): a deeper suffix in an earlier database,
 * several suffixes per database, the root suffix last; every database
 * chosen as slapd chooses it, in the IR and in the compiled policy. */
Test(openldap_perf, many_databases_section_for)
{
    enum { N = 40000 };

    struct text t = {0};

    text_add(&t, "access to dn.regex=\"^cn=g\" by * read\n"
                 "database mdb\n"
                 "suffix \"ou=deep,dc=d1,dc=com\"\n"
                 "access to * by * none\n");
    for (unsigned i = 0; i < N; i++) {
        text_add(&t, "database mdb\nsuffix \"dc=d%u,dc=com\"\n", i);
        if (i % 1000 == 7)
            text_add(&t, "suffix \"o=extra%u\"\nsuffix \"dc=D%u,dc=COM\"\n", i,
                     i);
        if (i % 2)
            text_add(&t, "access to dn.regex=\"^cn=r%u\" by * none\n", i);
        text_add(&t, "access to dn.subtree=\"ou=p,dc=d%u,dc=com\" by * %s\n", i,
                 i % 3 ? "read" : "none");
    }
    text_add(&t, "database mdb\nsuffix \"\"\n"
                 "access to * by * search\n");
    struct acreI_policy *cfg = conf_ok(t.s);
    cr_assert_eq(cfg->ndbs, N + 2);

    /* the deeper suffix of the first database wins below it */
    cr_expect_eq(section_of(cfg, "cn=a,ou=deep,dc=d1,dc=com"), &cfg->dbs[0]);
    cr_expect_eq(section_of(cfg, "ou=deep,dc=d1,dc=com"), &cfg->dbs[0]);
    cr_expect_eq(section_of(cfg, "ou=other,dc=d1,dc=com"), &cfg->dbs[2]);
    cr_expect_eq(section_of(cfg, "cn=x,ou=p,dc=d39999,dc=com"), &cfg->dbs[N]);
    cr_expect_eq(section_of(cfg, "o=extra5007"), &cfg->dbs[5008]);
    cr_expect_eq(section_of(cfg, "cn=z,o=extra39007"), &cfg->dbs[39008]);
    /* outside every dc=dN: the root suffix of the last database */
    cr_expect_eq(section_of(cfg, "dc=com"), &cfg->dbs[N + 1]);
    cr_expect_eq(section_of(cfg, "dc=d40000,dc=com"), &cfg->dbs[N + 1]);
    cr_expect_eq(section_of(cfg, ""), &cfg->dbs[N + 1]);
    for (unsigned i = 0; i < N; i += 97) {
        char *dn = talloc_asprintf(ctx, "cn=e,ou=p,dc=d%u,dc=com", i);
        cr_assert_eq(section_of(cfg, dn), &cfg->dbs[i + 1], "%s", dn);
    }
    /* a later suffix inside an earlier database's is still refused */
    acre_diag d;
    text_add(&t, "database mdb\n"
                 "suffix \"ou=x,dc=d20000,dc=com\"\n");
    cr_expect(conf(t.s, &d) == NULL);
    cr_expect(strstr(d.message, "already served"), "%s", d.message);
}

/* The same through the compiled policy: each entry's rules are its own
 * database's (none, read, search), then the global regex rule. */
Test(openldap_perf, many_databases_compiled)
{
    enum { N = 40000 };

    struct text t = {0};

    text_add(&t, "access to dn.regex=\"^cn=g\" by * read\n");
    for (unsigned i = 0; i < N; i++)
        text_add(&t,
                 "database mdb\nsuffix \"dc=d%u,dc=com\"\n"
                 "access to dn.regex=\"^cn=r%u,\" by * write\n"
                 "access to dn.subtree=\"dc=d%u,dc=com\" attrs=sn by * %s\n",
                 i, i, i, i % 3 ? "read" : "none");
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "p.conf", t.s, t.len};
    acre_policy *p = NULL;
    acre_diag d;
    cr_assert_eq(acre_policy_compile(ctx, NULL, &src, 1, 0, &p, &d), 0, "%s",
                 d.message);
    const acre_schema *s = acre_policy_schema(p);
    char *ldif = talloc_strdup(ctx, "");
    static const unsigned pick[] = {0, 1, 2, 3, 19999, 20000, 39998, 39999};
    for (size_t k = 0; k < sizeof(pick) / sizeof(*pick); k++)
        ldif = talloc_asprintf_append_buffer(
            ldif,
            "dn: dc=d%u,dc=com\nobjectClass: domain\ndc: d%u\n\n"
            "dn: cn=r%u,dc=d%u,dc=com\nobjectClass: person\ncn: r%u\n"
            "sn: s\n\n"
            "dn: cn=g,dc=d%u,dc=com\nobjectClass: person\ncn: g\nsn: s\n\n",
            pick[k], pick[k], pick[k], pick[k], pick[k], pick[k]);
    acre_directory *dir;
    cr_assert_eq(
        acre_directory_load(ctx, s, "t.ldif", ldif, strlen(ldif), &dir, &d), 0,
        "%s:%u %s", d.file, d.line, d.message);
    acre_subject who = {.authz_dn = "cn=someone,dc=elsewhere"};
    acre_request *rq;
    cr_assert_eq(acre_request_begin(p, &who, acre_directory_host(dir), &rq), 0);
    for (size_t k = 0; k < sizeof(pick) / sizeof(*pick); k++) {
        unsigned i = pick[k];
        char *r = talloc_asprintf(ctx, "cn=r%u,dc=d%u,dc=com", i, i);
        char *g = talloc_asprintf(ctx, "cn=g,dc=d%u,dc=com", i);
        acre_dn *dn;
        cr_assert_eq(acre_dn_parse(ctx, s, r, strlen(r), 0, &dn, NULL), 0);
        const acre_entry_view *er =
            acre_entry_view_of(acre_directory_find(dir, dn));
        cr_assert_eq(acre_dn_parse(ctx, s, g, strlen(g), 0, &dn, NULL), 0);
        const acre_entry_view *eg =
            acre_entry_view_of(acre_directory_find(dir, dn));
        cr_assert(er && eg);
        /* its own regex rule: write; not another database's */
        cr_expect_eq(acre_access(rq, er, "cn", NULL, 0, ACRE_RIGHT_WRITE, NULL),
                     1, "%s", r);
        cr_expect_eq(acre_access(rq, eg, "cn", NULL, 0, ACRE_RIGHT_WRITE, NULL),
                     0, "%s", g);
        /* its own subtree rule on sn, then the global rule: cn=g read */
        cr_expect_eq(acre_access(rq, eg, "sn", NULL, 0, ACRE_RIGHT_READ, NULL),
                     i % 3 ? 1 : 0, "%s", g);
        cr_expect_eq(acre_access(rq, eg, "cn", NULL, 0, ACRE_RIGHT_READ, NULL),
                     1, "%s", g);
    }
    acre_request_end(rq);
    acre_policy_release(p);
}
