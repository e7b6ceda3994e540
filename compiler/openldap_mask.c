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

/* The privilege of one letter of a =/+/- mask, 0 when not a letter. */
static uint32_t
letter_priv(char c)
{
    switch (c) {
    case 'm':
    case 'M':
        return ACREI_PRIV_MANAGE;
    case 'w':
    case 'W':
        return ACREI_PRIV_WRITE;
    case 'a':
    case 'A':
        return ACREI_PRIV_WADD;
    case 'z':
    case 'Z':
        return ACREI_PRIV_WDEL;
    case 'r':
    case 'R':
        return ACREI_PRIV_READ;
    case 's':
    case 'S':
        return ACREI_PRIV_SEARCH;
    case 'c':
    case 'C':
        return ACREI_PRIV_COMPARE;
    case 'x':
    case 'X':
        return ACREI_PRIV_AUTH;
    case 'd':
    case 'D':
        return ACREI_PRIV_DISCLOSE;
    case '0':
        return ACREI_PRIV_NONE;
    default:
        return 0;
    }
}

static uint32_t
parse_letters(const char *s, size_t n)
{
    uint32_t mask;

    if (s[0] == '=')
        mask = ACREI_PRIV_NONE;
    else if (s[0] == '+')
        mask = ACREI_PRIV_ADDITIVE;
    else if (s[0] == '-')
        mask = ACREI_PRIV_SUBTRACT;
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
    char c0 = (char)(s[0] | 0x20); /* the level names are lowercase */
    for (size_t i = 0; i < ACREI_NLEVELS; i++) {
        const char *name = acreI_levels[i].name;
        if (name[0] == c0 && strlen(name) == n && strncasecmp(name, s, n) == 0)
            return acreI_levels[i].mask;
    }
    return 0;
}
