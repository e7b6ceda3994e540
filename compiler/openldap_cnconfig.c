/*
 * openldap_cnconfig.c -- cn=config input of the OpenLDAP front end: one
 * LDIF file with full DNs (slapcat -n0, slapadd -n0) or a slapd.d
 * directory (one entry per file, RDN-only DNs, children in a directory
 * named after the parent's RDN).
 *
 * What is read:
 *   - cn=schema,cn=config and its children: olcObjectIdentifier,
 *     olcAttributeTypes, olcObjectClasses, loaded into the caller's
 *     schema before any rule (slapd.d: cn=schema.ldif, then the
 *     cn={n}name.ldif files in {n} order);
 *   - olcModuleLoad values naming slapd's memberof overlay: its memberOf
 *     definition (acreO_memberof_schema), where slapd would load it;
 *   - olcOverlay={n}collect entries below a database: olcCollectInfo
 *     (slapo-collect; slapd.d: the files in the database's directory);
 *   - olcDatabase={n}type entries: olcSuffix, olcRootDN, olcAccess,
 *     olcSizeLimit, olcTimeLimit, olcLimits (openldap_limits.c; the
 *     limits after the size and time limits they start from); the
 *     databases are ordered by {n}; {-1}frontend holds the global rules;
 *     the config database serves cn=config and, like slapd, falls back to
 *     "to * by * none" when it has no rule;
 *   - the cn=config entry: olcSizeLimit and olcTimeLimit, which slapd
 *     sets on the frontend (read as a frontend record before its own);
 *   - everything else is noted and ignored;
 *   - "# acre-lint:" comments (the LDIF reader's comment callback) are
 *     kept for acre_lint (acreO_comment).
 * As slapadd -n0 does, an entry without objectClass is refused, and so is,
 * in one LDIF file, an entry whose normalised DN came before.
 * olcAccess values are ordered as slapd's ordered_value_sort: either all
 * or none start with "{n}" (n read by strtol base 0, then a stable sort);
 * slapd strips each value up to its first '}' wherever it is, and so does
 * this reader.  A value is tokenised as strtok_quote_ldif does and parsed
 * as an access rule; positions of its bytes are mapped back to the file's
 * physical lines through LDIF folding (values given in base64 have no
 * column).
 * acre_lint reads on past an olcSuffix, olcRootDN or olcAccess value
 * slapd refuses (acreO_recover) to report every one; the result still
 * fails.
 * Invariant: on any error nothing is kept and *out is untouched.
 */
#include "openldap_int.h"

#include "ldif.h"
#include "schema.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <talloc.h>

/* One olcDatabase entry, as read. */
struct dbrec {
    const char *file;
    unsigned line;
    long index;
    const char *type;
    struct acreO_ptext *suffix, *rootdn, *access;
    unsigned nsuffix, naccess;
    struct acreO_ptext *sizel, *timel, *limits; /* olcSizeLimit, ... */
    unsigned nsizel, ntimel, nlimits;
    struct acreO_ptext *dbindex; /* olcDbIndex (back-mdb) */
    unsigned ndbindex;
    int subordinate; /* olcSubordinate TRUE or advertise */
};

/* One olcOverlay entry below a database, as read (slapo-collect). */
struct ovrec {
    const char *file;
    unsigned line;
    long db;                  /* {n} of its olcDatabase */
    const char *type;         /* "collect", ... ({n} stripped) */
    struct acreO_ptext *info; /* olcCollectInfo values */
    unsigned ninfo;
};

/* The normalised DN of a record and its line (duplicate entries). */
struct seen {
    const char *norm;
    unsigned line;
};

struct cc {
    struct acreO_build *b;
    struct seen *seen; /* one LDIF file: every record's DN; else NULL */
    unsigned nseen;
    struct ovrec *ovs;
    unsigned novs;
    const char *parent; /* slapd.d: the olcDatabase RDN value of the
                           directory being read, else NULL */
    acre_schema *schema;
    void *scratch;
    struct dbrec *dbs;
    unsigned ndbs;
    struct acreO_lexbuf lb; /* the tokens of one olcAccess value */
    const char *text;       /* the text whose line starts are known */
    size_t *starts;
    unsigned nlines;
};

/* ------------------------------------------------------------------------
 * Values with positions
 */

/* Offsets of the starts of each physical line of text (1-based). */
static size_t *
line_starts(void *ctx, const char *text, size_t len, unsigned *nlines)
{
    unsigned n = 1;
    for (size_t i = 0; i < len; i++)
        n += text[i] == '\n';
    size_t *v = talloc_array(ctx, size_t, n + 2);
    if (!v)
        return NULL;
    unsigned k = 1;
    v[1] = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\n')
            v[++k] = i + 1;
    *nlines = k;
    return v;
}

