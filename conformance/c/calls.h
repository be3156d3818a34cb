/* The op table: a case's op name -> the C call that runs it (test_conformance.py's
 * call() and the families' call()s, mirrored). Functions of the table-driven
 * families (am_unary, am_binary, am_logic, ...) are found by name in the library's
 * own list (am_function_info_get), so a new one needs no change here. */
#ifndef CONFORMANCE_CALLS_H
#define CONFORMANCE_CALLS_H

#include <arrowmetal.h>

#include "inputs.h"
#include "json.h"

#define CR_MAX_OUT 64
#define CR_SENTINEL_TYPE (-7)

typedef enum { CR_OUT_ARRAY, CR_OUT_SCALARS, CR_OUT_ARRAYS } cr_out_kind;

typedef struct {
  const char *fname; /* the am_ function called */
  int rc;
  cr_out_kind kind;
  int n;                        /* outputs */
  am_array *arrays[CR_MAX_OUT]; /* CR_OUT_ARRAY (arrays[0]) and CR_OUT_ARRAYS */
  am_scalar scalars[2];         /* CR_OUT_SCALARS; the sentinel type until written */
  char problem[512];            /* a check the adapter itself makes (dictionary results) */
  cr_counter import_counter;    /* dictionary_from_arrays: its am_import's array's releases */
} cr_result;

typedef struct {
  const json *c; /* the case's index entry */
  const json *params;
  const char *op, *form;
  cr_inputs *in;
  am_device *device;
  cr_store *store;
} cr_call;

/* Reads the library's function list; call once before cr_run_call. */
int cr_calls_init(char *err, size_t err_size);

/* Makes the case's call. Returns 0, or -1 when the runner has no call for the op or
 * the case is malformed (the reason in result->problem). */
int cr_run_call(const cr_call *call, cr_result *result);

/* Whether the table has a call for an op. */
int cr_has_call(const char *op);

/* Whether a case's outputs are scalars (the reductions and count_distinct). */
int cr_case_is_scalar(const char *op);

/* Releases every handle the call wrote. */
void cr_result_release(cr_result *result);

#endif
