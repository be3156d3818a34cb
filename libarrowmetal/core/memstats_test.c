/* Unit test of the memory counters (core/memstats.c) and the host buffers
 * that use them (core/buffer.c): an allocation raises bytes in use by its
 * counted size and its free takes exactly that back; the peak follows and a
 * reset brings it down to what is in use; large blocks move between in use
 * and the cache's reserved bytes; counted scratch grows and shrinks with
 * realloc; and 8 threads allocating and freeing at once leave the counters
 * exact (in use back to zero, peak never above what the threads can hold
 * together). Exit status 0 = pass. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "buffer.h"
#include "memstats.h"

static int failures;

#define EXPECT(cond)                                            \
  do {                                                          \
    if (!(cond)) {                                              \
      printf("%s:%d: failed: %s\n", __FILE__, __LINE__, #cond); \
      failures++;                                               \
    }                                                           \
  } while (0)

static long long in_use(void) { return atomic_load(&am_host_memory.in_use); }
static long long peak(void) { return atomic_load(&am_host_memory.peak); }
static long long reserved(void) { return atomic_load(&am_host_memory.reserved); }
static long long live(void) { return atomic_load(&am_host_memory.live); }

enum { THREADS = 8, ROUNDS = 20000, HELD = 4, PIECE = 1000 };

static void *churn(void *arg) {
  (void)arg;
  void *held[HELD] = {0};
  for (int round = 0; round < ROUNDS; round++) {
    int slot = round % HELD;
    am_scratch_free(held[slot]);
    held[slot] = am_scratch_alloc(PIECE);
    if (!held[slot]) return (void *)1;
    memset(held[slot], round, PIECE);
  }
  for (int i = 0; i < HELD; i++) am_scratch_free(held[i]);
  return NULL;
}

int main(void) {
  /* A host buffer counts its rounded size: 100 bytes -> 192 (whole 64-byte
   * lines, one more than the data needs). */
  am_buffer *small = am_buffer_alloc_host(100);
  EXPECT(small && in_use() == 192 && live() == 1 && peak() == 192);
  am_buffer *copy = am_buffer_retain(small);
  am_buffer_release(small);
  EXPECT(in_use() == 192); /* a shared reference keeps it */
  am_buffer_release(copy);
  EXPECT(in_use() == 0 && live() == 0 && peak() == 192);
  am_mem_reset_peak(&am_host_memory);
  EXPECT(peak() == 0);

  /* Large blocks: whole 2 MiB; freed ones are cached (reserved), and taken
   * back by the next allocation of a similar size. */
  long long block = (long long)4 << 20;
  am_buffer *large = am_buffer_alloc_host(block - 1000);
  EXPECT(large && in_use() == block && reserved() == 0);
  am_buffer_release(large);
  EXPECT(in_use() == 0 && reserved() == block);
  large = am_buffer_alloc_host(block - 2000);
  EXPECT(large && in_use() == block && reserved() == 0);
  am_buffer_release(large);
  EXPECT(peak() == block);

  /* Refused sizes count nothing. */
  EXPECT(!am_buffer_alloc_host(-1) && !am_buffer_alloc_host(AM_MAX_HOST_BYTES + 1));
  EXPECT(in_use() == 0 && live() == 0);

  /* Scratch: realloc moves in_use by the difference, one live allocation. */
  am_mem_reset_peak(&am_host_memory);
  char *scratch = am_scratch_alloc(1000);
  EXPECT(scratch && in_use() == 1000 && live() == 1);
  scratch = am_scratch_realloc(scratch, 5000);
  EXPECT(scratch && in_use() == 5000 && live() == 1 && peak() == 5000);
  scratch = am_scratch_realloc(scratch, 10);
  EXPECT(scratch && in_use() == 10 && peak() == 5000);
  am_scratch_free(scratch);
  am_scratch_free(NULL);
  EXPECT(in_use() == 0 && live() == 0);

  /* Threads: the counters stay exact. */
  am_mem_reset_peak(&am_host_memory);
  long long total_before = atomic_load(&am_host_memory.total);
  pthread_t threads[THREADS];
  for (int i = 0; i < THREADS; i++) pthread_create(&threads[i], NULL, churn, NULL);
  for (int i = 0; i < THREADS; i++) {
    void *result = NULL;
    pthread_join(threads[i], &result);
    EXPECT(result == NULL);
  }
  EXPECT(in_use() == 0 && live() == 0);
  EXPECT(atomic_load(&am_host_memory.total) - total_before == (long long)THREADS * ROUNDS);
  EXPECT(peak() >= PIECE && peak() <= (long long)THREADS * HELD * PIECE);

  if (failures) return 1;
  printf("ok\n");
  return 0;
}
