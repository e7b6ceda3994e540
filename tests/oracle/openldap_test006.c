/*
 * openldap_test006.c -- conformance of the OpenLDAP reference evaluator
 * with slapd 2.5.13 on OpenLDAP's own ACL regression test (test006):
 * every case of cases.{initial,final}.tsv is run through the oracle and
 * its output compared with what slapd printed (golden.*.txt).
 *
 * The data lives in the conformance directory: $ACRE_TEST006_DIR, else
 * /work/shared/conformance/openldap-test006, else the copy next to this
 * file (data/openldap-test006).  The rules are read as a slapd.conf built
 * from rules.global.acl, a "database mdb" section with the suffix and
 * rootdn the README names, and rules.db.acl.
 *
 * Normalisation, as the data's README describes the golden files:
 *   search   "# rc=<code> <text>", then the entries as LDIF; entries are
 *            compared as sets, each as its dn line plus its sorted
 *            "attr: value" lines (names lowercased, base64 only where
 *            ldapsearch needs it);
 *   slapacl  "# rc=0", then entry and children first, then the value
 *            lines compared as a sorted list (the engine keeps attributes
 *            by type, not in LDIF order).
 * Every mismatch is reported with both texts; the test fails on any.
 */
#include "directory.h"
#include "openldap.h"
#include "openldap_oracle.h"
#include "schema.h"
#include "test_host.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <talloc.h>

#define SUFFIX "dc=example,dc=com"
#define ROOTDN "cn=Manager,dc=example,dc=com"

static const char *const schema_files[] = {
    "/etc/ldap/schema/core.schema", "/etc/ldap/schema/cosine.schema",
    "/etc/ldap/schema/inetorgperson.schema", "/etc/ldap/schema/openldap.schema",
    "/etc/ldap/schema/nis.schema"};

/* ------------------------------------------------------------------------
 * Files
 */

