/*
 * fuzz_subtree_spec.c -- libFuzzer target for the RFC 3672
 * subtreeSpecification parser (compiler/subentry.c).
 *
 * Beyond "never crash, never leak, never read out of bounds" (ASan/UBSan)
 * and bounded time, it checks on every input:
 *   - a rejected input has a syntax, limit or memory error code, a column
 *     within the input (or one past its end, or one past the text limit)
 *     and a message;
 *   - an accepted input keeps its bounds: refinements nested at most
 *     ACREU_MAX_DEPTH deep, at most ACREU_MAX_ITEMS chops and refinement
 *     nodes, no empty chop name, a NOT with exactly one operand;
 *   - an accepted input formats to a text that parses again and formats
 *     to the same text (the round trip of subentry.h).
 * Any violation aborts, which libFuzzer reports with the input.
 */
#include <acre.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <talloc.h>

#include "subentry.h"

static void
check(int cond)
{
    if (!cond)
        abort();
}

/* Walk a refinement: its depth in operators and its node count. */
static void
walk(const struct acreU_refine *r, unsigned level, unsigned *nodes)
{
    check(r != NULL);
    ++*nodes;
    switch (r->kind) {
    case ACREU_ITEM:
    case ACREU_FILTER:
        check(r->text && *r->text && r->nsub == 0);
        return;
    case ACREU_NOT:
        check(r->nsub == 1);
        break;
    case ACREU_AND:
    case ACREU_OR:
        break;
    default:
        abort();
    }
    check(level < ACREU_MAX_DEPTH);
    for (unsigned k = 0; k < r->nsub; k++)
        walk(r->sub[k], level + 1, nodes);
}

static void
check_spec(const struct acreU_spec *s)
{
    unsigned nodes = 0;

    check(s->base != NULL);
    for (unsigned k = 0; k < s->nchops; k++)
        check(s->chops[k].local && *s->chops[k].local &&
              (s->chops[k].after == 0 || s->chops[k].after == 1));
    if (s->refine)
        walk(s->refine, 0, &nodes);
    check(s->nchops + nodes <= ACREU_MAX_ITEMS);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    void *ctx = talloc_new(NULL);
    struct acreU_spec *a = NULL, *b = NULL;
    unsigned col = 0;
    const char *msg = NULL;
    char *t1, *t2;
    int rc = acreU_spec_parse(ctx, (const char *)data, size, &a, &col, &msg);

    if (rc) {
        check(rc == ACRE_ERR_RULE_SYNTAX || rc == ACRE_ERR_RULE_LIMIT ||
              rc == ACRE_ERR_NOMEM);
        check(a == NULL);
        if (rc != ACRE_ERR_NOMEM) {
            check(msg && *msg);
            check(col >= 1 && (col <= size + 1 || (size > ACREU_MAX_TEXT &&
                                                   col == ACREU_MAX_TEXT + 1)));
        }
        talloc_free(ctx);
        return 0;
    }
    check(a != NULL);
    check_spec(a);
    t1 = acreU_spec_format(ctx, a);
    check(t1 != NULL);
    rc = acreU_spec_parse(ctx, t1, strlen(t1), &b, &col, &msg);
    check(rc == 0);
    t2 = acreU_spec_format(ctx, b);
    check(t2 != NULL && strcmp(t1, t2) == 0);
    check(a->minimum == b->minimum && a->maximum == b->maximum &&
          a->nchops == b->nchops && strcmp(a->base, b->base) == 0);
    talloc_free(ctx);
    return 0;
}
