/* Submission and completion for the CUDA backend.
 *
 * Every op runs on the device's one stream. An op takes the timeline's
 * commit lock while it enqueues its launches (multi-launch ops share the
 * device's scratch area), and outside a batch also takes a completion value
 * and enqueues its write into host-mapped memory; it then waits on the
 * timeline and checks what its kernels reported. Inside a batch the checks
 * are deferred to the thread's batch record and run after the one wait at
 * the batch's end (or at am_wait for a committed batch). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "cuda.h"

typedef struct thread_batch {
  am_cuda_device *cuda;
  int enqueued;
  am_cuda_op *ops;
  int count, capacity;
} thread_batch;

static _Thread_local thread_batch batch;

/* Batches committed without a wait, by ticket (= their completion value). */
typedef struct committed_batch {
  am_cuda_device *cuda;
  uint64_t value;
  am_cuda_op *ops;
  int count;
  struct committed_batch *next;
} committed_batch;

static pthread_mutex_t committed_lock = PTHREAD_MUTEX_INITIALIZER;
static committed_batch *committed;

/* With the commit lock held: the value that marks everything enqueued so
 * far, and its write. */
static int mark(am_cuda_device *cuda, uint64_t *value) {
  *value = am_timeline_take(&cuda->timeline);
  CUresult result = cuda->cu->cuStreamWriteValue64(cuda->stream, cuda->completed_device, *value,
                                                   CU_STREAM_WRITE_VALUE_DEFAULT);
  return result == CUDA_SUCCESS ? AM_OK : am_cuda_fail(result, "cuStreamWriteValue64");
}

static int wait_value(am_cuda_device *cuda, uint64_t value) {
  int status = am_timeline_wait(&cuda->timeline, value);
  if (status != AM_OK) {
    /* A kernel fault poisons the context; refuse later work instead of
     * running it on a broken device. The message is written before the flag
     * is published, under a lock so that only the first failure writes it. */
    pthread_mutex_lock(&cuda->status_lock);
    if (!atomic_load_explicit(&cuda->broken, memory_order_relaxed)) {
      snprintf(cuda->broken_message, sizeof cuda->broken_message, "%s", am_last_error());
      atomic_store_explicit(&cuda->broken, 1, memory_order_release);
    }
    pthread_mutex_unlock(&cuda->status_lock);
  }
  return status;
}

/* Marks everything enqueued so far with a fresh value (taking the lock). */
static int mark_now(am_cuda_device *cuda, uint64_t *value) {
  int pushed = am_cuda_enter(cuda);
  am_timeline_lock(&cuda->timeline);
  int status = mark(cuda, value);
  am_timeline_unlock(&cuda->timeline);
  am_cuda_leave(cuda, pushed);
  return status;
}

int am_cuda_sync(am_cuda_device *cuda) {
  uint64_t value = 0;
  int status = mark_now(cuda, &value);
  return status == AM_OK ? wait_value(cuda, value) : status;
}

/* The 128-bit two's complement value high:low as a double. Sums that fit
 * 64 bits convert exactly (adding 2^64-scale halves would cancel away small
 * negative values); larger ones round once per half. */
static double wide_to_double(uint64_t low, uint64_t high) {
  int64_t top = (int64_t)high;
  if ((top == 0 && low <= (uint64_t)INT64_MAX) || (top == -1 && low > (uint64_t)INT64_MAX))
    return (double)(int64_t)low;
  return ldexp((double)top, 64) + (double)low;
}

static void finish_scalar(const am_cuda_op *op, const am_gpu_status *status) {
  am_scalar scalar;
  memset(&scalar, 0, sizeof scalar);
  am_type type = op->type;
  int floating = am_type_is_float(type);
  if (op->reduce == AM_REDUCE_SUM)
    scalar.type = floating ? AM_FLOAT64 : am_type_is_signed(type) ? AM_INT64 : AM_UINT64;
  else if (op->reduce == AM_REDUCE_MEAN)
    scalar.type = AM_FLOAT64;
  else
    scalar.type = type;
  if (status->count == 0) {
    scalar.is_null = 1;
  } else if (op->reduce == AM_REDUCE_MEAN) {
    double count = (double)status->count;
    double bits_value;
    memcpy(&bits_value, &status->value, sizeof bits_value);
    scalar.f64 =
        floating ? bits_value / count
        : am_type_is_signed(type)
            ? wide_to_double(status->value, status->value_hi) / count
            : ((double)status->value_hi * 18446744073709551616.0 + (double)status->value) / count;
  } else if (floating) {
    memcpy(&scalar.f64, &status->value, sizeof scalar.f64);
    if (op->reduce != AM_REDUCE_SUM && status->nan_count == status->count) scalar.f64 = NAN;
  } else if (scalar.type == AM_UINT64 || am_type_is_unsigned(type)) {
    scalar.u64 = status->value;
  } else {
    scalar.i64 = (int64_t)status->value;
  }
  *op->scalar_out = scalar;
}

