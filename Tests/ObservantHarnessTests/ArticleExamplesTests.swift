import Observant
import ObservantHarness
import Testing

// The code of the ObservantHarness catalog (Sources/ObservantHarness/ObservantHarness.docc),
// verbatim (`ArticleCodeTests` in ObservantTests checks that it is here).

@Suite("Article: ObservantHarness")
struct HarnessArticle {
  final class Profile: Trackable {
    let trackingRegistrar = TrackingRegistrar()
    @Tracked var name = "Ada"
    @Tracked var followers = 0
    @Tracked var isOnline = false
  }

  @Test("the overview: one body per changed field, nothing for an equal value")
  func overview() {
    let profile = Profile()
    let tree = RenderTree("Screen") { screen in
      screen.child("Header") { $0.text(profile.name) }
      screen.child("Stats") { $0.text("\(profile.followers) followers") }
      screen.child("Badge") { $0.text(profile.isOnline ? "online" : "away") }
    }
    tree.step("follow") { profile.followers += 1 }
    tree.step("rename, go online") {
      profile.name = "Ada Lovelace"
      profile.isOnline = true
    }
    tree.step("same value") { profile.followers += 0 }
    print(tree.log)
    // initial: Screen.body x1, Header.body x1, Stats.body x1, Badge.body x1
    // follow: Stats.body x1
    // rename, go online: Header.body x1, Badge.body x1
    // same value: nothing ran

    #expect(
      tree.log.description == """
        initial: Screen.body x1, Header.body x1, Stats.body x1, Badge.body x1
        follow: Stats.body x1
        rename, go online: Header.body x1, Badge.body x1
        same value: nothing ran
        """)
    #expect(tree.output(of: "Stats") == "1 followers")
  }
}
