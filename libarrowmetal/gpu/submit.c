/* Submission and completion, written once for every GPU backend.
 *
 * Every op runs on the device's one queue. An op takes the timeline's commit
 * lock while it enqueues its launches (multi-launch ops share the device's
 * scratch area), and outside a batch also takes a completion value and
 * enqueues its mark; it then waits on the timeline and checks what its
 * kernels reported. Inside a batch the checks are deferred to the thread's
 * batch record and run after the one wait at the batch's end (or at am_wait
 * for a committed batch). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/ops.h"
#include "core/runtime.h"
#include "core/types.h"
#include "gpu/submit.h"

/* This thread's open batch: the device it is on and its deferred checks. */
typedef struct thread_batch {
  am_gpu_device *gpu;
  int enqueued;
  am_gpu_op *ops;
  int count, capacity;
} thread_batch;

static _Thread_local thread_batch batch;

/* Batches committed without a wait, by ticket (= their completion value). */
typedef struct committed_batch {
  am_gpu_device *gpu;
  uint64_t value;
  am_gpu_op *ops;
  int count;
  struct committed_batch *next;
} committed_batch;

static pthread_mutex_t committed_lock = PTHREAD_MUTEX_INITIALIZER;
static committed_batch *committed;

/* ---- The timeline */

/* With the commit lock held and the context entered: the value that marks
 * everything enqueued so far, and its mark. */
static int mark(am_err *err, am_gpu_device *gpu, uint64_t *value) {
  *value = am_timeline_take(&gpu->timeline);
  return gpu->hooks->mark(err, gpu, *value);
}

/* Marks everything enqueued so far with a fresh value. */
static int mark_now(am_err *err, am_gpu_device *gpu, uint64_t *value) {
  int token = gpu->hooks->enter(gpu);
  am_timeline_lock(&gpu->timeline);
  int status = mark(err, gpu, value);
  am_timeline_unlock(&gpu->timeline);
  gpu->hooks->leave(gpu, token);
  return status;
}

void am_gpu_mark_broken(am_gpu_device *gpu, const char *message) {
  /* The message is written before the flag is published, under a lock so
   * that only the first failure writes it. */
  pthread_mutex_lock(&gpu->status_lock);
  if (!atomic_load_explicit(&gpu->broken, memory_order_relaxed)) {
    snprintf(gpu->broken_message, sizeof gpu->broken_message, "%s", message);
    atomic_store_explicit(&gpu->broken, 1, memory_order_release);
  }
  pthread_mutex_unlock(&gpu->status_lock);
}

/* A kernel fault poisons the device; later work is refused instead of run
 * on a broken one. A backend whose queue reports failures asynchronously
 * (Metal's command buffer status) marks the device broken and then raises
 * the timeline so that no waiter hangs: a value reached on a broken device
 * is a failure too. */
static int wait_value(am_err *err, am_gpu_device *gpu, uint64_t value) {
  int status = am_timeline_wait(err, &gpu->timeline, value);
  if (status != AM_OK) {
    am_gpu_mark_broken(gpu, err->message);
    return status;
  }
  return am_gpu_check_broken(err, gpu);
}

/* Ops outside a batch wait for their own work, so a sync after them
 * usually finds the queue empty: then it returns without a mark. */
static int queue_idle(am_gpu_device *gpu) {
  if (!gpu->hooks->idle) return 0;
  int token = gpu->hooks->enter(gpu);
  am_timeline_lock(&gpu->timeline);
  int idle = gpu->hooks->idle(gpu, 1);
  am_timeline_unlock(&gpu->timeline);
  gpu->hooks->leave(gpu, token);
  return idle;
}

/* A broken device answers at once: its queue may never drain (a kernel
 * stopped by the watchdog may still be running). */
int am_gpu_synchronize(am_err *err, am_gpu_device *gpu) {
  int status = am_gpu_check_broken(err, gpu);
  if (status != AM_OK || queue_idle(gpu)) return status;
  uint64_t value = 0;
  status = mark_now(err, gpu, &value);
  return status == AM_OK ? wait_value(err, gpu, value) : status;
}

int am_gpu_sync(am_err *err, am_device *device) {
  return am_gpu_synchronize(err, am_gpu_of(device));
}

/* ---- Checks that run once an op's work has finished */

/* The 128-bit two's complement value high:low as a double. Sums that fit
 * 64 bits convert exactly (adding 2^64-scale halves would cancel away small
 * negative values); larger ones round once per half. */
