/*
 * aci_ldif.c -- the ACI dialect's policy from an LDIF content file: every
 * `aci` value of every entry, parsed by acreA_parse_value, in file order,
 * into an acreI_policy of model ACREI_MODEL_ACI.
 *
 * The file is read by the engine's LDIF reader (engine/ldif.h: folding,
 * base64, comments).  An entry's DN is parsed against the policy's schema;
 * each `aci` value (the description "aci", any case, no options) is
 * parsed with its position: the physical line and column of its first
 * byte, and on error the position of the offending byte is mapped back
 * through the folds of the value (a base64 value has no column: its
 * errors name the line of the attribute).
 *
 * Invariant: on any error the whole policy is freed and *ir untouched.
 */
#include "aci.h"
#include "internal.h"

#include "dn.h"
#include "ldif.h"
#include "schema.h"

#include <string.h>
#include <strings.h>
#include <talloc.h>

struct lines {
    const char *text;
    size_t len;
    size_t *start; /* start[l] = offset of line l (1-based) */
    unsigned n;
};

static int
line_starts(void *ctx, const char *text, size_t len, struct lines *L)
{
    unsigned n = 1;

    for (size_t i = 0; i < len; i++)
        n += text[i] == '\n';
    if (!(L->start = talloc_array(ctx, size_t, n + 2)))
        return ACRE_ERR_NOMEM;
    L->text = text;
    L->len = len;
    L->n = n;
    L->start[1] = 0;
    for (size_t i = 0, l = 1; i < len; i++)
        if (text[i] == '\n')
            L->start[++l] = i + 1;
    return 0;
}

/* The physical line and column of byte `off` of value av (col 0 when the
 * value was base64 or starts on a continuation line). */
static void
position(const struct lines *L, const struct acreL_attrval *av, size_t off,
         unsigned *line, unsigned *col)
{
    unsigned ln = av->line, c = av->col;

    *line = ln;
    *col = 0;
    if (!c || ln > L->n)
        return;
    size_t raw = L->start[ln] + c - 1;
    for (size_t i = 0; i < off; i++) {
        raw++;
        c++;
        size_t k = raw + (raw < L->len && L->text[raw] == '\r');
        if (k + 1 < L->len && L->text[k] == '\n' && L->text[k + 1] == ' ') {
            raw = k + 2;
            ln++;
            c = 2;
        }
    }
    *line = ln;
    *col = c;
}

struct acc {
    struct acreI_policy *ir;
    struct acreI_aci *acis;
    unsigned n, cap;
    struct acreA_lint *lint;      /* lint mode: errors and unknown names */
    unsigned run_first, run_prev; /* the run of '#' lines being read */
};

/* Lint mode: keep the error in diag (at most ACREA_LINT_MAX_ERRORS);
 * returns 0 to go on, or the code when reading must stop. */
static int
keep_error(struct acc *A, int rc, const acre_diag *diag)
{
    struct acreA_lint *lint = A->lint;

    if (rc == ACRE_ERR_NOMEM)
        return rc;
    if (lint->nerrs == ACREA_LINT_MAX_ERRORS)
        return 0;
    size_t cap = talloc_array_length(lint->errs);
    if (lint->nerrs == cap) {
        acre_diag *v =
            talloc_realloc(lint->ctx, lint->errs, acre_diag, cap ? 2 * cap : 8);
        if (!v)
            return ACRE_ERR_NOMEM;
        lint->errs = v;
    }
    lint->errs[lint->nerrs] = *diag;
    if (!lint->errs[lint->nerrs].code)
        lint->errs[lint->nerrs].code = rc;
    lint->nerrs++;
    return 0;
}

static int
one_value(struct acc *A, const struct lines *L, const char *path,
          const acre_dn *holder, unsigned index, const struct acreL_attrval *av,
          int variant, acre_diag *diag)
{
    struct acreI_pos at = {path, av->line, av->col};
    struct acreI_aci a;
    acre_diag mine;
    unsigned first = A->lint ? A->lint->nunk : 0;

    if (A->lint && !diag) {
        memset(&mine, 0, sizeof(mine));
        diag = &mine;
    }

    if (A->n == A->cap) {
        unsigned cap = A->cap ? 2 * A->cap : 16;
        struct acreI_aci *v =
            talloc_realloc(A->ir, A->acis, struct acreI_aci, cap);
        if (!v)
            return ACRE_ERR_NOMEM;
        A->acis = v;
        A->cap = cap;
    }
    int rc = acreA_parse_value_lint(A->ir, A->ir->schema, holder, index,
                                    (const char *)av->val, av->len, variant,
                                    &at, &a, diag, A->lint);
    if (rc && diag && diag->code != ACRE_ERR_NOMEM) {
        unsigned line, col;
        position(L, av, diag->offset, &line, &col);
        diag->line = line;
        diag->column = col;
    }
    if (!rc)
        A->acis[A->n++] = a;
    for (unsigned k = first; !rc && A->lint && k < A->lint->nunk; k++) {
        struct acreA_unknown *u = &A->lint->unk[k];
        u->aci = A->n - 1;
        position(L, av, u->off, &u->pos.line, &u->pos.column);
    }
    if (rc && A->lint)
        return keep_error(A, rc, diag);
    return rc;
}

