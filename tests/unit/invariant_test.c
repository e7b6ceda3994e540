/*
 * invariant_test.c -- the checking macros of engine/internal.h
 * (acre_assert, acre_never) in the build at hand, and the one copy of the
 * ASCII classes every parser uses.
 *
 * Debug and sanitizer builds (ACRE_ASSERTS 1) must abort on a violated
 * invariant; release builds must not evaluate an assertion and must take
 * an acre_never branch, so that code failing closed behind it still does.
 */
#include "internal.h"

#include <criterion/criterion.h>
#include <ctype.h>
#include <signal.h>
#include <stdlib.h>

#if ACRE_ASSERTS

Test(invariant, assert_aborts_when_false, .signal = SIGABRT)
{
    volatile int x = 1;
    acre_assert(x == 2);
}

Test(invariant, never_aborts_when_true, .signal = SIGABRT)
{
    volatile int x = 1;
    if (acre_never(x == 1))
        exit(0); /* not reached: the test expects the abort */
}

Test(invariant, quiet_when_the_invariant_holds)
{
    int n = 0;
    acre_assert(++n == 1);
    cr_expect_eq(n, 1);
    cr_expect(!acre_never(++n == 3));
    cr_expect_eq(n, 2);
}

#else

Test(invariant, release_assert_not_evaluated)
{
    int n = 0;
    acre_assert(++n == 5);
    cr_expect_eq(n, 0);
}

Test(invariant, release_never_takes_the_branch)
{
    int n = 0;
    cr_expect(acre_never(++n == 1));
    cr_expect(!acre_never(++n == 1));
    cr_expect_eq(n, 2);
}

#endif

Test(invariant, ascii_classes)
{
    for (int c = -1; c < 256; c++) {
        int alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        int digit = c >= '0' && c <= '9';
        cr_expect_eq(acreE_is_alpha(c), alpha, "%d", c);
        cr_expect_eq(acreE_is_digit(c), digit, "%d", c);
        char s[2] = {(char)c, 0};
        int hex =
            c > 0 && c < 128 && isxdigit(c) ? (int)strtol(s, NULL, 16) : -1;
        cr_expect_eq(acreE_hexval(c), hex, "%d", c);
    }
    cr_expect_eq(acreE_hexval((char)0xc1), -1); /* a signed char */
}