/* A copy of an LDIF value with the position of each byte, found by
 * walking the raw text from (line, col) across folds. */
static int
positioned_value(void *ctx, const char *text, size_t tlen, const size_t *starts,
                 unsigned nlines, const struct acreL_attrval *av,
                 struct acreO_ptext *out)
{
    struct acreO_ptext t = {0};
    size_t n = av->len;

    t.s = talloc_array(ctx, char, n + 1);
    t.line = talloc_array(ctx, unsigned, n + 1);
    t.col = talloc_array(ctx, unsigned, n + 1);
    if (!t.s || !t.line || !t.col)
        return ACRE_ERR_NOMEM;
    if (n)
        memcpy(t.s, av->val, n);
    t.s[n] = '\0';
    t.len = n;
    unsigned line = av->line, col = av->col;
    size_t raw = col && line <= nlines ? starts[line] + col - 1 : tlen;
    for (size_t i = 0; i <= n; i++) {
        while (col && i < n) { /* a fold: [CR] LF, then one space */
            size_t k = raw + (raw < tlen && text[raw] == '\r');
            if (!(k + 1 < tlen && text[k] == '\n' && text[k + 1] == ' '))
                break;
            raw = k + 2;
            line++;
            col = 2;
        }
        t.line[i] = line;
        t.col[i] = col;
        if (col) {
            raw++;
            col++;
        }
    }
    *out = t;
    return 0;
}

/* ------------------------------------------------------------------------
 * Records
 */

/* The attribute type and value of the first RDN of dn. */
static void
first_rdn(const char *dn, const char **type, size_t *tn, const char **val,
          size_t *vn)
{
    const char *eq = strchr(dn, '=');
    const char *comma = strchr(dn, ',');

    *type = dn;
    *tn = eq && (!comma || eq < comma) ? (size_t)(eq - dn) : 0;
    *val = eq ? eq + 1 : dn;
    *vn = comma && comma > *val ? (size_t)(comma - *val) : strlen(*val);
}

static int
push_value(struct cc *c, const char *text, size_t tlen, const size_t *starts,
           unsigned nlines, const struct acreL_attrval *av,
           struct acreO_ptext **v, unsigned *n)
{
    struct acreO_ptext *nv = *v;
    size_t cap = nv ? talloc_get_size(nv) / sizeof(*nv) : 0;

    if (*n == cap) { /* doubling: many values stay linear */
        nv = talloc_realloc(c->scratch, nv, struct acreO_ptext,
                            cap ? 2 * cap : 4);
        if (!nv)
            return ACRE_ERR_NOMEM;
    }
    *v = nv;
    int rc =
        positioned_value(c->scratch, text, tlen, starts, nlines, av, &nv[*n]);
    if (!rc)
        (*n)++;
    return rc;
}

/* "{n}type" -> index and type ({-1}frontend; no index: -2). */
static int
db_name(void *ctx, const char *v, size_t n, long *index, const char **type)
{
    char *s = talloc_strndup(ctx, v, n), *end = s;

    if (!s)
        return ACRE_ERR_NOMEM;
    *index = -2;
    if (s[0] == '{') {
        *index = strtol(s + 1, &end, 0);
        if (*end != '}')
            return ACRE_ERR_RULE_SYNTAX;
        end++;
    }
    *type = end;
    return 0;
}

