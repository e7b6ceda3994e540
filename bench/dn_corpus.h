/*
 * dn_corpus.h -- deterministic corpora of realistic DN strings for the
 * benchmarks (DN parsing now; LDIF load and policy evaluation later).
 *
 * A corpus is an array of NUL-terminated strings with their lengths
 * precomputed, stored back to back in one block, so every implementation
 * timed over it walks the identical bytes.  The generator is seeded: the
 * same seed and size give the same corpus on every machine.  Every DN it
 * writes is valid per RFC 4514 (with the RFC 2253 habit of a space after a
 * comma) and uses only attribute types of the core/cosine schemas.
 */
#ifndef ACRE_BENCH_DN_CORPUS_H
#define ACRE_BENCH_DN_CORPUS_H

#include <stddef.h>
#include <stdint.h>

typedef struct dn_corpus {
    size_t n;             /* strings */
    const char **str;     /* str[i]: NUL-terminated */
    size_t *len;          /* len[i] == strlen(str[i]) */
    unsigned char *depth; /* RDNs in str[i], as the generator wrote it */
    /* private: the backing store while the corpus is being built */
    char *text;
    size_t used, cap;
    size_t *off;
    size_t ncap;
} dn_corpus;

enum dn_kind {
    /* Plain ASCII, mixed case in types and values, occasional spaces after
     * commas and two-AVA RDNs; no escapes, no aliases or OIDs. */
    DN_KIND_ASCII,
    /* Every DN has a backslash escape (\, \+ \" \\ \3C, hex-escaped UTF-8),
     * a #hex BER value or a non-ASCII value (Latin, Greek, Cyrillic, CJK,
     * Hangul); some use type aliases or OIDs. */
    DN_KIND_RICH
};

/*
 * dn_corpus_generate -- n DNs of 5 to 7 RDNs, of the given kind.
 * Returns 0 or -1 when out of memory; c is then empty.
 */
int dn_corpus_generate(dn_corpus *c, size_t n, enum dn_kind kind,
                       uint64_t seed);

/*
 * Building a corpus from other strings: dn_corpus_init(), then
 * dn_corpus_add() for each (copied), then dn_corpus_finish(), which fills
 * str[].  Each returns 0 or -1 when out of memory.
 */
int dn_corpus_init(dn_corpus *c, size_t n_hint);
int dn_corpus_add(dn_corpus *c, const char *s, size_t len, unsigned depth);
int dn_corpus_finish(dn_corpus *c);

/* dn_corpus_free -- free everything; c is left empty. */
void dn_corpus_free(dn_corpus *c);

#endif /* ACRE_BENCH_DN_CORPUS_H */
