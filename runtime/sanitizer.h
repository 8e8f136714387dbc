/* sanitizer.h — whether AddressSanitizer instruments this build (BOLT_ASAN),
 * and its poisoning of memory a cache keeps for reuse, so that a use after
 * the memory was given back still reports (no-ops in other builds). */
#ifndef BOLT_SANITIZER_H
#define BOLT_SANITIZER_H

#if defined(__SANITIZE_ADDRESS__)
#define BOLT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BOLT_ASAN 1
#endif
#endif

#ifdef BOLT_ASAN
#include <sanitizer/asan_interface.h>
#define BOLT_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define BOLT_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define BOLT_POISON(p, n) ((void)(p), (void)(n))
#define BOLT_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#endif
