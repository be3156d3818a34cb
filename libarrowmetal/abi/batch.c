/* The exported batch calls. The per-thread depth is core/runtime.c's; what a
 * batch holds on each device is its backend's (the GPU runtime's per-thread
 * submission); here are only the calls and the tickets of batches committed
 * without a wait, which may span devices.
 *
 * Tickets are bounded: at most AM_IN_FLIGHT committed batches keep their
 * records; a commit past that first waits for the oldest and keeps only its
 * outcome (and a failure's message) in slot ticket % AM_OUTCOMES, until
 * am_wait collects it or a later settled ticket takes the slot; am_wait of
 * such an overwritten ticket says it expired.
 *
 * The oldest batch is settled outside the lock (its wait may be long on a
 * GPU), so its slot is reserved first, marked AM_SETTLING under the lock in
 * the same step that unlinks the record: an am_wait of that ticket arriving
 * meanwhile waits for the outcome (cond `settled`) instead of finding neither
 * the record nor an outcome and calling the ticket unknown, which it did
 * before (a race between a commit past the bound and another thread's wait
 * on the oldest ticket; the TSan stress program, make test-tsan, commits
 * past the bound while other threads wait on foreign tickets). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "abi.h"

enum { AM_BATCH_DEVICES = 64, AM_IN_FLIGHT = 256, AM_OUTCOMES = 4096 };
/* The status of an outcome slot reserved for a batch being settled. */
enum { AM_SETTLING = -1 };

/* A committed batch: the backend tickets of each device it touched. */
typedef struct committed {
  uint64_t ticket;
  int count;
  struct committed *next; /* the next older one */
  am_device *devices[AM_BATCH_DEVICES];
  uint64_t device_tickets[AM_BATCH_DEVICES];
} committed;

/* The outcome of a batch settled before its am_wait. */
typedef struct outcome {
  uint64_t ticket; /* 0: the slot is free */
  int status;
  char *message; /* a failure's, NULL for AM_OK */
} outcome;

static pthread_mutex_t committed_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t settled = PTHREAD_COND_INITIALIZER; /* a reserved slot was filled */
static committed *committed_list;                         /* newest first */
static int in_flight;
static outcome outcomes[AM_OUTCOMES]; /* slot ticket % AM_OUTCOMES */
static uint64_t last_ticket;

AM_EXPORT int am_batch_begin(void) {
  am_runtime_batch_enter();
  return AM_OK;
}

AM_EXPORT int am_batch_depth(void) { return am_runtime_batch_depth(); }

/* Flushes this thread's open submission on every opened device; the first
 * failure is the one reported. */
static int flush_all(am_err *err, int wait, committed *record) {
  am_device *devices[AM_BATCH_DEVICES];
  int count = am_opened_devices(devices, AM_BATCH_DEVICES);
  int first_error = AM_OK;
  for (int i = 0; i < count; i++) {
    uint64_t ticket = 0;
    am_err device_err;
    am_err_init(&device_err, err->entry);
    int status = devices[i]->backend->queue.flush(&device_err, devices[i], wait, &ticket);
    am_err_merge(err, &device_err, status != AM_OK && first_error == AM_OK);
    if (status != AM_OK && first_error == AM_OK) first_error = status;
    if (record && status == AM_OK && ticket) {
      record->devices[record->count] = devices[i];
      record->device_tickets[record->count++] = ticket;
    }
  }
  return first_error;
}

static int batch_end(am_err *err) {
  if (am_runtime_batch_depth() == 0)
    return am_fail(err, AM_EINVAL, "no batch is open on this thread");
  if (am_runtime_batch_leave() > 0) return AM_OK;
  return flush_all(err, 1, NULL);
}

AM_EXPORT int am_batch_end(void) {
  AM_API_BEGIN;
  AM_API_RETURN(batch_end(err));
}

/* Waits for each device of a record; the first failure is the one reported. */
static int wait_record(am_err *err, committed *record) {
  int first_error = AM_OK;
  for (int i = 0; i < record->count; i++) {
    am_err device_err;
    am_err_init(&device_err, err->entry);
    int status = record->devices[i]->backend->queue.wait(&device_err, record->devices[i],
                                                         record->device_tickets[i]);
    am_err_merge(err, &device_err, status != AM_OK && first_error == AM_OK);
    if (status != AM_OK && first_error == AM_OK) first_error = status;
  }
  free(record);
  return first_error;
}

/* The oldest record in flight, unlinked, its outcome slot reserved (under
 * committed_lock); NULL when none. The outcome the slot held (AM_OUTCOMES
 * tickets older) is dropped: its message goes to *evicted, to be freed. */
