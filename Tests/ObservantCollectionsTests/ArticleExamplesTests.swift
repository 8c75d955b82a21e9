import ObservantCollections
import Testing

// The code of the ObservantCollections catalog (Sources/ObservantCollections/ObservantCollections.docc),
// verbatim (`ArticleCodeTests` in ObservantTests checks that it is here).

@Suite("Article: ObservantCollections")
struct CollectionsArticle {
  @Test("the overview: look-up by id, in-place mutation, removal by id")
  func overview() {
    struct Todo: Identifiable { let id: Int; var title: String; var isDone = false }

    var todos: IdentifiedArrayOf<Todo> = [Todo(id: 1, title: "Milk"), Todo(id: 2, title: "Eggs")]
    todos[id: 2]!.isDone = true  // in place: no search, no copy of the array or the element
    todos.remove(id: 1)

    #expect(todos.ids == [2])
    #expect(todos[id: 2]?.isDone == true)
  }
}
