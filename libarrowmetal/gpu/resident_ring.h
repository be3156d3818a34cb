/* The resident worker's request ring, host side (resident_ring.c), and the
 * layout its kernel (kernel_source_resident.c) reads.
 *
 * A resident worker is one block of a kernel that stays on the GPU and polls
 * a ring of requests in host-mapped memory, so that a small synchronous
 * call is a few stores and loads instead of a launch and a completion wait
 * (ANCHORS.md: 3.5 us for a 1,000-row sum on the H200, against 10 for the
 * launch; this one 4.4-4.5 us from C on an H100, against 9.4-9.8:
 * benchmarks/results/gpu-resident-h100-2026-12-06-s26.md).
 * Apple GPUs give no CPU/GPU coherence inside a dispatch (the seed
 * RESIDENT.md), so only CUDA runs one; the protocol below is written once,
 * device-neutral, and the backend only launches the kernel and says whether
 * its launch failed.
 *
 * Every word has one writer at a time:
 *   - a slot's request words and its ticket: the host, ticket last with
 *     release semantics (slot k % AM_RESIDENT_SLOTS holds request k, ticket
 *     k + 1 once it may be read; its words tagged, am_resident_slot);
 *   - `served` (how many requests the worker has answered, in order),
 *     `busy` (its time answering them) and `state`: the worker while it runs
 *     (st.release.sys); the host only while no worker runs (before a
 *     launch);
 *   - `stop`: the host.
 * The worker reads a ticket with ld.acquire.sys (and the request's words
 * beside it, in the same trip), writes the answer into the
 * request's status block, then publishes served = k + 1 with
 * st.release.sys; a waiter reads `served` with acquire ordering.
 *
 * Leaving: a worker idle for its idle time, at the end of its lifetime or
 * told to stop stores state = EXITING, then a system-scope sequentially
 * consistent fence, then serves every request it still finds and exits
 * (state = EXITED). The host publishes a ticket, then a sequentially
 * consistent fence, then reads state: if it reads RUNNING the worker's last
 * look comes after the ticket (one of the two stores is seen by the other
 * side's load: the store-buffering pattern under two SC fences), so the
 * request will be served; if it reads EXITING it waits for EXITED and then
 * sees from `served` whether its request was taken, and takes it back if
 * not. The host holds the ring's lock from the post until that decision, so
 * no later request is posted behind one that may be taken back. */
#ifndef AM_GPU_RESIDENT_RING_H
#define AM_GPU_RESIDENT_RING_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

enum { AM_RESIDENT_SLOTS = 64 };

/* `state`: written by the host as STARTING before a launch; by the worker
 * as RUNNING when it starts, EXITING when it stops taking new work, EXITED
 * as its last store. STOPPED: no worker was ever launched. */
typedef enum am_resident_state {
  AM_RESIDENT_STOPPED = 0,
  AM_RESIDENT_STARTING = 1,
  AM_RESIDENT_RUNNING = 2,
  AM_RESIDENT_EXITING = 3,
  AM_RESIDENT_EXITED = 4
} am_resident_state;

/* What a request asks. ECHO: value ^ AM_RESIDENT_ECHO_MIX into the status
 * block's `value` (the start-up probe: a worker that answers it read the
 * request and wrote back across the bus).
 * REDUCE, AGGREGATE: the one-block REDUCE or AGGREGATE kernel's status
 * words for (op, type) over in0/valid0/off0/n (and `value`, INDEX's value),
 * bit for bit (the worker accumulates in that kernel's order).
 * Answers go to the caller's own status block, never to the slot, which
 * the next lap of the ring may take as soon as the request is served. */
typedef enum am_resident_kind {
  AM_RESIDENT_ECHO = 1,
  AM_RESIDENT_REDUCE = 2,
  AM_RESIDENT_AGGREGATE = 3 /* op: am_aggregate_op; value: INDEX's scalar bits */
} am_resident_kind;
#define AM_RESIDENT_ECHO_MIX 0x9e3779b97f4a7c15ull

/* One request as the caller gives it. */
typedef struct am_resident_request {
  uint32_t kind;        /* am_resident_kind */
  uint32_t op;          /* am_reduce_op or am_aggregate_op */
  uint32_t type;        /* am_type */
  uint64_t in0, valid0; /* device addresses (valid0 0: no nulls) */
  int64_t off0, n;
  uint64_t status; /* device address of the am_gpu_status to fill */
  uint64_t value;  /* ECHO's value, INDEX's scalar */
} am_resident_request;

/* A request in its slot: the ticket (word 0), then AM_RESIDENT_BODY words,
 * each a 48-bit field under the request's 16-bit tag (AM_RESIDENT_TAG):
 * kind | op << 8 | type << 16, in0, valid0, off0, n, status, and `value` in
 * two 32-bit halves. The worker's lanes read the ticket (lane 0, acquire)
 * and every body word (relaxed) at once, one trip across the bus, and take
 * the request when the ticket is the one it waits for and every word
 * carries its tag: each word is read whole, and a word of an earlier
 * request in the slot has another tag (a request taken back is cleared
 * from its slot). A request whose fields do not fit (an address or offset
 * of 2^48 or more) is not posted: the caller launches. */
