/* The library is built with hidden visibility; only definitions marked
 * AM_EXPORT -- the functions of include/arrowmetal.h -- are exported. */
#ifndef AM_CORE_EXPORT_H
#define AM_CORE_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define AM_EXPORT __attribute__((visibility("default")))
#else
#define AM_EXPORT
#endif

#endif