/* Reads the value at `index` of the culprit buffer for the message. */
static int read_culprit(am_cuda_device *cuda, const am_cuda_op *op, uint64_t index, char *text,
                        size_t capacity) {
  int bytes = am_type_bits(op->culprit_type) / 8;
  uint64_t raw = 0;
  CUresult result = cuda->cu->cuMemcpyDtoHAsync(
      &raw, op->culprit_data + (CUdeviceptr)((op->culprit_offset + (int64_t)index) * bytes),
      (size_t)bytes, cuda->stream);
  if (result == CUDA_SUCCESS) result = cuda->cu->cuStreamSynchronize(cuda->stream);
  if (result != CUDA_SUCCESS) return snprintf(text, capacity, "?");
  am_type t = op->culprit_type;
  if (am_type_is_float(t)) {
    double value;
    if (t == AM_FLOAT32) {
      float narrow;
      memcpy(&narrow, &raw, sizeof narrow);
      value = narrow;
    } else {
      memcpy(&value, &raw, sizeof value);
    }
    return snprintf(text, capacity, "%f", value);
  }
  if (am_type_is_unsigned(t)) return snprintf(text, capacity, "%llu", (unsigned long long)raw);
  int shift = 64 - bytes * 8;
  int64_t value = (int64_t)(raw << shift) >> shift;
  return snprintf(text, capacity, "%lld", (long long)value);
}

static int finish_error(am_cuda_device *cuda, const am_cuda_op *op, const am_gpu_status *status) {
  if (status->error_index == UINT64_MAX) return AM_OK;
  const char *saved = am_current_call;
  am_current_call = op->call;
  char value[64] = "?";
  int code = op->error_code;
  if (op->culprit) {
    int pushed = am_cuda_enter(cuda);
    read_culprit(cuda, op, status->error_index, value, sizeof value);
    am_cuda_leave(cuda, pushed);
  }
  if (code == AM_EZERODIV)
    am_error(code, "divide by zero");
  else if (code == AM_EINDEX)
    am_error(code, "index %s out of bounds for length %lld", value, (long long)op->bound);
  else
    am_error(code, "value %s at slot %llu does not fit %s", value,
             (unsigned long long)status->error_index, am_type_name((am_type)op->bound));
  am_current_call = saved;
  return code;
}

/* Runs the check of a finished op and frees what it held. */
static int finish(am_cuda_device *cuda, am_cuda_op *op) {
  int status = AM_OK;
  if (op->slot >= 0) {
    const am_gpu_status *result = &cuda->status[op->slot];
    if (op->check == AM_CUDA_CHECK_SCALAR)
      finish_scalar(op, result);
    else if (op->check == AM_CUDA_CHECK_ERROR)
      status = finish_error(cuda, op, result);
    else if (op->check == AM_CUDA_CHECK_FILTER)
      op->result->length = (int64_t)result->count;
    else if (op->check == AM_CUDA_CHECK_COUNT)
      *op->count_out = (int64_t)result->count;
  }
  am_buffer_release(op->culprit);
  am_cuda_status_release(cuda, op->slot);
  return status;
}

static int finish_all(am_cuda_device *cuda, am_cuda_op *ops, int count) {
  int first = AM_OK;
  for (int i = 0; i < count; i++) {
    int status = finish(cuda, &ops[i]);
    if (status != AM_OK && first == AM_OK) first = status;
  }
  return first;
}

int am_cuda_op_begin(am_cuda_device *cuda, int *pushed) {
  int status = am_cuda_check_broken(cuda);
  if (status != AM_OK) return status;
  /* One open batch per thread and device: work for another device ends the
   * deferred part of the first (results stay exact, the saving shrinks). */
  if (batch.cuda && batch.cuda != cuda) {
    am_device stand_in = {.impl = batch.cuda};
    status = am_cuda_batch_flush(&stand_in, 1, NULL);
    if (status != AM_OK) return status;
  }
  *pushed = am_cuda_enter(cuda);
  am_timeline_lock(&cuda->timeline);
  return AM_OK;
}

static int defer(am_cuda_device *cuda, const am_cuda_op *op) {
  if (batch.count == batch.capacity) {
    int capacity = batch.capacity ? batch.capacity * 2 : 16;
    am_cuda_op *grown = realloc(batch.ops, (size_t)capacity * sizeof *grown);
    if (!grown) return am_error(AM_ENOMEM, "out of memory");
    batch.ops = grown;
    batch.capacity = capacity;
  }
  batch.cuda = cuda;
  batch.ops[batch.count++] = *op;
  return AM_OK;
}

