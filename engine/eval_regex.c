/*
 * eval_regex.c -- running a policy's regular expressions: a compiled
 * pattern on a DN or a value, with the submatches slapd would take, and a
 * pattern a check has substituted, compiled for that check.
 *
 * Whether a pattern matches, and where the leftmost match starts, is
 * PCRE2's answer, under the match and depth limits of the pattern's match
 * context.  The submatches ($n) are PCRE2's too, except for a pattern
 * with an alternation (ACREI_RE_POSIX): slapd takes them from the C
 * library's regexec, leftmost-longest, where PCRE2 takes the first
 * alternative that matches ("^|uid=([^,]+),..." sets $1 in slapd, not in
 * PCRE2).  glibc's regexec has no bound of its own, so it runs here only
 *   - on patterns without back-references: with one, it recurses without
 *     limit ("(|)(\1\1)*" overflows its stack on any subject) and takes
 *     time exponential in the subject; the compiler refuses a pattern
 *     with both whose submatches a clause substitutes, and otherwise
 *     PCRE2's submatches are kept;
 *   - from PCRE2's match start on (REG_STARTEND; no earlier start can
 *     match), and only when (bytes from there + 1) x the pattern's cost
 *     (acreI_regex.cost) is within ACREV_POSIX_BUDGET: glibc may build a
 *     DFA state per byte it reads, each up to the pattern's size, with a
 *     256-entry transition table, and more with anchors ("(.|\b)*a(a|b)
 *     {16}" costs it 50 us a byte).  Past the budget the check is denied
 *     (rq->limit_hit: ACRE_ERR_EVAL_LIMIT);
 *   - on a regex_t of the request's own (struct acreV_posix), compiled at
 *     its first use and compiled again once it has read
 *     ACREV_POSIX_REFRESH units: glibc keeps every DFA state it has built
 *     in the regex_t, so one shared by all requests grows with every new
 *     subject (2,000 checks of "(a|b)*a(a|b){20}" on 100-byte DNs: 750
 *     MB), and serialises threads on its lock.
 * Patterns a check substitutes are compiled through the dialect's hook,
 * which holds them to a cost estimate lower than rule text's (a DN or a
 * value is part of the text); past it the check is denied too.
 */
#include "eval.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <regex.h>
#include <string.h>
#include <talloc.h>

/* The request's regex_t copies of ACREI_RE_POSIX patterns. */
struct acreV_posix {
    struct {
        const void *key; /* the pattern's PCRE2 code; NULL: free slot */
        regex_t rx;
        size_t used; /* budget units read since compiled */
    } slot[ACREV_POSIX_SLOTS];

    unsigned next; /* the slot taken when all are in use */
};

static int
posix_free(struct acreV_posix *px)
{
    for (unsigned i = 0; i < ACREV_POSIX_SLOTS; i++)
        if (px->slot[i].key)
            regfree(&px->slot[i].rx);
    return 0;
}

/* The slot of re in px, or a free (or freed) one; i: its index. */
static unsigned
posix_slot(struct acreV_posix *px, const struct acreI_regex *re)
{
    unsigned i;

    for (i = 0; i < ACREV_POSIX_SLOTS; i++)
        if (px->slot[i].key == re->code)
            return i;
    for (i = 0; i < ACREV_POSIX_SLOTS; i++)
        if (!px->slot[i].key)
            return i;
    i = px->next++ % ACREV_POSIX_SLOTS;
    regfree(&px->slot[i].rx);
    px->slot[i].key = NULL;
    return i;
}

/* The request's regex_t for re, about to read `units` more; NULL when
 * out of memory. */