enum { AM_RESIDENT_BODY = 8, AM_RESIDENT_FIELD_BITS = 48 };
#define AM_RESIDENT_TAG(k) ((((uint64_t)(k) + 1) & 0x7fffu) | 0x8000u)

/* Request k's body words under its tag; 0 when a field does not fit. */
int am_resident_encode(const am_resident_request *request, uint64_t k,
                       uint64_t body[AM_RESIDENT_BODY]);

typedef struct am_resident_slot {
  uint64_t ticket; /* request number + 1 once readable; host, release */
  uint64_t body[AM_RESIDENT_BODY];
  uint64_t pad[16 - 1 - AM_RESIDENT_BODY];
} am_resident_slot;

/* The ring in host-mapped memory: the worker's words, the host's, the start-up
 * probe's status block (the worker's), then the slots, each on its own
 * 128-byte lines. */
typedef struct am_resident_ring {
  uint64_t served; /* worker */
  uint64_t state;  /* worker (host before a launch) */
  uint64_t busy;   /* worker: ns spent answering, from seeing a ticket to `served` */
  uint64_t worker_pad[13];
  uint64_t stop; /* host: nonzero asks the worker to leave */
  uint64_t host_pad[15];
  uint64_t probe[16]; /* an am_gpu_status: the probe's answer */
  am_resident_slot slot[AM_RESIDENT_SLOTS];
} am_resident_ring;

/* The word indices the kernel source uses (the ring as am_u64 words). */
#define AM_RESIDENT_W_SERVED 0
#define AM_RESIDENT_W_STATE 1
#define AM_RESIDENT_W_BUSY 2
#define AM_RESIDENT_W_STOP 16
#define AM_RESIDENT_W_SLOTS 48
#define AM_RESIDENT_W_SLOT 16 /* words per slot */

/* How long a worker stays at most, busy or not, before it leaves (the next
 * call launches another): a context-wide synchronize elsewhere in the
 * process (another library's cudaDeviceSynchronize, a lazy module load)
 * waits for the kernel to end, so it must end. */
#define AM_RESIDENT_LIFETIME_NS 100000000

/* What a backend gives the ring: starting the worker kernel (one block of
 * 32 threads, asynchronous, on a queue of its own) over the ring at device
 * address `ring`, leaving after `idle_ns` without requests or `life_ns` in
 * all; and, optional, whether that launch has failed (a fault: `message`
 * says which). */
typedef struct am_resident_backend {
  int (*launch)(am_err *err, void *context, uint64_t ring, int64_t idle_ns, int64_t life_ns);
  int (*failed)(void *context, char *message, size_t capacity);
} am_resident_backend;

typedef struct am_resident {
  am_resident_ring *ring; /* host view */
  uint64_t ring_address;  /* device view */
  const am_resident_backend *backend;
  void *context;
  int64_t idle_ns, life_ns;
  pthread_mutex_t lock;
  uint64_t posted;  /* requests posted; under lock */
  int wanted;       /* am_resident_mode(1) asked for a worker; written under lock */
  char reason[640]; /* why none runs; under lock */
} am_resident;

/* Sets up `resident` over `ring` (zeroed here). */
void am_resident_init(am_resident *resident, am_resident_ring *ring, uint64_t ring_address,
                      const am_resident_backend *backend, void *context, int64_t idle_ns);

/* Starts a worker unless one runs, and answers only once the start-up
 * probe (an ECHO) came back right: AM_OK, or AM_EUNSUPPORTED with the
 * reason (no answer within `probe_ms`, a wrong one, a failed launch; the
 * launch is told to stop). While wanted, a call that finds the worker gone
 * (it left after its idle time) launches it again and takes the ordinary
 * path meanwhile. */
int am_resident_start(am_err *err, am_resident *resident, int64_t probe_ms);
/* Tells the worker to stop and waits (up to `wait_ms`) for it to leave;
 * no later call launches one. AM_EDEVICE when it does not leave. */
int am_resident_stop(am_err *err, am_resident *resident, int64_t wait_ms);
/* Whether a worker runs and takes requests (an acquire read; no lock). */
int am_resident_running(const am_resident *resident);
/* Whether one was asked for and not stopped: calls then go to the ring,
 * which launches it again when it left (a relaxed read; no lock). */
int am_resident_wanted(const am_resident *resident);
/* Launches a wanted worker again if it left. Thread-safe. */
void am_resident_wake(am_resident *resident);
/* Why no worker runs (the last reason recorded), into `text`. */
void am_resident_reason(am_resident *resident, char *text, size_t capacity);

/* Posts `request` and waits for the answer.
 * *served = 1: answered (in the request's status block); 0: no worker took
 * it (or a field did not fit in its word), and nothing of it remains in the
 * ring: the caller runs the ordinary path. A worker that does not answer within `timeout_ms`, or
 * whose launch failed, is a failure (AM_EDEVICE): the caller marks the
 * device broken. */
int am_resident_call(am_err *err, am_resident *resident, const am_resident_request *request,
                     int64_t timeout_ms, int *served);

#endif
