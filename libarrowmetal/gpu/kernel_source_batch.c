/* The batch interpreter's source (batch_interpreter.h): each key's kernel,
 * as kernel_source.c writes it, in a namespace of its own
 * (am_ks_emit_namespace) with its entry turned into a device function, then
 * the entry that runs op blockIdx.x. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/batch_interpreter.h"
#include "gpu/dialect.h"
#include "gpu/kernel_source_shared.h"

_Static_assert(sizeof(am_batch_op) == 8 + sizeof(am_gpu_args), "am_batch_op");
_Static_assert(sizeof(am_gpu_args) % 8 == 0, "am_gpu_args");
_Static_assert(sizeof(am_batch_params) <= 4096, "the 4 KB of kernel parameters");

int am_batch_source(am_err *err, const am_kernel_key *keys, int count, char **source) {
  if (count < 1 || count > AM_BATCH_OPS)
    return am_fail(err, AM_EINVAL, "a batch interpreter runs 1 to %d kernels, not %d", AM_BATCH_OPS,
                   count);
  am_sb sb;
  am_sb_init(&sb);
  char names[AM_BATCH_OPS][64];
  for (int i = 0; i < count; i++) {
    char *text = NULL;
    int status = am_kernel_source(err, AM_DIALECT_CUDA, &keys[i], &text);
    if (status != AM_OK) {
      free(am_sb_finish(&sb));
      return status;
    }
    am_kernel_name(&keys[i], names[i], sizeof names[i]);
    char *function = am_dialect_kernel_as_function(text, names[i]);
    free(text);
    if (!function) {
      free(am_sb_finish(&sb));
      return am_fail(err, AM_EUNSUPPORTED, "kernel %s cannot run in a batch interpreter", names[i]);
    }
    char ns[16];
    snprintf(ns, sizeof ns, "am_b%d", i);
    am_ks_emit_namespace(&sb, ns, function);
    free(function);
  }
  /* The parameter is read in place (__grid_constant__: no copy per thread);
   * each op's block is block 0 of 1 of its own kernel. */
  am_sb_printf(&sb,
               "struct am_batch_op {\n"
               "  unsigned int kernel, pad;\n"
               "  unsigned long long args[%d];\n"
               "};\n"
               "struct am_batch_params {\n"
               "  am_batch_op op[%d];\n"
               "};\n"
               "extern \"C\" __global__ void __launch_bounds__(%d, 1)\n"
               "%s(const __grid_constant__ am_batch_params p) {\n"
               "  const am_batch_op *o = &p.op[blockIdx.x];\n"
               "  switch (o->kernel) {\n",
               (int)(sizeof(am_gpu_args) / 8), AM_BATCH_OPS, AM_GPU_BLOCK, AM_BATCH_ENTRY);
  for (int i = 0; i < count; i++)
    am_sb_printf(&sb, "    case %du: am_b%d::%s(*(const am_b%d::Args *)o->args, 0u, 1u); break;\n",
                 i, i, names[i], i);
  am_sb_puts(&sb, "  }\n}\n");
  *source = am_sb_finish(&sb);
  return *source ? AM_OK : am_fail(err, AM_ENOMEM, "out of memory writing a batch interpreter");
}
