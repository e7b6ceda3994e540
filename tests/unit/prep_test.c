/*
 * prep_test.c -- string preparation (engine/prep.c).
 *
 * The cached Unicode route must give exactly what the general route
 * (libunistring on the whole value) gives, for every code point the cache
 * may hold, alone and in context; a mismatch means the per-code-point
 * distribution assumption is wrong for that code point.
 */
#include "prep.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

static size_t
utf8(uint32_t c, uint8_t *o)
{
    if (c < 0x80)
        return o[0] = (uint8_t)c, 1;
    if (c < 0x800)
        return o[0] = 0xc0 | (c >> 6), o[1] = 0x80 | (c & 0x3f), 2;
    o[0] = 0xe0 | (c >> 12);
    o[1] = 0x80 | ((c >> 6) & 0x3f);
    o[2] = 0x80 | (c & 0x3f);
    return 3;
}

/* Prepare in[0..n) both ways; both must agree on status and bytes. */
static void
agree(int fold, const uint8_t *in, size_t n, uint32_t cp, const char *ctx)
{
    uint8_t la[256], lb[256];
    struct acreE_buf a, b;
    int ra, rb;

    acreE_buf_init(&a, la, sizeof(la));
    acreE_buf_init(&b, lb, sizeof(lb));
    ra = acreE_prep(fold ? ACRE_MR_CASE_IGNORE : ACRE_MR_CASE_EXACT, in, n, &a);
    rb = acreE_prep_unicode_general(fold, in, n, &b);
    cr_assert_eq(ra, rb, "U+%04X %s fold=%d: status %d vs general %d", cp, ctx,
                 fold, ra, rb);
    if (ra == ACRE_PREP_OK)
        cr_assert(a.len == b.len && memcmp(a.p, b.p, a.len) == 0,
                  "U+%04X %s fold=%d: cached and general preparations differ",
                  cp, ctx, fold);
    acreE_buf_free(&a);
    acreE_buf_free(&b);
}

static void
contexts(uint32_t cp)
{
    static const char *pre[] = {"", "a", " ", "\xc3\xa9"};  /* é */
    static const char *post[] = {"", "b", " ", "\xcc\x81"}; /* + U+0301 */
    uint8_t c[4], in[32];
    size_t cn = utf8(cp, c);

    for (int fold = 0; fold < 2; fold++)
        for (size_t i = 0; i < 4; i++)
            for (size_t j = 0; j < 4; j++) {
                size_t n = 0, lp = strlen(pre[i]), lq = strlen(post[j]);
                memcpy(in, pre[i], lp);
                n += lp;
                memcpy(in + n, c, cn);
                n += cn;
                memcpy(in + n, c, cn); /* the code point twice */
                n += cn;
                memcpy(in + n, post[j], lq);
                n += lq;
                agree(fold, in, n, cp, "in context");
            }
}

Test(prep, cache_agrees_with_general_path)
{
    for (uint32_t cp = 0x80; cp < 0x3100; cp++) {
        if (cp >= 0xd800 && cp <= 0xdfff)
            continue;
        contexts(cp);
    }
}

Test(prep, cjk_and_hangul_agree_with_general_path)
{
    static const uint32_t cps[] = {0x4e00, 0x738b, 0x9fa5, 0x9fff,
                                   0xac00, 0xae40, 0xd7a3};
    for (size_t i = 0; i < sizeof(cps) / sizeof(cps[0]); i++)
        contexts(cps[i]);
}

Test(prep, hangul_syllable_then_jamo_composes)
{
    /* U+AC00 (GA) + U+11A8 (final KIYEOK) composes to U+AC01 under NFKC */
    const uint8_t in[] = {0xea, 0xb0, 0x80, 0xe1, 0x86, 0xa8};
    uint8_t l[32];
    struct acreE_buf b;

    acreE_buf_init(&b, l, sizeof(l));
    cr_assert_eq(acreE_prep(ACRE_MR_CASE_IGNORE, in, sizeof(in), &b),
                 ACRE_PREP_OK);
    cr_assert_eq(b.len, 3);
    cr_assert(memcmp(b.p, "\xea\xb0\x81", 3) == 0, "GA + KIYEOK is GAG");
}

Test(prep, space_handling_and_mapping)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"  a  b  ", "a b"},
        {"\t\n", " "},
        {"a\xc2\xad"
         "b",
         "ab"},
        {"A\xc2\xa0"
         "B",
         "a b"},
        {"\xef\xac\x81", "fi"},
        {"Stra\xc3\x9f"
         "e",
         "strasse"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint8_t l[64];
        struct acreE_buf b;
        acreE_buf_init(&b, l, sizeof(l));
        cr_assert_eq(acreE_prep(ACRE_MR_CASE_IGNORE,
                                (const uint8_t *)cases[i].in,
                                strlen(cases[i].in), &b),
                     ACRE_PREP_OK);
        cr_assert(b.len == strlen(cases[i].out) &&
                      memcmp(b.p, cases[i].out, b.len) == 0,
                  "prep(%s) = %.*s, want %s", cases[i].in, (int)b.len, b.p,
                  cases[i].out);
    }
}