static regex_t *
posix_for(struct acre_request *rq, const struct acreI_regex *re, size_t units)
{
    struct acreV_posix *px = rq->posix;

    if (!px) {
        if (!(px = talloc_zero(rq->mem, struct acreV_posix)))
            return NULL;
        talloc_set_destructor(px, posix_free);
        rq->posix = px;
    }
    unsigned i = posix_slot(px, re);
    if (px->slot[i].key && px->slot[i].used + units > ACREV_POSIX_REFRESH) {
        regfree(&px->slot[i].rx); /* drop the DFA states it has built */
        px->slot[i].key = NULL;
    }
    if (!px->slot[i].key) {
        if (regcomp(&px->slot[i].rx, re->pattern, REG_EXTENDED | REG_ICASE))
            return NULL; /* the compiler's regcomp accepted it: memory */
        px->slot[i].key = re->code;
        px->slot[i].used = 0;
    }
    px->slot[i].used += units;
    return &px->slot[i].rx;
}

/* Submatches of a POSIX pattern as slapd's regexec takes them, from the
 * match PCRE2 found at `start`: 1 done, 0 regexec found none (keep
 * PCRE2's), -1 a bound reached or out of memory. */
static int
posix_offsets(struct acre_request *rq, const struct acreI_regex *re,
              const char *s, size_t start, size_t n, int (*off)[2], int noff)
{
    regmatch_t m[ACREI_MAX_MATCHES];
    size_t per = re->cost ? re->cost : 1;

    if (n - start >= ACREV_POSIX_BUDGET / per)
        return -1;
    size_t units = (n - start + 1) * per;
    regex_t *rx = posix_for(rq, re, units);
    if (!rx)
        return -1;
    m[0].rm_so = (regoff_t)start;
    m[0].rm_eo = (regoff_t)n;
    int rc = regexec(rx, s, (size_t)noff, m, REG_STARTEND);
    if (rc == REG_NOMATCH)
        return 0;
    if (rc != 0)
        return -1;
    for (int i = 0; i < noff; i++) {
        off[i][0] = m[i].rm_so < 0 ? -1 : (int)m[i].rm_so;
        off[i][1] = m[i].rm_so < 0 ? -1 : (int)m[i].rm_eo;
    }
    return 1;
}

int
acreV_regex_match(struct acre_request *rq, const struct acreI_regex *re,
                  const char *s, size_t n, int (*off)[2], int noff)
{
    pcre2_match_data *md = rq->md;

    if (!re->code || !md)
        return 0;
    int rc = pcre2_match(re->code, (PCRE2_SPTR)s, n, 0, 0, md, re->mctx);
    if (rc < 0) {
        if (rc != PCRE2_ERROR_NOMATCH) /* match, depth, heap, JIT stack */
            rq->limit_hit = 1;
        return 0;
    }
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
    uint32_t pairs = pcre2_get_ovector_count(md);
    int set = rc == 0 ? (int)pairs : rc; /* 0: more groups than pairs */
    if (noff > ACREI_MAX_MATCHES)
        noff = ACREI_MAX_MATCHES;
    if (noff > 0 && (re->flags & ACREI_RE_POSIX)) {
        int p = posix_offsets(rq, re, s, (size_t)ov[0], n, off, noff);
        if (p < 0) {
            rq->limit_hit = 1;
            return 0;
        }
        if (p > 0)
            return 1;
    }
    for (int i = 0; i < noff; i++) {
        int unset =
            i >= set || (uint32_t)i >= pairs || ov[2 * i] == PCRE2_UNSET;
        off[i][0] = unset ? -1 : (int)ov[2 * i];
        off[i][1] = unset ? -1 : (int)ov[2 * i + 1];
    }
    return 1;
}

int
acreV_regex_match_text(struct acre_request *rq, const char *pattern,
                       const char *s, size_t n)
{
    const struct acreI_hooks *h = rq->p->ir->hooks;
    struct acreI_regex re = {0};
    const char *why = NULL;

    if (!h || !h->regex_compile)
        return 0;
    int rc = h->regex_compile(rq->scratch, pattern, strlen(pattern), &re, &why);
    if (rc == ACRE_ERR_RULE_LIMIT || rc == ACRE_ERR_NOMEM) {
        rq->limit_hit = 1; /* too costly to compile per check: deny */
        return 0;
    }
    if (rc)
        return 0; /* slapd: a pattern regcomp refuses matches nothing */
    return acreV_regex_match(rq, &re, s, n, NULL, 0);
}
