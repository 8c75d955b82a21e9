/// Formats a collection the way `Array` does (`[1, 2]`, `["a", "b"]`), optionally wrapped in a
/// type name (`OrderedSet<Int>([1, 2])`). One formatter serves every collection in this module.
internal func _describeElements(_ elements: some Sequence, typeName: String? = nil) -> String {
  var result = typeName.map { "\($0)([" } ?? "["
  var isFirst = true
  for element in elements {
    if !isFirst { result += ", " }
    isFirst = false
    debugPrint(element, terminator: "", to: &result)
  }
  result += typeName == nil ? "]" : "])"
  return result
}
