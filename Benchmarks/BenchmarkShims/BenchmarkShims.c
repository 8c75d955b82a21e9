#include "BenchmarkShims.h"
#if defined(__GLIBC__)
#include <malloc.h>
long observant_bench_heap_bytes_in_use(void) { return (long)mallinfo2().uordblks; }
#else
long observant_bench_heap_bytes_in_use(void) { return -1; }
#endif