static int
database_record(struct cc *c, const char *file, const char *text, size_t tlen,
                const struct acreL_record *rec, const char *rdnval,
                size_t rdnlen, acre_diag *diag)
{
    if (c->text != text) { /* once per text, whatever its databases */
        c->starts = line_starts(c->scratch, text, tlen, &c->nlines);
        c->text = c->starts ? text : NULL;
    }
    unsigned nlines = c->nlines;
    size_t *starts = c->starts;
    struct dbrec *v =
        talloc_realloc(c->scratch, c->dbs, struct dbrec, c->ndbs + 1);
    int rc = 0;

    if (!starts || !v)
        return ACRE_ERR_NOMEM;
    c->dbs = v;
    struct dbrec *d = &v[c->ndbs];
    memset(d, 0, sizeof(*d));
    d->file = file;
    d->line = rec->line;
    if (!rdnval) { /* cn=config: the frontend's, before {-1}frontend */
        d->index = -2;
        d->type = "frontend";
    } else if ((rc = db_name(c->scratch, rdnval, rdnlen, &d->index, &d->type)))
        return rc != ACRE_ERR_RULE_SYNTAX
                   ? rc
                   : acreO_error(diag, rc, file, NULL, 0,
                                 "%s: line %u: bad olcDatabase name", file,
                                 rec->line);
    for (size_t i = 0; !rc && i < rec->nvals; i++) {
        const struct acreL_attrval *av = &rec->vals[i];
        if (acreL_desc_is(av, "olcSuffix"))
            rc = push_value(c, text, tlen, starts, nlines, av, &d->suffix,
                            &d->nsuffix);
        else if (acreL_desc_is(av, "olcAccess"))
            rc = push_value(c, text, tlen, starts, nlines, av, &d->access,
                            &d->naccess);
        else if (acreL_desc_is(av, "olcSizeLimit"))
            rc = push_value(c, text, tlen, starts, nlines, av, &d->sizel,
                            &d->nsizel);
        else if (acreL_desc_is(av, "olcTimeLimit"))
            rc = push_value(c, text, tlen, starts, nlines, av, &d->timel,
                            &d->ntimel);
        else if (acreL_desc_is(av, "olcLimits"))
            rc = push_value(c, text, tlen, starts, nlines, av, &d->limits,
                            &d->nlimits);
        else if (acreL_desc_is(av, "olcDbIndex"))
            rc = push_value(c, text, tlen, starts, nlines, av, &d->dbindex,
                            &d->ndbindex);
        else if (acreL_desc_is(av, "olcSubordinate"))
            d->subordinate = 1;
        else if (acreL_desc_is(av, "olcRootDN")) {
            unsigned one = 0;
            d->rootdn = NULL;
            rc =
                push_value(c, text, tlen, starts, nlines, av, &d->rootdn, &one);
        }
    }
    if (!rc)
        c->ndbs++;
    return rc;
}

/* An olcOverlay entry: its database from the DN's second RDN (or the
 * slapd.d directory it was read from) and its olcCollectInfo values. */
static int
overlay_record(struct cc *c, const char *file, const char *text, size_t tlen,
               const struct acreL_record *rec, const char *rdnval,
               size_t rdnlen)
{
    const char *comma = strchr(rec->dn, ','), *ptype = "", *val = NULL;
    const char *dbtype, *type;
    size_t tn = 0, vn = 0;
    long index, oindex;
    int rc;

    if (comma)
        first_rdn(comma + 1, &ptype, &tn, &val, &vn);
    if (!(tn == 11 && !strncasecmp(ptype, "olcDatabase", 11))) {
        val = c->parent;
        vn = val ? strlen(val) : 0;
    }
    rc = val ? db_name(c->scratch, val, vn, &index, &dbtype)
             : ACRE_ERR_RULE_SYNTAX;
    if (!rc)
        rc = db_name(c->scratch, rdnval, rdnlen, &oindex, &type);
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc)
        return acreO_note_add(c->b, (struct acreI_pos){file, rec->line, 1},
                              "overlay entry \"%s\" ignored: no database",
                              rec->dn);
    struct ovrec *v =
        talloc_realloc(c->scratch, c->ovs, struct ovrec, c->novs + 1);
    if (!v)
        return ACRE_ERR_NOMEM;
    c->ovs = v;
    struct ovrec *o = &v[c->novs];
    memset(o, 0, sizeof(*o));
    o->file = file;
    o->line = rec->line;
    o->db = index;
    o->type = type;
    if (c->text != text) {
        c->starts = line_starts(c->scratch, text, tlen, &c->nlines);
        c->text = c->starts ? text : NULL;
    }
    if (!c->starts)
        return ACRE_ERR_NOMEM;
    for (size_t i = 0; !rc && i < rec->nvals; i++)
        if (acreL_desc_is(&rec->vals[i], "olcCollectInfo"))
            rc = push_value(c, text, tlen, c->starts, c->nlines, &rec->vals[i],
                            &o->info, &o->ninfo);
    if (!rc)
        c->novs++;
    return rc;
}

/* An error at the start of the record at `line`. */
static int
record_error(acre_diag *diag, int code, const char *file, unsigned line,
             const char *fmt, const char *arg)
{
    unsigned col = 1;
    struct acreO_ptext at = {.line = &line, .col = &col};

    return acreO_error(diag, code, file, &at, 0, fmt, arg);
}

/* slapadd's checks of every entry it adds (slapadd -n0 2.5.13): one with
 * no objectClass attribute is refused, and in one LDIF file an entry
 * whose DN (normalised: "OLCDATABASE={1}MDB" is "olcDatabase={1}mdb")
 * came before ("Already exists"). */