static double wide_to_double(uint64_t low, uint64_t high) {
  int64_t top = (int64_t)high;
  if ((top == 0 && low <= (uint64_t)INT64_MAX) || (top == -1 && low > (uint64_t)INT64_MAX))
    return (double)(int64_t)low;
  return ldexp((double)top, 64) + (double)low;
}

/* The scalar's type is the ABI's decision (op->result_type); the status
 * block holds the value in the input type's terms. */
static void finish_scalar(const am_gpu_op *op, const am_gpu_status *status) {
  am_scalar scalar;
  memset(&scalar, 0, sizeof scalar);
  am_type type = op->type;
  scalar.type = op->result_type;
  if (status->count == 0) {
    scalar.is_null = 1;
  } else if (op->reduce == AM_REDUCE_MEAN) {
    double count = (double)status->count;
    double bits_value;
    memcpy(&bits_value, &status->value, sizeof bits_value);
    scalar.f64 =
        am_type_is_float(type) ? bits_value / count
        : am_type_is_signed(type)
            ? wide_to_double(status->value, status->value_hi) / count
            : ((double)status->value_hi * 18446744073709551616.0 + (double)status->value) / count;
  } else if (am_type_is_float(scalar.type)) {
    memcpy(&scalar.f64, &status->value, sizeof scalar.f64);
    if (op->reduce != AM_REDUCE_SUM && status->nan_count == status->count) scalar.f64 = NAN;
  } else if (am_type_is_unsigned(scalar.type)) {
    scalar.u64 = status->value;
  } else {
    scalar.i64 = (int64_t)status->value;
  }
  *op->scalar_out = scalar;
}

/* The value at `index` of the culprit buffer, as text for the message. */
static void read_culprit(am_gpu_device *gpu, const am_gpu_op *op, uint64_t index, char *text,
                         size_t capacity) {
  int bytes = am_type_bits(op->culprit_type) / 8;
  uint64_t raw = 0;
  am_err ignored;
  am_err_init(&ignored, op->call);
  int token = gpu->hooks->enter(gpu);
  int status = gpu->hooks->read(
      &ignored, gpu, &raw,
      op->culprit_address + (uint64_t)((op->culprit_offset + (int64_t)index) * bytes), bytes);
  gpu->hooks->leave(gpu, token);
  if (status != AM_OK) {
    snprintf(text, capacity, "?");
    return;
  }
  am_value_text(op->culprit_type, &raw, text, capacity); /* the low bytes: little-endian */
}

/* An error a kernel reported, as a failure of the call that made the op
 * (which may not be the call reporting it: am_batch_end). */
static int finish_error(am_err *err, am_gpu_device *gpu, const am_gpu_op *op,
                        const am_gpu_status *status) {
  if (status->error_index == UINT64_MAX) return AM_OK;
  /* Metal kernels report slots above 2^32 - 3 as 0xFFFFFFFE ("there or
   * later", kernels.h): the slot, and so the culprit value, is not known. */
  int saturated = gpu->dialect == AM_DIALECT_MSL && status->error_index == 0xfffffffeu;
  char value[64] = "?";
  uint64_t slot = status->error_index;
  const am_unary_check *failure = NULL;
  if (op->failures) { /* a binary op's report carries which failure it is */
    failure = &op->failures->failure[saturated ? 0 : slot & 1];
    if (!saturated) slot = (uint64_t)op->bound - 1 - (slot >> 1);
  }
  if (op->culprit && !saturated) read_culprit(gpu, op, slot, value, sizeof value);
  err->origin = op->call;
  if (failure)
    return am_fail(err, failure->status, "%s (%s at slot %llu%s, left value %s)", failure->message,
                   op->op_name, (unsigned long long)slot, saturated ? " or earlier" : "", value);
  int code = op->error_code;
  if (code == AM_EZERODIV) return am_fail(err, code, "divide by zero");
  if (op->message)
    return am_fail(err, code, "%s (value %s at slot %llu%s)", op->message, value,
                   (unsigned long long)status->error_index, saturated ? " or later" : "");
  if (code == AM_EINDEX)
    return am_fail(err, code, "index %s%s out of bounds for length %lld", value,
                   saturated ? " (at slot 4294967294 or later)" : "", (long long)op->bound);
  return am_fail(err, code, "value %s at slot %llu%s does not fit %s", value,
                 (unsigned long long)status->error_index, saturated ? " or later" : "",
                 am_type_name((am_type)op->bound));
}

