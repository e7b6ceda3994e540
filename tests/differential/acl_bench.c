/*
 * acl_bench.c -- slapd and acre per returned entry on the same policy,
 * data and search (see acl_bench.h).
 */
#include "acl_bench.h"

#include "acl_acre.h"
#include "acl_check.h"
#include "slapd_case.h"

#include <errno.h>
#include <ldap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>
#include <time.h>
#include <unistd.h>

#define SAMPLES    9     /* samples of each figure */
#define SLOW_EVERY 3     /* ... a third of them when one search takes */
#define SLOW_NS    2e9   /* more than SLOW_NS */
#define SAMPLE_NS  2.5e8 /* aim for samples of 0.25 s or more */
#define ROOTDN     "cn=manager,dc=example,dc=com"

/* ---- the case ---------------------------------------------------------- */

/* Units of the case: SLAPD_CASE_UNITS, or ACRE_BENCH_UNITS (1..that; a
 * tiny run: 2). */
static unsigned
bench_units(void)
{
    const char *e = getenv("ACRE_BENCH_UNITS");
    unsigned long n = e ? strtoul(e, NULL, 10) : SLAPD_CASE_UNITS;

    return n >= 1 && n <= SLAPD_CASE_UNITS ? (unsigned)n : SLAPD_CASE_UNITS;
}

struct acl_case *
acl_bench_gen(void *ctx, const char *mix, unsigned nrules)
{
    struct acl_case *c;
    int noacl = !strcmp(mix, "noacl"), regex = !strcmp(mix, "regex10");

    if (!noacl && !regex && strcmp(mix, "dn"))
        return NULL;
    if (noacl)
        nrules = 1;
    if (nrules < 1)
        return NULL;
    c = talloc_zero(ctx, struct acl_case);
    c->rules = talloc_asprintf(c,
                               "# acre bench-slapd: mix %s, %u rules\n"
                               "database mdb\n"
                               "suffix \"dc=example,dc=com\"\n"
                               "rootdn \"" ROOTDN "\"\n",
                               mix, nrules);
    for (unsigned i = 0; i + 1 < nrules; i++)
        c->rules = talloc_asprintf_append(c->rules, "%s",
                                          slapd_case_rule(c, regex, i));
    c->rules = talloc_asprintf_append(
        c->rules, "%s",
        noacl ? "access to *\n  by * read\n"
              : "access to *\n  by self write\n  by users read\n"
                "  by * none\n");
    c->ldif = slapd_case_ldif(c, bench_units());
    c->nrq = 2;
    c->rq = talloc_zero_array(c, struct acl_rq, 2);
    c->rq[0] = (struct acl_rq){ACL_PROXY, talloc_strdup(c, "user"),
                               talloc_strdup(c, SLAPD_CASE_USER),
                               talloc_strdup(c, ROOTDN), talloc_strdup(c, "")};
    c->rq[1] = (struct acl_rq){ACL_ROOT, talloc_strdup(c, "rootdn"),
                               talloc_strdup(c, ""), talloc_strdup(c, ROOTDN),
                               talloc_strdup(c, "")};
    c->ns = 2;
    c->s = talloc_zero_array(c, struct acl_search, 2);
    for (unsigned i = 0; i < 2; i++)
        c->s[i] =
            (struct acl_search){.rq = i,
                                .scope = 2,
                                .base = talloc_strdup(c, SLAPD_CASE_BASE),
                                .filter = talloc_strdup(c, "(objectClass=*)")};
    if (!c->rules || !c->ldif)
        dt_die("out of memory");
    return c;
}

/* ---- measuring --------------------------------------------------------- */

