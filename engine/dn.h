/*
 * dn.h -- the layout of acre_dn and the DN internals other engine files
 * use (the index and evaluator probe ancestry hashes directly).
 *
 * An acre_dn is one contiguous, position-independent block:
 *
 *   +--------------------------------------------------------------+
 *   | magic | size | owner | depth | flags | norm_len | pretty_len  |
 *   | norm_off | pretty_off | rdn_off                   (40 bytes)  |
 *   +--------------------------------------------------------------+
 *   | h[0] ... h[depth]            uint64_t ancestry hashes         |
 *   +--------------------------------------------------------------+
 *   | nrdn[0] ... nrdn[depth]      uint32_t RDN starts in norm      |
 *   | prdn[0] ... prdn[depth]      uint32_t RDN starts in pretty    |
 *   +--------------------------------------------------------------+
 *   | norm text, NUL                                                |
 *   | pretty text, NUL      (absent when equal to norm: shared)     |
 *   +--------------------------------------------------------------+
 *
 * RDN k (0 = leftmost) of the normalised form is bytes
 * [nrdn[k], nrdn[k+1] - 1); nrdn[depth] is norm_len + 1 so the formula
 * holds for the last RDN too.  The suffix made of the last i RDNs starts at
 * nrdn[depth - i].  h[i] hashes that suffix: h[0] is a per-process
 * constant, h[i] = chain(h[i-1], H(RDN depth-i)).
 * `owner` is the object's own address when acre allocated it with talloc,
 * so a memcpy'd copy (whose address differs) is never passed to talloc.
 */
#ifndef ACRE_DN_H
#define ACRE_DN_H

#include "acre.h"
#include "buf.h"

#include <stddef.h>
#include <stdint.h>

#define ACRED_MAGIC 0x61637264u /* "acrd" */

struct acre_dn {
    uint32_t magic;
    uint32_t size;
    uint64_t owner;
    uint16_t depth;
    uint16_t flags;
    uint32_t norm_len;
    uint32_t pretty_len;
    uint32_t norm_off;
    uint32_t pretty_off;
    uint32_t rdn_off;
    /* then h[0..depth] (acreD_h): no flexible array member, so that the
     * header is valid C++ too (hdrcheck) */
};

/* h[0..depth], the ancestry hashes right after the 40-byte header */
static inline const uint64_t *
acreD_h(const acre_dn *dn)
{
    return (const uint64_t *)(const void *)(dn + 1);
}

static inline const char *
acreD_norm(const acre_dn *dn)
{
    return (const char *)dn + dn->norm_off;
}

static inline const char *
acreD_pretty(const acre_dn *dn)
{
    return (const char *)dn + dn->pretty_off;
}

/* nrdn[0..depth] */
static inline const uint32_t *
acreD_nrdn(const acre_dn *dn)
{
    return (const uint32_t *)((const char *)dn + dn->rdn_off);
}

/* prdn[0..depth] */
static inline const uint32_t *
acreD_prdn(const acre_dn *dn)
{
    return acreD_nrdn(dn) + dn->depth + 1;
}

/*
 * acreD_set_hash_hook -- tests only: while hook is set, every RDN hash is
 * hook(bytes, n, key) instead of the real keyed hash; NULL restores it.
 * Lets a test force collisions and prove that they never match.
 * Not thread-safe: call with no other thread parsing.
 */
void acreD_set_hash_hook(uint64_t (*hook)(const void *p, size_t n,
                                          uint64_t key));

/*
 * acreD_set_paths -- tests only: which parsing paths dn.c takes (see its
 * header): ACRED_PATHS_BEST (the default: the word-parallel paths 1 and 2
 * where the machine has SSE2 and the DN fits, then the byte loops),
 * ACRED_PATHS_SCALAR (the byte loops of paths 1 and 2 only),
 * ACRED_PATHS_GENERAL (path 3 alone) or ACRED_PATHS_SSE2 (as
 * ACRED_PATHS_BEST without the AVX2 forms, where the machine has them).  Every
 * mode gives the same results; the tests prove it.  Not thread-safe: call with
 * no other thread parsing.
 */
enum {
    ACRED_PATHS_BEST = 0,
    ACRED_PATHS_SCALAR = 1,
    ACRED_PATHS_GENERAL = 2,
    ACRED_PATHS_SSE2 = 3
};

void acreD_set_paths(int mode);

/*
 * acreD_path1 -- tests only: does the word-parallel path 1 of
 * acre_dn_parse_buf, in the form the current acreD_set_paths mode picks
 * (AVX2 or SSE2), take s[0..n) with the built-in schema?  1 when it
 * does, 0 when it declines, -1 where the machine has no such path.
 */
int acreD_path1(const char *s, size_t n);

/*
 * acreD_value_unescape -- append to out the bytes of one AVA value as it
 * stands in the normalised or pretty text of an acre_dn (`\XX` and `\c`
 * escapes undone; with hex set, a value starting with '#' is hex digits
 * and gives their bytes).  The text is trusted to be acre's own output.
 * Returns 0 or ACRE_ERR_NOMEM.  Any thread.
 */
int acreD_value_unescape(const char *v, size_t n, int hex,
                         struct acreE_buf *out);

/*
 * acreD_text_389 -- append to out DN text s[0..n) as 389-DS stores a DN
 * value (dn_389.c: separators without spaces, special characters as \XX
 * pairs, case and type spellings kept).  s should be a DN acre_dn_parse
 * accepts.  Returns 0, ACRE_ERR_NOMEM, or ACRE_ERR_INVAL when s is not
 * "type=value" AVAs; out is unchanged on error.  Any thread.
 */
int acreD_text_389(const char *s, size_t n, struct acreE_buf *out);

/*
 * acreD_text_slapd -- DN text s[0..n) in acre's form (pretty or
 * normalised) as slapd writes it: escapes as "\XX" pairs, an '=' in a
 * value as "\3D" (dn_slapd.c).  Writes at most 3n bytes to out, no NUL;
 * returns the bytes written.
 */
size_t acreD_text_slapd(const char *s, size_t n, char *out);

/*
 * acreD_cmp_slapd -- back-mdb's order of two RDNs given in acre's
 * normalised text, as their slapd texts (acreD_text_slapd) compare in
 * dn2id: the shorter first, then byte by byte.  <0, 0 or >0; allocates
 * nothing.
 */
int acreD_cmp_slapd(const char *a, size_t an, const char *b, size_t bn);

/*
 * acreD_hash_key -- the process's hash key (random, fixed at first use).
 * Any thread.
 */
uint64_t acreD_hash_key(void);

#endif /* ACRE_DN_H */
