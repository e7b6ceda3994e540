/*
 * acl_ldap.h -- slapd's side of the access-control suite: run a case's
 * searches against a running slapd over LDAP (libldap), as each of the
 * case's requesters.
 */
#ifndef ACL_LDAP_H
#define ACL_LDAP_H

#include "acl_case.h"
#include "acl_result.h"

/*
 * acl_ldap_run -- every search of c, in order, against the slapd at uri
 * (whose rootdns' password is rootpw); the answers, in the raw form of
 * acl_result.h, are appended to out.  Dies when slapd cannot be reached
 * or refuses a bind that must work (anonymous, rootdn).
 */
void acl_ldap_run(const struct acl_case *c, const char *uri, const char *rootpw,
                  struct dt_str *out);

#endif /* ACL_LDAP_H */