static int
is_dir(const char *p)
{
    struct stat st;
    return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static char *
data_dir(void *ctx)
{
    const char *env = getenv("ACRE_TEST006_DIR");
    if (is_dir(env))
        return talloc_strdup(ctx, env);
    if (is_dir("/work/shared/conformance/openldap-test006"))
        return talloc_strdup(ctx, "/work/shared/conformance/openldap-test006");
    const char *slash = strrchr(__FILE__, '/');
    return talloc_asprintf(ctx, "%.*s/data/openldap-test006",
                           slash ? (int)(slash - __FILE__) : 1,
                           slash ? __FILE__ : ".");
}

static char *
slurp(void *ctx, const char *dir, const char *name)
{
    char *path = talloc_asprintf(ctx, "%s/%s", dir, name);
    FILE *f = fopen(path, "rb");
    cr_assert(f, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = talloc_array(ctx, char, (size_t)n + 1);
    cr_assert(fread(buf, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    buf[n] = '\0';
    return buf;
}

/* Split text into lines (modifies it); returns the count. */
static unsigned
split_lines(void *ctx, char *text, char ***out)
{
    unsigned n = 0, cap = 64;
    char **v = talloc_array(ctx, char *, cap);
    for (char *p = text; *p;) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        if (n == cap)
            v = talloc_realloc(ctx, v, char *, cap *= 2);
        v[n++] = p;
        if (!nl)
            break;
        p = nl + 1;
    }
    *out = v;
    return n;
}

/* ------------------------------------------------------------------------
 * The world: schema, rules, directory
 */

struct world {
    void *ctx;
    acre_schema *schema;
    struct acreI_policy *cfg;
    struct acreE_dir *dir;
    /* the engine's own copy, compiled from the same text: 1 through the
     * directory host, 2 through a test host (test_host.h) */
    int engine;
    acre_policy *pol;
    acre_directory *edir;
    struct thost *th;
};

static char *
conf_text(void *ctx, const char *dir)
{
    char *t = talloc_strdup(ctx, "");
    for (size_t i = 0; i < sizeof(schema_files) / sizeof(schema_files[0]); i++)
        t = talloc_asprintf_append(t, "include %s\n", schema_files[i]);
    t = talloc_asprintf_append(t, "%s\n", slurp(ctx, dir, "rules.global.acl"));
    t = talloc_asprintf_append(t, "database mdb\nsuffix \"" SUFFIX "\"\n"
                                  "rootdn \"" ROOTDN "\"\nrootpw secret\n");
    return talloc_asprintf_append(t, "%s\n", slurp(ctx, dir, "rules.db.acl"));
}

static void
world_init(struct world *w, const char *dir, const char *ldif)
{
    acre_diag d = {0};

    w->ctx = talloc_new(NULL);
    cr_assert(acre_schema_new(w->ctx, 0, &w->schema, &d) == 0);
    char *conf = conf_text(w->ctx, dir);
    int rc = acreO_parse_conf(w->ctx, w->schema, "test006/slapd.conf", conf,
                              strlen(conf), &w->cfg, &d);
    cr_assert(rc == 0, "rules: %s:%u:%u: %s", d.file, d.line, d.column,
              d.message);
    cr_assert(acreE_dir_new(w->ctx, w->schema, 0, &w->dir) == 0);
    char *path = talloc_asprintf(w->ctx, "%s/%s", dir, ldif);
    rc = acreE_dir_load_ldif(w->dir, path, NULL, 0, NULL, NULL, NULL, &d);
    cr_assert(rc == 0, "data: %s:%u:%u: %s", d.file, d.line, d.column,
              d.message);
    if (!w->engine)
        return;
    acre_schema *es;
    cr_assert(acre_schema_new(w->ctx, 0, &es, &d) == 0);
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "test006/slapd.conf", conf,
                       strlen(conf)};
    rc = acre_policy_compile(w->ctx, es, &src, 1, 0, &w->pol, &d);
    cr_assert(rc == 0, "engine rules: %s:%u:%u: %s", d.file, d.line, d.column,
              d.message);
    rc = acre_directory_load(w->ctx, es, path, NULL, 0, &w->edir, &d);
    cr_assert(rc == 0, "engine data: %s", d.message);
    if (w->engine == 2)
        w->th = thost_new(w->ctx, w->edir, 6, THOST_COPY | THOST_NO_NORMS);
}

/* ------------------------------------------------------------------------
 * Output in the golden files' normal form
 */

static const char *
rc_text(int rc)
{
    switch (rc) {
    case 0:
        return "";
    case 32:
        return "No such object (32)";
    case 34:
        return "Invalid DN syntax (34)";
    case 50:
        return "Insufficient access (50)";
    case 87:
        return "Bad search filter (87)";
    default:
        return "?";
    }
}

/* ------------------------------------------------------------------------
 * Cases
 */

struct tcase {
    char *line;  /* the case as in the .tsv */
    char *f[32]; /* its tab-separated fields */
    unsigned nf;
};

static void
split_tabs(struct tcase *c)
{
    char *p = c->line;
    c->nf = 0;
    while (c->nf < 32) {
        c->f[c->nf++] = p;
        char *t = strchr(p, '\t');
        if (!t)
            break;
        *t = '\0';
        p = t + 1;
    }
}

static int
new_oracle(struct world *w, void *ctx, const char *bind, const char *pw,
           struct acreR_oracle **o)
{
    struct acreR_requester rq = {0};
    if (strcmp(bind, "-") != 0) {
        rq.authz_dn = bind;
        rq.authc_dn = pw && !strcmp(pw, "@") ? ROOTDN : bind;
    }
    rq.sockurl = "ldap://127.0.0.1/";
    rq.peername = "IP=127.0.0.1:40000";
    return acreR_oracle_new(ctx, w->cfg, w->dir, &rq, o);
}

static int
scope_of(const char *s)
{
    return !strcmp(s, "base")  ? ACRE_SCOPE_BASE
           : !strcmp(s, "one") ? ACRE_SCOPE_ONE
                               : ACRE_SCOPE_SUB;
}

/* Run a search case: its normalised output (entries sorted). */
static char *
run_search(struct world *w, void *ctx, struct tcase *c)
{
    struct acreR_oracle *o;
    struct acreR_search *res;

    cr_assert(new_oracle(w, ctx, c->f[1], c->f[2], &o) == 0);
    const char *const *attrs = (const char *const *)&c->f[6];
    cr_assert(acreR_oracle_search(o, ctx, c->f[3], scope_of(c->f[4]), c->f[5],
                                  attrs, c->nf - 6, &res) == 0);
    char **ents = talloc_array(ctx, char *, res->nentries + 1);
    for (unsigned i = 0; i < res->nentries; i++)
        ents[i] = acreR_sentry_text(ctx, w->schema, &res->entries[i], 1);
    qsort(ents, res->nentries, sizeof(ents[0]), acreR_cmp_str);
    char *t = talloc_asprintf(ctx, "# rc=%d %s\n", res->rc, rc_text(res->rc));
    for (unsigned i = 0; i < res->nentries; i++)
        t = talloc_asprintf_append(t, "%s\n", ents[i]);
    return t;
}

static char *
run_slapacl(struct world *w, void *ctx, struct tcase *c)
{
    struct acreR_oracle *o;
    acre_dn *dn;

    cr_assert(new_oracle(w, ctx, c->f[1], NULL, &o) == 0);
    cr_assert(acre_dn_parse(ctx, w->schema, c->f[2], strlen(c->f[2]), 0, &dn,
                            NULL) == 0);
    const struct acreE_entry *e = acreE_dir_find(w->dir, dn);
    cr_assert(e, "slapacl: no entry %s", c->f[2]);
    return talloc_asprintf(ctx, "# rc=0\n%s",
                           acreR_oracle_slapacl(o, ctx, &e->v));
}

/* The same cases through the optimised engine's public API. */
static acre_request *
new_request(struct world *w, const char *bind, const char *pw)
{
    acre_subject who = {0};
    acre_request *rq;
    if (strcmp(bind, "-") != 0) {
        who.authz_dn = bind;
        who.authc_dn = pw && !strcmp(pw, "@") ? ROOTDN : bind;
    }
    who.sockurl = "ldap://127.0.0.1/";
    who.peername = "IP=127.0.0.1:40000";
    cr_assert(acre_request_begin(w->pol, &who,
                                 w->th ? thost_host(w->th)
                                       : acre_directory_host(w->edir),
                                 &rq) == 0);
    return rq;
}

struct collect {
    void *ctx;
    const acre_schema *schema;
    char **ents;
    unsigned n;
};

/* acre_search's callback: the entry in the same text form as the oracle's,
 * built from the verdict. */
static int
collect_entry(void *arg, const acre_entry_view *e, const acre_verdict *v)
{
    struct collect *co = arg;
    struct acreR_sentry se = {
        e, 0, talloc_array(co->ctx, struct acreR_sattr, e->nattrs + 1)};
    for (unsigned i = 0; i < v->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        if (v->attr[i] == ACRE_ATTR_NONE)
            continue;
        struct acreR_sattr *sa = &se.attrs[se.nattrs++];
        sa->attr = a;
        sa->nvals = 0;
        sa->vals = talloc_array(co->ctx, const acre_value *, a->nvals);
        for (unsigned j = 0; j < a->nvals; j++)
            if (v->value[v->first[i] + j])
                sa->vals[sa->nvals++] = &a->vals[j];
    }
    co->ents = talloc_realloc(co->ctx, co->ents, char *, co->n + 1);
    co->ents[co->n++] = acreR_sentry_text(co->ctx, co->schema, &se, 1);
    return 0;
}

static char *
run_search_engine(struct world *w, void *ctx, struct tcase *c)
{
    acre_request *rq = new_request(w, c->f[1], c->f[2]);
    struct collect co = {ctx, acre_policy_schema(w->pol), NULL, 0};
    int rc = -1;
    cr_assert(acre_search(rq, c->f[3], scope_of(c->f[4]), c->f[5],
                          (const char *const *)&c->f[6], c->nf - 6,
                          collect_entry, &co, &rc, NULL) == 0);
    acre_request_end(rq);
    if (co.n)
        qsort(co.ents, co.n, sizeof(co.ents[0]), acreR_cmp_str);
    char *t = talloc_asprintf(ctx, "# rc=%d %s\n", rc, rc_text(rc));
    for (unsigned i = 0; i < co.n; i++)
        t = talloc_asprintf_append(t, "%s\n", co.ents[i]);
    return t;
}

static char *
slapacl_line(void *ctx, char *s, acre_request *rq, const acre_entry_view *e,
             const char *name, const char *attr, const void *val, size_t vlen,
             const char *shown, size_t slen)
{
    uint32_t mask = 0;
    char buf[ACRE_MASK_BUF];
    acre_access(rq, e, attr, val, vlen, ACRE_RIGHT_AUTH, &mask);
    acre_mask_format(mask, buf);
    return shown ? talloc_asprintf_append(s, "%s=%.*s: %s\n", name, (int)slen,
                                          shown, buf)
                 : talloc_asprintf_append(s, "%s: %s\n", name, buf);
}

static char *
run_slapacl_engine(struct world *w, void *ctx, struct tcase *c)
{
    const acre_schema *es = acre_policy_schema(w->pol);
    acre_request *rq = new_request(w, c->f[1], NULL);
    acre_dn *dn;
    cr_assert(acre_dn_parse(ctx, es, c->f[2], strlen(c->f[2]), 0, &dn, NULL) ==
              0);
    const acre_entry *pe = acre_directory_find(w->edir, dn);
    cr_assert(pe, "slapacl: no entry %s", c->f[2]);
    /* the directory's view, or the test host's own */
    const acre_entry_view *e =
        w->th ? thost_view(w->th, dn) : acre_entry_view_of(pe);
    char *s = talloc_strdup(ctx, "# rc=0\n");
    s = slapacl_line(ctx, s, rq, e, "entry", "entry", NULL, 0, NULL, 0);
    s = slapacl_line(ctx, s, rq, e, "children", "children", NULL, 0, NULL, 0);
    int pw_id = acreS_attr_find(es, "userPassword", 12);
    for (uint32_t i = 0; i < e->nattrs; i++) {
        const acre_view_attr *a = &e->attrs[i];
        const struct acreS_dinfo *d = acreS_dinfo(es, a->id);
        size_t dl = d->text_len; /* the host's: canonical; else as written */
        const char *dw = w->th ? d->text : acre_entry_attr(pe, i, &dl, NULL);
        char *name = talloc_strdup(ctx, d->text);
        char *desc = talloc_strndup(ctx, dw, dl);
        for (uint32_t j = 0; j < a->nvals; j++) {
            int pw = d->type == pw_id;
            s = slapacl_line(ctx, s, rq, e, name, desc, a->vals[j].val,
                             a->vals[j].len,
                             pw ? "****" : (const char *)a->vals[j].val,
                             pw ? 4 : a->vals[j].len);
        }
    }
    acre_request_end(rq);
    return s;
}

/* ------------------------------------------------------------------------
 * Normalising a block (golden or ours) for comparison
 */

/* Search block: rc line, then entries (blank-line separated) sorted, each
 * with its attribute lines sorted.  Slapacl block: rc, entry, children,
 * then the other lines sorted, structuralObjectClass left out. */
static char *
normalise_block(void *ctx, char *text, int slapacl)
{
    char **l;
    unsigned n = split_lines(ctx, talloc_strdup(ctx, text), &l);
    while (n > 0 && l[n - 1][0] == '\0')
        n--;
    char *out = talloc_asprintf(ctx, "%s\n", n ? l[0] : "");
    if (slapacl) {
        /* the recorded answers leave out what slapadd adds */
        unsigned k = 0;
        for (unsigned i = 0; i < n; i++)
            if (strncmp(l[i], "structuralObjectClass=", 22) != 0)
                l[k++] = l[i];
        n = k;
        unsigned fixed = n < 3 ? n : 3;
        for (unsigned i = 1; i < fixed; i++)
            out = talloc_asprintf_append(out, "%s\n", l[i]);
        qsort(l + fixed, n - fixed, sizeof(l[0]), acreR_cmp_str);
        for (unsigned i = fixed; i < n; i++)
            out = talloc_asprintf_append(out, "%s\n", l[i]);
        return out;
    }
    char **ents = talloc_array(ctx, char *, n + 1);
    unsigned ne = 0;
    for (unsigned i = 1; i < n;) {
        while (i < n && l[i][0] == '\0')
            i++;
        if (i >= n)
            break;
        unsigned start = i;
        while (i < n && l[i][0] != '\0')
            i++;
        qsort(l + start + 1, i - start - 1, sizeof(l[0]), acreR_cmp_str);
        char *e = talloc_strdup(ctx, "");
        for (unsigned k = start; k < i; k++)
            e = talloc_asprintf_append(e, "%s\n", l[k]);
        ents[ne++] = e;
    }
    qsort(ents, ne, sizeof(ents[0]), acreR_cmp_str);
    for (unsigned i = 0; i < ne; i++)
        out = talloc_asprintf_append(out, "%s\n", ents[i]);
    return out;
}

/* The golden blocks: text after each "### N" header, by N (1-based). */
static unsigned
golden_blocks(void *ctx, char *text, char ***out)
{
    char **v = talloc_zero_array(ctx, char *, 1024);
    unsigned n = 0;
    char *p = text;
    while ((p = strstr(p, "### ")) != NULL && (p == text || p[-1] == '\n')) {
        unsigned num = (unsigned)atoi(p + 4);
        char *body = strchr(p, '\n');
        if (!body || num == 0 || num >= 1024)
            break;
        body++;
        char *next = strstr(body, "\n### ");
        v[num] = talloc_strndup(
            ctx, body, next ? (size_t)(next - body + 1) : strlen(body));
        if (num > n)
            n = num;
        p = next ? next + 1 : body + strlen(body);
    }
    *out = v;
    return n;
}

static void
run_suite(const char *ldif, const char *cases, const char *golden, int engine)
{
    struct world w = {0};
    const char *dir = data_dir(NULL);
    char **lines, **gold;

    w.engine = engine;
    world_init(&w, dir, ldif);
    unsigned nl = split_lines(w.ctx, slurp(w.ctx, dir, cases), &lines);
    unsigned ng = golden_blocks(w.ctx, slurp(w.ctx, dir, golden), &gold);
    unsigned num = 0, bad = 0;
    for (unsigned i = 0; i < nl; i++) {
        if (lines[i][0] == '#' || lines[i][0] == '\0')
            continue;
        struct tcase c = {talloc_strdup(w.ctx, lines[i]), {0}, 0};
        split_tabs(&c);
        num++;
        void *ctx = talloc_new(w.ctx);
        int slapacl = !strcmp(c.f[0], "slapacl");
        char *ours = engine ? (slapacl ? run_slapacl_engine(&w, ctx, &c)
                                       : run_search_engine(&w, ctx, &c))
                            : (slapacl ? run_slapacl(&w, ctx, &c)
                                       : run_search(&w, ctx, &c));
        cr_assert(num <= ng && gold[num], "%s: no golden block %u", golden,
                  num);
        char *a = normalise_block(ctx, ours, slapacl);
        char *b = normalise_block(ctx, gold[num], slapacl);
        if (strcmp(a, b) != 0) {
            bad++;
            cr_log_error("%s case %u (%s) differs\n--- %s\n%s--- slapd\n%s",
                         cases, num, lines[i], engine ? "engine" : "oracle", a,
                         b);
        }
        talloc_free(ctx);
    }
    cr_log_info("%s: %u/%u cases match slapd", cases, num - bad, num);
    cr_expect(bad == 0, "%s: %u of %u cases differ from slapd", cases, bad,
              num);
    cr_expect(num == ng, "%s: %u cases, %u golden blocks", cases, num, ng);
    if (w.th)
        cr_expect_eq(thost_outstanding(w.th), 0, "host views not released");
    talloc_free(w.ctx);
    talloc_free((void *)dir);
}

Test(openldap_test006, initial)
{
    run_suite("data.initial.ldif", "cases.initial.tsv", "golden.initial.txt",
              0);
}

Test(openldap_test006, final)
{
    run_suite("data.final.ldif", "cases.final.tsv", "golden.final.txt", 0);
}

/* The optimised engine on the same cases, against slapd's output. */
Test(openldap_test006, engine_initial)
{
    run_suite("data.initial.ldif", "cases.initial.tsv", "golden.initial.txt",
              1);
}

Test(openldap_test006, engine_final)
{
    run_suite("data.final.ldif", "cases.final.tsv", "golden.final.txt", 1);
}

/* The engine again, deciding the entries of a host of their own. */
Test(openldap_test006, host_initial)
{
    run_suite("data.initial.ldif", "cases.initial.tsv", "golden.initial.txt",
              2);
}

Test(openldap_test006, host_final)
{
    run_suite("data.final.ldif", "cases.final.tsv", "golden.final.txt", 2);
}
