/*
 * dn_bench.c -- DN parsing and normalisation: acre against OpenLDAP's
 * libldap and Samba's libldb, on the same strings in the same run.
 *
 * Row groups, each on its own corpus (dn_corpus.h):
 *   dn_ascii            plain ASCII DNs, mixed case, no escapes
 *   dn_ascii_alloc      the same, acre allocating each DN (acre_dn_parse +
 *                       acre_dn_free: one talloc allocation per DN)
 *   dn_escaped_unicode  DNs with escapes, #hex values and non-ASCII values
 *   dn_normalised       the dn_ascii corpus after one pass through acre
 *                       (acre_dn_normalised), i.e. already-normalised input
 *
 * What is timed, per DN, over the identical array of strings with lengths
 * precomputed:
 *   acre     acre_dn_parse_buf() into one reused ACRE_DN_BUF_MAX buffer,
 *            then acre_dn_ancestor_hash(dn, depth) into the sink;
 *   libldap  ldap_dn_normalize(str, LDAP_DN_FORMAT_LDAP, &out,
 *            LDAP_DN_FORMAT_LDAPV3), touch out, ldap_memfree(out);
 *   libldb   ldb_dn_new(ldb, ldb, str), ldb_dn_get_casefold(), touch the
 *            casefolded string, talloc_free(dn) (see ldb_pass for the
 *            choice of talloc context; see ldb_setup for the schema).
 *
 * Before anything is timed every corpus DN is checked (acre must accept
 * it, with the depth the generator wrote; the buffer and allocating APIs
 * must agree; the normalised form must be a fixed point; the parent must
 * contain the entry by acre_dn_in_scope; an ASCII DN must equal its
 * lower-cased twin), and the DNs each peer rejects are counted (reported,
 * not judged).
 */
#include "dn_corpus.h"
#include "harness.h"

#include <acre.h>
#include <ldap.h>
#include <ldb.h>
#include <ldb_module.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

/* Under AddressSanitizer, ldb_init() cannot dlopen its modules with
 * RTLD_DEEPBIND (they play no part in DN handling); ldb's own switch turns
 * that off. */
#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif

#define SEED_ASCII 0x61637265646e3031u /* "acredn01" */
#define SEED_RICH  0x61637265646e3032u /* "acredn02" */

/* The one reused output buffer of the acre rows, aligned to 8. */
static union {
    uint64_t align;
    unsigned char bytes[ACRE_DN_BUF_MAX];
} dn_buf;

typedef struct dn_job {
    const char *group;
    const dn_corpus *c;
    struct ldb_context *ldb;
    int twin;  /* check against the lower-cased twin (ASCII corpus) */
    int fixed; /* input is expected to be acre's normalised form */
} dn_job;

/* ---- the timed passes ---------------------------------------------------- */

static uint64_t
acre_buf_pass(void *arg)
{
    const dn_job *j = arg;
    uint64_t sum = 0;
    acre_dn *dn;

    for (size_t i = 0; i < j->c->n; i++) {
        if (acre_dn_parse_buf(dn_buf.bytes, sizeof dn_buf.bytes, NULL,
                              j->c->str[i], j->c->len[i], 0, &dn, NULL) == 0)
            sum += acre_dn_ancestor_hash(dn, acre_dn_depth(dn));
        else
            sum++;
    }
    return sum;
}

static uint64_t
acre_alloc_pass(void *arg)
{
    const dn_job *j = arg;
    uint64_t sum = 0;
    acre_dn *dn;

    for (size_t i = 0; i < j->c->n; i++) {
        if (acre_dn_parse(NULL, NULL, j->c->str[i], j->c->len[i], 0, &dn,
                          NULL) == 0) {
            sum += acre_dn_ancestor_hash(dn, acre_dn_depth(dn));
            acre_dn_free(dn);
        } else {
            sum++;
        }
    }
    return sum;
}

static uint64_t
ldap_pass(void *arg)
{
    const dn_job *j = arg;
    uint64_t sum = 0;
    char *out;

    for (size_t i = 0; i < j->c->n; i++) {
        if (ldap_dn_normalize(j->c->str[i], LDAP_DN_FORMAT_LDAP, &out,
                              LDAP_DN_FORMAT_LDAPV3) == LDAP_SUCCESS) {
            sum += (unsigned char)out[0];
            ldap_memfree(out);
        } else {
            sum++;
        }
    }
    return sum;
}

/*
 * libldb the way a server uses it: a DN is made under the caller's context
 * and freed when done.  Each DN is freed at once (talloc_free(dn)), which
 * is also ldb's fastest way here: measured on the dn_ascii corpus, a
 * context per batch of 256 DNs was no faster and one context for the whole
 * pass, freed after it, was three to four times slower (freeing 50,000
 * DNs' worth of chunks at once).
 */
