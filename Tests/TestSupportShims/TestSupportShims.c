#include "TestSupportShims.h"
#include <stdlib.h>  // defines __GLIBC__ (tested below) on glibc systems
#if defined(__GLIBC__)
#include <malloc.h>
long observant_test_heap_bytes_in_use(void) {
  struct mallinfo2 info = mallinfo2();
  return (long)(info.uordblks + info.hblkhd);
}
#else
long observant_test_heap_bytes_in_use(void) { return -1; }
#endif
