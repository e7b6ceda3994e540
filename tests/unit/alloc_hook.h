/*
 * alloc_hook.h -- the test binary's allocator: malloc, calloc, realloc
 * and free of the C library, which every library of the process (talloc,
 * PCRE2, libacre) reaches through the executable's definitions, counted,
 * made to fail on demand for out-of-memory tests, and the blocks alive
 * counted, so that a test can check a failed call left nothing behind.
 *
 * Not under AddressSanitizer, whose allocator must see every block:
 * there ALLOC_HOOK is 0 and the tests that need the hook are not built
 * (the sanitizer run covers memory errors, the plain one out-of-memory).
 */
#ifndef ACRE_ALLOC_HOOK_H
#define ACRE_ALLOC_HOOK_H

#include <stddef.h>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ALLOC_HOOK 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define ALLOC_HOOK 0
#endif
#endif
#ifndef ALLOC_HOOK
#define ALLOC_HOOK 1
#endif

/* alloc_fail_after -- the n-th allocation from now fails, and every one
 * after it until alloc_fail_after(0) (n 0: none fails).  A call of glibc's
 * regcomp counts as one allocation, and fails with REG_ESPACE when that
 * one is refused: glibc's regcomp is not safe when malloc fails inside it
 * (alloc_hook.c), so nothing inside it is ever refused. */
void alloc_fail_after(unsigned long n);

/* alloc_fail_once -- only the n-th allocation from now fails (the ones
 * after it succeed): a failure the code drops shows as a wrong answer
 * instead of being masked by the failures that follow it. */
void alloc_fail_once(unsigned long n);

/* With ALLOC_HOOK_TRACE=FILE in the environment, the first refusal after
 * each alloc_fail_after appends its call stack to FILE (to find which
 * allocation a sweep's failing run stopped at). */

/* alloc_failed -- allocations refused since the last alloc_fail_after. */
unsigned long alloc_failed(void);

/* alloc_count -- allocations (malloc, calloc, realloc) made so far. */
unsigned long alloc_count(void);

/* alloc_live -- blocks allocated and not yet freed, counted from the
 * start of the process (blocks of the C library's own start-up, made
 * before the hook could count them, make the absolute value meaningless:
 * compare it before and after a call to see what the call left). */
long alloc_live(void);

#endif /* ACRE_ALLOC_HOOK_H */
