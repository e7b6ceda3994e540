/*
 * fuzz_aci.c -- libFuzzer target for the ACI dialect's parser
 * (compiler/aci_*.c): the input is one `aci` value of the entry
 * dc=example,dc=com; the last byte chooses the variant (bit 0: OpenDJ)
 * and the rest is the value.  Then the same value is wrapped in a
 * one-entry LDIF file (base64, so any byte goes) and parsed again.
 *
 * Beyond "never crash, never leak, never read out of bounds" (ASan/UBSan)
 * and bounded time (linear parsing, bounded nesting), it checks:
 *   - a refused value has an error code, a diagnostic with that code, an
 *     offset within the value (or at its end), a message naming the
 *     holder, and *out left zeroed; nothing stays allocated;
 *   - an accepted value has a name, 1..ACREA_MAX_PERMS perms with rights
 *     and a bind rule whose every node is well formed (operands of AND /
 *     OR / NOT present, keyword tests with their operands);
 *   - parsing twice gives the same verdict, and the LDIF route agrees.
 * Then the lint's route (compiler/aci.h lint mode, and acre_lint on ACI
 * sources, compiler/lint_aci.c): the value read in lint mode agrees with
 * the compile (it refuses a value only when the compile does, and a
 * value the compile refuses it refuses or reads with an unknown name;
 * refused means one error naming the holder); and acre_lint
 * on the value held twice (by dc=example,dc=com and by a child, so that
 * the checks across holders run) returns 0 with consistent counts: errors
 * exactly when the compile refuses the value, warnings only without
 * errors, every finding with an id, a message and a line.
 * Any violation aborts, which libFuzzer reports with the input.
 */
#include <acre.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "aci.h"

static acre_dn *holder;

static void
check(int cond)
{
    if (!cond)
        abort();
}

static void
check_bind(const struct acreI_bind *b, unsigned depth)
{
    check(b != NULL && depth <= 2 * ACREA_MAX_DEPTH + ACREA_MAX_TERMS);
    switch (b->kw) {
    case ACREI_ACI_AND:
    case ACREI_ACI_OR:
        check_bind(b->a, depth + 1);
        check_bind(b->b, depth + 1);
        return;
    case ACREI_ACI_NOT:
        check_bind(b->a, depth + 1);
        return;
    case ACREI_ACI_USERDN:
    case ACREI_ACI_GROUPDN:
    case ACREI_ACI_ROLEDN:
        check(b->nterms >= 1 && b->terms != NULL);
        for (unsigned i = 0; i < b->nterms; i++) {
            const struct acreI_aci_term *t = &b->terms[i];
            check(t->kind >= ACREI_ACI_S_DN && t->kind <= ACREI_ACI_S_URL);
            if (t->kind == ACREI_ACI_S_DN)
                check(t->pat.dn != NULL);
            if (t->kind == ACREI_ACI_S_PATTERN)
                check(t->pat.text != NULL && strlen(t->pat.text) == t->pat.len);
        }
        break;
    case ACREI_ACI_USERATTR:
    case ACREI_ACI_USERDNATTR:
    case ACREI_ACI_GROUPDNATTR:
        /* attr -1: a parent[..] value rule, which names no attribute;
         * 389: a name its schema lacks, "parent[]", no '#'; levels up to
         * 9 (OpenDJ) or 31 (389) */
        check(b->attr >= -1 && b->levels != 0);
        break;
    case ACREI_ACI_IP:
        /* 389 (ACREI_IP_TREE / NEVER): the prefixes it reads, maybe none */
        check(b->ipmode >= ACREI_IP_ANY && b->ipmode <= ACREI_IP_NEVER);
        check(b->ipmode != ACREI_IP_ANY || b->naddrs >= 1);
        for (unsigned i = 0; i < b->naddrs; i++)
            check(b->addrs[i].family == 4 || b->addrs[i].family == 6);
        break;
    case ACREI_ACI_DAYOFWEEK:
        check(b->days < 128); /* 389: maybe no day at all */
        break;
    case ACREI_ACI_TIMEOFDAY:
        /* OpenDJ: hhmm; 389: any atoi() value, or a range (ACREI_TOD_*) */
        check(b->tod >= ACREI_TOD_VALUE && b->tod <= ACREI_TOD_INVALID);
        check(b->num > -2000000000L && b->num < 2000000000L);
        check(b->num_end > -2000000000L && b->num_end < 2000000000L);
        check(b->tod != ACREI_TOD_VALUE || b->num_end == 0);
        break;
    default:
        check(b->kw >= ACREI_ACI_AUTHMETHOD && b->kw <= ACREI_ACI_TIMEOFDAY);
    }
    check(b->op >= ACREI_ACI_EQ && b->op <= ACREI_ACI_GE);
}

