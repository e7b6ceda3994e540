/*
 * collect_driver.c -- the acre side of the slapo-collect differential
 * suite (tests/differential/collect.sh).
 *
 *   collect_driver gen SEED DIR   write DIR/data.ldif, DIR/db.conf (the
 *                                 database's "overlay collect",
 *                                 "collectinfo" and access lines) and
 *                                 DIR/searches (SCOPE TAB BASE TAB FILTER
 *                                 TAB ATTRS TAB anon|root, one a line);
 *                                 for a case with a database of its own
 *                                 for one container (nested()), also
 *                                 DIR/sub.conf, DIR/sub.suffix and the
 *                                 data split by database,
 *                                 DIR/data-main.ldif and data-sub.ldif
 *   collect_driver acre DIR       run DIR/searches through acre (the rules
 *                                 of a database mdb for dc=example,dc=com
 *                                 with rootdn cn=admin,dc=example,dc=com
 *                                 and db.conf, attached to data.ldif) and
 *                                 print the results normalised
 *   collect_driver norm FILE      print ldapsearch -LLL output (one
 *                                 "# search N" line before each search's)
 *                                 normalised the same way
 *
 * Normalised: per search "# search N", then its entries sorted by DN, each
 * "dn: DN" (as written) followed by its "attr: value" lines with the
 * attribute names lowercased, sorted; duplicates are kept (slapd appends
 * collected values to the entry's own without removing any).
 *
 * The case: containers ou=cK nested up to three deep holding description,
 * l and telephoneNumber values in mixed case (slapd hands collected
 * values over normalised), people below them (some storing a value the
 * collection also brings), 1-3 collectinfo lines over nested containers
 * (one sometimes naming no entry), and rules that keep a container's
 * description from anonymous readers (so it is not collected for them) and
 * hide l from them everywhere.  Now and then one container holds a
 * database of its own, with rules and a collect overlay of its own.
 */
#include "acre.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SUFFIX "dc=example,dc=com"
#define ROOTDN "cn=admin,dc=example,dc=com"
#define MAXC   12

static uint64_t rng;

static unsigned
below(unsigned n)
{
    uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (unsigned)((z ^ (z >> 31)) % n);
}

static FILE *
open_in(const char *dir, const char *name, const char *mode)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, mode);
    if (!f) {
        perror(path);
        exit(2);
    }
    return f;
}

/* ---- gen ------------------------------------------------------------------
 */

/* Is container a at or above container b? */
static int
at_or_above(const int *parent, int a, int b)
{
    for (; b >= 0; b = parent[b])
        if (a == b)
            return 1;
    return 0;
}

/* The data's entries below (or at) top into DIR/data-sub.ldif, the
 * others into DIR/data-main.ldif: what slapadd loads into each
 * database. */
static void
split_data(const char *dir, const char *top)
{
    FILE *in = open_in(dir, "data.ldif", "r");
    FILE *out[2] = {open_in(dir, "data-main.ldif", "w"),
                    open_in(dir, "data-sub.ldif", "w")};
    size_t tn = strlen(top), cap = 0;
    char *line = NULL;
    int to = 0;
    ssize_t n;

    while ((n = getline(&line, &cap, in)) > 0) {
        if (!strncmp(line, "dn: ", 4)) {
            size_t dl = (size_t)n - 5; /* without "dn: " and the newline */
            to = dl >= tn && !strncmp(line + 4 + dl - tn, top, tn) &&
                 (dl == tn || line[4 + dl - tn - 1] == ',');
        }
        fputs(line, out[to]);
    }
    free(line);
    fclose(in);
    fclose(out[0]);
    fclose(out[1]);
}

/*
 * nested -- one container (not the first) becomes the suffix of a
 * database of its own, listed before the first one (DIR/sub.conf, with
 * no directory line: collect.sh adds slapd's), glued to it or apart,
 * with rules of its own and now and then a collect overlay of its own,
 * whose collectinfo may name an entry of the first database (slapd's
 * backend_attribute reads it from the database that holds it, under
 * that database's rules).  Searches from its suffix and its parent go
 * to DIR/searches (s).
 */