/* Runs the check of a finished op and frees what it held. */
static int finish(am_err *err, am_gpu_device *gpu, am_gpu_op *op) {
  int status = AM_OK;
  if (op->slot >= 0) {
    const am_gpu_status *result = &gpu->status[op->slot];
    if (op->check == AM_GPU_CHECK_SCALAR) {
      finish_scalar(op, result);
      am_scalar_tag_apply(&op->tag, op->scalar_out);
    } else if (op->check == AM_GPU_CHECK_ERROR)
      status = finish_error(err, gpu, op, result);
    else if (op->check == AM_GPU_CHECK_FILTER)
      op->result->length = (int64_t)result->count;
    else if (op->check == AM_GPU_CHECK_COUNT)
      *op->count_out = (int64_t)result->count;
    else if (op->check == AM_GPU_CHECK_AGGREGATE) {
      am_gpu_finish_aggregate(op, result);
      am_scalar_tag_apply(&op->tag, op->scalar_out);
      am_scalar_tag_apply(&op->tag, op->scalar_out2);
    }
  }
  am_buffer_release(op->culprit);
  am_gpu_status_release(gpu, op->slot);
  return status;
}

int am_gpu_op_finish(am_err *err, am_gpu_device *gpu, am_gpu_op *op) {
  return finish(err, gpu, op);
}

/* Finishes every op; the first failure is the one reported. */
static int finish_all(am_err *err, am_gpu_device *gpu, am_gpu_op *ops, int count) {
  int first = AM_OK;
  for (int i = 0; i < count; i++) {
    am_err op_err;
    am_err_init(&op_err, err->entry);
    int status = finish(&op_err, gpu, &ops[i]);
    am_err_merge(err, &op_err, status != AM_OK && first == AM_OK);
    if (status != AM_OK && first == AM_OK) first = status;
  }
  return first;
}

/* Waits for everything enqueued so far and finishes `ops` without reporting
 * their results (the submission already failed). */
static void abandon(const am_err *err, am_gpu_device *gpu, am_gpu_op *ops, int count) {
  am_err ignored;
  am_err_init(&ignored, err->entry);
  am_gpu_synchronize(&ignored, gpu);
  finish_all(&ignored, gpu, ops, count);
}

/* ---- Ops */

int am_gpu_op_begin(am_err *err, am_gpu_device *gpu, int *token) {
  int status = am_gpu_check_broken(err, gpu);
  if (status != AM_OK) return status;
  /* One open batch per thread and device: work for another device ends the
   * deferred part of the first (results stay exact, the saving shrinks). */
  if (batch.gpu && batch.gpu != gpu) {
    uint64_t ignored = 0;
    status = am_gpu_flush(err, batch.gpu->device, 1, &ignored);
    if (status != AM_OK) return status;
  }
  *token = gpu->hooks->enter(gpu);
  am_timeline_lock(&gpu->timeline);
  return AM_OK;
}

int am_gpu_launch(am_err *err, am_gpu_device *gpu, const am_kernel_key *key, am_gpu_args *args) {
  void *kernel = NULL;
  int status = am_gpu_kernel(err, gpu, key, &kernel);
  if (status != AM_OK) return status;
  int blocks = am_kernel_blocks(key, args->n, gpu->multiprocessors);
  /* A batch waits once, at its end: its launches may go out together. */
  if (gpu->hooks->launch_deferred && am_runtime_batch_depth() > 0)
    return gpu->hooks->launch_deferred(err, gpu, key, kernel, blocks, args);
  return gpu->hooks->launch(err, gpu, kernel, blocks, args);
}

static int defer(am_err *err, am_gpu_device *gpu, const am_gpu_op *op) {
  if (batch.count == batch.capacity) {
    int capacity = batch.capacity ? batch.capacity * 2 : 16;
    am_gpu_op *grown = realloc(batch.ops, (size_t)capacity * sizeof *grown);
    if (!grown) return am_fail(err, AM_ENOMEM, "out of memory");
    batch.ops = grown;
    batch.capacity = capacity;
  }
  batch.gpu = gpu;
  batch.ops[batch.count++] = *op;
  return AM_OK;
}

