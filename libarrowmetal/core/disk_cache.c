#include "disk_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define MAGIC "AMKCACHE"
/* Directories are kept short enough that a file name always fits after them. */
enum { MAGIC_BYTES = 8, HEADER_BYTES = 8 + 16 + 8 + 8, DIR_CAPACITY = 768, PATH_CAPACITY = 1024 };

static atomic_llong hits, misses, writes, corrupt, evictions, errors;

static pthread_once_t setup_once = PTHREAD_ONCE_INIT;
static char root[DIR_CAPACITY - 64];
static int64_t max_bytes = 256ll << 20;

static uint64_t mix(uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

static uint64_t hash_bytes(uint64_t state, const unsigned char *bytes, size_t length) {
  for (size_t i = 0; i < length; i++) state = mix(state ^ bytes[i]) + i;
  return mix(state ^ length);
}

am_cache_key am_cache_key_of(const char *const *parts, int count) {
  am_cache_key key = {{0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull}};
  for (int i = 0; i < count; i++) {
    size_t length = strlen(parts[i]);
    key.hash[0] = hash_bytes(key.hash[0], (const unsigned char *)parts[i], length);
    key.hash[1] =
        hash_bytes(key.hash[1] ^ 0x3c6ef372fe94f82bull, (const unsigned char *)parts[i], length);
  }
  return key;
}

static uint64_t checksum(const void *data, size_t size) {
  return hash_bytes(0xa54ff53a5f1d36f1ull, data, size);
}

static int make_dirs(const char *path) {
  char partial[PATH_CAPACITY];
  snprintf(partial, sizeof partial, "%s", path);
  for (char *p = partial + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(partial, 0755) != 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  return mkdir(partial, 0755) == 0 || errno == EEXIST ? 0 : -1;
}

static void setup(void) {
  const char *enabled = getenv("ARROWMETAL_KERNEL_CACHE");
  if (enabled && strcmp(enabled, "0") == 0) return;
  const char *cap = getenv("ARROWMETAL_CACHE_MAX_BYTES");
  if (cap && *cap) max_bytes = strtoll(cap, NULL, 10);
  const char *dir = getenv("ARROWMETAL_CACHE_DIR");
  const char *xdg = getenv("XDG_CACHE_HOME");
  const char *home = getenv("HOME");
  if (dir && *dir)
    snprintf(root, sizeof root, "%s", dir);
  else if (xdg && *xdg)
    snprintf(root, sizeof root, "%s/arrowmetal", xdg);
  else if (home && *home)
    snprintf(root, sizeof root, "%s/.cache/arrowmetal", home);
}

const char *am_disk_cache_dir(void) {
  pthread_once(&setup_once, setup);
  return root;
}

/* Removes temporary files whose writer is gone (killed mid-write). */
static void sweep_orphans(const char dir[DIR_CAPACITY]) {
  DIR *listing = opendir(dir);
  if (!listing) return;
  struct dirent *entry;
  while ((entry = readdir(listing))) {
    int pid = 0;
    if (sscanf(entry->d_name, ".tmp-%d-", &pid) != 1 || pid <= 0) continue;
    if (kill(pid, 0) == 0 || errno == EPERM) continue;
    char path[PATH_CAPACITY];
    snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
    unlink(path);
  }
  closedir(listing);
}

static pthread_mutex_t dirs_lock = PTHREAD_MUTEX_INITIALIZER;
static char ready_dirs[4][64];

/* The kind's directory, created and swept once per process; NULL when off. */
static const char *kind_dir(const char *kind, char buffer[DIR_CAPACITY], size_t capacity) {
  pthread_once(&setup_once, setup);
  if (!root[0]) return NULL;
  snprintf(buffer, capacity, "%s/%s", root, kind);
  pthread_mutex_lock(&dirs_lock);
  int ready = 0, free_slot = -1;
  for (int i = 0; i < 4; i++) {
    if (strcmp(ready_dirs[i], kind) == 0) ready = 1;
    if (!ready_dirs[i][0] && free_slot < 0) free_slot = i;
  }
  if (!ready) {
    if (make_dirs(buffer) != 0) {
      pthread_mutex_unlock(&dirs_lock);
      atomic_fetch_add(&errors, 1);
      return NULL;
    }
    sweep_orphans(buffer);
    if (free_slot >= 0) snprintf(ready_dirs[free_slot], sizeof ready_dirs[0], "%s", kind);
  }
  pthread_mutex_unlock(&dirs_lock);
  return buffer;
}

static void file_path(const char dir[DIR_CAPACITY], am_cache_key key, char *path, size_t capacity) {
  snprintf(path, capacity, "%s/%016llx%016llx.bin", dir, (unsigned long long)key.hash[0],
           (unsigned long long)key.hash[1]);
}

int am_disk_cache_get(const char *kind, am_cache_key key, void **data, size_t *size) {
  char dir[DIR_CAPACITY], path[PATH_CAPACITY];
  if (!kind_dir(kind, dir, sizeof dir)) return 0;
  file_path(dir, key, path, sizeof path);
  FILE *file = fopen(path, "rb");
  if (!file) {
    atomic_fetch_add(&misses, 1);
    return 0;
  }
  unsigned char header[HEADER_BYTES];
  uint64_t stored_key[2], payload_size, stored_sum;
  void *payload = NULL;
  int ok = fread(header, 1, HEADER_BYTES, file) == HEADER_BYTES &&
           memcmp(header, MAGIC, MAGIC_BYTES) == 0;
  if (ok) {
    memcpy(stored_key, header + 8, 16);
    memcpy(&payload_size, header + 24, 8);
    memcpy(&stored_sum, header + 32, 8);
    ok = stored_key[0] == key.hash[0] && stored_key[1] == key.hash[1] &&
         payload_size < ((uint64_t)1 << 32);
  }
  if (ok) {
    payload = malloc(payload_size ? payload_size : 1);
    ok = payload && fread(payload, 1, payload_size, file) == payload_size && fgetc(file) == EOF &&
         checksum(payload, payload_size) == stored_sum;
  }
  fclose(file);
  if (!ok) {
    free(payload);
    unlink(path);
    atomic_fetch_add(&corrupt, 1);
    atomic_fetch_add(&misses, 1);
    return 0;
  }
  utimensat(AT_FDCWD, path, NULL, 0); /* recently used: evicted last */
  atomic_fetch_add(&hits, 1);
  *data = payload;
  *size = payload_size;
  return 1;
}

typedef struct cached_file {
  char name[64];
  int64_t bytes;
  time_t used;
} cached_file;

static int oldest_first(const void *a, const void *b) {
  const cached_file *x = a, *y = b;
  return (x->used > y->used) - (x->used < y->used);
}

/* Deletes least recently used files until the directory is under 90% of
 * the cap. */
static void enforce_cap(const char dir[DIR_CAPACITY]) {
  DIR *listing = opendir(dir);
  if (!listing) return;
  cached_file *files = NULL;
  size_t count = 0, capacity = 0;
  int64_t total = 0;
  struct dirent *entry;
  while ((entry = readdir(listing))) {
    size_t length = strlen(entry->d_name);
    if (length < 5 || length >= 64 || strcmp(entry->d_name + length - 4, ".bin") != 0) continue;
    char path[PATH_CAPACITY];
    struct stat info;
    snprintf(path, sizeof path, "%s/%s", dir, entry->d_name);
    if (stat(path, &info) != 0) continue;
    if (count == capacity) {
      capacity = capacity ? capacity * 2 : 64;
      cached_file *grown = realloc(files, capacity * sizeof *files);
      if (!grown) break;
      files = grown;
    }
    memcpy(files[count].name, entry->d_name, length + 1); /* length < 64, checked above */
    files[count].bytes = info.st_size;
    files[count].used = info.st_mtime;
    total += info.st_size;
    count++;
  }
  closedir(listing);
  if (total > max_bytes) {
    qsort(files, count, sizeof *files, oldest_first);
    for (size_t i = 0; i < count && total > max_bytes / 10 * 9; i++) {
      char path[PATH_CAPACITY];
      snprintf(path, sizeof path, "%s/%s", dir, files[i].name);
      if (unlink(path) == 0) {
        total -= files[i].bytes;
        atomic_fetch_add(&evictions, 1);
      }
    }
  }
  free(files);
}

void am_disk_cache_put(const char *kind, am_cache_key key, const void *data, size_t size) {
  char dir[DIR_CAPACITY], path[PATH_CAPACITY], temporary[PATH_CAPACITY];
  if (!kind_dir(kind, dir, sizeof dir)) return;
  file_path(dir, key, path, sizeof path);
  snprintf(temporary, sizeof temporary, "%s/.tmp-%d-XXXXXX", dir, (int)getpid());
  int fd = mkstemp(temporary);
  if (fd < 0) {
    atomic_fetch_add(&errors, 1);
    return;
  }
  unsigned char header[HEADER_BYTES];
  uint64_t payload_size = size, sum = checksum(data, size);
  memcpy(header, MAGIC, MAGIC_BYTES);
  memcpy(header + 8, key.hash, 16);
  memcpy(header + 24, &payload_size, 8);
  memcpy(header + 32, &sum, 8);
  FILE *file = fdopen(fd, "wb");
  int ok = file && fwrite(header, 1, HEADER_BYTES, file) == HEADER_BYTES &&
           fwrite(data, 1, size, file) == size;
  if (file)
    ok = fclose(file) == 0 && ok;
  else
    close(fd);
  if (!ok || rename(temporary, path) != 0) {
    unlink(temporary);
    atomic_fetch_add(&errors, 1);
    return;
  }
  atomic_fetch_add(&writes, 1);
  if (max_bytes >= 0) enforce_cap(dir);
}

void am_disk_cache_counters_read(am_disk_cache_counters *out) {
  out->hits = atomic_load(&hits);
  out->misses = atomic_load(&misses);
  out->writes = atomic_load(&writes);
  out->corrupt = atomic_load(&corrupt);
  out->evictions = atomic_load(&evictions);
  out->errors = atomic_load(&errors);
}
