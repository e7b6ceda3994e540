/*
 * collective_gen.h -- a seeded generator of collective-attribute test
 * cases: a directory (LDIF) with administrative areas, subentries whose
 * subtree specifications use every construct, collective values that
 * overlap across subentries, exclusions on entries, and optionally
 * OpenDJ's extensions and slapo-collect settings.  The agreement test runs
 * each case through the engine and the reference evaluator
 * (collective_oracle.h) and compares the answers entry by entry.
 *
 * What a case holds:
 *   - a suffix dc=example,dc=com, OUs nested 1-4 deep, 30-300 entries of
 *     varied classes (persons of three classes, devices, groups, roles,
 *     localities), sometimes a second suffix o=other;
 *   - administrative points: specific (by name, OID or autonomousArea),
 *     inner, specific nested under specific, inner under specific, inner
 *     with no specific above (the second suffix), points with several
 *     subentries, and a few subentries under entries that are no point;
 *   - subentries with random specifications: base (sometimes naming no
 *     entry), chopBefore/chopAfter, minimum/maximum, item/and/or/not
 *     refinements, the filter form, and some that do not parse; a few
 *     subentries without collectiveAttributeSubentry;
 *   - c-* values drawn from small pools whose members differ only in case
 *     or spaces, so unions have duplicates to drop;
 *   - collectiveExclusions (a type by name or OID) and
 *     excludeAllCollectiveAttributes (by name or 2.5.18.0) on entries;
 *   - with ACREG_GEN_OPENDJ: the OpenDJ schema text, ;collective
 *     attributes, collectiveConflictBehavior values (one in twenty spelt
 *     in another case, which OpenDJ ignores), entries storing real values
 *     of those types, inherited-from-DN subentries (manager and seeAlso,
 *     sometimes pointing outside the area or at no entry) and
 *     inherited-from-RDN subentries over ou=locations entries;
 *   - with ACREG_GEN_COLLECT: 1-3 slapo-collect settings over containers
 *     (sometimes a DN with no entry, sometimes nested ones);
 *   - the evaluation flags: ACRER_COLL_STACK or 0, by the seed unless
 *     ACREG_GEN_STACK or ACREG_GEN_X501 forces one.
 *
 * Invariants: the same seed and flags give the same case on every machine
 * (own PRNG, splitmix64); every LDIF loads with acre_directory_load into a
 * schema made with acre_schema_new(..., ACRE_SCHEMA_SLAPD, ...) after
 * schema_text (when not NULL) was loaded; everything of a case hangs off
 * its talloc context.
 */
#ifndef ACRE_COLLECTIVE_GEN_H
#define ACRE_COLLECTIVE_GEN_H

#include "collective_oracle.h"

#include <stdint.h>

/* Flags of acreG_coll_gen */
#define ACREG_GEN_OPENDJ  0x100u /* OpenDJ extensions and their schema */
#define ACREG_GEN_COLLECT 0x200u /* slapo-collect settings */
#define ACREG_GEN_STACK   0x400u /* force ACRER_COLL_STACK */
#define ACREG_GEN_X501    0x800u /* force X.501 areas */

struct acreG_coll_case {
    uint64_t seed;
    char *schema_text; /* OpenDJ definitions (.schema text), or NULL */
    char *ldif;
    struct acreR_collectinfo *ci; /* slapo-collect settings */
    unsigned nci;
    unsigned flags; /* for acreR_coll_entry: ACRER_COLL_STACK or 0 */
};

/*
 * The OpenDJ attribute types and object classes the extensions use, with
 * OpenDJ's OIDs, as OpenLDAP .schema text for acre_schema_load_buffer
 * (the built-in schema has them too: this text repeats its definitions,
 * which a schema accepts).
 */
extern const char acreG_coll_opendj_schema[];

/*
 * acreG_coll_gen -- the case of `seed` under `flags` (ACREG_GEN_*).
 *   out: OUT, talloc child of mem_ctx.
 * Returns 0, ACRE_ERR_INVAL (unknown flag, or STACK and X501 together),
 * ACRE_ERR_NOMEM.
 */
int acreG_coll_gen(void *mem_ctx, uint64_t seed, unsigned flags,
                   struct acreG_coll_case **out);

#endif /* ACRE_COLLECTIVE_GEN_H */
