/*
 * ldif_bench.c -- LDIF loading: acre's full directory load next to the
 * LDIF parsers of Samba's libldb and OpenLDAP's libldap, on the same text
 * in the same run.
 *
 * The input is a generated, realistic directory (~20,000 entries; 500 in
 * a smoke run): a suffix, organisational units, inetOrgPerson entries with
 * folded descriptions, base64 non-ASCII names and base64 password hashes,
 * and groupOfNames groups with DN-valued members.
 *
 * What is timed, per pass over the whole text (rows in ns per KB of LDIF,
 * so ratio = baseline time / acre time and bigger is better for acre;
 * MB/s is printed as a note):
 *   acre load    acreE_dir_new + acreE_dir_load_ldif + free: read, check
 *                every DN, type and value against the built-in schema,
 *                normalise every value, index and link the tree;
 *   acre parse   acreL_open + acreL_next over every record (reader only);
 *   libldb       ldb_ldif_read_string() per record, then talloc_free
 *                (parse only: no schema check, no index);
 *   libldap      ldif_open_mem + ldif_read_record + ldap_parse_ldif_record
 *                + ldap_ldif_record_done per record (parse only).
 *
 * Rows: ldif_load/ldb_parse_only and ldif_load/ldap_parse_only compare
 * acre's full load with the peers' parsing alone (the peers do less);
 * ldif_parse/libldb and ldif_parse/libldap compare parsing with parsing.
 * Before timing, every implementation must find the expected number of
 * records, and acre must load them all without a warning.
 */
#include "harness.h"

#include "directory.h"
#include "ldif.h"

#include <acre.h>
#include <ldap.h>
#include <ldb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif

#define SEED 0x616372656c646966u /* "acreldif" */

/*
 * libldap's record reader, from OpenLDAP's <ldif.h>: declared here because
 * -Iengine makes <ldif.h> name acre's own engine/ldif.h.
 */
typedef struct LDIFFP LDIFFP;
LDIFFP *ldif_open_mem(char *ldif, size_t size, const char *mode);
void ldif_close(LDIFFP *fp);
int ldif_read_record(LDIFFP *fp, unsigned long *lineno, char **bufp,
                     int *buflen);

typedef struct ldif_job {
    char *text; /* NUL-terminated */
    size_t len;
    size_t nrec;
    struct ldb_context *ldb;
} ldif_job;

/* ---- the generator --------------------------------------------------------
 */

static const char *const given[] = {
    "James", "Mary",  "John",  "Patricia", "Robert", "Jennifer", "Michael",
    "Linda", "David", "Zoë",   "José",     "Łukasz", "Ærin",     "Søren",
    "Chloé", "Ana",   "Björn", "Nuño",     "Ying",   "Olu",
};
static const char *const family[] = {
    "Smith", "Johnson", "Williams", "Brown", "Jones",    "García",   "Miller",
    "Davis", "Müller",  "Wilson",   "Øberg", "Anderson", "Thomas",   "Taylor",
    "Moore", "Jackson", "Martin",   "Lee",   "Perez",    "Thompson",
};
static const char *const units[] = {"Engineering", "Sales",   "Marketing",
                                    "Finance",     "Support", "Research"};

static int
is_ascii(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s >= 0x80)
            return 0;
    return 1;
}

static char *
base64(void *ctx, const unsigned char *p, size_t n)
{
    static const char b[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *o = talloc_array(ctx, char, 4 * ((n + 2) / 3) + 1), *q = o;

    if (!o)
        return NULL;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? p[i + 1] << 8 : 0) |
                     (i + 2 < n ? p[i + 2] : 0);
        *q++ = b[v >> 18 & 63];
        *q++ = b[v >> 12 & 63];
        *q++ = i + 1 < n ? b[v >> 6 & 63] : '=';
        *q++ = i + 2 < n ? b[v & 63] : '=';
    }
    *q = '\0';
    return o;
}

