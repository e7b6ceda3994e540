/*
 * alloc_hook.h -- the test binary's allocator: malloc, calloc, realloc
 * and free of the C library, which every library of the process (talloc,
 * PCRE2, libacre) reaches through the executable's definitions, counted,
 * and made to fail on demand for out-of-memory tests.
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
 * after it until alloc_fail_after(0) (n 0: none fails). */
void alloc_fail_after(unsigned long n);

/* alloc_failed -- allocations refused since the last alloc_fail_after. */
unsigned long alloc_failed(void);

/* alloc_count -- allocations (malloc, calloc, realloc) made so far. */
unsigned long alloc_count(void);

#endif /* ACRE_ALLOC_HOOK_H */
