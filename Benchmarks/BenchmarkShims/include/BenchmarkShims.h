#ifndef OBSERVANT_BENCHMARK_SHIMS_H
#define OBSERVANT_BENCHMARK_SHIMS_H
#include <stdlib.h>
/// Bytes currently allocated by malloc, mmapped blocks included (glibc mallinfo2), or -1 where
/// unavailable.
long observant_bench_heap_bytes_in_use(void);
#endif