static void
nested(const char *dir, FILE *s, char dn[][256], const int *parent, unsigned nc)
{
    static const char *const lists[] = {"description", "l", "telephoneNumber",
                                        "description,l"};
    static const char *const hidden[] = {"description", "l", "telephoneNumber"};
    int k = (int)(1 + below(nc - 1));
    FILE *c = open_in(dir, "sub.conf", "w");
    FILE *x = open_in(dir, "sub.suffix", "w");

    fprintf(x, "%s\n", dn[k]);
    fclose(x);
    fprintf(c, "database mdb\nsuffix \"%s\"\n%srootdn \"" ROOTDN "\"\n", dn[k],
            below(2) ? "subordinate\n" : "");
    if (below(3)) {
        /* a container on k's line: above it (first, half the time,
         * when there is one), k itself or below it */
        unsigned on[MAXC], n = 0, nabove = 0, used = 0;
        for (unsigned j = 0; j < nc; j++)
            if (at_or_above(parent, (int)j, k) && (int)j != k)
                on[n++] = j;
        nabove = n;
        for (unsigned j = 0; j < nc; j++)
            if (at_or_above(parent, k, (int)j))
                on[n++] = j;
        fprintf(c, "overlay collect\n");
        for (unsigned i = 0, m = 1 + below(2); i < m; i++) {
            unsigned j =
                i == 0 && nabove && below(2) ? on[below(nabove)] : on[below(n)];
            if (used & (1u << j))
                continue;
            used |= 1u << j;
            fprintf(c, "collectinfo \"%s\" %s\n", dn[j], lists[below(4)]);
        }
    }
    if (below(2))
        fprintf(c, "access to attrs=%s by users read by * none\n",
                hidden[below(3)]);
    fprintf(c, "access to * by * read\n");
    fclose(c);
    split_data(dir, dn[k]);
    for (int root = 0; root < 2; root++) {
        const char *who = root ? "root" : "anon";
        fprintf(s, "sub\t%s\t(objectClass=*)\t*\t%s\n", dn[k], who);
        fprintf(s,
                "one\t%s\t(objectClass=*)\tdescription l "
                "telephoneNumber\t%s\n",
                parent[k] < 0 ? SUFFIX : dn[parent[k]], who);
    }
}

static int
gen(unsigned long long seed, const char *dir)
{
    static const char *const words[] = {"Alpha Team", "alpha team", "Beta",
                                        "GAMMA Ray", "Delta"};
    static const char *const towns[] = {"Paris", "paris", "Oslo", "Rome"};
    char dn[MAXC][256];
    unsigned nc = 4 + below(MAXC - 4);
    int parent[MAXC];
    FILE *l = open_in(dir, "data.ldif", "w");
    FILE *c = open_in(dir, "db.conf", "w");
    FILE *s = open_in(dir, "searches", "w");

    rng = seed;
    fprintf(l, "dn: " SUFFIX "\nobjectClass: domain\ndc: example\n"
               "description: The Suffix\n\n");
    for (unsigned k = 0; k < nc; k++) {
        parent[k] = k && below(3) ? (int)below(k) : -1;
        snprintf(dn[k], sizeof dn[k], "ou=c%u,%s", k,
                 parent[k] < 0 ? SUFFIX : dn[parent[k]]);
        fprintf(l, "dn: %s\nobjectClass: organizationalUnit\nou: c%u\n", dn[k],
                k);
        if (below(4))
            fprintf(l, "description: %s\n", words[below(5)]);
        if (below(2))
            fprintf(l, "l: %s\nl: Town %u\n", towns[below(4)], k);
        if (below(2))
            fprintf(l, "telephoneNumber: +1 555 01%02u\n", k);
        fprintf(l, "\n");
    }
    for (unsigned k = 0; k < nc; k++)
        for (unsigned u = 0, n = 1 + below(3); u < n; u++) {
            fprintf(l,
                    "dn: uid=u%u.%u,%s\nobjectClass: inetOrgPerson\n"
                    "uid: u%u.%u\ncn: U %u\nsn: U\n",
                    k, u, dn[k], k, u, u);
            if (below(3) == 0)
                fprintf(l, "description: %s\n", words[below(5)]);
            fprintf(l, "\n");
        }
    fprintf(c, "overlay collect\n");
    unsigned used = 0; /* a DN twice in one overlay is an error */
    for (unsigned i = 0, n = 1 + below(3); i < n; i++) {
        static const char *const lists[] = {"description", "l",
                                            "telephoneNumber", "description,l",
                                            "l,description,telephoneNumber"};
        unsigned k = below(nc);
        if (used & (1u << k))
            continue;
        used |= 1u << k;
        if (i == 2 && below(2))
            fprintf(c, "collectinfo \"ou=nowhere,%s\" description\n", dn[k]);
        else
            fprintf(c, "collectinfo \"%s\" %s\n", dn[k], lists[below(5)]);
    }
    fprintf(c,
            "access to dn.base=\"%s\" attrs=description by users read "
            "by * none\n"
            "access to attrs=l by users read by * none\n"
            "access to * by * read\n",
            dn[below(nc)]);
    static const char *const attrs[] = {"*", "description l", "l",
                                        "telephoneNumber cn"};
    for (unsigned a = 0; a < 4; a++) {
        fprintf(s, "sub\t" SUFFIX "\t(objectClass=*)\t%s\tanon\n", attrs[a]);
        fprintf(s, "sub\t" SUFFIX "\t(objectClass=*)\t%s\troot\n", attrs[a]);
    }
    fprintf(s, "one\t%s\t(uid=*)\t*\tanon\n", dn[0]);
    fclose(l);
    fclose(c);
    if (below(3) == 0)
        nested(dir, s, dn, parent, nc);
    fclose(s);
    return 0;
}