static uint64_t
ldb_pass(void *arg)
{
    const dn_job *j = arg;
    uint64_t sum = 0;

    for (size_t i = 0; i < j->c->n; i++) {
        struct ldb_dn *dn = ldb_dn_new(j->ldb, j->ldb, j->c->str[i]);
        const char *cf = dn ? ldb_dn_get_casefold(dn) : NULL;

        sum += cf ? (unsigned char)cf[0] : 1;
        talloc_free(dn);
    }
    return sum;
}

/*
 * An ldb context set up as Samba's schema would: the naming attributes
 * compare as directory strings (case folded).  ldb_init() registers cn,
 * dc and ou itself; the others would otherwise be compared as octet
 * strings, which would spare ldb the case folding acre and libldap do.
 * The casefold function is ldb's default one (ASCII only).
 */
static struct ldb_context *
ldb_setup(TALLOC_CTX *mem)
{
    static const char *const attrs[] = {"o", "uid", "l", "c", "st"};
    struct ldb_context *ldb;

#ifdef ASAN
    setenv("LDB_MODULES_DISABLE_DEEPBIND", "1", 0);
#endif
    ldb = ldb_init(mem, NULL);

    if (ldb == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof attrs / sizeof *attrs; i++)
        if (ldb_schema_attribute_add(ldb, attrs[i], 0,
                                     LDB_SYNTAX_DIRECTORY_STRING) != 0)
            return NULL;
    return ldb;
}

/* ---- checks (untimed) ---------------------------------------------------- */

static int
parse_checked(bench_run *run, const dn_job *j, const char *s, size_t len,
              acre_dn **out)
{
    acre_diag diag;
    int rc;

    memset(&diag, 0, sizeof diag);
    rc = acre_dn_parse(NULL, NULL, s, len, 0, out, &diag);
    if (rc != 0)
        bench_fail(run, "%s: acre rejects \"%s\": %d %s: %s (offset %zu)",
                   j->group, s, rc, acre_strerror(rc), diag.message,
                   diag.offset);
    return rc;
}

/* The buffer API must give the same DN as the allocating one. */
static int
check_buf(bench_run *run, const dn_job *j, const acre_dn *dn, size_t i)
{
    acre_dn *b = NULL;
    unsigned d = acre_dn_depth(dn);
    int rc = acre_dn_parse_buf(dn_buf.bytes, sizeof dn_buf.bytes, NULL,
                               j->c->str[i], j->c->len[i], 0, &b, NULL);

    if (rc != 0 || !acre_dn_equal(dn, b) ||
        acre_dn_ancestor_hash(dn, d) != acre_dn_ancestor_hash(b, d) ||
        strcmp(acre_dn_normalised(dn, NULL), acre_dn_normalised(b, NULL))) {
        bench_fail(run, "%s: acre_dn_parse_buf differs (%d) on \"%s\"",
                   j->group, rc, j->c->str[i]);
        return -1;
    }
    return 0;
}

/* The normalised form parses back to itself and to an equal DN. */
static int
check_fixed_point(bench_run *run, const dn_job *j, const acre_dn *dn, size_t i)
{
    size_t len;
    const char *norm = acre_dn_normalised(dn, &len);
    acre_dn *again;
    int ok;

    if (j->fixed && (len != j->c->len[i] || memcmp(norm, j->c->str[i], len)))
        bench_fail(run, "%s: \"%s\" normalises to \"%s\"", j->group,
                   j->c->str[i], norm);
    if (parse_checked(run, j, norm, len, &again) != 0)
        return -1;
    ok = acre_dn_equal(dn, again) &&
         strcmp(norm, acre_dn_normalised(again, NULL)) == 0;
    if (!ok)
        bench_fail(run, "%s: \"%s\" normalises to \"%s\", then to \"%s\"",
                   j->group, j->c->str[i], norm,
                   acre_dn_normalised(again, NULL));
    acre_dn_free(again);
    return ok ? 0 : -1;
}

/* The parent contains the entry; the entry does not contain the parent. */
static int
check_scope(bench_run *run, const dn_job *j, const acre_dn *dn, size_t i)
{
    size_t len;
    const char *up = acre_dn_ancestor(dn, acre_dn_depth(dn) - 1, &len);
    acre_dn *parent;
    int ok;

    if (up == NULL || parse_checked(run, j, up, len, &parent) != 0)
        return -1;
    ok = acre_dn_in_scope(dn, parent, ACRE_SCOPE_SUB) == 1 &&
         acre_dn_in_scope(dn, parent, ACRE_SCOPE_ONE) == 1 &&
         acre_dn_in_scope(dn, parent, ACRE_SCOPE_CHILDREN) == 1 &&
         acre_dn_in_scope(dn, parent, ACRE_SCOPE_BASE) == 0 &&
         acre_dn_in_scope(parent, dn, ACRE_SCOPE_SUB) == 0;
    if (!ok)
        bench_fail(run, "%s: scope of \"%s\" under \"%s\" is wrong", j->group,
                   j->c->str[i], up);
    acre_dn_free(parent);
    return ok ? 0 : -1;
}

