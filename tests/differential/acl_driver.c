/*
 * acl_driver.c -- the differential access-control suite: acre against a
 * private slapd on the same rules, data and searches.
 *
 *   acl_driver run SEED N OUTDIR RUNNER
 *       generated cases (acl_gen.h) from run seed SEED until at least N
 *       searches have been compared; each case in OUTDIR/case-K.  Every
 *       mismatch is printed with a reproducer, and the first ones are
 *       shrunk (OUTDIR/case-K/min-J).  A case slapd refuses (slaptest,
 *       slapadd, or slapd itself at start-up) is counted and replaced by
 *       the next case.  Last line: "differential: ... P agree, F differ".
 *   acl_driver case DIR RUNNER [NAME]
 *       the same for the fixed case in DIR.
 *   acl_driver test006 DATADIR STAGE DIR
 *       write the fixed case of OpenLDAP's test006 (STAGE initial or
 *       final: tests/oracle/data/openldap-test006) into DIR.
 *   acl_driver gen SEED K DIR          write case K of run SEED into DIR
 *   acl_driver mutate SEED K DIR       the same with its rules damaged
 *                                      (acl_mutate.h; DIR/mutation says how)
 *   acl_driver mutate-data SEED K DIR  the same with its entries damaged
 *   acl_driver conf DIR WORK ROOTPW    DIR/slapd.conf and WORK/slapd.conf
 *                                      for work directory WORK, the data
 *                                      of each database in WORK/data-K.ldif;
 *                                      prints "K TAB SUFFIX TAB ROOTDN TAB
 *                                      BYTES" per database (ROOTDN "-":
 *                                      none)
 *                                      (module mode, on its module side:
 *                                      WORK/slapd.conf runs slapo-acre on
 *                                      WORK/policy.conf, DIR/slapd.conf's
 *                                      text)
 *   acl_driver conf-any DIR WORK ROOTPW  the same, an entry no database
 *                                      holds (or no DN) put in the first
 *                                      one's data, for slapadd to judge
 *   acl_driver slapd DIR URI ROOTPW [PID]   slapd's answers: DIR/slapd.out
 *   acl_driver compare DIR             acre's answers and the comparison
 *   acl_driver shrink DIR SEARCH RUNNER
 *   acl_driver show DIR SEARCH         a reproducer of search SEARCH
 *   acl_driver bench-gen MIX RULES DIR the bench-slapd case (acl_bench.h)
 *   acl_driver bench-slapd DIR URI ROOTPW PID
 *   acl_driver bench-acre DIR
 *   acl_driver bench-report JSON ROWS|- DIR...
 *
 * RUNNER is the command line that runs slapd on a case directory (the
 * directory is appended): tests/differential/acl_run.sh and this driver.
 *
 * Module mode (ACL_ACRE_MODULE=/abs/path/acre.so in the environment): the
 * two sides compared are stock slapd with the rules as its own and slapd
 * with slapo-acre deciding on the same rules (adapters/openldap), instead
 * of slapd and acre in process; see acl_check.h.
 * Exit status: 0 all agree, 1 some differ, 2 the harness failed.
 */
#include "acl_bench.h"
#include "acl_case.h"
#include "acl_check.h"
#include "acl_gen.h"
#include "acl_ldap.h"
#include "acl_mutate.h"
#include "acl_result.h"
#include "acl_shrink.h"

#include "acre.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <talloc.h>

static const char *suite = "differential";

/* How many mismatches get shrunk in one run, and the slapd runs each
 * shrink may take. */
#define SHRINK_CASES 3
#define SHRINK_RUNS  400

struct tally {
    unsigned cases, refused_conf, refused_data, searches, agree, differ;
    unsigned nonempty, entries, shrunk, cnconfig, rc[128];
    unsigned ops, ops_cases, ops_differ, ops_rc[128]; /* module mode */
};

static char *
sub(void *ctx, const char *dir, const char *name)
{
    return talloc_asprintf(ctx, "%s/%s", dir, name);
}