int am_gpu_op_end(am_err *err, am_gpu_device *gpu, int token, int launch_status, am_gpu_op *op) {
  if (launch_status == AM_OK && !op->immediate && am_runtime_batch_depth() > 0) {
    batch.gpu = gpu;
    batch.enqueued = 1;
    int status = op->check == AM_GPU_CHECK_NONE ? AM_OK : defer(err, gpu, op);
    am_timeline_unlock(&gpu->timeline);
    gpu->hooks->leave(gpu, token);
    if (status != AM_OK) abandon(err, gpu, op, 1);
    return status;
  }
  uint64_t value = 0;
  int status = launch_status == AM_OK ? mark(err, gpu, &value) : launch_status;
  am_timeline_unlock(&gpu->timeline);
  gpu->hooks->leave(gpu, token);
  if (status != AM_OK) {
    /* Even a failed launch sequence may have started kernels that write the
     * op's status: they finish before the slot is reused. */
    abandon(err, gpu, op, 1);
    return status;
  }
  status = wait_value(err, gpu, value);
  if (status != AM_OK) {
    abandon(err, gpu, op, 1);
    return status;
  }
  return finish(err, gpu, op);
}

/* ---- Batches */

int am_gpu_flush(am_err *err, am_device *device, int wait, uint64_t *ticket) {
  am_gpu_device *gpu = am_gpu_of(device);
  *ticket = 0;
  if (batch.gpu != gpu || !batch.enqueued) return AM_OK;
  am_gpu_op *ops = batch.ops;
  int count = batch.count;
  batch.gpu = NULL;
  batch.enqueued = 0;
  batch.ops = NULL;
  batch.count = batch.capacity = 0;
  uint64_t value = 0;
  int status = mark_now(err, gpu, &value);
  if (status != AM_OK) {
    abandon(err, gpu, ops, count);
    free(ops);
    return status;
  }
  if (!wait) {
    committed_batch *record = malloc(sizeof *record);
    if (record) {
      *record = (committed_batch){gpu, value, ops, count, NULL};
      pthread_mutex_lock(&committed_lock);
      record->next = committed;
      committed = record;
      pthread_mutex_unlock(&committed_lock);
      *ticket = value;
      return AM_OK;
    }
    /* No memory for the record: wait now instead. */
  }
  status = wait_value(err, gpu, value);
  if (status != AM_OK)
    abandon(err, gpu, ops, count);
  else
    status = finish_all(err, gpu, ops, count);
  free(ops);
  return status;
}

int am_gpu_wait(am_err *err, am_device *device, uint64_t ticket) {
  am_gpu_device *gpu = am_gpu_of(device);
  pthread_mutex_lock(&committed_lock);
  committed_batch **link = &committed;
  while (*link && !((*link)->gpu == gpu && (*link)->value == ticket)) link = &(*link)->next;
  committed_batch *record = *link;
  if (record) *link = record->next;
  pthread_mutex_unlock(&committed_lock);
  if (!record) return am_fail(err, AM_EINVAL, "unknown ticket %llu", (unsigned long long)ticket);
  int status = wait_value(err, gpu, record->value);
  if (status != AM_OK)
    abandon(err, gpu, record->ops, record->count);
  else
    status = finish_all(err, gpu, record->ops, record->count);
  free(record->ops);
  free(record);
  return status;
}

/* ---- Results whose length is known only after completion */

typedef struct gpu_pending {
  am_pending base;
  am_gpu_device *gpu;
  int slot;
} gpu_pending;

static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;

static void destroy_pending(am_pending *pending) {
  gpu_pending *record = (gpu_pending *)pending;
  /* Kernels still to run write the slot: let them finish first. */
  am_err ignored;
  am_err_init(&ignored, "am_release");
  am_gpu_synchronize(&ignored, record->gpu);
  am_gpu_status_release(record->gpu, record->slot);
  free(record);
}

int am_gpu_make_pending(am_err *err, am_gpu_device *gpu, int slot, am_array *array) {
  gpu_pending *record = malloc(sizeof *record);
  if (!record) return am_fail(err, AM_ENOMEM, "out of memory");
  record->base.destroy = destroy_pending;
  record->gpu = gpu;
  record->slot = slot;
  atomic_store_explicit(&array->pending, &record->base, memory_order_release);
  return AM_OK;
}

int am_gpu_resolve(am_err *err, const am_array *array) {
  pthread_mutex_lock(&pending_lock);
  am_array *mutable_array = (am_array *)array;
  gpu_pending *record = (gpu_pending *)am_array_pending(array);
  int status = AM_OK;
  if (record) {
    status = am_gpu_synchronize(err, record->gpu);
    if (status == AM_OK) {
      mutable_array->length = (int64_t)record->gpu->status[record->slot].count;
      atomic_store_explicit(&mutable_array->pending, NULL, memory_order_release);
      am_gpu_status_release(record->gpu, record->slot);
      free(record);
    }
  }
  pthread_mutex_unlock(&pending_lock);
  return status;
}