/* ---- normalised output ------------------------------------------------------
 */

struct out {
    char **lines; /* of the current entry, the dn: line first */
    size_t n, cap;
    char **blocks; /* entries of the current search */
    size_t nb, capb;
};

static void
push(char ***v, size_t *n, size_t *cap, char *s)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 16;
        *v = realloc(*v, *cap * sizeof(**v));
        if (!*v)
            exit(2);
    }
    (*v)[(*n)++] = s;
}

static char *
xfmt(const char *fmt, ...)
{
    va_list ap;
    char *s;
    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        exit(2);
    va_end(ap);
    return s;
}

static int
by_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "attr: value" with attr lowercased. */
static char *
attr_line(const char *attr, size_t alen, const char *val, size_t vlen)
{
    char *s = xfmt("%.*s: %.*s", (int)alen, attr, (int)vlen, val);
    for (size_t i = 0; i < alen; i++)
        if (s[i] >= 'A' && s[i] <= 'Z')
            s[i] += 32;
    return s;
}

/* The current entry as one block: its dn line, then its sorted lines. */
static void
end_entry(struct out *o)
{
    size_t len = 0;
    if (!o->n)
        return;
    qsort(o->lines + 1, o->n - 1, sizeof(char *), by_str);
    for (size_t i = 0; i < o->n; i++)
        len += strlen(o->lines[i]) + 1;
    char *b = malloc(len + 1), *p = b;
    if (!b)
        exit(2);
    for (size_t i = 0; i < o->n; i++) {
        p = stpcpy(p, o->lines[i]);
        *p++ = '\n';
        free(o->lines[i]);
    }
    *p = '\0';
    push(&o->blocks, &o->nb, &o->capb, b);
    o->n = 0;
}

static void
end_search(struct out *o, unsigned k)
{
    end_entry(o);
    qsort(o->blocks, o->nb, sizeof(char *), by_str);
    printf("# search %u\n", k);
    for (size_t i = 0; i < o->nb; i++) {
        fputs(o->blocks[i], stdout);
        free(o->blocks[i]);
    }
    o->nb = 0;
}

/* ---- norm: ldapsearch output
 * --------------------------------------------------
 */

static int
norm(const char *path)
{
    FILE *f = fopen(path, "r");
    struct out o = {0};
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int k = -1;

    if (!f) {
        perror(path);
        return 2;
    }
    while ((n = getline(&line, &cap, f)) > 0) {
        while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            line[--n] = '\0';
        if (!strncmp(line, "# search ", 9)) {
            if (k >= 0)
                end_search(&o, (unsigned)k);
            k = atoi(line + 9);
            continue;
        }
        if (!n || line[0] == '#') {
            end_entry(&o);
            continue;
        }
        if (!strncmp(line, "dn: ", 4)) {
            end_entry(&o);
            push(&o.lines, &o.n, &o.cap, xfmt("%s", line));
            continue;
        }
        char *colon = strchr(line, ':');
        if (colon)
            push(&o.lines, &o.n, &o.cap,
                 attr_line(line, (size_t)(colon - line), colon + 2,
                           strlen(colon + (colon[1] ? 2 : 1))));
    }
    if (k >= 0)
        end_search(&o, (unsigned)k);
    free(line);
    fclose(f);
    return 0;
}

/* ---- acre
 * ---------------------------------------------------------------------
 */