static void
count(struct tally *t, const struct acl_outcome *o)
{
    for (unsigned i = 0; i < o->n; i++) {
        const char *r = strstr(o->slapd[i], "result ");
        int rc = r ? atoi(r + 7) : 0;
        t->rc[rc >= 0 && rc < 128 ? rc : 127]++;
        t->nonempty += strstr(o->slapd[i], "dn: ") != NULL;
    }
    t->searches += o->n;
    t->differ += o->ndiffer;
    t->ops += o->nops;
    t->ops_cases += o->nops > 0;
    t->ops_differ += o->ops_differ;
    for (unsigned i = 0; i < 128; i++)
        t->ops_rc[i] += o->ops_rc[i];
    t->agree += o->n - o->ndiffer;
    t->entries += o->entries_slapd;
    t->cnconfig += o->cnconfig;
}

/* Report the mismatches of case c in dir; shrink the first of them while
 * the run's budget lasts. */
static void
report(struct tally *t, struct acl_runner *run, const struct acl_case *c,
       const struct acl_outcome *o, const char *dir)
{
    unsigned shown = 0, first = o->n;

    if (o->ops_differ)
        printf("%s: the compares and writes of %s differ (ops):\n%s", suite,
               dir, o->ops_report);

    for (unsigned i = 0; i < o->n; i++) {
        if (!o->differ[i])
            continue;
        if (first == o->n)
            first = i;
        if (shown++ < 3)
            acl_reproducer(stdout, c, i, o, dir);
    }
    if (shown > 3)
        printf("%s: %u more searches of %s differ (%s/slapd.out, "
               "%s/acre.out)\n",
               suite, shown - 3, dir, dir, dir);
    if (first == o->n || t->shrunk >= SHRINK_CASES || o->refused)
        return;
    t->shrunk++;
    void *tmp = talloc_new(NULL);
    char *work = sub(tmp, dir, talloc_asprintf(tmp, "min-%u", first + 1));
    struct acl_outcome *mo;
    unsigned before = run->runs;
    printf("%s: shrinking search %u of %s ...\n", suite, first + 1, dir);
    struct acl_case *m = acl_shrink(tmp, run, c, first, work, SHRINK_RUNS, &mo);
    printf("%s: shrunk in %u slapd runs:\n", suite, run->runs - before);
    if (mo && mo->differ[0])
        acl_reproducer(stdout, m, 0, mo, work);
    else
        printf("%s: search %u does not differ when asked alone\n", suite,
               first + 1);
    talloc_free(tmp);
}

static void
summary(const struct tally *t, const char *what)
{
    printf("%s: %s: %u cases, %u searches (%u returned entries, %u "
           "entries in all; results:",
           suite, what, t->cases, t->searches, t->nonempty, t->entries);
    for (unsigned i = 0; i < 128; i++)
        if (t->rc[i])
            printf(" %u x %u", t->rc[i], i);
    printf(")\n");
    if (t->refused_conf || t->refused_data)
        printf("%s: %s: regenerated %u configurations slapd refused and "
               "%u directories slapadd refused\n",
               suite, what, t->refused_conf, t->refused_data);
    if (!getenv("ACL_ACRE_MODULE"))
        printf("%s: %s: %u of %u cases also compared with the policy read "
               "from slapd's own cn=config conversion (slaptest -F)\n",
               suite, what, t->cnconfig, t->cases);
    if (t->ops) {
        printf("%s: %s: %u ops (compares and writes) in %u cases (results:",
               suite, what, t->ops, t->ops_cases);
        for (unsigned i = 0; i < 128; i++)
            if (t->ops_rc[i])
                printf(" %u x %u", t->ops_rc[i], i);
        printf("), %u cases differ\n", t->ops_differ);
    }
    printf("%s: %s: %u agree, %u differ\n", suite, what, t->agree, t->differ);
}

/* ---- run: generated cases ---------------------------------------------- */