static committed *unlink_oldest(char **evicted) {
  committed **link = &committed_list;
  if (!*link) return NULL;
  while ((*link)->next) link = &(*link)->next;
  committed *oldest = *link;
  *link = NULL;
  in_flight--;
  outcome *slot = &outcomes[oldest->ticket % AM_OUTCOMES];
  *evicted = slot->message;
  *slot = (outcome){oldest->ticket, AM_SETTLING, NULL};
  return oldest;
}

/* Waits for `record` (already unlinked, its slot reserved) and keeps its
 * outcome for am_wait in that slot, unless a later settled ticket has taken
 * the slot meanwhile (then the outcome has expired). */
static void settle(const char *entry, committed *record) {
  uint64_t ticket = record->ticket;
  am_err own;
  am_err_init(&own, entry);
  int status = wait_record(&own, record);
  char *message = status == AM_OK ? NULL : strdup(own.message);
  pthread_mutex_lock(&committed_lock);
  outcome *slot = &outcomes[ticket % AM_OUTCOMES];
  if (slot->ticket == ticket) {
    *slot = (outcome){ticket, status, message};
    message = NULL;
  }
  pthread_cond_broadcast(&settled);
  pthread_mutex_unlock(&committed_lock);
  free(message);
}

static int batch_commit(am_err *err, uint64_t *ticket) {
  AM_REQUIRE(ticket, "ticket");
  int depth = am_runtime_batch_depth();
  if (depth == 0) return am_fail(err, AM_EINVAL, "no batch is open on this thread");
  if (depth > 1) return am_fail(err, AM_EINVAL, "only the outermost batch can be committed");
  committed *record = calloc(1, sizeof *record);
  if (!record) return am_fail(err, AM_ENOMEM, "out of memory");
  am_runtime_batch_leave();
  int status = flush_all(err, 0, record);
  if (status != AM_OK) {
    am_err ignored;
    am_err_init(&ignored, err->entry);
    wait_record(&ignored, record); /* the submissions that did go out */
    return status;
  }
  pthread_mutex_lock(&committed_lock);
  record->ticket = ++last_ticket;
  record->next = committed_list;
  committed_list = record;
  char *evicted = NULL;
  committed *oldest = ++in_flight > AM_IN_FLIGHT ? unlink_oldest(&evicted) : NULL;
  pthread_mutex_unlock(&committed_lock);
  free(evicted);
  *ticket = record->ticket;
  if (oldest) settle(err->entry, oldest);
  return AM_OK;
}

AM_EXPORT int am_batch_commit(uint64_t *ticket) {
  AM_API_BEGIN;
  AM_API_RETURN(batch_commit(err, ticket));
}

static int wait_ticket(am_err *err, uint64_t ticket) {
  pthread_mutex_lock(&committed_lock);
  committed **link = &committed_list;
  while (*link && (*link)->ticket != ticket) link = &(*link)->next;
  committed *record = *link;
  if (record) {
    *link = record->next;
    in_flight--;
  }
  outcome kept = {0};
  outcome *slot = &outcomes[ticket % AM_OUTCOMES];
  /* Being settled by a commit on another thread: its outcome comes soon. */
  while (!record && ticket != 0 && slot->ticket == ticket && slot->status == AM_SETTLING)
    pthread_cond_wait(&settled, &committed_lock);
  if (!record && ticket != 0 && slot->ticket == ticket) {
    kept = *slot;
    *slot = (outcome){0};
  }
  uint64_t newest = last_ticket;
  pthread_mutex_unlock(&committed_lock);
  if (record) return wait_record(err, record);
  if (kept.ticket) {
    const char *message = kept.message ? kept.message : "(its message was lost: out of memory)";
    int status = kept.status == AM_OK ? AM_OK : am_fail(err, kept.status, "%s", message);
    free(kept.message);
    return status;
  }
  if (ticket != 0 && ticket <= newest && newest - ticket >= AM_OUTCOMES)
    return am_fail(err, AM_EINVAL,
                   "ticket %llu expired or already waited on: more than %d batches were "
                   "committed after it, and only the last %d outcomes are kept",
                   (unsigned long long)ticket, AM_OUTCOMES, AM_OUTCOMES);
  return am_fail(err, AM_EINVAL, "unknown ticket %llu (never issued, or already waited on)",
                 (unsigned long long)ticket);
}

AM_EXPORT int am_wait(uint64_t ticket) {
  AM_API_BEGIN;
  AM_API_RETURN(wait_ticket(err, ticket));
}