/*
 * An ASCII corpus DN names the same entry as its twin written in lower
 * case with no space after the commas: every attribute in the corpus
 * matches with caseIgnore or caseIgnoreIA5.
 */
static int
check_twin(bench_run *run, const dn_job *j, const acre_dn *dn, size_t i)
{
    const char *s = j->c->str[i];
    char twin[1024];
    size_t n = 0;
    acre_dn *t;
    int ok;

    for (size_t k = 0; s[k] && n + 1 < sizeof twin; k++)
        if (!(s[k] == ' ' && k > 0 && s[k - 1] == ','))
            twin[n++] = (s[k] >= 'A' && s[k] <= 'Z') ? s[k] + 32 : s[k];
    twin[n] = '\0';
    if (parse_checked(run, j, twin, n, &t) != 0)
        return -1;
    ok = acre_dn_equal(dn, t);
    if (!ok)
        bench_fail(run, "%s: \"%s\" (\"%s\") differs from \"%s\" (\"%s\")",
                   j->group, s, acre_dn_normalised(dn, NULL), twin,
                   acre_dn_normalised(t, NULL));
    acre_dn_free(t);
    return ok ? 0 : -1;
}

static void
check_one(bench_run *run, const dn_job *j, size_t i)
{
    acre_dn *dn;

    if (parse_checked(run, j, j->c->str[i], j->c->len[i], &dn) != 0)
        return;
    if (acre_dn_depth(dn) != j->c->depth[i])
        bench_fail(run, "%s: \"%s\" has depth %u, expected %u", j->group,
                   j->c->str[i], acre_dn_depth(dn), j->c->depth[i]);
    else if (check_buf(run, j, dn, i) == 0 &&
             check_fixed_point(run, j, dn, i) == 0 &&
             check_scope(run, j, dn, i) == 0 && j->twin)
        check_twin(run, j, dn, i);
    acre_dn_free(dn);
}

/* How many corpus DNs libldap and libldb reject (informative only). */
static void
count_peer_rejects(bench_run *run, const dn_job *j)
{
    size_t bad_ldap = 0, bad_ldb = 0;
    char *out;

    for (size_t i = 0; i < j->c->n; i++) {
        struct ldb_dn *dn = ldb_dn_new(j->ldb, j->ldb, j->c->str[i]);

        if (ldap_dn_normalize(j->c->str[i], LDAP_DN_FORMAT_LDAP, &out,
                              LDAP_DN_FORMAT_LDAPV3) == LDAP_SUCCESS)
            ldap_memfree(out);
        else
            bad_ldap++;
        if (dn == NULL || ldb_dn_get_casefold(dn) == NULL)
            bad_ldb++;
        talloc_free(dn);
    }
    bench_note(run,
               "%s: rejected by ldap_dn_normalize: %zu/%zu, "
               "by ldb_dn_get_casefold: %zu/%zu",
               j->group, bad_ldap, j->c->n, bad_ldb, j->c->n);
}

static void
check_corpus(bench_run *run, const dn_job *j)
{
    size_t bytes = 0;

    for (size_t i = 0; i < j->c->n; i++) {
        check_one(run, j, i);
        bytes += j->c->len[i];
    }
    bench_note(run, "%s: %zu DNs, %.1f bytes on average", j->group, j->c->n,
               j->c->n ? (double)bytes / (double)j->c->n : 0.0);
    count_peer_rejects(run, j);
}

/* ---- the rows ------------------------------------------------------------ */

enum { I_ACRE, I_ACRE_ALLOC, I_LDAP, I_LDB, N_IMPL };