static int
check_record(struct cc *c, const char *file, const struct acreL_record *rec,
             acre_diag *diag)
{
    int oc = 0;
    acre_dn *dn;

    for (size_t i = 0; !oc && i < rec->nvals; i++)
        oc = acreL_desc_is(&rec->vals[i], "objectClass") ||
             acreL_desc_is(&rec->vals[i], "2.5.4.0");
    if (!oc)
        return record_error(diag, ACRE_ERR_LDIF_SYNTAX, file, rec->line,
                            "entry \"%s\": no objectClass attribute", rec->dn);
    if (!c->seen)
        return 0;
    int rc = acre_dn_parse(c->scratch, c->b->schema, rec->dn, rec->dn_len, 0,
                           &dn, NULL);
    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (rc)
        return record_error(diag, ACRE_ERR_LDIF_DN, file, rec->line,
                            "entry \"%s\": invalid DN", rec->dn);
    size_t cap = talloc_get_size(c->seen) / sizeof(*c->seen);
    struct seen *v = c->seen;
    if (c->nseen == cap &&
        !(v = talloc_realloc(c->scratch, c->seen, struct seen, 2 * cap)))
        return ACRE_ERR_NOMEM;
    c->seen = v;
    v[c->nseen].norm = acre_dn_normalised(dn, NULL);
    v[c->nseen++].line = rec->line;
    return 0;
}

static int
by_dn_line(const void *a, const void *b)
{
    const struct seen *x = a, *y = b;
    int k = strcmp(x->norm, y->norm);
    return k ? k : x->line < y->line ? -1 : x->line > y->line;
}

/* The first entry (in file order) whose DN an earlier one has. */
static int
check_duplicates(struct cc *c, const char *file, acre_diag *diag)
{
    const struct seen *dup = NULL, *first = NULL;

    if (c->nseen > 1)
        qsort(c->seen, c->nseen, sizeof(*c->seen), by_dn_line);
    for (unsigned i = 1; i < c->nseen; i++)
        if (!strcmp(c->seen[i].norm, c->seen[i - 1].norm) &&
            (!dup || c->seen[i].line < dup->line)) {
            dup = &c->seen[i];
            for (first = dup;
                 first > c->seen && !strcmp(first[-1].norm, dup->norm);)
                first--;
        }
    if (!dup)
        return 0;
    char at[32];
    snprintf(at, sizeof(at), "%u", first->line);
    return record_error(diag, ACRE_ERR_LDIF_DUP_ENTRY, file, dup->line,
                        "duplicate entry (the same DN as the entry at line "
                        "%s): slapadd refuses it",
                        at);
}

/* The comments of one file, for acre_lint (acreO_comment). */
struct comments {
    struct acreO_build *b;
    const char *file;
    struct acreO_comment_run run;
};

static int
on_comment(void *arg, unsigned line, const char *s, size_t n)
{
    struct comments *k = arg;

    return acreO_comment(k->b, &k->run, k->file, line, s, n);
}

static int
read_records(struct cc *c, const char *file, const char *text, size_t len,
             acre_diag *diag)
{
    struct acreL_reader *r;
    struct acreL_record rec;
    struct comments k = {.b = c->b, .file = file};
    int rc = acreL_open(c->scratch, NULL, text, len, file, &r);

    if (!rc)
        acreL_on_comment(r, on_comment, &k);
    while (!rc && (rc = acreL_next(r, &rec, diag)) == 1) {
        const char *type, *val;
        size_t tn, vn;
        if ((rc = check_record(c, file, &rec, diag)))
            break;
        first_rdn(rec.dn, &type, &tn, &val, &vn);
        if (tn == 11 && !strncasecmp(type, "olcDatabase", 11))
            rc = database_record(c, file, text, len, &rec, val, vn, diag);
        else if (tn == 10 && !strncasecmp(type, "olcOverlay", 10))
            rc = overlay_record(c, file, text, len, &rec, val, vn);
        else if (tn == 2 && !strncasecmp(type, "cn", 2) && vn == 6 &&
                 !strncasecmp(val, "config", 6) && !strchr(rec.dn, ','))
            rc = database_record(c, file, text, len, &rec, NULL, 0, diag);
        else
            rc = 0;
    }
    if (rc == 0)
        rc = acreO_comment(c->b, &k.run, file, 0, NULL, 0);
    if (rc < 0 && diag && diag->code == 0)
        diag->code = rc;
    return rc < 0 ? rc : 0;
}

/* ------------------------------------------------------------------------
 * Schema
 */

static int
schema_file(struct cc *c, const char *path, acre_diag *diag)
{
    if (!c->schema)
        return acreO_note_add(c->b, (struct acreI_pos){path, 0, 0},
                              "schema definitions not loaded: no schema "
                              "given");
    return acre_schema_load_file(c->schema, path, diag);
}

static int
schema_text(struct cc *c, const char *name, const char *text, size_t len,
            acre_diag *diag)
{
    if (!memmem(text, len, "olcAttributeTypes", 17) &&
        !memmem(text, len, "olcObjectClasses", 16) &&
        !memmem(text, len, "olcObjectIdentifier", 19) &&
        !memmem(text, len, "olcAttributeOptions", 19))
        return 0;
    if (!c->schema)
        return acreO_note_add(c->b, (struct acreI_pos){name, 0, 0},
                              "schema definitions not loaded: no schema "
                              "given");
    return acre_schema_load_buffer(c->schema, name, text, len, diag);
}