static int
record(struct acc *A, const struct lines *L, const char *path,
       const struct acreL_record *rec, int variant, acre_diag *diag)
{
    acre_dn *dn = NULL;
    unsigned index = 0;
    acre_diag d;

    for (size_t i = 0; i < rec->nvals; i++) {
        const struct acreL_attrval *av = &rec->vals[i];
        if (!acreL_desc_is(av, "aci"))
            continue;
        if (!dn) {
            int rc = acre_dn_parse(A->ir, A->ir->schema, rec->dn, rec->dn_len,
                                   0, &dn, &d);
            if (rc) {
                d.file = path;
                d.line = rec->line;
                /* the offending byte's column when it is on the dn:
                 * line itself (not base64, not past a fold) */
                d.column = rec->dn_col && d.offset < rec->dn_span
                               ? rec->dn_col + (unsigned)d.offset
                               : 0;
                if (diag)
                    *diag = d;
                /* lint mode: the entry's values are left out */
                return A->lint ? keep_error(A, rc, &d) : rc;
            }
        }
        int rc = one_value(A, L, path, dn, index++, av, variant, diag);
        if (rc)
            return rc;
    }
    return 0;
}

static struct acreI_policy *
new_policy(void *ctx, acre_schema *schema, int variant)
{
    struct acreI_policy *ir = talloc_zero(ctx, struct acreI_policy);
    struct acreI_aci_set *set =
        ir ? talloc_zero(ir, struct acreI_aci_set) : NULL;

    if (!set) {
        talloc_free(ir);
        return NULL;
    }
    ir->magic = ACREI_POLICY_MAGIC;
    ir->model = ACREI_MODEL_ACI;
    ir->schema = schema ? acreS_freeze(schema) : acreS_builtin();
    ir->frontend.type = "frontend";
    ir->frontend.index = -1;
    set->variant = variant;
    ir->aci = set;
    return ir;
}

/* Lint mode: the '#' lines, for the "# acre-lint:" marks above an aci
 * line (runs of consecutive comment lines, as the OpenLDAP readers keep
 * them: a mark's `end` is the last line of its run). */
static void
end_run(struct acc *A)
{
    struct acreI_policy *ir = A->ir;

    for (unsigned k = A->run_first; A->run_prev && k < ir->nlintmarks; k++)
        ir->lintmarks[k].end = A->run_prev;
}

static int
on_comment(void *arg, unsigned line, const char *s, size_t n)
{
    static const char key[] = "acre-lint:";
    struct acc *A = arg;
    struct acreI_policy *ir = A->ir;
    size_t i = 1;

    if (!A->run_prev || line != A->run_prev + 1) {
        end_run(A);
        A->run_first = ir->nlintmarks;
    }
    A->run_prev = line;
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
        i++;
    if (n - i < sizeof(key) - 1 || strncmp(s + i, key, sizeof(key) - 1))
        return 0;
    size_t cap = talloc_array_length(ir->lintmarks);
    if (ir->nlintmarks == cap) {
        struct acreI_lintmark *v = talloc_realloc(
            ir, ir->lintmarks, struct acreI_lintmark, cap ? 2 * cap : 8);
        if (!v)
            return ACRE_ERR_NOMEM;
        ir->lintmarks = v;
    }
    char *text = talloc_strndup(ir, s + 1, n - 1);
    if (!text)
        return ACRE_ERR_NOMEM;
    ir->lintmarks[ir->nlintmarks++] =
        (struct acreI_lintmark){NULL, text, n - 1, 0};
    return 0;
}

static int
parse_ldif(void *ctx, acre_schema *schema, const char *path, const char *text,
           size_t len, int variant, struct acreA_lint *lint,
           struct acreI_policy **ir, acre_diag *diag)
{
    struct acc A = {0};
    struct lines L;
    struct acreL_reader *r;
    struct acreL_record rec;
    int rc;

    if (!text || !ir ||
        (variant != ACREI_ACI_389 && variant != ACREI_ACI_OPENDJ))
        return ACRE_ERR_INVAL;
    if (!(A.ir = new_policy(ctx, schema, variant)))
        return ACRE_ERR_NOMEM;
    A.lint = lint;
    void *scratch = talloc_new(A.ir);
    rc = scratch ? line_starts(scratch, text, len, &L) : ACRE_ERR_NOMEM;
    if (!rc)
        rc = acreL_open(scratch, NULL, text, len, path, &r);
    if (!rc && lint)
        acreL_on_comment(r, on_comment, &A);
    while (!rc && (rc = acreL_next(r, &rec, diag)) == 1)
        rc = record(&A, &L, path, &rec, variant, diag);
    talloc_free(scratch);
    if (lint && rc < 0 && rc != ACRE_ERR_NOMEM) {
        acre_diag d;
        if (diag)
            d = *diag;
        else
            memset(&d, 0, sizeof(d));
        rc = keep_error(&A, rc, &d); /* an LDIF error ends the file */
    }
    if (lint) {
        end_run(&A);
        for (unsigned k = 0; k < A.ir->nlintmarks; k++)
            A.ir->lintmarks[k].file = path;
    }
    if (rc < 0) {
        if (diag && rc == ACRE_ERR_NOMEM)
            diag->code = rc;
        else if (diag && diag->code == 0)
            diag->code = rc;
        talloc_free(A.ir);
        return rc;
    }
    ((struct acreI_aci_set *)A.ir->aci)->acis = A.acis;
    ((struct acreI_aci_set *)A.ir->aci)->n = A.n;
    *ir = A.ir;
    return lint && lint->nerrs ? lint->errs[0].code : 0;
}

int
acreA_parse_ldif(void *ctx, acre_schema *schema, const char *path,
                 const char *text, size_t len, int variant,
                 struct acreI_policy **ir, acre_diag *diag)
{
    return parse_ldif(ctx, schema, path, text, len, variant, NULL, ir, diag);
}

int
acreA_parse_ldif_lint(void *ctx, acre_schema *schema, const char *path,
                      const char *text, size_t len, int variant,
                      struct acreA_lint *lint, struct acreI_policy **ir)
{
    acre_diag d;

    memset(&d, 0, sizeof(d));
    return parse_ldif(ctx, schema, path, text, len, variant, lint, ir, &d);
}