static int
parse_one(void *ctx, const char *s, size_t n, int variant)
{
    struct acreI_pos at = {"fuzz", 1, 1};
    struct acreI_aci a;
    acre_diag d;
    int rc =
        acreA_parse_value(ctx, NULL, holder, 0, s, n, variant, &at, &a, &d);

    if (rc) {
        check(rc < 0 && d.code == rc && d.offset <= n);
        check(strstr(d.message, "dc=example,dc=com") != NULL ||
              rc == ACRE_ERR_NOMEM);
        check(a.perms == NULL && a.nperms == 0 && a.name == NULL);
        check(talloc_total_blocks(ctx) == 1);
        return rc;
    }
    check(a.name != NULL && a.nperms >= 1 && a.nperms <= ACREA_MAX_PERMS);
    check(a.len == n && a.text != NULL);
    for (unsigned i = 0; i < a.nperms; i++) {
        check(a.perms[i].rights != 0);
        check_bind(a.perms[i].bind, 0);
    }
    return 0;
}

/* "aci:: BASE64\n" for s[0..n), appended to t */
static char *
aci_line(char *t, const char *s, size_t n)
{
    static const char b64[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

    t = t ? talloc_strdup_append(t, "aci:: ") : NULL;
    for (size_t i = 0; t && i < n; i += 3) {
        uint32_t v = (uint32_t)(uint8_t)s[i] << 16;
        v |= i + 1 < n ? (uint32_t)(uint8_t)s[i + 1] << 8 : 0;
        v |= i + 2 < n ? (uint8_t)s[i + 2] : 0;
        char q[5] = {b64[v >> 18], b64[(v >> 12) & 63],
                     i + 1 < n ? b64[(v >> 6) & 63] : '=',
                     i + 2 < n ? b64[v & 63] : '=', 0};
        t = talloc_strdup_append(t, q);
    }
    return t ? talloc_strdup_append(t, "\n") : NULL;
}

static int
via_ldif(void *ctx, const char *s, size_t n, int variant)
{
    char *t = aci_line(talloc_strdup(ctx, "dn: dc=example,dc=com\n"), s, n);
    struct acreI_policy *ir = NULL;
    acre_diag d;

    check(t != NULL);
    int rc = acreA_parse_ldif(ctx, NULL, "fuzz.ldif", t, strlen(t), variant,
                              &ir, &d);
    if (!rc)
        check(ir && ir->aci && ir->aci->n == (n ? 1u : 0u));
    else
        check(ir == NULL);
    return rc;
}

/* The lint mode's reading of the same one-value file. */
static int
via_lint_mode(void *ctx, const char *s, size_t n, int variant)
{
    char *t = aci_line(talloc_strdup(ctx, "dn: dc=example,dc=com\n"), s, n);
    struct acreA_lint lint = {ctx, NULL, 0, NULL, 0};
    struct acreI_policy *ir = NULL;

    check(t != NULL);
    int rc = acreA_parse_ldif_lint(ctx, NULL, "fuzz.ldif", t, strlen(t),
                                   variant, &lint, &ir);
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    check(ir != NULL && ir->aci != NULL);
    check((rc == 0) == (lint.nerrs == 0));
    check(lint.nerrs <= 1);
    for (unsigned k = 0; k < lint.nerrs; k++) {
        check(lint.errs[k].code < 0 && lint.errs[k].code == rc);
        check(strstr(lint.errs[k].message, "dc=example,dc=com") != NULL);
        check(lint.errs[k].line >= 2);
    }
    check(ir->aci->n == (rc == 0 ? 1u : 0u));
    for (unsigned k = 0; k < lint.nunk; k++) {
        check(lint.unk[k].aci == 0 && lint.unk[k].name && lint.unk[k].where);
        check(lint.unk[k].off < n && lint.unk[k].pos.line >= 2);
        check(ir->aci->acis[0].flags & ACREI_ACI_F_UNKNOWN);
    }
    if (rc)
        check(lint.nunk == 0);
    return rc ? rc : lint.nunk ? 1 : 0;
}

/* acre_lint on the value held by dc=example,dc=com and by a child */
static void
via_lint(void *ctx, const char *s, size_t n, int variant, int lint_rc)
{
    char *t = aci_line(talloc_strdup(ctx, "dn: dc=example,dc=com\n"), s, n);
    t = t ? talloc_strdup_append(t, "\ndn: ou=x,dc=example,dc=com\n") : NULL;
    t = aci_line(t, s, n);
    check(t != NULL);
    acre_source src = {ACRE_DIALECT_ACI, "fuzz.ldif", t, strlen(t)};
    acre_lint_result *r = NULL;
    acre_diag d;
    int rc = acre_lint(
        ctx, &src, 1, NULL, NULL,
        variant == ACREI_ACI_OPENDJ ? ACRE_COMPILE_ACI_OPENDJ : 0, &r, &d);

    if (rc == ACRE_ERR_NOMEM)
        return;
    check(rc == 0 && r != NULL);
    check(r->count == r->errors + r->warnings);
    check(!r->errors || !r->warnings);
    /* the child's copy may be refused where the parent's is not (a
     * target DN between them), never the other way round */
    if (lint_rc < 0 && lint_rc != ACRE_ERR_NOMEM)
        check(r->errors >= 1);
    for (size_t i = 0; i < r->count; i++) {
        const acre_lint_finding *f = &r->findings[i];
        check(f->id && f->message && f->message[0] && f->line >= 2);
        check(strstr(f->message, "dc=example,dc=com") != NULL ||
              !strcmp(f->id, "read-error"));
    }
    char *j = acre_lint_format(r, ACRE_LINT_JSON);
    free(j);
    acre_lint_free(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    acre_diag d;

    if (!holder)
        check(acre_dn_parse(NULL, NULL, "dc=example,dc=com", 17, 0, &holder,
                            &d) == 0);
    if (size == 0 || size > 8192)
        return 0;
    int variant = data[size - 1] & 1 ? ACREI_ACI_OPENDJ : ACREI_ACI_389;
    const char *s = (const char *)data;
    size_t n = size - 1;
    void *ctx = talloc_new(NULL);
    int r1 = parse_one(ctx, s, n, variant);
    talloc_free(ctx);
    ctx = talloc_new(NULL);
    int r2 = parse_one(ctx, s, n, variant);
    check((r1 == 0) == (r2 == 0));
    talloc_free(ctx);
    if (n) { /* an empty base64 value is an empty value: refused too */
        ctx = talloc_new(NULL);
        int r3 = via_ldif(ctx, s, n, variant);
        check((r1 == 0) == (r3 == 0) || r3 == ACRE_ERR_NOMEM);
        talloc_free(ctx);
        /* lint mode: what it refuses the compile refuses, and what the
         * compile refuses it refuses or reads with an unknown name (it
         * may also find unknown names the compile accepts: in a
         * targetfilter or an ($attr.NAME) macro) */
        ctx = talloc_new(NULL);
        int r4 = via_lint_mode(ctx, s, n, variant);
        check(r4 == ACRE_ERR_NOMEM || r3 == ACRE_ERR_NOMEM ||
              (r3 < 0 ? r4 != 0 : r4 >= 0));
        talloc_free(ctx);
        ctx = talloc_new(NULL);
        via_lint(ctx, s, n, variant, r4);
        talloc_free(ctx);
    }
    return 0;
}
