#include "BenchmarkShims.h"
#if defined(__GLIBC__)
#include <malloc.h>
long observant_bench_heap_bytes_in_use(void) {
  struct mallinfo2 info = mallinfo2();
  // Chunks in use in the arenas, plus blocks too large for them (mmapped: big arrays and tables).
  return (long)(info.uordblks + info.hblkhd);
}
#else
long observant_bench_heap_bytes_in_use(void) { return -1; }
#endif
