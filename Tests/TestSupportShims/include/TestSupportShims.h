#ifndef OBSERVANT_TEST_SUPPORT_SHIMS_H
#define OBSERVANT_TEST_SUPPORT_SHIMS_H
/// Bytes currently allocated by malloc, mmapped blocks included (glibc mallinfo2), or -1 where
/// unavailable. For the leak tests' heap measurements.
long observant_test_heap_bytes_in_use(void);
#endif
