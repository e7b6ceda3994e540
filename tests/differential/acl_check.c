/*
 * acl_check.c -- a case through slapd and acre, compared (see
 * acl_check.h).
 *
 * slapd runs in the runner script's process (tests/differential/
 * acl_run.sh: its own slapd.conf, slapadd, a free loopback port, the
 * searches through this driver's "slapd" command, slapd stopped by PID
 * whatever happens), so that a crash or hang of slapd cannot take the
 * comparison down with it and slapd is never left running.
 */
#include "acl_check.h"

#include "acl_acre.h"
#include "acl_result.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <talloc.h>

/* Quote s for sh: 'it'\''s'. */
static char *
sh_quote(void *ctx, const char *s)
{
    char *q = talloc_strdup(ctx, "'");

    for (; *s; s++)
        q = *s == '\'' ? talloc_asprintf_append(q, "'\\''")
                       : talloc_asprintf_append(q, "%c", *s);
    return talloc_asprintf_append(q, "'");
}

static const char *
module_mode(void)
{
    const char *so = getenv("ACL_ACRE_MODULE");
    return so && *so ? so : NULL;
}

const char *
acl_module_side(void)
{
    const char *side = getenv("ACL_SLAPD_SIDE");
    return side && !strcmp(side, "module") ? module_mode() : NULL;
}

static int
run_once(struct acl_runner *run, const char *dir)
{
    char *cmd = talloc_asprintf(NULL, "%s %s", run->cmd, sh_quote(NULL, dir));
    int st;

    run->runs++;
    fflush(stdout);
    st = system(cmd);
    talloc_free(cmd);
    if (st == -1 || !WIFEXITED(st))
        return ACL_RUN_HARNESS;
    return WEXITSTATUS(st);
}

static char *
path(void *ctx, const char *dir, const char *name)
{
    return talloc_asprintf(ctx, "%s/%s", dir, name);
}

/* Module mode: stock slapd into dir/native.out (and native-ops.out), then
 * slapd with the module into dir/slapd.out (and slapd-ops.out; left
 * missing when it refused the case). */
static int
run_both(struct acl_runner *run, const struct acl_case *c, const char *dir)
{
    void *tmp = talloc_new(NULL);
    int rc;

    remove(path(tmp, dir, "slapd-ops.out"));
    remove(path(tmp, dir, "native-ops.out"));
    setenv("ACL_SLAPD_SIDE", "native", 1);
    rc = run_once(run, dir);
    if (rc == ACL_RUN_OK &&
        rename(path(tmp, dir, "slapd.out"), path(tmp, dir, "native.out")))
        rc = ACL_RUN_HARNESS;
    if (rc == ACL_RUN_OK && c->nops &&
        rename(path(tmp, dir, "slapd-ops.out"),
               path(tmp, dir, "native-ops.out")))
        rc = ACL_RUN_HARNESS;
    if (rc == ACL_RUN_OK) {
        setenv("ACL_SLAPD_SIDE", "module", 1);
        int mrc = run_once(run, dir);
        if (mrc == ACL_RUN_HARNESS)
            rc = mrc;
        else if (mrc != ACL_RUN_OK) {
            remove(path(tmp, dir, "slapd.out"));
            remove(path(tmp, dir, "slapd-ops.out"));
        }
    }
    unsetenv("ACL_SLAPD_SIDE");
    talloc_free(tmp);
    return rc;
}

int
acl_slapd(struct acl_runner *run, const struct acl_case *c, const char *dir)
{
    mkdir(dir, 0777);
    remove(talloc_asprintf(NULL, "%s/schemas", dir)); /* a stale one */
    acl_case_write(c, dir);
    if (module_mode())
        return run_both(run, c, dir);
    return run_once(run, dir);
}

/* The next line of *p (NUL-terminated in place), or NULL at the end. */
static char *
next_line(char **p)
{
    char *l = *p, *nl;

    if (!l || !*l)
        return NULL;
    if ((nl = strchr(l, '\n'))) {
        *nl = 0;
        *p = nl + 1;
    } else {
        *p = l + strlen(l);
    }
    return l;
}

/* Module mode: the ops' results and the databases after them, stock
 * slapd's (native-ops.out) against slapd with the module's
 * (slapd-ops.out): the first lines that differ, with the op they answer,
 * into o->ops_report. */
