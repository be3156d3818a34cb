/* Unit test of the op table: every row is found by (family, op), names are
 * unique, unary rows name their am_unary_op, and lookups outside the table
 * give NULL. Exit status 0 = pass. */
#include <stdio.h>
#include <string.h>

#include "ops.h"

int main(void) {
  int failures = 0;
  for (int i = 0; i < am_op_count; i++) {
    const am_op_desc *row = &am_ops[i];
    if (am_op_find(row->family, row->op) != row) {
      printf("row %d (%s) is not found by family %d op %d\n", i, row->name, row->family, row->op);
      failures++;
    }
    for (int j = 0; j < i; j++)
      if (strcmp(am_ops[j].name, row->name) == 0) {
        printf("name %s twice\n", row->name);
        failures++;
      }
    if (row->family == AM_FAMILY_UNARY && strcmp(am_unary_op_name(row->op), row->name) != 0) {
      printf("unary row %s names op %d\n", row->name, row->op);
      failures++;
    }
  }
  failures += am_op_find(AM_FAMILY_COMPARE, 6) != NULL;
  failures += am_op_find(AM_FAMILY_UNARY, AM_UNARY_COUNT) != NULL;
  failures += am_op_find(AM_FAMILY_REDUCE, -1) != NULL;
  failures += am_op_find((am_function_family)99, 0) != NULL;
  failures += am_unary_op_name(AM_UNARY_COUNT) != NULL;
  printf("%d rows\n%s\n", am_op_count, failures ? "FAIL" : "ok");
  return failures != 0;
}
