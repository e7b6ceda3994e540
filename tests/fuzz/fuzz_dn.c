/*
 * fuzz_dn.c -- libFuzzer target for the DN parser.
 *
 * Beyond "never crash, never leak, never read out of bounds" (ASan/UBSan),
 * it checks the parser's algebra on every input that parses:
 *   - normalise(normalise(x)) == normalise(x)           (idempotence)
 *   - normalise(pretty(x)) == normalise(x)              (pretty round trip)
 *   - each ancestor suffix parses to the same hash h[i] (ancestry)
 *   - x is in scope BASE and SUB of itself, and parse_buf agrees with parse;
 *   - 389's stored form of x (acreD_text_389), when it parses, names x;
 *   - parse_buf gives the same answer (the same object, byte for byte, or
 *     the same error at the same offset) in every acreD_set_paths mode:
 *     the AVX2 and SSE2 word-parallel paths, the byte loops, path 3;
 *   - under slapd's profile, the paths agree and the pretty form names
 *     the same DN (check_slapd).
 * Any violation aborts, which libFuzzer reports with the input.
 */
#include <acre.h>

#include "buf.h"
#include "dn.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static union {
    uint64_t align;
    unsigned char b[ACRE_DN_BUF_MAX];
} buf;

static void
check(int cond)
{
    if (!cond)
        abort();
}

/* every path mode agrees with the default one on s[0..n) read under
 * schema (rb: its answer, in buf) */
static void
check_paths(const acre_schema *schema, const char *s, size_t n, int rb)
{
    static const int modes[] = {ACRED_PATHS_SSE2, ACRED_PATHS_SCALAR,
                                ACRED_PATHS_GENERAL};

    static union {
        uint64_t align;
        unsigned char b[ACRE_DN_BUF_MAX];
    } other;

    for (size_t m = 0; m < sizeof modes / sizeof *modes; m++) {
        acre_dn *o = NULL;
        acre_diag d0, d1;
        int r;
        acreD_set_paths(modes[m]);
        r = acre_dn_parse_buf(other.b, sizeof(other.b), schema, s, n, 0, &o,
                              &d1);
        acreD_set_paths(ACRED_PATHS_BEST);
        check(r == rb);
        if (r == 0 && !schema) {
            check(memcmp(other.b, buf.b, acre_dn_size(o)) == 0);
        } else if (r == 0) { /* the same DN (the padding after the texts
                                may hold what the buffer held) */
            const acre_dn *x = (const acre_dn *)(void *)buf.b;
            check(acre_dn_size(o) == acre_dn_size(x) && acre_dn_equal(o, x) &&
                  strcmp(acre_dn_pretty(o, NULL), acre_dn_pretty(x, NULL)) ==
                      0);
            for (unsigned i = 0; i <= acre_dn_depth(o); i++)
                check(acre_dn_ancestor_hash(o, i) ==
                      acre_dn_ancestor_hash(x, i));
        } else {
            acre_dn *x = NULL;
            check(acre_dn_parse_buf(buf.b, sizeof(buf.b), schema, s, n, 0, &x,
                                    &d0) == rb);
            check(d0.offset == d1.offset);
        }
    }
}

/*
 * Under a schema of slapd's profile (its lenient reader: options after a
 * descriptor dropped, tabs, CRs and LFs for spaces, values prepared as
 * slapd prepares them), which takes DNs the RFC profile refuses: every
 * path mode agrees, and the pretty form names the same DN.
 */
static void
check_slapd(const char *s, size_t n)
{
    static acre_schema *slapd;
    acre_dn *dn = NULL, *again = NULL;
    acre_diag d;
    size_t len;
    int r;

    if (!slapd)
        check(acre_schema_new(NULL, ACRE_SCHEMA_SLAPD, &slapd, NULL) == 0);
    r = acre_dn_parse_buf(buf.b, sizeof(buf.b), slapd, s, n, 0, &dn, &d);
    check_paths(slapd, s, n, r);
    if (r) {
        check(d.code == r && d.offset <= n && d.message[0]);
        return;
    }
    r = acre_dn_parse_buf(buf.b, sizeof(buf.b), slapd, s, n, 0, &dn, NULL);
    check(r == 0);
    /* the pretty form names the same DN; the normalised form need not
     * parse to itself, as in slapd: a syntax is checked before the
     * preparation ("c=m\\ " fits countryName, "c=m" does not) and case
     * is folded before NFKC (U+3250 prepares to "PTE") */
    const char *pretty = acre_dn_pretty(dn, &len);
    check(acre_dn_parse(NULL, slapd, pretty, len, 0, &again, NULL) == 0);
    check(strcmp(acre_dn_normalised(again, NULL),
                 acre_dn_normalised(dn, NULL)) == 0);
    acre_dn_free(again);
}

