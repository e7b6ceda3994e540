/*
 * dn_slapd.c -- cli_dn_slapd (ldif_out.h): acre's pretty DN text as slapd
 * writes the same DN (the engine's acreD_text_slapd), malloc'd, so that
 * the slapd differential (tests/differential/acl_acre.c) prints DNs as
 * acre search does.
 */
#include "ldif_out.h"

#include "dn.h"

#include <stdlib.h>
#include <string.h>

/* cli_dn_slapd -- see ldif_out.h. */
char *
cli_dn_slapd(const char *s)
{
    size_t n = strlen(s);
    char *out = malloc(3 * n + 1);

    if (out)
        out[acreD_text_slapd(s, n, out)] = '\0';
    return out;
}
