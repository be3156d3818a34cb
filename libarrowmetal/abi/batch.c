/* Thread-local batches and the tickets of batches committed without a wait. */
#include <pthread.h>
#include <stdlib.h>

#include "abi.h"
#include "core/runtime.h"

enum { AM_BATCH_DEVICES = 64 };

/* A committed batch: the backend tickets of each device it touched. */
typedef struct committed {
  uint64_t ticket;
  int count;
  am_device *devices[AM_BATCH_DEVICES];
  uint64_t device_tickets[AM_BATCH_DEVICES];
  struct committed *next;
} committed;

static pthread_mutex_t committed_lock = PTHREAD_MUTEX_INITIALIZER;
static committed *committed_list;
static uint64_t last_ticket;

AM_EXPORT int am_batch_begin(void) {
  AM_ENTER();
  am_runtime_batch_enter();
  return AM_OK;
}

/* Flushes this thread's open submission on every device that batches. */
static int flush_all(int wait, committed *record) {
  am_device *devices[AM_BATCH_DEVICES];
  int count = am_opened_devices(devices, AM_BATCH_DEVICES);
  int first_error = AM_OK;
  for (int i = 0; i < count; i++) {
    if (!devices[i]->backend->batch_flush) continue;
    uint64_t ticket = 0;
    int status = devices[i]->backend->batch_flush(devices[i], wait, &ticket);
    if (status != AM_OK && first_error == AM_OK) first_error = status;
    if (record && status == AM_OK && ticket) {
      record->devices[record->count] = devices[i];
      record->device_tickets[record->count++] = ticket;
    }
  }
  return first_error;
}

AM_EXPORT int am_batch_end(void) {
  AM_ENTER();
  if (am_runtime_batch_depth() == 0) return am_error(AM_EINVAL, "no batch is open on this thread");
  if (am_runtime_batch_leave() > 0) return AM_OK;
  return flush_all(1, NULL);
}

AM_EXPORT int am_batch_commit(uint64_t *ticket) {
  AM_ENTER();
  AM_REQUIRE(ticket, "ticket");
  int depth = am_runtime_batch_depth();
  if (depth == 0) return am_error(AM_EINVAL, "no batch is open on this thread");
  if (depth > 1) return am_error(AM_EINVAL, "only the outermost batch can be committed");
  committed *record = calloc(1, sizeof *record);
  if (!record) return am_error(AM_ENOMEM, "out of memory");
  am_runtime_batch_leave();
  int status = flush_all(0, record);
  if (status != AM_OK) {
    for (int i = 0; i < record->count; i++)
      record->devices[i]->backend->wait(record->devices[i], record->device_tickets[i]);
    free(record);
    return status;
  }
  pthread_mutex_lock(&committed_lock);
  record->ticket = ++last_ticket;
  record->next = committed_list;
  committed_list = record;
  pthread_mutex_unlock(&committed_lock);
  *ticket = record->ticket;
  return AM_OK;
}

AM_EXPORT int am_wait(uint64_t ticket) {
  AM_ENTER();
  pthread_mutex_lock(&committed_lock);
  committed **link = &committed_list;
  while (*link && (*link)->ticket != ticket) link = &(*link)->next;
  committed *record = *link;
  if (record) *link = record->next;
  pthread_mutex_unlock(&committed_lock);
  if (!record)
    return am_error(AM_EINVAL, "unknown ticket %llu (never issued, or already waited on)",
                    (unsigned long long)ticket);
  int first_error = AM_OK;
  for (int i = 0; i < record->count; i++) {
    int status = record->devices[i]->backend->wait(record->devices[i], record->device_tickets[i]);
    if (status != AM_OK && first_error == AM_OK) first_error = status;
  }
  free(record);
  return first_error;
}

AM_EXPORT int am_batch_depth(void) { return am_runtime_batch_depth(); }
