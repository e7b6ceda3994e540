/*
 * acl_check.h -- one case through both sides: slapd (by running the
 * harness script on the case directory) and acre (in process), their
 * answers normalised and compared search by search; and the reproducer
 * printed for a search on which they differ.
 */
#ifndef ACL_CHECK_H
#define ACL_CHECK_H

#include "acl_case.h"

#include <stdio.h>

/* How to run slapd on a case directory: the command line prefix (the
 * runner script and this driver), to which the directory is appended. */
struct acl_runner {
    const char *cmd;
    unsigned runs; /* how many times slapd was run */
};

/* Exit codes of the runner script (acl_run.sh). */
#define ACL_RUN_OK      0
#define ACL_RUN_HARNESS 2 /* the harness failed: no answer */
#define ACL_RUN_CONF    3 /* slaptest refused the configuration */
#define ACL_RUN_DATA    4 /* slapadd refused the LDIF */
#define ACL_RUN_START   5 /* slapd would not start with them */

/*
 * Module mode: with ACL_ACRE_MODULE naming slapo-acre's acre.so (an
 * absolute path) in the environment, a case's "acre" side is slapd with
 * the overlay acre deciding on the case's rules (acl_case_conf_module),
 * and its "slapd" side stock slapd with the rules as its own: acl_slapd
 * runs the runner for both (dir/native.out, then dir/slapd.out, the
 * runner's environment saying which with ACL_SLAPD_SIDE), and acl_compare
 * compares them.  A configuration stock slapd refuses is skipped as usual;
 * one only the module refuses is a difference on every search.
 *
 * acl_module_side -- in module mode, while the runner runs the module's
 * side, the module's path; else NULL.
 */
const char *acl_module_side(void);

/* acl_slapd -- write c into dir and have slapd answer its searches
 * (dir/slapd.conf, dir/slapd.out).  Returns an ACL_RUN_* code. */
int acl_slapd(struct acl_runner *run, const struct acl_case *c,
              const char *dir);

/* What both sides answered, search by search, in normal form. */
struct acl_outcome {
    unsigned n;
    char **slapd, **acre;  /* [n] normal forms */
    unsigned char *differ; /* [n] */
    unsigned ndiffer;
    char *refused; /* acre refused the policy or data: why; else NULL */
    unsigned entries_slapd; /* entries slapd returned in all */
    unsigned cnconfig;      /* 1: also compared with the policy read from
                               slapd's cn=config conversion (slapd.d) */
    /* module mode: the compares and writes of the ops file, then the
     * databases' content (acl_ldap_ops), stock slapd's (native-ops.out)
     * against slapd with the module's (slapd-ops.out) */
    unsigned nops;
    unsigned ops_rc[128]; /* stock slapd's result codes, counted */
    int ops_differ;
    char *ops_report; /* when they differ: the first lines that do */
};

/*
 * acl_compare -- acre's answers to the searches of c (whose slapd side is
 * in dir/slapd.out, and policy in dir/slapd.conf) written to dir/acre.out
 * and compared with slapd's.  The outcome hangs off ctx.
 */
struct acl_outcome *acl_compare(void *ctx, const struct acl_case *c,
                                const char *dir);

/* acl_one -- acl_slapd then acl_compare.  Returns the outcome, or NULL
 * with *rc set to the runner's code when slapd gave no answers. */
struct acl_outcome *acl_one(void *ctx, struct acl_runner *run,
                            const struct acl_case *c, const char *dir, int *rc);

/* acl_case_single -- a copy of c asking only search i (and its
 * requester), under ctx. */
struct acl_case *acl_case_single(void *ctx, const struct acl_case *c,
                                 unsigned i);

/* acl_reproducer -- print everything needed to replay search i of c
 * (dir holds its files): rules, LDIF, who asks what, both normal forms
 * and their difference. */
void acl_reproducer(FILE *f, const struct acl_case *c, unsigned i,
                    const struct acl_outcome *o, const char *dir);

#endif /* ACL_CHECK_H */