static int
cmd_run(uint64_t seed, unsigned want, const char *outdir, const char *cmd)
{
    struct acl_runner run = {cmd, 0};
    struct tally t;
    unsigned k;

    memset(&t, 0, sizeof t);
    printf("%s: seed %llu, at least %u searches (rerun: make differential "
           "SEED=%llu N=%u)\n",
           suite, (unsigned long long)seed, want, (unsigned long long)seed,
           want);
    for (k = 0; t.searches < want; k++) {
        void *tmp = talloc_new(NULL);
        struct acl_gen_info info;
        uint64_t cs = acl_case_seed(seed, k);
        char *dir = talloc_asprintf(tmp, "%s/case-%u", outdir, k);
        struct acl_case *c = acl_gen(tmp, cs, &info);
        int rc;

        if (k > 20 && (t.refused_conf + t.refused_data) * 4 > k)
            dt_die("%s: slapd refused %u of %u generated cases: the "
                   "generator is broken",
                   suite, t.refused_conf + t.refused_data, k);
        struct acl_outcome *o = acl_one(tmp, &run, c, dir, &rc);
        char *note = talloc_asprintf(tmp, "run %llu case %u seed %llu\n",
                                     (unsigned long long)seed, k,
                                     (unsigned long long)cs);
        dt_write_file(dir, "seed", note, strlen(note));
        if (rc == ACL_RUN_CONF || rc == ACL_RUN_DATA || rc == ACL_RUN_START) {
            static const char *const why[] = {
                "slaptest refused it (slaptest.log)",
                "slapadd refused it (slapadd.log)",
                "slapd would not start with it"};
            printf("%s: case %u: %s, in %s; next case\n", suite, k,
                   why[rc - ACL_RUN_CONF], dir);
            t.refused_conf += rc != ACL_RUN_DATA;
            t.refused_data += rc == ACL_RUN_DATA;
            talloc_free(tmp);
            continue;
        }
        if (!o)
            dt_die("%s: case %u: the slapd harness failed (code %d)", suite, k,
                   rc);
        t.cases++;
        count(&t, o);
        printf("%s: case %u (seed %llu): %u entries, %u rules, %u "
               "requesters, %u databases, %u searches: %u differ\n",
               suite, k, (unsigned long long)cs, info.entries, info.rules,
               info.requesters, info.dbs, o->n, o->ndiffer);
        if (o->ndiffer || o->ops_differ)
            report(&t, &run, c, o, dir);
        talloc_free(tmp);
    }
    summary(&t, talloc_asprintf(NULL, "seed %llu", (unsigned long long)seed));
    /* a run that compared nothing could not fail */
    if (!getenv("ACL_ACRE_MODULE") && t.cases >= 4 &&
        t.cnconfig * 2 < t.cases) {
        printf("%s: slaptest converted only %u of %u configurations to "
               "cn=config (slaptest-d.log): the cn=config check is vacuous\n",
               suite, t.cnconfig, t.cases);
        return 2;
    }
    if (t.nonempty * 10 < t.searches) {
        printf("%s: only %u of %u searches returned entries: the cases are "
               "vacuous\n",
               suite, t.nonempty, t.searches);
        return 2;
    }
    return t.differ || t.ops_differ ? 1 : 0;
}

/* ---- case: a fixed case ------------------------------------------------ */

static int
cmd_case(const char *dir, const char *cmd, const char *name)
{
    void *tmp = talloc_new(NULL);
    struct acl_runner run = {cmd, 0};
    struct acl_case *c = acl_case_read(tmp, dir);
    struct tally t;
    int rc;

    memset(&t, 0, sizeof t);
    struct acl_outcome *o = acl_one(tmp, &run, c, dir, &rc);
    if (!o) {
        printf("%s: %s: slapd gave no answers (runner code %d; see %s)\n",
               suite, name, rc, dir);
        return 2;
    }
    t.cases = 1;
    count(&t, o);
    if (o->ndiffer || o->ops_differ)
        report(&t, &run, c, o, dir);
    summary(&t, name);
    talloc_free(tmp);
    return t.differ || t.ops_differ ? 1 : 0;
}

/* ---- test006 ----------------------------------------------------------- */