/* put -- one "desc: value" line (base64 when not ASCII or forced), folded
 * at 76 columns as slapcat does. */
static char *
put(char *s, const char *desc, const char *val, int b64)
{
    void *tmp = talloc_new(NULL);
    int enc = b64 || !is_ascii(val);
    char *line = talloc_asprintf(
        tmp, "%s:%s %s", desc, enc ? ":" : "",
        enc ? base64(tmp, (const unsigned char *)val, strlen(val)) : val);
    size_t n = line ? strlen(line) : 0;

    for (size_t i = 0; s && line && i < n; i += i ? 75 : 76) {
        size_t k = n - i < (i ? 75u : 76u) ? n - i : (i ? 75u : 76u);
        s = talloc_asprintf_append_buffer(s, "%s%.*s\n", i ? " " : "", (int)k,
                                          line + i);
    }
    talloc_free(tmp);
    return s;
}

static char *
person(char *s, bench_rng *r, unsigned i, char *dn_out, size_t dn_cap)
{
    const char *g = given[bench_rng_below(r, 20)];
    const char *f = family[bench_rng_below(r, 20)];
    const char *u = units[i % 6];
    char cn[96], uid[32], v[256];
    unsigned char pw[24];

    snprintf(cn, sizeof cn, "%s %s %u", g, f, i);
    snprintf(uid, sizeof uid, "u%06u", i);
    snprintf(dn_out, dn_cap, "uid=%s,ou=%s,ou=People,dc=example,dc=com", uid,
             u);
    s = talloc_asprintf_append_buffer(s, "dn: %s\n", dn_out);
    s = put(s, "objectClass", "top", 0);
    s = put(s, "objectClass", "person", 0);
    s = put(s, "objectClass", "organizationalPerson", 0);
    s = put(s, "objectClass", "inetOrgPerson", 0);
    s = put(s, "uid", uid, 0);
    s = put(s, "cn", cn, 0);
    s = put(s, "sn", f, 0);
    s = put(s, "givenName", g, 0);
    snprintf(v, sizeof v, "%s@example.com", uid);
    s = put(s, "mail", v, 0);
    snprintf(v, sizeof v, "+1 555 %03u %04u", bench_rng_below(r, 1000),
             bench_rng_below(r, 10000));
    s = put(s, "telephoneNumber", v, 0);
    snprintf(v, sizeof v, "%u", 10000 + i);
    s = put(s, "employeeNumber", v, 0);
    s = put(s, "ou", u, 0);
    snprintf(v, sizeof v,
             "%s works in %s on project %u and has a description long "
             "enough to be folded by the LDIF writer",
             g, u, bench_rng_below(r, 500));
    s = put(s, "description", v, 0);
    memcpy(pw, "{SSHA}", 6);
    for (int k = 6; k < 24; k++)
        pw[k] = (unsigned char)bench_rng_below(r, 256);
    {
        char *b = base64(NULL, pw + 6, 18);
        snprintf(v, sizeof v, "{SSHA}%s", b ? b : "");
        talloc_free(b);
    }
    s = put(s, "userPassword", v, 1);
    return talloc_asprintf_append_buffer(s, "\n");
}

