#include "BridgeTestShims.h"
#include "ObservantShims.h"

// The observation bridge's tests share a process with every other test, which expect no bridge
// and run at the same time. They turn the bridge on for their own tasks only
// (`ObservationBridge.withBridgeForTesting`), but the accessors' switch is process-wide and read
// with plain loads: it may change only while no other thread reads tracked fields. So it is set
// here, before `main`, when no other thread exists. Until a bridge test installs the bridge,
// reads only pass the switch and find nothing installed; afterwards only the bridge tests' tasks
// are reported.

static int switch_set_at_launch = 0;

__attribute__((constructor)) static void observant_bridge_tests_set_switch(void) {
  observant_bridge_set_enabled(1);
  switch_set_at_launch = 1;
}

int observant_bridge_tests_switch_set_at_launch(void) { return switch_set_at_launch; }