static void
ops_compare(struct acl_outcome *o, const struct acl_case *c, const char *dir)
{
    char *na = dt_read_file(path(o, dir, "native-ops.out"), NULL);
    char *mpath = path(o, dir, "slapd-ops.out"), *mo = NULL;
    char *pn = na, *pm, *ln, *lm;
    unsigned line = 0;
    struct stat st;

    if (!o->refused && stat(mpath, &st) == 0)
        mo = dt_read_file(mpath, NULL);
    pm = mo;
    o->nops = c->nops;
    /* stock slapd's result codes, for the tally */
    for (char *q = talloc_strdup(o, na), *l; (l = next_line(&q));) {
        char *f = strchr(l, '\t');
        if (isdigit((unsigned char)*l) && f && (f = strchr(f + 1, '\t')) &&
            isdigit((unsigned char)f[1])) {
            int rc = atoi(f + 1);
            o->ops_rc[rc < 128 ? rc : 127]++;
        }
    }
    if (!mo) {
        o->ops_differ = 1;
        o->ops_report =
            talloc_asprintf(o, "slapd with slapo-acre made no ops (%s)",
                            o->refused ? o->refused : "slapd-ops.out missing");
        free(na);
        return;
    }
    do {
        ln = next_line(&pn);
        lm = next_line(&pm);
        line++;
    } while (ln && lm && !strcmp(ln, lm));
    if (ln || lm) {
        unsigned k = ln && isdigit((unsigned char)*ln)   ? (unsigned)atoi(ln)
                     : lm && isdigit((unsigned char)*lm) ? (unsigned)atoi(lm)
                                                         : 0;
        o->ops_differ = 1;
        o->ops_report =
            talloc_asprintf(o,
                            "line %u of %s/native-ops.out and slapd-ops.out:\n"
                            "  slapd:        %s\n  slapd + acre: %s\n",
                            line, dir, ln ? ln : "(end)", lm ? lm : "(end)");
        if (k >= 1 && k <= c->nops) {
            const struct acl_op *op = &c->ops[k - 1];
            o->ops_report =
                talloc_asprintf_append(o->ops_report, "  op %u: %s as %s on %s",
                                       k, op->op, c->rq[op->rq].label, op->dn);
            for (unsigned i = 0; i < op->nargs; i++)
                o->ops_report =
                    talloc_asprintf_append(o->ops_report, " | %s", op->args[i]);
            o->ops_report = talloc_asprintf_append(o->ops_report, "\n");
        }
    }
    free(na);
    free(mo);
}

/* Module mode: stock slapd's answers (native.out) against slapd with the
 * module's (slapd.out, missing when it refused the case). */
static struct acl_outcome *
module_compare(struct acl_outcome *o, const struct acl_case *c, const char *dir)
{
    struct acl_raw *sl, *mo = NULL;
    unsigned nsl, nmo = 0;
    const acre_schema *schema = acl_slapd_schema();
    char *mpath = path(o, dir, "slapd.out");
    struct stat st;

    sl = acl_raw_read(o, path(o, dir, "native.out"), &nsl);
    if (nsl != c->ns)
        dt_die("%s/native.out: %u answers for %u searches", dir, nsl, c->ns);
    if (stat(mpath, &st) == 0)
        mo = acl_raw_read(o, mpath, &nmo);
    if (mo && nmo != c->ns)
        dt_die("%s/slapd.out: %u answers for %u searches", dir, nmo, c->ns);
    if (!mo)
        o->refused = talloc_asprintf(
            o, "slapd with slapo-acre refused the case (see %s/slaptest.log)",
            dir);
    o->n = c->ns;
    o->slapd = talloc_array(o, char *, c->ns + 1);
    o->acre = talloc_array(o, char *, c->ns + 1);
    o->differ = talloc_zero_array(o, unsigned char, c->ns + 1);
    for (unsigned i = 0; i < c->ns; i++) {
        o->slapd[i] = acl_normal(o, schema, &sl[i]);
        o->entries_slapd += acl_count_entries(o->slapd[i]);
        o->acre[i] = mo ? acl_normal(o, schema, &mo[i]) : o->refused;
        o->differ[i] = strcmp(o->slapd[i], o->acre[i]) != 0;
        o->ndiffer += o->differ[i];
    }
    if (c->nops)
        ops_compare(o, c, dir);
    return o;
}

/* acre's answers to c's searches (a opened), each asked on the
 * connection slapd saw for it (sl), written to dir/outname and read back
 * in the raw form. */
static struct acl_raw *
acre_answers(void *ctx, struct acl_acre *a, const struct acl_case *c,
             const struct acl_raw *sl, const char *dir, const char *outname)
{
    char **conn = talloc_array(ctx, char *, c->ns + 1);
    struct dt_str out;
    unsigned n = 0;

    for (unsigned i = 0; i < c->ns; i++)
        conn[i] = sl[i].conn;
    dt_str_init(&out);
    acl_acre_run(a, c, conn, &out);
    dt_write_file(dir, outname, out.p, out.len);
    dt_str_free(&out);
    return acl_raw_read(ctx, path(ctx, dir, outname), &n);
}