/* The index of the requester (k, dn, pw) of c, added if new. */
static unsigned
add_rq(struct acl_case *c, enum acl_kind k, const char *dn, const char *pw)
{
    for (unsigned i = 0; i < c->nrq; i++) {
        const struct acl_rq *r = &c->rq[i];
        if (r->kind == k &&
            !strcmp(k == ACL_PROXY ? r->authz : r->bind_dn, dn) &&
            !strcmp(r->password, pw))
            return i;
    }
    c->rq = talloc_realloc(c, c->rq, struct acl_rq, c->nrq + 1);
    struct acl_rq *r = &c->rq[c->nrq];
    r->kind = k;
    r->label = talloc_strdup(c, k == ACL_ANON ? "anonymous" : dn);
    r->authz = talloc_strdup(c, k == ACL_PROXY ? dn : "");
    r->bind_dn =
        talloc_strdup(c, k == ACL_PROXY ? "cn=Manager,dc=example,dc=com" : dn);
    r->password = talloc_strdup(c, k == ACL_BIND ? pw : "");
    return c->nrq++;
}

/* One "search BINDDN PASSWORD BASE SCOPE FILTER [ATTR...]" line: BINDDN
 * "-" is anonymous, PASSWORD "@" the rootdn with proxied authorisation. */
static void
test006_search(struct acl_case *c, char *line)
{
    char *f[64], *save = NULL;
    unsigned n = 0, rq;

    for (char *x = strtok_r(line, "\t", &save); x && n < 64;
         x = strtok_r(NULL, "\t", &save))
        f[n++] = x;
    if (n < 6 || strcmp(f[0], "search"))
        return;
    if (!strcmp(f[1], "-"))
        rq = add_rq(c, ACL_ANON, "", "");
    else if (!strcmp(f[2], "@"))
        rq = add_rq(c, ACL_PROXY, f[1], "");
    else
        rq = add_rq(c, ACL_BIND, f[1], f[2]);
    c->s = talloc_realloc(c, c->s, struct acl_search, c->ns + 1);
    struct acl_search *s = &c->s[c->ns++];
    memset(s, 0, sizeof *s);
    s->rq = rq;
    s->base = talloc_strdup(c, f[3]);
    s->scope = acl_scope_parse(f[4]);
    s->filter = talloc_strdup(c, f[5]);
    s->attrs = talloc_array(c, char *, n);
    for (unsigned i = 6; i < n; i++)
        s->attrs[s->nattrs++] = talloc_strdup(c, f[i]);
}

static int
cmd_test006(const char *data, const char *stage, const char *dir)
{
    void *tmp = talloc_new(NULL);
    struct acl_case *c = talloc_zero(tmp, struct acl_case);
    char *global = dt_read_file(sub(tmp, data, "rules.global.acl"), NULL);
    char *db = dt_read_file(sub(tmp, data, "rules.db.acl"), NULL);
    char *cases = dt_read_file(
        sub(tmp, data, talloc_asprintf(tmp, "cases.%s.tsv", stage)), NULL);
    char *save = NULL;

    c->rules = talloc_asprintf(c,
                               "# OpenLDAP test006 (tests/data/slapd-acl.conf)"
                               "\n%s\ndatabase mdb\n"
                               "suffix \"dc=example,dc=com\"\n"
                               "rootdn \"cn=Manager,dc=example,dc=com\"\n%s",
                               global, db);
    char *ldif = dt_read_file(
        sub(tmp, data, talloc_asprintf(tmp, "data.%s.ldif", stage)), NULL);
    c->ldif = talloc_strdup(c, ldif);
    free(ldif);
    c->schemas = talloc_strdup(c, "core cosine inetorgperson openldap nis");
    for (char *l = strtok_r(cases, "\n", &save); l;
         l = strtok_r(NULL, "\n", &save))
        if (l[0] != '#')
            test006_search(c, l);
    mkdir(dir, 0777);
    acl_case_write(c, dir);
    printf("%s: test006 %s: %u requesters, %u searches in %s\n", suite, stage,
           c->nrq, c->ns, dir);
    free(global);
    free(db);
    free(cases);
    return 0;
}

/* ---- the pieces the runner script calls -------------------------------- */

