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

/*
 * acl_ldap_ops -- the operations of c (its ops file), in order, each as
 * its requester (a proxy's with the control; a bind requester whose bind
 * failed makes none), one line each appended to out: "K TAB OP TAB RC TAB
 * MATCHED TAB TEXT" (K from 1; "K TAB OP TAB bind RC" for a failed
 * bind); then, for each database with a rootdn, "# SUFFIX: RC" and its
 * entries as LDIF, as that rootdn reads them (all user attributes).
 * Dies when slapd cannot be reached or goes away.
 */
void acl_ldap_ops(const struct acl_case *c, const char *uri, const char *rootpw,
                  struct dt_str *out);

#endif /* ACL_LDAP_H */
