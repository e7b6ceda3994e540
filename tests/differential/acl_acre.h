/*
 * acl_acre.h -- acre's side of the access-control suite: the slapd.conf
 * slapd runs, compiled by acre; the case's LDIF in acre's directory; each
 * search answered by acre_search as the requester slapd saw.
 */
#ifndef ACL_ACRE_H
#define ACL_ACRE_H

#include "acl_case.h"
#include "acl_result.h"

#include "acre.h"

struct acl_acre {
    acre_schema *schema;
    acre_policy *rules; /* as compiled */
    acre_directory *dir;
    acre_policy *policy; /* rules attached to dir's collective sources */
};

/*
 * acl_acre_open -- compile conf (the slapd.conf text, named name in
 * diagnostics), load ldif over the policy's schema and attach the
 * policy to the directory (acre_policy_attach_subentries), so that the
 * rules' slapo-collect "collectinfo" lines take their values from it as
 * slapd's overlay does.  Returns 0, or -1 with the reason in why (acre
 * refused the policy or the data).  Free with acl_acre_close.
 */
int acl_acre_open(struct acl_acre *a, const char *name, const char *conf,
                  const char *ldif, struct dt_str *why);
/* acl_acre_open with the policy from src (a slapd.d tree, say). */
int acl_acre_open_source(struct acl_acre *a, const acre_source *src,
                         const char *ldif, struct dt_str *why);
void acl_acre_close(struct acl_acre *a);

/*
 * acl_acre_run -- every search of c as acre answers it, appended to out in
 * the raw form of acl_result.h.  conn[i] (may be NULL) is the connection
 * slapd saw for search i ("PEER SOCKNAME URL", acl_raw.conn): acre's
 * requester gets the same peer name, socket name and listener URL, the
 * domain "unknown" (slapd without reverse lookups) and ssf 0 (plain
 * TCP).  A requester that binds with a password is first checked as
 * slapd's simple bind does: an anonymous `auth` check of each
 * userPassword value equal to the password.
 */
void acl_acre_run(struct acl_acre *a, const struct acl_case *c,
                  char *const *conn, struct dt_str *out);

#endif /* ACL_ACRE_H */
