#ifndef OBSERVANT_BRIDGE_TEST_SHIMS_H
#define OBSERVANT_BRIDGE_TEST_SHIMS_H
/// Nonzero once this process's constructor turned the observation bridge's switch on (see
/// BridgeTestShims.c).
int observant_bridge_tests_switch_set_at_launch(void);
#endif
