/* am_aggregate on a GPU: the kernel that measures each op, its launch, and
 * -- once the work has finished, which inside a batch is at the batch's end
 * (gpu/submit.c) -- the status block read back into am_agg_stats, from which
 * am_agg_finish (core/aggregate.c, the CPU's too) writes the result. */
#include <string.h>

#include "core/aggregate.h"
#include "core/types.h"
#include "gpu/resident_ops.h"
#include "gpu/submit.h"

static uint64_t address(const void *pointer) { return (uint64_t)(uintptr_t)pointer; }

/* any, all and the product of bool count the true valid slots: REDUCE SUM
 * of bool does. stddev measures what variance does. */
static am_kernel_key key_of(const am_agg_spec *spec) {
  am_kernel_key key = {AM_KERNEL_AGGREGATE, (int)spec->op, spec->type, AM_TYPE_INVALID};
  if (spec->type == AM_BOOL &&
      (spec->op == AM_AGG_ANY || spec->op == AM_AGG_ALL || spec->op == AM_AGG_PRODUCT)) {
    key.kind = AM_KERNEL_REDUCE;
    key.op = AM_REDUCE_SUM;
  } else if (spec->op == AM_AGG_STDDEV) {
    key.op = AM_AGG_VARIANCE;
  }
  return key;
}

/* The value index looks for, in am_gpu_args.scalar's form: integers in 64
 * bits, floats as double bits (float32's already rounded to float32 by the
 * ABI, so the kernel's narrowing is exact), bool 0/1. */
static uint64_t scalar_bits(const am_scalar *value, am_type type) {
  if (am_type_is_float(type)) {
    uint64_t bits;
    memcpy(&bits, &value->f64, sizeof bits);
    return bits;
  }
  return am_type_is_unsigned(type) ? value->u64 : (uint64_t)value->i64;
}

int am_gpu_aggregate(am_err *err, const am_agg_spec *spec, const am_array *array, am_scalar *out,
                     am_scalar *out2) {
  am_gpu_op op;
  memset(&op, 0, sizeof op);
  op.slot = -1;
  op.call = err->entry;
  op.check = AM_GPU_CHECK_AGGREGATE;
  op.type = array->type;
  op.result_type = spec->result_type;
  op.agg = *spec;
  op.scalar_out = out;
  op.scalar_out2 = out2;
  op.tag = am_runtime_scalar_tag();
  op.immediate = am_runtime_wait_now();
  am_gpu_args args;
  memset(&args, 0, sizeof args);
  args.in0 = address(array->data);
  args.valid0 = atomic_load_explicit(&((am_array *)array)->null_count, memory_order_relaxed) == 0
                    ? 0
                    : address(array->validity);
  args.off0 = array->offset;
  args.n = array->length;
  if (spec->op == AM_AGG_INDEX) args.scalar = scalar_bits(&spec->value, array->type);
  am_kernel_key key = key_of(spec);
  am_gpu_device *gpu = am_gpu_of(array->device);
  int taken = 0;
  int status = am_gpu_resident_run(err, gpu, &op, &key, &args, &taken);
  if (status != AM_OK || taken) return status;
  return am_gpu_run_op(err, gpu, &op, 1, &key, &args, 1);
}

/* A value of type `type` held in status words as REDUCE's MIN/MAX hold it. */
static am_scalar element(am_type type, uint64_t bits) {
  am_scalar s;
  memset(&s, 0, sizeof s);
  s.type = type;
  if (am_type_is_float(type))
    memcpy(&s.f64, &bits, sizeof s.f64);
  else if (am_type_is_unsigned(type))
    s.u64 = bits;
  else
    s.i64 = (int64_t)bits;
  return s;
}

void am_gpu_finish_aggregate(const am_gpu_op *op, const am_gpu_status *status) {
  const am_agg_spec *spec = &op->agg;
  am_agg_stats stats;
  memset(&stats, 0, sizeof stats);
  stats.position = -1;
  stats.count = (int64_t)status->count;
  am_type type = spec->type;
  switch (spec->op) {
    case AM_AGG_ANY:
    case AM_AGG_ALL:
      stats.trues = status->value;
      break;
    case AM_AGG_PRODUCT:
      if (type == AM_BOOL)
        stats.trues = status->value;
      else
        stats.a = element(am_type_is_float(type) ? AM_FLOAT64 : type, status->value);
      break;
    case AM_AGG_MIN_MAX:
      stats.nan_count = (int64_t)status->nan_count;
      stats.a = element(type, status->value);
      stats.b = element(type, status->value_hi);
      break;
    case AM_AGG_VARIANCE:
    case AM_AGG_STDDEV:
      memcpy(&stats.mean, &status->value, sizeof stats.mean);
      memcpy(&stats.m2, &status->value_hi, sizeof stats.m2);
      break;
    case AM_AGG_FIRST:
    case AM_AGG_LAST:
      if (stats.count > 0) {
        stats.a = element(type, status->value);
        stats.position = (int64_t)status->value_hi;
      }
      break;
    case AM_AGG_INDEX:
      stats.position = status->value_hi == UINT64_MAX ? -1 : (int64_t)status->value_hi;
      break;
    default:
      break;
  }
  am_agg_finish(spec, &stats, op->scalar_out, op->scalar_out2);
}