static int
found_entry(void *arg, const acre_entry_view *view, const acre_verdict *v)
{
    struct out *o = arg;
    const acre_entry *e = view->host_data; /* the directory's entry */
    size_t dl, len;
    unsigned nv;

    push(&o->lines, &o->n, &o->cap,
         xfmt("dn: %s", acre_dn_pretty(acre_entry_dn(e), NULL)));
    for (unsigned i = 0; i < v->nattrs; i++) {
        const char *d = acre_entry_attr(e, i, &dl, &nv);
        for (unsigned j = 0; v->attr[i] != ACRE_ATTR_NONE && j < nv; j++) {
            const char *val = acre_entry_value(e, i, j, &len);
            if (v->attr[i] == ACRE_ATTR_ALL || v->value[v->first[i] + j])
                push(&o->lines, &o->n, &o->cap, attr_line(d, dl, val, len));
        }
    }
    for (unsigned i = 0; i < v->coll.nattrs; i++) {
        const char *d = acre_collective_attr(&v->coll, i, &dl, &nv, NULL);
        for (unsigned j = 0; v->coll_attr[i] != ACRE_ATTR_NONE && j < nv; j++) {
            const char *val = acre_collective_value(&v->coll, i, j, &len);
            if (v->coll_attr[i] == ACRE_ATTR_ALL ||
                v->coll_value[v->coll_first[i] + j])
                push(&o->lines, &o->n, &o->cap, attr_line(d, dl, val, len));
        }
    }
    end_entry(o);
    return 0;
}

static char *
slurp(const char *dir, const char *name, size_t *len)
{
    FILE *f = open_in(dir, name, "r");
    char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    for (;;) {
        if (*len + 4096 > cap && !(buf = realloc(buf, cap = 2 * cap + 8192)))
            exit(2);
        size_t r = fread(buf + *len, 1, cap - *len - 1, f);
        if (!r)
            break;
        *len += r;
    }
    buf[*len] = '\0';
    fclose(f);
    return buf;
}

static int
run_acre(const char *dir)
{
    size_t ll, cl;
    char *ldif = slurp(dir, "data.ldif", &ll), *db = slurp(dir, "db.conf", &cl);
    char path[4096];
    snprintf(path, sizeof path, "%s/sub.conf", dir);
    char *sub = access(path, F_OK) ? xfmt("") : slurp(dir, "sub.conf", &cl);
    char *conf =
        xfmt("%sdatabase mdb\nsuffix \"" SUFFIX "\"\nrootdn \"" ROOTDN "\"\n%s",
             sub, db);
    acre_source src = {ACRE_DIALECT_SLAPD_CONF, "db.conf", conf, strlen(conf)};
    acre_schema *schema;
    acre_directory *d;
    acre_policy *p, *q;
    acre_diag dg;
    FILE *s = open_in(dir, "searches", "r");
    char *line = NULL;
    size_t cap = 0;
    unsigned k = 0;
    int rc;

    if ((rc = acre_schema_new(NULL, ACRE_SCHEMA_SLAPD, &schema, &dg)) ||
        (rc = acre_policy_compile(NULL, schema, &src, 1, 0, &p, &dg)) ||
        (rc = acre_directory_load_opt(
             NULL, schema, (const char *[]){"data.ldif"}, 1,
             &(acre_load_options){0, NULL, NULL, p, ldif, ll}, &d, &dg)) ||
        (rc = acre_policy_attach_subentries(NULL, p, d, 0, &q, &dg))) {
        fprintf(stderr, "collect_driver: %s line %u: %s\n", acre_strerror(rc),
                dg.line, dg.message);
        return 2;
    }
    while (getline(&line, &cap, s) > 0) {
        char *f[5], *save = NULL;
        const char *attrs[8];
        unsigned na = 0;
        struct out o = {0};
        acre_request *rq;
        acre_subject who = {0};
        int ldap_rc;

        line[strcspn(line, "\n")] = '\0';
        for (int i = 0; i < 5; i++)
            f[i] = strtok_r(i ? NULL : line, "\t", &save);
        if (!f[4])
            continue;
        for (char *a = strtok_r(f[3], " ", &save); a && na < 8;
             a = strtok_r(NULL, " ", &save))
            attrs[na++] = a;
        who.authz_dn = strcmp(f[4], "root") ? NULL : ROOTDN;
        if (acre_request_begin(q, &who, acre_directory_host(d), &rq))
            return 2;
        int scope = !strcmp(f[0], "base")  ? ACRE_SCOPE_BASE
                    : !strcmp(f[0], "one") ? ACRE_SCOPE_ONE
                                           : ACRE_SCOPE_SUB;
        if (acre_search(rq, f[1], scope, f[2], attrs, na, found_entry, &o,
                        &ldap_rc, NULL))
            return 2;
        end_search(&o, ++k);
        acre_request_end(rq);
        free(o.lines);
        free(o.blocks);
    }
    free(line);
    fclose(s);
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "gen"))
        return gen(strtoull(argv[2], NULL, 0), argv[3]);
    if (argc == 3 && !strcmp(argv[1], "acre"))
        return run_acre(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "norm"))
        return norm(argv[2]);
    fprintf(stderr, "usage: collect_driver gen SEED DIR | acre DIR | "
                    "norm FILE\n");
    return 2;
}
