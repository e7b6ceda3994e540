/*
 * eval_regex.c -- running a policy's regular expressions: a compiled
 * pattern on a DN or a value, with the submatches slapd would take, and a
 * pattern a check has substituted, compiled for that check.
 *
 * Whether a pattern matches, and its submatches ($n), are PCRE2's answer,
 * under the match and depth limits of the pattern's match context --
 * except the submatches of a pattern with '|', which slapd takes from the
 * C library's regexec, leftmost-longest, where PCRE2 takes the first
 * alternative that matches.
 *
 * Patterns a check substitutes are compiled through the dialect's hook,
 * which holds them to a cost estimate lower than rule text's (a DN or a
 * value is part of the text); past it the check is denied.
 */
#include "eval.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <regex.h>
#include <string.h>
#include <talloc.h>

/*
 * slapd matches with POSIX regexec, which takes the longest match at the
 * leftmost position; PCRE2 takes the first alternative that matches.
 * Whether a pattern matches is the same, but with an alternation the
 * submatches ($n) can differ ("^|uid=([^,]+),..." sets $1 in slapd).  So
 * where submatches are asked of a pattern with '|', they are taken from
 * regexec on the regex_t compiled with the rule (REG_STARTEND: no copy).
 * Returns 0, or -1 (keep PCRE2's).
 */
static int
posix_offsets(const struct acreI_regex *re, const char *s, size_t n,
              int (*off)[2], int noff)
{
    regmatch_t m[ACREI_MAX_MATCHES];

    m[0].rm_so = 0;
    m[0].rm_eo = (regoff_t)n;
    if (regexec(re->posix, s, (size_t)noff, m, REG_STARTEND) != 0)
        return -1;
    for (int i = 0; i < noff; i++) {
        off[i][0] = m[i].rm_so < 0 ? -1 : (int)m[i].rm_so;
        off[i][1] = m[i].rm_so < 0 ? -1 : (int)m[i].rm_eo;
    }
    return 0;
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
    if (noff > 0 && re->posix && posix_offsets(re, s, n, off, noff) == 0)
        return 1;
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