/* generate -- the LDIF of n people and n/100 groups of 50 members. */
static int
generate(ldif_job *j, size_t n)
{
    bench_rng r = {SEED};
    char *s = talloc_strdup(NULL, "# generated by acre-bench\n"
                                  "dn: dc=example,dc=com\nobjectClass: top\n"
                                  "objectClass: domain\ndc: example\n\n"
                                  "dn: ou=People,dc=example,dc=com\n"
                                  "objectClass: organizationalUnit\n"
                                  "ou: People\n\n"
                                  "dn: ou=Groups,dc=example,dc=com\n"
                                  "objectClass: organizationalUnit\n"
                                  "ou: Groups\n\n");
    char(*dns)[128] = calloc(n ? n : 1, sizeof *dns);
    size_t ngroups = n / 100 ? n / 100 : 1;

    j->nrec = 3;
    for (size_t u = 0; s && u < 6; u++, j->nrec++)
        s = talloc_asprintf_append_buffer(
            s,
            "dn: ou=%s,ou=People,dc=example,dc=com\n"
            "objectClass: organizationalUnit\nou: %s\n\n",
            units[u], units[u]);
    for (size_t i = 0; s && dns && i < n; i++, j->nrec++)
        s = person(s, &r, (unsigned)i, dns[i], sizeof dns[i]);
    for (size_t g = 0; s && dns && g < ngroups; g++, j->nrec++) {
        char cn[32];

        snprintf(cn, sizeof cn, "group %zu", g);
        s = talloc_asprintf_append_buffer(
            s, "dn: cn=%s,ou=Groups,dc=example,dc=com\n", cn);
        s = put(s, "objectClass", "groupOfNames", 0);
        s = put(s, "cn", cn, 0);
        /* 50 distinct members from a random start (no duplicate values) */
        size_t at = bench_rng_below(&r, (uint32_t)n), step = n / 50;

        for (size_t m = 0; s && m < (n < 50 ? n : 50); m++)
            s = put(s, "member", dns[(at + m * (step ? step : 1)) % n], 0);
        s = talloc_asprintf_append_buffer(s, "\n");
    }
    free(dns);
    if (!s)
        return -1;
    j->text = s;
    j->len = strlen(s);
    return 0;
}

/* ---- the timed passes ------------------------------------------------------
 */

static uint64_t
acre_load_pass(void *arg)
{
    const ldif_job *j = arg;
    struct acreE_dir *d;
    uint64_t n = 0;

    if (acreE_dir_new(NULL, NULL, 0, &d) != 0)
        return 0;
    if (acreE_dir_load_ldif(d, NULL, j->text, j->len, "bench", NULL, NULL,
                            NULL) == 0)
        n = acreE_dir_count(d);
    talloc_free(d);
    return n;
}

static uint64_t
acre_parse_pass(void *arg)
{
    const ldif_job *j = arg;
    struct acreL_reader *r;
    struct acreL_record rec;
    uint64_t n = 0;

    if (acreL_open(NULL, NULL, j->text, j->len, "bench", &r) != 0)
        return 0;
    while (acreL_next(r, &rec, NULL) == 1)
        n += 1 + rec.nvals;
    acreL_close(r);
    return n;
}

static uint64_t
ldb_parse_pass(void *arg)
{
    const ldif_job *j = arg;
    const char *s = j->text;
    struct ldb_ldif *l;
    uint64_t n = 0;

    while ((l = ldb_ldif_read_string(j->ldb, &s)) != NULL) {
        n += 1 + l->msg->num_elements;
        talloc_free(l);
    }
    return n;
}

static uint64_t
ldap_parse_pass(void *arg)
{
    const ldif_job *j = arg;
    LDIFFP *fp = ldif_open_mem(j->text, j->len, "r");
    unsigned long lineno = 0;
    char *buf = NULL;
    int buflen = 0;
    uint64_t n = 0;

    if (!fp)
        return 0;
    while (ldif_read_record(fp, &lineno, &buf, &buflen) > 0) {
        struct berval rbuf = {strlen(buf), buf};
        LDIFRecord lr;

        memset(&lr, 0, sizeof lr);
        if (ldap_parse_ldif_record(&rbuf, lineno, &lr, "bench",
                                   LDIF_DEFAULT_ADD | LDIF_NO_CONTROLS) == 0)
            n++;
        ldap_ldif_record_done(&lr);
    }
    ber_memfree(buf);
    ldif_close(fp);
    return n;
}

/* ---- checks (untimed) ------------------------------------------------------
 */

