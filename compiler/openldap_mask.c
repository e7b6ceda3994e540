/*
 * openldap_mask.c -- privilege masks of the OpenLDAP dialect: parsing an
 * <access> word, applying a clause's mask, and printing a mask the way
 * slapd's accessmask2str() does (slapacl's output).
 *
 * Invariant: the arithmetic is slapd's, bit for bit (see openldap.h), so
 * the reference evaluator and slapacl print the same text for the same
 * sequence of clauses.
 */
#include "openldap.h"

#include <string.h>
#include <strings.h>

static const struct {
    const char *name;
    uint32_t mask;
} levels[] = {
    {"none", ACREO_LVL_NONE},     {"disclose", ACREO_LVL_DISCLOSE},
    {"auth", ACREO_LVL_AUTH},     {"compare", ACREO_LVL_COMPARE},
    {"search", ACREO_LVL_SEARCH}, {"read", ACREO_LVL_READ},
    {"add", ACREO_LVL_WADD},      {"delete", ACREO_LVL_WDEL},
    {"write", ACREO_LVL_WRITE},   {"manage", ACREO_LVL_MANAGE},
};

/* The privilege of one letter of a =/+/- mask, 0 when not a letter. */
static uint32_t
letter_priv(char c)
{
    switch (c) {
    case 'm':
    case 'M':
        return ACREO_PRIV_MANAGE;
    case 'w':
    case 'W':
        return ACREO_PRIV_WRITE;
    case 'a':
    case 'A':
        return ACREO_PRIV_WADD;
    case 'z':
    case 'Z':
        return ACREO_PRIV_WDEL;
    case 'r':
    case 'R':
        return ACREO_PRIV_READ;
    case 's':
    case 'S':
        return ACREO_PRIV_SEARCH;
    case 'c':
    case 'C':
        return ACREO_PRIV_COMPARE;
    case 'x':
    case 'X':
        return ACREO_PRIV_AUTH;
    case 'd':
    case 'D':
        return ACREO_PRIV_DISCLOSE;
    case '0':
        return ACREO_PRIV_NONE;
    default:
        return 0;
    }
}

static uint32_t
parse_letters(const char *s, size_t n)
{
    uint32_t mask;

    if (s[0] == '=')
        mask = ACREO_PRIV_NONE;
    else if (s[0] == '+')
        mask = ACREO_PRIV_ADDITIVE;
    else if (s[0] == '-')
        mask = ACREO_PRIV_SUBTRACT;
    else
        return 0;
    for (size_t i = 1; i < n; i++) {
        uint32_t p = letter_priv(s[i]);
        if (!p)
            return 0;
        mask |= p;
    }
    return mask;
}

uint32_t
acreO_mask_parse(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    if (!((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return parse_letters(s, n);
    for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
        if (strlen(levels[i].name) == n &&
            strncasecmp(levels[i].name, s, n) == 0)
            return levels[i].mask;
    return 0;
}

uint32_t
acreO_mask_apply(uint32_t cur, uint32_t mod)
{
    if (mod & ACREO_PRIV_ADDITIVE)
        return (cur | mod) & ACREO_PRIV_MASK;
    if (mod & ACREO_PRIV_SUBTRACT)
        return (cur & ~mod) & ACREO_PRIV_MASK;
    return mod;
}

static int
has(uint32_t m, uint32_t p)
{
    return (m & p) == p;
}

/* The level name of a LEVEL mask, compared on the privilege bits. */
static const char *
level_name(uint32_t mask)
{
    uint32_t p = mask & ACREO_PRIV_MASK;

    for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]); i++)
        if ((levels[i].mask & ACREO_PRIV_MASK) == p)
            return levels[i].name;
    return "unknown";
}

/* Append the privilege letters of mask at p (slapd's order); returns the
 * new end.  '0' only when nothing else was written. */
static char *
put_letters(char *p, uint32_t mask)
{
    char *start = p;

    if (has(mask, ACREO_PRIV_MANAGE))
        *p++ = 'm';
    if (has(mask, ACREO_PRIV_WRITE))
        *p++ = 'w';
    else if (has(mask, ACREO_PRIV_WADD))
        *p++ = 'a';
    else if (has(mask, ACREO_PRIV_WDEL))
        *p++ = 'z';
    if (has(mask, ACREO_PRIV_READ))
        *p++ = 'r';
    if (has(mask, ACREO_PRIV_SEARCH))
        *p++ = 's';
    if (has(mask, ACREO_PRIV_COMPARE))
        *p++ = 'c';
    if (has(mask, ACREO_PRIV_AUTH))
        *p++ = 'x';
    if (has(mask, ACREO_PRIV_DISCLOSE))
        *p++ = 'd';
    if (p == start && has(mask, ACREO_PRIV_NONE))
        *p++ = '0';
    return p;
}

char *
acreO_mask_format(uint32_t mask, char *buf)
{
    char *p = buf, *letters;

    if (mask == 0)
        return strcpy(buf, "invalid");
    if (mask & ACREO_PRIV_LEVEL) {
        const char *name = level_name(mask);
        size_t n = strlen(name);
        memcpy(p, name, n);
        p += n;
        *p++ = '(';
    }
    if (mask & ACREO_PRIV_ADDITIVE)
        *p++ = '+';
    else if (mask & ACREO_PRIV_SUBTRACT)
        *p++ = '-';
    else
        *p++ = '=';
    letters = p;
    p = put_letters(p, mask);
    if (p == letters) /* slapd prints nothing, not even the level */
        p = buf;
    if (mask & ACREO_PRIV_LEVEL)
        *p++ = ')';
    *p = '\0';
    return buf;
}

uint32_t
acreO_access_priv(enum acreO_access a)
{
    switch (a) {
    case ACREO_ACCESS_DISCLOSE:
        return ACREO_PRIV_DISCLOSE;
    case ACREO_ACCESS_AUTH:
        return ACREO_PRIV_AUTH;
    case ACREO_ACCESS_COMPARE:
        return ACREO_PRIV_COMPARE;
    case ACREO_ACCESS_SEARCH:
        return ACREO_PRIV_SEARCH;
    case ACREO_ACCESS_READ:
        return ACREO_PRIV_READ;
    case ACREO_ACCESS_WADD:
        return ACREO_PRIV_WADD;
    case ACREO_ACCESS_WDEL:
        return ACREO_PRIV_WDEL;
    case ACREO_ACCESS_WRITE:
        return ACREO_PRIV_WRITE;
    case ACREO_ACCESS_MANAGE:
        return ACREO_PRIV_MANAGE;
    }
    return 0;
}
