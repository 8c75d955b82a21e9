/// An ordered, random-access collection of elements that are unique by an identifier, with O(1)
/// expected look-up by id and O(1) change detection.
///
/// Index paths go stale when rows move; ids do not. An `IdentifiedArray` is an array you address by
/// id as well as by position:
///
/// ```swift
/// struct Todo: Identifiable { let id: Int; var title: String; var isDone = false }
///
/// var todos: IdentifiedArrayOf<Todo> = [Todo(id: 1, title: "Milk"), Todo(id: 2, title: "Eggs")]
/// todos[id: 2]?.isDone = true          // in place: no search, no copy of the array or the element
/// todos.append(Todo(id: 3, title: "Tea"))
/// todos.remove(id: 1)
/// ```
///
/// Ids are unique: adding an element whose id is present does nothing (``append(_:)``), replaces it
/// (``updateOrAppend(_:)``), or is rejected loudly where a duplicate can only be a bug
/// (``init(uniqueElements:id:)``, array literals, and changing an element's id through a subscript).
///
/// ## Change detection
///
/// Every array carries two stamps, copied along with it, that answer "did anything change?" in O(1):
/// - ``version`` changes on every mutation, so equal versions mean identical content
///   (``isIdentical(to:)``); `==` uses it to skip comparing elements.
/// - ``structuralVersion`` changes only when ids are added, removed or reordered, or when an
///   element is replaced by a different value (a different ``InstanceIdentity``; any replacement
///   when `Element` is not ``InstanceIdentifiable``). Mutating an identifiable element in place
///   leaves it alone, so ``hasSameStructure(as:)`` tells an observer of the array's shape that only
///   element fields changed — changes the elements report themselves.
///
/// ## Not a MutableCollection
///
/// `IdentifiedArray` is a `RandomAccessCollection` with `Int` indices but deliberately not a
/// `MutableCollection` or `RangeReplaceableCollection`: their generic algorithms write elements
/// through the positional subscript in ways that would duplicate or change ids. The safe operations
/// are provided directly: ``swapAt(_:_:)``, ``sort(by:)``, ``move(fromOffsets:toOffset:)``,
/// ``removeAll(where:)``, ``filter(_:)`` and so on.
public struct IdentifiedArray<ID: Hashable, Element> {
  /// The id of each element, in the same order as `_elements`.
  @usableFromInline
  internal var _ids: OrderedSet<ID>

  /// The elements.
  @usableFromInline
  internal var _elements: ContiguousArray<Element>

  /// Reads the id of the element at a pointer, in place (see `_id(at:)` and `_id(of:)`).
  @usableFromInline
  internal let _readID: @Sendable (UnsafePointer<Element>) -> ID

  /// Refreshed by every mutation; see ``version``.
  @usableFromInline
  internal var _version: UInt64

  /// Refreshed by structural mutations only; see ``structuralVersion``.
  @usableFromInline
  internal var _structuralVersion: UInt64

  /// Refreshed when the ids or their order change; see ``idsVersion``.
  @usableFromInline
  internal var _idsVersion: UInt64

  /// The record of structural changes, once ``recordStructuralChanges()`` started it.
  @usableFromInline
  internal var _journal: _StructuralJournal<ID>?

  /// Creates an array from parallel ids and elements, which must agree.
  @inlinable
  internal init(
    _ids ids: OrderedSet<ID>, elements: ContiguousArray<Element>,
    readID: @escaping @Sendable (UnsafePointer<Element>) -> ID
  ) {
    _ids = ids
    _elements = elements
    _readID = readID
    let stamp = elements.isEmpty ? _VersionStamp.empty : _VersionStamp.next()
    _version = stamp
    _structuralVersion = stamp
    _idsVersion = stamp
    _journal = nil
  }
}

/// An ``IdentifiedArray`` of `Identifiable` elements, keyed by their `id`.
public typealias IdentifiedArrayOf<Element: Identifiable> = IdentifiedArray<Element.ID, Element>

// Swift checks a `Sendable` conformance only in the file that declares the type, so it lives here.
/// An identified array is sendable when its ids and elements are: it is a value type whose
/// storage is copied on write, and its id extractor is `@Sendable`.
extension IdentifiedArray: Sendable where ID: Sendable, Element: Sendable {}

extension IdentifiedArray {
  /// The ids of the elements, in order.
  ///
  /// - Complexity: O(1): the set shares the array's storage.
  @inlinable
  public var ids: OrderedSet<ID> { _ids }

  /// The elements, in order, as an array.
  ///
  /// - Complexity: O(1): the array shares the identified array's storage.
  @inlinable
  public var elements: [Element] { Array(_elements) }

  /// The position of the element with the given id, or `nil` if there is none.
  ///
  /// - Complexity: O(1) expected.
  @inlinable
  public func index(id: ID) -> Int? {
    _ids.firstIndex(of: id)
  }

  /// Reserves room for `minimumCapacity` elements, so that adding that many does not reallocate.
  ///
  /// Does not change ``version``: the content stays the same.
  ///
  /// - Complexity: O(*n*) when storage has to grow, where *n* is the number of elements.
  @inlinable
  public mutating func reserveCapacity(_ minimumCapacity: Int) {
    _ids.reserveCapacity(minimumCapacity)
    _elements.reserveCapacity(minimumCapacity)
  }

  /// An identifier of the element storage: equal for arrays that share it. Used by the `==` fast
  /// path and by tests that check that mutations happen in place.
  @inlinable
  internal var _elementStorageIdentity: UnsafeRawPointer? {
    _elements.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
  }

  /// An identifier of the id storage, for tests that check that mutations happen in place.
  @inlinable
  internal var _idStorageIdentity: UnsafeRawPointer? {
    _ids._storageIdentity
  }
}
