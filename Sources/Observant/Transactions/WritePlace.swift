/// Where a write to a value-type field was made, as a number: the place of the value whose field
/// changed (see `WriteRecord.lastPlace`). 0 is "not known".
///
/// A place is a path from live storage, not an address: a class's `@Tracked` property or a store's
/// root state (their storage's address), then the field of a value (its storage's offset from the
/// value's registrar, the same in every copy), then the element of an identified array (its
/// identity). Two copies of one state stored in two places (`a.x = 5` then `b = a`) have two
/// places, even where a collection lends its elements from a temporary (an identified array moves
/// an element out of its storage while it is mutated by id, so addresses of elements in a mutation
/// say nothing: two mutations of two arrays may lend from the same stack slot). The same place
/// reached again (the same element of the same field of the same object, in a later mutation) has
/// the same number.
///
/// Writes found by comparing two copies (`ContentDiff`) compute the place the same way from the
/// storage the value is assigned to, so a write made in place and a set-back found by assigning a
/// saved copy there agree.
@usableFromInline
internal enum _WritePlace {
  /// The place of live storage at `address` (a class's property, a store's root state).
  @inlinable @inline(__always)
  static func root(_ address: UnsafeRawPointer) -> UInt64 {
    UInt64(UInt(bitPattern: address)) | 1 &<< 63
  }

  /// The place of the field stored `offset` bytes from the registrar of the value at `parent`.
  @inlinable @inline(__always)
  static func field(of parent: UInt64, offset: Int) -> UInt64 {
    parent == 0 ? 0 : mix(parent, UInt64(bitPattern: Int64(offset)) &+ 0x5bd1_e995)
  }

  /// The place of the element with instance identity `identity` of the collection at `container`.
  @inlinable @inline(__always)
  static func element(of container: UInt64, identity: UInt64) -> UInt64 {
    container == 0 ? 0 : mix(container, identity ^ 0xc2b2_ae3d_27d4_eb4f)
  }

  @inlinable @inline(__always)
  static func mix(_ parent: UInt64, _ step: UInt64) -> UInt64 {
    var mixed = (parent ^ (step &* 0x9E37_79B9_7F4A_7C15)) &* 0xBF58_476D_1CE4_E5B9
    mixed ^= mixed >> 31
    return mixed == 0 ? 1 : mixed
  }
}
