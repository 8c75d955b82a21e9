#include "ObservantShims.h"
#include <pthread.h>
#include <stddef.h>

_Thread_local void *_observant_current_recorder OBSERVANT_TLS = NULL;
_Thread_local void *_observant_current_context OBSERVANT_TLS = NULL;

static pthread_key_t context_key;
static pthread_once_t context_key_once = PTHREAD_ONCE_INIT;
static void (*context_release)(void *) = NULL;

static void context_destructor(void *context) {
  _observant_current_context = NULL;
  if (context != NULL && context_release != NULL) {
    context_release(context);
  }
}

static void make_context_key(void) { pthread_key_create(&context_key, context_destructor); }

void observant_context_install(void *context, void (*release)(void *)) {
  pthread_once(&context_key_once, make_context_key);
  context_release = release;
  _observant_current_context = context;
  // The pthread slot exists only so the context is released at thread exit.
  pthread_setspecific(context_key, context);
}
