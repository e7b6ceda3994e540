/*
 * cli.h -- what the subcommands of the acre command share.
 *
 * Exit codes (documented in acre(1)): 0 success, 1 the input had errors
 * (a DN, rule or file that does not parse), 2 usage or system errors.
 * `acre search` exits as ldapsearch does, with the search's LDAP result
 * code, so its input and usage errors take codes no result code takes
 * (LDAP's are 0-123; ldapsearch's own client errors 239-255).
 */
#ifndef ACRE_CLI_H
#define ACRE_CLI_H

#include <stdio.h>

#define CLI_EXIT_OK    0
#define CLI_EXIT_INPUT 1
#define CLI_EXIT_USAGE 2

#define CLI_SEARCH_EXIT_INPUT 200 /* acre search: CLI_EXIT_INPUT */
#define CLI_SEARCH_EXIT_USAGE 201 /* acre search: CLI_EXIT_USAGE */

struct cli_cmd {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
    void (*help)(FILE *f);
};

int cmd_dn(int argc, char **argv);
void help_dn(FILE *f);
int cmd_search(int argc, char **argv);
void help_search(FILE *f);
int cmd_explain(int argc, char **argv);
void help_explain(FILE *f);
int cmd_lint(int argc, char **argv);
void help_lint(FILE *f);
int cmd_compile(int argc, char **argv);
void help_compile(FILE *f);

#endif /* ACRE_CLI_H */