/* Does acre refuse the cn=config tree slapd refused to read back
 * (dir/slapd.d-refused)?  Else every search differs. */
static int
refused_cnconfig(struct acl_outcome *o, const struct acl_case *c,
                 const char *dir)
{
    char *tree = path(o, dir, "slapd.d-refused");
    acre_source src = {ACRE_DIALECT_SLAPD_CNCONFIG, tree, NULL, 0};
    acre_schema *schema;
    acre_policy *p = NULL;
    struct stat st;

    if (stat(path(o, tree, "cn=config.ldif"), &st) != 0)
        return 0;
    if (acre_schema_new(NULL, ACRE_SCHEMA_SLAPD, &schema, NULL))
        dt_die("acre_schema_new failed");
    if (acre_policy_compile(NULL, schema, &src, 1, 0, &p, NULL) == 0) {
        acre_policy_release(p);
        for (unsigned i = 0; i < c->ns; i++)
            if (!o->differ[i]) {
                o->acre[i] = talloc_asprintf(
                    o, "acre compiled slapd.d-refused, which slapd refused "
                       "to read (slaptest-d.log)");
                o->differ[i] = 1;
                o->ndiffer++;
            }
    }
    acre_schema_free(schema);
    return 1;
}

/*
 * The searches of c answered with the policy in `policy` (a cn=config
 * tree or LDIF), into dir/`outname`: a search whose answer differs from
 * slapd's is marked as differing, with that answer.
 */
static void
compare_policy(struct acl_outcome *o, const struct acl_case *c, const char *dir,
               const struct acl_raw *sl, const acre_schema *schema,
               const char *policy, const char *outname)
{
    acre_source src = {ACRE_DIALECT_SLAPD_CNCONFIG, policy, NULL, 0};
    struct acl_raw *ac = NULL;
    struct acl_acre a;
    struct dt_str why;
    const char *refused = NULL;

    dt_str_init(&why);
    if (acl_acre_open_source(&a, &src, c->ldif, &why) == 0) {
        ac = acre_answers(o, &a, c, sl, dir, outname);
        acl_acre_close(&a);
    } else {
        refused = why.p;
    }
    for (unsigned i = 0; i < c->ns; i++) {
        const char *n = ac ? acl_normal(o, schema, &ac[i]) : refused;
        if (o->differ[i] || strcmp(o->slapd[i], n) == 0)
            continue;
        o->acre[i] = talloc_asprintf(o, "(policy read from %s, %s)\n%s", policy,
                                     outname, n);
        o->differ[i] = 1;
        o->ndiffer++;
    }
    dt_str_free(&why);
}

/*
 * The same searches with the policy slapd's own conversion made of
 * dir/slapd.conf (acl_run.sh: slaptest -F into dir/slapd.d, slapcat -n 0
 * of it into dir/cnconfig.ldif), each compiled as the cn=config dialect
 * (compare_policy).  Returns 1 when the tree was there and compared,
 * else 0.  Not compared: rules with a value condition under a matching
 * rule of its own ("val/caseExactMatch=..."), which slapd 2.5.13 writes
 * to cn=config without the rule (acl_unparse: "val.exact=..."), so that
 * the tree means something else than the slapd.conf slapd answered from
 * (seed 8116 of the differential: the attribute's own caseIgnoreMatch
 * then matches a value caseExactMatch did not).
 */
static int
compare_cnconfig(struct acl_outcome *o, const struct acl_case *c,
                 const char *dir, const struct acl_raw *sl,
                 const acre_schema *schema)
{
    char *tree = path(o, dir, "slapd.d"), *ldif = path(o, dir, "cnconfig.ldif");
    struct stat st;

    if (strstr(c->rules, " val/"))
        return 0;
    if (stat(path(o, tree, "cn=config.ldif"), &st) != 0)
        return refused_cnconfig(o, c, dir);
    compare_policy(o, c, dir, sl, schema, tree, "acre-cnconfig.out");
    if (stat(ldif, &st) == 0)
        compare_policy(o, c, dir, sl, schema, ldif, "acre-cnconfig-ldif.out");
    return 1;
}

