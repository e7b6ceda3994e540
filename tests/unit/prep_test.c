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

/*
 * The cached route decodes UTF-8 that nobody has validated yet and the
 * general route is validated first; either way, a value is refused as
 * invalid UTF-8 exactly when acreE_utf8_valid refuses it, wherever the
 * bad sequence stands: before or after a code point that sends the value
 * down the general route, at the end, or cut short.
 */
Test(prep, invalid_utf8_is_refused_on_every_route)
{
    static const char *const good[] = {
        "a", " ", "\xc3\xa9", "\xc4\xb0", "\xcc\x81", "\xe5\xb1\xb1", "Z"};
    static const char *const bad[] = {
        "\x80",         "\xc3",         "\xc0\xaf",
        "\xe0\x80\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
        "\xff",         "\xe5\xb1",     "\xc3\x28"};

    for (int fold = 0; fold < 2; fold++)
        for (size_t g1 = 0; g1 < 7; g1++)
            for (size_t b = 0; b < 9; b++)
                for (size_t g2 = 0; g2 < 7; g2++)
                    for (int place = 0; place < 3; place++) {
                        uint8_t in[32], lo[128];
                        struct acreE_buf o;
                        size_t n = 0;
                        const char *p[3] = {good[g1], good[g2], bad[b]};
                        /* the bad piece first, in the middle or last */
                        const char *order[3][3] = {{p[2], p[0], p[1]},
                                                   {p[0], p[2], p[1]},
                                                   {p[0], p[1], p[2]}};
                        for (int k = 0; k < 3; k++) {
                            memcpy(in + n, order[place][k],
                                   strlen(order[place][k]));
                            n += strlen(order[place][k]);
                        }
                        acreE_buf_init(&o, lo, sizeof(lo));
                        int rc = acreE_prep(fold ? ACRE_MR_CASE_IGNORE
                                                 : ACRE_MR_CASE_EXACT,
                                            in, n, &o);
                        cr_assert_eq(rc == ACRE_PREP_UTF8,
                                     !acreE_utf8_valid(in, n),
                                     "fold=%d %zu/%zu/%zu at %d: status %d",
                                     fold, g1, b, g2, place, rc);
                        acreE_buf_free(&o);
                    }
}