static int
cmd_gen(uint64_t seed, unsigned k, const char *dir)
{
    void *tmp = talloc_new(NULL);
    struct acl_case *c = acl_gen(tmp, acl_case_seed(seed, k), NULL);

    mkdir(dir, 0777);
    acl_case_write(c, dir);
    talloc_free(tmp);
    return 0;
}

/* Case K of run seed with its rules (or, with data, its entries)
 * mutated (acl_mutate.h), into dir; dir/mutation says how. */
static int
cmd_mutate(uint64_t seed, unsigned k, const char *dir, int data)
{
    void *tmp = talloc_new(NULL);
    uint64_t cs = acl_case_seed(seed, k);
    struct acl_case *c = acl_gen(tmp, cs, NULL);
    char *what;

    if (data)
        c->ldif = acl_mutate_data(c, c->ldif, cs ^ 0x64616d616765ull, &what);
    else
        c->rules = acl_mutate(c, c->rules, cs ^ 0x6d757461746521ull, &what);
    mkdir(dir, 0777);
    acl_case_write(c, dir);
    what = talloc_asprintf(tmp, "%s\n", what);
    dt_write_file(dir, "mutation", what, strlen(what));
    talloc_free(tmp);
    return 0;
}

/* The index of the database holding the entry of LDIF record rec, or
 * -1; its DN read under schema (NULL: RFC 4514). */
static int
record_db(const char *rec, const acre_schema *schema, acre_dn **sfx, unsigned n)
{
    char *v = acl_ldif_dn(NULL, rec);
    acre_dn *dn;
    int db = -1;

    if (v && !acre_dn_parse(NULL, schema, v, strlen(v), 0, &dn, NULL)) {
        for (unsigned i = 0; db < 0 && i < n; i++)
            if (sfx[i] && acre_dn_in_scope(dn, sfx[i], ACRE_SCOPE_SUB) == 1)
                db = (int)i;
        acre_dn_free(dn);
    }
    talloc_free(v);
    return db;
}

/* any: the data may be damaged (mutate-data); a record no database
 * holds goes to the first one, whose slapadd then judges it. */
static int
cmd_conf(const char *dir, const char *work, const char *rootpw, int any)
{
    void *tmp = talloc_new(NULL);
    struct acl_case *c = acl_case_read(tmp, dir);
    char *conf = acl_case_conf(tmp, c, work, rootpw);
    const char *so = acl_module_side();
    unsigned ndbs;
    struct acl_db *dbs = acl_case_dbs(tmp, c, &ndbs);
    acre_dn **sfx = talloc_zero_array(tmp, acre_dn *, ndbs + 1);
    struct dt_str *data = talloc_zero_array(tmp, struct dt_str, ndbs + 1);
    char *ldif = acl_ldif_uncomment(tmp, c->ldif);
    const acre_schema *slapd = acl_slapd_schema(); /* slapd's reading */

    dt_write_file(dir, "slapd.conf", conf, strlen(conf));
    if (so) { /* slapo-acre decides, on the same text as its policy */
        char *pol = talloc_asprintf(tmp, "%s/policy.conf", work);
        dt_write_file(work, "policy.conf", conf, strlen(conf));
        conf = acl_case_conf_module(tmp, c, work, rootpw, so, pol);
    }
    dt_write_file(work, "slapd.conf", conf, strlen(conf));
    for (unsigned i = 0; i < ndbs; i++) {
        dt_str_init(&data[i]);
        if (dbs[i].suffix)
            acre_dn_parse(tmp, NULL, dbs[i].suffix, strlen(dbs[i].suffix), 0,
                          &sfx[i], NULL);
    }
    for (char *p = ldif; *p;) {
        char *end = strstr(p, "\n\n");
        size_t n = end ? (size_t)(end - p) + 1 : strlen(p);
        while (*p == '\n')
            p++, n--;
        if (n && (any || !strncmp(p, "dn:", 3))) {
            int db = record_db(p, slapd, sfx, ndbs);
            if (db < 0 && any)
                db = 0;
            if (db < 0) {
                fprintf(stderr, "%s: no database holds the entry %.*s\n", suite,
                        (int)strcspn(p, "\n"), p);
                return 2;
            }
            dt_str_putn(&data[db], p, n);
            dt_str_putc(&data[db], '\n');
        }
        p += n;
        while (*p == '\n')
            p++;
    }
    for (unsigned i = 0; i < ndbs; i++) {
        dt_write_file(work, talloc_asprintf(tmp, "data-%u.ldif", i), data[i].p,
                      data[i].len);
        /* "-": no rootdn (an empty field would vanish in the shell's
         * read, its tabs being white space) */
        printf("%u\t%s\t%s\t%zu\n", i, dbs[i].suffix ? dbs[i].suffix : "",
               dbs[i].rootdn ? dbs[i].rootdn : "-", data[i].len);
        dt_str_free(&data[i]);
    }
    talloc_free(tmp);
    return 0;
}