static int
cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double
median(double *v, unsigned n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double
now_ns(clockid_t clk)
{
    struct timespec t;

    clock_gettime(clk, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* CPU time of process pid (all its threads, those gone included, user
 * + system), in ns: its CPU-time clock, to the ns (/proc/PID/stat counts
 * in ticks of 10 ms, 3% of a 0.25 s sample). */
static double
proc_cpu_ns(long pid)
{
    clockid_t clk;
    struct timespec t;
    int rc = clock_getcpuclockid((pid_t)pid, &clk);

    if (rc != 0 || clock_gettime(clk, &t) != 0)
        dt_die("cannot read the CPU time of process %ld: %s", pid,
               strerror(rc ? rc : errno));
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static LDAP *
bench_conn(const char *uri, const char *rootpw)
{
    LDAP *ld;
    int v3 = LDAP_VERSION3, rc;
    struct berval cred = {strlen(rootpw), (char *)rootpw};

    if ((rc = ldap_initialize(&ld, uri)) != LDAP_SUCCESS ||
        (ldap_set_option(ld, LDAP_OPT_PROTOCOL_VERSION, &v3),
         rc = ldap_sasl_bind_s(ld, ROOTDN, LDAP_SASL_SIMPLE, &cred, NULL, NULL,
                               NULL)) != LDAP_SUCCESS)
        dt_die("bench: cannot bind to %s: %s", uri, ldap_err2string(rc));
    return ld;
}

/* One search, as the user (proxied) or the rootdn; the entries returned. */
static unsigned
slapd_search(LDAP *ld, int as_user)
{
    char authz[] = "dn:" SLAPD_CASE_USER;
    LDAPControl proxy = {
        (char *)LDAP_CONTROL_PROXY_AUTHZ, {sizeof authz - 1, authz}, 1};
    LDAPControl *ctrls[] = {&proxy, NULL};
    LDAPMessage *res = NULL;
    int rc = ldap_search_ext_s(
        ld, SLAPD_CASE_BASE, LDAP_SCOPE_SUBTREE, "(objectClass=*)", NULL, 0,
        as_user ? ctrls : NULL, NULL, NULL, LDAP_NO_LIMIT, &res);
    unsigned n = rc == LDAP_SUCCESS ? (unsigned)ldap_count_entries(ld, res) : 0;

    if (rc != LDAP_SUCCESS)
        dt_die("bench: the search failed: %s", ldap_err2string(rc));
    ldap_msgfree(res);
    return n;
}

/* One measured search: a connection to a slapd (its process pid), as the
 * user or the rootdn, repeated reps times per sample; key names its
 * median in the figures file (bench-slapd.txt, bench-module.txt). */
struct side {
    const char *key;
    LDAP *ld;
    long pid;
    int as_user;
    unsigned reps, entries, ns;
    double once_ns, v[SAMPLES];
};

/* The warm-up search: how many entries, how long, how many per sample. */
static void
side_warm(struct side *s)
{
    double t0 = now_ns(CLOCK_MONOTONIC);

    s->entries = slapd_search(s->ld, s->as_user);
    s->once_ns = now_ns(CLOCK_MONOTONIC) - t0 + 1;
    s->reps = (unsigned)(SAMPLE_NS / s->once_ns) + 1;
}

/* Sample k: slapd's CPU ns per entry over reps searches. */
static void
side_sample(struct side *s, unsigned k)
{
    double c0 = proc_cpu_ns(s->pid);

    for (unsigned r = 0; r < s->reps; r++)
        slapd_search(s->ld, s->as_user);
    s->v[k] = (proc_cpu_ns(s->pid) - c0) / s->reps / s->entries;
}

static FILE *
open_out(const char *dir, const char *name)
{
    char path[4096];
    FILE *f;

    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!(f = fopen(path, "w")))
        dt_die("cannot write %s", path);
    return f;
}

/* The slapd bench_slapd.sh holds as NAME (acl_run.sh --hold NAME): a
 * connection, and its pid; 0 when there is none. */
static int
held_slapd(const char *name, LDAP **ld, long *pid)
{
    char k[64];
    const char *uri, *pw, *p;

    snprintf(k, sizeof k, "%s_URI", name);
    uri = getenv(k);
    snprintf(k, sizeof k, "%s_ROOTPW", name);
    pw = getenv(k);
    snprintf(k, sizeof k, "%s_PID", name);
    p = getenv(k);
    if (!uri || !pw || !p)
        return 0;
    *ld = bench_conn(uri, pw);
    *pid = strtol(p, NULL, 10);
    return 1;
}

int
acl_bench_slapd(const struct acl_case *c, const char *dir, const char *uri,
                const char *rootpw, long pid)
{
    struct side sd[4];
    unsigned n = 0;
    LDAP *ld = bench_conn(uri, rootpw), *nat, *no;
    long natpid, nopid;
    int has_nat = held_slapd("ACL_NATIVE", &nat, &natpid);
    int has_no = held_slapd("ACL_NOACL", &no, &nopid);
    FILE *f;

    (void)c;
    /* this slapd as the user; the native slapd held beside it (when
     * this one runs overlay acre); the no-ACL slapd as the user and as
     * the rootdn, else this one as the rootdn: sampled in turn */
    sd[n++] = (struct side){
        .key = "slapd_user_ns", .ld = ld, .pid = pid, .as_user = 1};
    if (has_nat)
        sd[n++] = (struct side){
            .key = "native_user_ns", .ld = nat, .pid = natpid, .as_user = 1};
    if (has_no) {
        sd[n++] = (struct side){
            .key = "noacl_user_ns", .ld = no, .pid = nopid, .as_user = 1};
        sd[n++] = (struct side){.key = "noacl_root_ns", .ld = no, .pid = nopid};
    } else
        sd[n++] = (struct side){.key = "slapd_root_ns", .ld = ld, .pid = pid};
    for (unsigned i = 0; i < n; i++)
        side_warm(&sd[i]);
    /* SAMPLES rounds; a side whose search takes over SLOW_NS is sampled
     * in every third round only (three samples of one search), the
     * others in every round */
    for (unsigned k = 0; k < SAMPLES; k++)
        for (unsigned i = 0; i < n; i++)
            if (sd[i].once_ns <= SLOW_NS || k % SLOW_EVERY == SLOW_EVERY / 2)
                side_sample(&sd[i], sd[i].ns++);
    for (unsigned i = 1; i < n; i++)
        if (sd[i].entries != sd[0].entries) {
            fprintf(stderr, "bench: %s: %u entries for %s, %u for %s\n", dir,
                    sd[0].entries, sd[0].key, sd[i].entries, sd[i].key);
            return -1;
        }
    /* module mode, its module side: slapd with overlay acre */
    f = open_out(dir,
                 acl_module_side() ? "bench-module.txt" : "bench-slapd.txt");
    fprintf(f, "entries %u\n", sd[0].entries);
    for (unsigned i = 0; i < n; i++)
        fprintf(f, "%s %.1f\n%s_samples %u\n", sd[i].key,
                median(sd[i].v, sd[i].ns), sd[i].key, sd[i].ns);
    fclose(f);
    if (has_nat)
        ldap_unbind_ext_s(nat, NULL, NULL);
    if (has_no)
        ldap_unbind_ext_s(no, NULL, NULL);
    ldap_unbind_ext_s(ld, NULL, NULL);
    return 0;
}

/* ---- acre -------------------------------------------------------------- */

static int
count_entry(void *arg, const acre_entry_view *e, const acre_verdict *v)
{
    unsigned *n = arg;

    (void)e;
    (void)v;
    (*n)++;
    return 0;
}

struct decide_walk {
    acre_request *rq;
    unsigned n, visible;
};

static int
decide_one(void *arg, const acre_entry *e)
{
    struct decide_walk *w = arg;
    acre_verdict v;

    if (acre_entry_decide(w->rq, acre_entry_view_of(e), ACRE_RIGHT_READ, &v) ==
        0)
        w->visible += v.visible;
    w->n++;
    return 0;
}

int
acl_bench_acre(const struct acl_case *c, const char *dir)
{
    char *conf =
        dt_read_file(talloc_asprintf(NULL, "%s/slapd.conf", dir), NULL);
    struct acl_acre a;
    struct dt_str why;
    acre_subject who = {.authz_dn = SLAPD_CASE_USER, .authc_dn = ROOTDN};
    acre_request *rq;
    acre_dn *base;
    double vs[SAMPLES], vd[SAMPLES];
    unsigned n = 0;
    int rc;

    dt_str_init(&why);
    if (acl_acre_open(&a, "slapd.conf", conf, c->ldif, &why))
        dt_die("bench: %s", why.p);
    if (acre_request_begin(a.rules, &who, acre_directory_host(a.dir), &rq) ||
        acre_dn_parse(NULL, acre_policy_schema(a.rules), SLAPD_CASE_BASE,
                      strlen(SLAPD_CASE_BASE), 0, &base, NULL))
        dt_die("bench: cannot start the request");
    acre_search(rq, SLAPD_CASE_BASE, ACRE_SCOPE_SUB, "(objectClass=*)", NULL, 0,
                count_entry, &n, &rc, NULL); /* warm-up */
    for (unsigned s = 0; s < SAMPLES; s++) {
        unsigned reps = 5, k = 0;
        double t0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
        for (unsigned r = 0; r < reps; r++) {
            k = 0;
            acre_search(rq, SLAPD_CASE_BASE, ACRE_SCOPE_SUB, "(objectClass=*)",
                        NULL, 0, count_entry, &k, &rc, NULL);
        }
        vs[s] = (now_ns(CLOCK_PROCESS_CPUTIME_ID) - t0) / reps / k;
        struct decide_walk w = {rq, 0, 0};
        t0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
        for (unsigned r = 0; r < reps; r++) {
            w.n = w.visible = 0;
            acre_directory_walk(a.dir, base, ACRE_SCOPE_SUB, decide_one, &w);
        }
        vd[s] = (now_ns(CLOCK_PROCESS_CPUTIME_ID) - t0) / reps / w.n;
    }
    FILE *f = open_out(dir, "bench-acre.txt");
    fprintf(f, "entries %u\nacre_search_ns %.1f\nacre_decide_ns %.1f\n", n,
            median(vs, SAMPLES), median(vd, SAMPLES));
    fclose(f);
    acre_dn_free(base);
    acre_request_end(rq);
    acl_acre_close(&a);
    free(conf);
    dt_str_free(&why);
    return 0;
}

/* ---- the report -------------------------------------------------------- */

/* Does dir/name exist? */
static int
has_file(const char *dir, const char *name)
{
    char path[4096];

    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, R_OK) == 0;
}

/* The number after `key` in file dir/name. */
static double
figure(const char *dir, const char *name, const char *key)
{
    char *text = dt_read_file(talloc_asprintf(NULL, "%s/%s", dir, name), NULL);
    char *p = strstr(text, key);
    double v;

    if (!p)
        dt_die("%s/%s: no %s", dir, name, key);
    v = strtod(p + strlen(key), NULL);
    free(text);
    return v;
}

/* 10, 100, 1k, 10k: N in a row name. */
static const char *
rules_label(void *ctx, unsigned n)
{
    return n >= 1000 && n % 1000 == 0 ? talloc_asprintf(ctx, "%uk", n / 1000)
                                      : talloc_asprintf(ctx, "%u", n);
}

/* One row of bench/results.json (acre-bench's form, one line); *nrows
 * counts the rows written. */
static void
results_row(FILE *f, unsigned *nrows, const char *name, double value,
            const char *baseline, double baseline_value)
{
    fprintf(f,
            "%s  {\"name\": \"%s\", \"unit\": \"ns/entry\", \"value\": "
            "%.3f, \"baseline\": \"%s\", \"baseline_value\": %.3f, "
            "\"ratio\": %.3f}",
            (*nrows)++ ? ",\n" : "", name, value, baseline, baseline_value,
            baseline_value / value);
}

int
acl_bench_report(char *const *dirs, unsigned n, const char *json,
                 const char *rows)
{
    void *tmp = talloc_new(NULL);
    FILE *j = json ? fopen(json, "w") : NULL;
    FILE *r = rows ? fopen(rows, "w") : NULL;
    double worst_keep = -1;
    const char *worst_at = "";
    unsigned nrows = 0;

    if ((json && !j) || (rows && !r))
        dt_die("cannot write %s", json && !j ? json : rows);
    printf("bench-slapd: subtree search of %s, (objectClass=*), all user "
           "attributes, as a user (proxied authorisation)\n"
           "bench-slapd: us of CPU per returned entry (medians); slapd: its "
           "process's CPU time; acre: acre_search, and acre_entry_decide "
           "alone\n\n",
           SLAPD_CASE_BASE);
    printf("%-8s %6s %7s %8s %8s %9s %9s %9s %9s %9s %8s\n", "mix", "rules",
           "entries", "no-ACL", "rootdn", "native", "overlay", "acre srch",
           "acre dec", "noacl/ovl", "nat/ovl");
    if (j)
        fprintf(j, "{\n  \"bench\": \"bench-slapd\",\n  \"unit\": \"ns per "
                   "returned entry\",\n  \"rows\": [\n");
    if (r)
        fprintf(r, "[\n");
    for (unsigned i = 0; i < n; i++) {
        char *rules =
            dt_read_file(talloc_asprintf(tmp, "%s/rules.conf", dirs[i]), NULL);
        char mix[16];
        unsigned nrules;
        /* slapd with overlay acre, when measured (bench-slapd-module):
         * sampled in turn with native slapd and the no-ACL one; else
         * native slapd, with the no-ACL one */
        int ovl = has_file(dirs[i], "bench-module.txt");
        const char *fig = ovl ? "bench-module.txt" : "bench-slapd.txt";
        double ent = figure(dirs[i], fig, "entries ");
        double nat =
            figure(dirs[i], fig, ovl ? "native_user_ns " : "slapd_user_ns ");
        double no = figure(dirs[i], fig, "noacl_user_ns ");
        double root = figure(dirs[i], fig, "noacl_root_ns ");
        double mu = ovl ? figure(dirs[i], fig, "slapd_user_ns ") : -1;
        double as = figure(dirs[i], "bench-acre.txt", "acre_search_ns ");
        double ad = figure(dirs[i], "bench-acre.txt", "acre_decide_ns ");
        double ae = figure(dirs[i], "bench-acre.txt", "entries ");

        if (sscanf(rules, "# acre bench-slapd: mix %15[^,], %u rules", mix,
                   &nrules) != 2)
            dt_die("%s/rules.conf: not a bench-slapd case", dirs[i]);
        if (ae != ent)
            dt_die("%s: slapd returned %.0f entries, acre %.0f", dirs[i], ent,
                   ae);
        printf("%-8s %6u %7.0f %8.2f %8.2f %9.2f", mix, nrules, ent, no / 1e3,
               root / 1e3, nat / 1e3);
        if (ovl)
            printf(" %9.2f", mu / 1e3);
        else
            printf(" %9s", "-");
        printf(" %9.2f %9.3f", as / 1e3, ad / 1e3);
        if (ovl)
            printf(" %9.3f %7.1fx", no / mu, nat / mu);
        printf("\n");
        if (ovl && (worst_keep < 0 || no / mu < worst_keep)) {
            worst_keep = no / mu;
            worst_at = talloc_asprintf(tmp, "%s, %u rules", mix, nrules);
        }
        if (j)
            fprintf(j,
                    "    {\"mix\": \"%s\", \"rules\": %u, \"entries\": %.0f, "
                    "\"slapd_noacl_ns\": %.1f, \"slapd_rootdn_ns\": %.1f, "
                    "\"slapd_native_ns\": %.1f, \"acre_search_ns\": %.1f, "
                    "\"acre_decide_ns\": %.1f",
                    mix, nrules, ent, no, root, nat, as, ad);
        if (j && ovl)
            fprintf(j,
                    ", \"slapd_overlay_ns\": %.1f, \"noacl_vs_overlay\": "
                    "%.3f, \"native_vs_overlay\": %.2f",
                    mu, no / mu, nat / mu);
        if (j)
            fprintf(j, "}%s\n", i + 1 < n ? "," : "");
        if (r && ovl) {
            const char *name = talloc_asprintf(tmp, "slapd_overlay_%s_%s", mix,
                                               rules_label(tmp, nrules));
            results_row(r, &nrows, talloc_asprintf(tmp, "%s/noacl", name), mu,
                        "slapd, access to * by * read", no);
            results_row(r, &nrows, talloc_asprintf(tmp, "%s/native", name), mu,
                        "slapd, native ACLs", nat);
        }
        free(rules);
    }
    if (j) {
        fprintf(j, "  ]\n}\n");
        if (fclose(j))
            dt_die("cannot write %s", json);
    }
    if (r) {
        fprintf(r, "%s]\n", nrows ? "\n" : "");
        if (fclose(r))
            dt_die("cannot write %s", rows);
    }
    printf("\nbench-slapd: no-ACL: slapd under `access to * by * read`, the "
           "same search as the same user; rootdn: that slapd as its rootdn "
           "(no access check); native: slapd with the N rules as its own "
           "ACLs; overlay: slapd with overlay acre deciding on the same N "
           "rules (bench-slapd-module); noacl/ovl: the overlay's share of "
           "no-ACL throughput (goal >= 0.95 at every N); nat/ovl: native "
           "over overlay (goal >= 20 at 1,000 rules)\n");
    if (worst_keep >= 0)
        printf("bench-slapd: lowest noacl/ovl %.3f (%s)\n", worst_keep,
               worst_at);
    talloc_free(tmp);
    return 0;
}