int am_cuda_op_end(am_cuda_device *cuda, int pushed, int launch_status, am_cuda_op *op) {
  if (launch_status == AM_OK && !op->immediate && am_runtime_batch_depth() > 0) {
    batch.cuda = cuda;
    batch.enqueued = 1;
    int status = op->check == AM_CUDA_CHECK_NONE ? AM_OK : defer(cuda, op);
    am_timeline_unlock(&cuda->timeline);
    am_cuda_leave(cuda, pushed);
    if (status != AM_OK) {
      am_cuda_sync(cuda);
      finish(cuda, op);
    }
    return status;
  }
  uint64_t value = 0;
  int status = mark(cuda, &value);
  am_timeline_unlock(&cuda->timeline);
  am_cuda_leave(cuda, pushed);
  int waited = status == AM_OK ? wait_value(cuda, value) : am_cuda_sync(cuda);
  /* Even a failed launch sequence may have started kernels that write the
   * op's status: the wait above lets them finish before the slot is reused. */
  int checked = finish(cuda, op);
  if (launch_status != AM_OK) return launch_status;
  if (status != AM_OK) return status;
  return waited != AM_OK ? waited : checked;
}

int am_cuda_batch_flush(am_device *device, int wait, uint64_t *ticket) {
  am_cuda_device *cuda = am_cuda_of(device);
  if (batch.cuda != cuda || !batch.enqueued) return AM_OK;
  uint64_t value = 0;
  int status = mark_now(cuda, &value);
  am_cuda_op *ops = batch.ops;
  int count = batch.count;
  batch.cuda = NULL;
  batch.enqueued = 0;
  batch.ops = NULL;
  batch.count = batch.capacity = 0;
  if (status != AM_OK) {
    am_cuda_sync(cuda);
    finish_all(cuda, ops, count);
    free(ops);
    return status;
  }
  if (!wait) {
    committed_batch *record = malloc(sizeof *record);
    if (record) {
      *record = (committed_batch){cuda, value, ops, count, NULL};
      pthread_mutex_lock(&committed_lock);
      record->next = committed;
      committed = record;
      pthread_mutex_unlock(&committed_lock);
      *ticket = value;
      return AM_OK;
    }
  }
  status = wait_value(cuda, value);
  int checked = finish_all(cuda, ops, count);
  free(ops);
  return status != AM_OK ? status : checked;
}

int am_cuda_wait_ticket(am_device *device, uint64_t ticket) {
  am_cuda_device *cuda = am_cuda_of(device);
  pthread_mutex_lock(&committed_lock);
  committed_batch **link = &committed;
  while (*link && !((*link)->cuda == cuda && (*link)->value == ticket)) link = &(*link)->next;
  committed_batch *record = *link;
  if (record) *link = record->next;
  pthread_mutex_unlock(&committed_lock);
  if (!record) return am_error(AM_EINVAL, "unknown ticket");
  int status = wait_value(cuda, record->value);
  int checked = finish_all(cuda, record->ops, record->count);
  free(record->ops);
  free(record);
  return status != AM_OK ? status : checked;
}

/* ---- Results whose length is known only after completion */

typedef struct cuda_pending {
  am_pending base;
  am_cuda_device *cuda;
  int slot;
} cuda_pending;

static pthread_mutex_t pending_lock = PTHREAD_MUTEX_INITIALIZER;

static void destroy_pending(am_pending *pending) {
  cuda_pending *record = (cuda_pending *)pending;
  /* Kernels still to run write the slot: let them finish first. */
  am_cuda_sync(record->cuda);
  am_cuda_status_release(record->cuda, record->slot);
  free(record);
}

int am_cuda_make_pending(am_cuda_device *cuda, int slot, am_array *array) {
  cuda_pending *record = malloc(sizeof *record);
  if (!record) return am_error(AM_ENOMEM, "out of memory");
  record->base.destroy = destroy_pending;
  record->cuda = cuda;
  record->slot = slot;
  atomic_store_explicit(&array->pending, &record->base, memory_order_release);
  return AM_OK;
}

int am_cuda_resolve(const am_array *array) {
  pthread_mutex_lock(&pending_lock);
  am_array *mutable_array = (am_array *)array;
  cuda_pending *record = (cuda_pending *)am_array_pending(array);
  int status = AM_OK;
  if (record) {
    status = am_cuda_sync(record->cuda);
    if (status == AM_OK) {
      mutable_array->length = (int64_t)record->cuda->status[record->slot].count;
      atomic_store_explicit(&mutable_array->pending, NULL, memory_order_release);
      am_cuda_status_release(record->cuda, record->slot);
      free(record);
    }
  }
  pthread_mutex_unlock(&pending_lock);
  return status;
}
