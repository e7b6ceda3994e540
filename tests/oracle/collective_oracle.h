/*
 * collective_oracle.h -- the reference evaluator of collective attributes:
 * RFC 3671 collective attributes from RFC 3672 subentries, OpenDJ's
 * extensions and OpenLDAP's slapo-collect, computed for one entry by
 * scanning every entry of the directory for subentries and testing each
 * subtree specification literally.
 *
 * It is the yardstick the indexed engine is held to, so it is plain and
 * slow on purpose: no index, no cache, every specification parsed
 * (compiler/subentry.h) and every name and filter resolved again on every
 * call.  Access control is not its business.
 *
 * The rules it follows (where RFCs, X.501 and the servers are silent or
 * disagree, the reading chosen is written here):
 *
 * Administrative points: entries whose administrativeRole holds (names or
 * OIDs, case-insensitively) autonomousArea 2.5.23.1 or
 * collectiveAttributeSpecificArea 2.5.23.5 (SPECIFIC points), or
 * collectiveAttributeInnerArea 2.5.23.6 (INNER).
 *
 * Classes are tested through the schema's superclass chain: an entry "has"
 * class C when a value of its objectClass names C or a subclass of C.
 * A subentry is an entry with class subentry.  A collective subentry is a
 * subentry with class collectiveAttributeSubentry or (OpenDJ, when the
 * schema defines it) inheritedCollectiveAttributeSubentry.
 *
 * Which subentries apply to an entry E (never to a subentry):
 *   X.501 (default): S's parent A must be a point; P is the nearest
 *     SPECIFIC point at or above E; S applies when A is P, or A is an
 *     INNER point strictly below P and at or above E.  With no P nothing
 *     applies (an inner area with no specific area above is a data error).
 *   ACRER_COLL_STACK (OpenDJ, ApacheDS): every collective subentry whose
 *     parent is at or above E, whatever the parent's roles.
 * and then E must be in the reach of S's subtreeSpecification (its first
 * value, parsed by acreU_spec_parse): base = B,A (A when B is ""); E at
 * or below base; d = depth(E) - depth(base) within minimum..maximum; E
 * not at or below any chopBefore X,base; E not strictly below any
 * chopAfter X,base; the refinement TRUE for E (item:OC: E has class OC,
 * an unknown OC being FALSE; and:{} TRUE, or:{} FALSE; a filter is
 * evaluated on E's stored attributes and only TRUE counts).  A subentry
 * with no subtreeSpecification, or one that does not parse, or with a
 * base or chop name that is not a DN or a filter that does not parse,
 * applies to nothing.
 *
 * What a collective subentry S gives (in OpenDJ's order):
 *   - with class collectiveAttributeSubentry: each of its attributes whose
 *     type is COLLECTIVE, and each attribute stored with the option
 *     ;collective, for its description without that option (other options
 *     kept; the option is dropped from COLLECTIVE types too); the values
 *     as stored;
 *   - with class inheritedCollectiveAttributeSubentry (OpenDJ): one
 *     contribution per value of inheritAttribute (an attribute
 *     description; unknown types give nothing).  For a subentry of this
 *     class EVERY contribution, its own ones included, takes its values
 *     from the "inherit-from" entry F instead: the values F stores under
 *     exactly that description (F's own collective values are not seen).
 *     F is found as OpenDJ's Entry.processCollectiveAttributes does:
 *       from DN (class inheritedFromDNCollectiveAttributeSubentry), when
 *         E stores the attribute named by S's inheritFromDNAttribute
 *         (without options): F is the entry named by its first value;
 *         a value that is not a DN, or names an entry outside the
 *         subtree of S's parent, makes S give nothing to E;
 *       else from RDN (class inheritedFromRDNCollectiveAttributeSubentry),
 *         when E stores the attribute named by inheritFromRDNAttribute:
 *         S without inheritFromBaseRDN or with an unknown
 *         inheritFromRDNType gives nothing; else F is the entry named
 *         T=v,R,A where T is inheritFromRDNType, v the first value of
 *         E's attribute, R the value of inheritFromBaseRDN and A S's
 *         parent;
 *       no F (or F missing): S gives nothing to E.
 *
 * How contributions combine, for each description D, subentries in load
 * order, each contribution's values W:
 *   - E's collectiveExclusions value excludeAllCollectiveAttributes (or
 *     2.5.18.0) drops every contribution of every subentry; any other
 *     value (name or OID) drops the contributions whose type is exactly
 *     that type (not its subtypes);
 *   - R = E's stored values of exactly D.  When R is empty, or an earlier
 *     subentry replaced it, W's values are added; otherwise S's
 *     collectiveConflictBehavior decides (its value compared exactly, as
 *     OpenDJ's String.equals does; absent or anything else means
 *     real-overrides-virtual): real-overrides-virtual adds nothing,
 *     merge-real-and-virtual adds W's values not in R, and
 *     virtual-overrides-real marks D replaced (E's R is not shown) and
 *     adds W's values;
 *   - a value is added only when not equal to a value already added for
 *     D (equality rule's normalised form; exact bytes without one).
 *   OpenDJ differs in two corners, on purpose: it keeps duplicates, and a
 *   virtual-overrides-real subentry after a merging one drops the merged
 *   values (an artefact of its attribute lists, against the union rule).
 *
 * slapo-collect (collect.c of OpenLDAP 2.5.13): each ci {dn, attrs} gives
 * every entry strictly below dn (subentries too, and whatever E stores)
 * the values that the entry dn stores under exactly each listed
 * description, in the form slapd copies them (a_nvals: the value
 * normalised by its equality rule, as stored when the type has none),
 * appended after the subentries' values with no deduplication at all and
 * never excluded.  The ci apply in slapd's order: the longest normalised
 * DN first (ties: the order given); attributes in the order listed.  A ci
 * whose entry does not exist gives nothing.
 *
 * collectiveAttributeSubentries: the normalised DNs of the collective
 * subentries that apply to E, exclusions notwithstanding.
 *
 * Invariants: nothing here changes the directory; results depend only on
 * the arguments.  Functions may be called from any number of threads.
 */
