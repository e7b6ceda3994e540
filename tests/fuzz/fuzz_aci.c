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
        /* attr -1: a parent[..] value rule, which names no attribute */
        check((b->attr >= 0 ||
               (b->uakind == ACREI_ACI_UA_VALUE && b->levels == 1)) &&
              b->levels != 0 && b->levels < 1024);
        break;
    case ACREI_ACI_IP:
        check(b->naddrs >= 1);
        break;
    case ACREI_ACI_DAYOFWEEK:
        check(b->days != 0 && b->days < 128);
        break;
    case ACREI_ACI_TIMEOFDAY:
        check(b->num >= 0 && b->num <= 2359);
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

static int
via_ldif(void *ctx, const char *s, size_t n, int variant)
{
    static const char b64[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    char *t = talloc_strdup(ctx, "dn: dc=example,dc=com\naci:: ");
    struct acreI_policy *ir = NULL;
    acre_diag d;

    for (size_t i = 0; t && i < n; i += 3) {
        uint32_t v = (uint32_t)(uint8_t)s[i] << 16;
        v |= i + 1 < n ? (uint32_t)(uint8_t)s[i + 1] << 8 : 0;
        v |= i + 2 < n ? (uint8_t)s[i + 2] : 0;
        char q[5] = {b64[v >> 18], b64[(v >> 12) & 63],
                     i + 1 < n ? b64[(v >> 6) & 63] : '=',
                     i + 2 < n ? b64[v & 63] : '=', 0};
        t = talloc_strdup_append(t, q);
    }
    t = t ? talloc_strdup_append(t, "\n") : NULL;
    check(t != NULL);
    int rc = acreA_parse_ldif(ctx, NULL, "fuzz.ldif", t, strlen(t), variant,
                              &ir, &d);
    if (!rc)
        check(ir && ir->aci && ir->aci->n == (n ? 1u : 0u));
    else
        check(ir == NULL);
    return rc;
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
    }
    return 0;
}