static int
cmd_slapd(const char *dir, const char *uri, const char *rootpw)
{
    void *tmp = talloc_new(NULL);
    struct acl_case *c = acl_case_read(tmp, dir);
    struct dt_str out;

    dt_str_init(&out);
    acl_ldap_run(c, uri, rootpw, &out);
    dt_write_file(dir, "slapd.out", out.p, out.len);
    /* the compares and writes: module mode only, where both sides are
     * slapd (acre's own side has no write path to compare) */
    if (c->nops && getenv("ACL_ACRE_MODULE")) {
        dt_str_clear(&out);
        acl_ldap_ops(c, uri, rootpw, &out);
        dt_write_file(dir, "slapd-ops.out", out.p, out.len);
    }
    dt_str_free(&out);
    talloc_free(tmp);
    return 0;
}

static int
cmd_compare(const char *dir)
{
    void *tmp = talloc_new(NULL);
    struct acl_case *c = acl_case_read(tmp, dir);
    struct acl_outcome *o = acl_compare(tmp, c, dir);
    int rc = o->ndiffer ? 1 : 0;

    for (unsigned i = 0; i < o->n; i++)
        if (o->differ[i])
            acl_reproducer(stdout, c, i, o, dir);
    printf("%s: %s: %u searches, %u differ\n", suite, dir, o->n, o->ndiffer);
    talloc_free(tmp);
    return rc;
}

static int
cmd_show(const char *dir, unsigned i)
{
    void *tmp = talloc_new(NULL);
    struct acl_case *c = acl_case_read(tmp, dir);
    struct acl_outcome *o = acl_compare(tmp, c, dir);

    if (i < 1 || i > c->ns)
        dt_die("no search %u in %s", i, dir);
    acl_reproducer(stdout, c, i - 1, o, dir);
    talloc_free(tmp);
    return o->differ[i - 1];
}

static int
cmd_shrink(const char *dir, unsigned i, const char *cmd)
{
    void *tmp = talloc_new(NULL);
    struct acl_runner run = {cmd, 0};
    struct acl_case *c = acl_case_read(tmp, dir);
    struct acl_outcome *o;
    char *work = talloc_asprintf(tmp, "%s/min-%u", dir, i);

    if (i < 1 || i > c->ns)
        dt_die("no search %u in %s", i, dir);
    struct acl_case *m = acl_shrink(tmp, &run, c, i - 1, work, SHRINK_RUNS, &o);
    printf("%s: %u slapd runs\n", suite, run.runs);
    if (!o || !o->differ[0]) {
        printf("%s: search %u does not differ when asked alone\n", suite, i);
        return 0;
    }
    acl_reproducer(stdout, m, 0, o, work);
    talloc_free(tmp);
    return 1;
}

