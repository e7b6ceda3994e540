/*
 * aci_gen.h -- the seeded generator of ACI cases for the differential
 * suite against 389-DS (make differential-389, tests/differential/aci.sh).
 *
 * A case is a small directory under dc=example,dc=com written as LDIF, with
 * `aci` values on some of its entries, and a list of searches made by
 * several requesters.  The directory has
 *   - OUs (ou=people with ou=eng and ou=sales below it, ou=groups);
 *   - 5-9 people (inetOrgPerson: uid, cn, sn, givenName, mail,
 *     telephoneNumber, description, title, departmentNumber, employeeType,
 *     l, manager, seeAlso, a cleartext userPassword "pw-UID"), some with
 *     nsRoleDN, some with a device below them (for ldap:///parent);
 *   - static groups (groupOfNames, with groups inside: a chain up to seven
 *     levels deep, sometimes a cycle), groupOfUniqueNames, dynamic groups
 *     (groupOfURLs memberURL with a filter);
 *   - 389 roles on the suffix: managed (nsRoleDN), filtered (nsRoleFilter),
 *     nested (nsRoleDN of roles);
 * and 3-12 `aci` values drawn from the dialect 389 2.3 accepts: target
 * (DNs, != , wildcards in values and types, `*` crossing commas, ($dn)),
 * targetattr (lists, `*`, !=), targetfilter (=, !=), one or two
 * allow/deny permission-bind-rule pairs with several rights, bind rules of
 * every kind (userdn: DN, anyone, all, self, parent, wildcard, || lists,
 * LDAP URLs with a filter, ($dn)/[$dn]/($attr.X) macros; groupdn; roledn;
 * userattr with #USERDN, #GROUPDN, #ROLEDN, value, parent[...]; authmethod;
 * ssf; ip; dns; dayofweek and timeofday in forms whose truth does not
 * depend on the clock) combined with and/or/not, `=` and `!=`.
 * In three cases of five, 1-3 Class of Service definitions (pointer,
 * classic keyed on a person's type or on nsRole, indirect) with their
 * templates, an ACI or two and 2-4 searches naming the types they supply;
 * all drawn after the rest, from an RNG of their own, so that a seed keeps
 * every entry, ACI and search it gave before.  In two cases of five, 1-2
 * searches with 389's collation rules come last (an RNG of their own).
 *
 * Searches: anonymous and 3-4 users (bound with their password), in a
 * case of four the Directory Manager too, each make the same 8-12
 * searches (bases: the suffix, OUs, a person, a group, now and then a
 * missing entry; every scope; filters over readable and hidden
 * attributes with &, |, !; requested attributes: all user ones, 1.1,
 * `*`, lists, aci).
 *
 * Invariants: the same seed gives the same case on every machine; entries
 * are written parents first; every ACI's target lies inside its holder's
 * subtree (389 refuses others); nothing in a case depends on the time of
 * day or the day of the week.
 */
#ifndef ACI_GEN_H
#define ACI_GEN_H

#include <stdint.h>

/*
 * aci_gen_case -- write the case of `seed` into directory dir (which must
 * exist): data.ldif, searches (one per line,
 * BINDDN TAB PASSWORD TAB SCOPE TAB BASE TAB FILTER TAB ATTRS, with "-"
 * for anonymous and for "no attribute list", ROOTPW for the Directory
 * Manager's password), and seed.  Returns the
 * number of searches.  Dies on I/O errors.
 */
unsigned aci_gen_case(uint64_t seed, const char *dir);

/*
 * aci_gen_ger -- write the get-effective-rights case of `seed` into dir:
 * data.ldif drawn as aci_gen_case draws it, with more write, add, delete
 * and selfwrite rights, targattrfilters (on types the entries hold with
 * options too, on DN-valued types, by aliases) and target_to /
 * target_from; gers (one line per requester: REQUESTER TAB ATTRS, "-"
 * for anonymous and for no attribute list: anonymous, 3-4 people, a
 * group, a DN with no entry), each asked about every entry; and seed.
 * Returns the number of (requester, entry) pairs.
 */
unsigned aci_gen_ger(uint64_t seed, const char *dir);

#endif /* ACI_GEN_H */