static void
measure_group(bench_run *run, dn_job *j, int with_buf, int with_alloc)
{
    bench_impl all[N_IMPL] = {
        [I_ACRE] = {"acre_dn_parse_buf", acre_buf_pass, j},
        [I_ACRE_ALLOC] = {"acre_dn_parse", acre_alloc_pass, j},
        [I_LDAP] = {"ldap_dn_normalize", ldap_pass, j},
        [I_LDB] = {"ldb_dn_get_casefold", ldb_pass, j},
    };
    bench_impl impl[N_IMPL];
    double med[N_IMPL], by[N_IMPL];
    int at[N_IMPL];
    size_t n = 0;
    char name[64];

    for (int k = 0; k < N_IMPL; k++) {
        at[k] = -1;
        if ((k == I_ACRE && !with_buf) || (k == I_ACRE_ALLOC && !with_alloc) ||
            (k == I_LDB && !with_buf))
            continue;
        at[k] = (int)n;
        impl[n++] = all[k];
    }
    bench_measure(run, impl, n, j->c->n, med);
    for (int k = 0; k < N_IMPL; k++)
        by[k] = at[k] >= 0 ? med[at[k]] : 0;
    if (with_buf) {
        snprintf(name, sizeof name, "%s/libldap", j->group);
        bench_row(run, name, "ns/dn", by[I_ACRE], all[I_LDAP].name, by[I_LDAP]);
        snprintf(name, sizeof name, "%s/libldb", j->group);
        bench_row(run, name, "ns/dn", by[I_ACRE], all[I_LDB].name, by[I_LDB]);
    }
    if (with_alloc)
        bench_row(run, "dn_ascii_alloc/libldap", "ns/dn", by[I_ACRE_ALLOC],
                  all[I_LDAP].name, by[I_LDAP]);
}

/*
 * Corpus 1 after one pass through acre: its normalised forms.  A DN acre
 * rejects is left out (and counted as a failure).
 */
static int
make_normalised(bench_run *run, const dn_corpus *from, dn_corpus *to)
{
    acre_dn *dn;
    size_t len, left_out = 0;
    const char *s;

    if (dn_corpus_init(to, from->n) != 0)
        return -1;
    for (size_t i = 0; i < from->n; i++) {
        if (acre_dn_parse_buf(dn_buf.bytes, sizeof dn_buf.bytes, NULL,
                              from->str[i], from->len[i], 0, &dn, NULL) != 0) {
            left_out++;
            continue;
        }
        s = acre_dn_normalised(dn, &len);
        if (dn_corpus_add(to, s, len, acre_dn_depth(dn)) != 0)
            return -1;
    }
    if (left_out > 0)
        bench_fail(run, "dn_normalised: %zu dn_ascii DNs acre rejects left out",
                   left_out);
    return dn_corpus_finish(to);
}

static int
run_ascii(bench_run *run, struct ldb_context *ldb, const dn_corpus *ascii)
{
    int buf = bench_want(run, "dn_ascii");
    int alloc = bench_want(run, "dn_ascii_alloc");
    dn_job j = {"dn_ascii", ascii, ldb, 1, 0};

    if (!buf && !alloc)
        return 0;
    check_corpus(run, &j);
    measure_group(run, &j, buf, alloc);
    return 0;
}

static int
run_rich(bench_run *run, struct ldb_context *ldb, size_t n)
{
    dn_corpus rich;
    dn_job j = {"dn_escaped_unicode", &rich, ldb, 0, 0};

    if (!bench_want(run, j.group))
        return 0;
    if (dn_corpus_generate(&rich, n, DN_KIND_RICH, SEED_RICH) != 0)
        return -1;
    check_corpus(run, &j);
    measure_group(run, &j, 1, 0);
    dn_corpus_free(&rich);
    return 0;
}

static int
run_normalised(bench_run *run, struct ldb_context *ldb, const dn_corpus *ascii)
{
    dn_corpus norm;
    dn_job j = {"dn_normalised", &norm, ldb, 0, 1};

    if (!bench_want(run, j.group))
        return 0;
    if (make_normalised(run, ascii, &norm) != 0) {
        dn_corpus_free(&norm);
        return -1;
    }
    check_corpus(run, &j);
    measure_group(run, &j, 1, 0);
    dn_corpus_free(&norm);
    return 0;
}

static int
bench_dn(bench_run *run)
{
    TALLOC_CTX *mem = talloc_new(NULL);
    struct ldb_context *ldb = mem ? ldb_setup(mem) : NULL;
    size_t n = bench_size(run, 50000, 1000);
    dn_corpus ascii;
    int rc = -1;

    if (ldb == NULL ||
        dn_corpus_generate(&ascii, n, DN_KIND_ASCII, SEED_ASCII) != 0) {
        talloc_free(mem);
        return -1;
    }
    if (run_ascii(run, ldb, &ascii) == 0 && run_rich(run, ldb, n) == 0 &&
        run_normalised(run, ldb, &ascii) == 0)
        rc = 0;
    dn_corpus_free(&ascii);
    talloc_free(mem);
    return rc;
}

static const char *const dn_groups[] = {
    "dn_ascii", "dn_ascii_alloc", "dn_escaped_unicode", "dn_normalised", NULL,
};

const bench_def bench_dn_def = {"dn", dn_groups, bench_dn};