/* ------------------------------------------------------------------------
 * Modules: slapd's memberof overlay defines memberOf when its module is
 * loaded (acreO_memberof_schema).  slapd.d's entries are read by name,
 * so cn=module{n} comes before cn=schema; an LDIF file is read in order.
 */

/* Does rec load the memberof module (an olcModuleLoad value naming it,
 * after the {n} slapd strips)? */
static int
loads_memberof(const struct acreL_record *rec)
{
    for (size_t i = 0; i < rec->nvals; i++) {
        const struct acreL_attrval *a = &rec->vals[i];
        const char *v = (const char *)a->val, *e;
        size_t n = a->len;
        char name[256];
        if (a->desc_len != 13 || strncasecmp(a->desc, "olcModuleLoad", 13))
            continue;
        if (n && v[0] == '{' && (e = memchr(v, '}', n))) {
            n -= (size_t)(e + 1 - v);
            v = e + 1;
        }
        if (n >= sizeof name)
            continue;
        memcpy(name, v, n);
        name[n] = '\0';
        if (acreO_is_memberof_module(name))
            return 1;
    }
    return 0;
}

/* Where the records of text load the memberof module: *where 0 nowhere,
 * 1 before the first record with schema definitions, 2 after it. */
static int
memberof_in(struct cc *c, const char *file, const char *text, size_t len,
            int *where, acre_diag *diag)
{
    struct acreL_reader *r;
    struct acreL_record rec;
    int rc = acreL_open(c->scratch, NULL, text, len, file, &r), schema = 0;

    *where = 0;
    if (rc)
        return rc;
    while (!*where && (rc = acreL_next(r, &rec, diag)) == 1) {
        if (loads_memberof(&rec))
            *where = schema ? 2 : 1;
        for (size_t i = 0; !schema && i < rec.nvals; i++)
            schema = rec.vals[i].desc_len == 17 &&
                     !strncasecmp(rec.vals[i].desc, "olcAttributeTypes", 17);
    }
    acreL_close(r);
    return rc < 0 ? rc : 0;
}

/* The memberof overlay's memberOf, when where says it is loaded at w. */
static int
memberof_at(struct cc *c, const char *file, int where, int w, acre_diag *diag)
{
    if (where != w || !c->schema)
        return 0;
    return acreO_memberof_schema(c->schema, file, diag);
}

/* ------------------------------------------------------------------------
 * slapd.d
 */

static long
brace_index(const char *name)
{
    const char *b = strchr(name, '{');
    return b ? strtol(b + 1, NULL, 0) : 0;
}

static int
by_index(const void *a, const void *b)
{
    const char *x = *(const char *const *)a, *y = *(const char *const *)b;
    long i = brace_index(x), j = brace_index(y);
    return i < j ? -1 : i > j ? 1 : strcmp(x, y);
}

/* The *.ldif files of dir, sorted by {n}. */
static int
list_ldif(void *ctx, const char *dir, char ***out, unsigned *n)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **v = NULL;

    *n = 0;
    if (!d)
        return 0;
    while ((e = readdir(d))) {
        size_t k = strlen(e->d_name);
        if (k < 6 || strcmp(e->d_name + k - 5, ".ldif"))
            continue;
        char **nv = talloc_realloc(ctx, v, char *, *n + 1);
        if (!nv || !(nv[*n] = talloc_asprintf(nv, "%s/%s", dir, e->d_name))) {
            closedir(d);
            return ACRE_ERR_NOMEM;
        }
        v = nv;
        (*n)++;
    }
    closedir(d);
    if (*n)
        qsort(v, *n, sizeof(v[0]), by_index);
    *out = v;
    return 0;
}

static int
read_file_records(struct cc *c, const char *path, acre_diag *diag)
{
    char *text;
    size_t len;
    const char *name = acreO_file_name(path);
    int rc = name ? acreO_read_file(c->scratch, path, &text, &len, diag)
                  : ACRE_ERR_NOMEM;

    return rc ? rc : read_records(c, name, text, len, diag);
}

