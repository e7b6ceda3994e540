/*
 * fuzz_ldif.c -- libFuzzer target for the LDIF reader (engine/ldif.c) and
 * the directory loader (engine/directory.c).
 *
 * Beyond "never crash, never leak, never read out of bounds" (ASan/UBSan):
 *   - the buffer and FILE paths of the reader give the same records and
 *     the same final result, with the error at the same line and column
 *     (RFC 2849's reading, or slapd's: acreL_set_slapd);
 *   - every record is well formed: a NUL-terminated DN, lines increasing;
 *   - loading into a directory that already holds a small tree either
 *     adds every record's entry, each then found by its own DN and reached
 *     by a walk from its suffix, or changes nothing at all (strict or
 *     not, with DN values kept as 389 stores them or not, under the
 *     RFC profile or slapd's schema).
 * Any violation aborts, which libFuzzer reports with the input.
 */
#include "directory.h"
#include "ldif.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

static void
check(int cond)
{
    if (!cond)
        abort();
}

/* A digest of one record, to compare the two reader paths. */
static uint64_t
digest(const struct acreL_record *rec)
{
    uint64_t h = 1469598103934665603u;

#define MIX(p, n)                       \
    for (size_t k_ = 0; k_ < (n); k_++) \
        h = (h ^ ((const uint8_t *)(p))[k_]) * 1099511628211u;
    MIX(rec->dn, rec->dn_len);
    for (size_t i = 0; i < rec->nvals; i++) {
        MIX(rec->vals[i].desc, rec->vals[i].desc_len);
        MIX(rec->vals[i].val, rec->vals[i].len);
        h ^= rec->vals[i].line;
    }
#undef MIX
    return h ^ rec->line;
}

/* read_all -- every record of one reader; returns the final result. */
static int
read_all(FILE *f, const uint8_t *data, size_t size, int slapd, uint64_t *sum,
         size_t *n, acre_diag *diag)
{
    struct acreL_reader *r;
    struct acreL_record rec;
    unsigned last = 0;
    int rc;

    check(acreL_open(NULL, f, (const char *)data, size, "fuzz", &r) == 0);
    if (slapd)
        acreL_set_slapd(r);
    *sum = 0;
    *n = 0;
    while ((rc = acreL_next(r, &rec, diag)) == 1) {
        check(rec.dn[rec.dn_len] == '\0');
        check(rec.line > last);
        last = rec.line;
        for (size_t i = 0; i < rec.nvals; i++)
            check(rec.vals[i].line > rec.line && rec.vals[i].desc_len > 0);
        *sum = *sum * 31 + digest(&rec);
        ++*n;
    }
    acreL_close(r);
    return rc;
}

static void
check_reader(const uint8_t *data, size_t size, int slapd)
{
    acre_diag d1, d2;
    uint64_t s1, s2;
    size_t n1, n2;
    int r1 = read_all(NULL, data, size, slapd, &s1, &n1, &d1), r2;
    FILE *f = fmemopen((void *)data, size ? size : 1, "r");

    if (!f || !size) {
        if (f)
            fclose(f);
        return;
    }
    r2 = read_all(f, NULL, 0, slapd, &s2, &n2, &d2);
    fclose(f);
    check(r1 == r2 && s1 == s2 && n1 == n2);
    if (r1 < 0)
        check(d1.line == d2.line && d1.column == d2.column && d1.code == r1 &&
              d1.file && strcmp(d1.file, "fuzz") == 0);
}

static const char base[] =
    "dn: dc=example,dc=com\nobjectClass: domain\ndc: example\n\n"
    "dn: ou=people,dc=example,dc=com\nobjectClass: organizationalUnit\n"
    "ou: people\n\n"
    "dn: uid=a,ou=people,dc=example,dc=com\nobjectClass: account\nuid: a\n";

static int
count_visit(void *ctx, const struct acreE_entry *e)
{
    ++*(size_t *)ctx;
    return 0;
}

/* walked -- entries reached by walking every suffix's subtree. */
static size_t
walked(const struct acreE_dir *d)
{
    size_t ns, n = 0;
    const struct acreE_entry *const *s = acreE_dir_suffixes(d, &ns);

    for (size_t i = 0; i < ns; i++)
        check(acreE_dir_walk(d, s[i]->v.dn, ACRE_SCOPE_SUB, count_visit, &n) ==
              0);
    return n;
}

static void
check_directory(const uint8_t *data, size_t size, unsigned flags, int slapd)
{
    void *ctx = talloc_new(NULL);
    acre_schema *s = NULL;
    struct acreE_dir *d;
    acre_diag diag, warn;
    size_t blocks;
    unsigned nw;
    int rc;

    if (slapd)
        check(acre_schema_new(ctx, ACRE_SCHEMA_SLAPD, &s, NULL) == 0);
    check(acreE_dir_new(ctx, s, flags, &d) == 0);
    check(acreE_dir_load_ldif(d, NULL, base, sizeof base - 1, "base", NULL,
                              NULL, &diag) == 0);
    blocks = talloc_total_blocks(d);
    rc = acreE_dir_load_ldif(d, NULL, (const char *)data, size, "fuzz", &nw,
                             &warn, &diag);
    if (rc) {
        check(rc < 0 && diag.code == rc);
        check(acreE_dir_count(d) == 3 && talloc_total_blocks(d) == blocks);
    } else {
        check(acreE_dir_count(d) >= 3);
    }
    check(walked(d) == acreE_dir_count(d));
    talloc_free(ctx);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 65536)
        return 0;
    check_reader(data, size, (size & 4) != 0);
    check_directory(data, size,
                    (size & 1 ? ACRED_DIR_STRICT : 0) |
                        (size & 2 ? ACRED_DIR_389 : 0),
                    (size & 4) != 0);
    return 0;
}