#ifndef ACRE_COLLECTIVE_ORACLE_H
#define ACRE_COLLECTIVE_ORACLE_H

#include "acre.h"

#include <stddef.h>

#define ACRER_COLL_STACK 0x1u /* stack every ancestor's subentries */

/* One slapo-collect "collectinfo <dn> <attr,...>" line. */
struct acreR_collectinfo {
    const char *dn;
    const char *const *attrs; /* attribute descriptions */
    unsigned nattrs;
};

/* The values one description gains. */
struct acreR_coll_attr {
    /* the description: the schema's first name of the type ("c-ou",
     * "telephoneNumber"), then ";option" for each option, lowercased and
     * sorted ("description;lang-en") */
    const char *type;
    const char **vals; /* added, in union order; NUL-terminated copies */
    size_t *lens;
    unsigned nvals;
    int replaces_real; /* 1: the entry's stored values of type are
                          replaced (virtual-overrides-real) */
};

struct acreR_coll {
    struct acreR_coll_attr *attrs; /* sorted by type, case-insensitively */
    unsigned nattrs;
    const char **subentries; /* collectiveAttributeSubentries: normalised
                                DNs, sorted bytewise */
    unsigned nsub;
};

/*
 * acreR_coll_entry -- the collective view of e (an entry of dir): what
 * the rules above add to it.
 *   flags: 0 (X.501 areas) or ACRER_COLL_STACK.
 *   ci, nci: slapo-collect settings (ci may be NULL when nci is 0).  As
 *            slapd's configuration does, a ci whose DN does not parse,
 *            whose attribute is not in the schema, or whose DN another ci
 *            already names is an error.
 *   out: OUT, talloc child of mem_ctx.
 * Returns 0, ACRE_ERR_INVAL (NULL argument, bad ci), an ACRE_ERR_DN_*
 * code (ci DN), ACRE_ERR_NOMEM.
 */
int acreR_coll_entry(void *mem_ctx, const acre_directory *dir,
                     const acre_entry *e, unsigned flags,
                     const struct acreR_collectinfo *ci, unsigned nci,
                     struct acreR_coll **out);

/*
 * acreR_coll_in_reach -- 1 when s (an entry of dir) is a collective
 * subentry that applies to e under flags: the area rules and its subtree
 * specification both include e (so s is listed in e's
 * collectiveAttributeSubentries); 0 when not; ACRE_ERR_INVAL or
 * ACRE_ERR_NOMEM.
 */
int acreR_coll_in_reach(const acre_directory *dir, const acre_entry *s,
                        const acre_entry *e, unsigned flags);

/*
 * acreR_coll_text -- c as text for failure messages: one line per type
 * and value ("c-ou: Sales", "telephoneNumber (replaces real): 5"; bytes
 * outside printable ASCII as \xx), then one "subentry: DN" line each.
 * A NUL-terminated string to free with free(); NULL when out of memory.
 */
char *acreR_coll_text(const struct acreR_coll *c);

/*
 * acreR_coll_of_view -- the engine's collective view v (of schema s) put
 * in the oracle's form, so the two can be compared as text: each
 * description as its type's first name and its options lowercased and
 * sorted, the subentries' normalised DNs.  The conversion reads only
 * what acre.h gives a host; it judges nothing.  0 and *out (under ctx);
 * 1 when v cannot be put in that form (an option longer than 63 bytes);
 * ACRE_ERR_NOMEM or ACRE_ERR_INVAL (a description s does not know).
 */
int acreR_coll_of_view(void *ctx, const acre_schema *s,
                       const acre_collective_view *v, struct acreR_coll **out);

#endif /* ACRE_COLLECTIVE_ORACLE_H */