static int
read_slapd_d(struct cc *c, const char *dir, acre_diag *diag)
{
    char **files;
    unsigned n;
    char *schema_dir =
        talloc_asprintf(c->scratch, "%s/cn=config/cn=schema", dir);
    char *top = talloc_asprintf(c->scratch, "%s/cn=config", dir);
    char *base =
        talloc_asprintf(c->scratch, "%s/cn=config/cn=schema.ldif", dir);
    struct stat st;
    int rc = schema_dir && top && base ? 0 : ACRE_ERR_NOMEM;

    /* the modules first: cn=module{n}.ldif sorts before cn=schema */
    if (!rc)
        rc = list_ldif(c->scratch, top, &files, &n);
    for (unsigned i = 0; !rc && i < n; i++) {
        const char *rdn = strrchr(files[i], '/');
        char *text;
        size_t len;
        int where = 0;
        if (!rdn || strncasecmp(rdn + 1, "cn=module", 9))
            continue;
        rc = acreO_read_file(c->scratch, files[i], &text, &len, diag);
        if (!rc)
            rc = memberof_in(c, files[i], text, len, &where, diag);
        if (!rc && where)
            rc = memberof_at(c, files[i], 1, 1, diag);
    }
    /* cn=config.ldif: the global olcAttributeOptions */
    char *cfg = talloc_asprintf(c->scratch, "%s/cn=config.ldif", dir);
    if (!rc && !cfg)
        rc = ACRE_ERR_NOMEM;
    if (!rc && stat(cfg, &st) == 0) {
        char *text;
        size_t len;
        rc = acreO_read_file(c->scratch, cfg, &text, &len, diag);
        if (!rc)
            rc = schema_text(c, cfg, text, len, diag);
    }
    if (!rc && stat(base, &st) == 0)
        rc = schema_file(c, base, diag);
    if (!rc)
        rc = list_ldif(c->scratch, schema_dir, &files, &n);
    for (unsigned i = 0; !rc && i < n; i++)
        rc = schema_file(c, files[i], diag);
    if (!rc) {
        acreO_build_schema(c->b, c->schema);
        rc = list_ldif(c->scratch, top, &files, &n);
    }
    for (unsigned i = 0; !rc && i < n; i++) {
        rc = read_file_records(c, files[i], diag);
        /* a database's overlays live in the directory named after it */
        size_t k = strlen(files[i]);
        const char *rdn = strrchr(files[i], '/');
        if (rc || !rdn || strncasecmp(rdn + 1, "olcDatabase=", 12))
            continue;
        char *sub = talloc_strndup(c->scratch, files[i], k - 5);
        char **kids;
        unsigned nk;
        if (!sub)
            return ACRE_ERR_NOMEM;
        c->parent = sub + (rdn - files[i]) + 13;
        rc = list_ldif(c->scratch, sub, &kids, &nk);
        for (unsigned j = 0; !rc && j < nk; j++)
            rc = read_file_records(c, kids[j], diag);
        c->parent = NULL;
    }
    return rc;
}

/* ------------------------------------------------------------------------
 * Databases and rules
 */

