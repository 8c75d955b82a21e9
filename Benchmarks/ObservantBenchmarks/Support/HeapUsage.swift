import _BenchmarkShims

/// Bytes currently allocated on the heap, or `nil` where the platform cannot tell.
func heapBytesInUse() -> Int? {
  let bytes = observant_bench_heap_bytes_in_use()
  return bytes < 0 ? nil : bytes
}

/// Heap bytes retained per item by `make(count)`, which must return everything it allocated
/// (it is kept alive while measuring).
func heapBytesPerItem<Kept>(count: Int, _ make: (Int) -> Kept) -> Double? {
  guard let before = heapBytesInUse() else { return nil }
  let kept = make(count)
  guard let after = heapBytesInUse() else { return nil }
  withExtendedLifetime(kept) {}
  return Double(after - before) / Double(count)
}
