/*
 * aci_bench.c -- the ACI dialect (389-DS `aci` values, ACRE_DIALECT_ACI):
 * acre's per-entry verdict against the reference evaluator
 * (tests/oracle/aci_oracle.h), and the cost of nested groups.
 *
 * Both corpora are generated here from a fixed seed, as one LDIF text
 * whose entries carry their `aci` values: acre_policy_compile takes the
 * ACIs from it, acre_directory_load the entries, acreA_parse_ldif the
 * same ACIs for the oracle, which reads the same directory.  Every lookup
 * acre makes (the requester's entry, groups, userattr values) goes
 * through the host-lookup interface: the directory's host,
 * acre_directory_host, as a server's host serves them.
 *
 * Row groups:
 *   aci_decide_1k   ns per entry verdict (acre_entry_decide: visibility,
 *       then read on every attribute) under 1,000 ACIs: a company DIT of
 *       100 units of 50 people (10 units of 20 in a smoke run), ACIs on
 *       the suffix, ou=People, ou=Groups, each unit (9) and some people:
 *       targetattr lists, "*" and "!=", targetfilter on a fifth,
 *       wildcard targets, userdn (DNs, patterns, all, anyone, self),
 *       groupdn (nested team groups), userattr (manager#USERDN,
 *       seeAlso#GROUPDN), ip, authmethod, about one in six a deny.  Four
 *       requesters (anonymous; a unit manager with a simple bind; a
 *       helpdesk member over TLS from 10.0.0.7; a SASL EXTERNAL bind from
 *       ::1), each one operation: acre_request_begin, a verdict on every
 *       entry under ou=People, acre_request_end.  The oracle decides the
 *       same (acreR_aci_visible, then acreR_aci_check read on each
 *       attribute of a visible entry) on an evenly spaced sample of the
 *       entries for each requester (100, 10 in a smoke run: it walks
 *       every ACI at every check); medians are per entry.
 *   aci_groups_nested  ns per entry verdict for a requester who is a
 *       member of 10,000 groups (500 in a smoke run) nested 5 deep: five
 *       levels of 2,000 groupOfNames, the first level listing the
 *       requester, each further one two groups of the level below; 400
 *       more groups, four levels of 100 (20 in a smoke run), do not hold
 *       the requester (one level less: 389 answers Undefined for a walk
 *       that reaches a sixth level, whatever it finds there).  About
 *       200 ACIs over 20 units of 100 people name groups with groupdn
 *       (four in five the requester's, mostly at the top level: five
 *       nested lookups each), and the same ACIs name users with userdn
 *       (the requester for the requester's groups, someone else for the
 *       others): the two policies give the same verdicts.  The suffix
 *       grants the names only, so that the units' rules decide the other
 *       attributes.  ratio =
 *       userdn / groupdn, per entry, on one request of each begun and
 *       warmed before the timing (membership is resolved once per
 *       request: what is timed is the per-entry cost after it).
 *   aci_groups_begin   ns per operation of acre_request_begin, the
 *       verdicts on the first person of each unit (whose unit's ACIs are
 *       then all evaluated: the groupdn policy resolves every membership
 *       its rules ask about), acre_request_end; against the same with the
 *       userdn policy (24 times as many operations per pass: both passes
 *       then last about as long).  ratio = userdn / groupdn: what
 *       resolving the memberships costs, once per request.
 *
 * Before anything is timed, acre's verdicts are compared with the
 * oracle's on every entry of each sample (visibility and every
 * attribute), and for the groups, the groupdn policy's verdicts with the
 * userdn policy's on every entry; the verdicts must also show both
 * outcomes (entries visible and hidden, attributes readable and not) so
 * that a broken corpus cannot pass.  A mismatch fails the run and the row
 * is not timed.
 */
#include "harness.h"

#include <acre.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "aci.h"
#include "aci_oracle.h"
#include "directory.h"
#include "ir.h"
#include "schema.h"

#define SFX    "dc=example,dc=com"
#define PEOPLE "ou=People," SFX
#define GROUPS "ou=Groups," SFX

#define SEED_DECIDE 0x6163692d31303030u /* "aci-1000" */
#define SEED_GROUPS 0x6163692d67727073u /* "aci-grps" */

/* Wednesday 2026-12-02 10:00 UTC: no rule here reads the time */
#define BENCH_TIME 1796205600

#define MAX_RQ 4

/* ---- LDIF text ---------------------------------------------------------- */

/* An LDIF text being written (talloc_asprintf_append_buffer keeps its
 * length, so appending is linear). */
struct text {
    char *s;
    int oom;
};