static void
check_same_norm(const acre_dn *dn, const char *s, size_t n)
{
    acre_dn *again = NULL;
    size_t len;

    check(acre_dn_parse(NULL, NULL, s, n, 0, &again, NULL) == ACRE_OK);
    check(strcmp(acre_dn_normalised(again, &len),
                 acre_dn_normalised(dn, NULL)) == 0);
    check(acre_dn_equal(again, dn));
    acre_dn_free(again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    acre_dn *dn = NULL, *b = NULL;
    acre_diag d;
    const char *s = (const char *)data;
    size_t n;
    int rc = acre_dn_parse(NULL, NULL, s, size, 0, &dn, &d);
    int rb =
        acre_dn_parse_buf(buf.b, sizeof(buf.b), NULL, s, size, 0, &b, NULL);

    check(rc == rb);
    check_slapd(s, size);
    rb = acre_dn_parse_buf(buf.b, sizeof(buf.b), NULL, s, size, 0, &b, NULL);
    check_paths(NULL, s, size, rb);
    if (rc) {
        check(d.code == rc && d.offset <= size && d.message[0]);
        return 0;
    }
    check(strcmp(acre_dn_normalised(dn, NULL), acre_dn_normalised(b, NULL)) ==
          0);
    /* ACRE_DN_SLAPD takes the same DN or refuses it for slapd's reasons
     * only, in both entry points */
    acre_dn *sd = NULL, *sb = NULL;
    acre_diag sdd;
    int rs = acre_dn_parse(NULL, NULL, s, size, ACRE_DN_SLAPD, &sd, &sdd);
    check(rs == 0 || rs == ACRE_ERR_DN_DUP_AVA || rs == ACRE_ERR_DN_BER);
    if (rs == 0)
        check(acre_dn_equal(sd, dn));
    else
        check(sdd.code == rs && sdd.message[0] && !sd);
    acre_dn_free(sd);
    check(acre_dn_parse_buf(buf.b, sizeof(buf.b), NULL, s, size, ACRE_DN_SLAPD,
                            &sb, NULL) == rs);
    const char *norm = acre_dn_normalised(dn, &n);
    check_same_norm(dn, norm, n);
    const char *pretty = acre_dn_pretty(dn, &n);
    check_same_norm(dn, pretty, n);
    for (unsigned i = 0; i <= acre_dn_depth(dn); i++) {
        acre_dn *anc = NULL;
        const char *a = acre_dn_ancestor(dn, i, &n);
        check(acre_dn_parse(NULL, NULL, a, n, 0, &anc, NULL) == ACRE_OK);
        check(acre_dn_ancestor_hash(anc, i) == acre_dn_ancestor_hash(dn, i));
        check(acre_dn_in_scope(dn, anc, ACRE_SCOPE_SUB) == 1);
        check(acre_dn_in_scope(dn, anc, ACRE_SCOPE_CHILDREN) ==
              (i < acre_dn_depth(dn)));
        acre_dn_free(anc);
    }
    check(acre_dn_in_scope(dn, dn, ACRE_SCOPE_BASE) == 1);
    uint8_t local[64];
    struct acreE_buf t;
    acreE_buf_init(&t, local, sizeof local);
    int r389 = acreD_text_389(s, size, &t);
    check(r389 == 0 || r389 == ACRE_ERR_INVAL || r389 == ACRE_ERR_NOMEM);
    acre_dn *back = NULL;
    if (r389 == 0 && acre_dn_parse(NULL, NULL, (const char *)t.p, t.len, 0,
                                   &back, NULL) == 0)
        check(acre_dn_equal(back, dn));
    acre_dn_free(back);
    acreE_buf_free(&t);
    acre_dn_free(dn);
    return 0;
}