/* Databases in {n} order (a stable insertion sort). */
static void
sort_databases(struct dbrec *v, unsigned n)
{
    for (unsigned i = 1; i < n; i++)
        for (unsigned j = i; j > 0 && v[j - 1].index > v[j].index; j--) {
            struct dbrec t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
}

/* ordered_value_sort: all values or none start with "{n}" (n by strtol
 * base 0, then '}'); a stable sort by n. */
static int
order_values(struct acreO_ptext *v, unsigned n, const char *attr,
             const char *file, acre_diag *diag)
{
    long *idx = talloc_array(NULL, long, n ? n : 1);
    int indexed = n && v[0].s[0] == '{', rc = 0;

    if (!idx)
        return ACRE_ERR_NOMEM;
    for (unsigned i = 0; !rc && i < n; i++) {
        char *end = NULL;
        if ((v[i].s[0] == '{') != indexed)
            rc = acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &v[i], 0,
                             "%s: values must all have a {n} index or none",
                             attr);
        else if (indexed &&
                 ((idx[i] = strtol(v[i].s + 1, &end, 0)), *end != '}'))
            rc = acreO_error(diag, ACRE_ERR_RULE_SYNTAX, file, &v[i], 0,
                             "%s: bad {n} index", attr);
    }
    for (unsigned i = 1; !rc && indexed && i < n; i++)
        for (unsigned j = i; j > 0 && idx[j - 1] > idx[j]; j--) {
            long t = idx[j];
            struct acreO_ptext tv = v[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
            v[j] = v[j - 1];
            v[j - 1] = tv;
        }
    talloc_free(idx);
    return rc;
}

/* The directive's name as token 0 of a value's tokens (toks[0]): its
 * text attr, every one of its positions, and the one after its end that
 * an error may name, the value's first (the value itself may be shorter
 * than the name).  0 or ACRE_ERR_NOMEM. */
static int
name_token(struct cc *c, const char *attr, const struct acreO_ptext *v,
           struct acreO_ptext *tok)
{
    size_t n = strlen(attr);
    unsigned *pos = talloc_array(c->scratch, unsigned, 2 * (n + 1));

    if (!pos)
        return ACRE_ERR_NOMEM;
    for (size_t i = 0; i <= n; i++) {
        pos[i] = v->line[0];
        pos[n + 1 + i] = v->col[0];
    }
    *tok = (struct acreO_ptext){(char *)attr, n, pos, pos + n + 1};
    return 0;
}

/* One olcAccess value: strip through the first '}', tokenise, parse. */
static int
access_value(struct cc *c, struct acreI_section *db, const char *file,
             const struct acreO_ptext *v, acre_diag *diag)
{
    const char *close = strchr(v->s, '}');
    size_t skip = close ? (size_t)(close - v->s) + 1 : 0;
    struct acreO_ptext rest = {v->s + skip, v->len - skip, v->line + skip,
                               v->col + skip};
    struct acreO_ptext *toks;
    unsigned n;
    int rc = acreO_tokenize_ldif(&c->lb, &rest, &toks, &n, file, diag);

    if (rc || (rc = name_token(c, "olcAccess", v, &toks[0])))
        return rc;
    return acreO_db_add_rule(c->b, db, toks, n, file, diag);
}

/* One olcSizeLimit, olcTimeLimit, olcLimits or olcDbIndex value (its {n}
 * stripped) of database db. */
static int
limits_value(struct cc *c, struct acreI_section *db, const char *attr,
             const char *file, const struct acreO_ptext *v, acre_diag *diag)
{
    const char *close = v->s[0] == '{' ? strchr(v->s, '}') : NULL;
    size_t skip = close ? (size_t)(close - v->s) + 1 : 0;
    struct acreO_ptext rest = {v->s + skip, v->len - skip, v->line + skip,
                               v->col + skip};
    struct acreO_ptext *toks;
    unsigned n;
    int rc = acreO_tokenize_ldif(&c->lb, &rest, &toks, &n, file, diag);

    if (rc || (rc = name_token(c, attr, v, &toks[0])))
        return rc;
    if (attr[3] == 'L') /* olcLimits */
        return acreO_limits_rule(c->b, db, toks, n, file, diag);
    if (attr[3] == 'D') /* olcDbIndex */
        return acreO_index_directive(c->b, db, toks, n, file, diag);
    return acreO_limits_directive(&db->limits, toks, n, file, diag);
}

/* The search limits of database d: its size and time limits, then its
 * limits rules (which start from them), in {n} order. */
static int
database_limits(struct cc *c, const struct dbrec *d, struct acreI_section *db,
                acre_diag *diag)
{
    int rc = 0;

    for (unsigned i = 0; !rc && i < d->nsizel; i++)
        rc = acreO_recover(
            c->b,
            limits_value(c, db, "olcSizeLimit", d->file, &d->sizel[i], diag),
            diag);
    for (unsigned i = 0; !rc && i < d->ntimel; i++)
        rc = acreO_recover(
            c->b,
            limits_value(c, db, "olcTimeLimit", d->file, &d->timel[i], diag),
            diag);
    if (!rc)
        rc = order_values(d->limits, d->nlimits, "olcLimits", d->file, diag);
    for (unsigned i = 0; !rc && i < d->nlimits; i++)
        rc = acreO_recover(
            c->b,
            limits_value(c, db, "olcLimits", d->file, &d->limits[i], diag),
            diag);
    /* back-mdb's indexes, whose candidates size.unchecked bounds */
    int mdb = d->type && !strcasecmp(d->type, "mdb");
    for (unsigned i = 0; !rc && mdb && i < d->ndbindex; i++)
        rc = acreO_recover(
            c->b,
            limits_value(c, db, "olcDbIndex", d->file, &d->dbindex[i], diag),
            diag);
    return rc;
}

static int
database_config(struct cc *c, const struct dbrec *d, struct acreI_section *db,
                acre_diag *diag)
{
    int rc = 0;

    db->subordinate = d->subordinate;
    for (unsigned i = 0; !rc && i < d->nsuffix; i++)
        rc = acreO_recover(c->b,
                           acreO_db_add_suffix(c->b, db, d->suffix[i].s,
                                               d->suffix[i].len, d->file,
                                               &d->suffix[i], 0, diag),
                           diag);
    if (!rc && d->rootdn)
        rc = acreO_recover(c->b,
                           acreO_db_set_rootdn(c->b, db, d->rootdn->s,
                                               d->rootdn->len, d->file,
                                               d->rootdn, 0, diag),
                           diag);
    if (!rc)
        rc = order_values(d->access, d->naccess, "olcAccess", d->file, diag);
    for (unsigned i = 0; !rc && i < d->naccess; i++)
        rc = acreO_recover(
            c->b, access_value(c, db, d->file, &d->access[i], diag), diag);
    if (!rc)
        rc = database_limits(c, d, db, diag);
    return rc;
}

/* The rule back-config uses when it has none: to * by * none. */
static int
config_default(struct cc *c, struct acreI_section *db, acre_diag *diag)
{
    static const char *const words[] = {"access", "to", "*", "by", "*", "none"};
    struct acreO_ptext toks[6];
    static unsigned zero[16];

    for (int i = 0; i < 6; i++)
        toks[i] = (struct acreO_ptext){(char *)words[i], strlen(words[i]), zero,
                                       zero};
    int rc = acreO_db_add_suffix(c->b, db, "cn=config", 9, NULL, NULL, 0, diag);
    if (!rc && db->nrules == 0)
        rc = acreO_db_add_rule(c->b, db, toks, 6, NULL, diag);
    return rc;
}

/* The olcCollectInfo values of the collect overlays of database d. */
static int
database_collect(struct cc *c, const struct dbrec *d, int db, acre_diag *diag)
{
    int rc = 0;

    for (unsigned i = 0; !rc && i < c->novs; i++) {
        const struct ovrec *o = &c->ovs[i];
        if (o->db != d->index || strcasecmp(o->type, "collect"))
            continue;
        for (unsigned k = 0; !rc && k < o->ninfo; k++) {
            struct acreO_ptext *toks;
            unsigned n;
            rc = acreO_tokenize_ldif(&c->lb, &o->info[k], &toks, &n, o->file,
                                     diag);
            if (rc ||
                (rc = name_token(c, "olcCollectInfo", &o->info[k], &toks[0])))
                break;
            rc = acreO_collect_add(c->b, db, toks, n, o->file, diag);
        }
    }
    return rc;
}

static int
build_databases(struct cc *c, acre_diag *diag)
{
    int rc = 0;

    sort_databases(c->dbs, c->ndbs);
    for (unsigned i = 0; !rc && i < c->ndbs; i++) {
        const struct dbrec *d = &c->dbs[i];
        struct acreI_pos pos = {d->file, d->line, 1};
        int front = !strcasecmp(d->type, "frontend");
        struct acreI_section *db =
            front ? &c->b->cfg->frontend
                  : acreO_db_new(c->b, d->type, pos, (int)d->index);
        if (!db)
            return ACRE_ERR_NOMEM;
        rc = database_config(c, d, db, diag);
        if (!rc)
            rc = database_collect(c, d, front ? -1 : (int)(db - c->b->cfg->dbs),
                                  diag);
        if (!rc && !front && !strcasecmp(d->type, "config"))
            rc = config_default(c, db, diag);
    }
    return rc;
}

int
acreO_parse_cnconfig(void *mem_ctx, acre_schema *schema, const char *path,
                     const char *text, size_t len, struct acreI_policy **out,
                     acre_diag *diag)
{
    return acreO_parse_cnconfig_all(mem_ctx, schema, path, text, len, out, diag,
                                    NULL);
}

int
acreO_parse_cnconfig_all(void *mem_ctx, acre_schema *schema, const char *path,
                         const char *text, size_t len,
                         struct acreI_policy **out, acre_diag *diag,
                         struct acreO_errors *errs)
{
    struct acreO_build b;
    struct cc c = {.b = &b, .schema = schema};
    struct stat st;
    int rc = acreO_build_start(mem_ctx, &b);
    char *buf;

    b.errs = errs;

    if (!rc && !(c.scratch = talloc_new(b.cfg)))
        rc = ACRE_ERR_NOMEM;
    acreO_lexbuf_init(&c.lb, c.scratch);
    const char *name = acreO_file_name(path);
    if (!rc && !text && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        rc = read_slapd_d(&c, path, diag);
    } else if (!rc) {
        if (!text && !(rc = acreO_read_file(c.scratch, path, &buf, &len, diag)))
            text = buf;
        int where = 0;
        if (!rc)
            rc = memberof_in(&c, name, text, len, &where, diag);
        if (!rc)
            rc = memberof_at(&c, name, where, 1, diag);
        if (!rc)
            rc = schema_text(&c, name, text, len, diag);
        if (!rc)
            rc = memberof_at(&c, name, where, 2, diag);
        if (!rc) {
            acreO_build_schema(&b, schema);
            if (!(c.seen = talloc_array(c.scratch, struct seen, 16)))
                rc = ACRE_ERR_NOMEM;
        }
        if (!rc)
            rc = read_records(&c, name, text, len, diag);
        if (!rc)
            rc = check_duplicates(&c, name, diag);
    }
    if (!rc)
        rc = build_databases(&c, diag);
    if (!rc)
        rc = acreO_check_glue(&b, diag);
    talloc_free(c.scratch);
    return acreO_build_finish(&b, acreO_errors_end(&b, rc, diag), out);
}