static int
cmd_bench(int argc, char **argv)
{
    void *tmp = talloc_new(NULL);
    int rc = 2;

    if (argc == 5 && !strcmp(argv[1], "bench-gen")) {
        struct acl_case *c =
            acl_bench_gen(tmp, argv[2], (unsigned)strtoul(argv[3], NULL, 10));
        if (!c) {
            fprintf(stderr, "%s: bench-gen: no mix %s of %s rules\n", suite,
                    argv[2], argv[3]);
            talloc_free(tmp);
            return 2;
        }
        mkdir(argv[4], 0777);
        acl_case_write(c, argv[4]);
        rc = 0;
    } else if (argc == 6 && !strcmp(argv[1], "bench-slapd")) {
        rc = -acl_bench_slapd(acl_case_read(tmp, argv[2]), argv[2], argv[3],
                              argv[4], strtol(argv[5], NULL, 10));
    } else if (argc == 3 && !strcmp(argv[1], "bench-acre")) {
        rc = -acl_bench_acre(acl_case_read(tmp, argv[2]), argv[2]);
    } else if (argc >= 5 && !strcmp(argv[1], "bench-report")) {
        rc = acl_bench_report(argv + 4, (unsigned)argc - 4, argv[2],
                              strcmp(argv[3], "-") ? argv[3] : NULL);
    }
    talloc_free(tmp);
    return rc;
}

static int
usage(void)
{
    fprintf(stderr, "usage: acl_driver run SEED N OUTDIR RUNNER\n"
                    "       acl_driver case DIR RUNNER [NAME]\n"
                    "       acl_driver test006 DATADIR initial|final DIR\n"
                    "       acl_driver gen SEED K DIR\n"
                    "       acl_driver mutate|mutate-data SEED K DIR\n"
                    "       acl_driver conf|conf-any DIR WORK ROOTPW\n"
                    "       acl_driver slapd DIR URI ROOTPW\n"
                    "       acl_driver compare DIR\n"
                    "       acl_driver shrink DIR SEARCH RUNNER\n"
                    "       acl_driver show DIR SEARCH\n"
                    "       acl_driver bench-gen MIX RULES DIR\n"
                    "       acl_driver bench-slapd DIR URI ROOTPW PID\n"
                    "       acl_driver bench-acre DIR\n"
                    "       acl_driver bench-report JSON ROWS|- DIR...\n");
    return 2;
}

int
main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 2)
        return usage();
    if (argc == 6 && !strcmp(argv[1], "run"))
        return cmd_run(strtoull(argv[2], NULL, 10),
                       (unsigned)strtoul(argv[3], NULL, 10), argv[4], argv[5]);
    if ((argc == 4 || argc == 5) && !strcmp(argv[1], "case"))
        return cmd_case(argv[2], argv[3], argc == 5 ? argv[4] : argv[2]);
    if (argc == 5 && !strcmp(argv[1], "test006"))
        return cmd_test006(argv[2], argv[3], argv[4]);
    if (argc == 5 && !strcmp(argv[1], "mutate"))
        return cmd_mutate(strtoull(argv[2], NULL, 10),
                          (unsigned)strtoul(argv[3], NULL, 10), argv[4], 0);
    if (argc == 5 && !strcmp(argv[1], "mutate-data"))
        return cmd_mutate(strtoull(argv[2], NULL, 10),
                          (unsigned)strtoul(argv[3], NULL, 10), argv[4], 1);
    if (argc == 5 && !strcmp(argv[1], "gen"))
        return cmd_gen(strtoull(argv[2], NULL, 10),
                       (unsigned)strtoul(argv[3], NULL, 10), argv[4]);
    if (argc == 5 && !strcmp(argv[1], "conf"))
        return cmd_conf(argv[2], argv[3], argv[4], 0);
    if (argc == 5 && !strcmp(argv[1], "conf-any"))
        return cmd_conf(argv[2], argv[3], argv[4], 1);
    if ((argc == 5 || argc == 6) && !strcmp(argv[1], "slapd"))
        return cmd_slapd(argv[2], argv[3], argv[4]);
    if (!strncmp(argv[1], "bench-", 6))
        return cmd_bench(argc, argv);
    if (argc == 3 && !strcmp(argv[1], "compare"))
        return cmd_compare(argv[2]);
    if (argc == 4 && !strcmp(argv[1], "show"))
        return cmd_show(argv[2], (unsigned)strtoul(argv[3], NULL, 10));
    if (argc == 5 && !strcmp(argv[1], "shrink"))
        return cmd_shrink(argv[2], (unsigned)strtoul(argv[3], NULL, 10),
                          argv[4]);
    return usage();
}