static void add(struct text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
add(struct text *t, const char *fmt, ...)
{
    va_list ap;
    char *s;

    if (t->oom)
        return;
    va_start(ap, fmt);
    s = talloc_vasprintf_append_buffer(t->s, fmt, ap);
    va_end(ap);
    if (!s)
        t->oom = 1;
    else
        t->s = s;
}

#define PICK(r, arr) (arr)[bench_rng_below((r), sizeof(arr) / sizeof(*(arr)))]

/* ---- the world: one directory, policies, requesters --------------------- */

struct who {
    const char *label;
    acre_subject s;
    struct acreR_aci_who o;
    char peer[64];
};

struct aworld {
    void *mem;
    acre_schema *schema;
    acre_directory *dir;
    size_t n;                      /* entries decided */
    const acre_entry_view **views; /* under the base, walk order */
};

/* One policy: acre's, and the same ACIs for the oracle. */
struct apolicy {
    const char *tag;
    acre_policy *p;
    struct acreI_aci_set set;
};

static void
who_set(struct who *w, const char *label, const char *dn, const char *method,
        const char *omethod, unsigned ssf, const char *ip)
{
    memset(w, 0, sizeof *w);
    w->label = label;
    w->s.authz_dn = w->o.bind_dn = dn;
    w->s.auth_method = method;
    w->o.auth_method = omethod;
    w->s.ssf = w->o.ssf = ssf;
    w->o.ip = ip;
    snprintf(w->peer, sizeof w->peer,
             strchr(ip, ':') ? "IP=[%s]:40000" : "IP=%s:40000", ip);
    w->s.peername = w->peer;
    w->s.time = w->o.time = BENCH_TIME;
}

static int
collect(void *arg, const acre_entry *e)
{
    struct aworld *w = arg;
    const acre_entry_view **v;

    if (!(w->n & (w->n + 1))) { /* n + 1 a power of two: grow */
        v = talloc_realloc(w->mem, w->views, const acre_entry_view *,
                           2 * (w->n + 1));
        if (!v)
            return -1;
        w->views = v;
    }
    w->views[w->n++] = acre_entry_view_of(e);
    return 0;
}

/* Load ldif into a new directory and list the entries under base. */
static int
world_load(bench_run *run, struct aworld *w, const char *tag, const char *ldif,
           const char *base)
{
    acre_diag d;
    acre_dn *dn;
    int rc;

    memset(&d, 0, sizeof d);
    if ((rc =
             acre_schema_new(w->mem, ACRE_SCHEMA_389 | ACRE_SCHEMA_SYNTAX_MATCH,
                             &w->schema, &d)) == 0)
        rc = acre_directory_load(w->mem, w->schema, tag, ldif, strlen(ldif),
                                 &w->dir, &d);
    if (rc == 0 && (rc = acre_dn_parse(w->mem, w->schema, base, strlen(base), 0,
                                       &dn, NULL)) == 0)
        rc = acre_directory_walk(w->dir, dn, ACRE_SCOPE_SUB, collect, w);
    if (rc != 0) {
        bench_fail(run, "%s: cannot load the directory: %s line %u: %s", tag,
                   acre_strerror(rc), d.line, d.message);
        return -1;
    }
    return 0;
}

static void
world_free(struct aworld *w)
{
    if (w->dir)
        acre_directory_free(w->dir);
    talloc_free(w->mem);
    w->dir = NULL;
    w->mem = NULL;
}

/* Compile ldif's ACIs for acre and parse them again for the oracle. */
static int
policy_setup(bench_run *run, struct aworld *w, struct apolicy *ap,
             const char *tag, const char *ldif)
{
    acre_source src = {ACRE_DIALECT_ACI, tag, ldif, strlen(ldif)};
    struct acreI_policy *ir = NULL;
    acre_dn *root = NULL;
    acre_diag d;
    int rc;

    memset(&d, 0, sizeof d);
    ap->tag = tag;
    rc = acre_policy_compile(NULL, w->schema, &src, 1, 0, &ap->p, &d);
    if (rc == 0)
        rc = acreA_parse_ldif(w->mem, w->schema, tag, ldif, strlen(ldif),
                              ACREI_ACI_389, &ir, &d);
    if (rc == 0)
        rc = acre_dn_parse(w->mem, w->schema, "cn=Directory Manager", 20, 0,
                           &root, NULL);
    if (rc != 0) {
        bench_fail(run, "%s: %s at %s:%u:%u: %s", tag, acre_strerror(rc),
                   d.file ? d.file : "", d.line, d.column, d.message);
        return -1;
    }
    ap->set = *ir->aci;
    ap->set.rootdn = root;
    return 0;
}

static void
policy_free(struct apolicy *ap)
{
    if (ap->p)
        acre_policy_release(ap->p);
    ap->p = NULL;
}

/* ---- verdicts ----------------------------------------------------------- */

/* What the verdicts of a set of entries showed. */
struct tally {
    unsigned long visible, hidden, readable, unreadable;
};

/* acre's verdict on e as a bit string: visible, then each attribute
 * readable (the first 63 attributes). */
static uint64_t
verdict_bits(const acre_verdict *v)
{
    uint64_t b = v->visible ? 1 : 0;

    for (unsigned i = 0; v->visible && i < v->nattrs && i < 63; i++)
        if (v->attr[i] != ACRE_ATTR_NONE)
            b |= 2ull << i;
    return b;
}

/* The oracle's verdict on e, the same bits. */
static uint64_t
oracle_bits(struct acreR_aci *o, const acre_entry_view *e)
{
    uint64_t b = acreR_aci_visible(o, e) ? 1 : 0;

    for (unsigned i = 0; b && i < e->nattrs && i < 63; i++)
        if (acreR_aci_check(o, e, e->attrs[i].id, ACREI_ACI_READ))
            b |= 2ull << i;
    return b;
}

static void
tally_add(struct tally *t, const acre_entry_view *e, uint64_t bits)
{
    if (!(bits & 1)) {
        t->hidden++;
        return;
    }
    t->visible++;
    for (unsigned i = 0; i < e->nattrs && i < 63; i++)
        if (bits & (2ull << i))
            t->readable++;
        else
            t->unreadable++;
}

/* Do the verdicts show both outcomes, each at least `pct` percent? */
static int
tally_mixed(bench_run *run, const char *tag, const struct tally *t,
            unsigned pct)
{
    unsigned long e = t->visible + t->hidden, a = t->readable + t->unreadable;

    bench_note(run,
               "%s: %lu entries visible, %lu hidden; %lu attributes "
               "readable, %lu not",
               tag, t->visible, t->hidden, t->readable, t->unreadable);
    if (t->visible * 100 < e * pct || t->hidden * 100 < e * pct ||
        t->readable * 100 < a * pct || t->unreadable * 100 < a * pct) {
        bench_fail(run, "%s: the corpus does not exercise both outcomes", tag);
        return -1;
    }
    return 0;
}

/* Compare acre and the oracle on views idx[0..n) for requester w. */
static int
verify_oracle(bench_run *run, struct aworld *w, struct apolicy *ap,
              struct who *q, struct acreR_aci *o, const size_t *idx, size_t n,
              struct tally *t)
{
    acre_request *rq;
    acre_verdict v;
    unsigned bad = 0;
    int rc = acre_request_begin(ap->p, &q->s, acre_directory_host(w->dir), &rq);

    if (rc != 0) {
        bench_fail(run, "%s: acre_request_begin for %s: %s", ap->tag, q->label,
                   acre_strerror(rc));
        return -1;
    }
    for (size_t k = 0; k < n && bad < 3; k++) {
        const acre_entry_view *e = w->views[idx[k]];
        uint64_t want = oracle_bits(o, e), got = 0;
        if ((rc = acre_entry_decide(rq, e, ACRE_RIGHT_READ, &v)) == 0)
            got = verdict_bits(&v);
        if (rc != 0 || got != want) {
            bad++;
            bench_fail(run,
                       "%s: %s: %s: acre %s, verdict %#llx (oracle %#llx; bit "
                       "0 visible, bit i+1 attribute i)",
                       ap->tag, q->label, acre_dn_normalised(e->dn, NULL),
                       acre_strerror(rc), (unsigned long long)got,
                       (unsigned long long)want);
        }
        tally_add(t, e, want);
    }
    acre_request_end(rq);
    return bad ? -1 : 0;
}

/* ========================================================================
 * aci_decide_1k
 */

#define D_PER_UNIT 9  /* ACIs held by each unit */
#define D_SFX      10 /* by the suffix, ou=People and ou=Groups each */
#define D_TEAMS    40

static const char *const d_attrs[] = {
    "cn",           "sn",    "mail",    "telephoneNumber",
    "description",  "title", "manager", "departmentNumber",
    "employeeType", "l",     "seeAlso", "roomNumber",
    "mobile"};

struct dgen {
    bench_rng r;
    unsigned nunits, nper;
    const char *rq_dn[3]; /* the bound requesters */
};

static char *
d_person(void *ctx, unsigned unit, unsigned k, unsigned nper)
{
    return talloc_asprintf(ctx, "uid=p%04u,ou=u%02u," PEOPLE, unit * nper + k,
                           unit);
}

/* A person of the DIT, one of the requesters three times in ten. */
static const char *
d_someone(void *ctx, struct dgen *g)
{
    if (bench_rng_chance(&g->r, 30))
        return g->rq_dn[bench_rng_below(&g->r, 3)];
    return d_person(ctx, bench_rng_below(&g->r, g->nunits),
                    bench_rng_below(&g->r, g->nper), g->nper);
}

static const char *
d_targetattr(void *ctx, struct dgen *g)
{
    unsigned k = bench_rng_below(&g->r, 100);

    if (k < 20)
        return "(targetattr=\"*\")";
    unsigned n = 1 + bench_rng_below(&g->r, 3);
    unsigned first = bench_rng_below(&g->r, 13),
             step = 1 + bench_rng_below(&g->r, 12);
    char *list = talloc_strdup(ctx, d_attrs[first]);
    for (unsigned i = 1; i < n; i++) /* distinct: 13 is prime */
        list = talloc_asprintf(ctx, "%s || %s", list,
                               d_attrs[(first + i * step) % 13]);
    return talloc_asprintf(ctx, "(targetattr%s\"%s\")",
                           k < 80 ? "=" : "!=", list);
}

static const char *
d_bind(void *ctx, struct dgen *g, unsigned unit)
{
    unsigned k = bench_rng_below(&g->r, 100);

    if (k < 28)
        return talloc_asprintf(ctx, "userdn=\"ldap:///%s\"", d_someone(ctx, g));
    if (k < 36)
        return talloc_asprintf(
            ctx, "userdn=\"ldap:///uid=*,ou=u%02u," PEOPLE "\"",
            bench_rng_chance(&g->r, 50) ? unit
                                        : bench_rng_below(&g->r, g->nunits));
    if (k < 56)
        return talloc_asprintf(ctx,
                               "groupdn=\"ldap:///cn=team-%02u," GROUPS "\"",
                               bench_rng_below(&g->r, D_TEAMS));
    if (k < 66)
        return "userattr=\"manager#USERDN\"";
    if (k < 70)
        return "userattr=\"seeAlso#GROUPDN\"";
    if (k < 78)
        return talloc_asprintf(
            ctx, "userdn=\"ldap:///all\" and authmethod=\"%s\"",
            PICK(&g->r,
                 ((const char *const[]){"simple", "ssl", "sasl EXTERNAL"})));
    if (k < 86)
        return talloc_asprintf(
            ctx, "userdn=\"ldap:///all\" and ip=\"%s\"",
            PICK(&g->r, ((const char *const[]){"127.0.0.1", "10.0.0.*",
                                               "192.168.1.*", "::1"})));
    if (k < 91)
        return "userdn=\"ldap:///self\"";
    if (k < 96)
        return talloc_asprintf(ctx,
                               "(groupdn=\"ldap:///cn=team-%02u," GROUPS
                               "\" or userdn=\"ldap:///%s\")",
                               bench_rng_below(&g->r, D_TEAMS),
                               d_someone(ctx, g));
    return "userdn=\"ldap:///anyone\" and not ip=\"192.168.*\"";
}

static const char *
d_rights(struct dgen *g)
{
    return PICK(&g->r, ((const char *const[]){
                           "read,search", "read,search", "read,search",
                           "read,search", "read", "read,search,compare",
                           "write", "write", "all", "search,compare"}));
}

/* One ACI of unit `unit` (its number n for the name). */
static const char *
d_unit_aci(void *ctx, struct dgen *g, unsigned unit, unsigned n)
{
    const char *target = "", *filter = "";

    if (bench_rng_chance(&g->r, 10))
        target = talloc_asprintf(
            ctx, "(target=\"ldap:///uid=p%03u*,ou=u%02u," PEOPLE "\")",
            (unit * g->nper) / 10 + bench_rng_below(&g->r, 3), unit);
    if (bench_rng_chance(&g->r, 20))
        filter = talloc_asprintf(
            ctx, "(targetfilter=\"%s\")",
            PICK(&g->r, ((const char *const[]){
                            "(employeeType=contractor)", "(!(description=*))",
                            "(|(title=manager)(title=director))", "(mail=*)",
                            "(departmentNumber=3)"})));
    /* one in ten governs the entry itself (no targetattr) */
    const char *attrs = bench_rng_chance(&g->r, 10) ? "" : d_targetattr(ctx, g);
    return talloc_asprintf(
        ctx, "%s%s%s(version 3.0; acl \"u%02u-%u\"; %s (%s) %s;)", target,
        attrs, filter, unit, n, bench_rng_chance(&g->r, 16) ? "deny" : "allow",
        d_rights(g), d_bind(ctx, g, unit));
}

static const char *const d_suffix_acis[D_SFX] = {
    "(version 3.0; acl \"entries\"; allow (read,search) "
    "userdn=\"ldap:///all\";)",
    "(targetfilter=\"(employeeType=contractor)\")(version 3.0; acl "
    "\"contractors unlisted\"; deny (read,search) userdn=\"ldap:///anyone\" "
    "and not userdn=\"ldap:///all\";)",
    "(targetattr!=\"userPassword || telephoneNumber || mobile || "
    "employeeType\")(version 3.0; acl \"anonymous read\"; allow "
    "(read,search,compare) userdn=\"ldap:///anyone\";)",
    "(targetattr=\"telephoneNumber || mobile\")(version 3.0; acl \"bound "
    "read\"; allow (read,search,compare) userdn=\"ldap:///all\" and "
    "(authmethod=\"simple\" or authmethod=\"ssl\");)",
    "(targetattr=\"userPassword\")(version 3.0; acl \"no password read\"; "
    "deny (read,search,compare) userdn=\"ldap:///all\";)",
    "(targetattr=\"*\")(version 3.0; acl \"directory administrators\"; "
    "allow (all) groupdn=\"ldap:///cn=Directory Administrators," GROUPS "\";)",
    "(targetfilter=\"(objectClass=groupOfNames)\")(targetattr=\"cn || "
    "member || description\")(version 3.0; acl \"group read\"; allow "
    "(read,search) userdn=\"ldap:///all\";)",
    "(targetattr=\"*\")(version 3.0; acl \"internal network\"; allow "
    "(read,search) ip=\"10.0.0.*\" and authmethod=\"ssl\";)",
    "(target=\"ldap:///uid=*," PEOPLE "\")(targetattr=\"mail || cn || "
    "employeeType\")(version 3.0; acl \"helpdesk\"; allow (read,search,write) "
    "groupdn=\"ldap:///cn=helpdesk," GROUPS "\";)",
    "(targetattr=\"employeeType\")(targetfilter=\"(employeeType=contractor)"
    "\")(version 3.0; acl \"contractors\"; deny (read) userdn=\"ldap:///all\" "
    "and not groupdn=\"ldap:///cn=hr," GROUPS "\";)",
};

static const char *const d_people_acis[D_SFX] = {
    "(targetattr=\"telephoneNumber || mobile\")(version 3.0; acl \"manager "
    "phone\"; allow (read,search) userattr=\"manager#USERDN\";)",
    "(targetattr=\"description\")(targetfilter=\"(description=*)\")(version "
    "3.0; acl \"unit 0 reads notes\"; allow (read) "
    "userdn=\"ldap:///uid=*,ou=u00," PEOPLE "\";)",
    "(targetattr=\"seeAlso || departmentNumber\")(version 3.0; acl \"team "
    "read\"; allow (read,search) userattr=\"seeAlso#GROUPDN\";)",
    "(targetattr=\"title || manager\")(version 3.0; acl \"hr write\"; allow "
    "(read,search,write) groupdn=\"ldap:///cn=hr," GROUPS "\";)",
    "(targetattr=\"roomNumber\")(version 3.0; acl \"rooms\"; allow "
    "(read,search) userdn=\"ldap:///all\";)",
    "(targetattr=\"employeeType\")(version 3.0; acl \"type\"; allow "
    "(read,search) groupdn=\"ldap:///cn=hr," GROUPS "\" or "
    "groupdn=\"ldap:///cn=helpdesk," GROUPS "\";)",
    "(targetattr=\"mobile\")(targetfilter=\"(title=director)\")(version 3.0; "
    "acl \"directors' mobiles\"; deny (read,search) userdn=\"ldap:///all\" "
    "and not userattr=\"manager#USERDN\";)",
    "(targetattr=\"l || roomNumber\")(version 3.0; acl \"sasl\"; allow "
    "(read,search) authmethod=\"sasl EXTERNAL\";)",
    "(targetfilter=\"(departmentNumber=7)\")(version 3.0; acl \"department "
    "7 unlisted\"; deny (read,search) userdn=\"ldap:///all\" and not "
    "userdn=\"ldap:///uid=*,ou=u07," PEOPLE "\";)",
    "(targetattr=\"mail\")(version 3.0; acl \"no anonymous mail\"; deny "
    "(read,search) userdn=\"ldap:///anyone\" and not "
    "userdn=\"ldap:///all\";)",
};

static const char *const d_group_acis[D_SFX] = {
    "(targetattr=\"member\")(version 3.0; acl \"owners\"; allow (write) "
    "userattr=\"owner#USERDN\";)",
    "(targetattr=\"description\")(version 3.0; acl \"hr groups\"; allow "
    "(write) groupdn=\"ldap:///cn=hr," GROUPS "\";)",
    "(target=\"ldap:///cn=team-*," GROUPS "\")(targetattr=\"member\")(version "
    "3.0; acl \"team self add\"; allow (selfwrite) userdn=\"ldap:///all\";)",
    "(targetattr=\"cn\")(version 3.0; acl \"names\"; allow (read,search) "
    "userdn=\"ldap:///anyone\";)",
    "(targetattr=\"member\")(targetfilter=\"(cn=Directory*)\")(version 3.0; "
    "acl \"admins hidden\"; deny (read,search) userdn=\"ldap:///anyone\" and "
    "not groupdn=\"ldap:///cn=Directory Administrators," GROUPS "\";)",
    "(targetattr=\"*\")(version 3.0; acl \"helpdesk groups\"; allow "
    "(read,search) groupdn=\"ldap:///cn=helpdesk," GROUPS "\";)",
    "(targetattr=\"owner\")(version 3.0; acl \"owner\"; allow (read,search) "
    "userdn=\"ldap:///all\";)",
    "(targetattr=\"businessCategory\")(version 3.0; acl \"category\"; allow "
    "(read,search,write) userattr=\"owner#USERDN\";)",
    "(targetattr=\"description\")(version 3.0; acl \"desc\"; allow "
    "(read,search) ip=\"127.0.0.1\";)",
    "(targetattr=\"*\")(version 3.0; acl \"no external\"; deny (write) "
    "ip=\"192.168.*\";)",
};

static char *
d_ldif(void *ctx, unsigned nunits, unsigned nper, const char **rq_dn)
{
    struct dgen g = {{SEED_DECIDE}, nunits, nper, {0}};
    struct text t = {talloc_strdup(ctx, ""), 0};
    unsigned total = nunits * nper;
    unsigned nperson_acis = 1000 - 3 * D_SFX - D_PER_UNIT * 100;
    uint8_t *extra;

    /* the requesters: a unit manager (the first of unit 3), a helpdesk
     * member, and one who binds with SASL EXTERNAL */
    g.rq_dn[0] = rq_dn[0] = d_person(ctx, 3 % nunits, 0, nper);
    g.rq_dn[1] = rq_dn[1] = d_person(ctx, 1, nper / 2, nper);
    g.rq_dn[2] = rq_dn[2] = d_person(ctx, nunits - 1, 7, nper);
    if (nunits < 100) /* as many per-person ACIs, relatively */
        nperson_acis = nperson_acis * nunits / 100;
    if (!t.s || !(extra = talloc_zero_array(ctx, uint8_t, total)))
        return NULL;
    for (unsigned i = 0; i < nperson_acis; i++)
        extra[bench_rng_below(&g.r, total)]++;

    add(&t, "dn: " SFX "\nobjectClass: top\nobjectClass: domain\n"
            "dc: example\n");
    for (unsigned i = 0; i < D_SFX; i++)
        add(&t, "aci: %s\n", d_suffix_acis[i]);
    add(&t, "\ndn: " PEOPLE "\nobjectClass: top\nobjectClass: "
            "organizationalUnit\nou: People\n");
    for (unsigned i = 0; i < D_SFX; i++)
        add(&t, "aci: %s\n", d_people_acis[i]);
    add(&t, "\ndn: " GROUPS "\nobjectClass: top\nobjectClass: "
            "organizationalUnit\nou: Groups\n");
    for (unsigned i = 0; i < D_SFX; i++)
        add(&t, "aci: %s\n", d_group_acis[i]);
    add(&t, "\n");

    for (unsigned u = 0; u < nunits; u++) {
        add(&t,
            "dn: ou=u%02u," PEOPLE "\nobjectClass: top\nobjectClass: "
            "organizationalUnit\nou: u%02u\n",
            u, u);
        for (unsigned i = 0; i < D_PER_UNIT; i++)
            add(&t, "aci: %s\n", d_unit_aci(t.s, &g, u, i));
        add(&t, "\n");
        for (unsigned k = 0; k < nper; k++) {
            unsigned id = u * nper + k;
            add(&t,
                "dn: %s\nobjectClass: top\nobjectClass: person\n"
                "objectClass: organizationalPerson\nobjectClass: "
                "inetOrgPerson\nuid: p%04u\ncn: Person %u\nsn: %u\n"
                "departmentNumber: %u\nemployeeType: %s\nl: %s\n",
                d_person(t.s, u, k, nper), id, id, id, u % 10,
                bench_rng_chance(&g.r, 15) ? "contractor" : "employee",
                PICK(&g.r, ((const char *const[]){"Paris", "Lyon", "Berlin",
                                                  "Oslo"})));
            if (bench_rng_chance(&g.r, 85))
                add(&t, "mail: p%04u@example.com\n", id);
            if (bench_rng_chance(&g.r, 70))
                add(&t, "telephoneNumber: +1 555 %04u\n", id);
            if (bench_rng_chance(&g.r, 30))
                add(&t, "mobile: +1 666 %04u\n", id);
            if (k == 0 || bench_rng_chance(&g.r, 10))
                add(&t, "title: %s\n", k == 0 ? "manager" : "director");
            if (bench_rng_chance(&g.r, 30))
                add(&t, "description: notes on %u\n", id);
            if (k > 0)
                add(&t, "manager: %s\n", d_person(t.s, u, 0, nper));
            if (bench_rng_chance(&g.r, 20))
                add(&t, "seeAlso: cn=team-%02u," GROUPS "\n",
                    bench_rng_below(&g.r, D_TEAMS));
            if (bench_rng_chance(&g.r, 20))
                add(&t, "roomNumber: %u\n", 100 + k);
            if (bench_rng_chance(&g.r, 50))
                add(&t, "userPassword: secret-%u\n", id);
            for (unsigned i = 0; i < extra[id]; i++)
                add(&t,
                    "aci: (targetattr=\"%s\")(version 3.0; acl "
                    "\"p%04u-%u\"; allow (%s) userdn=\"ldap:///%s\";)\n",
                    PICK(&g.r, ((const char *const[]){
                                   "*", "description || telephoneNumber",
                                   "roomNumber"})),
                    id, i, d_rights(&g),
                    bench_rng_chance(&g.r, 50) ? "self" : d_someone(t.s, &g));
            add(&t, "\n");
        }
    }

    /* groups: administrators, hr, helpdesk (two nested teams), and
     * teams of eight, every fifth chain of five nested */
    add(&t,
        "dn: cn=Directory Administrators," GROUPS "\nobjectClass: top\n"
        "objectClass: groupOfNames\ncn: Directory Administrators\n"
        "member: %s\n\n",
        d_person(t.s, 0, 1, nper));
    add(&t,
        "dn: cn=hr," GROUPS "\nobjectClass: top\nobjectClass: "
        "groupOfNames\ncn: hr\nmember: %s\nmember: %s\n\n",
        d_person(t.s, 2, 2, nper), rq_dn[2]);
    add(&t,
        "dn: cn=hd-east," GROUPS "\nobjectClass: top\nobjectClass: "
        "groupOfNames\ncn: hd-east\nmember: %s\nmember: %s\n\n",
        rq_dn[1], d_person(t.s, 4, 4, nper));
    add(&t,
        "dn: cn=hd-west," GROUPS "\nobjectClass: top\nobjectClass: "
        "groupOfNames\ncn: hd-west\nmember: %s\n\n",
        d_person(t.s, 5, 5, nper));
    add(&t, "dn: cn=helpdesk," GROUPS "\nobjectClass: top\nobjectClass: "
            "groupOfNames\ncn: helpdesk\nmember: cn=hd-west," GROUPS
            "\nmember: cn=hd-east," GROUPS "\n\n");
    for (unsigned k = 0; k < D_TEAMS; k++) {
        add(&t,
            "dn: cn=team-%02u," GROUPS "\nobjectClass: top\n"
            "objectClass: groupOfNames\ncn: team-%02u\nowner: %s\n",
            k, k, d_someone(t.s, &g));
        for (unsigned m = 0; m < 8; m++)
            add(&t, "member: %s\n",
                d_person(t.s, bench_rng_below(&g.r, nunits), m, nper));
        if (k % 5 != 4)
            add(&t, "member: cn=team-%02u," GROUPS "\n", k + 1);
        if (k % 7 == 3)
            add(&t, "member: %s\n", rq_dn[k % 3]);
        add(&t, "\n");
    }
    return t.oom ? NULL : t.s;
}

/* The timed passes. */
struct djob {
    struct aworld *w;
    struct apolicy *ap;
    struct who *q;
    unsigned nq;
    struct acreR_aci **o;
    const size_t *sample; /* the oracle's */
    size_t nsample;
};

/* One operation per requester: begin, a verdict on every entry, end. */
static uint64_t
d_acre_pass(void *arg)
{
    const struct djob *j = arg;
    const acre_host *host = acre_directory_host(j->w->dir);
    uint64_t sum = 0;
    acre_verdict v;

    for (unsigned q = 0; q < j->nq; q++) {
        acre_request *rq;
        if (acre_request_begin(j->ap->p, &j->q[q].s, host, &rq) != 0)
            continue;
        for (size_t i = 0; i < j->w->n; i++)
            if (acre_entry_decide(rq, j->w->views[i], ACRE_RIGHT_READ, &v) == 0)
                sum += (uint64_t)v.visible + (v.nattrs ? v.attr[0] : 0);
        acre_request_end(rq);
    }
    return sum;
}

static uint64_t
d_oracle_pass(void *arg)
{
    const struct djob *j = arg;
    uint64_t sum = 0;

    for (unsigned q = 0; q < j->nq; q++)
        for (size_t k = 0; k < j->nsample; k++)
            sum += oracle_bits(j->o[q], j->w->views[j->sample[k]]);
    return sum;
}

static int
bench_aci_decide(bench_run *run)
{
    struct aworld w = {talloc_new(NULL), NULL, NULL, 0, NULL};
    struct apolicy ap = {0};
    struct who q[MAX_RQ];
    struct acreR_aci *o[MAX_RQ];
    const char *rq_dn[3];
    unsigned nunits = (unsigned)bench_size(run, 100, 10);
    unsigned nper = (unsigned)bench_size(run, 50, 20);
    size_t nsample = bench_size(run, 100, 10), *sample;
    struct tally t = {0};
    int rc = -1, bad = 0;
    char *ldif;

    if (!bench_want(run, "aci_decide_1k"))
        return 0;
    if (!w.mem || !(ldif = d_ldif(w.mem, nunits, nper, rq_dn))) {
        bench_fail(run, "aci_decide_1k: out of memory");
        goto out;
    }
    if (world_load(run, &w, "aci_decide_1k.ldif", ldif, PEOPLE) ||
        policy_setup(run, &w, &ap, "aci_decide_1k", ldif))
        goto out;
    who_set(&q[0], "anonymous", NULL, "none", "none", 0, "127.0.0.1");
    who_set(&q[1], "manager", rq_dn[0], "simple", "simple", 0, "127.0.0.1");
    who_set(&q[2], "helpdesk", rq_dn[1], "ssl", "ssl", 256, "10.0.0.7");
    who_set(&q[3], "sasl", rq_dn[2], "sasl/EXTERNAL", "sasl EXTERNAL", 256,
            "::1");
    if (!(sample = talloc_array(w.mem, size_t, nsample)))
        goto out;
    for (size_t k = 0; k < nsample; k++)
        sample[k] = k * w.n / nsample;
    rc = 0;
    for (unsigned i = 0; i < MAX_RQ; i++)
        if (acreR_aci_new(w.mem, &ap.set, (const struct acreE_dir *)w.dir,
                          &q[i].o, &o[i]) != 0) {
            bench_fail(run, "aci_decide_1k: acreR_aci_new failed");
            goto out;
        }
    for (unsigned i = 0; i < MAX_RQ; i++)
        bad |= verify_oracle(run, &w, &ap, &q[i], o[i], sample, nsample, &t);
    if (bad || tally_mixed(run, "aci_decide_1k", &t, 5))
        goto out;
    bench_note(run,
               "aci_decide_1k: %u ACIs, %zu entries decided per requester "
               "(4), acre agrees with the oracle on %zu each",
               (unsigned)ap.set.n, w.n, nsample);

    struct djob ja = {&w, &ap, q, MAX_RQ, o, NULL, 0};
    struct djob jo = {&w, &ap, q, MAX_RQ, o, sample, nsample};
    bench_impl impl[2] = {{"acre_entry_decide", d_acre_pass, &ja},
                          {"acreR_aci_check", d_oracle_pass, &jo}};
    double med[2];
    bench_measure(run, impl, 2, 1, med);
    bench_row(run, "aci_decide_1k/oracle", "ns/entry",
              med[0] / (double)(w.n * MAX_RQ), impl[1].name,
              med[1] / (double)(nsample * MAX_RQ));
out:
    policy_free(&ap);
    world_free(&w);
    return rc;
}

/* ========================================================================
 * aci_groups_nested, aci_groups_begin
 */

#define G_LEVELS  5 /* 389 follows members 5 levels down */
/* The other tree is a level less deep: 389 answers Undefined for a
 * walk that reaches the level below the last, whatever it finds there
 * (in the requester's tree the answer is True before). */
#define G_OLEVELS (G_LEVELS - 1)
#define G_UNITS   20
#define G_PER     100
#define G_PERUNIT 10 /* ACIs per unit */

static char *
g_person(void *ctx, unsigned id)
{
    return talloc_asprintf(ctx, "uid=p%04u,ou=u%02u," PEOPLE, id, id / G_PER);
}

/* Group i of level l of the requester's tree ('m') or the other one
 * ('n'). */
static char *
g_group(void *ctx, int tree, unsigned l, unsigned i)
{
    return talloc_asprintf(ctx, "cn=%c%u-%u," GROUPS, tree, l, i);
}

/* `levels` levels of width groups each: level 0 lists members (the
 * requester in tree 'm'), each further one two groups of the level
 * below. */
static void
g_tree(struct text *t, bench_rng *r, int tree, unsigned levels, unsigned width,
       const char *requester, unsigned npeople)
{
    for (unsigned l = 0; l < levels; l++)
        for (unsigned i = 0; i < width; i++) {
            add(t,
                "dn: %s\nobjectClass: top\nobjectClass: groupOfNames\n"
                "cn: %c%u-%u\n",
                g_group(t->s, tree, l, i), tree, l, i);
            if (l == 0) {
                if (requester)
                    add(t, "member: %s\n", requester);
                for (unsigned k = 0; k < 2; k++)
                    add(t, "member: %s\n",
                        g_person(t->s, 1 + bench_rng_below(r, npeople - 1)));
            } else {
                add(t, "member: %s\n", g_group(t->s, tree, l - 1, i));
                add(t, "member: %s\n",
                    g_group(t->s, tree, l - 1, (i + 1) % width));
            }
            add(t, "\n");
        }
}

/*
 * The groups corpus: by_group 1 names groups (groupdn), 0 the same ACIs
 * with users (userdn).  The generator draws the same numbers for both.
 */
static char *
g_ldif(void *ctx, int by_group, unsigned width, unsigned nunits)
{
    bench_rng r = {SEED_GROUPS};
    struct text t = {talloc_strdup(ctx, ""), 0};
    unsigned npeople = nunits * G_PER, owidth = width / 20 ? width / 20 : 1;
    char *me = g_person(ctx, 0);

    if (!t.s || !me)
        return NULL;
    add(&t, "dn: " SFX "\nobjectClass: top\nobjectClass: domain\n"
            "dc: example\naci: (targetattr=\"objectClass || cn || sn || "
            "uid\")(version 3.0; acl \"names\"; allow (read,search) "
            "userdn=\"ldap:///all\";)\n"
            "aci: (version 3.0; acl \"entries\"; allow (read,search) "
            "userdn=\"ldap:///all\";)\n"
            "aci: (targetattr=\"userPassword\")(version 3.0; acl \"no "
            "password\"; deny (read,search) userdn=\"ldap:///all\";)\n\n");
    add(&t, "dn: " PEOPLE "\nobjectClass: top\nobjectClass: "
            "organizationalUnit\nou: People\n\n");
    for (unsigned u = 0; u < nunits; u++) {
        add(&t,
            "dn: ou=u%02u," PEOPLE "\nobjectClass: top\nobjectClass: "
            "organizationalUnit\nou: u%02u\n",
            u, u);
        for (unsigned i = 0; i < G_PERUNIT; i++) {
            int member = bench_rng_chance(&r, 80);
            int top = bench_rng_chance(&r, 70);
            unsigned l = top ? G_LEVELS - 1 : bench_rng_below(&r, G_LEVELS);
            unsigned gi = bench_rng_below(&r, member ? width : owidth);
            unsigned other = 1 + bench_rng_below(&r, npeople - 1);
            const char *subject =
                by_group
                    ? talloc_asprintf(
                          t.s, "groupdn=\"ldap:///%s\"",
                          g_group(t.s, member ? 'm' : 'n',
                                  member || l < G_OLEVELS ? l : G_OLEVELS - 1,
                                  gi))
                    : talloc_asprintf(t.s, "userdn=\"ldap:///%s\"",
                                      member ? me : g_person(t.s, other));
            int deny = bench_rng_chance(&r, 15);
            const char *attrs =
                PICK(&r, ((const char *const[]){
                             "(targetattr=\"telephoneNumber\")",
                             "(targetattr=\"mail || telephoneNumber\")",
                             "(targetattr=\"description || title\")",
                             "(targetattr=\"employeeNumber\")",
                             "(targetattr=\"cn || sn || uid\")",
                             /* the entry itself, for those with a title */
                             "(targetfilter=\"(title=*)\")"}));
            if (!deny && bench_rng_chance(&r, 20))
                attrs = "(targetattr=\"*\")"; /* userPassword stays denied */
            add(&t, "aci: %s(version 3.0; acl \"u%02u-%u\"; %s (%s) %s;)\n",
                attrs, u, i, deny ? "deny" : "allow",
                deny ? "read" : "read,search", subject);
        }
        add(&t, "\n");
        for (unsigned k = 0; k < G_PER; k++) {
            unsigned id = u * G_PER + k;
            add(&t,
                "dn: %s\nobjectClass: top\nobjectClass: person\n"
                "objectClass: organizationalPerson\nobjectClass: "
                "inetOrgPerson\nuid: p%04u\ncn: Person %u\nsn: %u\n"
                "mail: p%04u@example.com\ntelephoneNumber: +1 555 %04u\n"
                "employeeNumber: %u\n",
                g_person(t.s, id), id, id, id, id, id, id);
            if (k % 3 == 0)
                add(&t, "description: notes on %u\ntitle: engineer\n", id);
            add(&t, "userPassword: secret-%u\n\n", id);
        }
    }
    add(&t, "dn: " GROUPS "\nobjectClass: top\nobjectClass: "
            "organizationalUnit\nou: Groups\n\n");
    g_tree(&t, &r, 'm', G_LEVELS, width, me, npeople);
    g_tree(&t, &r, 'n', G_OLEVELS, owidth, NULL, npeople);
    return t.oom ? NULL : t.s;
}

struct gjob {
    struct aworld *w;
    acre_policy *p;
    struct who *q;
    acre_request *rq; /* begun and warmed before timing */
    unsigned loops;
    const size_t *firsts; /* the first person of each unit */
    size_t nfirst;
};

/* Verdicts on every entry, on the warm request. */
static uint64_t
g_entry_pass(void *arg)
{
    const struct gjob *j = arg;
    uint64_t sum = 0;
    acre_verdict v;

    for (size_t i = 0; i < j->w->n; i++)
        if (acre_entry_decide(j->rq, j->w->views[i], ACRE_RIGHT_READ, &v) == 0)
            sum += (uint64_t)v.visible + (v.nattrs ? v.attr[0] : 0);
    return sum;
}

/* `loops` operations: begin, the verdicts on the first person of each
 * unit (every ACI's bind rule is evaluated once), end. */
static uint64_t
g_begin_pass(void *arg)
{
    const struct gjob *j = arg;
    const acre_host *host = acre_directory_host(j->w->dir);
    uint64_t sum = 0;
    acre_verdict v;

    for (unsigned k = 0; k < j->loops; k++) {
        acre_request *rq;
        if (acre_request_begin(j->p, &j->q->s, host, &rq) != 0)
            continue;
        for (size_t i = 0; i < j->nfirst; i++)
            if (acre_entry_decide(rq, j->w->views[j->firsts[i]],
                                  ACRE_RIGHT_READ, &v) == 0)
                sum += (uint64_t)v.visible + (v.nattrs ? v.attr[0] : 0);
        acre_request_end(rq);
    }
    return sum;
}

/* The groupdn policy's verdicts must be the userdn policy's. */
static int
g_same(bench_run *run, struct aworld *w, acre_request *rg, acre_request *ru,
       struct tally *t)
{
    acre_verdict v;
    unsigned bad = 0;

    for (size_t i = 0; i < w->n && bad < 3; i++) {
        uint64_t a = 0, b = 1ull << 63;
        int rc = acre_entry_decide(rg, w->views[i], ACRE_RIGHT_READ, &v);
        if (rc == 0)
            a = verdict_bits(&v);
        if (rc == 0 &&
            (rc = acre_entry_decide(ru, w->views[i], ACRE_RIGHT_READ, &v)) == 0)
            b = verdict_bits(&v);
        if (rc != 0 || a != b) {
            bad++;
            bench_fail(run,
                       "aci_groups_nested: %s: groupdn %#llx, userdn %#llx "
                       "(%s)",
                       acre_dn_normalised(w->views[i]->dn, NULL),
                       (unsigned long long)a, (unsigned long long)b,
                       acre_strerror(rc));
        }
        tally_add(t, w->views[i], a);
    }
    return bad ? -1 : 0;
}

static int
bench_aci_groups(bench_run *run)
{
    struct aworld w = {talloc_new(NULL), NULL, NULL, 0, NULL};
    struct apolicy pg = {0}, pu = {0};
    struct who q;
    struct acreR_aci *o = NULL;
    unsigned width = (unsigned)bench_size(run, 2000, 100);
    unsigned nunits = (unsigned)bench_size(run, G_UNITS, 2);
    unsigned loops = (unsigned)bench_size(run, 40, 2);
    size_t nsample = bench_size(run, 10, 5), *sample;
    acre_request *rg = NULL, *ru = NULL;
    struct tally t = {0}, to = {0};
    char *lg, *lu;
    int rc = -1;

    if (!bench_want(run, "aci_groups_nested") &&
        !bench_want(run, "aci_groups_begin"))
        return 0;
    if (!w.mem || !(lg = g_ldif(w.mem, 1, width, nunits)) ||
        !(lu = g_ldif(w.mem, 0, width, nunits))) {
        bench_fail(run, "aci_groups_nested: out of memory");
        goto out;
    }
    if (world_load(run, &w, "aci_groups.ldif", lg, PEOPLE) ||
        policy_setup(run, &w, &pg, "aci_groups_nested/groupdn", lg) ||
        policy_setup(run, &w, &pu, "aci_groups_nested/userdn", lu))
        goto out;
    who_set(&q, "requester", g_person(w.mem, 0), "simple", "simple", 0,
            "127.0.0.1");
    if (!(sample = talloc_array(w.mem, size_t, nsample)))
        goto out;
    for (size_t k = 0; k < nsample; k++)
        sample[k] = k * w.n / nsample;
    rc = 0;
    if (acreR_aci_new(w.mem, &pg.set, (const struct acreE_dir *)w.dir, &q.o,
                      &o) != 0) {
        bench_fail(run, "aci_groups_nested: acreR_aci_new failed");
        goto out;
    }
    if (verify_oracle(run, &w, &pg, &q, o, sample, nsample, &to))
        goto out;
    const acre_host *host = acre_directory_host(w.dir);
    if (acre_request_begin(pg.p, &q.s, host, &rg) ||
        acre_request_begin(pu.p, &q.s, host, &ru)) {
        bench_fail(run, "aci_groups_nested: acre_request_begin failed");
        goto out;
    }
    if (g_same(run, &w, rg, ru, &t) ||
        tally_mixed(run, "aci_groups_nested", &t, 5))
        goto out;
    bench_note(run,
               "aci_groups_nested: %u ACIs, requester in %u nested groups, "
               "%zu entries; groupdn and userdn agree on all, and with the "
               "oracle on %zu",
               (unsigned)pg.set.n, width * G_LEVELS, w.n, nsample);

    if (bench_want(run, "aci_groups_nested")) {
        struct gjob jg = {&w, pg.p, &q, rg, 1, NULL, 0},
                    ju = {&w, pu.p, &q, ru, 1, NULL, 0};
        bench_impl impl[2] = {{"groupdn rules", g_entry_pass, &jg},
                              {"userdn rules", g_entry_pass, &ju}};
        double med[2];
        bench_measure(run, impl, 2, w.n, med);
        bench_row(run, "aci_groups_nested/userdn", "ns/entry", med[0],
                  impl[1].name, med[1]);
    }
    if (bench_want(run, "aci_groups_begin")) {
        size_t *firsts = talloc_array(w.mem, size_t, nunits), nfirst = 0;
        for (size_t i = 1; firsts && i < w.n && nfirst < nunits; i++)
            if (!strncmp(acre_dn_normalised(w.views[i - 1]->dn, NULL), "ou=u",
                         4))
                firsts[nfirst++] = i;
        if (nfirst != nunits) {
            bench_fail(run, "aci_groups_begin: %zu units found, not %u", nfirst,
                       nunits);
            goto out;
        }
        /* the userdn operations are far cheaper: more of them, so that
         * both passes last about as long (a short pass is noisy) */
        struct gjob jg = {&w, pg.p, &q, NULL, loops, firsts, nfirst},
                    ju = {&w, pu.p, &q, NULL, 24 * loops, firsts, nfirst};
        bench_impl impl[2] = {{"groupdn rules", g_begin_pass, &jg},
                              {"userdn rules", g_begin_pass, &ju}};
        double med[2];
        bench_measure(run, impl, 2, 1, med);
        bench_row(run, "aci_groups_begin/userdn", "ns/request",
                  med[0] / jg.loops, impl[1].name, med[1] / ju.loops);
    }
out:
    if (rg)
        acre_request_end(rg);
    if (ru)
        acre_request_end(ru);
    policy_free(&pg);
    policy_free(&pu);
    world_free(&w);
    return rc;
}

static const char *const aci_groups[] = {"aci_decide_1k", "aci_groups_nested",
                                         "aci_groups_begin", NULL};

static int
bench_aci(bench_run *run)
{
    int rc = bench_aci_decide(run);

    return bench_aci_groups(run) ? -1 : rc;
}

const bench_def bench_aci_def = {"aci", aci_groups, bench_aci};
