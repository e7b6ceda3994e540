/*
 * url.h -- LDAP URLs (RFC 4516) found in entry data (memberURL values),
 * split as libldap's ldap_url_parse() does.
 */
#ifndef ACRE_URL_H
#define ACRE_URL_H

#include "acre.h"

#include <stddef.h>

/* An LDAP URL (RFC 4516) as libldap's ldap_url_parse() splits it. */
struct acreE_url {
    const char *host; /* "" when empty */
    const char *dn;   /* unescaped */
    const char **attrs;
    unsigned nattrs;
    int scope;          /* enum acre_scope; ACRE_SCOPE_BASE when absent */
    const char *filter; /* NULL when absent */
    unsigned nexts;
};

/*
 * acreE_url_parse -- split s[0..n) (ldap://, ldaps://, ldapi://, cldap://,
 * optionally "<...>" or "URL:"-prefixed).  Returns 0 with *out under ctx,
 * -1 when malformed, ACRE_ERR_NOMEM.
 */
int acreE_url_parse(void *ctx, const char *s, size_t n, struct acreE_url *out);


#endif /* ACRE_URL_H */
