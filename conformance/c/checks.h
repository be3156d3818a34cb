/* A case's result against its expectation (test_conformance.py's run_case and the
 * families' checks, mirrored): statuses and messages of errors, the properties and
 * every value of array results (exported, validated by Arrow C++), scalars, hashed
 * results, and the group_by, join and rank checks of their own. */
#ifndef CONFORMANCE_CHECKS_H
#define CONFORMANCE_CHECKS_H

#include "calls.h"

/* 1 when the result is what the case expects; else 0 with the reason in msg. */
int cr_check_result(const cr_call *call, const cr_result *result, char *msg, size_t size);

/* tables.c's checks of group_by's rows and join's pairs (exp: the case's expected). */
int cr_check_groups(const cr_call *call, const cr_result *result, const json *exp, char *msg,
                    size_t size);
int cr_check_pairs(const cr_call *call, const cr_result *result, const json *exp, char *msg,
                   size_t size);

/* A failed check: the message, printf-style, in msg; returns 0. */
int cr_fail(char *msg, size_t size, const char *fmt, ...);

/* am_status names ("AM_ETYPE"), and the status of a name (-1 if none). */
const char *cr_status_name(int rc);
int cr_status_of(const char *name);

#endif