static int
check_all(bench_run *run, ldif_job *j)
{
    struct acreE_dir *d;
    acre_diag diag, warn;
    unsigned nw = 0;
    uint64_t got;
    int rc;

    if (acreE_dir_new(NULL, NULL, 0, &d) != 0)
        return -1;
    rc = acreE_dir_load_ldif(d, NULL, j->text, j->len, "bench", &nw, &warn,
                             &diag);
    if (rc != 0)
        bench_fail(run, "ldif: acre load fails at line %u: %s", diag.line,
                   diag.message);
    else if (acreE_dir_count(d) != j->nrec)
        bench_fail(run, "ldif: acre loaded %zu entries, want %zu",
                   acreE_dir_count(d), j->nrec);
    if (nw)
        bench_fail(run, "ldif: %u warnings, first at line %u: %s", nw,
                   warn.line, warn.message);
    talloc_free(d);
    if ((got = ldb_parse_pass(j)) == 0)
        bench_fail(run, "ldif: ldb parsed nothing");
    if ((got = ldap_parse_pass(j)) != j->nrec)
        bench_fail(run, "ldif: libldap parsed %llu records, want %zu",
                   (unsigned long long)got, j->nrec);
    bench_note(run, "ldif: %zu records, %.1f MB", j->nrec,
               (double)j->len / 1e6);
    return rc ? -1 : 0;
}

/* ---- the rows --------------------------------------------------------------
 */

enum { I_LOAD, I_PARSE, I_LDB, I_LDAP, N_IMPL };

static void
rows(bench_run *run, ldif_job *j)
{
    bench_impl impl[N_IMPL] = {
        [I_LOAD] = {"acre load", acre_load_pass, j},
        [I_PARSE] = {"acre parse", acre_parse_pass, j},
        [I_LDB] = {"ldb_ldif_read_string", ldb_parse_pass, j},
        [I_LDAP] = {"ldap_parse_ldif_record", ldap_parse_pass, j},
    };
    double med[N_IMPL];
    size_t kb = j->len / 1024 ? j->len / 1024 : 1;

    bench_measure(run, impl, N_IMPL, kb, med);
    for (int k = 0; k < N_IMPL; k++)
        bench_note(run, "ldif: %-24s %7.1f MB/s", impl[k].name,
                   med[k] > 0 ? 1024.0 * 1e3 / med[k] : 0.0);
    if (bench_want(run, "ldif_load")) {
        bench_row(run, "ldif_load/ldb_parse_only", "ns/KB", med[I_LOAD],
                  "ldb parse only", med[I_LDB]);
        bench_row(run, "ldif_load/ldap_parse_only", "ns/KB", med[I_LOAD],
                  "libldap parse only", med[I_LDAP]);
    }
    if (bench_want(run, "ldif_parse")) {
        bench_row(run, "ldif_parse/libldb", "ns/KB", med[I_PARSE],
                  "ldb_ldif_read_string", med[I_LDB]);
        bench_row(run, "ldif_parse/libldap", "ns/KB", med[I_PARSE],
                  "ldap_parse_ldif_rec", med[I_LDAP]);
    }
}

static int
bench_ldif(bench_run *run)
{
    TALLOC_CTX *mem;
    ldif_job j = {0};
    int rc = -1;

    if (!bench_want(run, "ldif_load") && !bench_want(run, "ldif_parse"))
        return 0;
#ifdef ASAN
    setenv("LDB_MODULES_DISABLE_DEEPBIND", "1", 0);
#endif
    mem = talloc_new(NULL);
    j.ldb = mem ? ldb_init(mem, NULL) : NULL;
    if (j.ldb && generate(&j, bench_size(run, 20000, 500)) == 0 &&
        check_all(run, &j) == 0) {
        rows(run, &j);
        rc = 0;
    }
    talloc_free(j.text);
    talloc_free(mem);
    return rc;
}

static const char *const ldif_groups[] = {"ldif_load", "ldif_parse", NULL};

const bench_def bench_ldif_def = {"ldif", ldif_groups, bench_ldif};
