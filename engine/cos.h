/*
 * cos.h -- 389-DS's Class of Service (engine/cos.c): the virtual
 * attributes its cos plugin gives entries from CoS definitions and
 * templates, computed under ACRE_REQ_COS from the host's entries.
 *
 * The definitions and templates are read with the group and role index
 * (memberof.c: one subtree search of everything the host holds, shared
 * through the policy while the host's generation stays the same); cos.c
 * collects them during that search (acreV_cos_visit) and orders them as
 * the plugin's cache does (acreV_cos_finish).  A query then answers one
 * attribute type of one entry as the plugin's cos_cache_query_attr does.
 */
#ifndef ACRE_COS_H
#define ACRE_COS_H

#include "acre.h"

#include <stdint.h>

struct acre_request;
struct acreV_cos;

/*
 * acreV_cos_visit -- note entry e if it is a CoS definition (an
 * ldapSubEntry of class cosSuperDefinition or cosDefinition) or a
 * template (class cosTemplate, or any entry, for the pointer lookups of
 * indirect definitions: only the former are kept), under ctx, creating
 * *cos at the first.  0, or ACRE_ERR_NOMEM.
 */
int acreV_cos_visit(void *ctx, struct acreV_cos **cos, struct acre_request *rq,
                    const acre_entry_view *e);

/* acreV_cos_finish -- match the definitions with their templates and
 * order the result as 389 does; cos may be NULL (none).  0, or
 * ACRE_ERR_NOMEM. */
int acreV_cos_finish(struct acreV_cos *cos, struct acre_request *rq);

/*
 * acreV_cos_values -- what 389's CoS gives entry e for attribute type
 * `type` (no options) under rq's ACRE_REQ_COS: 1 with the values in
 * *vals[0..*n) (valid until the request's next CoS query) and *op 1 when
 * the attribute is operational (returned only when named), 0 when CoS
 * gives nothing (the stored values, if any, stand), or a negative
 * ACRE_ERR_* code (the request is failed: acreV_fail).  The filter hook
 * (filter.h) and acre_entry_cos use it.
 */
int acreV_cos_values(struct acre_request *rq, const acre_entry_view *e,
                     int type, const acre_value **vals, uint32_t *n, int *op);

/* acreV_cos_hook -- acreV_cos_values as the filter hook (arg: the
 * request; op not given). */
int acreV_cos_hook(void *arg, const acre_entry_view *e, int type,
                   const acre_value **vals, uint32_t *n);

/*
 * acreV_cos_types -- the attribute types CoS knows (every definition's
 * cosAttribute that some template or pointer may fill), in 389's order
 * (by name), into *types[0..*n), and the name 389 lists each under (its
 * first pair's: a template's attribute by its schema name, an indirect
 * definition's cosAttribute as written) in *names (owned by the index);
 * 0 or an error.
 */
int acreV_cos_types(struct acre_request *rq, const int **types,
                    const char *const **names, uint32_t *n);

/* acreV_cos_active -- does rq ask for CoS (ACRE_REQ_COS) and does its
 * host hold a definition that gives some type?  (The typed filter path,
 * which sees stored attributes only, is then not taken.)  A failure to
 * build the index counts as yes: the filters' hooks then fail the check. */
int acreV_cos_active(struct acre_request *rq);

/* acreV_cos_of -- the request's CoS part of its index (memberof.c), or
 * NULL with *rc set when it cannot be built (or 0: there is none). */
const struct acreV_cos *acreV_cos_of(struct acre_request *rq, int *rc);

#endif
