/* Opt-in Metal binary archives (ARROWMETAL_METAL_ARCHIVE=path).
 *
 * Off by default: Metal's system shader cache already makes a warm compile
 * about 1 ms, an archive hit measured 2.1-2.5 ms and each miss pays a
 * harvest (shared/seeds). Where the system cache is cold (after an OS
 * update, or evicted), an archive can help; then there is one MTLBinaryArchive
 * per device for the whole process -- never one per kernel -- loaded from the
 * path, given every new pipeline, and serialized to the path every
 * SERIALIZE_EVERY new pipelines and at exit.
 *
 * Metal builds each archive in a private com.apple.gpuarchiver/gpuarchiver-*
 * working directory (300-400 KB) under the user cache directory and never
 * removes it, not on serialization, release, exit or reboot. So directories
 * of that form older than five minutes (those of finished processes and
 * earlier serializations; a live one is younger or in use) are removed every
 * SWEEP_EVERY harvests and at exit, and counted in am_kernel_cache_info. */
#import <Foundation/Foundation.h>
#import <Metal/Metal.h>

#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "core/kernel_stats.h"
#include "metal.h"

enum { SERIALIZE_EVERY = 32, SWEEP_EVERY = 256, MAX_ARCHIVES = 8 };

typedef struct archive {
  void *archive; /* id<MTLBinaryArchive> */
  int64_t harvests;
  int64_t unsaved;
} archive;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static archive archives[MAX_ARCHIVES];
static int archive_count;
static int exit_registered;

static NSURL *archive_url(void) {
  const char *path = getenv("ARROWMETAL_METAL_ARCHIVE");
  return path && *path ? [NSURL fileURLWithPath:@(path)] : nil;
}

/* Removes gpuarchiver-* working directories older than five minutes. */
static int64_t sweep(void) {
  char cache[1024];
  if (confstr(_CS_DARWIN_USER_CACHE_DIR, cache, sizeof cache) == 0) return 0;
  NSString *root = [@(cache) stringByAppendingPathComponent:@"com.apple.gpuarchiver"];
  NSFileManager *files = [NSFileManager defaultManager];
  NSDate *cutoff = [NSDate dateWithTimeIntervalSinceNow:-300];
  int64_t removed = 0;
  for (NSString *name in [files contentsOfDirectoryAtPath:root error:nil]) {
    if (![name hasPrefix:@"gpuarchiver-"]) continue;
    NSString *path = [root stringByAppendingPathComponent:name];
    NSDate *modified = [files attributesOfItemAtPath:path error:nil].fileModificationDate;
    if (modified && [modified compare:cutoff] == NSOrderedAscending &&
        [files removeItemAtPath:path error:nil])
      removed++;
  }
  return removed;
}

static void serialize(archive *a) {
  NSURL *url = archive_url();
  if (url && a->unsaved) [(__bridge id<MTLBinaryArchive>)a->archive serializeToURL:url error:nil];
  a->unsaved = 0;
}

static void at_exit(void) {
  @autoreleasepool {
    @try {
      pthread_mutex_lock(&lock);
      for (int i = 0; i < archive_count; i++) serialize(&archives[i]);
      pthread_mutex_unlock(&lock);
      am_kernel_stats_archive(0, sweep());
    } @catch (NSException *exception) {
      (void)exception; /* nothing to report to at exit */
    }
  }
}

/* The archive of `device` (loaded from the path when the file exists), or
 * nil when archives are off or Metal cannot make one. Under `lock`. */
static archive *archive_of(id<MTLDevice> device) {
  NSURL *url = archive_url();
  if (!url) return NULL;
  for (int i = 0; i < archive_count; i++)
    if ([(__bridge id<MTLBinaryArchive>)archives[i].archive device] == device) return &archives[i];
  if (archive_count == MAX_ARCHIVES) return NULL;
  MTLBinaryArchiveDescriptor *descriptor = [MTLBinaryArchiveDescriptor new];
  if ([[NSFileManager defaultManager] fileExistsAtPath:url.path]) descriptor.url = url;
  NSError *error = nil;
  id<MTLBinaryArchive> made = [device newBinaryArchiveWithDescriptor:descriptor error:&error];
  if (!made && descriptor.url) { /* a damaged file is a miss: start a new one */
    descriptor.url = nil;
    made = [device newBinaryArchiveWithDescriptor:descriptor error:&error];
  }
  if (!made) return NULL;
  if (!exit_registered) exit_registered = atexit(at_exit) == 0;
  archives[archive_count] = (archive){(void *)CFBridgingRetain(made), 0, 0};
  return &archives[archive_count++];
}

void am_metal_archive_attach(void *descriptor_, void *device_) {
  MTLComputePipelineDescriptor *descriptor = (__bridge MTLComputePipelineDescriptor *)descriptor_;
  pthread_mutex_lock(&lock);
  archive *a = archive_of((__bridge id<MTLDevice>)device_);
  if (a) descriptor.binaryArchives = @[ (__bridge id<MTLBinaryArchive>)a->archive ];
  pthread_mutex_unlock(&lock);
}

void am_metal_archive_harvest(void *descriptor_, void *device_) {
  MTLComputePipelineDescriptor *descriptor = (__bridge MTLComputePipelineDescriptor *)descriptor_;
  int64_t swept = 0, harvested = 0;
  pthread_mutex_lock(&lock);
  archive *a = archive_of((__bridge id<MTLDevice>)device_);
  if (a && [(__bridge id<MTLBinaryArchive>)a->archive
               addComputePipelineFunctionsWithDescriptor:descriptor
                                                   error:nil]) {
    harvested = 1;
    a->harvests++;
    if (++a->unsaved >= SERIALIZE_EVERY) serialize(a);
    if (a->harvests % SWEEP_EVERY == 0) swept = sweep();
  }
  pthread_mutex_unlock(&lock);
  am_kernel_stats_archive(harvested, swept);
}