struct acl_outcome *
acl_compare(void *ctx, const struct acl_case *c, const char *dir)
{
    struct acl_outcome *o = talloc_zero(ctx, struct acl_outcome);
    char *conf = dt_read_file(path(o, dir, "slapd.conf"), NULL);
    struct acl_raw *sl, *ac = NULL;
    unsigned nsl;
    struct acl_acre a;
    struct dt_str why;
    const acre_schema *schema;

    if (module_mode())
        return module_compare(o, c, dir);
    sl = acl_raw_read(o, path(o, dir, "slapd.out"), &nsl);
    if (nsl != c->ns)
        dt_die("%s/slapd.out: %u answers for %u searches", dir, nsl, c->ns);
    dt_str_init(&why);
    if (acl_acre_open(&a, "slapd.conf", conf, c->ldif, &why) == 0) {
        ac = acre_answers(o, &a, c, sl, dir, "acre.out");
        schema = acre_policy_schema(a.policy);
    } else {
        o->refused = talloc_strdup(o, why.p);
        schema = acl_slapd_schema();
    }
    o->n = c->ns;
    o->slapd = talloc_array(o, char *, c->ns + 1);
    o->acre = talloc_array(o, char *, c->ns + 1);
    o->differ = talloc_zero_array(o, unsigned char, c->ns + 1);
    for (unsigned i = 0; i < c->ns; i++) {
        o->slapd[i] = acl_normal(o, schema, &sl[i]);
        o->entries_slapd += acl_count_entries(o->slapd[i]);
        o->acre[i] = ac ? acl_normal(o, schema, &ac[i]) : o->refused;
        o->differ[i] = strcmp(o->slapd[i], o->acre[i]) != 0;
        o->ndiffer += o->differ[i];
    }
    o->cnconfig = compare_cnconfig(o, c, dir, sl, schema);
    if (!o->refused)
        acl_acre_close(&a);
    free(conf);
    dt_str_free(&why);
    return o;
}

struct acl_outcome *
acl_one(void *ctx, struct acl_runner *run, const struct acl_case *c,
        const char *dir, int *rc)
{
    *rc = acl_slapd(run, c, dir);
    return *rc == ACL_RUN_OK ? acl_compare(ctx, c, dir) : NULL;
}

struct acl_case *
acl_case_single(void *ctx, const struct acl_case *c, unsigned i)
{
    struct acl_case *s = talloc_zero(ctx, struct acl_case);
    const struct acl_search *from = &c->s[i];

    s->rules = talloc_strdup(s, c->rules);
    s->ldif = talloc_strdup(s, c->ldif);
    s->schemas = c->schemas ? talloc_strdup(s, c->schemas) : NULL;
    s->nrq = 1;
    s->rq = talloc_array(s, struct acl_rq, 1);
    s->rq[0] = c->rq[from->rq];
    s->rq[0].label = talloc_strdup(s, c->rq[from->rq].label);
    s->rq[0].authz = talloc_strdup(s, c->rq[from->rq].authz);
    s->rq[0].bind_dn = talloc_strdup(s, c->rq[from->rq].bind_dn);
    s->rq[0].password = talloc_strdup(s, c->rq[from->rq].password);
    s->ns = 1;
    s->s = talloc_array(s, struct acl_search, 1);
    s->s[0] = *from;
    s->s[0].rq = 0;
    s->s[0].base = talloc_strdup(s, from->base);
    s->s[0].filter = talloc_strdup(s, from->filter);
    s->s[0].attrs = talloc_array(s, char *, from->nattrs + 1);
    for (unsigned j = 0; j < from->nattrs; j++)
        s->s[0].attrs[j] = talloc_strdup(s, from->attrs[j]);
    return s;
}

/* Print text with every line indented by two spaces. */
static void
indented(FILE *f, const char *text)
{
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, "\n");
        fprintf(f, "  %.*s\n", (int)n, p);
        p += n + (p[n] == '\n');
    }
}

void
acl_reproducer(FILE *f, const struct acl_case *c, unsigned i,
               const struct acl_outcome *o, const char *dir)
{
    void *tmp = talloc_new(NULL);

    fprintf(f, "==== reproducer: %s, search %u ====\n", dir, i + 1);
    fprintf(f,
            "---- rules.conf (slapd.conf adds the schemas \"%s\", "
            "storage and rootpw) ----\n",
            c->schemas ? c->schemas : ACL_DEFAULT_SCHEMAS);
    fputs(c->rules, f);
    fprintf(f, "---- data.ldif ----\n");
    fputs(c->ldif, f);
    fprintf(f, "---- search ----\n  %s\n", acl_search_text(tmp, c, &c->s[i]));
    if (o->refused)
        fprintf(f, "---- %s\n", o->refused);
    fprintf(f, "---- slapd answered (normalised) ----\n");
    indented(f, o->slapd[i]);
    fprintf(f, "---- acre answered (normalised) ----\n");
    indented(f, o->acre[i]);
    fprintf(f, "---- difference (- slapd only, + acre only) ----\n");
    acl_diff(f, o->slapd[i], o->acre[i], 40);
    fprintf(f, "==== end of reproducer ====\n");
    talloc_free(tmp);
}
